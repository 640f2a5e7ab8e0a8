/* Word-at-a-time (SWAR) byte classification for string scanning. */
#ifndef DL_JSON_SWAR_H
#define DL_JSON_SWAR_H
#include <stddef.h>
#include <stdint.h>

#if defined(__GNUC__) && defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
#define DL_JSON_SWAR_LE 1
#else
#define DL_JSON_SWAR_LE 0
#endif

#define DL_JSON_ONES UINT64_C(0x0101010101010101)
#define DL_JSON_HIGHS UINT64_C(0x8080808080808080)

/* Marks (high bit of each byte) the bytes that are a quote, a backslash,
 * below 0x20 or >= 0x80. A marked byte may also mark the bytes above it
 * (borrows), but the lowest mark is always exact. */
static inline uint64_t dl_json_special_bytes(uint64_t v)
{
	uint64_t q = v ^ (DL_JSON_ONES * '"'), b = v ^ (DL_JSON_ONES * '\\');
	uint64_t quote = (q - DL_JSON_ONES) & ~q;
	uint64_t bslash = (b - DL_JSON_ONES) & ~b;
	uint64_t control = (v - DL_JSON_ONES * 0x20) & ~v;
	return (quote | bslash | control | v) & DL_JSON_HIGHS;
}

/* Index of the first special byte of a word that has one. */
static inline size_t dl_json_first_special(uint64_t mask, const char *p)
{
#if DL_JSON_SWAR_LE
	(void)p;
	return (size_t)__builtin_ctzll(mask) >> 3;
#else
	(void)mask;
	size_t i = 0;
	for (;; i++) {
		unsigned char c = (unsigned char)p[i];
		if (c == '"' || c == '\\' || c < 0x20 || c >= 0x80) return i;
	}
#endif
}

#endif
