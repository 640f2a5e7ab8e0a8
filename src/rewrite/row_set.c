/* Row positions in chunks of 65536 (see row_set.h), and the conversions from
 * and to the roaring bitmaps of deletion vectors. */
#include "rewrite/row_set.h"
#include <inttypes.h>
#include <roaring/roaring.h>
#include <string.h>
#include "util/error.h"
#include "util/mem.h"

#define CHUNK 65536u
#define ARRAY_MAX 4096u     /* offsets an array holds before it becomes a bitmap */
#define BITMAP_WORDS 1024u  /* CHUNK / 64 */
#define READ_BATCH 4096u    /* positions read from a DV at a time */

static bool is_full(const dl_rowset_chunk *c)
{
	return c->n == CHUNK;
}

void dl_rowset_free(dl_rowset *s)
{
	for (size_t i = 0; i < s->nchunks; i++) dl_free(s->chunks[i].data);
	dl_free(s->chunks);
	memset(s, 0, sizeof *s);
}

static int new_chunk(dl_rowset *s, uint64_t key)
{
	if (s->nchunks == s->cap) {
		size_t cap = s->cap ? s->cap * 2 : 4;
		dl_rowset_chunk *nc = dl_reallocarray(s->chunks, cap, sizeof *nc);
		if (!nc) return DL_ENOMEM;
		s->bytes += (cap - s->cap) * sizeof *nc;
		s->chunks = nc;
		s->cap = cap;
	}
	s->chunks[s->nchunks++] = (dl_rowset_chunk){key, 0, 0, NULL};
	return 0;
}

/* An array chunk at ARRAY_MAX offsets becomes a bitmap. */
static int to_bitmap(dl_rowset *s, dl_rowset_chunk *c)
{
	uint64_t *bits = dl_calloc(BITMAP_WORDS, sizeof *bits);
	if (!bits) return DL_ENOMEM;
	const uint16_t *a = c->data;
	for (uint32_t i = 0; i < c->n; i++) bits[a[i] >> 6] |= 1ull << (a[i] & 63);
	s->bytes += BITMAP_WORDS * sizeof *bits;
	s->bytes -= c->cap * sizeof(uint16_t);
	dl_free(c->data);
	c->data = bits;
	c->cap = 0;
	return 0;
}

static int add_offset(dl_rowset *s, dl_rowset_chunk *c, uint32_t off)
{
	if (c->n == 0 || c->cap) {
		if (c->n == c->cap && c->cap == ARRAY_MAX) {
			DL_TRY(to_bitmap(s, c));
		} else {
			if (c->n == c->cap) {
				uint32_t cap = c->cap ? c->cap * 2 : 4;
				uint16_t *na = dl_reallocarray(c->data, cap, sizeof *na);
				if (!na) return DL_ENOMEM;
				s->bytes += (cap - c->cap) * sizeof *na;
				c->data = na;
				c->cap = cap;
			}
			((uint16_t *)c->data)[c->n++] = (uint16_t)off;
			return 0;
		}
	}
	uint64_t *bits = c->data;
	bits[off >> 6] |= 1ull << (off & 63);
	if (++c->n == CHUNK) {
		/* every position: nothing to store */
		dl_free(c->data);
		c->data = NULL;
		s->bytes -= BITMAP_WORDS * sizeof *bits;
	}
	return 0;
}

int dl_rowset_push(dl_rowset *s, const uint64_t *pos, size_t n, const char *what)
{
	for (size_t i = 0; i < n;) {
		uint64_t v = pos[i];
		if (s->count && v <= s->last)
			return dl_error_set(DL_EINVALID, "row positions of %s are not sorted and unique", what);
		uint64_t key = v >> 16;
		if (!s->nchunks || s->chunks[s->nchunks - 1].key != key) DL_TRY(new_chunk(s, key));
		dl_rowset_chunk *c = &s->chunks[s->nchunks - 1];
		if (c->n && !c->cap && !is_full(c)) {
			/* a bitmap: the chunk's run of positions set in one loop */
			uint64_t *bits = c->data, last = s->last;
			size_t j = i;
			for (; j < n && pos[j] >> 16 == key && pos[j] > last; j++) {
				last = pos[j];
				bits[(last & (CHUNK - 1)) >> 6] |= 1ull << (last & 63);
			}
			c->n += (uint32_t)(j - i);
			s->count += j - i;
			s->last = last;
			i = j;
			if (is_full(c)) {
				dl_free(c->data);
				c->data = NULL;
				s->bytes -= BITMAP_WORDS * sizeof *bits;
			}
			continue; /* a position out of order is refused at the loop's top */
		}
		int rc = add_offset(s, c, (uint32_t)(v & (CHUNK - 1)));
		if (rc < 0) {
			if (!c->n) s->nchunks--; /* the chunk just made: no empty chunk stays */
			return rc;
		}
		s->count++;
		s->last = v;
		i++;
	}
	return 0;
}

