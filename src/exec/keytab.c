/* The key table (keytab.h): open addressing with linear probing over
 * slots holding id + 1 (0 = empty) in the low 32 bits and the top 32 bits
 * of the key's hash in the high ones, so a probe past another key costs no
 * visit to that key's entry (the entries and the key values are cache
 * misses on big tables); each id keeps its full hash and where its key row lives: a chunk of
 * key arrays copied from the batch that first inserted it, and the row in
 * that chunk. While a batch is being inserted its new keys point into the
 * caller's arrays (a pending chunk); at the end those rows are copied out
 * in one take, so a batch costs one copy, not one per key.
 *
 * Tables of one integer, date or string key also keep each id's key as a
 * word (`kw`: the value, or a string of up to 7 bytes with its length in
 * the top byte) so a probe compares one word instead of walking to the
 * key's chunk and array; longer strings, and the NULL key's id, still
 * compare through the chunk. */
#include <math.h>
#include <string.h>
#include "exec/keytab.h"
#include "exec/op.h"
#include "util/error.h"
#include "util/hash.h"
#include "util/mem.h"

typedef struct kentry {
	uint64_t hash;
	uint32_t chunk;
	uint32_t row;
} kentry;

typedef struct kchunk {
	dl_array **cols;  /* nkeys arrays */
	int64_t first_id; /* ids first_id.. live here, rows 0.. */
	int64_t n;
	bool borrowed;    /* the pending chunk: the caller's arrays */
} kchunk;

/* The word forms (above). */
typedef enum kw_mode { KW_NONE = 0, KW_I32, KW_I64, KW_STR } kw_mode;
#define KW_LONG_STR (UINT64_C(0xff) << 56)
/* Entries of a new table: small, as the memory budget charges them and a
 * table of one group under a tiny limit must still fit. */
#define KT_FIRST_CAP 16

struct dl_keytab {
	int nkeys;
	kw_mode wmode;
	uint64_t *kw;     /* per id, with ent (wmode only) */
	uint32_t null_id; /* the NULL key's id, or DL_KEYTAB_NONE */
	dl_type **types;
	uint64_t *slots;  /* hash >> 32 << 32 | (id + 1); 0 = empty */
	uint64_t mask;    /* nslots - 1 */
	kentry *ent;
	int64_t n, cap;
	kchunk *chunks;
	int64_t nchunks, chunk_cap;
	dl_exec_memory *mem;
	const char *what;
	int64_t charged;
	uint64_t *hbuf;   /* scratch hashes */
	int64_t hcap;
};

#define SEED 0x9e3779b97f4a7c15ull

static uint64_t mix(uint64_t h, uint64_t v)
{
	return dl_hash_mix64(h ^ (v + SEED + (h << 6) + (h >> 2)));
}

/* A string's hash. Up to 8 bytes (most string GROUP BY and join keys:
 * codes, flags, short names) it is one word built from overlapping loads
 * that cover every byte, mixed with the length: a tenth of dl_hash_bytes's
 * cost on one-letter keys. Every path that hashes a string comes here, so
 * equal strings always hash equal. */
static inline uint64_t hash_str(const uint8_t *p, int64_t n)
{
	uint64_t w;
	if (n >= 4 && n <= 8) {
		uint32_t lo, hi;
		memcpy(&lo, p, 4);
		memcpy(&hi, p + n - 4, 4);
		w = (uint64_t)lo | (uint64_t)hi << 32;
	} else if (n > 0 && n < 4) {
		w = (uint64_t)p[0] | (uint64_t)p[n / 2] << 8 | (uint64_t)p[n - 1] << 16;
	} else if (n == 0) {
		w = 0;
	} else {
		return dl_hash_bytes(p, (size_t)n, SEED);
	}
	return dl_hash_mix64(w ^ ((uint64_t)n * SEED));
}

