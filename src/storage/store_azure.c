/* az://, azure://, abfs[s]://, wasb[s]://: the Azure Blob Storage backend
 * (store_azure.h lists its parts). A store path maps to the blob
 * prefix + path of one container; a listing is List Blobs (with delimiter
 * "/" when not recursive, markers followed to the end), a stat is HEAD, a
 * ranged read GET with x-ms-range, a streamed write buffers one block and
 * becomes Put Block + Put Block List only when the object outgrows it.
 * Blocks that were put but never listed stay uncommitted (invisible; the
 * service drops them after a week), so an aborted write leaves nothing
 * behind that a reader or a listing sees. put_if_absent is
 * store_azure_commit.c. */
#include "storage/store_azure.h"
#include "storage/backend.h"
#include "storage/store_s3.h" /* the XML helpers */
#include "util/error.h"
#include "util/mem.h"
#include <openssl/rand.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

static const char *sys_getenv(const char *n) { return getenv(n); }

/* ---- requests ---- */

int dl_az_blob(char **out, const dl_az_store *s, const char *path)
{
	dl_buf b = DL_BUF_INIT;
	int rc = dl_buf_printf(&b, "%s%s", s->cfg.prefix, path);
	if (rc < 0) {
		dl_buf_free(&b);
		return rc;
	}
	*out = dl_buf_detach(&b, NULL);
	return 0;
}

/* The URI of a blob for messages: the root as the user wrote it and the
 * path under it (or the full blob name when it is outside the root). */
static int display(dl_buf *out, const dl_az_store *s, const char *blob)
{
	size_t pl = strlen(s->cfg.prefix);
	if (!blob) return dl_buf_printf(out, "%s", s->uri);
	if (strncmp(blob, s->cfg.prefix, pl) == 0) return dl_buf_printf(out, "%s/%s", s->uri, blob + pl);
	return dl_buf_printf(out, "%s (blob %s)", s->uri, blob);
}

typedef struct sign_ctx {
	dl_az_store *s;
	const dl_az_req *r;
	const char *path;
} sign_ctx;

static int sign_cb(dl_http_headers *out, void *payload)
{
	sign_ctx *c = payload;
	const dl_az_config *cfg = &c->s->cfg;
	char date[40];
	dl_az_date(date);
	DL_TRY(dl_http_headers_add(out, "x-ms-date: %s", date));
	DL_TRY(dl_http_headers_add(out, "x-ms-version: %s", DL_AZ_API_VERSION));
	for (int i = 0; i < c->r->nheaders; i++) DL_TRY(dl_http_headers_add(out, "%s", c->r->headers[i]));
	if (!cfg->key) return 0; /* a SAS token (in the URL) or anonymous */
	bool body = strcmp(c->r->method, "PUT") == 0 || strcmp(c->r->method, "POST") == 0;
	dl_az_sign_input in = {
		.method = c->r->method, .account = cfg->account, .path = c->path, .query = c->r->query,
		.nquery = c->r->nquery, .headers = (const char *const *)out->items, .nheaders = out->n,
		.content_length = body ? (int64_t)c->r->body_len : 0, .key = cfg->key, .key_len = cfg->key_len,
	};
	dl_buf auth = DL_BUF_INIT;
	int rc = dl_az_sign(&auth, &in);
	if (rc == 0) rc = dl_http_headers_add(out, "Authorization: %s", auth.data);
	if (auth.data) memset(auth.data, 0, auth.len);
	dl_buf_free(&auth);
	return rc;
}

int dl_az_url_path(dl_buf *path, const dl_az_store *s, const char *blob)
{
	DL_TRY(dl_buf_printf(path, "%s/", s->url_path));
	DL_TRY(dl_http_encode(path, s->cfg.container, strlen(s->cfg.container), false));
	if (!blob) return 0;
	DL_TRY(dl_buf_putc(path, '/'));
	return dl_http_encode(path, blob, strlen(blob), true);
}

