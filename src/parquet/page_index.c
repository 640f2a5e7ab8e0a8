/* Page index encoding (see page_index.h). parquet.thrift:
 *   ColumnIndex { 1: list<bool> null_pages, 2: list<binary> min_values,
 *                 3: list<binary> max_values, 4: BoundaryOrder, 5: list<i64> null_counts }
 *   OffsetIndex { 1: list<PageLocation{1: i64 offset, 2: i32 compressed_page_size,
 *                                      3: i64 first_row_index}> }
 * Null pages carry empty min/max, as the format asks. */
#include "parquet/page_index.h"
#include "parquet/thrift_write.h"
#include "util/mem.h"
#include <string.h>

int pq_page_index_add(pq_page_index *x, const pq_page_rec *rec, const uint8_t *min, const uint8_t *max)
{
	if (x->n == x->cap) {
		size_t cap = x->cap ? x->cap * 2 : 16;
		pq_page_rec *p = dl_reallocarray(x->pages, cap, sizeof *p);
		if (!p) return DL_ENOMEM;
		x->pages = p;
		x->cap = cap;
	}
	pq_page_rec r = *rec;
	r.min_off = x->vals.len;
	DL_TRY(dl_buf_append(&x->vals, min, r.min_len));
	r.max_off = x->vals.len;
	DL_TRY(dl_buf_append(&x->vals, max, r.max_len));
	x->pages[x->n++] = r;
	return 0;
}

int pq_page_index_encode_column(dl_buf *out, const pq_page_index *x)
{
	pq_tw w;
	pq_tw_init(&w, out);
	const uint8_t *v = (const uint8_t *)x->vals.data;
	/* list<bool>: one byte per element, 1 = true and 2 = false (compact protocol). */
	pq_tw_list_begin(&w, 1, PQ_TT_BOOL_TRUE, x->n);
	for (size_t i = 0; i < x->n && !w.error; i++) {
		uint8_t b = x->pages[i].null_page ? PQ_TT_BOOL_TRUE : PQ_TT_BOOL_FALSE;
		w.error = dl_buf_append(out, &b, 1);
	}
	pq_tw_list_begin(&w, 2, PQ_TT_BINARY, x->n);
	for (size_t i = 0; i < x->n; i++) pq_tw_elem_binary(&w, v ? v + x->pages[i].min_off : NULL, x->pages[i].min_len);
	pq_tw_list_begin(&w, 3, PQ_TT_BINARY, x->n);
	for (size_t i = 0; i < x->n; i++) pq_tw_elem_binary(&w, v ? v + x->pages[i].max_off : NULL, x->pages[i].max_len);
	pq_tw_i32(&w, 4, 0); /* UNORDERED */
	pq_tw_list_begin(&w, 5, PQ_TT_I64, x->n);
	for (size_t i = 0; i < x->n; i++) pq_tw_elem_i64(&w, x->pages[i].null_count);
	return pq_tw_finish(&w);
}

int pq_page_index_encode_offsets(dl_buf *out, const pq_page_index *x, int64_t base)
{
	pq_tw w;
	pq_tw_init(&w, out);
	pq_tw_list_begin(&w, 1, PQ_TT_STRUCT, x->n);
	for (size_t i = 0; i < x->n; i++) {
		pq_tw_elem_struct_begin(&w);
		pq_tw_i64(&w, 1, base + x->pages[i].offset);
		pq_tw_i32(&w, 2, x->pages[i].size);
		pq_tw_i64(&w, 3, x->pages[i].first_row);
		pq_tw_end(&w);
	}
	return pq_tw_finish(&w);
}

void pq_page_index_clear(pq_page_index *x)
{
	x->n = 0;
	x->no_values = false;
	dl_buf_clear(&x->vals);
}

void pq_page_index_free(pq_page_index *x)
{
	dl_free(x->pages);
	dl_buf_free(&x->vals);
	memset(x, 0, sizeof *x);
}
