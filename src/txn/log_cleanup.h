/* Expired log cleanup (PROTOCOL.md "Metadata Cleanup"). */
#ifndef DL_TXN_LOG_CLEANUP_H
#define DL_TXN_LOG_CLEANUP_H
#include <stdint.h>
#include "deltalake/maintenance.h"
#include "deltalake/store.h"
#include "log/properties.h"

/* Deletes the log files older than delta.logRetentionDuration (from
 * `props`) that no snapshot from the cut-off on needs: the cut-off time is
 * midnight UTC of now - retention; the newest complete checkpoint at or
 * before the newest commit not newer than that is kept with its commit and
 * everything after it; commits, checkpoints and .crc files of earlier
 * versions, and compaction files starting at or before it, are deleted.
 * Nothing is deleted when no such checkpoint exists. now_ms INT64_MIN: the
 * clock. Then sidecar files that no remaining checkpoint references and
 * that are older than a day (as of midnight UTC) are deleted too, and
 * temporary files of writes that died, once a day old. progress (NULL:
 * none) is told before each batch of deletions (one request on an object
 * store, up to 1000 files) and can stop the cleanup there
 * (DL_ECANCELLED). The public dl_log_cleanup (deltalake/maintenance.h) is
 * this over a snapshot. */
int dl_log_cleanup_store(dl_log_cleanup_result *out, dl_store *store, const dl_table_properties *props,
                         int64_t now_ms, dl_progress_fn progress, void *payload);

/* DROP FEATURE ... TRUNCATE HISTORY's cleanup (Spark's cleanUpExpiredLogs
 * with TruncationGranularity.MINUTE): the same with the cut-off at the
 * minute of now - retention_ms instead of midnight. */
int dl_log_cleanup_truncate_history(dl_log_cleanup_result *out, dl_store *store,
                                    const dl_table_properties *props, int64_t retention_ms, int64_t now_ms);

#endif
