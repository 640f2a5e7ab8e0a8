/* HTTP on libcurl with connection reuse and retries (http.h states the
 * retry rule). */
#include "storage/http.h"
#include "deltalake/sys/store_backend.h"
#include "util/error.h"
#include "util/mem.h"
#include <curl/curl.h>
#include <ctype.h>
#include <errno.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>
#include <unistd.h>

struct dl_http {
	dl_http_config cfg;
	CURLSH *share;
	pthread_mutex_t share_mu[CURL_LOCK_DATA_LAST];
	pthread_mutex_t mu; /* the pool */
	CURL **free_handles;
	size_t nfree, capfree;
};

static pthread_once_t g_once = PTHREAD_ONCE_INIT;
static CURLcode g_init_rc;
static void global_init(void) { g_init_rc = curl_global_init(CURL_GLOBAL_DEFAULT); }

/* ---- configuration ---- */

static long opt_long(const dl_store_options *o, const char *key, long def)
{
	const char *v = dl_store_options_get(o, key);
	if (!v) return def;
	return strtol(v, NULL, 10); /* dl_store_open checked it is a number >= 0 */
}

void dl_http_config_from_options(dl_http_config *cfg, const void *store_options)
{
	const dl_store_options *o = store_options;
	cfg->timeout_ms = opt_long(o, DL_STORE_OPT_TIMEOUT_MS, 60000);
	cfg->connect_timeout_ms = opt_long(o, DL_STORE_OPT_CONNECT_TIMEOUT_MS, 10000);
	cfg->max_attempts = (int)opt_long(o, DL_STORE_OPT_RETRY_MAX_ATTEMPTS, 6);
	if (cfg->max_attempts < 1) cfg->max_attempts = 1;
	cfg->backoff_ms = opt_long(o, DL_STORE_OPT_RETRY_BACKOFF_MS, 100);
	cfg->max_backoff_ms = opt_long(o, DL_STORE_OPT_RETRY_MAX_BACKOFF_MS, 15000);
}

/* ---- the handle pool ---- */

static void share_lock(CURL *c, curl_lock_data d, curl_lock_access a, void *p)
{
	(void)c;
	(void)a;
	pthread_mutex_lock(&((dl_http *)p)->share_mu[d]);
}

static void share_unlock(CURL *c, curl_lock_data d, void *p)
{
	(void)c;
	pthread_mutex_unlock(&((dl_http *)p)->share_mu[d]);
}

int dl_http_new(dl_http **out, const dl_http_config *cfg)
{
	pthread_once(&g_once, global_init);
	if (g_init_rc != CURLE_OK)
		return dl_error_set(DL_EIO, "libcurl failed to initialize: %s", curl_easy_strerror(g_init_rc));
	dl_http *h = dl_calloc(1, sizeof *h);
	if (!h) return DL_ENOMEM;
	h->cfg = *cfg;
	pthread_mutex_init(&h->mu, NULL);
	for (int i = 0; i < CURL_LOCK_DATA_LAST; i++) pthread_mutex_init(&h->share_mu[i], NULL);
	h->share = curl_share_init();
	if (!h->share) {
		dl_http_free(h);
		return DL_ENOMEM;
	}
	curl_share_setopt(h->share, CURLSHOPT_LOCKFUNC, share_lock);
	curl_share_setopt(h->share, CURLSHOPT_UNLOCKFUNC, share_unlock);
	curl_share_setopt(h->share, CURLSHOPT_USERDATA, h);
	curl_share_setopt(h->share, CURLSHOPT_SHARE, CURL_LOCK_DATA_DNS);
	curl_share_setopt(h->share, CURLSHOPT_SHARE, CURL_LOCK_DATA_SSL_SESSION);
	*out = h;
	return 0;
}

void dl_http_free(dl_http *h)
{
	if (!h) return;
	for (size_t i = 0; i < h->nfree; i++) curl_easy_cleanup(h->free_handles[i]);
	dl_free(h->free_handles);
	if (h->share) curl_share_cleanup(h->share);
	for (int i = 0; i < CURL_LOCK_DATA_LAST; i++) pthread_mutex_destroy(&h->share_mu[i]);
	pthread_mutex_destroy(&h->mu);
	dl_free(h);
}

