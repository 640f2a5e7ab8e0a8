/* Azure Blob Batch (issue 14: VACUUM and log cleanup delete many files):
 * one POST <container>?restype=container&comp=batch carries up to 256
 * Delete Blob subrequests instead of one DELETE per blob.
 *
 * The body is multipart/mixed: each part is "Content-Type:
 * application/http", "Content-Transfer-Encoding: binary", a Content-ID
 * (its index), then an HTTP/1.1 request line with its own headers. Each
 * subrequest is authorized by itself: signed with Shared Key over its own
 * path (the same string-to-sign as a lone DELETE), or carrying the SAS
 * token in its URL. Subrequests send no x-ms-version: the batch's applies
 * (the service refuses one there). The answer is multipart/mixed again,
 * one part per subrequest with its Content-ID, status line and
 * x-ms-error-code; 202 is deleted, 404 BlobNotFound is already gone (not
 * an error, as the contract asks, and not counted); any other status is an
 * error naming the blob and the service's code, after the rest of the
 * batch was done. A part without a Content-ID is the service refusing the
 * whole batch (Azurite answers that way to a malformed one).
 *
 * Retrying a whole batch is safe: a blob the first attempt deleted answers
 * 404 the second time. A service that does not take batches at all (an
 * endpoint answering 400/404/405/501 to the POST itself, with no
 * subrequest answers) makes this store fall back to one DELETE per blob
 * for its lifetime. */
#include "storage/store_azure.h"
#include "storage/backend.h"
#include <openssl/rand.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include "util/error.h"
#include "util/mem.h"

/* The next line of [p, end) ("\r\n" or "\n" ends it); NULL at the end. */
static const char *line_end(const char *p, const char *end, const char **next)
{
	const char *nl = memchr(p, '\n', (size_t)(end - p));
	if (!nl) {
		*next = end;
		return end;
	}
	*next = nl + 1;
	return nl > p && nl[-1] == '\r' ? nl - 1 : nl;
}

static bool header_is(const char *p, const char *e, const char *name, const char **value)
{
	size_t n = strlen(name);
	if ((size_t)(e - p) <= n || strncasecmp(p, name, n) != 0 || p[n] != ':') return false;
	const char *v = p + n + 1;
	while (v < e && (*v == ' ' || *v == '\t')) v++;
	*value = v;
	return true;
}

/* One part of the response, [p, end): its Content-ID (-1 when none), the
 * embedded status and x-ms-error-code. */
static int parse_part(long *id, dl_az_batch_result *r, const char *p, const char *end)
{
	*id = -1;
	memset(r, 0, sizeof *r);
	const char *next, *v;
	/* the part's MIME headers, up to the empty line */
	while (p < end) {
		const char *e = line_end(p, end, &next);
		if (e == p) {
			p = next;
			break;
		}
		if (header_is(p, e, "Content-ID", &v)) *id = strtol(v, NULL, 10);
		p = next;
	}
	/* the embedded response: "HTTP/1.1 202 Accepted", then its headers */
	while (p < end) {
		const char *e = line_end(p, end, &next);
		if (e != p) break;
		p = next;
	}
	if (p >= end) return DL_ECORRUPT;
	const char *e = line_end(p, end, &next);
	if (e - p < 12 || strncmp(p, "HTTP/", 5) != 0) return DL_ECORRUPT;
	const char *sp = memchr(p, ' ', (size_t)(e - p));
	if (!sp) return DL_ECORRUPT;
	r->status = (int)strtol(sp + 1, NULL, 10);
	if (r->status < 100 || r->status > 599) return DL_ECORRUPT;
	for (p = next; p < end; p = next) {
		e = line_end(p, end, &next);
		if (e == p) break;
		if (header_is(p, e, "x-ms-error-code", &v)) {
			size_t n = (size_t)(e - v) < sizeof r->error_code ? (size_t)(e - v) : sizeof r->error_code - 1;
			memcpy(r->error_code, v, n);
			r->error_code[n] = 0;
		}
	}
	return 0;
}

