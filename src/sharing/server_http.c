/* The HTTP side of the sharing server: a libmicrohttpd daemon (HTTP/1.1,
 * TLS through GnuTLS when given a certificate), its limits, and the
 * collection of a request before it is routed.
 *
 * Limits, so no client can hold the server: a connection limit, an idle
 * timeout, a per-connection memory pool that bounds the request line and
 * headers (MHD answers 431 past it), a body limit (413) and a fixed pool of
 * threads. Responses are built whole in memory except files, which stream
 * from their store in 64 KiB reads. */
#include <arpa/inet.h>
#include <inttypes.h>
#include <microhttpd.h>
#include <netinet/in.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/socket.h>
#include <unistd.h>
#include "sharing/server.h"
#include "util/error.h"
#include "util/mem.h"
#include "util/options.h"
#include "util/time.h"

struct dl_sharing_server {
	dl_shr_server s;
};

typedef struct conn_ctx {
	dl_buf body;
	bool too_large;
	int64_t start_us;
} conn_ctx;

void dl_shr_response_init(dl_shr_response *r)
{
	memset(r, 0, sizeof *r);
	r->status = 200;
	r->fd = -1;
}

void dl_shr_response_free(dl_shr_response *r)
{
	dl_buf_free(&r->body);
	for (int i = 0; i < 6 && r->headers[i][0]; i++) {
		dl_free(r->headers[i][0]);
		dl_free(r->headers[i][1]);
	}
	if (r->fd >= 0) close(r->fd);
	memset(r, 0, sizeof *r);
	r->fd = -1;
}

int dl_shr_response_header(dl_shr_response *r, const char *name, const char *value)
{
	for (int i = 0; i < 6; i++) {
		if (r->headers[i][0]) continue;
		r->headers[i][0] = dl_strdup(name);
		r->headers[i][1] = dl_strdup(value);
		if (!r->headers[i][0] || !r->headers[i][1]) return DL_ENOMEM;
		return 0;
	}
	return dl_error_set(DL_ERROR, "too many response headers");
}

void dl_shr_error(dl_shr_response *r, unsigned status, const char *code, const char *fmt, ...)
{
	char msg[1024];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof msg, fmt, ap);
	va_end(ap);
	dl_buf_clear(&r->body);
	r->status = status;
	r->content_type = "application/json";
	dl_buf_puts(&r->body, "{\"errorCode\":");
	dl_buf_put_json_string(&r->body, code, strlen(code));
	dl_buf_puts(&r->body, ",\"message\":");
	dl_buf_put_json_string(&r->body, msg, strlen(msg));
	dl_buf_puts(&r->body, "}");
}

void dl_shr_error_from_dl(dl_shr_response *r, int rc, const char *context)
{
	const char *m = dl_error_last() ? dl_error_last()->message : "";
	snprintf(r->detail, sizeof r->detail, "%s", m);
	switch (rc) {
	case DL_ENOTFOUND:
		dl_shr_error(r, 404, "RESOURCE_DOES_NOT_EXIST", "%s: %s", context, m);
		break;
	case DL_EINVALID:
		dl_shr_error(r, 400, "INVALID_PARAMETER_VALUE", "%s: %s", context, m);
		break;
	case DL_EUNSUPPORTED:
		dl_shr_error(r, 400, "FEATURE_NOT_SUPPORTED", "%s: %s", context, m);
		break;
	case DL_EPERM:
		/* A table whose log reaches outside its root: the server refuses to
		 * sign such files; the recipient learns no path. */
		dl_shr_error(r, 403, "PERMISSION_DENIED",
		             "%s: the table refers to files outside its location, which are not shared",
		             context);
		break;
	default:
		/* Internal messages may name server paths: the log gets them, the
		 * client a generic one. */
		dl_shr_error(r, 500, "INTERNAL_ERROR", "%s: the server could not read the table", context);
		break;
	}
}

const char *dl_shr_arg(dl_shr_request *req, const char *name)
{
	return MHD_lookup_connection_value(req->conn, MHD_GET_ARGUMENT_KIND, name);
}

const char *dl_shr_header(dl_shr_request *req, const char *name)
{
	return MHD_lookup_connection_value(req->conn, MHD_HEADER_KIND, name);
}

/* Streams a file body (server_files.c sets resp->stream to a reader). */
typedef struct file_stream {
	dl_store *store;
	dl_store_reader *reader;
	int64_t offset, size; /* the bytes sent: [offset, offset + size) */
} file_stream;

