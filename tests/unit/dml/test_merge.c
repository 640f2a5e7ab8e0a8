/* The MERGE builder through the C API: sources as ArrowArrayStreams and as
 * table references (time travel), the checks Spark makes before running
 * (no WHEN clause, conditions on non-last clauses), the metrics struct,
 * failures leaving the table as it was, a memory budget for the join, and
 * the store and options conventions. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>
#include "deltalake/merge.h"
#include "deltalake/error.h"
#include "dml/merge.h"
#include "log/snapshot.h"
#include "unit/ops/ops_fixture.h"
#include "unit/dml/dml_fixture.h" /* dx_tree */

static const char *DDL = "id BIGINT, v BIGINT";

static char *mk_table(const char *name, const char *rows)
{
	char *t = fx_table(g_dir, name);
	dl_write_options o = fx_opts(DL_WRITE_ERROR_IF_EXISTS);
	int64_t v;
	assert_int_equal(fx_write(&v, t, DDL, rows, &o), 0);
	return t;
}

/* An ArrowArrayStream of rows "1,2;3,4" of schema ddl. */
static void source_stream(struct ArrowArrayStream *out, const char *ddl, const char *rows)
{
	dl_batch_stream *s = fx_stream(ddl, rows);
	assert_non_null(s);
	assert_int_equal(dl_batch_stream_export(out, s), 0);
}

static dl_merge *upsert(const char *table, const char *src_rows)
{
	dl_merge *m;
	dl_merge_options o = DL_MERGE_OPTIONS_INIT;
	assert_int_equal(dl_merge_new(&m, table, &o), 0);
	struct ArrowArrayStream st;
	source_stream(&st, DDL, src_rows);
	assert_int_equal(dl_merge_source_stream(m, &st), 0);
	assert_null(st.release); /* moved */
	assert_int_equal(dl_merge_alias(m, "t", "s"), 0);
	assert_int_equal(dl_merge_on(m, "t.id = s.id"), 0);
	return m;
}

static void test_upsert_metrics(void **state)
{
	(void)state;
	char *t = mk_table("upsert", "1,10;2,20;3,30");
	dl_merge *m = upsert(t, "2,200;4,400");
	assert_int_equal(dl_merge_when_matched_update_all(m, NULL), 0);
	assert_int_equal(dl_merge_when_not_matched_insert_all(m, NULL), 0);
	dl_merge_metrics r;
	assert_int_equal(dl_merge_execute(&r, m), 0);
	assert_int_equal(r.version, 1);
	assert_int_equal(r.num_source_rows, 2);
	assert_int_equal(r.num_target_rows_updated, 1);
	assert_int_equal(r.num_target_rows_matched_updated, 1);
	assert_int_equal(r.num_target_rows_inserted, 1);
	assert_int_equal(r.num_target_rows_copied, 2);
	assert_int_equal(r.num_output_rows, 4);
	assert_int_equal(r.num_target_files_removed, 1);
	/* a merge executes once */
	assert_int_equal(dl_merge_execute(&r, m), DL_EINVALID);
	dl_merge_free(m);
	char *rows = fx_read(t, -1, NULL);
	assert_string_equal(rows, "1,10;2,200;3,30;4,400");
	dl_free(rows);
	dl_free(t);
}

static void test_table_source_time_travel(void **state)
{
	(void)state;
	char *t = mk_table("tt_target", "1,1;2,2");
	char *s = mk_table("tt_source", "1,100");
	dl_write_options o = fx_opts(DL_WRITE_APPEND);
	int64_t v;
	assert_int_equal(fx_write(&v, s, DDL, "2,200", &o), 0);
	dl_merge *m;
	assert_int_equal(dl_merge_new(&m, t, NULL), 0);
	assert_int_equal(dl_merge_source_table(m, s, 0), 0); /* version 0: only id 1 */
	/* a second source is refused */
	assert_int_equal(dl_merge_source_table(m, s, 1), DL_EINVALID);
	assert_int_equal(dl_merge_alias(m, "t", "s"), 0);
	assert_int_equal(dl_merge_on(m, "t.id = s.id"), 0);
	const char *cols[] = {"v"}, *vals[] = {"s.v + t.v"};
	assert_int_equal(dl_merge_when_matched_update(m, NULL, cols, vals, 1), 0);
	dl_merge_metrics r;
	assert_int_equal(dl_merge_execute(&r, m), 0);
	dl_merge_free(m);
	char *rows = fx_read(t, -1, NULL);
	assert_string_equal(rows, "1,101;2,2");
	dl_free(rows);
	dl_free(t);
	dl_free(s);
}

