/* Result output in table, csv, jsonl and json. Each row is built in one
 * buffer and written with one fwrite, so output stays fast for big scans. */
#include "output.h"
#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <string.h>
#include "columnar/array.h"
#include "columnar/format_value.h"
#include "util/arena.h"
#include "util/buf.h"
#include "util/error.h"
#include "util/mem.h"

const dl_out_column dl_out_kv_columns[2] = {{"name", DL_OUT_STRING}, {"value", DL_OUT_STRING}};

static const char *const format_names[] = {"table", "csv", "jsonl", "json", "vertical"};

struct dl_out {
	FILE *fp;
	dl_out_format format;
	int ncols;
	dl_out_column *cols;
	dl_buf line;
	int64_t rows;
	/* table: rows kept to size the columns, until the window is full */
	dl_arena arena;
	char ***kept;
	int64_t nkept;
	size_t *width;
	bool header_done;
	/* batches: one buffer per column for the cells of the current row */
	dl_buf *cells;
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
	return dl_error_set(DL_EINVALID, "unknown output format '%s'; use table, csv, jsonl, json or vertical", name);
}

const char *dl_out_format_name(dl_out_format f)
{
	return (unsigned)f < sizeof format_names / sizeof *format_names ? format_names[f] : "?";
}

int dl_out_begin(dl_out **out, FILE *fp, dl_out_format format, const dl_out_column *cols, int ncols)
{
	*out = NULL;
	if (ncols <= 0) return dl_error_set(DL_EINVALID, "output needs at least one column");
	dl_out *o = dl_calloc(1, sizeof *o);
	if (!o) return DL_ENOMEM;
	o->fp = fp;
	o->format = format;
	o->ncols = ncols;
	o->cols = dl_calloc((size_t)ncols, sizeof *o->cols);
	o->width = dl_calloc((size_t)ncols, sizeof *o->width);
	if (!o->cols || !o->width) {
		dl_out_free(o);
		return DL_ENOMEM;
	}
	for (int i = 0; i < ncols; i++) {
		o->cols[i].kind = cols[i].kind;
		o->cols[i].name = dl_strdup(cols[i].name ? cols[i].name : "");
		if (!o->cols[i].name) {
			dl_out_free(o);
			return DL_ENOMEM;
		}
	}
	if (format == DL_OUT_TABLE) {
		o->kept = dl_calloc(DL_OUT_TABLE_WINDOW, sizeof *o->kept);
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
		for (int i = 0; i < o->ncols; i++) dl_free((char *)o->cols[i].name);
	}
	dl_free(o->cols);
	dl_free(o->width);
	dl_free(o->kept);
	if (o->cells) {
		for (int i = 0; i < o->ncols; i++) dl_buf_free(&o->cells[i]);
	}
	dl_free(o->cells);
	dl_free(o->values);
	dl_arena_free(&o->arena);
	dl_buf_free(&o->line);
	dl_free(o);
}

/* ---- csv ---- */

static bool csv_needs_quotes(const char *s)
{
	if (!*s) return true; /* "" keeps the empty string apart from null */
	return strpbrk(s, ",\"\r\n") != NULL;
}

static int csv_put(dl_buf *b, const char *s)
{
	if (!s) return 0;
	if (!csv_needs_quotes(s)) return dl_buf_puts(b, s);
	DL_TRY(dl_buf_putc(b, '"'));
	for (const char *q; (q = strchr(s, '"')); s = q + 1) {
		DL_TRY(dl_buf_append(b, s, (size_t)(q - s + 1)));
		DL_TRY(dl_buf_putc(b, '"'));
	}
	DL_TRY(dl_buf_puts(b, s));
	return dl_buf_putc(b, '"');
}

int dl_out_csv_field(FILE *fp, const char *s)
{
	dl_buf b = DL_BUF_INIT;
	int rc = csv_put(&b, s);
	if (rc == 0 && b.len && fwrite(b.data, 1, b.len, fp) != b.len)
		rc = dl_error_set(DL_EIO, "writing the output failed: %s", strerror(errno));
	dl_buf_free(&b);
	return rc;
}

