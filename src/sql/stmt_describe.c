/* DESCRIBE [EXTENDED] t, DESCRIBE HISTORY t [LIMIT n], DESCRIBE DETAIL t:
 * Spark's result columns over the snapshot, history and detail APIs
 * (deltalake/history.h). Types are shown as Spark's simpleString (bigint,
 * decimal(10,2), struct<a:int>). History's operationParameters and
 * operationMetrics and detail's properties are MAP<STRING, STRING>, its
 * partition/clustering columns and table features ARRAY<STRING>, as in
 * Spark; job and notebook (structs in Spark) are STRING holding JSON. */
#include "sql/resolve_internal.h"
#include "deltalake/history.h"
#include "expr/ast.h"
#include "log/schema.h"
#include "log/snapshot.h"
#include "util/buf.h"
#include "util/error.h"
#include "util/mem.h"
#include <string.h>

int sql_type_simple(dl_buf *out, const dl_type *t)
{
	switch (t->id) {
	case DL_TYPE_NULL: return dl_buf_puts(out, "void");
	case DL_TYPE_BOOLEAN: return dl_buf_puts(out, "boolean");
	case DL_TYPE_BYTE: return dl_buf_puts(out, "tinyint");
	case DL_TYPE_SHORT: return dl_buf_puts(out, "smallint");
	case DL_TYPE_INTEGER: return dl_buf_puts(out, "int");
	case DL_TYPE_LONG: return dl_buf_puts(out, "bigint");
	case DL_TYPE_FLOAT: return dl_buf_puts(out, "float");
	case DL_TYPE_DOUBLE: return dl_buf_puts(out, "double");
	case DL_TYPE_DECIMAL: return dl_buf_printf(out, "decimal(%d,%d)", t->precision, t->scale);
	case DL_TYPE_STRING: return dl_buf_puts(out, "string");
	case DL_TYPE_BINARY: return dl_buf_puts(out, t->geo ? t->geo : "binary");
	case DL_TYPE_DATE: return dl_buf_puts(out, "date");
	case DL_TYPE_TIMESTAMP: return dl_buf_puts(out, "timestamp");
	case DL_TYPE_TIMESTAMP_NTZ: return dl_buf_puts(out, "timestamp_ntz");
	case DL_TYPE_VARIANT: return dl_buf_puts(out, "variant");
	case DL_TYPE_ARRAY:
		DL_TRY(dl_buf_puts(out, "array<"));
		DL_TRY(sql_type_simple(out, t->children[0].type));
		return dl_buf_putc(out, '>');
	case DL_TYPE_MAP:
		DL_TRY(dl_buf_puts(out, "map<"));
		DL_TRY(sql_type_simple(out, t->children[0].type));
		DL_TRY(dl_buf_putc(out, ','));
		DL_TRY(sql_type_simple(out, t->children[1].type));
		return dl_buf_putc(out, '>');
	case DL_TYPE_STRUCT:
		DL_TRY(dl_buf_puts(out, "struct<"));
		for (int i = 0; i < t->nchildren; i++) {
			if (i) DL_TRY(dl_buf_putc(out, ','));
			DL_TRY(dl_buf_printf(out, "%s:", t->children[i].name));
			DL_TRY(sql_type_simple(out, t->children[i].type));
		}
		return dl_buf_putc(out, '>');
	}
	return dl_buf_puts(out, "unknown");
}

/* The snapshot of a statement's target (latest, or t VERSION AS OF...). */
int sql_target_snapshot(dl_snapshot **snap, sql_target *t, dl_sql_conn *c, const sql_table_ref *ref, bool meta_only)
{
	*snap = NULL;
	DL_TRY(sql_target_resolve(t, c, ref));
	sql_env env;
	sql_session_env(&env, c);
	dl_snapshot_options so = DL_SNAPSHOT_OPTIONS_INIT;
	so.metadata_only = meta_only;
	int rc = sql_time_travel_options(&so, &ref->tt, &env.ctx);
	if (rc == 0) rc = sql_open_snapshot(snap, c, t, &so);
	if (rc < 0) sql_target_free(t);
	return rc;
}