static inline uint64_t hash_str_at(const dl_array *a, int64_t i)
{
	int64_t n = a->offsets[i + 1] - a->offsets[i];
	return hash_str(n ? a->data + a->offsets[i] : (const uint8_t *)"", n);
}

static uint64_t hash_value(const dl_array *a, int64_t i)
{
	if (!dl_array_is_valid(a, i)) return 0x51af9d3c2e1b47a5ull;
	switch (a->type->id) {
	case DL_TYPE_BOOLEAN: return dl_bit_get(a->values, i) ? 3 : 5;
	case DL_TYPE_BYTE: return dl_hash_u64((uint64_t)((const int8_t *)a->values)[i]);
	case DL_TYPE_SHORT: return dl_hash_u64((uint64_t)((const int16_t *)a->values)[i]);
	case DL_TYPE_INTEGER:
	case DL_TYPE_DATE: return dl_hash_u64((uint64_t)((const int32_t *)a->values)[i]);
	case DL_TYPE_LONG:
	case DL_TYPE_TIMESTAMP:
	case DL_TYPE_TIMESTAMP_NTZ: return dl_hash_u64((uint64_t)((const int64_t *)a->values)[i]);
	case DL_TYPE_FLOAT:
	case DL_TYPE_DOUBLE: {
		double d = a->type->id == DL_TYPE_FLOAT ? ((const float *)a->values)[i] : ((const double *)a->values)[i];
		if (d == 0) d = 0;          /* -0.0 */
		if (isnan(d)) return 0x7ff8;  /* every NaN */
		uint64_t u;
		memcpy(&u, &d, 8);
		return dl_hash_u64(u);
	}
	case DL_TYPE_DECIMAL: return dl_hash_bytes((const char *)a->values + 16 * i, 16, SEED);
	case DL_TYPE_STRING:
	case DL_TYPE_BINARY: return hash_str_at(a, i);
	case DL_TYPE_STRUCT:
	case DL_TYPE_VARIANT: {
		uint64_t h = 17;
		for (int k = 0; k < a->nchildren; k++) h = mix(h, hash_value(a->children[k], i));
		return h;
	}
	case DL_TYPE_ARRAY:
	case DL_TYPE_MAP: {
		/* the element count only: equal lists have equal counts, and the
		 * values are compared on a hash hit anyway */
		return dl_hash_u64((uint64_t)(a->offsets[i + 1] - a->offsets[i]) + 11);
	}
	default: return 1;
	}
}

/* Mixes column k's hashes into h, with the type switch outside the loop:
 * the common fixed-width types get a tight loop of their own. */
static void hash_column(uint64_t *h, const dl_array *a, int64_t n)
{
	bool nulls = a->validity != NULL || a->type->id == DL_TYPE_NULL;
	if (!nulls) {
		switch (a->type->id) {
		case DL_TYPE_INTEGER:
		case DL_TYPE_DATE: {
			const int32_t *v = a->values;
			for (int64_t i = 0; i < n; i++) h[i] = mix(h[i], dl_hash_u64((uint64_t)v[i]));
			return;
		}
		case DL_TYPE_LONG:
		case DL_TYPE_TIMESTAMP:
		case DL_TYPE_TIMESTAMP_NTZ: {
			const int64_t *v = a->values;
			for (int64_t i = 0; i < n; i++) h[i] = mix(h[i], dl_hash_u64((uint64_t)v[i]));
			return;
		}
		case DL_TYPE_STRING:
		case DL_TYPE_BINARY:
			for (int64_t i = 0; i < n; i++) h[i] = mix(h[i], hash_str_at(a, i));
			return;
		default: break;
		}
	}
	for (int64_t i = 0; i < n; i++) h[i] = mix(h[i], hash_value(a, i));
}

void dl_keys_hash(uint64_t *h, dl_array *const *keys, int nkeys, int64_t n)
{
	for (int64_t i = 0; i < n; i++) h[i] = 0x2545f4914f6cdd1dull;
	for (int k = 0; k < nkeys; k++) hash_column(h, keys[k], n);
}

