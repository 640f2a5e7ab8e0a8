/* CSV input (RFC 4180 by default: a header line, ',' separated, '"'
 * quoting with "" for a quote, LF or CRLF line ends; the delimiter, the
 * quote, a null string and the header are options). An empty unquoted
 * field is NULL. Malformed input is an error naming the file, line and
 * column: an unclosed quote, text after a closing quote, a quote inside an
 * unquoted field, a record with more or fewer fields than the header. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include "columnar/builder.h"
#include "columnar/name_index.h"
#include "io/input.h"
#include "log/schema.h"
#include "util/buf.h"
#include "util/error.h"
#include "util/mem.h"
#include "util/time.h"

#define INFER_ROWS 1000

typedef struct csv_state {
	dl_io_input *in;
	char delim, quote;
	char *null_string;  /* or NULL */
	size_t null_len;
	int64_t batch_rows;
	size_t batch_text;  /* input bytes a batch stops at (SIZE_MAX: none) */
	size_t pos;
	int64_t line;
	dl_type *schema;
	dl_builder **b;
	int ncols;
	bool header;
	dl_buf field;
	dl_buf err;
} csv_state;

/* The next field at *pos: its text (unescaped into tmp when quoted), and
 * whether it ends the record. 1: a field, 0: the end of the input, < 0: a
 * malformed field (DL_EINVALID; the caller names file, line and column).
 * RFC 4180 exactly: a quoted field ends at a lone quote followed by the
 * delimiter, a line end or the end of the input (anything else after it
 * is an error, as is a quote inside an unquoted field and a quote never
 * closed); line ends inside quotes are part of the field and counted in
 * *line so errors name the right line. */
static int next_field(const csv_state *st, const char *d, size_t len, size_t *pos, int64_t *line, dl_buf *tmp,
                      const char **s, size_t *n, bool *quoted, bool *eol)
{
	const char delim = st->delim, quote = st->quote;
	size_t p = *pos;
	if (p >= len) return 0;
	*quoted = false;
	if (quote && d[p] == quote) {
		*quoted = true;
		dl_buf_clear(tmp);
		int64_t opened = *line;
		p++;
		for (;;) {
			const char *q = memchr(d + p, quote, len - p);
			if (!q)
				return dl_error_set(DL_EINVALID, "the quoted field opened on line %lld is never closed",
				                    (long long)opened);
			size_t end = (size_t)(q - d);
			for (const char *nl = memchr(d + p, '\n', end - p); nl; nl = memchr(nl + 1, '\n', (size_t)(q - nl - 1)))
				(*line)++;
			dl_buf_append(tmp, d + p, end - p);
			p = end + 1;
			if (p >= len || d[p] != quote) break;
			dl_buf_putc(tmp, quote);
			p++;
		}
		*s = tmp->data ? tmp->data : "";
		*n = tmp->len;
		if (p < len && d[p] == '\r' && (p + 1 >= len || d[p + 1] == '\n')) p++;
		if (p < len && d[p] != delim && d[p] != '\n')
			return dl_error_set(DL_EINVALID, "'%c' after the closing quote of a quoted field (a quote inside a "
			                    "quoted field is written twice: \"\")",
			                    d[p]);
	} else {
		size_t start = p;
		while (p < len && d[p] != delim && d[p] != '\n') {
			if (quote && d[p] == quote)
				return dl_error_set(DL_EINVALID, "a quote inside an unquoted field (quote the whole field and "
				                    "write the quote twice)");
			p++;
		}
		size_t end = p;
		if (end > start && d[end - 1] == '\r') end--;
		*s = d + start;
		*n = end - start;
	}
	*eol = p >= len || d[p] == '\n';
	*pos = p < len ? p + 1 : len;
	return 1;
}

typedef struct guess {
	bool can_long, can_double, can_bool, can_date, can_ts, any;
} guess;

