/* Result output in table, csv, jsonl and json. Each row is built in one
 * buffer and written with one fwrite, so output stays fast for big scans. */
#include "output.h"
#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <string.h>
#include <stdlib.h>
#include "util.h"

const dl_out_column dl_out_kv_columns[2] = {{"name", DL_OUT_STRING}, {"value", DL_OUT_STRING}};

static const char *const format_names[] = {"table", "csv", "jsonl", "json", "vertical"};

struct dl_out {
	FILE *fp;
	dl_out_format format;
	int ncols;
	dl_out_column *cols;
	dl_cli_buf line;
	int64_t rows;
	/* table: rows kept to size the columns, until the window is full */
	dl_cli_arena arena;
	char ***kept;
	int64_t nkept;
	size_t *width;
	bool header_done;
	/* batches: the cells of the current row, rendered by the formatter */
	dl_arrow_formatter *fmt;
	const char **values;
};

int dl_out_format_parse(dl_out_format *out, const char *name)
{
	for (int i = 0; i < (int)(sizeof format_names / sizeof *format_names); i++) {
		if (!strcmp(name, format_names[i])) {
			*out = (dl_out_format)i;
			return 0;
		}
	}
	if (!strcmp(name, "ndjson")) {
		*out = DL_OUT_JSONL;
		return 0;
	}
	return dl_cli_fail(DL_EINVALID, "unknown output format '%s'; use table, csv, jsonl, json or vertical", name);
}

const char *dl_out_format_name(dl_out_format f)
{
	return (unsigned)f < sizeof format_names / sizeof *format_names ? format_names[f] : "?";
}

int dl_out_begin(dl_out **out, FILE *fp, dl_out_format format, const dl_out_column *cols, int ncols)
{
	*out = NULL;
	if (ncols <= 0) return dl_cli_fail(DL_EINVALID, "output needs at least one column");
	dl_out *o = dl_cli_calloc(1, sizeof *o);
	if (!o) return DL_ENOMEM;
	o->fp = fp;
	o->format = format;
	o->ncols = ncols;
	o->cols = dl_cli_calloc((size_t)ncols, sizeof *o->cols);
	o->width = dl_cli_calloc((size_t)ncols, sizeof *o->width);
	if (!o->cols || !o->width) {
		dl_out_free(o);
		return DL_ENOMEM;
	}
	for (int i = 0; i < ncols; i++) {
		o->cols[i].kind = cols[i].kind;
		o->cols[i].name = dl_cli_strdup(cols[i].name ? cols[i].name : "");
		if (!o->cols[i].name) {
			dl_out_free(o);
			return DL_ENOMEM;
		}
	}
	if (format == DL_OUT_TABLE) {
		o->kept = dl_cli_calloc(DL_OUT_TABLE_WINDOW, sizeof *o->kept);
		if (!o->kept) {
			dl_out_free(o);
			return DL_ENOMEM;
		}
	}
	*out = o;
	return 0;
}

void dl_out_free(dl_out *o)
{
	if (!o) return;
	if (o->cols) {
		for (int i = 0; i < o->ncols; i++) free((char *)o->cols[i].name);
	}
	free(o->cols);
	free(o->width);
	free(o->kept);
	dl_arrow_formatter_free(o->fmt);
	free(o->values);
	dl_cli_arena_free(&o->arena);
	dl_cli_buf_free(&o->line);
	free(o);
}

/* ---- csv ---- */

static bool csv_needs_quotes(const char *s)
{
	if (!*s) return true; /* "" keeps the empty string apart from null */
	return strpbrk(s, ",\"\r\n") != NULL;
}

static int csv_put(dl_cli_buf *b, const char *s)
{
	if (!s) return 0;
	if (!csv_needs_quotes(s)) return dl_cli_buf_puts(b, s);
	DL_CLI_TRY(dl_cli_buf_putc(b, '"'));
	for (const char *q; (q = strchr(s, '"')); s = q + 1) {
		DL_CLI_TRY(dl_cli_buf_append(b, s, (size_t)(q - s + 1)));
		DL_CLI_TRY(dl_cli_buf_putc(b, '"'));
	}
	DL_CLI_TRY(dl_cli_buf_puts(b, s));
	return dl_cli_buf_putc(b, '"');
}

