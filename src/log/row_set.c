/* Row positions in chunks of 65536 (see row_set.h), and the conversions from
 * and to the roaring bitmaps of deletion vectors. */
#include "log/row_set.h"
#include <inttypes.h>
#include <roaring/roaring.h>
#include <string.h>
#include "util/error.h"
#include "util/mem.h"

#define CHUNK 65536u
#define ARRAY_MAX 4096u     /* offsets an array holds before it becomes a bitmap */
#define BITMAP_WORDS 1024u  /* CHUNK / 64 */

static bool is_full(const dl_rowset_chunk *c)
{
	return c->n == CHUNK;
}

/* Charges bytes about to be allocated to the set's budget. */
static int charge(dl_rowset *s, size_t bytes)
{
	return s->budget && bytes ? s->budget->charge(s->budget->payload, (int64_t)bytes) : 0;
}

/* Gives back to the budget bytes charged but not (or no longer) held. */
static void uncharge(dl_rowset *s, size_t bytes)
{
	if (s->budget && bytes) s->budget->charge(s->budget->payload, -(int64_t)bytes);
}

/* Bytes the set held are freed. */
static void release(dl_rowset *s, size_t bytes)
{
	s->bytes -= bytes;
	uncharge(s, bytes);
}

void dl_rowset_free(dl_rowset *s)
{
	for (size_t i = 0; i < s->nchunks; i++) dl_free(s->chunks[i].data);
	dl_free(s->chunks);
	const dl_rowset_budget *budget = s->budget;
	release(s, s->bytes);
	memset(s, 0, sizeof *s);
	s->budget = budget;
}

static int new_chunk(dl_rowset *s, uint64_t key)
{
	if (s->nchunks == s->cap) {
		size_t cap = s->cap ? s->cap * 2 : 4, more = (cap - s->cap) * sizeof *s->chunks;
		DL_TRY(charge(s, more));
		dl_rowset_chunk *nc = dl_reallocarray(s->chunks, cap, sizeof *nc);
		if (!nc) {
			uncharge(s, more);
			return DL_ENOMEM;
		}
		s->bytes += more;
		s->chunks = nc;
		s->cap = cap;
	}
	s->chunks[s->nchunks++] = (dl_rowset_chunk){key, 0, 0, NULL};
	return 0;
}