static int field_comment(char **out, const dl_field *f)
{
	dl_arena a = DL_ARENA_INIT;
	const char *s = NULL;
	*out = NULL;
	int rc = dl_field_metadata_string(f, "comment", &a, &s);
	if (rc == 0 && s && !(*out = dl_strdup(s))) rc = DL_ENOMEM;
	dl_arena_free(&a);
	return rc == DL_ENOTFOUND ? 0 : rc;
}

static int col_row(sql_rows *r, const dl_field *f)
{
	dl_buf b = DL_BUF_INIT;
	char *comment = NULL;
	int rc = sql_type_simple(&b, f->type);
	if (rc == 0) rc = dl_buf_putc(&b, 0);
	if (rc == 0) rc = field_comment(&comment, f);
	if (rc == 0) rc = sql_rows_str(r, 0, f->name);
	if (rc == 0) rc = sql_rows_str(r, 1, (const char *)b.data);
	if (rc == 0) rc = sql_rows_str(r, 2, comment);
	dl_free(comment);
	dl_buf_free(&b);
	return rc;
}

static int three(sql_rows *r, const char *a, const char *b, const char *c)
{
	DL_TRY(sql_rows_str(r, 0, a));
	DL_TRY(sql_rows_str(r, 1, b));
	return sql_rows_str(r, 2, c);
}

int sql_run_describe_table(dl_batch_stream **out, dl_sql_conn *c, const sql_stmt *st)
{
	sql_target t;
	dl_snapshot *snap = NULL;
	DL_TRY(sql_target_snapshot(&snap, &t, c, st->table, true));
	static const char *const names[] = {"col_name", "data_type", "comment"};
	static const dl_type_id types[] = {DL_TYPE_STRING, DL_TYPE_STRING, DL_TYPE_STRING};
	sql_rows r;
	int rc = sql_rows_init(&r, names, types, 3);
	const dl_type *s = dl_snapshot_schema(snap);
	for (int i = 0; rc == 0 && s && i < s->nchildren; i++) rc = col_row(&r, &s->children[i]);
	size_t np = dl_snapshot_partition_column_count(snap);
	if (rc == 0 && np) {
		rc = three(&r, "# Partition Information", "", "");
		if (rc == 0) rc = three(&r, "# col_name", "data_type", "comment");
		for (size_t i = 0; rc == 0 && i < np; i++) {
			int k = s ? dl_type_field_index(s, dl_snapshot_partition_column(snap, i)) : -1;
			if (k >= 0) rc = col_row(&r, &s->children[k]);
		}
	}
	if (rc == 0 && st->extended) {
		char ver[32];
		snprintf(ver, sizeof ver, "%lld", (long long)dl_snapshot_version(snap));
		rc = three(&r, "", "", "");
		if (rc == 0) rc = three(&r, "# Detailed Table Information", "", "");
		if (rc == 0 && t.from_catalog) rc = three(&r, "Catalog", "spark_catalog", "");
		if (rc == 0 && t.from_catalog) rc = three(&r, "Database", t.info.schema, "");
		if (rc == 0 && t.from_catalog) rc = three(&r, "Table", t.info.name, "");
		if (rc == 0 && dl_snapshot_table_description(snap))
			rc = three(&r, "Comment", dl_snapshot_table_description(snap), "");
		if (rc == 0 && t.from_catalog)
			rc = three(&r, "Type", t.info.type == DL_CATALOG_MANAGED ? "MANAGED" : "EXTERNAL", "");
		if (rc == 0) rc = three(&r, "Location", dl_snapshot_table_root(snap), "");
		if (rc == 0) rc = three(&r, "Provider", "delta", "");
		if (rc == 0) rc = three(&r, "Version", ver, "");
		dl_buf b = DL_BUF_INIT;
		size_t n = dl_snapshot_property_count(snap);
		if (rc == 0) rc = dl_buf_putc(&b, '[');
		for (size_t i = 0; rc == 0 && i < n; i++) {
			const char *k, *v;
			dl_snapshot_property_at(&k, &v, snap, i);
			rc = dl_buf_printf(&b, "%s%s=%s", i ? "," : "", k, v);
		}
		if (rc == 0) rc = dl_buf_puts(&b, "]");
		if (rc == 0) rc = dl_buf_putc(&b, 0);
		if (rc == 0) rc = three(&r, "Table Properties", (const char *)b.data, "");
		dl_buf_free(&b);
	}
	if (rc == 0) rc = sql_rows_finish(out, &r);
	sql_rows_free(&r);
	dl_snapshot_free(snap);
	sql_target_free(&t);
	return rc;
}