int dl_az_request(dl_http_response *resp, dl_az_store *s, const dl_az_req *r, bool *ambiguous)
{
	memset(resp, 0, sizeof *resp);
	if (ambiguous) *ambiguous = false;
	const dl_az_config *cfg = &s->cfg;
	dl_buf path = DL_BUF_INIT, url = DL_BUF_INIT, disp = DL_BUF_INIT;
	int rc = dl_az_url_path(&path, s, r->blob);
	const char *host = strstr(cfg->endpoint, "://") + 3;
	const char *host_end = strchr(host, '/');
	size_t base_len = host_end ? (size_t)(host_end - cfg->endpoint) : strlen(cfg->endpoint);
	if (rc == 0) rc = dl_buf_printf(&url, "%.*s%s", (int)base_len, cfg->endpoint, path.data);
	for (int i = 0; rc == 0 && i < r->nquery; i++) {
		rc = dl_buf_printf(&url, "%c%s=", i ? '&' : '?', r->query[i].name);
		if (rc == 0) rc = dl_http_encode(&url, r->query[i].value, strlen(r->query[i].value), false);
	}
	if (rc == 0 && cfg->sas && !cfg->key) rc = dl_buf_printf(&url, "%c%s", r->nquery ? '&' : '?', cfg->sas);
	if (rc == 0) rc = display(&disp, s, r->blob);
	sign_ctx sc = {.s = s, .r = r, .path = path.data};
	if (rc == 0) {
		dl_http_request hr = {
			.method = r->method, .url = url.data, .display = disp.data, .body = r->body,
			.body_len = r->body_len, .idempotent = r->idempotent, .sign = sign_cb, .payload = &sc,
			.dest = r->dest, .dest_cap = r->dest_cap,
		};
		rc = dl_http_send(resp, s->http, &hr, ambiguous);
	}
	dl_buf_free(&path);
	if (url.data) memset(url.data, 0, url.len); /* it may carry a SAS token */
	dl_buf_free(&url);
	dl_buf_free(&disp);
	return rc;
}

int dl_az_error(dl_az_store *s, const dl_http_response *resp, const char *op, const char *blob, int code)
{
	char *ecode = NULL, *emsg = NULL;
	if (resp->body.len) {
		(void)dl_s3_xml_text(&ecode, resp->body.data, resp->body.len, 0, "Code", NULL);
		(void)dl_s3_xml_text(&emsg, resp->body.data, resp->body.len, 0, "Message", NULL);
	}
	/* Azure's messages go on with "\nRequestId:...\nTime:...": keep one line */
	if (emsg) emsg[strcspn(emsg, "\r\n")] = 0;
	if (emsg && !*emsg) {
		dl_free(emsg);
		emsg = NULL;
	}
	long st = resp->status;
	const char *c = ecode ? ecode : "";
	bool container_missing = strcmp(c, "ContainerNotFound") == 0;
	if (container_missing) code = DL_EIO; /* not "no such table": that would hide it */
	if (!code) {
		if (st == 404) code = DL_ENOTFOUND;
		else if (st == 409 || st == 412) code = DL_EEXISTS;
		else if (st == 403 || st == 401) code = DL_EPERM;
		else code = DL_EIO;
	}
	const char *hint;
	bool cred_hint = st == 403 || st == 401;
	if (container_missing || (st == 404 && !blob))
		hint = "check the container name, the account and the endpoint";
	else if (cred_hint)
		hint = "check the credentials (the account key or SAS token, and its permissions and expiry)";
	else if (st == 400)
		hint = "check the endpoint and the account name";
	else if (st >= 500)
		hint = "the service failed; retry later";
	else
		hint = "check the endpoint";
	dl_buf d = DL_BUF_INIT;
	(void)display(&d, s, blob);
	const char *cs = s->cfg.cred_source ? s->cfg.cred_source : "none (anonymous)";
	int rc = dl_error_set(code, "%s: %s failed: HTTP %ld%s%s%s%s (%s%s%s; account %s, endpoint %s)",
	                      d.data ? d.data : s->uri, op, st, ecode ? " " : "", c, emsg ? ": " : "",
	                      emsg ? emsg : "", hint, cred_hint ? "; credentials from " : "", cred_hint ? cs : "",
	                      s->cfg.account, s->cfg.endpoint);
	dl_buf_free(&d);
	dl_free(ecode);
	dl_free(emsg);
	return rc;
}

static int not_found(dl_az_store *s, const char *blob)
{
	dl_buf d = DL_BUF_INIT;
	(void)display(&d, s, blob);
	int rc = dl_error_set(DL_ENOTFOUND, "%s: no such object", d.data ? d.data : blob);
	dl_buf_free(&d);
	return rc;
}

