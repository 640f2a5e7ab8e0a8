/* Requests to a sharing server and to the pre-signed URLs it hands out, on
 * libcurl. Its own easy handles rather than storage/http.c's: the protocol
 * answers through a response header (Delta-Table-Version) that the store
 * layer's client does not surface, and the server's URLs carry their own
 * authorization (a bearer token must never go to them).
 *
 * Every request of the client is a read (POST .../query included: it
 * changes nothing), so each is retried on what a retry can cure: no
 * response, 429 and 5xx, with doubling backoff and full jitter. */
#include <curl/curl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>
#include "json/json.h"
#include "sharing/client.h"
#include "util/error.h"
#include "util/mem.h"
#include "util/time.h"

static pthread_once_t g_once = PTHREAD_ONCE_INIT;
static CURLcode g_init_rc;
static void global_init(void) { g_init_rc = curl_global_init(CURL_GLOBAL_DEFAULT); }

void sh_response_free(sh_response *r)
{
	dl_buf_free(&r->body);
}

typedef struct sink {
	sh_response *resp;
	const sh_request *req;
	int overflow;
} sink;

static size_t on_body(char *p, size_t sz, size_t nm, void *ud)
{
	sink *s = ud;
	size_t n = sz * nm;
	long st = 0;
	/* Only a 2xx body of a ranged read goes to dest; errors are kept. */
	if (s->req->dest && s->resp->status >= 200 && s->resp->status < 300) {
		if (s->resp->dest_len + n > s->req->dest_cap) {
			s->overflow = 1;
			return 0;
		}
		memcpy(s->req->dest + s->resp->dest_len, p, n);
		s->resp->dest_len += n;
		return n;
	}
	(void)st;
	if (s->req->on_body && s->resp->status >= 200 && s->resp->status < 300) {
		if (n) s->resp->delivered = true;
		int rc = s->req->on_body(p, n, s->req->body_payload);
		if (rc < 0) {
			s->resp->cb_rc = rc;
			return 0; /* stops the transfer */
		}
		return n;
	}
	/* Bound error bodies and listings: 1 GiB would be a broken server. */
	if (s->resp->body.len + n > ((size_t)1 << 30)) return 0;
	return dl_buf_append(&s->resp->body, p, n) == 0 ? n : 0;
}

static size_t on_header(char *p, size_t sz, size_t nm, void *ud)
{
	sink *s = ud;
	size_t n = sz * nm;
	if (n > 5 && strncmp(p, "HTTP/", 5) == 0) {
		/* a new response (after a redirect or 100-continue) */
		const char *sp = memchr(p, ' ', n);
		s->resp->status = sp ? strtol(sp + 1, NULL, 10) : 0;
		s->resp->table_version = -1;
		return n;
	}
	static const char key[] = "delta-table-version:";
	if (n > sizeof key - 1 && strncasecmp(p, key, sizeof key - 1) == 0) {
		char tmp[32];
		size_t k = n - (sizeof key - 1);
		if (k >= sizeof tmp) k = sizeof tmp - 1;
		memcpy(tmp, p + sizeof key - 1, k);
		tmp[k] = 0;
		char *end;
		long long v = strtoll(tmp, &end, 10);
		if (end != tmp && v >= 0) s->resp->table_version = v;
	}
	return n;
}

static void sleep_ms(long ms)
{
	struct timespec ts = {ms / 1000, (ms % 1000) * 1000000L};
	while (nanosleep(&ts, &ts) != 0) {
	}
}

