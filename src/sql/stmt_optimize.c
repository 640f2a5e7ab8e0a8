/* OPTIMIZE and REORG TABLE statements onto dl_optimize / dl_reorg_purge
 * (deltalake/maintenance.h, src/optimize), which own every rule; this file
 * translates:
 *
 *   - the target (a catalog name or delta.`path`; time travel refused);
 *   - WHERE printed back to Spark SQL text, the target's qualifier dropped;
 *   - ZORDER BY columns as dotted names (backquoted where needed);
 *   - the session's settings Spark reads: spark.databricks.delta.optimize.
 *     maxFileSize, .minFileSize and .maxDeletedRowsRatio;
 *   - the session's interrupt flag, through the progress callback.
 *
 * The result is Spark's OPTIMIZE result (OptimizeTableCommand.output):
 * `path` STRING and `metrics` STRUCT of OptimizeMetrics with every field of
 * Spark's, in its order: the file counts and FileSizeMetrics, zOrderStats
 * (ZORDER BY) and clusteringStats (clustered tables), or null, numBins...
 * numTableColumnsWithStats; the figures Spark OSS never sets (numBins,
 * totalScheduledTasks, the write-amplification skips) are 0 and
 * autoCompactParallelismStats is null as there. REORG returns the same. */
#include "sql/session_internal.h"

#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "columnar/builder.h"
#include "deltalake/alter.h"
#include "deltalake/maintenance.h"
#include "deltalake/snapshot.h"
#include "expr/ast.h"
#include "log/schema.h"
#include "optimize/clustering.h"
#include "util/buf.h"
#include "util/error.h"
#include "util/mem.h"
#include "util/time.h"

#define KEY_MAX_FILE_SIZE "spark.databricks.delta.optimize.maxFileSize"
#define KEY_MIN_FILE_SIZE "spark.databricks.delta.optimize.minFileSize"
#define KEY_MAX_DELETED_RATIO "spark.databricks.delta.optimize.maxDeletedRowsRatio"

static int on_progress(const dl_progress_info *info, void *payload)
{
	(void)info;
	dl_sql_conn *c = payload;
	return atomic_load(&c->interrupt) ? 1 : 0;
}

static int no_time_travel(const sql_table_ref *ref, const char *what)
{
	if (ref->tt.kind != TT_NONE)
		return dl_error_set_class(DL_EUNSUPPORTED, "DELTA_UNSUPPORTED_TIME_TRAVEL_VIEWS",
		                          "%s cannot rewrite a table at a past version", what);
	return 0;
}

static void strip_qualifier(ex_node *n, const char *qual)
{
	if (!n) return;
	if (n->kind == EX_COL && n->npath >= 2 && qual && strcasecmp(n->path[0], qual) == 0) {
		n->path++;
		n->npath--;
	}
	for (int i = 0; i < n->nargs; i++) strip_qualifier(n->args[i], qual);
}

static bool has_subquery(const ex_node *n)
{
	if (!n) return false;
	if (n->kind == EX_SUBQUERY) return true;
	for (int i = 0; i < n->nargs; i++)
		if (has_subquery(n->args[i])) return true;
	return false;
}

/* The WHERE clause as Spark SQL text (dl_free). */
static int where_text(char **out, const ex_node *n, const sql_table_ref *ref, const char *what)
{
	*out = NULL;
	if (!n) return 0;
	if (has_subquery(n))
		return dl_error_set(DL_EUNSUPPORTED, "%s WHERE with a subquery is not supported (a partition "
		                    "predicate is expected)", what);
	dl_expr *e = ex_expr_new();
	if (!e) return dl_error_set(DL_ENOMEM, "out of memory");
	ex_node *copy = ex_copy_tree(e, n);
	int rc = copy ? 0 : dl_error_set(DL_ENOMEM, "out of memory");
	const char *qual = ref->alias ? ref->alias
	                   : ref->kind == TREF_NAME && ref->name.nparts ? ref->name.parts[ref->name.nparts - 1]
	                                                               : NULL;
	if (rc == 0) strip_qualifier(copy, qual);
	dl_buf b = DL_BUF_INIT;
	if (rc == 0) rc = ex_print(&b, copy);
	if (rc == 0) rc = dl_buf_putc(&b, 0);
	if (rc == 0 && !(*out = dl_buf_detach(&b, NULL))) rc = dl_error_set(DL_ENOMEM, "out of memory");
	dl_buf_free(&b);
	dl_expr_free(e);
	return rc;
}

