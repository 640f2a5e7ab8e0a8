/* put-if-absent on S3: the commit primitive of the Delta protocol.
 *
 * Rule: exactly one writer wins a version, and no outcome is guessed.
 *  - The request is PUT with If-None-Match: *; 2xx is a win, 412 means the
 *    object existed (DL_EEXISTS), 409 ConditionalRequestConflict (another
 *    conditional write of the key in flight) is retried after a backoff.
 *  - A PUT whose answer was lost (connection reset, timeout, 5xx) may have
 *    landed. It is never resent blind: the object is read back; absent, the
 *    PUT is sent again (If-None-Match still guards it); present with our
 *    bytes, we won; present with other bytes, another writer did. A 412 on
 *    a resend after such an attempt is checked the same way, since it may
 *    be our own earlier write.
 *  - A store that ignores If-None-Match (older S3-compatible servers) would
 *    let two writers both "win" and lose a commit. The first put-if-absent
 *    of a process on an endpoint and bucket probes it (a hidden object put
 *    twice with the header, then deleted) and caches the answer; a store
 *    that ignores it refuses commits with DL_EUNSUPPORTED unless the user
 *    declared a single writer (s3.allow_unsafe_rename=true or
 *    AWS_S3_ALLOW_UNSAFE_RENAME=true), which then checks with HEAD first. */
#include "storage/store_s3.h"
#include "util/error.h"
#include "util/mem.h"
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

/* ---- the probe cache: endpoint + bucket -> works or not ---- */

typedef struct probe_entry {
	struct probe_entry *next;
	int state; /* 1 works, -1 ignored */
	char name[];
} probe_entry;

static pthread_mutex_t g_probe_mu = PTHREAD_MUTEX_INITIALIZER;
static probe_entry *g_probes;

static int probe_cached(const char *name)
{
	int st = 0;
	pthread_mutex_lock(&g_probe_mu);
	for (probe_entry *e = g_probes; e; e = e->next)
		if (strcmp(e->name, name) == 0) st = e->state;
	pthread_mutex_unlock(&g_probe_mu);
	return st;
}

static void probe_remember(const char *name, int state)
{
	size_t n = strlen(name);
	probe_entry *e = malloc(sizeof *e + n + 1);
	if (!e) return; /* only a cache: the next commit probes again */
	memcpy(e->name, name, n + 1);
	e->state = state;
	pthread_mutex_lock(&g_probe_mu);
	e->next = g_probes;
	g_probes = e;
	pthread_mutex_unlock(&g_probe_mu);
}

static void sleep_ms(long ms)
{
	struct timespec ts = {(time_t)(ms / 1000), (ms % 1000) * 1000000L};
	while (nanosleep(&ts, &ts) < 0 && errno == EINTR) {}
}

static int conditional_put(dl_http_response *resp, dl_s3_store *s, const char *key, const void *data, size_t len,
                           bool *ambiguous)
{
	const char *hs[] = {"If-None-Match: *"};
	dl_s3_req r = {.method = "PUT", .key = key, .headers = hs, .nheaders = 1, .body = data ? data : "",
	               .body_len = len, .idempotent = false};
	return dl_s3_request(resp, s, &r, ambiguous);
}

static int delete_key(dl_s3_store *s, const char *key)
{
	dl_http_response resp;
	dl_s3_req r = {.method = "DELETE", .key = key, .idempotent = true};
	int rc = dl_s3_request(&resp, s, &r, NULL);
	if (rc == 0 && resp.status / 100 != 2 && resp.status != 404) rc = dl_s3_error(s, &resp, "DELETE", key, 0);
	dl_http_response_free(&resp);
	return rc;
}

/* 1 when the store honours If-None-Match: *, -1 when it ignores it. */
static int probe(int *state, dl_s3_store *s)
{
	dl_buf name = DL_BUF_INIT;
	DL_TRY(dl_buf_printf(&name, "%s/%s", s->cfg.endpoint, s->cfg.bucket));
	*state = probe_cached(name.data);
	if (*state) {
		dl_buf_free(&name);
		return 0;
	}
	struct timespec ts;
	clock_gettime(CLOCK_REALTIME, &ts);
	dl_buf key = DL_BUF_INIT;
	int rc = dl_buf_printf(&key, "%s.dl-if-none-match-probe-%ld-%ld-%ld", s->cfg.prefix, (long)getpid(),
	                       (long)ts.tv_sec, ts.tv_nsec);
	dl_http_response resp;
	bool amb = false;
	if (rc == 0) {
		rc = conditional_put(&resp, s, key.data, "probe", 5, &amb);
		if (rc == 0 && resp.status / 100 != 2) rc = dl_s3_error(s, &resp, "PUT (If-None-Match probe)", key.data, 0);
		dl_http_response_free(&resp);
	}
	if (rc == 0) {
		rc = conditional_put(&resp, s, key.data, "probe", 5, &amb);
		if (rc == 0 && (resp.status == 412 || resp.status == 409)) *state = 1;
		else if (rc == 0 && resp.status / 100 == 2) *state = -1;
		else if (rc == 0) rc = dl_s3_error(s, &resp, "PUT (If-None-Match probe)", key.data, 0);
		dl_http_response_free(&resp);
	}
	if (key.data) {
		int drc = delete_key(s, key.data);
		if (rc == 0 && drc < 0) rc = drc;
	}
	if (rc == 0) probe_remember(name.data, *state);
	dl_buf_free(&key);
	dl_buf_free(&name);
	return rc;
}

