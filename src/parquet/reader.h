/* Parquet reader: the hot path of every scan.
 *
 *   pq_reader *r;
 *   pq_reader_open_store(&r, store, "part-0.parquet", size_or_-1);
 *   pq_reader_select_columns(r, names, n);      // optional projection
 *   pq_reader_set_row_groups(r, rgs, nrgs);      // optional pruning
 *   dl_batch *b; int64_t first;
 *   while (pq_reader_next(r, &b, &first) == 0 && b) { ...; dl_batch_free(b); }
 *   pq_reader_free(r);
 *
 * Batches never span row groups; `first` is the file row index of a batch's
 * first row (deletion vectors address rows that way). Columns are decoded
 * straight into Arrow buffers (columnar/array.h). Schema mapping: see
 * schema_read.c; each field's metadata carries {"parquet.field.id": N} when
 * the file has field ids. Type choices: INT96 and TIMESTAMP_MILLIS/MICROS
 * (legacy) -> TIMESTAMP (micros, UTC); TIMESTAMP(isAdjustedToUTC=false) ->
 * TIMESTAMP_NTZ; millis/nanos scaled to micros (nanos floored); uint8 ->
 * SHORT, uint16 -> INTEGER, uint32 -> LONG, uint64 -> DECIMAL(20,0); UUID ->
 * STRING (canonical 36 chars); JSON/ENUM -> STRING; FLOAT16 -> FLOAT; TIME
 * and INTERVAL keep their physical value (INTEGER/LONG, 12-byte BINARY).
 * Batch buffers are recycled through owner_release (output_pool.h), so free
 * batches with dl_batch_free/dl_array_free, never their buffers directly. */
#ifndef DL_PARQUET_READER_H
#define DL_PARQUET_READER_H
#include <stdbool.h>
#include <stdint.h>
#include "columnar/array.h"
#include "deltalake/store.h"
#include "parquet/metadata.h"

typedef struct pq_reader pq_reader;

#define PQ_DEFAULT_BATCH_ROWS 65536

/* Opens a file in a store; size < 0 stats it. Reads and checks the footer. */
int pq_reader_open_store(pq_reader **out, dl_store *store, const char *path, int64_t size);
/* Opens an in-memory image (borrowed: it must outlive the reader). */
int pq_reader_open_memory(pq_reader **out, const uint8_t *data, size_t len, const char *name);
void pq_reader_free(pq_reader *r);

/* The decoded footer (borrowed). */
const pq_file_metadata *pq_reader_metadata(const pq_reader *r);
/* The file's schema as a struct type (borrowed). */
const dl_type *pq_reader_schema(const pq_reader *r);
int64_t pq_reader_num_rows(const pq_reader *r);
int pq_reader_num_row_groups(const pq_reader *r);
/* File row index of the first row of a row group; its row count. */
int64_t pq_reader_row_group_first_row(const pq_reader *r, int rg);
int64_t pq_reader_row_group_rows(const pq_reader *r, int rg);

/* Projection by top-level names (case-insensitive; in the order given).
 * DL_ENOTFOUND names a missing column. */
int pq_reader_select_columns(pq_reader *r, const char *const *names, int n);
/* Projection by dotted paths ("a", "s.x.y"; case-insensitive): a path into
 * a struct selects just that nested field; paths sharing a prefix are
 * merged in first-seen order. DL_ENOTFOUND names a missing one. */
int pq_reader_select_paths(pq_reader *r, const char *const *paths, int n);
/* Projection by a requested struct type: fields matched by name (nested
 * structs select nested fields) or, when by_field_id, by the
 * "parquet.field.id" in each field's metadata. Requested fields missing
 * from the file come back all null; narrower file types are widened. */
int pq_reader_set_projection(pq_reader *r, const dl_type *requested, bool by_field_id);
/* Only these row groups, in this order (NULL/0 restores all). */
int pq_reader_set_row_groups(pq_reader *r, const int *rgs, int n);
/* Stops reading (the open row group is dropped) so that another projection
 * and row groups can be set; the footer is kept. Reading restarts at the
 * first selected row group. A reader that needs a different projection per
 * row group (checkpoint_read.c: per the chunks' statistics) uses this
 * instead of parsing the footer again. */
int pq_reader_rewind(pq_reader *r);
/* Rows per batch (0 = PQ_DEFAULT_BATCH_ROWS). */
int pq_reader_set_batch_size(pq_reader *r, int64_t rows);
/* Decode the columns of each batch in parallel on `pool` (NULL, the
 * default: on the calling thread only). The pool must outlive the reading. */
typedef struct dl_pool dl_pool;
int pq_reader_set_pool(pq_reader *r, dl_pool *pool);
/* Decode the columns of each batch through `par` instead: called with the
 * leaf count n and a function over leaf ranges [begin, end), which it
 * must run over every leaf of [0, n) (on any threads) before returning its
 * first failure (with that failure's message on the calling thread). A
 * scan uses it to have its stalled workers help the one whose batches are
 * needed (table/scan_stream.c). Takes precedence over a pool. */
