/* The delta.typeChanges history schema evolution writes
 * (type_change_meta.h) and Spark's rule of which widenings it applies by
 * itself (TypeWidening.isTypeChangeSupportedForSchemaEvolution): entries
 * on the widened field, with their fieldPath inside arrays and maps, in
 * nested structs on the nearest field, other metadata kept; the append
 * path's schema merge (schema_align.c) records them the same way. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>
#include <stdio.h>
#include <string.h>
#include "log/schema.h"
#include "ops/ddl.h"
#include "ops/schema_align.h"
#include "ops/type_change_meta.h"
#include "util/buf.h"
#include "util/error.h"
#include "util/mem.h"

static dl_type *ddl(const char *s)
{
	dl_type *t;
	if (dl_ddl_parse_schema(&t, s) < 0) fail_msg("ddl %s: %s", s, dl_error_last()->message);
	return t;
}

static void json_is(const dl_type *t, const char *want)
{
	dl_buf b = DL_BUF_INIT;
	assert_int_equal(dl_schema_to_json(&b, t), 0);
	if (strcmp(b.data, want) != 0) fail_msg("schema\n%s\nexpected\n%s", b.data, want);
	dl_buf_free(&b);
}

/* Which changes schema evolution applies (Spark's TypeWideningMode
 * TypeEvolution): per pair, whether ALWAYS (the default), SAME_FAMILY_TYPE
 * and a UniForm Iceberg table under ALWAYS widen it; NEVER widens none. */
static void test_automatic(void **state)
{
	(void)state;
	static const struct {
		const char *from, *to;
		bool always, same, iceberg;
	} cases[] = {
		{"TINYINT", "SMALLINT", 1, 1, 1}, {"TINYINT", "INT", 1, 1, 1}, {"SMALLINT", "INT", 1, 1, 1},
		{"SMALLINT", "BIGINT", 1, 1, 1}, {"INT", "BIGINT", 1, 1, 1}, {"FLOAT", "DOUBLE", 1, 1, 1},
		{"DATE", "TIMESTAMP_NTZ", 1, 1, 0}, {"DECIMAL(9,2)", "DECIMAL(18,2)", 1, 1, 1},
		{"DECIMAL(8,2)", "DECIMAL(9,3)", 1, 1, 0}, {"DECIMAL(9,2)", "DECIMAL(19,3)", 1, 1, 0},
		/* across families: ALWAYS only, never on Iceberg */
		{"INT", "DOUBLE", 1, 0, 0}, {"TINYINT", "DECIMAL(10,0)", 1, 0, 0}, {"INT", "DECIMAL(10,0)", 1, 0, 0},
		{"BIGINT", "DECIMAL(20,0)", 1, 0, 0},
		/* not widenings */
		{"INT", "TINYINT", 0, 0, 0}, {"BIGINT", "INT", 0, 0, 0}, {"DOUBLE", "FLOAT", 0, 0, 0},
		{"TINYINT", "DECIMAL(2,0)", 0, 0, 0}, {"TIMESTAMP_NTZ", "DATE", 0, 0, 0},
		{"DECIMAL(9,2)", "DECIMAL(9,3)", 0, 0, 0}, {"DECIMAL(9,2)", "DECIMAL(10,4)", 0, 0, 0},
		{"INT", "INT", 0, 0, 0}, {"INT", "STRING", 0, 0, 0}, {"DATE", "TIMESTAMP", 0, 0, 0},
	};
	dl_widening always = {DL_AUTO_WIDENING_ALWAYS, false}, same = {DL_AUTO_WIDENING_SAME_FAMILY_TYPE, false},
	            never = {DL_AUTO_WIDENING_NEVER, false}, ice = {DL_AUTO_WIDENING_ALWAYS, true};
	char a[64], b[64];
	for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
		snprintf(a, sizeof a, "v %s", cases[i].from);
		snprintf(b, sizeof b, "v %s", cases[i].to);
		dl_type *f = ddl(a), *t = ddl(b);
		const dl_type *x = f->children[0].type, *y = t->children[0].type;
		if (dl_widening_allows(&always, x, y) != cases[i].always || dl_widening_allows(&same, x, y) != cases[i].same ||
		    dl_widening_allows(&ice, x, y) != cases[i].iceberg || dl_widening_allows(&never, x, y) ||
		    dl_widening_allows(NULL, x, y))
			fail_msg("%s -> %s: not as expected", cases[i].from, cases[i].to);
		dl_type_unref(f);
		dl_type_unref(t);
	}
	/* the UniForm restriction comes from the table's configuration */
	dl_kv kv = {"delta.universalFormat.enabledFormats", "hudi,iceberg"};
	dl_str_map conf = {&kv, 1};
	dl_widening w;
	dl_widening_of(&w, &conf, DL_AUTO_WIDENING_SAME_FAMILY_TYPE);
	assert_true(w.iceberg_only);
	assert_int_equal(w.mode, DL_AUTO_WIDENING_SAME_FAMILY_TYPE);
	dl_widening_of(&w, NULL, DL_AUTO_WIDENING_ALWAYS);
	assert_false(w.iceberg_only);
}

static const dl_widening W_SAME = {DL_AUTO_WIDENING_SAME_FAMILY_TYPE, false};

#define TC(f, t) "{\"delta.typeChanges\":[{\"fromType\":\"" f "\",\"toType\":\"" t "\"}]}"
#define TCP(f, t, p) "{\"fromType\":\"" f "\",\"toType\":\"" t "\",\"fieldPath\":\"" p "\"}"