static void expect_class(dl_merge *m, const char *klass)
{
	dl_merge_metrics r;
	assert_true(dl_merge_execute(&r, m) < 0);
	assert_string_equal(dl_error_last()->klass, klass);
}

static void test_clause_rules(void **state)
{
	(void)state;
	char *t = mk_table("rules", "1,1");
	dl_merge *m = upsert(t, "1,2");
	expect_class(m, "DELTA_MERGE_MISSING_WHEN");
	dl_merge_free(m);
	m = upsert(t, "1,2");
	assert_int_equal(dl_merge_when_not_matched_by_source_delete(m, NULL), 0);
	assert_int_equal(dl_merge_when_not_matched_by_source_delete(m, "t.v > 0"), 0);
	expect_class(m, "NON_LAST_NOT_MATCHED_BY_SOURCE_CLAUSE_OMIT_CONDITION");
	dl_merge_free(m);
	/* an UPDATE needs assignments */
	m = upsert(t, "1,2");
	assert_int_equal(dl_merge_when_matched_update(m, NULL, NULL, NULL, 0), DL_EINVALID);
	dl_merge_free(m);
	char *rows = fx_read(t, -1, NULL);
	assert_string_equal(rows, "1,1");
	dl_free(rows);
	dl_free(t);
}

/* A failure after files were written (a CHECK violation on an inserted
 * row, after the updates were rewritten) leaves no new version and no
 * new files. */
static void test_failure_leaves_table(void **state)
{
	(void)state;
	char *t = mk_table("fail", "1,1;2,2");
	int before = fx_count_parquet(t);
	dl_merge *m = upsert(t, "1,5;3,-1");
	assert_int_equal(dl_merge_when_matched_update_all(m, NULL), 0);
	const char *cols[] = {"id", "v"}, *vals[] = {"s.id", "CAST(1 / 0 AS BIGINT)"};
	assert_int_equal(dl_merge_when_not_matched_insert(m, NULL, cols, vals, 2), 0);
	dl_merge_metrics r;
	assert_true(dl_merge_execute(&r, m) < 0);
	dl_merge_free(m);
	assert_int_equal(fx_count_parquet(t), before);
	char *rows = fx_read(t, -1, NULL);
	assert_string_equal(rows, "1,1;2,2");
	dl_free(rows);
	dl_free(t);
}

/* ANSI store assignment in both clauses: a value overflowing the INT
 * column is Spark's DELTA_CAST_OVERFLOW_IN_TABLE_WRITE naming the column,
 * the table stays byte-identical; the user's own CAST keeps CAST_OVERFLOW. */
static void merge_overflow(const char *t, bool insert, const char *value, const char *klass)
{
	char *before = dx_tree(t);
	dl_merge *m;
	assert_int_equal(dl_merge_new(&m, t, NULL), 0);
	struct ArrowArrayStream st;
	source_stream(&st, "id BIGINT, v BIGINT", "1,5000000000;3,6000000000");
	assert_int_equal(dl_merge_source_stream(m, &st), 0);
	assert_int_equal(dl_merge_alias(m, "t", "s"), 0);
	assert_int_equal(dl_merge_on(m, "t.id = s.id"), 0);
	const char *cols[] = {"id", "i"}, *vals[] = {"s.id", value};
	if (insert) assert_int_equal(dl_merge_when_not_matched_insert(m, NULL, cols, vals, 2), 0);
	else assert_int_equal(dl_merge_when_matched_update(m, NULL, cols + 1, vals + 1, 1), 0);
	dl_merge_metrics r;
	assert_true(dl_merge_execute(&r, m) < 0);
	const dl_error *e = dl_error_last();
	assert_string_equal(e->klass, klass);
	if (strcmp(klass, "DELTA_CAST_OVERFLOW_IN_TABLE_WRITE") == 0)
		assert_non_null(strstr(e->message, "Failed to write a value of \"BIGINT\" type into the \"INT\" type "
		                                   "column `i` due to an overflow."));
	dl_merge_free(m);
	char *after = dx_tree(t);
	assert_string_equal(before, after);
	dl_free(before);
	dl_free(after);
}

