/* OPTIMIZE and REORG TABLE ... APPLY (PURGE) (Spark's OptimizeTableCommand,
 * OptimizeExecutor, DeltaReorgTableCommand): the checks, in Spark's order;
 * the candidate files of the partitions the WHERE selects, grouped into
 * bins (bins.h); the bins written in parallel (optimize_bin.c); then one
 * commit that removes the rewritten files and adds the new ones, all with
 * dataChange=false, so concurrent appends never conflict with it while a
 * concurrent delete of a file it rewrote does (the transaction layer's
 * delete/read rule: every input is registered as read). Nothing to rewrite
 * commits nothing (metrics.version -1), as Spark does. */
#include "optimize/optimize_internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "json/json.h"
#include "log/protocol.h"
#include "log/schema.h"
#include "log/table_features.h"
#include "rewrite/rewrite.h"
#include "table/scan.h"
#include "optimize/auto_compact.h" /* its defaults, for opts.auto_compact */
#include "util/error.h"
#include "util/hash.h"
#include "util/mem.h"
#include "util/pool.h"
#include "util/time.h"
#include "util/uuid.h"

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

/* ---- checks ---- */

static bool is_partition_col(const opt_cmd *c, const char *name)
{
	for (int i = 0; i < c->npart; i++)
		if (!strcasecmp(c->part_cols[i], name)) return true;
	return false;
}

typedef struct where_check {
	opt_cmd *c;
	const char *bad;
} where_check;

static int where_column(const char *const *path, int depth, void *payload)
{
	where_check *w = payload;
	if (!w->bad && (depth != 1 || !is_partition_col(w->c, path[0]))) w->bad = path[0];
	return 0;
}

/* WHERE: partition columns only (Spark's OptimizeTableCommand refuses
 * the others naming the first). */
static int check_where(opt_cmd *c, const char *where, dl_expr **out)
{
	dl_expr *e;
	if (dl_expr_parse(&e, where) < 0) return dl_error_prefix("the %s predicate", c->operation);
	int rc = dl_expr_bind(e, dl_snapshot_schema(c->snap));
	if (rc < 0) {
		dl_expr_free(e);
		return dl_error_prefix("the %s predicate", c->operation);
	}
	where_check w = {c, NULL};
	rc = dl_expr_columns(e, where_column, &w);
	if (rc == 0 && w.bad && c->clustered)
		rc = dl_error_set_class(DL_EINVALID, "DELTA_CLUSTERING_WITH_PARTITION_PREDICATE",
		                        "OPTIMIZE command for Delta table with Liquid clustering doesn't support "
		                        "partition predicates. Please remove the predicates: %s.", where);
	else if (rc == 0 && w.bad) {
		dl_buf l = DL_BUF_INIT;
		for (int i = 0; i < c->npart; i++) dl_buf_printf(&l, "%s%s", i ? ", " : "", c->part_cols[i]);
		rc = dl_error_set_class(DL_EINVALID, "DELTA_NON_PARTITION_COLUMN_REFERENCE",
		                        "Predicate references non-partition column '%s'. Only the partition "
		                        "columns may be referenced: [%s]", w.bad, l.data ? l.data : "");
		dl_buf_free(&l);
	}
	if (rc < 0) dl_expr_free(e);
	else *out = e;
	return rc;
}

/* Resolves an order column (logical name, nested with '.') to the scan's
 * layout: top-level index in the snapshot schema and child indexes. */
static int resolve_order(opt_cmd *c, const dl_clustering_column *cc, opt_order_col *o)
{
	const dl_type *t = dl_snapshot_schema(c->snap);
	if (cc->nparts > (int)(sizeof o->path / sizeof o->path[0]) + 1)
		return dl_error_set(DL_EUNSUPPORTED, "column %s is nested too deeply", cc->name);
	for (int d = 0; d < cc->nparts; d++) {
		int idx = -1;
		for (int i = 0; i < t->nchildren && idx < 0; i++)
			if (!strcmp(t->children[i].name, cc->logical[d])) idx = i;
		if (idx < 0) return dl_error_set(DL_ERROR, "column %s vanished from the schema", cc->name);
		if (d == 0) o->top = idx;
		else o->path[d - 1] = idx;
		t = t->children[idx].type;
	}
	o->depth = cc->nparts - 1;
	return 0;
}

