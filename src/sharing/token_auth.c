/* Bearer tokens (RFC 6750) of the recipients. The config keeps only the
 * SHA-256 of each token, so a leaked config grants nothing; a request's
 * token is hashed and compared with every recipient's hash with
 * CRYPTO_memcmp, without stopping at a match, so the time taken says
 * neither which recipient matched nor how much of a hash did. */
#include <openssl/crypto.h>
#include <openssl/evp.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include "deltalake/sharing_server.h"
#include "sharing/server.h"
#include "util/base64.h"
#include "util/error.h"
#include "util/mem.h"
#include "util/random.h"

void dl_shr_token_digest(uint8_t out[32], const char *token, size_t len)
{
	unsigned int n = 32;
	if (!EVP_Digest(token, len, out, &n, EVP_sha256(), NULL)) memset(out, 0, 32);
}

static int hexval(char c)
{
	if (c >= '0' && c <= '9') return c - '0';
	if (c >= 'a' && c <= 'f') return c - 'a' + 10;
	if (c >= 'A' && c <= 'F') return c - 'A' + 10;
	return -1;
}

int dl_shr_token_hash_parse(uint8_t out[32], const char *text)
{
	if (strncmp(text, "sha256:", 7) || strlen(text + 7) != 64)
		return dl_error_set(DL_EINVALID, "a token hash is 'sha256:' and 64 hex digits");
	const char *h = text + 7;
	for (int i = 0; i < 32; i++) {
		int a = hexval(h[2 * i]), b = hexval(h[2 * i + 1]);
		if (a < 0 || b < 0) return dl_error_set(DL_EINVALID, "a token hash is 'sha256:' and 64 hex digits");
		out[i] = (uint8_t)(a << 4 | b);
	}
	return 0;
}

const dl_shr_recipient *dl_shr_authenticate(const dl_shr_config *c, const char *authorization,
                                            int64_t now_ms, const char **why)
{
	*why = "the request has no bearer token (Authorization: Bearer <token>)";
	if (!authorization) return NULL;
	if (strncasecmp(authorization, "Bearer ", 7)) {
		*why = "the Authorization header is not a bearer token";
		return NULL;
	}
	const char *tok = authorization + 7;
	while (*tok == ' ') tok++;
	size_t n = strlen(tok);
	while (n > 0 && tok[n - 1] == ' ') n--;
	*why = "the bearer token is not valid";
	if (n == 0 || n > 4096) return NULL;
	uint8_t h[32];
	dl_shr_token_digest(h, tok, n);
	const dl_shr_recipient *found = NULL;
	for (size_t i = 0; i < c->nrecipients; i++) {
		/* Every hash is compared; the match is remembered, not returned. */
		int diff = CRYPTO_memcmp(h, c->recipients[i].token_hash, 32);
		if (diff == 0 && !found) found = &c->recipients[i];
	}
	OPENSSL_cleanse(h, sizeof h);
	if (found && found->expires_ms <= now_ms) {
		*why = "the bearer token has expired";
		return NULL;
	}
	return found;
}

bool dl_shr_recipient_may_read(const dl_shr_recipient *r, const char *share)
{
	if (r->all_shares) return true;
	for (size_t i = 0; i < r->nshares; i++)
		if (!strcasecmp(r->shares[i], share)) return true;
	return false;
}

static int hash_text(char **out, const char *token, size_t n)
{
	uint8_t h[32];
	dl_shr_token_digest(h, token, n);
	char *s = dl_malloc(7 + 64 + 1);
	if (!s) return DL_ENOMEM;
	memcpy(s, "sha256:", 7);
	for (int i = 0; i < 32; i++) {
		static const char hx[] = "0123456789abcdef";
		s[7 + 2 * i] = hx[h[i] >> 4];
		s[8 + 2 * i] = hx[h[i] & 15];
	}
	s[71] = 0;
	*out = s;
	return 0;
}

DL_EXTERN(int) dl_sharing_token_hash(char **token_hash, const char *token)
{
	if (!token_hash || !token || !*token)
		return dl_error_set(DL_EINVALID, "dl_sharing_token_hash: a token is required");
	*token_hash = NULL;
	return hash_text(token_hash, token, strlen(token));
}

DL_EXTERN(int) dl_sharing_token_make(char **token, char **token_hash)
{
	if (!token || !token_hash) return dl_error_set(DL_EINVALID, "dl_sharing_token_make: NULL output");
	*token = *token_hash = NULL;
	uint8_t raw[32];
	DL_TRY(dl_random_bytes(raw, sizeof raw));
	dl_buf b = DL_BUF_INIT;
	int rc = dl_base64_encode(&b, raw, sizeof raw);
	OPENSSL_cleanse(raw, sizeof raw);
	if (rc < 0) {
		dl_buf_free(&b);
		return rc;
	}
	/* base64url without padding: safe in headers, URLs and YAML. */
	size_t k = 0;
	for (size_t i = 0; i < b.len; i++) {
		char ch = b.data[i];
		if (ch == '=') continue;
		b.data[k++] = ch == '+' ? '-' : ch == '/' ? '_' : ch;
	}
	b.data[k] = 0;
	b.len = k;
	rc = hash_text(token_hash, b.data, b.len);
	if (rc < 0) {
		OPENSSL_cleanse(b.data, b.len);
		dl_buf_free(&b);
		return rc;
	}
	*token = dl_buf_detach(&b, NULL);
	return 0;
}
