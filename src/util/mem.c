#include "util/mem.h"
#include "util/error.h"
#include <stdlib.h>
#include <string.h>

static void *oom(size_t n)
{
	dl_error_set(DL_ENOMEM, "out of memory allocating %zu bytes", n);
	return NULL;
}

void *dl_malloc(size_t n)
{
	void *p = malloc(n ? n : 1);
	return p ? p : oom(n);
}

void *dl_calloc(size_t count, size_t size)
{
	void *p = calloc(count ? count : 1, size ? size : 1);
	return p ? p : oom(count * size);
}

void *dl_realloc(void *p, size_t n)
{
	void *q = realloc(p, n ? n : 1);
	return q ? q : oom(n);
}

void *dl_reallocarray(void *p, size_t count, size_t size)
{
	size_t n;
	if (!dl_size_mul(count, size, &n)) return NULL;
	return dl_realloc(p, n);
}

char *dl_strndup(const char *s, size_t n)
{
	char *d = dl_malloc(n + 1);
	if (!d) return NULL;
	memcpy(d, s, n);
	d[n] = 0;
	return d;
}

char *dl_strdup(const char *s)
{
	return dl_strndup(s, strlen(s));
}

void dl_free(void *p)
{
	free(p);
}

int dl_size_mul(size_t a, size_t b, size_t *out)
{
	if (__builtin_mul_overflow(a, b, out)) {
		dl_error_set(DL_ENOMEM, "size overflow (%zu * %zu)", a, b);
		return 0;
	}
	return 1;
}

int dl_size_add(size_t a, size_t b, size_t *out)
{
	if (__builtin_add_overflow(a, b, out)) {
		dl_error_set(DL_ENOMEM, "size overflow (%zu + %zu)", a, b);
		return 0;
	}
	return 1;
}
