/* The commit of a write operation (see write_internal.h): the adds of its
 * files, the cdc actions, a metaData when identity columns moved, and the
 * commitInfo's operation parameters and metrics as Spark writes them. */
#include "ops/write_internal.h"
#include <stdio.h>
#include <string.h>
#include <strings.h>
#include "columnar/name_index.h"
#include "columnar/batch_stream.h"
#include "columnar/builder.h"
#include "expr/expr.h"
#include "log/table_features.h"
#include "log/partition_values.h"
#include "log/protocol.h"
#include "log/schema.h"
#include "log/snapshot.h"
#include "ops/column_mapping.h"
#include "uniform/iceberg_nested_ids.h"
#include "ops/create.h"
#include "ops/auto_optimize.h"
#include "ops/enforce.h"
#include "optimize/clustering.h"
#include "rewrite/file_writer.h"
#include "ops/protocol_choose.h"
#include "ops/schema_align.h"
#include "ops/table_def.h"
#include "rewrite/change_data.h"
#include "rewrite/file_writer.h"
#include "rewrite/rewrite.h"
#include "table/scan.h"
#include "txn/txn.h"
#include "util/error.h"
#include "util/mem.h"
#include "util/options.h"
#include "util/time.h"

/* Spark's metrics of a replaceWhere (DeltaOperationMetrics.WRITE_REPLACE_WHERE,
 * filled by WriteIntoDelta.registerInsertReplaceMetrics and the DELETE it
 * runs, then DeltaOperations.Write.transformMetrics): numFiles, numOutputBytes
 * and numOutputRows count the new and the rewritten files; numCopiedRows,
 * numDeletedRows, numRemovedFiles, numRemovedBytes, numAddedChangeFiles.
 * Row counts are dropped when files were removed without a row count
 * (numDeletedRows 0), and when no row was output. */
static int replace_where_metrics(write_ctx *c)
{
	dl_transaction *t = c->txn;
	const dl_rewrite_metrics *m = dl_rewrite_get_metrics(c->rw);
	int64_t files = (int64_t)dl_files_writer_count(c->fw) + m->added_files;
	int64_t bytes = dl_files_writer_bytes(c->fw) + m->added_bytes;
	int64_t rows = dl_files_writer_rows(c->fw) + m->added_rows;
	int64_t deleted = m->deleted_rows_known ? m->deleted_rows : 0;
	int64_t change = m->change_files + (c->cdc ? (int64_t)dl_change_writer_count(c->cdc) : 0);
	DL_TRY(dl_txn_set_metric(t, "numFiles", files));
	DL_TRY(dl_txn_set_metric(t, "numOutputBytes", bytes));
	DL_TRY(dl_txn_set_metric(t, "numRemovedFiles", m->removed_files));
	DL_TRY(dl_txn_set_metric(t, "numRemovedBytes", m->removed_bytes));
	DL_TRY(dl_txn_set_metric(t, "numAddedChangeFiles", change));
	bool row_counts = !(deleted == 0 && m->removed_files != 0);
	if (rows == 0) {
		return 0;
	}
	DL_TRY(dl_txn_set_metric(t, "numOutputRows", rows));
	if (row_counts) {
		DL_TRY(dl_txn_set_metric(t, "numDeletedRows", deleted));
		DL_TRY(dl_txn_set_metric(t, "numCopiedRows", m->copied_rows));
	}
	return 0;
}

/* CREATE [OR REPLACE] TABLE ... AS SELECT: Spark's CreateTable /
 * ReplaceTable parameters, from the metaData committed. */
