/* OPTIMIZE and REORG through the C API: rows (with their stable row ids and
 * commit versions) identical before and after, Spark's bins, commitInfo,
 * errors, Z-order and clustering measured by files skipped, incremental
 * clustering, auto compaction, and conflicts with concurrent writers. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <dirent.h>
#include "txn/txn_internal.h"
#include "opt_fixture.h"
#include "optimize/auto_compact.h"

static void parity(int64_t id, int64_t *x, int64_t *y, int *p)
{
	(void)x;
	(void)y;
	*p = (int)(id % 2);
}

/* x and y spread independently over 0..999 */
static void scatter(int64_t id, int64_t *x, int64_t *y, int *p)
{
	uint64_t h = (uint64_t)id * 0x9E3779B97F4A7C15ull;
	*x = (int64_t)((h >> 20) % 1000);
	*y = (int64_t)((h >> 40) % 1000);
	*p = 0;
}

static int64_t version_of(const char *uri)
{
	dl_snapshot *s;
	if (dl_snapshot_open(&s, uri, NULL) < 0) return -1;
	int64_t v = dl_snapshot_version(s);
	dl_snapshot_free(s);
	return v;
}

static int count_parquet(const char *dir)
{
	DIR *d = opendir(dir);
	if (!d) return 0;
	int n = 0;
	struct dirent *e;
	while ((e = readdir(d))) {
		if (e->d_name[0] == '.' || !strcmp(e->d_name, "_delta_log")) continue;
		char sub[1024];
		snprintf(sub, sizeof sub, "%s/%s", dir, e->d_name);
		if (e->d_type == DT_DIR) n += count_parquet(sub);
		else if (strstr(e->d_name, ".parquet")) n++;
	}
	closedir(d);
	return n;
}

static void binpack_keeps_rows_and_row_ids(void **state)
{
	(void)state;
	char *t = of_table("binpack");
	assert_int_equal(of_create(t, false, NULL), 0);
	for (int i = 0; i < 5; i++) assert_int_equal(of_append(t, i * 200, 100, 2, NULL), 0);
	assert_int_equal(of_delete(t, "id % 7 = 0"), 0);
	char *before = of_read(t);
	assert_non_null(before);
	dl_optimize_metrics m;
	assert_int_equal(dl_optimize(&m, t, NULL), 0);
	assert_int_equal(m.numRemovedFiles, 10);
	assert_int_equal(m.numAddedFiles, 1);
	assert_int_equal(m.numBatches, 1);
	assert_int_equal(m.numDeletionVectorsRemoved, 10);
	assert_int_equal(m.totalConsideredFiles, 10);
	assert_int_equal(m.totalFilesSkipped, 0);
	assert_true(m.minFileSize > 0 && m.minFileSize == m.maxFileSize && m.p50FileSize == m.minFileSize);
	char *after = of_read(t);
	assert_string_equal(before, after); /* rows, row ids and commit versions */
	char *c = fx_commit_text(t, m.version);
	assert_non_null(strstr(c, "\"operation\":\"OPTIMIZE\""));
	assert_non_null(strstr(c, "\"operationParameters\":{\"predicate\":\"[]\",\"zOrderBy\":\"[]\","
	                          "\"clusterBy\":\"[]\",\"auto\":false}"));
	assert_non_null(strstr(c, "\"numRemovedFiles\":\"10\""));
	assert_non_null(strstr(c, "\"numDeletionVectorsRemoved\":\"10\""));
	assert_int_equal(fx_count(c, "\"dataChange\":false"), 11);
	assert_int_equal(fx_count(c, "\"dataChange\":true"), 0);
	/* the new file has no deletion vector: the deleted rows are gone */
	const char *add = strstr(c, "{\"add\":");
	assert_non_null(add);
	assert_null(strstr(add, "deletionVector"));
	/* nothing left to do: no commit */
	dl_optimize_metrics m2;
	assert_int_equal(dl_optimize(&m2, t, NULL), 0);
	assert_int_equal(m2.version, -1);
	assert_int_equal(m2.totalConsideredFiles, 1);
	assert_int_equal(m2.totalFilesSkipped, 1);
	free(c);
	dl_free(before);
	dl_free(after);
	free(t);
}

