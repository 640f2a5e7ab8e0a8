/* put-if-absent on Azure Blob Storage: the commit primitive of the Delta
 * protocol.
 *
 * Rule: exactly one writer wins a version, and no outcome is guessed.
 *  - The request is Put Blob with If-None-Match: *, which the service
 *    evaluates atomically with the write: 2xx is a win; 409
 *    (BlobAlreadyExists, what Azure and Azurite answer) and 412
 *    (ConditionNotMet) mean the blob existed: DL_EEXISTS. A 409 that is a
 *    lease or a concurrent-write conflict rather than an existing blob is
 *    retried after a backoff.
 *  - A Put whose answer was lost (connection reset, timeout, 5xx, 429) may
 *    have landed. It is never resent blind: the blob is read back; absent,
 *    the Put is sent again (If-None-Match still guards it); present with
 *    our bytes, we won; present with other bytes, another writer did. An
 *    "exists" on a resend after such an attempt is checked the same way,
 *    since it may be our own earlier write.
 * Unlike S3-compatible stores, every Azure Blob service version this
 * backend speaks honours If-None-Match on Put Blob, so there is no probe. */
#include "storage/store_azure.h"
#include "storage/store_s3.h" /* the XML helpers */
#include "util/error.h"
#include "util/mem.h"
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static void sleep_ms(long ms)
{
	struct timespec ts = {(time_t)(ms / 1000), (ms % 1000) * 1000000L};
	while (nanosleep(&ts, &ts) < 0 && errno == EINTR) {}
}

static int exists_error(dl_az_store *s, const char *path)
{
	return dl_error_set(DL_EEXISTS, "%s/%s: object exists", s->uri, path);
}

int dl_az_put_if_absent(void *impl, const char *path, const void *data, size_t len)
{
	dl_az_store *s = impl;
	char *blob;
	DL_TRY(dl_az_blob(&blob, s, path));
	const char *hs[] = {"x-ms-blob-type: BlockBlob", "If-None-Match: *"};
	long backoff = 100;
	const int max = 10;
	bool was_ambiguous = false;
	int rc;
	for (int a = 1;; a++) {
		dl_http_response resp;
		bool amb = false;
		dl_az_req r = {.method = "PUT", .blob = blob, .headers = hs, .nheaders = 2, .body = data ? data : "",
		               .body_len = len, .idempotent = false};
		rc = dl_az_request(&resp, s, &r, &amb);
		long st = rc == 0 ? resp.status : 0;
		char *ecode = NULL;
		if (rc == 0 && resp.body.len) (void)dl_s3_xml_text(&ecode, resp.body.data, resp.body.len, 0, "Code", NULL);
		bool exists = st == 412 || (st == 409 && (!ecode || strcmp(ecode, "BlobAlreadyExists") == 0));
		bool conflict = st == 409 && !exists; /* a lease, or a write in flight */
		bool lost = (rc < 0 && amb) || st >= 500 || st == 429;
		if (rc == 0 && st / 100 == 2) {
			rc = 0;
		} else if (exists) {
			rc = was_ambiguous ? dl_az_read_back(s, blob, data, len) : exists_error(s, path);
			if (rc == DL_ENOTFOUND) rc = 1; /* deleted since: try again */
		} else if (rc == 0 && !conflict && !lost) {
			rc = dl_az_error(s, &resp, "PUT (If-None-Match)", blob, 0);
		} else if (rc < 0 && !amb) {
			rc = a >= max ? dl_error_prefix("%s/%s: ", s->uri, path) : 1; /* never reached the server */
		} else {
			if (lost) {
				was_ambiguous = true;
				int rb = dl_az_read_back(s, blob, data, len);
				rc = rb == DL_ENOTFOUND ? 1 : rb;
			} else {
				rc = 1;
			}
			if (rc == 1 && a >= max)
				rc = st ? dl_az_error(s, &resp, "PUT (If-None-Match)", blob, 0)
				        : dl_error_set(DL_EIO, "%s/%s: the commit failed %d times without an answer", s->uri,
				                       path, a);
		}
		dl_free(ecode);
		dl_http_response_free(&resp);
		if (rc != 1) break;
		sleep_ms(backoff / 2 + (long)(rand() % (int)(backoff / 2 + 1)));
		if (backoff < 5000) backoff *= 2;
	}
	dl_free(blob);
	return rc;
}
