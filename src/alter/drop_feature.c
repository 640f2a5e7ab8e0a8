/* ALTER TABLE t DROP FEATURE f [TRUNCATE HISTORY] / dropFeatureSupport
 * (Spark's AlterTableDropFeatureDeltaCommand; the seed "Drop Delta table
 * features"; PROTOCOL.md "Table Features" and the checkpoint-protection
 * RFC).
 *
 * The rule followed: after the feature's own clean-up (drop_feature_steps.c)
 * the protocol loses the feature in one commit (operation "DROP FEATURE"
 * {featureName, truncateHistory}), downgraded to the lowest versions that
 * represent exactly the features left. Writer-only features drop at once.
 * A reader-writer feature leaves traces in history that a reader without it
 * could replay, so:
 *   - without TRUNCATE HISTORY (Spark 4's default, "fast drop"): three
 *     barrier checkpoints on empty commits, then the downgrade commit adds
 *     checkpointProtection with delta.requireCheckpointProtectionBeforeVersion
 *     = its version, then a checkpoint of it. Readers start from those
 *     checkpoints; cleanup keeps history before that version whole
 *     (txn/log_cleanup.c);
 *   - with TRUNCATE HISTORY: a run that had to clean something up ends with
 *     an empty commit and a checkpoint, and fails with
 *     DELTA_FEATURE_DROP_WAIT_FOR_RETENTION_PERIOD; a later run truncates
 *     the log older than delta.dropFeatureTruncateHistory.retentionDuration
 *     (24 hours, to the minute) and drops the feature when no version left
 *     uses it, else DELTA_FEATURE_DROP_HISTORICAL_VERSIONS_EXIST.
 * checkpointProtection itself drops only with TRUNCATE HISTORY, once the
 * history before its protected version is gone. */
#include <stdio.h>
#include <string.h>
#include <strings.h>
#include "alter/drop_feature_internal.h"
#include "json/json.h"
#include "log/delta_configs.h"
#include "log/log_segment.h"
#include "log/properties.h"
#include "log/table_features.h"
#include "txn/checkpoint_write.h"
#include "txn/log_cleanup.h"
#include "util/error.h"
#include "util/mem.h"
#include "util/time.h"

#define BARRIER_CHECKPOINTS 3
#define PROTECTION_KEY "delta.requireCheckpointProtectionBeforeVersion"

/* "30 days" / "24 hours": the retention as Spark prints a CalendarInterval. */
static void interval_text(char *out, size_t cap, const dl_str_map *conf, const char *key, const char *dflt)
{
	const char *v = dl_str_map_get(conf, key, NULL);
	if (!v) v = dflt;
	if (strncasecmp(v, "interval ", 9) == 0) v += 9;
	snprintf(out, cap, "%s", v);
}

static int retention_error(ap_ctx *c, const char *klass, const char *feature)
{
	const dl_str_map *m = &ap_md(c)->configuration;
	char log[64], trunc[64];
	interval_text(log, sizeof log, m, "delta.logRetentionDuration", "30 days");
	interval_text(trunc, sizeof trunc, m, "delta.dropFeatureTruncateHistory.retentionDuration", "24 hours");
	if (strcmp(klass, "DELTA_FEATURE_DROP_WAIT_FOR_RETENTION_PERIOD") == 0)
		return dl_error_set_class(
			DL_EINVALID, klass,
			"Dropping %s was partially successful.\n\nThe feature is now no longer used in the current "
			"version of the table. However, the feature is still present in historical versions of the "
			"table. The table feature cannot be dropped from the table protocol until these historical "
			"versions have expired.\n\nTo drop the table feature from the protocol, please wait for the "
			"historical versions to expire, and then repeat this command. Historical versions are "
			"currently configured to expire after delta.logRetentionDuration=%s.\n\nAlternatively, "
			"please wait for the TRUNCATE HISTORY retention period to expire (%s) and then run:\n    "
			"ALTER TABLE table_name DROP FEATURE feature_name TRUNCATE HISTORY",
			feature, log, trunc);
	return dl_error_set_class(
		DL_EINVALID, klass,
		"Cannot drop %s because historical versions of the table still use it.\n\nThe table feature "
		"cannot be dropped from the table protocol until these historical versions have expired. "
		"Historical versions are currently configured to expire after delta.logRetentionDuration=%s."
		"\n\nAlternatively, please wait for the TRUNCATE HISTORY retention period to expire (%s) and "
		"then run:\n    ALTER TABLE table_name DROP FEATURE feature_name TRUNCATE HISTORY",
		feature, log, trunc);
}

