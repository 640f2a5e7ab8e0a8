/* The write operation: append, overwrite, replaceWhere, dynamic partition
 * overwrite, schema enforcement and evolution, idempotent writes (see
 * include/deltalake/write.h). One transaction per call: data files are
 * written first, then the commit adds them (and removes what an overwrite
 * replaces); a failure anywhere deletes the files written and leaves the
 * table as it was. The data part (write_data) is shared with
 * dl_transaction_write (transaction_write.c), which appends into a
 * transaction the caller commits. */
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
#include "util/pool.h"
#include "util/time.h"


const char *dl_ops_write_mode_name(dl_write_mode m)
{
	switch (m) {
	case DL_WRITE_APPEND: return "Append";
	case DL_WRITE_OVERWRITE: return "Overwrite";
	case DL_WRITE_IGNORE: return "Ignore";
	default: return "ErrorIfExists";
	}
}

/* The size of each version of dl_write_options (util/options.h). */
static const size_t write_options_ends[] = {
	DL_OPTIONS_END(dl_write_options, nproperties),      /* 1 */
	DL_OPTIONS_END(dl_write_options, progress_payload), /* 2: progress */
	DL_OPTIONS_END(dl_write_options, store_options),    /* 3: store, store options */
	DL_OPTIONS_END(dl_write_options, optimize_write_bin_size), /* 4: CTAS operation, clustering, auto optimize */
	DL_OPTIONS_END(dl_write_options, streaming_output_mode), /* 5: streaming sink batch */
	sizeof(dl_write_options),                           /* 6: automatic widening */
};
DL_OPTIONS_ENDS_CHECK(write_options_ends, DL_WRITE_OPTIONS_VERSION);

/* The caller's options of any known version as the current version. */
static int load_options(dl_write_options *dst, const dl_write_options *o)
{
	if (!o)
		return dl_error_set(DL_EINVALID, "dl_write: options missing; use DL_WRITE_OPTIONS_INIT");
	static const dl_write_options def = DL_WRITE_OPTIONS_INIT;
	*dst = def;
	return dl_options_load(dst, o, write_options_ends, DL_WRITE_OPTIONS_VERSION,
	                       "dl_write_options", "DL_WRITE_OPTIONS_INIT");
}

static int check_options(const dl_write_options *o)
{
	bool overwrite = o->mode == DL_WRITE_OVERWRITE;
	if ((unsigned)o->auto_widening > DL_AUTO_WIDENING_NEVER)
		return dl_error_set(DL_EINVALID, "dl_write_options.auto_widening: not a dl_auto_widening");
	if (o->replace_where && !overwrite)
		return dl_error_set(DL_EINVALID, "replaceWhere needs the overwrite mode");
	if (o->dynamic_partition_overwrite && !overwrite)
		return dl_error_set(DL_EINVALID, "dynamic partition overwrite needs the overwrite mode");
	if (o->replace_where && o->dynamic_partition_overwrite)
		return dl_error_set(DL_EINVALID,
		                    "replaceWhere and dynamic partition overwrite cannot be used together");
	if (o->create_operation && o->mode != DL_WRITE_ERROR_IF_EXISTS && o->mode != DL_WRITE_IGNORE &&
	    !(overwrite && o->overwrite_schema))
		return dl_error_set(DL_EINVALID, "create_operation (%s) is for a write that creates the table or replaces "
		                                 "it whole (overwrite with overwrite_schema)",
		                    o->create_operation);
	if (o->overwrite_schema && (!overwrite || o->replace_where || o->dynamic_partition_overwrite))
		return dl_error_set(DL_EINVALID,
		                    "overwriteSchema needs a full overwrite (mode overwrite, without "
		                    "replaceWhere or dynamic partition overwrite)");
	if (o->streaming_output_mode &&
	    (o->mode != DL_WRITE_APPEND || !o->txn_app_id || o->create_operation ||
	     (strcmp(o->streaming_output_mode, "Append") != 0 && strcmp(o->streaming_output_mode, "Complete") != 0 &&
	      strcmp(o->streaming_output_mode, "Update") != 0)))
		return dl_error_set(DL_EINVALID, "streaming_output_mode (%s) is Append, Complete or Update, for an "
		                                 "append with a txn app id and version",
		                    o->streaming_output_mode);
	if ((o->txn_app_id != NULL) != (o->txn_version >= 0))
		return dl_error_set(DL_EINVALID,
		                    "idempotent writes need both txnAppId and txnVersion (>= 0)");
	if (o->max_records_per_file < 0 || o->target_file_size < 0 || o->optimize_write_bin_size < 0)
		return dl_error_set(DL_EINVALID,
		                    "maxRecordsPerFile, the target file size and the bin size must be >= 0");
	if (o->ncluster_by < 0 || (o->ncluster_by > 0 && !o->cluster_by))
		return dl_error_set(DL_EINVALID, "cluster_by: %d columns given without names", o->ncluster_by);
	return 0;
}