static void test_record(void **state)
{
	(void)state;
	dl_type *old = ddl("a SMALLINT COMMENT 'c', l ARRAY<ARRAY<TINYINT>>, m MAP<SMALLINT, STRUCT<x: FLOAT, y: INT>>, "
	                   "s STRUCT<n: STRUCT<z: INT>>, k INT");
	dl_type *evolved = ddl("a INT COMMENT 'c', l ARRAY<ARRAY<SMALLINT>>, m MAP<INT, STRUCT<x: DOUBLE, y: INT>>, "
	                       "s STRUCT<n: STRUCT<z: BIGINT>>, k INT, added SMALLINT");
	dl_type *rec;
	assert_int_equal(dl_type_changes_record(&rec, old, evolved), 0);
	json_is(rec,
	        "{\"type\":\"struct\",\"fields\":["
	        "{\"name\":\"a\",\"type\":\"integer\",\"nullable\":true,\"metadata\":{\"comment\":\"c\","
	        "\"delta.typeChanges\":[{\"fromType\":\"short\",\"toType\":\"integer\"}]}},"
	        "{\"name\":\"l\",\"type\":{\"type\":\"array\",\"elementType\":{\"type\":\"array\",\"elementType\":\"short\","
	        "\"containsNull\":true},\"containsNull\":true},\"nullable\":true,\"metadata\":{\"delta.typeChanges\":["
	        TCP("byte", "short", "element.element") "]}},"
	        "{\"name\":\"m\",\"type\":{\"type\":\"map\",\"keyType\":\"integer\",\"valueType\":{\"type\":\"struct\","
	        "\"fields\":[{\"name\":\"x\",\"type\":\"double\",\"nullable\":true,\"metadata\":" TC("float", "double") "},"
	        "{\"name\":\"y\",\"type\":\"integer\",\"nullable\":true,\"metadata\":{}}]},\"valueContainsNull\":true},"
	        "\"nullable\":true,\"metadata\":{\"delta.typeChanges\":[" TCP("short", "integer", "key") "]}},"
	        "{\"name\":\"s\",\"type\":{\"type\":\"struct\",\"fields\":[{\"name\":\"n\",\"type\":{\"type\":\"struct\","
	        "\"fields\":[{\"name\":\"z\",\"type\":\"long\",\"nullable\":true,\"metadata\":" TC("integer", "long") "}]},"
	        "\"nullable\":true,\"metadata\":{}}]},\"nullable\":true,\"metadata\":{}},"
	        "{\"name\":\"k\",\"type\":\"integer\",\"nullable\":true,\"metadata\":{}},"
	        "{\"name\":\"added\",\"type\":\"short\",\"nullable\":true,\"metadata\":{}}]}");
	/* a second widening (the append path's merge keeps the field's
	 * metadata) appends to the history */
	dl_type *wider = ddl("a BIGINT");
	dl_type *rec2;
	bool changed;
	assert_int_equal(dl_schema_merge(&rec2, &changed, rec, wider, true, &W_SAME), 0);
	assert_true(changed);
	dl_buf b = DL_BUF_INIT;
	assert_int_equal(dl_schema_to_json(&b, rec2), 0);
	assert_non_null(strstr(b.data, "\"delta.typeChanges\":[{\"fromType\":\"short\",\"toType\":\"integer\"},"
	                               "{\"fromType\":\"integer\",\"toType\":\"long\"}]"));
	dl_buf_free(&b);
	dl_type_unref(old);
	dl_type_unref(evolved);
	dl_type_unref(wider);
	dl_type_unref(rec);
	dl_type_unref(rec2);
}

/* An append with mergeSchema widening an array element records its
 * fieldPath (the history went only on primitive fields before). */
static void test_schema_merge(void **state)
{
	(void)state;
	dl_type *table = ddl("l ARRAY<SMALLINT>, v MAP<STRING, FLOAT>, x INT");
	dl_type *data = ddl("l ARRAY<INT>, v MAP<STRING, DOUBLE>, x BIGINT");
	dl_type *out;
	bool changed;
	assert_int_equal(dl_schema_merge(&out, &changed, table, data, true, &W_SAME), 0);
	assert_true(changed);
	dl_buf b = DL_BUF_INIT;
	assert_int_equal(dl_schema_to_json(&b, out), 0);
	assert_non_null(strstr(b.data, "[" TCP("short", "integer", "element") "]"));
	assert_non_null(strstr(b.data, "[" TCP("float", "double", "value") "]"));
	assert_non_null(strstr(b.data, TC("integer", "long")));
	dl_buf_free(&b);
	dl_type_unref(out);
	/* integers to double: under SAME_FAMILY_TYPE not widened by evolution,
	 * under ALWAYS (the default) they are */
	dl_type *d2 = ddl("l ARRAY<SMALLINT>, v MAP<STRING, FLOAT>, x DOUBLE");
	assert_int_equal(dl_schema_merge(&out, &changed, table, d2, true, &W_SAME), DL_ESCHEMA);
	dl_widening always = {DL_AUTO_WIDENING_ALWAYS, false};
	assert_int_equal(dl_schema_merge(&out, &changed, table, d2, true, &always), 0);
	assert_true(changed);
	assert_int_equal(out->children[2].type->id, DL_TYPE_DOUBLE);
	dl_type_unref(out);
	dl_type_unref(d2);
	dl_type_unref(table);
	dl_type_unref(data);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_automatic),
		cmocka_unit_test(test_record),
		cmocka_unit_test(test_schema_merge),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
