/* JSON strings (RFC 8259 section 7): finding the end, validating UTF-8 and
 * unescaping into the arena.
 *
 * Pass 1 scans for the closing quote eight bytes at a time (SWAR): a word
 * with no quote, backslash, control character or non-ASCII byte is skipped
 * whole. Only strings that contain a backslash need pass 2, which copies the
 * runs between escapes and decodes the escapes; the others are one memcpy. */
#include "json/parser.h"
#include <string.h>

#define ONES UINT64_C(0x0101010101010101)
#define HIGHS UINT64_C(0x8080808080808080)

/* Non-zero when some byte of v is zero (exact as a yes/no answer). */
static inline uint64_t has_zero(uint64_t v)
{
	return (v - ONES) & ~v & HIGHS;
}

/* Non-zero when some byte is a quote, a backslash, below 0x20 or >= 0x80. */
static inline uint64_t has_special(uint64_t v)
{
	uint64_t quote = has_zero(v ^ (ONES * '"'));
	uint64_t bslash = has_zero(v ^ (ONES * '\\'));
	uint64_t control = (v - ONES * 0x20) & ~v & HIGHS;
	return quote | bslash | control | (v & HIGHS);
}

/* Length of the valid UTF-8 sequence at p (RFC 3629: no overlong forms, no
 * surrogates, nothing above U+10FFFF), or 0. */
static size_t utf8_len(const unsigned char *p, const unsigned char *end)
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

/* Pass 1: finds the closing quote. Sets *escaped when a backslash occurs
 * (the escape itself is checked in pass 2). */
static int find_end(dl_json_parser *ps, const char *start, const char *end, const char **quote,
                    bool *escaped)
{
	const char *p = start;
	for (;;) {
		while (end - p >= 8) {
			uint64_t v;
			memcpy(&v, p, 8);
			if (has_special(v)) break;
			p += 8;
		}
		if (p == end) break;
		unsigned char c = (unsigned char)*p;
		if (c == '"') {
			*quote = p;
			return 0;
		} else if (c == '\\') {
			*escaped = true;
			if (end - p < 2) break;
			p += 2;
		} else if (c < 0x20) {
			return dl_json_fail(ps, p, "control character U+%04X in a string: expected it escaped (\\n, \\t, \\u00XX)", c);
		} else if (c >= 0x80) {
			size_t n = utf8_len((const unsigned char *)p, (const unsigned char *)end);
			if (!n) return dl_json_fail(ps, p, "invalid UTF-8 byte 0x%02X in a string: expected UTF-8 text", c);
			p += n;
		} else {
			p++;
		}
	}
	return dl_json_fail(ps, end, "unterminated string (opened at byte %zu): expected '\"'",
	                    (size_t)(start - 1 - ps->doc));
}

static int hex4(const char *p, unsigned *out)
{
	unsigned v = 0;
	for (int i = 0; i < 4; i++) {
		unsigned c = (unsigned char)p[i], d;
		if (c >= '0' && c <= '9') d = c - '0';
		else if ((c | 0x20) >= 'a' && (c | 0x20) <= 'f') d = (c | 0x20) - 'a' + 10;
		else return -1;
		v = v << 4 | d;
	}
	*out = v;
	return 0;
}

static char *put_utf8(char *d, unsigned cp)
{
	if (cp < 0x80) {
		*d++ = (char)cp;
	} else if (cp < 0x800) {
		*d++ = (char)(0xC0 | cp >> 6);
		*d++ = (char)(0x80 | (cp & 0x3F));
	} else if (cp < 0x10000) {
		*d++ = (char)(0xE0 | cp >> 12);
		*d++ = (char)(0x80 | (cp >> 6 & 0x3F));
		*d++ = (char)(0x80 | (cp & 0x3F));
	} else {
		*d++ = (char)(0xF0 | cp >> 18);
		*d++ = (char)(0x80 | (cp >> 12 & 0x3F));
		*d++ = (char)(0x80 | (cp >> 6 & 0x3F));
		*d++ = (char)(0x80 | (cp & 0x3F));
	}
	return d;
}

/* Decodes \uXXXX (and a following low surrogate) at r (r points at 'u').
 * Advances *rp past the escape(s). */
static int decode_u(dl_json_parser *ps, const char **rp, const char *q, char **dp)
{
	const char *r = *rp;
	unsigned cp, lo;
	if (q - r < 5 || hex4(r + 1, &cp) < 0)
		return dl_json_fail(ps, r - 1, "bad \\u escape: expected four hex digits");
	r += 5;
	if (cp >= 0xDC00 && cp <= 0xDFFF)
		return dl_json_fail(ps, r - 6, "lone low surrogate \\u%04X: expected a high surrogate (\\uD800-\\uDBFF) before it", cp);
	if (cp >= 0xD800 && cp <= 0xDBFF) {
		if (q - r < 6 || r[0] != '\\' || r[1] != 'u' || hex4(r + 2, &lo) < 0 || lo < 0xDC00 ||
		    lo > 0xDFFF)
			return dl_json_fail(ps, r - 6, "unpaired high surrogate \\u%04X: expected a low surrogate \\uDC00-\\uDFFF after it", cp);
		cp = 0x10000 + ((cp - 0xD800) << 10) + (lo - 0xDC00);
		r += 6;
	}
	*dp = put_utf8(*dp, cp);
	*rp = r;
	return 0;
}

/* Pass 2: copies [s, q) into d, decoding escapes; the result never grows
 * (every escape is at least as long as the UTF-8 it stands for). */
static int unescape(dl_json_parser *ps, const char *s, const char *q, char *d, size_t *len)
{
	char *d0 = d;
	const char *r = s;
	while (r < q) {
		const char *bs = memchr(r, '\\', (size_t)(q - r));
		if (!bs) bs = q;
		memcpy(d, r, (size_t)(bs - r));
		d += bs - r;
		if (bs == q) break;
		r = bs + 1; /* pass 1 guarantees a byte after the backslash */
		switch (*r) {
		case '"': *d++ = '"'; break;
		case '\\': *d++ = '\\'; break;
		case '/': *d++ = '/'; break;
		case 'b': *d++ = '\b'; break;
		case 'f': *d++ = '\f'; break;
		case 'n': *d++ = '\n'; break;
		case 'r': *d++ = '\r'; break;
		case 't': *d++ = '\t'; break;
		case 'u':
			DL_TRY(decode_u(ps, &r, q, &d));
			continue;
		default:
			return dl_json_fail(ps, bs, "invalid escape: expected one of \\\" \\\\ \\/ \\b \\f \\n \\r \\t \\uXXXX");
		}
		r++;
	}
	*d = 0;
	*len = (size_t)(d - d0);
	return 0;
}

int dl_json_parse_string(dl_json_parser *ps, const char *p, const char *end, const char **out,
                         size_t *out_len, const char **next)
{
	const char *q = NULL;
	bool escaped = false;
	DL_TRY(find_end(ps, p, end, &q, &escaped));
	size_t raw = (size_t)(q - p);
	*next = q + 1;
	if (raw == 0) {
		*out = "";
		*out_len = 0;
		return 0;
	}
	char *d = dl_json_alloc(ps->arena, raw + 1);
	if (!d) return DL_ENOMEM;
	*out = d;
	if (!escaped) {
		memcpy(d, p, raw);
		d[raw] = 0;
		*out_len = raw;
		return 0;
	}
	return unescape(ps, p, q, d, out_len);
}
