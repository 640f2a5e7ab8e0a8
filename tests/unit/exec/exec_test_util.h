/* Test helpers for the operators: batches from rows written as text
 * ("1|abc|NULL", cells cast from string to each column's type with Spark's
 * cast), results collected as the same text, compared as ordered lists or
 * as sorted row sets. */
#ifndef DL_TEST_EXEC_UTIL_H
#define DL_TEST_EXEC_UTIL_H
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "columnar/format_value.h"
#include "exec/exec.h"
#include "exec/op.h"
#include "expr/eval.h"

/* A schema from "name type, name type, ..." (types: int long double string
 * boolean date timestamp_ntz decimal(p,s)). */
static inline dl_type *tu_type(const char *t)
{
	if (!strncmp(t, "decimal(", 8)) {
		int p = 0, s = 0;
		sscanf(t + 8, "%d,%d", &p, &s);
		return dl_type_decimal(p, s);
	}
	static const struct { const char *n; dl_type_id id; } m[] = {
		{"int", DL_TYPE_INTEGER}, {"long", DL_TYPE_LONG}, {"double", DL_TYPE_DOUBLE}, {"string", DL_TYPE_STRING},
		{"boolean", DL_TYPE_BOOLEAN}, {"date", DL_TYPE_DATE}, {"timestamp_ntz", DL_TYPE_TIMESTAMP_NTZ},
		{"timestamp", DL_TYPE_TIMESTAMP}, {"short", DL_TYPE_SHORT}, {"byte", DL_TYPE_BYTE}, {"float", DL_TYPE_FLOAT}};
	for (size_t i = 0; i < sizeof m / sizeof m[0]; i++)
		if (!strcmp(t, m[i].n)) return dl_type_new(m[i].id);
	return NULL;
}

static inline dl_type *tu_schema(const char *spec)
{
	char *s = strdup(spec), *save = NULL;
	const char *names[32];
	dl_type *types[32];
	int n = 0;
	for (char *f = strtok_r(s, ",", &save); f; f = strtok_r(NULL, ",", &save)) {
		while (*f == ' ') f++;
		char *sp = strchr(f, ' ');
		*sp = 0;
		char *ty = sp + 1;
		/* decimal(p,s) was split at its comma: glue it back */
		if (!strncmp(ty, "decimal(", 8) && !strchr(ty, ')')) {
			char *rest = strtok_r(NULL, ",", &save);
			ty[strlen(ty)] = ',';
			(void)rest;
		}
		names[n] = f;
		types[n++] = tu_type(ty);
	}
	dl_type *st = dl_exec_struct(names, types, NULL, n);
	for (int i = 0; i < n; i++) dl_type_unref(types[i]);
	free(s);
	return st;
}

/* A batch of `schema` from rows "a|b|c". */
static inline dl_batch *tu_batch(dl_type *schema, const char *const *rows, int n)
{
	int nc = schema->nchildren;
	dl_batch *b = dl_batch_new(schema, n);
	dl_type *str = dl_type_new(DL_TYPE_STRING);
	dl_buf scratch = DL_BUF_INIT;
	for (int c = 0; c < nc; c++) {
		dl_builder *bl;
		dl_builder_new(&bl, schema->children[c].type);
		for (int r = 0; r < n; r++) {
			const char *p = rows[r];
			for (int k = 0; k < c; k++) p = strchr(p, '|') + 1;
			const char *e = strchr(p, '|');
			size_t len = e ? (size_t)(e - p) : strlen(p);
			ex_val v = {0};
			v.null = len == 4 && !memcmp(p, "NULL", 4);
			v.v.s.p = p;
			v.v.s.n = (int64_t)len;
			dl_buf_clear(&scratch);
			if (ex_cast_into(bl, &v, str, schema->children[c].type, false, dl_tz_utc(), &scratch) < 0) {
				fprintf(stderr, "bad cell %.*s: %s\n", (int)len, p, dl_error_last()->message);
				abort();
			}
		}
		dl_builder_finish(&b->cols[c], bl);
		dl_builder_free(bl);
	}
	dl_buf_free(&scratch);
	dl_type_unref(str);
	return b;
}

/* A stream of rows split into batches of per_batch rows. */
static inline dl_batch_stream *tu_stream(const char *spec, const char *const *rows, int n, int per_batch)
{
	dl_type *schema = tu_schema(spec);
	int nb = per_batch > 0 ? (n + per_batch - 1) / per_batch : 0;
	dl_batch **bs = calloc((size_t)nb + 1, sizeof *bs);
	for (int i = 0; i < nb; i++) {
		int k = n - i * per_batch < per_batch ? n - i * per_batch : per_batch;
		bs[i] = tu_batch(schema, rows + i * per_batch, k);
	}
	dl_batch_stream *s;
	if (dl_batch_stream_from_batches(&s, schema, bs, nb) < 0) abort();
	free(bs);
	dl_type_unref(schema);
	return s;
}

