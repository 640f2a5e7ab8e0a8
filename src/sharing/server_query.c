/* Table endpoints of PROTOCOL.md: version (GET .../version and the legacy
 * HEAD), metadata and query, in both response formats:
 *   parquet  {"protocol":{"minReaderVersion":1}}, {"metaData":{...}}, {"file":{url,id,
 *            partitionValues,size,stats,expirationTimestamp[,version,timestamp]}}
 *   delta    {"protocol":{"deltaProtocol":{...}}}, {"metaData":{"deltaMetadata":{...}}},
 *            {"file":{"id":..,"deltaSingleAction":{"add":{..path: the URL..}},
 *            "expirationTimestamp":..}}, for clients that apply deletion vectors and
 *            column mapping themselves (the table's own actions, paths signed).
 * The delta-sharing-capabilities request header picks the format
 * (responseformat=parquet|delta), says which reader features the client
 * has and asks for a final endStreamAction line (includeendstreamaction).
 *
 * Files come from a scan of the snapshot with the table's partitionFilter
 * (enforced: partition pruning is exact) and the request's predicateHints
 * and jsonPredicateHints (best effort: pruning by partition values and
 * stats; hints that do not parse or bind are skipped, as PROTOCOL.md
 * allows). The snapshot is opened with the table root as the only allowed
 * root, so a log naming files outside it fails the request and nothing
 * outside is ever signed. */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include "deltalake/scan.h"
#include "deltalake/snapshot.h"
#include "deltalake/timestamp.h"
#include "json/json.h"
#include "log/actions.h"
#include "log/snapshot.h"
#include "sharing/server.h"
#include "util/error.h"
#include "util/mem.h"
#include "util/time.h"

#define NDJSON "application/x-ndjson; charset=utf-8"

/* ---- capabilities ------------------------------------------------------ */

static bool list_has(const char *v, size_t n, const char *word)
{
	size_t wl = strlen(word);
	const char *p = v, *end = v + n;
	while (p < end) {
		while (p < end && (*p == ',' || *p == ' ')) p++;
		const char *s = p;
		while (p < end && *p != ',') p++;
		const char *e = p;
		while (e > s && e[-1] == ' ') e--;
		if ((size_t)(e - s) == wl && !strncasecmp(s, word, wl)) return true;
	}
	return false;
}

void dl_shr_caps_parse(dl_shr_caps *out, const char *header)
{
	memset(out, 0, sizeof *out);
	if (!header) return;
	bool want_delta = false, want_parquet = false;
	const char *p = header;
	while (*p) {
		while (*p == ';' || *p == ' ') p++;
		const char *k = p;
		while (*p && *p != '=' && *p != ';') p++;
		size_t klen = (size_t)(p - k);
		const char *v = p, *ve = p;
		if (*p == '=') {
			v = ++p;
			while (*p && *p != ';') p++;
			ve = p;
		}
		while (klen && k[klen - 1] == ' ') klen--;
		size_t vn = (size_t)(ve - v);
		if (klen == 14 && !strncasecmp(k, "responseformat", 14)) {
			want_delta = list_has(v, vn, "delta");
			want_parquet = list_has(v, vn, "parquet");
		} else if (klen == 14 && !strncasecmp(k, "readerfeatures", 14)) {
			out->dv_ok = list_has(v, vn, "deletionvectors");
			out->cm_ok = list_has(v, vn, "columnmapping");
		} else if (klen == 22 && !strncasecmp(k, "includeendstreamaction", 22)) {
			out->end_stream_action = list_has(v, vn, "true");
		}
	}
	/* Both offered: parquet unless the table needs delta (decided later). */
	out->delta_format = want_delta && !want_parquet;
	out->want_both_ = want_delta && want_parquet;
}

int dl_shr_capability_header(dl_shr_response *resp, const dl_shr_caps *caps)
{
	char v[96];
	snprintf(v, sizeof v, "responseformat=%s%s", caps->delta_format ? "delta" : "parquet",
	         caps->end_stream_action ? ";includeendstreamaction=true" : "");
	return dl_shr_response_header(resp, "delta-sharing-capabilities", v);
}