/* ---- open / free ---- */

static int az_open(void **impl, const char *uri, const dl_store_options *opts, void *payload)
{
	(void)payload;
	dl_az_store *s = dl_calloc(1, sizeof *s);
	if (!s) return DL_ENOMEM;
	int rc = dl_az_config_load(&s->cfg, uri, opts, sys_getenv);
	if (rc < 0) {
		dl_free(s);
		return rc;
	}
	size_t n = strlen(uri);
	while (n && uri[n - 1] == '/') n--;
	s->uri = dl_strndup(uri, n);
	const char *host = strstr(s->cfg.endpoint, "://") + 3;
	const char *p = strchr(host, '/');
	s->url_path = dl_strdup(p ? p : "");
	dl_http_config hc;
	dl_http_config_from_options(&hc, opts);
	rc = s->uri && s->url_path ? dl_http_new(&s->http, &hc) : DL_ENOMEM;
	if (rc < 0) {
		dl_az_config_free(&s->cfg);
		dl_free(s->uri);
		dl_free(s->url_path);
		dl_free(s);
		return rc;
	}
	*impl = s;
	return 0;
}

static void az_free(void *impl)
{
	dl_az_store *s = impl;
	dl_http_free(s->http);
	dl_az_config_free(&s->cfg);
	dl_free(s->uri);
	dl_free(s->url_path);
	dl_free(s);
}

/* ---- reads ---- */

static bool is_container_missing(const dl_http_response *resp)
{
	return resp->status == 404 && resp->body.data && strstr(resp->body.data, "<Code>ContainerNotFound<");
}

static int az_get(uint8_t **data, size_t *len, void *impl, const char *path)
{
	dl_az_store *s = impl;
	char *blob;
	DL_TRY(dl_az_blob(&blob, s, path));
	dl_http_response resp;
	dl_az_req r = {.method = "GET", .blob = blob, .idempotent = true};
	int rc = dl_az_request(&resp, s, &r, NULL);
	if (rc == 0 && is_container_missing(&resp)) rc = dl_az_error(s, &resp, "GET", blob, 0);
	else if (rc == 0 && resp.status == 404) rc = not_found(s, blob);
	else if (rc == 0 && resp.status / 100 != 2) rc = dl_az_error(s, &resp, "GET", blob, 0);
	else if (rc == 0) rc = dl_http_take_body(data, len, &resp);
	dl_http_response_free(&resp);
	dl_free(blob);
	return rc;
}

static int az_get_range(uint8_t *buf, size_t *got, void *impl, const char *path, int64_t offset, size_t len)
{
	dl_az_store *s = impl;
	*got = 0;
	if (len == 0) return 0;
	char *blob;
	DL_TRY(dl_az_blob(&blob, s, path));
	char range[80];
	dl_http_range_header(range, sizeof range, "x-ms-range", offset, len);
	const char *hs[] = {range};
	dl_http_response resp;
	dl_az_req r = {.method = "GET", .blob = blob, .headers = hs, .nheaders = 1, .idempotent = true,
	               .dest = buf, .dest_cap = len};
	int rc = dl_az_request(&resp, s, &r, NULL);
	if (rc == 0 && is_container_missing(&resp)) rc = dl_az_error(s, &resp, "ranged GET", blob, 0);
	else if (rc == 0 && resp.status == 404) rc = not_found(s, blob);
	else if (rc == 0 && !dl_http_range_result(got, &resp, offset)) rc = dl_az_error(s, &resp, "ranged GET", blob, 0);
	dl_http_response_free(&resp);
	dl_free(blob);
	return rc;
}

static int head(int64_t *size, int64_t *mtime, dl_az_store *s, const char *blob)
{
	dl_http_response resp;
	dl_az_req r = {.method = "HEAD", .blob = blob, .idempotent = true};
	int rc = dl_az_request(&resp, s, &r, NULL);
	if (rc == 0 && resp.status == 404) rc = not_found(s, blob);
	else if (rc == 0 && resp.status / 100 != 2) rc = dl_az_error(s, &resp, "HEAD", blob, 0);
	else if (rc == 0) dl_http_head_result(size, mtime, &resp);
	dl_http_response_free(&resp);
	return rc;
}

