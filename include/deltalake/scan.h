/* Scans: the rows of a snapshot, as an ArrowArrayStream.
 *
 *   dl_snapshot *snap;  dl_snapshot_open(&snap, "/data/events", NULL);
 *   dl_scan_options o = DL_SCAN_OPTIONS_INIT;
 *   const char *cols[] = {"id", "country"};
 *   o.columns = cols; o.ncolumns = 2;
 *   o.filter = "country = 'FR' AND id > 100";
 *   dl_scan *scan;      dl_scan_open(&scan, snap, &o);
 *   struct ArrowArrayStream st;  dl_scan_to_arrow(&st, scan);
 *   ... st.get_next(&st, &array) until array.release == NULL ...
 *   st.release(&st); dl_scan_free(scan); dl_snapshot_free(snap);
 *
 * Planning (dl_scan_open) keeps the live files the filter may match:
 * partition values and per-file statistics (JSON stats or a checkpoint's
 * parsed stats) prune files. Reading prunes row groups with the Parquet
 * footer statistics, applies deletion vectors, materializes partition
 * columns, maps physical column names to logical ones (column mapping
 * modes name and id), gives NULL for columns missing from older files,
 * widens types changed by type widening, and applies the whole filter, so
 * the stream holds exactly the matching rows. Files are decoded in
 * parallel on the library's thread pool; batches come out in file order and
 * at most a bounded number of them wait in memory.
 *
 * Thread safety: a scan does not change after dl_scan_open; its accessors
 * (files, columns, deleted rows, schemas) may be called from several
 * threads at once, and several streams of one scan may be read in parallel.
 * One stream is used by one thread at a time (the Arrow stream contract);
 * decoding happens on the library's pool whichever thread calls get_next.
 *
 * Row tracking: the column names "_metadata.row_id" and
 * "_metadata.row_commit_version" in `columns` add those values (long) as
 * columns of that name; the table must have row tracking. */
#ifndef DELTALAKE_SCAN_H
#define DELTALAKE_SCAN_H
#include "deltalake/common.h"
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "deltalake/arrow.h"
#include "deltalake/progress.h"
#include "deltalake/snapshot.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct dl_scan dl_scan;

#define DL_SCAN_OPTIONS_VERSION 3
#define DL_SCAN_ROW_ID "_metadata.row_id"
#define DL_SCAN_ROW_COMMIT_VERSION "_metadata.row_commit_version"

typedef struct dl_scan_options {
	int version;                 /* DL_SCAN_OPTIONS_VERSION */
	const char *const *columns;  /* logical column names (case-insensitive), NULL = all */
	int ncolumns;
	const char *filter;          /* Spark SQL predicate over the table's columns, or NULL */
	int64_t batch_rows;          /* rows per batch at most; 0 = 65536 */
	int threads;                 /* files, or row-group parts of large files, decoded at once; 0 = the pool's size */
	int max_queued_batches;      /* decoded batches waiting at most; 0 = 2 per thread + 2, or
	                                more while they take under 32 MiB (narrow batches) */
	/* version 2: progress of the streams of dl_scan_to_arrow (files read /
	 * planned, rows), called from get_next; non-zero ends the stream with
	 * DL_ECANCELLED (deltalake/progress.h) */
	dl_progress_fn progress;
	void *progress_payload;
	/* version 3: the path policy of dl_snapshot_options (allowed roots
	 * besides the table root); nallowed_roots == 0 keeps the snapshot's.
	 * Paths outside are DL_EPERM at dl_scan_open. */
	const char *const *allowed_roots;
	int nallowed_roots;
} dl_scan_options;

#define DL_SCAN_OPTIONS_INIT {DL_SCAN_OPTIONS_VERSION, NULL, 0, NULL, 0, 0, 0, NULL, NULL, NULL, 0}

/* Plans a scan of `snap` (borrowed: it must outlive the scan). Errors:
 * DL_EINVALID for an unknown column or a filter that does not parse or bind
 * (the message says which), DL_EUNSUPPORTED for features this reader lacks. */
