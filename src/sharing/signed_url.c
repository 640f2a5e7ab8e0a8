/* Expiring, file-bound URLs for the server's own /files endpoint: what an
 * S3 presigned URL is for object stores, for tables on local disk (and any
 * store the server reads itself).
 *
 * A token is base64url(payload) "." base64url(HMAC-SHA256(key, payload)).
 * The payload names the share, schema and table, the file's location and
 * the expiry, each length-prefixed so no field can run into the next. The
 * key is 32 random bytes drawn when the server starts: tokens cannot be
 * forged without it and all die with the process. Only the query and
 * changes handlers sign, and only the files of the snapshot they serve, so
 * a valid signature is proof the file was shared; editing any byte of the
 * token (another file, a later expiry) breaks the signature. */
#include <inttypes.h>
#include <openssl/crypto.h>
#include <openssl/evp.h>
#include <openssl/hmac.h>
#include <stdlib.h>
#include <string.h>
#include "sharing/server.h"
#include "util/base64.h"
#include "util/error.h"
#include "util/mem.h"
#include "util/random.h"

#define TOKEN_MAX 16384

int dl_shr_signer_init(dl_shr_signer *s)
{
	return dl_random_bytes(s->key, sizeof s->key);
}

static int put_field(dl_buf *b, const char *s)
{
	size_t n = strlen(s);
	DL_TRY(dl_buf_printf(b, "%zu:", n));
	return dl_buf_append(b, s, n);
}

static int b64url(dl_buf *out, const void *data, size_t n)
{
	size_t start = out->len;
	DL_TRY(dl_base64_encode(out, data, n));
	size_t k = start;
	for (size_t i = start; i < out->len; i++) {
		char c = out->data[i];
		if (c == '=') continue;
		out->data[k++] = c == '+' ? '-' : c == '/' ? '_' : c;
	}
	out->len = k;
	out->data[k] = 0;
	return 0;
}

static int b64url_decode(dl_buf *out, const char *s, size_t n)
{
	if (n > TOKEN_MAX) return DL_EINVALID;
	char tmp[TOKEN_MAX + 4];
	for (size_t i = 0; i < n; i++) {
		char c = s[i];
		if (c == '+' || c == '/' || c == '=') return DL_EINVALID; /* one spelling only */
		tmp[i] = c == '-' ? '+' : c == '_' ? '/' : c;
	}
	return dl_base64_decode(out, tmp, n);
}

static void mac(uint8_t out[32], const dl_shr_signer *s, const void *data, size_t n)
{
	unsigned int len = 32;
	if (!HMAC(EVP_sha256(), s->key, sizeof s->key, data, n, out, &len)) memset(out, 0, 32);
}

int dl_shr_sign_file(dl_buf *out, const dl_shr_signer *s, const char *share, const char *schema,
                     const char *table, const char *location, int64_t expires_ms)
{
	dl_buf p = DL_BUF_INIT;
	int rc = dl_buf_printf(&p, "v1;%" PRId64 ";", expires_ms);
	if (rc == 0) rc = put_field(&p, share);
	if (rc == 0) rc = put_field(&p, schema);
	if (rc == 0) rc = put_field(&p, table);
	if (rc == 0) rc = put_field(&p, location);
	uint8_t m[32];
	if (rc == 0) {
		mac(m, s, p.data, p.len);
		rc = dl_buf_puts(out, "/files/");
	}
	if (rc == 0) rc = b64url(out, p.data, p.len);
	if (rc == 0) rc = dl_buf_putc(out, '.');
	if (rc == 0) rc = b64url(out, m, sizeof m);
	dl_buf_free(&p);
	return rc;
}

/* Reads "<len>:<bytes>" at *p. */
static int get_field(char **out, const char **p, const char *end)
{
	const char *q = *p;
	size_t n = 0;
	if (q >= end || *q < '0' || *q > '9') return DL_EINVALID;
	while (q < end && *q >= '0' && *q <= '9') {
		n = n * 10 + (size_t)(*q - '0');
		if (n > TOKEN_MAX) return DL_EINVALID;
		q++;
	}
	if (q >= end || *q != ':') return DL_EINVALID;
	q++;
	if ((size_t)(end - q) < n || memchr(q, 0, n)) return DL_EINVALID;
	*out = dl_malloc(n + 1);
	if (!*out) return DL_ENOMEM;
	memcpy(*out, q, n);
	(*out)[n] = 0;
	*p = q + n;
	return 0;
}

int dl_shr_verify_file(dl_shr_signed_file *out, const dl_shr_signer *s, const char *token,
                       int64_t now_ms)
{
	memset(out, 0, sizeof *out);
	const char *dot = strchr(token, '.');
	size_t tlen = strlen(token);
	if (!dot || tlen > TOKEN_MAX) return dl_error_set(DL_EINVALID, "not a file token");
	dl_buf payload = DL_BUF_INIT, sig = DL_BUF_INIT;
	int rc = b64url_decode(&payload, token, (size_t)(dot - token));
	if (rc == 0) rc = b64url_decode(&sig, dot + 1, tlen - (size_t)(dot - token) - 1);
	if (rc < 0 || sig.len != 32 || payload.len == 0) {
		dl_buf_free(&payload);
		dl_buf_free(&sig);
		return dl_error_set(DL_EINVALID, "not a file token");
	}
	uint8_t m[32];
	mac(m, s, payload.data, payload.len);
	if (CRYPTO_memcmp(m, sig.data, 32) != 0) {
		dl_buf_free(&payload);
		dl_buf_free(&sig);
		return dl_error_set(DL_EPERM, "the file URL's signature is not valid");
	}
	dl_buf_free(&sig);
	/* Signed by us: the layout is ours, but parse it carefully anyway. */
	const char *p = payload.data, *end = payload.data + payload.len;
	rc = DL_EINVALID;
	if (payload.len > 3 && !memcmp(p, "v1;", 3)) {
		p += 3;
		char *e;
		long long exp = strtoll(p, &e, 10);
		if (e < end && *e == ';') {
			out->expires_ms = exp;
			p = e + 1;
			rc = get_field(&out->share, &p, end);
			if (rc == 0) rc = get_field(&out->schema, &p, end);
			if (rc == 0) rc = get_field(&out->table, &p, end);
			if (rc == 0) rc = get_field(&out->location, &p, end);
			if (rc == 0 && p != end) rc = DL_EINVALID;
		}
	}
	dl_buf_free(&payload);
	if (rc < 0) {
		dl_shr_signed_file_free(out);
		return dl_error_set(DL_EINVALID, "not a file token");
	}
	if (out->expires_ms <= now_ms) {
		dl_shr_signed_file_free(out);
		return dl_error_set(DL_EPERM, "the file URL has expired; query the table again for a new one");
	}
	return 0;
}

void dl_shr_signed_file_free(dl_shr_signed_file *f)
{
	dl_free(f->share);
	dl_free(f->schema);
	dl_free(f->table);
	dl_free(f->location);
	memset(f, 0, sizeof *f);
}

/* A file's id: the MD5 of its log path in hex, the same across requests
 * (as the reference server makes it), so clients may cache by it. */
void dl_shr_file_id(char out[33], const char *path)
{
	unsigned char md[16];
	unsigned int n = 16;
	if (!EVP_Digest(path, strlen(path), md, &n, EVP_md5(), NULL)) memset(md, 0, 16);
	for (int i = 0; i < 16; i++) snprintf(out + 2 * i, 3, "%02x", md[i]);
}
