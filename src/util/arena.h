/* Bump allocator: many small allocations freed together. Used for parsed
 * JSON, log actions of one replay, expression trees. */
#ifndef DL_UTIL_ARENA_H
#define DL_UTIL_ARENA_H
#include <stddef.h>

typedef struct dl_arena_block dl_arena_block;
typedef struct dl_arena {
	dl_arena_block *head;
	char *cur;
	char *end;
	size_t block_size; /* default 64 KiB; large requests get their own block */
	size_t total;      /* bytes reserved from the system */
} dl_arena;

#define DL_ARENA_INIT {NULL, NULL, NULL, 0, 0}

/* Allocates n bytes aligned to 16 (n may be 0). NULL with DL_ENOMEM. */
void *dl_arena_alloc(dl_arena *a, size_t n);
void *dl_arena_calloc(dl_arena *a, size_t count, size_t size);
char *dl_arena_strndup(dl_arena *a, const char *s, size_t n);
char *dl_arena_strdup(dl_arena *a, const char *s);
/* Frees every block except the first, ready for reuse. */
void dl_arena_reset(dl_arena *a);
void dl_arena_free(dl_arena *a);

#endif
