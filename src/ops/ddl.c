/* Spark SQL column definitions -> a Delta schema (see ddl.h). A small
 * recursive-descent parser: types nest through STRUCT<>, ARRAY<> and MAP<>,
 * and column options may come in any order, as Spark's grammar allows. */
#include "ops/ddl.h"
#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include "columnar/geo_type.h"
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

static int parse_type(ddl *d, dl_type **out, int depth);

/* The fields of STRUCT<name: type [NOT NULL] [COMMENT '...'], ...>. */
static int parse_struct_fields(ddl *d, dl_type **out, int depth)
{
	dl_field *fs = NULL;
	int n = 0, cap = 0, rc = 0;
	dl_buf name = DL_BUF_INIT, comment = DL_BUF_INIT, meta = DL_BUF_INIT;
	if (accept_ch(d, '>')) goto build;
	do {
		if (n == cap) {
			cap = cap ? cap * 2 : 4;
			dl_field *nf = dl_reallocarray(fs, (size_t)cap, sizeof *fs);
			if (!nf) { rc = DL_ENOMEM; goto out; }
			fs = nf;
		}
		dl_field *f = &fs[n];
		memset(f, 0, sizeof *f);
		if ((rc = ident(d, &name)) < 0) goto out;
		accept_ch(d, ':');
		if ((rc = parse_type(d, &f->type, depth + 1)) < 0) goto out;
		n++;
		f->nullable = true;
		dl_buf_clear(&meta);
		if ((rc = dl_buf_puts(&meta, "{}")) < 0) goto out;
		for (;;) {
			if (accept_kw(d, "NOT")) {
				if ((rc = expect_kw(d, "NULL")) < 0) goto out;
				f->nullable = false;
			} else if (accept_kw(d, "COMMENT")) {
				if ((rc = string_lit(d, &comment)) < 0) goto out;
				dl_json_writer w;
				dl_buf_clear(&meta);
				dl_jw_init(&w, &meta);
				dl_jw_object_begin(&w);
				dl_jw_key(&w, "comment");
				dl_jw_string_n(&w, comment.data ? comment.data : "", comment.len);
				dl_jw_object_end(&w);
				if ((rc = dl_jw_finish(&w)) < 0) goto out;
			} else {
				break;
			}
		}
		f->name = dl_strdup(name.data);
		f->metadata = dl_strdup(meta.data);
		if (!f->name || !f->metadata) { rc = DL_ENOMEM; goto out; }
	} while (accept_ch(d, ','));
	if ((rc = expect_ch(d, '>')) < 0) goto out;
build:
	*out = dl_type_struct(fs, n);
	if (!*out) rc = DL_ENOMEM;
out:
	for (int i = 0; i < n; i++) {
		dl_free(fs[i].name);
		dl_free(fs[i].metadata);
		dl_type_unref(fs[i].type);
	}
	dl_free(fs);
	dl_buf_free(&name);
	dl_buf_free(&comment);
	dl_buf_free(&meta);
	return rc;
}

static const struct {
	const char *name;
	dl_type_id id;
} sql_names[] = {
	{"TINYINT", DL_TYPE_BYTE}, {"BYTE", DL_TYPE_BYTE}, {"SMALLINT", DL_TYPE_SHORT},
	{"SHORT", DL_TYPE_SHORT}, {"INT", DL_TYPE_INTEGER}, {"INTEGER", DL_TYPE_INTEGER},
	{"BIGINT", DL_TYPE_LONG}, {"LONG", DL_TYPE_LONG}, {"FLOAT", DL_TYPE_FLOAT},
	{"REAL", DL_TYPE_FLOAT}, {"DOUBLE", DL_TYPE_DOUBLE}, {"STRING", DL_TYPE_STRING},
	{"VARCHAR", DL_TYPE_STRING}, {"CHAR", DL_TYPE_STRING}, {"BINARY", DL_TYPE_BINARY},
	{"BOOLEAN", DL_TYPE_BOOLEAN}, {"BOOL", DL_TYPE_BOOLEAN}, {"DATE", DL_TYPE_DATE},
	{"TIMESTAMP", DL_TYPE_TIMESTAMP}, {"TIMESTAMP_LTZ", DL_TYPE_TIMESTAMP},
	{"TIMESTAMP_NTZ", DL_TYPE_TIMESTAMP_NTZ}, {"VOID", DL_TYPE_NULL}, {"NULL", DL_TYPE_NULL},
	{"VARIANT", DL_TYPE_VARIANT},
};

static int parse_decimal(ddl *d, dl_type **out)
{
	int64_t p = 10, s = 0;
	if (accept_ch(d, '(')) {
		DL_TRY(number(d, &p));
		if (accept_ch(d, ',')) DL_TRY(number(d, &s));
		DL_TRY(expect_ch(d, ')'));
	}
	if (p < 1 || p > 38 || s < 0 || s > p)
		return dl_error_set(DL_EINVALID,
		                    "schema: DECIMAL(%lld,%lld) is out of range: precision must be "
		                    "1..38 and scale 0..precision",
		                    (long long)p, (long long)s);
	*out = dl_type_decimal((int)p, (int)s);
	return *out ? 0 : DL_ENOMEM;
}

