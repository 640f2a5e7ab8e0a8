/* MERGE and structs inside arrays and maps through the C API, with Spark's
 * cases from MergeIntoSchemaEvolutionSuite (MergeIntoNestedStructEvolution
 * tests) and their expected rows and schemas: a value whose element (map
 * key, map value) structs differ from the column's is stored by name, and
 * with schema evolution the source's new fields join the element structs
 * (rows the MERGE does not write read NULL there). Without evolution a
 * struct of other fields is DELTA_UPDATE_SCHEMA_MISMATCH_EXPRESSION; a
 * struct merged with an array is DELTA_FAILED_TO_MERGE_FIELDS (caused by
 * DELTA_MERGE_INCOMPATIBLE_DATATYPE), and without evolution such a value
 * cannot be cast (DATATYPE_MISMATCH.CAST_WITHOUT_SUGGESTION). On
 * column-mapping tables (name and id) the new fields get ids and physical
 * names, maxColumnId is bumped and the files use the physical names.
 * Every refusal leaves the table byte-identical. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>
#include "deltalake/merge.h"
#include "deltalake/error.h"
#include "dml/merge.h"
#include "log/snapshot.h"
#include "unit/dml/dml_fixture.h"

/* A table of `ddl` with one row per key of `keys` ("A;C"), column col set
 * to `value` (SQL over key). */
static char *table(const char *name, const char *ddl, const char *const *props, int nprops,
                   const char *keys, const char *col, const char *value)
{
	char *t = fx_table(g_dir, name);
	dx_create(t, ddl, NULL, props, nprops);
	dx_append(t, "key STRING", keys);
	dl_update_metrics u;
	dl_update_assignment set[] = {{col, value}};
	if (dl_update(&u, t, set, 1, NULL, NULL) < 0) fail_msg("update: %s", dl_error_last()->message);
	return t;
}

typedef enum { UPD_SET, UPD_STAR } upd_kind;

/* MERGE t USING s ON t.key = s.key [WITH SCHEMA EVOLUTION]: WHEN MATCHED
 * UPDATE SET value = s.value (or *), WHEN NOT MATCHED INSERT * (ins). */
static dl_merge *merge_of(const char *t, const char *s, bool evolve, upd_kind up, const char *col, bool ins)
{
	dl_merge *m;
	assert_int_equal(dl_merge_new(&m, t, NULL), 0);
	assert_int_equal(dl_merge_source_table(m, s, -1), 0);
	assert_int_equal(dl_merge_alias(m, "t", "s"), 0);
	assert_int_equal(dl_merge_on(m, "t.key = s.key"), 0);
	if (evolve) assert_int_equal(dl_merge_with_schema_evolution(m), 0);
	if (up == UPD_STAR) {
		assert_int_equal(dl_merge_when_matched_update_all(m, NULL), 0);
	} else {
		char v[64];
		snprintf(v, sizeof v, "s.%s", col);
		const char *c[] = {col}, *vv[] = {v};
		assert_int_equal(dl_merge_when_matched_update(m, NULL, c, vv, 1), 0);
	}
	if (ins) assert_int_equal(dl_merge_when_not_matched_insert_all(m, NULL), 0);
	return m;
}

static void run(dl_merge *m)
{
	dl_merge_metrics r;
	if (dl_merge_execute(&r, m) < 0) fail_msg("merge: %s", dl_error_last()->message);
	dl_merge_free(m);
}

static void refused(dl_merge *m, const char *t, const char *klass)
{
	char *before = dx_tree(t);
	dl_merge_metrics r;
	assert_true(dl_merge_execute(&r, m) < 0);
	if (strcmp(dl_error_last()->klass, klass) != 0)
		fail_msg("class %s (%s), expected %s", dl_error_last()->klass, dl_error_last()->message, klass);
	dl_merge_free(m);
	char *after = dx_tree(t);
	assert_string_equal(before, after);
	dl_free(before);
	dl_free(after);
}

static char *schema_text(const char *t)
{
	dl_snapshot *snap;
	assert_int_equal(dl_snapshot_open(&snap, t, NULL), 0);
	char ts[2048];
	dl_type_sql(dl_snapshot_schema(snap), ts, sizeof ts);
	dl_snapshot_free(snap);
	return dl_strdup(ts);
}

