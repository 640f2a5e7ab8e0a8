/* OPTIMIZE and REORG TABLE ... APPLY (PURGE) (Spark's OptimizeTableCommand,
 * OptimizeExecutor, DeltaReorgTableCommand), the driver: the checks, in
 * Spark's order (optimize_checks.c); the candidate files of the partitions
 * the WHERE selects, grouped into bins (optimize_plan.c, bins.h); the bins
 * written in parallel (optimize_bin.c); then one commit that removes the
 * rewritten files and adds the new ones (optimize_commit.c), all with
 * dataChange=false, so concurrent appends never conflict with it while a
 * concurrent delete of a file it rewrote does (the transaction layer's
 * delete/read rule: every input is registered as read). Nothing to rewrite
 * commits nothing (metrics.version -1), as Spark does. */
#include "optimize/optimize_internal.h"

#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "expr/expr.h"
#include "log/table_features.h"
#include "optimize/auto_compact.h" /* its defaults, for opts.auto_compact */
#include "rewrite/rewrite.h"
#include "util/error.h"
#include "util/mem.h"
#include "util/pool.h"
#include "util/time.h"

#define GIB (1024LL * 1024 * 1024)
#define ROW_ID_KEY "delta.rowTracking.materializedRowIdColumnName"
#define ROW_CV_KEY "delta.rowTracking.materializedRowCommitVersionColumnName"


/* ---- opening ---- */

static int begin(opt_cmd *c, const char *uri, const opt_request *r)
{
	c->operation = r->operation;
	c->purge = r->purge;
	c->iceberg_compat = r->iceberg_compat;
	c->now_ms = dl_now_millis();
	c->progress = r->progress;
	c->progress_payload = r->progress_payload;
	if (r->store) {
		c->store = r->store;
	} else {
		if (!uri) return dl_error_set(DL_EINVALID, "%s: no table given", c->operation);
		DL_TRY(dl_store_open(&c->store, uri, r->store_options));
		c->owns_store = true;
	}
	dl_snapshot_options so = DL_SNAPSHOT_OPTIONS_INIT;
	so.store = c->store;
	int rc = dl_snapshot_open(&c->snap, dl_store_root(c->store), &so);
	if (rc == DL_ENOTFOUND)
		return dl_error_set_class(DL_ENOTFOUND, "DELTA_MISSING_DELTA_TABLE", "%s: %s is not a Delta table",
		                          c->operation, dl_store_root(c->store));
	DL_TRY(rc);
	const dl_log_state *st = dl_snapshot_state(c->snap);
	c->props = *dl_snapshot_props(c->snap);
	c->part_cols = (const char *const *)st->metadata->partition_columns;
	c->npart = (int)st->metadata->npartition_columns;
	c->tracked = dl_protocol_has(st->protocol, DL_FEATURE_ROW_TRACKING);
	c->preserve = c->tracked && c->props.enable_row_tracking;
	DL_TRY(dl_clustering_from_snapshot(&c->clustering, &c->clustered, c->snap));
	dl_txn_options to = DL_TXN_OPTIONS_INIT;
	to.operation = c->operation;
	to.user_metadata = r->user_metadata;
	DL_TRY(dl_txn_begin(&c->txn, c->store, c->snap, &to));
	/* copies keep their row ids in the materialized columns, which must
	 * have names (a table written before they were named gets them now) */
	bool named = false;
	c->config = st->metadata->configuration;
	if (c->preserve)
		DL_TRY(dl_rewrite_row_tracking_names(&c->config, &named, &c->arena, &st->metadata->configuration,
		                                     true));
	if (named) {
		dl_metadata md = *st->metadata;
		md.configuration = c->config;
		DL_TRY(dl_txn_set_metadata(c->txn, &md));
	}
	if (c->preserve) {
		dl_type *long_t = dl_type_new(DL_TYPE_LONG);
		if (!long_t) return DL_ENOMEM;
		const char *names[2] = {dl_str_map_get(&c->config, ROW_ID_KEY, NULL),
		                        dl_str_map_get(&c->config, ROW_CV_KEY, NULL)};
		for (int k = 0; k < 2; k++) {
			c->hidden[k] = (dl_field){(char *)names[k], k ? dl_type_ref(long_t) : long_t, true, (char *)"{}"};
		}
		c->nhidden = 2;
	}
	return 0;
}

