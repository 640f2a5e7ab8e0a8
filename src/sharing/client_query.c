/* Query, metadata and changes (PROTOCOL.md "Read Data from a Table", "Query
 * Table Metadata", "Read Change Data Feed from a Table") and the parser of
 * their newline-delimited answers, in both response formats: parquet (the
 * protocol's own protocol/metaData/file/add/cdf/remove objects) and delta
 * (deltaProtocol, deltaMetadata and deltaSingleAction wrapping Delta log
 * actions whose path is a pre-signed URL).
 *
 * A line must hold exactly one of the wrapper fields; unknown fields inside
 * are ignored ("clients can assume that any unrecognized fields ... are
 * never required"). A client that asked for parquet only must refuse a
 * delta answer (PROTOCOL.md "Delta Sharing Capabilities Header"). */
#include <curl/curl.h>
#include <inttypes.h>
#include <string.h>
#include "json/json.h"
#include "sharing/client.h"
#include "util/error.h"
#include "util/mem.h"
#include "util/options.h"

/* ---- parsing one line ---- */

static int opt_int(const dl_json *o, const char *key, int64_t *out, const char *what, int64_t line)
{
	const dl_json *v = dl_json_get(o, key);
	*out = -1;
	if (!v || v->kind == DL_JSON_NULL) return 0;
	if (dl_json_int64(v, out) < 0)
		return dl_error_set(DL_ECORRUPT, "%s line %" PRId64 ": \"%s\" is not an integer", what, line,
		                    key);
	return 0;
}

static const char *write_json(dl_arena *a, const dl_json *v, int *rc)
{
	if (!v || *rc < 0) return NULL;
	dl_buf b = DL_BUF_INIT;
	*rc = dl_json_write(&b, v);
	char *s = *rc == 0 ? dl_arena_strndup(a, b.data ? b.data : "", b.len) : NULL;
	if (*rc == 0 && !s) *rc = DL_ENOMEM;
	dl_buf_free(&b);
	return s;
}

static int need_str(const char **out, const dl_json *o, const char *key, const char *what,
                    int64_t line)
{
	*out = dl_json_get_str(o, key);
	if (*out) return 0;
	return dl_error_set(DL_ECORRUPT, "%s line %" PRId64 ": the file has no \"%s\"", what, line, key);
}

static int parse_parquet_file(dl_sharing_line *l, dl_arena *a, const dl_json *f, const char *what)
{
	int rc = 0;
	DL_TRY(need_str(&l->url, f, "url", what, l->line));
	DL_TRY(need_str(&l->id, f, "id", what, l->line));
	const dl_json *pv = dl_json_get(f, "partitionValues");
	if (pv && pv->kind != DL_JSON_OBJECT)
		return dl_error_set(DL_ECORRUPT, "%s line %" PRId64 ": partitionValues is not an object",
		                    what, l->line);
	l->partition_values = pv ? write_json(a, pv, &rc) : "{}";
	DL_TRY(rc);
	l->stats = dl_json_get_str(f, "stats");
	DL_TRY(opt_int(f, "size", &l->size, what, l->line));
	if (l->size < 0)
		return dl_error_set(DL_ECORRUPT, "%s line %" PRId64 ": the file has no valid \"size\"",
		                    what, l->line);
	DL_TRY(opt_int(f, "version", &l->version, what, l->line));
	DL_TRY(opt_int(f, "timestamp", &l->timestamp, what, l->line));
	return opt_int(f, "expirationTimestamp", &l->expiration_ms, what, l->line);
}

