/* s3://bucket/prefix (and s3a://): the S3 backend (store_s3.h lists its
 * parts). Objects map to keys prefix + path; a listing is ListObjectsV2
 * (with delimiter "/" when not recursive), a stat is HEAD, a ranged read
 * GET with Range, a streamed write buffers one part and becomes a
 * multipart upload only when the object outgrows it (aborted on failure,
 * so no parts are left behind). put_if_absent is store_s3_commit.c. */
#include "storage/store_s3.h"
#include "storage/backend.h"
#include "util/error.h"
#include "util/mem.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

static const char *sys_getenv(const char *n) { return getenv(n); }

/* ---- requests ---- */

int dl_s3_key(char **out, const dl_s3_store *s, const char *path)
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

typedef struct sign_ctx {
	dl_s3_store *s;
	const dl_s3_req *r;
	const char *host;
	const char *canonical_uri;
	char payload_hash[65];
} sign_ctx;

static int cmp_str(const void *a, const void *b) { return strcmp(*(char *const *)a, *(char *const *)b); }

static int sign_cb(dl_http_headers *out, void *payload)
{
	sign_ctx *c = payload;
	const dl_s3_config *cfg = &c->s->cfg;
	char date[17];
	dl_s3_amz_date(date);
	DL_TRY(dl_http_headers_add(out, "Host: %s", c->host));
	for (int i = 0; i < c->r->nheaders; i++) DL_TRY(dl_http_headers_add(out, "%s", c->r->headers[i]));
	if (cfg->skip_signature) return 0;
	DL_TRY(dl_http_headers_add(out, "x-amz-date: %s", date));
	DL_TRY(dl_http_headers_add(out, "x-amz-content-sha256: %s", c->payload_hash));
	if (cfg->session_token) DL_TRY(dl_http_headers_add(out, "x-amz-security-token: %s", cfg->session_token));
	/* sign the caller's x-amz-* headers too (S3 requires it) */
	char *extra[DL_HTTP_MAX_HEADERS];
	int nextra = 0, rc = 0;
	for (int i = 0; rc == 0 && i < c->r->nheaders; i++) {
		const char *h = c->r->headers[i];
		if (strncasecmp(h, "x-amz-", 6) != 0 && strncasecmp(h, "content-md5", 11) != 0) continue;
		const char *colon = strchr(h, ':');
		if (!colon) continue;
		dl_buf b = DL_BUF_INIT;
		for (const char *p = h; p < colon; p++) rc = rc ? rc : dl_buf_putc(&b, (char)(*p >= 'A' && *p <= 'Z' ? *p + 32 : *p));
		const char *v = colon + 1;
		while (*v == ' ') v++;
		if (rc == 0) rc = dl_buf_printf(&b, ":%s", v);
		if (rc == 0) extra[nextra++] = dl_buf_detach(&b, NULL);
		else dl_buf_free(&b);
	}
	if (rc == 0) qsort(extra, (size_t)nextra, sizeof *extra, cmp_str);
	dl_buf auth = DL_BUF_INIT;
	if (rc == 0) {
		dl_s3_sign_input in = {
			.method = c->r->method, .host = c->host, .canonical_uri = c->canonical_uri,
			.canonical_query = c->r->query ? c->r->query : "", .extra = (const char *const *)extra,
			.nextra = nextra, .payload_sha256 = c->payload_hash, .amz_date = date, .region = cfg->region,
			.service = "s3", .access_key_id = cfg->access_key_id,
			.secret_access_key = cfg->secret_access_key, .session_token = cfg->session_token,
		};
		rc = dl_s3_sign(&auth, &in);
	}
	for (int i = 0; i < nextra; i++) dl_free(extra[i]);
	if (rc == 0) rc = dl_http_headers_add(out, "Authorization: %s", auth.data);
	if (auth.data) memset(auth.data, 0, auth.len);
	dl_buf_free(&auth);
	return rc;
}

