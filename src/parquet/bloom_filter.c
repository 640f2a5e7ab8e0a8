/* The split-block Bloom filter of parquet-format BloomFilter.md; the
 * block index is ((hash >> 32) * nblocks) >> 32, as parquet-mr and Arrow
 * compute it, so any block count works (ours are powers of two). */
#include "parquet/bloom_filter.h"
#include <math.h>
#include <string.h>
#include <xxhash.h>
#include "parquet/metadata.h"
#include "parquet/thrift_write.h"
#include "util/error.h"
#include "util/mem.h"

static const uint32_t SALT[8] = {0x47b6137bU, 0x44974d91U, 0x8824ad5bU, 0xa2b7289dU,
                                 0x705495c7U, 0x2df1424bU, 0x9efc4947U, 0x5c6bfb31U};

size_t pq_bloom_optimal_bytes(int64_t ndv, double fpp, size_t max_bytes)
{
	if (max_bytes < PQ_BLOOM_MIN_BYTES) max_bytes = PQ_BLOOM_MIN_BYTES;
	if (ndv < 1) ndv = 1;
	if (!(fpp > 0 && fpp < 1)) fpp = 0.01;
	double bits = -8.0 * (double)ndv / log(1.0 - pow(fpp, 1.0 / 8));
	double bytes = ceil(bits / 8);
	size_t n = PQ_BLOOM_MIN_BYTES;
	while (n < max_bytes && (double)n < bytes) n *= 2;
	return n > max_bytes ? max_bytes / PQ_BLOOM_BLOCK_BYTES * PQ_BLOOM_BLOCK_BYTES : n;
}

int pq_bloom_init(pq_bloom *b, size_t nbytes)
{
	memset(b, 0, sizeof *b);
	if (nbytes == 0 || nbytes % PQ_BLOOM_BLOCK_BYTES)
		return dl_error_set(DL_EINVALID, "Bloom filter size %zu is not a positive multiple of 32", nbytes);
	b->words = dl_calloc(nbytes / 4, sizeof *b->words);
	if (!b->words) return DL_ENOMEM;
	b->nbytes = nbytes;
	return 0;
}

void pq_bloom_free(pq_bloom *b)
{
	dl_free(b->words);
	memset(b, 0, sizeof *b);
}

uint64_t pq_bloom_hash(const void *p, size_t n)
{
	return XXH64(p, n, 0);
}

static uint32_t *block_of(const pq_bloom *b, uint64_t hash)
{
	uint64_t nblocks = b->nbytes / PQ_BLOOM_BLOCK_BYTES;
	return b->words + (size_t)(((hash >> 32) * nblocks) >> 32) * 8;
}

void pq_bloom_insert(pq_bloom *b, uint64_t hash)
{
	uint32_t *blk = block_of(b, hash), key = (uint32_t)hash;
	for (int i = 0; i < 8; i++) blk[i] |= UINT32_C(1) << ((key * SALT[i]) >> 27);
}

bool pq_bloom_check(const pq_bloom *b, uint64_t hash)
{
	const uint32_t *blk = block_of(b, hash);
	uint32_t key = (uint32_t)hash;
	for (int i = 0; i < 8; i++)
		if (!(blk[i] & (UINT32_C(1) << ((key * SALT[i]) >> 27)))) return false;
	return true;
}

int pq_bloom_encode(const pq_bloom *b, dl_buf *out)
{
	pq_tw w;
	pq_tw_init(&w, out);
	pq_tw_i32(&w, 1, (int32_t)b->nbytes);
	/* each union holds its one member, an empty struct, as field 1 */
	for (int16_t f = 2; f <= 4; f++) {
		pq_tw_struct_begin(&w, f);
		pq_tw_struct_begin(&w, 1);
		pq_tw_end(&w);
		pq_tw_end(&w);
	}
	DL_TRY(pq_tw_finish(&w));
	DL_TRY(dl_buf_reserve(out, b->nbytes));
	for (size_t i = 0; i < b->nbytes / 4; i++) {
		uint32_t v = b->words[i];
		uint8_t le[4] = {(uint8_t)v, (uint8_t)(v >> 8), (uint8_t)(v >> 16), (uint8_t)(v >> 24)};
		DL_TRY(dl_buf_append(out, le, 4));
	}
	return 0;
}

int pq_bloom_decode(pq_bloom *b, const uint8_t *p, size_t len, const char *what)
{
	memset(b, 0, sizeof *b);
	pq_bloom_header h;
	size_t hl;
	DL_TRY(pq_bloom_header_decode(&h, p, len, &hl, what));
	if (h.algorithm != 1 || h.hash != 1 || h.compression != 1)
		return dl_error_set(DL_EUNSUPPORTED, "%s: Bloom filter algorithm, hash or compression not supported", what);
	if (h.num_bytes <= 0 || h.num_bytes % PQ_BLOOM_BLOCK_BYTES || (size_t)h.num_bytes > len - hl)
		return dl_error_set(DL_ECORRUPT, "%s: Bloom filter of %d bytes does not fit in %zu", what, h.num_bytes,
		                    len - hl);
	DL_TRY(pq_bloom_init(b, (size_t)h.num_bytes));
	const uint8_t *q = p + hl;
	for (size_t i = 0; i < b->nbytes / 4; i++)
		b->words[i] = (uint32_t)q[4 * i] | (uint32_t)q[4 * i + 1] << 8 | (uint32_t)q[4 * i + 2] << 16 |
		              (uint32_t)q[4 * i + 3] << 24;
	return 0;
}
