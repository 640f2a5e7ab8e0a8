#include "util/url.h"
#include "util/mem.h"
#include <stdbool.h>
#include <string.h>

/* The characters java.net.URI leaves alone in a path (RFC 2396 pchar and
 * '/', plus non-ASCII "other" characters, which URI.toString keeps as
 * UTF-8), so our log entries match the ones Spark writes. */
static bool is_path_char(unsigned char c)
{
	if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9')) return true;
	if (c >= 0x80) return true;
	return c != 0 && strchr("-._~!$&'()*+,;=:@/", c) != NULL;
}

int dl_url_encode_path(dl_buf *out, const char *s, size_t n)
{
	static const char hex[] = "0123456789ABCDEF";
	size_t start = 0;
	for (size_t i = 0; i < n; i++) {
		unsigned char c = (unsigned char)s[i];
		if (is_path_char(c)) continue;
		DL_TRY(dl_buf_append(out, s + start, i - start));
		char esc[3] = {'%', hex[c >> 4], hex[c & 15]};
		DL_TRY(dl_buf_append(out, esc, 3));
		start = i + 1;
	}
	return dl_buf_append(out, s + start, n - start);
}

static int hex_value(char c)
{
	if (c >= '0' && c <= '9') return c - '0';
	if (c >= 'a' && c <= 'f') return c - 'a' + 10;
	if (c >= 'A' && c <= 'F') return c - 'A' + 10;
	return -1;
}

int dl_url_decode(dl_buf *out, const char *s, size_t n)
{
	/* Decoded paths become C strings: a NUL, raw or escaped, would cut them. */
	if (memchr(s, 0, n))
		return dl_error_set(DL_EINVALID, "NUL byte in URI path \"%.*s\"", (int)(n > 200 ? 200 : n), s);
	DL_TRY(dl_buf_reserve(out, n));
	size_t start = 0;
	for (size_t i = 0; i < n; i++) {
		if (s[i] != '%') continue;
		int hi = i + 2 < n ? hex_value(s[i + 1]) : -1;
		int lo = i + 2 < n ? hex_value(s[i + 2]) : -1;
		if (hi < 0 || lo < 0)
			return dl_error_set(DL_EINVALID,
			                    "bad percent escape at offset %zu in \"%.*s\": '%%' must be "
			                    "followed by two hex digits (write %%25 for a literal '%%')",
			                    i, (int)(n > 200 ? 200 : n), s);
		if (hi == 0 && lo == 0)
			return dl_error_set(DL_EINVALID, "percent escape %%00 (NUL) in \"%.*s\" is not allowed",
			                    (int)(n > 200 ? 200 : n), s);
		DL_TRY(dl_buf_append(out, s + start, i - start));
		DL_TRY(dl_buf_putc(out, (char)(hi * 16 + lo)));
		i += 2;
		start = i + 1;
	}
	return dl_buf_append(out, s + start, n - start);
}

int dl_url_decode_str(char **out, const char *s)
{
	dl_buf b = DL_BUF_INIT;
	int rc = dl_url_decode(&b, s, strlen(s));
	if (rc < 0) {
		dl_buf_free(&b);
		return rc;
	}
	*out = dl_buf_detach(&b, NULL);
	return *out ? 0 : DL_ENOMEM;
}