/* GEOMETRY / GEOGRAPHY with Delta's parameters ("GEOMETRY(EPSG:3857)",
 * "GEOGRAPHY(OGC:CRS84, karney)"); omitted ones take the defaults, and the
 * schema gets them spelled out as Spark writes them. */
static int parse_geo(ddl *d, dl_type **out, dl_geo_kind kind)
{
	const char *kw = kind == DL_GEO_GEOMETRY ? "geometry" : "geography";
	if (!accept_ch(d, '(')) return dl_type_geo_from_parts(out, kind, NULL, -1);
	const char *s = d->p, *e = strchr(s, ')');
	if (!e || e - s > 1000) return fail(d, "a CRS and ')'");
	dl_buf text = DL_BUF_INIT;
	dl_geo_info g;
	int rc = dl_buf_printf(&text, "%s(%.*s)", kw, (int)(e - s), s);
	if (rc == 0) rc = dl_geo_parse(&g, text.data);
	char *crs = rc == 0 ? dl_strndup(g.crs, g.crs_len) : NULL;
	if (rc == 0 && !crs) rc = DL_ENOMEM;
	if (rc == 0) rc = dl_type_geo_from_parts(out, kind, crs, g.has_algorithm ? (int)g.algorithm : -1);
	if (rc < 0 && rc != DL_ENOMEM) dl_error_prefix("schema");
	dl_free(crs);
	dl_buf_free(&text);
	d->p = e + 1;
	return rc;
}

static int parse_type(ddl *d, dl_type **out, int depth)
{
	if (depth > DDL_MAX_DEPTH) return fail(d, "less deeply nested types");
	skip_ws(d);
	const char *s = d->p;
	while (is_word_char(*d->p)) d->p++;
	size_t n = (size_t)(d->p - s);
	if (!n) {
		d->p = s;
		return fail(d, "a data type");
	}
	char word[32];
	if (n >= sizeof word) {
		d->p = s;
		return fail(d, "a data type");
	}
	memcpy(word, s, n);
	word[n] = 0;
	if (strcasecmp(word, "DECIMAL") == 0 || strcasecmp(word, "DEC") == 0 ||
	    strcasecmp(word, "NUMERIC") == 0)
		return parse_decimal(d, out);
	if (strcasecmp(word, "GEOMETRY") == 0) return parse_geo(d, out, DL_GEO_GEOMETRY);
	if (strcasecmp(word, "GEOGRAPHY") == 0) return parse_geo(d, out, DL_GEO_GEOGRAPHY);
	if (strcasecmp(word, "STRUCT") == 0) {
		DL_TRY(expect_ch(d, '<'));
		return parse_struct_fields(d, out, depth);
	}
	if (strcasecmp(word, "ARRAY") == 0) {
		dl_type *e;
		DL_TRY(expect_ch(d, '<'));
		DL_TRY(parse_type(d, &e, depth + 1));
		int rc = expect_ch(d, '>');
		*out = rc < 0 ? NULL : dl_type_array(e, true);
		dl_type_unref(e);
		return rc < 0 ? rc : *out ? 0 : DL_ENOMEM;
	}
	if (strcasecmp(word, "MAP") == 0) {
		dl_type *k = NULL, *v = NULL;
		int rc = expect_ch(d, '<');
		if (rc == 0) rc = parse_type(d, &k, depth + 1);
		if (rc == 0) rc = expect_ch(d, ',');
		if (rc == 0) rc = parse_type(d, &v, depth + 1);
		if (rc == 0) rc = expect_ch(d, '>');
		if (rc == 0) {
			*out = dl_type_map(k, v, true);
			if (!*out) rc = DL_ENOMEM;
		}
		dl_type_unref(k);
		dl_type_unref(v);
		return rc;
	}
	for (size_t i = 0; i < sizeof sql_names / sizeof sql_names[0]; i++) {
		if (strcasecmp(word, sql_names[i].name) != 0) continue;
		if (sql_names[i].id == DL_TYPE_STRING && accept_ch(d, '(')) {
			int64_t len; /* VARCHAR(n): Delta stores it as string */
			DL_TRY(number(d, &len));
			DL_TRY(expect_ch(d, ')'));
		}
		*out = sql_names[i].id == DL_TYPE_VARIANT ? dl_type_variant() : dl_type_new(sql_names[i].id);
		return *out ? 0 : DL_ENOMEM;
	}
	/* Delta's JSON names ("long", "integer", "timestamp_ntz"). */
	dl_type_id id;
	int p, sc;
	for (char *c = word; *c; c++) *c = (char)tolower((unsigned char)*c);
	if (dl_schema_primitive_from_name(word, &id, &p, &sc) == 0 && id != DL_TYPE_DECIMAL) {
		*out = id == DL_TYPE_VARIANT ? dl_type_variant() : dl_type_new(id);
		return *out ? 0 : DL_ENOMEM;
	}
	d->p = s;
	return fail(d, "a data type (INT, BIGINT, STRING, DECIMAL(p,s), STRUCT<...>, ARRAY<...>, "
	               "MAP<...>...)");
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