/* ZORDER BY: Spark's OptimizeTableCommand.validateZorderByColumns. */
static int check_zorder(opt_cmd *c, const opt_request *r)
{
	const dl_type *schema = dl_snapshot_schema(c->snap);
	if (c->clustered) {
		dl_buf l = DL_BUF_INIT;
		for (int i = 0; i < r->nzorder_by; i++) dl_buf_printf(&l, "%s%s", i ? ", " : "", r->zorder_by[i]);
		int rc = dl_error_set_class(DL_EINVALID, "DELTA_CLUSTERING_WITH_ZORDER_BY",
		                            "OPTIMIZE command for Delta table with Liquid clustering cannot specify "
		                            "ZORDER BY. Please remove ZORDER BY (%s).", l.data ? l.data : "");
		dl_buf_free(&l);
		return rc;
	}
	if (r->nzorder_by > (int)(sizeof c->order / sizeof c->order[0]))
		return dl_error_set(DL_EUNSUPPORTED, "ZORDER BY takes at most %d columns",
		                    (int)(sizeof c->order / sizeof c->order[0]));
	dl_clustering cols = {0};
	dl_buf nostats = DL_BUF_INIT;
	int rc = 0;
	for (int i = 0; i < r->nzorder_by && rc == 0; i++) {
		char **parts;
		int np;
		if ((rc = dl_column_name_split(&parts, &np, r->zorder_by[i]))) break;
		if (is_partition_col(c, parts[0]) && np == 1)
			rc = dl_error_set_class(DL_EINVALID, "DELTA_ZORDERING_ON_PARTITION_COLUMN",
			                        "%s is a partition column. Z-Ordering can only be performed on data "
			                        "columns", r->zorder_by[i]);
		for (int k = 0; k < np; k++) dl_free(parts[k]);
		dl_free(parts);
		if (rc) break;
		dl_clustering one;
		const char *nm = r->zorder_by[i];
		rc = dl_clustering_resolve(&one, &nm, 1, schema, c->props.column_mapping_mode);
		if (rc == DL_EINVALID && !strcmp(dl_error_last()->klass, "DELTA_COLUMN_NOT_FOUND_IN_SCHEMA")) {
			rc = dl_error_set_class(DL_EINVALID, "DELTA_ZORDERING_COLUMN_DOES_NOT_EXIST",
			                        "Z-Ordering column %s does not exist in data schema.", nm);
			break;
		}
		if (rc) break;
		if (!dl_column_has_stats(schema, &c->props, c->part_cols, c->npart,
		                         (const char *const *)one.cols[0].logical, one.cols[0].nparts))
			dl_buf_printf(&nostats, "%s%s", nostats.len ? ", " : "", one.cols[0].name);
		rc = resolve_order(c, &one.cols[0], &c->order[c->norder]);
		if (rc == 0) c->norder++;
		dl_clustering_free(&one);
	}
	if (rc == 0 && nostats.len)
		rc = dl_error_set_class(DL_EINVALID, "DELTA_ZORDERING_ON_COLUMN_WITHOUT_STATS",
		                        "Z-Ordering on [%s] will be ineffective, because we currently do not collect "
		                        "stats for these columns. Please refer to "
		                        "https://docs.delta.io/latest/optimizations-oss.html for more information on "
		                        "data skipping and z-ordering. You can disable this check by setting "
		                        "'spark.databricks.delta.optimize.zorder.checkStatsCollection.enabled' = false",
		                        nostats.data);
	dl_buf_free(&nostats);
	dl_clustering_free(&cols);
	return rc;
}

/* ---- planning ---- */

static int64_t stats_records(const dl_add *a)
{
	if (!a->stats) return -1;
	dl_arena tmp = DL_ARENA_INIT;
	dl_json *v;
	int64_t n = -1;
	if (dl_json_parse(&tmp, a->stats, a->stats_len, "stats", &v) == 0) {
		const dl_json *r = dl_json_get(v, "numRecords");
		if (!r || dl_json_int64(r, &n) < 0) n = -1;
	} else {
		dl_error_clear();
	}
	dl_arena_free(&tmp);
	return n;
}

/* A file's partition as a small integer, keyed by its partition values'
 * text (the values of one table's adds come in one key order). */
typedef struct part_ids {
	dl_strmap map;
	uint32_t n;
} part_ids;

