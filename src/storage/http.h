/* HTTP for the object-store backends (S3, Azure), on libcurl.
 *
 * One dl_http per store: a pool of curl easy handles behind a mutex, so
 * threads of one scan reuse each other's connections (curl_easy_reset
 * keeps a handle's connection cache), and a curl share handle for DNS and
 * TLS sessions. A request is described once and sent with retries:
 *
 * Rule: only idempotent requests are retried, on what a retry can cure: a
 * connection that failed or was reset, a timeout, and the statuses
 * 429/500/502/503/504 (S3's SlowDown is a 503). Backoff doubles from
 * retry.backoff_ms up to retry.max_backoff_ms with full jitter (a random
 * wait between half and all of it), so writers that collided do not retry
 * in step. A non-idempotent request (a commit's put-if-absent) is sent
 * once: its caller decides what an ambiguous outcome means, by reading the
 * object back, never by sending it again blind.
 *
 * The signer is called before every attempt (a signature carries the time,
 * and a retry after a long backoff needs a fresh one). Nothing here logs;
 * messages name the method, URI and curl's error, never a header (the
 * Authorization header and SAS tokens are secrets). */
#ifndef DL_STORAGE_HTTP_H
#define DL_STORAGE_HTTP_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "util/buf.h"

typedef struct dl_http dl_http;

typedef struct dl_http_config {
	long timeout_ms;         /* whole request; 0: none */
	long connect_timeout_ms;
	int max_attempts;        /* >= 1 */
	long backoff_ms;         /* first backoff */
	long max_backoff_ms;
} dl_http_config;

/* The defaults, overridden by the well-known store options timeout_ms,
 * connect_timeout_ms, retry.max_attempts, retry.backoff_ms and
 * retry.max_backoff_ms (store.h). */
void dl_http_config_from_options(dl_http_config *cfg, const void *store_options);

int dl_http_new(dl_http **out, const dl_http_config *cfg);
void dl_http_free(dl_http *h);

/* Request headers "Name: value", built per attempt by the signer. */
#define DL_HTTP_MAX_HEADERS 24
typedef struct dl_http_headers {
	char *items[DL_HTTP_MAX_HEADERS];
	int n;
} dl_http_headers;
int dl_http_headers_add(dl_http_headers *h, const char *fmt, ...) DL_PRINTF(2, 3);
void dl_http_headers_clear(dl_http_headers *h);

typedef struct dl_http_request {
	const char *method;      /* "GET", "PUT", "HEAD", "POST", "DELETE" */
	const char *url;         /* full URL, already encoded */
	const char *display;     /* the URI to name in messages (no secrets) */
	const void *body;        /* request body, or NULL */
	size_t body_len;
	bool idempotent;         /* may be retried */
	/* Fills the attempt's headers (signature included). Required. */
	int (*sign)(dl_http_headers *out, void *payload);
	void *payload;
	/* When set, a 2xx body goes here (at most dest_cap bytes; more is an
	 * error) instead of into the response's buffer: ranged reads. */
	uint8_t *dest;
	size_t dest_cap;
} dl_http_request;

typedef struct dl_http_response {
	long status;             /* 0 when no response arrived */
	dl_buf body;             /* the body (error bodies always land here) */
	size_t dest_len;         /* bytes written to dest */
	char etag[128];
	char last_modified[64];
	int64_t content_length;  /* -1 when not sent */
	int attempts;
} dl_http_response;

void dl_http_response_free(dl_http_response *r);

/* Sends with the retry rule above. 0 when a response arrived (whatever
 * its status: the caller interprets it); DL_EIO when none did (after the
 * retries), the message naming the method, URI, attempts and curl's error;
 * *transport_ambiguous says the last attempt failed after the request may
 * have been sent (its effect unknown). */
int dl_http_send(dl_http_response *resp, dl_http *h, const dl_http_request *req,
                 bool *transport_ambiguous);

/* ---- what a response means, the same for every backend ---- */

/* The body of a 2xx response, detached: room for a NUL after its *len
 * bytes, also when empty. */
int dl_http_take_body(uint8_t **data, size_t *len, dl_http_response *resp);
/* The header of a ranged GET of len > 0 bytes from offset:
 * "<name>: bytes=first-last" (name "Range", or Azure's "x-ms-range"). */
void dl_http_range_header(char *out, size_t cap, const char *name, int64_t offset, size_t len);
/* The bytes a ranged GET read into its dest: 206, the part; 416, none
 * (offset past the end); 200 at offset 0, the whole object (it fit).
 * False for any other status, which the backend turns into its error. */
bool dl_http_range_result(size_t *got, const dl_http_response *resp, int64_t offset);
/* Size and last-modified time (epoch ms, 0 when absent) of a 2xx HEAD. */
void dl_http_head_result(int64_t *size, int64_t *mtime, const dl_http_response *resp);

/* Percent-encodes s for a URL: every byte but A-Z a-z 0-9 - . _ ~ (and '/'
 * when keep_slash). */
int dl_http_encode(dl_buf *out, const char *s, size_t n, bool keep_slash);
/* Decodes %XX (and '+' as itself); DL_ECORRUPT for a bad escape. */
int dl_http_decode(char **out, const char *s, size_t n);

/* Epoch ms of an RFC 1123 date ("Wed, 12 Oct 2009 17:50:00 GMT") or an ISO
 * 8601 one ("2009-10-12T17:50:30.000Z"); -1 when neither. */
int64_t dl_http_parse_date(const char *s);

#endif