static void test_store_overflow(void **state)
{
	(void)state;
	char *t = fx_table(g_dir, "overflow");
	dl_write_options o = fx_opts(DL_WRITE_ERROR_IF_EXISTS);
	int64_t v;
	assert_int_equal(fx_write(&v, t, "id BIGINT, i INT", "1,1;2,2", &o), 0);
	merge_overflow(t, false, "s.v", "DELTA_CAST_OVERFLOW_IN_TABLE_WRITE");
	merge_overflow(t, true, "s.v", "DELTA_CAST_OVERFLOW_IN_TABLE_WRITE");
	merge_overflow(t, false, "CAST(s.v AS INT)", "CAST_OVERFLOW");
	merge_overflow(t, true, "CAST(s.v AS INT)", "CAST_OVERFLOW");
	char *rows = fx_read(t, -1, NULL);
	assert_string_equal(rows, "1,1;2,2");
	dl_free(rows);
	dl_free(t);
}

/* dl_merge_options.auto_widening with schema evolution on a table with
 * type widening: ALWAYS (the default) widens the INT column to the
 * source's DOUBLE, SAME_FAMILY_TYPE keeps INT and casts the values. */
static void widening_merge(const char *name, dl_auto_widening mode, const char *want_rows, dl_type_id want)
{
	char *t = fx_table(g_dir, name);
	dl_create_options c = DL_CREATE_OPTIONS_INIT;
	c.schema_ddl = "id BIGINT, v INT";
	const char *k[] = {"delta.enableTypeWidening"}, *val[] = {"true"};
	c.property_keys = k;
	c.property_values = val;
	c.nproperties = 1;
	int64_t ver;
	assert_int_equal(dl_create_table(&ver, t, &c), 0);
	dl_merge *m;
	dl_merge_options o = DL_MERGE_OPTIONS_INIT;
	o.auto_widening = mode;
	assert_int_equal(dl_merge_new(&m, t, &o), 0);
	struct ArrowArrayStream st;
	source_stream(&st, "id BIGINT, v DOUBLE", "1,2.5");
	assert_int_equal(dl_merge_source_stream(m, &st), 0);
	assert_int_equal(dl_merge_alias(m, "t", "s"), 0);
	assert_int_equal(dl_merge_on(m, "t.id = s.id"), 0);
	assert_int_equal(dl_merge_when_not_matched_insert_all(m, NULL), 0);
	assert_int_equal(dl_merge_with_schema_evolution(m), 0);
	dl_merge_metrics r;
	assert_int_equal(dl_merge_execute(&r, m), 0);
	dl_merge_free(m);
	char *rows = fx_read(t, -1, NULL);
	assert_string_equal(rows, want_rows);
	dl_free(rows);
	dl_snapshot *snap;
	assert_int_equal(dl_snapshot_open(&snap, t, NULL), 0);
	assert_int_equal(dl_snapshot_schema(snap)->children[1].type->id, want);
	dl_snapshot_free(snap);
	dl_free(t);
}

static void test_auto_widening(void **state)
{
	(void)state;
	widening_merge("widen_always", DL_AUTO_WIDENING_ALWAYS, "1,2.5", DL_TYPE_DOUBLE);
	widening_merge("widen_same", DL_AUTO_WIDENING_SAME_FAMILY_TYPE, "1,2", DL_TYPE_INTEGER);
}

static void test_memory_limit(void **state)
{
	(void)state;
	char *t = mk_table("mem", "1,1;2,2");
	dl_merge *m;
	dl_merge_options o = DL_MERGE_OPTIONS_INIT;
	o.memory_limit = 64; /* far below the join's build side */
	assert_int_equal(dl_merge_new(&m, t, &o), 0);
	struct ArrowArrayStream st;
	source_stream(&st, DDL, "1,9;5,5");
	assert_int_equal(dl_merge_source_stream(m, &st), 0);
	/* without a target alias: unqualified names are the target's when the
	 * source lacks them, and the source's alias names the source */
	assert_int_equal(dl_merge_on(m, "t.id = s.id"), 0);
	assert_int_equal(dl_merge_alias(m, "t", "s"), 0);
	assert_int_equal(dl_merge_when_matched_delete(m, NULL), 0);
	dl_merge_metrics r;
	int rc = dl_merge_execute(&r, m);
	/* the join either spills within the budget or reports it; never a
	 * silent overrun, and the table is unchanged on failure */
	if (rc < 0) {
		assert_int_equal(rc, DL_ENOMEM);
		char *rows = fx_read(t, -1, NULL);
		assert_string_equal(rows, "1,1;2,2");
		dl_free(rows);
	} else {
		char *rows = fx_read(t, -1, NULL);
		assert_string_equal(rows, "2,2");
		dl_free(rows);
	}
	dl_merge_free(m);
	dl_free(t);
}

