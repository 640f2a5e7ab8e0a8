/* Building a column chunk's Bloom filter while it is written: the XXH64 of
 * each non-null value's plain encoding is kept, and at the end of the chunk
 * the filter is sized for the chunk's distinct hashes at the configured
 * false-positive rate (pq_bloom_optimal_bytes, capped at 1 MiB as
 * parquet-mr caps it), filled and encoded. */
#ifndef DL_PARQUET_BLOOM_WRITE_H
#define DL_PARQUET_BLOOM_WRITE_H
#include "deltalake/error.h"
#include "parquet/bloom_filter.h"
#include "util/mem.h"

typedef struct pq_bloom_builder {
	double fpp;      /* > 0: build one */
	uint64_t *h;
	size_t n, cap;
} pq_bloom_builder;

static inline int pq_bloom_builder_add(pq_bloom_builder *b, const void *p, size_t n)
{
	if (b->n == b->cap) {
		size_t cap = b->cap ? b->cap * 2 : 1024;
		uint64_t *g = dl_reallocarray(b->h, cap, sizeof *g);
		if (!g) return DL_ENOMEM;
		b->h = g;
		b->cap = cap;
	}
	b->h[b->n++] = pq_bloom_hash(p, n);
	return 0;
}

/* Appends the chunk's filter (header and bitset) to out and clears the
 * hashes; *len its size (0: the chunk had no values, nothing written). */
int pq_bloom_builder_flush(pq_bloom_builder *b, dl_buf *out, int32_t *len);
void pq_bloom_builder_free(pq_bloom_builder *b);

#endif