int dl_out_csv_field(FILE *fp, const char *s)
{
	dl_cli_buf b = DL_CLI_BUF_INIT;
	int rc = csv_put(&b, s);
	if (rc == 0 && b.len && fwrite(b.data, 1, b.len, fp) != b.len)
		rc = dl_cli_fail(DL_EIO, "writing the output failed: %s", strerror(errno));
	dl_cli_buf_free(&b);
	return rc;
}

static int csv_line(dl_out *o, const char *const *values)
{
	for (int i = 0; i < o->ncols; i++) {
		if (i) DL_CLI_TRY(dl_cli_buf_putc(&o->line, ','));
		DL_CLI_TRY(csv_put(&o->line, values[i]));
	}
	return dl_cli_buf_putc(&o->line, '\n');
}

/* ---- json ---- */

/* JSON's number grammar: -?(0|[1-9][0-9]*)(.[0-9]+)?([eE][+-]?[0-9]+)? */
static bool is_json_number(const char *s)
{
	if (*s == '-') s++;
	if (*s == '0') {
		s++;
	} else if (*s >= '1' && *s <= '9') {
		while (*s >= '0' && *s <= '9') s++;
	} else {
		return false;
	}
	if (*s == '.') {
		s++;
		if (!(*s >= '0' && *s <= '9')) return false;
		while (*s >= '0' && *s <= '9') s++;
	}
	if (*s == 'e' || *s == 'E') {
		s++;
		if (*s == '+' || *s == '-') s++;
		if (!(*s >= '0' && *s <= '9')) return false;
		while (*s >= '0' && *s <= '9') s++;
	}
	return *s == 0;
}

static int json_value(dl_cli_buf *b, dl_out_kind kind, const char *v)
{
	if (!v) return dl_cli_buf_puts(b, "null");
	switch (kind) {
	case DL_OUT_NUMBER:
		if (is_json_number(v)) return dl_cli_buf_puts(b, v);
		break;
	case DL_OUT_BOOL:
		if (!strcmp(v, "true") || !strcmp(v, "false")) return dl_cli_buf_puts(b, v);
		break;
	case DL_OUT_JSON_TEXT:
		if (*v) return dl_cli_buf_puts(b, v);
		break;
	case DL_OUT_STRING:
		break;
	}
	return dl_cli_buf_put_json_string(b, v, strlen(v));
}

static int json_object(dl_out *o, const char *const *values)
{
	DL_CLI_TRY(dl_cli_buf_putc(&o->line, '{'));
	for (int i = 0; i < o->ncols; i++) {
		if (i) DL_CLI_TRY(dl_cli_buf_putc(&o->line, ','));
		DL_CLI_TRY(dl_cli_buf_put_json_string(&o->line, o->cols[i].name, strlen(o->cols[i].name)));
		DL_CLI_TRY(dl_cli_buf_putc(&o->line, ':'));
		DL_CLI_TRY(json_value(&o->line, o->cols[i].kind, values[i]));
	}
	return dl_cli_buf_putc(&o->line, '}');
}

/* ---- table ---- */

/* Display width: UTF-8 code points (continuation bytes do not count). */
static size_t display_width(const char *s)
{
	size_t w = 0;
	for (; *s; s++) w += ((unsigned char)*s & 0xC0) != 0x80;
	return w;
}

/* A cell as shown in a table: one line, control characters escaped. */
static char *table_cell(dl_cli_arena *a, const char *v)
{
	if (!v) return dl_cli_arena_strdup(a, "NULL");
	size_t extra = 0;
	for (const char *p = v; *p; p++) extra += (unsigned char)*p < 0x20 ? 3 : 0;
	size_t n = strlen(v);
	char *out = dl_cli_arena_alloc(a, n + extra + 1);
	if (!out) return NULL;
	char *w = out;
	for (const char *p = v; *p; p++) {
		unsigned char c = (unsigned char)*p;
		if (c >= 0x20) {
			*w++ = (char)c;
		} else if (c == '\n' || c == '\t' || c == '\r') {
			*w++ = '\\';
			*w++ = c == '\n' ? 'n' : c == '\t' ? 't' : 'r';
		} else {
			static const char hex[] = "0123456789abcdef";
			*w++ = '\\';
			*w++ = 'x';
			*w++ = hex[c >> 4];
			*w++ = hex[c & 15];
		}
	}
	*w = 0;
	return out;
}

