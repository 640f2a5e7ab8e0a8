/* The internal side of the Delta Sharing server (deltalake/sharing_server.h):
 * the parsed config, the request as the routes see it, and the functions
 * each file implements. One concept per file:
 *   config_yaml.c    the YAML config (the reference server's format + ours)
 *   token_auth.c     bearer tokens: hashing, constant-time lookup, expiry
 *   signed_url.c     expiring HMAC-signed file URLs bound to one file
 *   server_http.c    the libmicrohttpd daemon, limits, TLS, body collection
 *   server_routes.c  the URL grammar, dispatch and the JSON error bodies
 *   server_list.c    shares / schemas / tables / all-tables with paging
 *   server_query.c   version, metadata, query (parquet and delta formats)
 *   server_predicates.c  jsonPredicateHints to Spark SQL
 *   server_changes.c the change data feed
 *   server_files.c   the /files endpoint serving signed URLs
 *   server_snapshot_cache.c  replayed snapshots kept for later requests
 *   server_log.c     the access log line */
#ifndef DL_SHARING_SERVER_H
#define DL_SHARING_SERVER_H
#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include "deltalake/sharing_server.h"
#include "deltalake/store.h"
#include "util/arena.h"
#include "util/buf.h"

/* ---- config (config_yaml.c) ------------------------------------------ */

typedef struct dl_shr_table {
	const char *name;
	const char *location;        /* a table URI on any store */
	const char *id;              /* NULL: none given */
	bool history_shared;         /* time travel and changes allowed */
	bool cdf_enabled;            /* changes allowed (the reference's cdfEnabled) */
	int64_t start_version;       /* the first version changes may start at */
	const char *partition_filter; /* Spark SQL over partition columns, or NULL */
} dl_shr_table;

typedef struct dl_shr_schema {
	const char *name;
	dl_shr_table *tables;
	size_t ntables;
} dl_shr_schema;

typedef struct dl_shr_share {
	const char *name;
	const char *id;
	dl_shr_schema *schemas;
	size_t nschemas;
} dl_shr_share;

typedef struct dl_shr_recipient {
	const char *name;
	uint8_t token_hash[32];      /* SHA-256 of the token */
	int64_t expires_ms;          /* INT64_MAX: never */
	const char **shares;         /* names granted; all_shares: every share */
	size_t nshares;
	bool all_shares;
} dl_shr_recipient;

typedef struct dl_shr_config {
	dl_arena arena;              /* every string and array below */
	int version;
	dl_shr_share *shares;
	size_t nshares;
	dl_shr_recipient *recipients; /* authorization.bearerToken becomes one with
	                                 all_shares, named "bearerToken" */
	size_t nrecipients;
	const char *host;            /* NULL when absent */
	int port;                    /* -1 when absent */
	const char *endpoint;        /* "/delta-sharing" by default, no trailing '/' */
	int64_t presigned_url_timeout_s; /* 3600 by default */
	int64_t request_timeout_s;   /* 30 by default */
	const char *ssl_cert;        /* ssl.certificateFile, or NULL */
	const char *ssl_key;         /* ssl.certificateKeyFile */
	int64_t max_body_bytes;      /* our limit: 1 MiB by default */
	int64_t snapshot_cache_entries; /* deltaTableCacheSize: 10 by default */
	int64_t snapshot_cache_bytes;   /* snapshotCacheBytes: 256 MiB by default; 0: no cache */
} dl_shr_config;

/* Parses YAML text (what names it in messages: the file path). Errors are
 * DL_EINVALID "<what>: line L: ...". */
int dl_shr_config_parse(dl_shr_config *out, const char *text, size_t len, const char *what);
int dl_shr_config_load(dl_shr_config *out, const char *path);
void dl_shr_config_free(dl_shr_config *c);

const dl_shr_share *dl_shr_config_share(const dl_shr_config *c, const char *name);
const dl_shr_schema *dl_shr_share_schema(const dl_shr_share *s, const char *name);
const dl_shr_table *dl_shr_schema_table(const dl_shr_schema *s, const char *name);

/* ---- tokens (token_auth.c) ------------------------------------------- */

