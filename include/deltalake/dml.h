/* DELETE and UPDATE of the rows of a table, with Spark's semantics
 * (DeleteCommand, UpdateCommand of delta-io/delta).
 *
 *   dl_delete_metrics m;
 *   dl_delete_options d = DL_DELETE_OPTIONS_INIT;
 *   dl_delete(&m, "/data/events", "id = 2", &d);     // DELETE FROM t WHERE id = 2
 *   // m.num_affected_rows, m.version, m.numDeletedRows, ...
 *
 *   dl_update_assignment set[] = {{"name", "upper(name)"}, {"s.a", "s.a + 1"}};
 *   dl_update_metrics u;
 *   dl_update_options o = DL_UPDATE_OPTIONS_INIT;
 *   dl_update(&u, "/data/events", set, 2, "d >= '2024-01-01'", &o);
 *
 * Predicates and assignment values are Spark SQL expressions over the
 * table's columns (no subqueries: those are the SQL front end's). A NULL
 * predicate selects every row; a row where the predicate is NULL is not
 * selected. Non-deterministic predicates or values (rand(), now()...) are
 * refused, as are unknown columns (DL_EINVALID naming them).
 *
 * DELETE: a predicate over partition columns only removes whole files
 * without reading them (row counts then come from the files' stats). Other
 * predicates read the candidate files (pruned by partition values and
 * stats) and, when the table enables deletion vectors
 * (delta.enableDeletionVectors and the deletionVectors feature), record the
 * deleted rows in deletion vectors (a few bytes per touched file); else the
 * surviving rows are copied to new files.
 *
 * UPDATE: each assignment sets a column, or a nested field `s.a` of a
 * struct column, to its value cast to the column's type by ANSI store
 * assignment (CAST errors on overflow or invalid text: DL_EINVALID).
 * Updated rows go to new files (in their new partition when a partition
 * column changes); their old versions are deleted as for DELETE. Generated
 * columns not assigned are recomputed; assigned ones must equal their
 * expression. NOT NULL and CHECK constraints hold on every written row
 * (DL_ECONSTRAINT). Identity columns cannot be updated
 * (DELTA_IDENTITY_COLUMNS_UPDATE_NOT_SUPPORTED), a column may be assigned
 * once (DELTA_CONFLICT_SET_COLUMN).
 *
 * Both: change data (delta.enableChangeDataFeed) is written as Spark does
 * (delete / update_preimage / update_postimage rows; a DV-only delete
 * writes none); with row tracking copied and updated rows keep their row
 * ids and updated rows get the new commit version. Tables with
 * delta.appendOnly are refused (DELTA_CANNOT_MODIFY_APPEND_ONLY). The
 * predicate and the files read join the transaction's read set, so a
 * concurrent commit conflicts as in Spark (DELTA_CONCURRENT_APPEND,
 * DELTA_CONCURRENT_DELETE_READ...). A command that selects nothing commits
 * nothing (version -1). commitInfo carries operation "DELETE" / "UPDATE",
 * operationParameters {"predicate": "[\"(id = 2)\"]"} ("[]" without one)
 * and operationMetrics with Spark's keys, the same values as the metrics
 * struct (a metric Spark leaves out is -1 in the struct and absent there).
 * A failure leaves the table as it was, with the files written deleted.
 *
 * Thread safety: no state is kept between calls; concurrent calls are
 * concurrent writers like any others. The progress callback runs on the
 * calling thread, with operation "delete" / "update" and the phases
 * "scanning" (once the files to touch are chosen: done = total = 1) and
 * "committing" (files added, before the commit); non-zero from it cancels
 * (DL_ECANCELLED, nothing committed, the files written deleted). */