/* "a,b;c,d" rows of ids [from, to), v = id * mul, as fx_write takes. */
static char *rows_text(int64_t from, int64_t to, int64_t mul)
{
	size_t cap = (size_t)(to - from) * 24 + 1, len = 0;
	char *s = malloc(cap);
	assert_non_null(s);
	s[0] = 0;
	for (int64_t i = from; i < to; i++)
		len += (size_t)snprintf(s + len, cap - len, "%s%lld,%lld", i > from ? ";" : "", (long long)i,
		                        (long long)(i * mul));
	return s;
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The table's rows sorted (file order differs between write paths). */
static char *sorted_rows(const char *t)
{
	char *rows = fx_read(t, -1, NULL);
	assert_non_null(rows);
	size_t n = 1, len = strlen(rows);
	for (char *p = rows; *p; p++) n += *p == ';';
	char **v = calloc(n, sizeof *v), *save = NULL;
	size_t k = 0;
	for (char *tok = strtok_r(rows, ";", &save); tok; tok = strtok_r(NULL, ";", &save)) v[k++] = tok;
	qsort(v, k, sizeof *v, cmp_str);
	char *out = calloc(len + 2, 1);
	for (size_t i = 0; i < k; i++) {
		if (i) strcat(out, ";");
		strcat(out, v[i]);
	}
	free(v);
	dl_free(rows);
	return out;
}

/* Three target files of 2000 rows, a source matching 5000 of them. */
static char *touched_table(const char *name)
{
	char *t = fx_table(g_dir, name);
	int64_t v;
	for (int f = 0; f < 3; f++) {
		dl_write_options o = fx_opts(f ? DL_WRITE_APPEND : DL_WRITE_ERROR_IF_EXISTS);
		char *rows = rows_text(f * 2000, (f + 1) * 2000, 1);
		assert_int_equal(fx_write(&v, t, DDL, rows, &o), 0);
		free(rows);
	}
	return t;
}

static int touched_merge(const char *t, const char *src_rows, int64_t limit, bool only_delete,
                         dl_merge_metrics *r)
{
	dl_merge *m;
	dl_merge_options o = DL_MERGE_OPTIONS_INIT;
	o.memory_limit = limit;
	o.temp_dir = g_dir;
	assert_int_equal(dl_merge_new(&m, t, &o), 0);
	struct ArrowArrayStream st;
	source_stream(&st, DDL, src_rows);
	assert_int_equal(dl_merge_source_stream(m, &st), 0);
	assert_int_equal(dl_merge_alias(m, "t", "s"), 0);
	assert_int_equal(dl_merge_on(m, "t.id = s.id"), 0);
	if (only_delete) {
		assert_int_equal(dl_merge_when_matched_delete(m, NULL), 0);
	} else {
		const char *cols[] = {"v"}, *vals[] = {"t.v + s.v"};
		assert_int_equal(dl_merge_when_matched_delete(m, "s.v % 4 = 0"), 0);
		assert_int_equal(dl_merge_when_matched_update(m, NULL, cols, vals, 1), 0);
		assert_int_equal(dl_merge_when_not_matched_insert_all(m, NULL), 0);
	}
	int rc = dl_merge_execute(r, m);
	dl_merge_free(m);
	return rc;
}

/* No spill file outlives the merge: g_dir holds only the tables. */
static void no_temp_files(void)
{
	char cmd[1024];
	snprintf(cmd, sizeof cmd, "test -z \"$(find '%s' -maxdepth 1 -name 'dl-spill-*')\"", g_dir);
	assert_int_equal(system(cmd), 0);
}

/* 5000 touched rows (160 KB of records) against a 32 KB budget: the
 * records spill per target file and are read back in position order; the
 * result, the metrics and the multiple-match check are the in-memory
 * path's. */
static void test_touched_rows_spill(void **state)
{
	(void)state;
	char *src = rows_text(1000, 7000, 3);
	char *want = NULL;
	dl_merge_metrics r[2];
	for (int k = 0; k < 2; k++) {
		char *t = touched_table(k ? "touched_spill" : "touched_mem");
		assert_int_equal(touched_merge(t, src, k ? 32 * 1024 : 0, false, &r[k]), 0);
		char *got = sorted_rows(t);
		if (!k) want = got;
		else {
			assert_string_equal(got, want);
			free(got);
		}
		dl_free(t);
	}
	assert_int_equal(r[0].num_target_rows_updated, 3750);
	assert_int_equal(r[0].num_target_rows_deleted, 1250);
	assert_int_equal(r[0].num_target_rows_inserted, 1000);
	assert_int_equal(r[1].num_target_rows_updated, r[0].num_target_rows_updated);
	assert_int_equal(r[1].num_target_rows_deleted, r[0].num_target_rows_deleted);
	assert_int_equal(r[1].num_target_rows_inserted, r[0].num_target_rows_inserted);
	assert_int_equal(r[1].num_target_rows_copied, r[0].num_target_rows_copied);
	assert_int_equal(r[1].num_target_files_removed, 3);
	no_temp_files();
	free(want);

	/* one source row twice (target row 4321, in the last file) */
	size_t n = strlen(src);
	char *dup = malloc(n + 32);
	snprintf(dup, n + 32, "%s;4321,7", src);
	for (int k = 0; k < 2; k++) {
		char *t = touched_table(k ? "dup_spill" : "dup_mem");
		char *before = sorted_rows(t);
		assert_int_equal(touched_merge(t, dup, k ? 32 * 1024 : 0, false, &r[k]), DL_EINVALID);
		assert_string_equal(dl_error_last()->klass, "DELTA_MULTIPLE_SOURCE_ROW_MATCHING_TARGET_ROW_IN_MERGE");
		char *after = sorted_rows(t);
		assert_string_equal(after, before);
		free(before);
		free(after);
		/* an unconditional DELETE as the only MATCHED clause allows it */
		assert_int_equal(touched_merge(t, dup, k ? 32 * 1024 : 0, true, &r[k]), 0);
		assert_int_equal(r[k].num_target_rows_deleted, 5000);
		char *rows = sorted_rows(t);
		size_t nrows = 1;
		for (char *p = rows; *p; p++) nrows += *p == ';';
		assert_int_equal(nrows, 1000); /* ids 0..999 */
		assert_true(strncmp(rows, "0,0;1,1;10,10;", 14) == 0);
		free(rows);
		dl_free(t);
	}
	no_temp_files();
	free(dup);
	free(src);
}

/* The row sets MERGE holds (here the target's old DV of 100,000 rows: four
 * 8 KB bitmaps, read by the target reader and the rewrite engine) count
 * against memory_limit: under a budget too small for them the merge fails
 * naming them, the table unchanged, rather than exceeding it silently;
 * with room for them it runs. */
/* sum(v) and count(*) of table t, as "sum,count". */
static void sum_count(const char *t, char *out, size_t cap)
{
	char *got = fx_read(t, -1, "v");
	assert_non_null(got);
	long long sum = 0, n = 0;
	for (char *p = got; *p;) {
		char *end;
		sum += strtoll(p, &end, 10);
		n++;
		p = *end ? end + 1 : end;
	}
	dl_free(got);
	snprintf(out, cap, "%lld,%lld", sum, n);
}

static void test_row_sets_charged(void **state)
{
	(void)state;
	char *t = fx_table(g_dir, "rowsets");
	const char *props[] = {"delta.enableDeletionVectors", "true"};
	dx_create(t, DDL, NULL, props, 1);
	char *rows = rows_text(0, 200000, 1);
	dx_append(t, DDL, rows);
	free(rows);
	dl_delete_metrics d;
	assert_int_equal(dl_delete(&d, t, "id % 2 = 1", NULL), 0);
	assert_int_equal(d.numDeletedRows, 100000);
	int64_t limits[] = {16 * 1024, 1024 * 1024};
	char got[64];
	for (int k = 0; k < 2; k++) {
		dl_merge *m;
		dl_merge_options o = DL_MERGE_OPTIONS_INIT;
		o.memory_limit = limits[k];
		o.temp_dir = g_dir;
		assert_int_equal(dl_merge_new(&m, t, &o), 0);
		struct ArrowArrayStream st;
		source_stream(&st, DDL, "0,5;2,7");
		assert_int_equal(dl_merge_source_stream(m, &st), 0);
		assert_int_equal(dl_merge_alias(m, "t", "s"), 0);
		assert_int_equal(dl_merge_on(m, "t.id = s.id"), 0);
		assert_int_equal(dl_merge_when_matched_update_all(m, NULL), 0);
		dl_merge_metrics r;
		int rc = dl_merge_execute(&r, m);
		dl_merge_free(m);
		if (k == 0) {
			assert_int_equal(rc, DL_ENOMEM);
			assert_non_null(strstr(dl_error_last()->message, "merge row positions"));
			assert_non_null(strstr(dl_error_last()->message, "memory limit of 16384 bytes exceeded"));
			dl_error_clear();
			sum_count(t, got, sizeof got);
			assert_string_equal(got, "9999900000,100000"); /* even ids 0..199998 */
		} else {
			if (rc < 0) fail_msg("merge: %s", dl_error_last()->message);
			assert_int_equal(r.num_target_rows_updated, 2);
			sum_count(t, got, sizeof got);
			assert_string_equal(got, "9999900010,100000"); /* v of id 0: 5, of id 2: 7 */
		}
	}
	no_temp_files();
	dl_free(t);
}

static void test_options_and_arguments(void **state)
{
	(void)state;
	dl_merge *m;
	dl_merge_options o = DL_MERGE_OPTIONS_INIT;
	o.version = 0;
	assert_int_equal(dl_merge_new(&m, "/nowhere", &o), DL_EINVALID);
	assert_null(m);
	assert_int_equal(dl_merge_new(&m, NULL, NULL), DL_EINVALID);
	o.version = DL_MERGE_OPTIONS_VERSION;
	o.auto_widening = (dl_auto_widening)9;
	assert_int_equal(dl_merge_new(&m, "/nowhere", &o), DL_EINVALID);
	o.version = 1; /* before auto_widening: ALWAYS */
	assert_int_equal(dl_merge_new(&m, "/nowhere", &o), 0);
	dl_merge_free(m);
	assert_int_equal(dl_merge_new(&m, "/nowhere/at/all", NULL), 0);
	assert_int_equal(dl_merge_on(m, ""), DL_EINVALID);
	assert_int_equal(dl_merge_source_stream(m, NULL), DL_EINVALID);
	assert_int_equal(dl_merge_source_table(m, "/nowhere/src", -1), 0);
	assert_int_equal(dl_merge_on(m, "t.id = s.id"), 0);
	assert_int_equal(dl_merge_when_matched_delete(m, NULL), 0);
	dl_merge_metrics r;
	assert_true(dl_merge_execute(&r, m) < 0); /* no table there */
	dl_merge_free(m);
	dl_merge_free(NULL);
}

/* The SQL layer's entry: a batch stream source. */
static void test_batch_source(void **state)
{
	(void)state;
	char *t = mk_table("batches", "1,1");
	dl_merge *m;
	assert_int_equal(dl_merge_new(&m, t, NULL), 0);
	dl_batch_stream *s = fx_stream(DDL, "1,7;2,8");
	assert_non_null(s);
	assert_int_equal(dl_merge_source_batches(m, s), 0);
	assert_int_equal(dl_merge_alias(m, "tgt", "src"), 0);
	assert_int_equal(dl_merge_on(m, "tgt.id = src.id"), 0);
	assert_int_equal(dl_merge_when_matched_update_all(m, "src.v > 5"), 0);
	assert_int_equal(dl_merge_when_not_matched_insert_all(m, NULL), 0);
	dl_merge_metrics r;
	assert_int_equal(dl_merge_execute(&r, m), 0);
	dl_merge_free(m);
	char *rows = fx_read(t, -1, NULL);
	assert_string_equal(rows, "1,7;2,8");
	dl_free(rows);
	dl_free(t);
}

/* id in both sides unqualified is ambiguous (Spark's AMBIGUOUS_REFERENCE) */
static void test_ambiguous(void **state)
{
	(void)state;
	char *t = mk_table("ambiguous", "1,1");
	dl_merge *m = upsert(t, "1,2");
	assert_int_equal(dl_merge_on(m, "id = s.id"), 0);
	assert_int_equal(dl_merge_when_matched_delete(m, NULL), 0);
	expect_class(m, "AMBIGUOUS_REFERENCE");
	dl_merge_free(m);
	dl_free(t);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_upsert_metrics),
		cmocka_unit_test(test_table_source_time_travel),
		cmocka_unit_test(test_clause_rules),
		cmocka_unit_test(test_failure_leaves_table),
		cmocka_unit_test(test_store_overflow),
		cmocka_unit_test(test_auto_widening),
		cmocka_unit_test(test_memory_limit),
		cmocka_unit_test(test_touched_rows_spill),
		cmocka_unit_test(test_row_sets_charged),
		cmocka_unit_test(test_options_and_arguments),
		cmocka_unit_test(test_batch_source),
		cmocka_unit_test(test_ambiguous),
	};
	return cmocka_run_group_tests(tests, fx_setup_tmpdir, fx_teardown_tmpdir);
}