static int attempt(sh_response *resp, dl_sharing_client *c, const sh_request *req,
                   const char *token, char *err, size_t errcap)
{
	CURL *h = NULL;
	pthread_mutex_lock(&c->pool_mu);
	if (c->nidle) h = c->idle[--c->nidle];
	pthread_mutex_unlock(&c->pool_mu);
	if (!h) h = curl_easy_init();
	if (!h) return DL_ENOMEM;
	struct curl_slist *hdrs = NULL;
	char line[512];
	dl_buf auth = DL_BUF_INIT;
	int rc = 0;
	if (token) {
		rc = dl_buf_printf(&auth, "Authorization: Bearer %s", token);
		if (rc == 0) hdrs = curl_slist_append(hdrs, auth.data);
	}
	if (req->capabilities) {
		snprintf(line, sizeof line, "delta-sharing-capabilities: responseformat=%s%s%s",
		         c->response_format, c->reader_features[0] ? ";readerfeatures=" : "",
		         c->reader_features);
		hdrs = curl_slist_append(hdrs, line);
	}
	if (req->body) hdrs = curl_slist_append(hdrs, "Content-Type: application/json; charset=utf-8");
	if (req->form) hdrs = curl_slist_append(hdrs, "Content-Type: application/x-www-form-urlencoded");
	hdrs = curl_slist_append(hdrs, "Expect:");
	sink s = {resp, req, 0};
	char ebuf[CURL_ERROR_SIZE] = "";
	curl_easy_setopt(h, CURLOPT_URL, req->url);
	curl_easy_setopt(h, CURLOPT_NOSIGNAL, 1L);
	curl_easy_setopt(h, CURLOPT_HTTPHEADER, hdrs);
	curl_easy_setopt(h, CURLOPT_WRITEFUNCTION, on_body);
	curl_easy_setopt(h, CURLOPT_WRITEDATA, &s);
	curl_easy_setopt(h, CURLOPT_HEADERFUNCTION, on_header);
	curl_easy_setopt(h, CURLOPT_HEADERDATA, &s);
	curl_easy_setopt(h, CURLOPT_ERRORBUFFER, ebuf);
	curl_easy_setopt(h, CURLOPT_TIMEOUT_MS, c->timeout_ms);
	curl_easy_setopt(h, CURLOPT_CONNECTTIMEOUT_MS, 30000L);
	curl_easy_setopt(h, CURLOPT_USERAGENT, "deltalake-sharing/1");
	/* a server's URL is fetched as given: never file://, ftp:// or the like */
	curl_easy_setopt(h, CURLOPT_PROTOCOLS_STR, "http,https");
	curl_easy_setopt(h, CURLOPT_REDIR_PROTOCOLS_STR, "http,https");
	curl_easy_setopt(h, CURLOPT_MAXREDIRS, 5L);
	/* A pre-signed URL may redirect (S3 regions); a redirect never carries
	 * our Authorization header to another host (curl's default). */
	curl_easy_setopt(h, CURLOPT_FOLLOWLOCATION, req->auth ? 0L : 1L);
	if (req->range) curl_easy_setopt(h, CURLOPT_RANGE, req->range);
	if (strcmp(req->method, "HEAD") == 0) curl_easy_setopt(h, CURLOPT_NOBODY, 1L);
	const char *post = req->body ? req->body : req->form;
	if (post) {
		curl_easy_setopt(h, CURLOPT_POSTFIELDS, post);
		curl_easy_setopt(h, CURLOPT_POSTFIELDSIZE, (long)strlen(post));
	}
	if (req->basic_user) {
		curl_easy_setopt(h, CURLOPT_HTTPAUTH, CURLAUTH_BASIC);
		curl_easy_setopt(h, CURLOPT_USERNAME, req->basic_user);
		curl_easy_setopt(h, CURLOPT_PASSWORD, req->basic_password);
	}
	CURLcode cr = rc == 0 ? curl_easy_perform(h) : CURLE_OUT_OF_MEMORY;
	if (cr == CURLE_OK) {
		long st = 0;
		curl_easy_getinfo(h, CURLINFO_RESPONSE_CODE, &st);
		resp->status = st;
	} else {
		resp->status = 0;
		resp->fatal = cr == CURLE_UNSUPPORTED_PROTOCOL || cr == CURLE_URL_MALFORMAT;
		snprintf(err, errcap, "%s", s.overflow ? "the server sent more bytes than asked for"
		                                   : (ebuf[0] ? ebuf : curl_easy_strerror(cr)));
	}
	curl_slist_free_all(hdrs);
	if (auth.data) memset(auth.data, 0, auth.len);
	dl_buf_free(&auth);
	/* reset drops the options (our headers, a token) but keeps the
	 * handle's connection cache */
	curl_easy_reset(h);
	pthread_mutex_lock(&c->pool_mu);
	if (c->nidle < (int)(sizeof c->idle / sizeof *c->idle)) {
		c->idle[c->nidle++] = h;
		h = NULL;
	}
	pthread_mutex_unlock(&c->pool_mu);
	if (h) curl_easy_cleanup(h);
	return rc;
}

