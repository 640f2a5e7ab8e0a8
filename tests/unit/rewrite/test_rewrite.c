/* The rewrite engine (src/rewrite/rewrite.h) on real tables: deletion-vector
 * output (one packed DV file per commit, merged with existing DVs, fully
 * deleted files removed, tightBounds false), copy-on-write output, row ids
 * and commit versions kept in both, change data, files in parallel,
 * caller-given row positions, and a failure that leaves no files behind. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include "rw_fixture.h"

#define OK(expr)                                                                   \
	do {                                                                           \
		int rc_ = (expr);                                                          \
		if (rc_ < 0) fail_msg("%s: %s", #expr, dl_error_last()->message);        \
	} while (0)

static void check_rows(const char *uri, const char *want)
{
	char *got = rwf_read(uri);
	if (!got) fail_msg("read %s: %s", uri, dl_error_last()->message);
	assert_string_equal(got, want);
	dl_free(got);
}

/* ids 0..9 in two files: 0-4 (row ids 0-4) and 5-9 (row ids 5-9), version 1. */
static char *two_files(const char *name, bool dv, bool cdf)
{
	char *uri = rwf_table(name);
	OK(rwf_create(uri, dv, cdf));
	OK(rwf_append(uri, 0, 5, 2));
	return uri;
}

static void test_dv_output(void **state)
{
	(void)state;
	char *uri = two_files("dv", true, false);
	dl_rewrite_options ro = DL_REWRITE_OPTIONS_INIT;
	int64_t v;
	OK(rwf_rewrite(&v, uri, "id % 2 = 0", &ro, NULL, NULL));
	assert_int_equal(v, 2);
	/* both files got a DV, packed in ONE file; no data file was written */
	assert_int_equal(rwf_files(uri, "deletion_vector_"), 1);
	assert_int_equal(rwf_files(uri, "part-"), 2);
	char *c = fx_commit_text(uri, 2);
	assert_int_equal(fx_count(c, "\"remove\""), 2);
	assert_int_equal(fx_count(c, "\"add\""), 2);
	assert_int_equal(fx_count(c, "\"deletionVector\":{\"storageType\":\"u\""), 2);
	assert_int_equal(fx_count(c, "tightBounds\\\":false"), 2);
	/* the adds keep their row ids and commit versions */
	assert_int_equal(fx_count(c, "\"baseRowId\":0,\"defaultRowCommitVersion\":1"), 2); /* remove + add */
	assert_int_equal(fx_count(c, "\"baseRowId\":5,\"defaultRowCommitVersion\":1"), 2);
	/* one DV file: both descriptors name the same id, at different offsets */
	const char *p1 = strstr(c, "\"add\"");
	p1 = strstr(p1, "pathOrInlineDv\":\"");
	const char *p2 = strstr(strstr(p1 + 1, "\"add\""), "pathOrInlineDv\":\"");
	assert_non_null(p1);
	assert_non_null(p2);
	assert_memory_equal(p1, p2, 17 + 20);
	free(c);
	check_rows(uri, "1:1:1 3:3:1 5:5:1 7:7:1 9:9:1");

	/* a second delete merges with the existing DV */
	OK(rwf_rewrite(&v, uri, "id = 1 OR id = 9", &ro, NULL, NULL));
	c = fx_commit_text(uri, 3);
	/* the adds: {0,2,4} + 1 and {6,8} + 9 (the removes carry the old DVs) */
	assert_int_equal(fx_count(c, "\"cardinality\":4"), 1);
	assert_int_equal(fx_count(c, "\"cardinality\":3},\"baseRowId\":5"), 1);
	free(c);
	check_rows(uri, "3:3:1 5:5:1 7:7:1");
	assert_int_equal(rwf_files(uri, "deletion_vector_"), 2);

	/* the last row of file 0-4 goes: the file is removed, not given a DV */
	OK(rwf_rewrite(&v, uri, "id = 3", &ro, NULL, NULL));
	c = fx_commit_text(uri, 4);
	assert_int_equal(fx_count(c, "\"remove\""), 1);
	assert_int_equal(fx_count(c, "\"add\""), 0);
	free(c);
	assert_int_equal(rwf_files(uri, "deletion_vector_"), 2); /* no DV for a removed file */
	check_rows(uri, "5:5:1 7:7:1");
	free(uri);
}