static void schema_is(const char *t, const char *want)
{
	char *got = schema_text(t);
	if (strcmp(got, want) != 0) fail_msg("schema %s, expected %s", got, want);
	dl_free(got);
}

#define ARR_T "key STRING, value ARRAY<STRUCT<a: STRUCT<x: INT, y: INT>, b: INT, c: INT>>"
#define ARR_S "key STRING, value ARRAY<STRUCT<b: STRING, a: STRUCT<y: INT, x: INT>>>"

/* "new nested column with update non-* and insert * - array of struct -
 * longer target": the elements are stored by name (b cast from STRING),
 * the target-only field c NULL; without evolution "Cannot cast". */
static void test_array_longer_target(void **state)
{
	(void)state;
	char *t = table("arr_lt", ARR_T, NULL, 0, "A", "value",
	                "array(named_struct('a', named_struct('x', 1, 'y', 2), 'b', 1, 'c', 2), "
	                "named_struct('a', named_struct('x', 3, 'y', 2), 'b', 2, 'c', 2))");
	char *s = table("arr_lt_src", ARR_S, NULL, 0, "A;B", "value",
	                "IF(key = 'A', array(named_struct('b', '2', 'a', named_struct('y', 20, 'x', 10))), "
	                "array(named_struct('b', '3', 'a', named_struct('y', 30, 'x', 40))))");
	refused(merge_of(t, s, false, UPD_SET, "value", true), t, "DELTA_UPDATE_SCHEMA_MISMATCH_EXPRESSION");
	run(merge_of(t, s, true, UPD_SET, "value", true));
	dx_rows(t, "key,value", "A,[{a: {x: 10, y: 20}, b: 2, c: NULL}];B,[{a: {x: 40, y: 30}, b: 3, c: NULL}]");
	schema_is(t, "STRUCT<key: STRING, value: ARRAY<STRUCT<a: STRUCT<x: INT, y: INT>, b: INT, c: INT>>>");
	dl_free(t);
	dl_free(s);
}

/* "extra nested column in source - update - array of struct - longer
 * target": UPDATE * adds a.z inside the elements; the row not updated
 * reads NULL there. */
static void test_array_extra_field(void **state)
{
	(void)state;
	char *t = table("arr_x", "key STRING, value ARRAY<STRUCT<a: STRUCT<x: INT, y: INT>, b: INT>>", NULL, 0,
	                "A;B", "value",
	                "IF(key = 'A', array(named_struct('a', named_struct('x', 1, 'y', 2), 'b', 1), "
	                "named_struct('a', named_struct('x', 1, 'y', 2), 'b', 2)), "
	                "array(named_struct('a', named_struct('x', 40, 'y', 30), 'b', 3), "
	                "named_struct('a', named_struct('x', 40, 'y', 30), 'b', 4), "
	                "named_struct('a', named_struct('x', 40, 'y', 30), 'b', 5)))");
	char *s = table("arr_x_src", "key STRING, value ARRAY<STRUCT<a: STRUCT<x: INT, y: INT, z: INT>, b: STRING>>",
	                NULL, 0, "A", "value", "array(named_struct('a', named_struct('x', 10, 'y', 20, 'z', 2), 'b', '2'))");
	refused(merge_of(t, s, false, UPD_STAR, NULL, false), t, "DELTA_UPDATE_SCHEMA_MISMATCH_EXPRESSION");
	run(merge_of(t, s, true, UPD_STAR, NULL, false));
	schema_is(t, "STRUCT<key: STRING, value: ARRAY<STRUCT<a: STRUCT<x: INT, y: INT, z: INT>, b: INT>>>");
	dx_rows(t, "key,value",
	        "A,[{a: {x: 10, y: 20, z: 2}, b: 2}];B,[{a: {x: 40, y: 30, z: NULL}, b: 3}, "
	        "{a: {x: 40, y: 30, z: NULL}, b: 4}, {a: {x: 40, y: 30, z: NULL}, b: 5}]");
	dl_free(t);
	dl_free(s);
}

/* "additional nested column in source resolved by name - insert - nested
 * array of struct": INSERT * appends d to the elements of the inner array. */