DL_EXTERN(int) dl_scan_open(dl_scan **out, dl_snapshot *snap, const dl_scan_options *opts);
DL_EXTERN(void) dl_scan_free(dl_scan *scan);

/* The files the scan will read after pruning, and how many were pruned. */
DL_EXTERN(size_t) dl_scan_file_count(const dl_scan *scan);
DL_EXTERN(int) dl_scan_file_at(dl_file_info *out, const dl_scan *scan, size_t i);
/* The index of file i of the scan in the snapshot's file list
 * (dl_snapshot_file_at / dl_snapshot_file_partition_value). */
DL_EXTERN(size_t) dl_scan_file_snapshot_index(const dl_scan *scan, size_t i);
typedef struct dl_scan_metrics {
	size_t files_total;          /* live files of the snapshot */
	size_t files_pruned_partitions; /* skipped by partition values */
	size_t files_pruned_stats;   /* skipped by per-file statistics */
	int64_t planning_us;         /* time spent in dl_scan_open */
	/* counted while the files are read (final once the batches are all
	 * read): inside files, by the Parquet footer, the page index and
	 * Bloom filters (SCANS.md) */
	int64_t row_groups_pruned_stats; /* row groups skipped by footer statistics or the page index */
	int64_t pages_skipped;       /* data pages of read columns not read (page index) */
	int64_t page_bytes_skipped;  /* their compressed bytes */
	int64_t row_groups_pruned_bloom; /* row groups the statistics kept, skipped by Parquet Bloom filters */
} dl_scan_metrics;
DL_EXTERN(void) dl_scan_get_metrics(dl_scan_metrics *out, const dl_scan *scan);

/* ---- the files of a scan, for engines that read them themselves ----
 *
 * What delta-kernel-rs gives engines as scan metadata: for each file the
 * scan would read, where it is, its partition values, statistics and
 * deletion vector, and its row-tracking fields, plus the physical names of
 * the columns to read (column mapping). An engine (or a Sharing server)
 * reads each file's physical columns, drops the rows of
 * dl_scan_file_deleted_rows, adds the partition columns from the values
 * given here and renames the columns to their logical names (a column
 * missing from an older file is NULL; a narrower type is widened to the
 * schema's, as type widening allows): that gives the rows dl_scan_to_arrow
 * gives before the filter (the filter only prunes files here; apply it to
 * the rows too when exact results matter).
 *
 *   for (size_t i = 0; i < dl_scan_file_count(scan); i++) {
 *       dl_scan_file f;  dl_scan_file_get(&f, scan, i);
 *       uint64_t *del;  size_t ndel;
 *       dl_scan_file_deleted_rows(&del, &ndel, scan, i);
 *       ... read f.location, skipping the row indexes in del ...
 *       dl_free(del);
 *   }
 */

/* A deletion vector descriptor (PROTOCOL.md "Deletion Vector Descriptor
 * Schema"), as the log gives it. */
typedef struct dl_deletion_vector_info {
	char storage_type;             /* 'u': relative path from a UUID, 'p': absolute
	                                  path, 'i': inline */
	const char *path_or_inline_dv; /* as in the log */
	int64_t offset;                /* start of the DV in its file; -1 when absent (inline) */
	int32_t size_in_bytes;
	int64_t cardinality;           /* number of deleted rows */
	const char *location;          /* the DV file, decoded and joined with the table
	                                  root like dl_scan_file.location; NULL inline */
} dl_deletion_vector_info;

