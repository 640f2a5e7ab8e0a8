/* The health views of `deltalake ui`, computed from the snapshot once and
 * cached: /api/layout (file-size histogram with the small-file threshold,
 * files, bytes and rows per partition, rows hidden by deletion vectors),
 * /api/stats (statistics coverage per column and the overlap depth of the
 * clustering or Z-order columns, through deltalake/stats_summary.h), and
 * /api/query (one SELECT through the SQL API, with a row limit). */
#include <ctype.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include "table_cli.h"
#include "ui.h"

/* ---- layout ---- */

/* Spark OPTIMIZE's minFileSize: the table's delta.targetFileSize when set
 * (bytes, or with a b/k/m/g suffix as Spark's byte strings), else 1 GiB
 * (spark.databricks.delta.optimize.minFileSize = maxFileSize). */
static int64_t small_file_threshold(const dl_snapshot *s)
{
	const char *v = dl_snapshot_property(s, "delta.targetFileSize");
	if (v) {
		char *end;
		double n = strtod(v, &end);
		while (*end == ' ') end++;
		int64_t mul = 1;
		switch (tolower((unsigned char)*end)) {
		case 'k': mul = 1024; break;
		case 'm': mul = 1024 * 1024; break;
		case 'g': mul = 1024 * 1024 * 1024; break;
		default: break;
		}
		if (end != v && n > 0) return (int64_t)(n * (double)mul);
	}
	return INT64_C(1) << 30;
}

static int log2_bin(int64_t size)
{
	int k = 0;
	while (k < 62 && (INT64_C(1) << (k + 1)) <= size) k++;
	return k;
}

typedef struct part_row {
	const char *key; /* the partition values as a JSON object */
	int64_t files, bytes, rows, deleted, dv_files, small;
} part_row;

/* What the layout needs of one file, read once (dl_scan_file_get parses
 * the stats for numRecords). */
typedef struct file_row {
	char *key; /* partition values as JSON, NULL when unpartitioned */
	int64_t size, rows, deleted;
	bool dv;
} file_row;

static int file_key_cmp(const void *a, const void *b)
{
	return strcmp(((const file_row *)a)->key, ((const file_row *)b)->key);
}

static int part_bytes_desc(const void *a, const void *b)
{
	const part_row *x = a, *y = b;
	return (y->bytes > x->bytes) - (y->bytes < x->bytes);
}

/* Appends s as a JSON string literal to buf (grown as needed). */
static int put_json_str(char **buf, size_t *len, size_t *cap, const char *s)
{
	size_t need = *len + (s ? 6 * strlen(s) : 4) + 8; /* and room for separators after it */
	if (need > *cap) {
		size_t c = need * 2;
		char *g = realloc(*buf, c);
		if (!g) return DL_ENOMEM;
		*buf = g;
		*cap = c;
	}
	char *w = *buf + *len;
	if (!s) {
		memcpy(w, "null", 4);
		*len += 4;
		return 0;
	}
	*w++ = '"';
	for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
		if (*p == '"' || *p == '\\') *w++ = '\\', *w++ = (char)*p;
		else if (*p < 0x20 || *p == '<') w += sprintf(w, "\\u%04x", *p);
		else *w++ = (char)*p;
	}
	*w++ = '"';
	*len = (size_t)(w - *buf);
	return 0;
}

static char *partition_key(const dl_scan *scan, size_t i, size_t npart, char **buf, size_t *cap)
{
	size_t len = 0;
	if (put_json_str(buf, &len, cap, NULL) < 0) return NULL; /* makes room for '{' */
	len = 0;
	(*buf)[len++] = '{';
	for (size_t j = 0; j < npart; j++) {
		const char *k, *v;
		if (dl_scan_file_partition_value(&k, &v, scan, i, j) < 0) return NULL;
		if (j) (*buf)[len++] = ',';
		if (put_json_str(buf, &len, cap, k) < 0) return NULL;
		(*buf)[len++] = ':';
		if (put_json_str(buf, &len, cap, v) < 0) return NULL;
	}
	(*buf)[len++] = '}';
	return strndup(*buf, len);
}