static int az_stat(int64_t *size, int64_t *mtime, void *impl, const char *path)
{
	dl_az_store *s = impl;
	char *blob;
	DL_TRY(dl_az_blob(&blob, s, path));
	int rc = head(size, mtime, s, blob);
	dl_free(blob);
	return rc;
}

int dl_az_read_back(dl_az_store *s, const char *blob, const void *data, size_t len)
{
	dl_http_response resp;
	dl_az_req r = {.method = "GET", .blob = blob, .idempotent = true};
	int rc = dl_az_request(&resp, s, &r, NULL);
	if (rc < 0) {
		dl_http_response_free(&resp);
		return dl_error_prefix("the write's answer was lost and reading it back failed, so whether it "
		                       "landed is unknown: ");
	}
	if (resp.status == 404 && !is_container_missing(&resp)) rc = DL_ENOTFOUND;
	else if (resp.status / 100 != 2) rc = dl_az_error(s, &resp, "GET (reading back a write)", blob, 0);
	else if (resp.body.len == len && (len == 0 || memcmp(resp.body.data, data, len) == 0)) rc = 0;
	else {
		dl_buf d = DL_BUF_INIT;
		(void)display(&d, s, blob);
		rc = dl_error_set(DL_EEXISTS, "%s: object exists (written by another writer)", d.data ? d.data : blob);
		dl_buf_free(&d);
	}
	dl_http_response_free(&resp);
	return rc;
}

/* ---- writes ---- */

static int az_put(void *impl, const char *path, const void *data, size_t len)
{
	dl_az_store *s = impl;
	char *blob;
	DL_TRY(dl_az_blob(&blob, s, path));
	const char *hs[] = {"x-ms-blob-type: BlockBlob"};
	dl_http_response resp;
	dl_az_req r = {.method = "PUT", .blob = blob, .headers = hs, .nheaders = 1, .body = data ? data : "",
	               .body_len = len, .idempotent = true};
	int rc = dl_az_request(&resp, s, &r, NULL);
	if (rc == 0 && resp.status / 100 != 2) rc = dl_az_error(s, &resp, "PUT", blob, 0);
	dl_http_response_free(&resp);
	dl_free(blob);
	return rc;
}

/* DELETE answers 404 BlobNotFound for a missing blob: the contract's
 * DL_ENOTFOUND without a HEAD first. */
static int az_del(void *impl, const char *path)
{
	dl_az_store *s = impl;
	char *blob;
	DL_TRY(dl_az_blob(&blob, s, path));
	dl_http_response resp;
	dl_az_req r = {.method = "DELETE", .blob = blob, .idempotent = true};
	int rc = dl_az_request(&resp, s, &r, NULL);
	if (rc == 0 && is_container_missing(&resp)) rc = dl_az_error(s, &resp, "DELETE", blob, 0);
	else if (rc == 0 && resp.status == 404 && resp.attempts == 1) rc = not_found(s, blob);
	/* a 404 on a retry: our first attempt deleted it */
	else if (rc == 0 && resp.status / 100 != 2 && resp.status != 404) rc = dl_az_error(s, &resp, "DELETE", blob, 0);
	dl_http_response_free(&resp);
	dl_free(blob);
	return rc;
}

/* ---- listing ---- */

/* The text of <Name> in a listing entry, decoded when the service sent it
 * percent-encoded (<Name Encoded="true">, for names XML cannot carry). */
static int entry_name(char **out, const char *x, size_t len)
{
	size_t s, e;
	DL_TRY(dl_s3_xml_element(&s, &e, x, len, 0, "Name"));
	char *raw;
	DL_TRY(dl_s3_xml_text(&raw, x, len, 0, "Name", NULL));
	/* the open tag is the '<' before the text */
	size_t open = s;
	while (open > 0 && x[open - 1] != '<') open--;
	const char *tag_end = memchr(x + open, '>', s - open);
	bool encoded = false;
	for (const char *p = x + open; tag_end && p + 14 <= tag_end; p++)
		if (strncmp(p, "Encoded=\"true\"", 14) == 0) encoded = true;
	if (!encoded) {
		*out = raw;
		return 0;
	}
	int rc = dl_http_decode(out, raw, strlen(raw));
	dl_free(raw);
	return rc;
}