static void test_nested_array_insert(void **state)
{
	(void)state;
	char *t = table("narr", "key STRING, value ARRAY<STRUCT<a: STRUCT<y: INT, x: ARRAY<STRUCT<c: INT, e: INT>>>, b: INT>>",
	                NULL, 0, "A", "value",
	                "array(named_struct('a', named_struct('y', 2, 'x', array(named_struct('c', 1, 'e', 3))), 'b', 1))");
	char *s = table("narr_src",
	                "key STRING, value ARRAY<STRUCT<a: STRUCT<y: INT, x: ARRAY<STRUCT<c: INT, d: STRING, e: INT>>>, b: STRING>>",
	                NULL, 0, "A;B", "value",
	                "IF(key = 'A', array(named_struct('a', named_struct('y', 20, 'x', array(named_struct('c', 10, 'd', '30', 'e', 1))), 'b', '2')), "
	                "array(named_struct('a', named_struct('y', 60, 'x', array(named_struct('c', 20, 'd', '50', 'e', 2), "
	                "named_struct('c', 20, 'd', '50', 'e', 3))), 'b', '3')))");
	dl_merge *m;
	assert_int_equal(dl_merge_new(&m, t, NULL), 0);
	assert_int_equal(dl_merge_source_table(m, s, -1), 0);
	assert_int_equal(dl_merge_alias(m, "t", "s"), 0);
	assert_int_equal(dl_merge_on(m, "t.key = s.key"), 0);
	assert_int_equal(dl_merge_when_not_matched_insert_all(m, NULL), 0);
	refused(m, t, "DELTA_UPDATE_SCHEMA_MISMATCH_EXPRESSION");
	assert_int_equal(dl_merge_new(&m, t, NULL), 0);
	assert_int_equal(dl_merge_source_table(m, s, -1), 0);
	assert_int_equal(dl_merge_alias(m, "t", "s"), 0);
	assert_int_equal(dl_merge_on(m, "t.key = s.key"), 0);
	assert_int_equal(dl_merge_with_schema_evolution(m), 0);
	assert_int_equal(dl_merge_when_not_matched_insert_all(m, NULL), 0);
	run(m);
	schema_is(t, "STRUCT<key: STRING, value: ARRAY<STRUCT<a: STRUCT<y: INT, x: ARRAY<STRUCT<c: INT, e: INT, d: STRING>>>, "
	             "b: INT>>>");
	dx_rows(t, "key,value",
	        "A,[{a: {y: 2, x: [{c: 1, e: 3, d: NULL}]}, b: 1}];"
	        "B,[{a: {y: 60, x: [{c: 20, e: 2, d: 50}, {c: 20, e: 3, d: 50}]}, b: 3}]");
	dl_free(t);
	dl_free(s);
}

/* "array of struct with same column count but all different names - by
 * name": evolution appends c and d; the updated and inserted elements have
 * a and b NULL. */
static void test_array_different_names(void **state)
{
	(void)state;
	char *t = table("arr_dn", "key STRING, value ARRAY<STRUCT<a: INT, b: INT>>", NULL, 0, "A", "value",
	                "array(named_struct('a', 1, 'b', 2))");
	char *s = table("arr_dn_src", "key STRING, value ARRAY<STRUCT<c: INT, d: INT>>", NULL, 0, "A;B", "value",
	                "IF(key = 'A', array(named_struct('c', 4, 'd', 3)), array(named_struct('c', 2, 'd', 5)))");
	refused(merge_of(t, s, false, UPD_STAR, NULL, true), t, "DELTA_UPDATE_SCHEMA_MISMATCH_EXPRESSION");
	run(merge_of(t, s, true, UPD_STAR, NULL, true));
	schema_is(t, "STRUCT<key: STRING, value: ARRAY<STRUCT<a: INT, b: INT, c: INT, d: INT>>>");
	dx_rows(t, "key,value", "A,[{a: NULL, b: NULL, c: 4, d: 3}];B,[{a: NULL, b: NULL, c: 2, d: 5}]");
	dl_free(t);
	dl_free(s);
}

/* "new source column in map struct value": b joins the map's value struct;
 * C, not in the source, reads NULL there. */