static CURL *take(dl_http *h)
{
	pthread_mutex_lock(&h->mu);
	CURL *c = h->nfree ? h->free_handles[--h->nfree] : NULL;
	pthread_mutex_unlock(&h->mu);
	if (c) {
		curl_easy_reset(c); /* keeps the connection cache */
		return c;
	}
	return curl_easy_init();
}

static void give_back(dl_http *h, CURL *c)
{
	pthread_mutex_lock(&h->mu);
	if (h->nfree == h->capfree) {
		size_t nc = h->capfree ? h->capfree * 2 : 8;
		CURL **p = dl_reallocarray(h->free_handles, nc, sizeof *p);
		if (!p) {
			pthread_mutex_unlock(&h->mu);
			curl_easy_cleanup(c);
			return;
		}
		h->free_handles = p;
		h->capfree = nc;
	}
	h->free_handles[h->nfree++] = c;
	pthread_mutex_unlock(&h->mu);
}

/* ---- headers ---- */

int dl_http_headers_add(dl_http_headers *h, const char *fmt, ...)
{
	if (h->n == DL_HTTP_MAX_HEADERS) return dl_error_set(DL_ENOMEM, "too many HTTP headers");
	va_list ap;
	va_start(ap, fmt);
	char *s = NULL;
	int n = vasprintf(&s, fmt, ap);
	va_end(ap);
	if (n < 0) return DL_ENOMEM;
	h->items[h->n++] = s;
	return 0;
}

void dl_http_headers_clear(dl_http_headers *h)
{
	for (int i = 0; i < h->n; i++) {
		/* headers may hold signatures: wipe before freeing */
		size_t len = strlen(h->items[i]);
		memset(h->items[i], 0, len);
		free(h->items[i]);
	}
	h->n = 0;
}

void dl_http_response_free(dl_http_response *r)
{
	dl_buf_free(&r->body);
}

/* ---- one attempt ---- */

typedef struct xfer {
	const dl_http_request *req;
	dl_http_response *resp;
	size_t sent;
	bool overflow;
	int oom;
} xfer;

static size_t on_read(char *buf, size_t size, size_t n, void *p)
{
	xfer *x = p;
	size_t want = size * n, left = x->req->body_len - x->sent;
	if (want > left) want = left;
	if (want) memcpy(buf, (const uint8_t *)x->req->body + x->sent, want);
	x->sent += want;
	return want;
}

static int on_seek(void *p, curl_off_t off, int origin)
{
	xfer *x = p;
	if (origin != SEEK_SET || off < 0 || (size_t)off > x->req->body_len) return CURL_SEEKFUNC_FAIL;
	x->sent = (size_t)off;
	return CURL_SEEKFUNC_OK;
}

static size_t on_write(char *data, size_t size, size_t n, void *p)
{
	xfer *x = p;
	size_t len = size * n;
	long status = 0;
	status = x->resp->status;
	if (x->req->dest && status >= 200 && status < 300) {
		if (len > x->req->dest_cap - x->resp->dest_len) {
			x->overflow = true;
			return 0;
		}
		memcpy(x->req->dest + x->resp->dest_len, data, len);
		x->resp->dest_len += len;
		return len;
	}
	if (dl_buf_append(&x->resp->body, data, len) < 0) {
		x->oom = 1;
		return 0;
	}
	return len;
}

static void copy_value(char *dst, size_t cap, const char *v, size_t n)
{
	while (n && (v[n - 1] == '\r' || v[n - 1] == '\n' || v[n - 1] == ' ')) n--;
	while (n && *v == ' ') v++, n--;
	if (n >= cap) n = cap - 1;
	memcpy(dst, v, n);
	dst[n] = 0;
}

static size_t on_header(char *data, size_t size, size_t n, void *p)
{
	xfer *x = p;
	size_t len = size * n;
	if (len > 5 && strncmp(data, "HTTP/", 5) == 0) {
		/* a new response (after 100 Continue or a redirect): start over */
		const char *sp = memchr(data, ' ', len);
		x->resp->status = sp ? strtol(sp + 1, NULL, 10) : 0;
		x->resp->etag[0] = x->resp->last_modified[0] = 0;
		x->resp->content_length = -1;
		return len;
	}
	const char *colon = memchr(data, ':', len);
	if (!colon) return len;
	size_t nl = (size_t)(colon - data);
	const char *v = colon + 1;
	size_t vl = len - nl - 1;
	if (nl == 4 && strncasecmp(data, "etag", 4) == 0) {
		copy_value(x->resp->etag, sizeof x->resp->etag, v, vl);
	} else if (nl == 13 && strncasecmp(data, "last-modified", 13) == 0) {
		copy_value(x->resp->last_modified, sizeof x->resp->last_modified, v, vl);
	} else if (nl == 14 && strncasecmp(data, "content-length", 14) == 0) {
		char tmp[32];
		copy_value(tmp, sizeof tmp, v, vl);
		x->resp->content_length = strtoll(tmp, NULL, 10);
	}
	return len;
}