/* Partitions shown at most (the largest by bytes); the count says how many there are. */
#define UI_MAX_PARTITIONS 500

static int build_layout(char **out, ui_state *st)
{
	const dl_scan *scan = st->scan;
	size_t n = dl_scan_file_count(scan), npart = dl_snapshot_partition_column_count(st->snap);
	int64_t threshold = small_file_threshold(st->snap);
	int64_t bins[64] = {0}, bin_bytes[64] = {0}, zero = 0;
	int kmin = 63, kmax = -1;
	int64_t bytes = 0, rows = 0, deleted = 0, dv_files = 0, small = 0, small_bytes = 0, rows_unknown = 0;
	file_row *files = calloc(n ? n : 1, sizeof *files);
	if (!files) return DL_ENOMEM;
	char *kbuf = NULL;
	size_t kcap = 0;
	int rc = 0;
	for (size_t i = 0; rc == 0 && i < n; i++) {
		dl_scan_file f;
		rc = dl_scan_file_get(&f, scan, i);
		if (rc < 0) break;
		file_row *r = &files[i];
		r->size = f.size;
		r->deleted = f.has_deletion_vector ? f.deletion_vector.cardinality : 0;
		r->rows = f.num_records >= 0 ? f.num_records - r->deleted : -1;
		r->dv = f.has_deletion_vector;
		bytes += f.size;
		deleted += r->deleted;
		if (r->dv) dv_files++;
		if (r->rows >= 0) rows += r->rows;
		else rows_unknown++;
		if (f.size < threshold) small++, small_bytes += f.size;
		if (f.size <= 0) zero++;
		else {
			int k = log2_bin(f.size);
			bins[k]++;
			bin_bytes[k] += f.size;
			if (k < kmin) kmin = k;
			if (k > kmax) kmax = k;
		}
		if (npart > 0 && !(r->key = partition_key(scan, i, npart, &kbuf, &kcap))) rc = DL_ENOMEM;
	}
	free(kbuf);
	char *body = NULL;
	size_t len = 0;
	FILE *fp = rc == 0 ? open_memstream(&body, &len) : NULL;
	if (rc == 0 && !fp) rc = DL_ENOMEM;
	if (rc == 0) {
		fprintf(fp,
		        "{\"version\":%" PRId64 ",\"files\":%zu,\"bytes\":%" PRId64 ",\"rows\":%" PRId64
		        ",\"filesWithoutRowCount\":%" PRId64 ",\"deletedRows\":%" PRId64 ",\"filesWithDeletionVectors\":%" PRId64
		        ",\"smallFileThreshold\":%" PRId64 ",\"smallFiles\":%" PRId64 ",\"smallFileBytes\":%" PRId64
		        ",\"histogram\":[",
		        dl_snapshot_version(st->snap), n, bytes, rows, rows_unknown, deleted, dv_files, threshold, small,
		        small_bytes);
		bool first = true;
		if (zero) {
			fprintf(fp, "{\"lo\":0,\"hi\":1,\"files\":%" PRId64 ",\"bytes\":0}", zero);
			first = false;
		}
		for (int k = kmin; k <= kmax; k++) {
			fprintf(fp, "%s{\"lo\":%" PRId64 ",\"hi\":%" PRId64 ",\"files\":%" PRId64 ",\"bytes\":%" PRId64 "}",
			        first ? "" : ",", INT64_C(1) << k, k < 62 ? INT64_C(1) << (k + 1) : INT64_MAX, bins[k],
			        bin_bytes[k]);
			first = false;
		}
		fputs("],\"partitionColumns\":[", fp);
		for (size_t k = 0; k < npart; k++) {
			if (k) fputc(',', fp);
			ui_json_str(fp, dl_snapshot_partition_column(st->snap, k));
		}
		fputs("]", fp);
	}
	part_row *parts = NULL;
	size_t np = 0;
	if (rc == 0 && npart > 0 && n > 0) {
		/* Sorting by the values' text groups each partition's files. */
		qsort(files, n, sizeof *files, file_key_cmp);
		parts = calloc(n, sizeof *parts);
		if (!parts) rc = DL_ENOMEM;
		for (size_t i = 0; rc == 0 && i < n; i++) {
			const file_row *r = &files[i];
			if (np == 0 || strcmp(parts[np - 1].key, r->key) != 0) parts[np++].key = r->key;
			part_row *p = &parts[np - 1];
			p->files++;
			p->bytes += r->size;
			if (r->rows >= 0) p->rows += r->rows;
			p->deleted += r->deleted;
			if (r->dv) p->dv_files++;
			if (r->size < threshold) p->small++;
		}
		if (rc == 0) qsort(parts, np, sizeof *parts, part_bytes_desc);
	}
	if (rc == 0) {
		fprintf(fp, ",\"partitionCount\":%zu,\"partitions\":[", np);
		for (size_t i = 0; i < np && i < UI_MAX_PARTITIONS; i++)
			fprintf(fp,
			        "%s{\"values\":%s,\"files\":%" PRId64 ",\"bytes\":%" PRId64 ",\"rows\":%" PRId64
			        ",\"deletedRows\":%" PRId64 ",\"filesWithDeletionVectors\":%" PRId64 ",\"smallFiles\":%" PRId64 "}",
			        i ? "," : "", parts[i].key, parts[i].files, parts[i].bytes, parts[i].rows, parts[i].deleted,
			        parts[i].dv_files, parts[i].small);
		fputs("]}", fp);
	}
	if (fp) fclose(fp);
	free(parts);
	for (size_t i = 0; i < n; i++) free(files[i].key);
	free(files);
	if (rc < 0) {
		free(body);
		return rc;
	}
	*out = body;
	return 0;
}