/* A session setting as a number; absent: *out unchanged. */
static int setting_long(dl_sql_conn *c, const char *key, int64_t *out)
{
	const char *v = sql_setting_get(c, key);
	if (!v) return 0;
	char *e;
	long long x = strtoll(v, &e, 10);
	if (!*v || *e || x <= 0)
		return dl_error_set(DL_EINVALID, "%s must be a positive number of bytes, not '%s'", key, v);
	*out = x;
	return 0;
}

static int setting_double(dl_sql_conn *c, const char *key, double *out)
{
	const char *v = sql_setting_get(c, key);
	if (!v) return 0;
	char *e;
	double x = strtod(v, &e);
	if (!*v || *e || x < 0 || x > 1)
		return dl_error_set(DL_EINVALID, "%s must be a ratio between 0 and 1, not '%s'", key, v);
	*out = x;
	return 0;
}

#define FILE_STATS                                                                                   \
	"{\"type\":\"struct\",\"fields\":[" L("min") "," L("max") "," D("avg") "," L("totalFiles") "," \
	L("totalSize") "]}"
#define ZFILES "{\"type\":\"struct\",\"fields\":[" L("num") "," L("size") "]}"
#define CFILES "{\"type\":\"struct\",\"fields\":[" L("numFiles") "," L("size") "]}"
#define L(n) "{\"name\":\"" n "\",\"type\":\"long\",\"nullable\":true,\"metadata\":{}}"
#define D(n) "{\"name\":\"" n "\",\"type\":\"double\",\"nullable\":true,\"metadata\":{}}"
#define B(n) "{\"name\":\"" n "\",\"type\":\"boolean\",\"nullable\":true,\"metadata\":{}}"
#define T(n) "{\"name\":\"" n "\",\"type\":\"string\",\"nullable\":true,\"metadata\":{}}"
#define S(n, t) "{\"name\":\"" n "\",\"type\":" t ",\"nullable\":true,\"metadata\":{}}"
/* Encoders.product[OptimizeMetrics].schema: every field, in the case
 * class's order (one literal past C99's 4095-byte minimum, which gcc and
 * clang both exceed) */
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Woverlength-strings"
static const char RESULT_SCHEMA[] =
    "{\"type\":\"struct\",\"fields\":[{\"name\":\"path\",\"type\":\"string\",\"nullable\":true,\"metadata\":{}},"
    "{\"name\":\"metrics\",\"type\":{\"type\":\"struct\",\"fields\":[" L("numFilesAdded") "," L("numFilesRemoved")
    "," S("filesAdded", FILE_STATS) "," S("filesRemoved", FILE_STATS) "," L("partitionsOptimized") ","
    S("zOrderStats", "{\"type\":\"struct\",\"fields\":[" T("strategyName") "," S("inputCubeFiles", ZFILES) ","
                     S("inputOtherFiles", ZFILES) "," L("inputNumCubes") "," S("mergedFiles", ZFILES) ","
                     L("numOutputCubes") "," L("mergedNumCubes") "]}") ","
    S("clusteringStats", "{\"type\":\"struct\",\"fields\":[" S("inputZCubeFiles", CFILES) ","
                         S("inputOtherFiles", CFILES) "," L("inputNumZCubes") "," S("mergedFiles", CFILES) ","
                         L("numOutputZCubes") "]}") ","
    L("numBins") "," L("numBatches") "," L("totalConsideredFiles") "," L("totalFilesSkipped") ","
    B("preserveInsertionOrder") "," L("numFilesSkippedToReduceWriteAmplification") ","
    L("numBytesSkippedToReduceWriteAmplification") "," L("startTimeMs") "," L("endTimeMs") ","
    L("totalClusterParallelism") "," L("totalScheduledTasks") ","
    S("autoCompactParallelismStats", "{\"type\":\"struct\",\"fields\":[" L("maxClusterActiveParallelism") ","
                                     L("minClusterActiveParallelism") "," L("maxSessionActiveParallelism") ","
                                     L("minSessionActiveParallelism") "]}") ","
    S("deletionVectorStats", "{\"type\":\"struct\",\"fields\":[" L("numDeletionVectorsRemoved") ","
                             L("numDeletionVectorRowsRemoved") "]}") ","
    L("numTableColumns") "," L("numTableColumnsWithStats")
    "]},\"nullable\":true,\"metadata\":{}}]}";