int sh_http_send(sh_response *resp, dl_sharing_client *c, const sh_request *req)
{
	pthread_once(&g_once, global_init);
	if (g_init_rc != CURLE_OK) return dl_error_set(DL_EIO, "libcurl failed to initialize");
	memset(resp, 0, sizeof *resp);
	resp->table_version = -1;
	char *token = NULL;
	if (req->auth) DL_TRY(sh_auth_token(&token, c));
	char err[CURL_ERROR_SIZE + 64] = "";
	long backoff = 200;
	int rc = 0;
	for (int i = 1; i <= c->max_attempts; i++) {
		dl_buf_clear(&resp->body);
		resp->dest_len = 0;
		resp->table_version = -1;
		resp->fatal = false;
		rc = attempt(resp, c, req, token, err, sizeof err);
		if (rc < 0) break;
		if (resp->cb_rc < 0) {
			rc = resp->cb_rc;
			break;
		}
		/* what was handed over cannot be taken back: no second attempt */
		if (resp->delivered && resp->status == 0) {
			rc = dl_error_set(DL_EIO, "%s %s: the answer broke off: %s", req->method, req->display, err);
			break;
		}
		bool retry = (resp->status == 0 && !resp->fatal) || resp->status == 429 || resp->status >= 500;
		if (!retry || i == c->max_attempts) break;
		long wait = backoff / 2 + (long)(rand() % (int)(backoff / 2 + 1));
		sleep_ms(wait);
		if (backoff < 8000) backoff *= 2;
	}
	if (token) memset(token, 0, strlen(token));
	dl_free(token);
	if (rc == 0 && resp->status == 0)
		rc = resp->fatal ? dl_error_set(DL_EINVALID, "%s %s: %s", req->method, req->display, err)
		                 : dl_error_set(DL_EIO, "%s %s: no response after %d attempts: %s", req->method,
		                                req->display, c->max_attempts, err);
	if (rc < 0) dl_buf_free(&resp->body);
	return rc;
}

int sh_http_error(const sh_response *resp, const sh_request *req)
{
	const char *code = NULL, *msg = NULL;
	dl_arena a = DL_ARENA_INIT;
	dl_json *v;
	if (resp->body.len && dl_json_parse(&a, resp->body.data, resp->body.len, "error", &v) == 0 &&
	    v->kind == DL_JSON_OBJECT) {
		code = dl_json_get_str(v, "errorCode");
		msg = dl_json_get_str(v, "message");
	}
	int e = resp->status == 404 ? DL_ENOTFOUND
	        : resp->status == 401 || resp->status == 403 ? DL_EPERM
	        : resp->status == 400 ? DL_EINVALID
	                              : DL_EIO;
	const char *hint = resp->status == 401 ? " (the token was refused: check the profile)"
	                   : resp->status == 404 ? " (not shared with this recipient, or no such name)"
	                                         : "";
	dl_error_set(e, "%s %s: HTTP %ld%s%s%s%.300s%s", req->method, req->display, resp->status,
	             code ? " " : "", code ? code : "", msg ? ": " : "", msg ? msg : "", hint);
	dl_arena_free(&a);
	return e;
}

/* ---- tokens ---- */

