/* `deltalake ui` (cli/ui/): a read-only web page of one table's history,
 * layout and health, served by libmicrohttpd. The parts:
 *   cmd_ui.c      the command: options, access token, start, wait for a signal
 *   ui_server.c   HTTP: GET only, authentication, security headers, assets
 *   ui_api.c      /api/history, files, detail, schema, protocol, commit, diff
 *   ui_health.c   /api/layout, /api/stats, /api/query (snapshot-wide numbers, cached)
 *   assets/       the page (HTML, CSS, hand-written JS drawing SVG), embedded
 *                 into the binary at build time (cmake/EmbedAssets.cmake)
 * Views and endpoints: docs/UI.md. */
#ifndef DL_CLI_UI_H
#define DL_CLI_UI_H
#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include "cli.h"
#include "deltalake.h"

/* What a request may ask for: query arguments by name (NULL when absent). */
typedef struct ui_request {
	const char *path;
	const char *(*arg)(void *ctx, const char *name);
	void *ctx;
} ui_request;

/* An answer: status and a malloc'd body. */
typedef struct ui_reply {
	int status;
	char *body;
	size_t len;
	const char *type; /* content type */
} ui_reply;

/* The table being shown, and what was computed from its snapshot once. */
typedef struct ui_state {
	dl_cli *cli;
	const char *table;
	dl_snapshot *snap;      /* latest version, opened at start */
	dl_scan *scan;          /* every live file, for the paged file list */
	int64_t max_rows;       /* --max-rows: query row limit */
	pthread_mutex_t lock;   /* guards the caches below but the layout */
	pthread_mutex_t layout_lock; /* guards layout_json (computed beside the history) */
	dl_history *history;    /* opened once (reads every commit's commitInfo) */
	char *history_json;     /* /api/history */
	char *layout_json;      /* /api/layout */
	char *stats_json;       /* /api/stats (without ?column=) */
	dl_stats_summary *stats;
	char *diff_key;         /* the last diff "A:B" and its answer */
	char *diff_json;
} ui_state;

/* The asset at `path` ("/" is the page), or NULL. */
typedef struct ui_asset {
	const char *path;
	const char *type;
	const unsigned char *data;
	size_t len;
} ui_asset;
const ui_asset *ui_asset_find(const char *path);

/* The cached history, opened on first use; call with st->lock held. */
int ui_history(const dl_history **out, ui_state *st);
/* Fill the caches the page asks for first, the history and the layout;
 * each runs on its own thread at start so the first page load finds them
 * ready. */
void *ui_warm_history(void *st);
void *ui_warm_layout(void *st);

/* Answers GET `req->path` under /api/. */
void ui_api_handle(ui_state *st, const ui_request *req, ui_reply *out);
void ui_health_layout(ui_state *st, const ui_request *req, ui_reply *out);
void ui_health_stats(ui_state *st, const ui_request *req, ui_reply *out);
void ui_health_query(ui_state *st, const ui_request *req, ui_reply *out);

/* Reply helpers: a JSON body from a memstream, or an error object. */
void ui_reply_json(ui_reply *out, char *body, size_t len);
void ui_reply_error(ui_reply *out, int status, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
/* A copy of a cached text as the body. */
void ui_reply_cached(ui_reply *out, const char *json);
/* The error of the last failed library call as a reply (400 for bad
 * arguments, 404 for a missing version, 500 otherwise). */
void ui_reply_dl_error(ui_reply *out, int rc);
/* A JSON string literal of s (NULL: null). */
void ui_json_str(FILE *fp, const char *s);
/* An integer argument in [lo, hi], `def` when absent; false (after a 400
 * reply) when it is not one. */
bool ui_arg_int(int64_t *out, const ui_request *req, const char *name, int64_t def, int64_t lo, int64_t hi,
                ui_reply *reply);

/* The HTTP server. */
typedef struct ui_server ui_server;
typedef struct ui_server_options {
	const char *bind;       /* numeric IPv4 or IPv6 address */
	int port;               /* 0: any free port */
	const char *token;      /* required on every request, or NULL (loopback) */
	unsigned connection_limit;
	unsigned timeout_s;
} ui_server_options;
int ui_server_start(ui_server **out, ui_state *st, const ui_server_options *o);
int ui_server_port(const ui_server *s);
void ui_server_stop(ui_server *s);

#endif