static void bins_follow_max_file_size(void **state)
{
	(void)state;
	char *t = of_table("bins");
	assert_int_equal(of_create(t, false, NULL), 0);
	assert_int_equal(of_append(t, 0, 500, 12, NULL), 0);
	dl_snapshot *s;
	assert_int_equal(dl_snapshot_open(&s, t, NULL), 0);
	int64_t one = dl_log_state_add(dl_snapshot_state(s), 0)->size;
	dl_snapshot_free(s);
	char *before = of_read(t);
	dl_optimize_options o = DL_OPTIMIZE_OPTIONS_INIT;
	o.max_file_size = one * 4 + one / 2; /* 4 files a bin */
	o.threads = 2;
	dl_optimize_metrics m;
	assert_int_equal(dl_optimize(&m, t, &o), 0);
	assert_int_equal(m.numBatches, 3);
	assert_int_equal(m.numAddedFiles, 3);
	assert_int_equal(m.numRemovedFiles, 12);
	char *after = of_read(t);
	assert_string_equal(before, after);
	/* files at or above minFileSize (= maxFileSize) are left alone */
	dl_optimize_metrics m2;
	o.max_file_size = one / 2;
	assert_int_equal(dl_optimize(&m2, t, &o), 0);
	assert_int_equal(m2.version, -1);
	dl_free(before);
	dl_free(after);
	free(t);
}

static void target_file_size_property_wins(void **state)
{
	(void)state;
	char *t = of_table("tfs");
	const char *props[] = {"delta.targetFileSize", "1b", NULL};
	assert_int_equal(of_create(t, false, props), 0);
	assert_int_equal(of_append(t, 0, 100, 3, NULL), 0);
	dl_optimize_metrics m;
	/* every file is at least 1 byte: nothing is small */
	assert_int_equal(dl_optimize(&m, t, NULL), 0);
	assert_int_equal(m.version, -1);
	/* the caller's size wins over the property */
	dl_optimize_options o = DL_OPTIMIZE_OPTIONS_INIT;
	o.max_file_size = 1LL << 30;
	assert_int_equal(dl_optimize(&m, t, &o), 0);
	assert_int_equal(m.numRemovedFiles, 3);
	char *bad = of_table("tfs_bad");
	const char *badp[] = {"delta.targetFileSize", "big", NULL};
	assert_int_equal(of_create(bad, false, badp), 0);
	assert_int_equal(of_append(bad, 0, 10, 2, NULL), 0);
	assert_int_equal(dl_optimize(&m, bad, NULL), DL_EINVALID);
	assert_non_null(strstr(dl_error_last()->message, "delta.targetFileSize 'big'"));
	free(bad);
	free(t);
}

static void where_selects_partitions(void **state)
{
	(void)state;
	char *t = of_table("where");
	assert_int_equal(of_create(t, true, NULL), 0);
	for (int i = 0; i < 3; i++) assert_int_equal(of_append(t, i * 100, 100, 1, parity), 0);
	assert_int_equal(of_nfiles(t), 6);
	int64_t v0 = version_of(t);
	dl_optimize_options o = DL_OPTIMIZE_OPTIONS_INIT;
	o.where = "x > 1";
	dl_optimize_metrics m;
	assert_int_equal(dl_optimize(&m, t, &o), DL_EINVALID);
	assert_string_equal(dl_error_last()->klass, "DELTA_NON_PARTITION_COLUMN_REFERENCE");
	assert_non_null(strstr(dl_error_last()->message, "non-partition column 'x'"));
	assert_int_equal(version_of(t), v0);
	char *before = of_read(t);
	o.where = "p = 1";
	assert_int_equal(dl_optimize(&m, t, &o), 0);
	assert_int_equal(m.numRemovedFiles, 3);
	assert_int_equal(m.partitionsOptimized, 1);
	assert_int_equal(of_nfiles(t), 4);
	char *c = fx_commit_text(t, m.version);
	assert_non_null(strstr(c, "\"predicate\":\"[\\\"(p = 1)\\\"]\""));
	assert_int_equal(fx_count(c, "\"partitionValues\":{\"p\":\"0\"}"), 0);
	char *after = of_read(t);
	assert_string_equal(before, after);
	/* every partition */
	assert_int_equal(dl_optimize(&m, t, NULL), 0);
	assert_int_equal(m.numRemovedFiles, 3);
	assert_int_equal(of_nfiles(t), 2);
	free(c);
	dl_free(before);
	dl_free(after);
	free(t);
}