int dl_opt_part_key(dl_buf *k, const dl_str_map *pv)
{
	dl_buf_clear(k);
	DL_TRY(dl_buf_putc(k, 0)); /* never empty: unpartitioned tables key "" too */
	k->len = 0;
	for (uint32_t i = 0; i < pv->n; i++)
		DL_TRY(dl_buf_printf(k, "%s\x1f%s\x1e", pv->items[i].key, pv->items[i].value ? pv->items[i].value : "\x01"));
	return 0;
}

static int partition_id(part_ids *p, dl_buf *k, const dl_add *a, uint32_t *out)
{
	DL_TRY(dl_opt_part_key(k, &a->partition_values));
	void **slot;
	bool inserted;
	DL_TRY(dl_strmap_upsert(&p->map, k->data, k->len, &slot, &inserted));
	if (inserted) *slot = (void *)(uintptr_t)(++p->n);
	*out = (uint32_t)(uintptr_t)*slot - 1;
	return 0;
}

/* Whether a file belongs to a ZCube of this clustering
 * (ZCubeFileStatsCollector's "matchingCube"): it has ZCubeInfo tags and,
 * unless FULL, was clustered by the same columns. */
static bool in_matching_zcube(opt_cmd *c, const dl_add *a, bool full, const char **id)
{
	*id = dl_str_map_get(&a->tags, DL_TAG_ZCUBE_ID, NULL);
	const char *by = dl_str_map_get(&a->tags, DL_TAG_ZCUBE_ZORDER_BY, NULL);
	if (!*id || !by) return false;
	dl_json *v;
	if (dl_json_parse(&c->arena, by, strlen(by), "ZCUBE_ZORDER_BY tag", &v) < 0 || v->kind != DL_JSON_ARRAY) {
		return false; /* not ZCubeInfo Spark could read: an unclustered file */
	}
	if (full) return true;
	if ((int)v->u.arr.n != c->clustering.n) return false;
	for (int i = 0; i < c->clustering.n; i++) {
		const dl_json *e = &v->u.arr.items[i];
		const char *want = c->clustering.cols[i].name;
		if (e->kind != DL_JSON_STRING || e->u.str.len != strlen(want) || memcmp(e->u.str.ptr, want, e->u.str.len))
			return false;
	}
	return true;
}

