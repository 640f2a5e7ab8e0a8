/* Transactions: commit your own changes to a Delta table atomically.
 *
 * For data files an application wrote itself (or moves between tables),
 * and for removing files, recording streaming progress (application
 * transaction ids) or both at once. dl_write (deltalake/write.h) is the
 * one-call way to write Arrow data; this is the lower level it is built on.
 *
 *   dl_transaction *t;
 *   dl_transaction_options o = DL_TRANSACTION_OPTIONS_INIT;
 *   o.operation = "STREAMING UPDATE";
 *   dl_transaction_begin(&t, "/data/events", &o);
 *   int64_t done;
 *   if (dl_transaction_app_version(&done, t, "my-stream") == 0 && done >= batch)
 *       ... already committed: skip ...
 *   dl_transaction_add_file(t, &(dl_transaction_file){.path = "d=1/part-0.parquet",
 *       .size = 1234, .stats_json = "{\"numRecords\":10}", .data_change = true, ...});
 *   dl_transaction_set_app_version(t, "my-stream", batch);
 *   int64_t version;
 *   rc = dl_transaction_commit(&version, t);
 *   dl_transaction_free(t);
 *
 * The commit is optimistic: when another writer committed first, its
 * changes are checked against what this transaction read (files,
 * predicates, the whole table, app ids) under the table's isolation level;
 * without a conflict the commit lands at the next version by itself,
 * otherwise it fails with DL_ECONFLICT and a class from dl_error_last():
 * DELTA_CONCURRENT_APPEND, DELTA_CONCURRENT_DELETE_READ,
 * DELTA_CONCURRENT_DELETE_DELETE, DELTA_METADATA_CHANGED,
 * DELTA_PROTOCOL_CHANGED or DELTA_CONCURRENT_TRANSACTION. After a
 * commit the version checksum, a checkpoint every delta.checkpointInterval
 * versions and expired log cleanup run by themselves.
 *
 * Failures and what they mean (the store may fail at any call):
 * - dl_transaction_commit returns 0 exactly when the version is in the log.
 *   Work after the commit (checksum, checkpoint, log cleanup) only makes
 *   later reads faster; when it fails the commit still succeeded, returns
 *   0, and the table stays readable (these files are written whole or not
 *   at all).
 * - Any other failure leaves the log as it was: nothing was committed.
 * - One exception: when writing the commit failed in a way that may have
 *   published it (the store reported an error after the bytes were handed
 *   over) and reading it back failed too, the outcome is unknown; the error
 *   then says "may have been committed", and files the transaction wrote
 *   are kept (a committed version may name them). Check the table (its
 *   latest version, or dl_transaction_app_version with an app id) before
 *   writing again. When reading back works, the library decides by itself:
 *   its own bytes mean success.
 *
 * Thread safety: a transaction is used by one thread at a time (it
 * accumulates actions without locks). Different transactions, in threads
 * or processes, may write the same table at once: that is what the
 * optimistic commit above resolves. */
#ifndef DELTALAKE_TXN_H
#define DELTALAKE_TXN_H
#include "deltalake/common.h"
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "deltalake/store.h"
#ifdef __cplusplus
extern "C" {
#endif

typedef struct dl_transaction dl_transaction;

#define DL_TRANSACTION_OPTIONS_VERSION 2
typedef struct dl_transaction_options {
	int version;               /* DL_TRANSACTION_OPTIONS_VERSION */
	const char *operation;     /* commitInfo.operation; NULL: "WRITE" */
	const char *user_metadata; /* commitInfo.userMetadata, or NULL */
	const char *engine_info;   /* NULL: "deltalake-c/<version>" */
	int max_retries;           /* commit attempts after the first; < 0: the default */
	/* since version 2: */
	dl_store *store;           /* the table's store (borrowed; it must outlive the
	                              transaction); uri ignored */
	const dl_store_options *store_options; /* opening the uri's store; NULL: defaults */
} dl_transaction_options;
#define DL_TRANSACTION_OPTIONS_INIT {DL_TRANSACTION_OPTIONS_VERSION, NULL, NULL, NULL, -1, NULL, NULL}

/* Starts a transaction on the latest version of the table at `uri` (opened
 * with opts->store_options, or opts->store itself). Options of every version
 * from 1 to DL_TRANSACTION_OPTIONS_VERSION are accepted.
 * DL_ENOTFOUND when there is no table; DL_EUNSUPPORTED when this library
 * cannot write it (protocol or features). */
DL_EXTERN(int) dl_transaction_begin(dl_transaction **out, const char *uri, const dl_transaction_options *opts);
DL_EXTERN(void) dl_transaction_free(dl_transaction *t);
/* The version the transaction read. */
DL_EXTERN(int64_t) dl_transaction_read_version(const dl_transaction *t);

/* A data file to add: `path` relative to the table root (or absolute),
 * partition values as the log spells them (NULL value: null), the size in
 * bytes, the statistics JSON (or NULL). */
typedef struct dl_transaction_file {
	const char *path;
	const char *const *partition_keys;
	const char *const *partition_values;
	int npartitions;
	int64_t size;
	int64_t modification_time_ms; /* 0: now */
	const char *stats_json;
	bool data_change;
} dl_transaction_file;
DL_EXTERN(int) dl_transaction_add_file(dl_transaction *t, const dl_transaction_file *f);
/* Removes a live file of the read version (its partition values and size
 * come from the table); records that the transaction read it, so a
 * concurrent delete of it conflicts. DL_ENOTFOUND when it is not live. */
DL_EXTERN(int) dl_transaction_remove_file(dl_transaction *t, const char *path, bool data_change);

/* What the changes depend on (see above). */
DL_EXTERN(int) dl_transaction_read_predicate(dl_transaction *t, const char *predicate_sql);
DL_EXTERN(void) dl_transaction_read_whole_table(dl_transaction *t);
/* The last committed version of an application id (DL_ENOTFOUND: never). */
DL_EXTERN(int) dl_transaction_app_version(int64_t *version, dl_transaction *t, const char *app_id);
DL_EXTERN(int) dl_transaction_set_app_version(dl_transaction *t, const char *app_id, int64_t version);

/* commitInfo.operationParameters (string values) and operationMetrics. */
DL_EXTERN(int) dl_transaction_set_parameter(dl_transaction *t, const char *key, const char *value);
DL_EXTERN(int) dl_transaction_set_metric(dl_transaction *t, const char *key, int64_t value);

/* Commits; *version gets the version committed. Once per transaction. */
DL_EXTERN(int) dl_transaction_commit(int64_t *version, dl_transaction *t);

#ifdef __cplusplus
}
#endif
#endif
