/* Bitmap helpers: whole bytes (or 64-bit words) in the middle, single bits
 * only at the unaligned ends. */
#include "columnar/bits.h"
#include <string.h>

static inline void put_bit(uint8_t *bits, int64_t i, int v)
{
	if (v) bits[i >> 3] |= (uint8_t)(1u << (i & 7));
	else bits[i >> 3] &= (uint8_t)~(1u << (i & 7));
}

void dl_bits_set_range(uint8_t *bits, int64_t off, int64_t n)
{
	int64_t i = off, end = off + n;
	for (; i < end && (i & 7); i++) put_bit(bits, i, 1);
	if (end - i >= 8) {
		memset(bits + (i >> 3), 0xff, (size_t)((end - i) >> 3));
		i += (end - i) & ~(int64_t)7;
	}
	for (; i < end; i++) put_bit(bits, i, 1);
}

int64_t dl_bits_count(const uint8_t *bits, int64_t off, int64_t n)
{
	int64_t i = off, end = off + n, c = 0;
	for (; i < end && (i & 7); i++) c += (bits[i >> 3] >> (i & 7)) & 1;
	for (; end - i >= 64; i += 64) {
		uint64_t w;
		memcpy(&w, bits + (i >> 3), 8);
		c += __builtin_popcountll(w);
	}
	for (; end - i >= 8; i += 8) c += __builtin_popcount(bits[i >> 3]);
	for (; i < end; i++) c += (bits[i >> 3] >> (i & 7)) & 1;
	return c;
}

void dl_bits_copy(uint8_t *dst, int64_t doff, const uint8_t *src, int64_t soff, int64_t n)
{
	if (!src) {
		dl_bits_set_range(dst, doff, n);
		return;
	}
	int64_t i = 0;
	/* Bit by bit up to a destination byte boundary, then whole bytes. */
	for (; i < n && ((doff + i) & 7); i++) put_bit(dst, doff + i, (src[(soff + i) >> 3] >> ((soff + i) & 7)) & 1);
	int64_t bytes = (n - i) >> 3;
	uint8_t *d = dst + ((doff + i) >> 3);
	const uint8_t *s = src + ((soff + i) >> 3);
	int shift = (int)((soff + i) & 7);
	if (shift == 0) {
		if (bytes) memcpy(d, s, (size_t)bytes);
	} else {
		/* Each output byte spans two source bytes, both inside the range. */
		for (int64_t k = 0; k < bytes; k++) d[k] = (uint8_t)((s[k] >> shift) | (s[k + 1] << (8 - shift)));
	}
	i += bytes << 3;
	for (; i < n; i++) put_bit(dst, doff + i, (src[(soff + i) >> 3] >> ((soff + i) & 7)) & 1);
}