/* An array chunk at ARRAY_MAX offsets becomes a bitmap. */
static int to_bitmap(dl_rowset *s, dl_rowset_chunk *c)
{
	DL_TRY(charge(s, BITMAP_WORDS * sizeof(uint64_t)));
	uint64_t *bits = dl_calloc(BITMAP_WORDS, sizeof *bits);
	if (!bits) {
		uncharge(s, BITMAP_WORDS * sizeof *bits);
		return DL_ENOMEM;
	}
	const uint16_t *a = c->data;
	for (uint32_t i = 0; i < c->n; i++) bits[a[i] >> 6] |= 1ull << (a[i] & 63);
	s->bytes += BITMAP_WORDS * sizeof *bits;
	release(s, c->cap * sizeof(uint16_t));
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
				/* at most ARRAY_MAX, where it becomes a bitmap (an array
				 * read from a DV has the exact size) */
				uint32_t cap = c->cap ? c->cap * 2 : 4;
				if (cap > ARRAY_MAX) cap = ARRAY_MAX;
				size_t more = (cap - c->cap) * sizeof(uint16_t);
				DL_TRY(charge(s, more));
				uint16_t *na = dl_reallocarray(c->data, cap, sizeof *na);
				if (!na) {
					uncharge(s, more);
					return DL_ENOMEM;
				}
				s->bytes += more;
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
		release(s, BITMAP_WORDS * sizeof *bits);
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
				release(s, BITMAP_WORDS * sizeof *bits);
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

/* Offsets [lo, hi) of chunk c (at base) whose membership is `in`, as
 * offsets from `first` into idx (k of them already); returns the new k. */
static size_t select_chunk(dl_rowset_cursor *cur, const dl_rowset_chunk *c, uint64_t base, uint32_t lo,
                           uint32_t hi, bool in, uint64_t first, uint32_t *idx, size_t k)
{
	uint32_t d = (uint32_t)(base - first); /* offset + d: the index in the batch (mod 2^32) */
	if (is_full(c)) {
		if (in)
			for (uint32_t o = lo; o < hi; o++) idx[k++] = o + d;
		return k;
	}
	if (c->cap) {
		const uint16_t *a = c->data;
		uint32_t i = cur->i;
		while (i < c->n && a[i] < lo) i++;
		uint32_t o = lo;
		for (; i < c->n && a[i] < hi; i++) {
			if (in) {
				idx[k++] = a[i] + d;
			} else {
				for (; o < a[i]; o++) idx[k++] = o + d;
				o = a[i] + 1u;
			}
		}
		if (!in)
			for (; o < hi; o++) idx[k++] = o + d;
		cur->i = i;
		return k;
	}
	const uint64_t *bits = c->data;
	for (uint32_t w = lo >> 6; w <= (hi - 1) >> 6; w++) {
		uint64_t word = in ? bits[w] : ~bits[w];
		if (w == lo >> 6) word &= ~0ull << (lo & 63);
		if (w == (hi - 1) >> 6 && (hi & 63)) word &= ~(~0ull << (hi & 63));
		for (; word; word &= word - 1) idx[k++] = (w << 6 | (uint32_t)__builtin_ctzll(word)) + d;
	}
	return k;
}

size_t dl_rowset_select(dl_rowset_cursor *cur, uint64_t first, uint32_t n, bool in, uint32_t *idx)
{
	size_t k = 0;
	uint64_t p = first, end = first + n;
	while (p < end) {
		uint64_t key = p >> 16, base = key << 16;
		const dl_rowset_chunk *c = seek_chunk(cur, key);
		/* the range's part in this chunk's key, or up to the next chunk held */
		uint64_t stop = base + CHUNK;
		if (!c || c->key != key) {
			if (c && c->key << 16 < end) stop = c->key << 16;
			else stop = end;
			c = NULL;
		}
		if (stop > end) stop = end;
		if (!c) {
			if (!in)
				for (uint64_t q = p; q < stop; q++) idx[k++] = (uint32_t)(q - first);
		} else {
			k = select_chunk(cur, c, base, (uint32_t)(p - base), (uint32_t)(stop - base), in, first, idx, k);
		}
		p = stop;
	}
	return k;
}

uint64_t dl_rowset_rank(const dl_rowset *s, uint64_t p)
{
	uint64_t r = 0, key = p >> 16;
	uint32_t off = (uint32_t)(p & (CHUNK - 1));
	for (size_t i = 0; i < s->nchunks && s->chunks[i].key <= key; i++) {
		const dl_rowset_chunk *c = &s->chunks[i];
		if (c->key < key) {
			r += c->n;
		} else if (is_full(c)) {
			r += off;
		} else if (c->cap) {
			const uint16_t *a = c->data;
			for (uint32_t j = 0; j < c->n && a[j] < off; j++) r++;
		} else {
			const uint64_t *bits = c->data;
			for (uint32_t w = 0; w < off >> 6; w++) r += (uint64_t)__builtin_popcountll(bits[w]);
			if (off & 63) r += (uint64_t)__builtin_popcountll(bits[off >> 6] & ~(~0ull << (off & 63)));
		}
	}
	return r;
}

/* ---- deletion vectors ---- */

/* The n positions of bm in the chunk the iterator is at (the bucket's
 * rank-th on) as chunk `key` of out, built whole rather than position by
 * position: a bitmap's through roaring's bulk extraction (by rank: it
 * walks the containers before it, but a bitmap chunk holds over 4096
 * positions, which bounds how often), an array's through the iterator,
 * which it leaves at the next chunk (the caller moves it past others). */
static int chunk_from_dv(dl_rowset *out, uint64_t key, const roaring_bitmap_t *bm, roaring_uint32_iterator_t *it,
                         uint64_t rank, uint32_t n, uint32_t *buf)
{
	DL_TRY(new_chunk(out, key));
	dl_rowset_chunk *c = &out->chunks[out->nchunks - 1];
	size_t bytes = n == CHUNK ? 0 : n <= ARRAY_MAX ? n * sizeof(uint16_t) : BITMAP_WORDS * sizeof(uint64_t);
	int rc = charge(out, bytes);
	if (rc == 0 && bytes && !(c->data = n <= ARRAY_MAX ? dl_malloc(bytes) : dl_calloc(1, bytes))) {
		uncharge(out, bytes);
		rc = DL_ENOMEM;
	}
	if (rc == 0 && n <= ARRAY_MAX && roaring_read_uint32_iterator(it, buf, n) != n)
		rc = dl_error_set(DL_ECORRUPT, "a deletion vector's chunk holds fewer rows than counted");
	else if (rc == 0 && n > ARRAY_MAX && n < CHUNK && !roaring_bitmap_range_uint32_array(bm, (size_t)rank, n, buf))
		rc = dl_error_set(DL_ENOMEM, "out of memory reading a deletion vector");
	if (rc < 0 && c->data) {
		dl_free(c->data);
		uncharge(out, bytes);
	}
	if (rc < 0) {
		c->data = NULL;
		out->nchunks--;
		return rc;
	}
	out->bytes += bytes;
	if (n <= ARRAY_MAX) {
		uint16_t *a = c->data;
		for (uint32_t i = 0; i < n; i++) a[i] = (uint16_t)buf[i];
		c->cap = n;
	} else if (n < CHUNK) {
		uint64_t *bits = c->data;
		for (uint32_t i = 0; i < n; i++) bits[(buf[i] & 0xffff) >> 6] |= 1ull << (buf[i] & 63);
	}
	c->n = n;
	out->count += n;
	out->last = key << 16 | (n == CHUNK ? 0xffff : buf[n - 1] & 0xffff);
	return 0;
}

int dl_rowset_from_dv(dl_rowset *out, const dl_dv_rows *rows)
{
	/* as dl_dv_rows_to_array: a few bytes of run containers can claim
	 * billions of rows, more than any data file holds */
	if (rows->cardinality > DL_DV_MAX_ARRAY_ROWS)
		return dl_error_set(DL_ENOMEM, "deletion vector of %" PRIu64 " rows is too large to list "
		                    "(limit %llu)", rows->cardinality, (unsigned long long)DL_DV_MAX_ARRAY_ROWS);
	if (!rows->cardinality) return 0;
	uint32_t *buf = dl_malloc(CHUNK * sizeof *buf);
	int rc = buf ? 0 : DL_ENOMEM;
	for (uint32_t b = 0; b < rows->nbuckets && rc == 0; b++) {
		const roaring_bitmap_t *bm = rows->buckets[b].bitmap;
		uint64_t rank = 0;
		roaring_uint32_iterator_t it;
		roaring_init_iterator(bm, &it);
		/* chunk by chunk: the iterator finds the next one's first position */
		while (rc == 0 && it.has_value) {
			uint64_t start = it.current_value & ~(uint64_t)(CHUNK - 1);
			uint32_t n = (uint32_t)roaring_bitmap_range_cardinality(bm, start, start + CHUNK);
			rc = chunk_from_dv(out, (uint64_t)rows->buckets[b].key << 16 | start >> 16, bm, &it, rank, n, buf);
			rank += n;
			if (n <= ARRAY_MAX) continue; /* the iterator read past it */
			if (start + CHUNK > UINT32_MAX) break;
			roaring_move_uint32_iterator_equalorlarger(&it, (uint32_t)(start + CHUNK));
		}
	}
	dl_free(buf);
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
