/* DELETE FROM t [WHERE p] (include/deltalake/dml.h), following Spark's
 * DeleteCommand.performDelete: no condition or a condition over partition
 * columns only removes whole files without reading them (row counts from
 * their stats); any other condition reads the candidate files and deletes
 * the matching rows through deletion vectors or copy-on-write (the rewrite
 * engine). The metrics and their transform are DeltaOperations.Delete's. */
#include <string.h>
#include "deltalake/dml.h"
#include "dml/dml_common.h"
#include "util/error.h"
#include "util/options.h"

static const size_t delete_options_ends[] = {
	DL_OPTIONS_END(dl_delete_options, target_file_size), /* 1 */
	sizeof(dl_delete_options),                           /* 2: txn_app_id, txn_version */
};
DL_OPTIONS_ENDS_CHECK(delete_options_ends, DL_DELETE_OPTIONS_VERSION);

/* Spark's metric values, then DeltaOperations.Delete.transformMetrics:
 * numDeletedRows 0 with files removed means the row counts are unknown
 * (files removed whole without numRecords): numDeletedRows, numCopiedRows
 * and numAddedFiles are dropped; the DV counts sum the updated ones in. */
static void fill_metrics(dl_delete_metrics *m, const dl_dml_cmd *c, int64_t scan_ms,
                         int64_t rewrite_ms)
{
	const dl_rewrite_metrics *r = dl_rewrite_get_metrics(c->rw);
	m->numRemovedFiles = r->removed_files;
	m->numAddedFiles = r->added_files;
	m->numAddedBytes = r->added_bytes;
	m->numRemovedBytes = r->removed_bytes;
	m->numDeletedRows = r->deleted_rows_known ? r->deleted_rows : 0;
	m->numCopiedRows = r->copied_rows;
	m->numAddedChangeFiles = r->change_files;
	m->numDeletionVectorsAdded = r->dvs_added + r->dvs_updated;
	m->numDeletionVectorsRemoved = r->dvs_removed + r->dvs_updated;
	m->numDeletionVectorsUpdated = r->dvs_updated;
	m->scanTimeMs = scan_ms;
	m->rewriteTimeMs = r->read_rows ? rewrite_ms : 0;
	m->executionTimeMs = dl_dml_elapsed_ms(c);
	bool unknown = m->numDeletedRows == 0 && m->numRemovedFiles != 0;
	m->num_affected_rows = unknown ? -1 : m->numDeletedRows;
	if (unknown) m->numDeletedRows = m->numCopiedRows = m->numAddedFiles = -1;
}

static int set_metrics(dl_dml_cmd *c, const dl_delete_metrics *m)
{
	struct {
		const char *k;
		int64_t v;
	} kv[] = {
		{"numAddedFiles", m->numAddedFiles},
		{"numRemovedFiles", m->numRemovedFiles},
		{"numDeletionVectorsAdded", m->numDeletionVectorsAdded},
		{"numDeletionVectorsRemoved", m->numDeletionVectorsRemoved},
		{"numDeletionVectorsUpdated", m->numDeletionVectorsUpdated},
		{"numAddedChangeFiles", m->numAddedChangeFiles},
		{"numDeletedRows", m->numDeletedRows},
		{"numCopiedRows", m->numCopiedRows},
		{"executionTimeMs", m->executionTimeMs},
		{"scanTimeMs", m->scanTimeMs},
		{"rewriteTimeMs", m->rewriteTimeMs},
		{"numRemovedBytes", m->numRemovedBytes},
		{"numAddedBytes", m->numAddedBytes},
	};
	for (size_t i = 0; i < sizeof kv / sizeof kv[0]; i++)
		if (kv[i].v >= 0) DL_TRY(dl_txn_set_metric(c->txn, kv[i].k, kv[i].v));
	return 0;
}

static int run(dl_delete_metrics *m, dl_dml_cmd *c, const char *uri, const char *predicate,
               const dl_delete_options *o)
{
	DL_TRY(dl_dml_begin(c, uri, o->store, o->store_options, o->user_metadata));
	bool applied;
	DL_TRY(dl_dml_already_applied(c, o->txn_app_id, o->txn_version, &applied));
	if (applied) return 0;
	if (predicate) DL_TRY(dl_dml_check_predicate(c, predicate, "the DELETE condition", NULL));
	dl_rewrite_options ro = DL_REWRITE_OPTIONS_INIT;
	ro.output = o->copy_on_write ? DL_REWRITE_COPY : DL_REWRITE_AUTO;
	ro.threads = o->threads;
	ro.max_records_per_file = o->max_records_per_file;
	ro.target_file_size = o->target_file_size;
	DL_TRY(dl_dml_open_rewrite(c, &ro));
	/* no condition: every file, removed whole (Spark's case 1) */
	DL_TRY(dl_rewrite_touch_where(c->rw, predicate ? predicate : "true"));
	int64_t scan_ms = dl_dml_elapsed_ms(c);
	DL_TRY(dl_dml_progress(c, "scanning", "files", 1, 1, -1));
	DL_TRY(dl_rewrite_run(c->rw));
	int64_t rewrite_ms = dl_dml_elapsed_ms(c) - scan_ms;
	DL_TRY(dl_dml_commit_rewrite(c));
	fill_metrics(m, c, scan_ms, rewrite_ms);
	const dl_rewrite_metrics *r = dl_rewrite_get_metrics(c->rw);
	/* Spark's commitIfNeeded: a DELETE that changes nothing commits nothing
	 * (but the app id of an idempotent one, a SetTransaction action) */
	if (r->removed_files == 0 && r->dvs_added == 0 && r->dvs_updated == 0) {
		m->num_affected_rows = 0;
		if (!o->txn_app_id) return 0;
	}
	DL_TRY(dl_dml_set_predicate_parameter(c, predicate));
	DL_TRY(set_metrics(c, m));
	DL_TRY(dl_dml_progress(c, "committing", "files", r->added_files, r->added_files, -1));
	return dl_dml_commit(c, &m->version);
}

int dl_delete(dl_delete_metrics *metrics, const char *uri, const char *predicate,
              const dl_delete_options *opts)
{
	if (!metrics) return dl_error_set(DL_EINVALID, "dl_delete: metrics missing");
	memset(metrics, 0, sizeof *metrics);
	metrics->version = -1;
	dl_delete_options o = DL_DELETE_OPTIONS_INIT;
	DL_TRY(dl_options_load(&o, opts, delete_options_ends, DL_DELETE_OPTIONS_VERSION,
	                       "dl_delete_options", "DL_DELETE_OPTIONS_INIT"));
	dl_dml_cmd c;
	memset(&c, 0, sizeof c);
	c.operation = "DELETE";
	c.progress_name = "delete";
	c.progress = o.progress;
	c.progress_payload = o.progress_payload;
	int rc = run(metrics, &c, uri, predicate, &o);
	if (rc < 0) {
		memset(metrics, 0, sizeof *metrics);
		metrics->version = -1;
	}
	dl_dml_end(&c, rc);
	return rc;
}
