/* Spark SQL column definitions -> a Delta schema (see ddl.h). A small
 * recursive-descent parser: types nest through STRUCT<>, ARRAY<> and MAP<>,
 * and column options may come in any order, as Spark's grammar allows. */
#include "ops/ddl.h"
#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include "expr/type_parse.h"
#include "json/json.h"
#include "json/utf8.h"
#include "log/schema.h"
#include "util/buf.h"
#include "util/error.h"
#include "util/mem.h"

typedef struct ddl {
	const char *text;
	const char *p;
} ddl;

/* Deep nesting comes only from hostile text; Spark's own limit is lower. */
#define DDL_MAX_DEPTH 64

static int fail(ddl *d, const char *expected)
{
	const char *at = d->p;
	int n = 0;
	while (at[n] && n < 20) n++;
	return dl_error_set(DL_EINVALID, "schema: at character %d: expected %s, found %s%.*s%s",
	                    (int)(d->p - d->text) + 1, expected, *at ? "'" : "the end",
	                    n, at, *at ? (at[n] ? "...'" : "'") : "");
}

static void skip_ws(ddl *d)
{
	while (isspace((unsigned char)*d->p)) d->p++;
}

static bool is_word_char(char c)
{
	return isalnum((unsigned char)c) || c == '_';
}

/* Consumes keyword kw (case-insensitive, whole word) when it comes next. */
static bool accept_kw(ddl *d, const char *kw)
{
	skip_ws(d);
	size_t n = strlen(kw);
	if (strncasecmp(d->p, kw, n) != 0 || is_word_char(d->p[n])) return false;
	d->p += n;
	return true;
}

static bool accept_ch(ddl *d, char c)
{
	skip_ws(d);
	if (*d->p != c) return false;
	d->p++;
	return true;
}

static int expect_kw(ddl *d, const char *kw)
{
	return accept_kw(d, kw) ? 0 : fail(d, kw);
}

static int expect_ch(ddl *d, char c)
{
	char what[4] = {'\'', c, '\'', 0};
	return accept_ch(d, c) ? 0 : fail(d, what);
}

/* An identifier: a word, or `back quoted` with `` for a quote. */
static int ident(ddl *d, dl_buf *out)
{
	skip_ws(d);
	dl_buf_clear(out);
	if (*d->p == '`') {
		d->p++;
		for (;;) {
			if (!*d->p) return fail(d, "a closing '`'");
			if (*d->p == '`') {
				if (d->p[1] != '`') break;
				d->p++;
			}
			DL_TRY(dl_buf_putc(out, *d->p++));
		}
		d->p++;
		if (!out->len) return fail(d, "a non-empty column name");
		return 0;
	}
	const char *s = d->p;
	while (is_word_char(*d->p)) d->p++;
	if (d->p == s) return fail(d, "a column name");
	return dl_buf_append(out, s, (size_t)(d->p - s));
}

static int number(ddl *d, int64_t *out)
{
	skip_ws(d);
	const char *s = d->p;
	if (*d->p == '-' || *d->p == '+') d->p++;
	if (!isdigit((unsigned char)*d->p)) return fail(d, "a number");
	while (isdigit((unsigned char)*d->p)) d->p++;
	errno = 0;
	long long v = strtoll(s, NULL, 10);
	if (errno) return fail(d, "a number that fits in 64 bits");
	*out = v;
	return 0;
}

/* Skips a quoted literal starting at *d->p (', " or `). */
static int skip_quoted(ddl *d)
{
	char q = *d->p++;
	while (*d->p && *d->p != q) {
		if (*d->p == '\\' && q != '`' && d->p[1]) d->p++;
		d->p++;
	}
	if (!*d->p) return fail(d, "the end of a quoted literal");
	d->p++;
	return 0;
}

/* A SQL string literal ('...' or "..."), unescaped into out. */
static int string_lit(ddl *d, dl_buf *out)
{
	skip_ws(d);
	char q = *d->p;
	if (q != '\'' && q != '"') return fail(d, "a quoted string");
	dl_buf_clear(out);
	d->p++;
	while (*d->p != q) {
		if (!*d->p) return fail(d, "the end of the string");
		char c = *d->p++;
		if (c == '\\' && *d->p) {
			c = *d->p++;
			c = c == 'n' ? '\n' : c == 't' ? '\t' : c;
		}
		DL_TRY(dl_buf_putc(out, c));
	}
	d->p++;
	return 0;
}

/* The text of an expression up to a top-level stop: ')' closing the
 * caller's parenthesis (paren_end), or ',' / a column option keyword. */
