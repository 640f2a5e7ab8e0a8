/* The access log: one line per request, in a fixed layout a log shipper
 * can split on spaces:
 *   2026-12-02T06:10:00.123Z 127.0.0.1 "GET /delta-sharing/shares" 200 123B 1.2ms recipient=alice
 * and, for errors the client sees only in general terms (500, a table
 * reaching outside its root), error="<the library's message>"
 * No secret is written: not the Authorization header, not the query string
 * (which may carry page tokens), and /files paths are cut to "/files/..."
 * because the token in them is a credential until it expires. */
#include <arpa/inet.h>
#include <inttypes.h>
#include <microhttpd.h>
#include <netinet/in.h>
#include <string.h>
#include <sys/socket.h>
#include "sharing/server.h"
#include "util/time.h"

/* Printable ASCII only, quotes and backslashes replaced: a request path is
 * attacker-chosen and must not forge log lines. */
static void put_clean(FILE *f, const char *s, size_t max)
{
	for (size_t i = 0; s[i] && i < max; i++) {
		unsigned char c = (unsigned char)s[i];
		fputc(c < 0x20 || c >= 0x7f || c == '"' || c == '\\' ? '?' : c, f);
	}
}

void dl_shr_log_request(dl_shr_request *req, const dl_shr_response *resp, int64_t micros)
{
	FILE *f = req->srv->access_log;
	if (!f) return;
	char addr[INET6_ADDRSTRLEN] = "-";
	const union MHD_ConnectionInfo *ci =
		MHD_get_connection_info(req->conn, MHD_CONNECTION_INFO_CLIENT_ADDRESS);
	if (ci && ci->client_addr) {
		const struct sockaddr *sa = ci->client_addr;
		if (sa->sa_family == AF_INET)
			inet_ntop(AF_INET, &((const struct sockaddr_in *)sa)->sin_addr, addr, sizeof addr);
		else if (sa->sa_family == AF_INET6)
			inet_ntop(AF_INET6, &((const struct sockaddr_in6 *)sa)->sin6_addr, addr, sizeof addr);
	}
	int64_t now = dl_now_millis();
	int64_t days = dl_floor_div(now, 86400000), rem = dl_floor_mod(now, 86400000);
	int64_t y;
	int mo, d;
	dl_civil_from_days(days, &y, &mo, &d);
	pthread_mutex_lock(&req->srv->log_mu);
	fprintf(f, "%04" PRId64 "-%02d-%02dT%02d:%02d:%02d.%03dZ %s \"", y, mo, d, (int)(rem / 3600000),
	        (int)(rem / 60000 % 60), (int)(rem / 1000 % 60), (int)(rem % 1000), addr);
	put_clean(f, req->method ? req->method : "-", 16);
	fputc(' ', f);
	if (req->url && !strncmp(req->url, "/files/", 7)) fputs("/files/...", f);
	else put_clean(f, req->url ? req->url : "-", 512);
	fprintf(f, "\" %u %" PRId64 "B %.1fms", req->status, req->bytes, (double)micros / 1000.0);
	if (req->recipient) {
		fputs(" recipient=", f);
		put_clean(f, req->recipient->name, 128);
	}
	if (resp->detail[0]) {
		/* What went wrong, for the operator (clients get a general message). */
		fputs(" error=\"", f);
		put_clean(f, resp->detail, sizeof resp->detail);
		fputc('"', f);
	}
	fputc('\n', f);
	fflush(f);
	pthread_mutex_unlock(&req->srv->log_mu);
}