/* ---- the table definition of the write ---- */

static bool same_partitioning(const dl_metadata *md, const dl_write_options *o)
{
	if ((uint32_t)o->npartition_by != md->npartition_columns) return false;
	for (int i = 0; i < o->npartition_by; i++)
		if (strcasecmp(o->partition_by[i], md->partition_columns[i]) != 0) return false;
	return true;
}

/* A new table (or overwriteSchema): the data's schema and partitioning. */
static int define_table(write_ctx *c)
{
	const dl_metadata *old = c->snap ? dl_snapshot_state(c->snap)->metadata : NULL;
	dl_table_def def;
	memset(&def, 0, sizeof def);
	def.schema = c->data_schema;
	def.partition_columns = c->o->partition_by;
	def.npartition_columns = c->o->npartition_by;
	if (old) {
		def.configuration = old->configuration;
		def.table_id = old->id;
		def.name = old->name;
		def.description = c->o->create_operation && c->o->description ? c->o->description : old->description;
		def.created_time = old->created_time;
		def.existing_protocol = dl_snapshot_state(c->snap)->protocol;
	} else {
		DL_TRY(dl_ops_build_configuration(&def.configuration, &c->arena, c->o->property_keys,
		                                  c->o->property_values, c->o->nproperties, NULL, NULL,
		                                  0));
		def.created_time = DL_NONE;
		def.description = c->o->description;
	}
	def.cluster_by = c->o->cluster_by;
	def.ncluster_by = c->o->ncluster_by;
	DL_TRY(dl_table_plan_build(&c->plan, &c->arena, &def));
	c->schema = dl_type_ref(c->plan.schema);
	c->config = c->plan.metadata.configuration;
	c->part_cols = c->plan.metadata.partition_columns;
	c->npart = (int)c->plan.metadata.npartition_columns;
	const dl_protocol *oldp = def.existing_protocol;
	if (!oldp || !dl_ops_protocol_equal(oldp, &c->plan.protocol)) {
		DL_TRY(dl_txn_set_protocol(c->txn, &c->plan.protocol));
		c->joined = true;
	}
	DL_TRY(dl_txn_set_metadata(c->txn, &c->plan.metadata));
	c->metadata_set = c->joined = true;
	/* overwriteSchema without cluster_by keeps the table's clustering; a
	 * REPLACE TABLE ... AS SELECT without CLUSTER BY empties it as a plain
	 * REPLACE does (dl_ops_set_clustering_domain) */
	if (c->plan.clustering_domain)
		DL_TRY(dl_txn_set_domain(c->txn, "delta.clustering", c->plan.clustering_domain, false));
	else if (c->o->create_operation && c->snap && dl_snapshot_domain(c->snap, "delta.clustering"))
		DL_TRY(dl_txn_set_domain(c->txn, "delta.clustering", DL_CLUSTERING_NO_COLUMNS, false));
	return 0;
}

/* cluster_by given for an existing table: Spark's
 * validateClusteringColumnsInSnapshot (the same columns, compared by
 * physical name, or DELTA_CLUSTERING_COLUMNS_MISMATCH). */
static int check_clustering(write_ctx *c)
{
	if (c->o->ncluster_by == 0) return 0;
	dl_clustering have, given;
	bool present;
	memset(&given, 0, sizeof given);
	DL_TRY(dl_clustering_from_snapshot(&have, &present, c->snap));
	int rc = dl_clustering_resolve(&given, c->o->cluster_by, c->o->ncluster_by,
	                               dl_snapshot_schema(c->snap), c->props.column_mapping_mode);
	bool same = rc == 0 && present && have.n == given.n;
	for (int i = 0; same && i < given.n; i++) {
		same = have.cols[i].nparts == given.cols[i].nparts;
		for (int k = 0; same && k < given.cols[i].nparts; k++)
			same = strcmp(have.cols[i].physical[k], given.cols[i].physical[k]) == 0;
	}
	if (rc == 0 && !same) {
		dl_buf g = DL_BUF_INIT, h = DL_BUF_INIT;
		for (int i = 0; i < c->o->ncluster_by; i++) {
			if (i) dl_buf_putc(&g, ',');
			dl_buf_puts(&g, c->o->cluster_by[i]);
		}
		for (int i = 0; i < have.n; i++) {
			if (i) dl_buf_putc(&h, ',');
			dl_buf_puts(&h, have.cols[i].name);
		}
		rc = dl_error_set_class(DL_EINVALID, "DELTA_CLUSTERING_COLUMNS_MISMATCH",
		                        "The provided clustering columns do not match the existing table's.\n"
		                        "- provided: %s\n- existing: %s",
		                        g.data ? g.data : "", h.data ? h.data : "");
		dl_buf_free(&g);
		dl_buf_free(&h);
	}
	dl_clustering_free(&have);
	dl_clustering_free(&given);
	return rc;
}

