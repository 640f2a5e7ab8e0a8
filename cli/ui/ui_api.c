/* The JSON views of `deltalake ui` that the table commands also print:
 * /api/history, /api/files, /api/detail, /api/schema, /api/protocol (the
 * rows of `history`, `files`, `detail`, `schema`, `protocol`, rendered by
 * cli/output.c as JSON), plus /api/commit (the actions of one commit,
 * paged) and /api/diff (files added and removed between two versions). */
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include "table_cli.h"
#include "ui.h"

void ui_json_str(FILE *fp, const char *s)
{
	if (!s) {
		fputs("null", fp);
		return;
	}
	fputc('"', fp);
	for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
		if (*p == '"' || *p == '\\') fprintf(fp, "\\%c", *p);
		else if (*p == '\n') fputs("\\n", fp);
		else if (*p == '\r') fputs("\\r", fp);
		else if (*p == '\t') fputs("\\t", fp);
		else if (*p < 0x20) fprintf(fp, "\\u%04x", *p);
		else if (*p == '<') fputs("\\u003c", fp); /* never "</script>" in a body */
		else fputc(*p, fp);
	}
	fputc('"', fp);
}

void ui_reply_json(ui_reply *out, char *body, size_t len)
{
	out->status = 200;
	out->body = body;
	out->len = len;
	out->type = "application/json; charset=utf-8";
}

void ui_reply_error(ui_reply *out, int status, const char *fmt, ...)
{
	char msg[1024];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof msg, fmt, ap);
	va_end(ap);
	size_t len = 0;
	char *body = NULL;
	FILE *fp = open_memstream(&body, &len);
	if (fp) {
		fputs("{\"error\":", fp);
		ui_json_str(fp, msg);
		fputs("}", fp);
		fclose(fp);
	}
	ui_reply_json(out, body, body ? len : 0);
	out->status = status;
}

void ui_reply_dl_error(ui_reply *out, int rc)
{
	int status = rc == DL_EINVALID ? 400 : rc == DL_ENOTFOUND ? 404 : 500;
	ui_reply_error(out, status, "%s", dl_cli_error_message());
}

void ui_reply_cached(ui_reply *out, const char *json)
{
	char *copy = strdup(json);
	if (!copy) {
		ui_reply_error(out, 500, "out of memory");
		return;
	}
	ui_reply_json(out, copy, strlen(copy));
}

bool ui_arg_int(int64_t *out, const ui_request *req, const char *name, int64_t def, int64_t lo, int64_t hi,
                ui_reply *reply)
{
	const char *v = req->arg(req->ctx, name);
	*out = def;
	if (!v) return true;
	char *end;
	errno = 0;
	long long n = strtoll(v, &end, 10);
	if (errno || end == v || *end || n < lo || n > hi) {
		ui_reply_error(reply, 400, "'%s' must be an integer from %" PRId64 " to %" PRId64, name, lo, hi);
		return false;
	}
	*out = n;
	return true;
}

/* Renders rows through cli/output.c's JSON format into a reply. */
typedef struct json_rows {
	FILE *fp;
	char *body;
	size_t len;
	dl_out *o;
} json_rows;

static int rows_begin(json_rows *r, const dl_out_column *cols, int n)
{
	memset(r, 0, sizeof *r);
	r->fp = open_memstream(&r->body, &r->len);
	if (!r->fp) return DL_ENOMEM;
	return dl_out_begin(&r->o, r->fp, DL_OUT_JSON, cols, n);
}

static void rows_end(json_rows *r, int rc, ui_reply *out)
{
	if (rc == 0) rc = dl_out_end(r->o);
	else dl_out_free(r->o);
	if (r->fp) fclose(r->fp);
	if (rc < 0) {
		free(r->body);
		ui_reply_dl_error(out, rc);
		return;
	}
	ui_reply_json(out, r->body, r->len);
}

/* ---- history: the columns of `deltalake history` ---- */

int ui_history(const dl_history **out, ui_state *st)
{
	if (!st->history) DL_CLI_TRY(dl_history_open(&st->history, st->snap, -1));
	*out = st->history;
	return 0;
}