static kw_mode mode_of(const dl_type *t)
{
	switch (t->id) {
	case DL_TYPE_INTEGER:
	case DL_TYPE_DATE: return KW_I32;
	case DL_TYPE_LONG:
	case DL_TYPE_TIMESTAMP:
	case DL_TYPE_TIMESTAMP_NTZ: return KW_I64;
	case DL_TYPE_STRING:
	case DL_TYPE_BINARY: return KW_STR;
	default: return KW_NONE;
	}
}

/* Row i's word (false for NULL). */
static inline bool word_of(kw_mode m, const dl_array *a, int64_t i, uint64_t *w)
{
	if (a->validity && !dl_bit_get(a->validity, i)) return false;
	switch (m) {
	case KW_I32: *w = (uint64_t)(int64_t)((const int32_t *)a->values)[i]; return true;
	case KW_I64: *w = (uint64_t)((const int64_t *)a->values)[i]; return true;
	default: {
		int64_t n = a->offsets[i + 1] - a->offsets[i];
		if (n > 7) {
			*w = KW_LONG_STR;
			return true;
		}
		uint64_t v = (uint64_t)n << 56;
		if (n > 0) {
			const uint8_t *p = a->data + a->offsets[i];
			for (int64_t k = 0; k < n; k++) v |= (uint64_t)p[k] << (8 * k);
		}
		*w = v;
		return true;
	}
	}
}

int dl_keytab_new(dl_keytab **out, dl_type *const *types, int nkeys, dl_exec_memory *mem, const char *what)
{
	*out = NULL;
	dl_keytab *t = dl_calloc(1, sizeof *t);
	if (!t) return dl_error_set(DL_ENOMEM, "out of memory");
	t->nkeys = nkeys;
	t->mem = mem;
	t->what = what;
	t->types = dl_calloc((size_t)(nkeys ? nkeys : 1), sizeof *t->types);
	t->slots = dl_calloc(1024, sizeof *t->slots);
	if (!t->types || !t->slots) {
		dl_keytab_free(t);
		return dl_error_set(DL_ENOMEM, "out of memory");
	}
	t->mask = 1023;
	for (int k = 0; k < nkeys; k++) t->types[k] = dl_type_ref(types[k]);
	t->null_id = DL_KEYTAB_NONE;
	if (nkeys == 1) t->wmode = mode_of(types[0]);
	*out = t;
	return 0;
}

void dl_keytab_free(dl_keytab *t)
{
	if (!t) return;
	for (int64_t c = 0; c < t->nchunks; c++) {
		if (!t->chunks[c].borrowed)
			for (int k = 0; k < t->nkeys; k++) dl_array_free(t->chunks[c].cols[k]);
		dl_free(t->chunks[c].cols);
	}
	/* types is NULL when its allocation in dl_keytab_new failed */
	for (int k = 0; t->types && k < t->nkeys; k++) dl_type_unref(t->types[k]);
	dl_exec_mem_release(t->mem, t->charged);
	dl_free(t->chunks);
	dl_free(t->types);
	dl_free(t->slots);
	dl_free(t->ent);
	dl_free(t->kw);
	dl_free(t->hbuf);
	dl_free(t);
}

int64_t dl_keytab_size(const dl_keytab *t)
{
	return t->n;
}

int64_t dl_keytab_grow_bytes(const dl_keytab *t, int64_t more)
{
	int64_t n = t->n + more, b = 0;
	if (n > t->cap) {
		int64_t nc = t->cap ? t->cap : KT_FIRST_CAP;
		while (nc < n) nc *= 2;
		b += (nc - t->cap) * (int64_t)(sizeof(kentry) + (t->wmode ? sizeof(uint64_t) : 0));
	}
	/* rehash doubles one step at a time, holding the old and the new slot
	 * arrays during the last step */
	uint64_t slots = t->mask + 1, s = slots;
	while ((uint64_t)n * 2 > s) s *= 2;
	if (s > slots) b += (int64_t)((s + s / 2 - slots) * sizeof(uint64_t));
	return b;
}