/* metaData of the existing table with another schema (and configuration): see write_internal.h. */
int dl_ops_write_commit_schema(write_ctx *c, const dl_type *schema, const dl_str_map *config)
{
	dl_metadata md = *dl_snapshot_state(c->snap)->metadata;
	dl_buf sj = DL_BUF_INIT;
	int rc = dl_schema_to_json(&sj, schema);
	md.schema_string = rc == 0 ? dl_arena_strdup(&c->arena, sj.data) : NULL;
	dl_buf_free(&sj);
	DL_TRY(rc);
	if (!md.schema_string) return DL_ENOMEM;
	md.configuration = *config;
	DL_TRY(dl_txn_set_metadata(c->txn, &md));
	c->metadata_set = c->joined = true;
	/* A new column may need a feature (timestamp_ntz, type widening...). */
	const dl_protocol *oldp = dl_snapshot_state(c->snap)->protocol;
	dl_protocol np;
	DL_TRY(dl_ops_choose_protocol(&np, &c->arena, schema, config, oldp));
	if (!dl_ops_protocol_equal(oldp, &np)) DL_TRY(dl_txn_set_protocol(c->txn, &np));
	return 0;
}

/* The configuration with delta.columnMapping.maxColumnId = max_id. */
static int config_with_max_id(write_ctx *c, const dl_str_map *in, int64_t max_id, dl_str_map *out)
{
	dl_kv *items = dl_arena_calloc(&c->arena, (size_t)in->n + 1, sizeof *items);
	char *num = dl_arena_alloc(&c->arena, 24);
	if (!items || !num) return DL_ENOMEM;
	snprintf(num, 24, "%lld", (long long)max_id);
	uint32_t n = 0;
	bool set = false;
	for (uint32_t i = 0; i < in->n; i++) {
		items[n] = in->items[i];
		if (strcmp(items[n].key, "delta.columnMapping.maxColumnId") == 0) {
			items[n].value = num;
			set = true;
		}
		n++;
	}
	if (!set) {
		items[n].key = "delta.columnMapping.maxColumnId";
		items[n++].value = num;
	}
	out->items = items;
	out->n = n;
	return 0;
}

