/* The internal side of dl_snapshot (include/deltalake/snapshot.h): the
 * segment, the replayed state and the parsed schema/properties, for the
 * table layer (scans, CDF, history) and the write path. */
#ifndef DL_LOG_SNAPSHOT_H
#define DL_LOG_SNAPSHOT_H
#include "columnar/types.h"
#include "deltalake/snapshot.h"
#include "log/log_segment.h"
#include "log/properties.h"
#include "log/replay.h"
#include "storage/resolve.h"

struct dl_snapshot {
	dl_store *store;             /* the table's store */
	bool owns_store;
	dl_log_segment segment;
	dl_log_state state;
	dl_type *schema;             /* logical schema (a struct); NULL when the
	                                metaData has no schemaString */
	dl_table_properties props;
	int64_t timestamp_ms;        /* commit timestamp of the version */
	int64_t in_commit_timestamp; /* DL_NONE when not enabled */
	bool without_tombstones;     /* opened with skip_tombstones */
	bool metadata_only;          /* opened with metadata_only: no files */
	dl_path_roots allowed_roots; /* the path policy (count 0: unconfined) */
};

/* Internal accessors. */
static inline const dl_log_state *dl_snapshot_state(const dl_snapshot *s) { return &s->state; }
static inline const dl_type *dl_snapshot_schema(const dl_snapshot *s) { return s->schema; }
static inline const dl_table_properties *dl_snapshot_props(const dl_snapshot *s) { return &s->props; }
static inline dl_store *dl_snapshot_store(const dl_snapshot *s) { return s->store; }
static inline const dl_path_roots *dl_snapshot_allowed_roots(const dl_snapshot *s) { return &s->allowed_roots; }

/* The commit timestamps (epoch ms) of every listed commit, as used for time
 * travel: in-commit timestamps from the enablement version on (per the
 * latest metadata), file mtimes before, made strictly increasing as Spark
 * does. versions[i] / ts[i], ascending; malloc'd. */
int dl_log_commit_timestamps(dl_store *store, const dl_table_properties *latest_props,
                             int64_t **versions, int64_t **ts, size_t *n);
/* The version current at `ts_ms` under Spark's rules. */
int dl_log_version_at_timestamp(const int64_t *versions, const int64_t *ts, size_t n,
                                int64_t ts_ms, bool allow_after_latest, int64_t *out);
/* Reads the inCommitTimestamp (or DL_NONE) of one commit file. */
int dl_log_commit_ict(dl_store *store, int64_t version, int64_t *out);

#endif
