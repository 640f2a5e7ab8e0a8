/* Snapshots: the state of a Delta table at one version.
 *
 * A snapshot is opened on a table (latest version, a given version, or the
 * version that was current at a timestamp) and tells everything the log
 * says about that version: schema, partition columns, properties, protocol,
 * the live data files with their statistics, tombstones, application
 * transaction versions and domain metadata. Strings returned by accessors
 * are borrowed from the snapshot and live as long as it does.
 *
 * Thread safety: a snapshot never changes after dl_snapshot_open (the log
 * is read once; later commits need a new snapshot), so every accessor, and
 * the scans, histories and details opened on it, may be used from several
 * threads at once. Free it from one thread, after everything opened on it. */
#ifndef DELTALAKE_SNAPSHOT_H
#define DELTALAKE_SNAPSHOT_H
#include "deltalake/common.h"
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "deltalake/store.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct dl_snapshot dl_snapshot;

#define DL_SNAPSHOT_OPTIONS_VERSION 2
/* "no timestamp" for as_of_timestamp_ms */
#define DL_NO_TIMESTAMP INT64_MIN

typedef struct dl_snapshot_options {
	int version;                 /* DL_SNAPSHOT_OPTIONS_VERSION */
	int64_t as_of_version;       /* -1 for the latest */
	int64_t as_of_timestamp_ms;  /* DL_NO_TIMESTAMP, or epoch ms: the latest
	                                version committed at or before it */
	bool allow_after_latest;     /* a timestamp after the last commit gives
	                                the latest version instead of an error */
	bool skip_tombstones;        /* do not keep remove actions (less memory) */
	dl_store *store;             /* use this store (borrowed) instead of the uri */
	bool metadata_only;          /* only protocol, metadata, commit info, txns
	                                and domains (all from the log; a .crc that
	                                agrees with it saves reading them): no
	                                files are loaded, file_count is 0 */
	/* since version 2: */
	const dl_store_options *store_options; /* opening the uri's store (and the
	                                stores of absolute data and DV paths);
	                                NULL: defaults. Copied. */
	/* Path policy. With nallowed_roots == 0 (the default) data and
	 * deletion-vector paths may be relative to the table root or absolute
	 * anywhere (shallow clones point at their source's files). With roots
	 * given, every such path must lie inside the table root or one of the
	 * roots (URIs or local paths), compared after normalizing "." and ".."
	 * segments, duplicate '/' and the file: spellings, segment by segment
	 * (/data/t2 is not inside /data/t); others are refused with DL_EPERM
	 * naming the path and the table, when a scan plans or reads them. The
	 * check is lexical: symbolic links under a root are followed, so a root
	 * must not contain links written by whom the policy confines. Copied;
	 * scans inherit it (dl_scan_options can replace the roots). */
	const char *const *allowed_roots;
	int nallowed_roots;
} dl_snapshot_options;

#define DL_SNAPSHOT_OPTIONS_INIT \
	{DL_SNAPSHOT_OPTIONS_VERSION, -1, DL_NO_TIMESTAMP, false, false, NULL, false, NULL, NULL, 0}

/* Opens a snapshot of the table at `uri` (a path or any registered URI,
 * opened with opts->store_options; ignored when opts->store is set). Options
 * of every version from 1 to DL_SNAPSHOT_OPTIONS_VERSION are accepted. opts may be NULL for the latest version.
 * Errors: DL_ENOTFOUND "not a Delta table: no _delta_log", a missing
 * version, a timestamp outside the history; DL_ECORRUPT for a broken log;
 * DL_EUNSUPPORTED for protocol versions or features this reader lacks. */
DL_EXTERN(int) dl_snapshot_open(dl_snapshot **out, const char *uri, const dl_snapshot_options *opts);
DL_EXTERN(void) dl_snapshot_free(dl_snapshot *s);

DL_EXTERN(int64_t) dl_snapshot_version(const dl_snapshot *s);
/* The commit timestamp of the snapshot's version (epoch ms): the
 * in-commit timestamp when enabled, else the commit file's mtime. */
DL_EXTERN(int64_t) dl_snapshot_timestamp(const dl_snapshot *s);
/* The commit timestamp of any version <= the snapshot's (lists the log). */
DL_EXTERN(int) dl_snapshot_commit_timestamp(int64_t *out_ms, dl_snapshot *s, int64_t version);
/* The in-commit timestamp of the snapshot's version; DL_ENOTFOUND when the
 * table does not use in-commit timestamps at this version. */
DL_EXTERN(int) dl_snapshot_in_commit_timestamp(int64_t *out_ms, const dl_snapshot *s);

/* The table root the snapshot was opened on. */
DL_EXTERN(const char *) dl_snapshot_table_root(const dl_snapshot *s);
/* The schema as Delta schema JSON (metaData.schemaString); NULL when the
 * metaData has none (some very old tables). */