static int history_rows(json_rows *r, ui_state *st)
{
	const dl_history *h = NULL;
	DL_CLI_TRY(ui_history(&h, st));
	int rc = 0;
	for (size_t i = 0; rc == 0 && i < dl_history_count(h); i++) {
		const dl_history_entry *e = dl_history_at(h, i);
		char ver[32], ts[DL_TIME_TEXT_MAX], rv[32];
		snprintf(ver, sizeof ver, "%" PRId64, e->version);
		dl_cli_format_ms(ts, e->timestamp_ms);
		if (e->read_version != INT64_MIN) snprintf(rv, sizeof rv, "%" PRId64, e->read_version);
		const char *row[15] = {ver, ts, e->user_id, e->user_name, e->operation, e->operation_parameters,
		                       e->job, e->notebook, e->cluster_id,
		                       e->read_version != INT64_MIN ? rv : NULL, e->isolation_level,
		                       e->is_blind_append < 0 ? NULL : e->is_blind_append ? "true" : "false",
		                       e->operation_metrics, e->user_metadata, e->engine_info};
		rc = dl_out_row(r->o, row);
	}
	return rc;
}

static void api_history(ui_state *st, ui_reply *out)
{
	pthread_mutex_lock(&st->lock);
	if (!st->history_json) {
		static const dl_out_column cols[] = {
			{"version", DL_OUT_NUMBER}, {"timestamp", DL_OUT_STRING}, {"userId", DL_OUT_STRING},
			{"userName", DL_OUT_STRING}, {"operation", DL_OUT_STRING},
			{"operationParameters", DL_OUT_JSON_TEXT}, {"job", DL_OUT_JSON_TEXT},
			{"notebook", DL_OUT_JSON_TEXT}, {"clusterId", DL_OUT_STRING}, {"readVersion", DL_OUT_NUMBER},
			{"isolationLevel", DL_OUT_STRING}, {"isBlindAppend", DL_OUT_BOOL},
			{"operationMetrics", DL_OUT_JSON_TEXT}, {"userMetadata", DL_OUT_STRING},
			{"engineInfo", DL_OUT_STRING}};
		json_rows r;
		int rc = rows_begin(&r, cols, 15);
		if (rc == 0) rc = history_rows(&r, st);
		ui_reply tmp = {0};
		rows_end(&r, rc, &tmp);
		if (tmp.status != 200) {
			pthread_mutex_unlock(&st->lock);
			*out = tmp;
			return;
		}
		st->history_json = tmp.body;
	}
	pthread_mutex_unlock(&st->lock);
	ui_reply_cached(out, st->history_json);
}

/* ---- files: the columns of `deltalake files`, paged ---- */

static void partition_json(FILE *fp, const dl_scan *scan, const dl_scan_file *f, size_t i)
{
	fputc('{', fp);
	for (size_t j = 0; j < f->npartition_values; j++) {
		const char *k, *v;
		if (dl_scan_file_partition_value(&k, &v, scan, i, j) < 0) break;
		if (j) fputc(',', fp);
		ui_json_str(fp, k);
		fputc(':', fp);
		ui_json_str(fp, v);
	}
	fputc('}', fp);
}

static void file_object(FILE *fp, const dl_scan *scan, size_t i)
{
	dl_scan_file f;
	if (dl_scan_file_get(&f, scan, i) < 0) return;
	int64_t del = f.has_deletion_vector ? f.deletion_vector.cardinality : 0;
	char mtime[DL_TIME_TEXT_MAX];
	dl_cli_format_ms(mtime, f.modification_time);
	fputs("{\"path\":", fp);
	ui_json_str(fp, f.path);
	fprintf(fp, ",\"size\":%" PRId64 ",\"rows\":", f.size);
	if (f.num_records >= 0) fprintf(fp, "%" PRId64, f.num_records - del);
	else fputs("null", fp);
	fprintf(fp, ",\"deleted_rows\":%" PRId64 ",\"partition_values\":", del);
	partition_json(fp, scan, &f, i);
	fputs(",\"modification_time\":", fp);
	ui_json_str(fp, mtime);
	fputs(",\"stats\":", fp);
	fputs(f.stats && *f.stats ? "true" : "false", fp);
	fputc('}', fp);
}