static void zorder_errors(void **state)
{
	(void)state;
	char *t = of_table("zerr");
	const char *props[] = {"delta.dataSkippingNumIndexedCols", "2", NULL};
	assert_int_equal(of_create(t, true, props), 0);
	assert_int_equal(of_append(t, 0, 10, 2, parity), 0);
	dl_optimize_options o = DL_OPTIMIZE_OPTIONS_INIT;
	dl_optimize_metrics m;
	const char *part[] = {"p"}, *missing[] = {"x", "nope"}, *nostats[] = {"x", "y", "s"};
	o.zorder_by = part;
	o.nzorder_by = 1;
	assert_int_equal(dl_optimize(&m, t, &o), DL_EINVALID);
	assert_string_equal(dl_error_last()->klass, "DELTA_ZORDERING_ON_PARTITION_COLUMN");
	o.zorder_by = missing;
	o.nzorder_by = 2;
	assert_int_equal(dl_optimize(&m, t, &o), DL_EINVALID);
	assert_string_equal(dl_error_last()->klass, "DELTA_ZORDERING_COLUMN_DOES_NOT_EXIST");
	assert_non_null(strstr(dl_error_last()->message, "nope"));
	o.zorder_by = nostats;
	o.nzorder_by = 3;
	assert_int_equal(dl_optimize(&m, t, &o), DL_EINVALID);
	assert_string_equal(dl_error_last()->klass, "DELTA_ZORDERING_ON_COLUMN_WITHOUT_STATS");
	assert_non_null(strstr(dl_error_last()->message, "[y, s]"));
	o.nzorder_by = 0;
	o.full = true;
	assert_int_equal(dl_optimize(&m, t, &o), DL_EINVALID);
	assert_string_equal(dl_error_last()->klass, "DELTA_OPTIMIZE_FULL_NOT_SUPPORTED");
	free(t);
}

/* Files a point predicate on each column reads, over every value. */
static double avg_files(const char *t, const char *col)
{
	int64_t sum = 0;
	int n = 0;
	for (int v = 0; v < 1000; v += 50, n++) {
		char f[64];
		snprintf(f, sizeof f, "%s = %d", col, v);
		sum += of_scan_files(t, f);
	}
	return (double)sum / n;
}

static void zorder_skips_files(void **state)
{
	(void)state;
	char *t = of_table("zorder");
	assert_int_equal(of_create(t, false, NULL), 0);
	assert_int_equal(of_append(t, 0, 1500, 16, scatter), 0);
	int64_t files = of_nfiles(t);
	double bx = avg_files(t, "x"), by = avg_files(t, "y");
	char *before = of_read(t);
	dl_snapshot *s;
	assert_int_equal(dl_snapshot_open(&s, t, NULL), 0);
	int64_t total = dl_snapshot_state(s)->total_size;
	dl_snapshot_free(s);
	dl_optimize_options o = DL_OPTIMIZE_OPTIONS_INIT;
	const char *cols[] = {"x", "y"};
	o.zorder_by = cols;
	o.nzorder_by = 2;
	o.max_file_size = total / 16;
	dl_optimize_stats zs;
	o.stats = &zs;
	dl_optimize_metrics m;
	assert_int_equal(dl_optimize(&m, t, &o), 0);
	assert_int_equal(m.numRemovedFiles, 16);
	assert_true(m.numAddedFiles >= 8);
	/* ZOrderStrategy.updateOptimizeStats: "all", the removed files as the
	 * other and merged files, one cube per partition */
	assert_true(zs.has_zorder_stats);
	assert_false(zs.has_clustering_stats);
	assert_string_equal(zs.zorder_strategy_name, "all");
	assert_int_equal(zs.zorder_input_cube_files.num, 0);
	assert_int_equal(zs.zorder_input_other_files.num, 16);
	assert_int_equal(zs.zorder_input_other_files.size, m.numRemovedBytes);
	assert_int_equal(zs.zorder_merged_files.num, 16);
	assert_int_equal(zs.zorder_num_output_cubes, 1);
	assert_int_equal(zs.zorder_merged_num_cubes, -1);
	assert_int_equal(zs.numBins, 0);
	assert_true(zs.numTableColumns >= 2);
	assert_int_equal(zs.numTableColumnsWithStats, zs.numTableColumns);
	char *after = of_read(t);
	assert_string_equal(before, after);
	double ax = avg_files(t, "x"), ay = avg_files(t, "y");
	int64_t nf = of_nfiles(t);
	print_message("z-order (x, y): files read for x = v: %.1f of %lld before, %.1f of %lld after; "
	              "y = v: %.1f before, %.1f after\n", bx, (long long)files, ax, (long long)nf, by, ay);
	/* without clustering every file holds every value; after, a point
	 * predicate on either column reads at most about half the files */
	assert_true(bx >= files - 0.5 && by >= files - 0.5);
	assert_true(ax <= nf * 0.6);
	assert_true(ay <= nf * 0.6);
	char *c = fx_commit_text(t, m.version);
	assert_non_null(strstr(c, "\"zOrderBy\":\"[\\\"x\\\",\\\"y\\\"]\""));
	free(c);
	dl_free(before);
	dl_free(after);
	free(t);
}