/* Whether the table needs the delta format: reader features a parquet-format
 * client cannot apply (deletion vectors, column mapping). */
static bool needs_delta(dl_snapshot *snap)
{
	const char *cm = dl_snapshot_property(snap, "delta.columnMapping.mode");
	if (cm && strcasecmp(cm, "none")) return true;
	for (size_t i = 0; i < dl_snapshot_file_count(snap); i++) {
		dl_file_info f;
		if (dl_snapshot_file_at(&f, snap, i) == 0 && f.has_deletion_vector) return true;
	}
	return false;
}

/* Settles the format for one table; false (with the error set) when the
 * client asked for parquet but the table cannot be read that way. */
static bool settle_format(dl_shr_caps *caps, dl_snapshot *snap, dl_shr_response *resp)
{
	bool need = needs_delta(snap);
	if (caps->want_both_) caps->delta_format = need;
	if (need && !caps->delta_format) {
		dl_shr_error(resp, 400, "FEATURE_NOT_SUPPORTED",
		             "the table uses deletion vectors or column mapping, which the parquet response "
		             "format cannot express: send 'delta-sharing-capabilities: responseformat=delta'");
		return false;
	}
	return true;
}

/* ---- timestamps -------------------------------------------------------- */

int dl_shr_parse_timestamp(int64_t *ms, const char *text)
{
	int64_t us;
	if (dl_timestamp_parse_text(&us, text) < 0)
		return dl_error_set(DL_EINVALID, "'%s' is not a timestamp (yyyy-mm-dd hh:mm:ss[.f] or ISO 8601)",
		                    text);
	*ms = dl_floor_div(us, 1000);
	return 0;
}

const char *dl_shr_table_message(const dl_shr_table *t, const char *msg)
{
	static const char pre[] = "opening table ";
	size_t ln = strlen(t->location);
	if (!msg) return "the table could not be read";
	if (strncmp(msg, pre, sizeof pre - 1) == 0 && strncmp(msg + sizeof pre - 1, t->location, ln) == 0 &&
	    strncmp(msg + sizeof pre - 1 + ln, ": ", 2) == 0)
		msg += sizeof pre - 1 + ln + 2;
	return ln && strstr(msg, t->location) ? "the table's log could not be read at that version" : msg;
}

static void snapshot_error(dl_shr_response *resp, int rc, const dl_shr_target *t, bool time_travel)
{
	if (time_travel && (rc == DL_ENOTFOUND || rc == DL_EINVALID)) {
		/* The reason (a version or time outside the history) helps the
		 * recipient; the table's location must not reach it. */
		dl_shr_error(resp, 400, "INVALID_PARAMETER_VALUE", "table '%s': %s", t->table->name,
		             dl_shr_table_message(t->table, dl_error_last()->message));
		return;
	}
	char ctx[300];
	snprintf(ctx, sizeof ctx, "table '%s.%s.%s'", t->share->name, t->schema->name, t->table->name);
	/* Library messages can name server paths; only safe classes pass them on. */
	if (rc == DL_ENOTFOUND) dl_shr_error(resp, 404, "RESOURCE_DOES_NOT_EXIST", "%s is not available", ctx);
	else dl_shr_error_from_dl(resp, rc, ctx);
}

static void version_header(dl_shr_response *resp, int64_t v)
{
	char s[24];
	snprintf(s, sizeof s, "%" PRId64, v);
	dl_shr_response_header(resp, "Delta-Table-Version", s);
}

/* ---- version ----------------------------------------------------------- */