int sql_run_describe_history(dl_batch_stream **out, dl_sql_conn *c, const sql_stmt *st)
{
	sql_target t;
	dl_snapshot *snap = NULL;
	int64_t limit = -1;
	if (st->limit) {
		sql_env env;
		sql_session_env(&env, c);
		dl_scalar v;
		dl_expr *h = NULL;
		int rc = sql_eval_const(&v, &h, st->limit, "BIGINT", &env.ctx);
		if (rc == 0 && (v.is_null || v.v.i64 < 0))
			rc = dl_error_set(DL_EINVALID, "DESCRIBE HISTORY ... LIMIT needs a number >= 0");
		if (rc == 0) limit = v.v.i64;
		dl_expr_free(h);
		DL_TRY(rc);
	}
	DL_TRY(sql_target_snapshot(&snap, &t, c, st->table, true));
	dl_history *h = NULL;
	int rc = dl_history_open(&h, snap, limit);
	static const char *const names[] = {"version",  "timestamp",     "userId",          "userName",
	                                    "operation", "operationParameters", "job",      "notebook",
	                                    "clusterId", "readVersion",   "isolationLevel", "isBlindAppend",
	                                    "operationMetrics", "userMetadata", "engineInfo"};
	static const dl_type_id types[] = {DL_TYPE_LONG,   DL_TYPE_TIMESTAMP, DL_TYPE_STRING, DL_TYPE_STRING,
	                                   DL_TYPE_STRING, DL_TYPE_STRING,    DL_TYPE_STRING, DL_TYPE_STRING,
	                                   DL_TYPE_STRING, DL_TYPE_LONG,      DL_TYPE_STRING, DL_TYPE_BOOLEAN,
	                                   DL_TYPE_STRING, DL_TYPE_STRING,    DL_TYPE_STRING};
	sql_rows r;
	memset(&r, 0, sizeof r);
	dl_type *ct[15] = {0};
	for (int i = 0; i < 15 && rc == 0; i++)
		if (!(ct[i] = i == 5 || i == 12 ? sql_type_string_map() : dl_type_new(types[i]))) rc = DL_ENOMEM;
	if (rc == 0) rc = sql_rows_init_typed(&r, names, ct, 15);
	for (int i = 0; i < 15; i++)
		if (ct[i]) dl_type_unref(ct[i]);
	size_t n = rc == 0 ? dl_history_count(h) : 0;
	for (size_t i = 0; rc == 0 && i < n; i++) {
		const dl_history_entry *e = dl_history_at(h, i);
		rc = sql_rows_int(&r, 0, e->version);
		if (rc == 0) rc = sql_rows_int(&r, 1, e->timestamp_ms * 1000);
		if (rc == 0) rc = sql_rows_str(&r, 2, e->user_id);
		if (rc == 0) rc = sql_rows_str(&r, 3, e->user_name);
		if (rc == 0) rc = sql_rows_str(&r, 4, e->operation);
		if (rc == 0) rc = sql_rows_json(&r, 5, e->operation_parameters);
		if (rc == 0) rc = sql_rows_str(&r, 6, e->job);
		if (rc == 0) rc = sql_rows_str(&r, 7, e->notebook);
		if (rc == 0) rc = sql_rows_str(&r, 8, e->cluster_id);
		if (rc == 0) rc = e->read_version == INT64_MIN ? sql_rows_null(&r, 9) : sql_rows_int(&r, 9, e->read_version);
		if (rc == 0) rc = sql_rows_str(&r, 10, e->isolation_level);
		if (rc == 0)
			rc = e->is_blind_append < 0 ? sql_rows_null(&r, 11) : sql_rows_bool(&r, 11, e->is_blind_append == 1);
		if (rc == 0) rc = sql_rows_json(&r, 12, e->operation_metrics);
		if (rc == 0) rc = sql_rows_str(&r, 13, e->user_metadata);
		if (rc == 0) rc = sql_rows_str(&r, 14, e->engine_info);
	}
	if (rc == 0) rc = sql_rows_finish(out, &r);
	sql_rows_free(&r);
	dl_history_free(h);
	dl_snapshot_free(snap);
	sql_target_free(&t);
	return rc;
}

