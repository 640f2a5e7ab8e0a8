/* Table maintenance: checkpoints, expired log cleanup, and the utility
 * commands of Delta's docs (OPTIMIZE, REORG, VACUUM, RESTORE, SHALLOW CLONE,
 * CONVERT TO DELTA, GENERATE, FSCK REPAIR).
 *
 *   dl_snapshot *snap;   dl_snapshot_open(&snap, "/data/events", NULL);
 *   dl_checkpoint_result r;
 *   dl_checkpoint(&r, snap, NULL);        // the snapshot's version, as the table says
 *   dl_log_cleanup_result c;
 *   dl_log_cleanup(&c, snap, NULL);       // delta.logRetentionDuration
 *   dl_snapshot_free(snap);
 *
 *   dl_optimize_metrics m;
 *   dl_optimize(&m, "/data/events", NULL);                 // OPTIMIZE t
 *   dl_vacuum_result v;
 *   dl_vacuum(&v, "/data/events", NULL);                   // VACUUM t (168 hours)
 *   dl_restore_options ro = DL_RESTORE_OPTIONS_INIT;  ro.to_version = 3;
 *   dl_restore_metrics rm;
 *   dl_restore(&rm, "/data/events", &ro);                  // RESTORE TABLE t TO VERSION AS OF 3
 *
 * Writers do checkpoints and cleanup on their own after commits (a
 * checkpoint every delta.checkpointInterval versions, then cleanup unless
 * delta.enableExpiredLogCleanup is false); these calls are for doing it at
 * another time, for another version, or with another retention. Every
 * command is safe against concurrent writers and readers: files are
 * published atomically, commits go through the transaction layer (Spark's
 * conflict rules), and cleanup never deletes what a version inside its
 * window needs.
 *
 * The utility commands follow Spark (delta-io/delta): their commitInfo
 * carries Spark's operation name, operationParameters and operationMetrics
 * (the metrics structs below use the same names and values; a metric Spark
 * leaves out is -1 and absent from the commit), their errors carry Spark's
 * error classes (dl_error_last()->klass). Every options struct
 * starts with version, store, store_options, user_metadata, progress,
 * progress_payload, as in dml.h: the table's store (borrowed; the uri is then
 * ignored) or options for opening the uri's store; commitInfo.userMetadata;
 * a progress callback on the calling thread (non-zero cancels: DL_ECANCELLED,
 * nothing committed, the files written deleted). opts NULL: the defaults. A
 * failure leaves the table as it was and deletes the files it wrote.
 *
 * Thread safety: no state is kept between calls; concurrent calls are
 * concurrent writers like any others. */
#ifndef DELTALAKE_MAINTENANCE_H
#define DELTALAKE_MAINTENANCE_H
#include "deltalake/common.h"
#include <stdbool.h>
#include <stdint.h>
#include "deltalake/progress.h"
#include "deltalake/snapshot.h"
#include "deltalake/store.h"
#include "deltalake/arrow.h"

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

/* ---- OPTIMIZE (OptimizeTableCommand) ---- */

/* The rest of Spark's OptimizeMetrics (the SQL result's `metrics`), filled
 * when dl_optimize_options.stats (version 2) points to one. */
typedef struct dl_optimize_file_stats {
	int64_t num;                      /* ZOrderFileStats.num / ClusteringFileStats.numFiles */
	int64_t size;
} dl_optimize_file_stats;

typedef struct dl_optimize_stats {
	/* zOrderStats (ZOrderStats): OPTIMIZE ... ZORDER BY only */
	bool has_zorder_stats;
	const char *zorder_strategy_name; /* "all": every file of a partition (static text) */
	dl_optimize_file_stats zorder_input_cube_files;
	dl_optimize_file_stats zorder_input_other_files;
	int64_t zorder_input_num_cubes;
	dl_optimize_file_stats zorder_merged_files;
	int64_t zorder_num_output_cubes;  /* one per partition optimized */
	int64_t zorder_merged_num_cubes;  /* -1: None, as Spark leaves it */
	/* clusteringStats (ClusteringStats): OPTIMIZE of a clustered table with
	 * clustering columns. Files of a ZCube (ZCUBE_ID tag) clustered by the
	 * same columns (or any, with FULL) are "zcube" files, the rest "other". */
	bool has_clustering_stats;
	dl_optimize_file_stats clustering_input_zcube_files;
	dl_optimize_file_stats clustering_input_other_files;
	int64_t clustering_input_num_zcubes;
	dl_optimize_file_stats clustering_merged_files;
	int64_t clustering_num_output_zcubes;
	int64_t numBins;                  /* Spark OSS never sets it: 0 */
	int64_t totalClusterParallelism;  /* the threads the bins ran on */
	int64_t totalScheduledTasks;      /* Spark OSS never sets it: 0 */
	int64_t numTableColumns;          /* top-level columns */
	int64_t numTableColumnsWithStats; /* min(delta.dataSkippingNumIndexedCols, numTableColumns) */
	int64_t numDeletionVectorBytesRemoved; /* the commit's metric of that name */
} dl_optimize_stats;