/* After an ambiguous attempt: 0 we won, DL_EEXISTS another writer did,
 * DL_ENOTFOUND nothing landed, else an error. */
static int read_back(dl_s3_store *s, const char *key, const void *data, size_t len)
{
	dl_http_response resp;
	dl_s3_req r = {.method = "GET", .key = key, .idempotent = true};
	int rc = dl_s3_request(&resp, s, &r, NULL);
	if (rc < 0)
		return dl_error_prefix("s3://%s/%s: the commit's answer was lost and reading it back failed, so "
		                       "whether it landed is unknown: ", s->cfg.bucket, key);
	if (resp.status == 404) rc = DL_ENOTFOUND;
	else if (resp.status / 100 != 2) rc = dl_s3_error(s, &resp, "GET (reading back a commit)", key, 0);
	else if (resp.body.len == len && (len == 0 || memcmp(resp.body.data, data, len) == 0)) rc = 0;
	else rc = dl_error_set(DL_EEXISTS, "s3://%s/%s: object exists (written by another writer)", s->cfg.bucket, key);
	dl_http_response_free(&resp);
	return rc;
}

static int single_writer_put(dl_s3_store *s, const char *key, const void *data, size_t len)
{
	dl_http_response resp;
	dl_s3_req h = {.method = "HEAD", .key = key, .idempotent = true};
	DL_TRY(dl_s3_request(&resp, s, &h, NULL));
	long st = resp.status;
	int rc = 0;
	if (st / 100 == 2) rc = dl_error_set(DL_EEXISTS, "s3://%s/%s: object exists", s->cfg.bucket, key);
	else if (st != 404) rc = dl_s3_error(s, &resp, "HEAD", key, 0);
	dl_http_response_free(&resp);
	if (rc < 0) return rc;
	dl_s3_req p = {.method = "PUT", .key = key, .body = data ? data : "", .body_len = len, .idempotent = true};
	DL_TRY(dl_s3_request(&resp, s, &p, NULL));
	if (resp.status / 100 != 2) rc = dl_s3_error(s, &resp, "PUT", key, 0);
	dl_http_response_free(&resp);
	return rc;
}

int dl_s3_put_if_absent(void *impl, const char *path, const void *data, size_t len)
{
	dl_s3_store *s = impl;
	int state;
	DL_TRY(probe(&state, s));
	char *key;
	DL_TRY(dl_s3_key(&key, s, path));
	int rc;
	if (state < 0) {
		if (s->cfg.allow_unsafe_rename)
			rc = single_writer_put(s, key, data, len);
		else
			rc = dl_error_set(DL_EUNSUPPORTED,
			                  "s3://%s/%s: refusing to commit: the S3 endpoint %s ignores If-None-Match, so "
			                  "two concurrent writers could both commit the same version and one commit "
			                  "would be lost; if only one process ever writes this table, set the store "
			                  "option s3.allow_unsafe_rename=true (or AWS_S3_ALLOW_UNSAFE_RENAME=true)",
			                  s->cfg.bucket, key, s->cfg.endpoint);
		dl_free(key);
		return rc;
	}
	long backoff = 100;
	int max = 10;
	bool was_ambiguous = false;
	for (int a = 1;; a++) {
		dl_http_response resp;
		bool amb = false;
		rc = conditional_put(&resp, s, key, data, len, &amb);
		long st = rc == 0 ? resp.status : 0;
		char *ecode = NULL;
		if (rc == 0 && resp.body.len) (void)dl_s3_xml_text(&ecode, resp.body.data, resp.body.len, 0, "Code", NULL);
		bool conflict = st == 409; /* ConditionalRequestConflict, OperationAborted */
		bool lost = (rc < 0 && amb) || st >= 500 || st == 429;
		if (rc == 0 && st / 100 == 2) {
			rc = 0;
		} else if (rc == 0 && st == 412) {
			rc = was_ambiguous ? read_back(s, key, data, len)
			                   : dl_error_set(DL_EEXISTS, "s3://%s/%s: object exists", s->cfg.bucket, key);
		} else if (rc == 0 && !conflict && !lost) {
			rc = dl_s3_error(s, &resp, "PUT (If-None-Match)", key, 0);
		} else if (rc < 0 && !amb) {
			/* never reached the server: safe to resend */
			if (a >= max) rc = dl_error_prefix("s3://%s/%s: ", s->cfg.bucket, key);
			else rc = 1;
		} else {
			if (lost) {
				was_ambiguous = true;
				int rb = read_back(s, key, data, len);
				rc = rb == DL_ENOTFOUND ? 1 : rb;
			} else {
				rc = 1; /* 409: try again */
			}
			if (rc == 1 && a >= max)
				rc = st ? dl_s3_error(s, &resp, "PUT (If-None-Match)", key, 0)
				        : dl_error_set(DL_EIO, "s3://%s/%s: the commit failed %d times without an answer",
				                       s->cfg.bucket, key, a);
		}
		dl_free(ecode);
		dl_http_response_free(&resp);
		if (rc != 1) break;
		sleep_ms(backoff / 2 + (long)(rand() % (int)(backoff / 2 + 1)));
		if (backoff < 5000) backoff *= 2;
	}
	dl_free(key);
	return rc;
}
