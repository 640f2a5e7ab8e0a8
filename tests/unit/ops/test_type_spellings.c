/* One type grammar: every spelling means the same type in CAST, in ::, in
 * a DDL column list and as a DDL type alone (BOOL once worked only in DDL
 * and DOUBLE PRECISION only in CAST). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>
#include <stdio.h>
#include <string.h>
#include "expr/ast.h"
#include "ops/ddl.h"
#include "util/error.h"
#include "unit/type_spellings.h"

static dl_type *cast_type(const char *fmt, const char *spelling, dl_expr **e)
{
	char sql[512];
	snprintf(sql, sizeof sql, fmt, spelling);
	if (dl_expr_parse(e, sql) < 0) {
		fprintf(stderr, "%s: %s\n", sql, dl_error_last()->message);
		return NULL;
	}
	return (*e)->root->to;
}

static void test_every_spelling_everywhere(void **state)
{
	(void)state;
	for (size_t i = 0; i < sizeof type_spellings / sizeof type_spellings[0]; i++) {
		const char *sp = type_spellings[i][0], *want = type_spellings[i][1];
		char text[512];
		dl_expr *e1, *e2;
		dl_type *c1 = cast_type("CAST(x AS %s)", sp, &e1);
		dl_type *c2 = cast_type("x::%s", sp, &e2);
		assert_non_null(c1);
		assert_non_null(c2);
		dl_type *d1, *schema;
		int rc = dl_ddl_parse_type(&d1, sp);
		if (rc < 0) fprintf(stderr, "DDL type %s: %s\n", sp, dl_error_last()->message);
		assert_int_equal(rc, 0);
		snprintf(text, sizeof text, "c %s NOT NULL", sp);
		assert_int_equal(dl_ddl_parse_schema(&schema, text), 0);
		char got[256];
		dl_type_sql(c1, got, sizeof got);
		if (strcmp(got, want) != 0) fprintf(stderr, "%s: want %s, got %s\n", sp, want, got);
		assert_string_equal(got, want);
		assert_true(dl_type_equals(c1, c2));
		assert_true(dl_type_equals(c1, d1));
		assert_true(dl_type_equals(c1, schema->children[0].type));
		assert_false(schema->children[0].nullable);
		dl_type_unref(d1);
		dl_type_unref(schema);
		dl_expr_free(e1);
		dl_expr_free(e2);
	}
}

static void test_bad_spellings_everywhere(void **state)
{
	(void)state;
	for (size_t i = 0; i < sizeof bad_type_spellings / sizeof bad_type_spellings[0]; i++) {
		const char *sp = bad_type_spellings[i];
		char sql[256];
		dl_expr *e;
		dl_type *t;
		snprintf(sql, sizeof sql, "CAST(x AS %s)", sp);
		assert_int_equal(dl_expr_parse(&e, sql), DL_EINVALID);
		assert_true(dl_ddl_parse_type(&t, sp) < 0);
	}
}

/* Struct field options come through the shared grammar into the schema. */
static void test_struct_field_options(void **state)
{
	(void)state;
	dl_type *t;
	assert_int_equal(dl_ddl_parse_type(&t, "STRUCT<a: INT NOT NULL COMMENT 'the a', b GEOMETRY(EPSG:3857)>"), 0);
	assert_false(t->children[0].nullable);
	assert_non_null(strstr(t->children[0].metadata, "\"comment\":\"the a\""));
	assert_true(t->children[1].nullable);
	assert_non_null(t->children[1].type->geo);
	dl_type_unref(t);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_every_spelling_everywhere),
	    cmocka_unit_test(test_bad_spellings_everywhere),
	    cmocka_unit_test(test_struct_field_options),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