#define DL_OPTIMIZE_OPTIONS_VERSION 2
typedef struct dl_optimize_options {
	int version;                           /* DL_OPTIMIZE_OPTIONS_VERSION */
	dl_store *store;
	const dl_store_options *store_options;
	const char *user_metadata;
	dl_progress_fn progress;               /* "optimize" / "rewriting" / files */
	void *progress_payload;
	/* WHERE: a predicate over partition columns only (Spark:
	 * DELTA_OPTIMIZE_FULL_NOT_SUPPORTED / a non-partition column is refused
	 * naming it); NULL: every partition. */
	const char *where;
	/* ZORDER BY columns (top-level or nested "a.b"); refused for partition
	 * columns, unknown columns, columns without stats
	 * (DELTA_ZORDERING_ON_PARTITION_COLUMN, DELTA_ZORDERING_COLUMN_DOES_NOT_EXIST,
	 * DELTA_ZORDERING_ON_COLUMN_WITHOUT_STATS) and on clustered tables
	 * (DELTA_CLUSTERING_WITH_ZORDER_BY). */
	const char *const *zorder_by;
	int nzorder_by;
	/* OPTIMIZE FULL: on a clustered table, recluster every file, not only
	 * the unclustered ones. */
	bool full;
	/* Target size of written files and the bin size; 0: the table's
	 * delta.targetFileSize when set, else 1 GiB
	 * (spark.databricks.delta.optimize.maxFileSize). */
	int64_t max_file_size;
	/* Files below this size are compacted; 0: max_file_size (Spark's
	 * spark.databricks.delta.optimize.minFileSize defaults to it). */
	int64_t min_file_size;
	/* Files with more than this fraction of rows deleted by their DV are
	 * rewritten whatever their size; < 0: 0.05
	 * (spark.databricks.delta.optimize.maxDeletedRowsRatio). */
	double max_deleted_rows_ratio;
	int threads;                           /* bins in parallel; <= 0: the shared pool */
	/* Auto compaction (delta.autoOptimize.autoCompact): operationParameters
	 * auto=true and its own defaults for small files. */
	bool auto_compact;
	/* version 2: when not NULL, filled with the rest of OptimizeMetrics
	 * (zOrderStats, clusteringStats, ...) on success */
	dl_optimize_stats *stats;
} dl_optimize_options;
#define DL_OPTIMIZE_OPTIONS_INIT \
	{DL_OPTIMIZE_OPTIONS_VERSION, NULL, NULL, NULL, NULL, NULL, NULL, NULL, 0, false, 0, 0, -1.0, 0, false, NULL}

/* Spark's OPTIMIZE metrics (DeltaOperationMetrics.OPTIMIZE), plus the
 * figures of OPTIMIZE's SQL result (OptimizeMetrics). */
typedef struct dl_optimize_metrics {
	int64_t version;                  /* the version committed, -1: nothing to do */
	int64_t numAddedFiles;
	int64_t numRemovedFiles;
	int64_t numAddedBytes;
	int64_t numRemovedBytes;
	int64_t minFileSize;              /* of the added files */
	int64_t p25FileSize;
	int64_t p50FileSize;
	int64_t p75FileSize;
	int64_t maxFileSize;
	int64_t numDeletionVectorsRemoved;
	int64_t partitionsOptimized;      /* OptimizeMetrics */
	int64_t numBatches;               /* bins written */
	int64_t totalConsideredFiles;
	int64_t totalFilesSkipped;
	/* OptimizeMetrics.filesRemoved's min and max (-1: none removed) and
	 * deletionVectorStats.numDeletionVectorRowsRemoved */
	int64_t removedMinFileSize;
	int64_t removedMaxFileSize;
	int64_t numDeletionVectorRowsRemoved;
} dl_optimize_metrics;