static ssize_t stream_read(void *cls, uint64_t pos, char *buf, size_t max)
{
	file_stream *fs = cls;
	if ((int64_t)pos >= fs->size) return MHD_CONTENT_READER_END_OF_STREAM;
	size_t want = max;
	if ((int64_t)(pos + want) > fs->size) want = (size_t)(fs->size - (int64_t)pos);
	size_t got = 0;
	if (dl_store_reader_read((uint8_t *)buf, &got, fs->reader, fs->offset + (int64_t)pos, want) < 0 ||
	    got == 0)
		return MHD_CONTENT_READER_END_WITH_ERROR;
	return (ssize_t)got;
}

static void stream_free(void *cls)
{
	file_stream *fs = cls;
	dl_store_reader_close(fs->reader);
	dl_store_free(fs->store);
	dl_free(fs);
}

static enum MHD_Result queue(struct MHD_Connection *c, dl_shr_request *req, dl_shr_response *r,
                             bool head)
{
	struct MHD_Response *mr;
	if (r->stream) {
		file_stream *fs = r->stream;
		mr = MHD_create_response_from_callback((uint64_t)fs->size, 64 * 1024, stream_read, fs,
		                                       stream_free);
		if (!mr) stream_free(fs);
		r->stream = NULL;
		req->bytes = fs->size;
	} else {
		size_t len = r->body.len;
		char *data = dl_buf_detach(&r->body, NULL);
		mr = MHD_create_response_from_buffer_with_free_callback(len, data ? data : (char *)"",
		                                                        data ? dl_free : NULL);
		if (!mr) dl_free(data);
		req->bytes = (int64_t)len;
	}
	if (!mr) return MHD_NO;
	if (r->content_type) MHD_add_response_header(mr, MHD_HTTP_HEADER_CONTENT_TYPE, r->content_type);
	for (int i = 0; i < 6 && r->headers[i][0]; i++)
		MHD_add_response_header(mr, r->headers[i][0], r->headers[i][1]);
	(void)head; /* MHD drops the body of HEAD responses itself */
	req->status = r->status;
	enum MHD_Result ok = MHD_queue_response(c, r->status, mr);
	MHD_destroy_response(mr);
	return ok;
}

static enum MHD_Result on_request(void *cls, struct MHD_Connection *c, const char *url,
                                  const char *method, const char *version, const char *upload,
                                  size_t *upload_size, void **con_cls)
{
	(void)version;
	dl_shr_server *srv = cls;
	conn_ctx *x = *con_cls;
	if (!x) {
		x = dl_calloc(1, sizeof *x);
		if (!x) return MHD_NO;
		x->start_us = dl_monotonic_ns() / 1000;
		*con_cls = x;
		return MHD_YES;
	}
	if (*upload_size) {
		if (!x->too_large && x->body.len + *upload_size > (size_t)srv->max_body) x->too_large = true;
		if (!x->too_large && dl_buf_append(&x->body, upload, *upload_size) < 0) return MHD_NO;
		*upload_size = 0;
		return MHD_YES;
	}
	dl_shr_request req = {0};
	req.srv = srv;
	req.conn = c;
	req.method = method;
	req.url = url;
	req.body = x->body.data;
	req.body_len = x->body.len;
	dl_shr_response resp;
	dl_shr_response_init(&resp);
	if (x->too_large)
		dl_shr_error(&resp, 413, "INVALID_PARAMETER_VALUE",
		             "the request body is larger than the %" PRId64 " bytes allowed", srv->max_body);
	else dl_shr_route(&req, &resp);
	enum MHD_Result ok = queue(c, &req, &resp, !strcmp(method, "HEAD"));
	dl_shr_log_request(&req, &resp, dl_monotonic_ns() / 1000 - x->start_us);
	dl_shr_response_free(&resp);
	return ok;
}

static void on_completed(void *cls, struct MHD_Connection *c, void **con_cls,
                         enum MHD_RequestTerminationCode why)
{
	(void)cls;
	(void)c;
	(void)why;
	conn_ctx *x = *con_cls;
	if (!x) return;
	dl_buf_free(&x->body);
	dl_free(x);
	*con_cls = NULL;
}

static void mhd_log(void *cls, const char *fmt, va_list ap)
{
	dl_shr_server *srv = cls;
	if (!srv->access_log) return;
	pthread_mutex_lock(&srv->log_mu);
	fputs("deltalake sharing: ", srv->access_log);
	vfprintf(srv->access_log, fmt, ap);
	fflush(srv->access_log);
	pthread_mutex_unlock(&srv->log_mu);
}

