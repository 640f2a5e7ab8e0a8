/* Streaming: a Delta table as a source of micro-batches, and as an
 * exactly-once sink (docs/STREAMING.md).
 *
 * Source (Spark's DeltaSource):
 *
 *   dl_stream_options o = DL_STREAM_OPTIONS_INIT;
 *   o.checkpoint_location = "/data/_checkpoints/q1";   // progress survives restarts
 *   dl_stream *s;
 *   dl_stream_open(&s, "/data/events", &o);
 *   for (;;) {
 *       struct ArrowArrayStream batch;
 *       dl_stream_offset end;
 *       int64_t batch_id;
 *       dl_stream_next_batch(&batch, &end, &batch_id, s);
 *       if (!batch.release) { sleep(1); continue; }     // nothing new yet
 *       ... consume batch, batch.release(&batch) ...
 *       dl_stream_commit(s, &end);                      // processed: never again
 *   }
 *   dl_stream_close(s);
 *
 * Without a starting version or timestamp the stream first reads the table
 * as of the version current at the first batch (the "initial snapshot",
 * its files in the order of their modification time, then path), then each
 * later commit's added files in the order of the log. A micro-batch holds
 * at most max_files_per_trigger files (default 1000 unless only
 * max_bytes_per_trigger is given) and about max_bytes_per_trigger bytes
 * (soft: a batch always takes its first file, then files while bytes
 * remain); it may end inside a commit. Rows come with the stream's
 * projection and filter applied. exclude_regex leaves out matching files
 * (without read_change_feed they still count toward the limits, as in
 * Spark). commitInfo.isBlindAppend is not read: the actions decide.
 *
 * Commits that remove data (remove actions with dataChange) stop the
 * stream as in Spark: a commit with only removes (DELETE, a partition
 * drop) fails with DELTA_SOURCE_IGNORE_DELETE unless ignore_deletes; one
 * that also adds (UPDATE, MERGE, OVERWRITE) fails with
 * DELTA_SOURCE_TABLE_IGNORE_CHANGES unless ignore_changes (its added files
 * are read again: rows may repeat) or skip_change_commits (the whole
 * commit is skipped; also covers deletes). Rearranging commits (OPTIMIZE:
 * dataChange false) are passed over. A metaData whose schema no longer
 * holds the stream's columns with their types fails with
 * DELTA_SCHEMA_CHANGED_WITH_VERSION naming the version; added nullable
 * columns are fine (not read). A commit is checked when the planner
 * reaches it: a failing one fails the batch that reaches it, as Spark's
 * latestOffset does.
 *
 * With read_change_feed the batches are the change data feed
 * (deltalake/changes.h): the initial snapshot as inserts, then whole
 * commits' changes with _change_type, _commit_version, _commit_timestamp
 * (the removal rules do not apply; a MERGE whose metrics say it changed
 * no row gives none, as Spark's CDCReader).
 *
 * Offsets are Spark's DeltaSourceOffset (reservoir id = the table id,
 * version, index of the last file taken in that version or -1 before the
 * first, whether the version is the initial snapshot), built as Spark's
 * DeltaSource builds them (a commit that adds nothing moves the offset
 * onto it as (v, -1); a commit's last file to (v + 1, -1); the initial
 * snapshot's last file does not end its version), serialized by
 * dl_stream_offset_to_json as Spark writes them. With a checkpoint
 * location (any store URI) each batch's end offset is written as
 * offsets/<batch id> (put-if-absent: two consumers cannot both plan a
 * batch) before the batch is returned and commits/<batch id> by
 * dl_stream_commit, in Spark's checkpoint file format; a reopened stream
 * continues after the last committed batch, and a batch planned but not
 * committed is planned again with the same files and batch id.
 *
 * Thread safety: a stream and a sink are used by one thread at a time. */
#ifndef DELTALAKE_STREAM_H
#define DELTALAKE_STREAM_H
#include "deltalake/common.h"
#include <stdbool.h>
#include <stdint.h>
#include "deltalake/arrow.h"
#include "deltalake/snapshot.h"
#include "deltalake/store.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ---- offsets ---- */

/* The index of an offset before any file of its version (Spark's BASE_INDEX,
 * serialized as -1). */
#define DL_STREAM_BASE_INDEX (-1)