void dl_shr_table_version(dl_shr_request *req, dl_shr_response *resp, const dl_shr_target *t)
{
	const char *st = dl_shr_arg(req, "startingTimestamp");
	dl_snapshot *snap;
	int rc = dl_shr_open_snapshot(&snap, req->srv, t->table, -1, DL_NO_TIMESTAMP, true);
	if (rc < 0) {
		snapshot_error(resp, rc, t, false);
		return;
	}
	int64_t v = dl_snapshot_version(snap);
	if (st) {
		/* The earliest version committed at or after the timestamp. */
		int64_t ms = 0;
		int64_t *vs = NULL, *ts = NULL;
		size_t n = 0;
		rc = dl_shr_parse_timestamp(&ms, st);
		if (rc == 0)
			rc = dl_log_commit_timestamps(dl_snapshot_store(snap), dl_snapshot_props(snap), &vs, &ts, &n);
		if (rc == 0) {
			size_t i = 0;
			while (i < n && ts[i] < ms) i++;
			if (i == n)
				rc = dl_error_set(DL_EINVALID, "startingTimestamp %s is after the latest version's commit",
				                  st);
			else v = vs[i];
		}
		dl_free(vs);
		dl_free(ts);
		if (rc < 0) {
			dl_shr_release_snapshot(req->srv, snap);
			dl_shr_error(resp, 400, "INVALID_PARAMETER_VALUE", "%s",
			             dl_shr_table_message(t->table, dl_error_last()->message));
			return;
		}
	}
	dl_shr_release_snapshot(req->srv, snap);
	version_header(resp, v);
	resp->status = 200;
}

/* ---- protocol and metaData lines --------------------------------------- */

static int write_action_body(dl_json_writer *w, const dl_action *a)
{
	/* dl_action_to_json gives {"<kind>":{...}}: keep the {...}. */
	dl_buf t = DL_BUF_INIT;
	int rc = dl_action_to_json(&t, a);
	size_t pre = strlen(dl_action_kind_name(a->kind)) + 4;
	if (rc == 0 && t.len > pre + 1) {
		t.data[t.len - 1] = 0;
		dl_jw_raw(w, t.data + pre);
	} else if (rc == 0) rc = DL_ECORRUPT;
	dl_buf_free(&t);
	return rc;
}

/* One protocol line. In the parquet format the response protocol is always
 * minReaderVersion 1; version (>= 0) is the commit it was seen at, for the
 * historical lines of changes and streaming queries. */
int dl_shr_write_protocol_line(dl_buf *out, const struct dl_protocol *p, const dl_shr_caps *caps,
                               int64_t version)
{
	dl_json_writer w;
	dl_jw_init(&w, out);
	dl_jw_object_begin(&w);
	dl_jw_key(&w, "protocol");
	dl_jw_object_begin(&w);
	if (caps->delta_format) {
		dl_action a = {.kind = DL_ACTION_PROTOCOL};
		a.u.protocol = *p;
		dl_jw_key(&w, "deltaProtocol");
		DL_TRY(write_action_body(&w, &a));
	} else {
		dl_jw_key(&w, "minReaderVersion");
		dl_jw_int(&w, 1);
	}
	if (version >= 0) {
		dl_jw_key(&w, "version");
		dl_jw_int(&w, version);
	}
	dl_jw_object_end(&w);
	dl_jw_object_end(&w);
	DL_TRY(dl_jw_finish(&w));
	return dl_buf_putc(out, '\n');
}

/* One metaData line: version (>= 0) when the request asked for a version
 * or the line is a historical one; size and numFiles (>= 0) for the
 * metadata endpoint. */
int dl_shr_write_metadata_line(dl_buf *out, const struct dl_metadata *m, const dl_shr_caps *caps,
                               int64_t version, int64_t size, int64_t num_files)
{
	dl_json_writer w;
	dl_jw_init(&w, out);
	dl_jw_object_begin(&w);
	dl_jw_key(&w, "metaData");
	dl_jw_object_begin(&w);
	if (caps->delta_format) {
		dl_action a = {.kind = DL_ACTION_METADATA};
		a.u.metadata = *m;
		dl_jw_key(&w, "deltaMetadata");
		DL_TRY(write_action_body(&w, &a));
	} else {
		dl_jw_key(&w, "id");
		dl_jw_string(&w, m->id ? m->id : "");
		if (m->name) {
			dl_jw_key(&w, "name");
			dl_jw_string(&w, m->name);
		}
		if (m->description) {
			dl_jw_key(&w, "description");
			dl_jw_string(&w, m->description);
		}
		dl_jw_key(&w, "format");
		dl_jw_object_begin(&w);
		dl_jw_key(&w, "provider");
		dl_jw_string(&w, m->format_provider ? m->format_provider : "parquet");
		dl_jw_object_end(&w);
		dl_jw_key(&w, "schemaString");
		dl_jw_string(&w, m->schema_string ? m->schema_string : "{\"type\":\"struct\",\"fields\":[]}");
		dl_jw_key(&w, "partitionColumns");
		dl_jw_array_begin(&w);
		for (uint32_t i = 0; i < m->npartition_columns; i++) dl_jw_string(&w, m->partition_columns[i]);
		dl_jw_array_end(&w);
		dl_jw_key(&w, "configuration");
		dl_str_map_write(&w, &m->configuration);
	}
	if (version >= 0) {
		dl_jw_key(&w, "version");
		dl_jw_int(&w, version);
	}
	if (size >= 0) {
		dl_jw_key(&w, "size");
		dl_jw_int(&w, size);
	}
	if (num_files >= 0) {
		dl_jw_key(&w, "numFiles");
		dl_jw_int(&w, num_files);
	}
	dl_jw_object_end(&w);
	dl_jw_object_end(&w);
	DL_TRY(dl_jw_finish(&w));
	return dl_buf_putc(out, '\n');
}

