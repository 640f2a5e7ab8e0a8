/* Checks derived from a table's own log, for tables without expected rows
 * and for the feature each kernel-data table exists for. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include "conformance.h"
#include "deltalake.h"
#include "log/log_segment.h"
#include "log/path.h"
#include "log/properties.h"
#include "log/replay.h"
#include "storage/store_mem.h"
#include "util/mem.h"
#include "util/time.h"
#include "log/snapshot.h"
#include "parquet/reader.h"
#include "columnar/format_value.h"
#include "expr/expr.h"
#include "log/stats.h"
#include "deltalake/changes.h"
#include "table/scan.h"
#include "util/error.h"

/* Rows the log says the table holds: sum of numRecords minus deletion
 * vector cardinalities; -1 when a file has no numRecords. */
static int64_t log_row_count(dl_snapshot *snap)
{
	int64_t total = 0;
	dl_arena a = DL_ARENA_INIT;
	const dl_log_state *ls = dl_snapshot_state(snap);
	for (size_t i = 0; i < ls->nadds; i++) {
		const dl_add *add = dl_log_state_add(ls, i);
		dl_file_stats st;
		if (!add->stats || dl_file_stats_parse(&st, &a, add->stats, add->stats_len) < 0 || st.num_records < 0) {
			total = -1;
			break;
		}
		total += st.num_records;
		if (add->dv) {
			/* rows the DV deletes that exist in the file (a DV may name
			 * row indexes past the end, which delete nothing) */
			dl_dv_rows rows;
			uint64_t *idx = NULL;
			size_t n = 0;
			if (dl_dv_load(&rows, dl_snapshot_store(snap), add->dv) < 0) {
				total = -1;
				break;
			}
			dl_dv_rows_to_array(&rows, &idx, &n);
			for (size_t k = 0; k < n; k++) total -= idx[k] < (uint64_t)st.num_records;
			dl_free(idx);
			dl_dv_rows_free(&rows);
		}
		dl_arena_reset(&a);
	}
	dl_arena_free(&a);
	dl_error_clear();
	return total;
}

/* Reads the scan to the end; the row count. */
static int scan_count(dl_snapshot *snap, const dl_scan_options *o, int64_t *rows, dl_scan **keep)
{
	dl_scan *scan;
	DL_TRY(dl_scan_open(&scan, snap, o));
	dl_batch_stream *bs;
	int rc = dl_scan_batches(&bs, scan);
	*rows = 0;
	dl_batch *b;
	while (rc == 0 && (rc = dl_batch_stream_next(bs, &b)) == 0 && b) {
		*rows += b->num_rows;
		/* every column has its declared (logical, widened) type */
		if (dl_batch_validate(b) < 0) rc = dl_error_prefix("a scan batch does not match its schema");
		dl_batch_free(b);
	}
	dl_batch_stream_free(bs);
	if (keep && rc == 0) *keep = scan;
	else dl_scan_free(scan);
	return rc;
}

static void check_counts(verdict *v, dl_snapshot *snap)
{
	int64_t rows;
	if (scan_count(snap, NULL, &rows, NULL) < 0) {
		fail_error(v, "reading the table");
		return;
	}
	int64_t want = log_row_count(snap);
	if (want >= 0 && rows != want)
		fail(v, "read %" PRId64 " rows; the log's numRecords minus deleted rows say %" PRId64, rows, want);
	/* without stats, a one-commit table's commitInfo says how many rows
	 * were written */
	const char *ci = dl_snapshot_commit_info(snap);
	const char *m = ci ? strstr(ci, "\"numOutputRows\":\"") : NULL;
	if (want < 0 && dl_snapshot_version(snap) == 0 && m) {
		int64_t out = strtoll(m + 17, NULL, 10);
		if (rows != out)
			fail(v, "read %" PRId64 " rows; commitInfo.operationMetrics.numOutputRows says %" PRId64, rows, out);
	}
}

/* Some log tests ship no data: their files are missing or 1-byte
 * placeholders. Those tables are checked through their logs only. */
static bool log_only(dl_snapshot *snap)
{
	dl_store *st = dl_snapshot_store(snap);
	dl_object_list all = {0};
	bool any_data = false;
	if (dl_store_list_recursive(&all, st, "") == 0)
		for (size_t i = 0; i < all.count && !any_data; i++)
			any_data = strncmp(all.items[i].path, "_delta_log/", 11) != 0;
	dl_object_list_free(&all);
	dl_error_clear();
	if (!any_data) return true;
	size_t n = dl_snapshot_file_count(snap);
	for (size_t i = 0; i < n; i++) {
		dl_file_info fi;
		dl_object_info oi;
		if (dl_snapshot_file_at(&fi, snap, i) < 0) return true;
		if (fi.path[0] == '/') continue;
		if (dl_store_stat(&oi, st, fi.path) < 0) {
			/* a table that ships data must have every live file: read it
			 * and let the missing file fail the check */
			dl_error_clear();
			continue;
		}
		bool tiny = oi.size < 12;
		dl_object_info_free(&oi);
		if (tiny) return true;
	}
	return false;
}

