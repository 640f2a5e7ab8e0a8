/* Transactions (PROTOCOL.md "Delta Log Entries", "Commit Provenance
 * Information", "In-Commit Timestamps"; Spark's OptimisticTransaction and
 * ConflictChecker): the write set of one commit, what it read, and the
 * optimistic commit that publishes it.
 *
 *   dl_transaction *t;
 *   dl_txn_options o = DL_TXN_OPTIONS_INIT;
 *   o.operation = "WRITE";
 *   DL_TRY(dl_txn_begin(&t, store, snapshot, &o));   // snapshot NULL: new table
 *   dl_txn_set_parameter(t, "mode", "Append");
 *   dl_txn_add_file(t, &add);                        // ... as many as needed
 *   dl_txn_set_metric(t, "numFiles", 1);
 *   int64_t v;
 *   rc = dl_txn_commit(t, &v);                       // put_if_absent N.json
 *   dl_txn_free(t);
 *
 * Commit writes one action per line: commitInfo first, then protocol,
 * metaData, txn, domainMetadata, and the file actions in the order given.
 * When N.json already exists, the winning commits are read and checked
 * against this transaction's read and write sets under the isolation level
 * (WriteSerializable unless delta.isolationLevel = Serializable;
 * SnapshotIsolation when nothing changes data); no conflict means a retry
 * at the next version, bounded with backoff. A conflict is DL_ECONFLICT
 * with one of the classes DELTA_CONCURRENT_APPEND,
 * DELTA_CONCURRENT_DELETE_READ, DELTA_CONCURRENT_DELETE_DELETE,
 * DELTA_METADATA_CHANGED, DELTA_PROTOCOL_CHANGED,
 * DELTA_CONCURRENT_TRANSACTION (dl_error_class()).
 *
 * After a successful commit the post-commit hooks run (unless disabled):
 * the version checksum file N.crc when the new state is known, a
 * checkpoint every delta.checkpointInterval versions, then log cleanup
 * (delta.enableExpiredLogCleanup). Their failures never fail the commit
 * (the commit is durable); dl_txn_post_commit_error tells what happened. */
#ifndef DL_TXN_TXN_H
#define DL_TXN_TXN_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "deltalake/snapshot.h"
#include "deltalake/store.h"
#include "deltalake/txn.h"
#include "log/actions.h"

#define DL_TXN_OPTIONS_VERSION 1
typedef struct dl_txn_options {
	int version;                 /* DL_TXN_OPTIONS_VERSION */
	const char *operation;       /* commitInfo.operation ("WRITE", "CREATE TABLE"...) */
	const char *engine_info;     /* NULL: "deltalake-c/<version>" */
	const char *user_metadata;   /* commitInfo.userMetadata or NULL */
	int max_retries;             /* commit attempts after the first; <0: default (50) */
	bool no_post_commit;         /* skip checkpoint / cleanup / .crc hooks */
	bool no_crc;                 /* skip only the N.crc file */
	int64_t now_ms;              /* DL_NONE: the clock (tests pin it) */
} dl_txn_options;
#define DL_TXN_OPTIONS_INIT {DL_TXN_OPTIONS_VERSION, NULL, NULL, NULL, -1, false, false, DL_NONE}

/* Starts a transaction on `snapshot` (borrowed; must outlive the
 * transaction), or on an empty location when snapshot is NULL (the commit
 * then creates version 0 and must carry protocol and metaData). `store`
 * is the table's store (borrowed). Checks that this library can write the
 * table (DL_EUNSUPPORTED otherwise). */
int dl_txn_begin(dl_transaction **out, dl_store *store, dl_snapshot *snapshot,
                 const dl_txn_options *opts);
void dl_txn_free(dl_transaction *t);

/* The version read (-1 for a new table) and the table state it read. */
int64_t dl_txn_read_version(const dl_transaction *t);
/* True when a failed commit may have landed all the same (the store
 * reported a failure and reading the commit back failed too): the data
 * files it names must then be kept, or a committed version would point at
 * deleted files. */