static void test_copy_output(void **state)
{
	(void)state;
	char *uri = two_files("copy", false, false);
	dl_rewrite_options ro = DL_REWRITE_OPTIONS_INIT;
	int64_t v;
	OK(rwf_rewrite(&v, uri, "id >= 3 AND id <= 6", &ro, NULL, NULL));
	char *c = fx_commit_text(uri, 2);
	assert_int_equal(fx_count(c, "\"remove\""), 2);
	assert_int_equal(fx_count(c, "\"add\""), 2);
	assert_null(strstr(c, "deletionVector"));
	/* the copies get fresh ids after the high-water mark (9) */
	assert_non_null(strstr(c, "\"baseRowId\":10,\"defaultRowCommitVersion\":2"));
	assert_non_null(strstr(c, "\"rowIdHighWaterMark\\\":15"));
	free(c);
	assert_int_equal(rwf_files(uri, "part-"), 4);
	assert_int_equal(rwf_files(uri, "deletion_vector_"), 0);
	/* ... but the rows keep their stable ids and commit versions */
	check_rows(uri, "0:0:1 1:1:1 2:2:1 7:7:1 8:8:1 9:9:1");
	/* and keep them when copied again */
	OK(rwf_rewrite(&v, uri, "id = 0", &ro, NULL, NULL));
	check_rows(uri, "1:1:1 2:2:1 7:7:1 8:8:1 9:9:1");
	/* untouched files stay: nothing matches */
	OK(rwf_rewrite(&v, uri, "id = 100", &ro, NULL, NULL));
	c = fx_commit_text(uri, v);
	assert_int_equal(fx_count(c, "\"remove\""), 0);
	free(c);

	/* a DV table asked for copies copies */
	char *u2 = two_files("copy_forced", true, false);
	ro.output = DL_REWRITE_COPY;
	OK(rwf_rewrite(&v, u2, "id = 4", &ro, NULL, NULL));
	assert_int_equal(rwf_files(u2, "deletion_vector_"), 0);
	check_rows(u2, "0:0:1 1:1:1 2:2:1 3:3:1 5:5:1 6:6:1 7:7:1 8:8:1 9:9:1");
	free(u2);
	free(uri);
}

/* The change data feed of versions [from, latest] as "type:id" sorted text. */
static char *changes(const char *uri, int64_t from)
{
	dl_changes_options o = DL_CHANGES_OPTIONS_INIT;
	o.start_version = from;
	dl_batch_stream *s;
	if (dl_changes_batches(&s, uri, &o) < 0) return NULL;
	char **rows = NULL;
	size_t n = 0;
	for (;;) {
		dl_batch *b;
		if (dl_batch_stream_next(s, &b) < 0) return NULL;
		if (!b) break;
		int ct = dl_schema_find(b->schema, "_change_type");
		for (int64_t r = 0; r < b->num_rows; r++) {
			const dl_array *k = b->cols[ct];
			rows = realloc(rows, (n + 1) * sizeof *rows);
			rows[n] = malloc(64);
			snprintf(rows[n++], 64, "%.*s:%lld", (int)(k->offsets[r + 1] - k->offsets[r]),
			         (const char *)k->data + k->offsets[r],
			         (long long)((int64_t *)b->cols[0]->values)[r]);
		}
		dl_batch_free(b);
	}
	dl_batch_stream_free(s);
	qsort(rows, n, sizeof *rows, fx_strcmp);
	dl_buf out = DL_BUF_INIT;
	for (size_t i = 0; i < n; i++) {
		dl_buf_printf(&out, "%s%s", i ? " " : "", rows[i]);
		free(rows[i]);
	}
	free(rows);
	return out.data ? dl_buf_detach(&out, NULL) : dl_strdup("");
}

