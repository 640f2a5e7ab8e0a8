/* Shared Key authorization of Azure Storage requests ("Authorize with
 * Shared Key" in the Azure Storage REST reference, version 2009-09-19 and
 * later, Blob service). The crypto is OpenSSL's (HMAC-SHA256, base64); this
 * file arranges the string the service recomputes:
 *
 *   VERB \n Content-Encoding \n Content-Language \n Content-Length \n
 *   Content-MD5 \n Content-Type \n Date \n If-Modified-Since \n If-Match \n
 *   If-None-Match \n If-Unmodified-Since \n Range \n
 *   CanonicalizedHeaders CanonicalizedResource
 *
 * - Content-Length is empty for an empty body (versions 2015-02-21 on);
 *   Date is empty because x-ms-date is sent instead.
 * - CanonicalizedHeaders: every x-ms-* header, names lower case, sorted,
 *   "name:value\n", the value trimmed and runs of white space folded to one
 *   space.
 * - CanonicalizedResource: "/" account, the URL's encoded path, then per
 *   query parameter, sorted by (lower-case) name, "\nname:value" with the
 *   value decoded. With a path-style endpoint (Azurite's
 *   http://127.0.0.1:10000/devstoreaccount1) the path holds the account
 *   again, which is what the emulator expects.
 *
 * signature = base64(HMAC-SHA256(base64-decoded account key, string-to-sign)). */
#include "storage/store_azure.h"
#include "util/error.h"
#include "util/mem.h"
#include <openssl/evp.h>
#include <openssl/hmac.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

void dl_az_date(char out[40])
{
	static const char *const days[] = {"Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"};
	static const char *const months[] = {"Jan", "Feb", "Mar", "Apr", "May", "Jun",
	                                     "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"};
	time_t t = time(NULL);
	struct tm tm;
	gmtime_r(&t, &tm);
	snprintf(out, 40, "%s, %02d %s %04d %02d:%02d:%02d GMT", days[tm.tm_wday % 7], tm.tm_mday,
	         months[tm.tm_mon % 12], tm.tm_year + 1900, tm.tm_hour, tm.tm_min, tm.tm_sec);
}

int dl_az_base64(dl_buf *out, const void *data, size_t len)
{
	DL_TRY(dl_buf_reserve(out, 4 * ((len + 2) / 3) + 1));
	int n = EVP_EncodeBlock((unsigned char *)out->data + out->len, data, (int)len);
	out->len += (size_t)n;
	out->data[out->len] = 0;
	return 0;
}

int dl_az_base64_decode(uint8_t **out, size_t *len, const char *s)
{
	size_t n = strlen(s);
	if (n == 0 || n % 4)
		return dl_error_set(DL_EINVALID, "not base64 (its length is %zu, not a multiple of 4)", n);
	uint8_t *b = dl_malloc(n / 4 * 3 + 1);
	if (!b) return DL_ENOMEM;
	int m = EVP_DecodeBlock(b, (const unsigned char *)s, (int)n);
	if (m < 0) {
		dl_free(b);
		return dl_error_set(DL_EINVALID, "not base64");
	}
	/* EVP_DecodeBlock counts the '=' padding as zero bytes */
	size_t got = (size_t)m;
	if (s[n - 1] == '=') got--;
	if (s[n - 2] == '=') got--;
	*out = b;
	*len = got;
	return 0;
}

/* The value of header `name` in "Name: value" items (trimmed), or "". */
static const char *header_value(const dl_az_sign_input *in, const char *name, size_t *vlen)
{
	size_t nl = strlen(name);
	for (int i = 0; i < in->nheaders; i++) {
		const char *h = in->headers[i];
		if (strncasecmp(h, name, nl) != 0 || h[nl] != ':') continue;
		const char *v = h + nl + 1;
		while (*v == ' ' || *v == '\t') v++;
		size_t n = strlen(v);
		while (n && (v[n - 1] == ' ' || v[n - 1] == '\t')) n--;
		*vlen = n;
		return v;
	}
	*vlen = 0;
	return "";
}

static int cmp_header_names(const void *a, const void *b)
{
	const char *x = *(const char *const *)a, *y = *(const char *const *)b;
	for (;; x++, y++) {
		int cx = *x == ':' ? 0 : (unsigned char)(*x >= 'A' && *x <= 'Z' ? *x + 32 : *x);
		int cy = *y == ':' ? 0 : (unsigned char)(*y >= 'A' && *y <= 'Z' ? *y + 32 : *y);
		if (cx != cy || !cx) return cx - cy;
	}
}

