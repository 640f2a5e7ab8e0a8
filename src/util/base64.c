#include "util/base64.h"
#include "util/error.h"

static const char alphabet[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

int dl_base64_encode(dl_buf *out, const void *data, size_t n)
{
	const uint8_t *p = data;
	DL_TRY(dl_buf_reserve(out, (n + 2) / 3 * 4));
	char *o = out->data + out->len;
	size_t i = 0;
	for (; i + 3 <= n; i += 3) {
		uint32_t v = (uint32_t)p[i] << 16 | (uint32_t)p[i + 1] << 8 | p[i + 2];
		*o++ = alphabet[v >> 18];
		*o++ = alphabet[(v >> 12) & 63];
		*o++ = alphabet[(v >> 6) & 63];
		*o++ = alphabet[v & 63];
	}
	if (i < n) {
		uint32_t v = (uint32_t)p[i] << 16 | (i + 1 < n ? (uint32_t)p[i + 1] << 8 : 0);
		*o++ = alphabet[v >> 18];
		*o++ = alphabet[(v >> 12) & 63];
		*o++ = i + 1 < n ? alphabet[(v >> 6) & 63] : '=';
		*o++ = '=';
	}
	out->len = (size_t)(o - out->data);
	out->data[out->len] = 0;
	return 0;
}

static int value_of(char c)
{
	if (c >= 'A' && c <= 'Z') return c - 'A';
	if (c >= 'a' && c <= 'z') return c - 'a' + 26;
	if (c >= '0' && c <= '9') return c - '0' + 52;
	if (c == '+') return 62;
	if (c == '/') return 63;
	return -1;
}

static int bad(size_t at, const char *why)
{
	return dl_error_set(DL_ECORRUPT, "bad base64 at offset %zu: %s", at, why);
}

int dl_base64_decode(dl_buf *out, const char *s, size_t n)
{
	size_t pad = 0;
	if (n % 4 == 0 && n >= 1 && s[n - 1] == '=') pad = (n >= 2 && s[n - 2] == '=') ? 2 : 1;
	size_t len = n - pad;
	if (len % 4 == 1) return bad(n, "length is not possible");
	DL_TRY(dl_buf_reserve(out, len / 4 * 3 + 2));
	uint8_t *o = (uint8_t *)out->data + out->len;
	uint32_t acc = 0;
	int bits = 0;
	for (size_t i = 0; i < len; i++) {
		int v = value_of(s[i]);
		if (v < 0) return bad(i, "character outside the base64 alphabet");
		acc = acc << 6 | (uint32_t)v;
		bits += 6;
		if (bits >= 8) {
			bits -= 8;
			*o++ = (uint8_t)(acc >> bits);
			acc &= (1u << bits) - 1;
		}
	}
	if (acc != 0) return bad(n, "non-zero bits after the last byte");
	out->len = (size_t)((char *)o - out->data);
	out->data[out->len] = 0;
	return 0;
}