static int expr_text(ddl *d, bool paren_end, dl_buf *out)
{
	skip_ws(d);
	const char *s = d->p;
	int depth = 0;
	for (;;) {
		char c = *d->p;
		if (!c) {
			if (paren_end) return fail(d, "')' closing the expression");
			break;
		}
		if (c == '\'' || c == '"' || c == '`') {
			DL_TRY(skip_quoted(d));
			continue;
		}
		if (c == '(') depth++;
		if (c == ')') {
			if (depth == 0) {
				if (paren_end) break;
				break;
			}
			depth--;
		}
		if (!paren_end && depth == 0) {
			if (c == ',') break;
			bool word_start = d->p == s || !is_word_char(d->p[-1]);
			if (word_start && (strncasecmp(d->p, "COMMENT", 7) == 0 ||
			                   strncasecmp(d->p, "NOT", 3) == 0 ||
			                   strncasecmp(d->p, "GENERATED", 9) == 0)) {
				size_t n = strncasecmp(d->p, "NOT", 3) == 0 ? 3
				           : strncasecmp(d->p, "COMMENT", 7) == 0 ? 7 : 9;
				if (!is_word_char(d->p[n])) break;
			}
		}
		d->p++;
	}
	const char *e = d->p;
	while (e > s && isspace((unsigned char)e[-1])) e--;
	if (e == s) return fail(d, "an expression");
	dl_buf_clear(out);
	return dl_buf_append(out, s, (size_t)(e - s));
}

/* Column types go through the one type grammar shared with CAST and the
 * SQL layer (expr/type_parse.c); it reads from the current offset. */
static int parse_type(ddl *d, dl_type **out, int depth)
{
	(void)depth;
	size_t pos = (size_t)(d->p - d->text);
	if (ex_parse_type_at(out, d->text, strlen(d->text), &pos) < 0) return dl_error_prefix("schema");
	d->p = d->text + pos;
	return 0;
}

/* The options of one top-level column, gathered before its metadata is
 * written. */
typedef struct col_opts {
	bool not_null;
	bool has_comment, has_generated, has_identity, has_default;
	bool identity_by_default;
	int64_t start, step;
	dl_buf comment, generated, deflt;
} col_opts;

static int parse_identity(ddl *d, col_opts *o)
{
	o->has_identity = true;
	o->start = 1;
	o->step = 1;
	if (!accept_ch(d, '(')) return 0;
	for (int i = 0; i < 2; i++) {
		if (accept_kw(d, "START")) {
			DL_TRY(expect_kw(d, "WITH"));
			DL_TRY(number(d, &o->start));
		} else if (accept_kw(d, "INCREMENT")) {
			DL_TRY(expect_kw(d, "BY"));
			DL_TRY(number(d, &o->step));
		}
	}
	DL_TRY(expect_ch(d, ')'));
	if (o->step == 0)
		return dl_error_set(DL_EINVALID, "schema: an identity column's INCREMENT BY cannot be 0");
	return 0;
}

static int parse_generated(ddl *d, col_opts *o)
{
	bool by_default = false;
	if (accept_kw(d, "BY")) {
		DL_TRY(expect_kw(d, "DEFAULT"));
		by_default = true;
	} else {
		DL_TRY(expect_kw(d, "ALWAYS"));
	}
	DL_TRY(expect_kw(d, "AS"));
	if (accept_kw(d, "IDENTITY")) {
		o->identity_by_default = by_default;
		return parse_identity(d, o);
	}
	if (by_default)
		return fail(d, "IDENTITY (only identity columns can be GENERATED BY DEFAULT)");
	DL_TRY(expect_ch(d, '('));
	DL_TRY(expr_text(d, true, &o->generated));
	DL_TRY(expect_ch(d, ')'));
	o->has_generated = true;
	return 0;
}

static int parse_col_opts(ddl *d, col_opts *o)
{
	for (;;) {
		if (accept_kw(d, "NOT")) {
			DL_TRY(expect_kw(d, "NULL"));
			o->not_null = true;
		} else if (accept_kw(d, "COMMENT")) {
			DL_TRY(string_lit(d, &o->comment));
			o->has_comment = true;
		} else if (accept_kw(d, "GENERATED")) {
			DL_TRY(parse_generated(d, o));
		} else if (accept_kw(d, "DEFAULT")) {
			DL_TRY(expr_text(d, false, &o->deflt));
			o->has_default = true;
		} else {
			return 0;
		}
	}
}

