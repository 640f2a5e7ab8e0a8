/* Thread pool: sizing, many tasks, error propagation to the waiter, nested
 * waits on a tiny pool (no deadlock), parallel_for coverage and early stop. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "util/error.h"
#include "util/pool.h"

static atomic_long counter;

static int bump(void *arg)
{
	atomic_fetch_add(&counter, (long)(intptr_t)arg);
	return 0;
}

static void sizing(void **state)
{
	(void)state;
	setenv("DL_THREADS", "3", 1);
	assert_int_equal(dl_default_threads(), 3);
	setenv("DL_THREADS", "zero", 1);
	assert_int_equal(dl_default_threads(), (int)sysconf(_SC_NPROCESSORS_ONLN));
	unsetenv("DL_THREADS");
	assert_int_equal(dl_default_threads(), (int)sysconf(_SC_NPROCESSORS_ONLN));
	dl_pool *p;
	assert_int_equal(dl_pool_create(&p, 5), 0);
	assert_int_equal(dl_pool_size(p), 5);
	dl_pool_free(p);
	dl_pool *s1, *s2;
	assert_int_equal(dl_pool_shared(&s1), 0);
	assert_int_equal(dl_pool_shared(&s2), 0);
	assert_ptr_equal(s1, s2);
}

static void many_tasks(void **state)
{
	(void)state;
	dl_pool *p;
	assert_int_equal(dl_pool_create(&p, 4), 0);
	atomic_store(&counter, 0);
	dl_waitgroup wg;
	dl_waitgroup_init(&wg);
	for (int i = 1; i <= 20000; i++) assert_int_equal(dl_pool_submit(p, &wg, bump, (void *)(intptr_t)i), 0);
	assert_int_equal(dl_waitgroup_wait(&wg), 0);
	assert_int_equal(atomic_load(&counter), 20000L * 20001 / 2);
	dl_waitgroup_destroy(&wg);
	/* Fire-and-forget tasks still run before the pool is freed. */
	for (int i = 0; i < 1000; i++) assert_int_equal(dl_pool_submit(p, NULL, bump, (void *)1), 0);
	dl_pool_free(p);
	assert_int_equal(atomic_load(&counter), 20000L * 20001 / 2 + 1000);
}

static int fail_some(void *arg)
{
	intptr_t i = (intptr_t)arg;
	if (i == 17) return dl_error_set(DL_ECORRUPT, "task %d found a bad page", (int)i);
	return 0;
}

static void errors_reach_the_waiter(void **state)
{
	(void)state;
	dl_pool *p;
	assert_int_equal(dl_pool_create(&p, 3), 0);
	dl_waitgroup wg;
	dl_waitgroup_init(&wg);
	for (int i = 0; i < 100; i++) assert_int_equal(dl_pool_submit(p, &wg, fail_some, (void *)(intptr_t)i), 0);
	dl_error_clear();
	assert_int_equal(dl_waitgroup_wait(&wg), DL_ECORRUPT);
	assert_int_equal(dl_error_last()->code, DL_ECORRUPT);
	assert_string_equal(dl_error_last()->message, "task 17 found a bad page");
	dl_waitgroup_destroy(&wg);
	dl_pool_free(p);
}

typedef struct cover {
	atomic_int *hits;
	size_t fail_at; /* index whose chunk fails, or SIZE_MAX */
	atomic_long calls;
} cover;

static int mark(void *ctx, size_t begin, size_t end)
{
	cover *c = ctx;
	atomic_fetch_add(&c->calls, 1);
	for (size_t i = begin; i < end; i++) {
		if (i == c->fail_at) return dl_error_set(DL_EIO, "index %zu failed", i);
		atomic_fetch_add(&c->hits[i], 1);
	}
	return 0;
}

/* As mark, but every chunk without the failing index waits (5 s at most)
 * for the failure first: the chunks a worker claims afterwards are exactly
 * those that must not run, whatever the scheduler does. (Without the gate a
 * descheduled failing chunk let every other chunk run: a flaky bound.) */
static atomic_int failed_once;
static int mark_gated(void *ctx, size_t begin, size_t end)
{
	cover *c = ctx;
	if (begin <= c->fail_at && c->fail_at < end) {
		atomic_fetch_add(&c->calls, 1);
		atomic_store(&failed_once, 1);
		return dl_error_set(DL_EIO, "index %zu failed", c->fail_at);
	}
	for (int k = 0; k < 5000 && !atomic_load(&failed_once); k++) usleep(1000);
	return mark(ctx, begin, end);
}

static void parallel_for_covers_each_index_once(void **state)
{
	(void)state;
	dl_pool *p;
	assert_int_equal(dl_pool_create(&p, 3), 0);
	size_t n = 100003;
	cover c = {calloc(n, sizeof(atomic_int)), SIZE_MAX, 0};
	assert_int_equal(dl_parallel_for(p, n, 0, mark, &c), 0);
	for (size_t i = 0; i < n; i++) assert_int_equal(atomic_load(&c.hits[i]), 1);
	assert_int_equal(dl_parallel_for(p, 0, 0, mark, &c), 0);
	/* Explicit grain: 1001 chunks; a failure stops new chunks: once the
	 * first chunk (claimed first) fails, each of the 4 workers (3 threads
	 * and the caller) finishes at most the chunk it holds and one it
	 * claimed meanwhile. */
	memset(c.hits, 0, n * sizeof(atomic_int));
	c.fail_at = 0;
	atomic_store(&c.calls, 0);
	atomic_store(&failed_once, 0);
	assert_int_equal(dl_parallel_for(p, n, 100, mark_gated, &c), DL_EIO);
	assert_string_equal(dl_error_last()->message, "index 0 failed");
	assert_true(atomic_load(&c.calls) <= 8);
	free(c.hits);
	/* The shared pool when none is given. */
	c.hits = calloc(10, sizeof(atomic_int));
	c.fail_at = SIZE_MAX;
	assert_int_equal(dl_parallel_for(NULL, 10, 1, mark, &c), 0);
	for (size_t i = 0; i < 10; i++) assert_int_equal(atomic_load(&c.hits[i]), 1);
	free(c.hits);
	dl_pool_free(p);
}

static dl_pool *g_small;

static int add_range(void *ctx, size_t begin, size_t end)
{
	atomic_fetch_add((atomic_long *)ctx, (long)(end - begin));
	return 0;
}

/* Each outer task runs an inner parallel_for on the same 2-thread pool. */
static int outer(void *arg)
{
	(void)arg;
	atomic_long local;
	atomic_init(&local, 0);
	int rc = dl_parallel_for(g_small, 1000, 10, add_range, &local);
	atomic_fetch_add(&counter, atomic_load(&local));
	return rc;
}

static void nested_waits_do_not_deadlock(void **state)
{
	(void)state;
	assert_int_equal(dl_pool_create(&g_small, 2), 0);
	atomic_store(&counter, 0);
	dl_waitgroup wg;
	dl_waitgroup_init(&wg);
	for (int i = 0; i < 50; i++) assert_int_equal(dl_pool_submit(g_small, &wg, outer, NULL), 0);
	assert_int_equal(dl_waitgroup_wait(&wg), 0);
	assert_int_equal(atomic_load(&counter), 50 * 1000);
	dl_waitgroup_destroy(&wg);
	dl_pool_free(g_small);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(sizing),
		cmocka_unit_test(many_tasks),
		cmocka_unit_test(errors_reach_the_waiter),
		cmocka_unit_test(parallel_for_covers_each_index_once),
		cmocka_unit_test(nested_waits_do_not_deadlock),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
