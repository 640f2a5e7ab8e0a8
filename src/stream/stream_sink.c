/* The exactly-once sink (Spark's DeltaSink.addBatch): each batch is one
 * transaction that also records txn(appId, batchId). The app's last
 * recorded version is read in the same transaction, so a batch already
 * committed (a replay after a crash) is skipped; a concurrent writer that
 * records the same app id makes the commit fail with
 * ConcurrentTransactionException instead of writing twice. */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include "deltalake/txn.h"
#include "deltalake/write.h"
#include "stream/stream_internal.h"
#include "util/error.h"
#include "util/mem.h"
#include "util/options.h"

struct dl_stream_sink {
	char *uri;
	char *app_id;
	dl_stream_output_mode mode;
	char **partition_by;
	int npartition_by;
	dl_store *store;
	bool owns_store;
};

void dl_stream_sink_free(dl_stream_sink *k)
{
	if (!k) return;
	dl_free(k->uri);
	dl_free(k->app_id);
	for (int i = 0; i < k->npartition_by; i++) dl_free(k->partition_by[i]);
	dl_free(k->partition_by);
	if (k->owns_store) dl_store_free(k->store);
	dl_free(k);
}

static int sink_open(dl_stream_sink *k, const char *uri, const dl_stream_sink_options *o)
{
	if (o->mode != DL_STREAM_APPEND && o->mode != DL_STREAM_COMPLETE)
		return dl_error_set(DL_EINVALID, "dl_stream_sink_options: unknown output mode %d", (int)o->mode);
	k->mode = o->mode;
	if (o->store) {
		k->store = o->store;
	} else {
		if (!uri) return dl_error_set(DL_EINVALID, "dl_stream_sink_open: no table location and no store");
		DL_TRY(dl_store_open(&k->store, uri, o->store_options));
		k->owns_store = true;
	}
	k->uri = dl_strdup(uri ? uri : dl_store_root(k->store));
	if (!k->uri) return DL_ENOMEM;
	if (o->app_id) {
		if (!*o->app_id) return dl_error_set(DL_EINVALID, "the sink's app id is empty");
		k->app_id = dl_strdup(o->app_id);
	} else if (o->checkpoint_location) {
		dl_stream_checkpoint *cp;
		DL_TRY(dl_stream_checkpoint_open(&cp, o->checkpoint_location, o->store_options));
		k->app_id = dl_strdup(dl_stream_checkpoint_id(cp));
		dl_stream_checkpoint_free(cp);
	} else {
		return dl_error_set(DL_EINVALID, "a streaming sink needs an app id or a checkpoint location (whose "
		                    "query id is the app id), so that replayed batches are recognized");
	}
	if (!k->app_id) return DL_ENOMEM;
	if (o->npartition_by > 0) {
		k->partition_by = dl_calloc((size_t)o->npartition_by, sizeof *k->partition_by);
		if (!k->partition_by) return DL_ENOMEM;
		for (int i = 0; i < o->npartition_by; i++) {
			k->partition_by[i] = dl_strdup(o->partition_by[i]);
			k->npartition_by++;
			if (!k->partition_by[i]) return DL_ENOMEM;
		}
	}
	return 0;
}

int dl_stream_sink_open(dl_stream_sink **out, const char *uri, const dl_stream_sink_options *opts)
{
	static const size_t ends[] = {sizeof(dl_stream_sink_options)};
	DL_OPTIONS_ENDS_CHECK(ends, DL_STREAM_SINK_OPTIONS_VERSION);
	*out = NULL;
	dl_stream_sink_options o = DL_STREAM_SINK_OPTIONS_INIT;
	DL_TRY(dl_options_load(&o, opts, ends, DL_STREAM_SINK_OPTIONS_VERSION, "dl_stream_sink_options",
	                       "DL_STREAM_SINK_OPTIONS_INIT"));
	dl_stream_sink *k = dl_calloc(1, sizeof *k);
	if (!k) return DL_ENOMEM;
	int rc = sink_open(k, uri, &o);
	if (rc < 0) {
		dl_stream_sink_free(k);
		return rc;
	}
	*out = k;
	return 0;
}

const char *dl_stream_sink_app_id(const dl_stream_sink *k)
{
	return k->app_id;
}

static void release(struct ArrowArrayStream *data)
{
	if (data->release) data->release(data);
}