int dl_shr_write_protocol_metadata(dl_buf *out, dl_snapshot *snap, const dl_shr_caps *caps,
                                   bool with_version, bool with_size)
{
	const dl_log_state *st = dl_snapshot_state(snap);
	DL_TRY(dl_shr_write_protocol_line(out, st->protocol, caps, -1));
	return dl_shr_write_metadata_line(out, st->metadata, caps,
	                                  with_version ? dl_snapshot_version(snap) : -1,
	                                  with_size ? dl_snapshot_total_size(snap) : -1,
	                                  with_size ? (int64_t)dl_snapshot_file_count(snap) : -1);
}

void dl_shr_table_metadata(dl_shr_request *req, dl_shr_response *resp, const dl_shr_target *t)
{
	dl_shr_caps caps;
	dl_shr_caps_parse(&caps, dl_shr_header(req, "delta-sharing-capabilities"));
	dl_snapshot *snap;
	/* Files are needed for size/numFiles and to settle the format. */
	int rc = dl_shr_open_snapshot(&snap, req->srv, t->table, -1, DL_NO_TIMESTAMP, false);
	if (rc < 0) {
		snapshot_error(resp, rc, t, false);
		return;
	}
	if (!settle_format(&caps, snap, resp)) {
		dl_shr_release_snapshot(req->srv, snap);
		return;
	}
	rc = dl_shr_write_protocol_metadata(&resp->body, snap, &caps, false, true);
	if (rc < 0) {
		dl_shr_release_snapshot(req->srv, snap);
		dl_shr_error(resp, 500, "INTERNAL_ERROR", "could not write the metadata");
		return;
	}
	resp->content_type = NDJSON;
	version_header(resp, dl_snapshot_version(snap));
	dl_shr_capability_header(resp, &caps);
	dl_shr_release_snapshot(req->srv, snap);
}

/* ---- file URLs ----------------------------------------------------------- */

/* Tables on S3 get presigned S3 URLs; the others the server's own /files
 * URLs, whose token carries the path relative to the table root (checked
 * to be inside it), so URLs do not reveal where the server keeps tables. */
int dl_shr_file_url(dl_buf *out, dl_shr_request *req, const dl_shr_target *t, const char *location,
                    int64_t expires_ms)
{
	char *rel;
	DL_TRY(dl_shr_confine_rel(&rel, t->table->location, location));
	bool done;
	int rc = dl_shr_presign(out, &done, req->srv, t->table, rel, expires_ms);
	if (rc == 0 && done) {
		dl_free(rel);
		return 0;
	}
	if (rc == 0) rc = dl_buf_puts(out, req->srv->public_url);
	if (rc == 0)
		rc = dl_shr_sign_file(out, &req->srv->signer, t->share->name, t->schema->name, t->table->name,
		                      rel, expires_ms);
	dl_free(rel);
	return rc;
}


/* ---- query ------------------------------------------------------------------ */