int dl_s3_request(dl_http_response *resp, dl_s3_store *s, const dl_s3_req *r, bool *ambiguous)
{
	memset(resp, 0, sizeof *resp);
	if (ambiguous) *ambiguous = false;
	const dl_s3_config *cfg = &s->cfg;
	const char *ep = cfg->endpoint;
	const char *scheme_end = strstr(ep, "://") + 3;
	dl_buf host = DL_BUF_INIT, path = DL_BUF_INIT, url = DL_BUF_INIT, disp = DL_BUF_INIT;
	int rc = 0;
	if (cfg->virtual_hosted) rc = dl_buf_printf(&host, "%s.%s", cfg->bucket, scheme_end);
	else rc = dl_buf_puts(&host, scheme_end);
	if (rc == 0) rc = dl_buf_putc(&path, '/');
	if (rc == 0 && !cfg->virtual_hosted) {
		rc = dl_http_encode(&path, cfg->bucket, strlen(cfg->bucket), false);
		if (rc == 0 && r->key) rc = dl_buf_putc(&path, '/');
	}
	if (rc == 0 && r->key) rc = dl_http_encode(&path, r->key, strlen(r->key), true);
	if (rc == 0)
		rc = dl_buf_printf(&url, "%.*s%s%s%s%s", (int)(scheme_end - ep), ep, host.data, path.data,
		                   r->query && *r->query ? "?" : "", r->query ? r->query : "");
	if (rc == 0) rc = dl_buf_printf(&disp, "s3://%s/%s", cfg->bucket, r->key ? r->key : "");
	sign_ctx sc = {.s = s, .r = r, .host = host.data, .canonical_uri = path.data};
	if (rc == 0) {
		dl_s3_sha256_hex(sc.payload_hash, r->body, r->body_len);
		dl_http_request hr = {
			.method = r->method, .url = url.data, .display = disp.data, .body = r->body,
			.body_len = r->body_len, .idempotent = r->idempotent, .sign = sign_cb, .payload = &sc,
			.dest = r->dest, .dest_cap = r->dest_cap,
		};
		rc = dl_http_send(resp, s->http, &hr, ambiguous);
	}
	dl_buf_free(&host);
	dl_buf_free(&path);
	dl_buf_free(&url);
	dl_buf_free(&disp);
	return rc;
}

int dl_s3_error(dl_s3_store *s, const dl_http_response *resp, const char *op, const char *key, int code)
{
	char *ecode = NULL, *emsg = NULL;
	if (resp->body.len) {
		(void)dl_s3_xml_text(&ecode, resp->body.data, resp->body.len, 0, "Code", NULL);
		(void)dl_s3_xml_text(&emsg, resp->body.data, resp->body.len, 0, "Message", NULL);
	}
	if (emsg && !*emsg) {
		dl_free(emsg);
		emsg = NULL;
	}
	long st = resp->status;
	const char *c = ecode ? ecode : "";
	/* a missing bucket is not a missing object: "no such table" would hide it */
	if (strcmp(c, "NoSuchBucket") == 0) code = DL_EIO;
	if (!code) {
		if (st == 404) code = DL_ENOTFOUND;
		else if (st == 412) code = DL_EEXISTS;
		else if (st == 403 || st == 401) code = DL_EPERM;
		else code = DL_EIO;
	}
	const char *hint;
	if (strcmp(c, "NoSuchBucket") == 0 || (st == 404 && !key))
		hint = "check the bucket name and the endpoint";
	else if (strcmp(c, "AuthorizationHeaderMalformed") == 0 || strcmp(c, "PermanentRedirect") == 0 ||
	         strcmp(c, "IllegalLocationConstraintException") == 0 || st == 301)
		hint = "check the region (store option region or AWS_REGION)";
	else if (st == 403 || st == 401)
		hint = "check the credentials (access key id and secret) and the bucket policy";
	else if (st == 400)
		hint = "check the region and the endpoint";
	else if (st >= 500)
		hint = "the service failed; retry later";
	else
		hint = "check the endpoint";
	const char *cs = s->cfg.cred_source ? s->cfg.cred_source : "none (unsigned)";
	bool cred_hint = st == 403 || st == 401;
	int rc = dl_error_set(code, "s3://%s/%s: %s failed: HTTP %ld%s%s%s%s (%s%s%s; endpoint %s, region %s)",
	                      s->cfg.bucket, key ? key : "", op, st, ecode ? " " : "", c, emsg ? ": " : "",
	                      emsg ? emsg : "", hint, cred_hint ? "; credentials from " : "",
	                      cred_hint ? cs : "", s->cfg.endpoint, s->cfg.region);
	dl_free(ecode);
	dl_free(emsg);
	return rc;
}

