/* Delta Sharing client: profile files, the REST API of the open protocol
 * (PROTOCOL.md of delta-io/delta-sharing) and shared tables read like Delta
 * tables (docs/SHARING_CLIENT.md).
 *
 *   dl_sharing_client *c;
 *   dl_sharing_client_open(&c, "config.share", NULL);
 *   dl_sharing_list_all_tables(c, "share1", print_item, NULL);
 *   dl_sharing_client_free(c);
 *
 * After dl_sharing_register(), every function that takes a table path also
 * takes "PROFILE#share.schema.table" (dl_snapshot_open, scans, the CLI's
 * read commands, SQL's delta.`...`): the shared table is presented to the
 * reader as a read-only Delta table whose data files are fetched through
 * the server's pre-signed URLs, re-queried when they expire. */
#ifndef DELTALAKE_SHARING_H
#define DELTALAKE_SHARING_H
#include "deltalake/common.h"
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* ---- profile files ---- */

typedef enum dl_sharing_auth {
	DL_SHARING_AUTH_BEARER = 1, /* bearerToken (v1, or v2 type bearer_token) */
	DL_SHARING_AUTH_OAUTH = 2,  /* v2 type oauth_client_credentials */
} dl_sharing_auth;

typedef struct dl_sharing_profile dl_sharing_profile;

/* Reads a profile file (JSON): shareCredentialsVersion 1 (endpoint,
 * bearerToken, optional expirationTime) or 2 (type bearer_token with the
 * same fields, or type oauth_client_credentials with tokenEndpoint,
 * clientId, clientSecret and optional scope). DL_EINVALID naming the file
 * and the field for anything missing or malformed; DL_EUNSUPPORTED for a
 * newer shareCredentialsVersion (upgrade the client). An expired bearer
 * token is refused when a request is made, not here. */
DL_EXTERN(int) dl_sharing_profile_load(dl_sharing_profile **out, const char *path);
/* The same from text; `what` names the source in messages. */
DL_EXTERN(int) dl_sharing_profile_parse(dl_sharing_profile **out, const char *json, size_t len,
                                        const char *what);
DL_EXTERN(void) dl_sharing_profile_free(dl_sharing_profile *p);
DL_EXTERN(int) dl_sharing_profile_version(const dl_sharing_profile *p);
DL_EXTERN(dl_sharing_auth) dl_sharing_profile_auth(const dl_sharing_profile *p);
DL_EXTERN(const char *) dl_sharing_profile_endpoint(const dl_sharing_profile *p);
/* Epoch ms of expirationTime, or -1 when the token never expires. */
DL_EXTERN(int64_t) dl_sharing_profile_expiration(const dl_sharing_profile *p);

/* ---- the client ---- */

#define DL_SHARING_CLIENT_OPTIONS_VERSION 1
typedef struct dl_sharing_client_options {
	int version;                 /* DL_SHARING_CLIENT_OPTIONS_VERSION */
	/* The delta-sharing-capabilities responseformat: "parquet", "delta" or
	 * "delta,parquet" (NULL: "delta,parquet", the server picks parquet
	 * unless the table needs delta). */
	const char *response_format;
	/* readerfeatures sent with responseformat delta (NULL: every reader
	 * feature this library reads). */
	const char *reader_features;
	long timeout_ms;             /* per request; 0: 120000 */
	int max_attempts;            /* retries of failed reads; 0: 4 */
} dl_sharing_client_options;
#define DL_SHARING_CLIENT_OPTIONS_INIT {DL_SHARING_CLIENT_OPTIONS_VERSION, NULL, NULL, 0, 0}

typedef struct dl_sharing_client dl_sharing_client;

/* Loads the profile at `profile_path` and prepares requests to its
 * endpoint. Thread-safe afterwards: one client serves a scan's threads. */
DL_EXTERN(int) dl_sharing_client_open(dl_sharing_client **out, const char *profile_path,
                                      const dl_sharing_client_options *opts);
/* Takes ownership of `profile`, freed with the client (also on error). */
DL_EXTERN(int) dl_sharing_client_open_profile(dl_sharing_client **out, dl_sharing_profile *profile,
                                              const dl_sharing_client_options *opts);
DL_EXTERN(void) dl_sharing_client_free(dl_sharing_client *c);

/* ---- listing (pages followed through nextPageToken) ---- */

typedef struct dl_sharing_item {
	const char *name;
	const char *share;    /* schemas and tables */
	const char *schema;   /* tables */
	const char *id;       /* optional: NULL */
	const char *share_id; /* tables, optional */
} dl_sharing_item;
/* Called per item; a non-zero return stops the listing and is returned. */
typedef int (*dl_sharing_item_fn)(const dl_sharing_item *item, void *payload);

DL_EXTERN(int) dl_sharing_list_shares(dl_sharing_client *c, dl_sharing_item_fn fn, void *payload);
DL_EXTERN(int) dl_sharing_get_share(dl_sharing_client *c, const char *share, dl_sharing_item_fn fn,
                                    void *payload);
DL_EXTERN(int) dl_sharing_list_schemas(dl_sharing_client *c, const char *share,
                                       dl_sharing_item_fn fn, void *payload);
DL_EXTERN(int) dl_sharing_list_tables(dl_sharing_client *c, const char *share, const char *schema,
                                      dl_sharing_item_fn fn, void *payload);
DL_EXTERN(int) dl_sharing_list_all_tables(dl_sharing_client *c, const char *share,
                                          dl_sharing_item_fn fn, void *payload);

/* The table's current version (Delta-Table-Version of GET .../version);
 * with starting_timestamp (ISO 8601, UTC) the earliest version at or after
 * it. */