static bool retryable_status(long s)
{
	return s == 429 || s == 500 || s == 502 || s == 503 || s == 504;
}

/* Curl errors a retry can cure; *ambiguous: the request may have reached
 * the server. */
static bool retryable_curl(CURLcode c, bool *ambiguous)
{
	switch (c) {
	case CURLE_COULDNT_RESOLVE_HOST:
	case CURLE_COULDNT_CONNECT:
		*ambiguous = false;
		return true;
	case CURLE_SEND_ERROR:
	case CURLE_RECV_ERROR:
	case CURLE_GOT_NOTHING:
	case CURLE_PARTIAL_FILE:
	case CURLE_OPERATION_TIMEDOUT:
	case CURLE_HTTP2:
	case CURLE_HTTP2_STREAM:
	case CURLE_SSL_CONNECT_ERROR:
		*ambiguous = true;
		return true;
	default:
		*ambiguous = true;
		return false;
	}
}

static void sleep_ms(long ms)
{
	struct timespec ts = {(time_t)(ms / 1000), (ms % 1000) * 1000000L};
	while (nanosleep(&ts, &ts) < 0 && errno == EINTR) {}
}

/* Full jitter between half and all of `ms`; a per-thread xorshift seeded
 * from the clock and the thread, so processes and threads differ. */
static long jitter(long ms)
{
	static _Thread_local uint64_t s;
	if (!s) {
		struct timespec ts;
		clock_gettime(CLOCK_REALTIME, &ts);
		s = ((uint64_t)ts.tv_nsec << 20) ^ (uint64_t)ts.tv_sec ^ (uint64_t)(uintptr_t)&s ^
		    ((uint64_t)getpid() << 40);
		if (!s) s = 88172645463325252ull;
	}
	s ^= s << 13;
	s ^= s >> 7;
	s ^= s << 17;
	if (ms <= 1) return ms;
	return ms / 2 + (long)(s % (uint64_t)(ms / 2 + 1));
}

static CURLcode attempt(dl_http *h, CURL *c, const dl_http_request *req, dl_http_response *resp,
                        struct curl_slist *hdrs, char *errbuf, xfer *x)
{
	curl_easy_setopt(c, CURLOPT_URL, req->url);
	curl_easy_setopt(c, CURLOPT_SHARE, h->share);
	curl_easy_setopt(c, CURLOPT_NOSIGNAL, 1L);
	curl_easy_setopt(c, CURLOPT_ERRORBUFFER, errbuf);
	curl_easy_setopt(c, CURLOPT_HTTPHEADER, hdrs);
	curl_easy_setopt(c, CURLOPT_WRITEFUNCTION, on_write);
	curl_easy_setopt(c, CURLOPT_WRITEDATA, x);
	curl_easy_setopt(c, CURLOPT_HEADERFUNCTION, on_header);
	curl_easy_setopt(c, CURLOPT_HEADERDATA, x);
	curl_easy_setopt(c, CURLOPT_TIMEOUT_MS, h->cfg.timeout_ms);
	curl_easy_setopt(c, CURLOPT_CONNECTTIMEOUT_MS, h->cfg.connect_timeout_ms);
	curl_easy_setopt(c, CURLOPT_TCP_KEEPALIVE, 1L);
	/* a stalled transfer (under 1 byte/s for 30 s) is a failure, not a hang */
	curl_easy_setopt(c, CURLOPT_LOW_SPEED_LIMIT, 1L);
	curl_easy_setopt(c, CURLOPT_LOW_SPEED_TIME, 30L);
	/* libcurl silently resends a request once when a reused connection
	 * closes before answering (it takes it for a stale keep-alive). For a
	 * request that must not be sent twice (a commit) that resend is exactly
	 * the blind retry the rule forbids: its 412 would hide our own landed
	 * write. A fresh connection is never resent that way. */
	if (!req->idempotent) curl_easy_setopt(c, CURLOPT_FRESH_CONNECT, 1L);
	if (strcmp(req->method, "GET") == 0) {
		curl_easy_setopt(c, CURLOPT_HTTPGET, 1L);
	} else if (strcmp(req->method, "HEAD") == 0) {
		curl_easy_setopt(c, CURLOPT_NOBODY, 1L);
	} else if (strcmp(req->method, "PUT") == 0) {
		curl_easy_setopt(c, CURLOPT_UPLOAD, 1L);
		curl_easy_setopt(c, CURLOPT_INFILESIZE_LARGE, (curl_off_t)req->body_len);
		curl_easy_setopt(c, CURLOPT_READFUNCTION, on_read);
		curl_easy_setopt(c, CURLOPT_READDATA, x);
		curl_easy_setopt(c, CURLOPT_SEEKFUNCTION, on_seek);
		curl_easy_setopt(c, CURLOPT_SEEKDATA, x);
	} else if (strcmp(req->method, "POST") == 0) {
		curl_easy_setopt(c, CURLOPT_POST, 1L);
		curl_easy_setopt(c, CURLOPT_POSTFIELDSIZE_LARGE, (curl_off_t)req->body_len);
		curl_easy_setopt(c, CURLOPT_POSTFIELDS, req->body ? req->body : "");
	} else {
		curl_easy_setopt(c, CURLOPT_CUSTOMREQUEST, req->method);
	}
	CURLcode rc = curl_easy_perform(c);
	long code = 0;
	curl_easy_getinfo(c, CURLINFO_RESPONSE_CODE, &code);
	if (code) resp->status = code;
	return rc;
}

