/* The Azure Blob Storage backend's parts (also ADLS Gen2, through its Blob
 * API), shared by store_azure*.c and their unit tests
 * (tests/unit/storage/test_azure*.c).
 *
 *   store_azure.c         the backend: blobs, listings, block uploads
 *   store_azure_commit.c  put-if-absent: the commit primitive
 *   store_azure_config.c  URIs, options, environment, connection strings
 *   store_azure_sign.c    Shared Key signing (OpenSSL HMAC-SHA256)
 *   store_azure_batch.c   Blob Batch: many Delete Blob in one request
 *
 * The XML of the answers is read with the helpers of store_s3_xml.c
 * (dl_s3_xml_*): both services answer in the same flat, machine-written
 * XML. */
#ifndef DL_STORAGE_STORE_AZURE_H
#define DL_STORAGE_STORE_AZURE_H
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "deltalake/sys/store_backend.h"
#include "storage/http.h"
#include "util/buf.h"

extern const dl_store_backend dl_store_backend_az;
extern const dl_store_backend dl_store_backend_azure;
extern const dl_store_backend dl_store_backend_abfs;
extern const dl_store_backend dl_store_backend_abfss;
extern const dl_store_backend dl_store_backend_wasb;
extern const dl_store_backend dl_store_backend_wasbs;

/* The REST API version every request names (x-ms-version). */
#define DL_AZ_API_VERSION "2021-12-02"
/* The emulator's account and key, published by Microsoft. */
#define DL_AZ_EMULATOR_ACCOUNT "devstoreaccount1"
#define DL_AZ_EMULATOR_KEY \
	"Eby8vdM02xNOcqFlqUwJPLlmEtlCDXJ1OUzFT50uSRZ6IFsuFq2UVErCz4I6tq/K1SZFPTOtr/KBHBeksoGMGw=="

/* ---- configuration (store_azure_config.c) ---- */

typedef struct dl_az_config {
	char *account;
	char *container;
	char *prefix;          /* blob name prefix of the store root, "" or "a/b/" */
	char *endpoint;        /* the account's URL: scheme://host[:port][/path], no trailing '/' */
	bool allow_http;
	bool use_emulator;
	bool skip_signature;   /* anonymous requests (public containers) */
	uint8_t *key;          /* the decoded account key (Shared Key), or NULL */
	size_t key_len;
	char *sas;             /* a SAS token's query string, without '?', or NULL */
	const char *cred_source; /* for messages: "store options", "environment (...)", ... */
	size_t block_size;     /* Put Block size of streamed writes, bytes */
	int list_page_size;    /* maxresults of List Blobs; 0: the service's (5000) */
} dl_az_config;

/* From the URI (az://container/path, azure://, abfs[s]://container@account
 * .dfs.core.windows.net/path, wasb[s]://container@account.blob.core
 * .windows.net/path), the store options, then the environment (AZURE_*),
 * then a connection string. `env` is getenv in the library and a table in
 * the unit tests. DL_EINVALID naming what is wrong. */
typedef const char *(*dl_az_getenv_fn)(const char *name);
int dl_az_config_load(dl_az_config *c, const char *uri, const dl_store_options *opts,
                      dl_az_getenv_fn env);
void dl_az_config_free(dl_az_config *c);

/* ---- signing (store_azure_sign.c) ---- */

typedef struct dl_az_query {
	const char *name;  /* lower case */
	const char *value; /* unencoded */
} dl_az_query;

typedef struct dl_az_sign_input {
	const char *method;
	const char *account;
	const char *path;           /* the URL's encoded path, "/" at least */
	const dl_az_query *query;   /* any order */
	int nquery;
	const char *const *headers; /* every request header, "Name: value" */
	int nheaders;
	int64_t content_length;     /* of the body; -1 or 0: none */
	const uint8_t *key;         /* decoded account key */
	size_t key_len;
} dl_az_sign_input;