/* ---- open / free ---- */

static int open_common(void **impl, const char *uri, const dl_store_options *opts)
{
	dl_s3_store *s = dl_calloc(1, sizeof *s);
	if (!s) return DL_ENOMEM;
	int rc = dl_s3_config_load(&s->cfg, uri, opts, sys_getenv, NULL);
	if (rc < 0) {
		dl_free(s);
		return rc;
	}
	size_t n = strlen(uri);
	while (n && uri[n - 1] == '/') n--;
	s->uri = dl_strndup(uri, n);
	dl_http_config hc;
	dl_http_config_from_options(&hc, opts);
	rc = s->uri ? dl_http_new(&s->http, &hc) : DL_ENOMEM;
	if (rc < 0) {
		dl_s3_config_free(&s->cfg);
		dl_free(s->uri);
		dl_free(s);
		return rc;
	}
	pthread_mutex_init(&s->mu, NULL);
	*impl = s;
	return 0;
}

static int s3_open(void **impl, const char *uri, const dl_store_options *opts, void *payload)
{
	(void)payload;
	return open_common(impl, uri, opts);
}

static void s3_free(void *impl)
{
	dl_s3_store *s = impl;
	dl_http_free(s->http);
	dl_s3_config_free(&s->cfg);
	pthread_mutex_destroy(&s->mu);
	dl_free(s->uri);
	dl_free(s);
}

/* ---- reads ---- */

static int s3_get(uint8_t **data, size_t *len, void *impl, const char *path)
{
	dl_s3_store *s = impl;
	char *key;
	DL_TRY(dl_s3_key(&key, s, path));
	dl_http_response resp;
	dl_s3_req r = {.method = "GET", .key = key, .idempotent = true};
	int rc = dl_s3_request(&resp, s, &r, NULL);
	if (rc == 0 && resp.status == 404 && resp.body.data && strstr(resp.body.data, "<Code>NoSuchBucket<")) {
		rc = dl_s3_error(s, &resp, "GET", key, 0);
	} else if (rc == 0 && resp.status == 404) {
		rc = dl_error_set(DL_ENOTFOUND, "s3://%s/%s: no such object", s->cfg.bucket, key);
	} else if (rc == 0 && resp.status / 100 != 2) {
		rc = dl_s3_error(s, &resp, "GET", key, 0);
	} else if (rc == 0) {
		rc = dl_http_take_body(data, len, &resp);
	}
	dl_http_response_free(&resp);
	dl_free(key);
	return rc;
}

static int s3_get_range(uint8_t *buf, size_t *got, void *impl, const char *path, int64_t offset, size_t len)
{
	dl_s3_store *s = impl;
	*got = 0;
	if (len == 0) return 0;
	char *key;
	DL_TRY(dl_s3_key(&key, s, path));
	char range[80];
	dl_http_range_header(range, sizeof range, "Range", offset, len);
	const char *hs[] = {range};
	dl_http_response resp;
	dl_s3_req r = {.method = "GET", .key = key, .headers = hs, .nheaders = 1, .idempotent = true,
	               .dest = buf, .dest_cap = len};
	int rc = dl_s3_request(&resp, s, &r, NULL);
	if (rc == 0 && resp.status == 404) rc = dl_error_set(DL_ENOTFOUND, "s3://%s/%s: no such object", s->cfg.bucket, key);
	else if (rc == 0 && !dl_http_range_result(got, &resp, offset)) rc = dl_s3_error(s, &resp, "ranged GET", key, 0);
	dl_http_response_free(&resp);
	dl_free(key);
	return rc;
}

