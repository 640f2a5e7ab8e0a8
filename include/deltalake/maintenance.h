/* Table maintenance: checkpoints and expired log cleanup.
 *
 *   dl_snapshot *snap;   dl_snapshot_open(&snap, "/data/events", NULL);
 *   dl_checkpoint_result r;
 *   dl_checkpoint(&r, snap, NULL);        // the snapshot's version, as the table says
 *   dl_log_cleanup_result c;
 *   dl_log_cleanup(&c, snap, NULL);       // delta.logRetentionDuration
 *   dl_snapshot_free(snap);
 *
 * Writers do both on their own after commits (a checkpoint every
 * delta.checkpointInterval versions, then cleanup unless
 * delta.enableExpiredLogCleanup is false); these calls are for doing it at
 * another time, for another version, or with another retention. Both are
 * safe against concurrent writers and readers: every file is published
 * atomically, and cleanup never deletes what a version from its cut-off on
 * needs.
 *
 * Thread safety: neither changes the snapshot, so other threads may keep
 * reading it meanwhile; the progress callback runs on the calling thread. */
#ifndef DELTALAKE_MAINTENANCE_H
#define DELTALAKE_MAINTENANCE_H
#include "deltalake/common.h"
#include <stdbool.h>
#include <stdint.h>
#include "deltalake/progress.h"
#include "deltalake/snapshot.h"

#ifdef __cplusplus
extern "C" {
#endif

#define DL_CHECKPOINT_OPTIONS_VERSION 1
typedef struct dl_checkpoint_options {
	int version;                 /* DL_CHECKPOINT_OPTIONS_VERSION */
	int64_t part_actions;        /* actions per part (classic) or sidecar (V2) before
	                                splitting; 0: 5,000,000 */
	dl_progress_fn progress;     /* "checkpoint" / "writing" / actions; NULL: none */
	void *progress_payload;
} dl_checkpoint_options;
#define DL_CHECKPOINT_OPTIONS_INIT {DL_CHECKPOINT_OPTIONS_VERSION, 0, NULL, NULL}

typedef struct dl_checkpoint_result {
	int64_t version;             /* the version checkpointed */
	int64_t actions;             /* rows written, sidecar rows included (_last_checkpoint size) */
	int64_t add_files;           /* numOfAddFiles */
	int64_t size_bytes;          /* bytes of all files written (sizeInBytes) */
	int parts;                   /* files of a classic checkpoint: > 1 for multi-part */
	int sidecars;                /* sidecar files of a V2 checkpoint */
	bool v2;                     /* a V2 checkpoint (UUID-named, with sidecars) */
} dl_checkpoint_result;

/* Checkpoints the version of `snap` (PROTOCOL.md "Checkpoints"): a V2
 * checkpoint with sidecars when the table's delta.checkpointPolicy is v2
 * (and its protocol has v2Checkpoint), else a classic one, split into
 * parts when the actions exceed part_actions; then _last_checkpoint points
 * at it unless it already names a newer version. Tombstones older than
 * delta.deletedFileRetentionDuration are left out. The snapshot must have
 * been opened with its files (not metadata_only) and its tombstones (not
 * skip_tombstones): DL_EINVALID otherwise. A failure or a cancel (the
 * progress callback) leaves no _last_checkpoint change and deletes the
 * sidecars already written. */
DL_EXTERN(int) dl_checkpoint(dl_checkpoint_result *out, dl_snapshot *snap, const dl_checkpoint_options *opts);

#define DL_LOG_CLEANUP_OPTIONS_VERSION 1
typedef struct dl_log_cleanup_options {
	int version;                 /* DL_LOG_CLEANUP_OPTIONS_VERSION */
	/* History to keep: an interval as delta.logRetentionDuration takes it
	 * ("interval 7 days"), or NULL for retention_ms. */
	const char *retention;
	int64_t retention_ms;        /* < 0: the table's delta.logRetentionDuration
	                                (30 days by default) */
	dl_progress_fn progress;     /* "log cleanup" / "deleting" / files; NULL: none */
	void *progress_payload;
} dl_log_cleanup_options;
#define DL_LOG_CLEANUP_OPTIONS_INIT {DL_LOG_CLEANUP_OPTIONS_VERSION, NULL, -1, NULL, NULL}

typedef struct dl_log_cleanup_result {
	int64_t cutoff_checkpoint;   /* the checkpoint kept as the new start of the log, -1: none */
	int64_t deleted_commits;     /* N.json */
	int64_t deleted_checkpoints; /* checkpoint files and parts */
	int64_t deleted_other;       /* .crc, compaction and stale temporary files */
	int64_t deleted_sidecars;    /* _sidecars files no remaining checkpoint references */
} dl_log_cleanup_result;

/* Deletes the log files of the snapshot's table older than the retention
 * (PROTOCOL.md "Metadata Cleanup"): the cut-off is midnight UTC of now -
 * retention; the newest complete checkpoint at or before the newest commit
 * not newer than the cut-off is kept with everything after it, and the
 * commits, checkpoints, .crc and compaction files before it are deleted
 * (nothing when there is no such checkpoint: cutoff_checkpoint -1). Then
 * sidecars no remaining checkpoint references and temporary files of dead
 * writes, once a day old. Use the latest snapshot (a metadata_only one is
 * enough): its delta.logRetentionDuration is the default retention.
 * DL_EINVALID for a retention that is not an interval. */
DL_EXTERN(int) dl_log_cleanup(dl_log_cleanup_result *out, dl_snapshot *snap, const dl_log_cleanup_options *opts);

#ifdef __cplusplus
}
#endif
#endif