static int put_spaces(dl_cli_buf *b, size_t n)
{
	static const char spaces[] = "                                                                ";
	while (n > 0) {
		size_t k = n < sizeof spaces - 1 ? n : sizeof spaces - 1;
		DL_CLI_TRY(dl_cli_buf_append(b, spaces, k));
		n -= k;
	}
	return 0;
}

static int put_padded(dl_cli_buf *b, const char *s, size_t width, bool right, bool last)
{
	size_t w = display_width(s);
	size_t pad = w < width ? width - w : 0;
	if (right) {
		DL_CLI_TRY(put_spaces(b, pad));
		return dl_cli_buf_puts(b, s);
	}
	DL_CLI_TRY(dl_cli_buf_puts(b, s));
	return last ? 0 : put_spaces(b, pad); /* no trailing blanks */
}

static int table_line(dl_out *o, char *const *cells)
{
	for (int i = 0; i < o->ncols; i++) {
		if (i) DL_CLI_TRY(dl_cli_buf_puts(&o->line, "  "));
		bool right = o->cols[i].kind == DL_OUT_NUMBER;
		DL_CLI_TRY(put_padded(&o->line, cells[i], o->width[i], right, i == o->ncols - 1));
	}
	return dl_cli_buf_putc(&o->line, '\n');
}

static int flush_line(dl_out *o)
{
	if (o->line.len && fwrite(o->line.data, 1, o->line.len, o->fp) != o->line.len)
		return dl_cli_fail(DL_EIO, "writing the output failed: %s", strerror(errno));
	dl_cli_buf_clear(&o->line);
	return 0;
}

static int table_header(dl_out *o)
{
	for (int i = 0; i < o->ncols; i++) {
		size_t w = display_width(o->cols[i].name);
		if (w > o->width[i]) o->width[i] = w;
	}
	for (int i = 0; i < o->ncols; i++) {
		if (i) DL_CLI_TRY(dl_cli_buf_puts(&o->line, "  "));
		bool right = o->cols[i].kind == DL_OUT_NUMBER;
		DL_CLI_TRY(put_padded(&o->line, o->cols[i].name, o->width[i], right, i == o->ncols - 1));
	}
	DL_CLI_TRY(dl_cli_buf_putc(&o->line, '\n'));
	for (int i = 0; i < o->ncols; i++) {
		if (i) DL_CLI_TRY(dl_cli_buf_puts(&o->line, "  "));
		for (size_t k = 0; k < o->width[i]; k++) DL_CLI_TRY(dl_cli_buf_putc(&o->line, '-'));
	}
	DL_CLI_TRY(dl_cli_buf_putc(&o->line, '\n'));
	o->header_done = true;
	return flush_line(o);
}

/* Prints the kept rows with the widths they need, then forgets them. */
static int table_flush_window(dl_out *o)
{
	if (!o->header_done) DL_CLI_TRY(table_header(o));
	for (int64_t r = 0; r < o->nkept; r++) {
		DL_CLI_TRY(table_line(o, o->kept[r]));
		DL_CLI_TRY(flush_line(o));
	}
	o->nkept = 0;
	dl_cli_arena_reset(&o->arena);
	return 0;
}

static int table_row(dl_out *o, const char *const *values)
{
	dl_cli_arena *a = &o->arena;
	char **cells = dl_cli_arena_alloc(a, sizeof *cells * (size_t)o->ncols);
	if (!cells) return DL_ENOMEM;
	for (int i = 0; i < o->ncols; i++) {
		cells[i] = table_cell(a, values[i]);
		if (!cells[i]) return DL_ENOMEM;
	}
	if (o->header_done) { /* past the first window: stream */
		DL_CLI_TRY(table_line(o, cells));
		DL_CLI_TRY(flush_line(o));
		dl_cli_arena_reset(a);
		return 0;
	}
	for (int i = 0; i < o->ncols; i++) {
		size_t w = display_width(cells[i]);
		if (w > o->width[i]) o->width[i] = w;
	}
	o->kept[o->nkept++] = cells;
	if (o->nkept == DL_OUT_TABLE_WINDOW) return table_flush_window(o);
	return 0;
}

