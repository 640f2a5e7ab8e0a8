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
#include "deltalake/snapshot.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct dl_scan dl_scan;

#define DL_SCAN_OPTIONS_VERSION 2
#define DL_SCAN_ROW_ID "_metadata.row_id"
#define DL_SCAN_ROW_COMMIT_VERSION "_metadata.row_commit_version"

typedef struct dl_scan_options {
	int version;                 /* DL_SCAN_OPTIONS_VERSION */
	const char *const *columns;  /* logical column names (case-insensitive), NULL = all */
	int ncolumns;
	const char *filter;          /* Spark SQL predicate over the table's columns, or NULL */
	int64_t batch_rows;          /* rows per batch at most; 0 = 65536 */
	int threads;                 /* files decoded at once; 0 = the pool's size */
	int max_queued_batches;      /* decoded batches waiting at most; 0 = 2 per thread + 2 */
	/* since version 2: the path policy of dl_snapshot_options (allowed
	 * roots besides the table root); nallowed_roots == 0 keeps the
	 * snapshot's. Paths outside are DL_EPERM at dl_scan_open. */
	const char *const *allowed_roots;
	int nallowed_roots;
} dl_scan_options;

#define DL_SCAN_OPTIONS_INIT {DL_SCAN_OPTIONS_VERSION, NULL, 0, NULL, 0, 0, 0, NULL, 0}

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
} dl_scan_metrics;
DL_EXTERN(void) dl_scan_get_metrics(dl_scan_metrics *out, const dl_scan *scan);

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