static int read_file(char **out, const char *path)
{
	FILE *f = fopen(path, "rb");
	if (!f) return dl_error_errno("opening", path);
	dl_buf b = DL_BUF_INIT;
	char chunk[4096];
	size_t n;
	int rc = 0;
	while (rc == 0 && (n = fread(chunk, 1, sizeof chunk, f)) > 0) {
		if (b.len + n > (1 << 20)) rc = dl_error_set(DL_EINVALID, "%s: larger than 1 MiB", path);
		else rc = dl_buf_append(&b, chunk, n);
	}
	fclose(f);
	if (rc == 0 && !b.data) rc = dl_error_set(DL_EINVALID, "%s is empty", path);
	if (rc < 0) {
		dl_buf_free(&b);
		return rc;
	}
	*out = dl_buf_detach(&b, NULL);
	return 0;
}

static const size_t opt_ends[] = {sizeof(dl_sharing_server_options)};
DL_OPTIONS_ENDS_CHECK(opt_ends, DL_SHARING_SERVER_OPTIONS_VERSION);

DL_EXTERN(int) dl_sharing_server_start(dl_sharing_server **out, const dl_sharing_server_options *opts)
{
	if (!out) return dl_error_set(DL_EINVALID, "dl_sharing_server_start: out is NULL");
	*out = NULL;
	dl_sharing_server_options o = DL_SHARING_SERVER_OPTIONS_INIT;
	DL_TRY(dl_options_load(&o, opts, opt_ends, DL_SHARING_SERVER_OPTIONS_VERSION,
	                       "dl_sharing_server_options", "DL_SHARING_SERVER_OPTIONS_INIT"));
	if (!o.config_path) return dl_error_set(DL_EINVALID, "dl_sharing_server_start: no config_path");
	if (!o.tls_cert_path != !o.tls_key_path)
		return dl_error_set(DL_EINVALID, "TLS needs both a certificate and its key (--tls-cert and --tls-key)");
	if (o.port < -1 || o.port > 65535)
		return dl_error_set(DL_EINVALID, "port %d is not 0 to 65535", o.port);
	dl_sharing_server *h = dl_calloc(1, sizeof *h);
	if (!h) return DL_ENOMEM;
	dl_shr_server *s = &h->s;
	pthread_mutex_init(&s->log_mu, NULL);
	pthread_mutex_init(&s->s3_mu, NULL);
	s->access_log = o.access_log;
	int rc = dl_shr_config_load(&s->config, o.config_path);
	if (rc == 0) rc = dl_shr_signer_init(&s->signer);
	if (rc == 0)
		rc = dl_shr_snapshot_cache_new(&s->snapshots, (size_t)s->config.snapshot_cache_entries,
		                               (size_t)s->config.snapshot_cache_bytes);
	if (rc < 0) {
		dl_sharing_server_stop(h);
		return rc;
	}
	const dl_shr_config *cfg = &s->config;
	s->max_body = cfg->max_body_bytes;
	const char *bind = o.bind_address;
	if (!bind && cfg->host) {
		struct in6_addr a6;
		struct in_addr a4;
		if (!strcmp(cfg->host, "localhost")) bind = "127.0.0.1";
		else if (inet_pton(AF_INET, cfg->host, &a4) == 1 || inet_pton(AF_INET6, cfg->host, &a6) == 1)
			bind = cfg->host;
	}
	if (!bind) bind = "127.0.0.1";
	int port = o.port >= 0 ? o.port : cfg->port >= 0 ? cfg->port : 8080;
	struct sockaddr_storage ss;
	memset(&ss, 0, sizeof ss);
	unsigned flags = MHD_USE_INTERNAL_POLLING_THREAD | MHD_USE_ERROR_LOG;
#if MHD_VERSION >= 0x00097300
	flags |= MHD_USE_AUTO;
#endif
	struct sockaddr_in *s4 = (struct sockaddr_in *)&ss;
	struct sockaddr_in6 *s6 = (struct sockaddr_in6 *)&ss;
	if (inet_pton(AF_INET, bind, &s4->sin_addr) == 1) {
		s4->sin_family = AF_INET;
		s4->sin_port = htons((uint16_t)port);
	} else if (inet_pton(AF_INET6, bind, &s6->sin6_addr) == 1) {
		s6->sin6_family = AF_INET6;
		s6->sin6_port = htons((uint16_t)port);
		flags |= MHD_USE_IPv6;
	} else {
		dl_sharing_server_stop(h);
		return dl_error_set(DL_EINVALID, "bind address '%s' is not a numeric IPv4 or IPv6 address", bind);
	}
	const char *cert_path = o.tls_cert_path ? o.tls_cert_path : cfg->ssl_cert;
	const char *key_path = o.tls_cert_path ? o.tls_key_path : cfg->ssl_key;
	char *cert = NULL, *key = NULL;
	if (cert_path) {
		if (MHD_is_feature_supported(MHD_FEATURE_TLS) != MHD_YES) {
			dl_sharing_server_stop(h);
			return dl_error_set(DL_EUNSUPPORTED, "this libmicrohttpd was built without TLS");
		}
		rc = read_file(&cert, cert_path);
		if (rc == 0) rc = read_file(&key, key_path);
		if (rc < 0) {
			dl_free(cert);
			dl_sharing_server_stop(h);
			return dl_error_prefix("reading the TLS certificate and key");
		}
		flags |= MHD_USE_TLS;
	}
	unsigned conns = o.max_connections ? o.max_connections : 256;
	unsigned timeout = o.timeout_seconds ? o.timeout_seconds
	                   : cfg->request_timeout_s > 0 ? (unsigned)cfg->request_timeout_s : 30;
	struct MHD_OptionItem tls_opts[] = {
		{cert ? MHD_OPTION_HTTPS_MEM_CERT : MHD_OPTION_END, 0, cert},
		{cert ? MHD_OPTION_HTTPS_MEM_KEY : MHD_OPTION_END, 0, key},
		{MHD_OPTION_END, 0, NULL},
	};
	s->daemon = MHD_start_daemon(
		flags, (uint16_t)port, NULL, NULL, on_request, s, MHD_OPTION_EXTERNAL_LOGGER, mhd_log, s,
		MHD_OPTION_SOCK_ADDR, (struct sockaddr *)&ss,
		MHD_OPTION_CONNECTION_LIMIT, conns, MHD_OPTION_CONNECTION_TIMEOUT, timeout,
		/* request line + headers of one connection must fit in 32 KiB */
		MHD_OPTION_CONNECTION_MEMORY_LIMIT, (size_t)32 * 1024, MHD_OPTION_THREAD_POOL_SIZE,
		(unsigned)4, MHD_OPTION_NOTIFY_COMPLETED, on_completed, s, MHD_OPTION_ARRAY, tls_opts, MHD_OPTION_END);
	if (key) {
		memset(key, 0, strlen(key));
		dl_free(key);
	}
	dl_free(cert);
	if (!s->daemon) {
		dl_sharing_server_stop(h);
		return dl_error_set(DL_EIO, "cannot listen on %s port %d (in use, not permitted, or a bad "
		                            "TLS certificate/key)", bind, port);
	}
	const union MHD_DaemonInfo *info = MHD_get_daemon_info(s->daemon, MHD_DAEMON_INFO_BIND_PORT);
	s->port = info ? (int)info->port : port;
	dl_buf u = DL_BUF_INIT;
	if (o.public_url) rc = dl_buf_puts(&u, o.public_url);
	else if (strchr(bind, ':')) rc = dl_buf_printf(&u, "%s://[%s]:%d", cert ? "https" : "http", bind, s->port);
	else rc = dl_buf_printf(&u, "%s://%s:%d", cert_path ? "https" : "http",
	                        !strcmp(bind, "0.0.0.0") ? "127.0.0.1" : bind, s->port);
	while (rc == 0 && u.len > 0 && u.data[u.len - 1] == '/') u.data[--u.len] = 0;
	s->public_url = dl_buf_detach(&u, NULL);
	if (rc < 0 || !s->public_url) {
		dl_sharing_server_stop(h);
		return rc < 0 ? rc : DL_ENOMEM;
	}
	*out = h;
	return 0;
}

DL_EXTERN(int) dl_sharing_server_port(const dl_sharing_server *srv)
{
	return srv ? srv->s.port : -1;
}

DL_EXTERN(void) dl_sharing_server_stop(dl_sharing_server *srv)
{
	if (!srv) return;
	if (srv->s.daemon) MHD_stop_daemon(srv->s.daemon);
	dl_shr_config_free(&srv->s.config);
	memset(&srv->s.signer, 0, sizeof srv->s.signer);
	dl_free(srv->s.public_url);
	pthread_mutex_destroy(&srv->s.log_mu);
	dl_shr_s3_cache_free(srv->s.s3);
	pthread_mutex_destroy(&srv->s.s3_mu);
	dl_shr_snapshot_cache_free(srv->s.snapshots);
	dl_free(srv);
}

/* server_files.c builds its stream through this (the struct is private here). */
int dl_shr_response_stream(dl_shr_response *r, dl_store *store, dl_store_reader *reader,
                           int64_t offset, int64_t size)
{
	file_stream *fs = dl_calloc(1, sizeof *fs);
	if (!fs) return DL_ENOMEM;
	fs->store = store;
	fs->reader = reader;
	fs->offset = offset;
	fs->size = size;
	r->stream = fs;
	return 0;
}