static void check_plan(verdict *v, dl_snapshot *snap)
{
	if (!dl_snapshot_schema_json(snap)) return; /* nothing to scan */
	dl_scan *scan;
	if (dl_scan_open(&scan, snap, NULL) < 0) {
		fail_error(v, "planning a scan");
		return;
	}
	if (dl_scan_file_count(scan) != dl_snapshot_file_count(snap))
		fail(v, "a scan without filter plans %zu files of %zu", dl_scan_file_count(scan),
		     dl_snapshot_file_count(snap));
	dl_scan_free(scan);
}

/* ---- change data feed: the feed's net effect is the table's change ---- */

typedef struct signed_rows {
	char **rows;
	int *sign;
	size_t n, cap;
} signed_rows;

static int add_signed(signed_rows *sr, rowset *r, int sign)
{
	for (size_t i = 0; i < r->n; i++) {
		if (sr->n == sr->cap) {
			sr->cap = sr->cap ? sr->cap * 2 : 64;
			sr->rows = realloc(sr->rows, sr->cap * sizeof *sr->rows);
			sr->sign = realloc(sr->sign, sr->cap * sizeof *sr->sign);
			if (!sr->rows || !sr->sign) return DL_ENOMEM;
		}
		sr->rows[sr->n] = r->rows[i];
		sr->sign[sr->n++] = sign;
		r->rows[i] = NULL;
	}
	r->n = 0;
	return 0;
}

static signed_rows *sort_ctx;
static int cmp_idx(const void *a, const void *b)
{
	return strcmp(sort_ctx->rows[*(const size_t *)a], sort_ctx->rows[*(const size_t *)b]);
}

/* Whether the signed multiset sums to zero; the first nonzero row in why. */
static bool balanced(signed_rows *sr, char *why, size_t cap)
{
	size_t *idx = malloc((sr->n ? sr->n : 1) * sizeof *idx);
	for (size_t i = 0; i < sr->n; i++) idx[i] = i;
	sort_ctx = sr;
	qsort(idx, sr->n, sizeof *idx, cmp_idx);
	bool ok = true;
	for (size_t i = 0; i < sr->n && ok;) {
		size_t j = i;
		int sum = 0;
		while (j < sr->n && strcmp(sr->rows[idx[i]], sr->rows[idx[j]]) == 0) sum += sr->sign[idx[j++]];
		if (sum) {
			snprintf(why, cap, "row %.300s: %+d after applying the feed", sr->rows[idx[i]], sum);
			ok = false;
		}
		i = j;
	}
	free(idx);
	return ok;
}

static int snapshot_rows(const char *dir, int64_t version, rowset *r)
{
	dl_snapshot_options o = DL_SNAPSHOT_OPTIONS_INIT;
	o.as_of_version = version;
	dl_snapshot *snap;
	DL_TRY(dl_snapshot_open(&snap, dir, &o));
	dl_scan *scan = NULL;
	dl_batch_stream *bs = NULL;
	int rc = dl_scan_open(&scan, snap, NULL);
	if (rc == 0) rc = dl_scan_batches(&bs, scan);
	dl_batch *b;
	while (rc == 0 && (rc = dl_batch_stream_next(bs, &b)) == 0 && b) {
		rc = rowset_add_batch(r, b, NULL);
		dl_batch_free(b);
	}
	dl_batch_stream_free(bs);
	dl_scan_free(scan);
	dl_snapshot_free(snap);
	return rc;
}

static const char *feed_sign_column = "_change_type";

static int feed_rows(const char *dir, int64_t start, int64_t end, rowset *plus, rowset *minus)
{
	dl_changes_options o = DL_CHANGES_OPTIONS_INIT;
	o.start_version = start;
	o.end_version = end;
	dl_batch_stream *bs;
	DL_TRY(dl_changes_batches(&bs, dir, &o));
	int rc = 0;
	dl_batch *b;
	while (rc == 0 && (rc = dl_batch_stream_next(bs, &b)) == 0 && b) {
		int ct = dl_type_field_index(b->schema, feed_sign_column);
		dl_selection ins = {0}, del = {0};
		rc = dl_selection_reserve(&ins, b->num_rows);
		if (rc == 0) rc = dl_selection_reserve(&del, b->num_rows);
		const dl_array *a = b->cols[ct];
		for (int64_t i = 0; rc == 0 && i < b->num_rows; i++) {
			const char *s = (const char *)a->data + a->offsets[i];
			int len = a->offsets[i + 1] - a->offsets[i];
			if ((len == 6 && !memcmp(s, "insert", 6)) || (len == 16 && !memcmp(s, "update_postimage", 16)))
				ins.idx[ins.count++] = (uint32_t)i;
			else
				del.idx[del.count++] = (uint32_t)i;
		}
		dl_batch *bi = rc == 0 ? dl_batch_take(b, ins.idx, ins.count) : NULL;
		dl_batch *bd = rc == 0 ? dl_batch_take(b, del.idx, del.count) : NULL;
		if (rc == 0) rc = rowset_add_batch(plus, bi, NULL);
		if (rc == 0) rc = rowset_add_batch(minus, bd, NULL);
		dl_batch_free(bi);
		dl_batch_free(bd);
		dl_selection_free(&ins);
		dl_selection_free(&del);
		dl_batch_free(b);
	}
	dl_batch_stream_free(bs);
	return rc;
}

