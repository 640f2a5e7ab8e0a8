/* The change data feed endpoint (GET .../changes) and the startingVersion
 * form of query: the data change files of commits [start, end].
 *
 * For each commit in the range, as Delta's CDF reads it: a commit with cdc
 * actions contributes its change data files ("cdf" lines); any other its
 * data-changing adds and removes ("add", "remove" lines), each with the
 * commit's version and timestamp. The query form (streaming) returns adds
 * and removes only. Historical metaData lines come with
 * includeHistoricalMetadata (and always in the query form, as PROTOCOL.md
 * says: "including historical metadata if seen in the delta log").
 *
 * Remove actions are not covered by the snapshot's path policy, so every
 * path is confined to the table root here before it is signed. A table's
 * partitionFilter is enforced on every add, remove and cdf action by its
 * partition values (exact, as in the query path); a filter on other
 * columns cannot be enforced that way, so such a table's changes are
 * refused rather than leaked. predicateHints skip actions only where the
 * partition values decide it: a hint never hides a file that may match. */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include "deltalake/snapshot.h"
#include "json/json.h"
#include "log/actions.h"
#include "log/log_segment.h"
#include "log/snapshot.h"
#include "table/scan.h"
#include "sharing/server.h"
#include "util/error.h"
#include "util/mem.h"
#include "util/time.h"

typedef struct chg_ctx {
	dl_shr_request *req;
	const dl_shr_target *t;
	const dl_shr_caps *caps;
	dl_buf *out;
	int64_t version, timestamp, expires;
	bool query_form, with_metadata, with_protocol, has_cdc;
	dl_snapshot *snap;
	dl_arena arena;
	dl_action *acts;             /* the commit's actions, in order */
	size_t nacts, capacts;
	dl_scan *filters[17];        /* the partitionFilter, then usable hints */
	size_t nfilters;
	/* paging: lines [offset, offset + max) of the whole answer's file
	 * lines; metaData and protocol lines go with the page their position
	 * (the file lines before them) falls in */
	int64_t page_offset, page_max; /* page_max -1: one answer */
	int64_t seen;                  /* file lines before this one */
	bool more;                     /* a line was left for a next page */
} chg_ctx;

/* Whether the line at the current position belongs to this page; a file
 * line (counted) moves the position on. */
static bool in_page(chg_ctx *x, bool counted)
{
	bool in = x->page_max < 0 ||
	          (x->seen >= x->page_offset && x->seen < x->page_offset + x->page_max);
	if (x->page_max >= 0 && x->seen >= x->page_offset + x->page_max) x->more = true;
	if (counted) x->seen++;
	return in;
}

/* Whether an action's partition values pass every filter. */
static int action_kept(bool *keep, chg_ctx *x, const dl_action *a)
{
	const dl_str_map *pv = a->kind == DL_ACTION_ADD      ? &a->u.add.partition_values
	                       : a->kind == DL_ACTION_REMOVE ? &a->u.remove.partition_values
	                                                     : &a->u.cdc.partition_values;
	*keep = true;
	for (size_t i = 0; *keep && i < x->nfilters; i++)
		DL_TRY(dl_scan_partitions_may_match(keep, x->filters[i], pv));
	return 0;
}

/* A scan of snap with filter, when the filter is decided by partition
 * values alone; NULL (and no error) otherwise. */
static int partition_filter_scan(dl_scan **out, dl_snapshot *snap, const char *filter)
{
	*out = NULL;
	dl_scan_options so = DL_SCAN_OPTIONS_INIT;
	so.filter = filter;
	dl_scan *s;
	DL_TRY(dl_scan_open(&s, snap, &so));
	bool may;
	dl_str_map none = {0};
	if (dl_scan_partitions_may_match(&may, s, &none) < 0) {
		dl_scan_free(s);
		return 0;
	}
	*out = s;
	return 0;
}

static int collect(const dl_json *line, int64_t lineno, void *payload)
{
	(void)lineno;
	chg_ctx *x = payload;
	dl_action a;
	DL_TRY(dl_action_from_json(&a, &x->arena, line, "commit"));
	if (a.kind != DL_ACTION_ADD && a.kind != DL_ACTION_REMOVE && a.kind != DL_ACTION_CDC &&
	    a.kind != DL_ACTION_METADATA && a.kind != DL_ACTION_PROTOCOL)
		return 0;
	if (a.kind == DL_ACTION_CDC) x->has_cdc = true;
	if (x->nacts == x->capacts) {
		size_t nc = x->capacts ? x->capacts * 2 : 64;
		dl_action *na = dl_realloc(x->acts, nc * sizeof *na);
		if (!na) return DL_ENOMEM;
		x->acts = na;
		x->capacts = nc;
	}
	x->acts[x->nacts++] = a;
	return 0;
}


