/* The split-block Bloom filter: no false negatives, a false-positive rate
 * near the one it was sized for, the encoding round trip, and the layout
 * of parquet-format (a hand-computed bit pattern). */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>
#include "parquet/bloom_filter.h"
#include "util/error.h"

static uint64_t hash_i64(int64_t v)
{
	uint8_t le[8];
	for (int i = 0; i < 8; i++) le[i] = (uint8_t)((uint64_t)v >> (8 * i));
	return pq_bloom_hash(le, 8);
}

static void test_sizes(void **state)
{
	(void)state;
	/* parquet-format: ~1.2 MB hold a million values at 1%, 11.54 bits a value at 0.5% */
	assert_int_equal(pq_bloom_optimal_bytes(1000000, 0.01, PQ_BLOOM_MAX_BYTES), 1024 * 1024);
	assert_int_equal(pq_bloom_optimal_bytes(1, 0.01, PQ_BLOOM_MAX_BYTES), 32);
	/* 1000 values at 1%: 9585 bits -> 1199 bytes -> 2048 */
	assert_int_equal(pq_bloom_optimal_bytes(1000, 0.01, PQ_BLOOM_MAX_BYTES), 2048);
	assert_int_equal(pq_bloom_optimal_bytes(100000000, 0.01, 4096), 4096);
}

static void test_known_bits(void **state)
{
	(void)state;
	pq_bloom b;
	assert_int_equal(pq_bloom_init(&b, 64), 0);
	/* high 32 bits 0x80000000 pick block 1 of 2; key 1 sets bit salt[i] >> 27 of lane i */
	pq_bloom_insert(&b, UINT64_C(0x8000000000000001));
	static const uint32_t salt[8] = {0x47b6137bU, 0x44974d91U, 0x8824ad5bU, 0xa2b7289dU,
	                                 0x705495c7U, 0x2df1424bU, 0x9efc4947U, 0x5c6bfb31U};
	for (int i = 0; i < 8; i++) {
		assert_int_equal(b.words[i], 0);
		assert_int_equal(b.words[8 + i], UINT32_C(1) << (salt[i] >> 27));
	}
	assert_true(pq_bloom_check(&b, UINT64_C(0x8000000000000001)));
	assert_false(pq_bloom_check(&b, UINT64_C(0x0000000000000001)));
	pq_bloom_free(&b);
	/* XXH64 seed 0 of "" (the reference value) */
	assert_true(pq_bloom_hash("", 0) == UINT64_C(0xEF46DB3751D8E999));
}

static void test_no_false_negatives_and_fpp(void **state)
{
	(void)state;
	const int n = 20000;
	double fpps[2] = {0.01, 0.05};
	for (int k = 0; k < 2; k++) {
		pq_bloom b;
		assert_int_equal(pq_bloom_init(&b, pq_bloom_optimal_bytes(n, fpps[k], PQ_BLOOM_MAX_BYTES)), 0);
		for (int64_t i = 0; i < n; i++) pq_bloom_insert(&b, hash_i64(i * 7919));
		for (int64_t i = 0; i < n; i++) assert_true(pq_bloom_check(&b, hash_i64(i * 7919)));
		int fp = 0, probes = 200000;
		for (int64_t i = 0; i < probes; i++) fp += pq_bloom_check(&b, hash_i64(-1 - i));
		/* rounding the size up to a power of two only lowers the rate */
		double rate = (double)fp / probes;
		assert_true(rate <= fpps[k] * 1.5);
		assert_true(fp > 0 || fpps[k] < 0.001);
		pq_bloom_free(&b);
	}
}

static void test_encode_decode(void **state)
{
	(void)state;
	pq_bloom b, c;
	assert_int_equal(pq_bloom_init(&b, 256), 0);
	for (int i = 0; i < 30; i++) pq_bloom_insert(&b, hash_i64(i));
	dl_buf buf = DL_BUF_INIT;
	assert_int_equal(pq_bloom_encode(&b, &buf), 0);
	assert_true(buf.len > 256);
	assert_int_equal(pq_bloom_decode(&c, (const uint8_t *)buf.data, buf.len, "t"), 0);
	assert_int_equal(c.nbytes, 256);
	assert_memory_equal(c.words, b.words, 256);
	/* little-endian on disk */
	size_t hl = buf.len - 256;
	assert_int_equal((uint8_t)buf.data[hl], (uint8_t)b.words[0]);
	pq_bloom_free(&c);
	/* truncated bitset, unknown hash */
	assert_int_equal(pq_bloom_decode(&c, (const uint8_t *)buf.data, buf.len - 1, "t"), DL_ECORRUPT);
	dl_error_clear();
	pq_bloom_free(&b);
	dl_buf_free(&buf);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_sizes),
		cmocka_unit_test(test_known_bits),
		cmocka_unit_test(test_no_false_negatives_and_fpp),
		cmocka_unit_test(test_encode_decode),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
