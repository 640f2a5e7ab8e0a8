/* Page index of a column chunk (parquet-format PageIndex.md): the
 * OffsetIndex (where each data page starts, its size with header, its first
 * row) and the ColumnIndex (per page: all-null flag, min, max, null count),
 * written after the row groups so readers can skip pages by row range or by
 * value, as parquet-mr writes them. */
#ifndef DL_PARQUET_PAGE_INDEX_H
#define DL_PARQUET_PAGE_INDEX_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "util/buf.h"

typedef struct pq_page_rec {
	int64_t offset;     /* of the page header, relative to the first data page */
	int32_t size;       /* header + compressed data */
	int64_t first_row;  /* within the row group */
	bool null_page;
	int64_t null_count;
	size_t min_off, min_len, max_off, max_len; /* in vals */
} pq_page_rec;

typedef struct pq_page_index {
	pq_page_rec *pages;
	size_t n, cap;
	dl_buf vals;        /* min/max bytes of the pages */
	bool no_values;     /* the column index cannot be written (no order, NaN-only page) */
} pq_page_index;

int pq_page_index_add(pq_page_index *x, const pq_page_rec *rec, const uint8_t *min, const uint8_t *max);
/* Appends the Thrift ColumnIndex (boundary order UNORDERED, always valid). */
int pq_page_index_encode_column(dl_buf *out, const pq_page_index *x);
/* Appends the Thrift OffsetIndex; `base` is the file offset of the first data page. */
int pq_page_index_encode_offsets(dl_buf *out, const pq_page_index *x, int64_t base);
void pq_page_index_clear(pq_page_index *x);
void pq_page_index_free(pq_page_index *x);

#endif
