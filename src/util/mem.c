#include "util/mem.h"
#include "util/block_cache.h"
#include "util/error.h"
#include "util/mem_fault.h"
#include <stdatomic.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

/* ---- test-only failure injection (mem_fault.h) ---- */

static atomic_bool fault_armed;
static _Atomic int64_t fault_calls, fault_injected;
static int64_t fault_nth, fault_times; /* written only while disarmed */

void dl_mem_fault_arm(int64_t nth, int64_t times)
{
	atomic_store(&fault_armed, false);
	fault_nth = nth;
	fault_times = times;
	atomic_store(&fault_calls, 0);
	atomic_store(&fault_injected, 0);
	atomic_store(&fault_armed, true);
}

void dl_mem_fault_disarm(int64_t *calls, int64_t *injected)
{
	atomic_store(&fault_armed, false);
	if (calls) *calls = atomic_load(&fault_calls);
	if (injected) *injected = atomic_load(&fault_injected);
}

/* Whether this allocation is to fail. Kept out of line: the armed check
 * is all the allocators pay when no test armed it. */
static bool __attribute__((noinline)) fault_hit(void)
{
	int64_t i = atomic_fetch_add(&fault_calls, 1) + 1;
	bool fail = fault_nth > 0 && i >= fault_nth && (fault_times == 0 || i < fault_nth + fault_times);
	if (fail) atomic_fetch_add(&fault_injected, 1);
	return fail;
}

#define FAULT_INJECTED() \
	(__builtin_expect(atomic_load_explicit(&fault_armed, memory_order_relaxed), 0) && fault_hit())

static void *oom(size_t n)
{
	dl_error_set(DL_ENOMEM, "out of memory allocating %zu bytes", n);
	return NULL;
}

void *dl_malloc(size_t n)
{
	if (FAULT_INJECTED()) return oom(n);
	void *p = n >= DL_BLOCK_CACHE_MIN ? dl_block_cache_take(n, n + n / 4) : NULL;
	if (!p) p = malloc(n ? n : 1);
	return p ? p : oom(n);
}

void *dl_calloc(size_t count, size_t size)
{
	if (FAULT_INJECTED()) return oom(count * size);
	size_t n;
	if (!__builtin_mul_overflow(count, size, &n) && n >= DL_BLOCK_CACHE_MIN) {
		/* a kept block is zeroed here: cheaper than faulting in fresh
		 * zero pages, which is what calloc of a large block costs */
		void *p = dl_block_cache_take(n, n + n / 4);
		if (p) return memset(p, 0, n);
	}
	void *p = calloc(count ? count : 1, size ? size : 1);
	return p ? p : oom(count * size);
}

void *dl_realloc(void *p, size_t n)
{
	/* a failed realloc leaves p allocated, as realloc does */
	if (FAULT_INJECTED()) return oom(n);
	size_t have = n >= DL_BLOCK_CACHE_MIN ? dl_block_size(p) : 0;
	if (have >= n && have / 2 <= n) return p;
	/* growing a large block into a kept one: realloc would fault fresh
	 * pages in (mremap, or a new mapping) for the same copy */
	void *k = have && have < n ? dl_block_cache_take(n, 2 * n) : NULL;
	if (k) {
		memcpy(k, p, have);
		dl_free(p);
		return k;
	}
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
	if (p && !dl_block_cache_put(p)) free(p);
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