static void end(opt_cmd *c, int rc)
{
	if (c->outs) {
		for (size_t i = 0; i < c->plan.nbins; i++) {
			if (rc < 0 && c->outs[i] && !(c->txn && dl_txn_commit_unknown(c->txn)))
				dl_files_writer_discard(c->outs[i]);
			dl_files_writer_free(c->outs[i]);
		}
		dl_free(c->outs);
	}
	for (int k = 0; k < c->nhidden; k++) dl_type_unref(c->hidden[k].type);
	dl_opt_plan_free(&c->plan);
	dl_clustering_free(&c->clustering);
	dl_txn_free(c->txn);
	dl_snapshot_free(c->snap);
	if (c->owns_store) dl_store_free(c->store);
	dl_arena_free(&c->arena);
}

/* ---- running the bins ---- */

typedef struct run_ctx {
	opt_cmd *c;
	pthread_t caller;
} run_ctx;

static int progress(opt_cmd *c)
{
	if (!c->progress) return 0;
	dl_progress_info p = {c->purge ? "reorg" : "optimize", "rewriting", "files", atomic_load(&c->files_done),
	                      (int64_t)c->plan.nfiles, atomic_load(&c->rows_done), -1};
	if (c->progress(&p, c->progress_payload) == 0) return 0;
	atomic_store(&c->cancel, true);
	return dl_error_set(DL_ECANCELLED, "%s cancelled by the progress callback", c->operation);
}

static int run_range(void *ctx, size_t begin, size_t endi)
{
	run_ctx *r = ctx;
	for (size_t i = begin; i < endi; i++) {
		if (atomic_load(&r->c->cancel))
			return dl_error_set(DL_ECANCELLED, "%s cancelled by the progress callback", r->c->operation);
		DL_TRY(dl_opt_write_bin(r->c, i));
		/* the callback runs on the calling thread only */
		if (pthread_equal(pthread_self(), r->caller)) DL_TRY(progress(r->c));
	}
	return 0;
}

static int run_bins(opt_cmd *c, int threads)
{
	c->outs = dl_calloc(c->plan.nbins ? c->plan.nbins : 1, sizeof *c->outs);
	if (!c->outs) return DL_ENOMEM;
	DL_TRY(progress(c));
	run_ctx r = {c, pthread_self()};
	c->threads = 1;
	if (c->plan.nbins <= 1) return c->plan.nbins ? run_range(&r, 0, 1) : 0;
	/* a pool of our own: the bins' scans decode on the shared pool, and a
	 * bin waiting for its scan must not hold a thread that scan needs */
	int n = threads > 0 ? threads : dl_default_threads();
	if ((size_t)n > c->plan.nbins) n = (int)c->plan.nbins;
	c->threads = n;
	dl_pool *pool;
	DL_TRY(dl_pool_create(&pool, n > 1 ? n - 1 : 1));
	int rc = dl_parallel_for(pool, c->plan.nbins, 1, run_range, &r);
	dl_pool_free(pool);
	if (rc == 0) rc = progress(c);
	return rc;
}

/* delta.targetFileSize: bytes, or a number with b, k/kb, m/mb, g/gb (any
 * case) as Databricks takes it. */
static int parse_size(const char *t, int64_t *out)
{
	char *e;
	double x = strtod(t, &e);
	while (*e == ' ') e++;
	double mul = 1;
	if (!strcasecmp(e, "") || !strcasecmp(e, "b")) mul = 1;
	else if (!strcasecmp(e, "k") || !strcasecmp(e, "kb")) mul = 1024.0;
	else if (!strcasecmp(e, "m") || !strcasecmp(e, "mb")) mul = 1024.0 * 1024;
	else if (!strcasecmp(e, "g") || !strcasecmp(e, "gb")) mul = 1024.0 * 1024 * 1024;
	else e = NULL;
	if (!e || e == t || !(x > 0) || x * mul > 9.0e18)
		return dl_error_set(DL_EINVALID, "delta.targetFileSize '%s' is not a size in bytes (e.g. 134217728 or 128mb)",
		                    t);
	*out = (int64_t)(x * mul);
	return 0;
}

/* ---- the command ---- */

