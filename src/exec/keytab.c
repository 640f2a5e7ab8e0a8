/* The key table (keytab.h): open addressing with linear probing over
 * slots holding id + 1 (0 = empty) in the low 32 bits and the top 32 bits
 * of the key's hash in the high ones, so a probe past another key costs no
 * visit to that key's entry (the entries and the key values are cache
 * misses on big tables); each id keeps its full hash and where its key row lives: a chunk of
 * key arrays copied from the batch that first inserted it, and the row in
 * that chunk. While a batch is being inserted its new keys point into the
 * caller's arrays (a pending chunk); at the end those rows are copied out
 * in one take, so a batch costs one copy, not one per key. */
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

struct dl_keytab {
	int nkeys;
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
	case DL_TYPE_BINARY:
		return dl_hash_bytes(a->data ? a->data + a->offsets[i] : (const uint8_t *)"",
		                     (size_t)(a->offsets[i + 1] - a->offsets[i]), SEED);
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
	for (int k = 0; k < t->nkeys; k++) dl_type_unref(t->types[k]);
	dl_exec_mem_release(t->mem, t->charged);
	dl_free(t->chunks);
	dl_free(t->types);
	dl_free(t->slots);
	dl_free(t->ent);
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
		int64_t nc = t->cap ? t->cap : 64;
		while (nc < n) nc *= 2;
		b += (nc - t->cap) * (int64_t)sizeof(kentry);
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

/* dl_array_row_equals with the common fixed-width cases first. */
static inline bool key_eq(const dl_array *a, int64_t i, const dl_array *b, int64_t j)
{
	if (!a->validity && !b->validity) {
		switch (a->type->id) {
		case DL_TYPE_INTEGER:
		case DL_TYPE_DATE: return ((const int32_t *)a->values)[i] == ((const int32_t *)b->values)[j];
		case DL_TYPE_LONG:
		case DL_TYPE_TIMESTAMP:
		case DL_TYPE_TIMESTAMP_NTZ: return ((const int64_t *)a->values)[i] == ((const int64_t *)b->values)[j];
		default: break;
		}
	}
	return dl_array_row_equals(a, i, b, j);
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
	for (int64_t i = 0; i < n; i++) {
		/* the slots of big tables are cache misses: ask for them early */
		if (i + 16 < n) __builtin_prefetch(&t->slots[t->hbuf[i + 16] & t->mask]);
		ids[i] = lookup(t, t->hbuf[i], keys, i, NULL);
	}
	return 0;
}

int dl_keytab_insert(dl_keytab *t, dl_array *const *keys, int64_t n, uint32_t *ids)
{
	if (n > UINT32_MAX - 1) return dl_error_set(DL_EUNSUPPORTED, "%s: batch of %lld rows is too large", t->what, (long long)n);
	DL_TRY(hashes(t, keys, n));
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
	int rc = 0;
	for (int64_t i = 0; i < n; i++) {
		uint64_t slot;
		if (i + 16 < n) __builtin_prefetch(&t->slots[t->hbuf[i + 16] & t->mask]);
		uint32_t id = lookup(t, t->hbuf[i], keys, i, &slot);
		if (id == DL_KEYTAB_NONE) {
			if (t->n >= UINT32_MAX - 1) {
				rc = dl_error_set(DL_EUNSUPPORTED, "%s: more than 2^32 distinct keys", t->what);
				break;
			}
			if (t->n == t->cap) {
				int64_t nc = t->cap ? t->cap * 2 : 64;
				if ((rc = charge(t, (nc - t->cap) * (int64_t)sizeof(kentry))) < 0) break;
				kentry *e = dl_reallocarray(t->ent, (size_t)nc, sizeof *e);
				if (!e) {
					rc = dl_error_set(DL_ENOMEM, "out of memory");
					break;
				}
				t->ent = e;
				t->cap = nc;
			}
			id = (uint32_t)t->n++;
			t->ent[id] = (kentry){t->hbuf[i], chunk_no, (uint32_t)i};
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
			else rc = charge(t, dl_exec_array_bytes(own[k]));
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
