/* Service SAS URLs for one blob (read only, expiring): what the Delta
 * Sharing server hands recipients for files of tables on Azure, signed
 * with the account key (Shared Key credentials). The string to sign is the
 * one of service SAS version 2020-12-06 and later ("Create a service SAS",
 * Microsoft Learn): permissions, start, expiry, canonicalized resource
 * (/blob/<account>/<container>/<blob>), identifier, IP, protocol, version,
 * resource ("b"), snapshot time, encryption scope and the five response
 * header overrides, each on its own line. A SAS configured for the store
 * itself is never handed out (it may grant far more than one blob). */
#include <openssl/evp.h>
#include <openssl/hmac.h>
#include <string.h>
#include <time.h>
#include "storage/http.h"
#include "storage/store_azure.h"
#include "util/error.h"

int dl_az_presign_get(dl_buf *url, const dl_az_config *cfg, const char *blob, int64_t expires_at_s)
{
	if (!cfg->key || !cfg->key_len)
		return dl_error_set(DL_EINVALID, "az://%s: presigning needs the account key", cfg->container);
	char se[32];
	time_t t = (time_t)expires_at_s;
	struct tm tm;
	gmtime_r(&t, &tm);
	strftime(se, sizeof se, "%Y-%m-%dT%H:%M:%SZ", &tm);
	const char *sv = DL_AZ_API_VERSION;
	dl_buf sts = DL_BUF_INIT, sig = DL_BUF_INIT;
	int rc = dl_buf_printf(&sts, "r\n\n%s\n/blob/%s/%s/%s\n\n\n\n%s\nb\n\n\n\n\n\n\n", se, cfg->account,
	                       cfg->container, blob, sv);
	unsigned char mac[32];
	unsigned int n = 32;
	if (rc == 0 && !HMAC(EVP_sha256(), cfg->key, (int)cfg->key_len, (const unsigned char *)sts.data, sts.len,
	                     mac, &n))
		rc = dl_error_set(DL_ERROR, "HMAC-SHA256 failed");
	if (rc == 0) rc = dl_az_base64(&sig, mac, 32);
	if (rc == 0) rc = dl_buf_printf(url, "%s/", cfg->endpoint);
	if (rc == 0) rc = dl_http_encode(url, cfg->container, strlen(cfg->container), false);
	if (rc == 0) rc = dl_buf_putc(url, '/');
	if (rc == 0) rc = dl_http_encode(url, blob, strlen(blob), true);
	if (rc == 0) rc = dl_buf_printf(url, "?sv=%s&se=", sv);
	if (rc == 0) rc = dl_http_encode(url, se, strlen(se), false);
	if (rc == 0) rc = dl_buf_puts(url, "&sr=b&sp=r&sig=");
	if (rc == 0) rc = dl_http_encode(url, sig.data, sig.len, false);
	dl_buf_free(&sts);
	dl_buf_free(&sig);
	return rc;
}