static int set_create_parameters(write_ctx *c)
{
	dl_transaction *t = c->txn;
	const dl_metadata *md = &c->plan.metadata;
	DL_TRY(dl_txn_set_parameter(t, "isManaged", c->o->is_managed ? "true" : "false"));
	if (md->description) DL_TRY(dl_txn_set_parameter(t, "description", md->description));
	else DL_TRY(dl_txn_set_parameter_json(t, "description", "null"));
	dl_buf b = DL_BUF_INIT;
	int rc = dl_ops_partition_by_json(&b, md->partition_columns, md->npartition_columns);
	if (rc == 0) rc = dl_txn_set_parameter(t, "partitionBy", b.data);
	/* CreateTable / ReplaceTable: clusterBy always, the columns of the
	 * clustering domain committed ("[]" without one) */
	if (rc == 0) rc = dl_txn_set_parameter(t, "clusterBy", c->plan.cluster_by_json ? c->plan.cluster_by_json : "[]");
	dl_buf_clear(&b);
	if (rc == 0) {
		dl_json_writer w;
		dl_jw_init(&w, &b);
		dl_str_map_write(&w, &md->configuration);
		rc = dl_jw_finish(&w);
	}
	if (rc == 0) rc = dl_txn_set_parameter(t, "properties", b.data);
	dl_buf_free(&b);
	return rc;
}

int dl_ops_write_commit_info(write_ctx *c)
{
	dl_transaction *t = c->txn;
	if (c->o->streaming_output_mode) {
		/* DeltaOperations.StreamingUpdate and DeltaOperationMetrics.STREAMING_UPDATE */
		char epoch[24];
		snprintf(epoch, sizeof epoch, "%lld", (long long)c->o->txn_version);
		DL_TRY(dl_txn_set_parameter(t, "outputMode", c->o->streaming_output_mode));
		DL_TRY(dl_txn_set_parameter(t, "queryId", c->o->txn_app_id));
		DL_TRY(dl_txn_set_parameter(t, "epochId", epoch));
		DL_TRY(dl_txn_set_metric(t, "numAddedFiles", (int64_t)dl_files_writer_count(c->fw)));
		DL_TRY(dl_txn_set_metric(t, "numRemovedFiles", 0));
		DL_TRY(dl_txn_set_metric(t, "numOutputRows", dl_files_writer_rows(c->fw)));
		return dl_txn_set_metric(t, "numOutputBytes", dl_files_writer_bytes(c->fw));
	}
	if (c->o->create_operation) {
		DL_TRY(set_create_parameters(c));
		DL_TRY(dl_txn_set_metric(t, "numFiles", (int64_t)dl_files_writer_count(c->fw)));
		DL_TRY(dl_txn_set_metric(t, "numOutputRows", dl_files_writer_rows(c->fw)));
		return dl_txn_set_metric(t, "numOutputBytes", dl_files_writer_bytes(c->fw));
	}
	DL_TRY(dl_txn_set_parameter(t, "mode", dl_ops_write_mode_name(c->o->mode)));
	dl_buf b = DL_BUF_INIT;
	int rc = dl_ops_partition_by_json(&b, (const char *const *)c->part_cols, (uint32_t)c->npart);
	if (rc == 0) rc = dl_txn_set_parameter(t, "partitionBy", b.data);
	if (rc == 0 && c->o->replace_where) {
		dl_buf_clear(&b);
		dl_json_writer w;
		dl_jw_init(&w, &b);
		dl_jw_array_begin(&w);
		dl_jw_string(&w, c->o->replace_where);
		dl_jw_array_end(&w);
		rc = dl_jw_finish(&w);
		if (rc == 0) rc = dl_txn_set_parameter(t, "predicate", b.data);
	}
	dl_buf_free(&b);
	DL_TRY(rc);
	if (c->o->replace_where && c->snap) return replace_where_metrics(c);
	DL_TRY(dl_txn_set_metric(t, "numFiles", (int64_t)dl_files_writer_count(c->fw)));
	DL_TRY(dl_txn_set_metric(t, "numOutputRows", dl_files_writer_rows(c->fw)));
	DL_TRY(dl_txn_set_metric(t, "numOutputBytes", dl_files_writer_bytes(c->fw)));
	if (c->o->mode == DL_WRITE_OVERWRITE && c->snap) {
		DL_TRY(dl_txn_set_metric(t, "numRemovedFiles", c->removed_files));
		DL_TRY(dl_txn_set_metric(t, "numRemovedBytes", c->removed_bytes));
	}
	return 0;
}

/* Identity columns handed out values: the high-water marks go into the
 * schema, so the commit carries a new metaData. */