static void api_files(ui_state *st, const ui_request *req, ui_reply *out)
{
	int64_t offset, limit;
	size_t n = dl_scan_file_count(st->scan);
	if (!ui_arg_int(&offset, req, "offset", 0, 0, INT64_MAX, out)) return;
	if (!ui_arg_int(&limit, req, "limit", 100, 1, 10000, out)) return;
	char *body = NULL;
	size_t len = 0;
	FILE *fp = open_memstream(&body, &len);
	if (!fp) {
		ui_reply_error(out, 500, "out of memory");
		return;
	}
	fprintf(fp, "{\"total\":%zu,\"offset\":%" PRId64 ",\"limit\":%" PRId64 ",\"files\":[", n, offset, limit);
	for (int64_t i = offset; i < offset + limit && (uint64_t)i < n; i++) {
		if (i > offset) fputc(',', fp);
		file_object(fp, st->scan, (size_t)i);
	}
	fputs("]}", fp);
	fclose(fp);
	ui_reply_json(out, body, len);
}

/* ---- detail, schema, protocol ---- */

static void api_detail(ui_state *st, ui_reply *out)
{
	dl_detail *d = NULL;
	const dl_table_detail *td = NULL;
	int rc = dl_detail_open(&d, &td, st->snap);
	if (rc < 0) {
		ui_reply_dl_error(out, rc);
		return;
	}
	static const dl_out_column cols[] = {
		{"format", DL_OUT_STRING}, {"id", DL_OUT_STRING}, {"name", DL_OUT_STRING},
		{"description", DL_OUT_STRING}, {"location", DL_OUT_STRING}, {"createdAt", DL_OUT_STRING},
		{"lastModified", DL_OUT_STRING}, {"partitionColumns", DL_OUT_JSON_TEXT},
		{"clusteringColumns", DL_OUT_JSON_TEXT}, {"numFiles", DL_OUT_NUMBER}, {"sizeInBytes", DL_OUT_NUMBER},
		{"properties", DL_OUT_JSON_TEXT}, {"minReaderVersion", DL_OUT_NUMBER},
		{"minWriterVersion", DL_OUT_NUMBER}, {"tableFeatures", DL_OUT_JSON_TEXT}, {"version", DL_OUT_NUMBER}};
	char created[DL_TIME_TEXT_MAX], modified[DL_TIME_TEXT_MAX], nf[32], size[32], rv[16], wv[16], ver[32];
	if (td->created_at_ms >= 0) dl_cli_format_ms(created, td->created_at_ms);
	dl_cli_format_ms(modified, td->last_modified_ms);
	snprintf(nf, sizeof nf, "%" PRId64, td->num_files);
	snprintf(size, sizeof size, "%" PRId64, td->size_in_bytes);
	snprintf(rv, sizeof rv, "%d", td->min_reader_version);
	snprintf(wv, sizeof wv, "%d", td->min_writer_version);
	snprintf(ver, sizeof ver, "%" PRId64, td->version);
	const char *row[16] = {td->format, td->id, td->name, td->description, td->location,
	                       td->created_at_ms >= 0 ? created : NULL, modified, td->partition_columns,
	                       td->clustering_columns, nf, size, td->properties, rv, wv, td->table_features, ver};
	json_rows r;
	rc = rows_begin(&r, cols, 16);
	if (rc == 0) rc = dl_out_row(r.o, row);
	rows_end(&r, rc, out);
	dl_detail_free(d);
}

static int schema_rows(json_rows *r, dl_snapshot *snap)
{
	const char *json = dl_snapshot_schema_json(snap);
	if (!json) return 0;
	dl_schema *schema;
	DL_CLI_TRY(dl_schema_parse_json(&schema, json));
	int rc = 0;
	for (size_t i = 0; rc == 0 && i < dl_schema_field_count(schema); i++) {
		dl_schema_field f;
		rc = dl_schema_field_at(&f, schema, i);
		if (rc < 0) break;
		bool part = false;
		for (size_t k = 0; f.depth == 0 && k < dl_snapshot_partition_column_count(snap); k++)
			if (strcmp(dl_snapshot_partition_column(snap, k), f.name) == 0) part = true;
		char depth[16], parent[32];
		snprintf(depth, sizeof depth, "%d", f.depth);
		if (f.parent != DL_SCHEMA_NO_PARENT) snprintf(parent, sizeof parent, "%zu", f.parent);
		const char *row[7] = {f.name, f.type_sql, f.nullable ? "true" : "false", part ? "true" : "false",
		                      f.metadata, depth, f.parent != DL_SCHEMA_NO_PARENT ? parent : NULL};
		rc = dl_out_row(r->o, row);
	}
	dl_schema_free(schema);
	return rc;
}