static int head(int64_t *size, int64_t *mtime, dl_s3_store *s, const char *key)
{
	dl_http_response resp;
	dl_s3_req r = {.method = "HEAD", .key = key, .idempotent = true};
	int rc = dl_s3_request(&resp, s, &r, NULL);
	if (rc == 0 && resp.status == 404) rc = dl_error_set(DL_ENOTFOUND, "s3://%s/%s: no such object", s->cfg.bucket, key);
	else if (rc == 0 && resp.status / 100 != 2) rc = dl_s3_error(s, &resp, "HEAD", key, 0);
	else if (rc == 0) dl_http_head_result(size, mtime, &resp);
	dl_http_response_free(&resp);
	return rc;
}

static int s3_stat(int64_t *size, int64_t *mtime, void *impl, const char *path)
{
	dl_s3_store *s = impl;
	char *key;
	DL_TRY(dl_s3_key(&key, s, path));
	int rc = head(size, mtime, s, key);
	dl_free(key);
	return rc;
}

/* ---- writes ---- */

static int s3_put(void *impl, const char *path, const void *data, size_t len)
{
	dl_s3_store *s = impl;
	char *key;
	DL_TRY(dl_s3_key(&key, s, path));
	dl_http_response resp;
	dl_s3_req r = {.method = "PUT", .key = key, .body = data, .body_len = len, .idempotent = true};
	int rc = dl_s3_request(&resp, s, &r, NULL);
	if (rc == 0 && resp.status / 100 != 2) rc = dl_s3_error(s, &resp, "PUT", key, 0);
	dl_http_response_free(&resp);
	dl_free(key);
	return rc;
}

/* S3 answers DELETE of a missing key with 204, so a HEAD first tells
 * DL_ENOTFOUND (the contract) from a deletion. */
static int s3_del(void *impl, const char *path)
{
	dl_s3_store *s = impl;
	char *key;
	DL_TRY(dl_s3_key(&key, s, path));
	int64_t size, mtime;
	int rc = head(&size, &mtime, s, key);
	if (rc == 0) {
		dl_http_response resp;
		dl_s3_req r = {.method = "DELETE", .key = key, .idempotent = true};
		rc = dl_s3_request(&resp, s, &r, NULL);
		if (rc == 0 && resp.status / 100 != 2 && resp.status != 404) rc = dl_s3_error(s, &resp, "DELETE", key, 0);
		dl_http_response_free(&resp);
	}
	dl_free(key);
	return rc;
}

/* ---- listing ---- */

/* ListObjectsV2 of dir, from start_name on when given: start-after is
 * exclusive, so it names the key of start_name without its last
 * character, which sorts before start_name and after every name before it
 * that is not a prefix of it (those few are filtered by dl_store). */