typedef int (*pq_range_fn)(void *ctx, size_t begin, size_t end);
typedef int (*pq_parallel_fn)(void *payload, size_t n, pq_range_fn fn, void *ctx);
int pq_reader_set_parallel(pq_reader *r, pq_parallel_fn par, void *payload);
/* Recycle batch buffers and the column readers' page and chunk buffers
 * through `pool` (referenced) instead of the reader's own: readers of a
 * scan's files one after the other then reuse memory already faulted in
 * (a fresh buffer costs a page fault per 4 KiB). Before reading. */
typedef struct pq_pool pq_pool;
int pq_reader_set_output_pool(pq_reader *r, pq_pool *pool);
/* The schema of the batches (borrowed). */
const dl_type *pq_reader_output_schema(const pq_reader *r);

/* Next batch, or *out = NULL at the end. */
int pq_reader_next(pq_reader *r, dl_batch **out, int64_t *first_row);
/* Bytes of freed batch buffers the reader keeps for its next batches
 * (output_pool.h): about one batch's worth, whatever the row groups read. */
size_t pq_reader_pooled_bytes(const pq_reader *r);

/* ---- late materialization ----
 *
 * Columns (of the projection, by index) decoded only for the rows a caller
 * keeps, typically those a filter over the other columns selects:
 * pq_reader_next then returns their columns as NULL, and
 * pq_reader_read_late fills them for rows sel[0..n) of that batch
 * (ascending indexes), skipping the values of the other rows and not
 * decompressing pages that hold none of the selected rows. Set after the
 * projection (which clears it). Only flat columns are made late; nested
 * ones stay decoded by pq_reader_next (pq_reader_column_is_late says which). */
int pq_reader_set_late_columns(pq_reader *r, const bool *late);
bool pq_reader_column_is_late(const pq_reader *r, int col);
/* out[i] is set for each late column i (n rows). Not calling it before the
 * next pq_reader_next is the same as selecting no row; out = NULL and n = 0
 * drops the batch's late rows. */
int pq_reader_read_late(pq_reader *r, const uint32_t *sel, int64_t n, dl_array **out);
/* Data pages of the late columns never decompressed so far (all their
 * rows unselected). */
int64_t pq_reader_pages_passed(const pq_reader *r);

/* ---- statistics for pruning ---- */

/* A statistics value decoded into the leaf's output type: ints (byte..long,
 * date, timestamps in micros) in i, float/double in d, decimals in dec,
 * booleans in b, strings/binary in (s, len) pointing into the metadata. */
typedef struct pq_stat_value {
	bool b;
	int64_t i;
	double d;
	dl_i128 dec;
	const uint8_t *s;
	uint32_t len;
} pq_stat_value;

typedef struct pq_column_stats {
	const dl_type *type;   /* the leaf's output type (borrowed) */
	bool has_min_max;      /* min/max usable (right sort order, decodable) */
	pq_stat_value min, max;
	bool has_null_count;
	int64_t null_count;
	int64_t num_values;    /* values incl. nulls in the chunk */
} pq_column_stats;

/* Leaf columns: count, dotted path ("a.b.element"), lookup by path
 * (case-insensitive, -1 when absent). */
int pq_reader_num_leaves(const pq_reader *r);
const char *pq_reader_leaf_path(const pq_reader *r, int leaf);
int pq_reader_find_leaf(const pq_reader *r, const char *path);
/* Statistics of one leaf in one row group. */
int pq_reader_column_stats(const pq_reader *r, int rg, int leaf, pq_column_stats *out);

/* ---- the page index (parquet-format PageIndex.md) ----
 *
 * Pages of a leaf in a row group, from its OffsetIndex (*n = 0 when the
 * file has none, or one that does not decode), each page's rows, and its
 * ColumnIndex entry decoded like the footer's statistics (no min/max when
 * the file has no ColumnIndex for the leaf). Loaded on first use. */
int pq_reader_num_pages(pq_reader *r, int rg, int leaf, int *n);
int pq_reader_page_rows(pq_reader *r, int rg, int leaf, int page, int64_t *first, int64_t *rows);
int pq_reader_page_stats(pq_reader *r, int rg, int leaf, int page, pq_column_stats *out);

/* ---- Bloom filters (parquet-format BloomFilter.md) ----
 *
 * Whether leaf's chunk in row group rg may hold v (in the leaf's output
 * type, as statistics are given): *maybe = false only when its Bloom filter
 * says the value is absent; true when the chunk has none, the value has no
 * single stored form (see bloom_read.h), or the filter is unusable. */
int pq_reader_bloom_may_contain(pq_reader *r, int rg, int leaf, const pq_stat_value *v, bool *maybe);

/* Rows [first, end) of a row group. */
typedef struct pq_row_range {
	int64_t first, end;
} pq_row_range;
/* Only these rows of row group rg are produced (sorted, disjoint; none:
 * the row group is skipped); the pages of the read leaves that hold none of
 * them are neither fetched nor decoded. Batches then cover one range each
 * (first_row still numbers them in the file). Returns 1, changing nothing,
 * when a leaf to read has no offset index. Set after the projection. */
int pq_reader_set_row_ranges(pq_reader *r, int rg, const pq_row_range *ranges, int n);

typedef struct pq_skip_stats {
	int64_t pages_total;   /* data pages of the read leaves in ranged row groups */
	int64_t pages_skipped; /* ... of them not read */
	int64_t bytes_skipped; /* their compressed bytes (headers included) */
} pq_skip_stats;
void pq_reader_skip_stats(const pq_reader *r, pq_skip_stats *out);

#endif
