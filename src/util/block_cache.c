/* The large-block cache (block_cache.h states the rule). One mutex: large
 * blocks are requested a few times per batch and column, so the lock is
 * taken thousands of times a second at most, never per row. */
#include "util/block_cache.h"
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#ifdef __GLIBC__
#include <malloc.h>
#endif

#if defined(__SANITIZE_ADDRESS__)
#define NO_CACHE 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(memory_sanitizer)
#define NO_CACHE 1
#endif
#endif
#if !defined(__GLIBC__)
#define NO_CACHE 1 /* the size of a block comes from malloc_usable_size */
#endif

#define SLOTS 128
#define DEFAULT_MIB 32

typedef struct slot {
	void *p;
	size_t size;
} slot;

static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static slot slots[SLOTS]; /* oldest first */
static int nslots;
static size_t total;
static pthread_once_t once = PTHREAD_ONCE_INIT;
static bool enabled;
static size_t cache_bytes;

static void init(void)
{
#ifndef NO_CACHE
	/* DL_BLOCK_CACHE=N: at most N MiB kept (0: off) */
	const char *e = getenv("DL_BLOCK_CACHE");
	char *end = NULL;
	long mib = e && *e ? strtol(e, &end, 10) : DEFAULT_MIB;
	if (e && *e && (*end || mib < 0)) mib = DEFAULT_MIB;
	if (mib > 4096) mib = 4096;
	cache_bytes = (size_t)mib << 20;
	enabled = mib > 0;
#endif
}

static bool on(void)
{
	pthread_once(&once, init);
	return enabled;
}

bool dl_block_cache_on(void)
{
	return on();
}

size_t dl_block_size(void *p)
{
#ifdef NO_CACHE
	(void)p;
	return 0;
#else
	return p && on() ? malloc_usable_size(p) : 0;
#endif
}

static void remove_at(int i)
{
	total -= slots[i].size;
	memmove(slots + i, slots + i + 1, (size_t)(nslots - i - 1) * sizeof *slots);
	nslots--;
}

void *dl_block_cache_take(size_t n, size_t max)
{
	if (n < DL_BLOCK_CACHE_MIN || n > DL_BLOCK_CACHE_MAX || !on()) return NULL;
	void *p = NULL;
	pthread_mutex_lock(&mu);
	/* the most recent fit: its pages are the likeliest to be in cache */
	for (int i = nslots - 1; i >= 0; i--)
		if (slots[i].size >= n && slots[i].size <= max) {
			p = slots[i].p;
			remove_at(i);
			break;
		}
	pthread_mutex_unlock(&mu);
	return p;
}

bool dl_block_cache_put(void *p)
{
#ifdef NO_CACHE
	(void)p;
	return false;
#else
	size_t size = malloc_usable_size(p);
	if (size < DL_BLOCK_CACHE_MIN || size > DL_BLOCK_CACHE_MAX || !on()) return false;
	void *evict[SLOTS];
	int ne = 0;
	pthread_mutex_lock(&mu);
	if (size > cache_bytes) {
		pthread_mutex_unlock(&mu);
		return false;
	}
	while (nslots && (nslots == SLOTS || total + size > cache_bytes)) {
		evict[ne++] = slots[0].p;
		remove_at(0);
	}
	slots[nslots++] = (slot){p, size};
	total += size;
	pthread_mutex_unlock(&mu);
	for (int i = 0; i < ne; i++) free(evict[i]);
	return true;
#endif
}

void dl_block_cache_bound(size_t bytes)
{
	if (!on()) return;
	void *evict[SLOTS];
	int ne = 0;
	pthread_mutex_lock(&mu);
	if (bytes < cache_bytes) cache_bytes = bytes;
	while (nslots && total > cache_bytes) {
		evict[ne++] = slots[0].p;
		remove_at(0);
	}
	pthread_mutex_unlock(&mu);
	for (int i = 0; i < ne; i++) free(evict[i]);
}

void dl_block_cache_under_limit(int64_t memory_limit)
{
	if (memory_limit > 0) dl_block_cache_bound((size_t)memory_limit / 8);
}

size_t dl_block_cache_bytes(void)
{
	pthread_mutex_lock(&mu);
	size_t n = total;
	pthread_mutex_unlock(&mu);
	return n;
}

/* Kept blocks are returned at exit, so leak checkers see none. */
__attribute__((destructor)) static void drain(void)
{
	pthread_mutex_lock(&mu);
	for (int i = 0; i < nslots; i++) free(slots[i].p);
	nslots = 0;
	total = 0;
	pthread_mutex_unlock(&mu);
}