/* OPTIMIZE <uri> [WHERE where] [ZORDER BY (...)] / [FULL]: bin-packs the
 * small files of each partition (dataChange=false), z-orders them, or on a
 * clustered table (delta.clustering domain) clusters them along a Hilbert
 * curve of the clustering columns. */
DL_EXTERN(int) dl_optimize(dl_optimize_metrics *metrics, const char *uri, const dl_optimize_options *opts);

/* ---- REORG TABLE ... APPLY (PURGE) (DeltaReorgTableCommand) ---- */

#define DL_REORG_OPTIONS_VERSION 2
typedef struct dl_reorg_options {
	int version;                           /* DL_REORG_OPTIONS_VERSION */
	dl_store *store;
	const dl_store_options *store_options;
	const char *user_metadata;
	dl_progress_fn progress;
	void *progress_payload;
	const char *where;                     /* partition predicate, or NULL */
	int threads;
	dl_optimize_stats *stats;              /* version 2: as dl_optimize_options.stats */
} dl_reorg_options;
#define DL_REORG_OPTIONS_INIT {DL_REORG_OPTIONS_VERSION, NULL, NULL, NULL, NULL, NULL, NULL, 0, NULL}

/* REORG TABLE <uri> [WHERE where] APPLY (PURGE): rewrites every file with a
 * deletion vector so the deleted rows are gone from storage; commits as
 * Spark's REORG (an OPTIMIZE with applyPurge); metrics as OPTIMIZE's. */
DL_EXTERN(int) dl_reorg_purge(dl_optimize_metrics *metrics, const char *uri, const dl_reorg_options *opts);

/* The file rewrite of REORG TABLE <uri> APPLY (UPGRADE
 * UNIFORM(ICEBERG_COMPAT_VERSION=version)): every file without the tag
 * ICEBERG_COMPAT_VERSION = version (files written before column mapping
 * lack Parquet field ids) and every file with a deletion vector is
 * rewritten (DVs applied) and tagged; metrics as OPTIMIZE's. The property
 * changes around it are the SQL statement's (docs/UNIFORM.md). version: 2. */
DL_EXTERN(int) dl_reorg_upgrade_uniform(dl_optimize_metrics *metrics, const char *uri, int version,
                                        const dl_reorg_options *opts);

/* ---- VACUUM (VacuumCommand) ---- */

/* One file VACUUM deletes (or, with dry_run, would delete): its path
 * relative to the table root (absolute URI for files outside it) and size. */
typedef int (*dl_vacuum_file_fn)(const char *path, int64_t size, void *payload);

#define DL_VACUUM_OPTIONS_VERSION 1
typedef struct dl_vacuum_options {
	int version;                           /* DL_VACUUM_OPTIONS_VERSION */
	dl_store *store;
	const dl_store_options *store_options;
	const char *user_metadata;
	dl_progress_fn progress;               /* "vacuum" / "listing", "deleting" / files */
	void *progress_payload;
	/* RETAIN n HOURS; < 0: the table's delta.deletedFileRetentionDuration
	 * (interval 1 week). Shorter than that is DELTA_VACUUM_RETENTION_PERIOD_TOO_SHORT
	 * unless no_retention_check. */
	double retain_hours;
	bool no_retention_check;               /* spark.databricks.delta.retentionDurationCheck.enabled=false */
	bool dry_run;                          /* list, delete nothing, commit nothing */
	bool lite;                             /* VACUUM LITE: candidates from the log only */
	/* USING INVENTORY: rows (path STRING, length BIGINT, isDir BOOLEAN,
	 * modificationTime BIGINT) instead of listing the table directory;
	 * consumed and released. NULL: list. */
	struct ArrowArrayStream *inventory;
	int threads;                           /* parallel deletes; <= 0: 16 (Spark's parallelDelete) */
	dl_vacuum_file_fn on_file;             /* each file deleted / to delete, or NULL */
	void *on_file_payload;
} dl_vacuum_options;
#define DL_VACUUM_OPTIONS_INIT \
	{DL_VACUUM_OPTIONS_VERSION, NULL, NULL, NULL, NULL, NULL, -1.0, false, false, false, NULL, 0, NULL, NULL}

typedef struct dl_vacuum_result {
	int64_t start_version;            /* the VACUUM START commit, -1: none (dry run) */
	int64_t end_version;              /* the VACUUM END commit, -1: none */
	int64_t numFilesToDelete;
	int64_t sizeOfDataToDelete;
	int64_t numDeletedFiles;
	int64_t numVacuumedDirectories;
} dl_vacuum_result;