/* UPDATE-style callback: id -> id + 100. */
static int add_100(dl_batch **out, const dl_rewrite_matched *m, void *payload)
{
	(void)payload;
	int64_t n = m->rows->num_rows;
	int64_t *ids = malloc((size_t)(n ? n : 1) * sizeof *ids);
	for (int64_t i = 0; i < n; i++) ids[i] = ((const int64_t *)m->rows->cols[0]->values)[i] + 100;
	*out = rwf_ids(ids, n);
	free(ids);
	return *out ? 0 : DL_ENOMEM;
}

static void test_change_data(void **state)
{
	(void)state;
	dl_rewrite_options ro = DL_REWRITE_OPTIONS_INIT;
	int64_t v;
	/* copy-on-write: the deleted rows are `delete` change rows */
	char *uri = two_files("cdf_copy", false, true);
	OK(rwf_rewrite(&v, uri, "id = 2 OR id = 7", &ro, NULL, NULL));
	char *c = fx_commit_text(uri, v);
	assert_int_equal(fx_count(c, "\"cdc\""), 2);
	free(c);
	char *got = changes(uri, v);
	assert_non_null(got);
	assert_string_equal(got, "delete:2 delete:7");
	dl_free(got);
	free(uri);

	/* DVs: a delete writes no change data (derived from the DVs) */
	uri = two_files("cdf_dv", true, true);
	OK(rwf_rewrite(&v, uri, "id = 2", &ro, NULL, NULL));
	c = fx_commit_text(uri, v);
	assert_null(strstr(c, "\"cdc\""));
	free(c);
	assert_int_equal(rwf_files(uri, "cdc-"), 0);
	got = changes(uri, v);
	assert_string_equal(got, "delete:2");
	dl_free(got);

	/* an update: pre- and post-images; the updated row keeps its row id and
	 * takes the new commit version */
	ro.update = add_100;
	OK(rwf_rewrite(&v, uri, "id = 8", &ro, NULL, NULL));
	got = changes(uri, v);
	assert_string_equal(got, "update_postimage:108 update_preimage:8");
	dl_free(got);
	check_rows(uri, "0:0:1 1:1:1 3:3:1 4:4:1 5:5:1 6:6:1 7:7:1 9:9:1 108:8:3");
	free(uri);
}

static void test_parallel_files(void **state)
{
	(void)state;
	char *uri = rwf_table("parallel");
	OK(rwf_create(uri, false, false));
	OK(rwf_append(uri, 0, 100, 8)); /* ids 0..799 in 8 files */
	dl_rewrite_options ro = DL_REWRITE_OPTIONS_INIT;
	ro.threads = 4;
	int64_t v;
	OK(rwf_rewrite(&v, uri, "id % 100 < 98", &ro, NULL, NULL));
	char *c = fx_commit_text(uri, v);
	assert_int_equal(fx_count(c, "\"remove\""), 8);
	assert_int_equal(fx_count(c, "\"add\""), 8);
	assert_non_null(strstr(c, "\"rowIdHighWaterMark\\\":815"));
	free(c);
	dl_buf want = DL_BUF_INIT;
	for (int f = 0; f < 8; f++)
		for (int k = 98; k < 100; k++)
			dl_buf_printf(&want, "%s%d:%d:1", want.len ? " " : "", f * 100 + k, f * 100 + k);
	check_rows(uri, want.data);
	dl_buf_free(&want);
	free(uri);
}

/* Caller-given positions (MERGE's join): rows 1 and 3 of the second file. */
static int touch_positions(dl_rewrite *rw, dl_snapshot *snap, void *payload)
{
	(void)payload;
	const dl_log_state *st = dl_snapshot_state(snap);
	for (size_t i = 0; i < st->nadds; i++) {
		const dl_add *a = dl_log_state_add(st, i);
		if (a->base_row_id != 5) continue;
		static const uint64_t pos[] = {1, 3};
		return dl_rewrite_touch_rows(rw, a, pos, 2);
	}
	return dl_error_set(DL_ENOTFOUND, "no file with baseRowId 5");
}

