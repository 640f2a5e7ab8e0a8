/* The public schema walk (deltalake/schema.h). */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <string.h>
#include "deltalake/schema.h"

static void walks_nested_fields(void **state)
{
	(void)state;
	const char *json =
	    "{\"type\":\"struct\",\"fields\":["
	    "{\"name\":\"id\",\"type\":\"long\",\"nullable\":false,\"metadata\":{\"comment\":\"key\"}},"
	    "{\"name\":\"s\",\"type\":{\"type\":\"struct\",\"fields\":[{\"name\":\"a\",\"type\":\"integer\",\"nullable\":true,"
	    "\"metadata\":{}},{\"name\":\"t\",\"type\":{\"type\":\"struct\",\"fields\":[{\"name\":\"z\",\"type\":\"string\","
	    "\"nullable\":true,\"metadata\":{}}]},\"nullable\":true,\"metadata\":{}}]},\"nullable\":true,\"metadata\":{}},"
	    "{\"name\":\"l\",\"type\":{\"type\":\"array\",\"elementType\":{\"type\":\"struct\",\"fields\":[{\"name\":\"q\","
	    "\"type\":\"decimal(10,2)\",\"nullable\":true,\"metadata\":{}}]},\"containsNull\":true},\"nullable\":true,"
	    "\"metadata\":{}}]}";
	dl_schema *s;
	assert_int_equal(dl_schema_parse_json(&s, json), 0);
	assert_int_equal(dl_schema_column_count(s), 3);
	assert_int_equal(dl_schema_field_count(s), 7);
	dl_schema_field f;
	assert_int_equal(dl_schema_field_at(&f, s, 0), 0);
	assert_string_equal(f.name, "id");
	assert_string_equal(f.type_sql, "BIGINT");
	assert_false(f.nullable);
	assert_string_equal(f.metadata, "{\"comment\":\"key\"}");
	assert_int_equal(f.parent, DL_SCHEMA_NO_PARENT);
	assert_int_equal(f.nchildren, 0);
	assert_int_equal(dl_schema_field_at(&f, s, 1), 0);
	assert_string_equal(f.type_sql, "STRUCT<a: INT, t: STRUCT<z: STRING>>");
	assert_int_equal(f.nchildren, 2);
	size_t first = f.first_child;
	assert_int_equal(dl_schema_field_at(&f, s, first), 0);
	assert_string_equal(f.name, "a");
	assert_int_equal(f.parent, 1);
	assert_int_equal(f.depth, 1);
	assert_int_equal(dl_schema_field_at(&f, s, first + 1), 0);
	assert_string_equal(f.name, "t");
	assert_int_equal(f.nchildren, 1);
	assert_int_equal(dl_schema_field_at(&f, s, f.first_child), 0);
	assert_string_equal(f.name, "z");
	assert_int_equal(f.depth, 2);
	/* an array of structs: its children are the element's fields */
	assert_int_equal(dl_schema_field_at(&f, s, 2), 0);
	assert_string_equal(f.type_sql, "ARRAY<STRUCT<q: DECIMAL(10,2)>>");
	assert_int_equal(f.nchildren, 1);
	assert_int_equal(dl_schema_field_at(&f, s, f.first_child), 0);
	assert_string_equal(f.name, "q");
	assert_string_equal(f.metadata, "{}");
	assert_int_equal(dl_schema_field_at(&f, s, 7), DL_EINVALID);
	dl_schema_free(s);
}

static void rejects_non_schemas(void **state)
{
	(void)state;
	dl_schema *s;
	assert_true(dl_schema_parse_json(&s, "{\"type\":\"struct\",\"fields\":[{\"name\":\"a\",\"type\":\"nonsense\"}]}") < 0);
	assert_null(s);
	assert_true(dl_schema_parse_json(&s, "not json") < 0);
	assert_int_equal(dl_schema_parse_json(&s, NULL), DL_EINVALID);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(walks_nested_fields),
		cmocka_unit_test(rejects_non_schemas),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