static int write_action(chg_ctx *x, dl_action *a)
{
	const char *path = a->kind == DL_ACTION_ADD      ? a->u.add.path
	                   : a->kind == DL_ACTION_REMOVE ? a->u.remove.path
	                                                 : a->u.cdc.path;
	char *loc = NULL;
	int rc = dl_shr_confine(&loc, x->t->table->location, path);
	if (rc < 0) return rc;
	dl_buf url = DL_BUF_INIT, dvurl = DL_BUF_INIT;
	rc = dl_shr_file_url(&url, x->req, x->t, loc, x->expires);
	dl_free(loc);
	char id[33];
	dl_shr_file_id(id, path);
	const char *wrapper = a->kind == DL_ACTION_ADD ? "add" : a->kind == DL_ACTION_REMOVE ? "remove" : "cdf";
	dl_json_writer w;
	dl_jw_init(&w, x->out);
	dl_jw_object_begin(&w);
	dl_jw_key(&w, x->caps->delta_format ? "file" : wrapper);
	dl_jw_object_begin(&w);
	if (x->caps->delta_format) {
		dl_action c = *a;
		dl_dv_descriptor dv, *src_dv = NULL;
		if (a->kind == DL_ACTION_ADD) {
			c.u.add.path = url.data;
			c.u.add.log_path = NULL;
			src_dv = a->u.add.dv;
		} else if (a->kind == DL_ACTION_REMOVE) {
			c.u.remove.path = url.data;
			src_dv = a->u.remove.dv;
		} else c.u.cdc.path = url.data;
		if (rc == 0 && src_dv && src_dv->storage_type != 'i') {
			dl_buf rel = DL_BUF_INIT;
			rc = dl_dv_file_path(src_dv, &rel);
			char *dvloc = NULL;
			if (rc == 0) rc = dl_shr_confine(&dvloc, x->t->table->location, rel.data);
			if (rc == 0) rc = dl_shr_file_url(&dvurl, x->req, x->t, dvloc, x->expires);
			dl_free(dvloc);
			dl_buf_free(&rel);
			dv = *src_dv;
			dv.storage_type = 'p';
			dv.path_or_inline = dvurl.data;
			if (a->kind == DL_ACTION_ADD) c.u.add.dv = &dv;
			else c.u.remove.dv = &dv;
		}
		dl_jw_key(&w, "id");
		dl_jw_string(&w, id);
		dl_jw_key(&w, "deltaSingleAction");
		if (rc == 0) dl_action_write(&w, &c);
		else dl_jw_null(&w);
	} else {
		const dl_str_map *pv = a->kind == DL_ACTION_ADD      ? &a->u.add.partition_values
		                       : a->kind == DL_ACTION_REMOVE ? &a->u.remove.partition_values
		                                                     : &a->u.cdc.partition_values;
		int64_t size = a->kind == DL_ACTION_ADD      ? a->u.add.size
		               : a->kind == DL_ACTION_REMOVE ? a->u.remove.size
		                                             : a->u.cdc.size;
		dl_jw_key(&w, "url");
		dl_jw_string(&w, url.data ? url.data : "");
		dl_jw_key(&w, "id");
		dl_jw_string(&w, id);
		dl_jw_key(&w, "partitionValues");
		dl_str_map_write(&w, pv);
		dl_jw_key(&w, "size");
		dl_jw_int(&w, size == DL_NONE ? 0 : size);
		if (a->kind == DL_ACTION_ADD && a->u.add.stats) {
			dl_jw_key(&w, "stats");
			dl_jw_string(&w, a->u.add.stats);
		}
	}
	dl_jw_key(&w, "timestamp");
	dl_jw_int(&w, x->timestamp);
	dl_jw_key(&w, "version");
	dl_jw_int(&w, x->version);
	dl_jw_key(&w, "expirationTimestamp");
	dl_jw_int(&w, x->expires);
	dl_jw_object_end(&w);
	dl_jw_object_end(&w);
	dl_buf_free(&url);
	dl_buf_free(&dvurl);
	if (rc == 0) rc = dl_jw_finish(&w);
	if (rc == 0) rc = dl_buf_putc(x->out, '\n');
	return rc;
}

