/* MERGE and nested struct fields through the C API (src/dml/merge_nested.c),
 * as Spark's UpdateExpressionsSupport and ResolveDeltaMergeInto: assignments
 * to nested fields rebuild the struct (a NULL struct becomes a struct),
 * conflicting and non-struct paths are refused with Spark's classes, a
 * struct value is stored by name, and schema evolution adds the source's
 * nested fields for * clauses and for assignments naming them. Every
 * refusal leaves the table byte-identical. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>
#include "deltalake/merge.h"
#include "deltalake/error.h"
#include "dml/merge.h"
#include "log/snapshot.h"
#include "unit/dml/dml_fixture.h"

#define TDDL "id BIGINT, s STRUCT<a: BIGINT, b: STRING, n: STRUCT<p: BIGINT>>"

/* A table of ids whose struct s is set by UPDATEs (the fixture writes
 * primitive columns only). */
static char *target(const char *name)
{
	char *t = fx_table(g_dir, name);
	dx_create(t, TDDL, NULL, NULL, 0);
	dx_append(t, "id BIGINT", "1;2;3;4");
	dl_update_metrics u;
	dl_update_assignment set[] = {{"s", "named_struct('a', id, 'b', concat('b', id), 'n', named_struct('p', id * 2))"}};
	assert_int_equal(dl_update(&u, t, set, 1, "id <> 2", NULL), 0); /* id 2: s NULL */
	dl_update_assignment nn[] = {{"s.n", "NULL"}};
	assert_int_equal(dl_update(&u, t, nn, 1, "id = 3", NULL), 0); /* id 3: s.n NULL */
	return t;
}

/* The source: ids 1..3 and 5, v = id * 100, s with fields a, c and n.p,
 * n.q (s NULL for id 3). */
#define SVAL "'a', -id, 'c', concat('c', id), 'n', named_struct('p', id * 10, 'q', concat('q', id))"
static char *source_of(const char *name, const char *ddl, const char *value)
{
	char *t = fx_table(g_dir, name);
	dx_create(t, ddl, NULL, NULL, 0);
	dx_append(t, "id BIGINT, v BIGINT", "1,100;2,200;3,300;5,500");
	dl_update_metrics u;
	dl_update_assignment set[] = {{"s", value}};
	assert_int_equal(dl_update(&u, t, set, 1, "id <> 3", NULL), 0);
	return t;
}
#define SDDL "id BIGINT, v BIGINT, s STRUCT<a: BIGINT, c: STRING, n: STRUCT<p: BIGINT, q: STRING>>"
static char *source(const char *name, const char *ddl) { return source_of(name, ddl, "named_struct(" SVAL ")"); }

static dl_merge *begin(const char *t, const char *s)
{
	dl_merge *m;
	assert_int_equal(dl_merge_new(&m, t, NULL), 0);
	assert_int_equal(dl_merge_source_table(m, s, -1), 0);
	assert_int_equal(dl_merge_alias(m, "t", "u"), 0);
	assert_int_equal(dl_merge_on(m, "t.id = u.id"), 0);
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

static void test_nested_assignments(void **state)
{
	(void)state;
	char *t = target("assign"), *s = source("assign_src", SDDL);
	dl_merge *m = begin(t, s);
	const char *cols[] = {"t.s.n.p", "s.a"}, *vals[] = {"u.v", "-u.v"};
	assert_int_equal(dl_merge_when_matched_update(m, NULL, cols, vals, 2), 0);
	const char *bc[] = {"`s`.`b`"}, *bv[] = {"'orphan'"};
	assert_int_equal(dl_merge_when_not_matched_by_source_update(m, NULL, bc, bv, 1), 0);
	run(m);
	/* id 2's NULL struct and id 3's NULL s.n become structs (Spark's
	 * CreateNamedStruct); the fields not assigned keep their values */
	dx_rows(t, "id,s", "1,{a: -100, b: b1, n: {p: 100}};2,{a: -200, b: NULL, n: {p: 200}};"
	                   "3,{a: -300, b: b3, n: {p: 300}};4,{a: 4, b: orphan, n: {p: 8}}");
	dl_free(t);
	dl_free(s);
}

static void test_refusals(void **state)
{
	(void)state;
	char *t = target("refuse"), *s = source("refuse_src", SDDL);
	struct {
		const char *col[2], *val[2];
		int n;
		const char *klass;
	} cases[] = {
		{{"t.s", "t.s.a"}, {"t.s", "1"}, 2, "DELTA_CONFLICT_SET_COLUMN"},
		{{"s.n.p", "s.n"}, {"1", "NULL"}, 2, "DELTA_CONFLICT_SET_COLUMN"},
		{{"s.a.x"}, {"1"}, 1, "DELTA_UNSUPPORTED_FIELD_UPDATE_NON_STRUCT"},
		{{"id.x"}, {"1"}, 1, "DELTA_UNSUPPORTED_FIELD_UPDATE_NON_STRUCT"},
		{{"s.zz"}, {"1"}, 1, "DELTA_MERGE_UNRESOLVED_EXPRESSION"},
		/* without schema evolution a struct of other fields does not fit */
		{{"s"}, {"u.s"}, 1, "DELTA_UPDATE_SCHEMA_MISMATCH_EXPRESSION"},
		/* a new nested field needs schema evolution */
		{{"s.c"}, {"u.s.c"}, 1, "DELTA_MERGE_UNRESOLVED_EXPRESSION"},
	};
	for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
		dl_merge *m = begin(t, s);
		assert_int_equal(dl_merge_when_matched_update(m, NULL, cases[i].col, cases[i].val, cases[i].n), 0);
		refused(m, t, cases[i].klass);
	}
	dl_merge *m = begin(t, s);
	const char *ic[] = {"id", "s.a"}, *iv[] = {"u.id", "1"};
	assert_int_equal(dl_merge_when_not_matched_insert(m, NULL, ic, iv, 2), 0);
	refused(m, t, "DELTA_UNSUPPORTED_NESTED_FIELD_IN_OPERATION");
	dl_free(t);
	dl_free(s);
}