static const char *mode_name(const dl_stream_sink *k)
{
	return k->mode == DL_STREAM_COMPLETE ? "Complete" : "Append";
}

/* The first batch of a table that does not exist yet: an idempotent
 * dl_write creates it (two racing creators: the loser's commit conflicts
 * and the replay finds the txn), recorded as Spark's sink records every
 * batch: STREAMING UPDATE with outputMode, queryId, epochId. */
static int create_with_batch(int64_t *version, dl_stream_sink *k, int64_t batch_id, struct ArrowArrayStream *data)
{
	dl_write_options w = DL_WRITE_OPTIONS_INIT;
	w.mode = DL_WRITE_APPEND;
	w.streaming_output_mode = mode_name(k);
	w.store = k->store;
	w.txn_app_id = k->app_id;
	w.txn_version = batch_id;
	w.partition_by = (const char *const *)k->partition_by;
	w.npartition_by = k->npartition_by;
	return dl_write(version, NULL, data, &w);
}

/* Complete mode: every live file of the version the transaction read goes. */
static int remove_all(dl_transaction *t, dl_stream_sink *k, int64_t *nremoved)
{
	dl_snapshot_options so = DL_SNAPSHOT_OPTIONS_INIT;
	so.as_of_version = dl_transaction_read_version(t);
	so.skip_tombstones = true;
	so.store = k->store;
	dl_snapshot *snap;
	DL_TRY(dl_snapshot_open(&snap, NULL, &so));
	int rc = 0;
	size_t n = dl_snapshot_file_count(snap);
	for (size_t i = 0; rc == 0 && i < n; i++) {
		dl_file_info f;
		rc = dl_snapshot_file_at(&f, snap, i);
		if (rc == 0) rc = dl_transaction_remove_file(t, f.path, true);
	}
	dl_snapshot_free(snap);
	*nremoved = (int64_t)n;
	if (rc == 0) dl_transaction_read_whole_table(t);
	return rc;
}

int dl_stream_sink_write(int64_t *version, dl_stream_sink *k, int64_t batch_id, struct ArrowArrayStream *data)
{
	*version = -1;
	if (batch_id < 0) {
		release(data);
		return dl_error_set(DL_EINVALID, "a batch id must be >= 0 (got %" PRId64 ")", batch_id);
	}
	dl_transaction_options to = DL_TRANSACTION_OPTIONS_INIT;
	to.operation = "STREAMING UPDATE";
	to.store = k->store;
	dl_transaction *t;
	int rc = dl_transaction_begin(&t, NULL, &to);
	if (rc == DL_ENOTFOUND) return create_with_batch(version, k, batch_id, data);
	if (rc < 0) {
		release(data);
		return rc;
	}
	int64_t done;
	rc = dl_transaction_app_version(&done, t, k->app_id);
	if (rc == 0 && done >= batch_id) {
		/* committed before (a replay): nothing to do */
		dl_transaction_free(t);
		release(data);
		return 0;
	}
	rc = rc == DL_ENOTFOUND ? 0 : rc;
	char epoch[24];
	snprintf(epoch, sizeof epoch, "%" PRId64, batch_id);
	if (rc == 0) rc = dl_transaction_set_parameter(t, "outputMode", mode_name(k));
	if (rc == 0) rc = dl_transaction_set_parameter(t, "queryId", k->app_id);
	if (rc == 0) rc = dl_transaction_set_parameter(t, "epochId", epoch);
	int64_t nremoved = 0;
	if (rc == 0 && k->mode == DL_STREAM_COMPLETE) rc = remove_all(t, k, &nremoved);
	if (rc == 0) {
		dl_transaction_write_options wo = DL_TRANSACTION_WRITE_OPTIONS_INIT;
		rc = dl_transaction_write(t, data, &wo); /* consumes data */
	} else {
		release(data);
	}
	/* Spark's PendingTxn sets numRemovedFiles for every batch (0 in append mode) */
	if (rc == 0) rc = dl_transaction_set_metric(t, "numRemovedFiles", nremoved);
	if (rc == 0) rc = dl_transaction_set_app_version(t, k->app_id, batch_id);
	if (rc == 0) rc = dl_transaction_commit(version, t);
	dl_transaction_free(t);
	if (rc < 0) return dl_error_prefix("%s: streaming batch %" PRId64, k->uri, batch_id);
	return 0;
}
