/* Column chunk writer (see column_writer.h).
 *
 * Levels: a leaf's steps say, from its top-level array down, which nodes are
 * OPTIONAL (a null there ends the slot at the current definition level) and
 * which are lists/maps (each element adds a definition level; elements after
 * the first repeat at the list's repetition level; an empty list is a slot
 * at the list's level). Pages end only at row boundaries, so readers with
 * page indexes and data page v2 semantics can split on them.
 *
 * Dictionary: values are looked up in the chunk's dictionary; only new
 * entries update min/max (old ones cannot change it). When the dictionary
 * passes its byte limit, or when the first page shows it does not pay off
 * (dictionary + indices >= PLAIN; checked on its first 32Ki values too, so
 * a dictionary of distinct values does not grow to its limit first), the
 * page being filled is re-encoded as PLAIN and later pages are PLAIN, as
 * parquet-mr's fallback writer does. */
#include "parquet/column_writer.h"
#include "parquet/column_page.h"
#include "parquet/codec.h"
#include "parquet/encoding_write.h"
#include "parquet/metadata_write.h"
#include "parquet/sink.h"
#include "util/mem.h"
#include <string.h>
#include <zlib.h>

static pq_stats_kind stats_kind(const dl_type *t)
{
	switch (t->id) {
	case DL_TYPE_NULL: return PQ_SK_NONE;
	case DL_TYPE_BOOLEAN: return PQ_SK_BOOL;
	case DL_TYPE_FLOAT:
	case DL_TYPE_DOUBLE: return PQ_SK_FLOAT;
	case DL_TYPE_DECIMAL: return PQ_SK_DECIMAL;
	case DL_TYPE_STRING: return PQ_SK_BYTES;
	/* Geospatial WKB has no byte order (Parquet's Geospatial.md): no min/max */
	case DL_TYPE_BINARY: return t->geo ? PQ_SK_NONE : PQ_SK_BYTES;
	default: return PQ_SK_INT;
	}
}

static int plain_width(const pq_leaf *l)
{
	switch (l->phys) {
	case PQ_BOOLEAN: return 1;
	case PQ_INT32:
	case PQ_FLOAT: return 4;
	case PQ_INT64:
	case PQ_DOUBLE: return 8;
	case PQ_FIXED_LEN_BYTE_ARRAY: return l->type_length;
	default: return 0;
	}
}

int pq_colw_init(pq_colw *c, const pq_leaf *leaf, const pq_colw_options *opt)
{
	memset(c, 0, sizeof *c);
	c->leaf = leaf;
	c->opt = *opt;
	c->width = plain_width(leaf);
	/* Booleans are never dictionary encoded (as parquet-mr). */
	c->dict_on = opt->dictionary && leaf->phys != PQ_BOOLEAN && leaf->type->id != DL_TYPE_NULL;
	pq_dict_init(&c->dict, c->width);
	c->dict.data_limit = opt->dict_bytes + 64;
	pq_stats_init(&c->stats, stats_kind(leaf->type));
	pq_stats_init(&c->file_stats, stats_kind(leaf->type));
	pq_stats_init(&c->pstats, stats_kind(leaf->type));
	c->pstats_live = opt->page_index && !c->dict_on;
	return 0;
}

void pq_colw_scratch_free(pq_colw_scratch *s)
{
	dl_buf_free(&s->body);
	dl_buf_free(&s->comp);
	dl_buf_free(&s->head);
}

size_t pq_colw_memory(const pq_colw *c)
{
	const pq_dict *d = &c->dict;
	size_t n = c->cap_slots * sizeof(uint16_t) * ((c->def ? 1 : 0) + (c->rep ? 1 : 0));
	n += c->cap_idx * sizeof *c->idx + c->plain.cap + c->scratch.cap + c->cap_pages * sizeof *c->pagev;
	n += d->data.cap + d->cap * (sizeof *d->hashes + (d->offs ? sizeof *d->offs : 0));
	n += d->slots ? ((size_t)d->mask + 1) * sizeof *d->slots : 0;
	return n + c->seen_words * sizeof *c->seen;
}