void ui_health_layout(ui_state *st, const ui_request *req, ui_reply *out)
{
	(void)req;
	pthread_mutex_lock(&st->layout_lock);
	int rc = st->layout_json ? 0 : build_layout(&st->layout_json, st);
	if (rc == 0) ui_reply_cached(out, st->layout_json);
	pthread_mutex_unlock(&st->layout_lock);
	if (rc < 0) ui_reply_dl_error(out, rc);
}

void *ui_warm_history(void *arg)
{
	ui_request none = {"/api/history", NULL, NULL};
	ui_reply r = {0};
	ui_api_handle(arg, &none, &r);
	free(r.body);
	return NULL;
}

void *ui_warm_layout(void *arg)
{
	ui_request none = {"/api/layout", NULL, NULL};
	ui_reply r = {0};
	ui_health_layout(arg, &none, &r);
	free(r.body);
	return NULL;
}

/* ---- stats coverage and clustering quality ---- */

/* Parses a JSON string literal at *p (minimal: the library wrote it) into
 * a malloc'd text; NULL when *p is not one. */
static char *json_string_at(const char **p)
{
	const char *s = *p;
	while (isspace((unsigned char)*s)) s++;
	if (*s != '"') return NULL;
	s++;
	char *o = malloc(strlen(s) + 1), *w = o;
	if (!o) return NULL;
	while (*s && *s != '"') {
		if (*s == '\\' && s[1]) {
			s++;
			*w++ = *s == 'n' ? '\n' : *s == 't' ? '\t' : *s;
			s++;
		} else *w++ = *s++;
	}
	*w = 0;
	if (*s == '"') s++;
	*p = s;
	return o;
}

/* The strings of a JSON array text such as ["a","b.c"]. */
static int string_array(char ***out, int *n, const char *json)
{
	*out = NULL;
	*n = 0;
	const char *p = json;
	while (p && isspace((unsigned char)*p)) p++;
	if (!p || *p != '[') return 0;
	p++;
	for (;;) {
		char *s = json_string_at(&p);
		if (!s) break;
		char **g = realloc(*out, sizeof **out * (size_t)(*n + 1));
		if (!g) {
			free(s);
			return DL_ENOMEM;
		}
		*out = g;
		(*out)[(*n)++] = s;
		while (isspace((unsigned char)*p)) p++;
		if (*p != ',') break;
		p++;
	}
	return 0;
}

static void free_strings(char **v, int n)
{
	for (int i = 0; i < n; i++) free(v[i]);
	free(v);
}

/* The clustering columns (liquid clustering, from DESCRIBE DETAIL), else
 * the zOrderBy of the newest OPTIMIZE in the history. */