static void test_map_value(void **state)
{
	(void)state;
	char *t = table("mapv", "key STRING, map MAP<STRING, STRUCT<a: INT>>", NULL, 0, "A;C", "map",
	                "map('key', named_struct('a', IF(key = 'A', 1, 3)))");
	char *s = table("mapv_src", "key STRING, map MAP<STRING, STRUCT<a: INT, b: INT>>", NULL, 0, "A;B", "map",
	                "map('key', named_struct('a', IF(key = 'A', 2, 1), 'b', 2))");
	refused(merge_of(t, s, false, UPD_STAR, NULL, true), t, "DELTA_UPDATE_SCHEMA_MISMATCH_EXPRESSION");
	run(merge_of(t, s, true, UPD_STAR, NULL, true));
	schema_is(t, "STRUCT<key: STRING, map: MAP<STRING, STRUCT<a: INT, b: INT>>>");
	dx_rows(t, "key,map", "A,{key={a: 2, b: 2}};B,{key={a: 1, b: 2}};C,{key={a: 3, b: NULL}}");
	dl_free(t);
	dl_free(s);
}

/* "source map struct value contains less columns than target": with
 * evolution the written values' b is NULL (map values have no old value
 * to keep), C keeps its own; without evolution "Cannot cast". */
static void test_map_value_fewer(void **state)
{
	(void)state;
	char *t = table("mapf", "key STRING, map MAP<STRING, STRUCT<a: INT, b: INT>>", NULL, 0, "A;C", "map",
	                "map('key', named_struct('a', IF(key = 'A', 1, 3), 'b', 1))");
	char *s = table("mapf_src", "key STRING, map MAP<STRING, STRUCT<a: INT>>", NULL, 0, "A;B", "map",
	                "map('key', named_struct('a', IF(key = 'A', 2, 1)))");
	refused(merge_of(t, s, false, UPD_STAR, NULL, true), t, "DELTA_UPDATE_SCHEMA_MISMATCH_EXPRESSION");
	run(merge_of(t, s, true, UPD_STAR, NULL, true));
	schema_is(t, "STRUCT<key: STRING, map: MAP<STRING, STRUCT<a: INT, b: INT>>>");
	dx_rows(t, "key,map", "A,{key={a: 2, b: NULL}};B,{key={a: 1, b: NULL}};C,{key={a: 3, b: 1}}");
	dl_free(t);
	dl_free(s);
}

/* "struct evolution in both map keys and values" and "source nested map
 * struct key in different order" (keys stored by name, with and without
 * evolution). */
static void test_map_keys(void **state)
{
	(void)state;
	char *t = table("mapk", "key STRING, x MAP<STRUCT<a: INT, b: INT>, STRUCT<d: INT, e: INT>>", NULL, 0, "1;3",
	                "x", "IF(key = '1', map(named_struct('a', 2, 'b', 3), named_struct('d', 4, 'e', 5)), "
	                     "map(named_struct('a', 6, 'b', 7), named_struct('d', 8, 'e', 9)))");
	char *s = table("mapk_src", "key STRING, x MAP<STRUCT<a: INT, b: INT, c: INT>, STRUCT<d: INT, e: INT, f: INT>>",
	                NULL, 0, "1;2", "x",
	                "IF(key = '1', map(named_struct('a', 10, 'b', 30, 'c', 50), named_struct('d', 70, 'e', 90, 'f', 110)), "
	                "map(named_struct('a', 20, 'b', 40, 'c', 60), named_struct('d', 80, 'e', 100, 'f', 120)))");
	refused(merge_of(t, s, false, UPD_STAR, NULL, true), t, "DELTA_UPDATE_SCHEMA_MISMATCH_EXPRESSION");
	run(merge_of(t, s, true, UPD_STAR, NULL, true));
	schema_is(t, "STRUCT<key: STRING, x: MAP<STRUCT<a: INT, b: INT, c: INT>, STRUCT<d: INT, e: INT, f: INT>>>");
	dx_rows(t, "key,x",
	        "1,{{a: 10, b: 30, c: 50}={d: 70, e: 90, f: 110}};2,{{a: 20, b: 40, c: 60}={d: 80, e: 100, f: 120}};"
	        "3,{{a: 6, b: 7, c: NULL}={d: 8, e: 9, f: NULL}}");
	dl_free(t);
	dl_free(s);
	for (int evolve = 0; evolve < 2; evolve++) {
		char tn[32], sn[32];
		snprintf(tn, sizeof tn, "mapko%d", evolve);
		snprintf(sn, sizeof sn, "mapko%d_src", evolve);
		t = table(tn, "key STRING, x MAP<STRUCT<a: INT, b: INT>, INT>", NULL, 0, "1;3", "x",
		          "IF(key = '1', map(named_struct('a', 2, 'b', 3), 4), map(named_struct('a', 5, 'b', 6), 7))");
		s = table(sn, "key STRING, x MAP<STRUCT<b: INT, a: INT>, INT>", NULL, 0, "1;2", "x",
		          "IF(key = '1', map(named_struct('b', 30, 'a', 10), 1), map(named_struct('b', 40, 'a', 20), 2))");
		run(merge_of(t, s, evolve, UPD_STAR, NULL, true));
		dx_rows(t, "key,x", "1,{{a: 10, b: 30}=1};2,{{a: 20, b: 40}=2};3,{{a: 5, b: 6}=7}");
		dl_free(t);
		dl_free(s);
	}
}