#ifndef DELTALAKE_DML_H
#define DELTALAKE_DML_H
#include "deltalake/common.h"
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "deltalake/progress.h"
#include "deltalake/store.h"
#ifdef __cplusplus
extern "C" {
#endif

/* ---- DELETE ---- */

#define DL_DELETE_OPTIONS_VERSION 2
typedef struct dl_delete_options {
	int version;                          /* DL_DELETE_OPTIONS_VERSION */
	dl_store *store;                      /* the table's store (borrowed); uri ignored */
	const dl_store_options *store_options; /* opening the uri's store; NULL: defaults */
	const char *user_metadata;            /* commitInfo.userMetadata, or NULL */
	dl_progress_fn progress;              /* deltalake/progress.h, or NULL */
	void *progress_payload;
	bool copy_on_write;                   /* never deletion vectors (Spark's
	                                         spark.databricks.delta.delete.deletionVectors.persistent=false) */
	int threads;                          /* files in parallel; <= 0: the shared pool */
	int64_t max_records_per_file;         /* of rewritten files; 0: no limit */
	int64_t target_file_size;             /* bytes per rewritten file; 0: 128 MiB */
	/* version 2: idempotent DML (Spark's txnAppId / txnVersion): nothing is
	 * done (version -1, no rows affected) when this app id already committed
	 * txn_version or later; otherwise the commit records it. txn_version < 0:
	 * not used. */
	const char *txn_app_id;
	int64_t txn_version;
} dl_delete_options;
#define DL_DELETE_OPTIONS_INIT \
	{DL_DELETE_OPTIONS_VERSION, NULL, NULL, NULL, NULL, NULL, false, 0, 0, 0, NULL, -1}

/* Spark's DELETE metrics (DeltaOperationMetrics.DELETE), named as in
 * commitInfo.operationMetrics. -1: not reported (Spark drops numDeletedRows,
 * numCopiedRows and numAddedFiles when whole files went without row counts). */
typedef struct dl_delete_metrics {
	int64_t version;              /* the version committed, -1 when nothing was */
	int64_t num_affected_rows;    /* DELETE's result: rows deleted, -1 when unknown */
	int64_t numAddedFiles;
	int64_t numRemovedFiles;
	int64_t numDeletionVectorsAdded;
	int64_t numDeletionVectorsRemoved;
	int64_t numDeletionVectorsUpdated;
	int64_t numAddedChangeFiles;
	int64_t numDeletedRows;
	int64_t numCopiedRows;
	int64_t numAddedBytes;
	int64_t numRemovedBytes;
	int64_t executionTimeMs;
	int64_t scanTimeMs;
	int64_t rewriteTimeMs;
} dl_delete_metrics;

/* DELETE FROM <uri> [WHERE predicate]. predicate NULL: every row. opts NULL:
 * the defaults. */
DL_EXTERN(int) dl_delete(dl_delete_metrics *metrics, const char *uri, const char *predicate,
                         const dl_delete_options *opts);

/* ---- UPDATE ---- */

/* SET column = expression: `column` a top-level column or a nested struct
 * field path "s.a" (backquotes allowed: "`a.b`"), `expression` Spark SQL
 * over the row's old values. */
typedef struct dl_update_assignment {
	const char *column;
	const char *expression;
} dl_update_assignment;

#define DL_UPDATE_OPTIONS_VERSION 2
typedef struct dl_update_options {
	int version;                          /* DL_UPDATE_OPTIONS_VERSION */
	dl_store *store;
	const dl_store_options *store_options;
	const char *user_metadata;
	dl_progress_fn progress;
	void *progress_payload;
	bool copy_on_write;                   /* never deletion vectors */
	int threads;
	int64_t max_records_per_file;
	int64_t target_file_size;
	/* version 2: idempotent DML, as for dl_delete_options */
	const char *txn_app_id;
	int64_t txn_version;
} dl_update_options;
#define DL_UPDATE_OPTIONS_INIT \
	{DL_UPDATE_OPTIONS_VERSION, NULL, NULL, NULL, NULL, NULL, false, 0, 0, 0, NULL, -1}

/* Spark's UPDATE metrics (DeltaOperationMetrics.UPDATE). */
typedef struct dl_update_metrics {
	int64_t version;              /* the version committed, -1 when nothing was */
	int64_t num_affected_rows;    /* UPDATE's result: rows updated */
	int64_t numAddedFiles;
	int64_t numRemovedFiles;
	int64_t numAddedChangeFiles;
	int64_t numDeletionVectorsAdded;
	int64_t numDeletionVectorsRemoved;
	int64_t numDeletionVectorsUpdated;
	int64_t numUpdatedRows;
	int64_t numCopiedRows;
	int64_t numAddedBytes;
	int64_t numRemovedBytes;
	int64_t executionTimeMs;
	int64_t scanTimeMs;
	int64_t rewriteTimeMs;
} dl_update_metrics;

/* UPDATE <uri> SET assignments[0..n) [WHERE predicate]. */
DL_EXTERN(int) dl_update(dl_update_metrics *metrics, const char *uri,
                         const dl_update_assignment *assignments, size_t nassignments,
                         const char *predicate, const dl_update_options *opts);

#ifdef __cplusplus
}
#endif
#endif