/* An existing table: check the data against it, evolving when allowed. */
static int existing_table(write_ctx *c)
{
	const dl_metadata *md = dl_snapshot_state(c->snap)->metadata;
	const dl_type *table = dl_snapshot_schema(c->snap);
	if (!table) return dl_error_set(DL_ECORRUPT, "the table's metaData has no schema");
	if (c->o->npartition_by && !same_partitioning(md, c->o))
		return dl_error_set(DL_ESCHEMA,
		                    "the partitioning given does not match the table's (%u partition "
		                    "column(s)%s%s); leave it out to follow the table's partitioning",
		                    md->npartition_columns, md->npartition_columns ? ", first " : "",
		                    md->npartition_columns ? md->partition_columns[0] : "");
	c->config = md->configuration;
	c->part_cols = md->partition_columns;
	c->npart = (int)md->npartition_columns;
	/* A rewrite copying rows of a row-tracking table writes their ids into
	 * the materialized columns, which must have names (tables written
	 * before names were assigned get them in this commit's metaData). */
	bool named = false;
	if (c->o->replace_where && c->props.enable_row_tracking)
		DL_TRY(dl_rewrite_row_tracking_names(
			&c->config, &named, &c->arena, &md->configuration,
			dl_protocol_has(dl_snapshot_state(c->snap)->protocol, DL_FEATURE_ROW_TRACKING)));
	bool changed;
	dl_type *merged;
	dl_widening w;
	dl_widening_of(&w, &c->config, c->o->auto_widening);
	DL_TRY(dl_schema_merge(&merged, &changed, table, c->data_schema, c->o->merge_schema,
	                       c->props.enable_type_widening ? &w : NULL));
	if (c->evolved && changed) {
		/* the caller's evolved schema (its ids already handed out) */
		dl_type_unref(merged);
		merged = dl_type_ref((dl_type *)c->evolved);
	}
	if (!changed) {
		c->schema = merged;
		return named ? dl_ops_write_commit_schema(c, merged, &c->config) : 0;
	}
	dl_column_mapping_mode mode = c->props.column_mapping_mode;
	int rc = dl_ops_validate_schema(merged, mode);
	if (rc == 0 && mode != DL_CM_NONE) {
		int64_t max_id = c->props.column_mapping_max_id;
		dl_type *mapped;
		rc = dl_cm_assign(&mapped, merged, &max_id);
		if (rc == 0) {
			dl_type_unref(merged);
			merged = mapped;
		}
		/* New arrays and maps of an IcebergCompatV2 table get their nested
		 * ids before this commit's files are written with them. */
		bool nchanged;
		if (rc == 0 && dl_ice_compat_v2_enabled(&c->config)) {
			rc = dl_ice_assign_nested_ids(&mapped, merged, &max_id, &nchanged);
			if (rc == 0) {
				dl_type_unref(merged);
				merged = mapped;
			}
		}
		if (rc == 0) rc = config_with_max_id(c, &c->config, max_id, &c->config);
	}
	c->schema = merged;
	if (rc == 0) rc = dl_ops_write_commit_schema(c, merged, &c->config);
	return rc;
}

/* ---- batches ---- */

static int plan_columns(write_ctx *c)
{
	int n = c->schema->nchildren;
	c->data_index = dl_calloc((size_t)n + 1, sizeof(int));
	c->provided = dl_calloc((size_t)n + 1, sizeof(bool));
	if (!c->data_index || !c->provided) return DL_ENOMEM;
	dl_name_index ix;
	DL_TRY(dl_name_index_init(&ix, c->data_schema));
	for (int i = 0; i < n; i++) {
		int k = dl_name_index_find_ci(&ix, c->schema->children[i].name);
		c->data_index[i] = k;
		c->provided[i] = k >= 0 && c->data_schema->children[k].type->id != DL_TYPE_NULL;
	}
	dl_name_index_free(&ix);
	return 0;
}

/* The data batch as a batch of the table schema. Columns of the same type
 * are borrowed (owned[i] false); the rest are converted or null. */
static int conform_batch(write_ctx *c, const dl_batch *in, dl_batch **out, bool *owned)
{
	dl_batch *b = dl_batch_new(c->schema, in->num_rows);
	if (!b) return dl_error_last()->code;
	int rc = 0;
	for (int i = 0; i < c->schema->nchildren && rc == 0; i++) {
		dl_type *t = c->schema->children[i].type;
		int k = c->data_index[i];
		owned[i] = true;
		if (!c->provided[i]) { /* absent or NullType: a placeholder fill may replace */
			b->cols[i] = dl_array_new_null(t, in->num_rows);
			if (!b->cols[i]) rc = dl_error_last()->code;
		} else if (dl_type_equals(in->cols[k]->type, t)) {
			b->cols[i] = in->cols[k];
			owned[i] = false;
		} else {
			rc = dl_array_conform(&b->cols[i], in->cols[k], t);
		}
	}
	if (rc < 0) {
		for (int i = 0; i < c->schema->nchildren; i++)
			if (!owned[i]) b->cols[i] = NULL;
		dl_batch_free(b);
		return rc;
	}
	*out = b;
	return 0;
}

static void free_conformed(write_ctx *c, dl_batch *b, const bool *owned)
{
	for (int i = 0; i < c->schema->nchildren; i++)
		if (!owned[i]) b->cols[i] = NULL;
	dl_batch_free(b);
}

/* ---- change data (delta.enableChangeDataFeed) ----
 * A replaceWhere whose rewrite wrote change data (copy-on-write of files
 * matching on data columns) writes its inserted rows as change data too:
 * readers take a commit's cdc files instead of its adds and removes. */

static int cdc_rows(write_ctx *c, const dl_batch *b, const char *kind)
{
	return c->cdc ? dl_change_writer_write(c->cdc, b, kind) : 0;
}

