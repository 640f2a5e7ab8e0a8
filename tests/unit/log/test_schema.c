/* Delta schema JSON <-> dl_type and field metadata helpers. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <string.h>
#include "log/schema.h"
#include "util/error.h"

static const char *protocol_example =
	"{\"type\":\"struct\",\"fields\":["
	"{\"name\":\"a\",\"type\":\"integer\",\"nullable\":false,\"metadata\":{}},"
	"{\"name\":\"b\",\"type\":{\"type\":\"struct\",\"fields\":[{\"name\":\"d\",\"type\":\"integer\","
	"\"nullable\":false,\"metadata\":{}}]},\"nullable\":true,\"metadata\":{}},"
	"{\"name\":\"c\",\"type\":{\"type\":\"array\",\"elementType\":\"integer\",\"containsNull\":false},"
	"\"nullable\":true,\"metadata\":{}},"
	"{\"name\":\"e\",\"type\":{\"type\":\"array\",\"elementType\":{\"type\":\"struct\",\"fields\":"
	"[{\"name\":\"d\",\"type\":\"integer\",\"nullable\":false,\"metadata\":{}}]},\"containsNull\":true},"
	"\"nullable\":true,\"metadata\":{}},"
	"{\"name\":\"f\",\"type\":{\"type\":\"map\",\"keyType\":\"string\",\"valueType\":\"string\","
	"\"valueContainsNull\":true},\"nullable\":true,\"metadata\":{}}]}";

static void nested_schema_round_trip(void **state)
{
	(void)state;
	dl_type *t;
	assert_int_equal(dl_schema_parse(&t, protocol_example, strlen(protocol_example)), 0);
	assert_int_equal(t->id, DL_TYPE_STRUCT);
	assert_int_equal(t->nchildren, 5);
	assert_false(t->children[0].nullable);
	assert_int_equal(t->children[1].type->id, DL_TYPE_STRUCT);
	assert_int_equal(t->children[2].type->id, DL_TYPE_ARRAY);
	assert_false(t->children[2].type->children[0].nullable);
	assert_int_equal(t->children[4].type->id, DL_TYPE_MAP);
	assert_int_equal(t->children[4].type->children[1].type->id, DL_TYPE_STRING);
	dl_buf b = DL_BUF_INIT;
	assert_int_equal(dl_schema_to_json(&b, t), 0);
	assert_string_equal(b.data, protocol_example);
	dl_buf_free(&b);
	dl_type_unref(t);
}

static void primitive_names(void **state)
{
	(void)state;
	dl_type_id id;
	int p, s;
	assert_int_equal(dl_schema_primitive_from_name("decimal(10,2)", &id, &p, &s), 0);
	assert_int_equal(id, DL_TYPE_DECIMAL);
	assert_int_equal(p, 10);
	assert_int_equal(s, 2);
	assert_int_equal(dl_schema_primitive_from_name("decimal(38, 18)", &id, &p, &s), 0);
	assert_int_equal(s, 18);
	assert_int_equal(dl_schema_primitive_from_name("decimal(39,1)", &id, &p, &s), DL_EUNSUPPORTED);
	assert_int_equal(dl_schema_primitive_from_name("timestamp_ntz", &id, &p, &s), 0);
	assert_int_equal(id, DL_TYPE_TIMESTAMP_NTZ);
	assert_int_equal(dl_schema_primitive_from_name("void", &id, &p, &s), 0);
	assert_int_equal(id, DL_TYPE_NULL);
	assert_int_equal(dl_schema_primitive_from_name("variant", &id, &p, &s), 0);
	assert_int_equal(id, DL_TYPE_VARIANT);
	assert_int_equal(dl_schema_primitive_from_name("geometry(OGC:CRS84)", &id, &p, &s), DL_EUNSUPPORTED);
	const char *js = "{\"type\":\"struct\",\"fields\":[{\"name\":\"v\",\"type\":\"variant\","
	                 "\"nullable\":true,\"metadata\":{}},{\"name\":\"n\",\"type\":\"void\","
	                 "\"nullable\":true,\"metadata\":{}},{\"name\":\"t\",\"type\":\"timestamp_ntz\","
	                 "\"nullable\":true,\"metadata\":{}},{\"name\":\"d\",\"type\":\"decimal(5,1)\","
	                 "\"nullable\":true,\"metadata\":{}}]}";
	dl_type *t;
	assert_int_equal(dl_schema_parse(&t, js, strlen(js)), 0);
	dl_buf b = DL_BUF_INIT;
	assert_int_equal(dl_schema_to_json(&b, t), 0);
	assert_string_equal(b.data, js);
	dl_buf_free(&b);
	dl_type_unref(t);
	assert_int_equal(dl_schema_parse(&t, "{\"type\":\"struct\"}", 17), DL_ECORRUPT);
	assert_int_equal(dl_schema_parse(&t, "[", 1), DL_ECORRUPT);
	const char *bad = "{\"type\":\"struct\",\"fields\":[{\"name\":\"x\",\"type\":\"int128\"}]}";
	assert_int_equal(dl_schema_parse(&t, bad, strlen(bad)), DL_EUNSUPPORTED);
	assert_non_null(strstr(dl_error_last()->message, "int128"));
}

static void column_mapping_and_metadata(void **state)
{
	(void)state;
	const char *js =
		"{\"type\":\"struct\",\"fields\":[{\"name\":\"Id\",\"type\":\"long\",\"nullable\":true,"
		"\"metadata\":{\"delta.columnMapping.id\":1,\"delta.columnMapping.physicalName\":\"col-1\","
		"\"delta.identity.start\":10,\"delta.identity.step\":-2,\"delta.identity.allowExplicitInsert\":true}},"
		"{\"name\":\"s\",\"type\":{\"type\":\"struct\",\"fields\":[{\"name\":\"x\",\"type\":\"integer\","
		"\"nullable\":true,\"metadata\":{\"delta.columnMapping.id\":3,\"delta.columnMapping.physicalName\":"
		"\"col-3\",\"delta.invariants\":\"{\\\"expression\\\":{\\\"expression\\\":\\\"x > 3\\\"}}\"}}]},"
		"\"nullable\":true,\"metadata\":{\"delta.columnMapping.id\":2,\"delta.columnMapping.physicalName\":"
		"\"col-2\",\"delta.generationExpression\":\"Id + 1\",\"CURRENT_DEFAULT\":\"42\"}}]}";
	dl_type *t, *phys;
	assert_int_equal(dl_schema_parse(&t, js, strlen(js)), 0);
	dl_arena a = DL_ARENA_INIT;
	const char *name;
	assert_int_equal(dl_field_physical_name(&t->children[0], DL_CM_NAME, &a, &name), 0);
	assert_string_equal(name, "col-1");
	assert_int_equal(dl_field_physical_name(&t->children[0], DL_CM_NONE, &a, &name), 0);
	assert_string_equal(name, "Id");
	int32_t id;
	assert_int_equal(dl_field_column_id(&t->children[1], &id), 0);
	assert_int_equal(id, 2);
	assert_int_equal(dl_schema_to_physical(&phys, t, DL_CM_ID), 0);
	assert_string_equal(phys->children[0].name, "col-1");
	assert_string_equal(phys->children[1].type->children[0].name, "col-3");
	dl_type_unref(phys);
	const char *e;
	assert_int_equal(dl_field_generation_expression(&t->children[1], &a, &e), 0);
	assert_string_equal(e, "Id + 1");
	assert_int_equal(dl_field_default_expression(&t->children[1], &a, &e), 0);
	assert_string_equal(e, "42");
	assert_int_equal(dl_field_invariant(&t->children[1].type->children[0], &a, &e), 0);
	assert_string_equal(e, "x > 3");
	assert_int_equal(dl_field_invariant(&t->children[0], &a, &e), 0);
	assert_null(e);
	dl_identity_info idn;
	assert_int_equal(dl_field_identity(&t->children[0], &idn), 0);
	assert_true(idn.is_identity);
	assert_int_equal(idn.start, 10);
	assert_int_equal(idn.step, -2);
	assert_true(idn.allow_explicit_insert);
	assert_false(idn.has_high_water_mark);
	assert_int_equal(dl_schema_find(t, "id"), 0);
	assert_int_equal(dl_schema_find(t, "nope"), -1);
	/* no physical name under a mapping mode is an error */
	dl_type *plain;
	const char *pj = "{\"type\":\"struct\",\"fields\":[{\"name\":\"x\",\"type\":\"long\","
	                 "\"nullable\":true,\"metadata\":{}}]}";
	assert_int_equal(dl_schema_parse(&plain, pj, strlen(pj)), 0);
	assert_int_equal(dl_field_physical_name(&plain->children[0], DL_CM_NAME, &a, &name), DL_ECORRUPT);
	dl_type_unref(plain);
	dl_arena_free(&a);
	dl_type_unref(t);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(nested_schema_round_trip),
		cmocka_unit_test(primitive_names),
		cmocka_unit_test(column_mapping_and_metadata),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
