/* The SQL layer reads types through the one type grammar: every spelling
 * means the same in CREATE TABLE columns, ALTER COLUMN TYPE and CAST. */
#include "sql_test_util.h"
#include "unit/type_spellings.h"

static void test_every_spelling(void **state)
{
	(void)state;
	for (size_t i = 0; i < sizeof type_spellings / sizeof type_spellings[0]; i++) {
		const char *sp = type_spellings[i][0], *want = type_spellings[i][1];
		char sql[512];
		snprintf(sql, sizeof sql,
		         "CREATE TABLE t (c %s NOT NULL) USING DELTA; ALTER TABLE t ALTER COLUMN c TYPE %s; "
		         "SELECT CAST(c AS %s), c::%s FROM t",
		         sp, sp, sp, sp);
		dl_sql_script *s;
		int rc = dl_sql_parse(&s, sql);
		if (rc < 0) fprintf(stderr, "%s\n%s\n", sql, dl_error_last()->message);
		assert_int_equal(rc, 0);
		const dl_type *col = dl_sql_script_stmt(s, 0)->cols[0].type;
		const dl_type *alt = dl_sql_script_stmt(s, 1)->cols[0].type;
		const sql_select *sel = dl_sql_script_stmt(s, 2)->query->select;
		char got[256];
		dl_type_sql(col, got, sizeof got);
		assert_string_equal(got, want);
		assert_true(dl_sql_script_stmt(s, 0)->cols[0].not_null);
		assert_true(dl_type_equals(col, alt));
		assert_true(dl_type_equals(col, sel->items[0].expr->to));
		assert_true(dl_type_equals(col, sel->items[1].expr->to));
		/* and the printed column definition reads back to the same type */
		dl_buf b = DL_BUF_INIT;
		assert_int_equal(dl_sql_print(&b, dl_sql_script_stmt(s, 0)), 0);
		dl_sql_script *again = parse1(b.data);
		assert_true(dl_type_equals(col, STMT(again)->cols[0].type));
		dl_sql_script_free(again);
		dl_buf_free(&b);
		dl_sql_script_free(s);
	}
	for (size_t i = 0; i < sizeof bad_type_spellings / sizeof bad_type_spellings[0]; i++) {
		char sql[256];
		snprintf(sql, sizeof sql, "CREATE TABLE t (c %s)", bad_type_spellings[i]);
		assert_null(canon(sql));
		assert_non_null(strstr(dl_error_last()->message, "line 1, column"));
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_every_spelling),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