/* An empty commit and a checkpoint of it (Spark's createEmptyCommitAndCheckpoint). */
static int empty_commit_and_checkpoint(ap_ctx *c)
{
	DL_TRY(dl_alter_start(&c->t, "Empty Commit"));
	int64_t v;
	DL_TRY(dl_txn_commit(c->t.txn, &v));
	dl_checkpoint_result r;
	dl_ckpt_write_options o = DL_CKPT_WRITE_OPTIONS_INIT;
	DL_TRY(dl_checkpoint_write_version(&r, c->t.store, v, &o));
	return dl_alter_refresh(&c->t);
}

/* A commit file's actions against the step's trace test. */
static int commit_has_trace(bool *found, ap_ctx *c, const char *path, const df_step *s)
{
	uint8_t *data;
	size_t len;
	DL_TRY(dl_store_get(&data, &len, c->t.store, path));
	int rc = 0;
	const char *p = (const char *)data, *end = p + len;
	while (p < end && rc == 0 && !*found) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		size_t n = nl ? (size_t)(nl - p) : (size_t)(end - p);
		if (n > 1) {
			dl_arena a = DL_ARENA_INIT;
			dl_json *v;
			dl_action act;
			rc = dl_json_parse(&a, p, n, path, &v);
			if (rc == 0) rc = dl_action_from_json(&act, &a, v, path);
			if (rc == 0 && s->action_trace(&act)) *found = true;
			dl_arena_free(&a);
		}
		p += n + 1;
	}
	dl_free(data);
	return rc;
}

/* Spark's historyContainsFeature: the state at the earliest checkpoint kept
 * and every commit kept up to the read version. */
static int history_contains(bool *found, ap_ctx *c, const df_step *s)
{
	*found = false;
	int64_t to = dl_snapshot_version(c->t.snap);
	dl_object_list l = {NULL, 0};
	DL_TRY(dl_store_list_from(&l, c->t.store, DL_LOG_DIR, NULL));
	int64_t earliest_ckpt = -1;
	int rc = 0;
	for (size_t i = 0; i < l.count && rc == 0 && !*found; i++) {
		const char *name = strrchr(l.items[i].path, '/');
		name = name ? name + 1 : l.items[i].path;
		int64_t v, e;
		int32_t part, nparts;
		dl_log_file_kind k = dl_log_file_classify(name, &v, &e, &part, &nparts);
		if (v > to) continue;
		bool ckpt = k == DL_LOGF_CHECKPOINT || k == DL_LOGF_CHECKPOINT_PART ||
		            k == DL_LOGF_CHECKPOINT_V2_JSON || k == DL_LOGF_CHECKPOINT_V2_PARQUET;
		if (ckpt && (earliest_ckpt < 0 || v < earliest_ckpt)) earliest_ckpt = v;
		if (s->checkpoint_trace && (k == DL_LOGF_CHECKPOINT_V2_JSON || k == DL_LOGF_CHECKPOINT_V2_PARQUET))
			*found = true;
		if (s->action_trace && k == DL_LOGF_COMMIT) rc = commit_has_trace(found, c, l.items[i].path, s);
	}
	dl_object_list_free(&l);
	DL_TRY(rc);
	if (*found || !s->action_trace || earliest_ckpt < 0) return 0;
	/* the checkpoint's state: live files and the tombstones it keeps */
	dl_snapshot_options so = DL_SNAPSHOT_OPTIONS_INIT;
	so.store = c->t.store;
	so.as_of_version = earliest_ckpt;
	dl_snapshot *snap;
	DL_TRY(dl_snapshot_open(&snap, c->t.uri, &so));
	const dl_log_state *st = dl_snapshot_state(snap);
	dl_action md = {.kind = DL_ACTION_METADATA, .u.metadata = *st->metadata};
	*found = s->action_trace(&md);
	for (size_t i = 0; i < st->nadds && !*found; i++) {
		dl_action a = {.kind = DL_ACTION_ADD, .u.add = *dl_log_state_add(st, i)};
		*found = s->action_trace(&a);
	}
	for (size_t i = 0; i < st->nremoves && !*found; i++) {
		dl_action a = {.kind = DL_ACTION_REMOVE, .u.remove = st->removes[i]};
		*found = s->action_trace(&a);
	}
	dl_snapshot_free(snap);
	return 0;
}