static int az_list(void *impl, const char *dir, int recursive, dl_store_list_fn emit, void *payload)
{
	dl_az_store *s = impl;
	dl_buf prefix = DL_BUF_INIT;
	int rc = dl_buf_printf(&prefix, "%s%s%s", s->cfg.prefix, dir, *dir ? "/" : "");
	char *marker = NULL;
	size_t plen = strlen(s->cfg.prefix);
	char page[16];
	snprintf(page, sizeof page, "%d", s->cfg.list_page_size);
	while (rc == 0) {
		dl_az_query q[7];
		int nq = 0;
		q[nq++] = (dl_az_query){"restype", "container"};
		q[nq++] = (dl_az_query){"comp", "list"};
		q[nq++] = (dl_az_query){"prefix", prefix.data};
		/* metadata tells ADLS Gen2's directory blobs (hdi_isfolder) from files */
		q[nq++] = (dl_az_query){"include", "metadata"};
		if (!recursive) q[nq++] = (dl_az_query){"delimiter", "/"};
		if (marker) q[nq++] = (dl_az_query){"marker", marker};
		if (s->cfg.list_page_size) q[nq++] = (dl_az_query){"maxresults", page};
		dl_http_response resp;
		dl_az_req r = {.method = "GET", .query = q, .nquery = nq, .idempotent = true};
		rc = dl_az_request(&resp, s, &r, NULL);
		if (rc < 0) {
			dl_http_response_free(&resp);
			break;
		}
		if (resp.status / 100 != 2) {
			rc = dl_az_error(s, &resp, "LIST", prefix.data, 0);
			dl_http_response_free(&resp);
			break;
		}
		const char *x = resp.body.data;
		size_t xl = resp.body.len, pos = 0, bs, be;
		while (rc == 0 && x && dl_s3_xml_element(&bs, &be, x, xl, pos, "Blob") == 0) {
			char *name = NULL, *size = NULL, *lm = NULL, *folder = NULL;
			rc = entry_name(&name, x + bs, be - bs);
			if (rc == DL_ENOTFOUND)
				rc = dl_error_set(DL_ECORRUPT, "%s: a List Blobs entry without <Name>", s->uri);
			if (rc == 0 && dl_s3_xml_text(&size, x + bs, be - bs, 0, "Content-Length", NULL) < 0) size = NULL;
			if (rc == 0 && dl_s3_xml_text(&lm, x + bs, be - bs, 0, "Last-Modified", NULL) < 0) lm = NULL;
			if (rc == 0 && dl_s3_xml_text(&folder, x + bs, be - bs, 0, "hdi_isfolder", NULL) < 0) folder = NULL;
			bool is_dir = folder && strcasecmp(folder, "true") == 0;
			size_t nl = name ? strlen(name) : 0;
			if (rc == 0 && !is_dir && nl > plen && name[nl - 1] != '/') {
				int64_t t = lm ? dl_http_parse_date(lm) : 0;
				rc = emit(name + plen, size ? strtoll(size, NULL, 10) : 0, t < 0 ? 0 : t, payload);
			} else if (rc == 0 && is_dir && !recursive && nl > plen) {
				rc = emit(name + plen, -1, 0, payload); /* an ADLS Gen2 directory */
			}
			dl_free(name);
			dl_free(size);
			dl_free(lm);
			dl_free(folder);
			pos = be;
		}
		/* a non-recursive listing's BlobPrefix entries are the directories
		 * of dir (blobs "dir/x/..."): entries of size -1, the backend
		 * contract. An ADLS Gen2 directory with blobs under it is both a
		 * folder blob and a prefix: two such entries of one name are
		 * harmless, listings drop them and the log refuses the first. */
		pos = 0;
		while (rc == 0 && x && !recursive && dl_s3_xml_element(&bs, &be, x, xl, pos, "BlobPrefix") == 0) {
			char *name = NULL;
			rc = entry_name(&name, x + bs, be - bs);
			if (rc == DL_ENOTFOUND)
				rc = dl_error_set(DL_ECORRUPT, "%s: a List Blobs prefix without <Name>", s->uri);
			size_t nl = name ? strlen(name) : 0;
			if (rc == 0 && nl > plen + 1 && name[nl - 1] == '/') {
				name[nl - 1] = 0;
				rc = emit(name + plen, -1, 0, payload);
			}
			dl_free(name);
			pos = be;
		}
		dl_free(marker);
		marker = NULL;
		if (rc == 0 && x && dl_s3_xml_text(&marker, x, xl, 0, "NextMarker", NULL) < 0) marker = NULL;
		if (marker && !*marker) {
			dl_free(marker);
			marker = NULL;
		}
		dl_http_response_free(&resp);
		if (!marker) break;
	}
	dl_free(marker);
	dl_buf_free(&prefix);
	return rc;
}