static int check_replace_where(write_ctx *c, const dl_batch *b)
{
	if (!c->replace_where || !c->o->replace_where_check || b->num_rows == 0) return 0;
	DL_TRY(dl_expr_filter(&c->sel, c->replace_where, b, NULL));
	if (c->sel.count == b->num_rows) return 0;
	return dl_error_set_class(DL_ECONSTRAINT, "DELTA_REPLACE_WHERE_MISMATCH",
	                    "written data does not conform to the partial table overwrite condition "
	                    "'%s' (%lld of %lld rows do not match); write only matching rows, or turn "
	                    "the replaceWhere constraint check off",
	                    c->o->replace_where, (long long)(b->num_rows - c->sel.count),
	                    (long long)b->num_rows);
}

/* Moves the columns b borrows from `in` into b, so the file writer can
 * take b over; false (nothing moved) when two columns of b borrow one. */
static bool take_borrowed(write_ctx *c, dl_batch *in, dl_batch *b, bool *owned)
{
	bool *used = dl_calloc((size_t)in->ncols + 1, sizeof(bool));
	if (!used) return false;
	bool ok = true;
	for (int i = 0; i < c->schema->nchildren && ok; i++) {
		if (owned[i]) continue;
		int k = c->data_index[i];
		ok = !used[k] && in->cols[k] == b->cols[i];
		used[k] = true;
	}
	for (int i = 0; i < c->schema->nchildren && ok; i++) {
		if (owned[i]) continue;
		in->cols[c->data_index[i]] = NULL;
		owned[i] = true;
	}
	dl_free(used);
	return ok;
}

/* Writes the rows of `in`, whose columns it may take (in->num_rows stays). */
static int write_batch(write_ctx *c, dl_batch *in)
{
	bool *owned = dl_calloc((size_t)c->schema->nchildren + 1, sizeof(bool));
	if (!owned) return DL_ENOMEM;
	dl_batch *b = NULL;
	int rc = conform_batch(c, in, &b, owned);
	if (rc < 0) {
		dl_free(owned);
		return rc;
	}
	rc = dl_enforcer_fill(c->enf, b, c->provided);
	if (rc == 0) {
		for (int i = 0; i < c->schema->nchildren; i++)
			if (!c->provided[i]) owned[i] = true; /* fill replaced them with owned arrays */
		rc = dl_enforcer_check(c->enf, b, c->provided);
	}
	if (rc == 0) rc = check_replace_where(c, b);
	/* Handed over, the batch's columns encode while the next batch is read
	 * and checked; change data needs the rows after the write. */
	if (rc == 0 && !c->cdc && take_borrowed(c, in, b, owned)) {
		rc = dl_files_writer_write_owned(c->fw, b);
		dl_free(owned);
		return rc;
	}
	if (rc == 0) rc = dl_files_writer_write(c->fw, b);
	if (rc == 0) rc = cdc_rows(c, b, "insert");
	free_conformed(c, b, owned);
	dl_free(owned);
	return rc;
}

/* The caller's progress callback (dl_write_options.progress); non-zero
 * from it cancels the write before anything is committed. */
static int report_progress(write_ctx *c, const char *phase, const char *unit, int64_t done,
                           int64_t total)
{
	if (!c->o->progress) return 0;
	dl_progress_info p = {c->into_txn ? "transaction write" : "write", phase, unit, done, total,
	                      c->input_rows, c->fw ? dl_files_writer_bytes(c->fw) : -1};
	if (c->o->progress(&p, c->o->progress_payload) == 0) return 0;
	return dl_error_set(DL_ECANCELLED, "%s cancelled by the progress callback (%s)", p.operation,
	                    phase);
}

static int write_all(write_ctx *c, dl_batch_stream *data)
{
	for (;;) {
		dl_batch *in;
		DL_TRY(dl_batch_stream_next(data, &in));
		if (!in) return 0;
		int rc = write_batch(c, in);
		c->input_rows += in->num_rows;
		dl_batch_free(in);
		DL_TRY(rc);
		if (c->progress) c->progress(c->progress_payload, c->input_rows);
		DL_TRY(report_progress(c, "writing", "rows", c->input_rows, -1));
	}
}

/* ---- what an overwrite replaces (the rewrite engine, src/rewrite) ---- */

static int open_rewrite(write_ctx *c)
{
	dl_rewrite_options ro = DL_REWRITE_OPTIONS_INIT;
	ro.txn = c->txn;
	ro.schema = c->schema;
	ro.configuration = &c->config;
	ro.data_change = c->o->data_change;
	ro.now_ms = c->now;
	ro.max_records_per_file = c->o->max_records_per_file;
	ro.target_file_size = c->o->target_file_size;
	return dl_rewrite_new(&c->rw, &ro);
}