/* The earliest commit still in the log. */
static int earliest_commit(ap_ctx *c, int64_t *out)
{
	dl_log_file *files;
	size_t n;
	DL_TRY(dl_log_list_commits(c->t.store, &files, &n));
	*out = n ? files[0].version : -1;
	dl_log_files_free(files, n);
	return 0;
}

static int downgrade_commit(ap_ctx *c, const dl_table_feature_info *fi, bool truncate, bool protect,
                            int64_t *version)
{
	DL_TRY(dl_alter_start(&c->t, "DROP FEATURE"));
	const df_step *s = df_step_for(fi->id);
	if (!s->clean(c))
		return dl_error_set_class(DL_ECONFLICT, "DELTA_FEATURE_DROP_CONFLICT_REVALIDATION_FAIL",
		                          "Cannot drop feature because a concurrent transaction modified the "
		                          "table. Please try the operation again.");
	dl_protocol out;
	DL_TRY(ap_protocol_without_feature(&out, c, ap_proto(c), fi->id,
	                                   protect ? DL_FEATURE_CHECKPOINT_PROTECTION : -1));
	dl_str_map conf;
	DL_TRY(ap_conf_copy(&conf, c, &ap_md(c)->configuration, 1));
	if (protect) {
		char num[24];
		snprintf(num, sizeof num, "%lld", (long long)dl_snapshot_version(c->t.snap) + 1);
		DL_TRY(ap_conf_put(&conf, c, PROTECTION_KEY, num));
	}
	if (fi->id == DL_FEATURE_CHECKPOINT_PROTECTION) ap_conf_remove(&conf, PROTECTION_KEY);
	DL_TRY(ap_stage(c, &conf, NULL, &out, NULL));
	DL_TRY(dl_txn_set_parameter(c->t.txn, "featureName", fi->name));
	DL_TRY(dl_txn_set_parameter(c->t.txn, "truncateHistory", truncate ? "true" : "false"));
	return dl_txn_commit(c->t.txn, version);
}

/* Whether the protocol supports the feature under exactly this name (Spark
 * compares implicitlyAndExplicitlySupportedFeatures' names as given). */
static bool present(const dl_protocol *p, const char *name)
{
	for (size_t i = 0; i < DL_FEATURE_COUNT; i++) {
		const dl_table_feature_info *fi = dl_table_feature_at(i);
		if (strcmp(fi->name, name) == 0 && dl_protocol_has(p, fi->id)) return true;
	}
	return false;
}

static int check_droppable(ap_ctx *c, const char *name, bool truncate, const dl_table_feature_info **out)
{
	const dl_protocol *p = ap_proto(c);
	bool has = present(p, name);
	const dl_table_feature_info *fi = dl_table_feature_lookup(name);
	if (!has && strncasecmp(name, "delta.", 6) == 0 && dl_delta_config_is_known(name))
		return dl_error_set_class(DL_EINVALID, "DELTA_FEATURE_DROP_FEATURE_IS_DELTA_PROPERTY",
		                          "Cannot drop %s from this table because this is a delta table property "
		                          "and not a table feature.",
		                          name);
	if (fi && !has)
		return dl_error_set_class(DL_EINVALID, "DELTA_FEATURE_DROP_FEATURE_NOT_PRESENT",
		                          "Cannot drop %s from this table because it is not currently present in "
		                          "the table's protocol.",
		                          name);
	if (!fi)
		return dl_error_set_class(DL_EUNSUPPORTED, "DELTA_FEATURE_DROP_UNSUPPORTED_CLIENT_FEATURE",
		                          "Cannot drop %s because it is not supported by this Delta Lake version.",
		                          name);
	if (!fi->removable || !df_step_for(fi->id))
		return dl_error_set_class(DL_EUNSUPPORTED, "DELTA_FEATURE_DROP_NONREMOVABLE_FEATURE",
		                          "Cannot drop %s because dropping this feature is not supported.", name);
	bool cp = fi->id == DL_FEATURE_CHECKPOINT_PROTECTION;
	if (truncate && !fi->reader_writer && !cp)
		return dl_error_set_class(DL_EINVALID, "DELTA_FEATURE_DROP_HISTORY_TRUNCATION_NOT_ALLOWED",
		                          "The particular feature does not require history truncation.");
	if (cp && !truncate)
		return dl_error_set_class(
			DL_EINVALID, "DELTA_FEATURE_CAN_ONLY_DROP_CHECKPOINT_PROTECTION_WITH_HISTORY_TRUNCATION",
			"Cannot drop the Checkpoint Protection feature.\nThis feature can only be dropped by "
			"truncating history.\nPlease try again with the TRUNCATE HISTORY option:\n\n    ALTER TABLE "
			"table_name DROP FEATURE checkpointProtection TRUNCATE HISTORY");
	unsigned long long dep = dl_table_feature_dependents(fi->id);
	dl_buf names = DL_BUF_INIT;
	for (size_t i = 0; i < DL_FEATURE_COUNT; i++)
		if ((dep >> i & 1) && dl_protocol_has(p, (dl_table_feature)i)) {
			if (names.len) dl_buf_puts(&names, ", ");
			dl_buf_puts(&names, dl_table_feature_at(i)->name);
		}
	int rc = 0;
	if (names.len)
		rc = dl_error_set_class(DL_EINVALID, "DELTA_FEATURE_DROP_DEPENDENT_FEATURE",
		                        "Cannot drop table feature %s because some other features (%s) in this "
		                        "table depends on %s. Consider dropping them first before dropping this "
		                        "feature.",
		                        fi->name, names.data, fi->name);
	dl_buf_free(&names);
	*out = fi;
	return rc;
}

