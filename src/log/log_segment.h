/* The files of _delta_log that make up one snapshot (PROTOCOL.md "Delta Log
 * Entries", "Checkpoints", "Log Compaction Files", "Last Checkpoint File",
 * "Version Checksum File"): the newest complete checkpoint at or before the
 * version, the commits after it, the log compaction files that can replace
 * runs of those commits, and the version's .crc file. */
#ifndef DL_LOG_LOG_SEGMENT_H
#define DL_LOG_LOG_SEGMENT_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "deltalake/store.h"

#define DL_LOG_DIR "_delta_log"

typedef enum dl_log_file_kind {
	DL_LOGF_COMMIT,             /* N.json */
	DL_LOGF_CRC,                /* N.crc */
	DL_LOGF_CHECKPOINT,         /* N.checkpoint.parquet */
	DL_LOGF_CHECKPOINT_PART,    /* N.checkpoint.P.K.parquet */
	DL_LOGF_CHECKPOINT_V2_JSON, /* N.checkpoint.<uuid>.json */
	DL_LOGF_CHECKPOINT_V2_PARQUET, /* N.checkpoint.<uuid>.parquet */
	DL_LOGF_COMPACTION,         /* X.Y.compacted.json */
	DL_LOGF_OTHER,
} dl_log_file_kind;

typedef struct dl_log_file {
	char *path;          /* relative to the table root: "_delta_log/..." */
	dl_log_file_kind kind;
	int64_t version;     /* commit/checkpoint version; compaction: first version */
	int64_t end_version; /* compaction: last version; else == version */
	int32_t part, nparts; /* multi-part checkpoints */
	int64_t size;
	int64_t mtime_ms;
} dl_log_file;

/* Classifies a file name of _delta_log (without directory). */
dl_log_file_kind dl_log_file_classify(const char *name, int64_t *version, int64_t *end_version,
                                      int32_t *part, int32_t *nparts);

typedef struct dl_log_segment {
	int64_t version;              /* the snapshot's version */
	int64_t checkpoint_version;   /* -1 without a checkpoint */
	dl_log_file_kind checkpoint_kind;
	dl_log_file *checkpoint;      /* its parts (1 unless multi-part) */
	size_t ncheckpoint;
	dl_log_file *commits;         /* versions checkpoint+1..version, ascending */
	size_t ncommits;
	dl_log_file *compactions;     /* usable ones, non-overlapping, ascending */
	size_t ncompactions;
	dl_log_file *crc;             /* version.crc, or NULL */
	dl_log_file *last_commit;     /* version.json when listed (even under a checkpoint) */
} dl_log_segment;

/* Builds the segment of `version` (-1 for the latest). Errors:
 * DL_ENOTFOUND "not a Delta table: no _delta_log" when the log is empty or
 * missing, DL_ENOTFOUND for a version past the end or cleaned up,
 * DL_ECORRUPT "versions not contiguous: version 2 is missing from the log". */
int dl_log_segment_build(dl_log_segment *out, dl_store *store, int64_t version);
void dl_log_segment_free(dl_log_segment *seg);

/* Every commit file of the log (ascending) with its size and mtime; used
 * for history and for time travel by timestamp. */
int dl_log_list_commits(dl_store *store, dl_log_file **out, size_t *n);
void dl_log_files_free(dl_log_file *files, size_t n);

/* The parsed _last_checkpoint hint: version (-1 when missing or malformed),
 * parts (0 when absent). */
typedef struct dl_last_checkpoint {
	int64_t version;
	int64_t size;
	int32_t parts;
	int64_t num_of_add_files;
} dl_last_checkpoint;
int dl_last_checkpoint_read(dl_store *store, dl_last_checkpoint *out);

/* "_delta_log/%020lld.json" etc. into buf (cap >= 64). */
void dl_log_commit_path(char *buf, size_t cap, int64_t version);

#endif
