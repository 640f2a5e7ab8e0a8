/* The replay's seen-set of file keys (file_key_set.h): open addressing
 * with linear probing over 8-byte slots, grown at 3/4 load. */
#include "log/file_key_set.h"
#include <string.h>
#include "util/error.h"
#include "util/hash.h"
#include "util/mem.h"

static uint64_t hash_bytes(uint64_t h, const char *s, size_t n)
{
	while (n >= 8) {
		uint64_t w;
		memcpy(&w, s, 8);
		h = (h ^ w) * 0x9E3779B97F4A7C15ULL;
		h ^= h >> 29;
		s += 8;
		n -= 8;
	}
	uint64_t w = 0;
	memcpy(&w, s, n);
	h = (h ^ w ^ ((uint64_t)n << 56)) * 0x9E3779B97F4A7C15ULL;
	return h;
}

uint64_t dl_file_key_hash(const char *path, const dl_dv_descriptor *dv)
{
	uint64_t h = hash_bytes(0x243F6A8885A308D3ULL, path, strlen(path));
	if (dv) {
		h = hash_bytes(h ^ (uint64_t)(unsigned char)dv->storage_type, dv->path_or_inline,
		               strlen(dv->path_or_inline));
		h ^= dl_hash_mix64((uint64_t)dv->offset + 0x5bd1e995);
	}
	return dl_hash_mix64(h);
}

static bool dv_equal(const dl_dv_descriptor *a, const dl_dv_descriptor *b)
{
	if (!a || !b) return a == b;
	return a->storage_type == b->storage_type && a->offset == b->offset &&
	       strcmp(a->path_or_inline, b->path_or_inline) == 0;
}

static void ref_key(const dl_log_state *st, uint32_t ref, const char **path, const dl_dv_descriptor **dv)
{
	size_t idx = (ref - 1) >> 1;
	if ((ref - 1) & 1) {
		*path = st->removes[idx].path;
		*dv = st->removes[idx].dv;
	} else {
		const dl_add *a = dl_log_state_add(st, idx);
		*path = a->path;
		*dv = a->dv;
	}
}

static size_t home(const dl_file_key_set *s, uint64_t h)
{
	return dl_hash_mix64(h >> 32) & (s->cap - 1);
}

static int grow(dl_file_key_set *s)
{
	size_t ncap = s->cap ? s->cap * 2 : 1024;
	dl_fks_slot *ns = dl_calloc(ncap, sizeof *ns);
	if (!ns) return DL_ENOMEM;
	for (size_t i = 0; i < s->cap; i++) {
		if (!s->slots[i].ref) continue;
		size_t j = dl_hash_mix64(s->slots[i].tag) & (ncap - 1);
		while (ns[j].ref) j = (j + 1) & (ncap - 1);
		ns[j] = s->slots[i];
	}
	dl_free(s->slots);
	s->slots = ns;
	s->cap = ncap;
	return 0;
}

int dl_fks_find(dl_file_key_set *s, const dl_log_state *st, uint64_t h, const char *path,
                const dl_dv_descriptor *dv, size_t *slot)
{
	if ((s->used + 1) * 4 >= s->cap * 3) DL_TRY(grow(s));
	size_t j = home(s, h);
	uint32_t tag = (uint32_t)(h >> 32);
	while (s->slots[j].ref) {
		if (s->slots[j].tag == tag) {
			const char *p;
			const dl_dv_descriptor *d;
			ref_key(st, s->slots[j].ref, &p, &d);
			if (strcmp(p, path) == 0 && dv_equal(d, dv)) {
				*slot = j;
				return 1;
			}
		}
		j = (j + 1) & (s->cap - 1);
	}
	*slot = j;
	return 0;
}

void dl_fks_set(dl_file_key_set *s, size_t slot, uint64_t h, uint32_t ref)
{
	s->slots[slot].tag = (uint32_t)(h >> 32);
	s->slots[slot].ref = ref;
	s->used++;
}

int dl_fks_reserve(dl_file_key_set *s, size_t n)
{
	size_t cap = 1024;
	while (cap / 4 * 3 <= n && cap < ((size_t)1 << 40)) cap *= 2;
	if (cap <= s->cap) return 0;
	dl_fks_slot *ns = dl_calloc(cap, sizeof *ns);
	if (!ns) return DL_ENOMEM;
	/* only called before the first insert: nothing to carry over */
	dl_free(s->slots);
	s->slots = ns;
	s->cap = cap;
	return 0;
}

void dl_fks_free(dl_file_key_set *s)
{
	dl_free(s->slots);
	*s = (dl_file_key_set){0};
}