static int charge(dl_keytab *t, int64_t bytes)
{
	DL_TRY(dl_exec_mem_charge(t->mem, bytes, t->what));
	t->charged += bytes;
	return 0;
}

/* Two strings' bytes equal (lengths already equal): short keys compared
 * inline, longer ones with memcmp. */
static inline bool str_eq(const uint8_t *x, const uint8_t *y, int64_t n)
{
	if (n > 16) return memcmp(x, y, (size_t)n) == 0;
	for (int64_t k = 0; k < n; k++)
		if (x[k] != y[k]) return false;
	return true;
}

/* dl_array_row_equals with the common cases (integers, dates, strings)
 * inline; NULL equals NULL, as GROUP BY and the DISTINCT paths want. */
static inline bool key_eq(const dl_array *a, int64_t i, const dl_array *b, int64_t j)
{
	bool va = !a->validity || dl_bit_get(a->validity, i), vb = !b->validity || dl_bit_get(b->validity, j);
	if (!va || !vb) return va == vb && a->type->id == b->type->id;
	switch (a->type->id) {
	case DL_TYPE_INTEGER:
	case DL_TYPE_DATE: return ((const int32_t *)a->values)[i] == ((const int32_t *)b->values)[j];
	case DL_TYPE_LONG:
	case DL_TYPE_TIMESTAMP:
	case DL_TYPE_TIMESTAMP_NTZ: return ((const int64_t *)a->values)[i] == ((const int64_t *)b->values)[j];
	case DL_TYPE_STRING:
	case DL_TYPE_BINARY: {
		int64_t la = a->offsets[i + 1] - a->offsets[i], lb = b->offsets[j + 1] - b->offsets[j];
		return la == lb && a->type->id == b->type->id &&
		       (la == 0 || str_eq(a->data + a->offsets[i], b->data + b->offsets[j], la));
	}
	default: return dl_array_row_equals(a, i, b, j);
	}
}

static bool row_eq(const dl_keytab *t, const kentry *e, dl_array *const *keys, int64_t i)
{
	const kchunk *c = &t->chunks[e->chunk];
	for (int k = 0; k < t->nkeys; k++)
		if (!key_eq(c->cols[k], e->row, keys[k], i)) return false;
	return true;
}

static uint32_t lookup(const dl_keytab *t, uint64_t h, dl_array *const *keys, int64_t i, uint64_t *slot_out)
{
	uint64_t s = h & t->mask;
	for (;;) {
		uint64_t v = t->slots[s];
		if (!v) break;
		if ((v >> 32) == (h >> 32)) {
			uint32_t id = (uint32_t)v - 1;
			const kentry *e = &t->ent[id];
			if (e->hash == h && row_eq(t, e, keys, i)) return id;
		}
		s = (s + 1) & t->mask;
	}
	if (slot_out) *slot_out = s;
	return DL_KEYTAB_NONE;
}

/* lookup for word-mode tables: row i of keys[0], whose word is w (valid
 * rows only; NULL goes through lookup). */
static inline uint32_t lookup_word(const dl_keytab *t, uint64_t h, uint64_t w, dl_array *const *keys, int64_t i,
                                   uint64_t *slot_out)
{
	uint64_t s = h & t->mask;
	bool via_chunk = t->wmode == KW_STR && w == KW_LONG_STR;
	for (;;) {
		uint64_t v = t->slots[s];
		if (!v) break;
		if ((v >> 32) == (h >> 32)) {
			uint32_t id = (uint32_t)v - 1;
			if (t->kw[id] == w && id != t->null_id &&
			    (!via_chunk || (t->ent[id].hash == h && row_eq(t, &t->ent[id], keys, i))))
				return id;
		}
		s = (s + 1) & t->mask;
	}
	if (slot_out) *slot_out = s;
	return DL_KEYTAB_NONE;
}

