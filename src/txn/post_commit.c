/* Post-commit hooks (Spark's PostCommitHook): the version checksum, a
 * checkpoint every delta.checkpointInterval versions, then expired log
 * cleanup (delta.enableExpiredLogCleanup) after a checkpoint, as Spark
 * does. The commit is already durable, so a failing hook only records its
 * error for dl_txn_post_commit_error. */
#include "txn/txn_internal.h"

#include <string.h>

#include "txn/checkpoint_write.h"
#include "txn/crc_write.h"
#include "txn/log_cleanup.h"
#include "txn/symlink_manifest.h"
#include "uniform/uniform.h"
#include "log/schema.h"
#include "log/snapshot.h"
#include "util/error.h"
#include "util/mem.h"

static void record(dl_transaction *t, int rc, const char *hook)
{
	if (rc >= 0) return;
	/* the caller's warning (dl_warning_last; the CLI prints it): the
	 * command succeeded, but a full disk should not go unnoticed */
	dl_warning_add("%s after committing version %lld failed (the commit stands): %s", hook,
	               (long long)t->version, dl_error_last()->message);
	if (!t->post_rc) {
		t->post_rc = rc;
		dl_buf b = DL_BUF_INIT;
		if (dl_buf_printf(&b, "%s after committing version %lld: %s", hook,
		                  (long long)t->version, dl_error_last()->message) == 0)
			t->post_msg = dl_buf_detach(&b, NULL);
		dl_buf_free(&b);
	}
	dl_error_clear();
}

/* Spark's GenerateSymlinkManifest post-commit hook when
 * delta.compatibility.symlinkFormatManifest.enabled is true in the
 * committed state (the read one, or the commit's new metaData): every
 * manifest of the new version is rewritten (full mode). Only then is the
 * new version opened. */
static int symlink_manifest(dl_transaction *t)
{
	bool maybe = t->metadata_json ? strstr(t->metadata_json, DL_SYMLINK_MANIFEST_PROPERTY) != NULL
	                              : t->snap && dl_symlink_manifest_enabled(t->snap);
	if (!maybe) return 0;
	dl_snapshot_options so = DL_SNAPSHOT_OPTIONS_INIT;
	so.store = t->store;
	so.as_of_version = t->version;
	so.skip_tombstones = true;
	dl_snapshot *snap;
	DL_TRY(dl_snapshot_open(&snap, dl_store_root(t->store), &so));
	int rc = dl_symlink_manifest_enabled(snap) ? dl_symlink_manifest_write(NULL, t->store, snap) : 0;
	dl_snapshot_free(snap);
	return rc;
}

/* UniForm (Spark's IcebergConverter hook): when the committed state has
 * delta.universalFormat.enabledFormats with iceberg, the Iceberg metadata
 * is brought up to this version (catching up from the last converted one,
 * so a failure here is repaired by the next commit). */
static int uniform_iceberg(dl_transaction *t)
{
	bool maybe = t->metadata_json ? strstr(t->metadata_json, DL_UNIFORM_FORMATS_KEY) != NULL
	                              : t->snap && dl_uniform_format_enabled(&dl_snapshot_state(t->snap)->metadata->configuration, "iceberg");
	if (!maybe) return 0;
	dl_uniform_result r;
	return dl_uniform_convert(&r, t->store, t->version, false, false);
}

int dl_txn_check_uniform(const dl_metadata *md)
{
	bool any = false;
	for (uint32_t i = 0; i < md->configuration.n && !any; i++) {
		const char *k = md->configuration.items[i].key;
		any = strcmp(k, DL_UNIFORM_FORMATS_KEY) == 0 || strncmp(k, "delta.enableIcebergCompat", 25) == 0;
	}
	if (!any) return 0;
	dl_type *schema;
	DL_TRY(dl_schema_parse(&schema, md->schema_string, strlen(md->schema_string)));
	int rc = dl_uniform_validate(&md->configuration, schema);
	dl_type_unref(schema);
	return rc;
}

void dl_txn_post_commit(dl_transaction *t)
{
	if (!t->opts.no_crc) record(t, dl_txn_write_crc(t), "writing the checksum file");
	record(t, symlink_manifest(t), "writing the symlink format manifest");
	record(t, uniform_iceberg(t), "writing the Iceberg metadata (UniForm)");
	const dl_table_properties *p = dl_txn_props(t);
	int64_t interval = p->checkpoint_interval > 0 ? p->checkpoint_interval : 10;
	if (t->version == 0 || t->version % interval != 0) return;
	dl_checkpoint_result r;
	int rc = dl_checkpoint_write_version(&r, t->store, t->version, NULL);
	record(t, rc, "writing the checkpoint");
	if (rc < 0 || !p->enable_expired_log_cleanup) return;
	dl_log_cleanup_result c;
	record(t, dl_log_cleanup_store(&c, t->store, p, INT64_MIN, NULL, NULL), "cleaning up the log");
}
