/* UTF-8 encoding of one code point, shared by every layer that builds text
 * from code points (SQL string escapes, case mapping, chr()). */
#ifndef DL_UTIL_UTF8_H
#define DL_UTIL_UTF8_H
#include <stdint.h>
#include "util/buf.h"

/* Writes the UTF-8 form of `cp` (<= 0x10FFFF) into out and returns its
 * length, 1 to 4 bytes. */
static inline int dl_utf8_encode(uint32_t cp, char out[4])
{
	if (cp < 0x80) {
		out[0] = (char)cp;
		return 1;
	}
	if (cp < 0x800) {
		out[0] = (char)(0xC0 | cp >> 6);
		out[1] = (char)(0x80 | (cp & 0x3F));
		return 2;
	}
	if (cp < 0x10000) {
		out[0] = (char)(0xE0 | cp >> 12);
		out[1] = (char)(0x80 | ((cp >> 6) & 0x3F));
		out[2] = (char)(0x80 | (cp & 0x3F));
		return 3;
	}
	out[0] = (char)(0xF0 | cp >> 18);
	out[1] = (char)(0x80 | ((cp >> 12) & 0x3F));
	out[2] = (char)(0x80 | ((cp >> 6) & 0x3F));
	out[3] = (char)(0x80 | (cp & 0x3F));
	return 4;
}

/* Appends the UTF-8 form of `cp` to b. */
static inline int dl_utf8_append(dl_buf *b, uint32_t cp)
{
	char u[4];
	return dl_buf_append(b, u, (size_t)dl_utf8_encode(cp, u));
}

#endif