static int one_commit(chg_ctx *x, dl_store *store)
{
	char path[64];
	dl_log_commit_path(path, sizeof path, x->version);
	uint8_t *data;
	size_t len;
	DL_TRY(dl_store_get(&data, &len, store, path));
	x->nacts = 0;
	x->has_cdc = false;
	dl_arena_reset(&x->arena);
	dl_arena parse = DL_ARENA_INIT;
	int rc = dl_json_parse_lines(&parse, (const char *)data, len, path, collect, x);
	dl_free(data);
	for (size_t i = 0; rc == 0 && i < x->nacts; i++) {
		dl_action *a = &x->acts[i];
		if (a->kind == DL_ACTION_METADATA) {
			if (x->with_metadata && in_page(x, false))
				rc = dl_shr_write_metadata_line(x->out, &a->u.metadata, x->caps, x->version, -1, -1);
			continue;
		}
		if (a->kind == DL_ACTION_PROTOCOL) {
			if (x->with_protocol && in_page(x, false))
				rc = dl_shr_write_protocol_line(x->out, &a->u.protocol, x->caps, x->version);
			continue;
		}
		if (x->query_form && a->kind == DL_ACTION_CDC) continue;
		if (!x->query_form && x->has_cdc && a->kind != DL_ACTION_CDC) continue;
		if (a->kind == DL_ACTION_ADD && !a->u.add.data_change) continue;
		if (a->kind == DL_ACTION_REMOVE && !a->u.remove.data_change) continue;
		bool keep;
		rc = action_kept(&keep, x, a);
		if (rc == 0 && keep && in_page(x, true)) rc = write_action(x, a);
	}
	dl_arena_free(&parse);
	return rc;
}

/* "c<start>_<last>_<offset>", all decimal without sign or leading zeros. */
static int parse_changes_token(int64_t *start, int64_t *last, int64_t *offset, const char *tok)
{
	int64_t *out[3] = {start, last, offset};
	const char *p = tok;
	if (*p++ != 'c') return -1;
	for (int i = 0; i < 3; i++) {
		if (*p < '0' || *p > '9' || (*p == '0' && p[1] >= '0' && p[1] <= '9')) return -1;
		int64_t v = 0;
		for (; *p >= '0' && *p <= '9'; p++) {
			if (v > (INT64_MAX - (*p - '0')) / 10) return -1;
			v = v * 10 + (*p - '0');
		}
		*out[i] = v;
		if (*p != (i < 2 ? '_' : 0)) return -1;
		p++;
	}
	return *last >= *start ? 0 : -1;
}