static void clustering_incremental_and_full(void **state)
{
	(void)state;
	char *t = of_table("cluster");
	assert_int_equal(of_create(t, false, NULL), 0);
	assert_int_equal(of_set_domain(t, "delta.clustering", "{\"clusteringColumns\":[[\"x\"],[\"y\"]]}"), 0);
	assert_int_equal(of_append(t, 0, 1500, 16, scatter), 0);
	dl_snapshot *s;
	assert_int_equal(dl_snapshot_open(&s, t, NULL), 0);
	int64_t total = dl_snapshot_state(s)->total_size;
	dl_snapshot_free(s);
	char *before = of_read(t);
	dl_optimize_options o = DL_OPTIMIZE_OPTIONS_INIT;
	o.max_file_size = total / 16;
	const char *z[] = {"x"};
	o.zorder_by = z;
	o.nzorder_by = 1;
	dl_optimize_metrics m;
	assert_int_equal(dl_optimize(&m, t, &o), DL_EINVALID);
	assert_string_equal(dl_error_last()->klass, "DELTA_CLUSTERING_WITH_ZORDER_BY");
	o.nzorder_by = 0;
	dl_optimize_stats cs;
	o.stats = &cs;
	assert_int_equal(dl_optimize(&m, t, &o), 0);
	assert_int_equal(m.numRemovedFiles, 16);
	/* ClusteringStatsCollector: nothing clustered yet, all merged, one
	 * ZCube per bin */
	assert_true(cs.has_clustering_stats);
	assert_false(cs.has_zorder_stats);
	assert_int_equal(cs.clustering_input_zcube_files.num, 0);
	assert_int_equal(cs.clustering_input_other_files.num, 16);
	assert_int_equal(cs.clustering_input_num_zcubes, 0);
	assert_int_equal(cs.clustering_merged_files.num, 16);
	assert_int_equal(cs.clustering_merged_files.size, m.numRemovedBytes);
	assert_int_equal(cs.clustering_num_output_zcubes, m.numBatches);
	char *c = fx_commit_text(t, m.version);
	assert_int_equal(fx_count(c, "\"clusteringProvider\":\"liquid\""), (int)m.numAddedFiles);
	/* ZCubeInfo tags on every file written */
	assert_int_equal(fx_count(c, "\"ZCUBE_ID\":\""), (int)m.numAddedFiles);
	assert_int_equal(fx_count(c, "\"ZCUBE_ZORDER_BY\":\"[\\\"x\\\",\\\"y\\\"]\""), (int)m.numAddedFiles);
	int64_t zcubes = m.numBatches, clustered = m.numAddedFiles;
	assert_non_null(strstr(c, "\"zOrderBy\":\"[]\",\"clusterBy\":\"[\\\"x\\\",\\\"y\\\"]\""));
	free(c);
	char *after = of_read(t);
	assert_string_equal(before, after);
	double ax = avg_files(t, "x"), ay = avg_files(t, "y");
	int64_t nf = of_nfiles(t);
	print_message("Hilbert (x, y): files read for x = v: %.1f, y = v: %.1f of %lld\n", ax, ay, (long long)nf);
	assert_true(ax <= nf * 0.6);
	assert_true(ay <= nf * 0.6);
	/* incremental: only the new, unclustered files */
	assert_int_equal(of_append(t, 100000, 200, 2, scatter), 0);
	assert_int_equal(dl_optimize(&m, t, &o), 0);
	assert_int_equal(m.numRemovedFiles, 2);
	assert_int_equal(cs.clustering_input_zcube_files.num, clustered);
	assert_int_equal(cs.clustering_input_num_zcubes, zcubes);
	assert_int_equal(cs.clustering_input_other_files.num, 2);
	assert_int_equal(cs.clustering_merged_files.num, 2);
	/* FULL: everything again */
	int64_t live = of_nfiles(t);
	o.full = true;
	assert_int_equal(dl_optimize(&m, t, &o), 0);
	assert_int_equal(m.numRemovedFiles, live);
	dl_free(before);
	dl_free(after);
	free(t);
}