static int drop_feature(ap_ctx *c, const char *name, bool truncate, int64_t *version)
{
	const dl_table_feature_info *fi = NULL;
	DL_TRY(check_droppable(c, name, truncate, &fi));
	const df_step *s = df_step_for(fi->id);
	bool changed = false;
	int rc = s->prepare(c, &changed);
	if (rc < 0) return dl_error_prefix("DROP FEATURE %s", fi->name);
	bool history = fi->reader_writer;
	if (history && !truncate) {
		for (int i = 0; i < BARRIER_CHECKPOINTS; i++) DL_TRY(empty_commit_and_checkpoint(c));
		DL_TRY(downgrade_commit(c, fi, false, true, version));
		/* the protected checkpoint, of the downgrade commit */
		dl_checkpoint_result r;
		dl_ckpt_write_options o = DL_CKPT_WRITE_OPTIONS_INIT;
		if (dl_checkpoint_write_version(&r, c->t.store, *version, &o) < 0) dl_error_clear();
		return 0;
	}
	if (history) {
		DL_TRY(empty_commit_and_checkpoint(c));
		if (changed) return retention_error(c, "DELTA_FEATURE_DROP_WAIT_FOR_RETENTION_PERIOD", fi->name);
	}
	const dl_table_properties *props = dl_snapshot_props(c->t.snap);
	if (history || fi->id == DL_FEATURE_CHECKPOINT_PROTECTION) {
		dl_log_cleanup_result cr;
		if (truncate)
			DL_TRY(dl_log_cleanup_truncate_history(&cr, c->t.store, props, props->truncate_history_retention_ms,
			                                       INT64_MIN));
		else
			DL_TRY(dl_log_cleanup_store(&cr, c->t.store, props, INT64_MIN, NULL, NULL));
	}
	if (history) {
		bool found;
		DL_TRY(history_contains(&found, c, s));
		if (found) return retention_error(c, "DELTA_FEATURE_DROP_HISTORICAL_VERSIONS_EXIST", fi->name);
	}
	if (fi->id == DL_FEATURE_CHECKPOINT_PROTECTION) {
		int64_t first;
		DL_TRY(earliest_commit(c, &first));
		if (first < props->checkpoint_protection_version) {
			const dl_str_map *m = &ap_md(c)->configuration;
			char trunc[64];
			interval_text(trunc, sizeof trunc, m, "delta.dropFeatureTruncateHistory.retentionDuration",
			              "24 hours");
			return dl_error_set_class(
				DL_EINVALID, "DELTA_FEATURE_DROP_CHECKPOINT_PROTECTION_WAIT_FOR_RETENTION_PERIOD",
				"Could not drop checkpointProtection: history before version %lld is still there. "
				"Please wait for the TRUNCATE HISTORY retention period to expire (%s) and then run "
				"ALTER TABLE table_name DROP FEATURE checkpointProtection TRUNCATE HISTORY again.",
				(long long)props->checkpoint_protection_version, trunc);
		}
	}
	return downgrade_commit(c, fi, truncate, false, version);
}

int dl_drop_feature(int64_t *version, const char *uri, const char *feature, bool truncate_history,
                    const dl_alter_options *opts)
{
	*version = -1;
	if (!feature || !feature[0]) return dl_error_set(DL_EINVALID, "dl_drop_feature: no feature name");
	ap_ctx c;
	int rc = ap_open(&c, uri, opts);
	if (rc == 0) rc = drop_feature(&c, feature, truncate_history, version);
	dl_alter_end(&c.t);
	return rc;
}
