#include "util/hash.h"
#include "util/error.h"
#include "util/mem.h"
#include <string.h>

__extension__ typedef unsigned __int128 dl_u128;

#define K0 UINT64_C(0x9E3779B97F4A7C15)
#define K1 UINT64_C(0xC2B2AE3D27D4EB4F)
#define K2 UINT64_C(0x165667B19E3779F9)
#define MIN_CAP 16

/* Multiply to 128 bits and fold: every input bit reaches many output bits. */
static inline uint64_t fold_mul(uint64_t a, uint64_t b)
{
	dl_u128 r = (dl_u128)a * b;
	return (uint64_t)r ^ (uint64_t)(r >> 64);
}

uint64_t dl_hash_bytes(const void *data, size_t n, uint64_t seed)
{
	const uint8_t *p = data;
	uint64_t h = (seed + K2) ^ (n * K0);
	while (n >= 8) {
		uint64_t w;
		memcpy(&w, p, 8);
		h = fold_mul(h ^ w, K1);
		p += 8;
		n -= 8;
	}
	if (n) {
		uint64_t w = 0;
		memcpy(&w, p, n);
		h = fold_mul(h ^ w ^ K0, K2);
	}
	return dl_hash_u64(h);
}

uint64_t dl_hash_u64(uint64_t x)
{
	x ^= x >> 30;
	x *= UINT64_C(0xBF58476D1CE4E5B9);
	x ^= x >> 27;
	x *= UINT64_C(0x94D049BB133111EB);
	x ^= x >> 31;
	return x;
}

/* Smallest power-of-two capacity that keeps n entries at most 70% full. */
static int capacity_for(size_t n, size_t *cap)
{
	size_t c = MIN_CAP;
	while (c / 10 * 7 < n) {
		if (c > SIZE_MAX / 4) return dl_error_set(DL_ENOMEM, "hash map of %zu entries is too large", n);
		c *= 2;
	}
	*cap = c;
	return 0;
}

/* Removal without tombstones: slide later entries of the probe chain back
 * into the hole unless they already sit at or after their home slot. */
static bool keeps_place(size_t hole, size_t j, size_t home)
{
	if (hole < j) return home > hole && home <= j;
	return home > hole || home <= j;
}

/* ---- dl_strmap ---- */

void dl_strmap_init(dl_strmap *m, bool copy_keys)
{
	memset(m, 0, sizeof *m);
	m->copy_keys = copy_keys;
}

void dl_strmap_free(dl_strmap *m)
{
	dl_free(m->slots);
	dl_arena_free(&m->keys);
	bool copy = m->copy_keys;
	dl_strmap_init(m, copy);
}

static size_t str_probe(const dl_strmap *m, const char *key, size_t klen, uint64_t h, bool *found)
{
	size_t mask = m->cap - 1;
	for (size_t i = h & mask;; i = (i + 1) & mask) {
		const dl_strmap_slot *s = &m->slots[i];
		if (!s->key) {
			*found = false;
			return i;
		}
		if (s->hash == h && s->klen == klen && memcmp(s->key, key, klen) == 0) {
			*found = true;
			return i;
		}
	}
}

static int str_rehash(dl_strmap *m, size_t cap)
{
	dl_strmap_slot *slots = dl_calloc(cap, sizeof *slots);
	if (!slots) return DL_ENOMEM;
	size_t mask = cap - 1;
	for (size_t i = 0; i < m->cap; i++) {
		if (!m->slots[i].key) continue;
		size_t j = m->slots[i].hash & mask;
		while (slots[j].key) j = (j + 1) & mask;
		slots[j] = m->slots[i];
	}
	dl_free(m->slots);
	m->slots = slots;
	m->cap = cap;
	return 0;
}

int dl_strmap_reserve(dl_strmap *m, size_t n)
{
	size_t cap = 0;
	DL_TRY(capacity_for(n, &cap));
	return cap > m->cap ? str_rehash(m, cap) : 0;
}

int dl_strmap_upsert(dl_strmap *m, const char *key, size_t klen, void ***slot, bool *inserted)
{
	if (m->count + 1 > m->cap / 10 * 7) DL_TRY(dl_strmap_reserve(m, m->count + 1));
	uint64_t h = dl_hash_bytes(key, klen, 0);
	bool found;
	size_t i = str_probe(m, key, klen, h, &found);
	dl_strmap_slot *s = &m->slots[i];
	if (!found) {
		const char *k = key;
		if (m->copy_keys && !(k = dl_arena_strndup(&m->keys, key, klen))) return DL_ENOMEM;
		*s = (dl_strmap_slot){k, klen, h, NULL};
		m->count++;
	}
	if (inserted) *inserted = !found;
	*slot = &s->value;
	return 0;
}

int dl_strmap_put(dl_strmap *m, const char *key, size_t klen, void *value, void **old)
{
	void **slot;
	DL_TRY(dl_strmap_upsert(m, key, klen, &slot, NULL));
	if (old) *old = *slot;
	*slot = value;
	return 0;
}