typedef struct query_req {
	dl_arena arena;
	const char **hints;          /* SQL predicates: predicateHints + jsonPredicateHints */
	size_t nhints;
	char *json_sql;
	int64_t limit;               /* -1: none */
	int64_t version;             /* -1 */
	const char *timestamp;
	int64_t starting_version;    /* -1 */
	int64_t ending_version;      /* -1 */
	bool historical_protocol;    /* includeHistoricalProtocol */
	int64_t max_files;           /* maxFiles; -1: one page */
	const char *page_token;      /* pageToken: "<version>_<offset>" we gave */
} query_req;

static int get_long(const dl_json *body, const char *key, int64_t *out, dl_shr_response *resp)
{
	const dl_json *v = dl_json_get(body, key);
	if (!v || dl_json_is_null(v)) return 0;
	if (dl_json_int64(v, out) < 0 || *out < 0) {
		dl_shr_error(resp, 400, "INVALID_PARAMETER_VALUE", "%s must be a non-negative integer", key);
		return -1;
	}
	return 0;
}

static int parse_query(query_req *q, dl_shr_request *req, dl_shr_response *resp)
{
	memset(q, 0, sizeof *q);
	q->limit = q->version = q->starting_version = q->ending_version = -1;
	if (!req->body || req->body_len == 0) return 0; /* PROTOCOL.md: {} when none */
	dl_json *body;
	if (dl_json_parse(&q->arena, req->body, req->body_len, "the request body", &body) < 0 ||
	    body->kind != DL_JSON_OBJECT) {
		dl_shr_error(resp, 400, "INVALID_PARAMETER_VALUE", "the request body must be a JSON object");
		return -1;
	}
	const dl_json *ph = dl_json_get(body, "predicateHints");
	size_t nph = ph && ph->kind == DL_JSON_ARRAY ? ph->u.arr.n : 0;
	if (ph && !dl_json_is_null(ph) && ph->kind != DL_JSON_ARRAY) {
		dl_shr_error(resp, 400, "INVALID_PARAMETER_VALUE", "predicateHints must be an array of strings");
		return -1;
	}
	q->hints = dl_arena_calloc(&q->arena, nph + 1, sizeof(char *));
	if (!q->hints) return -1;
	for (size_t i = 0; i < nph; i++) {
		const dl_json *h = &ph->u.arr.items[i];
		if (h->kind == DL_JSON_STRING && h->u.str.len && strlen(h->u.str.ptr) == h->u.str.len)
			q->hints[q->nhints++] = h->u.str.ptr;
	}
	const char *jp = dl_json_get_str(body, "jsonPredicateHints");
	if (jp && dl_shr_json_predicate_sql(&q->json_sql, jp) == 0) q->hints[q->nhints++] = q->json_sql;
	int64_t lim = -1;
	if (get_long(body, "limitHint", &lim, resp) < 0) return -1;
	q->limit = lim;
	if (get_long(body, "version", &q->version, resp) < 0) return -1;
	if (get_long(body, "startingVersion", &q->starting_version, resp) < 0) return -1;
	if (get_long(body, "endingVersion", &q->ending_version, resp) < 0) return -1;
	q->max_files = -1;
	if (get_long(body, "maxFiles", &q->max_files, resp) < 0) return -1;
	if (q->max_files == 0) {
		dl_shr_error(resp, 400, "INVALID_PARAMETER_VALUE", "maxFiles must be a positive integer");
		return -1;
	}
	const dl_json *pt = dl_json_get(body, "pageToken");
	if (pt && !dl_json_is_null(pt)) {
		if (pt->kind != DL_JSON_STRING) {
			dl_shr_error(resp, 400, "INVALID_PARAMETER_VALUE", "pageToken must be a string");
			return -1;
		}
		q->page_token = pt->u.str.ptr;
	}
	const dl_json *hp = dl_json_get(body, "includeHistoricalProtocol");
	if (hp && !dl_json_is_null(hp)) {
		if (hp->kind != DL_JSON_TRUE && hp->kind != DL_JSON_FALSE) {
			dl_shr_error(resp, 400, "INVALID_PARAMETER_VALUE", "includeHistoricalProtocol must be a boolean");
			return -1;
		}
		q->historical_protocol = hp->kind == DL_JSON_TRUE;
	}
	const dl_json *ts = dl_json_get(body, "timestamp");
	if (ts && !dl_json_is_null(ts)) {
		if (ts->kind != DL_JSON_STRING) {
			dl_shr_error(resp, 400, "INVALID_PARAMETER_VALUE", "timestamp must be a string");
			return -1;
		}
		q->timestamp = ts->u.str.ptr;
	}
	int modes = (q->version >= 0) + (q->timestamp != NULL) + (q->starting_version >= 0);
	if (modes > 1) {
		dl_shr_error(resp, 400, "INVALID_PARAMETER_VALUE",
		             "only one of version, timestamp and startingVersion may be given");
		return -1;
	}
	if (q->ending_version >= 0 && q->starting_version < 0) {
		dl_shr_error(resp, 400, "INVALID_PARAMETER_VALUE", "endingVersion needs startingVersion");
		return -1;
	}
	return 0;
}

