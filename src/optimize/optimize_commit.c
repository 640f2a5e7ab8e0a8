/* OPTIMIZE's one commit: the rewritten files removed and the new ones
 * added, all with dataChange=false, with the operationParameters and
 * operationMetrics Spark writes (DeltaOperations.Optimize / Reorg), the
 * ZCube tags of clustered tables and the row-id high water mark of tables
 * with row tracking. */
#include "optimize/optimize_internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "expr/expr.h"
#include "json/json.h"
#include "util/error.h"
#include "util/mem.h"
#include "util/uuid.h"

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

int dl_opt_commit(opt_cmd *c, dl_optimize_metrics *m, const opt_request *r, const dl_expr *where)
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