static void observe(guess *g, const char *s, size_t n)
{
	if (n == 0) return;
	g->any = true;
	int64_t i;
	double d;
	int32_t days;
	char tmp[64];
	bool fits = n < sizeof tmp;
	if (fits) {
		memcpy(tmp, s, n);
		tmp[n] = 0;
	}
	char *end;
	if (g->can_long) g->can_long = fits && (i = strtoll(tmp, &end, 10), *end == 0) && tmp[0] != '+';
	if (g->can_double) g->can_double = fits && (d = strtod(tmp, &end), *end == 0);
	(void)i;
	(void)d;
	if (g->can_bool) g->can_bool = (n == 4 && strncasecmp(s, "true", 4) == 0) ||
	                               (n == 5 && strncasecmp(s, "false", 5) == 0);
	if (g->can_date) g->can_date = n == 10 && dl_date_parse(&days, s, n) == 0;
	int64_t us;
	if (g->can_ts) g->can_ts = n > 10 && memchr(s, ':', n) && dl_timestamp_parse(&us, s, n, NULL) == 0;
}

/* NULL: an empty unquoted field, or one spelled as the null string. */
static bool is_null(const csv_state *st, const char *s, size_t n, bool quoted)
{
	if (quoted) return false;
	return n == 0 || (st->null_string && n == st->null_len && memcmp(s, st->null_string, n) == 0);
}

static dl_type *guessed_type(const guess *g)
{
	dl_type_id id = !g->any ? DL_TYPE_STRING
	                : g->can_long ? DL_TYPE_LONG
	                : g->can_double ? DL_TYPE_DOUBLE
	                : g->can_bool ? DL_TYPE_BOOLEAN
	                : g->can_date ? DL_TYPE_DATE
	                : g->can_ts ? DL_TYPE_TIMESTAMP : DL_TYPE_STRING;
	return dl_type_new(id);
}

static int read_header(csv_state *st, char ***names)
{
	const char *d = st->in->data, *s;
	size_t len = st->in->len, n;
	bool quoted, eol = false;
	int cap = 0;
	*names = NULL;
	if (len >= 3 && memcmp(d, "\xEF\xBB\xBF", 3) == 0) st->pos = 3; /* a UTF-8 byte order mark */
	size_t start = st->pos;
	int64_t line = 1;
	int fr;
	while (!eol && (fr = next_field(st, d, len, &st->pos, &line, &st->field, &s, &n, &quoted, &eol)) > 0) {
		if (st->ncols == cap) {
			cap = cap ? cap * 2 : 16;
			char **nn = dl_reallocarray(*names, (size_t)cap, sizeof *nn);
			if (!nn) return DL_ENOMEM;
			*names = nn;
		}
		(*names)[st->ncols] = dl_strndup(s, n);
		if (!(*names)[st->ncols++]) return DL_ENOMEM;
	}
	if (fr < 0) return dl_error_prefix("%s: line 1, field %d", st->in->path, st->ncols + 1);
	st->line = line;
	if (!st->header) {
		/* Spark's names for headerless files; the line is data. */
		for (int c = 0; c < st->ncols; c++) {
			char name[24];
			snprintf(name, sizeof name, "_c%d", c);
			dl_free((*names)[c]);
			(*names)[c] = dl_strdup(name);
			if (!(*names)[c]) return DL_ENOMEM;
		}
		st->pos = start;
		st->line = 0;
		if (st->ncols == 0) return dl_error_set(DL_EINVALID, "%s: the CSV file is empty", st->in->path);
		return 0;
	}
	if (st->ncols == 0 || (st->ncols == 1 && !(*names)[0][0]))
		return dl_error_set(DL_EINVALID, "%s: the CSV file has no header line", st->in->path);
	return 0;
}

/* Types: the table's for its columns, else guessed from the first rows. */
/* Type widening: the table's types of the columns in from_table widened
 * to hold every value of the file (input.h). A malformed record ends the
 * pass; reading reports it, as it does a value no widening holds. */
static int widen_columns(csv_state *st, dl_field *fs, const bool *from_table)
{
	bool any = false;
	for (int c = 0; c < st->ncols; c++) any = any || (from_table[c] && dl_io_widenable(fs[c].type));
	if (!any) return 0;
	size_t p = st->pos;
	const char *s;
	size_t n;
	bool quoted, eol;
	int64_t line = 0;
	int c = 0, rc = 0, fr;
	while (rc == 0 &&
	       (fr = next_field(st, st->in->data, st->in->len, &p, &line, &st->field, &s, &n, &quoted, &eol)) > 0) {
		if (c < st->ncols && from_table[c] && !is_null(st, s, n, quoted))
			rc = dl_io_widen_for_text(&fs[c].type, s, n);
		if (eol) dl_io_input_release(st->in, p); /* reading comes back, from the page cache */
		c = eol ? 0 : c + 1;
	}
	if (rc == 0 && fr < 0) dl_error_clear(); /* malformed: reading reports it again */
	return rc;
}

