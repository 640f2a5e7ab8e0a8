/* The pages of a column chunk (see column_page.h): the dictionary's
 * verdict and fallback, page bodies (levels, then RLE dictionary indices or
 * PLAIN values), compression into the chunk's buffer and each page's
 * ColumnIndex/OffsetIndex record. */
#include "parquet/column_page.h"
#include "parquet/codec.h"
#include "parquet/encoding_write.h"
#include "parquet/metadata_write.h"
#include "util/mem.h"
#include <string.h>
#include <zlib.h>

/* Re-encodes the page's dictionary indices as PLAIN values and stops using
 * the dictionary; drops it when no page used it yet. */
int pq_colw_fall_back(pq_colw *c)
{
	/* One reservation, then plain copies: this runs for up to a page of
	 * values of every high-cardinality column (a call per value cost more
	 * than the copy itself). */
	size_t total = c->nidx * (size_t)c->width;
	for (size_t k = 0; !c->width && k < c->nidx; k++) {
		size_t n;
		pq_dict_entry(&c->dict, c->idx[k], &n);
		total += n + 4;
	}
	DL_TRY(dl_buf_reserve_upto(&c->plain, total + 1, (total > c->opt.page_bytes ? total : c->opt.page_bytes) + 64));
	uint8_t *out = (uint8_t *)c->plain.data + c->plain.len;
	for (size_t k = 0; k < c->nidx; k++) {
		size_t n;
		const uint8_t *p = pq_dict_entry(&c->dict, c->idx[k], &n);
		if (!c->width) p -= 4, n += 4; /* the entry's length prefix is PLAIN's too */
		if (n == 8) memcpy(out, p, 8); /* constant sizes inline the copy */
		else if (n == 4) memcpy(out, p, 4);
		else memcpy(out, p, n);
		out += n;
	}
	c->plain.len += total;
	c->plain.data[c->plain.len] = 0; /* dl_buf's promise */
	c->nidx = 0;
	c->dict_on = false;
	c->fallback = false;
	if (!c->dict_pages) {
		/* PLAIN to the end of the chunk: the indices' buffer (a page of
		 * uint32s) is not needed until the next chunk tries again */
		pq_colw_dict_release(c);
		dl_free(c->idx);
		c->idx = NULL;
		c->cap_idx = 0;
	}
	return 0;
}

static size_t index_bytes(const pq_colw *c)
{
	int bw = pq_bit_width(c->dict.count ? c->dict.count - 1 : 0);
	return 1 + (c->nidx * (size_t)bw + 7) / 8;
}

int64_t pq_colw_unpaged(const pq_colw *c)
{
	size_t levels = c->nslots * ((c->def ? 1 : 0) + (c->rep ? 1 : 0)) / 4;
	size_t values = c->dict_on ? index_bytes(c) + c->dict.data.len : c->plain.len;
	return (int64_t)(levels + values);
}

size_t pq_colw_page_bytes(const pq_colw *c)
{
	size_t levels = c->nslots * ((c->def ? 1 : 0) + (c->rep ? 1 : 0)) / 4;
	return levels + (c->dict_on ? index_bytes(c) : c->plain.len);
}

static int encode_body(pq_colw *c, dl_buf *body)
{
	dl_buf_clear(body);
	if (c->rep) DL_TRY(pq_levels_encode(body, c->rep, c->nslots, c->leaf->max_rep));
	if (c->def) DL_TRY(pq_levels_encode(body, c->def, c->nslots, c->leaf->max_def));
	if (c->dict_on) {
		uint8_t bw = (uint8_t)pq_bit_width(c->dict.count ? c->dict.count - 1 : 0);
		DL_TRY(dl_buf_append(body, &bw, 1));
		return pq_rle_encode_u32(body, c->idx, c->nidx, bw);
	}
	if (c->leaf->phys == PQ_BOOLEAN)
		return pq_plain_encode_bools(body, (const uint8_t *)c->plain.data, c->plain.len);
	return dl_buf_append(body, c->plain.data, c->plain.len);
}

int pq_colw_check_i32(size_t n, const char *what, const pq_colw *c)
{
	if (n > INT32_MAX)
		return dl_error_set(DL_ENOMEM, "column '%s': %s of %zu exceeds Parquet's 2 GiB page limit; lower the page size",
		                    c->leaf->path[0], what, n);
	return 0;
}

void pq_wpage_free(pq_wpage *p)
{
	if (!p) return;
	dl_buf_free(&p->body);
	dl_free(p->data);
	dl_free(p);
}

