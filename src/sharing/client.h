/* Delta Sharing client internals (public side: deltalake/sharing.h). */
#ifndef DL_SHARING_CLIENT_H
#define DL_SHARING_CLIENT_H
#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include "deltalake/sharing.h"
#include "util/buf.h"

struct dl_sharing_profile {
	int version;
	dl_sharing_auth auth;
	char *source;          /* the file named in messages */
	char *endpoint;        /* without trailing '/' */
	char *bearer_token;
	int64_t expiration_ms; /* -1: never */
	char *token_endpoint, *client_id, *client_secret, *scope;
};

struct dl_sharing_client {
	dl_sharing_profile *profile;
	char response_format[64];
	char reader_features[256];
	long timeout_ms;
	int max_attempts;
	pthread_mutex_t mu;      /* the OAuth token cache */
	char *oauth_token;
	int64_t oauth_expires_ms;
	/* idle curl easy handles: each keeps its connections, so the ranged
	 * reads of a scan reuse them (TLS handshakes are the cost) */
	pthread_mutex_t pool_mu;
	void *idle[16];
	int nidle;
};

/* A response: status, body, the Delta-Table-Version header (-1). */
typedef struct sh_response {
	long status;
	dl_buf body;
	int64_t table_version;
	size_t dest_len;
	int cb_rc;       /* the error of req->on_body, which stopped the transfer */
	bool delivered;  /* on_body saw bytes: the request is not sent again */
	bool fatal;      /* a failure no retry cures (a refused protocol, a bad URL) */
} sh_response;
void sh_response_free(sh_response *r);

typedef struct sh_request {
	const char *method;   /* GET, POST, HEAD */
	const char *url;      /* full URL */
	const char *display;  /* what messages name (no secrets) */
	const char *body;     /* POST body (JSON), or NULL */
	bool auth;            /* send the profile's bearer token */
	bool capabilities;    /* send delta-sharing-capabilities */
	const char *range;    /* "a-b" for a ranged GET, or NULL */
	uint8_t *dest;        /* ranged reads land here */
	size_t dest_cap;
	const char *basic_user, *basic_password; /* OAuth token requests */
	const char *form;     /* x-www-form-urlencoded body */
	/* When set, a 2xx body is handed over as it arrives (NDJSON answers
	 * are parsed line by line, never held whole); an error stops it. */
	int (*on_body)(const char *p, size_t n, void *payload);
	void *body_payload;
} sh_request;

/* Sends with retries (connection failures, 429 and 5xx; every request of
 * the client is a read). 0 when a response arrived (any status). */
int sh_http_send(sh_response *resp, dl_sharing_client *c, const sh_request *req);
/* Turns a non-2xx response into an error naming the request and the
 * server's errorCode/message. */
int sh_http_error(const sh_response *resp, const sh_request *req);
/* The bearer token to send: the profile's (refused once expired) or the
 * cached OAuth token (fetched again when expired). Returns a malloc'd copy. */
int sh_auth_token(char **out, dl_sharing_client *c);
/* endpoint + "/shares/" + encoded names... */
int sh_url(dl_buf *out, const dl_sharing_client *c, const char *share, const char *schema,
           const char *table, const char *suffix);
/* Epoch ms of an ISO 8601 timestamp; DL_EINVALID when malformed. */
int sh_parse_iso_ms(int64_t *out, const char *s);
#endif