/* Rows in the cdc files of commit v (read straight from the files), or -1
 * when the commit has no cdc action. */
static int64_t cdc_file_rows(dl_store *st, int64_t v)
{
	char path[64];
	snprintf(path, sizeof path, "_delta_log/%020" PRId64 ".json", v);
	uint8_t *data;
	size_t len;
	if (dl_store_get(&data, &len, st, path) < 0) return -2;
	int64_t total = -1;
	dl_arena a = DL_ARENA_INIT;
	for (char *line = (char *)data; line && *line;) {
		char *nl = strchr(line, '\n');
		size_t n = nl ? (size_t)(nl - line) : strlen(line);
		dl_json *j;
		if (n && dl_json_parse(&a, line, n, path, &j) == 0) {
			const dl_json *cdc = dl_json_get(j, "cdc");
			const char *p = cdc ? dl_json_get_str(cdc, "path") : NULL;
			if (p) {
				dl_buf dec = DL_BUF_INIT;
				const char *rel = NULL;
				dl_log_path_decode(&a, p, strlen(p), path, &rel);
				pq_reader *r;
				if (total < 0) total = 0;
				if (rel && pq_reader_open_store(&r, st, rel, -1) == 0) {
					total += pq_reader_num_rows(r);
					pq_reader_free(r);
				} else {
					total = -2;
				}
				dl_buf_free(&dec);
			}
		}
		line = nl ? nl + 1 : NULL;
		if (total == -2) break;
	}
	dl_arena_free(&a);
	free(data);
	dl_error_clear();
	return total;
}

static void reset(rowset *r, const dl_type *schema)
{
	rowset_free(r);
	rowset_set_columns(r, schema);
}

/* Per commit of the range whose feed is enabled: a commit with cdc actions
 * yields exactly the rows of its cdc files; any other commit's inserts and
 * deletes turn the previous version's rows into its own. */
static void check_cdf(verdict *v, const char *dir, dl_snapshot *snap)
{
	int64_t latest = dl_snapshot_version(snap);
	const dl_type *schema = dl_snapshot_schema(snap);
	rowset plus = {0}, minus = {0}, before = {0}, after = {0};
	int checked = 0;
	for (int64_t ver = 0; ver <= latest && v->pass; ver++) {
		reset(&plus, schema);
		reset(&minus, schema);
		int rc = feed_rows(dir, ver, ver, &plus, &minus);
		if (rc < 0 && strstr(dl_error_last()->message, "was not enabled")) continue;
		if (rc < 0) {
			fail_error(v, "reading the change data feed");
			break;
		}
		checked++;
		int64_t cdc = cdc_file_rows(dl_snapshot_store(snap), ver);
		if (cdc == -2) {
			fail(v, "version %" PRId64 ": cannot read its cdc files directly", ver);
		} else if (cdc >= 0) {
			if ((int64_t)(plus.n + minus.n) != cdc)
				fail(v, "version %" PRId64 ": %zu change rows, its cdc files hold %" PRId64, ver,
				     plus.n + minus.n, cdc);
			continue;
		}
		reset(&before, schema);
		reset(&after, schema);
		if (ver > 0) rc = snapshot_rows(dir, ver - 1, &before);
		if (rc == 0) rc = snapshot_rows(dir, ver, &after);
		if (rc < 0) {
			fail_error(v, "reading versions for the feed check");
			break;
		}
		signed_rows sr = {0};
		add_signed(&sr, &before, 1);
		add_signed(&sr, &plus, 1);
		add_signed(&sr, &minus, -1);
		add_signed(&sr, &after, -1);
		char why[600];
		if (!balanced(&sr, why, sizeof why))
			fail(v, "the change data feed of version %" PRId64 " does not turn version %" PRId64
			     " into it: %s", ver, ver - 1, why);
		for (size_t i = 0; i < sr.n; i++) free(sr.rows[i]);
		free(sr.rows);
		free(sr.sign);
	}
	if (v->pass && checked == 0) fail(v, "no version has a readable change data feed");
	rowset_free(&plus);
	rowset_free(&minus);
	rowset_free(&before);
	rowset_free(&after);
}

/* ---- pruning soundness: filtered scans keep exactly the matching rows ---- */

typedef struct all_rows {
	dl_batch **b;
	int n;
} all_rows;

static void all_rows_free(all_rows *r)
{
	for (int i = 0; i < r->n; i++) dl_batch_free(r->b[i]);
	free(r->b);
}

static int read_batches(dl_snapshot *snap, all_rows *out)
{
	dl_scan *scan;
	DL_TRY(dl_scan_open(&scan, snap, NULL));
	dl_batch_stream *bs;
	int rc = dl_scan_batches(&bs, scan);
	dl_batch *b;
	while (rc == 0 && (rc = dl_batch_stream_next(bs, &b)) == 0 && b) {
		out->b = realloc(out->b, (size_t)(out->n + 1) * sizeof *out->b);
		out->b[out->n++] = b;
	}
	if (rc == 0) dl_batch_stream_free(bs);
	dl_scan_free(scan);
	return rc;
}