/* ---- vertical ---- */

/* One record: "name  value" per column, names padded to the widest; an
 * empty line before every record but the first. */
static int vertical_row(dl_out *o, const char *const *values)
{
	size_t width = 0;
	for (int i = 0; i < o->ncols; i++) {
		size_t w = display_width(o->cols[i].name);
		if (w > width) width = w;
	}
	if (o->rows) DL_CLI_TRY(dl_cli_buf_putc(&o->line, '\n'));
	for (int i = 0; i < o->ncols; i++) {
		const char *cell = table_cell(&o->arena, values[i]);
		if (!cell) return DL_ENOMEM;
		DL_CLI_TRY(put_padded(&o->line, o->cols[i].name, width, false, false));
		DL_CLI_TRY(dl_cli_buf_puts(&o->line, "  "));
		DL_CLI_TRY(dl_cli_buf_puts(&o->line, cell));
		DL_CLI_TRY(dl_cli_buf_putc(&o->line, '\n'));
	}
	dl_cli_arena_reset(&o->arena);
	return 0;
}

/* ---- rows ---- */

int dl_out_row(dl_out *o, const char *const *values)
{
	int rc = 0;
	switch (o->format) {
	case DL_OUT_TABLE:
		rc = table_row(o, values);
		break;
	case DL_OUT_CSV:
		if (o->rows == 0) {
			const char **names = (const char **)dl_cli_calloc((size_t)o->ncols, sizeof *names);
			if (!names) return DL_ENOMEM;
			for (int i = 0; i < o->ncols; i++) names[i] = o->cols[i].name;
			rc = csv_line(o, names);
			free(names);
		}
		if (rc == 0) rc = csv_line(o, values);
		break;
	case DL_OUT_JSONL:
		rc = json_object(o, values);
		if (rc == 0) rc = dl_cli_buf_putc(&o->line, '\n');
		break;
	case DL_OUT_JSON:
		rc = dl_cli_buf_puts(&o->line, o->rows ? ",\n" : "[\n");
		if (rc == 0) rc = json_object(o, values);
		break;
	case DL_OUT_VERTICAL:
		rc = vertical_row(o, values);
		break;
	}
	if (rc < 0) return rc;
	o->rows++;
	return o->format == DL_OUT_TABLE ? 0 : flush_line(o);
}

int dl_out_kv(dl_out *o, const char *name, const char *value)
{
	const char *v[2] = {name, value};
	if (o->ncols != 2) return dl_cli_fail(DL_EINVALID, "dl_out_kv needs an output of two columns");
	return dl_out_row(o, v);
}

static int finish(dl_out *o)
{
	switch (o->format) {
	case DL_OUT_TABLE:
		DL_CLI_TRY(table_flush_window(o));
		break;
	case DL_OUT_CSV:
		if (o->rows == 0) { /* the header alone still tells the columns */
			for (int i = 0; i < o->ncols; i++) {
				if (i) DL_CLI_TRY(dl_cli_buf_putc(&o->line, ','));
				DL_CLI_TRY(csv_put(&o->line, o->cols[i].name));
			}
			DL_CLI_TRY(dl_cli_buf_putc(&o->line, '\n'));
		}
		break;
	case DL_OUT_JSONL:
		break;
	case DL_OUT_JSON:
		DL_CLI_TRY(dl_cli_buf_puts(&o->line, o->rows ? "\n]\n" : "[]\n"));
		break;
	case DL_OUT_VERTICAL:
		break;
	}
	DL_CLI_TRY(flush_line(o));
	if (fflush(o->fp) != 0 || ferror(o->fp))
		return dl_cli_fail(DL_EIO, "writing the output failed: %s", strerror(errno));
	return 0;
}

int dl_out_end(dl_out *o)
{
	if (!o) return 0;
	int rc = finish(o);
	dl_out_free(o);
	return rc;
}

/* ---- batches (Arrow C data) ---- */