typedef struct dl_stream_offset {
	char reservoir_id[64];      /* the table's metaData.id */
	int64_t reservoir_version;  /* the version being read */
	int64_t index;              /* last file index taken in it, DL_STREAM_BASE_INDEX */
	bool is_starting_version;   /* inside the initial snapshot of reservoir_version */
} dl_stream_offset;

/* {"sourceVersion":1,"reservoirId":...,"reservoirVersion":...,"index":...,
 * "isStartingVersion":...}; *json is freed with dl_free. */
DL_EXTERN(int) dl_stream_offset_to_json(char **json, const dl_stream_offset *o);
/* Parses that form (Spark's, sourceVersion 1 or 3). DL_EINVALID for
 * anything else, naming the problem. */
DL_EXTERN(int) dl_stream_offset_from_json(dl_stream_offset *out, const char *json, size_t len);

/* ---- checkpoint directory (Spark's checkpointLocation layout) ----
 *
 *   metadata      {"id":"<uuid>"}: the query id (the sink's default app id)
 *   offsets/N     "v1", batch metadata, then the source offset JSON
 *   commits/N     "v1", {"nextBatchWatermarkMs":0}: batch N is done
 *
 * Each file is written once with put-if-absent. The offset text of a
 * batch is opaque here: the table source writes a DeltaSourceOffset,
 * `deltalake ingest` its input position. */
typedef struct dl_stream_checkpoint dl_stream_checkpoint;

/* Opens (creating metadata on first use) the checkpoint at `uri`. */
DL_EXTERN(int) dl_stream_checkpoint_open(dl_stream_checkpoint **out, const char *uri,
                                         const dl_store_options *store_options);
DL_EXTERN(void) dl_stream_checkpoint_free(dl_stream_checkpoint *cp);
/* The query id of metadata (borrowed). */
DL_EXTERN(const char *) dl_stream_checkpoint_id(const dl_stream_checkpoint *cp);
/* The highest batch with an offset file: *batch_id (-1 when none), its
 * offset text (*offset NULL when none; dl_free) and whether commits/N
 * exists. */
DL_EXTERN(int) dl_stream_checkpoint_last(int64_t *batch_id, char **offset, bool *committed,
                                         dl_stream_checkpoint *cp);
/* The offset text of batch N (DL_ENOTFOUND when there is none). */
DL_EXTERN(int) dl_stream_checkpoint_offset(char **offset, dl_stream_checkpoint *cp, int64_t batch_id);
/* Records batch N's offset. The same text already there is fine; another
 * is DL_ECONFLICT (another consumer planned batch N). */
DL_EXTERN(int) dl_stream_checkpoint_write_offset(dl_stream_checkpoint *cp, int64_t batch_id, const char *offset);
/* Marks batch N done (offsets/N must exist). */
DL_EXTERN(int) dl_stream_checkpoint_commit(dl_stream_checkpoint *cp, int64_t batch_id);

/* ---- source ---- */

typedef struct dl_stream dl_stream;

/* starting_version: not given (initial snapshot first) */
#define DL_STREAM_NO_VERSION (-1)
/* starting_version "latest": only commits after the version current at open */
#define DL_STREAM_LATEST (-2)

#define DL_STREAM_OPTIONS_VERSION 1
typedef struct dl_stream_options {
	int version;                    /* DL_STREAM_OPTIONS_VERSION */
	int64_t starting_version;       /* >= 0, DL_STREAM_LATEST or DL_STREAM_NO_VERSION */
	int64_t starting_timestamp_ms;  /* DL_NO_TIMESTAMP, or the first commit at or after it */
	int64_t max_files_per_trigger;  /* 0: not given */
	int64_t max_bytes_per_trigger;  /* 0: not given */
	bool ignore_deletes;
	bool ignore_changes;
	bool skip_change_commits;
	bool read_change_feed;
	const char *exclude_regex;      /* Java regex: added files whose path matches are left out */
	const char *filter;             /* Spark SQL predicate over the columns, or NULL */
	const char *const *columns;     /* projection (NULL: all) */
	int ncolumns;
	const char *checkpoint_location; /* NULL: progress only in memory */
	dl_store *store;                /* the table's store (borrowed), or */
	const dl_store_options *store_options; /* opening the uri's store (and the checkpoint's) */
} dl_stream_options;
#define DL_STREAM_OPTIONS_INIT \
	{DL_STREAM_OPTIONS_VERSION, DL_STREAM_NO_VERSION, DL_NO_TIMESTAMP, 0, 0, false, false, false, false, \
	 NULL, NULL, NULL, 0, NULL, NULL, NULL}