/* A SQL literal for row i of a; false for types not tried. */
static bool sql_literal(dl_buf *out, const dl_array *a, int64_t i)
{
	dl_buf txt = DL_BUF_INIT;
	if (dl_format_value(&txt, a, i) < 0 || !txt.data) {
		dl_buf_free(&txt);
		return false;
	}
	bool ok = true;
	switch (a->type->id) {
	case DL_TYPE_BOOLEAN:
	case DL_TYPE_BYTE:
	case DL_TYPE_SHORT:
	case DL_TYPE_INTEGER:
	case DL_TYPE_LONG:
	case DL_TYPE_DECIMAL: dl_buf_puts(out, txt.data); break;
	case DL_TYPE_STRING:
		if (strchr(txt.data, '\\')) ok = false;
		dl_buf_putc(out, '\'');
		for (const char *c = txt.data; *c; c++) {
			if (*c == '\'') dl_buf_putc(out, '\'');
			dl_buf_putc(out, *c);
		}
		dl_buf_putc(out, '\'');
		break;
	case DL_TYPE_DATE: dl_buf_printf(out, "DATE'%s'", txt.data); break;
	case DL_TYPE_TIMESTAMP: dl_buf_printf(out, "TIMESTAMP'%s'", txt.data); break;
	case DL_TYPE_TIMESTAMP_NTZ: dl_buf_printf(out, "CAST('%s' AS TIMESTAMP_NTZ)", txt.data); break;
	default: ok = false;
	}
	dl_buf_free(&txt);
	return ok;
}

/* Rows of `rows` where pred holds, counted by the evaluator alone. */
static int count_matching(const all_rows *rows, const char *pred, int64_t *out)
{
	*out = 0;
	if (rows->n == 0) return 0;
	dl_expr *e;
	DL_TRY(dl_expr_parse(&e, pred));
	int rc = dl_expr_bind(e, rows->b[0]->schema);
	dl_selection sel = {0};
	dl_eval_ctx ctx = DL_EVAL_CTX_INIT;
	for (int i = 0; rc == 0 && i < rows->n; i++) {
		rc = dl_expr_filter(&sel, e, rows->b[i], &ctx);
		*out += sel.count;
	}
	dl_selection_free(&sel);
	dl_expr_free(e);
	return rc;
}

static void quote_name(dl_buf *col, const char *name)
{
	dl_buf_putc(col, '`');
	for (const char *p = name; *p; p++) {
		if (*p == '`') dl_buf_putc(col, '`');
		dl_buf_putc(col, *p);
	}
	dl_buf_putc(col, '`');
}

/* Filters on one leaf column (top-level or inside structs): =, <, >= a
 * value of the table, IS NULL, IS NOT NULL; the scan (with file,
 * row-group and residual pruning) must return what the evaluator finds
 * over all rows. */
static void try_leaf(verdict *v, dl_snapshot *snap, const all_rows *rows, const char *col, const dl_array *a,
                     int64_t r, int *tried)
{
	dl_buf lit = DL_BUF_INIT;
	if (!dl_array_is_valid(a, r) || !sql_literal(&lit, a, r)) {
		dl_buf_free(&lit);
		return;
	}
	(*tried)++;
	const char *ops[] = {"=", "<", ">=", "IS NULL", "IS NOT NULL"};
	for (size_t k = 0; k < 5 && v->pass; k++) {
		char pred[1024];
		if (k < 3) snprintf(pred, sizeof pred, "%s %s %s", col, ops[k], lit.data);
		else snprintf(pred, sizeof pred, "%s %s", col, ops[k]);
		int64_t want, got;
		dl_scan_options o = DL_SCAN_OPTIONS_INIT;
		o.filter = pred;
		if (count_matching(rows, pred, &want) < 0) fail_error(v, pred);
		else if (scan_count(snap, &o, &got, NULL) < 0) fail_error(v, pred);
		else if (got != want) fail(v, "filter %s: the scan returned %" PRId64 " rows, %" PRId64 " match", pred, got, want);
	}
	dl_buf_free(&lit);
}

static void try_column(verdict *v, dl_snapshot *snap, const all_rows *rows, dl_buf *col, const dl_field *f,
                       const dl_array *a, int64_t r, int *tried)
{
	if (*tried >= 12 || !v->pass) return;
	size_t keep = col->len;
	if (keep) dl_buf_putc(col, '.');
	quote_name(col, f->name);
	if (f->type->id == DL_TYPE_STRUCT) {
		if (dl_array_is_valid(a, r))
			for (int i = 0; i < f->type->nchildren && i < a->nchildren; i++)
				try_column(v, snap, rows, col, &f->type->children[i], a->children[i], r, tried);
	} else {
		try_leaf(v, snap, rows, col->data, a, r, tried);
	}
	col->len = keep;
	if (col->data) col->data[keep] = 0;
}

