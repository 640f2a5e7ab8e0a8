/* Parquet's split-block Bloom filter (parquet-format BloomFilter.md): a
 * bitset of 32-byte blocks, each eight 32-bit lanes; a value's 64-bit
 * xxHash (XXH64, seed 0, of its plain encoding) picks a block with its high
 * 32 bits and one bit in each lane with its low 32 bits times eight salts.
 * No false negatives; the false-positive rate follows from the bits per
 * distinct value. Stored as a Thrift BloomFilterHeader followed by the
 * bitset, located by ColumnMetaData.bloom_filter_offset/_length. */
#ifndef DL_PARQUET_BLOOM_FILTER_H
#define DL_PARQUET_BLOOM_FILTER_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "util/buf.h"

#define PQ_BLOOM_BLOCK_BYTES 32
#define PQ_BLOOM_MIN_BYTES 32
/* parquet-mr's default cap (parquet.bloom.filter.max.bytes). */
#define PQ_BLOOM_MAX_BYTES (1024 * 1024)

typedef struct pq_bloom {
	uint32_t *words; /* nbytes / 4 lanes, little-endian on disk */
	size_t nbytes;   /* a multiple of 32 */
} pq_bloom;

/* Bitset bytes for ndv distinct values at false-positive rate fpp:
 * parquet-mr's optimal bits (-8 ndv / ln(1 - fpp^(1/8))), rounded up to a
 * power of two within [PQ_BLOOM_MIN_BYTES, max_bytes]. */
size_t pq_bloom_optimal_bytes(int64_t ndv, double fpp, size_t max_bytes);

/* An empty filter of nbytes (a multiple of 32, > 0). */
int pq_bloom_init(pq_bloom *b, size_t nbytes);
void pq_bloom_free(pq_bloom *b);

/* XXH64 with seed 0 of a plain-encoded value (BYTE_ARRAY: without its
 * length prefix). */
uint64_t pq_bloom_hash(const void *p, size_t n);
void pq_bloom_insert(pq_bloom *b, uint64_t hash);
/* False: the value is certainly absent. */
bool pq_bloom_check(const pq_bloom *b, uint64_t hash);

/* Appends the BloomFilterHeader (SPLIT_BLOCK, XXHASH, UNCOMPRESSED) and
 * the bitset. */
int pq_bloom_encode(const pq_bloom *b, dl_buf *out);
/* Decodes a header and bitset from p[0..len) into a new filter. DL_ECORRUPT
 * naming `what` when malformed; DL_EUNSUPPORTED for another algorithm,
 * hash or compression (a reader then just does not use it). */
int pq_bloom_decode(pq_bloom *b, const uint8_t *p, size_t len, const char *what);

#endif