bool dl_txn_commit_unknown(const dl_transaction *t);
dl_snapshot *dl_txn_snapshot(const dl_transaction *t);

/* ---- write set: actions are copied (the caller's memory may go) ---- */
int dl_txn_add_file(dl_transaction *t, const dl_add *add);
int dl_txn_remove_file(dl_transaction *t, const dl_remove *remove);
int dl_txn_add_cdc(dl_transaction *t, const dl_cdc *cdc);
/* A new metaData (schema change, properties...); at most one per commit. */
int dl_txn_set_metadata(dl_transaction *t, const dl_metadata *metadata);
/* A new protocol; at most one per commit. */
int dl_txn_set_protocol(dl_transaction *t, const dl_protocol *protocol);
/* Records the application transaction (txn action) app_id -> version; its
 * lastUpdated is the commit time. A concurrent commit of the same app id
 * is a DELTA_CONCURRENT_TRANSACTION. */
int dl_txn_set_app_txn(dl_transaction *t, const char *app_id, int64_t version);
int dl_txn_set_domain(dl_transaction *t, const char *domain, const char *configuration,
                      bool removed);
/* Any action of the kinds above (commitInfo is built by the transaction:
 * DL_EINVALID; checkpoint-only actions: DL_EINVALID). */
int dl_txn_add_action(dl_transaction *t, const dl_action *a);

/* ---- read set: what the commit's outcome depends on ---- */
/* A file the transaction read (its concurrent removal conflicts). */
int dl_txn_read_file(dl_transaction *t, const char *path);
/* A predicate (SQL text over partition columns, e.g. "d = '2024-01-01'")
 * the transaction read through: a concurrent add whose partition values may
 * satisfy it conflicts. Non-partition columns make it match every file. */
int dl_txn_read_predicate(dl_transaction *t, const char *predicate);
/* The whole table was read (any concurrent data change conflicts). */
void dl_txn_read_whole_table(dl_transaction *t);
/* The version of an app id as of the read snapshot (DL_ENOTFOUND when
 * never committed); records the read so a concurrent commit of the same
 * app id conflicts. Idempotent writers skip when version >= theirs. */
int dl_txn_app_version(dl_transaction *t, const char *app_id, int64_t *version);

/* ---- commitInfo ---- */
/* operationParameters: values are strings, as Spark writes them
 * ("mode" -> "Append", "partitionBy" -> "[\"d\"]"). Later sets win. */
int dl_txn_set_parameter(dl_transaction *t, const char *key, const char *value);
/* A parameter whose value is already-encoded JSON ("auto" -> "false"). */
int dl_txn_set_parameter_json(dl_transaction *t, const char *key, const char *json);
/* operationMetrics (written as strings: "numFiles":"3"). Later sets win. */
int dl_txn_set_metric(dl_transaction *t, const char *key, int64_t value);
int dl_txn_set_user_metadata(dl_transaction *t, const char *user_metadata);
/* Forces commitInfo.isBlindAppend (default: computed — nothing read, only
 * adds with dataChange). */
void dl_txn_set_blind_append(dl_transaction *t, bool blind_append);

/* ---- commit ---- */
/* Publishes the commit; *version gets the version it landed at. On
 * DL_ECONFLICT nothing was written. May be called once. */
int dl_txn_commit(dl_transaction *t, int64_t *version);
/* After a commit: the commit timestamp used (the in-commit timestamp when
 * enabled), the attempts made, and the first post-commit hook error (0 when
 * all hooks ran fine; message in *message, borrowed). */
int64_t dl_txn_commit_timestamp(const dl_transaction *t);
int dl_txn_attempts(const dl_transaction *t);
int dl_txn_post_commit_error(const dl_transaction *t, const char **message);
/* commitInfo.operation of the transaction ("WRITE" when none was given). */
const char *dl_txn_operation(const dl_transaction *t);

/* The engineInfo this library writes: "deltalake-c/<version>". */
const char *dl_txn_engine_info(void);

#endif