int pq_colw_compress_page(const pq_colw *c, pq_wpage *p, pq_colw_scratch *scr)
{
	const dl_buf *body = &p->body;
	dl_buf_clear(&scr->comp);
	DL_TRY(pq_compress(c->opt.codec, c->opt.level, (const uint8_t *)body->data, body->len, &scr->comp));
	DL_TRY(pq_colw_check_i32(body->len, "page size", c));
	DL_TRY(pq_colw_check_i32(scr->comp.len, "compressed page size", c));
	pq_page_header *h = &p->h;
	h->uncompressed_page_size = (int32_t)body->len;
	h->compressed_page_size = (int32_t)scr->comp.len;
	if (c->opt.page_crc) {
		/* parquet.thrift: standard CRC-32 (gzip's) of the page data as stored. */
		h->has_crc = true;
		h->crc = (int32_t)crc32(0L, (const Bytef *)scr->comp.data, (uInt)scr->comp.len);
	}
	dl_buf_clear(&scr->head);
	DL_TRY(pq_page_header_encode(&scr->head, h));
	/* exactly its size: a row group of pages waits in memory for the file */
	p->len = scr->head.len + scr->comp.len;
	p->data = dl_malloc(p->len);
	if (!p->data) return DL_ENOMEM;
	memcpy(p->data, scr->head.data, scr->head.len);
	memcpy(p->data + scr->head.len, scr->comp.data, scr->comp.len);
	p->body_len = (int64_t)body->len;
	p->comp_len = (int64_t)scr->comp.len;
	p->uncompressed = (int64_t)(scr->head.len + body->len);
	return 0;
}

int pq_colw_put_page(pq_colw *c, const pq_page_header *h, pq_wpage **slot)
{
	/* the chunk's from here on, whatever happens */
	pq_wpage *p = *slot = dl_calloc(1, sizeof *p);
	if (!p) return DL_ENOMEM;
	p->h = *h; /* the chunk's from here on, whatever happens */
	return c->scr->put(c->scr->put_ctx, c, c->scr, p);
}

bool pq_colw_dict_pays_off(const pq_colw *c)
{
	return c->dict.data.len + index_bytes(c) < c->page_raw;
}

/* ---- page index -------------------------------------------------------- */

/* Folds one PLAIN value (byte arrays without their length) into s. */
static int page_value(const pq_colw *c, pq_stats *s, const uint8_t *p, size_t n)
{
	switch (s->kind) {
	case PQ_SK_BOOL:
		pq_stats_bool(s, p[0] != 0);
		return 0;
	case PQ_SK_INT:
	case PQ_SK_DECIMAL: {
		dl_i128 v = 0;
		if (c->leaf->phys == PQ_INT32) {
			int32_t x;
			memcpy(&x, p, 4);
			v = x;
		} else if (c->leaf->phys == PQ_INT64) {
			int64_t x;
			memcpy(&x, p, 8);
			v = x;
		} else {
			v = (p[0] & 0x80) ? -1 : 0; /* big-endian two's complement */
			for (size_t k = 0; k < n; k++) v = v * 256 + p[k];
		}
		if (s->kind == PQ_SK_INT) pq_stats_int(s, (int64_t)v);
		else pq_stats_decimal(s, v);
		return 0;
	}
	case PQ_SK_FLOAT: {
		double d;
		if (c->leaf->phys == PQ_FLOAT) {
			float f;
			memcpy(&f, p, 4);
			d = f;
		} else {
			memcpy(&d, p, 8);
		}
		pq_stats_double(s, d);
		return 0;
	}
	case PQ_SK_BYTES:
		return pq_stats_bytes(s, p, n);
	default:
		return 0;
	}
}

/* Min/max of the page's values: each used dictionary entry once, or every
 * PLAIN value. Kept off the per-value path: it runs at page flush. */
static int page_minmax(pq_colw *c, pq_stats *s)
{
	size_t n;
	if (c->dict_on) {
		size_t words = ((size_t)c->dict.count + 63) / 64;
		if (words > c->seen_words) {
			uint64_t *w = dl_reallocarray(c->seen, words, sizeof *w);
			if (!w) return DL_ENOMEM;
			c->seen = w;
			c->seen_words = words;
		}
		if (words) memset(c->seen, 0, words * sizeof *c->seen);
		for (size_t k = 0; k < c->nidx; k++) c->seen[c->idx[k] >> 6] |= 1ULL << (c->idx[k] & 63);
		for (uint32_t e = 0; e < c->dict.count; e++) {
			if (!(c->seen[e >> 6] >> (e & 63) & 1)) continue;
			const uint8_t *p = pq_dict_entry(&c->dict, e, &n);
			DL_TRY(page_value(c, s, p, n));
		}
		return 0;
	}
	if (!c->plain.len) return 0;
	const uint8_t *p = (const uint8_t *)c->plain.data, *end = p + c->plain.len;
	while (p < end) {
		if (c->leaf->phys == PQ_BOOLEAN || c->width) {
			n = c->leaf->phys == PQ_BOOLEAN ? 1 : (size_t)c->width;
		} else {
			n = (size_t)p[0] | (size_t)p[1] << 8 | (size_t)p[2] << 16 | (size_t)p[3] << 24;
			p += 4;
		}
		DL_TRY(page_value(c, s, p, n));
		p += n;
	}
	return 0;
}