static int parse_delta_file(dl_sharing_line *l, dl_arena *a, const dl_json *f, const char *what)
{
	int rc = 0;
	DL_TRY(need_str(&l->id, f, "id", what, l->line));
	l->deletion_vector_file_id = dl_json_get_str(f, "deletionVectorFileId");
	DL_TRY(opt_int(f, "version", &l->version, what, l->line));
	DL_TRY(opt_int(f, "timestamp", &l->timestamp, what, l->line));
	DL_TRY(opt_int(f, "expirationTimestamp", &l->expiration_ms, what, l->line));
	const dl_json *sa = dl_json_get(f, "deltaSingleAction");
	if (!sa || sa->kind != DL_JSON_OBJECT || sa->u.obj.n != 1)
		return dl_error_set(DL_ECORRUPT, "%s line %" PRId64 ": deltaSingleAction must be an object "
		                    "with one action", what, l->line);
	const dl_json_member *m = &sa->u.obj.items[0];
	if (strcmp(m->key, "add") == 0) l->kind = DL_SHARING_FILE;
	else if (strcmp(m->key, "cdc") == 0) l->kind = DL_SHARING_CDF;
	else if (strcmp(m->key, "remove") == 0) l->kind = DL_SHARING_REMOVE;
	else
		return dl_error_set(DL_ECORRUPT, "%s line %" PRId64 ": deltaSingleAction \"%.40s\" is not a "
		                    "file action (add, cdc, remove)", what, l->line, m->key);
	const dl_json *act = &m->value;
	if (act->kind != DL_JSON_OBJECT)
		return dl_error_set(DL_ECORRUPT, "%s line %" PRId64 ": the %s action is not an object", what,
		                    l->line, m->key);
	DL_TRY(need_str(&l->url, act, "path", what, l->line));
	const dl_json *pv = dl_json_get(act, "partitionValues");
	l->partition_values = pv && pv->kind == DL_JSON_OBJECT ? write_json(a, pv, &rc) : "{}";
	l->stats = dl_json_get_str(act, "stats");
	DL_TRY(opt_int(act, "size", &l->size, what, l->line));
	if (l->size < 0)
		return dl_error_set(DL_ECORRUPT, "%s line %" PRId64 ": the %s action has no valid \"size\"",
		                    what, l->line, m->key);
	l->delta_action = write_json(a, sa, &rc);
	return rc;
}

static int parse_value(const dl_json *v, int64_t lineno, const char *what, dl_arena *a,
                       dl_sharing_line_fn fn, void *payload)
{
	if (v->kind != DL_JSON_OBJECT)
		return dl_error_set(DL_ECORRUPT, "%s line %" PRId64 ": not a JSON object", what, lineno);
	static const char *const keys[] = {"protocol", "metaData", "file", "add", "cdf", "remove",
	                                   "endStreamAction"};
	const dl_json *body = NULL;
	size_t which = 0, found = 0;
	for (size_t k = 0; k < sizeof keys / sizeof *keys; k++) {
		const dl_json *b = dl_json_get(v, keys[k]);
		if (b) {
			body = b;
			which = k;
			found++;
		}
	}
	if (found != 1)
		return dl_error_set(DL_ECORRUPT, "%s line %" PRId64 ": a line holds exactly one of protocol, "
		                    "metaData, file, add, cdf, remove, endStreamAction (found %zu)", what,
		                    lineno, found);
	if (body->kind != DL_JSON_OBJECT)
		return dl_error_set(DL_ECORRUPT, "%s line %" PRId64 ": \"%s\" is not an object", what,
		                    lineno, keys[which]);
	dl_sharing_line l = {.line = lineno, .size = -1, .version = -1, .timestamp = -1,
	                     .expiration_ms = -1, .num_files = -1};
	int rc = 0;
	switch (which) {
	case 0: {
		l.kind = DL_SHARING_PROTOCOL;
		const dl_json *dp = dl_json_get(body, "deltaProtocol");
		if (dp) {
			l.delta_format = 1;
			if (dp->kind != DL_JSON_OBJECT)
				return dl_error_set(DL_ECORRUPT, "%s line %" PRId64 ": deltaProtocol is not an object",
				                    what, lineno);
			l.delta_protocol = write_json(a, dp, &rc);
			int64_t mrv;
			DL_TRY(opt_int(dp, "minReaderVersion", &mrv, what, lineno));
			l.min_reader_version = (int)mrv;
		} else {
			int64_t mrv;
			DL_TRY(opt_int(body, "minReaderVersion", &mrv, what, lineno));
			if (mrv < 1)
				return dl_error_set(DL_ECORRUPT, "%s line %" PRId64 ": protocol without a valid "
				                    "minReaderVersion", what, lineno);
			if (mrv > 1)
				return dl_error_set(DL_EUNSUPPORTED, "%s line %" PRId64 ": the server needs sharing "
				                    "protocol reader version %" PRId64 " (this client reads 1); upgrade "
				                    "deltalake", what, lineno, mrv);
			l.min_reader_version = (int)mrv;
		}
		break;
	}
	case 1: {
		l.kind = DL_SHARING_METADATA;
		const dl_json *dm = dl_json_get(body, "deltaMetadata");
		if (dm) l.delta_format = 1;
		const dl_json *m = dm ? dm : body;
		if (m->kind != DL_JSON_OBJECT || !dl_json_get_str(m, "schemaString"))
			return dl_error_set(DL_ECORRUPT, "%s line %" PRId64 ": metaData without schemaString",
			                    what, lineno);
		l.metadata = write_json(a, m, &rc);
		DL_TRY(opt_int(body, "version", &l.version, what, lineno));
		DL_TRY(opt_int(body, "size", &l.size, what, lineno));
		DL_TRY(opt_int(body, "numFiles", &l.num_files, what, lineno));
		break;
	}
	case 2:
		if (dl_json_get(body, "deltaSingleAction")) {
			l.delta_format = 1;
			rc = parse_delta_file(&l, a, body, what);
		} else {
			l.kind = DL_SHARING_FILE;
			rc = parse_parquet_file(&l, a, body, what);
		}
		break;
	case 3:
	case 4:
	case 5:
		l.kind = which == 3 ? DL_SHARING_ADD : which == 4 ? DL_SHARING_CDF : DL_SHARING_REMOVE;
		rc = parse_parquet_file(&l, a, body, what);
		break;
	default:
		l.kind = DL_SHARING_END_STREAM;
		l.refresh_token = dl_json_get_str(body, "refreshToken");
		l.next_page_token = dl_json_get_str(body, "nextPageToken");
		DL_TRY(opt_int(body, "minUrlExpirationTimestamp", &l.expiration_ms, what, lineno));
		break;
	}
	DL_TRY(rc);
	return fn(&l, payload);
}