void pq_colw_free(pq_colw *c)
{
	dl_free(c->def);
	dl_free(c->rep);
	dl_free(c->idx);
	dl_buf_free(&c->plain);
	pq_bloom_builder_free(&c->bloom);
	pq_dict_free(&c->dict);
	for (size_t k = 0; k < c->npages; k++) pq_wpage_free(c->pagev[k]);
	dl_free(c->pagev);
	pq_stats_free(&c->stats);
	pq_stats_free(&c->file_stats);
	dl_buf_free(&c->scratch);
	pq_page_index_free(&c->pidx);
	pq_stats_free(&c->pstats);
	dl_free(c->seen);
	memset(c, 0, sizeof *c);
}

/* Gives the dictionary's memory back (its data, hashes and slots: about
 * 3.5 MB at the 1 MB page limit of 8-byte values) instead of keeping it
 * for reuse: 50 columns that fell back would otherwise hold 175 MB that
 * no page needs. */
void pq_colw_dict_release(pq_colw *c)
{
	pq_dict_free(&c->dict);
	pq_dict_init(&c->dict, c->width);
	c->dict.data_limit = c->opt.dict_bytes + 64;
}

/* ---- levels ------------------------------------------------------------ */

static int grow_slots(pq_colw *c)
{
	size_t cap = c->cap_slots ? c->cap_slots * 2 : 4096;
	if (c->leaf->max_def) {
		uint16_t *d = dl_reallocarray(c->def, cap, sizeof *d);
		if (!d) return DL_ENOMEM;
		c->def = d;
	}
	if (c->leaf->max_rep) {
		uint16_t *r = dl_reallocarray(c->rep, cap, sizeof *r);
		if (!r) return DL_ENOMEM;
		c->rep = r;
	}
	c->cap_slots = cap;
	return 0;
}

static inline int put_levels(pq_colw *c, int def, int rep)
{
	if (__builtin_expect(c->nslots == c->cap_slots, 0)) DL_TRY(grow_slots(c));
	if (c->def) c->def[c->nslots] = (uint16_t)def;
	if (c->rep) c->rep[c->nslots] = (uint16_t)rep;
	c->nslots++;
	return 0;
}

static int put_null(pq_colw *c, int def, int rep)
{
	c->stats.null_count++;
	return put_levels(c, def, rep);
}

/* ---- values ------------------------------------------------------------ */

static int put_index(pq_colw *c, uint32_t i)
{
	if (c->nidx == c->cap_idx) {
		size_t cap = c->cap_idx ? c->cap_idx * 2 : 4096;
		uint32_t *p = dl_reallocarray(c->idx, cap, sizeof *p);
		if (!p) return DL_ENOMEM;
		c->idx = p;
		c->cap_idx = cap;
	}
	c->idx[c->nidx++] = i;
	return 0;
}

/* Adds one PLAIN-encoded value (byte arrays without their length prefix)
 * through the dictionary or to the PLAIN buffer. Returns 1 when the value
 * may change min/max (so callers skip the comparison otherwise). */
/* dl_buf_append without the call for the common case of room to spare. */
static inline int buf_put(dl_buf *b, const void *p, size_t n, size_t limit)
{
	if (b->cap - b->len <= n + 1) {
		DL_TRY(dl_buf_reserve_upto(b, n, limit));
		return dl_buf_append(b, p, n);
	}
	memcpy(b->data + b->len, p, n);
	b->len += n;
	b->data[b->len] = 0; /* dl_buf's promise */
	return 0;
}

/* Values of the first page after which the dictionary must already pay
 * off (parquet-mr decides at the end of the first page; a prefix of it
 * says the same for data without repeats and bounds the memory). */
#define DICT_EARLY_CHECK 32768