static int csv_line(dl_out *o, const char *const *values)
{
	for (int i = 0; i < o->ncols; i++) {
		if (i) DL_TRY(dl_buf_putc(&o->line, ','));
		DL_TRY(csv_put(&o->line, values[i]));
	}
	return dl_buf_putc(&o->line, '\n');
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

static int json_value(dl_buf *b, dl_out_kind kind, const char *v)
{
	if (!v) return dl_buf_puts(b, "null");
	switch (kind) {
	case DL_OUT_NUMBER:
		if (is_json_number(v)) return dl_buf_puts(b, v);
		break;
	case DL_OUT_BOOL:
		if (!strcmp(v, "true") || !strcmp(v, "false")) return dl_buf_puts(b, v);
		break;
	case DL_OUT_JSON_TEXT:
		if (*v) return dl_buf_puts(b, v);
		break;
	case DL_OUT_STRING:
		break;
	}
	return dl_buf_put_json_string(b, v, strlen(v));
}

static int json_object(dl_out *o, const char *const *values)
{
	DL_TRY(dl_buf_putc(&o->line, '{'));
	for (int i = 0; i < o->ncols; i++) {
		if (i) DL_TRY(dl_buf_putc(&o->line, ','));
		DL_TRY(dl_buf_put_json_string(&o->line, o->cols[i].name, strlen(o->cols[i].name)));
		DL_TRY(dl_buf_putc(&o->line, ':'));
		DL_TRY(json_value(&o->line, o->cols[i].kind, values[i]));
	}
	return dl_buf_putc(&o->line, '}');
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
static char *table_cell(dl_arena *a, const char *v)
{
	if (!v) return dl_arena_strdup(a, "NULL");
	size_t extra = 0;
	for (const char *p = v; *p; p++) extra += (unsigned char)*p < 0x20 ? 3 : 0;
	size_t n = strlen(v);
	char *out = dl_arena_alloc(a, n + extra + 1);
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

static int put_spaces(dl_buf *b, size_t n)
{
	static const char spaces[] = "                                                                ";
	while (n > 0) {
		size_t k = n < sizeof spaces - 1 ? n : sizeof spaces - 1;
		DL_TRY(dl_buf_append(b, spaces, k));
		n -= k;
	}
	return 0;
}

static int put_padded(dl_buf *b, const char *s, size_t width, bool right, bool last)
{
	size_t w = display_width(s);
	size_t pad = w < width ? width - w : 0;
	if (right) {
		DL_TRY(put_spaces(b, pad));
		return dl_buf_puts(b, s);
	}
	DL_TRY(dl_buf_puts(b, s));
	return last ? 0 : put_spaces(b, pad); /* no trailing blanks */
}

static int table_line(dl_out *o, char *const *cells)
{
	for (int i = 0; i < o->ncols; i++) {
		if (i) DL_TRY(dl_buf_puts(&o->line, "  "));
		bool right = o->cols[i].kind == DL_OUT_NUMBER;
		DL_TRY(put_padded(&o->line, cells[i], o->width[i], right, i == o->ncols - 1));
	}
	return dl_buf_putc(&o->line, '\n');
}

static int flush_line(dl_out *o)
{
	if (o->line.len && fwrite(o->line.data, 1, o->line.len, o->fp) != o->line.len)
		return dl_error_set(DL_EIO, "writing the output failed: %s", strerror(errno));
	dl_buf_clear(&o->line);
	return 0;
}

static int table_header(dl_out *o)
{
	for (int i = 0; i < o->ncols; i++) {
		size_t w = display_width(o->cols[i].name);
		if (w > o->width[i]) o->width[i] = w;
	}
	for (int i = 0; i < o->ncols; i++) {
		if (i) DL_TRY(dl_buf_puts(&o->line, "  "));
		bool right = o->cols[i].kind == DL_OUT_NUMBER;
		DL_TRY(put_padded(&o->line, o->cols[i].name, o->width[i], right, i == o->ncols - 1));
	}
	DL_TRY(dl_buf_putc(&o->line, '\n'));
	for (int i = 0; i < o->ncols; i++) {
		if (i) DL_TRY(dl_buf_puts(&o->line, "  "));
		for (size_t k = 0; k < o->width[i]; k++) DL_TRY(dl_buf_putc(&o->line, '-'));
	}
	DL_TRY(dl_buf_putc(&o->line, '\n'));
	o->header_done = true;
	return flush_line(o);
}

/* Prints the kept rows with the widths they need, then forgets them. */
static int table_flush_window(dl_out *o)
{
	if (!o->header_done) DL_TRY(table_header(o));
	for (int64_t r = 0; r < o->nkept; r++) {
		DL_TRY(table_line(o, o->kept[r]));
		DL_TRY(flush_line(o));
	}
	o->nkept = 0;
	dl_arena_reset(&o->arena);
	return 0;
}

static int table_row(dl_out *o, const char *const *values)
{
	dl_arena *a = &o->arena;
	char **cells = dl_arena_alloc(a, sizeof *cells * (size_t)o->ncols);
	if (!cells) return DL_ENOMEM;
	for (int i = 0; i < o->ncols; i++) {
		cells[i] = table_cell(a, values[i]);
		if (!cells[i]) return DL_ENOMEM;
	}
	if (o->header_done) { /* past the first window: stream */
		DL_TRY(table_line(o, cells));
		DL_TRY(flush_line(o));
		dl_arena_reset(a);
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
	if (o->rows) DL_TRY(dl_buf_putc(&o->line, '\n'));
	for (int i = 0; i < o->ncols; i++) {
		const char *cell = table_cell(&o->arena, values[i]);
		if (!cell) return DL_ENOMEM;
		DL_TRY(put_padded(&o->line, o->cols[i].name, width, false, false));
		DL_TRY(dl_buf_puts(&o->line, "  "));
		DL_TRY(dl_buf_puts(&o->line, cell));
		DL_TRY(dl_buf_putc(&o->line, '\n'));
	}
	dl_arena_reset(&o->arena);
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
			const char **names = (const char **)dl_calloc((size_t)o->ncols, sizeof *names);
			if (!names) return DL_ENOMEM;
			for (int i = 0; i < o->ncols; i++) names[i] = o->cols[i].name;
			rc = csv_line(o, names);
			dl_free(names);
		}
		if (rc == 0) rc = csv_line(o, values);
		break;
	case DL_OUT_JSONL:
		rc = json_object(o, values);
		if (rc == 0) rc = dl_buf_putc(&o->line, '\n');
		break;
	case DL_OUT_JSON:
		rc = dl_buf_puts(&o->line, o->rows ? ",\n" : "[\n");
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
	if (o->ncols != 2) return dl_error_set(DL_EINVALID, "dl_out_kv needs an output of two columns");
	return dl_out_row(o, v);
}

static int finish(dl_out *o)
{
	switch (o->format) {
	case DL_OUT_TABLE:
		DL_TRY(table_flush_window(o));
		break;
	case DL_OUT_CSV:
		if (o->rows == 0) { /* the header alone still tells the columns */
			for (int i = 0; i < o->ncols; i++) {
				if (i) DL_TRY(dl_buf_putc(&o->line, ','));
				DL_TRY(csv_put(&o->line, o->cols[i].name));
			}
			DL_TRY(dl_buf_putc(&o->line, '\n'));
		}
		break;
	case DL_OUT_JSONL:
		break;
	case DL_OUT_JSON:
		DL_TRY(dl_buf_puts(&o->line, o->rows ? "\n]\n" : "[]\n"));
		break;
	case DL_OUT_VERTICAL:
		break;
	}
	DL_TRY(flush_line(o));
	if (fflush(o->fp) != 0 || ferror(o->fp))
		return dl_error_set(DL_EIO, "writing the output failed: %s", strerror(errno));
	return 0;
}

int dl_out_end(dl_out *o)
{
	if (!o) return 0;
	int rc = finish(o);
	dl_out_free(o);
	return rc;
}

/* ---- batches ---- */

int dl_out_begin_schema(dl_out **out, FILE *fp, dl_out_format format, const dl_type *schema)
{
	*out = NULL;
	if (!schema || schema->id != DL_TYPE_STRUCT)
		return dl_error_set(DL_EINVALID, "batch output needs a struct schema");
	int n = schema->nchildren;
	bool json = format == DL_OUT_JSONL || format == DL_OUT_JSON;
	dl_out_column *cols = dl_calloc(n ? (size_t)n : 1, sizeof *cols);
	if (!cols) return DL_ENOMEM;
	for (int i = 0; i < n; i++) {
		cols[i].name = schema->children[i].name;
		/* JSON cells come rendered already; in tables numbers align right. */
		cols[i].kind = json ? DL_OUT_JSON_TEXT
		               : dl_type_is_numeric(schema->children[i].type) ? DL_OUT_NUMBER : DL_OUT_STRING;
	}
	int rc = dl_out_begin(out, fp, format, cols, n);
	dl_free(cols);
	if (rc < 0) return rc;
	(*out)->cells = dl_calloc((size_t)n, sizeof *(*out)->cells);
	(*out)->values = dl_calloc((size_t)n, sizeof *(*out)->values);
	if (!(*out)->cells || !(*out)->values) {
		dl_out_free(*out);
		*out = NULL;
		return DL_ENOMEM;
	}
	return 0;
}

int dl_out_batch(dl_out *o, const dl_batch *b)
{
	if (!o->cells || b->ncols != o->ncols)
		return dl_error_set(DL_EINVALID, "batch of %d columns written to an output of %d (use dl_out_begin_schema)",
		                    b->ncols, o->ncols);
	bool json = o->format == DL_OUT_JSONL || o->format == DL_OUT_JSON;
	for (int64_t r = 0; r < b->num_rows; r++) {
		for (int i = 0; i < o->ncols; i++) {
			const dl_array *a = b->cols[i];
			if (!dl_array_is_valid(a, r)) {
				o->values[i] = NULL; /* each format spells null its own way */
				continue;
			}
			dl_buf *cell = &o->cells[i];
			dl_buf_clear(cell);
			DL_TRY(json ? dl_format_value_json(cell, a, r) : dl_format_value(cell, a, r));
			o->values[i] = cell->data ? cell->data : "";
		}
		DL_TRY(dl_out_row(o, o->values));
	}
	return 0;
}
