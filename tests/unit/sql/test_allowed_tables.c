/* dl_sql_options version 2, allowed_tables: a connection confined to some
 * Delta tables reads them (by any spelling of their path, any version) and
 * range(), and refuses every other reference with DL_EPERM: other paths,
 * files, catalog names, table_changes, also inside subqueries; a version-1
 * caller's struct (without the field) is unconfined. */
#include "session_test_util.h"

static void confined(void **state)
{
	session_fixture *f = *state;
	char t[96], u[96], sql[1024];
	snprintf(t, sizeof t, "%s/t", f->dir);
	snprintf(u, sizeof u, "%s/u", f->dir);
	snprintf(sql, sizeof sql, "CREATE TABLE delta.`%s` (id INT); INSERT INTO delta.`%s` VALUES (1), (2);"
	         "CREATE TABLE delta.`%s` (id INT); INSERT INTO delta.`%s` VALUES (3)", t, t, u, u);
	struct ArrowArrayStream st;
	const char *p = sql;
	/* run the setup statements one by one on the unconfined connection */
	while (p && *p) {
		dl_sql_stmt *s = NULL;
		const char *tail = NULL;
		assert_int_equal(dl_sql_prepare(&s, &tail, f->db, p), 0);
		if (!s) break;
		assert_int_equal(dl_sql_stmt_execute(&st, s), 0);
		st.release(&st);
		dl_sql_stmt_free(s);
		p = tail;
	}
	const char *tables[] = {t};
	dl_sql_options o = DL_SQL_OPTIONS_INIT;
	o.warehouse = f->warehouse;
	o.allowed_tables = tables;
	o.nallowed_tables = 1;
	dl_sql_conn *c;
	assert_int_equal(dl_sql_open(&c, &o), 0);
	char *text = NULL;
	snprintf(sql, sizeof sql, "SELECT count(*) FROM delta.`%s/./` VERSION AS OF 1", t);
	assert_int_equal(dl_sql_execute(&st, c, sql), 0);
	assert_int_equal(read_all(&text, &st, false), 0);
	assert_string_equal(text, "2\n");
	free(text);
	assert_int_equal(dl_sql_execute(&st, c, "SELECT sum(id) FROM range(4)"), 0);
	st.release(&st);
	const char *refused[] = {"SELECT * FROM delta.`%s`", "SELECT * FROM parquet.`%s`",
	                         "SELECT * FROM delta.`%s/../u`", "SELECT 1 WHERE 1 IN (SELECT id FROM delta.`%s`)",
	                         "SELECT * FROM table_changes('%s', 0)"};
	for (size_t i = 0; i < sizeof refused / sizeof *refused; i++) {
		snprintf(sql, sizeof sql, refused[i], i == 2 ? t : u);
		int rc = dl_sql_execute(&st, c, sql);
		if (rc == 0) {
			/* refused when the stream starts reading, if not at planning */
			char *x = NULL;
			rc = read_all(&x, &st, false);
			free(x);
		}
		assert_int_equal(rc, DL_EPERM);
		assert_non_null(strstr(dl_error_last()->message, "allowed_tables"));
	}
	assert_int_equal(dl_sql_execute(&st, c, "SELECT * FROM default.x"), DL_EPERM);
	dl_sql_close(c);

	/* a version-1 struct: no confinement */
	dl_sql_options v1 = DL_SQL_OPTIONS_INIT;
	v1.version = 1;
	v1.warehouse = f->warehouse;
	assert_int_equal(dl_sql_open(&c, &v1), 0);
	snprintf(sql, sizeof sql, "SELECT count(*) FROM delta.`%s`", u);
	assert_int_equal(dl_sql_execute(&st, c, sql), 0);
	assert_int_equal(read_all(&text, &st, false), 0);
	assert_string_equal(text, "1\n");
	free(text);
	dl_sql_close(c);
}

int main(void)
{
	const struct CMUnitTest tests[] = {cmocka_unit_test_setup_teardown(confined, fixture_setup, fixture_teardown)};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