static void query_free(query_req *q)
{
	dl_free(q->json_sql);
	dl_arena_free(&q->arena);
}

/* "(p1) AND (p2)..." of the partition filter and the hints that bind. The
 * partition filter must bind (it is enforced); a hint that does not is
 * dropped. */
static int plan_scan(dl_scan **out, dl_snapshot *snap, const dl_shr_table *t, const query_req *q,
                     bool *hints_used)
{
	*hints_used = false;
	dl_buf f = DL_BUF_INIT;
	int rc = 0;
	if (t->partition_filter) rc = dl_buf_printf(&f, "(%s)", t->partition_filter);
	dl_scan_options so = DL_SCAN_OPTIONS_INIT;
	for (size_t i = 0; rc == 0 && i < q->nhints; i++) {
		/* Each hint is tried alone first, so one bad hint drops only itself. */
		dl_buf one = DL_BUF_INIT;
		rc = dl_buf_printf(&one, "%s%s(%s)", f.len ? f.data : "", f.len ? " AND " : "", q->hints[i]);
		if (rc < 0) break;
		so.filter = one.data;
		dl_scan *probe;
		if (dl_scan_open(&probe, snap, &so) == 0) {
			dl_scan_free(probe);
			dl_buf_free(&f);
			f = one;
			*hints_used = true;
		} else dl_buf_free(&one);
	}
	if (rc == 0) {
		so.filter = f.len ? f.data : NULL;
		rc = dl_scan_open(out, snap, &so);
		if (rc < 0 && rc != DL_EPERM && t->partition_filter)
			rc = dl_error_set(DL_ERROR, "the partitionFilter of table '%s' does not apply: %s", t->name,
			                  dl_error_last()->message);
	}
	dl_buf_free(&f);
	return rc;
}