static int fetch_oauth(dl_sharing_client *c)
{
	const dl_sharing_profile *p = c->profile;
	dl_buf form = DL_BUF_INIT, enc = DL_BUF_INIT;
	int rc = dl_buf_puts(&form, "grant_type=client_credentials");
	if (rc == 0 && p->scope) {
		char *e = curl_easy_escape(NULL, p->scope, 0);
		rc = e ? dl_buf_printf(&form, "&scope=%s", e) : DL_ENOMEM;
		curl_free(e);
	}
	dl_buf_free(&enc);
	sh_request req = {.method = "POST", .url = p->token_endpoint, .display = p->token_endpoint,
	                  .form = form.data, .basic_user = p->client_id,
	                  .basic_password = p->client_secret};
	sh_response resp;
	if (rc == 0) rc = sh_http_send(&resp, c, &req);
	dl_buf_free(&form);
	if (rc < 0) return dl_error_prefix("profile %s: getting an OAuth token", p->source);
	if (resp.status < 200 || resp.status >= 300) {
		sh_http_error(&resp, &req);
		sh_response_free(&resp);
		return dl_error_prefix("profile %s: the token endpoint refused the client credentials",
		                       p->source);
	}
	dl_arena a = DL_ARENA_INIT;
	dl_json *v;
	rc = dl_json_parse(&a, resp.body.data ? resp.body.data : "", resp.body.len, "token response", &v);
	const char *tok = rc == 0 ? dl_json_get_str(v, "access_token") : NULL;
	int64_t expires_in = 3600;
	const dl_json *ei = rc == 0 ? dl_json_get(v, "expires_in") : NULL;
	if (ei && dl_json_int64(ei, &expires_in) < 0) {
		const char *es = ei->kind == DL_JSON_STRING ? ei->u.str.ptr : NULL;
		expires_in = es ? strtoll(es, NULL, 10) : 3600;
	}
	if (rc == 0 && !tok)
		rc = dl_error_set(DL_ECORRUPT, "profile %s: the token endpoint's answer has no "
		                  "access_token", p->source);
	if (rc == 0) {
		dl_free(c->oauth_token);
		c->oauth_token = dl_strdup(tok);
		/* renew a little early so a token never expires mid-request */
		int64_t margin = expires_in > 120 ? 60 : expires_in / 4;
		c->oauth_expires_ms = dl_now_millis() + (expires_in - margin) * 1000;
		if (!c->oauth_token) rc = DL_ENOMEM;
	}
	dl_arena_free(&a);
	if (resp.body.data) memset(resp.body.data, 0, resp.body.len);
	sh_response_free(&resp);
	return rc;
}

int sh_auth_token(char **out, dl_sharing_client *c)
{
	const dl_sharing_profile *p = c->profile;
	*out = NULL;
	if (p->auth == DL_SHARING_AUTH_BEARER) {
		if (p->expiration_ms >= 0 && dl_now_millis() >= p->expiration_ms) {
			char when[DL_TIME_TEXT_MAX];
			dl_timestamp_format_iso(when, p->expiration_ms * 1000, NULL, 0);
			return dl_error_set(DL_EPERM, "profile %s: the bearer token expired at %s; ask the "
			                    "data provider for a new profile file", p->source, when);
		}
		*out = dl_strdup(p->bearer_token);
		return *out ? 0 : DL_ENOMEM;
	}
	pthread_mutex_lock(&c->mu);
	int rc = 0;
	if (!c->oauth_token || dl_now_millis() >= c->oauth_expires_ms) rc = fetch_oauth(c);
	if (rc == 0) {
		*out = dl_strdup(c->oauth_token);
		if (!*out) rc = DL_ENOMEM;
	}
	pthread_mutex_unlock(&c->mu);
	return rc;
}

/* ---- URLs ---- */

