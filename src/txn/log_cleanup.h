/* Expired log cleanup (PROTOCOL.md "Metadata Cleanup"). */
#ifndef DL_TXN_LOG_CLEANUP_H
#define DL_TXN_LOG_CLEANUP_H
#include <stdint.h>
#include "deltalake/store.h"
#include "log/properties.h"

typedef struct dl_log_cleanup_result {
	int64_t cutoff_checkpoint;  /* the checkpoint kept as the new start, -1 for none */
	int64_t deleted_commits;    /* N.json */
	int64_t deleted_checkpoints; /* checkpoint files and parts */
	int64_t deleted_other;      /* .crc, compaction and stale temporary files */
	int64_t deleted_sidecars;   /* _sidecars files no remaining checkpoint references */
} dl_log_cleanup_result;

/* Deletes the log files older than delta.logRetentionDuration (from
 * `props`) that no snapshot from the cut-off on needs: the cut-off time is
 * midnight UTC of now - retention; the newest complete checkpoint at or
 * before the newest commit not newer than that is kept with its commit and
 * everything after it; commits, checkpoints and .crc files of earlier
 * versions, and compaction files starting at or before it, are deleted.
 * Nothing is deleted when no such checkpoint exists. now_ms INT64_MIN: the
 * clock. Then sidecar files that no remaining checkpoint references and
 * that are older than a day (as of midnight UTC) are deleted too, and
 * temporary files of writes that died, once a day old. */
int dl_log_cleanup(dl_log_cleanup_result *out, dl_store *store, const dl_table_properties *props,
                   int64_t now_ms);

#endif
