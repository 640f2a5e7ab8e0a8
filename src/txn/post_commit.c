/* Post-commit hooks (Spark's PostCommitHook): the version checksum, a
 * checkpoint every delta.checkpointInterval versions, then expired log
 * cleanup. The commit is already durable, so a failing hook only records
 * its error for dl_txn_post_commit_error. */
#include "txn/txn_internal.h"

#include "txn/crc_write.h"
#include "util/error.h"
#include "util/mem.h"

static void record(dl_transaction *t, int rc, const char *hook)
{
	if (rc >= 0 || t->post_rc) return;
	t->post_rc = rc;
	dl_buf b = DL_BUF_INIT;
	if (dl_buf_printf(&b, "%s after committing version %lld: %s", hook, (long long)t->version,
	                  dl_error_last()->message) == 0)
		t->post_msg = dl_buf_detach(&b, NULL);
	dl_buf_free(&b);
	dl_error_clear();
}

void dl_txn_post_commit(dl_transaction *t)
{
	if (!t->opts.no_crc) record(t, dl_txn_write_crc(t), "writing the checksum file");
}
