/* DROP FEATURE typeWidening / typeWidening-preview (Spark's
 * TypeWideningPreDowngradeCommand; PROTOCOL.md "Type Widening"): a reader
 * without the feature reads each data file with the type the file has, so
 * every file written before a widening must be rewritten with the current
 * types, and the delta.typeChanges records go from the schema. Steps:
 * delta.enableTypeWidening = false (its own SET TBLPROPERTIES commit, so no
 * new widening starts), then - when the schema records type changes - one
 * REORG commit that rewrites the live files whose Parquet footer has a
 * column of another type than the table's (Spark's REORG ...
 * REWRITE_TYPE_WIDENING: dataChange false, rows and row ids kept; a file
 * written after the widening is left alone) and carries the schema without
 * delta.typeChanges. Traces in history: metaData actions whose schema has
 * delta.typeChanges. */
#include <stdio.h>
#include <string.h>
#include "alter/drop_feature_internal.h"
#include "alter/schema_edit.h"
#include "json/json.h"
#include "log/path.h"
#include "log/properties.h"
#include "log/schema.h"
#include "log/table_features.h"
#include "parquet/reader.h"
#include "rewrite/rewrite.h"
#include "util/error.h"
#include "util/mem.h"
#include "util/time.h"

#define TYPE_CHANGES "delta.typeChanges"

static bool widening_enabled(ap_ctx *c)
{
	const char *v = dl_str_map_get(&ap_md(c)->configuration, "delta.enableTypeWidening", NULL);
	bool b = false;
	return v && dl_parse_bool_property(v, &b) == 0 && b;
}

static int row_id_hwm(dl_snapshot *s, int64_t *hwm)
{
	*hwm = -1;
	const char *conf = dl_snapshot_domain(s, "delta.rowTracking");
	if (!conf) return 0;
	dl_arena a = DL_ARENA_INIT;
	dl_json *v;
	int rc = dl_json_parse(&a, conf, strlen(conf), "delta.rowTracking domain", &v);
	const dl_json *m = rc == 0 ? dl_json_get(v, "rowIdHighWaterMark") : NULL;
	if (rc == 0 && m && dl_json_int64(m, hwm) < 0)
		rc = dl_error_set(DL_ECORRUPT, "rowIdHighWaterMark is not an integer: %s", conf);
	dl_arena_free(&a);
	return rc;
}

int df_rewrite_stage(ap_ctx *c, dl_rewrite *rw)
{
	DL_TRY(dl_rewrite_run(rw));
	bool tracked = dl_protocol_has(ap_proto(c), DL_FEATURE_ROW_TRACKING);
	int64_t hwm = -1;
	if (tracked) DL_TRY(row_id_hwm(c->t.snap, &hwm));
	int64_t before = hwm;
	DL_TRY(dl_rewrite_commit(rw, &hwm));
	if (!tracked || hwm == before) return 0;
	char conf[64];
	snprintf(conf, sizeof conf, "{\"rowIdHighWaterMark\":%lld}", (long long)hwm);
	return dl_txn_set_domain(c->t.txn, "delta.rowTracking", conf, false);
}

/* The types a widening moves between (PROTOCOL.md "Type Widening"): only
 * these leaves are compared, so a file's own spelling of other types (a
 * STRING stored as plain BINARY, INT96 timestamps) never counts. */
static bool widening_type(dl_type_id id)
{
	switch (id) {
	case DL_TYPE_BYTE: case DL_TYPE_SHORT: case DL_TYPE_INTEGER: case DL_TYPE_LONG:
	case DL_TYPE_FLOAT: case DL_TYPE_DOUBLE: case DL_TYPE_DECIMAL: case DL_TYPE_DATE:
	case DL_TYPE_TIMESTAMP_NTZ:
		return true;
	default: return false;
	}
}

/* Whether the file's type `file` of a column differs from the table's
 * physical type `table` in a leaf a widening can have changed. Fields the
 * file lacks (added later, read as NULL) do not count. */
static bool file_type_differs(const dl_type *table, const dl_type *file)
{
	switch (table->id) {
	case DL_TYPE_STRUCT:
		if (file->id != DL_TYPE_STRUCT) return true;
		for (int i = 0; i < table->nchildren; i++) {
			int j = dl_type_field_index(file, table->children[i].name);
			if (j >= 0 && file_type_differs(table->children[i].type, file->children[j].type)) return true;
		}
		return false;
	case DL_TYPE_ARRAY:
	case DL_TYPE_MAP:
		if (file->id != table->id || file->nchildren != table->nchildren) return true;
		for (int i = 0; i < table->nchildren; i++)
			if (file_type_differs(table->children[i].type, file->children[i].type)) return true;
		return false;
	default:
		if (!widening_type(table->id)) return false;
		if (file->id != table->id) return true;
		return table->id == DL_TYPE_DECIMAL &&
		       (file->precision != table->precision || file->scale != table->scale);
	}
}