void dl_shr_token_digest(uint8_t out[32], const char *token, size_t len);
/* Parses "sha256:<64 hex>". DL_EINVALID otherwise. */
int dl_shr_token_hash_parse(uint8_t out[32], const char *text);
/* The recipient of an Authorization header value, comparing every
 * recipient's hash in constant time; NULL when missing, wrong or expired
 * (*why says which, for the 401 message). */
const dl_shr_recipient *dl_shr_authenticate(const dl_shr_config *c, const char *authorization,
                                            int64_t now_ms, const char **why);
bool dl_shr_recipient_may_read(const dl_shr_recipient *r, const char *share);

/* ---- signed file URLs (signed_url.c) --------------------------------- */

typedef struct dl_shr_signer {
	uint8_t key[32];
} dl_shr_signer;

int dl_shr_signer_init(dl_shr_signer *s);
/* Appends "/files/<token>" to out: the token binds share, schema, table,
 * the file's location and the expiry (epoch ms). */
int dl_shr_sign_file(dl_buf *out, const dl_shr_signer *s, const char *share, const char *schema,
                     const char *table, const char *location, int64_t expires_ms);
typedef struct dl_shr_signed_file {
	char *share, *schema, *table, *location; /* malloc'd; location relative to the table root */
	int64_t expires_ms;
} dl_shr_signed_file;
/* Checks a token's signature (constant time) and expiry. DL_EPERM when the
 * signature is wrong or it expired (the message says which), DL_EINVALID
 * when it is not a token at all. */
int dl_shr_verify_file(dl_shr_signed_file *out, const dl_shr_signer *s, const char *token,
                       int64_t now_ms);
void dl_shr_signed_file_free(dl_shr_signed_file *f);
/* The id of a file in responses: MD5 of its log path, 32 hex digits. */
void dl_shr_file_id(char out[33], const char *path);

/* ---- the server ------------------------------------------------------- */

typedef struct dl_shr_s3_cache dl_shr_s3_cache;
typedef struct dl_shr_snapshot_cache dl_shr_snapshot_cache;

typedef struct dl_shr_server {
	dl_shr_config config;
	dl_shr_signer signer;
	struct MHD_Daemon *daemon;
	int port;
	char *public_url;            /* "http://127.0.0.1:8080" */
	FILE *access_log;
	pthread_mutex_t log_mu;
	int64_t max_body;
	pthread_mutex_t s3_mu;       /* guards s3 */
	dl_shr_s3_cache *s3;         /* object store configurations of tables (signed_url_store.c) */
	dl_shr_snapshot_cache *snapshots; /* server_snapshot_cache.c; NULL: off */
} dl_shr_server;

/* signed_url_store.c: a presigned S3 or Azure SAS URL of a file (rel:
 * relative to the table root) when the table is on S3/Azure with keys
 * (*done true); else nothing (the caller makes a /files URL). */
int dl_shr_presign(dl_buf *out, bool *done, dl_shr_server *srv, const dl_shr_table *t, const char *rel,
                   int64_t expires_ms);
void dl_shr_s3_cache_free(dl_shr_s3_cache *c);

/* A request as the routes see it. */
typedef struct dl_shr_request {
	dl_shr_server *srv;
	struct MHD_Connection *conn;
	const char *method;
	const char *url;             /* path only, as received (still %-encoded) */
	const char *body;            /* NULL when none */
	size_t body_len;
	const dl_shr_recipient *recipient; /* after authentication */
	/* filled by the handler, for the access log */
	unsigned status;
	int64_t bytes;
} dl_shr_request;

/* A response to queue: status, content type, extra headers, body. */
typedef struct dl_shr_response {
	unsigned status;
	const char *content_type;
	dl_buf body;
	char *headers[6][2];        /* name/value pairs, malloc'd values; NULL ends */
	int fd;                      /* >= 0: the body is this file (server_files.c) */
	int64_t fd_size;
	void *stream;                /* a streamed body (server_files.c) */
	char detail[320];            /* for the access log: the library's message behind
	                                a 500/403 the client only sees in general terms */
} dl_shr_response;

