/* Page codecs: every writable codec round-trips, damaged data is
 * DL_ECORRUPT, and the per-thread zstd contexts give the same bytes as a
 * fresh context while many threads compress and decompress at once. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <zstd.h>
#include "parquet/codec.h"
#include "util/error.h"

/* Compressible but not trivial: runs of a small alphabet, with a random
 * byte every 64 so no two inputs are alike. */
static void fill(uint8_t *p, size_t n, unsigned seed)
{
	uint32_t x = seed * 2654435761u + 1;
	for (size_t i = 0; i < n; i++) {
		x = x * 1103515245u + 12345u;
		p[i] = (uint8_t)((i / 7) % 13 + (i % 64 ? 0 : x >> 24));
	}
}

static const pq_codec writable[] = {PQ_CODEC_UNCOMPRESSED, PQ_CODEC_SNAPPY, PQ_CODEC_GZIP,
                                    PQ_CODEC_ZSTD, PQ_CODEC_LZ4_RAW, PQ_CODEC_BROTLI};

static void round_trips(void **state)
{
	(void)state;
	size_t sizes[] = {0, 1, 100, 65536, 300001};
	for (size_t c = 0; c < sizeof writable / sizeof *writable; c++) {
		for (size_t s = 0; s < sizeof sizes / sizeof *sizes; s++) {
			size_t n = sizes[s];
			uint8_t *src = malloc(n + 1), *back = malloc(n + 1);
			assert_non_null(src);
			assert_non_null(back);
			fill(src, n, (unsigned)(c * 10 + s));
			dl_buf out = {0};
			assert_int_equal(pq_compress(writable[c], 0, src, n, &out), 0);
			assert_int_equal(pq_decompress(writable[c], (uint8_t *)out.data, out.len, back, n), 0);
			assert_memory_equal(src, back, n);
			if (n >= 65536 && writable[c] != PQ_CODEC_UNCOMPRESSED) assert_true(out.len < n / 2);
			dl_buf_free(&out);
			free(src);
			free(back);
		}
	}
}

static void damage_is_corrupt(void **state)
{
	(void)state;
	uint8_t src[4096], back[4096];
	fill(src, sizeof src, 3);
	for (size_t c = 1; c < sizeof writable / sizeof *writable; c++) {
		dl_buf out = {0};
		assert_int_equal(pq_compress(writable[c], 0, src, sizeof src, &out), 0);
		/* A wrong expected size is always caught. */
		assert_int_equal(pq_decompress(writable[c], (uint8_t *)out.data, out.len, back, sizeof src - 1), DL_ECORRUPT);
		/* Truncated input never reads past its end (ASan) and fails. */
		assert_int_equal(pq_decompress(writable[c], (uint8_t *)out.data, out.len / 2, back, sizeof src), DL_ECORRUPT);
		assert_non_null(strstr(dl_error_last()->message, "corrupt"));
		dl_buf_free(&out);
	}
}

/* The reused context must not carry anything from one page to the next:
 * same bytes as the one-shot API, also after a failed decompression. */
static void zstd_context_reuse_is_stateless(void **state)
{
	(void)state;
	static uint8_t src[200000], back[200000];
	for (int round = 0; round < 4; round++) {
		size_t n = (size_t)(round + 1) * 40000;
		fill(src, n, (unsigned)round);
		int level = round % 2 ? 9 : 0;
		dl_buf out = {0};
		assert_int_equal(pq_compress(PQ_CODEC_ZSTD, level, src, n, &out), 0);
		size_t cap = ZSTD_compressBound(n);
		uint8_t *ref = malloc(cap);
		assert_non_null(ref);
		size_t m = ZSTD_compress(ref, cap, src, n, level ? level : 3);
		assert_false(ZSTD_isError(m));
		assert_int_equal(out.len, m);
		assert_memory_equal(out.data, ref, m);
		assert_int_equal(pq_decompress(PQ_CODEC_ZSTD, (uint8_t *)out.data, out.len - 3, back, n), DL_ECORRUPT);
		assert_int_equal(pq_decompress(PQ_CODEC_ZSTD, (uint8_t *)out.data, out.len, back, n), 0);
		assert_memory_equal(src, back, n);
		free(ref);
		dl_buf_free(&out);
	}
}

static void *worker(void *arg)
{
	unsigned id = (unsigned)(uintptr_t)arg;
	uint8_t src[20000], back[20000];
	for (unsigned i = 0; i < 50; i++) {
		fill(src, sizeof src, id * 1000 + i);
		dl_buf out = {0};
		if (pq_compress(PQ_CODEC_ZSTD, 0, src, sizeof src, &out) < 0) return (void *)1;
		int rc = pq_decompress(PQ_CODEC_ZSTD, (uint8_t *)out.data, out.len, back, sizeof back);
		dl_buf_free(&out);
		if (rc < 0 || memcmp(src, back, sizeof src) != 0) return (void *)1;
	}
	return NULL;
}

/* Threads come and go: each has its own contexts, freed at its exit
 * (LeakSanitizer would report a context left behind). */
static void zstd_many_threads(void **state)
{
	(void)state;
	pthread_t t[6];
	for (uintptr_t i = 0; i < 6; i++) assert_int_equal(pthread_create(&t[i], NULL, worker, (void *)i), 0);
	for (int i = 0; i < 6; i++) {
		void *r;
		assert_int_equal(pthread_join(t[i], &r), 0);
		assert_null(r);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(round_trips),
		cmocka_unit_test(damage_is_corrupt),
		cmocka_unit_test(zstd_context_reuse_is_stateless),
		cmocka_unit_test(zstd_many_threads),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
