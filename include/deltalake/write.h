/* Creating tables and writing data.
 *
 *   dl_create_options c = DL_CREATE_OPTIONS_INIT;
 *   c.schema_ddl = "id BIGINT NOT NULL, name STRING, d DATE";
 *   const char *parts[] = {"d"};
 *   c.partition_columns = parts; c.npartition_columns = 1;
 *   int64_t v;
 *   dl_create_table(&v, "/data/events", &c);          // version 0
 *
 *   dl_write_options w = DL_WRITE_OPTIONS_INIT;
 *   w.mode = DL_WRITE_APPEND;
 *   dl_write(&v, "/data/events", &arrow_stream, &w);    // version 1
 *
 * Writes follow Delta's rules for DataFrame writers: the data's columns are
 * matched to the table's by name, case-insensitively; table columns missing
 * from the data are NULL (or their default / generated / identity value);
 * columns unknown to the table, case-only duplicates and type mismatches
 * are DL_ESCHEMA unless merge_schema (new columns appended, nested fields
 * merged, types widened when the table enables type widening) or
 * overwrite_schema (with an overwrite) allow it. NOT NULL, CHECK
 * constraints, generated columns, identity columns and delta.appendOnly
 * are enforced: a violation is DL_ECONSTRAINT naming the constraint and the
 * offending values, and leaves the table unchanged. Concurrent writers are
 * handled by the transaction layer (retry, or DL_ECONFLICT with a class).
 *
 * Thread safety: dl_create_table and dl_write keep no state between calls;
 * calls from several threads (or processes) on the same table are
 * concurrent writers like any others. The progress callback runs on the
 * calling thread. */