int dl_shr_write_changes(dl_shr_request *req, dl_shr_response *resp, const dl_shr_target *t,
                         dl_shr_caps *caps, int64_t start, int64_t end, bool query_form,
                         bool with_protocol, const char *const *hints, size_t nhints,
                         int64_t max_files, const char *page_token)
{
	int64_t page_offset = 0;
	if (page_token) {
		int64_t ts_start, ts_last;
		if (max_files <= 0 || parse_changes_token(&ts_start, &ts_last, &page_offset, page_token) < 0 ||
		    ts_start != start || (end >= 0 && ts_last > end)) {
			dl_shr_error(resp, 400, "INVALID_PARAMETER_VALUE",
			             "pageToken '%s' is not one this server gave for these changes (give the "
			             "same parameters and maxFiles as for the first page)", page_token);
			return -1;
		}
		end = ts_last; /* the pages read the versions of the first */
	}
	if (start < t->table->start_version) {
		dl_shr_error(resp, 400, "INVALID_PARAMETER_VALUE",
		             "table '%s' is shared from version %" PRId64 " on, not %" PRId64, t->table->name,
		             t->table->start_version, start);
		return -1;
	}
	dl_snapshot *snap;
	int rc = dl_shr_open_snapshot(&snap, req->srv, t->table, end, DL_NO_TIMESTAMP, false);
	if (rc < 0) {
		dl_shr_error(resp, rc == DL_ENOTFOUND ? 400 : 500,
		             rc == DL_ENOTFOUND ? "INVALID_PARAMETER_VALUE" : "INTERNAL_ERROR",
		             "table '%s': cannot open version %" PRId64 " of the table", t->table->name, end);
		return -1;
	}
	int64_t last = dl_snapshot_version(snap);
	if (start > last) {
		dl_shr_release_snapshot(req->srv, snap);
		dl_shr_error(resp, 400, "INVALID_PARAMETER_VALUE",
		             "startingVersion %" PRId64 " is after the table's version %" PRId64, start, last);
		return -1;
	}
	if (!query_form) {
		const char *cdf = dl_snapshot_property(snap, "delta.enableChangeDataFeed");
		if (!cdf || strcasecmp(cdf, "true")) {
			dl_shr_release_snapshot(req->srv, snap);
			dl_shr_error(resp, 400, "INVALID_PARAMETER_VALUE",
			             "the change data feed is not enabled on table '%s' "
			             "(delta.enableChangeDataFeed)", t->table->name);
			return -1;
		}
	}
	/* Deletion vectors and column mapping need the delta format. */
	const char *cm = dl_snapshot_property(snap, "delta.columnMapping.mode");
	bool need = (cm && strcasecmp(cm, "none")) || dl_snapshot_has_feature(snap, "deletionVectors");
	if (caps->want_both_) caps->delta_format = need;
	if (need && !caps->delta_format) {
		dl_shr_release_snapshot(req->srv, snap);
		dl_shr_error(resp, 400, "FEATURE_NOT_SUPPORTED",
		             "the table uses deletion vectors or column mapping: send "
		             "'delta-sharing-capabilities: responseformat=delta'");
		return -1;
	}
	int64_t *vs = NULL, *ts = NULL;
	size_t n = 0;
	rc = dl_log_commit_timestamps(dl_snapshot_store(snap), dl_snapshot_props(snap), &vs, &ts, &n);
	if (rc == 0 && (n == 0 || vs[0] > start)) {
		dl_free(vs);
		dl_free(ts);
		dl_shr_release_snapshot(req->srv, snap);
		dl_shr_error(resp, 400, "INVALID_PARAMETER_VALUE",
		             "version %" PRId64 " of table '%s' is no longer in its log", start, t->table->name);
		return -1;
	}
	chg_ctx x = {.req = req, .t = t, .caps = caps, .out = &resp->body, .query_form = query_form,
	             .snap = snap, .page_offset = page_offset, .page_max = max_files > 0 ? max_files : -1};
	if (rc == 0 && t->table->partition_filter) {
		dl_scan *pf = NULL;
		int frc = partition_filter_scan(&pf, snap, t->table->partition_filter);
		if (frc < 0 || !pf) {
			dl_free(vs);
			dl_free(ts);
			dl_shr_release_snapshot(req->srv, snap);
			dl_shr_error(resp, 400, "FEATURE_NOT_SUPPORTED",
			             "changes of table '%s' are not shared: its partitionFilter is not a filter "
			             "on partition columns alone", t->table->name);
			return -1;
		}
		x.filters[x.nfilters++] = pf;
	}
	for (size_t i = 0; rc == 0 && i < nhints && x.nfilters < sizeof x.filters / sizeof *x.filters; i++) {
		dl_scan *h = NULL;
		if (partition_filter_scan(&h, snap, hints[i]) < 0) dl_error_clear(); /* a hint that does not bind is dropped */
		if (h) x.filters[x.nfilters++] = h;
	}
	const char *ihm = dl_shr_arg(req, "includeHistoricalMetadata");
	x.with_metadata = query_form || (ihm && !strcasecmp(ihm, "true"));
	x.with_protocol = with_protocol;
	x.expires = dl_now_millis() + req->srv->config.presigned_url_timeout_s * 1000;
	if (rc == 0) rc = dl_shr_write_protocol_metadata(&resp->body, snap, caps, false, false);
	for (size_t i = 0; rc == 0 && i < n; i++) {
		if (vs[i] < start || vs[i] > last) continue;
		x.version = vs[i];
		x.timestamp = ts[i];
		rc = one_commit(&x, dl_snapshot_store(snap));
		if (x.more) break; /* the rest is for the next pages */
	}
	/* The next page token travels in the endStreamAction, which a paged
	 * answer therefore always ends with. */
	char next[80] = "";
	if (x.more)
		snprintf(next, sizeof next, "c%" PRId64 "_%" PRId64 "_%" PRId64, start, last,
		         page_offset + max_files);
	if (rc == 0 && (caps->end_stream_action || max_files > 0))
		rc = dl_shr_write_end_stream(&resp->body, x.expires, next[0] ? next : NULL);
	for (size_t i = 0; i < x.nfilters; i++) dl_scan_free(x.filters[i]);
	dl_free(x.acts);
	dl_arena_free(&x.arena);
	dl_free(vs);
	dl_free(ts);
	if (rc < 0) {
		if (rc == DL_EPERM)
			dl_shr_error(resp, 403, "PERMISSION_DENIED",
			             "table '%s' refers to files outside its location, which are not shared",
			             t->table->name);
		else dl_shr_error(resp, 500, "INTERNAL_ERROR", "could not read the changes of table '%s'",
		                  t->table->name);
		dl_shr_release_snapshot(req->srv, snap);
		return -1;
	}
	resp->content_type = "application/x-ndjson; charset=utf-8";
	char v[24];
	snprintf(v, sizeof v, "%" PRId64, start);
	dl_shr_response_header(resp, "Delta-Table-Version", v);
	dl_shr_capability_header(resp, caps);
	dl_shr_release_snapshot(req->srv, snap);
	return 0;
}

