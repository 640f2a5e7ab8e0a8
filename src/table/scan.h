/* The internal side of dl_scan (include/deltalake/scan.h): the plan that
 * dl_scan_open builds (which columns to read under which physical names,
 * which files survive pruning, the filter bound twice: to the table schema
 * for pruning and to the read schema for the residual filter), the reading
 * of one file into batches, and the ordered parallel batch stream. */
#ifndef DL_TABLE_SCAN_H
#define DL_TABLE_SCAN_H
#include <pthread.h>
#include "columnar/batch_stream.h"
#include "deltalake/scan.h"
#include "expr/expr.h"
#include "log/deletion_vector.h"
#include "log/snapshot.h"
#include "storage/resolve.h"

typedef enum dl_scan_col_kind {
	DL_SCOL_DATA = 0,           /* decoded from the data file */
	DL_SCOL_PARTITION,          /* from add.partitionValues */
	DL_SCOL_ROW_ID,             /* row tracking: _metadata.row_id */
	DL_SCOL_ROW_COMMIT_VERSION, /* row tracking: _metadata.row_commit_version */
} dl_scan_col_kind;

/* One column of the read schema (the columns a file yields before the
 * residual filter: the requested ones plus those only the filter needs). */
typedef struct dl_scan_col {
	dl_scan_col_kind kind;
	int data_index;        /* DATA: field index in phys_request */
	const char *part_key;  /* PARTITION: key in partitionValues (physical name) */
	const dl_type *type;   /* logical type (borrowed from read_schema) */
} dl_scan_col;

struct dl_scan {
	dl_snapshot *snap;
	dl_column_mapping_mode mode;
	dl_type *read_schema;  /* struct, logical names */
	dl_scan_col *cols;     /* per read_schema field */
	int *out_cols;         /* output column -> read column */
	int nout;
	dl_type *out_schema;   /* struct of the output columns */
	dl_type *phys_request; /* struct of the data columns, physical names */
	bool by_field_id;      /* id mode: match Parquet fields by field id */
	int mat_row_id;        /* field of phys_request holding materialized row ids, -1 */
	int mat_row_cv;        /* ... materialized row commit versions, -1 */
	dl_expr *prune;        /* bound to the table schema; NULL without filter */
	dl_expr *residual;     /* bound to read_schema; NULL without filter */
	bool *late_data;       /* per phys_request field: not read by the residual
	                        * filter, so decoded only for the rows it keeps;
	                        * NULL when none */
	/* derived from prune for generated partition columns (day GENERATED
	 * AS CAST(ts AS DATE) with a filter on ts): implied by prune, over the
	 * partition columns only; NULL when nothing derives */
	dl_expr *prune_generated;
	bool prune_data_cols;  /* the filter references non-partition columns */
	const char **part_names; /* logical partition column names */
	int npart;
	char **indexed;        /* lower-case dotted paths with usable stats; NULL = all */
	size_t nindexed;
	size_t *files;         /* snapshot add indexes surviving pruning */
	size_t nfiles;
	int64_t batch_rows;
	int threads;
	int max_queued;
	int64_t max_queued_bytes; /* scan_stream.c: 32 MiB unless the caller set max_queued_batches */
	dl_scan_metrics metrics;
	int64_t parts_split;   /* file parts handed to other threads (scan_stream.c) */
	int64_t leaves_helped; /* leaf columns decoded by a worker for another's batch (scan_stream.c) */
	struct dl_scan_file_cache *file_cache; /* scan_files.c: the public file accessors */
	dl_progress_fn progress; /* dl_scan_options.progress, for the streams */
	void *progress_payload;
	dl_arena arena;        /* physical names, indexed paths */
	dl_store_resolver resolver; /* data and DV paths -> stores, under the path policy */
	dl_dv_files *dvs;      /* DV files, each opened once per scan */
	struct pq_pool *buffers; /* batch and page buffers shared by the files' readers */
};

/* dl_scan_open with an expression instead of SQL text (for the write
 * path: DELETE/UPDATE/MERGE conditions). The expression is copied (through
 * its canonical SQL) and bound to the table; o->filter must be NULL. */
int dl_scan_open_expr(dl_scan **out, dl_snapshot *snap, const dl_scan_options *o, const dl_expr *filter);

/* Planning (scan_plan.c). */
int dl_scan_plan_columns(dl_scan *s, const dl_scan_options *o);
int dl_scan_plan_files(dl_scan *s);

/* The cache behind the public file accessors (scan_files.c), built once
 * the files are planned; freed by dl_scan_free. */
int dl_scan_files_init(dl_scan *s);
void dl_scan_files_free(dl_scan *s);

/* Whether a file with these partition values may hold rows of the scan's
 * filter, by the partition values alone (exact for a filter on partition
 * columns). The sharing server filters change actions, which are not in
 * the snapshot, by a table's partitionFilter. DL_EINVALID when the filter
 * reads other columns: partition values cannot decide it. */
struct dl_str_map;
int dl_scan_partitions_may_match(bool *may, const dl_scan *s, const struct dl_str_map *partition_values);

/* The row groups of a file a scan reads, in file order, with the row
 * ranges of each that the page index leaves (ranges[i] NULL: all rows).
 * Planned once per file and applied to each reader of a part of it. */
typedef struct dl_scan_rg_plan {
	int *rgs;
	int nrgs;
	struct pq_row_range **ranges; /* per rgs entry; NULL when nothing is ranged */
	int *nranges;
} dl_scan_rg_plan;

/* Row-group pruning over the footer statistics and Bloom filters, then row
 * ranges from the page index (scan_rowgroups.c); counted in s->metrics.
 * Returns 1 when no row group can match. */