#ifndef DELTALAKE_WRITE_H
#define DELTALAKE_WRITE_H
#include "deltalake/common.h"
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "deltalake/arrow.h"
#include "deltalake/progress.h"
#include "deltalake/txn.h"
#ifdef __cplusplus
extern "C" {
#endif

typedef enum dl_create_mode {
	DL_CREATE_ERROR_IF_EXISTS = 0, /* DL_EEXISTS when the table exists */
	DL_CREATE_IF_NOT_EXISTS,       /* nothing happens when it exists (*version -1) */
	DL_CREATE_OR_REPLACE,          /* a new version replacing schema, properties and
	                                  data; the history is kept */
} dl_create_mode;

#define DL_CREATE_OPTIONS_VERSION 3
typedef struct dl_create_options {
	int version;                          /* DL_CREATE_OPTIONS_VERSION */
	const char *schema_ddl;               /* "id BIGINT NOT NULL, ..." (Spark SQL), or */
	const char *schema_json;              /* a Delta schemaString */
	const char *const *partition_columns; /* names of top-level columns */
	int npartition_columns;
	/* Table properties ("delta.appendOnly" = "true",
	 * "delta.feature.X" = "enabled", "delta.columnMapping.mode" = "name"...). */
	const char *const *property_keys;
	const char *const *property_values;
	int nproperties;
	/* CHECK constraints: name -> SQL boolean expression. */
	const char *const *constraint_names;
	const char *const *constraint_exprs;
	int nconstraints;
	const char *name;                     /* metaData.name, or NULL */
	const char *description;              /* metaData.description, or NULL */
	dl_create_mode mode;
	const char *user_metadata;            /* commitInfo.userMetadata, or NULL */
	/* since version 2: */
	dl_store *store;                      /* the table's store (borrowed); uri ignored */
	const dl_store_options *store_options; /* opening the uri's store; NULL: defaults */
	/* since version 3: liquid clustering (CLUSTER BY): at most 4 column
	 * names ("a", "s.b", backquotes for names with dots), each with
	 * statistics; not with partition columns. They go into the
	 * delta.clustering domain metadata and the table gets the clustering
	 * and domainMetadata writer features (PROTOCOL.md "Clustered Table").
	 * Errors are Spark's: DELTA_CLUSTER_BY_INVALID_NUM_COLUMNS,
	 * DELTA_CLUSTER_BY_WITH_PARTITIONED_BY, DELTA_CLUSTERING_COLUMN_MISSING_STATS,
	 * DELTA_COLUMN_NOT_FOUND_IN_SCHEMA. */
	const char *const *cluster_by;
	int ncluster_by;
	/* commitInfo.operationParameters.isManaged: a catalog's managed table
	 * (set by the catalog; false for path tables) */
	bool is_managed;
} dl_create_options;
#define DL_CREATE_OPTIONS_INIT \
	{DL_CREATE_OPTIONS_VERSION, NULL, NULL, NULL, 0, NULL, NULL, 0, NULL, NULL, 0, NULL, NULL, \
	 DL_CREATE_ERROR_IF_EXISTS, NULL, NULL, NULL, NULL, 0, false}

/* Creates the table at `uri` (a path or any registered URI, or
 * opts->store). *version is the version committed, or -1 when
 * DL_CREATE_IF_NOT_EXISTS found a table. Failures as for dl_write. */
DL_EXTERN(int) dl_create_table(int64_t *version, const char *uri, const dl_create_options *opts);

typedef enum dl_write_mode {
	DL_WRITE_ERROR_IF_EXISTS = 0, /* create the table; DL_EEXISTS when it exists */
	DL_WRITE_APPEND,
	DL_WRITE_OVERWRITE,           /* replace all rows (or those of replace_where /
	                                 the partitions written, see below) */
	DL_WRITE_IGNORE,              /* create the table; nothing when it exists */
} dl_write_mode;

/* Which type changes schema evolution applies by itself to a table with
 * delta.enableTypeWidening (Spark's
 * spark.databricks.delta.typeWidening.allowAutomaticWidening, whose
 * default is ALWAYS). On a UniForm Iceberg table only the changes Iceberg
 * can read (int -> long, float -> double, a decimal's precision) widen. */
typedef enum dl_auto_widening {
	DL_AUTO_WIDENING_ALWAYS = 0,       /* every typeWidening change, integers to double and decimal too */
	DL_AUTO_WIDENING_SAME_FAMILY_TYPE, /* within a family: byte -> short -> int -> long, float ->
	                                      double, wider decimals, date -> timestamp_ntz */
	DL_AUTO_WIDENING_NEVER,            /* none */
} dl_auto_widening;

#define DL_WRITE_OPTIONS_VERSION 6
typedef struct dl_write_options {
	int version;                       /* DL_WRITE_OPTIONS_VERSION */
	dl_write_mode mode;
	/* Overwrite only the rows matching this predicate (any columns). Every
	 * written row must match it unless replace_where_check is false. */
	const char *replace_where;
	bool replace_where_check;          /* default true */
	/* Overwrite only the partitions the data has rows in. */
	bool dynamic_partition_overwrite;
	bool merge_schema;                 /* add new columns / widen types */
	bool overwrite_schema;             /* with an overwrite: the data's schema and
	                                      partitioning replace the table's */
	/* Partitioning of a new table (or, with an append/overwrite, checked
	 * against the table's: a mismatch is DL_ESCHEMA). */
	const char *const *partition_by;
	int npartition_by;
	/* Idempotent writes: skipped (version -1) when this app id already
	 * committed txn_version or later. txn_version < 0: not used. */
	const char *txn_app_id;
	int64_t txn_version;
	const char *user_metadata;         /* commitInfo.userMetadata */
	int64_t max_records_per_file;      /* 0: no limit */
	int64_t target_file_size;          /* bytes per data file; 0: 128 MiB */
	bool data_change;                  /* default true; false for rearranging writes */
	/* Properties of a table this write creates (ignored otherwise). */
	const char *const *property_keys;
	const char *const *property_values;
	int nproperties;
	/* version 2: progress (deltalake/progress.h); cancelling commits nothing */
	dl_progress_fn progress;
	void *progress_payload;
	/* version 3: */
	dl_store *store;                   /* the table's store (borrowed); uri ignored */
	const dl_store_options *store_options; /* opening the uri's store; NULL: defaults */
	/* version 4: a write that creates or replaces the table as a whole
	 * (CREATE [OR REPLACE] TABLE ... AS SELECT) records itself as Spark's
	 * CreateTable / ReplaceTable: commitInfo.operation is this ("CREATE
	 * TABLE AS SELECT", "CREATE OR REPLACE TABLE AS SELECT", "REPLACE TABLE
	 * AS SELECT") with the parameters isManaged, description, partitionBy,
	 * properties instead of WRITE's mode and partitionBy. NULL: "WRITE". */
	const char *create_operation;
	bool is_managed;                   /* operationParameters.isManaged */
	const char *description;           /* metaData.description of the table created */
	/* Clustering columns of a table this write creates (CREATE TABLE ...
	 * CLUSTER BY ... AS SELECT), as dl_create_options.cluster_by; with
	 * overwrite_schema they replace the table's; for another write to an
	 * existing table they must be the table's clustering columns
	 * (DL_EINVALID DELTA_CLUSTERING_COLUMNS_MISMATCH otherwise). */
	const char *const *cluster_by;
	int ncluster_by;
	/* Auto compaction after the commit (Spark's
	 * spark.databricks.delta.autoCompact.enabled): -1 the table's
	 * delta.autoOptimize.autoCompact, 0 off, 1 on. */
	int auto_compact;
	/* Optimized writes (spark.databricks.delta.optimizeWrite.enabled):
	 * -1 the table's delta.autoOptimize.optimizeWrite, 0 off, 1 on. With
	 * them, files roll at optimize_write_bin_size (0: 512 MiB,
	 * spark.databricks.delta.optimizeWrite.binSize) instead of
	 * target_file_size. */
	int optimize_write;
	int64_t optimize_write_bin_size;
	/* version 5: the batch of a streaming sink (Spark's DeltaSink, which
	 * records every batch so, the one creating the table included):
	 * commitInfo.operation "STREAMING UPDATE" with the parameters
	 * outputMode (this: "Append", "Complete" or "Update"), queryId
	 * (txn_app_id) and epochId (txn_version), and the metrics numAddedFiles,
	 * numRemovedFiles, numOutputRows, numOutputBytes. Needs mode append and
	 * txn_app_id. NULL: not a streaming batch. */
	const char *streaming_output_mode;
	/* version 6: the type changes merge_schema applies by itself */
	dl_auto_widening auto_widening;
} dl_write_options;
#define DL_WRITE_OPTIONS_INIT \
	{DL_WRITE_OPTIONS_VERSION, DL_WRITE_ERROR_IF_EXISTS, NULL, true, false, false, false, \
	 NULL, 0, NULL, -1, NULL, 0, 0, true, NULL, NULL, 0, \
	 NULL, NULL, NULL, NULL, NULL, false, NULL, NULL, 0, -1, -1, 0, NULL, DL_AUTO_WIDENING_ALWAYS}

/* Writes the rows of `data` (consumed and released) to the table at `uri`
 * (or opts->store), creating it when absent. *version is the committed
 * version, or -1 when nothing was committed (DL_WRITE_IGNORE on an existing
 * table, or an idempotent write already applied).
 *
 * On failure the table is as it was: no new version, and the data files the
 * write made are deleted again (best effort: a store that fails the deletes
 * too leaves them, unreferenced, for VACUUM). A failure after the commit
 * (checksum, checkpoint) does not fail the write: 0 means committed. The
 * one unknown outcome is described in txn.h ("may have been committed");
 * the files are kept then. Options of every version from 1 to
 * DL_WRITE_OPTIONS_VERSION are accepted. */
DL_EXTERN(int) dl_write(int64_t *version, const char *uri, struct ArrowArrayStream *data,
                        const dl_write_options *opts);

/* ---- writing data inside a transaction (deltalake/txn.h) ----
 *
 * dl_write is a whole transaction of its own (begin, data files, commit
 * through the same commit path as dl_transaction_commit). To combine new
 * data with removes and application ids in ONE atomic commit, write the
 * stream into a transaction instead:
 *
 *   dl_transaction *t;
 *   dl_transaction_options to = DL_TRANSACTION_OPTIONS_INIT;
 *   to.operation = "STREAMING UPDATE";
 *   dl_transaction_begin(&t, "/data/events", &to);
 *   int64_t done;
 *   if (dl_transaction_app_version(&done, t, "my-stream") == 0 && done >= batch) {
 *       dl_transaction_free(t);                      // already committed: skip
 *       return 0;
 *   }
 *   dl_transaction_write_options w = DL_TRANSACTION_WRITE_OPTIONS_INIT;
 *   rc = dl_transaction_write(t, &arrow_stream, &w);   // files written, adds joined
 *   if (rc == 0) rc = dl_transaction_remove_file(t, "d=1/part-old.parquet", true);
 *   if (rc == 0) rc = dl_transaction_set_app_version(t, "my-stream", batch);
 *   int64_t version;
 *   if (rc == 0) rc = dl_transaction_commit(&version, t);
 *   dl_transaction_free(t);   // without a commit: the data files written are deleted
 *
 * The rows follow every rule of an append through dl_write (schema
 * enforcement, NOT NULL / CHECK / generated / identity / default values,
 * the table's partitioning, statistics, column mapping, row tracking).
 * Several writes may go into one transaction (one only on a table with
 * identity columns, whose new high-water marks are the commit's metaData);
 * commitInfo.operationMetrics numFiles, numOutputRows and numOutputBytes
 * count them all. A failed dl_transaction_write deletes the files it wrote;
 * when it failed before any of its actions joined the transaction (schema
 * errors, constraint violations, I/O while writing files: the usual case)
 * the transaction is as before and may still commit, otherwise
 * dl_transaction_commit refuses (DL_EINVALID: free it and start again). A
 * transaction freed without a commit deletes the files its writes made
 * (best effort). */
#define DL_TRANSACTION_WRITE_OPTIONS_VERSION 2
typedef struct dl_transaction_write_options {
	int version;                  /* DL_TRANSACTION_WRITE_OPTIONS_VERSION */
	bool data_change;             /* default true; false for rearranging writes */
	int64_t max_records_per_file; /* 0: no limit */
	int64_t target_file_size;     /* bytes per data file; 0: 128 MiB */
	/* version 2: progress (deltalake/progress.h); cancelling fails the
	 * write like any error (its files deleted, the transaction as before) */
	dl_progress_fn progress;
	void *progress_payload;
} dl_transaction_write_options;
#define DL_TRANSACTION_WRITE_OPTIONS_INIT {DL_TRANSACTION_WRITE_OPTIONS_VERSION, true, 0, 0, NULL, NULL}

/* Writes the rows of `data` (consumed and released) as data files of the
 * transaction's table; their add actions join the transaction. opts NULL:
 * the defaults. */
DL_EXTERN(int) dl_transaction_write(dl_transaction *t, struct ArrowArrayStream *data,
                                    const dl_transaction_write_options *opts);

#ifdef __cplusplus
}
#endif
#endif
