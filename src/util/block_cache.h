/* A small process-wide cache of large freed blocks, behind dl_malloc,
 * dl_calloc and dl_free (mem.c).
 *
 * Why: a scan or a rewrite allocates and frees the same few sizes over and
 * over (a batch's column buffers, a page's decompressed bytes: 64 KiB to a
 * few MiB). glibc maps blocks that large, or trims them off the top of the
 * heap, so each reuse faults fresh zeroed pages in again: a third of the
 * CPU of a two-column scan went to the kernel. Keeping a few such blocks
 * for the next request of about their size removes those faults.
 *
 * The rule: a freed block whose usable size is between DL_BLOCK_CACHE_MIN
 * and DL_BLOCK_CACHE_MAX is kept while the cache holds fewer than its 128
 * slots and 32 MiB (it is a cache of recent frees, not an allocator); when
 * full, the oldest kept block is freed. A request of n >= DL_BLOCK_CACHE_MIN
 * bytes takes the most recently kept block of n to 1.25n bytes (the same
 * buffers come back at the same sizes; a looser fit pinned memory: a
 * copy-on-write MERGE peaked 60-80 MB higher with a 2n fit and 64 MiB); a
 * realloc growing a block past its usable size takes one of up to 2n (the
 * old block is copied, then kept). Blocks are plain malloc blocks
 * throughout, so free() or realloc() on one is still correct.
 *
 * Measured (bench_scan, 5M rows in 20 files, page faults per run): all
 * columns 172k -> 9k at 1 thread, 167k -> 13k at 2; 2 of 20 columns 5.4k
 * -> 1k and 7.4k -> 1.7k. bench_merge.sh's copy-on-write MERGE peaks at
 * 233 MB instead of 214 MB (docs/BENCHMARKS.md, MERGE).
 *
 * Off in sanitizer builds (it would hide a use after free from ASan);
 * DL_BLOCK_CACHE=N in the environment sets its bound to N MiB, 0 turns it
 * off (for valgrind runs). */
#ifndef DL_UTIL_BLOCK_CACHE_H
#define DL_UTIL_BLOCK_CACHE_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define DL_BLOCK_CACHE_MIN ((size_t)64 << 10)
#define DL_BLOCK_CACHE_MAX ((size_t)16 << 20)

/* A kept block of at least n bytes and at most max, or NULL. */
void *dl_block_cache_take(size_t n, size_t max);
/* Keeps p for reuse (true) or leaves it to the caller to free (false). */
bool dl_block_cache_put(void *p);
/* Whether the cache is on (see above). */
bool dl_block_cache_on(void);
/* The usable size of a malloc block p (0 when the cache is off). */
size_t dl_block_size(void *p);
/* Lowers the bound to `bytes` (never raises it), freeing kept blocks
 * beyond it. Process-wide: the smallest bound asked for holds from then
 * on. */
void dl_block_cache_bound(size_t bytes);
/* For an operation run under a memory limit (MERGE's memory_limit, the
 * SQL session's; 0 or less: none, nothing changes): bounds the cache to an
 * eighth of it, so that blocks kept for reuse do not push the process past
 * what the user allowed (a MERGE under a 4 MB limit peaked 33 MB higher
 * with the whole 32 MiB kept). */
void dl_block_cache_under_limit(int64_t memory_limit);
/* The bytes kept now (tests). */
size_t dl_block_cache_bytes(void);

#endif