/* A struct value is stored by name: the source's fields in another order. */
static void test_store_by_name(void **state)
{
	(void)state;
	char *t = target("byname");
	char *s = fx_table(g_dir, "byname_src");
	dx_create(s, "id BIGINT, s STRUCT<n: STRUCT<p: BIGINT>, b: STRING, a: BIGINT>", NULL, NULL, 0);
	dx_append(s, "id BIGINT", "1;3");
	dl_update_metrics u;
	dl_update_assignment set[] = {{"s", "named_struct('n', named_struct('p', 7), 'b', 'x', 'a', 9)"}};
	assert_int_equal(dl_update(&u, s, set, 1, "id = 1", NULL), 0);
	dl_merge *m = begin(t, s);
	assert_int_equal(dl_merge_when_matched_update_all(m, NULL), 0);
	assert_int_equal(dl_merge_when_not_matched_insert_all(m, NULL), 0);
	run(m);
	dx_rows(t, "id,s", "1,{a: 9, b: x, n: {p: 7}};2,NULL;3,NULL;4,{a: 4, b: b4, n: {p: 8}}");
	dl_free(t);
	dl_free(s);
}

static void schema_has(const char *t, const char *want)
{
	dl_snapshot *snap;
	assert_int_equal(dl_snapshot_open(&snap, t, NULL), 0);
	char ts[1024];
	dl_type_sql(dl_snapshot_schema(snap), ts, sizeof ts);
	if (!strstr(ts, want)) fail_msg("schema %s lacks %s", ts, want);
	dl_snapshot_free(snap);
}

/* UPDATE SET * / INSERT * with schema evolution: s gains c and n.q; UPDATE *
 * keeps the target-only field b; a struct NULL in the source and the
 * target stays NULL, an inserted NULL stays NULL. */
static void test_evolution_star(void **state)
{
	(void)state;
	char *t = target("evolve"), *s = source("evolve_src", SDDL);
	dl_merge *m = begin(t, s);
	assert_int_equal(dl_merge_with_schema_evolution(m), 0);
	assert_int_equal(dl_merge_when_matched_update_all(m, NULL), 0);
	assert_int_equal(dl_merge_when_not_matched_insert_all(m, NULL), 0);
	run(m);
	schema_has(t, "s: STRUCT<a: BIGINT, b: STRING, n: STRUCT<p: BIGINT, q: STRING>, c: STRING>, v: BIGINT");
	dx_rows(t, "id,s,v",
	        "1,{a: -1, b: b1, n: {p: 10, q: q1}, c: c1},100;2,{a: -2, b: NULL, n: {p: 20, q: q2}, c: c2},200;"
	        "3,{a: NULL, b: b3, n: NULL, c: NULL},300;4,{a: 4, b: b4, n: {p: 8, q: NULL}, c: NULL},NULL;"
	        "5,{a: -5, b: NULL, n: {p: 50, q: q5}, c: c5},500");
	dl_free(t);
	dl_free(s);
}

/* Assignments naming new nested fields add just those (s.c, s.n.q, not
 * the source's other fields); a clause not assigning s keeps it. */