static int plan(opt_cmd *c, const opt_request *r, const dl_expr *where, int64_t *considered)
{
	dl_scan_options so = DL_SCAN_OPTIONS_INIT;
	so.threads = 1;
	dl_scan *s;
	if (where) DL_TRY(dl_scan_open_expr(&s, c->snap, &so, where));
	else DL_TRY(dl_scan_open(&s, c->snap, &so));
	const dl_log_state *st = dl_snapshot_state(c->snap);
	size_t n = dl_scan_file_count(s);
	dl_opt_file *files = dl_calloc(n ? n : 1, sizeof *files);
	part_ids parts = {.n = 0};
	dl_strmap_init(&parts.map, true);
	dl_buf key = DL_BUF_INIT;
	int rc = files ? 0 : DL_ENOMEM;
	size_t nf = 0;
	bool ordered_clustering = c->clustered && c->clustering.n > 0;
	dl_strmap cubes;
	dl_strmap_init(&cubes, true);
	dl_optimize_stats *os = &c->stats;
	for (size_t i = 0; i < n && rc == 0; i++) {
		size_t idx = dl_scan_file_snapshot_index(s, i);
		const dl_add *a = dl_log_state_add(st, idx);
		if (r->partition_filter && !r->partition_filter(a, r->filter_payload)) continue;
		if (ordered_clustering && !r->purge) {
			/* ClusteringStatsCollector.inputStats sees every candidate */
			const char *id;
			if (in_matching_zcube(c, a, r->full, &id)) {
				os->clustering_input_zcube_files.num++;
				os->clustering_input_zcube_files.size += a->size;
				void **slot;
				bool inserted;
				rc = dl_strmap_upsert(&cubes, id, strlen(id), &slot, &inserted);
				if (rc == 0 && inserted) os->clustering_input_num_zcubes++;
			} else {
				os->clustering_input_other_files.num++;
				os->clustering_input_other_files.size += a->size;
			}
		}
		/* incremental clustering: only files no clustering wrote */
		if (ordered_clustering && !r->full && !r->purge && a->clustering_provider &&
		    !strcmp(a->clustering_provider, DL_CLUSTERING_PROVIDER))
			continue;
		dl_opt_file *f = &files[nf];
		f->index = idx;
		f->size = a->size;
		f->has_dv = a->dv != NULL;
		f->dv_cardinality = a->dv ? a->dv->cardinality : 0;
		f->num_records = stats_records(a);
		f->force = r->iceberg_compat > 0 && !dl_opt_iceberg_tagged(a, r->iceberg_compat);
		rc = partition_id(&parts, &key, a, &f->partition);
		nf++;
	}
	dl_strmap_free(&cubes);
	*considered = (int64_t)nf;
	dl_opt_rules rules = {c->norder ? DL_OPT_MULTIDIM : DL_OPT_BINPACK, r->min_file_size, r->max_file_size,
	                      r->ratio};
	if (r->purge) {
		rules.min_file_size = 0;
		rules.max_deleted_rows_ratio = 0;
	}
	if (rc == 0) rc = dl_opt_plan_bins(&c->plan, files, nf, &rules);
	/* auto compaction: a partition qualifies with min_num_files candidates */
	if (rc == 0 && r->min_num_files > 1) {
		size_t w = 0, fw = 0;
		for (size_t b = 0; b < c->plan.nbins; b++) {
			dl_opt_bin bin = c->plan.bins[b];
			size_t in_part = 0;
			for (size_t k = 0; k < c->plan.nbins; k++)
				if (c->plan.bins[k].partition == bin.partition) in_part += c->plan.bins[k].n;
			if ((int64_t)in_part < r->min_num_files) continue;
			memmove(c->plan.files + fw, c->plan.files + bin.first, bin.n * sizeof *c->plan.files);
			bin.first = fw;
			fw += bin.n;
			c->plan.bins[w++] = bin;
		}
		c->plan.nbins = w;
		c->plan.nfiles = fw;
		int64_t np = 0;
		for (size_t b = 0; b < w; b++) np += b == 0 || c->plan.bins[b].partition != c->plan.bins[b - 1].partition;
		c->plan.partitions = np;
	}
	dl_strmap_free(&parts.map);
	dl_buf_free(&key);
	dl_free(files);
	dl_scan_free(s);
	return rc;
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

/* ---- commit ---- */

static int remove_file(opt_cmd *c, const dl_add *a)
{
	dl_remove r;
	memset(&r, 0, sizeof r);
	r.path = a->path;
	r.deletion_timestamp = c->now_ms;
	r.data_change = false;
	r.extended_file_metadata = true;
	r.partition_values = a->partition_values;
	r.size = a->size;
	r.stats = a->stats;
	r.stats_len = a->stats_len;
	r.tags = a->tags;
	r.dv = a->dv;
	r.base_row_id = a->base_row_id;
	r.default_row_commit_version = a->default_row_commit_version;
	return dl_txn_remove_file(c->txn, &r);
}

static int row_id_hwm(opt_cmd *c, int64_t *hwm)
{
	*hwm = -1;
	const char *conf = dl_snapshot_domain(c->snap, "delta.rowTracking");
	if (!conf) return 0;
	dl_json *v;
	if (dl_json_parse(&c->arena, conf, strlen(conf), "delta.rowTracking domain", &v) < 0)
		return dl_error_set(DL_ECORRUPT, "the delta.rowTracking domain is not JSON: %s", conf);
	const dl_json *m = dl_json_get(v, "rowIdHighWaterMark");
	if (m && dl_json_int64(m, hwm) < 0)
		return dl_error_set(DL_ECORRUPT, "rowIdHighWaterMark is not an integer: %s", conf);
	return 0;
}

static int cmp_i64(const void *a, const void *b)
{
	int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
	return x < y ? -1 : x > y;
}

static int json_array_param(opt_cmd *c, const char *key, const char *const *items, int n)
{
	dl_buf b = DL_BUF_INIT;
	dl_json_writer w;
	dl_jw_init(&w, &b);
	dl_jw_array_begin(&w);
	for (int i = 0; i < n; i++) dl_jw_string(&w, items[i]);
	dl_jw_array_end(&w);
	int rc = dl_jw_finish(&w);
	if (rc == 0) rc = dl_txn_set_parameter(c->txn, key, b.data);
	dl_buf_free(&b);
	return rc;
}

/* operationParameters as DeltaOperations.Optimize / Reorg write them. */
static int set_parameters(opt_cmd *c, const opt_request *r, const dl_expr *where)
{
	const char *pred[1];
	int npred = 0;
	dl_buf sql = DL_BUF_INIT, par = DL_BUF_INIT;
	if (where) {
		/* Spark: predicate.map(_.sql), binary operators parenthesized */
		DL_TRY(dl_expr_sql(where, &sql));
		bool wrap = sql.data[0] != '(' || sql.data[sql.len - 1] != ')';
		dl_buf_printf(&par, wrap ? "(%s)" : "%s", sql.data);
		pred[npred++] = par.data;
	}
	int rc = json_array_param(c, "predicate", pred, npred);
	dl_buf_free(&sql);
	dl_buf_free(&par);
	if (rc) return rc;
	/* UPGRADE UNIFORM's rewrite is Spark's DeltaOperations.Reorg too, with
	 * its default applyPurge = true (OptimizeExecutor.getOperation). */
	if (r->purge || r->iceberg_compat) return dl_txn_set_parameter_json(c->txn, "applyPurge", "true");
	bool by_cluster = c->clustered && c->clustering.n > 0;
	const char *names[32] = {0};
	int nn = 0;
	if (!by_cluster)
		for (int i = 0; i < r->nzorder_by && i < 32; i++) names[nn++] = r->zorder_by[i];
	DL_TRY(json_array_param(c, "zOrderBy", names, nn));
	nn = 0;
	for (int i = 0; by_cluster && i < c->clustering.n && i < 32; i++) names[nn++] = c->clustering.cols[i].name;
	DL_TRY(json_array_param(c, "clusterBy", names, nn));
	return dl_txn_set_parameter_json(c->txn, "auto", r->auto_compact ? "true" : "false");
}

static int commit(opt_cmd *c, dl_optimize_metrics *m, const opt_request *r, const dl_expr *where)
{
	const dl_log_state *st = dl_snapshot_state(c->snap);
	for (size_t i = 0; i < c->plan.nfiles; i++) {
		const dl_add *a = dl_log_state_add(st, c->plan.files[i].index);
		DL_TRY(remove_file(c, a));
		m->numRemovedFiles++;
		m->numRemovedBytes += a->size;
		if (a->dv) {
			c->stats.numDeletionVectorBytesRemoved += a->dv->size_in_bytes;
			m->numDeletionVectorsRemoved++;
			m->numDeletionVectorRowsRemoved += a->dv->cardinality;
		}
		if (m->removedMinFileSize < 0 || a->size < m->removedMinFileSize) m->removedMinFileSize = a->size;
		if (a->size > m->removedMaxFileSize) m->removedMaxFileSize = a->size;
	}
	int64_t hwm = -1, before;
	if (c->tracked) DL_TRY(row_id_hwm(c, &hwm));
	before = hwm;
	size_t nadded = 0;
	for (size_t b = 0; b < c->plan.nbins; b++) nadded += dl_files_writer_count(c->outs[b]);
	int64_t *sizes = dl_calloc(nadded ? nadded : 1, sizeof *sizes);
	if (!sizes) return DL_ENOMEM;
	size_t k = 0;
	bool liquid = c->clustered && c->clustering.n > 0 && !r->purge;
	int rc = 0;
	char *zorder_by = NULL;
	if (liquid) {
		/* ZCubeInfo.toAddFileTags: JsonUtils.toJson(Seq(names)) */
		dl_buf jb = DL_BUF_INIT;
		dl_json_writer jw;
		dl_jw_init(&jw, &jb);
		dl_jw_array_begin(&jw);
		for (int i = 0; i < c->clustering.n; i++) dl_jw_string(&jw, c->clustering.cols[i].name);
		dl_jw_array_end(&jw);
		rc = dl_jw_finish(&jw);
		if (rc == 0 && !(zorder_by = dl_arena_strndup(&c->arena, (const char *)jb.data, jb.len))) rc = DL_ENOMEM;
		dl_buf_free(&jb);
	}
	for (size_t b = 0; b < c->plan.nbins && rc == 0; b++) {
		dl_files_writer *w = c->outs[b];
		dl_kv *tags = NULL;
		if (liquid) {
			/* one ZCube per bin (ClusteringStrategy.initNewBin) */
			char *id = dl_arena_alloc(&c->arena, DL_UUID_TEXT_LEN + 1);
			tags = dl_arena_calloc(&c->arena, 2, sizeof *tags);
			if (!id || !tags) rc = DL_ENOMEM;
			if (rc == 0) rc = dl_uuid_v4(id);
			if (rc == 0) {
				tags[0] = (dl_kv){DL_TAG_ZCUBE_ID, id};
				tags[1] = (dl_kv){DL_TAG_ZCUBE_ZORDER_BY, zorder_by};
			}
		}
		for (size_t i = 0; i < dl_files_writer_count(w) && rc == 0; i++) {
			dl_add a = *dl_files_writer_add(w, i);
			a.data_change = false;
			if (liquid) {
				a.clustering_provider = DL_CLUSTERING_PROVIDER;
				a.tags = (dl_str_map){tags, 2};
			}
			if (c->iceberg_compat) rc = dl_opt_iceberg_tag(&a, &c->arena, c->iceberg_compat);
			if (rc < 0) break;
			if (c->tracked) {
				a.base_row_id = hwm + 1;
				a.default_row_commit_version = dl_txn_read_version(c->txn) + 1;
				hwm += dl_files_writer_file_rows(w, i);
			}
			rc = dl_txn_add_file(c->txn, &a);
			sizes[k++] = a.size;
			m->numAddedBytes += a.size;
		}
	}
	m->numAddedFiles = (int64_t)k;
	if (rc == 0 && c->tracked && hwm != before) {
		char conf[64];
		snprintf(conf, sizeof conf, "{\"rowIdHighWaterMark\":%lld}", (long long)hwm);
		rc = dl_txn_set_domain(c->txn, "delta.rowTracking", conf, false);
	}
	if (rc == 0) {
		qsort(sizes, k, sizeof *sizes, cmp_i64);
		if (k) {
			m->minFileSize = sizes[0];
			/* FileSizeStatsWithHistogram.create: sizes(count / 4) ... */
			m->p25FileSize = sizes[k / 4];
			m->p50FileSize = sizes[k / 2];
			m->p75FileSize = sizes[k * 3 / 4];
			m->maxFileSize = sizes[k - 1];
		}
	}
	dl_free(sizes);
	if (rc) return rc;
	DL_TRY(set_parameters(c, r, where));
	struct {
		const char *k;
		int64_t v;
	} kv[] = {
	    {"numAddedFiles", m->numAddedFiles},     {"numRemovedFiles", m->numRemovedFiles},
	    {"numAddedBytes", m->numAddedBytes},     {"numRemovedBytes", m->numRemovedBytes},
	    {"minFileSize", m->minFileSize},         {"p25FileSize", m->p25FileSize},
	    {"p50FileSize", m->p50FileSize},         {"p75FileSize", m->p75FileSize},
	    {"maxFileSize", m->maxFileSize},         {"numDeletionVectorsRemoved", m->numDeletionVectorsRemoved},
	};
	for (size_t i = 0; i < sizeof kv / sizeof kv[0]; i++) DL_TRY(dl_txn_set_metric(c->txn, kv[i].k, kv[i].v));
	return dl_txn_commit(c->txn, &m->version);
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
	if (rc == 0 && r->where) rc = check_where(&c, r->where, &where);
	if (rc == 0 && r->nzorder_by > 0) rc = check_zorder(&c, r);
	if (rc == 0 && !r->purge && c.clustered && c.clustering.n > 0) {
		/* liquid: a Hilbert curve over the clustering columns (one column:
		 * its ranges in order, the curve of one dimension) */
		for (int i = 0; i < c.clustering.n && rc == 0; i++) rc = resolve_order(&c, &c.clustering.cols[i], &c.order[i]);
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
	if (rc == 0) rc = plan(&c, &req, where, &considered);
	if (rc == 0) {
		const dl_log_state *st = dl_snapshot_state(c.snap);
		for (size_t i = 0; i < c.plan.nfiles && rc == 0; i++)
			rc = dl_txn_read_file(c.txn, dl_log_state_add(st, c.plan.files[i].index)->path);
	}
	if (rc == 0 && c.plan.nbins > 0) rc = run_bins(&c, req.threads);
	if (rc == 0 && c.plan.nbins > 0) rc = commit(&c, m, &req, where);
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