/* "source map struct value to map array value": evolution cannot merge a
 * struct with an array; without it the struct cannot be cast. */
static void test_map_incompatible(void **state)
{
	(void)state;
	char *t = table("mapi", "key STRING, map MAP<STRING, ARRAY<INT>>", NULL, 0, "A;C", "map",
	                "map('key', array(1, 2))");
	char *s = table("mapi_src", "key STRING, map MAP<STRING, STRUCT<a: INT>>", NULL, 0, "A;B", "map",
	                "map('key', named_struct('a', 2))");
	refused(merge_of(t, s, true, UPD_STAR, NULL, true), t, "DELTA_FAILED_TO_MERGE_FIELDS");
	if (!strstr(dl_error_last()->message, "DELTA_MERGE_INCOMPATIBLE_DATATYPE"))
		fail_msg("message %s", dl_error_last()->message);
	/* Spark's Cast of the map values fails analysis the same way */
	refused(merge_of(t, s, false, UPD_STAR, NULL, true), t, "");
	if (!strstr(dl_error_last()->message, "[DATATYPE_MISMATCH.CAST_WITHOUT_SUGGESTION] cannot cast"))
		fail_msg("message %s", dl_error_last()->message);
	dl_free(t);
	dl_free(s);
}

/* The text of the newest commit file. */
static char *last_commit(const char *t) { return fx_commit(t, fx_version(t)); }

/* A data file of the table's newest add whose bytes contain `s`. */
static bool added_file_has(const char *t, const char *s)
{
	char *c = last_commit(t);
	const char *p = c ? strstr(c, "\"add\":{\"path\":\"") : NULL;
	bool found = false;
	while (p && !found) {
		p += strlen("\"add\":{\"path\":\"");
		const char *e = strchr(p, '"');
		char path[1024];
		snprintf(path, sizeof path, "%s/%.*s", t, (int)(e - p), p);
		FILE *f = fopen(path, "rb");
		if (f) {
			static char buf[1 << 20];
			size_t n = fread(buf, 1, sizeof buf, f);
			fclose(f);
			for (size_t i = 0; i + strlen(s) <= n && !found; i++) found = memcmp(buf + i, s, strlen(s)) == 0;
		}
		p = strstr(e, "\"add\":{\"path\":\"");
	}
	dl_free(c);
	return found;
}

/* Spark's column-mapping run of "new nested column with update non-* and
 * insert * - array of struct - longer target", then evolution adding a
 * nested field inside the array's elements and a new top-level column: each
 * new field gets the next id and a col-<uuid> physical name, maxColumnId
 * follows, the files written carry the physical names (not the logical
 * ones), and the rows read back by their logical names. */
