/* Auto compaction (Spark's AutoCompact, delta.autoOptimize.autoCompact):
 * after a commit that added files, compact the small files of the
 * partitions that commit touched, as its own OPTIMIZE commit with
 * operationParameters auto=true.
 *
 * Spark's defaults: files below minFileSize (maxFileSize / 2 unless set)
 * are candidates, written files aim at maxFileSize (128 MiB,
 * spark.databricks.delta.autoCompact.maxFileSize), and a partition is
 * compacted only when it has at least minNumFiles (50,
 * spark.databricks.delta.autoCompact.minNumFiles) small files.
 *
 * The write path calls it after its commit succeeded:
 *
 *   if (dl_auto_compact_enabled(&snapshot_props_configuration)) {
 *       dl_optimize_metrics m;
 *       dl_auto_compact_options ao = DL_AUTO_COMPACT_OPTIONS_INIT;
 *       int rc = dl_auto_compact(&m, store, committed_version, &ao);
 *       // a failure of auto compaction does not fail the write (Spark logs
 *       // it); m.version -1 when there was nothing to compact.
 *   }
 */
#ifndef DL_OPTIMIZE_AUTO_COMPACT_H
#define DL_OPTIMIZE_AUTO_COMPACT_H
#include <stdbool.h>
#include <stdint.h>
#include "deltalake/maintenance.h"
#include "log/actions.h"

#define DL_AUTO_COMPACT_MAX_FILE_SIZE (128LL * 1024 * 1024)
#define DL_AUTO_COMPACT_MIN_NUM_FILES 50

#define DL_AUTO_COMPACT_OPTIONS_VERSION 1
typedef struct dl_auto_compact_options {
	int version;              /* DL_AUTO_COMPACT_OPTIONS_VERSION */
	int64_t max_file_size;    /* 0: 128 MiB */
	int64_t min_file_size;    /* 0: max_file_size / 2 */
	int64_t min_num_files;    /* <= 0: 50 */
	const char *user_metadata;
	dl_progress_fn progress;
	void *progress_payload;
} dl_auto_compact_options;
#define DL_AUTO_COMPACT_OPTIONS_INIT {DL_AUTO_COMPACT_OPTIONS_VERSION, 0, 0, 0, NULL, NULL, NULL}

/* Whether delta.autoOptimize.autoCompact asks for it: "true", "auto" or
 * "legacy" (case-insensitive) as Spark reads it; absent or "false": no. */
bool dl_auto_compact_enabled(const dl_str_map *configuration);

/* Compacts the partitions that the add actions of commit `version` of the
 * table in `store` touched (for an unpartitioned table: the table), each
 * only when it has at least min_num_files files below min_file_size.
 * metrics->version is the OPTIMIZE commit, or -1 when nothing qualified.
 * A conflict with a concurrent writer is DL_ECONFLICT and commits nothing. */
int dl_auto_compact(dl_optimize_metrics *metrics, dl_store *store, int64_t version,
                    const dl_auto_compact_options *opts);

#endif