int dl_az_batch_parse(dl_az_batch_result *res, size_t n, const char *body, size_t len, const char *uri)
{
	memset(res, 0, n * sizeof *res);
	const char *end = body + len, *next;
	/* the boundary is the first line, "--batchresponse_..." */
	const char *p = body;
	while (p < end && (*p == '\r' || *p == '\n')) p++;
	const char *e = line_end(p, end, &next);
	if (e - p < 3 || p[0] != '-' || p[1] != '-')
		return dl_error_set(DL_ECORRUPT, "%s: the Blob Batch answer is not multipart (it starts \"%.*s\")",
		                    uri, (int)(e - p < 40 ? e - p : 40), p);
	char delim[200];
	if ((size_t)(e - p) >= sizeof delim)
		return dl_error_set(DL_ECORRUPT, "%s: the Blob Batch answer's boundary is too long", uri);
	size_t dl = (size_t)(e - p);
	memcpy(delim, p, dl);
	delim[dl] = 0;
	p = next;
	for (;;) {
		/* the part runs to the next delimiter line */
		const char *q = p, *stop = NULL;
		while (q < end) {
			const char *qe = line_end(q, end, &next);
			if ((size_t)(qe - q) >= dl && memcmp(q, delim, dl) == 0) {
				stop = q;
				break;
			}
			q = next;
		}
		if (!stop) return dl_error_set(DL_ECORRUPT, "%s: the Blob Batch answer ends inside a part", uri);
		long id;
		dl_az_batch_result r;
		if (parse_part(&id, &r, p, stop) < 0)
			return dl_error_set(DL_ECORRUPT, "%s: a part of the Blob Batch answer has no HTTP status line", uri);
		if (id < 0 && r.status / 100 != 2)
			return dl_error_set(DL_EIO, "%s: the service refused the Blob Batch: HTTP %d %s", uri, r.status,
			                    r.error_code[0] ? r.error_code : "(no error code)");
		if (id >= 0 && (size_t)id >= n)
			return dl_error_set(DL_ECORRUPT, "%s: the Blob Batch answer names subrequest %ld of %zu", uri, id, n);
		if (id >= 0) res[id] = r;
		/* "--boundary--" closes the body */
		line_end(stop, end, &next);
		if ((size_t)(next - stop) >= dl + 2 && stop[dl] == '-' && stop[dl + 1] == '-') break;
		p = next;
		if (p >= end) break;
	}
	for (size_t i = 0; i < n; i++)
		if (!res[i].status)
			return dl_error_set(DL_ECORRUPT, "%s: the Blob Batch answer has no answer for subrequest %zu of %zu",
			                    uri, i, n);
	return 0;
}

/* One subrequest: a Delete Blob of `blob`, authorized by itself. */
static int put_subrequest(dl_buf *body, const dl_az_store *s, const char *boundary, size_t id,
                          const char *blob, const char *date)
{
	dl_buf path = DL_BUF_INIT, auth = DL_BUF_INIT, xdate = DL_BUF_INIT;
	int rc = dl_az_url_path(&path, s, blob);
	if (rc == 0) rc = dl_buf_printf(&xdate, "x-ms-date: %s", date);
	if (rc == 0 && s->cfg.key) {
		const char *hs[] = {xdate.data};
		dl_az_sign_input in = {.method = "DELETE", .account = s->cfg.account, .path = path.data,
		                       .headers = hs, .nheaders = 1, .content_length = 0,
		                       .key = s->cfg.key, .key_len = s->cfg.key_len};
		rc = dl_az_sign(&auth, &in);
	}
	if (rc == 0)
		rc = dl_buf_printf(body, "--%s\r\nContent-Type: application/http\r\nContent-Transfer-Encoding: binary\r\n"
		                   "Content-ID: %zu\r\n\r\nDELETE %s", boundary, id, path.data);
	/* without a key, the SAS token authorizes each subrequest in its URL */
	if (rc == 0 && !s->cfg.key && s->cfg.sas) rc = dl_buf_printf(body, "?%s", s->cfg.sas);
	if (rc == 0) rc = dl_buf_printf(body, " HTTP/1.1\r\n%s\r\n", xdate.data);
	if (rc == 0 && auth.len) rc = dl_buf_printf(body, "Authorization: %s\r\n", auth.data);
	if (rc == 0) rc = dl_buf_puts(body, "Content-Length: 0\r\n\r\n");
	if (auth.data) memset(auth.data, 0, auth.len);
	dl_buf_free(&auth);
	dl_buf_free(&path);
	dl_buf_free(&xdate);
	return rc;
}

/* Whether a refusal of the batch POST itself means the endpoint has no
 * Blob Batch (so single deletes work where this cannot). */
static bool batch_unsupported(long status) { return status == 400 || status == 404 || status == 405 || status == 501; }

static int delete_one_by_one(size_t *deleted, dl_az_store *s, const char *const *paths, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		int rc = dl_store_backend_az.del(s, paths[i]);
		if (rc == DL_ENOTFOUND) {
			dl_error_clear();
			continue;
		}
		if (rc < 0) return rc;
		(*deleted)++;
	}
	return 0;
}

/* One batch of n <= 256 blobs. *unsupported when the endpoint refused
 * the request as a whole (nothing was deleted). */
