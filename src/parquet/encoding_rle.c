/* The RLE/bit-packed hybrid encoding (Encodings.md "Run Length Encoding /
 * Bit-Packing Hybrid"): runs of `varint header`; header&1 = bit-packed
 * groups of 8 values (LSB first), else an RLE run of header>>1 copies of a
 * value stored in ceil(width/8) bytes. Also the deprecated BIT_PACKED. */
#include "parquet/encoding_read.h"
#include "util/error.h"

int pq_bit_width(uint32_t max)
{
	int w = 0;
	while (max) {
		w++;
		max >>= 1;
	}
	return w;
}

void pq_rle_init(pq_rle *d, const uint8_t *p, size_t len, int bit_width)
{
	memset(d, 0, sizeof *d);
	d->p = p;
	d->end = p + len;
	d->bit_width = bit_width;
}

static int next_run(pq_rle *d)
{
	uint64_t h = 0;
	for (int shift = 0;; shift += 7) {
		if (d->p >= d->end) return dl_error_set(DL_ECORRUPT, "RLE data ends before all values were read");
		if (shift > 28) return dl_error_set(DL_ECORRUPT, "RLE run header too long");
		uint8_t b = *d->p++;
		h |= (uint64_t)(b & 0x7f) << shift;
		if (!(b & 0x80)) break;
	}
	if (h & 1) {
		uint64_t groups = h >> 1;
		uint64_t bytes = groups * (uint64_t)d->bit_width;
		/* Writers may truncate the last run to the bytes that hold values. */
		if (bytes > (uint64_t)(d->end - d->p)) bytes = (uint64_t)(d->end - d->p);
		d->packed = true;
		d->bp = d->p;
		d->bp_end = d->p + bytes;
		d->bp_pos = 0;
		uint64_t avail = d->bit_width ? bytes * 8 / (uint64_t)d->bit_width : groups * 8;
		if (avail > groups * 8) avail = groups * 8;
		if (avail > UINT32_MAX) avail = UINT32_MAX;
		d->left = (uint32_t)avail;
		d->p += bytes;
	} else {
		int nb = (d->bit_width + 7) / 8;
		if (d->end - d->p < nb) return dl_error_set(DL_ECORRUPT, "RLE run value truncated");
		uint32_t v = 0;
		for (int i = 0; i < nb; i++) v |= (uint32_t)d->p[i] << (8 * i);
		if (d->bit_width < 32 && (v >> d->bit_width)) return dl_error_set(DL_ECORRUPT, "RLE run value wider than the bit width");
		d->p += nb;
		d->packed = false;
		d->value = v;
		h >>= 1;
		d->left = h > UINT32_MAX ? UINT32_MAX : (uint32_t)h;
	}
	return 0;
}

/* Unpacks n values starting at value index `pos` of a bit-packed run, one
 * value at a time. */
static void unpack_each(const uint8_t *bp, const uint8_t *bp_end, int w, uint32_t pos, uint32_t *out, size_t n)
{
	uint64_t mask = (w == 32) ? 0xffffffffu : ((1u << w) - 1);
	uint64_t bit = (uint64_t)pos * (uint64_t)w;
	size_t i = 0;
	/* Fast path: an unaligned 8-byte load holds any value of <= 32 bits
	 * whatever its bit offset (offset <= 7 + 32 bits < 64). */
	for (; i < n; i++, bit += (uint64_t)w) {
		const uint8_t *q = bp + (bit >> 3);
		if (bp_end - q < 8) break;
		uint64_t word;
		memcpy(&word, q, 8);
		out[i] = (uint32_t)((word >> (bit & 7)) & mask);
	}
	for (; i < n; i++, bit += (uint64_t)w) {
		uint64_t word = 0;
		const uint8_t *q = bp + (bit >> 3);
		for (int k = 0; k < 8 && q + k < bp_end; k++) word |= (uint64_t)q[k] << (8 * k);
		out[i] = (uint32_t)((word >> (bit & 7)) & mask);
	}
}

/* Whole groups of 8 values of w <= 24 bits starting at byte q: a group is
 * w bytes, so with w constant (the switch) every shift and offset in the
 * group is a constant. Returns the groups done (those whose 8-byte loads
 * stay before load_end). */