#pragma GCC diagnostic pop

/* FileSizeMetrics: min and max are None without files */
static int file_stats(dl_builder *b, int64_t n, int64_t total, int64_t min, int64_t max)
{
	DL_TRY(dl_builder_begin_struct(b));
	DL_TRY(n ? dl_builder_append_int(dl_builder_child(b, 0), min) : dl_builder_append_null(dl_builder_child(b, 0)));
	DL_TRY(n ? dl_builder_append_int(dl_builder_child(b, 1), max) : dl_builder_append_null(dl_builder_child(b, 1)));
	DL_TRY(dl_builder_append_double(dl_builder_child(b, 2), n ? (double)total / (double)n : 0));
	DL_TRY(dl_builder_append_int(dl_builder_child(b, 3), n));
	DL_TRY(dl_builder_append_int(dl_builder_child(b, 4), total));
	return dl_builder_end_struct(b);
}

static int pair(dl_builder *b, dl_optimize_file_stats f)
{
	DL_TRY(dl_builder_begin_struct(b));
	DL_TRY(dl_builder_append_int(dl_builder_child(b, 0), f.num));
	DL_TRY(dl_builder_append_int(dl_builder_child(b, 1), f.size));
	return dl_builder_end_struct(b);
}

static int longs(dl_builder *b, int first, const int64_t *v, int n)
{
	for (int i = 0; i < n; i++) DL_TRY(dl_builder_append_int(dl_builder_child(b, first + i), v[i]));
	return 0;
}

static int zorder_stats(dl_builder *z, const dl_optimize_stats *s)
{
	if (!s->has_zorder_stats) return dl_builder_append_null(z);
	DL_TRY(dl_builder_begin_struct(z));
	DL_TRY(dl_builder_append_str(dl_builder_child(z, 0), s->zorder_strategy_name));
	DL_TRY(pair(dl_builder_child(z, 1), s->zorder_input_cube_files));
	DL_TRY(pair(dl_builder_child(z, 2), s->zorder_input_other_files));
	DL_TRY(dl_builder_append_int(dl_builder_child(z, 3), s->zorder_input_num_cubes));
	DL_TRY(pair(dl_builder_child(z, 4), s->zorder_merged_files));
	DL_TRY(dl_builder_append_int(dl_builder_child(z, 5), s->zorder_num_output_cubes));
	DL_TRY(s->zorder_merged_num_cubes < 0 ? dl_builder_append_null(dl_builder_child(z, 6))
	                                      : dl_builder_append_int(dl_builder_child(z, 6), s->zorder_merged_num_cubes));
	return dl_builder_end_struct(z);
}

static int clustering_stats(dl_builder *k, const dl_optimize_stats *s)
{
	if (!s->has_clustering_stats) return dl_builder_append_null(k);
	DL_TRY(dl_builder_begin_struct(k));
	DL_TRY(pair(dl_builder_child(k, 0), s->clustering_input_zcube_files));
	DL_TRY(pair(dl_builder_child(k, 1), s->clustering_input_other_files));
	DL_TRY(dl_builder_append_int(dl_builder_child(k, 2), s->clustering_input_num_zcubes));
	DL_TRY(pair(dl_builder_child(k, 3), s->clustering_merged_files));
	DL_TRY(dl_builder_append_int(dl_builder_child(k, 4), s->clustering_num_output_zcubes));
	return dl_builder_end_struct(k);
}

