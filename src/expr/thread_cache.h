/* Per-thread caches of the evaluator (recycled arrays, the last compiled
 * regular expression), released when the thread exits so worker threads of
 * a pool do not leak them. */
#ifndef DL_EXPR_THREAD_CACHE_H
#define DL_EXPR_THREAD_CACHE_H
#include "columnar/array.h"

#define EX_POOL_SIZE 8

typedef struct ex_thread_cache {
	dl_array *pool[EX_POOL_SIZE];
	void *regex;                 /* fn_string.c's re_cache */
	void (*regex_free)(void *);
} ex_thread_cache;

/* This thread's cache, created on first use; NULL if out of memory (the
 * caches are an optimization: callers work without them). */
ex_thread_cache *ex_thread_cache_get(void);

#endif
