/* Thread pool: one mutex-protected FIFO of tasks, workers blocking on a
 * condition variable. Waiting threads help by running queued tasks. */
#include "util/pool.h"
#include "util/error.h"
#include "util/mem.h"
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

typedef struct task {
	struct task *next;
	dl_task_fn fn;
	void *arg;
	dl_waitgroup *wg;
} task;

struct dl_pool {
	pthread_mutex_t mu;
	pthread_cond_t cv;
	task *head, *tail;
	bool stop;
	int nthreads;
	pthread_t *threads;
};

int dl_default_threads(void)
{
	const char *env = getenv("DL_THREADS");
	if (env && *env) {
		char *end;
		long v = strtol(env, &end, 10);
		if (*end == 0 && v >= 1 && v <= 1024) return (int)v;
	}
	long n = sysconf(_SC_NPROCESSORS_ONLN);
	return n >= 1 ? (int)(n > 1024 ? 1024 : n) : 1;
}

/* Takes the next task; with `block`, waits for one unless stopping. */
static task *pop_task(dl_pool *p, bool block)
{
	pthread_mutex_lock(&p->mu);
	while (!p->head && block && !p->stop) pthread_cond_wait(&p->cv, &p->mu);
	task *t = p->head;
	if (t) {
		p->head = t->next;
		if (!p->head) p->tail = NULL;
	}
	pthread_mutex_unlock(&p->mu);
	return t;
}

static void task_done(dl_waitgroup *wg, int rc)
{
	pthread_mutex_lock(&wg->mu);
	if (rc < 0 && wg->error == 0) {
		wg->error = rc;
		snprintf(wg->message, sizeof wg->message, "%s", dl_error_last()->message);
	}
	/* Signal while holding the lock: the waiter may free wg right after. */
	if (--wg->pending == 0) pthread_cond_broadcast(&wg->cv);
	pthread_mutex_unlock(&wg->mu);
}

static void run_task(task *t)
{
	int rc = t->fn(t->arg);
	if (t->wg) task_done(t->wg, rc);
	dl_free(t);
}

static void *worker(void *arg)
{
	dl_pool *p = arg;
	task *t;
	while ((t = pop_task(p, true)) != NULL) run_task(t);
	return NULL;
}

static void stop_and_join(dl_pool *p, int started)
{
	pthread_mutex_lock(&p->mu);
	p->stop = true;
	pthread_cond_broadcast(&p->cv);
	pthread_mutex_unlock(&p->mu);
	for (int i = 0; i < started; i++) pthread_join(p->threads[i], NULL);
}

static void pool_release(dl_pool *p)
{
	pthread_mutex_destroy(&p->mu);
	pthread_cond_destroy(&p->cv);
	dl_free(p->threads);
	dl_free(p);
}

int dl_pool_create(dl_pool **out, int nthreads)
{
	*out = NULL;
	if (nthreads <= 0) nthreads = dl_default_threads();
	dl_pool *p = dl_calloc(1, sizeof *p);
	if (!p) return DL_ENOMEM;
	p->threads = dl_calloc((size_t)nthreads, sizeof *p->threads);
	if (!p->threads) {
		dl_free(p);
		return DL_ENOMEM;
	}
	pthread_mutex_init(&p->mu, NULL);
	pthread_cond_init(&p->cv, NULL);
	p->nthreads = nthreads;
	for (int i = 0; i < nthreads; i++) {
		int e = pthread_create(&p->threads[i], NULL, worker, p);
		if (e != 0) {
			stop_and_join(p, i);
			pool_release(p);
			return dl_error_set(DL_EIO, "cannot start worker thread %d of %d: %s; try fewer "
			                    "threads (DL_THREADS)", i + 1, nthreads, strerror(e));
		}
	}
	*out = p;
	return 0;
}

void dl_pool_free(dl_pool *p)
{
	if (!p) return;
	stop_and_join(p, p->nthreads);
	pool_release(p);
}

int dl_pool_size(const dl_pool *p)
{
	return p->nthreads;
}

static dl_pool *g_shared;
static int g_shared_rc;
static pthread_once_t g_shared_once = PTHREAD_ONCE_INIT;

static void create_shared(void)
{
	g_shared_rc = dl_pool_create(&g_shared, 0);
}