int dl_sharing_parse_line(const char *text, size_t len, int64_t lineno, const char *what,
                          dl_sharing_line_fn fn, void *payload)
{
	dl_arena a = DL_ARENA_INIT;
	dl_json *v;
	if (!what) what = "response";
	int rc = dl_json_parse(&a, text, len, what, &v);
	if (rc == 0) rc = parse_value(v, lineno, what, &a, fn, payload);
	dl_arena_free(&a);
	return rc;
}

/* ---- requests ---- */

typedef struct lines_ctx {
	dl_sharing_line_fn fn;
	void *payload;
	const char *what;
	bool parquet_only;
	dl_arena *arena;
} lines_ctx;

static int check_format(const dl_sharing_line *l, void *p)
{
	lines_ctx *c = p;
	if (l->delta_format && c->parquet_only)
		return dl_error_set(DL_ECORRUPT, "%s line %" PRId64 ": the server answered in the delta "
		                    "format although the client asked for parquet", c->what, l->line);
	return c->fn(l, c->payload);
}

/* The answer is split into lines as it arrives: only the unfinished line
 * is kept between chunks, and each line's DOM is dropped after it. */
typedef struct splitter {
	lines_ctx *ctx;
	dl_buf partial;
	int64_t lineno;
} splitter;

/* Bounds one line: a file line is a few KB; a megabyte-long line is a
 * broken server, not data. */
#define MAX_LINE_BYTES (64u << 20)

static int one_line(splitter *sp, const char *p, size_t n)
{
	sp->lineno++;
	while (n && (p[n - 1] == '\r' || p[n - 1] == ' ' || p[n - 1] == '\t')) n--;
	size_t i = 0;
	while (i < n && (p[i] == ' ' || p[i] == '\t')) i++;
	if (i == n) return 0;
	dl_json *v;
	int rc = dl_json_parse(sp->ctx->arena, p + i, n - i, sp->ctx->what, &v);
	if (rc == 0) rc = parse_value(v, sp->lineno, sp->ctx->what, sp->ctx->arena, check_format, sp->ctx);
	dl_arena_reset(sp->ctx->arena);
	return rc;
}