bool dl_strmap_find(const dl_strmap *m, const char *key, size_t klen, void **value)
{
	if (m->count == 0) return false;
	bool found;
	size_t i = str_probe(m, key, klen, dl_hash_bytes(key, klen, 0), &found);
	if (found && value) *value = m->slots[i].value;
	return found;
}

void *dl_strmap_get(const dl_strmap *m, const char *key, size_t klen)
{
	void *v = NULL;
	dl_strmap_find(m, key, klen, &v);
	return v;
}

bool dl_strmap_remove(dl_strmap *m, const char *key, size_t klen, void **old)
{
	if (m->count == 0) return false;
	bool found;
	size_t hole = str_probe(m, key, klen, dl_hash_bytes(key, klen, 0), &found);
	if (!found) return false;
	if (old) *old = m->slots[hole].value;
	size_t mask = m->cap - 1;
	for (size_t j = (hole + 1) & mask; m->slots[j].key; j = (j + 1) & mask) {
		if (keeps_place(hole, j, m->slots[j].hash & mask)) continue;
		m->slots[hole] = m->slots[j];
		hole = j;
	}
	m->slots[hole].key = NULL;
	m->count--;
	return true;
}

bool dl_strmap_next(const dl_strmap *m, size_t *it, const dl_strmap_slot **slot)
{
	while (*it < m->cap) {
		const dl_strmap_slot *s = &m->slots[(*it)++];
		if (s->key) {
			*slot = s;
			return true;
		}
	}
	return false;
}

/* ---- dl_u64map ---- */

void dl_u64map_free(dl_u64map *m)
{
	dl_free(m->slots);
	m->slots = NULL;
	m->cap = m->count = 0;
}

static size_t u64_probe(const dl_u64map *m, uint64_t key, bool *found)
{
	size_t mask = m->cap - 1;
	for (size_t i = dl_hash_u64(key) & mask;; i = (i + 1) & mask) {
		if (!m->slots[i].used) {
			*found = false;
			return i;
		}
		if (m->slots[i].key == key) {
			*found = true;
			return i;
		}
	}
}

static int u64_rehash(dl_u64map *m, size_t cap)
{
	dl_u64map_slot *slots = dl_calloc(cap, sizeof *slots);
	if (!slots) return DL_ENOMEM;
	size_t mask = cap - 1;
	for (size_t i = 0; i < m->cap; i++) {
		if (!m->slots[i].used) continue;
		size_t j = dl_hash_u64(m->slots[i].key) & mask;
		while (slots[j].used) j = (j + 1) & mask;
		slots[j] = m->slots[i];
	}
	dl_free(m->slots);
	m->slots = slots;
	m->cap = cap;
	return 0;
}

int dl_u64map_reserve(dl_u64map *m, size_t n)
{
	size_t cap = 0;
	DL_TRY(capacity_for(n, &cap));
	return cap > m->cap ? u64_rehash(m, cap) : 0;
}

int dl_u64map_upsert(dl_u64map *m, uint64_t key, void ***slot, bool *inserted)
{
	if (m->count + 1 > m->cap / 10 * 7) DL_TRY(dl_u64map_reserve(m, m->count + 1));
	bool found;
	size_t i = u64_probe(m, key, &found);
	if (!found) {
		m->slots[i] = (dl_u64map_slot){key, NULL, true};
		m->count++;
	}
	if (inserted) *inserted = !found;
	*slot = &m->slots[i].value;
	return 0;
}

int dl_u64map_put(dl_u64map *m, uint64_t key, void *value, void **old)
{
	void **slot;
	DL_TRY(dl_u64map_upsert(m, key, &slot, NULL));
	if (old) *old = *slot;
	*slot = value;
	return 0;
}

bool dl_u64map_find(const dl_u64map *m, uint64_t key, void **value)
{
	if (m->count == 0) return false;
	bool found;
	size_t i = u64_probe(m, key, &found);
	if (found && value) *value = m->slots[i].value;
	return found;
}

void *dl_u64map_get(const dl_u64map *m, uint64_t key)
{
	void *v = NULL;
	dl_u64map_find(m, key, &v);
	return v;
}

bool dl_u64map_remove(dl_u64map *m, uint64_t key, void **old)
{
	if (m->count == 0) return false;
	bool found;
	size_t hole = u64_probe(m, key, &found);
	if (!found) return false;
	if (old) *old = m->slots[hole].value;
	size_t mask = m->cap - 1;
	for (size_t j = (hole + 1) & mask; m->slots[j].used; j = (j + 1) & mask) {
		if (keeps_place(hole, j, dl_hash_u64(m->slots[j].key) & mask)) continue;
		m->slots[hole] = m->slots[j];
		hole = j;
	}
	m->slots[hole].used = false;
	m->count--;
	return true;
}

bool dl_u64map_next(const dl_u64map *m, size_t *it, const dl_u64map_slot **slot)
{
	while (*it < m->cap) {
		const dl_u64map_slot *s = &m->slots[(*it)++];
		if (s->used) {
			*slot = s;
			return true;
		}
	}
	return false;
}