static int build_schema(csv_state *st, char **names, const dl_type *table, bool widen)
{
	guess *g = dl_calloc((size_t)st->ncols, sizeof *g);
	dl_field *fs = dl_calloc((size_t)st->ncols, sizeof *fs);
	bool *from_table = dl_calloc((size_t)st->ncols + 1, sizeof *from_table);
	if (!g || !fs || !from_table) {
		dl_free(g);
		dl_free(fs);
		dl_free(from_table);
		return DL_ENOMEM;
	}
	for (int c = 0; c < st->ncols; c++)
		g[c] = (guess){true, true, true, true, true, false};
	size_t p = st->pos;
	const char *s;
	size_t n;
	bool quoted, eol;
	int64_t line = 0;
	/* a malformed field ends the sample; reading reports it */
	for (int r = 0, c = 0; r < INFER_ROWS && next_field(st, st->in->data, st->in->len, &p, &line, &st->field, &s, &n,
	                                                    &quoted, &eol) > 0;) {
		if (c < st->ncols) observe(&g[c], s, is_null(st, s, n, quoted) || (quoted && n == 0) ? 0 : n);
		c++;
		if (eol) {
			c = 0;
			r++;
		}
	}
	dl_name_index ix;
	int rc = table ? dl_name_index_init(&ix, table) : 0;
	for (int c = 0; c < st->ncols && rc == 0; c++) {
		fs[c].name = names[c];
		fs[c].nullable = true;
		fs[c].metadata = (char *)"{}";
		int k = table ? dl_name_index_find(&ix, names[c]) : -1;
		from_table[c] = k >= 0 && dl_type_is_primitive(table->children[k].type) &&
		                table->children[k].type->id != DL_TYPE_NULL;
		fs[c].type = from_table[c] ? dl_type_ref(table->children[k].type) : guessed_type(&g[c]);
		if (!fs[c].type) rc = DL_ENOMEM;
	}
	if (table) dl_name_index_free(&ix);
	if (rc == 0 && widen) rc = widen_columns(st, fs, from_table);
	if (rc == 0) {
		st->schema = dl_type_struct(fs, st->ncols);
		if (!st->schema) rc = DL_ENOMEM;
	}
	for (int c = 0; c < st->ncols; c++) dl_type_unref(fs[c].type);
	dl_free(fs);
	dl_free(g);
	dl_free(from_table);
	return rc;
}

static const dl_type *csv_schema(dl_batch_stream *s)
{
	return ((csv_state *)s->private_data)->schema;
}

static int csv_next(dl_batch_stream *s, dl_batch **out)
{
	csv_state *st = s->private_data;
	*out = NULL;
	const char *d = st->in->data, *v;
	size_t len = st->in->len, n;
	bool quoted, eol;
	int64_t rows = 0;
	size_t start = st->pos;
	while (rows < st->batch_rows && st->pos - start < st->batch_text && st->pos < len) {
		if (d[st->pos] == '\n' || (d[st->pos] == '\r' && st->pos + 1 < len && d[st->pos + 1] == '\n')) {
			st->pos += d[st->pos] == '\n' ? 1 : 2; /* blank line */
			st->line++;
			continue;
		}
		st->line++;
		int64_t first_line = st->line;
		int c = 0, fr;
		eol = false;
		while (!eol && (fr = next_field(st, d, len, &st->pos, &st->line, &st->field, &v, &n, &quoted, &eol)) > 0) {
			if (c >= st->ncols)
				return dl_error_set(DL_EINVALID, "%s: line %lld has more than the %d fields of "
				                                  "the header", st->in->path, (long long)first_line, st->ncols);
			int rc = is_null(st, v, n, quoted) ? dl_builder_append_null(st->b[c])
			                                   : dl_io_append_text(st->b[c], v, n);
			if (rc < 0)
				return dl_error_prefix("%s: line %lld, column %s", st->in->path,
				                       (long long)first_line, st->schema->children[c].name);
			c++;
		}
		if (fr < 0) {
			if (c < st->ncols)
				return dl_error_prefix("%s: line %lld, column %s", st->in->path, (long long)first_line,
				                       st->schema->children[c].name);
			return dl_error_prefix("%s: line %lld, field %d", st->in->path, (long long)first_line, c + 1);
		}
		/* a short record is malformed too: padding it with NULLs would invent
		 * values for the fields it lacks */
		if (c < st->ncols)
			return dl_error_set(DL_EINVALID, "%s: line %lld has %d field%s, the header has %d (a missing value is "
			                    "written as an empty field)",
			                    st->in->path, (long long)first_line, c, c == 1 ? "" : "s", st->ncols);
		rows++;
	}
	/* the builders hold copies of every value: nothing before pos is
	 * looked at again (errors name lines by number, not by text) */
	dl_io_input_release(st->in, st->pos);
	if (rows == 0) return 0;
	dl_batch *b = dl_batch_new(st->schema, rows);
	if (!b) return dl_error_last()->code;
	for (int c = 0; c < st->ncols; c++) {
		int rc = dl_builder_finish(&b->cols[c], st->b[c]);
		if (rc < 0) {
			dl_batch_free(b);
			return rc;
		}
	}
	*out = b;
	return 0;
}