/* ---- streamed writes: one block in memory, Put Block beyond it ---- */

typedef struct az_writer {
	dl_az_store *s;
	char *blob;
	dl_buf buf;     /* bytes not yet uploaded */
	char nonce[17]; /* this writer's block ids never meet another's on the same blob */
	int nblocks;
} az_writer;

static int w_open(void **state, void *impl, const char *path)
{
	az_writer *w = dl_calloc(1, sizeof *w);
	if (!w) return DL_ENOMEM;
	w->s = impl;
	unsigned char r[8];
	if (RAND_bytes(r, sizeof r) != 1) {
		dl_free(w);
		return dl_error_set(DL_ERROR, "OpenSSL's RAND_bytes failed");
	}
	for (int i = 0; i < 8; i++) snprintf(w->nonce + 2 * i, 3, "%02x", r[i]);
	int rc = dl_az_blob(&w->blob, w->s, path);
	if (rc < 0) {
		dl_free(w);
		return rc;
	}
	*state = w;
	return 0;
}

/* Block ids: base64 of "<nonce>-<index>", all of one length (the service
 * requires it within a blob). */
static int block_id(dl_buf *out, const az_writer *w, int i)
{
	char raw[32];
	int n = snprintf(raw, sizeof raw, "%s-%08d", w->nonce, i);
	return dl_az_base64(out, raw, (size_t)n);
}

static int put_block(az_writer *w)
{
	dl_buf id = DL_BUF_INIT;
	int rc = block_id(&id, w, w->nblocks);
	if (rc == 0) {
		dl_az_query q[] = {{"comp", "block"}, {"blockid", id.data}};
		dl_http_response resp;
		dl_az_req r = {.method = "PUT", .blob = w->blob, .query = q, .nquery = 2, .body = w->buf.data,
		               .body_len = w->buf.len, .idempotent = true};
		rc = dl_az_request(&resp, w->s, &r, NULL);
		if (rc == 0 && resp.status / 100 != 2) rc = dl_az_error(w->s, &resp, "Put Block", w->blob, 0);
		if (rc == 0) w->nblocks++;
		dl_http_response_free(&resp);
	}
	dl_buf_free(&id);
	dl_buf_clear(&w->buf);
	return rc;
}

static int w_write(void *state, const void *data, size_t len)
{
	az_writer *w = state;
	const uint8_t *p = data;
	size_t bs = w->s->cfg.block_size;
	while (len) {
		size_t room = bs - w->buf.len, n = len < room ? len : room;
		DL_TRY(dl_buf_append(&w->buf, p, n));
		p += n;
		len -= n;
		if (w->buf.len == bs && len) DL_TRY(put_block(w)); /* a full block and more to come */
	}
	return 0;
}

static void release(az_writer *w)
{
	dl_buf_free(&w->buf);
	dl_free(w->blob);
	dl_free(w);
}

/* After a retried Put Block List answered "exists": did an earlier attempt
 * of ours commit it? Our block ids are ours alone, so the committed list
 * starting with our first id says so. */
static int committed_by_us(bool *ours, az_writer *w)
{
	*ours = false;
	dl_az_query q[] = {{"comp", "blocklist"}, {"blocklisttype", "committed"}};
	dl_http_response resp;
	dl_az_req r = {.method = "GET", .blob = w->blob, .query = q, .nquery = 2, .idempotent = true};
	int rc = dl_az_request(&resp, w->s, &r, NULL);
	if (rc == 0 && resp.status / 100 != 2) rc = dl_az_error(w->s, &resp, "Get Block List", w->blob, 0);
	dl_buf id = DL_BUF_INIT;
	char *first = NULL;
	size_t cs, ce;
	if (rc == 0) rc = block_id(&id, w, 0);
	if (rc == 0 && dl_s3_xml_element(&cs, &ce, resp.body.data, resp.body.len, 0, "CommittedBlocks") == 0 &&
	    dl_s3_xml_text(&first, resp.body.data + cs, ce - cs, 0, "Name", NULL) == 0)
		*ours = strcmp(first, id.data) == 0;
	dl_free(first);
	dl_buf_free(&id);
	dl_http_response_free(&resp);
	return rc;
}