/* Word mode holds for this batch's key array (a batch of another type
 * than the table's turns it off for good: the chunks always work). */
static bool use_words(dl_keytab *t, dl_array *const *keys)
{
	if (t->wmode && mode_of(keys[0]->type) != t->wmode) {
		t->wmode = KW_NONE;
		dl_free(t->kw);
		t->kw = NULL;
	}
	return t->wmode != KW_NONE;
}

static inline uint64_t slot_value(uint64_t hash, uint32_t id)
{
	return (hash >> 32 << 32) | ((uint64_t)id + 1);
}

static int rehash(dl_keytab *t)
{
	uint64_t nslots = (t->mask + 1) * 2;
	DL_TRY(charge(t, (int64_t)(nslots * sizeof(uint64_t))));
	uint64_t *ns = dl_calloc(nslots, sizeof *ns);
	if (!ns) return dl_error_set(DL_ENOMEM, "out of memory growing a hash table of %lld keys", (long long)t->n);
	for (int64_t id = 0; id < t->n; id++) {
		uint64_t s = t->ent[id].hash & (nslots - 1);
		while (ns[s]) s = (s + 1) & (nslots - 1);
		ns[s] = slot_value(t->ent[id].hash, (uint32_t)id);
	}
	dl_exec_mem_release(t->mem, (int64_t)((t->mask + 1) * sizeof(uint64_t)));
	t->charged -= (int64_t)((t->mask + 1) * sizeof(uint64_t));
	dl_free(t->slots);
	t->slots = ns;
	t->mask = nslots - 1;
	return 0;
}

static int hashes(dl_keytab *t, dl_array *const *keys, int64_t n)
{
	if (n > t->hcap) {
		uint64_t *h = dl_reallocarray(t->hbuf, (size_t)n, sizeof *h);
		if (!h) return dl_error_set(DL_ENOMEM, "out of memory");
		t->hbuf = h;
		t->hcap = n;
	}
	dl_keys_hash(t->hbuf, keys, t->nkeys, n);
	return 0;
}

int dl_keytab_find(const dl_keytab *t, dl_array *const *keys, int64_t n, uint32_t *ids)
{
	DL_TRY(hashes((dl_keytab *)t, keys, n));
	bool words = use_words((dl_keytab *)t, keys);
	for (int64_t i = 0; i < n; i++) {
		/* the slots of big tables are cache misses: ask for them early */
		if (i + 16 < n) __builtin_prefetch(&t->slots[t->hbuf[i + 16] & t->mask]);
		uint64_t w;
		if (words && word_of(t->wmode, keys[0], i, &w)) ids[i] = lookup_word(t, t->hbuf[i], w, keys, i, NULL);
		else ids[i] = lookup(t, t->hbuf[i], keys, i, NULL);
	}
	return 0;
}

void dl_keytab_find_with(const dl_keytab *t, dl_array *const *keys, int64_t n, uint32_t *ids, uint64_t *h)
{
	dl_keys_hash(h, keys, t->nkeys, n);
	/* use_words without its reset: this call changes nothing in t */
	bool words = t->wmode != KW_NONE && mode_of(keys[0]->type) == t->wmode;
	for (int64_t i = 0; i < n; i++) {
		if (i + 16 < n) __builtin_prefetch(&t->slots[h[i + 16] & t->mask]);
		uint64_t w;
		if (words && word_of(t->wmode, keys[0], i, &w)) ids[i] = lookup_word(t, h[i], w, keys, i, NULL);
		else ids[i] = lookup(t, h[i], keys, i, NULL);
	}
}

static int insert(dl_keytab *t, dl_array *const *keys, int64_t n, uint32_t *ids);