static int clustering_columns(char ***cols, int *n, const char **source, ui_state *st)
{
	*source = "none";
	dl_detail *d = NULL;
	const dl_table_detail *td = NULL;
	DL_CLI_TRY(dl_detail_open(&d, &td, st->snap));
	int rc = string_array(cols, n, td->clustering_columns);
	dl_detail_free(d);
	if (rc < 0 || *n > 0) {
		if (*n > 0) *source = "clustering";
		return rc;
	}
	const dl_history *h = NULL;
	DL_CLI_TRY(ui_history(&h, st));
	for (size_t i = 0; rc == 0 && i < dl_history_count(h); i++) {
		const dl_history_entry *e = dl_history_at(h, i);
		if (!e->operation || strcmp(e->operation, "OPTIMIZE") != 0 || !e->operation_parameters) continue;
		const char *z = strstr(e->operation_parameters, "\"zOrderBy\":");
		if (!z) continue;
		z += strlen("\"zOrderBy\":");
		char *text = json_string_at(&z); /* Spark records the list as JSON text */
		if (text) rc = string_array(cols, n, text);
		free(text);
		if (*n > 0) {
			*source = "zorder";
			break;
		}
	}
	return rc;
}

static void overlap_json(FILE *fp, const char *column, const dl_overlap_depth *d)
{
	fputs("{\"column\":", fp);
	ui_json_str(fp, column);
	fprintf(fp, ",\"files\":%" PRId64 ",\"pieces\":%" PRId64 ",\"averageDepth\":%.4f,\"maxDepth\":%" PRId64
	        ",\"histogram\":[", d->files, d->pieces, d->average_depth, d->max_depth);
	for (int i = 0; i < 17; i++) fprintf(fp, "%s%" PRId64, i ? "," : "", d->histogram[i]);
	fputs("]}", fp);
}

static int build_stats(char **out, ui_state *st)
{
	if (!st->stats) DL_CLI_TRY(dl_stats_summary_open(&st->stats, st->snap));
	const dl_stats_summary *s = st->stats;
	char **cols = NULL;
	int ncols = 0;
	const char *source;
	int rc = clustering_columns(&cols, &ncols, &source, st);
	char *body = NULL;
	size_t len = 0;
	FILE *fp = rc == 0 ? open_memstream(&body, &len) : NULL;
	if (rc == 0 && !fp) rc = DL_ENOMEM;
	if (rc == 0) {
		fprintf(fp, "{\"files\":%" PRId64 ",\"filesWithStats\":%" PRId64 ",\"columns\":[",
		        dl_stats_summary_file_count(s), dl_stats_summary_files_with_stats(s));
		for (size_t i = 0; i < dl_stats_summary_column_count(s); i++) {
			dl_stats_column c;
			if (dl_stats_summary_column_at(&c, s, i) < 0) break;
			fprintf(fp, "%s{\"column\":", i ? "," : "");
			ui_json_str(fp, c.column);
			fputs(",\"physical\":", fp);
			ui_json_str(fp, c.physical);
			fputs(",\"type\":", fp);
			ui_json_str(fp, c.type);
			fprintf(fp, ",\"filesWithMin\":%" PRId64 ",\"filesWithMax\":%" PRId64 ",\"filesWithNullCount\":%" PRId64 "}",
			        c.files_with_min, c.files_with_max, c.files_with_null_count);
		}
		fprintf(fp, "],\"clustering\":{\"source\":\"%s\",\"columns\":[", source);
		for (int i = 0; i < ncols; i++) {
			if (i) fputc(',', fp);
			size_t idx;
			dl_overlap_depth d = {0};
			if (dl_stats_summary_find(&idx, s, cols[i]) == 0) rc = dl_stats_summary_overlap(&d, s, idx);
			else dl_cli_error_clear();
			if (rc < 0) break;
			overlap_json(fp, cols[i], &d);
		}
		fputs("]}}", fp);
		fclose(fp);
	}
	free_strings(cols, ncols);
	if (rc < 0) {
		free(body);
		return rc;
	}
	*out = body;
	return 0;
}