static int put_block_list(az_writer *w, int if_absent)
{
	dl_buf body = DL_BUF_INIT;
	int rc = dl_buf_puts(&body, "<?xml version=\"1.0\" encoding=\"utf-8\"?><BlockList>");
	for (int i = 0; rc == 0 && i < w->nblocks; i++) {
		rc = dl_buf_puts(&body, "<Latest>");
		if (rc == 0) rc = block_id(&body, w, i);
		if (rc == 0) rc = dl_buf_puts(&body, "</Latest>");
	}
	if (rc == 0) rc = dl_buf_puts(&body, "</BlockList>");
	if (rc < 0) {
		dl_buf_free(&body);
		return rc;
	}
	const char *hs[] = {"Content-Type: application/xml", "If-None-Match: *"};
	dl_az_query q[] = {{"comp", "blocklist"}};
	dl_http_response resp;
	/* a retry of a list that landed is answered "exists": checked below */
	dl_az_req r = {.method = "PUT", .blob = w->blob, .query = q, .nquery = 1, .headers = hs,
	               .nheaders = if_absent ? 2 : 1, .body = body.data, .body_len = body.len, .idempotent = true};
	rc = dl_az_request(&resp, w->s, &r, NULL);
	if (rc == 0 && (resp.status == 409 || resp.status == 412) && if_absent) {
		bool ours = false;
		if (resp.attempts > 1) rc = committed_by_us(&ours, w);
		if (rc == 0 && !ours) {
			dl_buf d = DL_BUF_INIT;
			(void)display(&d, w->s, w->blob);
			rc = dl_error_set(DL_EEXISTS, "%s: object exists", d.data ? d.data : w->blob);
			dl_buf_free(&d);
		}
	} else if (rc == 0 && resp.status / 100 != 2) {
		rc = dl_az_error(w->s, &resp, "Put Block List", w->blob, 0);
	}
	dl_http_response_free(&resp);
	dl_buf_free(&body);
	return rc;
}

static int w_commit(void *state, int if_absent)
{
	az_writer *w = state;
	int rc;
	const char *path = w->blob + strlen(w->s->cfg.prefix);
	if (w->nblocks == 0) {
		rc = if_absent ? dl_az_put_if_absent(w->s, path, w->buf.data ? w->buf.data : "", w->buf.len)
		               : az_put(w->s, path, w->buf.data ? w->buf.data : "", w->buf.len);
	} else {
		rc = w->buf.len ? put_block(w) : 0;
		if (rc == 0) rc = put_block_list(w, if_absent);
	}
	release(w);
	return rc;
}

/* Uncommitted blocks are invisible and expire on their own: nothing to undo. */
static void w_abort(void *state) { release(state); }

#define AZ_BACKEND(sch)                                                                            \
	{                                                                                              \
		.version = DL_STORE_BACKEND_VERSION, .scheme = sch, .open = az_open, .free = az_free,      \
		.get = az_get, .get_range = az_get_range, .put = az_put, .put_if_absent = dl_az_put_if_absent, \
		.list = az_list, .del = az_del, .stat = az_stat, .writer_open = w_open,                    \
		.writer_write = w_write, .writer_commit = w_commit, .writer_abort = w_abort,               \
		.delete_many = dl_az_delete_many,                                                          \
	}
const dl_store_backend dl_store_backend_az = AZ_BACKEND("az");
const dl_store_backend dl_store_backend_azure = AZ_BACKEND("azure");
const dl_store_backend dl_store_backend_abfs = AZ_BACKEND("abfs");
const dl_store_backend dl_store_backend_abfss = AZ_BACKEND("abfss");
const dl_store_backend dl_store_backend_wasb = AZ_BACKEND("wasb");
const dl_store_backend dl_store_backend_wasbs = AZ_BACKEND("wasbs");
