/* The rewrite engine: what a command that changes existing rows (replaceWhere,
 * dynamic partition overwrite; later DELETE, UPDATE, MERGE, OPTIMIZE) does
 * to the files it touches, in one place.
 *
 * Input: the files touched and, for each, which of its rows are deleted
 * (the others survive):
 *   - dl_rewrite_touch_where: every live file that may hold rows matching a
 *     predicate; a predicate over partition columns only removes whole files
 *     without reading them (Spark's DeleteCommand "metadata only" case),
 *     otherwise each candidate file is read and the predicate evaluated on
 *     its rows (existing deletion vector applied, row positions known);
 *   - dl_rewrite_touch_rows: a file and the positions of its rows to delete,
 *     computed by the caller (MERGE's join);
 *   - dl_rewrite_touch_file: a whole file (dynamic partition overwrite);
 *   - dl_rewrite_touch_copy: a file copied whole (purging its DV).
 * With an update callback (UPDATE, MERGE's WHEN MATCHED UPDATE) the deleted
 * rows are replaced by the rows the callback returns.
 *
 * Output (dl_rewrite_run, then dl_rewrite_commit into the transaction):
 *   - deletion vectors when the table enables them (delta.enableDeletionVectors
 *     and the deletionVectors feature) and the caller did not ask for copies:
 *     one DV per touched file, the file's existing DV merged in, every new DV
 *     of the commit packed in ONE deletion_vector_<uuid>.bin (as Spark packs a
 *     task's DVs), remove(old DV) + add(new DV) whose stats say
 *     "tightBounds":false; a file whose rows are all deleted is removed;
 *   - otherwise copy-on-write: the surviving rows streamed into new files,
 *     the old file removed.
 *   Files are processed in parallel on the thread pool, each batch by batch
 *   (a file is never held in memory; copy-on-write reads a touched file twice,
 *   first to learn that a row matches, then to copy; an update with DVs reads
 *   only the matching rows, the predicate being its scan's filter).
 *
 * Memory: row positions (those given, an old DV's, those deleted for the
 * new DV) are held as row sets (row_set.h), at most about a bit per row of
 * the 65536-row ranges they touch and next to nothing for dense runs, as
 * the DV written is; each goes as soon as its file is read or its DV
 * serialized. Copy-on-write keeps no positions past a file's reading.
 *
 * Row tracking (PROTOCOL.md "Row Tracking"): when the table enables it,
 * copied rows keep their stable row id and row commit version, written into
 * the materialized columns named by delta.rowTracking.materializedRowIdColumnName
 * / ...RowCommitVersionColumnName (updated rows keep the id and get a NULL
 * commit version: the new file's defaultRowCommitVersion). New files get
 * fresh baseRowIds at commit; a file given a DV keeps its own.
 *
 * Change data (delta.enableChangeDataFeed), as Spark writes it: copy-on-write
 * writes the deleted rows as `delete` change rows; updated rows become
 * `update_preimage` / `update_postimage` in both modes; a DV-only delete
 * writes none (readers derive it from the DVs).
 *
 * Failure: whatever the engine wrote (data, change data, DV files) is deleted
 * by dl_rewrite_discard, which run does itself when it fails; a caller whose
 * commit fails later calls it too. Not thread-safe: one thread drives it. */
#ifndef DL_REWRITE_REWRITE_H
#define DL_REWRITE_REWRITE_H
#include <stdbool.h>
#include <stdint.h>
#include "columnar/array.h"
#include "expr/expr.h"
#include "log/actions.h"
#include "log/row_set.h"
#include "util/arena.h"
#include "txn/txn.h"

typedef struct dl_rewrite dl_rewrite;

typedef enum dl_rewrite_output {
	DL_REWRITE_AUTO = 0,           /* DVs when the table enables them, else copies */
	DL_REWRITE_COPY,               /* always copy-on-write */
} dl_rewrite_output;

/* Rows a command matched in one file, for the update callback. */
typedef struct dl_rewrite_matched {
	const dl_add *file;
	const dl_batch *rows;          /* the snapshot schema's columns (then _metadata.row_id
	                                  and row_commit_version when the table tracks rows) */
	const uint64_t *positions;     /* each row's index in the file */
	uint8_t *drop;                 /* per row, zeroed: the callback sets drop[i] to
	                                  delete row i instead of replacing it (MERGE's
	                                  DELETE clauses); its row in *out is ignored */
} dl_rewrite_matched;

/* Returns in *out (owned by the engine afterwards) the new values of the
 * matched rows: a batch of the written schema with as many rows, row i
 * replacing matched row i. Called on pool threads, concurrently. */
typedef int (*dl_rewrite_update_fn)(dl_batch **out, const dl_rewrite_matched *m, void *payload);