/* Every field, nested ones too (in order, with depth and parent index), so
 * the page can draw the tree; the metadata carries column mapping ids and
 * physical names, generation expressions, identity and defaults. */
static void api_schema(ui_state *st, ui_reply *out)
{
	static const dl_out_column cols[] = {{"column", DL_OUT_STRING}, {"type", DL_OUT_STRING},
	                                     {"nullable", DL_OUT_BOOL},  {"partition", DL_OUT_BOOL},
	                                     {"metadata", DL_OUT_JSON_TEXT}, {"depth", DL_OUT_NUMBER},
	                                     {"parent", DL_OUT_NUMBER}};
	json_rows r;
	int rc = rows_begin(&r, cols, 7);
	if (rc == 0) rc = schema_rows(&r, st->snap);
	rows_end(&r, rc, out);
}

static void feature_list(FILE *fp, size_t n, const char *(*at)(const dl_snapshot *, size_t), const dl_snapshot *s)
{
	fputc('[', fp);
	for (size_t i = 0; i < n; i++) {
		if (i) fputc(',', fp);
		ui_json_str(fp, at(s, i));
	}
	fputc(']', fp);
}

static void api_protocol(ui_state *st, ui_reply *out)
{
	char *body = NULL;
	size_t len = 0;
	FILE *fp = open_memstream(&body, &len);
	if (!fp) {
		ui_reply_error(out, 500, "out of memory");
		return;
	}
	const dl_snapshot *s = st->snap;
	fprintf(fp, "{\"minReaderVersion\":%d,\"minWriterVersion\":%d,\"readerFeatures\":",
	        dl_snapshot_min_reader_version(s), dl_snapshot_min_writer_version(s));
	feature_list(fp, dl_snapshot_reader_feature_count(s), dl_snapshot_reader_feature, s);
	fputs(",\"writerFeatures\":", fp);
	feature_list(fp, dl_snapshot_writer_feature_count(s), dl_snapshot_writer_feature, s);
	/* What the versions imply too (legacy protocols list no features). */
	static const char *const known[] = {
		"appendOnly", "invariants", "checkConstraints", "changeDataFeed", "generatedColumns",
		"columnMapping", "identityColumns", "deletionVectors", "rowTracking", "timestampNtz",
		"domainMetadata", "v2Checkpoint", "icebergCompatV1", "icebergCompatV2", "liquid", "clustering",
		"inCommitTimestamp", "typeWidening", "typeWidening-preview", "vacuumProtocolCheck", "variantType",
		"variantType-preview", "catalogManaged", "allowColumnDefaults", "collations"};
	fputs(",\"supported\":[", fp);
	bool first = true;
	for (size_t i = 0; i < sizeof known / sizeof *known; i++)
		if (dl_snapshot_has_feature(s, known[i])) {
			if (!first) fputc(',', fp);
			first = false;
			ui_json_str(fp, known[i]);
		}
	fputs("]}", fp);
	fclose(fp);
	ui_reply_json(out, body, len);
}

/* ---- the actions of one commit, as the log spells them ---- */

/* One action per line of _delta_log/<version>.json, each given as its JSON
 * text (the page parses them; a damaged line then shows as text instead of
 * breaking the answer). Paged: a commit can hold 100k adds. */