/* The Shared Key string-to-sign (for tests and signing). */
int dl_az_string_to_sign(dl_buf *out, const dl_az_sign_input *in);
/* The Authorization header's value: "SharedKey account:signature". */
int dl_az_sign(dl_buf *authorization, const dl_az_sign_input *in);
/* RFC 1123 date of now, "Sun, 11 Oct 2009 21:49:13 GMT" (never localized; 30 bytes with the NUL, the buffer has room for any year). */
void dl_az_date(char out[40]);
/* Base64 of data; decoding: DL_EINVALID for bad input (caller frees *out). */
int dl_az_base64(dl_buf *out, const void *data, size_t len);
/* A read-only service SAS URL of blob `blob` (full name) expiring at
 * expires_at_s (epoch seconds), appended to url (store_azure_presign.c).
 * DL_EINVALID without the account key. */
int dl_az_presign_get(dl_buf *url, const dl_az_config *cfg, const char *blob, int64_t expires_at_s);
int dl_az_base64_decode(uint8_t **out, size_t *len, const char *s);

/* ---- the store ---- */

typedef struct dl_az_store {
	dl_az_config cfg;
	char *uri;      /* the root as given, without trailing '/', for messages */
	char *url_path; /* the endpoint's path ("" or "/devstoreaccount1") */
	dl_http *http;
	atomic_int no_batch; /* the endpoint refused a Blob Batch: delete blob by blob */
} dl_az_store;

/* One request: method, blob name (full, unencoded; NULL for the
 * container), query parameters (unencoded), extra headers ("Name: value"),
 * body. 0 when a response arrived (any status). */
typedef struct dl_az_req {
	const char *method;
	const char *blob;
	const dl_az_query *query;
	int nquery;
	const char *const *headers;
	int nheaders;
	const void *body;
	size_t body_len;
	bool idempotent;
	uint8_t *dest;
	size_t dest_cap;
} dl_az_req;
int dl_az_request(dl_http_response *resp, dl_az_store *s, const dl_az_req *r, bool *ambiguous);
/* The error of a non-2xx response: names the URI of `blob`, the operation,
 * the HTTP status, the service's error code and message, and what to check.
 * Returns `code` (or one chosen from the status when code is 0). */
int dl_az_error(dl_az_store *s, const dl_http_response *resp, const char *op, const char *blob, int code);
/* The URL's encoded path of `blob` (NULL: the container), the endpoint's
 * own path first: what a request line names and Shared Key signs. */
int dl_az_url_path(dl_buf *path, const dl_az_store *s, const char *blob);
/* The full blob name of a store path (prefix + path). */
int dl_az_blob(char **out, const dl_az_store *s, const char *path);

/* ---- Blob Batch (store_azure_batch.c) ---- */

/* At most this many subrequests in one batch (the service's limit). */
#define DL_AZ_BATCH_MAX 256
/* One subrequest's answer, in Content-ID order. */
typedef struct dl_az_batch_result {
	int status;          /* the subrequest's HTTP status; 0 when it had no answer */
	char error_code[64]; /* x-ms-error-code, "" when none */
} dl_az_batch_result;
/* Reads a multipart/mixed Blob Batch response of n subrequests into
 * res[0..n) (by Content-ID). A part without a Content-ID is the service
 * refusing the whole batch: DL_EIO naming its status and error code.
 * DL_ECORRUPT for a body that is not such a response. */
int dl_az_batch_parse(dl_az_batch_result *res, size_t n, const char *body, size_t len, const char *uri);
/* The backend's delete_many: Blob Batch requests of up to 256 Delete Blob
 * subrequests. */
int dl_az_delete_many(size_t *deleted, void *impl, const char *const *paths, size_t n);

int dl_az_put_if_absent(void *impl, const char *path, const void *data, size_t len);
/* 0 we won (the blob holds `data`), DL_EEXISTS another writer did,
 * DL_ENOTFOUND nothing is there, else an error. */
int dl_az_read_back(dl_az_store *s, const char *blob, const void *data, size_t len);

#endif