/* VACUUM <uri> [RETAIN n HOURS] [DRY RUN] [LITE | FULL] [USING INVENTORY]:
 * deletes the files under the table no version inside the retention window
 * references (data, DV, _change_data files, leftovers of failed writes),
 * never _delta_log, hidden paths (_ or .) only inside partition
 * directories, then the directories left empty; recorded as VACUUM START
 * and VACUUM END commits (dataChange=false). */
DL_EXTERN(int) dl_vacuum(dl_vacuum_result *out, const char *uri, const dl_vacuum_options *opts);

/* ---- RESTORE (RestoreTableCommand) ---- */

#define DL_RESTORE_OPTIONS_VERSION 1
typedef struct dl_restore_options {
	int version;                           /* DL_RESTORE_OPTIONS_VERSION */
	dl_store *store;
	const dl_store_options *store_options;
	const char *user_metadata;
	dl_progress_fn progress;
	void *progress_payload;
	int64_t to_version;                    /* TO VERSION AS OF n; < 0: use to_timestamp */
	const char *to_timestamp;              /* TO TIMESTAMP AS OF (Spark timestamp text) */
	/* spark.sql.files.ignoreMissingFiles: restore even when files of the
	 * old version are gone (else DELTA_CANNOT_RESTORE_TABLE_VERSION-style
	 * error naming them: Spark's RESTORE_MISSED_DATA_FILES). */
	bool ignore_missing_files;
} dl_restore_options;
#define DL_RESTORE_OPTIONS_INIT {DL_RESTORE_OPTIONS_VERSION, NULL, NULL, NULL, NULL, NULL, -1, NULL, false}

typedef struct dl_restore_metrics {
	int64_t version;                  /* the version committed, -1: already that state */
	int64_t tableSizeAfterRestore;
	int64_t numOfFilesAfterRestore;
	int64_t numRemovedFiles;
	int64_t numRestoredFiles;
	int64_t removedFilesSize;
	int64_t restoredFilesSize;
} dl_restore_metrics;

/* RESTORE TABLE <uri> TO VERSION AS OF n | TIMESTAMP AS OF ts: one commit
 * adding and removing files (by path and DV id) to reach that version's
 * files, metadata and (never downgraded) protocol. */
DL_EXTERN(int) dl_restore(dl_restore_metrics *metrics, const char *uri, const dl_restore_options *opts);

/* ---- SHALLOW CLONE (CloneTableCommand) ---- */

#define DL_CLONE_OPTIONS_VERSION 1
typedef struct dl_clone_options {
	int version;                           /* DL_CLONE_OPTIONS_VERSION */
	dl_store *store;                       /* the target's store */
	const dl_store_options *store_options;
	const char *user_metadata;
	dl_progress_fn progress;
	void *progress_payload;
	dl_store *source_store;                /* the source's store, or NULL (store_options) */
	int64_t source_version;                /* VERSION AS OF; < 0: latest or source_timestamp */
	const char *source_timestamp;          /* TIMESTAMP AS OF, or NULL */
	/* TBLPROPERTIES overriding the source's */
	const char *const *property_keys;
	const char *const *property_values;
	int nproperties;
	bool replace;                          /* CREATE OR REPLACE: the target may exist */
	bool if_not_exists;                    /* nothing when the target exists (version -1) */
	/* operationParameters.source: the source's name as Spark's
	 * DeltaTableV2.name() ("spark_catalog.s.t"); NULL: delta.`<source path>` */
	const char *source_name;
} dl_clone_options;
#define DL_CLONE_OPTIONS_INIT \
	{DL_CLONE_OPTIONS_VERSION, NULL, NULL, NULL, NULL, NULL, NULL, -1, NULL, NULL, NULL, 0, false, false, NULL}

typedef struct dl_clone_metrics {
	int64_t version;                  /* the target version committed, -1: none */
	int64_t sourceTableSize;
	int64_t sourceNumOfFiles;
	int64_t numRemovedFiles;
	int64_t numCopiedFiles;           /* 0 for a shallow clone */
	int64_t removedFilesSize;
	int64_t copiedFilesSize;
} dl_clone_metrics;

/* CREATE [OR REPLACE] TABLE <target> SHALLOW CLONE <source>: the target's
 * version references the source's files by absolute URI (DVs included),
 * with its protocol, metadata and app transactions. */
DL_EXTERN(int) dl_shallow_clone(dl_clone_metrics *metrics, const char *source_uri, const char *target_uri,
                                const dl_clone_options *opts);

