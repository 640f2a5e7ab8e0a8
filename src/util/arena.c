#include "util/arena.h"
#include "util/mem.h"
#include <string.h>

struct dl_arena_block {
	dl_arena_block *next;
	size_t size;
	_Alignas(16) char data[];
};

#define DL_ARENA_ALIGN 16

static dl_arena_block *new_block(dl_arena *a, size_t size)
{
	size_t total;
	if (!dl_size_add(sizeof(dl_arena_block), size, &total)) return NULL;
	dl_arena_block *b = dl_malloc(total);
	if (!b) return NULL;
	b->size = size;
	a->total += size;
	return b;
}

void *dl_arena_alloc(dl_arena *a, size_t n)
{
	size_t need = (n + DL_ARENA_ALIGN - 1) & ~(size_t)(DL_ARENA_ALIGN - 1);
	if (need < n) {
		dl_arena_alloc(a, SIZE_MAX); /* sets DL_ENOMEM */
		return NULL;
	}
	if ((size_t)(a->end - a->cur) >= need && a->cur) {
		void *p = a->cur;
		a->cur += need;
		return p;
	}
	size_t bs = a->block_size ? a->block_size : 64 * 1024;
	if (need > bs / 4) {
		/* Large request: its own block, linked behind the current one so
		 * the current block's free space stays usable. */
		dl_arena_block *b = new_block(a, need);
		if (!b) return NULL;
		if (a->head) {
			b->next = a->head->next;
			a->head->next = b;
		} else {
			b->next = NULL;
			a->head = b;
			a->cur = a->end = b->data + need;
		}
		return b->data;
	}
	dl_arena_block *b = new_block(a, bs);
	if (!b) return NULL;
	b->next = a->head;
	a->head = b;
	a->cur = b->data + need;
	a->end = b->data + bs;
	return b->data;
}

void *dl_arena_calloc(dl_arena *a, size_t count, size_t size)
{
	size_t n;
	if (!dl_size_mul(count, size, &n)) return NULL;
	void *p = dl_arena_alloc(a, n);
	if (p) memset(p, 0, n);
	return p;
}

char *dl_arena_strndup(dl_arena *a, const char *s, size_t n)
{
	char *d = dl_arena_alloc(a, n + 1);
	if (!d) return NULL;
	memcpy(d, s, n);
	d[n] = 0;
	return d;
}

char *dl_arena_strdup(dl_arena *a, const char *s)
{
	return dl_arena_strndup(a, s, strlen(s));
}

static void free_blocks(dl_arena_block *b)
{
	while (b) {
		dl_arena_block *n = b->next;
		dl_free(b);
		b = n;
	}
}

void dl_arena_reset(dl_arena *a)
{
	if (!a->head) return;
	dl_arena_block *keep = a->head;
	free_blocks(keep->next);
	keep->next = NULL;
	a->total = keep->size;
	a->cur = keep->data;
	a->end = keep->data + keep->size;
}

void dl_arena_free(dl_arena *a)
{
	free_blocks(a->head);
	a->head = NULL;
	a->cur = a->end = NULL;
	a->total = 0;
}
