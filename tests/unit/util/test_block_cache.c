/* The large-block cache behind dl_malloc/dl_calloc/dl_realloc/dl_free
 * (util/block_cache.h): a freed large block serves the next request of
 * about its size, zeroed for dl_calloc, its bytes kept across a growing
 * dl_realloc; blocks too large or too small are never kept; the cache
 * stays within its bound; failure injection still fails a request the
 * cache could serve. In sanitizer builds the cache is off and only the
 * allocation semantics are checked. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <pthread.h>
#include <string.h>
#include "util/block_cache.h"
#include "util/error.h"
#include "util/mem.h"
#include "util/mem_fault.h"

#define MIB ((size_t)1 << 20)

static void freed_block_serves_the_next_request(void **state)
{
	(void)state;
	uint8_t *p = dl_malloc(MIB);
	assert_non_null(p);
	size_t before = dl_block_cache_bytes();
	dl_free(p);
	if (!dl_block_cache_on()) return;
	assert_true(dl_block_cache_bytes() >= before + MIB);
	uint8_t *q = dl_malloc(MIB - 4096); /* within 1.25x */
	assert_ptr_equal(q, p);
	assert_int_equal(dl_block_cache_bytes(), before);
	dl_free(q);
}

static void a_much_smaller_request_does_not_take_a_big_block(void **state)
{
	(void)state;
	uint8_t *p = dl_malloc(4 * MIB);
	assert_non_null(p);
	dl_free(p);
	size_t kept = dl_block_cache_bytes();
	uint8_t *q = dl_malloc(DL_BLOCK_CACHE_MIN); /* 64 KiB: far below 4 MiB / 1.25 */
	assert_non_null(q);
	assert_int_equal(dl_block_cache_bytes(), kept);
	dl_free(q);
}

static void calloc_of_a_kept_block_is_zeroed(void **state)
{
	(void)state;
	uint8_t *p = dl_malloc(2 * MIB);
	assert_non_null(p);
	memset(p, 0xa5, 2 * MIB);
	dl_free(p);
	uint8_t *q = dl_calloc(2 * MIB / 8, 8);
	assert_non_null(q);
	for (size_t i = 0; i < 2 * MIB; i++)
		if (q[i]) fail_msg("byte %zu of a calloc'd block is %d", i, q[i]);
	dl_free(q);
}

static void realloc_keeps_the_bytes(void **state)
{
	(void)state;
	/* a kept block big enough for the growth */
	dl_free(dl_malloc(3 * MIB));
	uint8_t *p = dl_malloc(200 << 10);
	assert_non_null(p);
	for (size_t i = 0; i < (200 << 10); i++) p[i] = (uint8_t)(i * 7);
	p = dl_realloc(p, 2 * MIB);
	assert_non_null(p);
	for (size_t i = 0; i < (200 << 10); i++)
		if (p[i] != (uint8_t)(i * 7)) fail_msg("byte %zu changed by a growing realloc", i);
	memset(p + (200 << 10), 1, 2 * MIB - (200 << 10));
	/* shrinking far below the block's size */
	p = dl_realloc(p, 100 << 10);
	assert_non_null(p);
	for (size_t i = 0; i < (100 << 10); i++)
		if (p[i] != (uint8_t)(i * 7)) fail_msg("byte %zu changed by a shrinking realloc", i);
	dl_free(p);
}

static void sizes_outside_the_range_are_not_kept(void **state)
{
	(void)state;
	size_t kept = dl_block_cache_bytes();
	dl_free(dl_malloc(DL_BLOCK_CACHE_MAX + MIB));
	dl_free(dl_malloc(DL_BLOCK_CACHE_MIN / 2));
	assert_int_equal(dl_block_cache_bytes(), kept);
}

