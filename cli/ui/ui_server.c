/* The HTTP side of `deltalake ui`: libmicrohttpd with its own threads,
 * a connection limit and timeouts; GET (and HEAD) only; every request
 * authenticated when a token is set (?token=, then the cookie the first
 * tokened request sets, then "Authorization: Bearer"), compared in
 * constant time; without a token (loopback) the Host header must name the
 * loopback address, so a web page elsewhere cannot reach the server
 * through DNS rebinding. */
#include <arpa/inet.h>
#include <microhttpd.h>
#include <netinet/in.h>
#include <openssl/crypto.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/socket.h>
#include "ui.h"
#include "util.h"

struct ui_server {
	struct MHD_Daemon *d;
	ui_state *st;
	char *token;
	int port;
};

#define UI_COOKIE "dl_ui_token"

static bool token_ok(const ui_server *s, const char *given)
{
	if (!given) return false;
	size_t n = strlen(s->token);
	/* Same length first (the length of a random token is no secret). */
	return strlen(given) == n && CRYPTO_memcmp(given, s->token, n) == 0;
}

/* Which credential the request carries: 0 none/wrong, 1 good. Sets *from_query
 * when it came in the URL (the answer then sets the cookie). */
static bool authorized(const ui_server *s, struct MHD_Connection *c, bool *from_query)
{
	*from_query = false;
	if (!s->token) return true;
	const char *q = MHD_lookup_connection_value(c, MHD_GET_ARGUMENT_KIND, "token");
	if (q) return (*from_query = token_ok(s, q));
	const char *k = MHD_lookup_connection_value(c, MHD_COOKIE_KIND, UI_COOKIE);
	if (k && token_ok(s, k)) return true;
	const char *a = MHD_lookup_connection_value(c, MHD_HEADER_KIND, MHD_HTTP_HEADER_AUTHORIZATION);
	if (a && strncasecmp(a, "Bearer ", 7) == 0) return token_ok(s, a + 7);
	return false;
}

/* Without a token: Host must be a loopback name with our port. */
static bool host_ok(const ui_server *s, struct MHD_Connection *c)
{
	if (s->token) return true;
	const char *h = MHD_lookup_connection_value(c, MHD_HEADER_KIND, MHD_HTTP_HEADER_HOST);
	if (!h) return false;
	static const char *const names[] = {"127.0.0.1", "localhost", "[::1]"};
	for (size_t i = 0; i < sizeof names / sizeof *names; i++) {
		size_t n = strlen(names[i]);
		if (strncasecmp(h, names[i], n) != 0) continue;
		if (h[n] == 0) return true;
		if (h[n] == ':' && atoi(h + n + 1) == s->port) return true;
	}
	return false;
}

static const char *get_arg(void *ctx, const char *name)
{
	return MHD_lookup_connection_value(ctx, MHD_GET_ARGUMENT_KIND, name);
}

static enum MHD_Result send_reply(struct MHD_Connection *c, const ui_server *s, ui_reply *r, bool set_cookie)
{
	struct MHD_Response *resp =
		MHD_create_response_from_buffer(r->len, r->body ? r->body : (void *)"", r->body ? MHD_RESPMEM_MUST_FREE
		                                                                                   : MHD_RESPMEM_PERSISTENT);
	if (!resp) {
		free(r->body);
		return MHD_NO;
	}
	MHD_add_response_header(resp, MHD_HTTP_HEADER_CONTENT_TYPE, r->type ? r->type : "text/plain");
	MHD_add_response_header(resp, "X-Content-Type-Options", "nosniff");
	MHD_add_response_header(resp, "Referrer-Policy", "no-referrer");
	MHD_add_response_header(resp, "X-Frame-Options", "DENY");
	MHD_add_response_header(resp, MHD_HTTP_HEADER_CACHE_CONTROL, "no-store");
	MHD_add_response_header(resp, "Content-Security-Policy",
	                        "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; "
	                        "connect-src 'self'; frame-ancestors 'none'; base-uri 'none'; form-action 'none'");
	if (r->status == 405) MHD_add_response_header(resp, MHD_HTTP_HEADER_ALLOW, "GET, HEAD");
	if (set_cookie && s->token) {
		char cookie[256];
		snprintf(cookie, sizeof cookie, UI_COOKIE "=%s; Path=/; HttpOnly; SameSite=Strict", s->token);
		MHD_add_response_header(resp, MHD_HTTP_HEADER_SET_COOKIE, cookie);
	}
	enum MHD_Result ret = MHD_queue_response(c, (unsigned)r->status, resp);
	MHD_destroy_response(resp);
	return ret;
}

