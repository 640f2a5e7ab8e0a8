/* The XML of S3 answers (ListObjectsV2, errors, multipart upload ids) is
 * flat and machine-written: elements without attributes that matter,
 * text with the five predefined entities and character references. So
 * this is a search for <Tag>...</Tag>, not a general XML parser; a body
 * that does not have the element is reported by the caller as malformed. */
#include "storage/store_s3.h"
#include "util/error.h"
#include "util/mem.h"
#include <stdlib.h>
#include <string.h>

/* The offset of "<tag>" or "<tag " at or after from; *after: past '>'. */
static bool find_open(const char *x, size_t len, size_t from, const char *tag, size_t *at, size_t *after)
{
	size_t tl = strlen(tag);
	for (size_t i = from; i + tl + 2 <= len; i++) {
		if (x[i] != '<' || memcmp(x + i + 1, tag, tl) != 0) continue;
		char c = x[i + 1 + tl];
		if (c != '>' && c != ' ' && c != '/') continue;
		const char *gt = memchr(x + i, '>', len - i);
		if (!gt) return false;
		*at = i;
		if (gt > x + i && gt[-1] == '/') { /* <tag/>: empty */
			*after = (size_t)(gt - x) + 1;
			return true;
		}
		*after = (size_t)(gt - x) + 1;
		return true;
	}
	return false;
}

int dl_s3_xml_element(size_t *start, size_t *end, const char *xml, size_t len, size_t from, const char *tag)
{
	size_t at, after;
	if (!find_open(xml, len, from, tag, &at, &after)) return DL_ENOTFOUND;
	if (xml[after - 2] == '/') {
		*start = *end = after;
		return 0;
	}
	/* nested elements of the same name do not occur in these answers */
	size_t tl = strlen(tag);
	for (size_t i = after; i + tl + 3 <= len; i++) {
		if (xml[i] == '<' && xml[i + 1] == '/' && memcmp(xml + i + 2, tag, tl) == 0 && xml[i + 2 + tl] == '>') {
			*start = after;
			*end = i;
			return 0;
		}
	}
	return DL_ENOTFOUND;
}

static int put_utf8(dl_buf *b, unsigned long cp)
{
	char u[4];
	int n;
	if (cp < 0x80) { u[0] = (char)cp; n = 1; }
	else if (cp < 0x800) { u[0] = (char)(0xC0 | (cp >> 6)); u[1] = (char)(0x80 | (cp & 0x3F)); n = 2; }
	else if (cp < 0x10000) {
		u[0] = (char)(0xE0 | (cp >> 12)); u[1] = (char)(0x80 | ((cp >> 6) & 0x3F));
		u[2] = (char)(0x80 | (cp & 0x3F)); n = 3;
	} else if (cp < 0x110000) {
		u[0] = (char)(0xF0 | (cp >> 18)); u[1] = (char)(0x80 | ((cp >> 12) & 0x3F));
		u[2] = (char)(0x80 | ((cp >> 6) & 0x3F)); u[3] = (char)(0x80 | (cp & 0x3F)); n = 4;
	} else return DL_ECORRUPT;
	return dl_buf_append(b, u, (size_t)n);
}

int dl_s3_xml_text(char **out, const char *xml, size_t len, size_t from, const char *tag, size_t *next)
{
	size_t s, e;
	int rc = dl_s3_xml_element(&s, &e, xml, len, from, tag);
	if (rc < 0) return rc;
	if (e == s) {
		*out = dl_strdup("");
		if (next) *next = e;
		return *out ? 0 : DL_ENOMEM;
	}
	dl_buf b = DL_BUF_INIT;
	rc = dl_buf_reserve(&b, e - s);
	for (size_t i = s; rc == 0 && i < e; i++) {
		if (xml[i] != '&') {
			rc = dl_buf_putc(&b, xml[i]);
			continue;
		}
		const char *semi = memchr(xml + i, ';', e - i);
		if (!semi) {
			rc = dl_error_set(DL_ECORRUPT, "XML: '&' without ';' in <%s>", tag);
			break;
		}
		size_t n = (size_t)(semi - (xml + i)) + 1;
		const char *ent = xml + i;
		if (n == 5 && memcmp(ent, "&amp;", 5) == 0) rc = dl_buf_putc(&b, '&');
		else if (n == 4 && memcmp(ent, "&lt;", 4) == 0) rc = dl_buf_putc(&b, '<');
		else if (n == 4 && memcmp(ent, "&gt;", 4) == 0) rc = dl_buf_putc(&b, '>');
		else if (n == 6 && memcmp(ent, "&quot;", 6) == 0) rc = dl_buf_putc(&b, '"');
		else if (n == 6 && memcmp(ent, "&apos;", 6) == 0) rc = dl_buf_putc(&b, '\'');
		else if (n > 3 && ent[1] == '#') {
			char *endp;
			unsigned long cp = ent[2] == 'x' || ent[2] == 'X' ? strtoul(ent + 3, &endp, 16)
			                                                  : strtoul(ent + 2, &endp, 10);
			rc = endp == semi ? put_utf8(&b, cp) : DL_ECORRUPT;
			if (rc < 0) rc = dl_error_set(DL_ECORRUPT, "XML: bad character reference in <%s>", tag);
		} else {
			rc = dl_error_set(DL_ECORRUPT, "XML: unknown entity %.*s in <%s>", (int)n, ent, tag);
		}
		i += n - 1;
	}
	if (rc < 0) {
		dl_buf_free(&b);
		return rc;
	}
	*out = b.data ? dl_buf_detach(&b, NULL) : dl_strdup("");
	if (!*out) return DL_ENOMEM;
	if (next) *next = e;
	return 0;
}

int dl_s3_xml_escape(dl_buf *out, const char *s)
{
	for (; *s; s++) {
		int rc;
		switch (*s) {
		case '&': rc = dl_buf_puts(out, "&amp;"); break;
		case '<': rc = dl_buf_puts(out, "&lt;"); break;
		case '>': rc = dl_buf_puts(out, "&gt;"); break;
		case '"': rc = dl_buf_puts(out, "&quot;"); break;
		case '\'': rc = dl_buf_puts(out, "&apos;"); break;
		default: rc = dl_buf_putc(out, *s);
		}
		if (rc < 0) return rc;
	}
	return 0;
}