static void check_pruning(verdict *v, dl_snapshot *snap)
{
	all_rows rows = {0};
	if (read_batches(snap, &rows) < 0) {
		fail_error(v, "reading the table");
		all_rows_free(&rows);
		return;
	}
	const dl_type *schema = dl_snapshot_schema(snap);
	int tried = 0;
	const dl_batch *b = rows.n ? rows.b[rows.n / 2] : NULL;
	for (int c = 0; b && b->num_rows && v->pass && c < schema->nchildren; c++) {
		dl_buf col = DL_BUF_INIT;
		try_column(v, snap, &rows, &col, &schema->children[c], b->cols[c], b->num_rows / 2, &tried);
		dl_buf_free(&col);
	}
	all_rows_free(&rows);
}

/* ---- variant: every value decodes to JSON ---- */

static void check_variant(verdict *v, dl_snapshot *snap)
{
	all_rows rows = {0};
	if (read_batches(snap, &rows) < 0) fail_error(v, "reading the table");
	int64_t values = 0;
	dl_buf b = DL_BUF_INIT;
	for (int i = 0; v->pass && i < rows.n; i++) {
		for (int c = 0; c < rows.b[i]->ncols && v->pass; c++) {
			const dl_array *a = rows.b[i]->cols[c];
			if (a->type->id != DL_TYPE_VARIANT) continue;
			for (int64_t r = 0; r < rows.b[i]->num_rows && v->pass; r++) {
				if (!dl_array_is_valid(a, r)) continue;
				dl_buf_clear(&b);
				if (dl_format_value_json(&b, a, r) < 0) fail_error(v, "decoding a variant value");
				values++;
			}
		}
	}
	if (v->pass && values == 0) fail(v, "no variant value was read");
	dl_buf_free(&b);
	all_rows_free(&rows);
}

/* ---- row tracking: ids are unique and commit versions within the log ---- */

static int cmp_i64(const void *a, const void *b)
{
	int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
	return x < y ? -1 : x > y;
}

static void check_row_tracking(verdict *v, dl_snapshot *snap)
{
	const char *cols[] = {DL_SCAN_ROW_ID, DL_SCAN_ROW_COMMIT_VERSION};
	dl_scan_options o = DL_SCAN_OPTIONS_INIT;
	o.columns = cols;
	o.ncolumns = 2;
	dl_scan *scan;
	if (dl_scan_open(&scan, snap, &o) < 0) {
		fail_error(v, "scanning row tracking columns");
		return;
	}
	dl_batch_stream *bs;
	int rc = dl_scan_batches(&bs, scan);
	int64_t *ids = NULL;
	size_t n = 0;
	dl_batch *b;
	while (rc == 0 && (rc = dl_batch_stream_next(bs, &b)) == 0 && b) {
		ids = realloc(ids, (n + (size_t)b->num_rows + 1) * sizeof *ids);
		for (int64_t i = 0; i < b->num_rows; i++) {
			int64_t cv = ((const int64_t *)b->cols[1]->values)[i];
			if (cv < 0 || cv > dl_snapshot_version(snap))
				fail(v, "row_commit_version %" PRId64 " is outside the log", cv);
			ids[n++] = ((const int64_t *)b->cols[0]->values)[i];
		}
		dl_batch_free(b);
	}
	if (rc < 0) fail_error(v, "reading row tracking columns");
	else dl_batch_stream_free(bs);
	if (n) qsort(ids, n, sizeof *ids, cmp_i64);
	for (size_t i = 1; i < n && v->pass; i++)
		if (ids[i] == ids[i - 1]) fail(v, "row_id %" PRId64 " appears twice", ids[i]);
	free(ids);
	dl_scan_free(scan);
}

/* ---- app transactions: the newest txn of each app in the commits ---- */

static void check_txn(verdict *v, dl_snapshot *snap)
{
	dl_store *st = dl_snapshot_store(snap);
	int64_t retention = -1;
	const char *rp = dl_snapshot_property(snap, "delta.setTransactionRetentionDuration");
	if (rp && dl_parse_interval_ms(rp, &retention) < 0) retention = -1;
	dl_arena a = DL_ARENA_INIT;
	int found = 0;
	for (int64_t ver = dl_snapshot_version(snap); ver >= 0 && v->pass; ver--) {
		char path[64];
		snprintf(path, sizeof path, "_delta_log/%020" PRId64 ".json", ver);
		uint8_t *data;
		size_t len;
		if (dl_store_get(&data, &len, st, path) < 0) {
			dl_error_clear();
			break; /* older commits are in the checkpoint */
		}
		for (char *line = (char *)data; line && *line && v->pass;) {
			char *nl = strchr(line, '\n');
			size_t n = nl ? (size_t)(nl - line) : strlen(line);
			dl_json *j;
			const dl_json *txn;
			int64_t want, got;
			if (n && dl_json_parse(&a, line, n, path, &j) == 0 && (txn = dl_json_get(j, "txn")) &&
			    dl_json_int64(dl_json_get(txn, "version"), &want) == 0) {
				const char *app = dl_json_get_str(txn, "appId");
				int64_t last;
				/* delta.setTransactionRetentionDuration expires apps last
				 * updated before now - retention (Spark's rule) */
				bool expired = retention >= 0 && dl_json_int64(dl_json_get(txn, "lastUpdated"), &last) == 0 &&
				               last < dl_now_millis() - retention;
				int rc = app ? dl_snapshot_app_version(&got, snap, app) : 0;
				if (app && expired && rc == 0)
					fail(v, "app %s was last updated at %" PRId64 ", before the retention window, but the "
					     "snapshot still has it", app, last);
				else if (app && !expired && rc < 0)
					fail(v, "app %s committed version %" PRId64 " but the snapshot has no version for it",
					     app, want);
				else if (app && !expired && got < want)
					fail(v, "app %s: snapshot says version %" PRId64 ", commit %" PRId64 " wrote %" PRId64,
					     app, got, ver, want);
				dl_error_clear();
				found++;
			}
			line = nl ? nl + 1 : NULL;
		}
		free(data);
	}
	if (v->pass && found == 0 && dl_snapshot_app_count(snap) == 0) fail(v, "no application transaction found");
	dl_arena_free(&a);
}