/* Arrow formats of the numeric types (byte..decimal), which tables align
 * right. */
static bool arrow_is_numeric(const char *f)
{
	return (f[0] && !f[1] && strchr("csilfg", f[0])) || !strncmp(f, "d:", 2);
}

int dl_out_begin_arrow(dl_out **out, FILE *fp, dl_out_format format, const struct ArrowSchema *schema)
{
	*out = NULL;
	if (!schema || !schema->format || strcmp(schema->format, "+s"))
		return dl_cli_fail(DL_EINVALID, "batch output needs a struct schema");
	int n = (int)schema->n_children;
	bool json = format == DL_OUT_JSONL || format == DL_OUT_JSON;
	dl_out_column *cols = dl_cli_calloc(n ? (size_t)n : 1, sizeof *cols);
	if (!cols) return DL_ENOMEM;
	for (int i = 0; i < n; i++) {
		const struct ArrowSchema *c = schema->children[i];
		cols[i].name = c->name ? c->name : "";
		/* JSON cells come rendered already; in tables numbers align right. */
		cols[i].kind = json ? DL_OUT_JSON_TEXT : arrow_is_numeric(c->format) ? DL_OUT_NUMBER : DL_OUT_STRING;
	}
	int rc = dl_out_begin(out, fp, format, cols, n);
	free(cols);
	if (rc < 0) return rc;
	(*out)->values = dl_cli_calloc(n ? (size_t)n : 1, sizeof *(*out)->values);
	rc = (*out)->values ? dl_arrow_formatter_new(&(*out)->fmt, schema) : DL_ENOMEM;
	if (rc < 0) {
		dl_out_free(*out);
		*out = NULL;
	}
	return rc;
}

int dl_out_arrow_batch(int64_t *printed, dl_out *o, struct ArrowArray *batch, int64_t max_rows)
{
	*printed = 0;
	if (!o->fmt) {
		dl_arrow_array_release(batch);
		return dl_cli_fail(DL_EINVALID, "batches written to an output without a schema (use dl_out_begin_arrow)");
	}
	int64_t rows;
	DL_CLI_TRY(dl_arrow_formatter_set_batch(&rows, o->fmt, batch));
	if (max_rows >= 0 && max_rows < rows) rows = max_rows;
	dl_format_style style = o->format == DL_OUT_JSONL || o->format == DL_OUT_JSON ? DL_FORMAT_JSON : DL_FORMAT_TEXT;
	for (int64_t r = 0; r < rows; r++) {
		for (int i = 0; i < o->ncols; i++) {
			size_t len;
			/* NULL for a null: each format spells it its own way */
			DL_CLI_TRY(dl_arrow_formatter_cell(&o->values[i], &len, o->fmt, i, r, style));
		}
		DL_CLI_TRY(dl_out_row(o, o->values));
	}
	*printed = rows;
	return 0;
}

int dl_out_stream_error(struct ArrowArrayStream *st, int err)
{
	const dl_error *e = dl_error_last();
	if (e->code != DL_OK) return e->code; /* a library stream: its own message */
	const char *msg = st->get_last_error ? st->get_last_error(st) : NULL;
	return dl_cli_fail(DL_EIO, "reading the rows failed: %s", msg ? msg : strerror(err));
}

int dl_out_arrow_stream(FILE *fp, dl_out_format format, struct ArrowArrayStream *st, int64_t limit)
{
	struct ArrowSchema schema = {0};
	dl_out *o = NULL;
	int err = st->get_schema(st, &schema);
	int rc = err ? dl_out_stream_error(st, err) : dl_out_begin_arrow(&o, fp, format, &schema);
	while (rc == 0 && limit != 0) {
		struct ArrowArray batch = {0};
		err = st->get_next(st, &batch);
		if (err) {
			rc = dl_out_stream_error(st, err);
			break;
		}
		if (!batch.release) break;
		int64_t n;
		rc = dl_out_arrow_batch(&n, o, &batch, limit);
		if (limit > 0) limit -= n;
	}
	if (rc == 0) rc = dl_out_end(o);
	else dl_out_free(o);
	dl_arrow_schema_release(&schema);
	dl_arrow_stream_release(st);
	return rc;
}