static void the_cache_stays_bounded(void **state)
{
	(void)state;
	void *p[200];
	for (int i = 0; i < 200; i++) assert_non_null(p[i] = dl_malloc(3 * MIB + (size_t)i * 4096));
	for (int i = 0; i < 200; i++) dl_free(p[i]);
	/* 600 MB freed; the cache keeps at most its default 32 MiB */
	assert_true(dl_block_cache_bytes() <= 32 * MIB);
}

static void an_injected_failure_is_not_served_from_the_cache(void **state)
{
	(void)state;
	dl_free(dl_malloc(MIB));
	dl_mem_fault_arm(1, 1);
	void *p = dl_malloc(MIB);
	int64_t calls, injected;
	dl_mem_fault_disarm(&calls, &injected);
	assert_null(p);
	assert_int_equal(dl_error_last()->code, DL_ENOMEM);
	assert_int_equal(injected, 1);
}

static void *churn(void *arg)
{
	uintptr_t seed = (uintptr_t)arg;
	for (int i = 0; i < 2000; i++) {
		size_t n = DL_BLOCK_CACHE_MIN + ((seed * 2654435761u + (size_t)i * 40503u) % (2 * MIB));
		uint8_t *p = dl_malloc(n);
		if (!p) return (void *)1;
		p[0] = p[n - 1] = (uint8_t)i;
		if (i % 3 == 0) {
			p = dl_realloc(p, n * 2);
			if (!p || p[0] != (uint8_t)i) return (void *)1;
		}
		dl_free(p);
	}
	return NULL;
}

static void threads_share_it(void **state)
{
	(void)state;
	pthread_t t[4];
	for (uintptr_t i = 0; i < 4; i++) assert_int_equal(pthread_create(&t[i], NULL, churn, (void *)(i + 1)), 0);
	for (int i = 0; i < 4; i++) {
		void *r;
		assert_int_equal(pthread_join(t[i], &r), 0);
		assert_null(r);
	}
	assert_true(dl_block_cache_bytes() <= 32 * MIB);
}

static void a_memory_limit_lowers_the_bound(void **state)
{
	(void)state;
	void *p[8];
	for (int i = 0; i < 8; i++) assert_non_null(p[i] = dl_malloc(2 * MIB));
	for (int i = 0; i < 8; i++) dl_free(p[i]);
	if (dl_block_cache_on()) assert_true(dl_block_cache_bytes() >= 8 * MIB);
	dl_block_cache_bound(3 * MIB);
	assert_true(dl_block_cache_bytes() <= 3 * MIB);
	/* never raised again */
	dl_block_cache_bound(64 * MIB);
	for (int i = 0; i < 8; i++) assert_non_null(p[i] = dl_malloc(2 * MIB));
	for (int i = 0; i < 8; i++) dl_free(p[i]);
	assert_true(dl_block_cache_bytes() <= 3 * MIB);
	/* an operation's memory limit: no limit changes nothing, a limit
	 * bounds the cache to an eighth of it */
	dl_block_cache_under_limit(0);
	dl_block_cache_under_limit(-1);
	assert_true(dl_block_cache_bytes() <= 3 * MIB);
	if (dl_block_cache_on()) assert_true(dl_block_cache_bytes() >= 2 * MIB);
	dl_block_cache_under_limit(8 * MIB);
	assert_true(dl_block_cache_bytes() <= MIB);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(freed_block_serves_the_next_request),
		cmocka_unit_test(a_much_smaller_request_does_not_take_a_big_block),
		cmocka_unit_test(calloc_of_a_kept_block_is_zeroed),
		cmocka_unit_test(realloc_keeps_the_bytes),
		cmocka_unit_test(sizes_outside_the_range_are_not_kept),
		cmocka_unit_test(the_cache_stays_bounded),
		cmocka_unit_test(an_injected_failure_is_not_served_from_the_cache),
		cmocka_unit_test(threads_share_it),
		cmocka_unit_test(a_memory_limit_lowers_the_bound), /* last: it lowers the bound for good */
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