/* ---- cursors ---- */

void dl_rowset_cursor_init(dl_rowset_cursor *cur, const dl_rowset *s)
{
	*cur = (dl_rowset_cursor){s, 0, 0};
}

/* Moves to the first chunk whose key is >= key; NULL when there is none. */
static const dl_rowset_chunk *seek_chunk(dl_rowset_cursor *cur, uint64_t key)
{
	const dl_rowset *s = cur->s;
	while (cur->c < s->nchunks && s->chunks[cur->c].key < key) {
		cur->c++;
		cur->i = 0;
	}
	return cur->c < s->nchunks ? &s->chunks[cur->c] : NULL;
}

bool dl_rowset_has(dl_rowset_cursor *cur, uint64_t p)
{
	uint64_t key = p >> 16;
	uint32_t off = (uint32_t)(p & (CHUNK - 1));
	const dl_rowset_chunk *c = seek_chunk(cur, key);
	if (!c || c->key != key) return false;
	if (is_full(c)) return true;
	if (c->cap) {
		const uint16_t *a = c->data;
		while (cur->i < c->n && a[cur->i] < off) cur->i++;
		return cur->i < c->n && a[cur->i] == off;
	}
	const uint64_t *bits = c->data;
	return bits[off >> 6] >> (off & 63) & 1;
}

uint64_t dl_rowset_next(dl_rowset_cursor *cur, uint64_t p)
{
	for (;;) {
		const dl_rowset_chunk *c = seek_chunk(cur, p >> 16);
		if (!c) return UINT64_MAX;
		uint32_t lo = c->key == p >> 16 ? (uint32_t)(p & (CHUNK - 1)) : 0;
		uint64_t base = c->key << 16;
		if (is_full(c)) return base | lo;
		if (c->cap) {
			const uint16_t *a = c->data;
			while (cur->i < c->n && a[cur->i] < lo) cur->i++;
			if (cur->i < c->n) return base | a[cur->i];
		} else {
			const uint64_t *bits = c->data;
			uint32_t w = lo >> 6;
			uint64_t word = bits[w] & (~0ull << (lo & 63));
			while (!word && ++w < BITMAP_WORDS) word = bits[w];
			if (word) return base | ((uint64_t)w << 6 | (uint64_t)__builtin_ctzll(word));
		}
		/* nothing left in this chunk: the next one's first */
		p = (c->key + 1) << 16;
	}
}

/* ---- deletion vectors ---- */

int dl_rowset_from_dv(dl_rowset *out, const dl_dv_rows *rows)
{
	/* as dl_dv_rows_to_array: a few bytes of run containers can claim
	 * billions of rows, more than any data file holds */
	if (rows->cardinality > DL_DV_MAX_ARRAY_ROWS)
		return dl_error_set(DL_ENOMEM, "deletion vector of %" PRIu64 " rows is too large to list "
		                    "(limit %llu)", rows->cardinality, (unsigned long long)DL_DV_MAX_ARRAY_ROWS);
	uint32_t *lo = dl_malloc(READ_BATCH * sizeof *lo);
	uint64_t *v = dl_malloc(READ_BATCH * sizeof *v);
	int rc = lo && v ? 0 : DL_ENOMEM;
	for (uint32_t b = 0; b < rows->nbuckets && rc == 0; b++) {
		uint64_t key = (uint64_t)rows->buckets[b].key << 32;
		roaring_uint32_iterator_t it;
		roaring_init_iterator(rows->buckets[b].bitmap, &it);
		uint32_t k;
		while (rc == 0 && (k = roaring_read_uint32_iterator(&it, lo, READ_BATCH)) > 0) {
			for (uint32_t j = 0; j < k; j++) v[j] = key | lo[j];
			rc = dl_rowset_push(out, v, k, "a deletion vector");
		}
	}
	dl_free(lo);
	dl_free(v);
	if (rc < 0) dl_rowset_free(out);
	return rc;
}