static void api_commit(ui_state *st, const ui_request *req, ui_reply *out)
{
	int64_t version, offset, limit;
	if (!ui_arg_int(&version, req, "version", -1, 0, dl_snapshot_version(st->snap), out)) return;
	if (version < 0) {
		ui_reply_error(out, 400, "give ?version=N");
		return;
	}
	if (!ui_arg_int(&offset, req, "offset", 0, 0, INT64_MAX, out)) return;
	if (!ui_arg_int(&limit, req, "limit", 200, 1, 10000, out)) return;
	dl_store *store = NULL;
	int rc = dl_store_open(&store, dl_snapshot_table_root(st->snap), dl_cli_store_options(st->cli));
	char path[64];
	snprintf(path, sizeof path, "_delta_log/%020" PRId64 ".json", version);
	uint8_t *data = NULL;
	size_t n = 0;
	if (rc == 0) rc = dl_store_get(&data, &n, store, path);
	dl_store_free(store);
	if (rc < 0) {
		ui_reply_dl_error(out, rc);
		return;
	}
	char *body = NULL;
	size_t len = 0;
	FILE *fp = open_memstream(&body, &len);
	if (!fp) {
		dl_free(data);
		ui_reply_error(out, 500, "out of memory");
		return;
	}
	fprintf(fp, "{\"version\":%" PRId64 ",\"offset\":%" PRId64 ",\"actions\":[", version, offset);
	int64_t line = 0, shown = 0;
	for (size_t i = 0; i < n;) {
		size_t e = i;
		while (e < n && data[e] != '\n') e++;
		size_t b = i, t = e;
		while (b < t && (data[b] == ' ' || data[b] == '\r' || data[b] == '\t')) b++;
		while (t > b && (data[t - 1] == ' ' || data[t - 1] == '\r' || data[t - 1] == '\t')) t--;
		if (t > b) {
			if (line >= offset && shown < limit) {
				char *text = strndup((const char *)data + b, t - b);
				if (shown) fputc(',', fp);
				ui_json_str(fp, text ? text : "");
				free(text);
				shown++;
			}
			line++;
		}
		i = e + 1;
	}
	fprintf(fp, "],\"total\":%" PRId64 "}", line);
	fclose(fp);
	dl_free(data);
	ui_reply_json(out, body, len);
}

/* ---- files added and removed between two versions ---- */

typedef struct file_key {
	char *key;  /* path + NUL-separated DV id: what identifies a live file */
	size_t idx; /* in its scan */
} file_key;

static int key_cmp(const void *a, const void *b)
{
	return strcmp(((const file_key *)a)->key, ((const file_key *)b)->key);
}

static int keys_of(file_key **out, size_t *n, dl_scan *scan)
{
	*n = dl_scan_file_count(scan);
	*out = calloc(*n ? *n : 1, sizeof **out);
	if (!*out) return DL_ENOMEM;
	for (size_t i = 0; i < *n; i++) {
		dl_scan_file f;
		DL_CLI_TRY(dl_scan_file_get(&f, scan, i));
		char *k = NULL;
		if (asprintf(&k, "%s\x01%c%s@%" PRId64, f.path, f.has_deletion_vector ? f.deletion_vector.storage_type : '-',
		             f.has_deletion_vector ? f.deletion_vector.path_or_inline_dv : "",
		             f.has_deletion_vector ? f.deletion_vector.offset : 0) < 0)
			return DL_ENOMEM;
		(*out)[i].key = k;
		(*out)[i].idx = i;
	}
	qsort(*out, *n, sizeof **out, key_cmp);
	return 0;
}

static void free_keys(file_key *k, size_t n)
{
	for (size_t i = 0; k && i < n; i++) free(k[i].key);
	free(k);
}

static int open_at(dl_snapshot **snap, dl_scan **scan, ui_state *st, int64_t version)
{
	dl_snapshot_options o = DL_SNAPSHOT_OPTIONS_INIT;
	o.as_of_version = version;
	o.skip_tombstones = true;
	o.store_options = dl_cli_store_options(st->cli);
	DL_CLI_TRY(dl_snapshot_open(snap, st->table, &o));
	dl_scan_options so = DL_SCAN_OPTIONS_INIT;
	return dl_scan_open(scan, *snap, &so);
}

/* Lists (at most `cap` of) one side of the diff; counts all of it. */
static void diff_side(FILE *fp, const char *name, file_key *side, size_t n, dl_scan *scan, const bool *in, size_t cap)
{
	int64_t count = 0, bytes = 0;
	fprintf(fp, "\"%s\":[", name);
	for (size_t i = 0; i < n; i++) {
		if (!in[i]) continue;
		dl_scan_file f;
		if (dl_scan_file_get(&f, scan, side[i].idx) < 0) continue;
		if ((size_t)count < cap) {
			if (count) fputc(',', fp);
			file_object(fp, scan, side[i].idx);
		}
		count++;
		bytes += f.size;
	}
	fprintf(fp, "],\"%sCount\":%" PRId64 ",\"%sBytes\":%" PRId64, name, count, name, bytes);
}