static enum MHD_Result handle(void *cls, struct MHD_Connection *c, const char *url, const char *method,
                              const char *version, const char *upload_data, size_t *upload_size, void **con_cls)
{
	(void)version;
	(void)upload_data;
	ui_server *s = cls;
	/* First call per request: headers only; answer then (no body is read). */
	if (*con_cls == NULL) {
		*con_cls = (void *)1;
		if (strcmp(method, MHD_HTTP_METHOD_GET) == 0 || strcmp(method, MHD_HTTP_METHOD_HEAD) == 0) return MHD_YES;
	}
	if (*upload_size) {
		*upload_size = 0; /* a body on a GET is ignored; others are refused below */
		if (strcmp(method, MHD_HTTP_METHOD_GET) == 0) return MHD_YES;
	}
	ui_reply r = {0};
	bool from_query = false;
	if (strcmp(method, MHD_HTTP_METHOD_GET) != 0 && strcmp(method, MHD_HTTP_METHOD_HEAD) != 0) {
		ui_reply_error(&r, 405, "read-only: only GET is served");
	} else if (!authorized(s, c, &from_query)) {
		ui_reply_error(&r, 401, "an access token is required: open the URL with ?token= that "
		                        "'deltalake ui' printed, or send 'Authorization: Bearer TOKEN'");
	} else if (!host_ok(s, c)) {
		ui_reply_error(&r, 403, "the Host header must name the loopback address");
	} else if (strncmp(url, "/api/", 5) == 0) {
		ui_request req = {url, get_arg, c};
		ui_api_handle(s->st, &req, &r);
	} else {
		const ui_asset *a = ui_asset_find(url);
		if (!a) ui_reply_error(&r, 404, "not found: %s", url);
		else {
			r.status = 200;
			r.type = a->type;
			r.body = malloc(a->len ? a->len : 1);
			if (r.body) memcpy(r.body, a->data, a->len);
			r.len = r.body ? a->len : 0;
		}
	}
	return send_reply(c, s, &r, from_query);
}

static void quiet_log(void *cls, const char *fmt, va_list ap)
{
	(void)cls;
	(void)fmt;
	(void)ap;
}

int ui_server_start(ui_server **out, ui_state *st, const ui_server_options *o)
{
	*out = NULL;
	struct sockaddr_storage ss;
	memset(&ss, 0, sizeof ss);
	unsigned flags = MHD_USE_INTERNAL_POLLING_THREAD | MHD_USE_ERROR_LOG;
	struct sockaddr_in *a4 = (struct sockaddr_in *)&ss;
	struct sockaddr_in6 *a6 = (struct sockaddr_in6 *)&ss;
	if (inet_pton(AF_INET, o->bind, &a4->sin_addr) == 1) {
		a4->sin_family = AF_INET;
		a4->sin_port = htons((uint16_t)o->port);
	} else if (inet_pton(AF_INET6, o->bind, &a6->sin6_addr) == 1) {
		a6->sin6_family = AF_INET6;
		a6->sin6_port = htons((uint16_t)o->port);
		flags |= MHD_USE_IPv6;
	} else {
		return dl_cli_fail(DL_EINVALID, "--bind '%s' is not a numeric IPv4 or IPv6 address", o->bind);
	}
	ui_server *s = calloc(1, sizeof *s);
	if (!s) return DL_ENOMEM;
	s->st = st;
	s->token = o->token ? strdup(o->token) : NULL;
	s->port = o->port;
	s->d = MHD_start_daemon(flags, (uint16_t)o->port, NULL, NULL, handle, s, MHD_OPTION_SOCK_ADDR,
	                        (struct sockaddr *)&ss, MHD_OPTION_THREAD_POOL_SIZE, 4u,
	                        MHD_OPTION_CONNECTION_LIMIT, o->connection_limit, MHD_OPTION_PER_IP_CONNECTION_LIMIT,
	                        o->connection_limit, MHD_OPTION_CONNECTION_TIMEOUT, o->timeout_s,
	                        MHD_OPTION_CONNECTION_MEMORY_LIMIT, (size_t)64 * 1024, MHD_OPTION_EXTERNAL_LOGGER,
	                        quiet_log, NULL, MHD_OPTION_END);
	if (!s->d) {
		free(s->token);
		free(s);
		return dl_cli_fail(DL_EIO, "cannot listen on %s port %d (in use, or not an address of this machine)",
		                   o->bind, o->port);
	}
	const union MHD_DaemonInfo *info = MHD_get_daemon_info(s->d, MHD_DAEMON_INFO_BIND_PORT);
	if (info) s->port = info->port;
	*out = s;
	return 0;
}

int ui_server_port(const ui_server *s) { return s->port; }

void ui_server_stop(ui_server *s)
{
	if (!s) return;
	MHD_stop_daemon(s->d);
	if (s->token) OPENSSL_cleanse(s->token, strlen(s->token));
	free(s->token);
	free(s);
}