/* One file line of a scan. */
static int write_file_line(dl_buf *out, dl_shr_request *req, const dl_shr_target *t, dl_scan *scan,
                           dl_snapshot *snap, size_t i, const dl_shr_caps *caps, int64_t expires,
                           bool versioned)
{
	dl_scan_file f;
	DL_TRY(dl_scan_file_get(&f, scan, i));
	dl_buf url = DL_BUF_INIT;
	int rc = dl_shr_file_url(&url, req, t, f.location, expires);
	char id[33];
	dl_shr_file_id(id, f.path);
	dl_json_writer w;
	dl_jw_init(&w, out);
	dl_jw_object_begin(&w);
	dl_jw_key(&w, "file");
	dl_jw_object_begin(&w);
	dl_buf dvurl = DL_BUF_INIT;
	if (caps->delta_format) {
		const dl_add *src = dl_log_state_add(dl_snapshot_state(snap), f.snapshot_index);
		dl_add a = *src;
		a.path = url.data;
		a.log_path = NULL;
		dl_dv_descriptor dv;
		if (rc == 0 && a.dv && a.dv->storage_type != 'i') {
			/* The DV file is signed like a data file; the client gets it as an
			 * absolute path ('p'). */
			dv = *a.dv;
			rc = dl_shr_file_url(&dvurl, req, t, f.deletion_vector.location, expires);
			dv.storage_type = 'p';
			dv.path_or_inline = dvurl.data;
			a.dv = &dv;
		}
		dl_jw_key(&w, "id");
		dl_jw_string(&w, id);
		dl_jw_key(&w, "deltaSingleAction");
		dl_action act = {.kind = DL_ACTION_ADD};
		act.u.add = a;
		if (rc == 0) dl_action_write(&w, &act);
		else dl_jw_null(&w);
	} else {
		dl_jw_key(&w, "url");
		dl_jw_string(&w, url.data ? url.data : "");
		dl_jw_key(&w, "id");
		dl_jw_string(&w, id);
		dl_jw_key(&w, "partitionValues");
		dl_jw_object_begin(&w);
		for (size_t j = 0; rc == 0 && j < f.npartition_values; j++) {
			const char *col, *val;
			rc = dl_scan_file_partition_value(&col, &val, scan, i, j);
			if (rc < 0) break;
			dl_jw_key(&w, col);
			if (val) dl_jw_string(&w, val);
			else dl_jw_null(&w);
		}
		dl_jw_object_end(&w);
		dl_jw_key(&w, "size");
		dl_jw_int(&w, f.size);
		if (f.stats) {
			dl_jw_key(&w, "stats");
			dl_jw_string(&w, f.stats);
		}
	}
	dl_jw_key(&w, "expirationTimestamp");
	dl_jw_int(&w, expires);
	if (versioned) {
		dl_jw_key(&w, "version");
		dl_jw_int(&w, dl_snapshot_version(snap));
		dl_jw_key(&w, "timestamp");
		dl_jw_int(&w, dl_snapshot_timestamp(snap));
	}
	dl_jw_object_end(&w);
	dl_jw_object_end(&w);
	dl_buf_free(&url);
	dl_buf_free(&dvurl);
	if (rc == 0) rc = dl_jw_finish(&w);
	if (rc == 0) rc = dl_buf_putc(out, '\n');
	return rc;
}

int dl_shr_write_end_stream(dl_buf *out, int64_t min_expiry, const char *next_page_token)
{
	if (next_page_token)
		return dl_buf_printf(out,
		                     "{\"endStreamAction\":{\"nextPageToken\":\"%s\",\"minUrlExpirationTimestamp\":%" PRId64
		                     "}}\n",
		                     next_page_token, min_expiry);
	return dl_buf_printf(out, "{\"endStreamAction\":{\"minUrlExpirationTimestamp\":%" PRId64 "}}\n",
	                     min_expiry);
}

/* Our page tokens: the snapshot version the first page was read at and the
 * index of the next file in that snapshot's scan, so every page lists the
 * same snapshot. Not secret: a token edited to another version is a
 * version request (checked like one), another offset another page. */
static int parse_page_token(int64_t *version, int64_t *offset, const char *tok)
{
	char *e;
	errno = 0;
	long long v = strtoll(tok, &e, 10);
	if (errno || e == tok || *e != '_' || v < 0) return DL_EINVALID;
	const char *o = e + 1;
	long long off = strtoll(o, &e, 10);
	if (errno || e == o || *e || off < 0) return DL_EINVALID;
	*version = v;
	*offset = off;
	return 0;
}