/* Whether the data file of `add` must be rewritten: its footer's schema
 * against the table's physical schema. A file outside the table's
 * directory (an absolute path: a shallow clone's) is not opened here and
 * counts as needing it. */
static int needs_rewrite(bool *out, ap_ctx *c, const dl_type *physical, const dl_add *add)
{
	*out = true;
	if (dl_log_path_is_absolute(add->path)) return 0;
	pq_reader *r = NULL;
	DL_TRY(pq_reader_open_store(&r, c->t.store, add->path, add->size > 0 ? add->size : -1));
	*out = file_type_differs(physical, pq_reader_schema(r));
	pq_reader_free(r);
	return 0;
}

/* The live files with a column of another type rewritten with the current
 * types, and the schema without its type-change records, in one commit. */
static int rewrite_files(ap_ctx *c)
{
	dl_type *schema;
	const char *keys[] = {TYPE_CHANGES};
	DL_TRY(se_strip_meta(&schema, dl_snapshot_schema(c->t.snap), keys, 1));
	int rc = dl_alter_start(&c->t, "REORG");
	dl_rewrite *rw = NULL;
	if (rc == 0) {
		dl_rewrite_options ro = DL_REWRITE_OPTIONS_INIT;
		ro.txn = c->t.txn;
		ro.output = DL_REWRITE_COPY;
		ro.data_change = false;
		ro.now_ms = dl_now_millis();
		rc = dl_rewrite_new(&rw, &ro);
	}
	const dl_log_state *st = dl_snapshot_state(c->t.snap);
	dl_table_properties props;
	dl_table_properties_defaults(&props);
	if (rc == 0) rc = dl_table_properties_parse(&props, &ap_md(c)->configuration, false);
	dl_type *physical = NULL;
	if (rc == 0) rc = dl_schema_to_physical(&physical, dl_snapshot_schema(c->t.snap), props.column_mapping_mode);
	for (size_t i = 0; i < st->nadds && rc == 0; i++) {
		const dl_add *add = dl_log_state_add(st, i);
		bool rewrite;
		rc = needs_rewrite(&rewrite, c, physical, add);
		if (rc == 0 && rewrite) rc = dl_rewrite_touch_copy(rw, add);
		if (rc == 0) rc = dl_alter_progress(&c->t, "checking files", "files", (int64_t)i + 1, (int64_t)st->nadds, -1);
	}
	dl_type_unref(physical);
	if (rc == 0) rc = df_rewrite_stage(c, rw);
	dl_str_map conf;
	if (rc == 0) rc = ap_conf_copy(&conf, c, &ap_md(c)->configuration, 0);
	if (rc == 0) rc = ap_stage(c, &conf, schema, ap_proto(c), NULL);
	if (rc == 0) {
		const dl_rewrite_metrics *m = dl_rewrite_get_metrics(rw);
		rc = dl_txn_set_parameter(c->t.txn, "predicate", "[]");
		if (rc == 0) rc = dl_txn_set_metric(c->t.txn, "numRemovedFiles", m->removed_files);
		if (rc == 0) rc = dl_txn_set_metric(c->t.txn, "numAddedFiles", m->added_files);
		if (rc == 0) rc = dl_txn_set_metric(c->t.txn, "numRemovedBytes", m->removed_bytes);
		if (rc == 0) rc = dl_txn_set_metric(c->t.txn, "numAddedBytes", m->added_bytes);
	}
	int64_t v;
	if (rc == 0) rc = dl_txn_commit(c->t.txn, &v);
	if (rc < 0 && rw && !dl_txn_commit_unknown(c->t.txn)) dl_rewrite_discard(rw);
	dl_rewrite_free(rw);
	dl_type_unref(schema);
	DL_TRY(rc);
	return dl_alter_refresh(&c->t);
}

int df_type_widening_prepare(ap_ctx *c, bool *changed)
{
	if (widening_enabled(c)) {
		int64_t v;
		dl_alter_options o = c->t.opts;
		o.store = c->t.store;
		const char *keys[] = {"delta.enableTypeWidening"}, *values[] = {"false"};
		DL_TRY(dl_alter_set_properties(&v, c->t.uri, keys, values, 1, &o));
		DL_TRY(dl_alter_refresh(&c->t));
		*changed = true;
	}
	if (se_any_field_has(dl_snapshot_schema(c->t.snap), TYPE_CHANGES)) {
		DL_TRY(rewrite_files(c));
		*changed = true;
	}
	return 0;
}

bool df_type_widening_clean(ap_ctx *c)
{
	return !widening_enabled(c) && !se_any_field_has(dl_snapshot_schema(c->t.snap), TYPE_CHANGES);
}

bool df_type_widening_trace(const dl_action *a)
{
	return a->kind == DL_ACTION_METADATA && a->u.metadata.schema_string &&
	       strstr(a->u.metadata.schema_string, TYPE_CHANGES);
}