static void reorg_purges_deletion_vectors(void **state)
{
	(void)state;
	char *t = of_table("reorg");
	assert_int_equal(of_create(t, true, NULL), 0);
	assert_int_equal(of_append(t, 0, 100, 4, parity), 0);
	assert_int_equal(of_delete(t, "id = 3 OR id = 7"), 0); /* one file of p = 1 */
	char *before = of_read(t);
	dl_optimize_metrics m;
	dl_reorg_options o = DL_REORG_OPTIONS_INIT;
	o.where = "p = 0";
	assert_int_equal(dl_reorg_purge(&m, t, &o), 0);
	assert_int_equal(m.version, -1); /* no DV in p = 0 */
	assert_int_equal(dl_reorg_purge(&m, t, NULL), 0);
	assert_int_equal(m.numRemovedFiles, 1);
	assert_int_equal(m.numAddedFiles, 1);
	assert_int_equal(m.numDeletionVectorsRemoved, 1);
	assert_int_equal(m.numDeletionVectorRowsRemoved, 2);
	char *c = fx_commit_text(t, m.version);
	assert_non_null(strstr(c, "\"operation\":\"REORG\""));
	assert_non_null(strstr(c, "\"applyPurge\":true"));
	const char *add = strstr(c, "{\"add\":");
	assert_non_null(add);
	assert_null(strstr(add, "deletionVector"));
	char *after = of_read(t);
	assert_string_equal(before, after);
	assert_int_equal(of_nfiles(t), 8);
	free(c);
	dl_free(before);
	dl_free(after);
	free(t);
}

typedef struct concurrent {
	const char *uri;
	bool append;
	bool done;
	int rc;
} concurrent;

/* Another writer commits while OPTIMIZE runs. */
static int meanwhile(const dl_progress_info *p, void *payload)
{
	(void)p;
	concurrent *c = payload;
	if (c->done) return 0;
	c->done = true;
	c->rc = c->append ? of_append(c->uri, 50000, 10, 1, NULL) : of_delete(c->uri, "id = 5");
	return 0;
}

static void concurrent_append_does_not_conflict(void **state)
{
	(void)state;
	char *t = of_table("conc_append");
	assert_int_equal(of_create(t, false, NULL), 0);
	assert_int_equal(of_append(t, 0, 100, 4, NULL), 0);
	concurrent cc = {t, true, false, 0};
	dl_optimize_options o = DL_OPTIMIZE_OPTIONS_INIT;
	o.progress = meanwhile;
	o.progress_payload = &cc;
	dl_optimize_metrics m;
	assert_int_equal(dl_optimize(&m, t, &o), 0);
	assert_true(cc.done);
	assert_int_equal(cc.rc, 0);
	assert_int_equal(m.numRemovedFiles, 4);
	assert_int_equal(of_nfiles(t), 2); /* the compacted file and the appended one */
	char *rows = of_read(t);
	assert_int_equal(fx_count(rows, " ") + 1, 410);
	dl_free(rows);
	free(t);
}

