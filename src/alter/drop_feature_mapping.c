/* DROP FEATURE columnMapping (Spark's ColumnMappingPreDowngradeCommand and
 * RemoveColumnMappingCommand): a reader without the feature finds columns
 * by their names in the Parquet files, so every live file is rewritten with
 * physical names equal to the logical names, and the metaData loses the
 * mode (delta.columnMapping.mode, maxColumnId) and the fields' ids and
 * physical names - one commit, operation "REMOVE COLUMN MAPPING" (no
 * parameters or metrics, as Spark's; dataChange false, rows, row ids and
 * commit versions kept; partition values keyed by the logical names from
 * then on). SET TBLPROPERTIES ('delta.columnMapping.mode' = 'none') runs
 * the same rewrite and keeps the mode as none, the feature in the protocol. Refused first, as Spark,
 * when a column name is not valid without column mapping
 * (DELTA_INVALID_COLUMN_NAMES_WHEN_REMOVING_COLUMN_MAPPING). Traces in
 * history: metaData actions with a mode other than none. */
#include <stdio.h>
#include <string.h>
#include <strings.h>
#include "alter/drop_feature_internal.h"
#include "log/protocol.h"
#include "alter/schema_edit.h"
#include "json/json.h"
#include "log/properties.h"
#include "log/schema.h"
#include "log/table_features.h"
#include "rewrite/rewrite.h"
#include "util/buf.h"
#include "util/error.h"
#include "util/mem.h"
#include "util/time.h"

#define MODE_KEY "delta.columnMapping.mode"
#define MAX_ID_KEY "delta.columnMapping.maxColumnId"

static bool mapped(const dl_metadata *m)
{
	const char *v = dl_str_map_get(&m->configuration, MODE_KEY, NULL);
	return v && strcasecmp(v, "none") != 0;
}

/* Spark's invalid characters for a name without column mapping. */
static bool bad_name(const char *n)
{
	return strpbrk(n, " ,;{}()\n\t=") != NULL;
}

static void collect_bad(dl_buf *out, const dl_type *t, const char *prefix)
{
	if (t->id == DL_TYPE_VARIANT) return;
	for (int i = 0; i < t->nchildren; i++) {
		const dl_field *f = &t->children[i];
		char path[512];
		if (t->id == DL_TYPE_STRUCT)
			snprintf(path, sizeof path, "%s%s%s", prefix, *prefix ? "." : "", f->name);
		else
			snprintf(path, sizeof path, "%s", prefix);
		if (t->id == DL_TYPE_STRUCT && bad_name(f->name)) {
			if (out->len) dl_buf_puts(out, ", ");
			dl_buf_puts(out, path);
		}
		collect_bad(out, f->type, path);
	}
}

/* Every live file rewritten under the logical names, with the metaData
 * without column mapping, in one commit; the mode key removed (DROP
 * FEATURE) or set to none (SET TBLPROPERTIES). */
int ap_remove_column_mapping(ap_ctx *c, bool keep_mode_none)
{
	const dl_type *old = dl_snapshot_schema(c->t.snap);
	dl_buf bad = DL_BUF_INIT;
	collect_bad(&bad, old, "");
	if (bad.len) {
		int rc = dl_error_set_class(DL_EINVALID, "DELTA_INVALID_COLUMN_NAMES_WHEN_REMOVING_COLUMN_MAPPING",
		                            "Found invalid character(s) among ' ,;{}()\\n\\t=' in the column "
		                            "names: %s. Rename these columns before removing column mapping.",
		                            bad.data);
		dl_buf_free(&bad);
		return rc;
	}
	dl_buf_free(&bad);
	static const char *const keys[] = {DL_CM_ID_KEY, DL_CM_PHYSICAL_NAME_KEY,
	                                   "delta.columnMapping.nested.ids", "parquet.field.id"};
	dl_type *schema;
	DL_TRY(se_strip_meta(&schema, old, keys, 4));
	dl_str_map conf;
	int rc = dl_alter_start(&c->t, "REMOVE COLUMN MAPPING");
	if (rc == 0) rc = ap_conf_copy(&conf, c, &ap_md(c)->configuration, 1);
	if (rc == 0) {
		ap_conf_remove(&conf, MODE_KEY);
		ap_conf_remove(&conf, MAX_ID_KEY);
		if (keep_mode_none) rc = ap_conf_put(&conf, c, MODE_KEY, "none");
	}
	dl_rewrite *rw = NULL;
	if (rc == 0) {
		dl_rewrite_options ro = DL_REWRITE_OPTIONS_INIT;
		ro.txn = c->t.txn;
		ro.schema = schema;
		ro.configuration = &conf;
		ro.output = DL_REWRITE_COPY;
		ro.data_change = false;
		ro.now_ms = dl_now_millis();
		rc = dl_rewrite_new(&rw, &ro);
	}
	const dl_log_state *st = dl_snapshot_state(c->t.snap);
	for (size_t i = 0; i < st->nadds && rc == 0; i++) {
		rc = dl_rewrite_touch_copy(rw, dl_log_state_add(st, i));
		if (rc == 0) rc = dl_alter_progress(&c->t, "rewriting files", "files", (int64_t)i + 1, (int64_t)st->nadds, -1);
	}
	if (rc == 0) rc = df_rewrite_stage(c, rw);
	if (rc == 0) rc = ap_stage(c, &conf, schema, ap_proto(c), NULL);
	int64_t v;
	if (rc == 0) rc = dl_txn_commit(c->t.txn, &v);
	if (rc < 0 && rw && !dl_txn_commit_unknown(c->t.txn)) dl_rewrite_discard(rw);
	dl_rewrite_free(rw);
	dl_type_unref(schema);
	DL_TRY(rc);
	return dl_alter_refresh(&c->t);
}

int df_column_mapping_prepare(ap_ctx *c, bool *changed)
{
	if (!mapped(ap_md(c)) && !se_any_field_has(dl_snapshot_schema(c->t.snap), DL_CM_PHYSICAL_NAME_KEY))
		return 0;
	DL_TRY(ap_remove_column_mapping(c, false));
	*changed = true;
	return 0;
}

bool df_column_mapping_clean(ap_ctx *c)
{
	return !mapped(ap_md(c)) && !se_any_field_has(dl_snapshot_schema(c->t.snap), DL_CM_PHYSICAL_NAME_KEY);
}

bool df_column_mapping_trace(const dl_action *a)
{
	return a->kind == DL_ACTION_METADATA && mapped(&a->u.metadata);
}
