/* The S3 backend's parts, shared by store_s3*.c and their unit tests
 * (tests/unit/storage/test_s3*.c).
 *
 *   store_s3.c         the backend: objects, listings, multipart writes
 *   store_s3_commit.c  put-if-absent: the commit primitive and its probe
 *   store_s3_config.c  URI, options, environment and ~/.aws files
 *   store_s3_sign.c    AWS Signature Version 4 (OpenSSL HMAC-SHA256)
 *   store_s3_xml.c     the few XML answers S3 gives */
#ifndef DL_STORAGE_STORE_S3_H
#define DL_STORAGE_STORE_S3_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <pthread.h>
#include "deltalake/sys/store_backend.h"
#include "storage/http.h"
#include "util/buf.h"

extern const dl_store_backend dl_store_backend_s3;
extern const dl_store_backend dl_store_backend_s3a;

/* ---- configuration (store_s3_config.c) ---- */

typedef struct dl_s3_config {
	char *bucket;
	char *prefix;            /* key prefix of the store root, "" or "a/b/" */
	char *region;
	char *endpoint;          /* scheme://host[:port], no trailing '/' */
	bool custom_endpoint;
	bool virtual_hosted;     /* bucket in the host name, else in the path */
	bool allow_http;
	bool allow_unsafe_rename; /* single writer: commit without a working If-None-Match */
	bool skip_signature;     /* anonymous requests (public buckets) */
	char *access_key_id;
	char *secret_access_key;
	char *session_token;
	const char *cred_source; /* "store options", "environment", "profile X in ~/.aws/credentials" */
	size_t part_size;        /* multipart part size, bytes */
} dl_s3_config;

/* From the URI (s3://bucket/prefix or s3a://), the store options, then the
 * environment (AWS_*), then ~/.aws/credentials and ~/.aws/config (the
 * profile AWS_PROFILE or s3.profile, else "default"). `env` is getenv in
 * the library and a table in the unit tests; `home` the directory holding
 * .aws (NULL: $HOME). DL_EINVALID naming what is wrong. */
typedef const char *(*dl_s3_getenv_fn)(const char *name);
int dl_s3_config_load(dl_s3_config *c, const char *uri, const dl_store_options *opts,
                      dl_s3_getenv_fn env, const char *home);
void dl_s3_config_free(dl_s3_config *c);

/* ---- signing (store_s3_sign.c) ---- */

typedef struct dl_s3_sign_input {
	const char *method;
	const char *host;          /* as in the Host header: host[:port] */
	const char *canonical_uri; /* encoded path, "/" at least */
	const char *canonical_query; /* sorted, encoded "a=1&b=2", or "" */
	const char *const *extra;  /* more headers to sign, "name:value" lower-case names, sorted, or NULL */
	int nextra;
	const char *payload_sha256; /* hex */
	const char *amz_date;      /* YYYYMMDDTHHMMSSZ */
	const char *region;
	const char *service;       /* "s3" */
	const char *access_key_id;
	const char *secret_access_key;
	const char *session_token; /* NULL when none */
} dl_s3_sign_input;

/* The Authorization header's value. */
int dl_s3_sign(dl_buf *authorization, const dl_s3_sign_input *in);
/* Lower-case hex SHA-256 of data (65 bytes with the NUL). */
void dl_s3_sha256_hex(char out[65], const void *data, size_t len);
/* The current time as YYYYMMDDTHHMMSSZ. */
void dl_s3_amz_date(char out[17]);

/* A presigned GET URL of object `key` (the full key) valid for expires_s
 * seconds from amz_date (YYYYMMDDTHHMMSSZ), appended to url
 * (store_s3_presign.c). DL_EINVALID without credentials. */
int dl_s3_presign_get(dl_buf *url, const dl_s3_config *cfg, const char *key, int64_t expires_s,
                      const char *amz_date);

/* ---- XML (store_s3_xml.c) ---- */

/* The text of the first <tag>...</tag> in xml[from, len), entities decoded
 * (caller frees). *next (may be NULL) is the offset after it. DL_ENOTFOUND
 * when absent. */
int dl_s3_xml_text(char **out, const char *xml, size_t len, size_t from, const char *tag,
                   size_t *next);
/* The element <tag>...</tag> (inner text, raw) as a slice: *start, *end in
 * xml. DL_ENOTFOUND when absent. */
int dl_s3_xml_element(size_t *start, size_t *end, const char *xml, size_t len, size_t from,
                      const char *tag);
/* Appends s with the five XML entities escaped. */
int dl_s3_xml_escape(dl_buf *out, const char *s);

/* ---- the store ---- */

typedef struct dl_s3_store {
	dl_s3_config cfg;
	char *uri;          /* as given, without trailing '/', for messages */
	dl_http *http;
	pthread_mutex_t mu;
	int probe_state;    /* 0 unknown, 1 If-None-Match works, -1 ignored */
} dl_s3_store;

/* One request to the store: method, object key (full key, unencoded;
 * NULL for the bucket), query (already canonical: sorted and encoded),
 * extra headers ("Name: value"), body. Fills resp; 0 when a response
 * arrived (any status). */
typedef struct dl_s3_req {
	const char *method;
	const char *key;
	const char *query;
	const char *const *headers;
	int nheaders;
	const void *body;
	size_t body_len;
	bool idempotent;
	uint8_t *dest;
	size_t dest_cap;
} dl_s3_req;
int dl_s3_request(dl_http_response *resp, dl_s3_store *s, const dl_s3_req *r, bool *ambiguous);
/* The error of a non-2xx response: names the URI of `key`, the operation,
 * the HTTP status, S3's error code and message, and what to check. Returns
 * `code` (or a code chosen from the status when code is 0). */
int dl_s3_error(dl_s3_store *s, const dl_http_response *resp, const char *op, const char *key, int code);
/* The full key of a store path (prefix + path). */
int dl_s3_key(char **out, const dl_s3_store *s, const char *path);

int dl_s3_put_if_absent(void *impl, const char *path, const void *data, size_t len);
/* DeleteObjects of up to 1000 paths (store_s3_delete.c). */
int dl_s3_delete_many(size_t *deleted, void *impl, const char *const *paths, size_t n);

#endif