static int metrics(dl_builder *b, const dl_optimize_metrics *m, const dl_optimize_stats *s, int64_t start_ms,
                   int64_t end_ms)
{
	DL_TRY(dl_builder_begin_struct(b));
	int64_t files[] = {m->numAddedFiles, m->numRemovedFiles};
	DL_TRY(longs(b, 0, files, 2));
	DL_TRY(file_stats(dl_builder_child(b, 2), m->numAddedFiles, m->numAddedBytes, m->minFileSize, m->maxFileSize));
	DL_TRY(file_stats(dl_builder_child(b, 3), m->numRemovedFiles, m->numRemovedBytes, m->removedMinFileSize,
	                  m->removedMaxFileSize));
	DL_TRY(dl_builder_append_int(dl_builder_child(b, 4), m->partitionsOptimized));
	DL_TRY(zorder_stats(dl_builder_child(b, 5), s));
	DL_TRY(clustering_stats(dl_builder_child(b, 6), s));
	int64_t counts[] = {s->numBins, m->numBatches, m->totalConsideredFiles, m->totalFilesSkipped};
	DL_TRY(longs(b, 7, counts, 4));
	/* bin-packing and clustering do not keep the rows' order */
	DL_TRY(dl_builder_append_bool(dl_builder_child(b, 11), false));
	/* the write-amplification skipping is Databricks', not OSS's: 0 */
	int64_t times[] = {0, 0, start_ms, end_ms, s->totalClusterParallelism, s->totalScheduledTasks};
	DL_TRY(longs(b, 12, times, 6));
	/* autoCompactParallelismStats: None outside Databricks' auto compaction */
	DL_TRY(dl_builder_append_null(dl_builder_child(b, 18)));
	dl_builder *dv = dl_builder_child(b, 19);
	if (m->numDeletionVectorsRemoved == 0) {
		DL_TRY(dl_builder_append_null(dv)); /* deletionVectorStats: None without DVs removed */
	} else {
		DL_TRY(dl_builder_begin_struct(dv));
		int64_t d[] = {m->numDeletionVectorsRemoved, m->numDeletionVectorRowsRemoved};
		DL_TRY(longs(dv, 0, d, 2));
		DL_TRY(dl_builder_end_struct(dv));
	}
	int64_t cols[] = {s->numTableColumns, s->numTableColumnsWithStats};
	DL_TRY(longs(b, 20, cols, 2));
	return dl_builder_end_struct(b);
}

static int result(dl_batch_stream **out, const char *path, const dl_optimize_metrics *m, const dl_optimize_stats *s,
                  int64_t start_ms, int64_t end_ms)
{
	dl_type *schema;
	DL_TRY(dl_schema_parse(&schema, RESULT_SCHEMA, sizeof RESULT_SCHEMA - 1));
	static const char *const names[] = {"path", "metrics"};
	dl_type *types[2] = {schema->children[0].type, schema->children[1].type};
	sql_rows r;
	int rc = sql_rows_init_typed(&r, names, types, 2);
	dl_type_unref(schema);
	if (rc) return rc;
	rc = sql_rows_str(&r, 0, path);
	if (rc == 0) rc = metrics(r.cols[1], m, s, start_ms, end_ms);
	if (rc == 0) r.nrows = 1;
	if (rc == 0) rc = sql_rows_finish(out, &r);
	sql_rows_free(&r);
	return rc;
}

/* Z-order columns as dotted names, backquoted where needed. */
static int zorder_names(char ***out, const sql_stmt *st)
{
	*out = NULL;
	if (!st->nzorder) return 0;
	char **n = dl_calloc((size_t)st->nzorder, sizeof *n);
	if (!n) return DL_ENOMEM;
	int rc = 0;
	for (int i = 0; i < st->nzorder && rc == 0; i++) {
		dl_buf b = DL_BUF_INIT;
		rc = dl_column_name_join(&b, (const char *const *)st->zorder[i].parts, st->zorder[i].nparts);
		if (rc == 0 && !(n[i] = dl_buf_detach(&b, NULL))) rc = DL_ENOMEM;
		dl_buf_free(&b);
	}
	if (rc) {
		for (int i = 0; i < st->nzorder; i++) dl_free(n[i]);
		dl_free(n);
		return rc;
	}
	*out = n;
	return 0;
}

