#include "json/escape.h"
#include "json/utf8.h"

/* Escape of a byte that cannot appear raw in a JSON string. */
static int put_escape(dl_buf *b, unsigned char c)
{
	static const char hex[] = "0123456789abcdef";
	char e[6] = {'\\', 0, 0, 0, 0, 0};
	switch (c) {
	case '"': e[1] = '"'; break;
	case '\\': e[1] = '\\'; break;
	case '\n': e[1] = 'n'; break;
	case '\r': e[1] = 'r'; break;
	case '\t': e[1] = 't'; break;
	case '\b': e[1] = 'b'; break;
	case '\f': e[1] = 'f'; break;
	default:
		e[1] = 'u';
		e[2] = '0';
		e[3] = '0';
		e[4] = hex[c >> 4];
		e[5] = hex[c & 15];
		return dl_buf_append(b, e, 6);
	}
	return dl_buf_append(b, e, 2);
}

int dl_json_put_string(dl_buf *b, const char *s, size_t n)
{
	DL_TRY(dl_buf_reserve(b, n + 2));
	DL_TRY(dl_buf_putc(b, '"'));
	const unsigned char *u = (const unsigned char *)s, *end = u + n;
	size_t run = 0, i = 0; /* bytes [run, i) are copied as they are */
	while (i < n) {
		unsigned char c = u[i];
		if (c >= 0x20 && c < 0x80 && c != '"' && c != '\\') {
			i++;
		} else if (c >= 0x80) {
			size_t k = dl_json_utf8_len(u + i, end);
			if (!k)
				return dl_error_set(DL_EINVALID, "string is not valid UTF-8 (byte 0x%02X at offset %zu): JSON text must be UTF-8",
				                    c, i);
			i += k;
		} else {
			DL_TRY(dl_buf_append(b, s + run, i - run));
			DL_TRY(put_escape(b, c));
			run = ++i;
		}
	}
	DL_TRY(dl_buf_append(b, s + run, n - run));
	return dl_buf_putc(b, '"');
}