static void test_given_rows(void **state)
{
	(void)state;
	dl_rewrite_options ro = DL_REWRITE_OPTIONS_INIT;
	int64_t v;
	char *uri = two_files("rows_dv", true, false);
	OK(rwf_rewrite(&v, uri, NULL, &ro, touch_positions, NULL));
	check_rows(uri, "0:0:1 1:1:1 2:2:1 3:3:1 4:4:1 5:5:1 7:7:1 9:9:1");
	free(uri);
	uri = two_files("rows_copy", false, false);
	OK(rwf_rewrite(&v, uri, NULL, &ro, touch_positions, NULL));
	check_rows(uri, "0:0:1 1:1:1 2:2:1 3:3:1 4:4:1 5:5:1 7:7:1 9:9:1");
	free(uri);
}

/* Fails on the file holding id 5 (after other files may have been written). */
static int fail_on_5(dl_batch **out, const dl_rewrite_matched *m, void *payload)
{
	(void)payload;
	if (((const int64_t *)m->rows->cols[0]->values)[0] >= 500)
		return dl_error_set(DL_EIO, "injected failure");
	return add_100(out, m, NULL);
}

static void test_failure_leaves_nothing(void **state)
{
	(void)state;
	char *uri = rwf_table("failure");
	OK(rwf_create(uri, true, true));
	OK(rwf_append(uri, 0, 100, 8));
	char *before = rwf_read(uri);
	int parts = rwf_files(uri, "part-");
	dl_rewrite_options ro = DL_REWRITE_OPTIONS_INIT;
	ro.update = fail_on_5;
	ro.threads = 2;
	int64_t v = -7;
	int rc = rwf_rewrite(&v, uri, "id % 100 = 1", &ro, NULL, NULL);
	assert_int_equal(rc, DL_EIO);
	assert_non_null(strstr(dl_error_last()->message, "injected failure"));
	/* no data, change data or DV file stays; the log has no new version */
	assert_int_equal(rwf_files(uri, "part-"), parts);
	assert_int_equal(rwf_files(uri, "cdc-"), 0);
	assert_int_equal(rwf_files(uri, "deletion_vector_"), 0);
	assert_null(fx_commit_text(uri, 2));
	check_rows(uri, before);
	dl_free(before);
	free(uri);
}

static int touch_copy_all(dl_rewrite *rw, dl_snapshot *snap, void *payload)
{
	(void)payload;
	const dl_log_state *st = dl_snapshot_state(snap);
	for (size_t i = 0; i < st->nadds; i++)
		if (dl_log_state_add(st, i)->dv) DL_TRY(dl_rewrite_touch_copy(rw, dl_log_state_add(st, i)));
	return 0;
}

static int touch_by_expr(dl_rewrite *rw, dl_snapshot *snap, void *payload)
{
	dl_expr *e;
	DL_TRY(dl_expr_parse(&e, payload));
	int rc = dl_expr_bind(e, dl_snapshot_schema(snap));
	if (rc == 0) rc = dl_rewrite_touch_expr(rw, e);
	dl_expr_free(e);
	return rc;
}

/* A bound expression selects like its text; a purge copies a DV'd file's
 * live rows (ids kept) and drops the DV. */
static void test_expr_and_purge(void **state)
{
	(void)state;
	char *uri = two_files("purge", true, false);
	dl_rewrite_options ro = DL_REWRITE_OPTIONS_INIT;
	int64_t v;
	OK(rwf_rewrite(&v, uri, NULL, &ro, touch_by_expr, (void *)"id IN (1, 2, 6)"));
	check_rows(uri, "0:0:1 3:3:1 4:4:1 5:5:1 7:7:1 8:8:1 9:9:1");
	OK(rwf_rewrite(&v, uri, NULL, &ro, touch_copy_all, NULL));
	char *c = fx_commit_text(uri, v);
	assert_int_equal(fx_count(c, "\"remove\""), 2);
	assert_int_equal(fx_count(c, "\"add\""), 2);
	/* the two removes carry the old DVs; the new files have none */
	assert_int_equal(fx_count(c, "deletionVector"), 2);
	free(c);
	check_rows(uri, "0:0:1 3:3:1 4:4:1 5:5:1 7:7:1 8:8:1 9:9:1");
	free(uri);
}

/* Copies of a row-tracking table need the materialized column names: the
 * engine refuses without them, and dl_rewrite_row_tracking_names assigns
 * them as Spark names them. */