int dl_keytab_insert(dl_keytab *t, dl_array *const *keys, int64_t n, uint32_t *ids)
{
	if (n > UINT32_MAX - 1) return dl_error_set(DL_EUNSUPPORTED, "%s: batch of %lld rows is too large", t->what, (long long)n);
	DL_TRY(hashes(t, keys, n));
	return insert(t, keys, n, ids);
}

int dl_keytab_insert_hashed(dl_keytab *t, dl_array *const *keys, int64_t n, uint32_t *ids, const uint64_t *h)
{
	if (n > UINT32_MAX - 1) return dl_error_set(DL_EUNSUPPORTED, "%s: batch of %lld rows is too large", t->what, (long long)n);
	if (n > t->hcap) {
		uint64_t *hb = dl_reallocarray(t->hbuf, (size_t)n, sizeof *hb);
		if (!hb) return dl_error_set(DL_ENOMEM, "out of memory");
		t->hbuf = hb;
		t->hcap = n;
	}
	if (n > 0) memcpy(t->hbuf, h, (size_t)n * sizeof *h);
	return insert(t, keys, n, ids);
}

/* The insert over the hashes in t->hbuf. */
static int insert(dl_keytab *t, dl_array *const *keys, int64_t n, uint32_t *ids)
{
	if (t->nchunks == t->chunk_cap) {
		int64_t nc = t->chunk_cap ? t->chunk_cap * 2 : 16;
		kchunk *c = dl_reallocarray(t->chunks, (size_t)nc, sizeof *c);
		if (!c) return dl_error_set(DL_ENOMEM, "out of memory");
		t->chunks = c;
		t->chunk_cap = nc;
	}
	/* the pending chunk: new keys point into the caller's arrays */
	kchunk *pc = &t->chunks[t->nchunks];
	pc->cols = dl_calloc((size_t)(t->nkeys ? t->nkeys : 1), sizeof *pc->cols);
	if (!pc->cols) return dl_error_set(DL_ENOMEM, "out of memory");
	memcpy(pc->cols, keys, (size_t)t->nkeys * sizeof *keys);
	pc->borrowed = true;
	pc->first_id = t->n;
	pc->n = 0;
	uint32_t chunk_no = (uint32_t)t->nchunks++;
	int64_t first = t->n;
	uint32_t *newrows = NULL;
	uint32_t null_before = t->null_id;
	bool words = use_words(t, keys);
	int rc = 0;
	for (int64_t i = 0; i < n; i++) {
		uint64_t slot, w = 0;
		if (i + 16 < n) __builtin_prefetch(&t->slots[t->hbuf[i + 16] & t->mask]);
		bool valid = words && word_of(t->wmode, keys[0], i, &w);
		uint32_t id = valid ? lookup_word(t, t->hbuf[i], w, keys, i, &slot) : lookup(t, t->hbuf[i], keys, i, &slot);
		if (id == DL_KEYTAB_NONE) {
			if (t->n >= UINT32_MAX - 1) {
				rc = dl_error_set(DL_EUNSUPPORTED, "%s: more than 2^32 distinct keys", t->what);
				break;
			}
			if (t->n == t->cap) {
				int64_t nc = t->cap ? t->cap * 2 : KT_FIRST_CAP;
				int64_t per = (int64_t)(sizeof(kentry) + (words ? sizeof(uint64_t) : 0));
				if ((rc = charge(t, (nc - t->cap) * per)) < 0) break;
				kentry *e = dl_reallocarray(t->ent, (size_t)nc, sizeof *e);
				if (e) t->ent = e;
				uint64_t *kw = e && words ? dl_reallocarray(t->kw, (size_t)nc, sizeof *kw) : NULL;
				if (kw) t->kw = kw;
				if (!e || (words && !kw)) {
					rc = dl_error_set(DL_ENOMEM, "out of memory");
					break;
				}
				t->cap = nc;
			}
			id = (uint32_t)t->n++;
			t->ent[id] = (kentry){t->hbuf[i], chunk_no, (uint32_t)i};
			if (words) {
				t->kw[id] = w;
				if (!valid) t->null_id = id;
			}
			t->slots[slot] = slot_value(t->hbuf[i], id);
			if ((uint64_t)t->n * 2 > t->mask + 1 && (rc = rehash(t)) < 0) break;
		}
		ids[i] = id;
	}
	int64_t added = t->n - first;
	if (rc == 0 && added > 0) {
		newrows = dl_malloc((size_t)added * sizeof *newrows);
		if (!newrows) rc = dl_error_set(DL_ENOMEM, "out of memory");
	}
	dl_array **own = NULL;
	if (rc == 0 && added > 0) {
		own = dl_calloc((size_t)(t->nkeys ? t->nkeys : 1), sizeof *own);
		if (!own) rc = dl_error_set(DL_ENOMEM, "out of memory");
		for (int64_t id = first; rc == 0 && id < t->n; id++) newrows[id - first] = t->ent[id].row;
		for (int k = 0; rc == 0 && k < t->nkeys; k++) {
			own[k] = dl_array_take(keys[k], newrows, added);
			if (!own[k]) rc = dl_exec_failed();
			else rc = charge(t, dl_array_bytes(own[k]));
		}
	}
	dl_free(newrows);
	if (rc < 0 || added == 0) {
		/* failed or nothing new: drop the pending chunk and the ids it gave */
		if (own)
			for (int k = 0; k < t->nkeys; k++) dl_array_free(own[k]);
		dl_free(own);
		if (added > 0) {
			/* unlink the ids this call gave: rebuilding the slots is
			 * simplest, and only happens on failure */
			t->n = first;
			t->null_id = null_before;
			memset(t->slots, 0, (t->mask + 1) * sizeof *t->slots);
			for (int64_t id = 0; id < t->n; id++) {
				uint64_t s = t->ent[id].hash & t->mask;
				while (t->slots[s]) s = (s + 1) & t->mask;
				t->slots[s] = slot_value(t->ent[id].hash, (uint32_t)id);
			}
		}
		dl_free(pc->cols);
		t->nchunks--;
		return rc;
	}
	dl_free(pc->cols);
	pc->cols = own;
	pc->borrowed = false;
	pc->n = added;
	for (int64_t id = first; id < t->n; id++) t->ent[id].row = (uint32_t)(id - first);
	return 0;
}

