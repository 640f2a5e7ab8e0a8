/* URI paths of the log: decoding with canonicalization, and encoding. */
#include "log/path.h"
#include <string.h>
#include "util/error.h"

static int hexval(char c)
{
	if (c >= '0' && c <= '9') return c - '0';
	if (c >= 'a' && c <= 'f') return c - 'a' + 10;
	if (c >= 'A' && c <= 'F') return c - 'A' + 10;
	return -1;
}

/* Length of the "file:" prefix to drop so that the local forms agree:
 * "file:///p" and "file:/p" both leave "/p". "file://host/p" is kept. */
static size_t local_scheme_prefix(const char *s, size_t n)
{
	if (n < 6 || strncmp(s, "file:", 5) != 0) return 0;
	if (n >= 8 && s[5] == '/' && s[6] == '/' && s[7] == '/') return 7;
	if (s[5] == '/' && (n == 6 || s[6] != '/')) return 5;
	return 0;
}

const char *dl_log_path_raw(dl_arena *arena, const char *uri, size_t n, const char *decoded)
{
	if (strlen(decoded) == n && memcmp(decoded, uri, n) == 0) return decoded;
	return dl_arena_strndup(arena, uri, n);
}

int dl_log_path_decode(dl_arena *arena, const char *uri, size_t n, const char *what,
                       const char **out)
{
	size_t skip = local_scheme_prefix(uri, n);
	uri += skip;
	n -= skip;
	const char *pct = memchr(uri, '%', n);
	if (!pct) {
		char *s = dl_arena_strndup(arena, uri, n);
		if (!s) return DL_ENOMEM;
		*out = s;
		return 0;
	}
	char *s = dl_arena_alloc(arena, n + 1);
	if (!s) return DL_ENOMEM;
	size_t j = 0;
	for (size_t i = 0; i < n; i++) {
		if (uri[i] != '%') {
			s[j++] = uri[i];
			continue;
		}
		int hi = i + 2 < n ? hexval(uri[i + 1]) : -1;
		int lo = i + 2 < n ? hexval(uri[i + 2]) : -1;
		if (hi < 0 || lo < 0)
			return dl_error_set(DL_ECORRUPT,
			                    "%s: malformed %%-escape at byte %zu of path \"%.*s\"; the log "
			                    "stores paths as URIs, so '%%' must be followed by two hex digits",
			                    what, i + skip, (int)(n > 200 ? 200 : n), uri);
		if (hi == 0 && lo == 0)
			return dl_error_set(DL_ECORRUPT,
			                    "%s: path \"%.*s\" holds %%00 at byte %zu: a NUL byte cannot be part of a "
			                    "file name",
			                    what, (int)(n > 200 ? 200 : n), uri, i + skip);
		s[j++] = (char)(hi << 4 | lo);
		i += 2;
	}
	s[j] = 0;
	*out = s;
	return 0;
}

/* RFC 2396 path characters that java.net.URI leaves as they are. */
static int path_char_ok(unsigned char c)
{
	if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9')) return 1;
	if (c >= 0x80) return 1; /* "other" characters stay as UTF-8 (URI.toString) */
	return strchr("-_.!~*'();:@&=+$,/", c) != NULL && c != 0;
}

int dl_log_path_encode(dl_buf *out, const char *path)
{
	static const char hex[] = "0123456789ABCDEF";
	for (const unsigned char *p = (const unsigned char *)path; *p; p++) {
		if (path_char_ok(*p)) {
			DL_TRY(dl_buf_putc(out, (char)*p));
		} else {
			char esc[3] = {'%', hex[*p >> 4], hex[*p & 15]};
			DL_TRY(dl_buf_append(out, esc, 3));
		}
	}
	if (!out->data) DL_TRY(dl_buf_reserve(out, 0));
	return 0;
}

bool dl_log_path_is_absolute(const char *path)
{
	if (path[0] == '/') return true;
	/* scheme ":" per RFC 3986: ALPHA *( ALPHA / DIGIT / "+" / "-" / "." ) */
	const char *p = path;
	if (!((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z'))) return false;
	while ((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') || (*p >= '0' && *p <= '9') ||
	       *p == '+' || *p == '-' || *p == '.')
		p++;
	return *p == ':';
}
