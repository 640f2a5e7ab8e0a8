/* CREATE TABLE (and create-if-not-exists, create-or-replace) and the
 * helpers writes share with it: opening the table a write targets, building
 * remove actions, and the operation parameters Spark records. */
#ifndef DL_OPS_CREATE_H
#define DL_OPS_CREATE_H
#include <stdbool.h>
#include "deltalake/write.h"
#include "log/actions.h"
#include "txn/txn.h"
#include "util/arena.h"

/* Opens the latest snapshot of the table in `store`, or *out = NULL when
 * there is no table there yet (no commit in _delta_log). */
int dl_ops_open_latest(dl_snapshot **out, dl_store *store);

/* A remove action (dataChange as given, deletion timestamp `now_ms`) for a
 * live file, added to the transaction. */
int dl_ops_remove_file(dl_transaction *t, const dl_add *add, int64_t now_ms, bool data_change);

/* Removes every live file of the transaction's snapshot; *nfiles / *bytes
 * get what was removed (may be NULL). */
int dl_ops_remove_all(dl_transaction *t, int64_t now_ms, bool data_change, int64_t *nfiles,
                      int64_t *bytes);

/* The configuration of a new table from parallel key/value arrays plus
 * CHECK constraints (stored as delta.constraints.<lower-case name>). Each
 * key is validated as Spark's DeltaConfigs.validateConfigurations
 * (log/delta_configs.h: DELTA_UNKNOWN_CONFIGURATION, bad values) and a known
 * delta.* key stored under its canonical spelling. */
int dl_ops_build_configuration(dl_str_map *out, dl_arena *arena, const char *const *keys,
                               const char *const *values, int n, const char *const *cnames,
                               const char *const *cexprs, int nc);

/* The delta.clustering domain action of a table (re)defined by `plan`:
 * its clustering, or for a replace (old, the replaced snapshot, may be
 * NULL) of a clustered table by one without CLUSTER BY, the old domain
 * removed. */
struct dl_table_plan;
int dl_ops_set_clustering_domain(dl_transaction *t, dl_snapshot *old, const struct dl_table_plan *plan);

/* operationParameters "partitionBy" as Spark writes it: a JSON array text. */
int dl_ops_partition_by_json(dl_buf *out, const char *const *cols, uint32_t n);

#endif