/* data-reader-absolute-paths-escaped-chars has no metaData action, so no
 * snapshot (and no row) can be read: opening must fail saying so, and the
 * replay of its log must decode both paths (the absolute one and
 * "bar%2Dbar"). */
static void check_escaped_paths(verdict *v, const char *dir)
{
	dl_snapshot *snap;
	if (dl_snapshot_open(&snap, dir, NULL) == 0) {
		dl_snapshot_free(snap);
		fail(v, "a snapshot opened, but the log has no metaData action");
		return;
	}
	if (!strstr(dl_error_last()->message, "no metaData action")) {
		fail_error(v, "opening failed for another reason");
		return;
	}
	dl_store *st;
	if (dl_store_open(&st, dir, NULL) < 0) {
		fail_error(v, "opening the store");
		return;
	}
	dl_log_segment seg;
	dl_log_state ls;
	memset(&ls, 0, sizeof ls);
	int found = 0;
	if (dl_log_segment_build(&seg, st, -1) < 0) {
		fail_error(v, "listing the log");
	} else {
		if (dl_replay(&ls, st, &seg, NULL) < 0) fail_error(v, "replaying the log");
		for (size_t i = 0; v->pass && i < ls.nadds; i++) {
			const char *p = dl_log_state_add(&ls, i)->path;
			if (strcmp(p, "bar-bar.snappy.parquet") == 0) found++;
			if (strstr(p, "/golden/data-reader-absolute-paths-escaped-chars/foo.snappy.parquet")) found++;
		}
		if (v->pass && (ls.nadds != 2 || found != 2))
			fail(v, "%zu live files, %d with the expected decoded paths (want 2 and 2)", ls.nadds, found);
		dl_log_state_free(&ls);
		dl_log_segment_free(&seg);
	}
	dl_store_free(st);
}

/* ---- type widening: values of old files cast up exactly ---- */

/* Value i of a native (file) array as the target type's representation:
 * integers and decimals as an unscaled 128-bit integer at the target's
 * scale, floating point as a double, dates as timestamp micros. */
static bool widened_equal(const dl_array *nat, const dl_array *out, int64_t i)
{
	bool nv = dl_array_is_valid(nat, i), ov = dl_array_is_valid(out, i);
	if (!nv || !ov) return nv == ov;
	const uint8_t *p = nat->values;
	dl_type_id f = nat->type->id, to = out->type->id;
	dl_i128 iv = 0;
	double dv = 0;
	switch (f) {
	case DL_TYPE_BYTE: iv = ((const int8_t *)p)[i]; dv = (double)iv; break;
	case DL_TYPE_SHORT: iv = ((const int16_t *)(const void *)p)[i]; dv = (double)iv; break;
	case DL_TYPE_INTEGER:
	case DL_TYPE_DATE: iv = ((const int32_t *)(const void *)p)[i]; dv = (double)iv; break;
	case DL_TYPE_LONG: iv = ((const int64_t *)(const void *)p)[i]; dv = (double)iv; break;
	case DL_TYPE_FLOAT: dv = ((const float *)(const void *)p)[i]; break;
	case DL_TYPE_DOUBLE: dv = ((const double *)(const void *)p)[i]; break;
	case DL_TYPE_DECIMAL: memcpy(&iv, p + 16 * i, 16); break;
	default: return true; /* not a widened primitive: nothing to compare */
	}
	const uint8_t *q = out->values;
	if (to == DL_TYPE_DOUBLE) return ((const double *)(const void *)q)[i] == dv;
	if (f == DL_TYPE_DATE && to == DL_TYPE_TIMESTAMP_NTZ)
		return ((const int64_t *)(const void *)q)[i] == (int64_t)iv * 86400 * 1000000;
	int from_scale = f == DL_TYPE_DECIMAL ? nat->type->scale : 0;
	int to_scale = to == DL_TYPE_DECIMAL ? out->type->scale : 0;
	for (int k = from_scale; k < to_scale; k++) iv *= 10;
	dl_i128 ov128;
	switch (to) {
	case DL_TYPE_SHORT: ov128 = ((const int16_t *)(const void *)q)[i]; break;
	case DL_TYPE_INTEGER: ov128 = ((const int32_t *)(const void *)q)[i]; break;
	case DL_TYPE_LONG: ov128 = ((const int64_t *)(const void *)q)[i]; break;
	case DL_TYPE_DECIMAL: memcpy(&ov128, q + 16 * i, 16); break;
	default: return true;
	}
	return ov128 == iv;
}