static int put_encoded(pq_colw *c, const void *p, size_t n)
{
	c->page_raw += c->width ? (size_t)c->width : n + 4;
	if (c->bloom.fpp > 0) DL_TRY(pq_bloom_builder_add(&c->bloom, p, n));
	if (c->dict_on) {
		uint32_t i;
		bool added;
		DL_TRY(pq_dict_insert(&c->dict, p, n, &i, &added));
		if (c->nidx == c->cap_idx) DL_TRY(put_index(c, i));
		else c->idx[c->nidx++] = i;
		if (added && c->dict.data.len > c->opt.dict_bytes) c->fallback = true;
		/* The first page's verdict, taken on its first values: a
		 * dictionary that does not pay off there (all of them distinct,
		 * say) would otherwise grow to its limit first, up to 4 MB per
		 * column with its hash table and indices, 200 MB for 50 such
		 * columns at the start of every row group. */
		if (c->nidx == DICT_EARLY_CHECK && !c->dict_pages && !pq_colw_dict_pays_off(c)) c->fallback = true;
		return added;
	}
	if (!c->width) {
		if (n > UINT32_MAX) return dl_error_set(DL_EINVALID, "a value of %zu bytes is too large for Parquet", n);
		uint8_t len4[4];
		pq_store_le32(len4, (uint32_t)n);
		DL_TRY(buf_put(&c->plain, len4, 4, c->opt.page_bytes + 4 + n + 64));
	}
	/* a page is flushed once it reaches page_bytes: room for that and the
	 * value that crosses it, not twice */
	size_t lim = c->opt.page_bytes + n + 64;
	if (n == 8) DL_TRY(buf_put(&c->plain, p, 8, lim)); /* constant sizes inline the copy */
	else if (n == 4) DL_TRY(buf_put(&c->plain, p, 4, lim));
	else DL_TRY(buf_put(&c->plain, p, n, lim));
	return 1;
}

static inline dl_i128 load_i128(const dl_array *a, int64_t i)
{
	dl_i128 v;
	memcpy(&v, (const uint8_t *)a->values + 16 * i, 16);
	return v;
}

/* 10^p for p in 0..38, the exclusive bound of a DECIMAL(p, s) unscaled
 * value: from a table of 64-bit powers, one multiply above 10^19. */
static dl_i128 pow10_i128(int p)
{
	static const uint64_t p10[20] = {1ULL, 10ULL, 100ULL, 1000ULL, 10000ULL, 100000ULL, 1000000ULL,
	                                 10000000ULL, 100000000ULL, 1000000000ULL, 10000000000ULL,
	                                 100000000000ULL, 1000000000000ULL, 10000000000000ULL,
	                                 100000000000000ULL, 1000000000000000ULL, 10000000000000000ULL,
	                                 100000000000000000ULL, 1000000000000000000ULL,
	                                 10000000000000000000ULL};
	return p <= 19 ? (dl_i128)p10[p] : (dl_i128)p10[19] * (dl_i128)p10[p - 19];
}

/* A decimal value must fit its column's precision: the physical type (INT32
 * up to 9 digits, INT64 up to 18, FIXED_LEN_BYTE_ARRAY sized by precision)
 * would otherwise silently keep only its low bytes - a different number. */
static int check_decimal(const pq_colw *c, const dl_type *t, dl_i128 v, int64_t i)
{
	if (t->precision < 1 || t->precision > 38) return 0;
	dl_i128 lim = pow10_i128(t->precision);
	if (v < lim && v > -lim) return 0;
	return dl_error_set(DL_EINVALID,
	                    "column '%s': the decimal at row %lld has more than %d digits, so it does not "
	                    "fit DECIMAL(%d,%d); cast the data to a wider decimal type",
	                    c->leaf->path[0], (long long)i, t->precision, t->precision, t->scale);
}