typedef struct dl_scan_file {
	/* The add's path decoded from the log's URI (%XX escapes resolved):
	 * relative to the table root or absolute; what identifies the file in
	 * the log (dl_transaction_remove_file takes it). */
	const char *path;
	/* The same path as the log spells it: a URI reference, %-escaped
	 * (what a writer must repeat in a remove action for this file). */
	const char *log_path;
	/* Where to read it: the table root the snapshot was opened on joined
	 * with a relative path, or the absolute path; decoded. */
	const char *location;
	int64_t size;                  /* bytes */
	int64_t modification_time;     /* epoch ms */
	const char *stats;             /* the stats JSON (numRecords, minValues... under
	                                  physical names), or NULL */
	int64_t num_records;           /* the stats' numRecords (rows in the file, deleted
	                                  ones included); -1 when unknown */
	size_t npartition_values;      /* the table's partition columns: see
	                                  dl_scan_file_partition_value */
	bool has_deletion_vector;
	dl_deletion_vector_info deletion_vector; /* zeroed without one */
	int64_t base_row_id;           /* row tracking: the first row's id; INT64_MIN when absent */
	int64_t default_row_commit_version; /* INT64_MIN when absent */
	size_t snapshot_index;         /* the file's index for dl_snapshot_file_at */
} dl_scan_file;

/* File i of the scan (0 <= i < dl_scan_file_count). Strings are borrowed
 * from the scan. DL_EINVALID for an index out of range. */
DL_EXTERN(int) dl_scan_file_get(dl_scan_file *out, const dl_scan *scan, size_t i);
/* Partition value j of file i, j over the table's partition columns in
 * metaData order: the column's logical name (under column mapping the log
 * keys values by physical name; this maps them back) and the value as the
 * log serializes it (PROTOCOL.md "Partition Value Serialization"), NULL for
 * a null or missing value. */
DL_EXTERN(int) dl_scan_file_partition_value(const char **column, const char **value,
                                            const dl_scan *scan, size_t i, size_t j);
/* The rows of file i its deletion vector deletes, as ascending 0-based row
 * indexes within the file (positions counted over all its row groups), in
 * an array freed with dl_free: *rows NULL and *n 0 without a deletion
 * vector. Reads the DV file (size, magic and checksum checked: DL_ECORRUPT
 * naming it) or decodes the inline DV. Safe from several threads. */
DL_EXTERN(int) dl_scan_file_deleted_rows(uint64_t **rows, size_t *n, dl_scan *scan, size_t i);

/* The columns a file yields before the filter: the requested ones and those
 * only the filter needs, in order, with where each comes from. */
typedef enum dl_scan_column_kind {
	DL_SCAN_COLUMN_DATA = 0,           /* read from the data file */
	DL_SCAN_COLUMN_PARTITION,          /* from the file's partition values */
	DL_SCAN_COLUMN_ROW_ID,             /* row tracking: base_row_id + row index, or the
	                                      materialized column when not null */
	DL_SCAN_COLUMN_ROW_COMMIT_VERSION, /* default_row_commit_version, or the materialized column */
} dl_scan_column_kind;
typedef struct dl_scan_column {
	const char *name;          /* logical name */
	dl_scan_column_kind kind;
	/* DATA: the top-level column in the data files (its physical name under
	 * column mapping); PARTITION: the key of the partition values in the
	 * log; ROW_*: the materialized column in the data files, or NULL. */
	const char *physical_name;
	int32_t field_id;          /* column mapping mode id: the Parquet field id data
	                              columns are matched by; -1 otherwise */
} dl_scan_column;
DL_EXTERN(size_t) dl_scan_column_count(const dl_scan *scan);
DL_EXTERN(int) dl_scan_column_at(dl_scan_column *out, const dl_scan *scan, size_t i);
/* The columns to read from the data files as an Arrow struct: physical
 * names at every level (nested fields too) and types as the table's schema
 * says. Under column mapping mode id, each field's "delta.metadata" entry
 * is {"parquet.field.id": N}: match Parquet fields by that id. */
DL_EXTERN(int) dl_scan_physical_schema(struct ArrowSchema *out, const dl_scan *scan);

/* The schema of the rows (a struct), exported as an ArrowSchema. */
DL_EXTERN(int) dl_scan_schema(struct ArrowSchema *out, const dl_scan *scan);
/* Starts reading the planned files. The scan and its snapshot must outlive
 * the stream. Can be called several times (each stream reads everything
 * again). Releasing a stream early stops its decoding threads. */
DL_EXTERN(int) dl_scan_to_arrow(struct ArrowArrayStream *out, dl_scan *scan);

#ifdef __cplusplus
}
#endif
#endif
