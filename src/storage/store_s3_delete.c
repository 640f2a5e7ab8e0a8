/* S3 DeleteObjects (issue 14: VACUUM deletes in batches of 1000): one POST
 * /?delete per batch instead of a HEAD and a DELETE per object.
 *
 * The request is Quiet, so the response lists only the keys that failed;
 * S3 reports a key that was already gone as deleted, which is what the
 * contract asks (not an error), so every path not in an <Error> counts as
 * deleted. DeleteObjects requires a Content-MD5 (or a checksum) header,
 * signed with the request. Retrying the whole batch is safe: deleting a
 * deleted key succeeds. */
#include "storage/store_s3.h"
#include <openssl/evp.h>
#include <string.h>
#include "util/base64.h"
#include "util/buf.h"
#include "util/error.h"
#include "util/mem.h"

static int body_of(dl_buf *body, dl_s3_store *s, const char *const *paths, size_t n)
{
	int rc = dl_buf_puts(body, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>"
	                           "<Delete xmlns=\"http://s3.amazonaws.com/doc/2006-03-01/\"><Quiet>true</Quiet>");
	for (size_t i = 0; rc == 0 && i < n; i++) {
		char *key = NULL;
		rc = dl_s3_key(&key, s, paths[i]);
		if (rc == 0) rc = dl_buf_puts(body, "<Object><Key>");
		if (rc == 0) rc = dl_s3_xml_escape(body, key);
		if (rc == 0) rc = dl_buf_puts(body, "</Key></Object>");
		dl_free(key);
	}
	if (rc == 0) rc = dl_buf_puts(body, "</Delete>");
	return rc;
}

static int md5_header(dl_buf *out, const dl_buf *body)
{
	unsigned char md[EVP_MAX_MD_SIZE];
	unsigned int mdlen = 0;
	if (!EVP_Digest(body->data, body->len, md, &mdlen, EVP_md5(), NULL))
		return dl_error_set(DL_EIO, "computing the Content-MD5 of a DeleteObjects request failed (OpenSSL)");
	DL_TRY(dl_buf_puts(out, "Content-MD5: "));
	return dl_base64_encode(out, md, mdlen);
}

/* The per-key <Error>s of a Quiet response (inside its <DeleteResult>):
 * *nerrors of them, the first one's key, code and message in the error. */
static int key_errors(dl_s3_store *s, const char *x, size_t xl, size_t *nerrors)
{
	size_t pos = 0, es, ee;
	*nerrors = 0;
	char *key = NULL, *code = NULL, *msg = NULL;
	while (dl_s3_xml_element(&es, &ee, x, xl, pos, "Error") == 0) {
		if (!*nerrors) {
			if (dl_s3_xml_text(&key, x + es, ee - es, 0, "Key", NULL) < 0) key = NULL;
			if (dl_s3_xml_text(&code, x + es, ee - es, 0, "Code", NULL) < 0) code = NULL;
			if (dl_s3_xml_text(&msg, x + es, ee - es, 0, "Message", NULL) < 0) msg = NULL;
		}
		(*nerrors)++;
		pos = ee;
	}
	dl_error_clear();
	int rc = 0;
	if (*nerrors) {
		bool denied = code && strcmp(code, "AccessDenied") == 0;
		bool say_msg = msg && *msg && (!code || strcmp(msg, code) != 0);
		rc = dl_error_set(denied ? DL_EPERM : DL_EIO,
		                  "s3://%s/%s: DeleteObjects could not delete it: %s%s%s%s (%zu of the batch's keys "
		                  "failed, the others were deleted); %s",
		                  s->cfg.bucket, key ? key : "(no key)", code ? code : "no error code",
		                  say_msg ? " (" : "", say_msg ? msg : "", say_msg ? ")" : "", *nerrors,
		                  denied ? "check the credentials' s3:DeleteObject permission and the bucket policy"
		                         : "check the object's lock or retention settings and the server's log");
	}
	dl_free(key);
	dl_free(code);
	dl_free(msg);
	return rc;
}

/* A 200 whose body is an error document rather than a <DeleteResult>
 * (S3 may fail a request after sending its status): nothing is known to
 * be deleted. */
static bool whole_request_failed(const char *x, size_t xl)
{
	size_t es, ee;
	return dl_s3_xml_element(&es, &ee, x, xl, 0, "DeleteResult") < 0 &&
	       dl_s3_xml_element(&es, &ee, x, xl, 0, "Error") == 0;
}

int dl_s3_delete_many(size_t *deleted, void *impl, const char *const *paths, size_t n)
{
	dl_s3_store *s = impl;
	*deleted = 0;
	if (!n) return 0;
	dl_buf body = DL_BUF_INIT, md5 = DL_BUF_INIT;
	int rc = body_of(&body, s, paths, n);
	if (rc == 0) rc = md5_header(&md5, &body);
	dl_http_response resp;
	bool sent = false;
	if (rc == 0) {
		const char *hs[] = {"Content-Type: application/xml", md5.data};
		dl_s3_req r = {.method = "POST", .key = NULL, .query = "delete=", .headers = hs, .nheaders = 2,
		               .body = body.data, .body_len = body.len, .idempotent = true};
		rc = dl_s3_request(&resp, s, &r, NULL);
		sent = rc == 0;
	}
	if (rc == 0 && resp.status / 100 != 2) rc = dl_s3_error(s, &resp, "DeleteObjects", "", 0);
	if (rc == 0 && resp.body.data && whole_request_failed(resp.body.data, resp.body.len)) {
		dl_error_clear();
		rc = dl_s3_error(s, &resp, "DeleteObjects", "", DL_EIO);
	}
	size_t nerr = 0;
	if (rc == 0 && resp.body.data) rc = key_errors(s, resp.body.data, resp.body.len, &nerr);
	if (rc == 0 || nerr) *deleted = n - nerr;
	if (sent) dl_http_response_free(&resp);
	dl_buf_free(&body);
	dl_buf_free(&md5);
	return rc;
}
