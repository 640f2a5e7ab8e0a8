/* A Delta Sharing server (the open protocol of delta-io/delta-sharing,
 * PROTOCOL.md) over the tables a YAML config names; docs/SHARING_SERVER.md.
 *
 *   dl_sharing_server_options o = DL_SHARING_SERVER_OPTIONS_INIT;
 *   o.config_path = "shares.yaml";
 *   dl_sharing_server *srv;
 *   if (dl_sharing_server_start(&srv, &o) == 0) {
 *       printf("listening on %d\n", dl_sharing_server_port(srv));
 *       ... until asked to stop ...
 *       dl_sharing_server_stop(srv);
 *   }
 *
 * The server answers on its own threads (libmicrohttpd's thread pool);
 * start and stop are called by one thread. Every request is authenticated
 * by a bearer token (the config's recipients keep only SHA-256 hashes of
 * theirs); a recipient sees only its shares (others are 404, as if absent).
 * Data files are served through expiring URLs bound to one file of the
 * served snapshot: the server's own /files endpoint with an HMAC-SHA256
 * signature (the key is random per process, so URLs die with it). */
#ifndef DELTALAKE_SHARING_SERVER_H
#define DELTALAKE_SHARING_SERVER_H
#include "deltalake/common.h"
#include "deltalake/error.h"
#include <stdint.h>
#include <stdio.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct dl_sharing_server dl_sharing_server;

#define DL_SHARING_SERVER_OPTIONS_VERSION 1

typedef struct dl_sharing_server_options {
	int version;               /* DL_SHARING_SERVER_OPTIONS_VERSION */
	const char *config_path;   /* the YAML config (required) */
	const char *bind_address;  /* numeric IPv4/IPv6 address; NULL: the config's
	                              `host` when numeric or "localhost", else 127.0.0.1 */
	int port;                  /* -1: the config's `port`; 0: any free port */
	const char *tls_cert_path; /* PEM certificate and key: HTTPS (both or neither; */
	const char *tls_key_path;  /* NULL: the config's ssl section, else plain HTTP) */
	FILE *access_log;          /* one line per request (no secrets); NULL: none */
	unsigned max_connections;  /* 0: 256 */
	unsigned timeout_seconds;  /* idle connection timeout; 0: the config's
	                              requestTimeoutSeconds, else 30 */
	const char *public_url;    /* the scheme://host:port file URLs start with; NULL:
	                              from the bind address and the port */
} dl_sharing_server_options;

#define DL_SHARING_SERVER_OPTIONS_INIT \
	{DL_SHARING_SERVER_OPTIONS_VERSION, NULL, NULL, -1, NULL, NULL, NULL, 0, 0, NULL}

/* Loads and checks the config (errors name the file, line and key), then
 * listens. DL_EINVALID for a bad config or options, DL_EIO when the
 * address cannot be bound or TLS files cannot be read. */
DL_EXTERN(int) dl_sharing_server_start(dl_sharing_server **out, const dl_sharing_server_options *opts);
/* The port listened on (the chosen one when started with port 0). */
DL_EXTERN(int) dl_sharing_server_port(const dl_sharing_server *srv);
/* Stops listening, waits for the requests in flight and frees. NULL is fine. */
DL_EXTERN(void) dl_sharing_server_stop(dl_sharing_server *srv);

/* A new random bearer token (32 bytes from the kernel, base64url) and the
 * line a config keeps instead of it ("sha256:<64 hex digits>"). Both are
 * freed with dl_free. */
DL_EXTERN(int) dl_sharing_token_make(char **token, char **token_hash);
/* The "sha256:<hex>" form of an existing token (freed with dl_free). */
DL_EXTERN(int) dl_sharing_token_hash(char **token_hash, const char *token);

#ifdef __cplusplus
}
#endif
#endif
