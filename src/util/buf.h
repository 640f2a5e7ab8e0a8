/* Growable byte buffer, also used to build strings (always NUL-terminated). */
#ifndef DL_UTIL_BUF_H
#define DL_UTIL_BUF_H
#include <stddef.h>
#include <stdint.h>
#include "util/error.h"

typedef struct dl_buf {
	char *data; /* NUL-terminated when not NULL */
	size_t len;
	size_t cap;
} dl_buf;

#define DL_BUF_INIT {NULL, 0, 0}

/* Makes room for `extra` more bytes (+ NUL). 0 or DL_ENOMEM. */
int dl_buf_reserve(dl_buf *b, size_t extra);
/* dl_buf_reserve for a buffer that is known to stop near `limit` bytes (a
 * page, a dictionary): doubling stops at the limit, so a 1 MiB page does
 * not hold 2 MiB (past the limit it doubles as usual). */
int dl_buf_reserve_upto(dl_buf *b, size_t extra, size_t limit);
int dl_buf_append(dl_buf *b, const void *p, size_t n);
int dl_buf_puts(dl_buf *b, const char *s);
int dl_buf_putc(dl_buf *b, char c);
int dl_buf_printf(dl_buf *b, const char *fmt, ...) DL_PRINTF(2, 3);
/* Appends s as a JSON string literal (quotes and escapes). */
int dl_buf_put_json_string(dl_buf *b, const char *s, size_t n);
void dl_buf_clear(dl_buf *b);
/* Hands the storage to the caller (who frees it with dl_free) and resets b. */
char *dl_buf_detach(dl_buf *b, size_t *len);
void dl_buf_free(dl_buf *b);

#endif