int dl_http_send(dl_http_response *resp, dl_http *h, const dl_http_request *req,
                 bool *transport_ambiguous)
{
	memset(resp, 0, sizeof *resp);
	resp->content_length = -1;
	if (transport_ambiguous) *transport_ambiguous = false;
	int max = req->idempotent ? h->cfg.max_attempts : 1;
	long backoff = h->cfg.backoff_ms;
	char errbuf[CURL_ERROR_SIZE];
	CURLcode last = CURLE_OK;
	bool ambiguous = false;
	for (int a = 1; a <= max; a++) {
		CURL *c = take(h);
		if (!c) return dl_error_set(DL_ENOMEM, "%s %s: cannot create a curl handle", req->method, req->display);
		dl_http_headers hs = {0};
		int rc = req->sign(&hs, req->payload);
		struct curl_slist *list = NULL;
		for (int i = 0; rc == 0 && i < hs.n; i++) {
			struct curl_slist *nl = curl_slist_append(list, hs.items[i]);
			if (!nl) rc = DL_ENOMEM;
			else list = nl;
		}
		/* no "Expect: 100-continue" round trip: bodies are small or parts */
		if (rc == 0) {
			struct curl_slist *nl = curl_slist_append(list, "Expect:");
			if (!nl) rc = DL_ENOMEM;
			else list = nl;
		}
		if (rc < 0) {
			curl_slist_free_all(list);
			dl_http_headers_clear(&hs);
			give_back(h, c);
			return rc;
		}
		dl_buf_clear(&resp->body);
		resp->dest_len = 0;
		resp->status = 0;
		resp->attempts = a;
		errbuf[0] = 0;
		xfer x = {.req = req, .resp = resp};
		last = attempt(h, c, req, resp, list, errbuf, &x);
		curl_slist_free_all(list);
		dl_http_headers_clear(&hs);
		give_back(h, c);
		if (x.oom) return dl_error_set(DL_ENOMEM, "%s %s: out of memory for the response", req->method, req->display);
		if (x.overflow)
			return dl_error_set(DL_ECORRUPT, "%s %s: the server sent more than the %zu bytes asked for",
			                    req->method, req->display, req->dest_cap);
		if (last == CURLE_OK) {
			if (!retryable_status(resp->status) || a == max) return 0;
		} else if (!retryable_curl(last, &ambiguous)) {
			break;
		} else if (a == max) {
			break;
		}
		long wait = jitter(backoff);
		sleep_ms(wait);
		backoff = backoff * 2 > h->cfg.max_backoff_ms ? h->cfg.max_backoff_ms : backoff * 2;
	}
	if (transport_ambiguous) *transport_ambiguous = ambiguous || last != CURLE_COULDNT_CONNECT;
	return dl_error_set(DL_EIO, "%s %s failed after %d attempt%s: %s%s%s (check the endpoint and "
	                    "that the service is reachable)",
	                    req->method, req->display, resp->attempts, resp->attempts == 1 ? "" : "s",
	                    curl_easy_strerror(last), errbuf[0] ? ": " : "", errbuf);
}

