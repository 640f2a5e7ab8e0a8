/* Hashing and hash maps with open addressing (linear probing, power-of-two
 * capacity, at most 70% full): one flat array, no allocation per entry.
 *
 * dl_strmap: byte-string keys -> void*. Keys are either borrowed (the caller
 * keeps them alive, e.g. in the arena they were parsed into) or copied into
 * the map's own arena. dl_u64map: uint64 keys -> void*.
 *
 * Not thread safe: use one map per thread or lock around it. */
#ifndef DL_UTIL_HASH_H
#define DL_UTIL_HASH_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "util/arena.h"

/* A fast 64-bit hash of bytes (ours: 8-byte multiply-xorshift rounds). */
uint64_t dl_hash_bytes(const void *p, size_t n, uint64_t seed);
/* A strong mix of one 64-bit value (the splitmix64 finalizer). */
uint64_t dl_hash_u64(uint64_t x);
/* The MurmurHash3 64-bit finalizer, inline for the hot loops that hash
 * every value (log replay's file keys, Parquet dictionary encoding). */
static inline uint64_t dl_hash_mix64(uint64_t h)
{
	h ^= h >> 33;
	h *= UINT64_C(0xff51afd7ed558ccd);
	h ^= h >> 33;
	h *= UINT64_C(0xc4ceb9fe1a85ec53);
	h ^= h >> 33;
	return h;
}

typedef struct dl_strmap_slot {
	const char *key; /* NULL: empty slot */
	size_t klen;
	uint64_t hash;
	void *value;
} dl_strmap_slot;

typedef struct dl_strmap {
	dl_strmap_slot *slots;
	size_t cap;   /* 0 or a power of two */
	size_t count;
	bool copy_keys;
	dl_arena keys; /* copies of keys when copy_keys */
} dl_strmap;

/* copy_keys: the map copies every inserted key (else it borrows them). */
void dl_strmap_init(dl_strmap *m, bool copy_keys);
void dl_strmap_free(dl_strmap *m);
/* Capacity for n entries without rehashing. */
int dl_strmap_reserve(dl_strmap *m, size_t n);
/* Inserts or replaces; *old (if not NULL) gets the replaced value or NULL. */
int dl_strmap_put(dl_strmap *m, const char *key, size_t klen, void *value, void **old);
/* Finds or inserts key and hands out its value slot (NULL when just
 * inserted): the one-probe "newest wins" update of log replay. Valid until
 * the next insert. */
int dl_strmap_upsert(dl_strmap *m, const char *key, size_t klen, void ***slot, bool *inserted);
/* true and *value when present. */
bool dl_strmap_find(const dl_strmap *m, const char *key, size_t klen, void **value);
/* The value, or NULL when absent. */
void *dl_strmap_get(const dl_strmap *m, const char *key, size_t klen);
/* Removes key; true when it was there (its value into *old). */
bool dl_strmap_remove(dl_strmap *m, const char *key, size_t klen, void **old);
/* Iterates: size_t it = 0; while (dl_strmap_next(m, &it, &slot)) ...
 * (order unspecified; do not insert while iterating). */
bool dl_strmap_next(const dl_strmap *m, size_t *it, const dl_strmap_slot **slot);

typedef struct dl_u64map_slot {
	uint64_t key;
	void *value;
	bool used;
} dl_u64map_slot;

typedef struct dl_u64map {
	dl_u64map_slot *slots;
	size_t cap;
	size_t count;
} dl_u64map;

#define DL_U64MAP_INIT {NULL, 0, 0}

void dl_u64map_free(dl_u64map *m);
int dl_u64map_reserve(dl_u64map *m, size_t n);
int dl_u64map_put(dl_u64map *m, uint64_t key, void *value, void **old);
int dl_u64map_upsert(dl_u64map *m, uint64_t key, void ***slot, bool *inserted);
bool dl_u64map_find(const dl_u64map *m, uint64_t key, void **value);
void *dl_u64map_get(const dl_u64map *m, uint64_t key);
bool dl_u64map_remove(dl_u64map *m, uint64_t key, void **old);
bool dl_u64map_next(const dl_u64map *m, size_t *it, const dl_u64map_slot **slot);

#endif