void ui_health_stats(ui_state *st, const ui_request *req, ui_reply *out)
{
	const char *column = req->arg(req->ctx, "column");
	pthread_mutex_lock(&st->lock);
	int rc = 0;
	if (column) {
		/* The overlap of any column the page asks about. */
		if (!st->stats) rc = dl_stats_summary_open(&st->stats, st->snap);
		size_t idx;
		dl_overlap_depth d;
		if (rc == 0) rc = dl_stats_summary_find(&idx, st->stats, column);
		if (rc == 0) rc = dl_stats_summary_overlap(&d, st->stats, idx);
		pthread_mutex_unlock(&st->lock);
		if (rc < 0) {
			ui_reply_dl_error(out, rc);
			return;
		}
		char *body = NULL;
		size_t len = 0;
		FILE *fp = open_memstream(&body, &len);
		if (!fp) {
			ui_reply_error(out, 500, "out of memory");
			return;
		}
		overlap_json(fp, column, &d);
		fclose(fp);
		ui_reply_json(out, body, len);
		return;
	}
	rc = st->stats_json ? 0 : build_stats(&st->stats_json, st);
	if (rc == 0) ui_reply_cached(out, st->stats_json);
	pthread_mutex_unlock(&st->lock);
	if (rc < 0) ui_reply_dl_error(out, rc);
}

/* ---- the query box ---- */

void ui_health_query(ui_state *st, const ui_request *req, ui_reply *out)
{
	const char *sql = req->arg(req->ctx, "sql");
	int64_t limit;
	if (!sql || !*sql) {
		ui_reply_error(out, 400, "give ?sql=SELECT ...");
		return;
	}
	if (!ui_arg_int(&limit, req, "limit", st->max_rows < 100 ? st->max_rows : 100, 1, st->max_rows, out)) return;
	dl_sql_options o = DL_SQL_OPTIONS_INIT;
	o.store_options = dl_cli_store_options(st->cli);
	/* Only the table being shown: no other path, file or catalog table. */
	const char *tables[] = {st->table};
	o.allowed_tables = tables;
	o.nallowed_tables = 1;
	dl_sql_conn *c = NULL;
	dl_sql_stmt *stmt = NULL;
	const char *tail = NULL;
	int rc = dl_sql_open(&c, &o);
	if (rc == 0) rc = dl_sql_prepare(&stmt, &tail, c, sql);
	if (rc < 0) {
		ui_reply_error(out, rc == DL_EPERM ? 403 : 400, "%s", dl_cli_error_message());
		dl_sql_close(c);
		return;
	}
	while (tail && (isspace((unsigned char)*tail) || *tail == ';')) tail++;
	const char *kind = stmt ? dl_sql_stmt_kind(stmt) : NULL;
	if (!kind || strcmp(kind, "SELECT") != 0 || (tail && *tail)) {
		ui_reply_error(out, 403, "the query box runs one SELECT only (this is %s%s)", kind ? kind : "empty",
		               tail && *tail ? " followed by more statements" : "");
		dl_sql_stmt_free(stmt);
		dl_sql_close(c);
		return;
	}
	struct ArrowArrayStream rs = {0};
	rc = dl_sql_stmt_execute(&rs, stmt);
	char *rows = NULL, *body = NULL;
	size_t rlen = 0, len = 0;
	if (rc == 0) {
		FILE *fp = open_memstream(&rows, &rlen);
		rc = fp ? dl_out_arrow_stream(fp, DL_OUT_JSON, &rs, limit) : DL_ENOMEM;
		if (fp) fclose(fp);
		if (rs.release) rs.release(&rs);
	}
	if (rc == 0) {
		FILE *fp = open_memstream(&body, &len);
		if (fp) {
			fprintf(fp, "{\"limit\":%" PRId64 ",\"rows\":%s}", limit, rows && *rows ? rows : "[]");
			fclose(fp);
		} else rc = DL_ENOMEM;
	}
	free(rows);
	if (rc < 0) {
		free(body);
		ui_reply_error(out, rc == DL_EPERM ? 403 : 400, "%s", dl_cli_error_message());
	} else ui_reply_json(out, body, len);
	dl_sql_stmt_free(stmt);
	dl_sql_close(c);
}
