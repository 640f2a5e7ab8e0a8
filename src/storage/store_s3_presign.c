/* Presigned S3 GET URLs (AWS Signature Version 4, query-string
 * authentication: "Authenticating Requests: Using Query Parameters"), what
 * the Delta Sharing server hands recipients for files of tables on S3:
 * anyone holding the URL may GET that one object until it expires, without
 * credentials of their own. Only the host header is signed and the payload
 * is UNSIGNED-PAYLOAD, as presigned URLs require. */
#include <openssl/evp.h>
#include <openssl/hmac.h>
#include <stdlib.h>
#include <string.h>
#include "storage/http.h"
#include "storage/store_s3.h"
#include "util/error.h"

static int hmac(unsigned char out[32], const void *key, size_t klen, const char *msg)
{
	unsigned int n = 32;
	if (!HMAC(EVP_sha256(), key, (int)klen, (const unsigned char *)msg, strlen(msg), out, &n))
		return dl_error_set(DL_ERROR, "HMAC-SHA256 failed");
	return 0;
}

int dl_s3_presign_get(dl_buf *url, const dl_s3_config *cfg, const char *key, int64_t expires_s,
                      const char *amz_date)
{
	if (!cfg->access_key_id || !cfg->secret_access_key)
		return dl_error_set(DL_EINVALID, "s3://%s: presigning needs credentials (an access key)", cfg->bucket);
	if (expires_s < 1 || expires_s > 604800)
		return dl_error_set(DL_EINVALID, "a presigned S3 URL lives 1 s to 7 days, not %lld s",
		                    (long long)expires_s);
	const char *ep = cfg->endpoint;
	const char *se = strstr(ep, "://");
	if (!se) return dl_error_set(DL_EINVALID, "S3 endpoint without a scheme: %s", ep);
	se += 3;
	char day[9];
	memcpy(day, amz_date, 8);
	day[8] = 0;
	dl_buf host = DL_BUF_INIT, path = DL_BUF_INIT, q = DL_BUF_INIT, cred = DL_BUF_INIT,
	       creq = DL_BUF_INIT, sts = DL_BUF_INIT, k = DL_BUF_INIT;
	int rc = cfg->virtual_hosted ? dl_buf_printf(&host, "%s.%s", cfg->bucket, se) : dl_buf_puts(&host, se);
	if (rc == 0) rc = dl_buf_putc(&path, '/');
	if (rc == 0 && !cfg->virtual_hosted) {
		rc = dl_http_encode(&path, cfg->bucket, strlen(cfg->bucket), false);
		if (rc == 0) rc = dl_buf_putc(&path, '/');
	}
	if (rc == 0) rc = dl_http_encode(&path, key, strlen(key), true);
	/* The query, sorted by name as the canonical request needs. */
	if (rc == 0) rc = dl_buf_printf(&cred, "%s/%s/%s/s3/aws4_request", cfg->access_key_id, day, cfg->region);
	if (rc == 0) rc = dl_buf_puts(&q, "X-Amz-Algorithm=AWS4-HMAC-SHA256&X-Amz-Credential=");
	if (rc == 0) rc = dl_http_encode(&q, cred.data, cred.len, false);
	if (rc == 0) rc = dl_buf_printf(&q, "&X-Amz-Date=%s&X-Amz-Expires=%lld", amz_date, (long long)expires_s);
	if (rc == 0 && cfg->session_token) {
		rc = dl_buf_puts(&q, "&X-Amz-Security-Token=");
		if (rc == 0) rc = dl_http_encode(&q, cfg->session_token, strlen(cfg->session_token), false);
	}
	if (rc == 0) rc = dl_buf_puts(&q, "&X-Amz-SignedHeaders=host");
	if (rc == 0)
		rc = dl_buf_printf(&creq, "GET\n%s\n%s\nhost:%s\n\nhost\nUNSIGNED-PAYLOAD", path.data, q.data,
		                   host.data);
	char h[65];
	if (rc == 0) {
		dl_s3_sha256_hex(h, creq.data, creq.len);
		rc = dl_buf_printf(&sts, "AWS4-HMAC-SHA256\n%s\n%s/%s/s3/aws4_request\n%s", amz_date, day,
		                   cfg->region, h);
	}
	unsigned char k1[32], k2[32], k3[32], k4[32], sig[32];
	if (rc == 0) rc = dl_buf_printf(&k, "AWS4%s", cfg->secret_access_key);
	if (rc == 0) rc = hmac(k1, k.data, k.len, day);
	if (rc == 0) rc = hmac(k2, k1, 32, cfg->region);
	if (rc == 0) rc = hmac(k3, k2, 32, "s3");
	if (rc == 0) rc = hmac(k4, k3, 32, "aws4_request");
	if (rc == 0) rc = hmac(sig, k4, 32, sts.data);
	if (rc == 0) rc = dl_buf_printf(url, "%.*s%s%s?%s&X-Amz-Signature=", (int)(se - ep), ep, host.data,
	                                path.data, q.data);
	for (int i = 0; rc == 0 && i < 32; i++) rc = dl_buf_printf(url, "%02x", sig[i]);
	/* derived keys are as secret as the key */
	if (k.data) memset(k.data, 0, k.len);
	memset(k1, 0, 32);
	memset(k2, 0, 32);
	memset(k3, 0, 32);
	memset(k4, 0, 32);
	dl_buf_free(&host);
	dl_buf_free(&path);
	dl_buf_free(&q);
	dl_buf_free(&cred);
	dl_buf_free(&creq);
	dl_buf_free(&sts);
	dl_buf_free(&k);
	return rc;
}
