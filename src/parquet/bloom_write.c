/* A chunk's Bloom filter from the hashes of its values (bloom_write.h):
 * distinct hashes are counted exactly (sorted), so a chunk of repeated
 * values gets a small filter and one of distinct values a filter sized
 * for all of them. */
#include "parquet/bloom_write.h"
#include <stdlib.h>
#include <string.h>
#include "util/error.h"

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
	return (x > y) - (x < y);
}

int pq_bloom_builder_flush(pq_bloom_builder *b, dl_buf *out, int32_t *len)
{
	*len = 0;
	if (!b->n) return 0;
	qsort(b->h, b->n, sizeof *b->h, cmp_u64);
	size_t ndv = 0;
	for (size_t i = 0; i < b->n; i++)
		if (!ndv || b->h[ndv - 1] != b->h[i]) b->h[ndv++] = b->h[i];
	b->n = 0;
	pq_bloom f;
	DL_TRY(pq_bloom_init(&f, pq_bloom_optimal_bytes((int64_t)ndv, b->fpp, PQ_BLOOM_MAX_BYTES)));
	for (size_t i = 0; i < ndv; i++) pq_bloom_insert(&f, b->h[i]);
	size_t before = out->len;
	int rc = pq_bloom_encode(&f, out);
	pq_bloom_free(&f);
	if (rc == 0) *len = (int32_t)(out->len - before);
	return rc;
}

void pq_bloom_builder_free(pq_bloom_builder *b)
{
	dl_free(b->h);
	memset(b, 0, sizeof *b);
}