static int put_name(dl_buf *out, const char *name)
{
	char *e = curl_easy_escape(NULL, name, 0);
	if (!e) return DL_ENOMEM;
	int rc = dl_buf_printf(out, "/%s", e);
	curl_free(e);
	return rc;
}

int sh_url(dl_buf *out, const dl_sharing_client *c, const char *share, const char *schema,
           const char *table, const char *suffix)
{
	DL_TRY(dl_buf_printf(out, "%s/shares", c->profile->endpoint));
	if (share) DL_TRY(put_name(out, share));
	if (schema) {
		DL_TRY(dl_buf_puts(out, "/schemas"));
		DL_TRY(put_name(out, schema));
	}
	if (table) {
		DL_TRY(dl_buf_puts(out, "/tables"));
		DL_TRY(put_name(out, table));
	}
	return suffix ? dl_buf_puts(out, suffix) : 0;
}

/* ---- the client ---- */

int dl_sharing_client_open_profile(dl_sharing_client **out, dl_sharing_profile *profile,
                                   const dl_sharing_client_options *opts)
{
	*out = NULL;
	dl_sharing_client_options o = DL_SHARING_CLIENT_OPTIONS_INIT;
	if (opts) {
		if (opts->version < 1 || opts->version > DL_SHARING_CLIENT_OPTIONS_VERSION) {
			dl_sharing_profile_free(profile);
			return dl_error_set(DL_EINVALID, "dl_sharing_client_options.version is %d; this library "
			                    "knows version 1: initialize it with DL_SHARING_CLIENT_OPTIONS_INIT",
			                    opts->version);
		}
		o = *opts;
	}
	const char *fmt = o.response_format ? o.response_format : "delta,parquet";
	if (strcmp(fmt, "parquet") != 0 && strcmp(fmt, "delta") != 0 &&
	    strcmp(fmt, "delta,parquet") != 0 && strcmp(fmt, "parquet,delta") != 0) {
		dl_sharing_profile_free(profile);
		return dl_error_set(DL_EINVALID, "response format \"%.40s\": use parquet, delta or "
		                    "delta,parquet", fmt);
	}
	dl_sharing_client *c = dl_calloc(1, sizeof *c);
	if (!c) {
		dl_sharing_profile_free(profile);
		return DL_ENOMEM;
	}
	c->profile = profile;
	snprintf(c->response_format, sizeof c->response_format, "%s", fmt);
	/* The reader features this library reads (log/table_features.c). */
	snprintf(c->reader_features, sizeof c->reader_features, "%s",
	         strcmp(fmt, "parquet") == 0 ? ""
	         : o.reader_features         ? o.reader_features
	                                     : "deletionvectors,columnmapping,timestampntz,v2checkpoint,"
	                                       "vacuumprotocolcheck,typewidening,typewidening-preview,"
	                                       "varianttype,variantshredding-preview");
	c->timeout_ms = o.timeout_ms > 0 ? o.timeout_ms : 120000;
	c->max_attempts = o.max_attempts > 0 ? o.max_attempts : 4;
	pthread_mutex_init(&c->mu, NULL);
	pthread_mutex_init(&c->pool_mu, NULL);
	*out = c;
	return 0;
}

int dl_sharing_client_open(dl_sharing_client **out, const char *profile_path,
                           const dl_sharing_client_options *opts)
{
	*out = NULL;
	dl_sharing_profile *p;
	DL_TRY(dl_sharing_profile_load(&p, profile_path));
	return dl_sharing_client_open_profile(out, p, opts);
}

void dl_sharing_client_free(dl_sharing_client *c)
{
	if (!c) return;
	dl_sharing_profile_free(c->profile);
	if (c->oauth_token) memset(c->oauth_token, 0, strlen(c->oauth_token));
	dl_free(c->oauth_token);
	for (int i = 0; i < c->nidle; i++) curl_easy_cleanup(c->idle[i]);
	pthread_mutex_destroy(&c->pool_mu);
	pthread_mutex_destroy(&c->mu);
	dl_free(c);
}