/* ---- encoding ---- */

int dl_http_encode(dl_buf *out, const char *s, size_t n, bool keep_slash)
{
	static const char hex[] = "0123456789ABCDEF";
	for (size_t i = 0; i < n; i++) {
		unsigned char c = (unsigned char)s[i];
		if (isalnum(c) || c == '-' || c == '.' || c == '_' || c == '~' || (keep_slash && c == '/')) {
			DL_TRY(dl_buf_putc(out, (char)c));
		} else {
			char e[3] = {'%', hex[c >> 4], hex[c & 15]};
			DL_TRY(dl_buf_append(out, e, 3));
		}
	}
	if (!out->data) {
		DL_TRY(dl_buf_reserve(out, 0));
		out->data[out->len] = 0;
	}
	return 0;
}

static int hexval(char c)
{
	if (c >= '0' && c <= '9') return c - '0';
	if (c >= 'a' && c <= 'f') return c - 'a' + 10;
	if (c >= 'A' && c <= 'F') return c - 'A' + 10;
	return -1;
}

int dl_http_decode(char **out, const char *s, size_t n)
{
	char *r = dl_malloc(n + 1);
	if (!r) return DL_ENOMEM;
	size_t k = 0;
	for (size_t i = 0; i < n; i++) {
		if (s[i] == '%') {
			if (i + 2 >= n) {
				dl_free(r);
				return dl_error_set(DL_ECORRUPT, "bad %%-escape at the end of \"%.*s\"", (int)n, s);
			}
			int a = hexval(s[i + 1]), b = hexval(s[i + 2]);
			if (a < 0 || b < 0) {
				dl_free(r);
				return dl_error_set(DL_ECORRUPT, "bad %%-escape in \"%.*s\"", (int)n, s);
			}
			r[k++] = (char)(a * 16 + b);
			i += 2;
		} else {
			r[k++] = s[i];
		}
	}
	r[k] = 0;
	*out = r;
	return 0;
}

/* ---- dates ---- */

int64_t dl_http_parse_date(const char *s)
{
	if (!s || !*s) return -1;
	struct tm tm;
	memset(&tm, 0, sizeof tm);
	const char *end = strptime(s, "%a, %d %b %Y %H:%M:%S GMT", &tm);
	int ms = 0;
	if (!end) {
		memset(&tm, 0, sizeof tm);
		end = strptime(s, "%Y-%m-%dT%H:%M:%S", &tm);
		if (!end) return -1;
		if (*end == '.') {
			int digits = 0;
			for (end++; isdigit((unsigned char)*end); end++, digits++)
				if (digits < 3) ms = ms * 10 + (*end - '0');
			for (; digits < 3; digits++) ms *= 10;
		}
	}
	time_t t = timegm(&tm);
	if (t == (time_t)-1) return -1;
	return (int64_t)t * 1000 + ms;
}

int dl_http_take_body(uint8_t **data, size_t *len, dl_http_response *resp)
{
	if (!resp->body.data) DL_TRY(dl_buf_reserve(&resp->body, 1));
	*len = resp->body.len;
	*data = (uint8_t *)dl_buf_detach(&resp->body, NULL); /* NUL room included */
	return 0;
}

void dl_http_range_header(char *out, size_t cap, const char *name, int64_t offset, size_t len)
{
	snprintf(out, cap, "%s: bytes=%lld-%lld", name, (long long)offset, (long long)offset + (long long)len - 1);
}

bool dl_http_range_result(size_t *got, const dl_http_response *resp, int64_t offset)
{
	if (resp->status == 416) *got = 0;                                   /* past the end */
	else if (resp->status == 206) *got = resp->dest_len;
	else if (resp->status == 200 && offset == 0) *got = resp->dest_len; /* the whole object fit */
	else return false;
	return true;
}

void dl_http_head_result(int64_t *size, int64_t *mtime, const dl_http_response *resp)
{
	*size = resp->content_length < 0 ? 0 : resp->content_length;
	int64_t t = dl_http_parse_date(resp->last_modified);
	*mtime = t < 0 ? 0 : t;
}