DL_EXTERN(int) dl_sharing_table_version(int64_t *out, dl_sharing_client *c, const char *share,
                                        const char *schema, const char *table,
                                        const char *starting_timestamp);

/* ---- query, metadata and changes: the response lines ---- */

typedef enum dl_sharing_line_kind {
	DL_SHARING_PROTOCOL = 1,
	DL_SHARING_METADATA,
	DL_SHARING_FILE,   /* a file of a snapshot */
	DL_SHARING_ADD,    /* changes: parquet format's add / cdf / remove */
	DL_SHARING_CDF,
	DL_SHARING_REMOVE,
	DL_SHARING_END_STREAM, /* endStreamAction (includeEndStreamAction) */
} dl_sharing_line_kind;

/* One parsed response line. Strings are NUL-terminated and live until the
 * callback returns. In the delta format a file's action is the Delta
 * action itself (`delta_action`, {"add":{...}} with its path a URL), and
 * kind is FILE, ADD, CDF or REMOVE after that action. */
typedef struct dl_sharing_line {
	dl_sharing_line_kind kind;
	int delta_format;          /* 1: responseformat delta */
	int64_t line;              /* 1-based line number */
	/* PROTOCOL: parquet format: min_reader_version; delta format: the
	 * Delta protocol action's JSON ({"minReaderVersion":3,...}). */
	int min_reader_version;
	const char *delta_protocol;
	/* METADATA: the Delta metaData action's JSON (the parquet format's
	 * metadata has the same fields); version/size/num_files -1 if absent. */
	const char *metadata;
	/* FILE/ADD/CDF/REMOVE */
	const char *url;
	const char *id;
	const char *partition_values; /* JSON object text */
	const char *stats;            /* NULL when absent */
	const char *deletion_vector_file_id;
	const char *delta_action;     /* delta format: the single action's JSON */
	int64_t size;
	int64_t version;              /* -1 when absent (also METADATA) */
	int64_t timestamp;            /* -1 when absent */
	int64_t expiration_ms;        /* expirationTimestamp, -1 when absent */
	int64_t num_files;            /* METADATA, -1 when absent */
	/* END_STREAM: refreshToken / nextPageToken / minUrlExpirationTimestamp */
	const char *refresh_token;
	const char *next_page_token;
} dl_sharing_line;
typedef int (*dl_sharing_line_fn)(const dl_sharing_line *line, void *payload);

#define DL_SHARING_QUERY_VERSION 2
typedef struct dl_sharing_query {
	int version;                    /* DL_SHARING_QUERY_VERSION */
	int64_t as_of_version;          /* -1: latest */
	const char *timestamp;          /* as of (ISO 8601, UTC), or NULL */
	int64_t starting_version;       /* -1: a snapshot query */
	int64_t ending_version;         /* -1 */
	const char *const *predicate_hints; /* SQL, conjunctive */
	size_t npredicate_hints;
	const char *json_predicate_hints; /* JSON text, or NULL */
	int64_t limit_hint;             /* -1 */
	int include_historical_metadata; /* changes */
	const char *starting_timestamp; /* changes */
	const char *ending_timestamp;   /* changes */
	/* since version 2: paging (maxFiles / pageToken: body fields of query,
	 * query parameters of changes). With
	 * max_files > 0 the server answers at most that many file lines and,
	 * while more remain, an endStreamAction whose nextPageToken
	 * (dl_sharing_line.next_page_token) is sent back as page_token with
	 * the same query for the next page. */
	int64_t max_files;              /* -1: no paging */
	const char *page_token;         /* NULL: the first page */
} dl_sharing_query;
#define DL_SHARING_QUERY_INIT \
	{DL_SHARING_QUERY_VERSION, -1, NULL, -1, -1, NULL, 0, NULL, -1, 0, NULL, NULL, -1, NULL}

/* POST .../query: every line to fn; *table_version (may be NULL) gets the
 * Delta-Table-Version header (-1 when not sent). */
DL_EXTERN(int) dl_sharing_query_table(int64_t *table_version, dl_sharing_client *c,
                                      const char *share, const char *schema, const char *table,
                                      const dl_sharing_query *q, dl_sharing_line_fn fn,
                                      void *payload);
/* GET .../metadata: the protocol and metaData lines. */
DL_EXTERN(int) dl_sharing_table_metadata(int64_t *table_version, dl_sharing_client *c,
                                         const char *share, const char *schema, const char *table,
                                         dl_sharing_line_fn fn, void *payload);
/* GET .../changes (startingVersion or startingTimestamp required). */
DL_EXTERN(int) dl_sharing_table_changes(int64_t *table_version, dl_sharing_client *c,
                                        const char *share, const char *schema, const char *table,
                                        const dl_sharing_query *q, dl_sharing_line_fn fn,
                                        void *payload);

/* Parses one response line (exposed for tests and fuzzing). */
DL_EXTERN(int) dl_sharing_parse_line(const char *text, size_t len, int64_t lineno, const char *what,
                                     dl_sharing_line_fn fn, void *payload);

/* ---- shared tables as table paths ---- */

/* Splits "PROFILE#share.schema.table" (the last '#'; exactly three
 * non-empty dot-separated names). 0, or DL_EINVALID saying what is wrong.
 * The outputs are malloc'd (free with dl_free). */
DL_EXTERN(int) dl_sharing_parse_path(char **profile, char **share, char **schema, char **table,
                                     const char *path);
/* Registers the store backend through which dl_store_open (and so every
 * table path) reads "PROFILE#share.schema.table" when PROFILE is an
 * existing file. Idempotent and thread-safe. */
DL_EXTERN(int) dl_sharing_register(void);

#ifdef __cplusplus
}
#endif
#endif