/* What OptimizeExecutor and its strategy's updateOptimizeStats add to the
 * metrics once the run is over. */
static void finish_stats(opt_cmd *c, const dl_optimize_metrics *m, const opt_request *r)
{
	dl_optimize_stats *s = &c->stats;
	dl_optimize_file_stats removed = {m->numRemovedFiles, m->numRemovedBytes};
	if (c->norder > 0 && !c->hilbert) {
		/* ZOrderStrategy: every file of a partition, one cube per partition */
		s->has_zorder_stats = true;
		s->zorder_strategy_name = "all";
		s->zorder_input_other_files = removed;
		s->zorder_merged_files = removed;
		s->zorder_num_output_cubes = m->partitionsOptimized;
		s->zorder_merged_num_cubes = -1;
	}
	if (c->hilbert && !r->purge) {
		s->has_clustering_stats = true;
		for (size_t i = 0; i < c->plan.nfiles; i++) {
			s->clustering_merged_files.num++;
			s->clustering_merged_files.size += c->plan.files[i].size;
		}
		s->clustering_num_output_zcubes = (int64_t)c->plan.nbins;
	}
	const dl_type *schema = dl_snapshot_schema(c->snap);
	s->numTableColumns = schema->nchildren;
	/* DATA_SKIPPING_NUM_INDEXED_COLS.fromMetaData(...).min(numTableColumns) */
	s->numTableColumnsWithStats = c->props.data_skipping_num_indexed_cols < s->numTableColumns
	                                  ? c->props.data_skipping_num_indexed_cols
	                                  : s->numTableColumns;
	s->totalClusterParallelism = c->threads;
}

int dl_opt_run(dl_optimize_metrics *m, const char *uri, const opt_request *r)
{
	opt_cmd c;
	memset(&c, 0, sizeof c);
	dl_expr *where = NULL;
	int rc = begin(&c, uri, r);
	if (rc == 0 && r->full && !(c.clustered && c.clustering.n > 0))
		rc = dl_error_set_class(DL_EINVALID, "DELTA_OPTIMIZE_FULL_NOT_SUPPORTED",
		                        "OPTIMIZE FULL is only supported for clustered tables with non-empty clustering "
		                        "columns.");
	if (rc == 0 && r->where) rc = dl_opt_check_where(&c, r->where, &where);
	if (rc == 0 && r->nzorder_by > 0) rc = dl_opt_check_zorder(&c, r);
	if (rc == 0 && !r->purge && c.clustered && c.clustering.n > 0) {
		/* liquid: a Hilbert curve over the clustering columns (one column:
		 * its ranges in order, the curve of one dimension) */
		for (int i = 0; i < c.clustering.n && rc == 0; i++) rc = dl_opt_resolve_order(&c, &c.clustering.cols[i], &c.order[i]);
		c.norder = c.clustering.n;
		c.hilbert = true;
	}
	/* maxFileSize: the caller's, else delta.targetFileSize, else 1 GiB */
	opt_request req = *r;
	if (rc == 0 && req.max_file_size <= 0) {
		const char *t = dl_str_map_get(&dl_snapshot_state(c.snap)->metadata->configuration, "delta.targetFileSize",
		                               NULL);
		int64_t v = 0;
		if (t) rc = parse_size(t, &v);
		req.max_file_size = v > 0 ? v : GIB;
	}
	if (req.min_file_size <= 0) req.min_file_size = req.max_file_size;
	if (req.ratio < 0) req.ratio = 0.05;
	c.max_file_size = req.max_file_size;
	int64_t considered = 0;
	if (rc == 0) rc = dl_opt_plan_files(&c, &req, where, &considered);
	if (rc == 0) {
		const dl_log_state *st = dl_snapshot_state(c.snap);
		for (size_t i = 0; i < c.plan.nfiles && rc == 0; i++)
			rc = dl_txn_read_file(c.txn, dl_log_state_add(st, c.plan.files[i].index)->path);
	}
	if (rc == 0 && c.plan.nbins > 0) rc = run_bins(&c, req.threads);
	if (rc == 0 && c.plan.nbins > 0) rc = dl_opt_commit(&c, m, &req, where);
	if (rc == 0) {
		m->partitionsOptimized = c.plan.partitions;
		m->numBatches = (int64_t)c.plan.nbins;
		m->totalConsideredFiles = considered;
		m->totalFilesSkipped = considered - m->numRemovedFiles;
		finish_stats(&c, m, &req);
		if (r->stats) *r->stats = c.stats;
	}
	dl_expr_free(where);
	end(&c, rc);
	return rc;
}

