/* Parquet file writer: batches of a Delta schema in, a Parquet file out.
 *
 *   pq_writer *w;
 *   pq_sink sink; pq_sink_init_fd(&sink, fd);
 *   pq_writer_open(&w, schema, &sink, &opts);
 *   while (...) pq_writer_write(w, batch);
 *   pq_writer_close(w);                 // row group + footer
 *   ... pq_writer_leaf_stats(w, i) ...  // per-file statistics for Delta
 *   pq_writer_free(w);
 *
 * Memory holds one row group: each leaf column encodes and compresses its
 * pages as batches arrive, and a row group is flushed to the sink once its
 * uncompressed size estimate or row count reaches the limit. With
 * opts.threads > 1 the columns run on that many threads, each up to a few
 * slices ahead of the others (write_pipeline.c); the bytes of the file do
 * not depend on the thread count.
 *
 * Names are written as given: with column mapping, pass the physical schema
 * (physical names; "delta.columnMapping.id" or "parquet.field.id" in each
 * field's metadata become Parquet field ids, and the IcebergCompatV2 nested
 * ids those of list elements and map keys/values). A null in a NOT NULL
 * field is DL_ECONSTRAINT; after any failure mid-write the writer refuses
 * more (the file is incomplete: discard it). */
#ifndef DL_PARQUET_WRITER_H
#define DL_PARQUET_WRITER_H
#include "columnar/array.h"
#include "parquet/column_writer.h"
#include "parquet/schema_write.h"
#include "parquet/sink.h"
#include "parquet/stats.h"

typedef struct pq_writer_options {
	pq_codec codec;          /* page compression (default zstd) */
	int level;               /* codec level; 0 = the codec's default */
	int64_t row_group_bytes; /* uncompressed estimate per row group (128 MiB) */
	int64_t row_group_rows;  /* rows per row group; 0 = no limit */
	size_t page_bytes;       /* uncompressed data page target (1 MiB) */
	size_t dict_bytes;       /* dictionary page limit before PLAIN fallback (1 MiB) */
	bool dictionary;         /* use dictionary encoding (true) */
	size_t stats_truncate;   /* footer min/max length of byte arrays (64; 0 = full) */
	bool page_crc;           /* page checksums, as parquet-mr writes by default (true) */
	const char *created_by;  /* NULL: "deltalake version X (build libdeltalake)" */
	const char *root_name;   /* NULL: "schema" */
	int threads;             /* leaf columns encoded and compressed in parallel by
	                          * this many threads (the caller's included); <= 1:
	                          * the calling thread only */
	bool page_index;         /* ColumnIndex + OffsetIndex after the row groups */
	/* Bloom filters (parquet-format BloomFilter.md) for the leaves whose
	 * dotted path_in_schema is one of these (case-insensitive; booleans
	 * have none), each sized for its chunk's distinct values at bloom_fpp
	 * (0: 0.01), written after the row groups, before the page index. */
	const char *const *bloom_columns;
	int nbloom_columns;
	double bloom_fpp;
	/* Helper threads shared with other writers (NULL: the writer's own,
	 * threads - 1 of them); threads is then the group's. */
	struct pq_writer_group *group;
} pq_writer_options;

#define PQ_WRITER_OPTIONS_INIT \
	{PQ_CODEC_ZSTD, 0, 128 << 20, 0, 1 << 20, 1 << 20, true, 64, true, NULL, NULL, 1, true, NULL, 0, 0, NULL}

typedef struct pq_writer pq_writer;

/* Helper threads shared by writers open at once (the files of a
 * partitioned write, one per partition): threads - 1 helpers take work
 * from any writer of the group, and the writers' callers work on their
 * own. The files are the same as with writers of their own. Free it
 * after its writers. */
typedef struct pq_writer_group pq_writer_group;
int pq_writer_group_new(pq_writer_group **out, int threads);
void pq_writer_group_free(pq_writer_group *g);

/* Writes the magic and prepares one column writer per leaf. The schema is
 * referenced; the sink must outlive the writer. */
int pq_writer_open(pq_writer **out, dl_type *schema, pq_sink *sink, const pq_writer_options *opts);
/* Appends the rows of a batch whose schema has the writer's shape; returns
 * once the columns are done with it. */
int pq_writer_write(pq_writer *w, const dl_batch *b);
/* The same for a batch the writer takes over (and frees, also on failure):
 * returns as soon as its rows are queued, so the caller makes the next
 * batch while the columns encode this one. A failure may then surface at a
 * later call. The file size is only known after close. */
int pq_writer_write_owned(pq_writer *w, dl_batch *b);
/* An estimate of the file's size were it closed after the rows queued so
 * far, for callers that roll files at a target size: the pages and row
 * groups the columns encoded through all but the last few slices queued
 * (through all of them while the file holds only a few), scaled to the rows
 * queued. It depends on the rows alone, never on timing, so a file rolled
 * on it is the same at any thread count and with owned or borrowed
 * batches; waits (writing columns meanwhile) until those slices are
 * written. */
int pq_writer_size_estimate(pq_writer *w, int64_t *bytes);
/* Ends the row group being written (if it has rows): the next rows start
 * a new one. */
int pq_writer_end_row_group(pq_writer *w);
/* Adds a key/value pair to the footer (before close). */
int pq_writer_add_metadata(pq_writer *w, const char *key, const char *value);
/* Flushes the last row group and writes the footer. */
int pq_writer_close(pq_writer *w);
void pq_writer_free(pq_writer *w);

/* After close: rows, bytes written, and per leaf column the statistics of
 * the whole file (exact, untruncated min/max). */
int64_t pq_writer_num_rows(const pq_writer *w);
int64_t pq_writer_file_size(const pq_writer *w);
int pq_writer_num_leaves(const pq_writer *w);
/* Bytes of memory the writer holds for the row group being built (the
 * capacity of every column's buffers and of the shared page buffers). */
size_t pq_writer_memory(const pq_writer *w);
const pq_leaf *pq_writer_leaf(const pq_writer *w, int i);
const pq_stats *pq_writer_leaf_stats(const pq_writer *w, int i);
/* The Parquet schema being written (valid for the writer's life). */
const pq_wschema *pq_writer_schema(const pq_writer *w);

#endif
