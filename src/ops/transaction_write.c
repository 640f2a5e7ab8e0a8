/* dl_transaction_write (include/deltalake/write.h): Arrow data appended
 * into a public transaction with the machinery of dl_write
 * (dl_ops_write_into in write.c). What spans the writes of one transaction
 * rides on a hook of the handle (txn/transaction_api.h): the files written
 * (deleted when the transaction is freed uncommitted), the row id
 * high-water mark (the delta.rowTracking domain is set once, at commit, so
 * a second write continues the ids of the first) and the metrics. */
#include <stdio.h>
#include <string.h>
#include "columnar/batch_stream.h"
#include "deltalake/write.h"
#include "log/actions.h"
#include "ops/write.h"
#include "txn/transaction_api.h"
#include "txn/txn.h"
#include "util/error.h"
#include "util/mem.h"
#include "util/options.h"

typedef struct txn_writes {
	dl_files_writer **files;
	size_t nfiles;
	int64_t row_hwm;      /* DL_NONE until a write on a row tracking table */
	int64_t nout, rows, bytes;
	bool failed;          /* a write failed after its actions joined the transaction */
	bool prepared;        /* before_commit ran */
} txn_writes;

static int writes_before_commit(void *payload, dl_transaction *t)
{
	txn_writes *w = payload;
	if (w->failed)
		return dl_error_set(DL_EINVALID, "a dl_transaction_write of this transaction failed, so it "
		                                  "cannot commit; free it and start a new one");
	if (w->prepared) return 0;
	if (w->row_hwm != DL_NONE && w->nout > 0) {
		char conf[64];
		snprintf(conf, sizeof conf, "{\"rowIdHighWaterMark\":%lld}", (long long)w->row_hwm);
		DL_TRY(dl_txn_set_domain(t, "delta.rowTracking", conf, false));
	}
	/* Spark keeps the metrics of the operation's set: a streaming batch
	 * (DeltaOperationMetrics.STREAMING_UPDATE) counts numAddedFiles, a
	 * write numFiles. */
	bool streaming = strcmp(dl_txn_operation(t), "STREAMING UPDATE") == 0;
	DL_TRY(dl_txn_set_metric(t, streaming ? "numAddedFiles" : "numFiles", w->nout));
	DL_TRY(dl_txn_set_metric(t, "numOutputRows", w->rows));
	DL_TRY(dl_txn_set_metric(t, "numOutputBytes", w->bytes));
	w->prepared = true;
	return 0;
}

static void writes_release(void *payload, bool committed)
{
	txn_writes *w = payload;
	for (size_t i = 0; i < w->nfiles; i++) {
		if (!committed) dl_files_writer_discard(w->files[i]);
		dl_files_writer_free(w->files[i]);
	}
	dl_free(w->files);
	dl_free(w);
}

/* The state of the transaction's writes, attached on the first one. */
static int writes_of(txn_writes **out, dl_transaction *t)
{
	*out = dl_transaction_attached(t);
	if (*out) return 0;
	txn_writes *w = dl_calloc(1, sizeof *w);
	if (!w) return DL_ENOMEM;
	w->row_hwm = DL_NONE;
	dl_transaction_hook h = {writes_before_commit, writes_release, w};
	int rc = dl_transaction_attach(t, &h);
	if (rc < 0) {
		dl_free(w);
		return rc;
	}
	*out = w;
	return 0;
}

static int keep_files(txn_writes *w, dl_files_writer *fw)
{
	dl_files_writer **n = dl_realloc(w->files, (w->nfiles + 1) * sizeof *n);
	if (!n) return DL_ENOMEM;
	w->files = n;
	w->files[w->nfiles++] = fw;
	w->nout += (int64_t)dl_files_writer_count(fw);
	w->rows += dl_files_writer_rows(fw);
	w->bytes += dl_files_writer_bytes(fw);
	return 0;
}

int dl_transaction_write(dl_transaction *t, struct ArrowArrayStream *data,
                         const dl_transaction_write_options *opts)
{
	/* The size of each version of the options (util/options.h). */
	static const size_t ends[] = {
		DL_OPTIONS_END(dl_transaction_write_options, target_file_size), /* 1 */
		DL_OPTIONS_END(dl_transaction_write_options, progress_payload), /* 2: progress */
	};
	DL_OPTIONS_ENDS_CHECK(ends, DL_TRANSACTION_WRITE_OPTIONS_VERSION);
	dl_transaction_write_options loaded = DL_TRANSACTION_WRITE_OPTIONS_INIT;
	if (!t || !data || !data->release) {
		if (data && data->release) data->release(data);
		return dl_error_set(DL_EINVALID, "dl_transaction_write: a transaction and a data stream "
		                                  "are needed");
	}
	int lrc = dl_options_load(&loaded, opts, ends, DL_TRANSACTION_WRITE_OPTIONS_VERSION,
	                          "dl_transaction_write_options", "DL_TRANSACTION_WRITE_OPTIONS_INIT");
	if (lrc < 0) {
		data->release(data);
		return lrc;
	}
	opts = &loaded;
	txn_writes *w;
	dl_batch_stream *s;
	int rc = writes_of(&w, t);
	if (rc < 0) {
		data->release(data);
		return rc;
	}
	DL_TRY(dl_batch_stream_import(&s, data));
	dl_write_options o = DL_WRITE_OPTIONS_INIT;
	o.mode = DL_WRITE_APPEND;
	o.data_change = opts->data_change;
	o.max_records_per_file = opts->max_records_per_file;
	o.target_file_size = opts->target_file_size;
	o.progress = opts->progress;
	o.progress_payload = opts->progress_payload;
	dl_files_writer *fw;
	int64_t hwm = w->row_hwm;
	bool joined;
	rc = dl_ops_write_into(&fw, &hwm, &joined, t, s, &o);
	dl_batch_stream_free(s);
	if (rc == 0) {
		w->row_hwm = hwm;
		rc = keep_files(w, fw);
		if (rc < 0) {
			dl_files_writer_discard(fw);
			dl_files_writer_free(fw);
		}
	}
	/* A failure before any action joined (schema, constraints, I/O of the
	 * files) leaves the transaction as it was; after, its actions would
	 * name deleted files. */
	if (rc < 0 && joined) w->failed = true;
	return rc;
}