static void cm_case(const char *mode)
{
	const char *props[] = {"delta.columnMapping.mode", mode};
	char tn[32], sn[32], s2n[32];
	snprintf(tn, sizeof tn, "cm_%s", mode);
	snprintf(sn, sizeof sn, "cm_%s_src", mode);
	snprintf(s2n, sizeof s2n, "cm_%s_src2", mode);
	char *t = table(tn, ARR_T, props, 1, "A", "value",
	                "array(named_struct('a', named_struct('x', 1, 'y', 2), 'b', 1, 'c', 2), "
	                "named_struct('a', named_struct('x', 3, 'y', 2), 'b', 2, 'c', 2))");
	char *s = table(sn, ARR_S, NULL, 0, "A;B", "value",
	                "IF(key = 'A', array(named_struct('b', '2', 'a', named_struct('y', 20, 'x', 10))), "
	                "array(named_struct('b', '3', 'a', named_struct('y', 30, 'x', 40))))");
	run(merge_of(t, s, true, UPD_SET, "value", true));
	dx_rows(t, "key,value", "A,[{a: {x: 10, y: 20}, b: 2, c: NULL}];B,[{a: {x: 40, y: 30}, b: 3, c: NULL}]");
	/* key, value, a, x, y, b, c: ids 1..7 */
	char *c0 = last_commit(t);
	char *c1 = NULL;
	/* now a field zznewfield inside the elements' struct a, and a new column zznewcol */
	char *s2 = table(s2n, "key STRING, value ARRAY<STRUCT<a: STRUCT<x: INT, y: INT, zznewfield: INT>, b: INT, c: INT>>, "
	                      "zznewcol STRING", NULL, 0, "A;D", "value",
	                 "array(named_struct('a', named_struct('x', 5, 'y', 6, 'zznewfield', 7), 'b', 8, 'c', 9))");
	dl_update_metrics u;
	dl_update_assignment set[] = {{"zznewcol", "concat('n', key)"}};
	assert_int_equal(dl_update(&u, s2, set, 1, NULL, NULL), 0);
	run(merge_of(t, s2, true, UPD_STAR, NULL, true));
	schema_is(t, "STRUCT<key: STRING, value: ARRAY<STRUCT<a: STRUCT<x: INT, y: INT, zznewfield: INT>, b: INT, c: INT>>, "
	             "zznewcol: STRING>");
	dx_rows(t, "key,value,zznewcol",
	        "A,[{a: {x: 5, y: 6, zznewfield: 7}, b: 8, c: 9}],nA;B,[{a: {x: 40, y: 30, zznewfield: NULL}, b: 3, c: NULL}],NULL;"
	        "D,[{a: {x: 5, y: 6, zznewfield: 7}, b: 8, c: 9}],nD");
	c1 = last_commit(t);
	if (!strstr(c1, "\\\"name\\\":\\\"zznewfield\\\"") && !strstr(c1, "\"name\":\"zznewfield\""))
		fail_msg("no zznewfield in %s", c1);
	if (!strstr(c1, "delta.columnMapping.maxColumnId\":\"9\"")) fail_msg("maxColumnId not 9: %.3000s", c1);
	const char *z = strstr(c1, "zznewfield");
	const char *zid = z ? strstr(z, "delta.columnMapping.id") : NULL;
	if (!zid || strncmp(zid + strlen("delta.columnMapping.id") + 3, "8", 1) != 0)
		fail_msg("zznewfield's id is not 8: %.3000s", c1);
	const char *nc = strstr(c1, "zznewcol");
	const char *ncid = nc ? strstr(nc, "delta.columnMapping.id") : NULL;
	if (!ncid || strncmp(ncid + strlen("delta.columnMapping.id") + 3, "9", 1) != 0)
		fail_msg("zznewcol's id is not 9: %.3000s", c1);
	const char *pn = strstr(z, "delta.columnMapping.physicalName");
	if (!pn || (strcmp(mode, "name") == 0 && !strstr(pn, "col-"))) fail_msg("no physical name: %.3000s", c1);
	/* the files written name the new fields physically */
	assert_false(added_file_has(t, "zznewfield"));
	assert_false(added_file_has(t, "zznewcol"));
	assert_true(added_file_has(t, "col-"));
	dl_free(c0);
	dl_free(c1);
	dl_free(t);
	dl_free(s);
	dl_free(s2);
}

static void test_column_mapping_name(void **state)
{
	(void)state;
	cm_case("name");
}

static void test_column_mapping_id(void **state)
{
	(void)state;
	cm_case("id");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_array_longer_target),
		cmocka_unit_test(test_array_extra_field),
		cmocka_unit_test(test_nested_array_insert),
		cmocka_unit_test(test_array_different_names),
		cmocka_unit_test(test_map_value),
		cmocka_unit_test(test_map_value_fewer),
		cmocka_unit_test(test_map_keys),
		cmocka_unit_test(test_map_incompatible),
		cmocka_unit_test(test_column_mapping_name),
		cmocka_unit_test(test_column_mapping_id),
	};
	return cmocka_run_group_tests(tests, fx_setup_tmpdir, fx_teardown_tmpdir);
}
