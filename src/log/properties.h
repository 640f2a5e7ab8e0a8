/* Typed access to the table properties of metaData.configuration, with the
 * defaults the Delta reference implementation uses. Invalid values are
 * DL_EINVALID naming the property (a table with a bad property can still
 * be read: snapshots parse leniently and keep the default). */
#ifndef DL_LOG_PROPERTIES_H
#define DL_LOG_PROPERTIES_H
#include <stdbool.h>
#include <stdint.h>
#include "log/actions.h"

typedef enum dl_column_mapping_mode {
	DL_CM_NONE = 0,
	DL_CM_ID,
	DL_CM_NAME,
} dl_column_mapping_mode;

typedef enum dl_isolation_level {
	DL_ISOLATION_WRITE_SERIALIZABLE = 0,
	DL_ISOLATION_SERIALIZABLE,
	DL_ISOLATION_SNAPSHOT,
} dl_isolation_level;

typedef enum dl_checkpoint_policy {
	DL_CHECKPOINT_CLASSIC = 0,
	DL_CHECKPOINT_V2,
} dl_checkpoint_policy;

typedef struct dl_table_properties {
	int64_t checkpoint_interval;          /* delta.checkpointInterval: 10 */
	int64_t log_retention_ms;             /* delta.logRetentionDuration: 30 days */
	int64_t deleted_file_retention_ms;    /* delta.deletedFileRetentionDuration: 7 days */
	int64_t checkpoint_retention_ms;      /* delta.checkpointRetentionDuration: 2 days */
	int32_t data_skipping_num_indexed_cols; /* delta.dataSkippingNumIndexedCols: 32 (-1 all) */
	const char *data_skipping_stats_columns; /* delta.dataSkippingStatsColumns or NULL */
	bool enable_change_data_feed;         /* delta.enableChangeDataFeed */
	dl_column_mapping_mode column_mapping_mode; /* delta.columnMapping.mode */
	int64_t column_mapping_max_id;        /* delta.columnMapping.maxColumnId: 0 */
	bool enable_deletion_vectors;         /* delta.enableDeletionVectors */
	bool append_only;                     /* delta.appendOnly */
	dl_isolation_level isolation_level;   /* delta.isolationLevel */
	dl_checkpoint_policy checkpoint_policy; /* delta.checkpointPolicy */
	bool enable_in_commit_timestamps;     /* delta.enableInCommitTimestamps (or -preview) */
	int64_t ict_enablement_version;       /* delta.inCommitTimestampEnablementVersion, -1 */
	int64_t ict_enablement_timestamp;     /* delta.inCommitTimestampEnablementTimestamp, -1 */
	bool enable_row_tracking;             /* delta.enableRowTracking */
	bool checkpoint_write_stats_as_json;  /* delta.checkpoint.writeStatsAsJson: true */
	bool checkpoint_write_stats_as_struct; /* delta.checkpoint.writeStatsAsStruct: false */
	bool enable_expired_log_cleanup;      /* delta.enableExpiredLogCleanup: true */
	bool enable_type_widening;            /* delta.enableTypeWidening */
	int64_t randomize_file_prefixes;      /* delta.randomizeFilePrefixes: 0 = false */
	int32_t random_prefix_length;         /* delta.randomPrefixLength: 2 */
	const char *parquet_compression_codec; /* delta.parquet.compression.codec or NULL */
	const char *parquet_bloom_filter_columns; /* delta.parquet.bloomFilter.columns or NULL */
	double parquet_bloom_filter_fpp;      /* delta.parquet.bloomFilter.fpp: 0.01 */
	int64_t set_transaction_retention_ms; /* delta.setTransactionRetentionDuration, -1: none */
	int64_t checkpoint_protection_version; /* delta.requireCheckpointProtectionBeforeVersion: 0 */
	int64_t truncate_history_retention_ms; /* delta.dropFeatureTruncateHistory.retentionDuration: 24 hours */
} dl_table_properties;

/* Fills `out` from a configuration map. With `strict`, the first invalid
 * value fails; without, invalid values keep their defaults. */
int dl_table_properties_parse(dl_table_properties *out, const dl_str_map *configuration,
                              bool strict);
void dl_table_properties_defaults(dl_table_properties *out);

/* Parses a Spark CalendarInterval string as Delta accepts it for
 * durations ("interval 7 days", "30 days", "interval 1 week 2 hours") into
 * milliseconds. Months and years are refused (not a fixed length). */
int dl_parse_interval_ms(const char *s, int64_t *out_ms);
/* "true"/"false" (case-insensitive, spaces trimmed). */
int dl_parse_bool_property(const char *s, bool *out);

/* The CHECK constraints in the configuration (delta.constraints.<name>):
 * calls fn(name, expression) for each; stops on a negative return. */
typedef int (*dl_constraint_fn)(const char *name, const char *expression, void *payload);
int dl_table_constraints_each(const dl_str_map *configuration, dl_constraint_fn fn, void *payload);

#endif