/* replaceWhere (Spark's WriteIntoDelta.removeFiles, a DELETE of the
 * predicate in the write's transaction): before the new rows are written,
 * since whether the rewrite wrote change data decides whether they are
 * written as change data too. */
static int replace_where_rewrite(write_ctx *c)
{
	DL_TRY(open_rewrite(c));
	DL_TRY(dl_rewrite_touch_where(c->rw, c->o->replace_where));
	DL_TRY(dl_rewrite_run(c->rw));
	if (!dl_rewrite_wrote_change_data(c->rw)) return 0;
	return dl_change_writer_open(&c->cdc, c->store, c->schema, (const char *const *)c->part_cols,
	                             c->npart, &c->props);
}

/* Partition values of two files equal (same keys, same values or nulls). */
static bool same_partition(const dl_str_map *a, const dl_str_map *b)
{
	if (a->n != b->n) return false;
	for (uint32_t i = 0; i < a->n; i++) {
		bool found;
		const char *v = dl_str_map_get(b, a->items[i].key, &found);
		const char *u = a->items[i].value;
		if (!found) return false;
		if ((u && *u ? u : NULL) == NULL || (v && *v ? v : NULL) == NULL) {
			if ((u && *u) || (v && *v)) return false;
		} else if (strcmp(u, v) != 0) {
			return false;
		}
	}
	return true;
}

/* Dynamic partition overwrite: remove the files of the partitions written. */
static int remove_written_partitions(write_ctx *c)
{
	const dl_log_state *st = dl_snapshot_state(c->snap);
	size_t nw = dl_files_writer_count(c->fw);
	dl_txn_read_whole_table(c->txn);
	DL_TRY(open_rewrite(c));
	for (size_t i = 0; i < st->nadds; i++) {
		const dl_add *a = dl_log_state_add(st, i);
		bool hit = false;
		for (size_t j = 0; j < nw && !hit; j++)
			hit = same_partition(&a->partition_values, &dl_files_writer_add(c->fw, j)->partition_values);
		if (!hit) continue;
		DL_TRY(dl_rewrite_touch_file(c->rw, a));
		c->removed_files++;
		c->removed_bytes += a->size;
	}
	return dl_rewrite_run(c->rw);
}

/* After the new files are complete (dynamic overwrite needs their
 * partitions; replaceWhere has already rewritten what it touched). */
static int overwrite(write_ctx *c)
{
	if (!c->snap || c->o->mode != DL_WRITE_OVERWRITE || c->o->replace_where) return 0;
	if (c->o->dynamic_partition_overwrite && c->npart > 0) return remove_written_partitions(c);
	dl_txn_read_whole_table(c->txn);
	return dl_ops_remove_all(c->txn, c->now, c->o->data_change, &c->removed_files,
	                         &c->removed_bytes);
}

static int prepare(write_ctx *c)
{
	dl_table_properties_defaults(&c->props);
	if (c->snap) DL_TRY(dl_table_properties_parse(&c->props, &dl_snapshot_state(c->snap)->metadata->configuration, false));
	if (!c->snap || c->o->overwrite_schema) {
		DL_TRY(define_table(c));
		DL_TRY(dl_table_properties_parse(&c->props, &c->config, false));
	} else {
		DL_TRY(check_clustering(c));
		DL_TRY(existing_table(c));
	}
	DL_TRY(plan_columns(c));
	DL_TRY(dl_enforcer_new(&c->enf, c->schema, &c->config));
	if (c->o->replace_where) { /* a new table checks its rows too */
		DL_TRY(dl_expr_parse(&c->replace_where, c->o->replace_where));
		int rc = dl_expr_bind(c->replace_where, c->schema);
		if (rc < 0) return dl_error_prefix("replaceWhere");
		if (!dl_expr_is_deterministic(c->replace_where))
			return dl_error_set(DL_EINVALID, "replaceWhere '%s' is not deterministic",
			                    c->o->replace_where);
	}
	dl_files_writer_options fo;
	memset(&fo, 0, sizeof fo);
	fo.store = c->store;
	fo.schema = c->schema;
	fo.partition_columns = (const char *const *)c->part_cols;
	fo.npartition_columns = c->npart;
	fo.props = &c->props;
	fo.max_records_per_file = c->o->max_records_per_file;
	fo.target_file_size = c->o->target_file_size;
	/* Optimized writes (Spark's DeltaOptimizedWriterExec): Spark shuffles
	 * each task's rows by partition into bins of binSize so one task, one
	 * file, holds a partition's rows instead of one file per task and
	 * partition. Here one open file per partition already takes the rows
	 * of every batch; what optimized writes change is where the file rolls:
	 * at the bin size rather than the target file size. */
	if (dl_ops_optimize_write_enabled(&c->config, c->o->optimize_write))
		fo.target_file_size = c->o->optimize_write_bin_size > 0 ? c->o->optimize_write_bin_size
		                                                         : DL_OPTIMIZE_WRITE_BIN_SIZE;
	fo.data_change = c->o->data_change;
	/* The columns and pages of each file on every thread (DL_THREADS or
	 * the CPU count); the open files of a partitioned write share them. */
	fo.threads = dl_default_threads();
	return dl_files_writer_open(&c->fw, &fo);
}

