/* The two "auto optimize" settings of a Delta table (Spark's DeltaConfigs
 * AUTO_COMPACT / OPTIMIZE_WRITE and DeltaSQLConf's session switches):
 *
 *   delta.autoOptimize.optimizeWrite = true   a write makes fewer, larger
 *       files per partition (write.c rolls files at the bin size);
 *   delta.autoOptimize.autoCompact = true     after a commit that added
 *       files, the small files of the partitions it added to are compacted
 *       (an OPTIMIZE with auto=true, optimize/auto_compact.h);
 *   delta.autoOptimize = true                 the deprecated switch that
 *       turns auto compaction on (AutoCompact.getAutoCompactType).
 *
 * A caller's override (the session conf spark.databricks.delta.
 * autoCompact.enabled / optimizeWrite.enabled; dl_write_options) wins over
 * the table. */
#ifndef DL_OPS_AUTO_OPTIMIZE_H
#define DL_OPS_AUTO_OPTIMIZE_H
#include <stdbool.h>
#include <stdint.h>
#include "deltalake/store.h"
#include "log/actions.h"

/* spark.databricks.delta.optimizeWrite.binSize: 512 MiB */
#define DL_OPTIMIZE_WRITE_BIN_SIZE (INT64_C(512) << 20)

/* override: -1 the table's property, 0 off, 1 on. Values are compared
 * case-insensitively: optimizeWrite is a boolean; autoCompact takes what
 * optimize/auto_compact.h's dl_auto_compact_enabled reads ("true", and
 * Databricks' "auto" / "legacy"), anything else leaves it off. */
bool dl_ops_optimize_write_enabled(const dl_str_map *configuration, int override);
bool dl_ops_auto_compact_enabled(const dl_str_map *configuration, int override);

/* The post-commit hook of auto compaction, run by dl_write, DELETE,
 * UPDATE and MERGE after their commit of `version` landed: when enabled
 * for the table (`configuration` as committed, `override` as above) it
 * compacts the partitions the commit's adds touched (dl_auto_compact: an
 * OPTIMIZE commit with auto=true, only where enough small files are).
 * Like Spark's post-commit hooks it never fails the operation that
 * committed: an error is dropped and the thread's error state is left as
 * it was; a failure commits nothing. */
void dl_ops_auto_compact_after_commit(dl_store *store, const dl_str_map *configuration, int override,
                                      int64_t version);

#endif