/* Describes the page about to be written (its offset and size are set
 * when the chunk is emitted: the page is not compressed yet). */
static int page_record(pq_colw *c, pq_page_rec *r)
{
	memset(r, 0, sizeof *r);
	for (size_t k = 0; c->def && k < c->nslots; k++) r->null_count += c->def[k] < c->leaf->max_def;
	if (c->pstats_live) {
		DL_TRY(pq_stats_merge_minmax(&c->stats, &c->pstats));
	} else {
		pq_stats_reset(&c->pstats);
		DL_TRY(page_minmax(c, &c->pstats));
	}
	bool has_values = (size_t)r->null_count < c->nslots;
	r->null_page = !has_values;
	r->first_row = c->chunk_rows;
	/* No order to give (null type), or NaNs that old readers would prune
	 * with a min/max that leaves them out: no ColumnIndex for this chunk, as
	 * parquet-mr drops it when it meets a NaN. */
	if (has_values && (!c->pstats.has_minmax || c->pstats.kind == PQ_SK_NONE)) c->pidx.no_values = true;
	if (c->page_nans) c->pidx.no_values = true;
	return 0;
}

static int page_record_add(pq_colw *c, pq_page_rec *r)
{
	pq_statistics st;
	memset(&st, 0, sizeof st);
	if (!r->null_page && c->pstats.has_minmax)
		DL_TRY(pq_stats_to_thrift(&c->pstats, c->leaf->phys, c->leaf->type_length, c->opt.stats_truncate,
		                          c->leaf->utf8, &c->scratch, &st));
	r->min_len = st.has_min_value ? st.min_value.len : 0;
	r->max_len = st.has_max_value ? st.max_value.len : 0;
	return pq_page_index_add(&c->pidx, r, st.min_value.ptr, st.max_value.ptr);
}

int pq_colw_flush_page(pq_colw *c)
{
	if (!c->nslots) return 0;
	/* Judge the dictionary on a page that has values (not an all-null one). */
	if (c->dict_on && (c->fallback || (!c->dict_pages && c->nidx && !pq_colw_dict_pays_off(c)))) DL_TRY(pq_colw_fall_back(c));
	/* A page without values needs no dictionary: PLAIN with an empty body. */
	bool dict_on = c->dict_on;
	if (!c->nidx) c->dict_on = false;
	DL_TRY(pq_colw_check_i32(c->nslots, "value count", c));
	pq_page_rec rec;
	if (c->opt.page_index) DL_TRY(page_record(c, &rec));
	DL_TRY(encode_body(c, &c->scr->body));
	pq_page_header h;
	memset(&h, 0, sizeof h);
	h.type = PQ_PAGE_DATA;
	h.has_data_page_header = true;
	h.data_page_header.num_values = (int32_t)c->nslots;
	h.data_page_header.encoding = c->dict_on ? PQ_ENC_RLE_DICTIONARY : PQ_ENC_PLAIN;
	h.data_page_header.definition_level_encoding = PQ_ENC_RLE;
	h.data_page_header.repetition_level_encoding = PQ_ENC_RLE;
	if (c->npages == c->cap_pages) {
		size_t cap = c->cap_pages ? c->cap_pages * 2 : 16;
		pq_wpage **v = dl_reallocarray(c->pagev, cap, sizeof *v);
		if (!v) return DL_ENOMEM;
		c->pagev = v;
		c->cap_pages = cap;
	}
	DL_TRY(pq_colw_put_page(c, &h, &c->pagev[c->npages++]));
	if (c->opt.page_index) {
		DL_TRY(page_record_add(c, &rec));
		c->chunk_rows += c->page_rows;
		c->page_rows = 0;
	}
	c->num_values += (int64_t)c->nslots;
	c->stats.num_values += (int64_t)c->nslots;
	if (c->dict_on) c->dict_pages++;
	else c->plain_pages++;
	c->dict_on = dict_on;
	c->nslots = c->nidx = c->page_raw = 0;
	c->page_nans = 0;
	if (c->opt.page_index) {
		pq_stats_reset(&c->pstats);
		c->pstats_live = !c->dict_on;
	}
	dl_buf_clear(&c->plain);
	return 0;
}

/* Called at row boundaries: honours a pending fallback and the page size. */
