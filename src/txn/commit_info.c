/* The commitInfo action (PROTOCOL.md "Commit Provenance Information"),
 * with Spark's field order so tools that diff logs see familiar lines:
 * inCommitTimestamp, timestamp, operation, operationParameters,
 * readVersion, isolationLevel, isBlindAppend, operationMetrics,
 * userMetadata, engineInfo, txnId. */
#include "txn/txn_internal.h"

#include "util/error.h"

static const char *isolation_name(dl_isolation_level l)
{
	switch (l) {
	case DL_ISOLATION_SERIALIZABLE: return "Serializable";
	case DL_ISOLATION_SNAPSHOT: return "SnapshotIsolation";
	default: return "WriteSerializable";
	}
}

static void write_kvs(dl_json_writer *w, const char *name, const txn_kv *kv, size_t n)
{
	dl_jw_key(w, name);
	dl_jw_object_begin(w);
	for (size_t i = 0; i < n; i++) {
		dl_jw_key(w, kv[i].key);
		dl_jw_raw(w, kv[i].json);
	}
	dl_jw_object_end(w);
}

int dl_txn_commit_info(dl_buf *out, const dl_transaction *t, int64_t timestamp, int64_t ict)
{
	dl_json_writer w;
	dl_jw_init(&w, out);
	dl_jw_object_begin(&w);
	dl_jw_key(&w, "commitInfo");
	dl_jw_object_begin(&w);
	if (ict != DL_NONE) {
		dl_jw_key(&w, "inCommitTimestamp");
		dl_jw_int(&w, ict);
	}
	dl_jw_key(&w, "timestamp");
	dl_jw_int(&w, timestamp);
	dl_jw_key(&w, "operation");
	dl_jw_string(&w, t->operation);
	write_kvs(&w, "operationParameters", t->params, t->nparams);
	if (t->read_version >= 0) {
		dl_jw_key(&w, "readVersion");
		dl_jw_int(&w, t->read_version);
	}
	dl_jw_key(&w, "isolationLevel");
	dl_jw_string(&w, isolation_name(dl_txn_isolation(t)));
	dl_jw_key(&w, "isBlindAppend");
	dl_jw_bool(&w, dl_txn_is_blind_append(t));
	write_kvs(&w, "operationMetrics", t->metrics, t->nmetrics);
	if (t->user_metadata) {
		dl_jw_key(&w, "userMetadata");
		dl_jw_string(&w, t->user_metadata);
	}
	dl_jw_key(&w, "engineInfo");
	dl_jw_string(&w, t->engine_info);
	dl_jw_key(&w, "txnId");
	dl_jw_string(&w, t->txn_id);
	dl_jw_object_end(&w);
	dl_jw_object_end(&w);
	DL_TRY(dl_jw_finish(&w));
	return dl_buf_putc(out, '\n');
}
