/* What DROP FEATURE does for each removable feature (Spark's
 * PreDowngradeTableFeatureCommand implementations, validateDropInvariants,
 * actionUsesFeature and getDowngradedProtocolMetadata in
 * TableFeature.scala / PreDowngradeTableFeatureCommand.scala):
 *
 *   deletionVectors   disable delta.enableDeletionVectors (its own SET
 *                     TBLPROPERTIES commit), then purge: every file with a
 *                     DV rewritten without it (dl_reorg_purge's REORG ...
 *                     APPLY (PURGE) commit). Traces: add/remove actions with a DV.
 *   v2Checkpoint      delta.checkpointPolicy back to classic, then a classic
 *                     checkpoint when the newest one is V2. Traces: V2
 *                     checkpoints among the log files kept.
 *   inCommitTimestamp enableInCommitTimestamps false and the enablement
 *                     version/timestamp removed (writer-only: no traces).
 *   checkConstraints  refused while constraints remain
 *                     (DELTA_CANNOT_DROP_CHECK_CONSTRAINT_FEATURE).
 *   vacuumProtocolCheck nothing to clean (no traces).
 *   checkpointProtection (TRUNCATE HISTORY only) history before
 *                     delta.requireCheckpointProtectionBeforeVersion must be
 *                     gone; the property is removed with the feature.
 *   typeWidening      see drop_feature_types.c.
 *   columnMapping     see drop_feature_mapping.c. */
#include <stdio.h>
#include <string.h>
#include <strings.h>
#include "alter/drop_feature_internal.h"
#include "log/log_segment.h"
#include "log/properties.h"
#include "log/table_features.h"
#include "deltalake/maintenance.h"
#include "txn/checkpoint_write.h"
#include "util/error.h"
#include "util/mem.h"

static bool conf_true(const dl_str_map *m, const char *key)
{
	const char *v = dl_str_map_get(m, key, NULL);
	bool b = false;
	return v && dl_parse_bool_property(v, &b) == 0 && b;
}

/* One SET TBLPROPERTIES commit (as Spark's pre-downgrade commands run
 * AlterTableSetPropertiesDeltaCommand), then the snapshot is refreshed. */
static int set_property(ap_ctx *c, const char *key, const char *value)
{
	int64_t v;
	dl_alter_options o = c->t.opts;
	o.store = c->t.store;
	const char *keys[] = {key}, *values[] = {value};
	DL_TRY(dl_alter_set_properties(&v, c->t.uri, keys, values, 1, &o));
	return dl_alter_refresh(&c->t);
}

static int unset_properties(ap_ctx *c, const char *const *keys, size_t n)
{
	int64_t v;
	dl_alter_options o = c->t.opts;
	o.store = c->t.store;
	DL_TRY(dl_alter_unset_properties(&v, c->t.uri, keys, n, true, &o));
	return dl_alter_refresh(&c->t);
}

/* ---- deletionVectors ---- */

static size_t files_with_dv(const dl_snapshot *s)
{
	const dl_log_state *st = dl_snapshot_state(s);
	size_t n = 0;
	for (size_t i = 0; i < st->nadds; i++)
		if (dl_log_state_add(st, i)->dv) n++;
	return n;
}

/* REORG TABLE ... APPLY (PURGE) (the OPTIMIZE layer's, as Spark's
 * DeletionVectorsPreDowngradeCommand runs DeltaReorgTableCommand): every
 * file with a DV rewritten without the deleted rows, in one commit. */
static int purge_dvs(ap_ctx *c)
{
	dl_reorg_options ro = DL_REORG_OPTIONS_INIT;
	ro.store = c->t.store;
	ro.user_metadata = c->t.opts.user_metadata;
	ro.progress = c->t.opts.progress;
	ro.progress_payload = c->t.opts.progress_payload;
	dl_optimize_metrics m;
	DL_TRY(dl_reorg_purge(&m, c->t.uri, &ro));
	return dl_alter_refresh(&c->t);
}

static int dv_prepare(ap_ctx *c, bool *changed)
{
	if (conf_true(&ap_md(c)->configuration, "delta.enableDeletionVectors")) {
		DL_TRY(set_property(c, "delta.enableDeletionVectors", "false"));
		*changed = true;
	}
	if (files_with_dv(c->t.snap)) {
		DL_TRY(purge_dvs(c));
		*changed = true;
	}
	return 0;
}

static bool dv_clean(ap_ctx *c)
{
	return !conf_true(&ap_md(c)->configuration, "delta.enableDeletionVectors") && files_with_dv(c->t.snap) == 0;
}

/* ---- v2Checkpoint ---- */

static int newest_checkpoint_is_v2(ap_ctx *c, bool *v2)
{
	dl_log_segment seg;
	DL_TRY(dl_log_segment_build(&seg, c->t.store, dl_snapshot_version(c->t.snap)));
	*v2 = seg.checkpoint_version >= 0 && (seg.checkpoint_kind == DL_LOGF_CHECKPOINT_V2_JSON ||
	                                      seg.checkpoint_kind == DL_LOGF_CHECKPOINT_V2_PARQUET);
	dl_log_segment_free(&seg);
	return 0;
}

static int classic_checkpoint(ap_ctx *c)
{
	dl_checkpoint_result r;
	dl_ckpt_write_options o = DL_CKPT_WRITE_OPTIONS_INIT;
	o.kind = DL_CHECKPOINT_KIND_CLASSIC;
	DL_TRY(dl_checkpoint_write_version(&r, c->t.store, -1, &o));
	return dl_alter_refresh(&c->t);
}