static int finish(dl_batch_stream **out, dl_sql_conn *c, int rc, const sql_target *t,
                  const dl_optimize_metrics *m, const dl_optimize_stats *s, int64_t start_ms)
{
	if (rc == DL_ECANCELLED && atomic_load(&c->interrupt)) return sql_cancelled();
	DL_TRY(rc);
	return result(out, t->uri, m, s, start_ms, dl_now_millis());
}

int sql_run_optimize(dl_batch_stream **out, dl_sql_conn *c, const sql_stmt *st)
{
	DL_TRY(no_time_travel(st->table, "OPTIMIZE"));
	int64_t start_ms = dl_now_millis();
	dl_optimize_options o = DL_OPTIMIZE_OPTIONS_INIT;
	o.store_options = c->store_options;
	o.progress = on_progress;
	o.progress_payload = c;
	o.full = st->full;
	DL_TRY(setting_long(c, KEY_MAX_FILE_SIZE, &o.max_file_size));
	DL_TRY(setting_long(c, KEY_MIN_FILE_SIZE, &o.min_file_size));
	DL_TRY(setting_double(c, KEY_MAX_DELETED_RATIO, &o.max_deleted_rows_ratio));
	char *where = NULL, **z = NULL;
	DL_TRY(where_text(&where, st->where, st->table, "OPTIMIZE"));
	int rc = zorder_names(&z, st);
	sql_target t;
	bool have_t = false;
	if (rc == 0) have_t = (rc = sql_target_resolve(&t, c, st->table)) == 0;
	dl_optimize_metrics m;
	dl_optimize_stats ms;
	memset(&ms, 0, sizeof ms);
	o.stats = &ms;
	if (rc == 0) {
		o.where = where;
		o.zorder_by = (const char *const *)z;
		o.nzorder_by = st->nzorder;
		rc = dl_optimize(&m, t.uri, &o);
	}
	if (have_t) rc = finish(out, c, rc, &t, &m, &ms, start_ms);
	if (have_t) sql_target_free(&t);
	for (int i = 0; z && i < st->nzorder; i++) dl_free(z[i]);
	dl_free(z);
	dl_free(where);
	return rc;
}

static bool prop_true(const dl_snapshot *s, const char *key)
{
	const char *v = dl_snapshot_property(s, key);
	return v && strcasecmp(v, "true") == 0;
}

/* REORG TABLE t APPLY (UPGRADE UNIFORM(ICEBERG_COMPAT_VERSION=2)), as
 * Spark's ReorgTableForUpgradeUniformHelper.doRewrite: (1) unless V2 is
 * already on, one commit "REORG TABLE UPGRADE UNIFORM" (its
 * enableIcebergCompat) with properties {enableIcebergCompatV2: true,
 * columnMapping.mode: name, enableIcebergCompatV1: false when V1 was on,
 * enableDeletionVectors: false, minWriterVersion 7 / minReaderVersion 3
 * when the protocol is lower}; (2) the files that predate the feature or
 * have deletion vectors are rewritten and tagged (dl_reorg_upgrade_uniform,
 * operation REORG); (3) when iceberg is not yet in enabledFormats, a SET
 * TBLPROPERTIES of enabledFormats = iceberg, whose commit writes the
 * Iceberg metadata. The result is the rewrite's metrics. */
