/* Post-commit hooks (Spark's PostCommitHook): the version checksum, a
 * checkpoint every delta.checkpointInterval versions, then expired log
 * cleanup (delta.enableExpiredLogCleanup) after a checkpoint, as Spark
 * does. The commit is already durable, so a failing hook only records its
 * error for dl_txn_post_commit_error. */
#include "txn/txn_internal.h"

#include "txn/checkpoint_write.h"
#include "txn/crc_write.h"
#include "txn/log_cleanup.h"
#include "util/error.h"
#include "util/mem.h"

static void record(dl_transaction *t, int rc, const char *hook)
{
	if (rc >= 0) return;
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

void dl_txn_post_commit(dl_transaction *t)
{
	if (!t->opts.no_crc) record(t, dl_txn_write_crc(t), "writing the checksum file");
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