static int v2_prepare(ap_ctx *c, bool *changed)
{
	const char *p = dl_str_map_get(&ap_md(c)->configuration, "delta.checkpointPolicy", NULL);
	if (p && strcasecmp(p, "classic") != 0) {
		DL_TRY(set_property(c, "delta.checkpointPolicy", "classic"));
		*changed = true;
	}
	bool v2;
	DL_TRY(newest_checkpoint_is_v2(c, &v2));
	if (v2) {
		DL_TRY(classic_checkpoint(c));
		*changed = true;
	}
	return 0;
}

static bool v2_clean(ap_ctx *c)
{
	const char *p = dl_str_map_get(&ap_md(c)->configuration, "delta.checkpointPolicy", NULL);
	bool v2 = false;
	if (newest_checkpoint_is_v2(c, &v2) < 0) {
		dl_error_clear();
		return false;
	}
	return (!p || strcasecmp(p, "classic") == 0) && !v2;
}

/* ---- inCommitTimestamp ---- */

static const char *const ict_keys[] = {"delta.inCommitTimestampEnablementVersion",
                                       "delta.inCommitTimestampEnablementTimestamp"};

static int ict_prepare(ap_ctx *c, bool *changed)
{
	const dl_str_map *m = &ap_md(c)->configuration;
	if (conf_true(m, "delta.enableInCommitTimestamps")) {
		DL_TRY(set_property(c, "delta.enableInCommitTimestamps", "false"));
		*changed = true;
	}
	m = &ap_md(c)->configuration;
	if (dl_str_map_get(m, ict_keys[0], NULL) || dl_str_map_get(m, ict_keys[1], NULL)) {
		DL_TRY(unset_properties(c, ict_keys, 2));
		*changed = true;
	}
	return 0;
}

static bool ict_clean(ap_ctx *c)
{
	const dl_str_map *m = &ap_md(c)->configuration;
	return !conf_true(m, "delta.enableInCommitTimestamps") && !dl_str_map_get(m, ict_keys[0], NULL) &&
	       !dl_str_map_get(m, ict_keys[1], NULL);
}

/* ---- checkConstraints ---- */

static int names_of(const char *name, const char *expression, void *payload)
{
	(void)expression;
	dl_buf *b = payload;
	if (b->len) DL_TRY(dl_buf_puts(b, ", "));
	return dl_buf_puts(b, name);
}

static int constraints_prepare(ap_ctx *c, bool *changed)
{
	(void)changed;
	dl_buf b = DL_BUF_INIT;
	int rc = dl_table_constraints_each(&ap_md(c)->configuration, names_of, &b);
	if (rc == 0 && b.len)
		rc = dl_error_set_class(DL_EINVALID, "DELTA_CANNOT_DROP_CHECK_CONSTRAINT_FEATURE",
		                        "Cannot drop the CHECK constraints table feature.\nThe following "
		                        "constraints must be dropped first: %s.",
		                        b.data);
	dl_buf_free(&b);
	return rc;
}

static int nothing(ap_ctx *c, bool *changed)
{
	(void)c;
	(void)changed;
	return 0;
}

static bool always(ap_ctx *c)
{
	(void)c;
	return true;
}

static bool no_constraints(ap_ctx *c)
{
	return constraints_prepare(c, &(bool){false}) == 0 || (dl_error_clear(), false);
}

static int not_implemented(ap_ctx *c, bool *changed)
{
	(void)changed;
	(void)c;
	return dl_error_set(DL_EUNSUPPORTED,
	                    "dropping this feature rewrites the table's data files (with other column "
	                    "types or names), which this library does not do yet; nothing was changed");
}

/* ---- traces in history ---- */

static bool dv_action_trace(const dl_action *a)
{
	return (a->kind == DL_ACTION_ADD && a->u.add.dv) || (a->kind == DL_ACTION_REMOVE && a->u.remove.dv);
}

static const df_step steps[] = {
	{DL_FEATURE_DELETION_VECTORS, dv_prepare, dv_clean, dv_action_trace, false},
	{DL_FEATURE_V2_CHECKPOINT, v2_prepare, v2_clean, NULL, true},
	{DL_FEATURE_IN_COMMIT_TIMESTAMP, ict_prepare, ict_clean, NULL, false},
	{DL_FEATURE_CHECK_CONSTRAINTS, constraints_prepare, no_constraints, NULL, false},
	{DL_FEATURE_VACUUM_PROTOCOL_CHECK, nothing, always, NULL, false},
	{DL_FEATURE_CHECKPOINT_PROTECTION, nothing, always, NULL, false},
	{DL_FEATURE_TYPE_WIDENING, df_type_widening_prepare, df_type_widening_clean, df_type_widening_trace, false},
	{DL_FEATURE_TYPE_WIDENING_PREVIEW, df_type_widening_prepare, df_type_widening_clean,
	 df_type_widening_trace, false},
	{DL_FEATURE_COLUMN_MAPPING, df_column_mapping_prepare, df_column_mapping_clean, df_column_mapping_trace, false},
	{DL_FEATURE_COORDINATED_COMMITS_PREVIEW, not_implemented, always, NULL, false},
	{DL_FEATURE_MATERIALIZE_PARTITION_COLUMNS, nothing, always, NULL, false},
};

const df_step *df_step_for(int feature)
{
	for (size_t i = 0; i < sizeof steps / sizeof steps[0]; i++)
		if ((int)steps[i].feature == feature) return &steps[i];
	return NULL;
}
