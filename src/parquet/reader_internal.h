/* The state of a pq_reader shared by its parts: reader_open.c (footer,
 * schema, projection, accessors), reader_pages.c (page index, row ranges,
 * Bloom filters) and reader.c (row groups read into batches, late
 * materialization). Private to src/parquet/reader*.c. */
#ifndef DL_PARQUET_READER_INTERNAL_H
#define DL_PARQUET_READER_INTERNAL_H
#include "parquet/bloom_read.h"
#include "parquet/column_read.h"
#include "parquet/file_source.h"
#include "parquet/output_pool.h"
#include "parquet/reader.h"
#include "parquet/schema_read.h"
#include "util/error.h"

struct pq_reader {
	pq_source src;
	dl_arena arena;
	pq_file_metadata md;
	pq_schema schema;
	pq_out plan;
	pq_pool *pool;
	int64_t *rg_first; /* nrow_groups + 1 prefix sums */
	int *rgs;
	int nrgs, rg_pos;
	int64_t batch;
	bool started;
	dl_pool *tpool;    /* parallel column decoding, or NULL */
	pq_parallel_fn par; /* ... or through this (pq_reader_set_parallel) */
	void *par_payload;
	int *needed;       /* indexes of the leaves to read */
	int nneeded;
	/* late materialization (pq_reader_set_late_columns) */
	bool *late_col;    /* per plan child: decoded by pq_reader_read_late */
	int *early, nearly; /* the needed leaves pq_reader_next decodes */
	int *late, nlate;  /* ... and those it leaves to pq_reader_read_late */
	bool late_pending; /* the last batch's late leaves are not read yet */
	int64_t late_rows, late_seek;
	int64_t pages_passed; /* ... of the row groups closed */
	/* the open row group */
	bool rg_open;
	int cur_rg;
	int64_t rg_done, rg_rows;
	pq_leaf_reader *readers;
	bool *need, *values;
	bool *raw_nanos;   /* leaves under a shredded variant's typed_value */
	/* page index: per row group, the index bytes and the decoded indexes
	 * of each leaf (loaded on first use) */
	struct pq_rg_index *rgi;
	/* row ranges per row group (pq_reader_set_row_ranges): NULL = all rows */
	pq_row_range **ranges;
	int *nranges;
	int cur_range;
	bool **want;       /* per leaf: the pages of the open row group to read */
	pq_skip_stats skip;
	/* per leaf: the Bloom filter of the last row group probed (IN lists
	 * probe one filter many times) */
	struct pq_bloom_slot *bloom;
};

typedef struct pq_bloom_slot {
	int rg_plus1;         /* 0: none loaded */
	bool usable;
	pq_bloom f;
} pq_bloom_slot;

typedef struct pq_rg_index {
	bool loaded;
	const uint8_t *bytes; /* the row group's index bytes, from file offset `off` */
	uint8_t *owned;
	int64_t off;
	size_t len;
	signed char *state;   /* per leaf: 0 not decoded, 1 decoded, -1 absent or bad */
	pq_offset_index *oi;  /* per leaf */
	pq_column_index *ci;  /* per leaf (n < 0: absent) */
} pq_rg_index;

/* Projection, row groups and late columns are fixed once reading starts. */
static inline int pq_reader_not_started(const pq_reader *r)
{
	if (r->started) return dl_error_set(DL_EINVALID, "%s: projection and row groups must be set before reading", r->src.name);
	return 0;
}

/* reader.c: ends the open row group (its leaf readers and fetched bytes). */
void pq_reader_close_row_group(pq_reader *r);
/* reader_pages.c: frees the page index, row ranges and Bloom filter state. */
void pq_reader_free_page_state(pq_reader *r);
/* reader_pages.c: the pages of each needed leaf that row group rg's row
 * ranges touch (r->want). */
int pq_reader_select_pages(pq_reader *r, int rg);

#endif