static int cmp_query(const void *a, const void *b)
{
	return strcmp(((const dl_az_query *)a)->name, ((const dl_az_query *)b)->name);
}

/* "name:value\n" of one x-ms-* header: name lower case, value trimmed and
 * folded. */
static int put_canonical_header(dl_buf *b, const char *h)
{
	const char *colon = strchr(h, ':');
	for (const char *p = h; p < colon; p++) DL_TRY(dl_buf_putc(b, (char)(*p >= 'A' && *p <= 'Z' ? *p + 32 : *p)));
	DL_TRY(dl_buf_putc(b, ':'));
	const char *v = colon + 1;
	while (*v == ' ' || *v == '\t' || *v == '\r' || *v == '\n') v++;
	bool space = false;
	for (; *v; v++) {
		if (*v == ' ' || *v == '\t' || *v == '\r' || *v == '\n') {
			space = true;
			continue;
		}
		if (space) DL_TRY(dl_buf_putc(b, ' '));
		space = false;
		DL_TRY(dl_buf_putc(b, *v));
	}
	return dl_buf_putc(b, '\n');
}

int dl_az_string_to_sign(dl_buf *out, const dl_az_sign_input *in)
{
	static const char *const fields[] = {
		"Content-Encoding", "Content-Language", NULL /* Content-Length */, "Content-MD5",
		"Content-Type", "Date", "If-Modified-Since", "If-Match", "If-None-Match",
		"If-Unmodified-Since", "Range",
	};
	DL_TRY(dl_buf_printf(out, "%s\n", in->method));
	for (size_t f = 0; f < sizeof fields / sizeof fields[0]; f++) {
		if (!fields[f]) {
			if (in->content_length > 0) DL_TRY(dl_buf_printf(out, "%lld", (long long)in->content_length));
		} else {
			size_t n;
			const char *v = header_value(in, fields[f], &n);
			DL_TRY(dl_buf_append(out, v, n));
		}
		DL_TRY(dl_buf_putc(out, '\n'));
	}
	const char *xms[DL_HTTP_MAX_HEADERS];
	int nx = 0;
	for (int i = 0; i < in->nheaders && nx < DL_HTTP_MAX_HEADERS; i++)
		if (strncasecmp(in->headers[i], "x-ms-", 5) == 0 && strchr(in->headers[i], ':'))
			xms[nx++] = in->headers[i];
	qsort(xms, (size_t)nx, sizeof *xms, cmp_header_names);
	for (int i = 0; i < nx; i++) DL_TRY(put_canonical_header(out, xms[i]));
	DL_TRY(dl_buf_printf(out, "/%s%s", in->account, in->path));
	if (in->nquery > 0) {
		dl_az_query *q = dl_reallocarray(NULL, (size_t)in->nquery, sizeof *q);
		if (!q) return DL_ENOMEM;
		memcpy(q, in->query, (size_t)in->nquery * sizeof *q);
		qsort(q, (size_t)in->nquery, sizeof *q, cmp_query);
		int rc = 0;
		for (int i = 0; rc == 0 && i < in->nquery; i++) rc = dl_buf_printf(out, "\n%s:%s", q[i].name, q[i].value);
		dl_free(q);
		if (rc < 0) return rc;
	}
	return 0;
}

int dl_az_sign(dl_buf *auth, const dl_az_sign_input *in)
{
	dl_buf sts = DL_BUF_INIT;
	int rc = dl_az_string_to_sign(&sts, in);
	unsigned char mac[32];
	unsigned int n = sizeof mac;
	if (rc == 0 && !HMAC(EVP_sha256(), in->key, (int)in->key_len, (const unsigned char *)sts.data, sts.len, mac, &n))
		rc = dl_error_set(DL_ERROR, "HMAC-SHA256 failed in OpenSSL");
	if (rc == 0) rc = dl_buf_printf(auth, "SharedKey %s:", in->account);
	if (rc == 0) rc = dl_az_base64(auth, mac, n);
	memset(mac, 0, sizeof mac);
	dl_buf_free(&sts);
	return rc;
}