int dl_pool_shared(dl_pool **out)
{
	pthread_once(&g_shared_once, create_shared);
	*out = g_shared;
	if (g_shared_rc < 0) return dl_error_set(g_shared_rc, "the shared thread pool could not start");
	return 0;
}

void dl_waitgroup_init(dl_waitgroup *wg)
{
	pthread_mutex_init(&wg->mu, NULL);
	pthread_cond_init(&wg->cv, NULL);
	wg->pending = 0;
	wg->error = 0;
	wg->message[0] = 0;
	wg->pool = NULL;
}

void dl_waitgroup_destroy(dl_waitgroup *wg)
{
	pthread_mutex_destroy(&wg->mu);
	pthread_cond_destroy(&wg->cv);
}

int dl_pool_submit(dl_pool *p, dl_waitgroup *wg, dl_task_fn fn, void *arg)
{
	task *t = dl_malloc(sizeof *t);
	if (!t) return DL_ENOMEM;
	*t = (task){NULL, fn, arg, wg};
	if (wg) {
		pthread_mutex_lock(&wg->mu);
		wg->pending++;
		wg->pool = p;
		pthread_mutex_unlock(&wg->mu);
	}
	pthread_mutex_lock(&p->mu);
	if (p->tail) p->tail->next = t;
	else p->head = t;
	p->tail = t;
	pthread_cond_signal(&p->cv);
	pthread_mutex_unlock(&p->mu);
	return 0;
}

static bool wg_done(dl_waitgroup *wg, dl_pool **pool)
{
	pthread_mutex_lock(&wg->mu);
	bool done = wg->pending == 0;
	*pool = wg->pool;
	pthread_mutex_unlock(&wg->mu);
	return done;
}

int dl_waitgroup_wait(dl_waitgroup *wg)
{
	/* Help while there is queued work; sleep only when the queue is empty,
	 * i.e. every remaining task of ours is running on some thread. */
	dl_pool *pool;
	while (!wg_done(wg, &pool)) {
		task *t = pool ? pop_task(pool, false) : NULL;
		if (t) {
			run_task(t);
			continue;
		}
		pthread_mutex_lock(&wg->mu);
		while (wg->pending > 0) pthread_cond_wait(&wg->cv, &wg->mu);
		pthread_mutex_unlock(&wg->mu);
	}
	if (wg->error < 0) return dl_error_set(wg->error, "%s", wg->message);
	return 0;
}

/* ---- parallel for ---- */

typedef struct range_job {
	dl_range_fn fn;
	void *ctx;
	size_t n, grain;
	atomic_size_t next;
	atomic_bool failed;
} range_job;

static int range_worker(void *arg)
{
	range_job *j = arg;
	while (!atomic_load(&j->failed)) {
		size_t begin = atomic_fetch_add(&j->next, j->grain);
		if (begin >= j->n) break;
		size_t end = j->n - begin < j->grain ? j->n : begin + j->grain;
		int rc = j->fn(j->ctx, begin, end);
		if (rc < 0) {
			atomic_store(&j->failed, true);
			return rc;
		}
	}
	return 0;
}

int dl_parallel_for(dl_pool *p, size_t n, size_t grain, dl_range_fn fn, void *ctx)
{
	if (n == 0) return 0;
	if (!p) DL_TRY(dl_pool_shared(&p));
	size_t threads = (size_t)p->nthreads + 1; /* the caller works too */
	if (grain == 0) grain = n / (threads * 4) ? n / (threads * 4) : 1;
	size_t chunks = n / grain + (n % grain != 0);
	range_job job = {.fn = fn, .ctx = ctx, .n = n, .grain = grain};
	atomic_init(&job.next, 0);
	atomic_init(&job.failed, false);
	dl_waitgroup wg;
	dl_waitgroup_init(&wg);
	int rc = 0;
	size_t helpers = (chunks < threads ? chunks : threads) - 1;
	for (size_t i = 0; i < helpers && rc == 0; i++) rc = dl_pool_submit(p, &wg, range_worker, &job);
	if (rc < 0) atomic_store(&job.failed, true);
	int self = rc < 0 ? rc : range_worker(&job);
	int others = dl_waitgroup_wait(&wg);
	dl_waitgroup_destroy(&wg);
	return others < 0 ? others : self;
}