static int upgrade_uniform(dl_sql_conn *c, const char *uri, int version, const char *where,
                           dl_optimize_metrics *m, dl_optimize_stats *ms)
{
	if (version != 2) {
		/* dl_reorg_upgrade_uniform says why, before anything is committed. */
		dl_reorg_options o = DL_REORG_OPTIONS_INIT;
		o.store_options = c->store_options;
		return dl_reorg_upgrade_uniform(m, uri, version, &o);
	}
	dl_snapshot_options so = DL_SNAPSHOT_OPTIONS_INIT;
	so.store_options = c->store_options;
	so.metadata_only = true;
	dl_snapshot *snap;
	DL_TRY(dl_snapshot_open(&snap, uri, &so));
	const char *k1[6], *v1[6];
	size_t n1 = 0;
	bool v2_on = prop_true(snap, "delta.enableIcebergCompatV2");
	if (!v2_on) {
		k1[n1] = "delta.enableIcebergCompatV2", v1[n1++] = "true";
		k1[n1] = "delta.columnMapping.mode", v1[n1++] = "name";
		if (prop_true(snap, "delta.enableIcebergCompatV1"))
			k1[n1] = "delta.enableIcebergCompatV1", v1[n1++] = "false";
		k1[n1] = "delta.enableDeletionVectors", v1[n1++] = "false";
		if (dl_snapshot_min_writer_version(snap) < 7) k1[n1] = "delta.minWriterVersion", v1[n1++] = "7";
		if (dl_snapshot_min_reader_version(snap) < 3) k1[n1] = "delta.minReaderVersion", v1[n1++] = "3";
	}
	const char *formats = dl_snapshot_property(snap, "delta.universalFormat.enabledFormats");
	bool iceberg_on = false;
	for (const char *p = formats; p && *p; p += strcspn(p, ",")) {
		p += strspn(p, ", ");
		size_t len = strcspn(p, ",");
		while (len && p[len - 1] == ' ') len--;
		if (len == 7 && strncasecmp(p, "iceberg", 7) == 0) iceberg_on = true;
	}
	dl_snapshot_free(snap);
	dl_alter_options ao = DL_ALTER_OPTIONS_INIT;
	ao.store_options = c->store_options;
	int64_t v;
	if (n1) DL_TRY(dl_alter_upgrade_uniform_properties(&v, uri, k1, v1, n1, &ao));
	dl_reorg_options o = DL_REORG_OPTIONS_INIT;
	o.store_options = c->store_options;
	o.progress = on_progress;
	o.progress_payload = c;
	o.where = where;
	o.stats = ms;
	DL_TRY(dl_reorg_upgrade_uniform(m, uri, version, &o));
	if (iceberg_on) return 0;
	const char *k3[] = {"delta.universalFormat.enabledFormats"}, *v3[] = {"iceberg"};
	return dl_alter_set_properties(&v, uri, k3, v3, 1, &ao);
}

int sql_run_reorg(dl_batch_stream **out, dl_sql_conn *c, const sql_stmt *st)
{
	DL_TRY(no_time_travel(st->table, "REORG"));
	if (!st->purge) {
		int64_t start_ms = dl_now_millis();
		char *where = NULL;
		DL_TRY(where_text(&where, st->where, st->table, "REORG"));
		sql_target t;
		int rc = sql_target_resolve(&t, c, st->table);
		if (rc < 0) {
			dl_free(where);
			return rc;
		}
		dl_optimize_metrics m;
		dl_optimize_stats ms;
		memset(&ms, 0, sizeof ms);
		rc = upgrade_uniform(c, t.uri, st->iceberg_compat_version, where, &m, &ms);
		rc = finish(out, c, rc, &t, &m, &ms, start_ms);
		sql_target_free(&t);
		dl_free(where);
		return rc;
	}
	int64_t start_ms = dl_now_millis();
	char *where = NULL;
	DL_TRY(where_text(&where, st->where, st->table, "REORG"));
	sql_target t;
	int rc = sql_target_resolve(&t, c, st->table);
	if (rc < 0) {
		dl_free(where);
		return rc;
	}
	dl_reorg_options o = DL_REORG_OPTIONS_INIT;
	o.store_options = c->store_options;
	o.progress = on_progress;
	o.progress_payload = c;
	o.where = where;
	dl_optimize_metrics m;
	dl_optimize_stats ms;
	memset(&ms, 0, sizeof ms);
	o.stats = &ms;
	rc = dl_reorg_purge(&m, t.uri, &o);
	rc = finish(out, c, rc, &t, &m, &ms, start_ms);
	sql_target_free(&t);
	dl_free(where);
	return rc;
}