/* One chunk's offsets as bits (a chunk of the other set ORed in after). */
static void chunk_or(uint64_t *bits, const dl_rowset_chunk *c)
{
	if (is_full(c)) {
		memset(bits, 0xff, BITMAP_WORDS * sizeof *bits);
	} else if (c->cap) {
		const uint16_t *a = c->data;
		for (uint32_t i = 0; i < c->n; i++) bits[a[i] >> 6] |= 1ull << (a[i] & 63);
	} else {
		const uint64_t *b = c->data;
		for (uint32_t w = 0; w < BITMAP_WORDS; w++) bits[w] |= b[w];
	}
}

/* Adds the positions of one chunk key (a chunk of a and/or of b) to the DV,
 * in ascending order. */
static int add_chunk(dl_dv_rows *out, uint64_t key, const dl_rowset_chunk *ca,
                     const dl_rowset_chunk *cb, uint64_t *bits, uint32_t *lo)
{
	if (key >> 16 > INT32_MAX) {
		/* the chunk's least position, as dl_dv_rows_from_array names the
		 * first one too large */
		memset(bits, 0, BITMAP_WORDS * sizeof *bits);
		if (ca) chunk_or(bits, ca);
		if (cb) chunk_or(bits, cb);
		uint32_t w = 0;
		while (!bits[w]) w++;
		uint64_t v = key << 16 | (uint64_t)w << 6 | (uint64_t)__builtin_ctzll(bits[w]);
		return dl_error_set(DL_EINVALID, "row index %" PRIu64 " is too large for a DV", v);
	}
	uint32_t hi = (uint32_t)(key & 0xffff) << 16, n = 0;
	const dl_rowset_chunk *only = ca && cb ? NULL : ca ? ca : cb;
	if (only && only->cap) {
		const uint16_t *a = only->data;
		for (uint32_t i = 0; i < only->n; i++) lo[n++] = hi | a[i];
	} else if (only && is_full(only)) {
		for (uint32_t i = 0; i < CHUNK; i++) lo[n++] = hi | i;
	} else {
		const uint64_t *src = only ? only->data : bits;
		if (!only) {
			memset(bits, 0, BITMAP_WORDS * sizeof *bits);
			chunk_or(bits, ca);
			chunk_or(bits, cb);
		}
		for (uint32_t w = 0; w < BITMAP_WORDS; w++)
			for (uint64_t word = src[w]; word; word &= word - 1)
				lo[n++] = hi | w << 6 | (uint32_t)__builtin_ctzll(word);
	}
	uint32_t bkey = (uint32_t)(key >> 16);
	if (!out->nbuckets || out->buckets[out->nbuckets - 1].key != bkey) {
		dl_dv_bucket *nb = dl_reallocarray(out->buckets, out->nbuckets + 1, sizeof *nb);
		if (!nb) return DL_ENOMEM;
		out->buckets = nb;
		roaring_bitmap_t *bm = roaring_bitmap_create();
		if (!bm) return dl_error_set(DL_ENOMEM, "out of memory building a deletion vector");
		out->buckets[out->nbuckets++] = (dl_dv_bucket){bkey, bm};
	}
	/* the containers dl_dv_rows_from_array's one-by-one adds make: arrays
	 * and bitmaps, never runs (run_optimize at serialization chooses those) */
	roaring_bitmap_add_many(out->buckets[out->nbuckets - 1].bitmap, n, lo);
	return 0;
}

int dl_rowset_union_dv(dl_dv_rows *out, const dl_rowset *a, const dl_rowset *b)
{
	memset(out, 0, sizeof *out);
	uint64_t *bits = dl_malloc(BITMAP_WORDS * sizeof *bits);
	uint32_t *lo = dl_malloc(CHUNK * sizeof *lo);
	int rc = bits && lo ? 0 : DL_ENOMEM;
	size_t i = 0, j = 0;
	while (rc == 0 && (i < a->nchunks || j < b->nchunks)) {
		const dl_rowset_chunk *ca = i < a->nchunks ? &a->chunks[i] : NULL;
		const dl_rowset_chunk *cb = j < b->nchunks ? &b->chunks[j] : NULL;
		if (ca && cb && ca->key != cb->key) {
			if (ca->key < cb->key) cb = NULL;
			else ca = NULL;
		}
		i += ca != NULL;
		j += cb != NULL;
		rc = add_chunk(out, ca ? ca->key : cb->key, ca, cb, bits, lo);
	}
	dl_free(bits);
	dl_free(lo);
	for (uint32_t k = 0; rc == 0 && k < out->nbuckets; k++)
		out->cardinality += roaring_bitmap_get_cardinality(out->buckets[k].bitmap);
	if (rc < 0) dl_dv_rows_free(out);
	return rc;
}
