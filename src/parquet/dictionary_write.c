/* Dictionary builder (see dictionary_write.h): an open-addressing hash table
 * over the entries of the dictionary page being built, so lookups touch the
 * page bytes directly and nothing is allocated per value. */
#include "parquet/dictionary_write.h"
#include "parquet/encoding_write.h"
#include "util/hash.h"
#include "util/mem.h"
#include <string.h>

static uint32_t hash_bytes(const uint8_t *p, size_t n)
{
	if (n == 8 || n == 4) { /* fixed-width values: one mix */
		uint64_t x = 0;
		memcpy(&x, p, n);
		uint64_t h = dl_hash_mix64(x ^ n);
		return (uint32_t)(h ^ (h >> 32));
	}
	uint64_t h = 0x9E3779B97F4A7C15ULL ^ n;
	while (n >= 8) {
		uint64_t x;
		memcpy(&x, p, 8);
		h = (h ^ dl_hash_mix64(x)) * 0x9E3779B97F4A7C15ULL;
		p += 8;
		n -= 8;
	}
	uint64_t x = 0;
	if (n) memcpy(&x, p, n);
	h = dl_hash_mix64(h ^ x ^ (n << 56));
	return (uint32_t)(h ^ (h >> 32));
}

static inline const uint8_t *entry(const pq_dict *d, uint32_t idx, size_t *n)
{
	if (d->width) {
		*n = (size_t)d->width;
		return (const uint8_t *)d->data.data + (size_t)idx * (size_t)d->width;
	}
	const uint8_t *p = (const uint8_t *)d->data.data + d->offs[idx];
	*n = (size_t)p[0] | (size_t)p[1] << 8 | (size_t)p[2] << 16 | (size_t)p[3] << 24;
	return p + 4;
}

const uint8_t *pq_dict_entry(const pq_dict *d, uint32_t idx, size_t *n)
{
	return entry(d, idx, n);
}

void pq_dict_init(pq_dict *d, int width)
{
	memset(d, 0, sizeof *d);
	d->width = width;
}

static int grow_slots(pq_dict *d)
{
	uint32_t nslots = d->slots ? (d->mask + 1) * 2 : 1024;
	if (nslots == 0 || nslots > (1u << 30)) return dl_error_set(DL_ENOMEM, "dictionary too large");
	uint32_t *s = dl_calloc(nslots, sizeof *s);
	if (!s) return DL_ENOMEM;
	uint32_t mask = nslots - 1;
	for (uint32_t i = 0; i < d->count; i++) {
		uint32_t k = d->hashes[i] & mask;
		while (s[k]) k = (k + 1) & mask;
		s[k] = i + 1;
	}
	dl_free(d->slots);
	d->slots = s;
	d->mask = mask;
	return 0;
}

static int grow_entries(pq_dict *d)
{
	size_t cap = d->cap ? d->cap * 2 : 1024;
	uint32_t *h = dl_reallocarray(d->hashes, cap, sizeof *h);
	if (!h) return DL_ENOMEM;
	d->hashes = h;
	if (!d->width) {
		size_t *o = dl_reallocarray(d->offs, cap, sizeof *o);
		if (!o) return DL_ENOMEM;
		d->offs = o;
	}
	d->cap = cap;
	return 0;
}

/* dl_buf_append without the call when there is room (one call per new
 * entry otherwise dominated the inserts of high-cardinality columns). */
static inline int buf_put(dl_buf *b, const void *p, size_t n, size_t limit)
{
	if (b->cap - b->len <= n + 1) {
		DL_TRY(limit ? dl_buf_reserve_upto(b, n, limit) : dl_buf_reserve(b, n));
		return dl_buf_append(b, p, n);
	}
	if (n == 8) memcpy(b->data + b->len, p, 8);
	else if (n == 4) memcpy(b->data + b->len, p, 4);
	else memcpy(b->data + b->len, p, n);
	b->len += n;
	b->data[b->len] = 0; /* dl_buf's promise */
	return 0;
}

static int append_entry(pq_dict *d, const void *p, size_t n, uint32_t h)
{
	if (d->count == UINT32_MAX - 1) return dl_error_set(DL_ENOMEM, "dictionary has too many entries");
	if (d->count == d->cap) DL_TRY(grow_entries(d));
	if (!d->width) {
		if (n > UINT32_MAX) return dl_error_set(DL_EINVALID, "a value of %zu bytes is too large for Parquet", n);
		uint8_t len4[4];
		pq_store_le32(len4, (uint32_t)n);
		d->offs[d->count] = d->data.len;
		DL_TRY(buf_put(&d->data, len4, 4, d->data_limit ? d->data_limit + 4 + n : 0));
	}
	DL_TRY(buf_put(&d->data, p, n, d->data_limit ? d->data_limit + n : 0));
	d->hashes[d->count++] = h;
	return 0;
}

int pq_dict_insert(pq_dict *d, const void *p, size_t n, uint32_t *idx, bool *added)
{
	/* at most half full (plus the one value being added): a dictionary of
	 * 8-byte values stops at its 1 MiB limit with 2^17 entries in 2^18
	 * slots, not after doubling them for the entry that ends it */
	if (!d->slots || (size_t)d->count * 2 > (size_t)d->mask + 1) DL_TRY(grow_slots(d));
	uint32_t h = hash_bytes(p, n);
	uint32_t k = h & d->mask;
	for (;;) {
		uint32_t s = d->slots[k];
		if (!s) break;
		if (d->hashes[s - 1] == h) {
			size_t en;
			const uint8_t *e = entry(d, s - 1, &en);
			if (en == n && !memcmp(e, p, n)) {
				*idx = s - 1;
				*added = false;
				return 0;
			}
		}
		k = (k + 1) & d->mask;
	}
	DL_TRY(append_entry(d, p, n, h));
	d->slots[k] = d->count;
	*idx = d->count - 1;
	*added = true;
	return 0;
}

void pq_dict_clear(pq_dict *d)
{
	if (d->slots) memset(d->slots, 0, ((size_t)d->mask + 1) * sizeof *d->slots);
	d->count = 0;
	dl_buf_clear(&d->data);
}

void pq_dict_free(pq_dict *d)
{
	dl_buf_free(&d->data);
	dl_free(d->hashes);
	dl_free(d->offs);
	dl_free(d->slots);
	memset(d, 0, sizeof *d);
}
