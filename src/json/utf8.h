/* UTF-8 validation shared by the parser and the writers. */
#ifndef DL_JSON_UTF8_H
#define DL_JSON_UTF8_H
#include <stddef.h>

/* Length of the valid UTF-8 sequence at p (RFC 3629: no overlong forms, no
 * surrogates, nothing above U+10FFFF), or 0. */
static inline size_t dl_json_utf8_len(const unsigned char *p, const unsigned char *end)
{
	unsigned c = p[0];
	size_t left = (size_t)(end - p);
	if (c < 0xC2) return 0;
	if (c < 0xE0) return left >= 2 && (p[1] & 0xC0) == 0x80 ? 2 : 0;
	if (c < 0xF0) {
		if (left < 3 || (p[2] & 0xC0) != 0x80) return 0;
		unsigned lo = c == 0xE0 ? 0xA0 : 0x80, hi = c == 0xED ? 0x9F : 0xBF;
		return p[1] >= lo && p[1] <= hi ? 3 : 0;
	}
	if (c < 0xF5) {
		if (left < 4 || (p[2] & 0xC0) != 0x80 || (p[3] & 0xC0) != 0x80) return 0;
		unsigned lo = c == 0xF0 ? 0x90 : 0x80, hi = c == 0xF4 ? 0x8F : 0xBF;
		return p[1] >= lo && p[1] <= hi ? 4 : 0;
	}
	return 0;
}

#endif
