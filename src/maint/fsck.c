/* FSCK REPAIR TABLE (Databricks' FSCK; DeltaOperations.Fsck "FSCK" with
 * operationParameters numRemovedFiles): every live file whose data file,
 * or whose on-disk deletion vector file, is missing from storage is
 * removed from the log in one commit. A missing file cannot be read
 * anyway, so the commit only makes the table readable again; the remove
 * is a data change (the file's rows are gone), with the file's DV so it
 * cancels exactly that entry. Paths resolve as the scan resolves them
 * (absolute ones through the store of their scheme). */
#include <string.h>

#include "deltalake/maintenance.h"
#include "log/deletion_vector.h"
#include "log/protocol.h"
#include "log/snapshot.h"
#include "ops/create.h"
#include "storage/resolve.h"
#include "txn/txn.h"
#include "util/buf.h"
#include "util/error.h"
#include "util/mem.h"
#include "util/options.h"
#include "util/time.h"

static const size_t fsck_ends[] = {sizeof(dl_fsck_options)};
DL_OPTIONS_ENDS_CHECK(fsck_ends, DL_FSCK_OPTIONS_VERSION);

/* 1 when the object is there, 0 when missing, < 0 on other failures. */
static int exists(dl_store_resolver *res, const char *path, const char *what)
{
	dl_store *s;
	const char *rel;
	DL_TRY(dl_store_resolve(&s, &rel, res, path, what));
	dl_object_info info;
	memset(&info, 0, sizeof info);
	int rc = dl_store_stat(&info, s, rel);
	dl_object_info_free(&info);
	if (rc == DL_ENOTFOUND) {
		dl_error_clear();
		return 0;
	}
	return rc < 0 ? rc : 1;
}

static int run(dl_fsck_result *out, dl_store *store, dl_snapshot *snap, const dl_fsck_options *o)
{
	const dl_log_state *st = dl_snapshot_state(snap);
	DL_TRY(dl_protocol_check_write(st->protocol));
	dl_store_resolver res;
	DL_TRY(dl_store_resolver_init(&res, store, dl_snapshot_allowed_roots(snap)));
	dl_transaction *t = NULL;
	dl_txn_options to = DL_TXN_OPTIONS_INIT;
	to.operation = "FSCK";
	to.user_metadata = o->user_metadata;
	int rc = o->dry_run ? 0 : dl_txn_begin(&t, store, snap, &to);
	int64_t now = dl_now_millis(), removed = 0;
	dl_buf dvp = DL_BUF_INIT;
	for (size_t i = 0; i < st->nadds && rc == 0; i++) {
		const dl_add *a = dl_log_state_add(st, i);
		if (o->progress && i % 1024 == 0) {
			dl_progress_info p = {"fsck", "checking", "files", (int64_t)i, (int64_t)st->nadds,
			                      -1, -1};
			if (o->progress(&p, o->progress_payload)) {
				rc = dl_error_set(DL_ECANCELLED, "FSCK cancelled by the progress callback");
				break;
			}
		}
		int data = exists(&res, a->path, "data file");
		if (data < 0) {
			rc = data;
			break;
		}
		int dv = 1;
		if (data && a->dv && a->dv->storage_type != 'i') {
			dl_buf_clear(&dvp);
			rc = dl_dv_file_path(a->dv, &dvp);
			if (rc == 0) dv = exists(&res, dvp.data, "deletion vector file");
			if (dv < 0) rc = dv;
			if (rc < 0) break;
		}
		if (data && dv) continue;
		removed++;
		/* size -1: the data file is there, its deletion vector file is not */
		if (o->on_file && o->on_file(a->path, data ? -1 : a->size, o->on_file_payload)) {
			rc = dl_error_set(DL_ECANCELLED, "FSCK cancelled by the file callback");
			break;
		}
		if (t) {
			dl_remove r;
			memset(&r, 0, sizeof r);
			r.path = a->path;
			r.deletion_timestamp = now;
			r.data_change = true;
			r.extended_file_metadata = true;
			r.partition_values = a->partition_values;
			r.size = a->size;
			r.tags = a->tags;
			r.dv = a->dv;
			r.base_row_id = a->base_row_id;
			r.default_row_commit_version = a->default_row_commit_version;
			rc = dl_txn_remove_file(t, &r);
		}
	}
	dl_buf_free(&dvp);
	out->numFilesRemoved = removed;
	char num[32];
	if (rc == 0 && t && removed > 0) {
		snprintf(num, sizeof num, "%lld", (long long)removed);
		rc = dl_txn_set_parameter_json(t, "numRemovedFiles", num);
		if (rc == 0) rc = dl_txn_commit(t, &out->version);
	}
	dl_txn_free(t);
	dl_store_resolver_free(&res);
	return rc;
}

int dl_fsck_repair(dl_fsck_result *out, const char *uri, const dl_fsck_options *opts)
{
	if (!out) return dl_error_set(DL_EINVALID, "dl_fsck_repair: out is NULL");
	out->version = -1;
	out->numFilesRemoved = 0;
	dl_fsck_options o = DL_FSCK_OPTIONS_INIT;
	DL_TRY(dl_options_load(&o, opts, fsck_ends, DL_FSCK_OPTIONS_VERSION, "dl_fsck_options",
	                       "DL_FSCK_OPTIONS_INIT"));
	dl_store *store = o.store;
	if (!store) {
		if (!uri) return dl_error_set(DL_EINVALID, "FSCK: no table given");
		DL_TRY(dl_store_open(&store, uri, o.store_options));
	}
	dl_snapshot *snap = NULL;
	int rc = dl_ops_open_latest(&snap, store);
	if (rc == 0 && !snap)
		rc = dl_error_set_class(DL_ENOTFOUND, "DELTA_TABLE_NOT_FOUND", "FSCK: no Delta table at %s",
		                        dl_store_root(store));
	dl_fsck_result r = {-1, 0};
	if (rc == 0) rc = run(&r, store, snap, &o);
	if (rc == 0) *out = r;
	dl_snapshot_free(snap);
	if (!o.store) dl_store_free(store);
	return rc;
}
