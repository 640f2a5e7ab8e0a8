/* JSON strings (RFC 8259 section 7): one pass that finds the closing
 * quote, validates UTF-8, decodes escapes and copies into the parser's text
 * block at the same time.
 *
 * Eight bytes are handled at once (SWAR): a word without a quote, backslash,
 * control character or non-ASCII byte is stored whole; otherwise the bytes
 * before the first special one are kept and that byte is handled alone. The
 * output never gets ahead of the input (escapes only shrink), and the text
 * block has DL_JSON_TEXT_PAD spare bytes, so whole-word stores stay inside
 * it. */
#include "json/parser.h"
#include "json/swar.h"
#include "json/utf8.h"
#include <string.h>

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

/* Decodes \\uXXXX (and a following low surrogate) at r, which points at
 * 'u' and lies before end. Advances *rp past the escape(s). */
static int decode_u(dl_json_parser *ps, const char **rp, const char *end, char **dp)
{
	const char *r = *rp;
	unsigned cp, lo;
	if (end - r < 5 || hex4(r + 1, &cp) < 0)
		return dl_json_fail(ps, r - 1, "bad \\u escape: expected four hex digits");
	r += 5;
	if (cp >= 0xDC00 && cp <= 0xDFFF)
		return dl_json_fail(ps, r - 6, "lone low surrogate \\u%04X: expected a high surrogate (\\uD800-\\uDBFF) before it", cp);
	if (cp >= 0xD800 && cp <= 0xDBFF) {
		if (end - r < 6 || r[0] != '\\' || r[1] != 'u' || hex4(r + 2, &lo) < 0 || lo < 0xDC00 ||
		    lo > 0xDFFF)
			return dl_json_fail(ps, r - 6, "unpaired high surrogate \\u%04X: expected a low surrogate \\uDC00-\\uDFFF after it", cp);
		cp = 0x10000 + ((cp - 0xD800) << 10) + (lo - 0xDC00);
		r += 6;
	}
	*dp = put_utf8(*dp, cp);
	*rp = r;
	return 0;
}

/* The escape at p (a backslash); writes its text at *dp. */
static int escape(dl_json_parser *ps, const char **pp, const char *end, char **dp)
{
	const char *p = *pp;
	char c;
	if (end - p < 2) return dl_json_fail(ps, end, "unterminated string: expected an escape after '\\'");
	switch (p[1]) {
	case '"': c = '"'; break;
	case '\\': c = '\\'; break;
	case '/': c = '/'; break;
	case 'b': c = '\b'; break;
	case 'f': c = '\f'; break;
	case 'n': c = '\n'; break;
	case 'r': c = '\r'; break;
	case 't': c = '\t'; break;
	case 'u':
		p++;
		DL_TRY(decode_u(ps, &p, end, dp));
		*pp = p;
		return 0;
	default:
		return dl_json_fail(ps, p, "invalid escape: expected one of \\\" \\\\ \\/ \\b \\f \\n \\r \\t \\uXXXX");
	}
	*(*dp)++ = c;
	*pp = p + 2;
	return 0;
}

int dl_json_parse_string(dl_json_parser *ps, const char *p, const char *end, const char **out,
                         size_t *out_len, const char **next)
{
	const char *open = p - 1;
	/* Output never outruns input: room for the rest of the input is room
	 * for this string. Only a caller that did not reserve enough lands
	 * in the slow branch. */
	if ((size_t)(ps->text_end - ps->text_cur) < (size_t)(end - p) + DL_JSON_TEXT_PAD)
		DL_TRY(dl_json_text_reserve(ps, (size_t)(end - p)));
	char *d0 = ps->text_cur, *d = d0;
	for (;;) {
		uint64_t v, mask = 0;
		while (end - p >= 8) {
			memcpy(&v, p, 8);
			memcpy(d, &v, 8);
			mask = dl_json_special_bytes(v);
			if (mask) break;
			p += 8;
			d += 8;
		}
		if (mask) {
			size_t i = dl_json_first_special(mask, p);
			p += i;
			d += i;
		}
		if (p == end) break;
		unsigned char c = (unsigned char)*p;
		if (c == '"') {
			*d = 0;
			*out = d0;
			*out_len = (size_t)(d - d0);
			*next = p + 1;
			ps->text_cur = d + 1;
			return 0;
		} else if (c == '\\') {
			DL_TRY(escape(ps, &p, end, &d));
		} else if (c < 0x20) {
			return dl_json_fail(ps, p, "control character U+%04X in a string: expected it escaped (\\n, \\t, \\u00XX)", c);
		} else if (c >= 0x80) {
			size_t n = dl_json_utf8_len((const unsigned char *)p, (const unsigned char *)end);
			if (!n) return dl_json_fail(ps, p, "invalid UTF-8 byte 0x%02X in a string: expected UTF-8 text", c);
			memcpy(d, p, n);
			p += n;
			d += n;
		} else {
			*d++ = (char)c;
			p++;
		}
	}
	return dl_json_fail(ps, end, "unterminated string (opened at byte %zu): expected '\"'",
	                    (size_t)(open - ps->doc));
}