int dl_ops_write_commit_identity(write_ctx *c)
{
	if (!dl_enforcer_identity_used(c->enf)) return 0;
	dl_type *s;
	DL_TRY(dl_enforcer_schema_with_hwm(c->enf, &s));
	int rc;
	if (c->snap && !c->metadata_set) {
		rc = dl_ops_write_commit_schema(c, s, &c->config);
	} else {
		dl_metadata md = c->snap && !c->plan.schema ? *dl_snapshot_state(c->snap)->metadata
		                                            : c->plan.metadata;
		dl_buf sj = DL_BUF_INIT;
		rc = dl_schema_to_json(&sj, s);
		md.schema_string = rc == 0 ? dl_arena_strdup(&c->arena, sj.data) : NULL;
		md.configuration = c->config;
		dl_buf_free(&sj);
		if (rc == 0 && !md.schema_string) rc = DL_ENOMEM;
		if (rc == 0) rc = dl_txn_set_metadata(c->txn, &md);
		if (rc == 0) c->joined = true;
	}
	dl_type_unref(s);
	if (rc == DL_EINVALID && c->into_txn)
		return dl_error_prefix("identity columns got values in a transaction that already has a "
		                       "metaData action (a table with identity columns takes one "
		                       "dl_transaction_write per transaction)");
	return rc;
}

/* Row tracking (PROTOCOL.md "Row Tracking"): when the table supports it,
 * every new file gets a fresh range of row ids after the high-water mark
 * kept in the delta.rowTracking domain, and the version that commits it.
 * A concurrent writer moves the mark too; when it commits first, the
 * transaction layer (src/txn/row_tracking.c) retries with the fresh ids
 * moved past the winner's mark and defaultRowCommitVersion set to the
 * version actually committed, so ids never repeat. */
static bool tracks_rows(const write_ctx *c)
{
	const dl_protocol *p = c->plan.schema ? &c->plan.protocol
	                       : c->snap ? dl_snapshot_state(c->snap)->protocol : NULL;
	return p && dl_protocol_has(p, DL_FEATURE_ROW_TRACKING);
}

static int row_id_high_water_mark(write_ctx *c, int64_t *hwm)
{
	*hwm = -1;
	const char *conf = c->snap ? dl_snapshot_domain(c->snap, "delta.rowTracking") : NULL;
	if (!conf) return 0;
	dl_json *v;
	if (dl_json_parse(&c->arena, conf, strlen(conf), "delta.rowTracking domain", &v) < 0)
		return dl_error_set(DL_ECORRUPT, "the delta.rowTracking domain is not JSON: %s", conf);
	const dl_json *m = dl_json_get(v, "rowIdHighWaterMark");
	if (m && dl_json_int64(m, hwm) < 0)
		return dl_error_set(DL_ECORRUPT, "rowIdHighWaterMark is not an integer: %s", conf);
	return 0;
}

int dl_ops_write_add_files(write_ctx *c)
{
	bool track = tracks_rows(c);
	int64_t hwm = c->row_hwm;
	c->joined = true;
	if (track && hwm == DL_NONE) DL_TRY(row_id_high_water_mark(c, &hwm));
	int64_t before = hwm;
	/* the rewrite's actions first: its new files take the first fresh ids */
	if (c->rw) DL_TRY(dl_rewrite_commit(c->rw, &hwm));
	for (size_t i = 0; i < dl_files_writer_count(c->fw); i++) {
		dl_add a = *dl_files_writer_add(c->fw, i);
		if (track) {
			a.base_row_id = hwm + 1;
			a.default_row_commit_version = dl_txn_read_version(c->txn) + 1;
			hwm += dl_files_writer_file_rows(c->fw, i);
		}
		DL_TRY(dl_txn_add_file(c->txn, &a));
	}
	if (track) c->row_hwm = hwm;
	if (track && hwm != before && !c->into_txn) {
		char conf[64];
		snprintf(conf, sizeof conf, "{\"rowIdHighWaterMark\":%lld}", (long long)hwm);
		DL_TRY(dl_txn_set_domain(c->txn, "delta.rowTracking", conf, false));
	}
	return 0;
}

int dl_ops_write_add_change_data(write_ctx *c)
{
	if (!c->cdc) return 0;
	DL_TRY(dl_change_writer_finish(c->cdc));
	return dl_change_writer_commit(c->cdc, c->txn);
}