void dl_shr_table_query(dl_shr_request *req, dl_shr_response *resp, const dl_shr_target *t)
{
	dl_shr_caps caps;
	dl_shr_caps_parse(&caps, dl_shr_header(req, "delta-sharing-capabilities"));
	query_req q;
	if (parse_query(&q, req, resp) < 0) {
		query_free(&q);
		return;
	}
	bool time_travel = q.version >= 0 || q.timestamp || q.starting_version >= 0;
	if (time_travel && !t->table->history_shared) {
		dl_shr_error(resp, 400, "INVALID_PARAMETER_VALUE",
		             "reading table '%s' by version or timestamp is not supported because history "
		             "sharing is not enabled on it", t->table->name);
		query_free(&q);
		return;
	}
	if (q.starting_version >= 0) {
		dl_shr_write_changes(req, resp, t, &caps, q.starting_version, q.ending_version, true,
		                     q.historical_protocol, (const char *const *)q.hints, q.nhints,
		                     q.max_files, q.page_token);
		query_free(&q);
		return;
	}
	int64_t page_version = -1, offset = 0;
	if (q.page_token && parse_page_token(&page_version, &offset, q.page_token) < 0) {
		dl_shr_error(resp, 400, "INVALID_PARAMETER_VALUE", "pageToken '%s' is not one this server gave",
		             q.page_token);
		query_free(&q);
		return;
	}
	int64_t ts_ms = DL_NO_TIMESTAMP;
	if (q.timestamp && dl_shr_parse_timestamp(&ts_ms, q.timestamp) < 0) {
		dl_shr_error(resp, 400, "INVALID_PARAMETER_VALUE", "%s", dl_error_last()->message);
		query_free(&q);
		return;
	}
	dl_snapshot *snap;
	/* A next page reads the version of the first; without history sharing
	 * only while that is still the latest. */
	bool pinned = page_version >= 0 && t->table->history_shared;
	int rc = dl_shr_open_snapshot(&snap, req->srv, t->table, pinned ? page_version : q.version,
	                              pinned ? DL_NO_TIMESTAMP : ts_ms, false);
	if (rc < 0) {
		snapshot_error(resp, rc, t, time_travel || pinned);
		query_free(&q);
		return;
	}
	if (page_version >= 0 && dl_snapshot_version(snap) != page_version) {
		dl_shr_error(resp, 400, "INVALID_PARAMETER_VALUE",
		             "pageToken '%s' is of version %" PRId64 " of table '%s', which is no longer its latest",
		             q.page_token, page_version, t->table->name);
		dl_shr_release_snapshot(req->srv, snap);
		query_free(&q);
		return;
	}
	if (!settle_format(&caps, snap, resp)) {
		dl_shr_release_snapshot(req->srv, snap);
		query_free(&q);
		return;
	}
	dl_scan *scan;
	bool hints_used;
	rc = plan_scan(&scan, snap, t->table, &q, &hints_used);
	if (rc < 0) {
		snapshot_error(resp, rc, t, false);
		dl_shr_release_snapshot(req->srv, snap);
		query_free(&q);
		return;
	}
	int64_t expires = dl_now_millis() + req->srv->config.presigned_url_timeout_s * 1000;
	rc = dl_shr_write_protocol_metadata(&resp->body, snap, &caps, time_travel, false);
	/* limitHint: enough files for that many rows, when the stats tell and no
	 * hint pruned (a pruned file's rows may not all match). */
	/* maxFiles/pageToken: the files [offset, offset + maxFiles) of the same
	 * list; rows for limitHint are counted from the first file, so the
	 * pages together are the unpaged answer. */
	int64_t rows = 0, written = 0;
	char next[48] = "";
	for (size_t i = 0; rc == 0 && i < dl_scan_file_count(scan); i++) {
		if (q.limit >= 0 && !hints_used && rows >= q.limit) break;
		if (q.max_files > 0 && written == q.max_files) {
			snprintf(next, sizeof next, "%" PRId64 "_%zu", dl_snapshot_version(snap), i);
			break;
		}
		dl_scan_file f;
		rc = dl_scan_file_get(&f, scan, i);
		if (rc < 0) break;
		if (f.num_records >= 0) rows += f.num_records - (f.has_deletion_vector ? f.deletion_vector.cardinality : 0);
		else rows = INT64_MIN / 2; /* unknown: no limit */
		if ((int64_t)i < offset) continue;
		rc = write_file_line(&resp->body, req, t, scan, snap, i, &caps, expires, time_travel);
		written++;
	}
	/* The next page token travels in the endStreamAction, which a paged
	 * response therefore always ends with. */
	if (rc == 0 && (caps.end_stream_action || q.max_files > 0))
		rc = dl_shr_write_end_stream(&resp->body, expires, next[0] ? next : NULL);
	if (rc < 0) dl_shr_error(resp, 500, "INTERNAL_ERROR", "could not list the table's files");
	else {
		resp->content_type = NDJSON;
		version_header(resp, dl_snapshot_version(snap));
		dl_shr_capability_header(resp, &caps);
	}
	dl_scan_free(scan);
	dl_shr_release_snapshot(req->srv, snap);
	query_free(&q);
}
