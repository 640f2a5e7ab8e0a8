/* JSON string literals: one pass writing straight into the buffer. Plain
 * ASCII is copied eight bytes at a time; room is reserved up front for the
 * unescaped length and grown only when an escape makes the text longer. */
#include "json/escape.h"
#include "util/mem.h"
#include "json/swar.h"
#include "json/utf8.h"

/* Escape of a byte that cannot appear raw in a JSON string; returns its
 * length (2 or 6). */
static size_t escape_byte(char *d, unsigned char c)
{
	static const char hex[] = "0123456789abcdef";
	d[0] = '\\';
	switch (c) {
	case '"': d[1] = '"'; return 2;
	case '\\': d[1] = '\\'; return 2;
	case '\n': d[1] = 'n'; return 2;
	case '\r': d[1] = 'r'; return 2;
	case '\t': d[1] = 't'; return 2;
	case '\b': d[1] = 'b'; return 2;
	case '\f': d[1] = 'f'; return 2;
	default:
		d[1] = 'u';
		d[2] = '0';
		d[3] = '0';
		d[4] = hex[c >> 4];
		d[5] = hex[c & 15];
		return 6;
	}
}

int dl_json_put_string(dl_buf *b, const char *s, size_t n)
{
	/* Invariant: the room after d holds the rest of the input unescaped,
	 * the closing quote and the NUL. */
	size_t need;
	if (!dl_size_add(n, 2, &need)) return DL_ENOMEM;
	DL_TRY(dl_buf_reserve(b, need));
	char *d = b->data + b->len;
	*d++ = '"';
	const unsigned char *u = (const unsigned char *)s, *end = u + n;
	size_t i = 0;
	while (i < n) {
		while (n - i >= 8) {
			uint64_t v;
			memcpy(&v, u + i, 8);
			uint64_t mask = dl_json_special_bytes(v);
			memcpy(d, &v, 8); /* fits: at least 8 input bytes are left */
			if (mask) {
				size_t k = dl_json_first_special(mask, s + i);
				i += k;
				d += k;
				break;
			}
			i += 8;
			d += 8;
		}
		if (i == n) break;
		unsigned char c = u[i];
		if (c >= 0x20 && c < 0x80 && c != '"' && c != '\\') {
			*d++ = (char)c;
			i++;
		} else if (c >= 0x80) {
			size_t k = dl_json_utf8_len(u + i, end);
			if (!k)
				return dl_error_set(DL_EINVALID, "string is not valid UTF-8 (byte 0x%02X at offset %zu): JSON text must be UTF-8",
				                    c, i);
			memcpy(d, u + i, k);
			d += k;
			i += k;
		} else {
			/* An escape is up to 5 bytes longer than its input byte; when
			 * the spare room is gone, grow with slack for more escapes. */
			size_t room = b->cap - (size_t)(d - b->data), keep = n - i + 2;
			if (room < keep + 5) {
				b->len = (size_t)(d - b->data);
				DL_TRY(dl_buf_reserve(b, keep + 5 + (n - i) / 4 + 16));
				d = b->data + b->len;
			}
			d += escape_byte(d, c);
			i++;
		}
	}
	*d++ = '"';
	b->len = (size_t)(d - b->data);
	b->data[b->len] = 0;
	return 0;
}