struct pq_reader;
int dl_scan_plan_row_groups(dl_scan *s, struct pq_reader *r, dl_scan_rg_plan *out);
/* Every row group, unranged. */
int dl_scan_rg_plan_all(dl_scan_rg_plan *p, const struct pq_reader *r);
/* Restricts r (before reading) to the plan's row groups [lo, hi). */
int dl_scan_rg_plan_apply(const dl_scan_rg_plan *p, struct pq_reader *r, int lo, int hi);
void dl_scan_rg_plan_free(dl_scan_rg_plan *p);

/* Reads file i of the scan: calls emit for each output batch (ownership
 * passes to emit, which frees it even when failing). emit returning
 * DL_ECANCELLED stops quietly. */
typedef int (*dl_scan_emit_fn)(void *payload, dl_batch *b);
int dl_scan_read_file(dl_scan *s, size_t i, dl_scan_emit_fn emit, void *payload);
/* The same for any add action (the change data feed reads files of older
 * versions and cdc files); with use_only, only the rows whose file row
 * index is in only_rows (sorted) are kept and the add's DV is ignored. */
int dl_scan_read_add(dl_scan *s, const dl_add *add, const uint64_t *only_rows, size_t nonly, bool use_only,
                     dl_scan_emit_fn emit, void *payload);
/* dl_scan_read_add (the add's DV applied, the scan's filter, its late
 * columns decoded only for the rows the filter keeps) telling emit the file
 * row index of each row of each batch (rows[0..b->num_rows), ascending;
 * borrowed for the call). *live gets the rows of the file the DV keeps,
 * whether the filter keeps them or not (row groups it prunes included):
 * the rewrite engine's UPDATE with deletion vectors reads a touched file
 * this way, decoding the columns the condition does not read only for the
 * matching rows. */
typedef int (*dl_scan_emit_rows_fn)(void *payload, dl_batch *b, const uint64_t *rows);
int dl_scan_read_add_rows(dl_scan *s, const dl_add *add, int64_t *live, dl_scan_emit_rows_fn emit,
                          void *payload);

/* ---- parts of a file: parallelism inside one large file ----
 *
 * A file whose row groups (those pruning keeps) hold several batches'
 * worth of rows is cut into parts, runs of consecutive row groups, that
 * readers of their own decode at once. The file's DV, partition values and
 * row-group plan are loaded once and shared by its parts (refcounted).
 * dl_scan_read_file_parts reads file i like dl_scan_read_file, but once it
 * has planned the file's nparts parts (before decoding any) it calls
 * `split` (with the emit payload), which takes parts 1.. when there are
 * more than one (a reference each, see dl_scan_file_parts_ref) by returning
 * 0; the call then reads part 0 only. Non-zero: it reads them all itself.
 * Files pruned away, failing or with no data column to decode end without
 * calling split. */
typedef struct dl_scan_file_parts dl_scan_file_parts;
typedef int (*dl_scan_split_fn)(void *payload, dl_scan_file_parts *fp, int nparts);
/* With par (else NULL), the leaf columns of each batch decode through it
 * (pq_reader_set_parallel, with the emit payload). */
typedef int (*dl_scan_par_fn)(void *payload, size_t n, int (*fn)(void *ctx, size_t begin, size_t end), void *ctx);
int dl_scan_read_file_parts(dl_scan *s, size_t i, dl_scan_split_fn split, dl_scan_par_fn par, dl_scan_emit_fn emit,
                            void *payload);
/* The same for any add action (MERGE reads its target files a part at a
 * time this way, so that it never holds a whole file's rows). */
int dl_scan_read_add_parts(dl_scan *s, const dl_add *add, dl_scan_split_fn split, dl_scan_emit_fn emit,
                           void *payload);
/* Reads part k (k >= 1) of a file that dl_scan_read_file_parts split. */
int dl_scan_read_part(dl_scan_file_parts *fp, int k, dl_scan_par_fn par, dl_scan_emit_fn emit, void *payload);
void dl_scan_file_parts_ref(dl_scan_file_parts *fp, int n);
void dl_scan_file_parts_unref(dl_scan_file_parts *fp);

/* The store and relative path of a data file path of the log (relative to
 * the table root, or absolute), checked against the path policy. */
int dl_scan_resolve_path(dl_scan *s, const char *path, dl_store **store, const char **rel);
/* DL_EPERM unless the path policy allows the add's data file and DV file. */
int dl_scan_check_add_paths(dl_scan *s, const dl_add *add);

/* All output batches of the scan, in file order, decoded in parallel. */
int dl_scan_batches(dl_batch_stream **out, dl_scan *s);

/* The change data feed as batches (cdf.c; dl_table_changes exports it). */
struct dl_changes_options;
int dl_changes_batches(dl_batch_stream **out, const char *uri, const struct dl_changes_options *opts);
/* The same for a streaming source: leaving out the data and cdc files
 * whose path `skip` accepts (its excludeRegex, as Spark's DeltaSource
 * filters change files), and reading the rows in the schema of read_snap
 * (borrowed; the stream's, fixed at its start) unless it is NULL. */
typedef bool (*dl_changes_skip_fn)(void *payload, const char *path);
int dl_changes_batches_skipping(dl_batch_stream **out, const char *uri, const struct dl_changes_options *opts,
                                dl_changes_skip_fn skip, void *payload, dl_snapshot *read_snap);

/* A one-row array holding a partition value of type t parsed from its
 * serialized form (NULL or "" is null). */
int dl_partition_value_array(dl_array **out, dl_type *t, const char *value);

/* Sets a->type (and its children's types, recursively) to t, which must
 * have the same shape: physical names become logical ones. */
int dl_array_retype(dl_array *a, dl_type *t);

#endif
