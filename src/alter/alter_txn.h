/* What every ALTER TABLE form shares (Spark's AlterDeltaTableCommand):
 * open the table's store, begin a transaction on the latest snapshot, let
 * the form change a working copy of the metadata and/or protocol, and
 * commit them as one version with the operation's name, parameters and
 * the caller's userMetadata.
 *
 *   dl_alter_txn a;
 *   int rc = dl_alter_begin(&a, "ADD COLUMNS", uri, opts);
 *   if (rc == 0) rc = dl_alter_set_schema(&a, new_schema);        // metaData
 *   if (rc == 0) rc = dl_alter_set_config(&a, "delta.x", "1");    // same metaData
 *   if (rc == 0) rc = dl_txn_set_parameter(a.txn, "columns", json);
 *   if (rc == 0) rc = dl_alter_commit(&a, version);
 *   dl_alter_end(&a);
 *
 * Nothing is written before dl_alter_commit, so a failure anywhere (and a
 * lost race: DL_ECONFLICT with DELTA_METADATA_CHANGED or
 * DELTA_PROTOCOL_CHANGED, raised by the transaction layer because a
 * metaData / protocol action is in the write set) leaves the table as it
 * was. A form that decides nothing needs changing calls dl_alter_end
 * without committing and reports version -1. */
#ifndef DL_ALTER_ALTER_TXN_H
#define DL_ALTER_ALTER_TXN_H
#include <stdbool.h>
#include <stdint.h>
#include "deltalake/alter.h"
#include "log/actions.h"
#include "log/snapshot.h"
#include "txn/txn.h"
#include "util/arena.h"

typedef struct dl_alter_txn {
	const char *operation;     /* "ADD COLUMNS", "CHANGE COLUMN"... */
	const char *uri;           /* the table in messages: the caller's uri or the store's root */
	dl_alter_options opts;     /* the caller's, loaded at the current version */
	dl_store *store;
	bool owns_store;
	dl_snapshot *snap;         /* the latest snapshot: what the form reads */
	dl_transaction *txn;       /* parameters / metrics go here directly */
	dl_arena arena;            /* strings of the working copies */
	/* Working copies: start as the snapshot's; changed by the setters (or
	 * by the form directly, with strings in `arena`, then mark them). */
	dl_metadata md;
	dl_protocol proto;
	bool md_changed;
	bool proto_changed;
} dl_alter_txn;

/* Opens the table (opts->store, else uri with opts->store_options) and
 * begins the transaction: dl_alter_open then dl_alter_start. DL_ENOTFOUND
 * (Spark's DELTA_MISSING_DELTA_TABLE) when there is no Delta table. opts
 * may be NULL. `a` must be dl_alter_end'ed even on failure. */
int dl_alter_begin(dl_alter_txn *a, const char *operation, const char *uri,
                   const dl_alter_options *opts);

/* The two halves, for commands of several commits (DROP FEATURE): open the
 * store and the latest snapshot; start (again) a transaction of
 * `operation` on a->snap with fresh working copies; refresh drops the
 * transaction and reopens the latest snapshot between commits. */
int dl_alter_open(dl_alter_txn *a, const char *uri, const dl_alter_options *opts);
int dl_alter_start(dl_alter_txn *a, const char *operation);
int dl_alter_refresh(dl_alter_txn *a);

/* The table as read. */
static inline const dl_metadata *dl_alter_read_metadata(const dl_alter_txn *a)
{
	return dl_snapshot_state(a->snap)->metadata;
}
static inline const dl_protocol *dl_alter_read_protocol(const dl_alter_txn *a)
{
	return dl_snapshot_state(a->snap)->protocol;
}
static inline const dl_type *dl_alter_read_schema(const dl_alter_txn *a)
{
	return dl_snapshot_schema(a->snap);
}

/* The new schema (a struct type) as the metaData's schemaString. */
int dl_alter_set_schema(dl_alter_txn *a, const dl_type *schema);
/* Sets configuration key (value NULL: removes it; absent key: no-op). */
int dl_alter_set_config(dl_alter_txn *a, const char *key, const char *value);
/* The configuration value in the working copy (NULL when absent). */
const char *dl_alter_config(const dl_alter_txn *a, const char *key);
/* A whole new protocol (copied). */
int dl_alter_set_protocol(dl_alter_txn *a, const dl_protocol *p);

/* The caller's progress callback; non-zero cancels (DL_ECANCELLED). */
int dl_alter_progress(dl_alter_txn *a, const char *phase, const char *unit, int64_t done,
                      int64_t total, int64_t rows);

/* Commits the changed metaData and/or protocol with whatever else the form
 * added to a->txn; *version is the version committed. A changed metaData
 * that needs features the protocol lacks upgrades it in the same commit
 * (as Spark's updateMetadata), never below the working protocol. */
int dl_alter_commit(dl_alter_txn *a, int64_t *version);

void dl_alter_end(dl_alter_txn *a);

#endif
