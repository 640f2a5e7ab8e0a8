/* The replay's seen-set (file_key_set.c): for every file key met so far,
 * newest first, a reference to the action that decided it. A file key is
 * (path, deletion vector unique id), PROTOCOL.md's "logical file"; the
 * newest add or remove of a key wins, so replay asks for every action
 * whether its key was met before.
 *
 * A slot is 8 bytes, a tag and a reference: the key itself is compared
 * through the referenced action in the log state (adds by index, removes by
 * index), so the set of 300k files is 4 MB, and its probes are mostly cache
 * misses, which the replay hides by prefetching a few actions ahead. */
#ifndef DL_LOG_FILE_KEY_SET_H
#define DL_LOG_FILE_KEY_SET_H
#include "log/replay.h"
#include "util/hash.h"

typedef struct dl_fks_slot {
	uint32_t tag; /* high 32 bits of the key's hash */
	uint32_t ref; /* 0 = empty, else (index << 1 | is_remove) + 1 */
} dl_fks_slot;

typedef struct dl_file_key_set {
	dl_fks_slot *slots;
	size_t cap; /* power of two */
	size_t used;
} dl_file_key_set;

/* Sizes the set for about n keys up front (big logs then never rehash). */
int dl_fks_reserve(dl_file_key_set *s, size_t n);
/* Probes for the key (path, dv) of hash h (dl_file_key_hash), comparing
 * through the actions of st: 1 when met, *slot its slot; 0 when not, *slot
 * the empty slot where it goes (valid until the next dl_fks_set). */
int dl_fks_find(dl_file_key_set *s, const dl_log_state *st, uint64_t h, const char *path,
                const dl_dv_descriptor *dv, size_t *slot);
/* Fills the empty slot dl_fks_find returned with the key's reference. */
void dl_fks_set(dl_file_key_set *s, size_t slot, uint64_t h, uint32_t ref);
/* Prefetches the slot a key of hash h probes first (inline: once per
 * action on the replay's hot path). */
static inline void dl_fks_prefetch(const dl_file_key_set *s, uint64_t h)
{
	if (s->cap) __builtin_prefetch(&s->slots[dl_hash_mix64(h >> 32) & (s->cap - 1)]);
}
void dl_fks_free(dl_file_key_set *s);

#endif