static int col_metadata(const char *name, const dl_type *t, const col_opts *o, char **out)
{
	if ((o->has_identity ? 1 : 0) + (o->has_generated ? 1 : 0) + (o->has_default ? 1 : 0) > 1)
		return dl_error_set(DL_EINVALID,
		                    "schema: column %s: a column can be only one of generated, identity "
		                    "or with a default",
		                    name);
	if (o->has_identity && t->id != DL_TYPE_LONG)
		return dl_error_set(DL_EINVALID,
		                    "schema: identity column %s must be BIGINT (Delta identity columns "
		                    "are longs)",
		                    name);
	dl_buf b = DL_BUF_INIT;
	dl_json_writer w;
	dl_jw_init(&w, &b);
	dl_jw_object_begin(&w);
	if (o->has_comment) {
		dl_jw_key(&w, "comment");
		dl_jw_string_n(&w, o->comment.data ? o->comment.data : "", o->comment.len);
	}
	if (o->has_generated) {
		dl_jw_key(&w, DL_GENERATION_EXPRESSION_KEY);
		dl_jw_string(&w, o->generated.data);
	}
	if (o->has_identity) {
		dl_jw_key(&w, DL_IDENTITY_START_KEY);
		dl_jw_int(&w, o->start);
		dl_jw_key(&w, DL_IDENTITY_STEP_KEY);
		dl_jw_int(&w, o->step);
		dl_jw_key(&w, DL_IDENTITY_EXPLICIT_KEY);
		dl_jw_bool(&w, o->identity_by_default);
	}
	if (o->has_default) {
		dl_jw_key(&w, DL_DEFAULT_KEY);
		dl_jw_string(&w, o->deflt.data);
	}
	dl_jw_object_end(&w);
	int rc = dl_jw_finish(&w);
	if (rc < 0) {
		dl_buf_free(&b);
		return rc;
	}
	*out = dl_buf_detach(&b, NULL);
	return 0;
}

static void col_opts_free(col_opts *o)
{
	dl_buf_free(&o->comment);
	dl_buf_free(&o->generated);
	dl_buf_free(&o->deflt);
}

static int parse_column(ddl *d, dl_field *f, dl_buf *name)
{
	col_opts o;
	memset(&o, 0, sizeof o);
	int rc = ident(d, name);
	if (rc == 0) rc = parse_type(d, &f->type, 0);
	if (rc == 0) rc = parse_col_opts(d, &o);
	if (rc == 0) rc = col_metadata(name->data, f->type, &o, &f->metadata);
	if (rc == 0) {
		f->nullable = !o.not_null;
		f->name = dl_strdup(name->data);
		if (!f->name) rc = DL_ENOMEM;
	}
	col_opts_free(&o);
	return rc;
}

/* Names and comments end up in JSON: the text must be UTF-8. */
static int check_utf8(const char *text)
{
	const unsigned char *p = (const unsigned char *)text, *end = p + strlen(text);
	while (p < end) {
		size_t n = *p < 0x80 ? 1 : dl_json_utf8_len(p, end);
		if (!n)
			return dl_error_set(DL_EINVALID, "schema: byte %d is not valid UTF-8",
			                    (int)(p - (const unsigned char *)text) + 1);
		p += n;
	}
	return 0;
}

int dl_ddl_parse_schema(dl_type **out, const char *text)
{
	DL_TRY(check_utf8(text));
	ddl d = {text, text};
	dl_field *fs = NULL;
	int n = 0, cap = 0, rc = 0;
	dl_buf name = DL_BUF_INIT;
	skip_ws(&d);
	if (!*d.p) return dl_error_set(DL_EINVALID, "schema: the column list is empty");
	do {
		if (n == cap) {
			cap = cap ? cap * 2 : 8;
			dl_field *nf = dl_reallocarray(fs, (size_t)cap, sizeof *fs);
			if (!nf) { rc = DL_ENOMEM; goto out; }
			fs = nf;
		}
		memset(&fs[n], 0, sizeof fs[n]);
		rc = parse_column(&d, &fs[n], &name);
		n++;
		if (rc < 0) goto out;
	} while (accept_ch(&d, ','));
	skip_ws(&d);
	if (*d.p) {
		rc = fail(&d, "',' or the end of the column list");
		goto out;
	}
	*out = dl_type_struct(fs, n);
	if (!*out) rc = DL_ENOMEM;
out:
	for (int i = 0; i < n; i++) {
		dl_free(fs[i].name);
		dl_free(fs[i].metadata);
		if (fs[i].type) dl_type_unref(fs[i].type);
	}
	dl_free(fs);
	dl_buf_free(&name);
	return rc;
}

int dl_ddl_parse_type(dl_type **out, const char *text)
{
	DL_TRY(check_utf8(text));
	ddl d = {text, text};
	DL_TRY(parse_type(&d, out, 0));
	skip_ws(&d);
	if (*d.p) {
		dl_type_unref(*out);
		*out = NULL;
		return fail(&d, "the end of the type");
	}
	return 0;
}