typedef struct widen_ctx {
	dl_batch *out; /* the scan's rows of one file, concatenated */
} widen_ctx;

static int collect_emit(void *payload, dl_batch *b)
{
	widen_ctx *w = payload;
	if (!w->out) {
		w->out = b;
		return 0;
	}
	dl_batch *two[2] = {w->out, b};
	dl_batch *c = dl_batch_concat(two, 2);
	dl_batch_free(w->out);
	dl_batch_free(b);
	w->out = c;
	return c ? 0 : DL_ENOMEM;
}

/* Each file read by the scan against the same file read natively: every
 * column whose type changed (delta.typeChanges) holds the cast values. */
static void check_type_widening(verdict *v, dl_snapshot *snap)
{
	const dl_type *schema = dl_snapshot_schema(snap);
	dl_scan *scan;
	if (dl_scan_open(&scan, snap, NULL) < 0) {
		fail_error(v, "planning");
		return;
	}
	int compared = 0;
	for (size_t f = 0; v->pass && f < dl_scan_file_count(scan); f++) {
		widen_ctx w = {NULL};
		dl_file_info fi;
		pq_reader *r = NULL;
		dl_batch *nat = NULL;
		int64_t first;
		if (dl_scan_read_file(scan, f, collect_emit, &w) < 0 || dl_scan_file_at(&fi, scan, f) < 0 ||
		    pq_reader_open_store(&r, dl_snapshot_store(snap), fi.path, fi.size) < 0 ||
		    pq_reader_set_batch_size(r, 1 << 30) < 0 || pq_reader_next(r, &nat, &first) < 0) {
			fail_error(v, "reading a file both ways");
		}
		for (int c = 0; v->pass && w.out && nat && c < schema->nchildren; c++) {
			if (!strstr(schema->children[c].metadata, "delta.typeChanges")) continue;
			int k = dl_type_field_index(nat->schema, schema->children[c].name);
			if (k < 0 || nat->num_rows != w.out->num_rows) continue;
			for (int64_t i = 0; v->pass && i < nat->num_rows; i++) {
				if (!widened_equal(nat->cols[k], w.out->cols[c], i))
					fail(v, "%s: row %" PRId64 " of %s is not the file's %s value cast up",
					     schema->children[c].name, i, fi.path, dl_type_id_name(nat->cols[k]->type->id));
				compared++;
			}
		}
		dl_batch_free(nat);
		dl_batch_free(w.out);
		pq_reader_free(r);
	}
	if (v->pass && compared == 0) fail(v, "no widened value was compared");
	dl_scan_free(scan);
}

/* ---- checkpoints and compaction: the same state as the commits alone ---- */