static void api_diff(ui_state *st, const ui_request *req, ui_reply *out)
{
	int64_t latest = dl_snapshot_version(st->snap), from, to, cap;
	if (!ui_arg_int(&from, req, "from", -1, 0, latest, out)) return;
	if (!ui_arg_int(&to, req, "to", latest, 0, latest, out)) return;
	if (!ui_arg_int(&cap, req, "limit", 1000, 0, 100000, out)) return;
	if (from < 0) {
		ui_reply_error(out, 400, "give ?from=A&to=B (versions 0 to %" PRId64 ")", latest);
		return;
	}
	char key[80];
	snprintf(key, sizeof key, "%" PRId64 ":%" PRId64 ":%" PRId64, from, to, cap);
	pthread_mutex_lock(&st->lock);
	if (st->diff_key && strcmp(st->diff_key, key) == 0) {
		ui_reply_cached(out, st->diff_json);
		pthread_mutex_unlock(&st->lock);
		return;
	}
	pthread_mutex_unlock(&st->lock);
	dl_snapshot *sa = NULL, *sb = NULL;
	dl_scan *ca = NULL, *cb = NULL;
	file_key *ka = NULL, *kb = NULL;
	size_t na = 0, nb = 0;
	bool *ina = NULL, *inb = NULL;
	int rc = open_at(&sa, &ca, st, from);
	if (rc == 0) rc = open_at(&sb, &cb, st, to);
	if (rc == 0) rc = keys_of(&ka, &na, ca);
	if (rc == 0) rc = keys_of(&kb, &nb, cb);
	if (rc == 0) {
		ina = calloc(na + 1, 1);
		inb = calloc(nb + 1, 1);
		if (!ina || !inb) rc = DL_ENOMEM;
	}
	char *body = NULL;
	size_t len = 0;
	if (rc == 0) {
		/* Merge the sorted keys: only in A is removed, only in B added. */
		size_t i = 0, j = 0;
		while (i < na || j < nb) {
			int c = i >= na ? 1 : j >= nb ? -1 : strcmp(ka[i].key, kb[j].key);
			if (c < 0) ina[i++] = true;
			else if (c > 0) inb[j++] = true;
			else i++, j++;
		}
		FILE *fp = open_memstream(&body, &len);
		if (!fp) rc = DL_ENOMEM;
		else {
			fprintf(fp, "{\"from\":%" PRId64 ",\"to\":%" PRId64 ",", from, to);
			diff_side(fp, "added", kb, nb, cb, inb, (size_t)cap);
			fputc(',', fp);
			diff_side(fp, "removed", ka, na, ca, ina, (size_t)cap);
			fputc('}', fp);
			fclose(fp);
		}
	}
	free(ina);
	free(inb);
	free_keys(ka, na);
	free_keys(kb, nb);
	dl_scan_free(ca);
	dl_scan_free(cb);
	dl_snapshot_free(sa);
	dl_snapshot_free(sb);
	if (rc < 0) {
		ui_reply_dl_error(out, rc);
		return;
	}
	pthread_mutex_lock(&st->lock);
	char *k = strdup(key), *j = strdup(body);
	if (k && j) {
		free(st->diff_key);
		free(st->diff_json);
		st->diff_key = k;
		st->diff_json = j;
	} else {
		free(k);
		free(j);
	}
	pthread_mutex_unlock(&st->lock);
	ui_reply_json(out, body, len);
}

void ui_api_handle(ui_state *st, const ui_request *req, ui_reply *out)
{
	const char *p = req->path + strlen("/api/");
	if (strcmp(p, "history") == 0) api_history(st, out);
	else if (strcmp(p, "files") == 0) api_files(st, req, out);
	else if (strcmp(p, "detail") == 0) api_detail(st, out);
	else if (strcmp(p, "schema") == 0) api_schema(st, out);
	else if (strcmp(p, "protocol") == 0) api_protocol(st, out);
	else if (strcmp(p, "commit") == 0) api_commit(st, req, out);
	else if (strcmp(p, "diff") == 0) api_diff(st, req, out);
	else if (strcmp(p, "layout") == 0) ui_health_layout(st, req, out);
	else if (strcmp(p, "stats") == 0) ui_health_stats(st, req, out);
	else if (strcmp(p, "query") == 0) ui_health_query(st, req, out);
	else ui_reply_error(out, 404, "no endpoint %s (see docs/UI.md)", req->path);
}