static void csv_release(dl_batch_stream *s)
{
	csv_state *st = s->private_data;
	for (int c = 0; st->b && c < st->ncols; c++) dl_builder_free(st->b[c]);
	dl_free(st->b);
	dl_type_unref(st->schema);
	dl_buf_free(&st->field);
	dl_buf_free(&st->err);
	dl_io_input_free(st->in);
	dl_free(st->null_string);
	dl_free(st);
	dl_free(s);
}

int dl_io_csv_stream(dl_batch_stream **out, dl_io_input *in, const dl_type *table, const dl_io_csv_format *fmt,
                     int64_t batch_rows, bool widen)
{
	*out = NULL;
	dl_io_csv_format defaults = DL_IO_CSV_FORMAT_INIT;
	if (!fmt) fmt = &defaults;
	if (fmt->delimiter == '\n' || fmt->delimiter == '\r' || fmt->quote == '\n' || fmt->quote == '\r' ||
	    fmt->delimiter == fmt->quote || !fmt->delimiter) {
		dl_io_input_free(in);
		return dl_error_set(DL_EINVALID, "CSV delimiter and quote must be two different characters, not line "
		                    "ends or NUL");
	}
	dl_batch_stream *s = dl_calloc(1, sizeof *s);
	csv_state *st = dl_calloc(1, sizeof *st);
	if (!s || !st) {
		dl_free(s);
		dl_free(st);
		dl_io_input_free(in);
		return DL_ENOMEM;
	}
	st->in = in;
	st->delim = fmt->delimiter;
	st->quote = fmt->quote; /* NUL: no quoting */
	st->header = fmt->header;
	st->batch_rows = batch_rows > 0 ? batch_rows : DL_IO_BATCH_ROWS;
	st->batch_text = batch_rows > 0 ? SIZE_MAX : DL_IO_BATCH_TEXT;
	s->private_data = st;
	s->schema = csv_schema;
	s->next = csv_next;
	s->release = csv_release;
	int rc = 0;
	if (fmt->null_string) {
		st->null_string = dl_strdup(fmt->null_string);
		st->null_len = strlen(fmt->null_string);
		if (!st->null_string) rc = DL_ENOMEM;
	}
	char **names = NULL;
	if (rc == 0) rc = read_header(st, &names);
	if (rc == 0) rc = build_schema(st, names, table, widen);
	for (int c = 0; names && c < st->ncols; c++) dl_free(names[c]);
	dl_free(names);
	if (rc == 0) {
		st->b = dl_calloc((size_t)st->ncols, sizeof *st->b);
		if (!st->b) rc = DL_ENOMEM;
	}
	for (int c = 0; rc == 0 && c < st->ncols; c++)
		rc = dl_builder_new(&st->b[c], st->schema->children[c].type);
	if (rc < 0) {
		csv_release(s);
		return rc;
	}
	*out = s;
	return 0;
}