/* Opens a stream on the table at `uri`. Errors: DL_EINVALID for
 * conflicting or bad options (Spark's rules: startingVersion with
 * startingTimestamp, a negative limit, a regex that does not compile, an
 * unknown column or a filter that does not bind), a checkpoint of another
 * table (DIFFERENT_DELTA_TABLE_READ_BY_STREAMING_SOURCE), a
 * startingTimestamp after the last commit
 * (DELTA_TIMESTAMP_GREATER_THAN_COMMIT); DL_ENOTFOUND for a
 * startingVersion outside the log's commits (DELTA_VERSION_NOT_FOUND);
 * those of dl_snapshot_open. */
DL_EXTERN(int) dl_stream_open(dl_stream **out, const char *uri, const dl_stream_options *opts);
/* Plans and returns the next micro-batch: its rows as an Arrow stream owned
 * by the caller (release it before the next call and before
 * dl_stream_close: it reads through the stream), its end offset and batch
 * id. When there are no rows to read out->release is NULL (poll again
 * later); if the offset still moved (commits without data changes,
 * skipped commits, excluded files) that empty batch is recorded as done,
 * as Spark runs an empty micro-batch: offsets/N and commits/N in the
 * checkpoint, the position and the batch id advance.
 * A batch not committed is returned again by the next call (same files,
 * same id). */
DL_EXTERN(int) dl_stream_next_batch(struct ArrowArrayStream *out, dl_stream_offset *end, int64_t *batch_id,
                                    dl_stream *s);
/* Marks the batch ending at `end` processed (commits/N in the checkpoint).
 * DL_EINVALID when `end` is not the last batch's end offset. */
DL_EXTERN(int) dl_stream_commit(dl_stream *s, const dl_stream_offset *end);
/* The position reached: the end of the last committed batch, or the
 * start of the stream. */
DL_EXTERN(void) dl_stream_position(dl_stream_offset *out, const dl_stream *s);
DL_EXTERN(void) dl_stream_close(dl_stream *s);

/* ---- sink (Spark's DeltaSink) ---- */

typedef enum dl_stream_output_mode {
	DL_STREAM_APPEND = 0,   /* each batch's rows are appended */
	DL_STREAM_COMPLETE,     /* each batch replaces the whole table */
} dl_stream_output_mode;

typedef struct dl_stream_sink dl_stream_sink;

#define DL_STREAM_SINK_OPTIONS_VERSION 1
typedef struct dl_stream_sink_options {
	int version;                    /* DL_STREAM_SINK_OPTIONS_VERSION */
	dl_stream_output_mode mode;
	/* the txn appId: given, or the query id of checkpoint_location */
	const char *app_id;
	const char *checkpoint_location;
	/* partitioning of a table the first batch creates */
	const char *const *partition_by;
	int npartition_by;
	dl_store *store;                /* the table's store (borrowed), or */
	const dl_store_options *store_options;
} dl_stream_sink_options;
#define DL_STREAM_SINK_OPTIONS_INIT \
	{DL_STREAM_SINK_OPTIONS_VERSION, DL_STREAM_APPEND, NULL, NULL, NULL, 0, NULL, NULL}

DL_EXTERN(int) dl_stream_sink_open(dl_stream_sink **out, const char *uri, const dl_stream_sink_options *opts);
/* Commits batch `batch_id` (>= 0) of `data` (consumed and released) in one
 * transaction "STREAMING UPDATE" (outputMode, queryId, epochId) that also
 * records txn(appId, batch_id); a complete batch removes every file of the
 * version it read. When the table already has a txn of the app id at
 * batch_id or later, nothing is written and *version is -1: replaying a
 * batch after a crash never duplicates rows. The first batch creates a
 * missing table (a WRITE with the same txn). */
DL_EXTERN(int) dl_stream_sink_write(int64_t *version, dl_stream_sink *sink, int64_t batch_id,
                                    struct ArrowArrayStream *data);
/* The app id the sink records (borrowed). */
DL_EXTERN(const char *) dl_stream_sink_app_id(const dl_stream_sink *sink);
DL_EXTERN(void) dl_stream_sink_free(dl_stream_sink *sink);

#ifdef __cplusplus
}
#endif
#endif