static int batch(size_t *deleted, bool *unsupported, dl_az_store *s, const char *const *paths, size_t n)
{
	*unsupported = false;
	unsigned char rnd[16];
	char boundary[48];
	if (RAND_bytes(rnd, sizeof rnd) != 1) return dl_error_set(DL_EIO, "no random bytes for a batch boundary (OpenSSL)");
	int o = snprintf(boundary, sizeof boundary, "batch_");
	for (size_t i = 0; i < sizeof rnd; i++) o += snprintf(boundary + o, sizeof boundary - (size_t)o, "%02x", rnd[i]);
	char date[40];
	dl_az_date(date);
	dl_buf body = DL_BUF_INIT, ctype = DL_BUF_INIT;
	char **blobs = dl_calloc(n, sizeof *blobs);
	dl_az_batch_result *res = dl_calloc(n, sizeof *res);
	int rc = blobs && res ? 0 : DL_ENOMEM;
	for (size_t i = 0; rc == 0 && i < n; i++) {
		rc = dl_az_blob(&blobs[i], s, paths[i]);
		if (rc == 0) rc = put_subrequest(&body, s, boundary, i, blobs[i], date);
	}
	if (rc == 0) rc = dl_buf_printf(&body, "--%s--\r\n", boundary);
	if (rc == 0) rc = dl_buf_printf(&ctype, "Content-Type: multipart/mixed; boundary=%s", boundary);
	dl_http_response resp;
	memset(&resp, 0, sizeof resp);
	if (rc == 0) {
		const char *hs[] = {ctype.data};
		dl_az_query q[] = {{"restype", "container"}, {"comp", "batch"}};
		dl_az_req r = {.method = "POST", .query = q, .nquery = 2, .headers = hs, .nheaders = 1,
		               .body = body.data, .body_len = body.len, .idempotent = true};
		rc = dl_az_request(&resp, s, &r, NULL);
	}
	if (rc == 0 && resp.status / 100 != 2) {
		*unsupported = batch_unsupported(resp.status) &&
		               !(resp.body.data && strstr(resp.body.data, "<Code>ContainerNotFound<"));
		rc = dl_az_error(s, &resp, "Blob Batch (delete)", NULL, 0);
	}
	if (rc == 0) rc = dl_az_batch_parse(res, n, resp.body.data ? resp.body.data : "", resp.body.len, s->uri);
	/* every subrequest's answer is in: count, and name the first failure */
	size_t failed = 0, first = 0;
	for (size_t i = 0; rc == 0 && i < n; i++) {
		if (res[i].status == 202 || res[i].status == 200) (*deleted)++;
		else if (res[i].status != 404 || strcmp(res[i].error_code, "ContainerNotFound") == 0)
			if (!failed++) first = i;
	}
	if (rc == 0 && failed) {
		const dl_az_batch_result *f = &res[first];
		int code = f->status == 403 || f->status == 401 ? DL_EPERM : DL_EIO;
		rc = dl_error_set(code, "%s/%s: Delete Blob in a Blob Batch failed: HTTP %d %s (%zu of %zu blobs of the batch "
		                  "not deleted; %s)", s->uri, paths[first], f->status,
		                  f->error_code[0] ? f->error_code : "(no error code)", failed, n,
		                  f->status == 412 || f->status == 409 ? "a lease or a condition holds the blob"
		                  : code == DL_EPERM ? "check the credentials' delete permission"
		                                     : "check the endpoint");
	}
	dl_http_response_free(&resp);
	for (size_t i = 0; blobs && i < n; i++) dl_free(blobs[i]);
	dl_free(blobs);
	dl_free(res);
	if (body.data) memset(body.data, 0, body.len); /* signatures, maybe a SAS token */
	dl_buf_free(&body);
	dl_buf_free(&ctype);
	return rc;
}

int dl_az_delete_many(size_t *deleted, void *impl, const char *const *paths, size_t n)
{
	dl_az_store *s = impl;
	*deleted = 0;
	for (size_t i = 0; i < n;) {
		size_t k = n - i < DL_AZ_BATCH_MAX ? n - i : DL_AZ_BATCH_MAX;
		if (atomic_load(&s->no_batch)) return delete_one_by_one(deleted, s, paths + i, n - i);
		bool unsupported;
		size_t d = 0;
		int rc = batch(&d, &unsupported, s, paths + i, k);
		*deleted += d;
		if (rc < 0 && unsupported) {
			dl_error_clear();
			atomic_store(&s->no_batch, 1);
			continue;
		}
		if (rc < 0) return rc;
		i += k;
	}
	return 0;
}