static int on_chunk(const char *p, size_t n, void *payload)
{
	splitter *sp = payload;
	while (n) {
		const char *nl = memchr(p, '\n', n);
		size_t k = nl ? (size_t)(nl - p) : n;
		if (!nl || sp->partial.len) {
			if (sp->partial.len + k > MAX_LINE_BYTES)
				return dl_error_set(DL_ECORRUPT, "%s line %" PRId64 ": longer than 64 MiB",
				                    sp->ctx->what, sp->lineno + 1);
			DL_TRY(dl_buf_append(&sp->partial, p, k));
		}
		if (!nl) break;
		int rc = sp->partial.len ? one_line(sp, sp->partial.data, sp->partial.len) : one_line(sp, p, k);
		dl_buf_clear(&sp->partial);
		DL_TRY(rc);
		p += k + 1;
		n -= k + 1;
	}
	return 0;
}

static int run(int64_t *table_version, dl_sharing_client *c, const char *method, const char *url,
               const char *body, dl_sharing_line_fn fn, void *payload)
{
	if (table_version) *table_version = -1;
	dl_arena a = DL_ARENA_INIT;
	lines_ctx ctx = {fn, payload, url, strcmp(c->response_format, "parquet") == 0, &a};
	splitter sp = {&ctx, DL_BUF_INIT, 0};
	sh_request req = {.method = method, .url = url, .display = url, .body = body, .auth = true,
	                  .capabilities = true, .on_body = on_chunk, .body_payload = &sp};
	sh_response resp;
	memset(&resp, 0, sizeof resp);
	int rc = sh_http_send(&resp, c, &req);
	if (rc == 0 && resp.status != 200) rc = sh_http_error(&resp, &req);
	if (rc == 0 && sp.partial.len) rc = one_line(&sp, sp.partial.data, sp.partial.len);
	if (rc == 0 && table_version) *table_version = resp.table_version;
	sh_response_free(&resp);
	dl_buf_free(&sp.partial);
	dl_arena_free(&a);
	return rc;
}

/* A caller's query of any version into the current struct (later fields
 * at their defaults). */
static int load_query(dl_sharing_query *dst, const dl_sharing_query *q)
{
	static const size_t ends[] = {
		DL_OPTIONS_END(dl_sharing_query, ending_timestamp), /* 1 */
		sizeof(dl_sharing_query),                            /* 2: paging */
	};
	DL_OPTIONS_ENDS_CHECK(ends, DL_SHARING_QUERY_VERSION);
	dl_sharing_query d = DL_SHARING_QUERY_INIT;
	*dst = d;
	if (!q) return 0;
	return dl_options_load(dst, q, ends, DL_SHARING_QUERY_VERSION, "dl_sharing_query",
	                       "DL_SHARING_QUERY_INIT");
}