static int cmp_cstr(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* "path|dv|size" of every live file, sorted. */
static char **file_keys(dl_snapshot *snap, size_t *n)
{
	*n = dl_snapshot_file_count(snap);
	char **k = calloc(*n + 1, sizeof *k);
	const dl_log_state *st = dl_snapshot_state(snap);
	for (size_t i = 0; i < *n; i++) {
		const dl_add *a = dl_log_state_add(st, i);
		dl_buf b = DL_BUF_INIT;
		dl_buf_printf(&b, "%s|", a->path);
		if (a->dv) dl_dv_unique_id(a->dv, &b);
		dl_buf_printf(&b, "|%" PRId64 "|%s", a->size, a->base_row_id == DL_NONE ? "" : "r");
		k[i] = dl_buf_detach(&b, NULL);
	}
	qsort(k, *n, sizeof *k, cmp_cstr);
	return k;
}

static void free_keys(char **k, size_t n)
{
	for (size_t i = 0; i < n; i++) dl_free(k[i]);
	free(k);
}

/* When every commit from version 0 is still a JSON file, a snapshot built
 * from those commits alone (in a memory store, without checkpoints,
 * sidecars or compaction files) must hold the same files, app versions and
 * domains as the one read through the checkpoint. */
static void check_checkpoint(verdict *v, const char *name, dl_snapshot *snap)
{
	dl_store *st = dl_snapshot_store(snap);
	int64_t latest = dl_snapshot_version(snap);
	char memuri[600], path[64];
	snprintf(memuri, sizeof memuri, "mem://conformance-cp/%s", name);
	dl_store *mem;
	if (dl_store_open(&mem, memuri, NULL) < 0) {
		fail_error(v, "opening a memory store");
		return;
	}
	bool complete = true;
	for (int64_t ver = 0; ver <= latest && complete; ver++) {
		snprintf(path, sizeof path, "_delta_log/%020" PRId64 ".json", ver);
		uint8_t *data;
		size_t len;
		if (dl_store_get(&data, &len, st, path) < 0) {
			complete = false;
			break;
		}
		dl_store_put(mem, path, data, len);
		dl_free(data);
	}
	dl_error_clear();
	if (complete) {
		dl_snapshot_options o = DL_SNAPSHOT_OPTIONS_INIT;
		o.store = mem;
		dl_snapshot *js;
		if (dl_snapshot_open(&js, NULL, &o) < 0) {
			fail_error(v, "replaying the JSON commits alone");
		} else {
			size_t na, nb;
			char **a = file_keys(snap, &na), **b = file_keys(js, &nb);
			for (size_t i = 0; v->pass && (i < na || i < nb); i++) {
				if (i >= na || i >= nb || strcmp(a[i], b[i]) != 0)
					fail(v, "through the checkpoint %zu files, from the commits %zu; first difference: %s vs %s", na,
					     nb, i < na ? a[i] : "-", i < nb ? b[i] : "-");
			}
			free_keys(a, na);
			free_keys(b, nb);
			if (v->pass && dl_snapshot_app_count(snap) != dl_snapshot_app_count(js))
				fail(v, "%zu app transactions through the checkpoint, %zu from the commits",
				     dl_snapshot_app_count(snap), dl_snapshot_app_count(js));
			if (v->pass && dl_snapshot_domain_count(snap) != dl_snapshot_domain_count(js))
				fail(v, "%zu domains through the checkpoint, %zu from the commits", dl_snapshot_domain_count(snap),
				     dl_snapshot_domain_count(js));
			if (v->pass && dl_snapshot_min_reader_version(snap) != dl_snapshot_min_reader_version(js))
				fail(v, "protocol differs through the checkpoint");
			dl_snapshot_free(js);
		}
	}
	dl_store_mem_drop(memuri + 6);
	dl_store_free(mem);
}

/* ---- time travel: every older version whose files remain reads right ---- */

static bool all_files_present(dl_snapshot *snap)
{
	dl_store *st = dl_snapshot_store(snap);
	for (size_t i = 0; i < dl_snapshot_file_count(snap); i++) {
		dl_file_info fi;
		dl_object_info oi;
		if (dl_snapshot_file_at(&fi, snap, i) < 0) return false;
		struct stat sb;
		if (fi.path[0] == '/') {
			if (stat(fi.path, &sb) != 0) return false;
			continue;
		}
		if (dl_store_stat(&oi, st, fi.path) < 0) {
			dl_error_clear();
			return false; /* vacuumed since: that version cannot be read */
		}
		dl_object_info_free(&oi);
	}
	return true;
}

static void check_time_travel(verdict *v, const char *dir, dl_snapshot *latest)
{
	for (int64_t ver = 0; v->pass && ver < dl_snapshot_version(latest) && ver < 30; ver++) {
		dl_snapshot_options o = DL_SNAPSHOT_OPTIONS_INIT;
		o.as_of_version = ver;
		dl_snapshot *s;
		if (dl_snapshot_open(&s, dir, &o) < 0) {
			/* versions before the oldest checkpoint may be cleaned up */
			if (!strstr(dl_error_last()->message, "version")) fail_error(v, "opening an older version");
			dl_error_clear();
			continue;
		}
		if (dl_snapshot_schema(s) && all_files_present(s)) {
			int64_t rows, want = log_row_count(s);
			if (scan_count(s, NULL, &rows, NULL) < 0) fail_error(v, "reading an older version");
			else if (want >= 0 && rows != want)
				fail(v, "version %" PRId64 ": read %" PRId64 " rows, its log says %" PRId64, ver, rows, want);
		}
		dl_snapshot_free(s);
	}
}

void check_features(verdict *v, const char *name, const char *dir, const char *features)
{
	if (strstr(name, "data-reader-absolute-paths-escaped-chars")) {
		check_escaped_paths(v, dir);
		return;
	}
	dl_snapshot *snap;
	if (dl_snapshot_open(&snap, dir, NULL) < 0) {
		fail_error(v, "opening the table");
		return;
	}
	bool data = !log_only(snap);
	if (!data) check_plan(v, snap);
	else check_counts(v, snap);
	if (data && strstr(features, "cdf")) check_cdf(v, dir, snap);
	if (data && dl_snapshot_schema(snap)) check_pruning(v, snap);
	if (data) check_time_travel(v, dir, snap);
	if (data && dl_snapshot_has_feature(snap, "variantType-preview")) check_variant(v, snap);
	if (dl_snapshot_has_feature(snap, "rowTracking")) check_row_tracking(v, snap);
	if (data && (dl_snapshot_has_feature(snap, "typeWidening") || dl_snapshot_has_feature(snap, "typeWidening-preview")))
		check_type_widening(v, snap);
	if (strstr(features, "txn")) check_txn(v, snap);
	if (strstr(features, "cp") || strstr(features, "log-compaction") || strstr(features, "sidecars"))
		check_checkpoint(v, name, snap);
	/* the same file spelled through differently encoded paths counts once:
	 * it was added then removed, so nothing is live */
	if (strstr(name, "canonicalized-paths-") && dl_snapshot_file_count(snap) != 0)
		fail(v, "%zu live files; the remove's differently encoded path must cancel the add",
		     dl_snapshot_file_count(snap));
	dl_snapshot_free(snap);
}
