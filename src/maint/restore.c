/* RESTORE TABLE (Spark's RestoreTableCommand): one commit that takes the
 * table's latest state to the state of an older version.
 *
 * The rule, as Spark states it: the files of the version restored that the
 * latest version lacks are added back (dataChange=true, everything else as
 * the old add had it, baseRowId and defaultRowCommitVersion included), the
 * latest files the old version lacks are removed; files are the same when
 * their path AND deletion-vector unique id are (a file whose DV changed is
 * removed with its new DV and re-added with its old one). The old
 * version's metaData is committed as it was (identity columns' high-water
 * marks kept from the latest: copySchemaWithMergedHighWaterMarks); the protocol is the merge of
 * both (Protocol.merge: never a downgrade, which would break time travel);
 * the delta.clustering domain follows the old version
 * (DomainMetadataUtils.handleDomainMetadataForRestoreTable), other domains
 * stay. Restored files must exist unless ignore_missing_files.
 *
 * RESTORE writes no cdc files: with the change data feed on, readers
 * derive inserts from the re-added files and deletes from the removed ones
 * (CDCReader does the same for commits without cdc actions). */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include "deltalake/maintenance.h"
#include "json/json.h"
#include "log/snapshot.h"
#include "log/stats.h"
#include "log/table_features.h"
#include "maint/restore_clone.h"
#include "ops/create.h"
#include "storage/resolve.h"
#include "txn/txn.h"
#include "util/error.h"
#include "util/hash.h"
#include "util/mem.h"
#include "util/options.h"
#include "util/time.h"

static const size_t restore_options_ends[] = {sizeof(dl_restore_options)};
DL_OPTIONS_ENDS_CHECK(restore_options_ends, DL_RESTORE_OPTIONS_VERSION);

#define OP "RESTORE"
#define PROGRESS "restore"

typedef struct restore_cmd {
	dl_restore_options o;
	dl_store *store;
	bool owns_store;
	dl_snapshot *latest, *old;
	dl_transaction *txn;
	dl_arena arena;
	dl_strmap latest_keys, old_keys; /* file key -> its dl_add */
	int64_t now_ms;
} restore_cmd;

static int index_files(dl_strmap *m, const dl_snapshot *s)
{
	const dl_log_state *st = dl_snapshot_state(s);
	dl_strmap_init(m, true);
	DL_TRY(dl_strmap_reserve(m, st->nadds));
	dl_buf k = DL_BUF_INIT;
	int rc = 0;
	for (size_t i = 0; i < st->nadds && rc == 0; i++) {
		dl_add *a = dl_log_state_add(st, i);
		rc = dl_maint_file_key(&k, a);
		if (rc == 0) rc = dl_strmap_put(m, (const char *)k.data, k.len, a, NULL);
	}
	dl_buf_free(&k);
	return rc;
}

static bool in_other(const dl_strmap *m, const dl_add *a, dl_buf *k, int *rc)
{
	*rc = dl_maint_file_key(k, a);
	return *rc == 0 && dl_strmap_find(m, (const char *)k->data, k->len, NULL);
}

/* Spark's checkSnapshotFilesAvailability: every file to re-add must still
 * be in storage (the first 100 missing are named). */
static int check_files_exist(restore_cmd *c, int64_t version)
{
	dl_store_resolver res;
	DL_TRY(dl_store_resolver_init(&res, c->store, NULL));
	const dl_log_state *st = dl_snapshot_state(c->old);
	dl_buf k = DL_BUF_INIT, missing = DL_BUF_INIT;
	int nmissing = 0, rc = 0;
	for (size_t i = 0; i < st->nadds && rc == 0; i++) {
		const dl_add *a = dl_log_state_add(st, i);
		if (in_other(&c->latest_keys, a, &k, &rc) || rc < 0) continue;
		dl_store *fs;
		const char *rel;
		rc = dl_store_resolve(&fs, &rel, &res, a->path, "data file");
		if (rc < 0) break;
		dl_object_info info;
		int r = dl_store_stat(&info, fs, rel);
		if (r == 0) {
			dl_object_info_free(&info);
		} else if (r == DL_ENOTFOUND) {
			dl_error_clear();
			if (nmissing++ < 100) rc = dl_buf_printf(&missing, "%s%s", nmissing > 1 ? "," : "", a->path);
		} else {
			rc = r;
		}
		if (rc == 0 && (i & 255) == 0)
			rc = dl_maint_progress(c->o.progress, c->o.progress_payload, PROGRESS, "checking files",
			                       "files", (int64_t)i, (int64_t)st->nadds);
	}
	if (rc == 0 && nmissing)
		rc = dl_error_set(DL_ENOTFOUND,
		                  "Not all files from version %" PRId64 " are available in file system.\n"
		                  " Missed files (top 100 files): %s.\n"
		                  " Please use more recent version or timestamp for restoring.\n"
		                  " To disable check update option spark.sql.files.ignoreMissingFiles "
		                  "(dl_restore_options.ignore_missing_files)",
		                  version, missing.data ? (const char *)missing.data : "");
	dl_buf_free(&k);
	dl_buf_free(&missing);
	dl_store_resolver_free(&res);
	return rc;
}

