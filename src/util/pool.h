/* A fixed pool of worker threads with wait groups, and a parallel-for on
 * top. Size: an explicit count, else env DL_THREADS, else the number of
 * online CPUs.
 *
 *   dl_waitgroup wg;
 *   dl_waitgroup_init(&wg);
 *   for (...) DL_TRY(dl_pool_submit(pool, &wg, task, arg));
 *   int rc = dl_waitgroup_wait(&wg);   // first failure of any task
 *   dl_waitgroup_destroy(&wg);
 *
 * Tasks return 0 or a negative dl_error_code; the first failure's code and
 * message reach the waiting thread's dl_error_last(). A waiting thread runs
 * queued tasks itself, so tasks may submit and wait on nested groups without
 * deadlocking the pool. */
#ifndef DL_UTIL_POOL_H
#define DL_UTIL_POOL_H
#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>

typedef struct dl_pool dl_pool;
typedef int (*dl_task_fn)(void *arg);

typedef struct dl_waitgroup {
	pthread_mutex_t mu;
	pthread_cond_t cv;
	size_t pending;
	int error;          /* first failure, 0 when none */
	char message[512];  /* its message */
	dl_pool *pool;      /* the pool tasks were submitted to (for helping) */
} dl_waitgroup;

/* Threads to use by default: DL_THREADS if set to 1..1024, else the online
 * CPU count (at least 1). */
int dl_default_threads(void);

/* nthreads <= 0 means dl_default_threads(). */
int dl_pool_create(dl_pool **out, int nthreads);
/* Runs every queued task, then stops and joins the workers. */
void dl_pool_free(dl_pool *p);
int dl_pool_size(const dl_pool *p);
/* A process-wide pool of dl_default_threads() workers, created on first
 * use and never freed. */
int dl_pool_shared(dl_pool **out);

void dl_waitgroup_init(dl_waitgroup *wg);
void dl_waitgroup_destroy(dl_waitgroup *wg);
/* Queues fn(arg) as part of wg (which may be NULL for fire-and-forget). */
int dl_pool_submit(dl_pool *p, dl_waitgroup *wg, dl_task_fn fn, void *arg);
/* Waits until every task of wg has finished; 0 or the first failure. */
int dl_waitgroup_wait(dl_waitgroup *wg);

/* Calls fn(ctx, begin, end) over [0, n) in chunks of about `grain` (0: an
 * automatic size), in parallel on p (NULL: the shared pool) and the calling
 * thread. After a failure no new chunks start; returns the first failure. */
typedef int (*dl_range_fn)(void *ctx, size_t begin, size_t end);
int dl_parallel_for(dl_pool *p, size_t n, size_t grain, dl_range_fn fn, void *ctx);

#endif