static inline dl_expr *tu_expr(const char *sql)
{
	dl_expr *e;
	if (dl_expr_parse(&e, sql) < 0) {
		fprintf(stderr, "parse %s: %s\n", sql, dl_error_last()->message);
		abort();
	}
	return e;
}

/* One cell as text: NULL, doubles that are whole numbers without ".0" (as
 * JavaScript prints them, for the DuckDB oracle), everything else as
 * dl_format_value prints it. */
static inline void tu_cell(dl_buf *out, const dl_array *a, int64_t r)
{
	if (!dl_array_is_valid(a, r)) {
		dl_buf_puts(out, "NULL");
		return;
	}
	if (a->type->id == DL_TYPE_DOUBLE || a->type->id == DL_TYPE_FLOAT) {
		double d = a->type->id == DL_TYPE_DOUBLE ? ((const double *)a->values)[r] : ((const float *)a->values)[r];
		if (isfinite(d) && d == floor(d) && fabs(d) < 1e21) {
			dl_buf_printf(out, "%.0f", d == 0 ? 0.0 : d);
			return;
		}
	}
	dl_format_value(out, a, r);
}

/* Every row of the stream as "a|b|c" lines (the stream is freed); the
 * return code of the first failure, or the line count. */
static inline int tu_collect(dl_batch_stream *s, char ***lines_out)
{
	char **lines = NULL;
	int n = 0, cap = 0, rc = 0;
	for (;;) {
		dl_batch *b;
		if ((rc = dl_batch_stream_next(s, &b)) < 0 || !b) break;
		if (!dl_type_equals(b->schema, dl_batch_stream_schema(s)) && b->ncols != dl_batch_stream_schema(s)->nchildren) abort();
		for (int64_t r = 0; r < b->num_rows; r++) {
			dl_buf line = DL_BUF_INIT;
			for (int c = 0; c < b->ncols; c++) {
				if (c) dl_buf_putc(&line, '|');
				tu_cell(&line, b->cols[c], r);
			}
			if (n == cap) { /* doubling: one realloc per line is quadratic under ASan */
				cap = cap ? 2 * cap : 1024;
				lines = realloc(lines, (size_t)cap * sizeof *lines);
				if (!lines) abort();
			}
			lines[n++] = line.data ? line.data : strdup("");
		}
		dl_batch_free(b);
	}
	dl_batch_stream_free(s);
	*lines_out = lines;
	return rc < 0 ? rc : n;
}

static inline int tu_strcmp(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static inline void tu_free_lines(char **l, int n)
{
	for (int i = 0; i < n; i++) free(l[i]);
	free(l);
}

/* Asserts the stream yields exactly `want` (sorted first unless ordered). */
#define tu_expect(stream, ordered, ...)                                                          \
	do {                                                                                         \
		const char *want_[] = {__VA_ARGS__};                                                     \
		int nw_ = (int)(sizeof want_ / sizeof want_[0]);                                         \
		if (nw_ == 1 && !strcmp(want_[0], "<none>")) nw_ = 0;                                    \
		tu_expect_(stream, ordered, want_, nw_);                                                 \
	} while (0)

static inline void tu_expect_(dl_batch_stream *s, bool ordered, const char **want, int nw)
{
	char **got;
	int n = tu_collect(s, &got);
	if (n < 0) fail_msg("stream failed: %s", dl_error_last()->message);
	const char **w = malloc(sizeof *w * (size_t)(nw + 1));
	memcpy(w, want, sizeof *w * (size_t)nw);
	if (!ordered && n > 1) qsort(got, (size_t)n, sizeof *got, tu_strcmp);
	if (!ordered && nw > 1) qsort(w, (size_t)nw, sizeof *w, tu_strcmp);
	bool ok = n == nw;
	for (int i = 0; ok && i < n; i++) ok = !strcmp(got[i], w[i]);
	if (!ok) {
		fprintf(stderr, "got %d rows:\n", n);
		for (int i = 0; i < n; i++) fprintf(stderr, "  %s\n", got[i]);
		fprintf(stderr, "want %d rows:\n", nw);
		for (int i = 0; i < nw; i++) fprintf(stderr, "  %s\n", w[i]);
	}
	tu_free_lines(got, n);
	free(w);
	assert_true(ok);
}

#endif