static void test_evolution_assignments(void **state)
{
	(void)state;
	char *t = target("evolve_set"), *s = source_of("evolve_set_src", "id BIGINT, v BIGINT, "
	                  "s STRUCT<a: BIGINT, c: STRING, n: STRUCT<p: BIGINT, q: STRING>, z: INT>",
	                  "named_struct(" SVAL ", 'z', CAST(NULL AS INT))");
	dl_merge *m = begin(t, s);
	assert_int_equal(dl_merge_with_schema_evolution(m), 0);
	const char *c1[] = {"t.s.c", "t.s.n.q"}, *v1[] = {"u.s.c", "u.s.n.q"};
	assert_int_equal(dl_merge_when_matched_update(m, "u.id = 1", c1, v1, 2), 0);
	const char *c2[] = {"t.id"}, *v2[] = {"t.id + 10"};
	assert_int_equal(dl_merge_when_matched_update(m, NULL, c2, v2, 1), 0);
	run(m);
	schema_has(t, "s: STRUCT<a: BIGINT, b: STRING, n: STRUCT<p: BIGINT, q: STRING>, c: STRING>>");
	dx_rows(t, "id,s", "1,{a: 1, b: b1, n: {p: 2, q: q1}, c: c1};12,NULL;13,{a: 3, b: b3, n: NULL, c: NULL};"
	                   "4,{a: 4, b: b4, n: {p: 8, q: NULL}, c: NULL}");
	/* the whole struct assigned: fields the source lacks are NULL */
	m = begin(t, s);
	assert_int_equal(dl_merge_with_schema_evolution(m), 0);
	const char *c3[] = {"s"}, *v3[] = {"u.s"};
	assert_int_equal(dl_merge_when_matched_update(m, NULL, c3, v3, 1), 0);
	run(m);
	schema_has(t, "n: STRUCT<p: BIGINT, q: STRING>, c: STRING, z: INT>");
	dx_rows(t, "id,s", "1,{a: -1, b: NULL, n: {p: 10, q: q1}, c: c1, z: NULL};12,NULL;"
	                   "13,{a: 3, b: b3, n: NULL, c: NULL, z: NULL};4,{a: 4, b: b4, n: {p: 8, q: NULL}, c: NULL, z: NULL}");
	dl_free(t);
	dl_free(s);
}

/* A new struct column named only by assignments to its fields joins the
 * table with just those fields. */
static void test_evolution_new_struct_column(void **state)
{
	(void)state;
	char *t = fx_table(g_dir, "newcol"), *s = source("newcol_src", SDDL);
	dx_create(t, "id BIGINT", NULL, NULL, 0);
	dx_append(t, "id BIGINT", "1;4");
	dl_merge *m = begin(t, s);
	assert_int_equal(dl_merge_with_schema_evolution(m), 0);
	const char *c[] = {"t.s.n.q", "t.s.a"}, *v[] = {"u.s.n.q", "u.s.a"};
	assert_int_equal(dl_merge_when_matched_update(m, NULL, c, v, 2), 0);
	run(m);
	schema_has(t, "STRUCT<id: BIGINT, s: STRUCT<a: BIGINT, n: STRUCT<q: STRING>>>");
	dx_rows(t, "id,s", "1,{a: -1, n: {q: q1}};4,NULL");
	dl_free(t);
	dl_free(s);
}

/* Structs inside arrays are stored by name (Spark's castIfNeeded with a
 * lambda over the elements): fields in another order pair by name, not by
 * position. */
static void test_array_of_structs(void **state)
{
	(void)state;
	char *t = fx_table(g_dir, "arr"), *s = fx_table(g_dir, "arr_src");
	dx_create(t, "id BIGINT, arr ARRAY<STRUCT<x: BIGINT, y: BIGINT>>", NULL, NULL, 0);
	dx_append(t, "id BIGINT", "1");
	dx_create(s, "id BIGINT, a ARRAY<STRUCT<x: INT, y: INT>>, b ARRAY<STRUCT<y: BIGINT, x: BIGINT>>", NULL, NULL, 0);
	dx_append(s, "id BIGINT", "1");
	dl_update_metrics u;
	dl_update_assignment set[] = {{"a", "array(named_struct('x', 1, 'y', 2))"}, {"b", "array(named_struct('y', 5, 'x', 6), NULL)"}};
	assert_int_equal(dl_update(&u, s, set, 2, NULL, NULL), 0);
	dl_merge *m = begin(t, s);
	const char *c1[] = {"arr"}, *v1[] = {"u.a"};
	assert_int_equal(dl_merge_when_matched_update(m, NULL, c1, v1, 1), 0);
	run(m);
	dx_rows(t, "id,arr", "1,[{x: 1, y: 2}]");
	m = begin(t, s);
	const char *v2[] = {"u.b"};
	assert_int_equal(dl_merge_when_matched_update(m, NULL, c1, v2, 1), 0);
	run(m);
	dx_rows(t, "id,arr", "1,[{x: 6, y: 5}, NULL]");
	dl_free(t);
	dl_free(s);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_nested_assignments),
		cmocka_unit_test(test_refusals),
		cmocka_unit_test(test_store_by_name),
		cmocka_unit_test(test_evolution_star),
		cmocka_unit_test(test_evolution_assignments),
		cmocka_unit_test(test_evolution_new_struct_column),
		cmocka_unit_test(test_array_of_structs),
	};
	return cmocka_run_group_tests(tests, fx_setup_tmpdir, fx_teardown_tmpdir);
}