static size_t unpack_groups(const uint8_t *q, const uint8_t *load_end, int w, uint32_t *out, size_t groups)
{
	size_t avail = (size_t)(load_end - q);
	/* the last group's loads reach at most w + 8 bytes past its start */
	size_t safe = avail >= (size_t)w + 8 ? (avail - 8) / (size_t)w : 0;
	if (groups > safe) groups = safe;
	uint64_t mask = (1u << w) - 1;
	switch (w) {
#define PQ_UNPACK_W(W)                                                   \
	case W:                                                              \
		for (size_t g = 0; g < groups; g++, q += W, out += 8)              \
			_Pragma("GCC unroll 8") for (int k = 0; k < 8; k++) {        \
				uint64_t word;                                           \
				memcpy(&word, q + (k * W) / 8, 8);                       \
				out[k] = (uint32_t)((word >> ((k * W) % 8)) & mask);     \
			}                                                            \
		return groups;
		PQ_UNPACK_W(1) PQ_UNPACK_W(2) PQ_UNPACK_W(3) PQ_UNPACK_W(4) PQ_UNPACK_W(5) PQ_UNPACK_W(6)
		PQ_UNPACK_W(7) PQ_UNPACK_W(8) PQ_UNPACK_W(9) PQ_UNPACK_W(10) PQ_UNPACK_W(11) PQ_UNPACK_W(12)
		PQ_UNPACK_W(13) PQ_UNPACK_W(14) PQ_UNPACK_W(15) PQ_UNPACK_W(16) PQ_UNPACK_W(17) PQ_UNPACK_W(18)
		PQ_UNPACK_W(19) PQ_UNPACK_W(20) PQ_UNPACK_W(21) PQ_UNPACK_W(22) PQ_UNPACK_W(23) PQ_UNPACK_W(24)
#undef PQ_UNPACK_W
	default: return 0;
	}
}

/* Unpacks n values starting at value index `pos` of a bit-packed run:
 * up to the next group boundary one by one, then whole groups, then the
 * rest one by one. Loads may read past the run up to load_end (the end of
 * the encoded data, which later runs follow: writers cut runs short, often
 * to a group or a few) since values are masked to their bits. */
static void unpack32(const uint8_t *bp, const uint8_t *bp_end, const uint8_t *load_end, int w, uint32_t pos,
                     uint32_t *out, size_t n)
{
	if (w == 0) {
		memset(out, 0, n * sizeof *out);
		return;
	}
	if (w <= 24) {
		size_t head = (8 - (pos & 7)) & 7;
		if (head > n) head = n;
		unpack_each(bp, bp_end, w, pos, out, head);
		pos += (uint32_t)head;
		out += head;
		n -= head;
		size_t g = unpack_groups(bp + (size_t)pos / 8 * (size_t)w, load_end, w, out, n / 8);
		pos += (uint32_t)(g * 8);
		out += g * 8;
		n -= g * 8;
	}
	unpack_each(bp, bp_end, w, pos, out, n);
}

int pq_rle_get_u32(pq_rle *d, uint32_t *out, size_t n)
{
	while (n) {
		if (d->left == 0) DL_TRY(next_run(d));
		size_t k = d->left < n ? d->left : n;
		if (d->packed) {
			unpack32(d->bp, d->bp_end, d->end, d->bit_width, d->bp_pos, out, k);
			d->bp_pos += (uint32_t)k;
		} else {
			uint32_t v = d->value;
			for (size_t i = 0; i < k; i++) out[i] = v;
		}
		d->left -= (uint32_t)k;
		out += k;
		n -= k;
	}
	return 0;
}

int pq_rle_skip(pq_rle *d, size_t n)
{
	while (n) {
		if (d->left == 0) DL_TRY(next_run(d));
		size_t k = d->left < n ? d->left : n;
		if (d->packed) d->bp_pos += (uint32_t)k;
		d->left -= (uint32_t)k;
		n -= k;
	}
	return 0;
}

int pq_rle_get_u8(pq_rle *d, uint8_t *out, size_t n)
{
	uint32_t tmp[256];
	while (n) {
		if (d->left == 0) DL_TRY(next_run(d));
		size_t k = d->left < n ? d->left : n;
		if (d->packed) {
			if (k > 256) k = 256;
			unpack32(d->bp, d->bp_end, d->end, d->bit_width, d->bp_pos, tmp, k);
			for (size_t i = 0; i < k; i++) out[i] = (uint8_t)tmp[i];
			d->bp_pos += (uint32_t)k;
		} else {
			if (d->value > 255) return dl_error_set(DL_ECORRUPT, "level value %u out of range", d->value);
			memset(out, (int)d->value, k);
		}
		d->left -= (uint32_t)k;
		out += k;
		n -= k;
	}
	return 0;
}

int pq_bitpacked_legacy_u8(const uint8_t *p, size_t len, int bit_width, uint8_t *out, size_t n, size_t *used)
{
	uint64_t bits = (uint64_t)n * (uint64_t)bit_width;
	size_t bytes = (size_t)((bits + 7) / 8);
	if (bytes > len) return dl_error_set(DL_ECORRUPT, "BIT_PACKED levels truncated");
	uint64_t bit = 0;
	for (size_t i = 0; i < n; i++) {
		uint32_t v = 0;
		for (int k = 0; k < bit_width; k++, bit++) v = v << 1 | ((p[bit >> 3] >> (7 - (bit & 7))) & 1);
		out[i] = (uint8_t)v;
	}
	*used = bytes;
	return 0;
}