#define DL_REWRITE_OPTIONS_VERSION 1
typedef struct dl_rewrite_options {
	int version;
	dl_transaction *txn;             /* the command's transaction (borrowed) */
	const dl_type *schema;           /* rows written (the table's schema after
	                                    evolution); NULL: the snapshot's */
	const dl_str_map *configuration; /* the configuration committed; NULL: the snapshot's */
	dl_rewrite_output output;
	bool data_change;
	int64_t now_ms;                  /* deletionTimestamp of removes */
	int threads;                     /* files in parallel (<= 0: the shared pool) */
	int64_t max_records_per_file;    /* of copies; 0: none */
	int64_t target_file_size;        /* 0: the default */
	dl_rewrite_update_fn update;     /* NULL: matched rows are deleted */
	void *update_payload;
	/* The caller's budget for the row sets the engine holds (the touched
	 * positions, old DVs' rows, the rows deleted now; log/row_set.h), called
	 * before each allocation, concurrently from the pool's threads: a refusal
	 * fails the command. NULL: unaccounted. Borrowed. */
	const dl_rowset_budget *budget;
} dl_rewrite_options;
#define DL_REWRITE_OPTIONS_INIT {DL_REWRITE_OPTIONS_VERSION, NULL, NULL, NULL, DL_REWRITE_AUTO, \
                                 true, 0, 0, 0, 0, NULL, NULL, NULL}

/* What the rewrite did (Spark's DML metric names in the comments). */
typedef struct dl_rewrite_metrics {
	int64_t removed_files;      /* numRemovedFiles: copied-over or fully deleted */
	int64_t removed_bytes;      /* numRemovedBytes (Spark counts none for DV updates) */
	int64_t deleted_rows;       /* numDeletedRows */
	bool deleted_rows_known;    /* false when whole files went without row counts */
	int64_t copied_rows;        /* numCopiedRows */
	int64_t updated_rows;
	int64_t added_files;        /* numAddedFiles: copies and updated rows */
	int64_t added_bytes;        /* numAddedBytes */
	int64_t added_rows;         /* rows in the added files */
	int64_t change_files;       /* numAddedChangeFiles */
	int64_t dvs_added, dvs_removed, dvs_updated; /* numDeletionVectors{Added,Removed,Updated} */
	bool read_rows;             /* some file was read (a data predicate or rows) */
} dl_rewrite_metrics;

int dl_rewrite_new(dl_rewrite **out, const dl_rewrite_options *opts);
void dl_rewrite_free(dl_rewrite *rw);

/* Touches the files that may hold rows where `predicate` (Spark SQL over the
 * table's columns) is TRUE; records the predicate and the files read in the
 * transaction's read set. */
int dl_rewrite_touch_where(dl_rewrite *rw, const char *predicate);
/* Touches `file` (a live add of the snapshot, borrowed) deleting the rows at
 * `positions` (sorted, copied). */
int dl_rewrite_touch_rows(dl_rewrite *rw, const dl_add *file, const uint64_t *positions, size_t n);
/* More positions for the file the last dl_rewrite_touch_rows touched, past
 * those it has: a long list given in pieces, never whole in the caller's
 * memory (MERGE's touched rows read back from their spill file). */
int dl_rewrite_touch_rows_more(dl_rewrite *rw, const dl_add *file, const uint64_t *positions,
                               size_t n);
/* dl_rewrite_touch_where with a bound expression (its canonical SQL). */
int dl_rewrite_touch_expr(dl_rewrite *rw, const dl_expr *predicate);
/* Touches a whole file: it is removed, its rows are not read. */
int dl_rewrite_touch_file(dl_rewrite *rw, const dl_add *file);
/* Touches a file whose rows all survive: copied to new files whatever the
 * output (REORG ... APPLY (PURGE) of its DV), row ids kept. */
int dl_rewrite_touch_copy(dl_rewrite *rw, const dl_add *file);

/* Processes every touched file (in parallel). On failure the files written
 * are deleted. */
int dl_rewrite_run(dl_rewrite *rw);
/* Joins the actions to the transaction: removes, adds (fresh row ids after
 * *row_hwm when the table supports row tracking, *row_hwm moved past them;
 * the caller writes the delta.rowTracking domain), DV file, cdc files. */
int dl_rewrite_commit(dl_rewrite *rw, int64_t *row_hwm);
const dl_rewrite_metrics *dl_rewrite_get_metrics(const dl_rewrite *rw);
/* Whether the commit carries change data files of the rewrite (then the
 * command writes its inserts as change data too, as Spark's replaceWhere). */
bool dl_rewrite_wrote_change_data(const dl_rewrite *rw);
/* Deletes everything the engine wrote (a commit that did not happen). */
void dl_rewrite_discard(dl_rewrite *rw);

/* Row tracking's materialized column names (PROTOCOL.md, Spark's
 * MaterializedRowTrackingColumn): when the table supports row tracking and
 * `config` lacks a name, *out gets a copy of `config` (in `arena`) with
 * "_row-id-col-<uuid>" / "_row-commit-version-col-<uuid>" added and
 * *changed is set; otherwise *out = *config. */
int dl_rewrite_row_tracking_names(dl_str_map *out, bool *changed, dl_arena *arena,
                                  const dl_str_map *config, bool supported);

#endif