void dl_opt_metrics_init(dl_optimize_metrics *m)
{
	memset(m, 0, sizeof *m);
	m->version = -1;
	m->removedMinFileSize = -1;
	m->removedMaxFileSize = -1;
}

int dl_optimize(dl_optimize_metrics *metrics, const char *uri, const dl_optimize_options *opts)
{
	if (!metrics) return dl_error_set(DL_EINVALID, "dl_optimize: metrics missing");
	dl_opt_metrics_init(metrics);
	dl_optimize_options d = DL_OPTIMIZE_OPTIONS_INIT;
	const dl_optimize_options *o = opts ? opts : &d;
	if (o->version < 1 || o->version > DL_OPTIMIZE_OPTIONS_VERSION)
		return dl_error_set(DL_EINVALID, "dl_optimize: unknown options version %d", o->version);
	if (o->nzorder_by < 0 || (o->nzorder_by > 0 && !o->zorder_by))
		return dl_error_set(DL_EINVALID, "dl_optimize: zorder_by missing for %d columns", o->nzorder_by);
	if (o->max_file_size < 0 || o->min_file_size < 0)
		return dl_error_set(DL_EINVALID, "dl_optimize: file sizes must not be negative");
	opt_request r;
	memset(&r, 0, sizeof r);
	r.operation = "OPTIMIZE";
	r.store = o->store;
	r.store_options = o->store_options;
	r.user_metadata = o->user_metadata;
	r.progress = o->progress;
	r.progress_payload = o->progress_payload;
	r.where = o->where;
	r.zorder_by = o->zorder_by;
	r.nzorder_by = o->nzorder_by;
	r.full = o->full;
	r.auto_compact = o->auto_compact;
	r.max_file_size = o->max_file_size;
	r.min_file_size = o->min_file_size;
	r.ratio = o->max_deleted_rows_ratio;
	r.threads = o->threads;
	/* version 1 callers' structs end before stats */
	r.stats = o->version >= 2 ? o->stats : NULL;
	if (o->auto_compact) {
		/* Spark's AutoCompact: 128 MiB files, small means below half */
		if (r.max_file_size <= 0) r.max_file_size = DL_AUTO_COMPACT_MAX_FILE_SIZE;
		if (r.min_file_size <= 0) r.min_file_size = r.max_file_size / 2;
		r.min_num_files = DL_AUTO_COMPACT_MIN_NUM_FILES;
	}
	int rc = dl_opt_run(metrics, uri, &r);
	if (rc < 0) dl_opt_metrics_init(metrics);
	return rc;
}

int dl_opt_reorg_request(opt_request *r, const dl_reorg_options *opts, const char *fn)
{
	static const dl_reorg_options d = DL_REORG_OPTIONS_INIT;
	const dl_reorg_options *o = opts ? opts : &d;
	if (o->version < 1 || o->version > DL_REORG_OPTIONS_VERSION)
		return dl_error_set(DL_EINVALID, "%s: unknown options version %d", fn, o->version);
	memset(r, 0, sizeof *r);
	r->operation = "REORG";
	r->store = o->store;
	r->store_options = o->store_options;
	r->user_metadata = o->user_metadata;
	r->progress = o->progress;
	r->progress_payload = o->progress_payload;
	r->where = o->where;
	r->purge = true;
	r->ratio = 0;
	r->threads = o->threads;
	r->stats = o->version >= 2 ? o->stats : NULL;
	return 0;
}

int dl_reorg_purge(dl_optimize_metrics *metrics, const char *uri, const dl_reorg_options *opts)
{
	if (!metrics) return dl_error_set(DL_EINVALID, "dl_reorg_purge: metrics missing");
	dl_opt_metrics_init(metrics);
	opt_request r;
	DL_TRY(dl_opt_reorg_request(&r, opts, "dl_reorg_purge"));
	int rc = dl_opt_run(metrics, uri, &r);
	if (rc < 0) dl_opt_metrics_init(metrics);
	return rc;
}