/* Whether an idempotent write already happened (then nothing is done). */
static int already_applied(write_ctx *c, bool *applied)
{
	*applied = false;
	if (!c->o->txn_app_id) return 0;
	int64_t v;
	int rc = dl_txn_app_version(c->txn, c->o->txn_app_id, &v);
	if (rc == DL_ENOTFOUND) {
		dl_error_clear();
		rc = 0;
	} else if (rc == 0) {
		*applied = v >= c->o->txn_version;
	}
	if (rc == 0 && !*applied) rc = dl_txn_set_app_txn(c->txn, c->o->txn_app_id, c->o->txn_version);
	return rc;
}

/* The data of a write, into c->txn: files written with every rule of the
 * table (schema enforcement, constraints, generated / identity / default
 * values, partitions, stats, column mapping, row tracking) and their
 * actions added, with what an overwrite replaces and a new metaData when
 * the schema changed or identity columns handed out values. */
static int write_data(write_ctx *c, dl_batch_stream *data)
{
	c->data_schema = dl_batch_stream_schema(data);
	c->now = dl_now_millis();
	DL_TRY(prepare(c));
	/* replaceWhere first: whether it rewrites files decides whether the new
	 * rows are also change data. */
	if (c->snap && c->o->replace_where) DL_TRY(replace_where_rewrite(c));
	DL_TRY(write_all(c, data));
	DL_TRY(dl_files_writer_finish(c->fw));
	DL_TRY(dl_ops_write_add_change_data(c));
	DL_TRY(overwrite(c));
	/* metaData before the files: it is what can fail for a reason of the
	 * caller's (a second one in a transaction). */
	DL_TRY(dl_ops_write_commit_identity(c));
	return dl_ops_write_add_files(c);
}

static int run(write_ctx *c, const char *uri, dl_batch_stream *data, int64_t *version)
{
	if (c->o->store) {
		c->store = c->o->store;
	} else {
		DL_TRY(dl_store_open(&c->store, uri, c->o->store_options));
		c->owns_store = true;
	}
	DL_TRY(dl_ops_open_latest(&c->snap, c->store));
	if (c->snap && c->o->mode == DL_WRITE_ERROR_IF_EXISTS)
		return dl_error_set(DL_EEXISTS,
		                    "a Delta table already exists at %s; write with mode append or "
		                    "overwrite",
		                    dl_store_root(c->store));
	if (c->snap && c->o->mode == DL_WRITE_IGNORE) return 0;
	dl_txn_options to = DL_TXN_OPTIONS_INIT;
	to.operation = c->o->create_operation       ? c->o->create_operation
	               : c->o->streaming_output_mode ? "STREAMING UPDATE"
	                                             : "WRITE";
	to.user_metadata = c->o->user_metadata;
	/* Row ids and defaultRowCommitVersion are fixed for the version after
	 * the read one; a retry at a later version moves them (txn layer). */
	DL_TRY(dl_txn_begin(&c->txn, c->store, c->snap, &to));
	bool applied;
	DL_TRY(already_applied(c, &applied));
	if (applied) return 0;
	DL_TRY(write_data(c, data));
	DL_TRY(dl_ops_write_commit_info(c));
	int64_t nfiles = (int64_t)dl_files_writer_count(c->fw);
	DL_TRY(report_progress(c, "committing", "files", nfiles, nfiles));
	return dl_txn_commit(c->txn, version);
}

/* Deletes the files of a failed write, keeping the failure's message (not
 * the cleanup's). */
