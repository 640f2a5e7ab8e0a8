/* What DELETE and UPDATE (and MERGE, which may take the same shape) share
 * around the rewrite engine (src/rewrite/rewrite.h): opening the table and
 * its transaction with Spark's preconditions (DeltaLog.assertRemovable),
 * checking a predicate, the operationParameters predicate as Spark writes
 * it, committing the rewrite's actions with row tracking's high-water
 * mark, Spark's deletion-vector metric transform, progress, timing, and
 * leaving nothing behind on failure. */
#ifndef DL_DML_COMMON_H
#define DL_DML_COMMON_H
#include <stdbool.h>
#include <stdint.h>
#include "deltalake/progress.h"
#include "deltalake/store.h"
#include "expr/expr.h"
#include "log/properties.h"
#include "log/snapshot.h"
#include "rewrite/rewrite.h"
#include "txn/txn.h"
#include "util/arena.h"

typedef struct dl_dml_cmd {
	const char *operation;     /* commitInfo.operation: "DELETE", "UPDATE" */
	const char *progress_name; /* dl_progress_info.operation: "delete", "update" */
	dl_store *store;
	bool owns_store;
	dl_snapshot *snap;
	dl_transaction *txn;
	dl_arena arena;
	dl_str_map config;         /* the configuration committed (row tracking names added) */
	dl_table_properties props;
	bool use_dv;               /* the table writes deletion vectors */
	dl_progress_fn progress;
	void *progress_payload;
	int64_t start_ns;
	int64_t now_ms;
	dl_rewrite *rw;
} dl_dml_cmd;

/* Opens the table at uri (or `store`), refuses append-only tables, begins
 * the transaction and names row tracking's materialized columns when the
 * table lacks them (a metaData action joins the commit then). */
int dl_dml_begin(dl_dml_cmd *c, const char *uri, dl_store *store,
                 const dl_store_options *store_options, const char *user_metadata);

/* Idempotent DML (Spark's hasBeenExecuted): *applied when app_id already
 * committed `version` or later; otherwise the commit will record it. No-op
 * without an app id. Both or neither must be given (DL_EINVALID). */
int dl_dml_already_applied(dl_dml_cmd *c, const char *app_id, int64_t version, bool *applied);

/* Parses `sql` and binds it to the table's schema: unknown columns,
 * non-deterministic functions and non-boolean predicates are DL_EINVALID
 * naming `what` ("the DELETE condition"). *out may be NULL (check only). */
int dl_dml_check_predicate(dl_dml_cmd *c, const char *sql, const char *what, dl_expr **out);

/* True when every column the bound predicate references is a partition
 * column (Spark's splitMetadataAndDataPredicates finds no data predicate). */
bool dl_dml_partition_only(const dl_dml_cmd *c, const dl_expr *pred);

/* operationParameters "predicate": a JSON array of the predicate's text
 * ("[\"(id = 2)\"]"), "[]" without one. */
int dl_dml_set_predicate_parameter(dl_dml_cmd *c, const char *predicate);

/* A rewrite on the command's transaction and configuration. */
int dl_dml_open_rewrite(dl_dml_cmd *c, dl_rewrite_options *ro);

/* Joins the rewrite's actions (fresh row ids past the table's high-water
 * mark, the delta.rowTracking domain moved). */
int dl_dml_commit_rewrite(dl_dml_cmd *c);

/* The caller's progress callback; non-zero cancels (DL_ECANCELLED). */
int dl_dml_progress(dl_dml_cmd *c, const char *phase, const char *unit, int64_t done,
                    int64_t total, int64_t rows);

int64_t dl_dml_elapsed_ms(const dl_dml_cmd *c);

/* Commits; *version the version. */
int dl_dml_commit(dl_dml_cmd *c, int64_t *version);

/* Releases everything; after a failure (rc < 0) deletes what the rewrite
 * wrote unless the commit may have landed, keeping the failure's message. */
void dl_dml_end(dl_dml_cmd *c, int rc);

#endif