int dl_keytab_keys(dl_array **out, const dl_keytab *t, int k, int64_t start, int64_t n)
{
	*out = NULL;
	/* chunks hold consecutive id ranges: slice the ones overlapping */
	dl_array **parts = dl_calloc((size_t)t->nchunks + 1, sizeof *parts);
	if (!parts) return dl_error_set(DL_ENOMEM, "out of memory");
	int np = 0, rc = 0;
	for (int64_t c = 0; c < t->nchunks && rc == 0; c++) {
		const kchunk *ch = &t->chunks[c];
		int64_t lo = ch->first_id > start ? ch->first_id : start;
		int64_t hi = ch->first_id + ch->n < start + n ? ch->first_id + ch->n : start + n;
		if (lo >= hi) continue;
		parts[np] = dl_array_slice(ch->cols[k], lo - ch->first_id, hi - lo);
		if (!parts[np]) rc = dl_exec_failed();
		else np++;
	}
	if (rc == 0) {
		if (np == 0) *out = dl_array_new(t->types[k], 0);
		else if (np == 1) {
			*out = parts[0];
			parts[0] = NULL;
		} else *out = dl_array_concat(parts, np);
		if (!*out) rc = dl_exec_failed();
	}
	for (int i = 0; i < np; i++) dl_array_free(parts[i]);
	dl_free(parts);
	return rc;
}