int sql_run_describe_detail(dl_batch_stream **out, dl_sql_conn *c, const sql_stmt *st)
{
	sql_target t;
	dl_snapshot *snap = NULL;
	DL_TRY(sql_target_snapshot(&snap, &t, c, st->table, false));
	dl_detail *dd = NULL;
	const dl_table_detail *d = NULL;
	int rc = dl_detail_open(&dd, &d, snap);
	static const char *const names[] = {"format",           "id",          "name",          "description",
	                                    "location",         "createdAt",   "lastModified",  "partitionColumns",
	                                    "clusteringColumns", "numFiles",   "sizeInBytes",   "properties",
	                                    "minReaderVersion", "minWriterVersion", "tableFeatures"};
	static const dl_type_id types[] = {DL_TYPE_STRING, DL_TYPE_STRING,    DL_TYPE_STRING,    DL_TYPE_STRING,
	                                   DL_TYPE_STRING, DL_TYPE_TIMESTAMP, DL_TYPE_TIMESTAMP, DL_TYPE_STRING,
	                                   DL_TYPE_STRING, DL_TYPE_LONG,      DL_TYPE_LONG,      DL_TYPE_STRING,
	                                   DL_TYPE_INTEGER, DL_TYPE_INTEGER,  DL_TYPE_STRING};
	sql_rows r;
	memset(&r, 0, sizeof r);
	dl_type *ct[15] = {0};
	for (int i = 0; i < 15 && rc == 0; i++)
		if (!(ct[i] = i == 11                      ? sql_type_string_map()
		             : i == 7 || i == 8 || i == 14 ? sql_type_string_array()
		                                            : dl_type_new(types[i])))
			rc = DL_ENOMEM;
	if (rc == 0) rc = sql_rows_init_typed(&r, names, ct, 15);
	for (int i = 0; i < 15; i++)
		if (ct[i]) dl_type_unref(ct[i]);
	/* Spark's name is the catalog's qualified name; a path table has none */
	if (rc == 0) rc = sql_rows_str(&r, 0, d->format);
	if (rc == 0) rc = sql_rows_str(&r, 1, d->id);
	if (rc == 0) rc = sql_rows_str(&r, 2, t.from_catalog ? t.display : d->name);
	if (rc == 0) rc = sql_rows_str(&r, 3, d->description);
	if (rc == 0) rc = sql_rows_str(&r, 4, d->location);
	if (rc == 0) rc = d->created_at_ms < 0 ? sql_rows_null(&r, 5) : sql_rows_int(&r, 5, d->created_at_ms * 1000);
	if (rc == 0) rc = sql_rows_int(&r, 6, d->last_modified_ms * 1000);
	if (rc == 0) rc = sql_rows_json(&r, 7, d->partition_columns);
	if (rc == 0) rc = sql_rows_json(&r, 8, d->clustering_columns);
	if (rc == 0) rc = sql_rows_int(&r, 9, d->num_files);
	if (rc == 0) rc = sql_rows_int(&r, 10, d->size_in_bytes);
	if (rc == 0) rc = sql_rows_json(&r, 11, d->properties);
	if (rc == 0) rc = sql_rows_int(&r, 12, d->min_reader_version);
	if (rc == 0) rc = sql_rows_int(&r, 13, d->min_writer_version);
	if (rc == 0) rc = sql_rows_json(&r, 14, d->table_features);
	if (rc == 0) rc = sql_rows_finish(out, &r);
	sql_rows_free(&r);
	dl_detail_free(dd);
	dl_snapshot_free(snap);
	sql_target_free(&t);
	return rc;
}
