#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <string.h>
#include "columnar/types.h"
#include "util/error.h"

static dl_type *prim(dl_type_id id)
{
	dl_type *t = dl_type_new(id);
	assert_non_null(t);
	return t;
}

static void names_of_every_primitive(void **state)
{
	(void)state;
	const char *expect[] = {"void", "boolean", "byte", "short", "integer", "long", "float", "double",
	                        "decimal", "string", "binary", "date", "timestamp", "timestamp_ntz",
	                        "struct", "array", "map", "variant"};
	for (int i = 0; i <= DL_TYPE_VARIANT; i++) assert_string_equal(dl_type_id_name((dl_type_id)i), expect[i]);
	char buf[64];
	dl_type *d = dl_type_decimal(10, 2);
	dl_type_name(d, buf, sizeof buf);
	assert_string_equal(buf, "decimal(10,2)");
	dl_type_sql(d, buf, sizeof buf);
	assert_string_equal(buf, "DECIMAL(10,2)");
	dl_type_unref(d);
	const char *sql[] = {"VOID", "BOOLEAN", "TINYINT", "SMALLINT", "INT", "BIGINT", "FLOAT", "DOUBLE"};
	for (int i = 0; i <= DL_TYPE_DOUBLE; i++) {
		dl_type *t = prim((dl_type_id)i);
		dl_type_sql(t, buf, sizeof buf);
		assert_string_equal(buf, sql[i]);
		dl_type_unref(t);
	}
}

static void nested_sql_spelling(void **state)
{
	(void)state;
	dl_type *i32 = prim(DL_TYPE_INTEGER), *str = prim(DL_TYPE_STRING), *ts = prim(DL_TYPE_TIMESTAMP_NTZ);
	dl_type *arr = dl_type_array(i32, true);
	dl_type *map = dl_type_map(str, arr, false);
	dl_type *var = dl_type_variant();
	dl_field f[] = {{"a", i32, true, NULL}, {"my col", map, false, "{\"comment\":\"x\"}"},
	                {"t", ts, true, NULL}, {"v", var, true, NULL}};
	dl_type *st = dl_type_struct(f, 4);
	assert_non_null(st);
	char buf[256];
	dl_type_sql(st, buf, sizeof buf);
	assert_string_equal(buf, "STRUCT<a: INT, `my col`: MAP<STRING, ARRAY<INT>>, t: TIMESTAMP_NTZ, v: VARIANT>");
	assert_string_equal(st->children[1].metadata, "{\"comment\":\"x\"}");
	assert_string_equal(st->children[0].metadata, "{}");
	/* Truncation keeps a terminated prefix. */
	char small[8];
	dl_type_sql(st, small, sizeof small);
	assert_string_equal(small, "STRUCT<");
	assert_int_equal(dl_type_field_index(st, "MY COL"), 1);
	assert_int_equal(dl_type_field_index(st, "A"), 0);
	assert_int_equal(dl_type_field_index(st, "zz"), -1);
	assert_int_equal(var->nchildren, 2);
	assert_string_equal(var->children[0].name, "value");
	assert_string_equal(var->children[1].name, "metadata");
	assert_int_equal(map->children[0].nullable, false);
	assert_int_equal(map->children[1].nullable, false);
	assert_int_equal(arr->children[0].nullable, true);
	dl_type_unref(i32);
	dl_type_unref(str);
	dl_type_unref(ts);
	dl_type_unref(arr);
	dl_type_unref(map);
	dl_type_unref(var);
	/* The struct still holds its references. */
	dl_type_sql(st, buf, sizeof buf);
	assert_string_equal(buf, "STRUCT<a: INT, `my col`: MAP<STRING, ARRAY<INT>>, t: TIMESTAMP_NTZ, v: VARIANT>");
	dl_type_unref(st);
}

static void equality_and_refcount(void **state)
{
	(void)state;
	dl_type *a = dl_type_decimal(10, 2), *b = dl_type_decimal(10, 2), *c = dl_type_decimal(10, 3);
	assert_true(dl_type_equals(a, b));
	assert_false(dl_type_equals(a, c));
	dl_type *l1 = dl_type_array(a, true), *l2 = dl_type_array(b, true), *l3 = dl_type_array(b, false);
	assert_true(dl_type_equals(l1, l2));
	assert_false(dl_type_equals(l1, l3));
	dl_field f1 = {"x", l1, true, "{\"comment\":\"c\"}"}, f2 = {"x", l2, true, NULL}, f3 = {"X", l2, true, NULL};
	dl_type *s1 = dl_type_struct(&f1, 1), *s2 = dl_type_struct(&f2, 1), *s3 = dl_type_struct(&f3, 1);
	assert_true(dl_type_equals(s1, s2)); /* metadata is not compared */
	assert_false(dl_type_equals(s1, s3));
	assert_int_equal(dl_type_ref(s1)->refcount, 2);
	dl_type_unref(s1);
	assert_int_equal(s1->refcount, 1);
	dl_type *all[] = {a, b, c, l1, l2, l3, s1, s2, s3};
	for (size_t i = 0; i < sizeof all / sizeof *all; i++) dl_type_unref(all[i]);
}

static void invalid_types_fail_cleanly(void **state)
{
	(void)state;
	assert_null(dl_type_decimal(39, 0));
	assert_int_equal(dl_error_last()->code, DL_EINVALID);
	assert_null(dl_type_decimal(5, 6));
	assert_null(dl_type_new(DL_TYPE_ARRAY));
	assert_null(dl_type_array(NULL, true));
	dl_type *d = dl_type_new(DL_TYPE_DECIMAL);
	assert_int_equal(d->precision, 10);
	assert_int_equal(dl_type_fixed_width(d), 16);
	assert_true(dl_type_is_numeric(d));
	assert_false(dl_type_is_integral(d));
	dl_type_unref(d);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(names_of_every_primitive),
		cmocka_unit_test(nested_sql_spelling),
		cmocka_unit_test(equality_and_refcount),
		cmocka_unit_test(invalid_types_fail_cleanly),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