static int put_value(pq_colw *c, const dl_array *a, int64_t i)
{
	uint8_t b[16];
	int rc;
	pq_stats *st = c->pstats_live ? &c->pstats : &c->stats;
	switch (a->type->id) {
	case DL_TYPE_BOOLEAN: {
		uint8_t v = dl_bit_get(a->values, i);
		pq_stats_bool(st, v);
		return dl_buf_append(&c->plain, &v, 1);
	}
	case DL_TYPE_BYTE:
	case DL_TYPE_SHORT:
	case DL_TYPE_INTEGER:
	case DL_TYPE_DATE: {
		int32_t v = a->type->id == DL_TYPE_BYTE    ? ((const int8_t *)a->values)[i]
		            : a->type->id == DL_TYPE_SHORT ? ((const int16_t *)a->values)[i]
		                                           : ((const int32_t *)a->values)[i];
		pq_store_le32(b, (uint32_t)v);
		if ((rc = put_encoded(c, b, 4)) > 0) pq_stats_int(st, v);
		return rc < 0 ? rc : 0;
	}
	case DL_TYPE_LONG:
	case DL_TYPE_TIMESTAMP:
	case DL_TYPE_TIMESTAMP_NTZ: {
		int64_t v = ((const int64_t *)a->values)[i];
		if ((rc = put_encoded(c, &v, 8)) > 0) pq_stats_int(st, v); /* little-endian host */
		return rc < 0 ? rc : 0;
	}
	case DL_TYPE_FLOAT: {
		float v = ((const float *)a->values)[i];
		if (v != v) { /* every NaN, dictionary or not */
			c->stats.nan_count++;
			c->page_nans++;
		}
		if ((rc = put_encoded(c, &v, 4)) > 0) pq_stats_double(st, v);
		return rc < 0 ? rc : 0;
	}
	case DL_TYPE_DOUBLE: {
		double v = ((const double *)a->values)[i];
		if (v != v) {
			c->stats.nan_count++;
			c->page_nans++;
		}
		if ((rc = put_encoded(c, &v, 8)) > 0) pq_stats_double(st, v);
		return rc < 0 ? rc : 0;
	}
	case DL_TYPE_DECIMAL: {
		dl_i128 v = load_i128(a, i);
		DL_TRY(check_decimal(c, a->type, v, i));
		if (c->leaf->phys == PQ_INT32) {
			pq_store_le32(b, (uint32_t)(int32_t)v);
		} else if (c->leaf->phys == PQ_INT64) {
			int64_t x = (int64_t)v;
			memcpy(b, &x, 8);
		} else {
			dl_i128 u = v;
			for (int k = c->width - 1; k >= 0; k--) {
				b[k] = (uint8_t)u;
				u >>= 8;
			}
		}
		if ((rc = put_encoded(c, b, (size_t)c->width)) > 0) pq_stats_decimal(st, v);
		return rc < 0 ? rc : 0;
	}
	case DL_TYPE_STRING:
	case DL_TYPE_BINARY: {
		int32_t s = a->offsets[i], e = a->offsets[i + 1];
		if (s < 0 || e < s || e > a->data_len)
			return dl_error_set(DL_EINVALID, "column '%s': string offsets [%d, %d) outside its %lld data bytes",
			                    c->leaf->path[0], s, e, (long long)a->data_len);
		const uint8_t *p = a->data + s;
		if ((rc = put_encoded(c, p, (size_t)(e - s))) > 0)
			return st->kind == PQ_SK_BYTES ? pq_stats_bytes(st, p, (size_t)(e - s)) : 0;
		return rc < 0 ? rc : 0;
	}
	default:
		return dl_error_set(DL_EINVALID, "column '%s': a value of type %s where the schema has no values",
		                    c->leaf->path[0], dl_type_id_name(a->type->id));
	}
}

static int row_boundary(pq_colw *c)
{
	if (c->fallback && c->dict_on) {
		if (c->dict_pages) {
			/* Earlier pages need the dictionary: finish this one with it. */
			c->fallback = false;
			DL_TRY(pq_colw_flush_page(c));
			c->dict_on = false;
			return 0;
		}
		DL_TRY(pq_colw_fall_back(c));
	}
	if (pq_colw_page_bytes(c) >= c->opt.page_bytes) return pq_colw_flush_page(c);
	return 0;
}

