/* DROP FEATURE typeWidening / typeWidening-preview (Spark's
 * TypeWideningPreDowngradeCommand; PROTOCOL.md "Type Widening"): a reader
 * without the feature reads each data file with the type the file has, so
 * every file written before a widening must be rewritten with the current
 * types, and the delta.typeChanges records go from the schema. Steps:
 * delta.enableTypeWidening = false (its own SET TBLPROPERTIES commit, so no
 * new widening starts), then - when the schema records type changes - one
 * REORG commit that rewrites every live file (dataChange false, rows and
 * row ids kept) and carries the schema without delta.typeChanges. Which
 * files predate a widening is not recorded per file, so all are rewritten.
 * Traces in history: metaData actions whose schema has delta.typeChanges. */
#include <stdio.h>
#include <string.h>
#include "alter/drop_feature_internal.h"
#include "alter/schema_edit.h"
#include "json/json.h"
#include "log/properties.h"
#include "log/schema.h"
#include "log/table_features.h"
#include "rewrite/rewrite.h"
#include "util/error.h"
#include "util/mem.h"
#include "util/time.h"

#define TYPE_CHANGES "delta.typeChanges"

/* `t` without delta.typeChanges in any field's metadata (new reference). */
static int strip(dl_type **out, const dl_type *t)
{
	if (t->nchildren == 0 || t->id == DL_TYPE_VARIANT) {
		*out = dl_type_ref((dl_type *)t);
		return 0;
	}
	dl_type *cur = dl_type_ref((dl_type *)t);
	int rc = 0;
	for (int i = 0; i < t->nchildren && rc == 0; i++) {
		const dl_field *f = &t->children[i];
		dl_type *child = NULL;
		rc = strip(&child, f->type);
		char *meta = NULL;
		bool has = t->id == DL_TYPE_STRUCT && f->metadata && strstr(f->metadata, TYPE_CHANGES);
		if (rc == 0 && has) rc = se_meta_set(&meta, f->metadata, TYPE_CHANGES, NULL);
		if (rc == 0 && (child != f->type || has)) {
			dl_type *next = NULL;
			rc = se_with_child(&next, cur, i, child, meta);
			if (rc == 0) {
				dl_type_unref(cur);
				cur = next;
			}
		}
		dl_free(meta);
		dl_type_unref(child);
	}
	if (rc < 0) {
		dl_type_unref(cur);
		return rc;
	}
	*out = cur;
	return 0;
}

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

/* Every live file rewritten with the current types, and the schema without
 * its type-change records, in one commit. */
static int rewrite_files(ap_ctx *c)
{
	dl_type *schema;
	DL_TRY(strip(&schema, dl_snapshot_schema(c->t.snap)));
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
	for (size_t i = 0; i < st->nadds && rc == 0; i++) rc = dl_rewrite_touch_copy(rw, dl_log_state_add(st, i));
	if (rc == 0) rc = dl_rewrite_run(rw);
	bool tracked = dl_protocol_has(ap_proto(c), DL_FEATURE_ROW_TRACKING);
	int64_t hwm = -1, before;
	if (rc == 0 && tracked) rc = row_id_hwm(c->t.snap, &hwm);
	before = hwm;
	if (rc == 0) rc = dl_rewrite_commit(rw, &hwm);
	if (rc == 0 && tracked && hwm != before) {
		char conf[64];
		snprintf(conf, sizeof conf, "{\"rowIdHighWaterMark\":%lld}", (long long)hwm);
		rc = dl_txn_set_domain(c->t.txn, "delta.rowTracking", conf, false);
	}
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
