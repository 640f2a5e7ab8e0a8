/* Checked allocation. Every allocation in the library goes through these: on
 * failure (or size overflow) they set DL_ENOMEM and return NULL. */
#ifndef DL_UTIL_MEM_H
#define DL_UTIL_MEM_H
#include <stddef.h>
#include <stdint.h>
#include "deltalake/common.h" /* dl_free, public: memory handed to callers */

void *dl_malloc(size_t n);
void *dl_calloc(size_t count, size_t size);
void *dl_realloc(void *p, size_t n);
/* realloc of count*size with overflow check. */
void *dl_reallocarray(void *p, size_t count, size_t size);
char *dl_strdup(const char *s);
char *dl_strndup(const char *s, size_t n);

/* Overflow-checked size arithmetic: return 0 and set DL_ENOMEM on overflow. */
int dl_size_mul(size_t a, size_t b, size_t *out);
int dl_size_add(size_t a, size_t b, size_t *out);

#endif
