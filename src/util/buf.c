#include "util/buf.h"
#include "util/mem.h"
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

int dl_buf_reserve(dl_buf *b, size_t extra)
{
	size_t need;
	if (!dl_size_add(b->len, extra, &need) || !dl_size_add(need, 1, &need)) return DL_ENOMEM;
	if (need <= b->cap) return 0;
	size_t cap = b->cap ? b->cap : 64;
	while (cap < need) {
		if (cap > SIZE_MAX / 2) { cap = need; break; }
		cap *= 2;
	}
	char *p = dl_realloc(b->data, cap);
	if (!p) return DL_ENOMEM;
	b->data = p;
	b->cap = cap;
	return 0;
}

int dl_buf_reserve_upto(dl_buf *b, size_t extra, size_t limit)
{
	size_t need;
	if (!dl_size_add(b->len, extra, &need) || !dl_size_add(need, 1, &need)) return DL_ENOMEM;
	if (need <= b->cap) return 0;
	if (need > limit) return dl_buf_reserve(b, extra); /* past it: doubling as usual */
	size_t cap = b->cap ? b->cap : 64;
	while (cap < need && cap <= SIZE_MAX / 2) cap *= 2;
	if (cap > limit) cap = limit;
	char *p = dl_realloc(b->data, cap);
	if (!p) return DL_ENOMEM;
	b->data = p;
	b->cap = cap;
	return 0;
}

int dl_buf_append(dl_buf *b, const void *p, size_t n)
{
	DL_TRY(dl_buf_reserve(b, n));
	if (n) memcpy(b->data + b->len, p, n);
	b->len += n;
	b->data[b->len] = 0;
	return 0;
}

int dl_buf_puts(dl_buf *b, const char *s)
{
	return dl_buf_append(b, s, strlen(s));
}

int dl_buf_putc(dl_buf *b, char c)
{
	return dl_buf_append(b, &c, 1);
}

int dl_buf_printf(dl_buf *b, const char *fmt, ...)
{
	va_list ap, ap2;
	va_start(ap, fmt);
	va_copy(ap2, ap);
	int n = vsnprintf(NULL, 0, fmt, ap);
	va_end(ap);
	if (n < 0) {
		va_end(ap2);
		return dl_error_set(DL_EINVALID, "bad format string");
	}
	int rc = dl_buf_reserve(b, (size_t)n);
	if (rc == 0) {
		vsnprintf(b->data + b->len, (size_t)n + 1, fmt, ap2);
		b->len += (size_t)n;
	}
	va_end(ap2);
	return rc;
}

int dl_buf_put_json_string(dl_buf *b, const char *s, size_t n)
{
	static const char hex[] = "0123456789abcdef";
	DL_TRY(dl_buf_reserve(b, n + 2));
	DL_TRY(dl_buf_putc(b, '"'));
	size_t start = 0;
	for (size_t i = 0; i < n; i++) {
		unsigned char c = (unsigned char)s[i];
		if (c >= 0x20 && c != '"' && c != '\\') continue;
		DL_TRY(dl_buf_append(b, s + start, i - start));
		char esc[7] = {'\\', 0};
		size_t elen = 2;
		switch (c) {
		case '"': esc[1] = '"'; break;
		case '\\': esc[1] = '\\'; break;
		case '\n': esc[1] = 'n'; break;
		case '\r': esc[1] = 'r'; break;
		case '\t': esc[1] = 't'; break;
		case '\b': esc[1] = 'b'; break;
		case '\f': esc[1] = 'f'; break;
		default:
			esc[1] = 'u'; esc[2] = '0'; esc[3] = '0';
			esc[4] = hex[c >> 4]; esc[5] = hex[c & 15];
			elen = 6;
		}
		DL_TRY(dl_buf_append(b, esc, elen));
		start = i + 1;
	}
	DL_TRY(dl_buf_append(b, s + start, n - start));
	return dl_buf_putc(b, '"');
}

void dl_buf_clear(dl_buf *b)
{
	b->len = 0;
	if (b->data) b->data[0] = 0;
}

char *dl_buf_detach(dl_buf *b, size_t *len)
{
	if (!b->data && dl_buf_reserve(b, 0) < 0) return NULL;
	char *p = b->data;
	if (len) *len = b->len;
	b->data = NULL;
	b->len = b->cap = 0;
	return p;
}

void dl_buf_free(dl_buf *b)
{
	dl_free(b->data);
	b->data = NULL;
	b->len = b->cap = 0;
}
