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
#include "log/actions.h"
#include "txn/txn.h"

/* spark.databricks.delta.optimizeWrite.binSize: 512 MiB */
#define DL_OPTIMIZE_WRITE_BIN_SIZE (INT64_C(512) << 20)

/* override: -1 the table's property, 0 off, 1 on. Values are compared
 * case-insensitively; OSS Spark knows "true" and "false" only
 * (AutoCompactType), anything else leaves the feature off. */
bool dl_ops_optimize_write_enabled(const dl_str_map *configuration, int override);
bool dl_ops_auto_compact_enabled(const dl_str_map *configuration, int override);

#endif
