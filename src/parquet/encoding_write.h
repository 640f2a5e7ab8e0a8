/* Writer-side encodings of Parquet (Encodings.md): the RLE / bit-packing
 * hybrid used for definition and repetition levels and for dictionary
 * indices, and bit-packed booleans of PLAIN. */
#ifndef DL_PARQUET_ENCODING_WRITE_H
#define DL_PARQUET_ENCODING_WRITE_H
#include <stddef.h>
#include <stdint.h>
#include "util/buf.h"

/* Number of bits needed to represent max (0 for 0). */
static inline int pq_bit_width(uint64_t max)
{
	int w = 0;
	while (max) {
		w++;
		max >>= 1;
	}
	return w;
}

/* Appends the RLE/bit-packed hybrid encoding of vals[0..n) with bit_width
 * (0..32) to out, without any length prefix. Runs of 8 or more equal values
 * become RLE runs; the rest is bit-packed in groups of 8 (the final group is
 * zero-padded, which readers ignore because they know the value count). */
int pq_rle_encode_u32(dl_buf *out, const uint32_t *vals, size_t n, int bit_width);
int pq_rle_encode_u16(dl_buf *out, const uint16_t *vals, size_t n, int bit_width);

/* Definition or repetition levels of a data page v1: a 4-byte little-endian
 * length, then the hybrid encoding. */
int pq_levels_encode(dl_buf *out, const uint16_t *levels, size_t n, int max_level);

/* PLAIN booleans: one bit per value, LSB first. vals are 0/1 bytes. */
int pq_plain_encode_bools(dl_buf *out, const uint8_t *vals, size_t n);

static inline void pq_store_le32(uint8_t *p, uint32_t v)
{
	p[0] = (uint8_t)v;
	p[1] = (uint8_t)(v >> 8);
	p[2] = (uint8_t)(v >> 16);
	p[3] = (uint8_t)(v >> 24);
}

#endif
