/* Routing: the URL grammar of PROTOCOL.md under the configured prefix, the
 * method each route takes, authentication, and share visibility.
 *
 * Every route but /files needs a recipient's bearer token (401 otherwise,
 * with WWW-Authenticate as RFC 6750 asks). A share the recipient was not
 * granted answers exactly like one that does not exist (404, same
 * message), so names do not leak. libmicrohttpd has already %-decoded the
 * path; segments "." and "..", empty segments and control bytes are
 * refused (400) whatever they are meant to name. */
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include "sharing/server.h"
#include "util/error.h"
#include "util/mem.h"
#include "util/time.h"

#define MAX_SEGMENTS 8

void dl_shr_path_free(dl_shr_path *p)
{
	dl_free(p->share);
	dl_free(p->schema);
	dl_free(p->table);
	dl_free(p->token);
	memset(p, 0, sizeof *p);
}

static int seg_dup(char **out, const char *s, size_t n)
{
	if (n == 0) return dl_error_set(DL_EINVALID, "the path has an empty segment");
	if ((n == 1 && s[0] == '.') || (n == 2 && s[0] == '.' && s[1] == '.'))
		return dl_error_set(DL_EINVALID, "the path may not contain '.' or '..' segments");
	for (size_t i = 0; i < n; i++)
		if ((unsigned char)s[i] < 0x20 || s[i] == 0x7f || s[i] == '\\')
			return dl_error_set(DL_EINVALID, "the path contains a control character or '\\'");
	*out = dl_strndup(s, n);
	return *out ? 0 : DL_ENOMEM;
}

int dl_shr_path_parse(dl_shr_path *out, const char *endpoint, const char *url)
{
	memset(out, 0, sizeof *out);
	if (url[0] != '/') return dl_error_set(DL_EINVALID, "the path must start with '/'");
	const char *q = strchr(url, '?'); /* MHD strips the query; be safe */
	size_t len = q ? (size_t)(q - url) : strlen(url);
	if (len > 8192) return dl_error_set(DL_EINVALID, "the path is too long");
	const char *seg[MAX_SEGMENTS];
	size_t seglen[MAX_SEGMENTS];
	int n = 0;
	size_t elen = strlen(endpoint);
	const char *p = url, *end = url + len;
	bool files = len >= 7 && !memcmp(url, "/files/", 7);
	if (!files) {
		if (len < elen || memcmp(url, endpoint, elen) || (url[elen] != '/' && url[elen] != 0))
			return dl_error_set(DL_ENOTFOUND, "no such endpoint");
		p = url + elen;
	}
	/* "/a/b/" is "/a/b": one trailing slash is forgiven. */
	if (end > p + 1 && end[-1] == '/') end--;
	while (p < end) {
		if (*p != '/') return dl_error_set(DL_ENOTFOUND, "no such endpoint");
		p++;
		const char *s = p;
		while (p < end && *p != '/') p++;
		if (n == MAX_SEGMENTS) return dl_error_set(DL_ENOTFOUND, "no such endpoint");
		seg[n] = s;
		seglen[n] = (size_t)(p - s);
		n++;
	}
#define IS(i, lit) (seglen[i] == sizeof(lit) - 1 && !memcmp(seg[i], lit, sizeof(lit) - 1))
	int rc = 0;
	if (files) {
		if (n != 2) return dl_error_set(DL_ENOTFOUND, "no such file");
		out->kind = DL_SHR_R_FILES;
		rc = seg_dup(&out->token, seg[1], seglen[1]);
		if (rc < 0) dl_shr_path_free(out);
		return rc;
	}
	if (n < 1 || !IS(0, "shares")) return dl_error_set(DL_ENOTFOUND, "no such endpoint");
	if (n == 1) {
		out->kind = DL_SHR_R_SHARES;
		return 0;
	}
	rc = seg_dup(&out->share, seg[1], seglen[1]);
	if (rc == 0) {
		if (n == 2) out->kind = DL_SHR_R_SHARE;
		else if (n == 3 && IS(2, "schemas")) out->kind = DL_SHR_R_SCHEMAS;
		else if (n == 3 && IS(2, "all-tables")) out->kind = DL_SHR_R_ALL_TABLES;
		else if (n >= 5 && IS(2, "schemas") && IS(4, "tables")) {
			rc = seg_dup(&out->schema, seg[3], seglen[3]);
			if (rc == 0 && n == 5) out->kind = DL_SHR_R_TABLES;
			else if (rc == 0) rc = seg_dup(&out->table, seg[5], seglen[5]);
			if (rc == 0 && n == 6) out->kind = DL_SHR_R_TABLE;
			else if (rc == 0 && n == 7) {
				if (IS(6, "version")) out->kind = DL_SHR_R_VERSION;
				else if (IS(6, "metadata")) out->kind = DL_SHR_R_METADATA;
				else if (IS(6, "query")) out->kind = DL_SHR_R_QUERY;
				else if (IS(6, "changes")) out->kind = DL_SHR_R_CHANGES;
			}
		}
		if (rc == 0 && out->kind == DL_SHR_R_NONE) rc = dl_error_set(DL_ENOTFOUND, "no such endpoint");
	}
#undef IS
	if (rc < 0) dl_shr_path_free(out);
	return rc;
}