static int get_version_arg(int64_t *out, dl_shr_request *req, dl_shr_response *resp, const char *name)
{
	const char *s = dl_shr_arg(req, name);
	if (!s) return 0;
	char *e;
	long long v = strtoll(s, &e, 10);
	if (!*s || *e || v < 0) {
		dl_shr_error(resp, 400, "INVALID_PARAMETER_VALUE", "%s must be a non-negative integer", name);
		return -1;
	}
	*out = v;
	return 0;
}

/* A timestamp bound to a version: starting -> the first commit at or after,
 * ending -> the last commit at or before. */
static int ts_bound(int64_t *out, dl_shr_server *srv, const dl_shr_table *t, const char *text, bool starting)
{
	int64_t ms;
	DL_TRY(dl_shr_parse_timestamp(&ms, text));
	dl_snapshot *snap;
	DL_TRY(dl_shr_open_snapshot(&snap, srv, t, -1, DL_NO_TIMESTAMP, true));
	int64_t *vs = NULL, *ts = NULL;
	size_t n = 0;
	int rc = dl_log_commit_timestamps(dl_snapshot_store(snap), dl_snapshot_props(snap), &vs, &ts, &n);
	dl_shr_release_snapshot(srv, snap);
	if (rc < 0) return rc;
	int64_t v = -1;
	for (size_t i = 0; i < n; i++) {
		if (starting && ts[i] >= ms) {
			v = vs[i];
			break;
		}
		if (!starting && ts[i] <= ms) v = vs[i];
	}
	dl_free(vs);
	dl_free(ts);
	if (v < 0)
		return dl_error_set(DL_EINVALID, "no version of the table was committed %s %s",
		                    starting ? "at or after" : "at or before", text);
	*out = v;
	return 0;
}

void dl_shr_table_changes(dl_shr_request *req, dl_shr_response *resp, const dl_shr_target *t)
{
	if (!t->table->history_shared && !t->table->cdf_enabled) {
		dl_shr_error(resp, 400, "INVALID_PARAMETER_VALUE",
		             "the change data feed of table '%s' is not shared (historyShared/cdfEnabled)",
		             t->table->name);
		return;
	}
	dl_shr_caps caps;
	dl_shr_caps_parse(&caps, dl_shr_header(req, "delta-sharing-capabilities"));
	int64_t start = -1, end = -1;
	if (get_version_arg(&start, req, resp, "startingVersion") < 0) return;
	if (get_version_arg(&end, req, resp, "endingVersion") < 0) return;
	const char *sts = dl_shr_arg(req, "startingTimestamp");
	const char *ets = dl_shr_arg(req, "endingTimestamp");
	if ((start >= 0) + (sts != NULL) != 1) {
		dl_shr_error(resp, 400, "INVALID_PARAMETER_VALUE",
		             "give one of startingVersion and startingTimestamp");
		return;
	}
	if (end >= 0 && ets) {
		dl_shr_error(resp, 400, "INVALID_PARAMETER_VALUE", "give endingVersion or endingTimestamp, not both");
		return;
	}
	if ((sts && ts_bound(&start, req->srv, t->table, sts, true) < 0) ||
	    (ets && ts_bound(&end, req->srv, t->table, ets, false) < 0)) {
		dl_shr_error(resp, 400, "INVALID_PARAMETER_VALUE", "%s",
		             dl_shr_table_message(t->table, dl_error_last()->message));
		return;
	}
	if (end >= 0 && end < start) {
		dl_shr_error(resp, 400, "INVALID_PARAMETER_VALUE",
		             "the ending version %" PRId64 " is before the starting version %" PRId64, end, start);
		return;
	}
	int64_t max_files = -1;
	if (get_version_arg(&max_files, req, resp, "maxFiles") < 0) return;
	if (max_files == 0) {
		dl_shr_error(resp, 400, "INVALID_PARAMETER_VALUE", "maxFiles must be a positive integer");
		return;
	}
	dl_shr_write_changes(req, resp, t, &caps, start, end, false, false, NULL, 0, max_files,
	                     dl_shr_arg(req, "pageToken"));
}
