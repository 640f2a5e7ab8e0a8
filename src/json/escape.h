/* Output helpers for the writers: JSON string literals, and inline byte
 * appends (the writers append many tiny pieces; a call into dl_buf with its
 * overflow-checked reserve per comma or colon was half of the write time). */
#ifndef DL_JSON_ESCAPE_H
#define DL_JSON_ESCAPE_H
#include <stddef.h>
#include <string.h>
#include "util/buf.h"

/* Appends s[0..n) as a JSON string literal: quotes, backslashes and control
 * bytes escaped, UTF-8 passed through. Bytes that are not valid UTF-8 are
 * refused with DL_EINVALID (JSON text must be UTF-8, and other Delta readers
 * reject it), leaving a partial literal in b. */
int dl_json_put_string(dl_buf *b, const char *s, size_t n);

/* dl_buf_putc / dl_buf_append with the no-growth case inlined. */
static inline int dl_json_putc(dl_buf *b, char c)
{
	if (b->cap - b->len >= 2) {
		b->data[b->len++] = c;
		b->data[b->len] = 0;
		return 0;
	}
	return dl_buf_putc(b, c);
}

static inline int dl_json_put(dl_buf *b, const char *p, size_t n)
{
	if (b->cap - b->len > n) {
		memcpy(b->data + b->len, p, n);
		b->len += n;
		b->data[b->len] = 0;
		return 0;
	}
	return dl_buf_append(b, p, n);
}

#endif