static bool method_ok(dl_shr_route_kind k, const char *m)
{
	switch (k) {
	case DL_SHR_R_QUERY: return !strcmp(m, "POST");
	case DL_SHR_R_TABLE: return !strcmp(m, "HEAD") || !strcmp(m, "GET");
	case DL_SHR_R_FILES: return !strcmp(m, "GET") || !strcmp(m, "HEAD");
	default: return !strcmp(m, "GET");
	}
}

static void not_found(dl_shr_response *resp, const char *what, const char *name)
{
	dl_shr_error(resp, 404, "RESOURCE_DOES_NOT_EXIST", "%s '%s' does not exist", what, name);
}

void dl_shr_route(dl_shr_request *req, dl_shr_response *resp)
{
	dl_shr_server *srv = req->srv;
	dl_shr_path p;
	int rc = dl_shr_path_parse(&p, srv->config.endpoint, req->url);
	if (rc == DL_ENOTFOUND) {
		dl_shr_error(resp, 404, "RESOURCE_DOES_NOT_EXIST", "no such endpoint");
		return;
	}
	if (rc < 0) {
		dl_shr_error(resp, 400, "INVALID_PARAMETER_VALUE", "%s", dl_error_last()->message);
		return;
	}
	if (!method_ok(p.kind, req->method)) {
		dl_shr_error(resp, 405, "INVALID_PARAMETER_VALUE", "method %s is not allowed here", req->method);
		dl_shr_response_header(resp, "Allow", p.kind == DL_SHR_R_QUERY ? "POST"
		                                      : p.kind == DL_SHR_R_TABLE ? "GET, HEAD" : "GET");
		goto done;
	}
	if (p.kind == DL_SHR_R_FILES) {
		/* The signed URL is the credential (like a presigned S3 URL). */
		dl_shr_serve_file(req, resp, p.token);
		goto done;
	}
	const char *why;
	req->recipient = dl_shr_authenticate(&srv->config, dl_shr_header(req, "Authorization"),
	                                     dl_now_millis(), &why);
	if (!req->recipient) {
		dl_shr_error(resp, 401, "UNAUTHENTICATED", "%s", why);
		dl_shr_response_header(resp, "WWW-Authenticate", "Bearer realm=\"delta-sharing\"");
		goto done;
	}
	if (p.kind == DL_SHR_R_SHARES) {
		dl_shr_list_shares(req, resp);
		goto done;
	}
	const dl_shr_share *share = dl_shr_config_share(&srv->config, p.share);
	if (!share || !dl_shr_recipient_may_read(req->recipient, share->name)) {
		not_found(resp, "share", p.share);
		goto done;
	}
	switch (p.kind) {
	case DL_SHR_R_SHARE: dl_shr_get_share(req, resp, share); goto done;
	case DL_SHR_R_SCHEMAS: dl_shr_list_schemas(req, resp, share); goto done;
	case DL_SHR_R_ALL_TABLES: dl_shr_list_tables(req, resp, share, NULL); goto done;
	default: break;
	}
	const dl_shr_schema *schema = dl_shr_share_schema(share, p.schema);
	if (!schema) {
		not_found(resp, "schema", p.schema);
		goto done;
	}
	if (p.kind == DL_SHR_R_TABLES) {
		dl_shr_list_tables(req, resp, share, schema);
		goto done;
	}
	const dl_shr_table *table = dl_shr_schema_table(schema, p.table);
	if (!table) {
		not_found(resp, "table", p.table);
		goto done;
	}
	dl_shr_target t = {share, schema, table};
	switch (p.kind) {
	case DL_SHR_R_TABLE:
	case DL_SHR_R_VERSION: dl_shr_table_version(req, resp, &t); break;
	case DL_SHR_R_METADATA: dl_shr_table_metadata(req, resp, &t); break;
	case DL_SHR_R_QUERY: dl_shr_table_query(req, resp, &t); break;
	case DL_SHR_R_CHANGES: dl_shr_table_changes(req, resp, &t); break;
	default: dl_shr_error(resp, 404, "RESOURCE_DOES_NOT_EXIST", "no such endpoint"); break;
	}
done:
	dl_shr_path_free(&p);
}