static void test_row_tracking_names(void **state)
{
	(void)state;
	char *uri = rwf_table("unnamed");
	OK(rwf_create_named(uri, false, false, false));
	OK(rwf_append(uri, 0, 5, 1));
	dl_rewrite_options ro = DL_REWRITE_OPTIONS_INIT;
	int64_t v;
	assert_int_equal(rwf_rewrite(&v, uri, "id = 1", &ro, NULL, NULL), DL_EINVALID);
	assert_non_null(strstr(dl_error_last()->message, "materializedRowIdColumnName"));
	assert_int_equal(rwf_files(uri, "part-"), 1);

	dl_arena a = DL_ARENA_INIT;
	dl_kv kv[] = {{"delta.enableRowTracking", "true"}};
	dl_str_map in = {kv, 1}, out;
	bool changed;
	OK(dl_rewrite_row_tracking_names(&out, &changed, &a, &in, true));
	assert_true(changed);
	assert_int_equal(out.n, 3);
	const char *id = dl_str_map_get(&out, "delta.rowTracking.materializedRowIdColumnName", NULL);
	const char *cv = dl_str_map_get(&out, "delta.rowTracking.materializedRowCommitVersionColumnName", NULL);
	assert_non_null(id);
	assert_non_null(cv);
	assert_int_equal(strncmp(id, "_row-id-col-", 12), 0);
	assert_int_equal(strlen(id), 12 + 36);
	assert_int_equal(strncmp(cv, "_row-commit-version-col-", 24), 0);
	/* names already there are kept; a table without the feature gets none */
	dl_str_map again;
	OK(dl_rewrite_row_tracking_names(&again, &changed, &a, &out, true));
	assert_false(changed);
	assert_ptr_equal(again.items, out.items);
	OK(dl_rewrite_row_tracking_names(&again, &changed, &a, &in, false));
	assert_false(changed);
	assert_int_equal(again.n, 1);
	dl_arena_free(&a);
	free(uri);
}

/* Rows of a file of BIG rows (ids = positions) span three read batches of
 * 65536 (the scan's default); the old DV's rows sit at and around the
 * batch boundaries, where the positions of a batch stop being consecutive
 * (rewrite_read.c lists them only then). */
#define BIG 140000
static const uint64_t big_given[] = {65534, 65538, 131070, 139999};

static int touch_big(dl_rewrite *rw, dl_snapshot *snap, void *payload)
{
	(void)payload;
	const dl_log_state *st = dl_snapshot_state(snap);
	return dl_rewrite_touch_rows(rw, dl_log_state_add(st, 0), big_given, 4);
}

/* The rows left are those not in gone[0..n), each at its own position
 * (row id = base 0 + position = id, commit version 1). */
static void check_big(const char *uri, const int64_t *gone, int n)
{
	dl_snapshot *snap;
	OK(dl_snapshot_open(&snap, uri, NULL));
	const char *cols[] = {"id", DL_SCAN_ROW_ID, DL_SCAN_ROW_COMMIT_VERSION};
	dl_scan_options so = DL_SCAN_OPTIONS_INIT;
	so.columns = cols;
	so.ncolumns = 3;
	dl_scan *scan;
	OK(dl_scan_open(&scan, snap, &so));
	dl_batch_stream *st;
	OK(dl_scan_batches(&st, scan));
	uint8_t *seen = calloc(BIG, 1);
	int64_t rows = 0;
	for (;;) {
		dl_batch *b;
		OK(dl_batch_stream_next(st, &b));
		if (!b) break;
		const int64_t *id = b->cols[0]->values, *rid = b->cols[1]->values, *cv = b->cols[2]->values;
		for (int64_t r = 0; r < b->num_rows; r++) {
			assert_true(id[r] >= 0 && id[r] < BIG);
			assert_int_equal(rid[r], id[r]);
			assert_int_equal(cv[r], 1);
			assert_false(seen[id[r]]);
			seen[id[r]] = 1;
		}
		rows += b->num_rows;
		dl_batch_free(b);
	}
	dl_batch_stream_free(st);
	dl_scan_free(scan);
	dl_snapshot_free(snap);
	for (int i = 0; i < n; i++) assert_false(seen[gone[i]]);
	assert_int_equal(rows, BIG - n);
	free(seen);
}