/* The clustering domain as Spark restores it: the old version's columns
 * when it was a clustered table, else empty columns when the latest has
 * the domain (nothing when neither). */
static int restore_clustering(restore_cmd *c)
{
	const char *old_conf = dl_snapshot_domain(c->old, "delta.clustering");
	const char *cur_conf = dl_snapshot_domain(c->latest, "delta.clustering");
	const dl_protocol *op = dl_snapshot_state(c->old)->protocol;
	bool old_clustered = old_conf && dl_protocol_has(op, DL_FEATURE_CLUSTERING) &&
	                     !strstr(old_conf, "\"clusteringColumns\":[]");
	if (old_clustered) {
		if (cur_conf && strcmp(cur_conf, old_conf) == 0) return 0;
		return dl_txn_set_domain(c->txn, "delta.clustering", old_conf, false);
	}
	if (!cur_conf) return 0;
	return dl_txn_set_domain(c->txn, "delta.clustering", "{\"clusteringColumns\":[]}", false);
}

static int build(restore_cmd *c, dl_restore_metrics *m, int64_t version, const char *ts_text)
{
	const dl_log_state *lst = dl_snapshot_state(c->latest), *ost = dl_snapshot_state(c->old);
	DL_TRY(index_files(&c->latest_keys, c->latest));
	DL_TRY(index_files(&c->old_keys, c->old));
	if (!c->o.ignore_missing_files) DL_TRY(check_files_exist(c, version));

	dl_protocol proto;
	DL_TRY(dl_maint_protocol_merge(&proto, &c->arena, ost->protocol, lst->protocol));
	DL_TRY(dl_txn_set_protocol(c->txn, &proto));
	dl_metadata md = *ost->metadata;
	const char *merged = NULL;
	DL_TRY(dl_maint_merge_identity_hwm(&merged, &c->arena, dl_snapshot_schema(c->old),
	                                   dl_snapshot_schema(c->latest),
	                                   dl_snapshot_props(c->old)->column_mapping_mode));
	if (merged) md.schema_string = merged;
	DL_TRY(dl_txn_set_metadata(c->txn, &md));
	DL_TRY(restore_clustering(c));

	/* Row tracking: restored adds keep their ids; one the old version wrote
	 * without (row tracking came later) gets fresh ids past the mark, as
	 * Spark's commitLarge assigns them. */
	bool track = dl_protocol_has(&proto, DL_FEATURE_ROW_TRACKING);
	int64_t hwm = track ? dl_maint_row_id_hwm(c->latest) : -1, hwm0 = hwm;
	int64_t next_version = dl_snapshot_version(c->latest) + 1;

	dl_buf k = DL_BUF_INIT;
	int rc = 0;
	for (size_t i = 0; i < ost->nadds && rc == 0; i++) {
		const dl_add *a = dl_log_state_add(ost, i);
		if (in_other(&c->latest_keys, a, &k, &rc) || rc < 0) continue;
		dl_add add = *a;
		add.data_change = true;
		if (track) rc = dl_maint_fresh_row_ids(&add, &hwm, next_version, &c->arena);
		if (rc < 0) break;
		rc = dl_txn_add_file(c->txn, &add);
		m->numRestoredFiles++;
		m->restoredFilesSize += a->size;
	}
	for (size_t i = 0; i < lst->nadds && rc == 0; i++) {
		const dl_add *a = dl_log_state_add(lst, i);
		if (in_other(&c->old_keys, a, &k, &rc) || rc < 0) continue;
		rc = dl_ops_remove_file(c->txn, a, c->now_ms, true);
		m->numRemovedFiles++;
		m->removedFilesSize += a->size;
	}
	dl_buf_free(&k);
	if (rc < 0) return rc;
	if (track && hwm != hwm0) {
		char conf[64];
		snprintf(conf, sizeof conf, "{\"rowIdHighWaterMark\":%" PRId64 "}", hwm);
		DL_TRY(dl_txn_set_domain(c->txn, "delta.rowTracking", conf, false));
	}
	m->numOfFilesAfterRestore = (int64_t)ost->nadds;
	m->tableSizeAfterRestore = ost->total_size;

	/* DeltaOperations.Restore(version, timestamp): the one not given is null */
	char vbuf[32];
	snprintf(vbuf, sizeof vbuf, "%" PRId64, version);
	if (ts_text) {
		DL_TRY(dl_txn_set_parameter_json(c->txn, "version", "null"));
		DL_TRY(dl_txn_set_parameter(c->txn, "timestamp", ts_text));
	} else {
		DL_TRY(dl_txn_set_parameter_json(c->txn, "version", vbuf));
		DL_TRY(dl_txn_set_parameter_json(c->txn, "timestamp", "null"));
	}
	DL_TRY(dl_txn_set_metric(c->txn, "numRestoredFiles", m->numRestoredFiles));
	DL_TRY(dl_txn_set_metric(c->txn, "removedFilesSize", m->removedFilesSize));
	DL_TRY(dl_txn_set_metric(c->txn, "numRemovedFiles", m->numRemovedFiles));
	DL_TRY(dl_txn_set_metric(c->txn, "restoredFilesSize", m->restoredFilesSize));
	DL_TRY(dl_txn_set_metric(c->txn, "numOfFilesAfterRestore", m->numOfFilesAfterRestore));
	DL_TRY(dl_txn_set_metric(c->txn, "tableSizeAfterRestore", m->tableSizeAfterRestore));
	return 0;
}

