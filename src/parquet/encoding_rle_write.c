/* RLE / bit-packing hybrid encoder (Parquet Encodings.md, "Run Length
 * Encoding / Bit-Packing Hybrid"):
 *   rle-run        := varint(count << 1) value (ceil(width/8) bytes, LE)
 *   bit-packed-run := varint(groups << 1 | 1) groups*8 values, LSB first
 * The same template serves 16-bit levels and 32-bit dictionary indices. */
#include "parquet/encoding_write.h"
#include "parquet/thrift_write.h"
#include <string.h>

/* Appends values as bit-packed groups of 8 (count rounded up with zeros). */
#define DEFINE_PACK(NAME, T)                                                     \
	static int NAME(dl_buf *out, const T *v, size_t n, int w)                    \
	{                                                                            \
		size_t groups = (n + 7) / 8;                                             \
		DL_TRY(pq_put_uvarint(out, ((uint64_t)groups << 1) | 1));               \
		size_t bytes = groups * (size_t)w;                                       \
		DL_TRY(dl_buf_reserve(out, bytes));                                      \
		uint8_t *p = (uint8_t *)out->data + out->len;                            \
		uint64_t acc = 0;                                                        \
		int bits = 0;                                                            \
		for (size_t i = 0; i < groups * 8; i++) {                                \
			uint64_t x = i < n ? (uint64_t)v[i] : 0;                             \
			acc |= x << bits;                                                    \
			bits += w;                                                           \
			while (bits >= 8) {                                                  \
				*p++ = (uint8_t)acc;                                             \
				acc >>= 8;                                                       \
				bits -= 8;                                                       \
			}                                                                    \
		}                                                                        \
		out->len += bytes;                                                       \
		out->data[out->len] = 0;                                                 \
		return 0;                                                                \
	}

#define DEFINE_RUN(NAME, T)                                                      \
	static size_t NAME(const T *v, size_t i, size_t n)                           \
	{                                                                            \
		size_t j = i + 1;                                                        \
		while (j < n && v[j] == v[i]) j++;                                       \
		return j - i;                                                            \
	}

#define DEFINE_ENCODE(NAME, T, PACK, RUN)                                        \
	int NAME(dl_buf *out, const T *v, size_t n, int w)                           \
	{                                                                            \
		int vbytes = (w + 7) / 8;                                                \
		size_t i = 0;                                                            \
		while (i < n) {                                                          \
			size_t run = RUN(v, i, n);                                           \
			if (run >= 8 || w == 0) {                                            \
				DL_TRY(pq_put_uvarint(out, (uint64_t)run << 1));                 \
				uint8_t b[4];                                                    \
				for (int k = 0; k < vbytes; k++)                                 \
					b[k] = (uint8_t)((uint32_t)v[i] >> (8 * k));                 \
				DL_TRY(dl_buf_append(out, b, (size_t)vbytes));                   \
				i += run;                                                        \
				continue;                                                        \
			}                                                                    \
			/* Literal stretch: stop where a run of 8+ starts on a group        \
			 * boundary; a run that starts mid-group lends values to fill it. */ \
			size_t j = i;                                                        \
			while (j < n) {                                                      \
				size_t r = RUN(v, j, n);                                         \
				size_t mis = (j - i) % 8;                                        \
				if (r >= 8 && mis == 0) break;                                   \
				if (r >= 8) {                                                    \
					j += 8 - mis;                                                \
					continue;                                                    \
				}                                                                \
				j += r;                                                          \
			}                                                                    \
			if (j > n) j = n;                                                    \
			DL_TRY(PACK(out, v + i, j - i, w));                                  \
			i = j;                                                               \
		}                                                                        \
		return 0;                                                                \
	}

DEFINE_PACK(pack_u32, uint32_t)
DEFINE_PACK(pack_u16, uint16_t)
DEFINE_RUN(run_u32, uint32_t)
DEFINE_RUN(run_u16, uint16_t)
DEFINE_ENCODE(pq_rle_encode_u32, uint32_t, pack_u32, run_u32)
DEFINE_ENCODE(pq_rle_encode_u16, uint16_t, pack_u16, run_u16)

int pq_levels_encode(dl_buf *out, const uint16_t *levels, size_t n, int max_level)
{
	size_t at = out->len;
	uint8_t len4[4] = {0};
	DL_TRY(dl_buf_append(out, len4, 4));
	DL_TRY(pq_rle_encode_u16(out, levels, n, pq_bit_width((uint64_t)max_level)));
	size_t len = out->len - at - 4;
	if (len > UINT32_MAX) return dl_error_set(DL_ENOMEM, "levels of one page exceed 4 GiB; lower the page size");
	pq_store_le32((uint8_t *)out->data + at, (uint32_t)len);
	return 0;
}

int pq_plain_encode_bools(dl_buf *out, const uint8_t *vals, size_t n)
{
	size_t bytes = (n + 7) / 8;
	DL_TRY(dl_buf_reserve(out, bytes));
	uint8_t *p = (uint8_t *)out->data + out->len;
	memset(p, 0, bytes);
	for (size_t i = 0; i < n; i++)
		if (vals[i]) p[i >> 3] |= (uint8_t)(1u << (i & 7));
	out->len += bytes;
	out->data[out->len] = 0;
	return 0;
}