static int list_objects(dl_s3_store *s, const char *dir, int recursive, const char *start_name,
                        dl_store_list_fn emit, void *payload)
{
	dl_buf prefix = DL_BUF_INIT, after = DL_BUF_INIT;
	int rc = dl_buf_printf(&prefix, "%s%s%s", s->cfg.prefix, dir, *dir ? "/" : "");
	if (rc == 0 && start_name && strlen(start_name) > 1)
		rc = dl_buf_printf(&after, "%s%.*s", prefix.data, (int)strlen(start_name) - 1, start_name);
	char *token = NULL;
	size_t plen = strlen(s->cfg.prefix);
	while (rc == 0) {
		/* canonical order: continuation-token, delimiter, encoding-type, list-type, prefix */
		dl_buf q = DL_BUF_INIT;
		if (token) {
			rc = dl_buf_puts(&q, "continuation-token=");
			if (rc == 0) rc = dl_http_encode(&q, token, strlen(token), false);
			if (rc == 0) rc = dl_buf_putc(&q, '&');
		}
		if (rc == 0 && !recursive) rc = dl_buf_puts(&q, "delimiter=%2F&");
		if (rc == 0) rc = dl_buf_puts(&q, "encoding-type=url&list-type=2&prefix=");
		if (rc == 0) rc = dl_http_encode(&q, prefix.data, prefix.len, false);
		if (rc == 0 && after.len) rc = dl_buf_puts(&q, "&start-after=");
		if (rc == 0 && after.len) rc = dl_http_encode(&q, after.data, after.len, false);
		dl_http_response resp;
		bool sent = false;
		if (rc == 0) {
			dl_s3_req r = {.method = "GET", .key = NULL, .query = q.data, .idempotent = true};
			rc = dl_s3_request(&resp, s, &r, NULL);
			sent = true;
		}
		dl_buf_free(&q);
		if (rc == 0 && resp.status / 100 != 2) rc = dl_s3_error(s, &resp, "LIST", prefix.data, 0);
		const char *x = sent ? resp.body.data : NULL;
		size_t xl = sent ? resp.body.len : 0;
		size_t pos = 0, cs, ce;
		while (rc == 0 && x && dl_s3_xml_element(&cs, &ce, x, xl, pos, "Contents") == 0) {
			char *ekey = NULL, *key = NULL, *size = NULL, *lm = NULL;
			rc = dl_s3_xml_text(&ekey, x + cs, ce - cs, 0, "Key", NULL);
			if (rc == 0) rc = dl_http_decode(&key, ekey, strlen(ekey));
			if (rc == 0 && dl_s3_xml_text(&size, x + cs, ce - cs, 0, "Size", NULL) < 0) size = NULL;
			if (rc == 0 && dl_s3_xml_text(&lm, x + cs, ce - cs, 0, "LastModified", NULL) < 0) lm = NULL;
			if (rc == DL_ENOTFOUND) rc = dl_error_set(DL_ECORRUPT, "s3://%s: a listing entry without <Key>", s->cfg.bucket);
			/* keys ending in '/' are folder markers of consoles, not objects */
			if (rc == 0 && strlen(key) > plen && key[strlen(key) - 1] != '/') {
				int64_t t = lm ? dl_http_parse_date(lm) : 0;
				rc = emit(key + plen, size ? strtoll(size, NULL, 10) : 0, t < 0 ? 0 : t, payload);
			}
			dl_free(ekey);
			dl_free(key);
			dl_free(size);
			dl_free(lm);
			pos = ce;
		}
		/* a non-recursive listing's CommonPrefixes are the directories of
		 * dir (keys "dir/x/..."): entries of size -1, the backend contract */
		pos = 0;
		while (rc == 0 && x && !recursive && dl_s3_xml_element(&cs, &ce, x, xl, pos, "CommonPrefixes") == 0) {
			char *epre = NULL, *pre = NULL;
			rc = dl_s3_xml_text(&epre, x + cs, ce - cs, 0, "Prefix", NULL);
			if (rc == 0) rc = dl_http_decode(&pre, epre, strlen(epre));
			if (rc == DL_ENOTFOUND)
				rc = dl_error_set(DL_ECORRUPT, "s3://%s: a CommonPrefixes entry without <Prefix>", s->cfg.bucket);
			size_t n = pre ? strlen(pre) : 0;
			if (rc == 0 && n > plen + 1 && pre[n - 1] == '/') {
				pre[n - 1] = 0;
				rc = emit(pre + plen, -1, 0, payload);
			}
			dl_free(epre);
			dl_free(pre);
			pos = ce;
		}
		char *trunc = NULL;
		bool more = false;
		if (rc == 0 && x && dl_s3_xml_text(&trunc, x, xl, 0, "IsTruncated", NULL) == 0) more = strcmp(trunc, "true") == 0;
		dl_free(trunc);
		dl_free(token);
		token = NULL;
		if (rc == 0 && more) {
			if (dl_s3_xml_text(&token, x, xl, 0, "NextContinuationToken", NULL) < 0)
				rc = dl_error_set(DL_ECORRUPT, "s3://%s/%s: a truncated listing without NextContinuationToken",
				                  s->cfg.bucket, prefix.data);
		}
		if (sent) dl_http_response_free(&resp);
		if (!more) break;
	}
	dl_free(token);
	dl_buf_free(&prefix);
	dl_buf_free(&after);
	return rc;
}

static int s3_list(void *impl, const char *dir, int recursive, dl_store_list_fn emit, void *payload)
{
	return list_objects(impl, dir, recursive, NULL, emit, payload);
}

static int s3_list_from(void *impl, const char *dir, const char *start_name, dl_store_list_fn emit, void *payload)
{
	return list_objects(impl, dir, 0, start_name, emit, payload);
}

/* ---- streamed writes: one part in memory, multipart beyond it ---- */