int dl_sharing_query_table(int64_t *table_version, dl_sharing_client *c, const char *share,
                           const char *schema, const char *table, const dl_sharing_query *q,
                           dl_sharing_line_fn fn, void *payload)
{
	dl_sharing_query d;
	DL_TRY(load_query(&d, q));
	q = &d;
	dl_buf url = DL_BUF_INIT, body = DL_BUF_INIT;
	dl_json_writer w;
	int rc = sh_url(&url, c, share, schema, table, "/query");
	dl_jw_init(&w, &body);
	dl_jw_object_begin(&w);
	if (q->npredicate_hints) {
		dl_jw_key(&w, "predicateHints");
		dl_jw_array_begin(&w);
		for (size_t i = 0; i < q->npredicate_hints; i++) dl_jw_string(&w, q->predicate_hints[i]);
		dl_jw_array_end(&w);
	}
	if (q->json_predicate_hints) {
		dl_jw_key(&w, "jsonPredicateHints");
		dl_jw_string(&w, q->json_predicate_hints);
	}
	if (q->limit_hint >= 0) {
		dl_jw_key(&w, "limitHint");
		dl_jw_int(&w, q->limit_hint);
	}
	if (q->as_of_version >= 0) {
		dl_jw_key(&w, "version");
		dl_jw_int(&w, q->as_of_version);
	}
	if (q->timestamp) {
		dl_jw_key(&w, "timestamp");
		dl_jw_string(&w, q->timestamp);
	}
	if (q->starting_version >= 0) {
		dl_jw_key(&w, "startingVersion");
		dl_jw_int(&w, q->starting_version);
	}
	if (q->ending_version >= 0) {
		dl_jw_key(&w, "endingVersion");
		dl_jw_int(&w, q->ending_version);
	}
	if (q->max_files > 0) {
		dl_jw_key(&w, "maxFiles");
		dl_jw_int(&w, q->max_files);
	}
	if (q->page_token) {
		dl_jw_key(&w, "pageToken");
		dl_jw_string(&w, q->page_token);
	}
	dl_jw_object_end(&w);
	if (rc == 0) rc = dl_jw_finish(&w);
	else dl_jw_finish(&w);
	if (rc == 0) rc = run(table_version, c, "POST", url.data, body.data, fn, payload);
	dl_buf_free(&url);
	dl_buf_free(&body);
	return rc;
}

int dl_sharing_table_metadata(int64_t *table_version, dl_sharing_client *c, const char *share,
                              const char *schema, const char *table, dl_sharing_line_fn fn,
                              void *payload)
{
	dl_buf url = DL_BUF_INIT;
	int rc = sh_url(&url, c, share, schema, table, "/metadata");
	if (rc == 0) rc = run(table_version, c, "GET", url.data, NULL, fn, payload);
	dl_buf_free(&url);
	return rc;
}

static int add_param(dl_buf *url, char *sep, const char *key, const char *value)
{
	char *e = curl_easy_escape(NULL, value, 0);
	if (!e) return DL_ENOMEM;
	int rc = dl_buf_printf(url, "%c%s=%s", *sep, key, e);
	*sep = '&';
	curl_free(e);
	return rc;
}

int dl_sharing_table_changes(int64_t *table_version, dl_sharing_client *c, const char *share,
                             const char *schema, const char *table, const dl_sharing_query *q,
                             dl_sharing_line_fn fn, void *payload)
{
	dl_sharing_query d;
	DL_TRY(load_query(&d, q));
	q = &d;
	if (q->starting_version < 0 && !q->starting_timestamp)
		return dl_error_set(DL_EINVALID, "table changes need a starting version or timestamp");
	dl_buf url = DL_BUF_INIT;
	char sep = '?', num[32];
	int rc = sh_url(&url, c, share, schema, table, "/changes");
	if (rc == 0 && q->starting_version >= 0) {
		snprintf(num, sizeof num, "%" PRId64, q->starting_version);
		rc = add_param(&url, &sep, "startingVersion", num);
	}
	if (rc == 0 && q->starting_timestamp)
		rc = add_param(&url, &sep, "startingTimestamp", q->starting_timestamp);
	if (rc == 0 && q->ending_version >= 0) {
		snprintf(num, sizeof num, "%" PRId64, q->ending_version);
		rc = add_param(&url, &sep, "endingVersion", num);
	}
	if (rc == 0 && q->ending_timestamp)
		rc = add_param(&url, &sep, "endingTimestamp", q->ending_timestamp);
	if (rc == 0 && q->include_historical_metadata)
		rc = add_param(&url, &sep, "includeHistoricalMetadata", "true");
	if (rc == 0 && q->max_files > 0) {
		snprintf(num, sizeof num, "%" PRId64, q->max_files);
		rc = add_param(&url, &sep, "maxFiles", num);
	}
	if (rc == 0 && q->page_token) rc = add_param(&url, &sep, "pageToken", q->page_token);
	if (rc == 0) rc = run(table_version, c, "GET", url.data, NULL, fn, payload);
	dl_buf_free(&url);
	return rc;
}
