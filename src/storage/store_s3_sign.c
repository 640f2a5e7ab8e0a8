/* AWS Signature Version 4 for S3 requests. The crypto is OpenSSL's
 * (SHA-256, HMAC); this file only arranges the strings the specification
 * asks for:
 *
 *   canonical request = METHOD \n URI \n QUERY \n headers \n \n signed-names \n payload-hash
 *   string to sign    = "AWS4-HMAC-SHA256" \n date \n scope \n hex(sha256(canonical request))
 *   signing key       = HMAC(HMAC(HMAC(HMAC("AWS4" secret, day), region), service), "aws4_request")
 *
 * The headers signed are host, x-amz-content-sha256, x-amz-date,
 * x-amz-security-token (with session credentials) and the caller's extras,
 * sorted by name. */
#include "storage/store_s3.h"
#include "util/error.h"
#include "util/mem.h"
#include <openssl/evp.h>
#include <openssl/hmac.h>
#include <openssl/sha.h>
#include <string.h>
#include <time.h>

static void hex(char *out, const unsigned char *d, size_t n)
{
	static const char h[] = "0123456789abcdef";
	for (size_t i = 0; i < n; i++) {
		out[2 * i] = h[d[i] >> 4];
		out[2 * i + 1] = h[d[i] & 15];
	}
	out[2 * n] = 0;
}

void dl_s3_sha256_hex(char out[65], const void *data, size_t len)
{
	unsigned char md[SHA256_DIGEST_LENGTH];
	SHA256(data ? data : (const void *)"", len, md);
	hex(out, md, sizeof md);
}

void dl_s3_amz_date(char out[17])
{
	time_t t = time(NULL);
	struct tm tm;
	gmtime_r(&t, &tm);
	strftime(out, 17, "%Y%m%dT%H%M%SZ", &tm);
}

static int hmac(unsigned char out[32], const void *key, size_t klen, const char *msg)
{
	unsigned int n = 32;
	if (!HMAC(EVP_sha256(), key, (int)klen, (const unsigned char *)msg, strlen(msg), out, &n))
		return dl_error_set(DL_ERROR, "HMAC-SHA256 failed in OpenSSL");
	return 0;
}

typedef struct hdr {
	const char *name; /* lower case */
	size_t nlen;
	const char *value;
} hdr;

static int cmp_hdr(const void *a, const void *b)
{
	const hdr *x = a, *y = b;
	size_t n = x->nlen < y->nlen ? x->nlen : y->nlen;
	int c = memcmp(x->name, y->name, n);
	return c ? c : (x->nlen > y->nlen) - (x->nlen < y->nlen);
}

int dl_s3_sign(dl_buf *auth, const dl_s3_sign_input *in)
{
	hdr hs[32];
	int n = 0;
	hs[n++] = (hdr){"host", 4, in->host};
	hs[n++] = (hdr){"x-amz-content-sha256", 20, in->payload_sha256};
	hs[n++] = (hdr){"x-amz-date", 10, in->amz_date};
	if (in->session_token) hs[n++] = (hdr){"x-amz-security-token", 20, in->session_token};
	for (int i = 0; i < in->nextra && n < 32; i++) {
		const char *c = strchr(in->extra[i], ':');
		if (!c) return dl_error_set(DL_EINVALID, "header to sign without ':': %s", in->extra[i]);
		hs[n++] = (hdr){in->extra[i], (size_t)(c - in->extra[i]), c + 1};
	}
	qsort(hs, (size_t)n, sizeof *hs, cmp_hdr);

	dl_buf creq = DL_BUF_INIT, names = DL_BUF_INIT, sts = DL_BUF_INIT, key = DL_BUF_INIT;
	int rc = dl_buf_printf(&creq, "%s\n%s\n%s\n", in->method, in->canonical_uri, in->canonical_query);
	for (int i = 0; rc == 0 && i < n; i++) {
		rc = dl_buf_printf(&creq, "%.*s:%s\n", (int)hs[i].nlen, hs[i].name, hs[i].value);
		if (rc == 0) rc = dl_buf_printf(&names, "%s%.*s", i ? ";" : "", (int)hs[i].nlen, hs[i].name);
	}
	if (rc == 0) rc = dl_buf_printf(&creq, "\n%s\n%s", names.data, in->payload_sha256);
	char creq_hash[65], day[9];
	memcpy(day, in->amz_date, 8);
	day[8] = 0;
	if (rc == 0) {
		dl_s3_sha256_hex(creq_hash, creq.data, creq.len);
		rc = dl_buf_printf(&sts, "AWS4-HMAC-SHA256\n%s\n%s/%s/%s/aws4_request\n%s", in->amz_date, day,
		                   in->region, in->service, creq_hash);
	}
	unsigned char k1[32], k2[32], k3[32], k4[32], sig[32];
	if (rc == 0) rc = dl_buf_printf(&key, "AWS4%s", in->secret_access_key);
	if (rc == 0) rc = hmac(k1, key.data, key.len, day);
	if (rc == 0) rc = hmac(k2, k1, 32, in->region);
	if (rc == 0) rc = hmac(k3, k2, 32, in->service);
	if (rc == 0) rc = hmac(k4, k3, 32, "aws4_request");
	if (rc == 0) rc = hmac(sig, k4, 32, sts.data);
	char sighex[65];
	if (rc == 0) {
		hex(sighex, sig, 32);
		rc = dl_buf_printf(auth, "AWS4-HMAC-SHA256 Credential=%s/%s/%s/%s/aws4_request, SignedHeaders=%s, "
		                   "Signature=%s",
		                   in->access_key_id, day, in->region, in->service, names.data, sighex);
	}
	/* the derived keys are as secret as the key itself */
	if (key.data) memset(key.data, 0, key.len);
	memset(k1, 0, 32);
	memset(k2, 0, 32);
	memset(k3, 0, 32);
	memset(k4, 0, 32);
	dl_buf_free(&creq);
	dl_buf_free(&names);
	dl_buf_free(&sts);
	dl_buf_free(&key);
	return rc;
}