static void concurrent_delete_conflicts(void **state)
{
	(void)state;
	char *t = of_table("conc_delete");
	assert_int_equal(of_create(t, false, NULL), 0);
	assert_int_equal(of_append(t, 0, 100, 4, NULL), 0);
	concurrent cc = {t, false, false, 0};
	dl_optimize_options o = DL_OPTIMIZE_OPTIONS_INIT;
	o.progress = meanwhile;
	o.progress_payload = &cc;
	dl_optimize_metrics m;
	int files_before = count_parquet(t);
	assert_int_equal(dl_optimize(&m, t, &o), DL_ECONFLICT);
	/* the transaction layer's class for Spark's DELTA_CONCURRENT_DELETE_READ */
	assert_string_equal(dl_error_last()->klass, "DELTA_CONCURRENT_DELETE_READ");
	assert_true(cc.done);
	assert_int_equal(cc.rc, 0);
	assert_int_equal(m.version, -1);
	/* the files OPTIMIZE wrote are gone; the delete's DV is a .bin */
	assert_int_equal(count_parquet(t), files_before);
	assert_int_equal(of_nfiles(t), 4);
	free(t);
}

static int cancel_after_first_bin(const dl_progress_info *p, void *payload)
{
	int *calls = payload;
	(*calls)++;
	return p->done >= 1;
}

static void cancel_leaves_no_files(void **state)
{
	(void)state;
	char *t = of_table("cancel");
	assert_int_equal(of_create(t, false, NULL), 0);
	assert_int_equal(of_append(t, 0, 100, 8, NULL), 0);
	dl_snapshot *s;
	assert_int_equal(dl_snapshot_open(&s, t, NULL), 0);
	int64_t one = dl_log_state_add(dl_snapshot_state(s), 0)->size;
	dl_snapshot_free(s);
	int before = count_parquet(t);
	int64_t v = version_of(t);
	int calls = 0;
	dl_optimize_options o = DL_OPTIMIZE_OPTIONS_INIT;
	o.progress = cancel_after_first_bin;
	o.progress_payload = &calls;
	o.max_file_size = one * 2 + one / 2; /* 4 bins */
	o.threads = 1;
	dl_optimize_metrics m;
	assert_int_equal(dl_optimize(&m, t, &o), DL_ECANCELLED);
	assert_true(calls >= 2);
	assert_int_equal(m.version, -1);
	assert_int_equal(count_parquet(t), before);
	assert_int_equal(version_of(t), v);
	free(t);
}

static void auto_compaction_of_touched_partitions(void **state)
{
	(void)state;
	char *t = of_table("auto");
	assert_int_equal(of_create(t, true, NULL), 0);
	for (int i = 0; i < 3; i++) assert_int_equal(of_append(t, i * 100, 100, 1, parity), 0);
	int64_t v = version_of(t);
	dl_auto_compact_options ao = DL_AUTO_COMPACT_OPTIONS_INIT;
	dl_optimize_metrics m;
	/* 3 small files a partition: below Spark's minNumFiles (50) */
	assert_int_equal(dl_auto_compact(&m, NULL, v, &ao), DL_EINVALID);
	dl_store *store;
	assert_int_equal(dl_store_open(&store, t, NULL), 0);
	assert_int_equal(dl_auto_compact(&m, store, v, &ao), 0);
	assert_int_equal(m.version, -1);
	ao.min_num_files = 2;
	assert_int_equal(dl_auto_compact(&m, store, v, &ao), 0);
	assert_int_equal(m.numRemovedFiles, 6);
	char *c = fx_commit_text(t, m.version);
	assert_non_null(strstr(c, "\"auto\":true"));
	free(c);
	dl_str_map conf = {NULL, 0};
	assert_false(dl_auto_compact_enabled(&conf));
	dl_kv kv = {"delta.autoOptimize.autoCompact", "true"};
	conf.items = &kv;
	conf.n = 1;
	assert_true(dl_auto_compact_enabled(&conf));
	dl_store_free(store);
	free(t);
}

static int teardown(void **state)
{
	(void)state;
	of_cleanup();
	return 0;
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(binpack_keeps_rows_and_row_ids),
		cmocka_unit_test(bins_follow_max_file_size),
		cmocka_unit_test(target_file_size_property_wins),
		cmocka_unit_test(where_selects_partitions),
		cmocka_unit_test(zorder_errors),
		cmocka_unit_test(zorder_skips_files),
		cmocka_unit_test(clustering_incremental_and_full),
		cmocka_unit_test(reorg_purges_deletion_vectors),
		cmocka_unit_test(concurrent_append_does_not_conflict),
		cmocka_unit_test(concurrent_delete_conflicts),
		cmocka_unit_test(cancel_leaves_no_files),
		cmocka_unit_test(auto_compaction_of_touched_partitions),
	};
	return cmocka_run_group_tests(tests, NULL, teardown);
}