static void discard_files(write_ctx *c, int rc)
{
	if (!c->fw && !c->cdc && !c->rw) return;
	dl_error saved = *dl_error_last();
	char *msg = dl_strdup(saved.message);
	char *klass = dl_strdup(saved.klass);
	if (c->fw) dl_files_writer_discard(c->fw);
	if (c->cdc) dl_change_writer_discard(c->cdc);
	if (c->rw) dl_rewrite_discard(c->rw);
	if (msg && klass && *klass) dl_error_set_class(rc, klass, "%s", msg);
	else if (msg) dl_error_set(rc, "%s", msg);
	dl_free(msg);
	dl_free(klass);
}

/* Frees what write_data built (not the transaction, snapshot or store). */
static void free_write_state(write_ctx *c)
{
	dl_files_writer_free(c->fw);
	dl_change_writer_free(c->cdc);
	dl_rewrite_free(c->rw);
	dl_enforcer_free(c->enf);
	dl_expr_free(c->replace_where);
	dl_selection_free(&c->sel);
	dl_free(c->data_index);
	dl_free(c->provided);
	dl_type_unref(c->schema);
	dl_table_plan_free(&c->plan);
	dl_arena_free(&c->arena);
}

int dl_ops_write_into(dl_files_writer **files, int64_t *row_hwm, bool *joined,
                      dl_transaction *t, dl_batch_stream *data, const dl_write_options *o)
{
	return dl_ops_write_into_schema(files, row_hwm, joined, t, data, o, NULL);
}

int dl_ops_write_into_schema(dl_files_writer **files, int64_t *row_hwm, bool *joined,
                             dl_transaction *t, dl_batch_stream *data, const dl_write_options *o,
                             const dl_type *schema)
{
	*files = NULL;
	*joined = false;
	dl_write_options loaded;
	DL_TRY(load_options(&loaded, o));
	o = &loaded;
	DL_TRY(check_options(o));
	if (o->mode != DL_WRITE_APPEND || o->txn_app_id)
		return dl_error_set(DL_EINVALID, "a write into a transaction is an append; app ids "
		                                  "are the transaction's (dl_transaction_set_app_version)");
	write_ctx c;
	memset(&c, 0, sizeof c);
	c.o = o;
	c.txn = t;
	c.snap = dl_txn_snapshot(t);
	if (!c.snap)
		return dl_error_set(DL_EINVALID, "the transaction has no table to write to; create it first");
	c.store = dl_snapshot_store(c.snap);
	c.row_hwm = *row_hwm;
	c.into_txn = true;
	c.evolved = schema;
	int rc = write_data(&c, data);
	*joined = c.joined;
	if (rc < 0) {
		discard_files(&c, rc);
	} else {
		*row_hwm = c.row_hwm;
		*files = c.fw;
		c.fw = NULL;
	}
	free_write_state(&c);
	return rc;
}

int dl_ops_write(int64_t *version, const char *uri, dl_batch_stream *data,
                 const dl_write_options *o, dl_write_progress_fn progress, void *payload)
{
	*version = -1;
	dl_write_options loaded;
	DL_TRY(load_options(&loaded, o));
	o = &loaded;
	DL_TRY(check_options(o));
	write_ctx c;
	memset(&c, 0, sizeof c);
	c.o = o;
	c.progress = progress;
	c.progress_payload = payload;
	c.row_hwm = DL_NONE;
	int rc = run(&c, uri, data, version);
	/* post-commit: auto compaction never fails the write */
	if (rc == 0 && *version >= 0) dl_ops_auto_compact_after_commit(c.store, &c.config, o->auto_compact, *version);
	/* A commit that may have landed names the files: they stay. */
	if (rc < 0 && !(c.txn && dl_txn_commit_unknown(c.txn))) discard_files(&c, rc);
	free_write_state(&c);
	dl_txn_free(c.txn);
	dl_snapshot_free(c.snap);
	if (c.owns_store) dl_store_free(c.store);
	return rc;
}

int dl_write(int64_t *version, const char *uri, struct ArrowArrayStream *data,
             const dl_write_options *opts)
{
	*version = -1;
	if (!data || !data->release)
		return dl_error_set(DL_EINVALID, "dl_write: no data stream given");
	dl_batch_stream *s;
	DL_TRY(dl_batch_stream_import(&s, data));
	int rc = dl_ops_write(version, uri, s, opts, NULL, NULL);
	dl_batch_stream_free(s);
	return rc;
}