typedef struct s3_writer {
	dl_s3_store *s;
	char *key;
	dl_buf buf;        /* bytes not yet uploaded */
	char *upload_id;   /* NULL until the object outgrows one part */
	char **etags;
	int nparts, capparts;
} s3_writer;

static int w_open(void **state, void *impl, const char *path)
{
	s3_writer *w = dl_calloc(1, sizeof *w);
	if (!w) return DL_ENOMEM;
	w->s = impl;
	int rc = dl_s3_key(&w->key, w->s, path);
	if (rc < 0) {
		dl_free(w);
		return rc;
	}
	*state = w;
	return 0;
}

static int start_upload(s3_writer *w)
{
	dl_http_response resp;
	dl_s3_req r = {.method = "POST", .key = w->key, .query = "uploads=", .idempotent = true};
	int rc = dl_s3_request(&resp, w->s, &r, NULL);
	if (rc == 0 && resp.status / 100 != 2) rc = dl_s3_error(w->s, &resp, "CreateMultipartUpload", w->key, 0);
	if (rc == 0 && dl_s3_xml_text(&w->upload_id, resp.body.data, resp.body.len, 0, "UploadId", NULL) < 0)
		rc = dl_error_set(DL_ECORRUPT, "s3://%s/%s: CreateMultipartUpload answered without an UploadId",
		                  w->s->cfg.bucket, w->key);
	dl_http_response_free(&resp);
	return rc;
}

static int query_upload(dl_buf *q, const char *upload_id, int part)
{
	if (part > 0) DL_TRY(dl_buf_printf(q, "partNumber=%d&", part));
	DL_TRY(dl_buf_puts(q, "uploadId="));
	return dl_http_encode(q, upload_id, strlen(upload_id), false);
}

static int upload_part(s3_writer *w)
{
	if (w->nparts == w->capparts) {
		int nc = w->capparts ? w->capparts * 2 : 16;
		char **p = dl_reallocarray(w->etags, (size_t)nc, sizeof *p);
		if (!p) return DL_ENOMEM;
		w->etags = p;
		w->capparts = nc;
	}
	dl_buf q = DL_BUF_INIT;
	int rc = query_upload(&q, w->upload_id, w->nparts + 1);
	dl_http_response resp;
	if (rc == 0) {
		dl_s3_req r = {.method = "PUT", .key = w->key, .query = q.data, .body = w->buf.data,
		               .body_len = w->buf.len, .idempotent = true};
		rc = dl_s3_request(&resp, w->s, &r, NULL);
		if (rc == 0 && resp.status / 100 != 2) rc = dl_s3_error(w->s, &resp, "UploadPart", w->key, 0);
		if (rc == 0 && !resp.etag[0])
			rc = dl_error_set(DL_ECORRUPT, "s3://%s/%s: UploadPart answered without an ETag", w->s->cfg.bucket, w->key);
		if (rc == 0) {
			w->etags[w->nparts] = dl_strdup(resp.etag);
			if (!w->etags[w->nparts]) rc = DL_ENOMEM;
			else w->nparts++;
		}
		dl_http_response_free(&resp);
	}
	dl_buf_free(&q);
	dl_buf_clear(&w->buf);
	return rc;
}

static int w_write(void *state, const void *data, size_t len)
{
	s3_writer *w = state;
	const uint8_t *p = data;
	size_t ps = w->s->cfg.part_size;
	while (len) {
		size_t room = ps - w->buf.len, n = len < room ? len : room;
		DL_TRY(dl_buf_append(&w->buf, p, n));
		p += n;
		len -= n;
		if (w->buf.len == ps && len) {
			/* a full part and more to come: upload it */
			if (!w->upload_id) DL_TRY(start_upload(w));
			DL_TRY(upload_part(w));
		}
	}
	return 0;
}

static void release(s3_writer *w)
{
	for (int i = 0; i < w->nparts; i++) dl_free(w->etags[i]);
	dl_free(w->etags);
	dl_free(w->upload_id);
	dl_buf_free(&w->buf);
	dl_free(w->key);
	dl_free(w);
}