/* ---- CONVERT TO DELTA (ConvertToDeltaCommand) ---- */

#define DL_CONVERT_OPTIONS_VERSION 1
typedef struct dl_convert_options {
	int version;                           /* DL_CONVERT_OPTIONS_VERSION */
	dl_store *store;
	const dl_store_options *store_options;
	const char *user_metadata;
	dl_progress_fn progress;               /* "convert" / "listing", "footers" / files */
	void *progress_payload;
	/* PARTITIONED BY (c TYPE, ...), Spark SQL column list; NULL: not partitioned */
	const char *partition_schema_ddl;
	bool no_statistics;                    /* NO STATISTICS */
	int threads;                           /* listing and footers; <= 0: the shared pool */
} dl_convert_options;
#define DL_CONVERT_OPTIONS_INIT {DL_CONVERT_OPTIONS_VERSION, NULL, NULL, NULL, NULL, NULL, NULL, false, 0}

typedef struct dl_convert_metrics {
	int64_t version;                  /* 0, or -1 when the directory already was a Delta table */
	int64_t numConvertedFiles;
} dl_convert_metrics;

/* CONVERT TO DELTA parquet.`<uri>` [NO STATISTICS] [PARTITIONED BY (...)]:
 * commits version 0 in place over the directory's Parquet files. */
DL_EXTERN(int) dl_convert_to_delta(dl_convert_metrics *metrics, const char *uri, const dl_convert_options *opts);

/* CONVERT TO DELTA iceberg.`<uri>`: version 0 in place over the data files
 * of the Iceberg table's current snapshot (metadata/v<N>.metadata.json),
 * column mapping ids from the Iceberg field ids; partition evolution,
 * non-identity transforms and merge-on-read deletes are refused
 * (DELTA_CONVERSION_UNSUPPORTED_SOURCE). partition_schema_ddl must be
 * NULL; no_statistics and threads are unused (stats: numRecords). */
DL_EXTERN(int) dl_convert_iceberg_to_delta(dl_convert_metrics *metrics, const char *uri,
                                           const dl_convert_options *opts);

/* ---- GENERATE symlink_format_manifest (DeltaGenerateCommand) ---- */

#define DL_GENERATE_OPTIONS_VERSION 1
typedef struct dl_generate_options {
	int version;                           /* DL_GENERATE_OPTIONS_VERSION */
	dl_store *store;
	const dl_store_options *store_options;
	const char *user_metadata;             /* unused: GENERATE commits nothing */
	dl_progress_fn progress;
	void *progress_payload;
	const char *mode;                      /* NULL or "symlink_format_manifest" (the only one) */
} dl_generate_options;
#define DL_GENERATE_OPTIONS_INIT {DL_GENERATE_OPTIONS_VERSION, NULL, NULL, NULL, NULL, NULL, NULL}

/* Writes _symlink_format_manifest/[partition dirs/]manifest for the latest
 * version (the files Presto/Trino/Athena read) and deletes the manifests of
 * partitions that no longer exist. *files: data files listed. */
DL_EXTERN(int) dl_generate_manifest(int64_t *files, const char *uri, const dl_generate_options *opts);

/* ---- FSCK REPAIR TABLE ---- */

#define DL_FSCK_OPTIONS_VERSION 1
typedef struct dl_fsck_options {
	int version;                           /* DL_FSCK_OPTIONS_VERSION */
	dl_store *store;
	const dl_store_options *store_options;
	const char *user_metadata;
	dl_progress_fn progress;
	void *progress_payload;
	bool dry_run;                          /* report, commit nothing */
	dl_vacuum_file_fn on_file;             /* each entry removed: its data file path and size
	                                          from the log, or size -1 when the data file is
	                                          there but its deletion vector file is missing */
	void *on_file_payload;
} dl_fsck_options;
#define DL_FSCK_OPTIONS_INIT {DL_FSCK_OPTIONS_VERSION, NULL, NULL, NULL, NULL, NULL, false, NULL, NULL}

typedef struct dl_fsck_result {
	int64_t version;                  /* the FSCK commit, -1: none */
	int64_t numFilesRemoved;          /* log entries removed (or, dry run, to remove) */
} dl_fsck_result;

/* FSCK REPAIR TABLE <uri> [DRY RUN]: removes the add entries whose data
 * (or DV) file is missing from storage. */
DL_EXTERN(int) dl_fsck_repair(dl_fsck_result *out, const char *uri, const dl_fsck_options *opts);

#ifdef __cplusplus
}
#endif
#endif