/* ---- shredding --------------------------------------------------------- */

/* A null where the schema says NOT NULL: the caller skipped enforcement. */
static int null_in_required(const pq_colw *c, int s)
{
	(void)s;
	return dl_error_set(DL_ECONSTRAINT, "column '%s' (leaf '%s'): a null where the schema says NOT NULL; fix the "
	                    "data or make the field nullable", c->leaf->path[0], c->leaf->path[c->leaf->npath - 1]);
}

static int walk(pq_colw *c, int s, const dl_array *a, int64_t i, int def, int rep)
{
	const pq_step *st = &c->leaf->steps[s];
	if (st->optional) {
		if (!dl_array_is_valid(a, i)) return put_null(c, def, rep);
		def++;
	} else if (a->validity && !dl_bit_get(a->validity, i)) {
		return null_in_required(c, s);
	}
	switch (st->kind) {
	case PQ_STEP_LEAF:
		DL_TRY(put_levels(c, def, rep));
		return put_value(c, a, i);
	case PQ_STEP_STRUCT:
		if (st->child >= a->nchildren || a->children[st->child]->length < a->length)
			return dl_error_set(DL_EINVALID, "column '%s': struct array without child %d of its length",
			                    c->leaf->path[0], st->child);
		return walk(c, s + 1, a->children[st->child], i, def, rep);
	case PQ_STEP_REPEATED: {
		int32_t b = a->offsets[i], e = a->offsets[i + 1];
		if (a->nchildren < 1 || b < 0 || e < b || e > a->children[0]->length)
			return dl_error_set(DL_EINVALID, "column '%s': list offsets [%d, %d) outside its elements",
			                    c->leaf->path[0], b, e);
		if (b == e) return put_null(c, def, rep);
		for (int32_t j = b; j < e; j++)
			DL_TRY(walk(c, s + 1, a->children[0], j, def + 1, j == b ? rep : st->rep_level));
		return 0;
	}
	}
	return 0;
}

/* Top-level primitive columns: no recursion, levels straight from validity. */
static int write_flat(pq_colw *c, const dl_array *a, int64_t start, int64_t n)
{
	bool optional = c->leaf->steps[0].optional;
	for (int64_t i = start; i < start + n; i++) {
		if (!dl_array_is_valid(a, i)) {
			if (!optional) return null_in_required(c, 0);
			DL_TRY(put_null(c, 0, 0));
		} else {
			DL_TRY(put_levels(c, optional, 0));
			DL_TRY(put_value(c, a, i));
		}
		c->page_rows++;
		/* The full page-size check every 1024 rows; PLAIN growth and a
		 * pending fallback at once (a row is one value here). */
		if (c->fallback || c->plain.len >= c->opt.page_bytes || (i & 1023) == 1023) DL_TRY(row_boundary(c));
	}
	return 0;
}

static int write_rows(pq_colw *c, const dl_array *top, int64_t start, int64_t n)
{
	if (start < 0 || n < 0 || start + n > top->length)
		return dl_error_set(DL_EINVALID, "column '%s': rows [%lld, %lld) outside an array of %lld",
		                    c->leaf->path[0], (long long)start, (long long)(start + n), (long long)top->length);
	if (c->leaf->nsteps == 1) return write_flat(c, top, start, n);
	for (int64_t i = start; i < start + n; i++) {
		DL_TRY(walk(c, 0, top, i, 0, 0));
		c->page_rows++;
		DL_TRY(row_boundary(c));
	}
	return 0;
}

int pq_colw_write(pq_colw *c, pq_colw_scratch *scr, const dl_array *top, int64_t start, int64_t n)
{
	c->scr = scr;
	int rc = write_rows(c, top, start, n);
	c->scr = NULL;
	return rc;
}
