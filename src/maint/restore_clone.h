/* What RESTORE, SHALLOW CLONE and CONVERT TO DELTA share (restore.c,
 * clone.c, convert*.c): the store a command works on, its progress
 * callback, the (path, deletion vector id) key of a file, Spark's
 * Protocol.merge, and the time-travel version of Spark's timestamp text. */
#ifndef DL_MAINT_RESTORE_CLONE_H
#define DL_MAINT_RESTORE_CLONE_H
#include <stdbool.h>
#include <stdint.h>
#include "deltalake/progress.h"
#include "deltalake/store.h"
#include "columnar/types.h"
#include "log/actions.h"
#include "log/properties.h"
#include "util/arena.h"
#include "util/buf.h"

/* `store` when given (borrowed: *owned false), else the store of `uri`
 * opened with `options`. `what` names the command in errors. */
int dl_maint_store(dl_store **out, bool *owned, dl_store *store, const dl_store_options *options,
                   const char *uri, const char *what);

/* The caller's progress callback; non-zero cancels (DL_ECANCELLED naming
 * `operation` and `phase`). No callback: 0. */
int dl_maint_progress(dl_progress_fn fn, void *payload, const char *operation, const char *phase,
                      const char *unit, int64_t done, int64_t total);

/* "<path>\0<dv unique id>" into `out` (cleared first): the identity of a
 * live file in PROTOCOL.md's action reconciliation. */
int dl_maint_file_key(dl_buf *out, const dl_add *add);

/* Spark's Protocol.merge: the highest reader and writer versions, every
 * feature either supports (legacy features implied by versions included),
 * then the weakest legacy form of the result when one says the same. *out
 * lives in `arena`. */
int dl_maint_protocol_merge(dl_protocol *out, dl_arena *arena, const dl_protocol *a,
                            const dl_protocol *b);

/* The version current at Spark timestamp text `ts` (UTC when it names no
 * zone), as DeltaHistoryManager.getActiveCommitAtTime with
 * canReturnLastCommit: a timestamp after the last commit gives the last
 * version; one before the first commit is
 * DELTA_TIMESTAMP_EARLIER_THAN_COMMIT_RETENTION. *ts_text gets Spark's
 * java.sql.Timestamp text of the instant (for operationParameters), in
 * `arena`; `latest` is the table's latest snapshot. */
struct dl_snapshot;
int dl_maint_version_at(int64_t *version, const char **ts_text, dl_arena *arena,
                        struct dl_snapshot *latest, const char *ts, const char *what);

/* Spark's IdentityColumn.copySchemaWithMergedHighWaterMarks: the schema
 * `to_copy` (restored) with each identity column's
 * delta.identity.highWaterMark moved to the one of the column of the same
 * physical name in `merge_from` (the latest) when that is further along
 * the column's step, so restored identity values are never handed out
 * twice. *schema_json: the new schema JSON (in arena), NULL when nothing
 * changes. */
int dl_maint_merge_identity_hwm(const char **schema_json, dl_arena *arena, const dl_type *to_copy,
                                const dl_type *merge_from, dl_column_mapping_mode mode);

/* The delta.rowTracking domain's rowIdHighWaterMark of `s`, -1 without. */
int64_t dl_maint_row_id_hwm(const struct dl_snapshot *s);

/* Row ids for an add committed at `version` on a table with row tracking,
 * as Spark's commitLarge assigns them (RowId.assignFreshRowIds,
 * DefaultRowCommitVersion.assignIfMissing): an add without baseRowId gets
 * *hwm + 1 and moves *hwm past its numRecords (from its stats: an add
 * without is DL_EINVALID); one without defaultRowCommitVersion gets
 * `version`. Ids it has are kept. */
int dl_maint_fresh_row_ids(dl_add *add, int64_t *hwm, int64_t version, dl_arena *arena);

#endif