DL_EXTERN(const char *) dl_snapshot_schema_json(const dl_snapshot *s);
DL_EXTERN(size_t) dl_snapshot_partition_column_count(const dl_snapshot *s);
DL_EXTERN(const char *) dl_snapshot_partition_column(const dl_snapshot *s, size_t i);

/* metaData fields; NULL (or -1 for created time) when absent. */
DL_EXTERN(const char *) dl_snapshot_table_id(const dl_snapshot *s);
DL_EXTERN(const char *) dl_snapshot_table_name(const dl_snapshot *s);
DL_EXTERN(const char *) dl_snapshot_table_description(const dl_snapshot *s);
DL_EXTERN(int64_t) dl_snapshot_created_time(const dl_snapshot *s);
DL_EXTERN(const char *) dl_snapshot_format_provider(const dl_snapshot *s);

/* Table properties (metaData.configuration). */
DL_EXTERN(size_t) dl_snapshot_property_count(const dl_snapshot *s);
DL_EXTERN(void) dl_snapshot_property_at(const char **key, const char **value, const dl_snapshot *s, size_t i);
/* The value of a property, or NULL when unset. */
DL_EXTERN(const char *) dl_snapshot_property(const dl_snapshot *s, const char *key);

/* Protocol: versions and feature lists (counts are 0 when absent). */
DL_EXTERN(int) dl_snapshot_min_reader_version(const dl_snapshot *s);
DL_EXTERN(int) dl_snapshot_min_writer_version(const dl_snapshot *s);
DL_EXTERN(size_t) dl_snapshot_reader_feature_count(const dl_snapshot *s);
DL_EXTERN(const char *) dl_snapshot_reader_feature(const dl_snapshot *s, size_t i);
DL_EXTERN(size_t) dl_snapshot_writer_feature_count(const dl_snapshot *s);
DL_EXTERN(const char *) dl_snapshot_writer_feature(const dl_snapshot *s, size_t i);
/* Whether the table supports a feature (listed or implied by versions). */
DL_EXTERN(bool) dl_snapshot_has_feature(const dl_snapshot *s, const char *feature);

/* Live data files (add actions). */
typedef struct dl_file_info {
	const char *path;            /* decoded; relative to the table root or absolute */
	int64_t size;
	int64_t modification_time;   /* epoch ms */
	bool data_change;
	const char *stats;           /* the stats JSON, or NULL */
	size_t npartition_values;
	bool has_deletion_vector;
	int64_t deleted_rows;        /* the DV's cardinality, 0 without a DV */
	int64_t base_row_id;         /* INT64_MIN when absent */
	int64_t default_row_commit_version; /* INT64_MIN when absent */
} dl_file_info;

DL_EXTERN(size_t) dl_snapshot_file_count(const dl_snapshot *s);
/* Sum of the live files' sizes in bytes. */
DL_EXTERN(int64_t) dl_snapshot_total_size(const dl_snapshot *s);
DL_EXTERN(int) dl_snapshot_file_at(dl_file_info *out, const dl_snapshot *s, size_t i);
/* Partition value j of file i (value NULL for a null partition value). */
DL_EXTERN(int) dl_snapshot_file_partition_value(const char **key, const char **value,
                                                const dl_snapshot *s, size_t i, size_t j);

/* Tombstones (remove actions still in the state). */
typedef struct dl_tombstone_info {
	const char *path;
	int64_t deletion_timestamp;  /* INT64_MIN when absent */
	int64_t size;                /* INT64_MIN when absent */
	bool data_change;
	bool has_deletion_vector;
} dl_tombstone_info;
DL_EXTERN(size_t) dl_snapshot_tombstone_count(const dl_snapshot *s);
DL_EXTERN(int) dl_snapshot_tombstone_at(dl_tombstone_info *out, const dl_snapshot *s, size_t i);

/* Application transactions (txn): the latest version per app id. The list
 * holds all of them; dl_snapshot_app_version applies the table's
 * delta.setTransactionRetentionDuration (expired ones are not found). */
DL_EXTERN(size_t) dl_snapshot_app_count(const dl_snapshot *s);
DL_EXTERN(void) dl_snapshot_app_at(const char **app_id, int64_t *version,
                                   int64_t *last_updated, const dl_snapshot *s, size_t i);
/* DL_ENOTFOUND when the app never committed. */
DL_EXTERN(int) dl_snapshot_app_version(int64_t *version, const dl_snapshot *s, const char *app_id);

/* Domain metadata (removed domains excluded). */
DL_EXTERN(size_t) dl_snapshot_domain_count(const dl_snapshot *s);
DL_EXTERN(void) dl_snapshot_domain_at(const char **domain, const char **configuration,
                                      const dl_snapshot *s, size_t i);
/* The configuration of a domain, or NULL when absent. */
DL_EXTERN(const char *) dl_snapshot_domain(const dl_snapshot *s, const char *domain);

/* The commitInfo of the snapshot's version as JSON, or NULL. */
DL_EXTERN(const char *) dl_snapshot_commit_info(const dl_snapshot *s);

#ifdef __cplusplus
}
#endif
#endif