static int run(restore_cmd *c, dl_restore_metrics *m, const char *uri)
{
	DL_TRY(dl_maint_store(&c->store, &c->owns_store, c->o.store, c->o.store_options, uri, OP));
	DL_TRY(dl_ops_open_latest(&c->latest, c->store));
	if (!c->latest)
		return dl_error_set_class(DL_ENOTFOUND, "DELTA_MISSING_DELTA_TABLE",
		                          "[DELTA_MISSING_DELTA_TABLE] %s is not a Delta table.",
		                          dl_store_root(c->store));
	int64_t latest_version = dl_snapshot_version(c->latest);
	int64_t version = c->o.to_version;
	const char *ts_text = NULL;
	if (version < 0) {
		if (!c->o.to_timestamp)
			return dl_error_set(DL_EINVALID, "RESTORE: give to_version (>= 0) or to_timestamp");
		DL_TRY(dl_maint_version_at(&version, &ts_text, &c->arena, c->latest, c->o.to_timestamp, OP));
	} else if (c->o.to_timestamp) {
		return dl_error_set(DL_EINVALID,
		                    "Either the version or timestamp should be provided for restore");
	}
	/* Spark: require(versionToRestore < latestVersion) */
	if (version >= latest_version)
		return dl_error_set(DL_EINVALID,
		                    "requirement failed: Version to restore (%" PRId64 ")should be less then "
		                    "last available version (%" PRId64 ")",
		                    version, latest_version);
	DL_TRY(dl_maint_progress(c->o.progress, c->o.progress_payload, PROGRESS, "reading", "versions", 0, 2));
	dl_snapshot_options so = DL_SNAPSHOT_OPTIONS_INIT;
	so.store = c->store;
	so.as_of_version = version;
	int rc = dl_snapshot_open(&c->old, dl_store_root(c->store), &so);
	if (rc == DL_ENOTFOUND)
		return dl_error_set_class(DL_ENOTFOUND, "DELTA_VERSION_NOT_FOUND",
		                          "[DELTA_VERSION_NOT_FOUND] Cannot time travel Delta table to version "
		                          "%" PRId64 ". Available versions: [earliest reconstructable, %" PRId64
		                          "]: %s",
		                          version, latest_version, dl_error_last()->message);
	if (rc < 0) return rc;

	dl_txn_options to = DL_TXN_OPTIONS_INIT;
	to.operation = OP;
	to.user_metadata = c->o.user_metadata;
	DL_TRY(dl_txn_begin(&c->txn, c->store, c->latest, &to));
	/* the whole table is rewritten: any concurrent data change conflicts
	 * (Spark's commitLarge fails on a concurrent commit) */
	dl_txn_read_whole_table(c->txn);
	DL_TRY(build(c, m, version, ts_text));
	DL_TRY(dl_maint_progress(c->o.progress, c->o.progress_payload, PROGRESS, "committing", "files",
	                         m->numRestoredFiles + m->numRemovedFiles,
	                         m->numRestoredFiles + m->numRemovedFiles));
	return dl_txn_commit(c->txn, &m->version);
}

int dl_restore(dl_restore_metrics *metrics, const char *uri, const dl_restore_options *opts)
{
	if (!metrics) return dl_error_set(DL_EINVALID, "dl_restore: metrics missing");
	memset(metrics, 0, sizeof *metrics);
	metrics->version = -1;
	restore_cmd c;
	memset(&c, 0, sizeof c);
	dl_restore_options d = DL_RESTORE_OPTIONS_INIT;
	c.o = d;
	DL_TRY(dl_options_load(&c.o, opts, restore_options_ends, DL_RESTORE_OPTIONS_VERSION,
	                       "dl_restore_options", "DL_RESTORE_OPTIONS_INIT"));
	c.now_ms = dl_now_millis();
	c.arena = (dl_arena)DL_ARENA_INIT;
	int rc = run(&c, metrics, uri);
	if (rc < 0) {
		int64_t v = metrics->version;
		memset(metrics, 0, sizeof *metrics);
		metrics->version = v;
	}
	dl_txn_free(c.txn);
	dl_strmap_free(&c.latest_keys);
	dl_strmap_free(&c.old_keys);
	dl_snapshot_free(c.old);
	dl_snapshot_free(c.latest);
	dl_arena_free(&c.arena);
	if (c.owns_store) dl_store_free(c.store);
	return rc;
}
