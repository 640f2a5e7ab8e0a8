/* Case-insensitive field lookup by hashing (see name_index.h). Linear
 * probing keeps fields whose names fold alike in insertion (field) order
 * along a probe sequence, so the first match met is the lowest index. */
#include "columnar/name_index.h"
#include <string.h>
#include <strings.h>
#include "util/error.h"
#include "util/mem.h"

#define SCAN_BELOW 32 /* fields; fewer are scanned */

static uint32_t fold_hash(const char *s)
{
	uint32_t h = 2166136261u; /* FNV-1a over ASCII-lower-cased bytes */
	for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
		unsigned char c = *p >= 'A' && *p <= 'Z' ? (unsigned char)(*p + 32) : *p;
		h = (h ^ c) * 16777619u;
	}
	return h ^ (h >> 15);
}

int dl_name_index_init(dl_name_index *ix, const dl_type *t)
{
	memset(ix, 0, sizeof *ix);
	ix->t = t;
	ix->dup_first = ix->dup_second = -1;
	int n = t->nchildren;
	if (n < SCAN_BELOW) {
		for (int i = 1; i < n && ix->dup_second < 0; i++)
			for (int j = 0; j < i; j++)
				if (strcasecmp(t->children[i].name, t->children[j].name) == 0) {
					ix->dup_first = j;
					ix->dup_second = i;
					break;
				}
		return 0;
	}
	uint32_t cap = 64;
	while (cap < (uint32_t)n * 2) cap <<= 1;
	ix->slots = dl_calloc(cap, sizeof *ix->slots);
	if (!ix->slots) return dl_error_set(DL_ENOMEM, "out of memory indexing %d field names", n);
	ix->mask = cap - 1;
	for (int i = 0; i < n; i++) {
		const char *name = t->children[i].name;
		uint32_t s = fold_hash(name) & ix->mask;
		for (; ix->slots[s]; s = (s + 1) & ix->mask) {
			int j = ix->slots[s] - 1;
			if (ix->dup_second < 0 && strcasecmp(t->children[j].name, name) == 0) {
				ix->dup_first = j;
				ix->dup_second = i;
			}
		}
		ix->slots[s] = i + 1;
	}
	return 0;
}

void dl_name_index_free(dl_name_index *ix)
{
	dl_free(ix->slots);
	ix->slots = NULL;
}

int dl_name_index_find_ci(const dl_name_index *ix, const char *name)
{
	const dl_type *t = ix->t;
	if (!ix->slots) {
		for (int i = 0; i < t->nchildren; i++)
			if (strcasecmp(t->children[i].name, name) == 0) return i;
		return -1;
	}
	for (uint32_t s = fold_hash(name) & ix->mask; ix->slots[s]; s = (s + 1) & ix->mask) {
		int j = ix->slots[s] - 1;
		if (strcasecmp(t->children[j].name, name) == 0) return j;
	}
	return -1;
}

int dl_name_index_find(const dl_name_index *ix, const char *name)
{
	const dl_type *t = ix->t;
	if (!ix->slots) {
		for (int i = 0; i < t->nchildren; i++)
			if (strcmp(t->children[i].name, name) == 0) return i;
		return dl_name_index_find_ci(ix, name);
	}
	int first = -1;
	for (uint32_t s = fold_hash(name) & ix->mask; ix->slots[s]; s = (s + 1) & ix->mask) {
		int j = ix->slots[s] - 1;
		if (strcasecmp(t->children[j].name, name) != 0) continue;
		if (strcmp(t->children[j].name, name) == 0) return j;
		if (first < 0) first = j;
	}
	return first;
}

bool dl_name_index_duplicate(const dl_name_index *ix, int *first, int *second)
{
	*first = ix->dup_first;
	*second = ix->dup_second;
	return ix->dup_second >= 0;
}