static void abort_upload(s3_writer *w)
{
	if (!w->upload_id) return;
	dl_buf q = DL_BUF_INIT;
	if (query_upload(&q, w->upload_id, 0) == 0) {
		dl_http_response resp;
		dl_s3_req r = {.method = "DELETE", .key = w->key, .query = q.data, .idempotent = true};
		if (dl_s3_request(&resp, w->s, &r, NULL) == 0) dl_http_response_free(&resp);
	}
	dl_buf_free(&q);
}

static int complete(s3_writer *w, int if_absent)
{
	dl_buf body = DL_BUF_INIT, q = DL_BUF_INIT;
	int rc = dl_buf_puts(&body, "<CompleteMultipartUpload>");
	for (int i = 0; rc == 0 && i < w->nparts; i++) {
		rc = dl_buf_printf(&body, "<Part><PartNumber>%d</PartNumber><ETag>", i + 1);
		if (rc == 0) rc = dl_s3_xml_escape(&body, w->etags[i]);
		if (rc == 0) rc = dl_buf_puts(&body, "</ETag></Part>");
	}
	if (rc == 0) rc = dl_buf_puts(&body, "</CompleteMultipartUpload>");
	if (rc == 0) rc = query_upload(&q, w->upload_id, 0);
	const char *hs[] = {"Content-Type: application/xml", "If-None-Match: *"};
	dl_http_response resp;
	if (rc == 0) {
		/* a repeated Complete of a finished upload fails with NoSuchUpload;
		 * retrying is safe, and a 404 after a retry is checked below */
		dl_s3_req r = {.method = "POST", .key = w->key, .query = q.data, .headers = hs,
		               .nheaders = if_absent ? 2 : 1, .body = body.data, .body_len = body.len,
		               .idempotent = true};
		rc = dl_s3_request(&resp, w->s, &r, NULL);
		/* S3 may answer 200 with an <Error> body */
		if (rc == 0 && resp.status == 200 && resp.body.data && strstr(resp.body.data, "<Error>")) resp.status = 500;
		if (rc == 0 && resp.status == 412) rc = dl_error_set(DL_EEXISTS, "s3://%s/%s: object exists", w->s->cfg.bucket, w->key);
		else if (rc == 0 && resp.status == 404 && resp.attempts > 1) {
			int64_t size, mtime;
			rc = head(&size, &mtime, w->s, w->key); /* it completed on an earlier attempt */
		} else if (rc == 0 && resp.status / 100 != 2) rc = dl_s3_error(w->s, &resp, "CompleteMultipartUpload", w->key, 0);
		dl_http_response_free(&resp);
	}
	dl_buf_free(&body);
	dl_buf_free(&q);
	return rc;
}

static int w_commit(void *state, int if_absent)
{
	s3_writer *w = state;
	int rc;
	if (!w->upload_id) {
		rc = if_absent ? dl_s3_put_if_absent(w->s, w->key + strlen(w->s->cfg.prefix), w->buf.data, w->buf.len)
		               : s3_put(w->s, w->key + strlen(w->s->cfg.prefix), w->buf.data ? w->buf.data : "", w->buf.len);
	} else {
		rc = w->buf.len ? upload_part(w) : 0;
		if (rc == 0) rc = complete(w, if_absent);
		if (rc < 0) abort_upload(w);
	}
	release(w);
	return rc;
}

static void w_abort(void *state)
{
	s3_writer *w = state;
	abort_upload(w);
	release(w);
}

#define S3_BACKEND(sch)                                                                            \
	{                                                                                              \
		.version = DL_STORE_BACKEND_VERSION, .scheme = sch, .open = s3_open, .free = s3_free,      \
		.get = s3_get, .get_range = s3_get_range, .put = s3_put, .put_if_absent = dl_s3_put_if_absent, \
		.list = s3_list, .list_from = s3_list_from, .delete_many = dl_s3_delete_many, .del = s3_del, .stat = s3_stat, .writer_open = w_open,                    \
		.writer_write = w_write, .writer_commit = w_commit, .writer_abort = w_abort,               \
	}
const dl_store_backend dl_store_backend_s3 = S3_BACKEND("s3");
const dl_store_backend dl_store_backend_s3a = S3_BACKEND("s3a");
