/* Reading one leaf column chunk: pages (page_read.c) decoded into dense
 * values plus definition/repetition levels for a batch of rows, then
 * assembled into Arrow arrays following the plan (column_read.c). */
#ifndef DL_PARQUET_COLUMN_READ_H
#define DL_PARQUET_COLUMN_READ_H
#include "columnar/array.h"
#include "parquet/encoding_read.h"
#include "parquet/file_source.h"
#include "parquet/metadata.h"
#include "parquet/output_pool.h"
#include "parquet/schema_read.h"
#include "util/error.h"

#define PQ_MAX_PAGE_VALUES (1 << 24)

typedef struct pq_leaf_reader {
	const pq_rleaf *leaf;
	pq_pool *pool;        /* where batch outputs come from (borrowed) */
	bool values_needed;
	bool raw_nanos;       /* TIMESTAMP(NANOS) values kept in nanoseconds (shredded variant) */
	int out_width;        /* bytes per output value; 0 = variable (bin) */
	/* where we are, for messages */
	const char *file;
	int row_group;
	int page_no;
	/* the column chunk's bytes (one range read) */
	uint8_t *chunk_buf;   /* reused across row groups */
	size_t chunk_cap;
	const uint8_t *cp, *cend;
	pq_codec codec;
	int64_t values_left;  /* from ColumnMetaData.num_values */
	uint8_t *page_buf;    /* decompressed page */
	size_t page_cap;
	/* dictionary in output form */
	bool has_dict;
	uint8_t *dict;        /* fixed-width entries */
	uint32_t ndict;
	pq_binbuf dict_bin;   /* variable-width entries */
	int32_t dict_maxlen;  /* dict_bin's longest entry; -1 until pq_dict_prepare_bytes */
	/* current data page */
	bool in_page;
	int32_t page_values;  /* level entries in the page */
	int32_t page_pos;
	bool page_dense;      /* no null in the page: a span's values are its levels */
	uint8_t *pdef, *prep; /* the page's levels (NULL when max level 0) */
	size_t plvl_cap;
	pq_encoding enc;
	const uint8_t *vp, *vend; /* value section */
	int bool_bit;
	pq_rle rle;           /* dictionary indices or RLE booleans */
	int64_t *dints;       /* pre-decoded DELTA_BINARY_PACKED values */
	size_t dcap, dpos, dcount;
	pq_binbuf dbin;       /* pre-decoded delta byte arrays */
	size_t dbpos;
	size_t bss_total, bss_pos;
	/* the batch */
	uint8_t *def, *rep;   /* levels of the batch */
	int64_t nlevels, lvl_cap;
	uint8_t *vals;        /* dense fixed-width output values */
	int64_t nvals, vals_cap;
	pq_binbuf bin;        /* dense variable-width output values */
	int64_t hint_bytes;   /* data bytes of the previous batch, to presize */
	int64_t chunk_hint;   /* the largest hint_bytes of the chunk: the next
	                         chunk's first batch starts from it */
	/* page selection (pq_leaf_reader_open with a pq_page_sel): only the
	 * wanted pages are fetched and decoded, in runs of consecutive ones */
	pq_source *src;
	const pq_page_loc *locs; /* the chunk's OffsetIndex; NULL: every page in order */
	int nlocs;
	const bool *want;        /* per page */
	int loc_next;            /* index of the next data page to parse */
	int loc_cur;             /* index of the current data page, -1 before one */
	int64_t run_off;         /* file offset of run_base */
	const uint8_t *run_base; /* the loaded bytes cp..cend start here */
	bool prefix_only;        /* parsing the dictionary before the first page */
	/* late materialization (pq_leaf_read_rows_sel): rows that pq_leaf_next_page
	 * may pass over whole pages of, and how many it did */
	int64_t skip_ahead, skipped_rows;
	int64_t pages_passed;    /* pages never decompressed (for tests and metrics) */
	/* scratch */
	uint8_t *tmp;
	size_t tmp_cap;
	uint32_t *idx;
	pq_binbuf tbin;
} pq_leaf_reader;

/* Pages of a chunk to read (the rest are neither fetched nor decoded). */
typedef struct pq_page_sel {
	const pq_page_loc *locs; /* the chunk's OffsetIndex */
	int n;
	const bool *want;        /* per page; borrowed for the chunk's life */
} pq_page_sel;

/* Opens the chunk of `leaf` in row group `rg`: reads its bytes (with sel,
 * only the dictionary; wanted pages are read when reached). Scratch
 * buffers of a previous chunk (zeroed or released reader) are reused. */
int pq_leaf_reader_open(pq_leaf_reader *r, pq_source *src, const pq_file_metadata *md, int rg,
                        const pq_rleaf *leaf, int leaf_index, bool values_needed, pq_pool *pool,
                        const pq_page_sel *sel);
/* With a page selection: positions the reader at row `row` of the row
 * group (at or after the rows read so far), jumping to its page. */
int pq_leaf_seek(pq_leaf_reader *r, int64_t row);
/* Ends a chunk, keeping scratch buffers for the next one. */
void pq_leaf_reader_release(pq_leaf_reader *r);
/* Frees everything. */
void pq_leaf_reader_close(pq_leaf_reader *r);
/* Reads the levels (and values) of the next `rows` rows into the batch
 * buffers, replacing the previous batch. */
int pq_leaf_read_rows(pq_leaf_reader *r, int64_t rows);
/* The same for a leaf that is not repeated, keeping only the rows
 * sel[0..nsel) (ascending, < rows) of the next `rows`: the values of the
 * others are skipped, not decoded, and pages holding none of the selected
 * rows are not decompressed. */
int pq_leaf_read_rows_sel(pq_leaf_reader *r, int64_t rows, const uint32_t *sel, int64_t nsel);

/* page_read.c: loads the next page (dictionary pages are absorbed);
 * *eof when the chunk has no more data pages. */
int pq_leaf_next_page(pq_leaf_reader *r, bool *eof);
/* Decodes the next n non-null values of the current page, appending them to
 * the batch's dense values. */
int pq_leaf_decode_values(pq_leaf_reader *r, size_t n);
/* Passes over the next n non-null values of the current page. */
int pq_leaf_skip_values(pq_leaf_reader *r, size_t n);
/* With a page selection: loads the next run of wanted pages; *any false
 * when no wanted page is left. */
int pq_leaf_load_run(pq_leaf_reader *r, bool *any);
/* How many of the n levels equal m. */
size_t pq_count_level(const uint8_t *lv, size_t n, uint8_t m);
/* Output width of a leaf's values (0 for variable length). */
int pq_leaf_out_width(const pq_rleaf *leaf);
/* Raises/prefixes an error with file, row group, column and page. */
int pq_leaf_error(pq_leaf_reader *r, int code, const char *fmt, ...) DL_PRINTF(3, 4);
int pq_leaf_prefix(pq_leaf_reader *r);

/* Assembles the array of plan node `o` from the leaf readers' batches:
 * `n` entries expected (-1: take the count from the levels). */
int pq_assemble(dl_array **out, const pq_out *o, pq_leaf_reader *readers, int64_t n, const char *file);
/* Converts an array of a leaf type to a wider requested type. */
int pq_cast_array(dl_array **a, dl_type *to);

#endif