static void test_dv_across_batches(void **state)
{
	(void)state;
	char *uri = rwf_table("dv_batches");
	OK(rwf_create(uri, true, false));
	OK(rwf_append(uri, 0, BIG, 1));
	dl_rewrite_options ro = DL_REWRITE_OPTIONS_INIT;
	int64_t v;
	/* the last row of the first batch, the first of the second, the last
	 * of the second */
	OK(rwf_rewrite(&v, uri, "id = 65535 OR id = 65536 OR id = 131071", &ro, NULL, NULL));
	int64_t gone[32] = {65535, 65536, 131071};
	check_big(uri, gone, 3);
	/* a predicate on every batch: the first reads consecutive rows, the
	 * others skip the old DV's */
	OK(rwf_rewrite(&v, uri, "id % 10000 = 9999 OR id = 65537 OR id = 131072 OR id = 65534", &ro, NULL,
	               NULL));
	int n = 3;
	for (int64_t id = 9999; id < BIG; id += 10000) gone[n++] = id;
	gone[n++] = 65537;
	gone[n++] = 131072;
	gone[n++] = 65534;
	check_big(uri, gone, n);
	char *c = fx_commit_text(uri, 3);
	char card[32];
	snprintf(card, sizeof card, "\"cardinality\":%d", n);
	assert_int_equal(fx_count(c, card), 1);
	free(c);
	/* caller-given positions around the deleted ones (65534 and 139999 are
	 * deleted already and stay so) */
	OK(rwf_rewrite(&v, uri, NULL, &ro, touch_big, NULL));
	gone[n++] = 65538;
	gone[n++] = 131070;
	check_big(uri, gone, n);
	free(uri);
}

/* The same positions in pieces (dl_rewrite_touch_rows_more, as MERGE
 * hands over a spilled file's), to copies and to a DV; a piece for another
 * file or not past the last position is refused. */
static int touch_big_pieces(dl_rewrite *rw, dl_snapshot *snap, void *payload)
{
	(void)payload;
	const dl_add *a = dl_log_state_add(dl_snapshot_state(snap), 0);
	dl_add other = *a;
	other.path = "elsewhere.parquet";
	DL_TRY(dl_rewrite_touch_rows(rw, a, big_given, 1));
	DL_TRY(dl_rewrite_touch_rows_more(rw, a, big_given + 1, 2));
	assert_int_equal(dl_rewrite_touch_rows_more(rw, &other, big_given + 3, 1), DL_EINVALID);
	assert_int_equal(dl_rewrite_touch_rows_more(rw, a, big_given + 2, 1), DL_EINVALID);
	dl_error_clear();
	return dl_rewrite_touch_rows_more(rw, a, big_given + 3, 1);
}

static void test_given_rows_in_pieces(void **state)
{
	(void)state;
	int64_t gone[] = {65534, 65538, 131070, 139999};
	for (int dv = 0; dv < 2; dv++) {
		char *uri = rwf_table(dv ? "pieces_dv" : "pieces_copy");
		OK(rwf_create(uri, dv, false));
		OK(rwf_append(uri, 0, BIG, 1));
		dl_rewrite_options ro = DL_REWRITE_OPTIONS_INIT;
		int64_t v;
		OK(rwf_rewrite(&v, uri, NULL, &ro, touch_big_pieces, NULL));
		check_big(uri, gone, 4);
		char *c = fx_commit_text(uri, 2);
		assert_int_equal(fx_count(c, "\"cardinality\":4"), dv);
		free(c);
		free(uri);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_dv_output),
		cmocka_unit_test(test_copy_output),
		cmocka_unit_test(test_change_data),
		cmocka_unit_test(test_parallel_files),
		cmocka_unit_test(test_given_rows),
		cmocka_unit_test(test_failure_leaves_nothing),
		cmocka_unit_test(test_row_tracking_names),
		cmocka_unit_test(test_expr_and_purge),
		cmocka_unit_test(test_dv_across_batches),
		cmocka_unit_test(test_given_rows_in_pieces),
	};
	int rc = cmocka_run_group_tests(tests, NULL, NULL);
	rwf_cleanup();
	return rc;
}