void dl_shr_response_init(dl_shr_response *r);
void dl_shr_response_free(dl_shr_response *r);
int dl_shr_response_header(dl_shr_response *r, const char *name, const char *value);
/* Sets a JSON error body {"errorCode":..,"message":..} with its status. */
void dl_shr_error(dl_shr_response *r, unsigned status, const char *code, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
/* The status and error code for a library error code (DL_ENOTFOUND -> 404...). */
void dl_shr_error_from_dl(dl_shr_response *r, int rc, const char *context);

/* A body streamed from a store reader (both owned by the response). */
int dl_shr_response_stream(dl_shr_response *r, dl_store *store, dl_store_reader *reader,
                           int64_t offset, int64_t size);

/* Dispatches a complete request (server_routes.c). */
void dl_shr_route(dl_shr_request *req, dl_shr_response *resp);

/* A parsed path: {prefix}/shares[/{share}[/schemas[/{schema}[/tables[/{table}[/{op}]]]]]]
 * or {prefix}/shares/{share}/all-tables, or /files/{token}. */
typedef enum dl_shr_route_kind {
	DL_SHR_R_NONE = 0,
	DL_SHR_R_SHARES,
	DL_SHR_R_SHARE,
	DL_SHR_R_SCHEMAS,
	DL_SHR_R_TABLES,
	DL_SHR_R_ALL_TABLES,
	DL_SHR_R_TABLE,              /* the legacy HEAD version */
	DL_SHR_R_VERSION,
	DL_SHR_R_METADATA,
	DL_SHR_R_QUERY,
	DL_SHR_R_CHANGES,
	DL_SHR_R_FILES,
} dl_shr_route_kind;
typedef struct dl_shr_path {
	dl_shr_route_kind kind;
	char *share, *schema, *table; /* decoded, malloc'd; NULL when absent */
	char *token;                 /* FILES */
} dl_shr_path;
/* Parses a request path against the endpoint prefix. DL_ENOTFOUND when it
 * is no route, DL_EINVALID for a bad %-escape, a NUL, "." or ".." segment. */
int dl_shr_path_parse(dl_shr_path *out, const char *endpoint, const char *url);
void dl_shr_path_free(dl_shr_path *p);

/* Query-string values (MHD decodes them). */
const char *dl_shr_arg(dl_shr_request *req, const char *name);
const char *dl_shr_header(dl_shr_request *req, const char *name);

/* server_list.c */
void dl_shr_list_shares(dl_shr_request *req, dl_shr_response *resp);
void dl_shr_get_share(dl_shr_request *req, dl_shr_response *resp, const dl_shr_share *share);
void dl_shr_list_schemas(dl_shr_request *req, dl_shr_response *resp, const dl_shr_share *share);
void dl_shr_list_tables(dl_shr_request *req, dl_shr_response *resp, const dl_shr_share *share,
                        const dl_shr_schema *schema);

/* server_query.c */
typedef struct dl_shr_target {
	const dl_shr_share *share;
	const dl_shr_schema *schema;
	const dl_shr_table *table;
} dl_shr_target;
void dl_shr_table_version(dl_shr_request *req, dl_shr_response *resp, const dl_shr_target *t);
void dl_shr_table_metadata(dl_shr_request *req, dl_shr_response *resp, const dl_shr_target *t);
void dl_shr_table_query(dl_shr_request *req, dl_shr_response *resp, const dl_shr_target *t);
/* server_changes.c */
void dl_shr_table_changes(dl_shr_request *req, dl_shr_response *resp, const dl_shr_target *t);
/* server_files.c */
void dl_shr_serve_file(dl_shr_request *req, dl_shr_response *resp, const char *token);

/* Shared by query and changes (server_query.c). */
typedef struct dl_shr_caps {
	bool delta_format;           /* responseformat=delta was asked for (and chosen) */
	bool end_stream_action;      /* includeEndStreamAction=true */
	bool dv_ok, cm_ok;           /* readerfeatures the client can handle */
	bool want_both_;             /* both formats offered: chosen per table */
} dl_shr_caps;
void dl_shr_caps_parse(dl_shr_caps *out, const char *header);
/* The snapshot a table config names, confined to the table root
 * (server_snapshot_cache.c): lent from the server's cache or replayed (and
 * then cached); give it back with dl_shr_release_snapshot, never
 * dl_snapshot_free. Read it only: other requests may share it. */
struct dl_snapshot;
int dl_shr_open_snapshot(struct dl_snapshot **out, dl_shr_server *srv, const dl_shr_table *t,
                         int64_t version, int64_t timestamp_ms, bool metadata_only);
void dl_shr_release_snapshot(dl_shr_server *srv, struct dl_snapshot *snap);
/* max_entries or max_bytes 0: no cache (*out NULL). */
int dl_shr_snapshot_cache_new(dl_shr_snapshot_cache **out, size_t max_entries, size_t max_bytes);
void dl_shr_snapshot_cache_free(dl_shr_snapshot_cache *c);
void dl_shr_snapshot_cache_stats(const dl_shr_snapshot_cache *c, uint64_t *hits, uint64_t *misses,
                                 size_t *bytes);
/* "yyyy-[m]m-[d]d hh:mm:ss[.f...]" (PROTOCOL.md "Timestamp Format", read in
 * UTC, the server's zone) or ISO-8601 to epoch ms. */
int dl_shr_parse_timestamp(int64_t *ms, const char *text);
/* The library's message `msg` about table t made fit for the recipient:
 * without the "opening table <location>: " prefix, and never naming the
 * location (a server path) anywhere: then a general sentence instead. */
const char *dl_shr_table_message(const dl_shr_table *t, const char *msg);
/* The protocol and metaData lines (version, size, numFiles: -1 for none);
 * the query, metadata and changes endpoints all write them here. */
struct dl_protocol;
struct dl_metadata;
int dl_shr_write_protocol_line(dl_buf *out, const struct dl_protocol *p, const dl_shr_caps *caps,
                               int64_t version);
int dl_shr_write_metadata_line(dl_buf *out, const struct dl_metadata *m, const dl_shr_caps *caps,
                               int64_t version, int64_t size, int64_t num_files);
/* Writes the snapshot's protocol and metaData lines. */
int dl_shr_write_protocol_metadata(dl_buf *out, struct dl_snapshot *snap, const dl_shr_caps *caps,
                                   bool with_version, bool with_size);
/* The URL of a file of the table (location: a table-root-joined location). */
int dl_shr_file_url(dl_buf *out, dl_shr_request *req, const dl_shr_target *t, const char *location,
                    int64_t expires_ms);
int dl_shr_capability_header(dl_shr_response *resp, const dl_shr_caps *caps);

/* jsonPredicateHints (PROTOCOL.md "JSON predicates for Filtering") as a
 * Spark SQL predicate (malloc'd); DL_EINVALID when it is not one. */
int dl_shr_json_predicate_sql(char **out, const char *json);
/* {"endStreamAction":{["nextPageToken":..,]"minUrlExpirationTimestamp":..}}
 * and a newline (next_page_token NULL: the last page). */
int dl_shr_write_end_stream(dl_buf *out, int64_t min_expiry, const char *next_page_token);
/* server_files.c: the location of a log path of the table at root (joined
 * when relative), or of a location, relative to root; DL_EPERM outside. */
int dl_shr_confine(char **location, const char *root, const char *path);
int dl_shr_confine_rel(char **rel, const char *root, const char *location);
/* server_changes.c: the lines of commits [start, end] (end -1: latest);
 * query_form: the startingVersion form of query (adds and removes);
 * with_protocol: also the protocol actions of those commits
 * (includeHistoricalProtocol); hints: predicateHints (SQL, the query
 * form's), used to skip actions whose partition values cannot match.
 * max_files > 0 pages the answer: at most that many add/cdf/remove lines,
 * ended by an endStreamAction whose nextPageToken ("c<start>_<last>_<n>",
 * pinning the last version of the first page) page_token gives back. A
 * token we did not give, or of another start, is 400. */
int dl_shr_write_changes(dl_shr_request *req, dl_shr_response *resp, const dl_shr_target *t,
                         dl_shr_caps *caps, int64_t start, int64_t end, bool query_form,
                         bool with_protocol, const char *const *hints, size_t nhints,
                         int64_t max_files, const char *page_token);

/* server_log.c */
void dl_shr_log_request(dl_shr_request *req, const dl_shr_response *resp, int64_t micros);

#endif
