/* Spark's dataType rule (SqlBaseParser) with Delta's additions: primitive
 * names and their aliases, DECIMAL(p,s), VARCHAR/CHAR(n) (stored as
 * string, as Delta does), ARRAY<>, MAP<,>, STRUCT<name[:] type [NOT NULL]
 * [COMMENT 'c'], ...>, GEOMETRY/GEOGRAPHY(crs[, algorithm]). */
#include "expr/type_parse.h"
#include "columnar/geo_type.h"
#include "expr/lexer.h"
#include "expr/parse_util.h"
#include "json/json.h"
#include "util/arena.h"
#include "util/buf.h"
#include "util/error.h"
#include "util/mem.h"
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#define MAX_TYPE_DEPTH 64

typedef struct tparser {
	ex_lexer lx;
	ex_token tok;
	int depth;
} tparser;

static int adv(tparser *p)
{
	return ex_lex_next(&p->lx, &p->tok);
}

static bool is_op(const tparser *p, const char *op)
{
	return p->tok.kind == TK_OP && strcmp(p->tok.op, op) == 0;
}

static int fail(tparser *p, const char *expected)
{
	if (p->tok.kind == TK_EOF)
		return dl_error_set(DL_EINVALID, "syntax error at position %d near end of input: expected %s", p->tok.pos,
		                    expected);
	int n = (int)(p->tok.len > 40 ? 40 : p->tok.len);
	return dl_error_set(DL_EINVALID, "syntax error at position %d near '%.*s': expected %s", p->tok.pos, n, p->tok.p,
	                    expected);
}

static int expect(tparser *p, const char *op, const char *what)
{
	if (!is_op(p, op)) return fail(p, what);
	return adv(p);
}

/* ">" may arrive glued to another ">" or "=": the lexer reads ">>" as two
 * tokens already (no ">>" operator), ">=" is split here. */
static int expect_close(tparser *p)
{
	if (is_op(p, ">=")) {
		/* leave "=" as the current token */
		p->tok.op[0] = '=';
		p->tok.op[1] = 0;
		p->tok.p++;
		p->tok.pos++;
		p->tok.len = 1;
		return 0;
	}
	return expect(p, ">", "'>'");
}

static int int_arg(tparser *p, int64_t *v)
{
	if (p->tok.kind != TK_NUMBER || p->tok.len > 9) return fail(p, "an integer");
	char buf[16];
	memcpy(buf, p->tok.p, p->tok.len);
	buf[p->tok.len] = 0;
	char *end;
	long x = strtol(buf, &end, 10);
	if (*end) return fail(p, "an integer");
	*v = x;
	return adv(p);
}

static int parse_type(tparser *p, dl_type **out);

static char *field_name(tparser *p)
{
	if (p->tok.kind == TK_QIDENT) {
		dl_arena a = DL_ARENA_INIT;
		char *s = ex_unquote_ident(&a, p->tok.p, p->tok.len);
		char *r = s ? dl_strdup(s) : NULL;
		dl_arena_free(&a);
		return r;
	}
	return dl_strndup(p->tok.p, p->tok.len);
}

static int comment_metadata(tparser *p, char **out)
{
	if (p->tok.kind != TK_STRING) return fail(p, "a string after COMMENT");
	dl_buf s = DL_BUF_INIT, meta = DL_BUF_INIT;
	int rc = 0;
	while (rc == 0 && p->tok.kind == TK_STRING) {
		rc = ex_unescape_string(&s, p->tok.p + 1, p->tok.len - 2);
		if (rc == 0) rc = adv(p);
	}
	if (rc == 0) {
		dl_json_writer w;
		dl_jw_init(&w, &meta);
		dl_jw_object_begin(&w);
		dl_jw_key(&w, "comment");
		dl_jw_string_n(&w, s.data ? s.data : "", s.len);
		dl_jw_object_end(&w);
		rc = dl_jw_finish(&w);
	}
	if (rc == 0) {
		dl_free(*out);
		*out = dl_strdup(meta.data);
		if (!*out) rc = DL_ENOMEM;
	}
	dl_buf_free(&s);
	dl_buf_free(&meta);
	return rc;
}

static int parse_struct(tparser *p, dl_type **out)
{
	if (is_op(p, "<>")) { /* STRUCT<> lexes as the not-equal operator */
		*out = dl_type_struct(NULL, 0);
		if (!*out) return DL_ENOMEM;
		return adv(p);
	}
	DL_TRY(expect(p, "<", "'<' after STRUCT"));
	dl_field *fs = NULL;
	int n = 0, cap = 0, rc = 0;
	while (!is_op(p, ">") && !is_op(p, ">=")) {
		if (n && (rc = expect(p, ",", "',' or '>'")) < 0) break;
		if (p->tok.kind != TK_IDENT && p->tok.kind != TK_QIDENT) {
			rc = fail(p, "a field name");
			break;
		}
		if (n == cap) {
			cap = cap ? cap * 2 : 8;
			dl_field *nf = cap > 100000 ? NULL : dl_reallocarray(fs, (size_t)cap, sizeof *fs);
			if (!nf) {
				rc = DL_ENOMEM;
				break;
			}
			fs = nf;
		}
		dl_field *f = &fs[n];
		memset(f, 0, sizeof *f);
		f->nullable = true;
		if (!(f->name = field_name(p))) {
			rc = DL_ENOMEM;
			break;
		}
		n++;
		if ((rc = adv(p)) < 0) break;
		if (is_op(p, ":") && (rc = adv(p)) < 0) break;
		if ((rc = parse_type(p, &f->type)) < 0) break;
		for (;;) {
			if (ex_tok_is(&p->tok, "NOT")) {
				if ((rc = adv(p)) < 0) break;
				if (!ex_tok_is(&p->tok, "NULL")) {
					rc = fail(p, "NULL after NOT");
					break;
				}
				if ((rc = adv(p)) < 0) break;
				f->nullable = false;
			} else if (ex_tok_is(&p->tok, "COMMENT")) {
				if ((rc = adv(p)) < 0 || (rc = comment_metadata(p, &f->metadata)) < 0) break;
			} else {
				break;
			}
		}
		if (rc < 0) break;
	}
	if (rc == 0) rc = expect_close(p);
	if (rc == 0 && !(*out = dl_type_struct(fs, n))) rc = DL_ENOMEM;
	for (int i = 0; i < n; i++) {
		dl_free(fs[i].name);
		dl_free(fs[i].metadata);
		if (fs[i].type) dl_type_unref(fs[i].type);
	}
	dl_free(fs);
	return rc;
}

/* GEOMETRY(EPSG:3857), GEOGRAPHY(OGC:CRS84, karney): the parameter text up
 * to ')' is validated by the geo module, which spells out the defaults. */
static int parse_geo(tparser *p, dl_type **out, dl_geo_kind kind)
{
	if (!is_op(p, "(")) return dl_type_geo_from_parts(out, kind, NULL, -1);
	const char *s = p->lx.src + p->lx.i;
	const char *e = memchr(s, ')', p->lx.len - p->lx.i);
	if (!e || e - s > 1000) return fail(p, "a CRS and ')'");
	dl_buf text = DL_BUF_INIT;
	dl_geo_info g;
	int rc = dl_buf_printf(&text, "%s(%.*s)", kind == DL_GEO_GEOMETRY ? "geometry" : "geography", (int)(e - s), s);
	if (rc == 0) rc = dl_geo_parse(&g, text.data);
	char *crs = rc == 0 ? dl_strndup(g.crs, g.crs_len) : NULL;
	if (rc == 0 && !crs) rc = DL_ENOMEM;
	if (rc == 0) rc = dl_type_geo_from_parts(out, kind, crs, g.has_algorithm ? (int)g.algorithm : -1);
	dl_free(crs);
	dl_buf_free(&text);
	if (rc < 0) return rc;
	p->lx.i = (size_t)(e + 1 - p->lx.src);
	return adv(p);
}

static const struct {
	const char *name;
	dl_type_id id;
} simple[] = {
    {"BOOLEAN", DL_TYPE_BOOLEAN},   {"BOOL", DL_TYPE_BOOLEAN},        {"TINYINT", DL_TYPE_BYTE},
    {"BYTE", DL_TYPE_BYTE},         {"SMALLINT", DL_TYPE_SHORT},      {"SHORT", DL_TYPE_SHORT},
    {"INT", DL_TYPE_INTEGER},       {"INTEGER", DL_TYPE_INTEGER},     {"BIGINT", DL_TYPE_LONG},
    {"LONG", DL_TYPE_LONG},         {"FLOAT", DL_TYPE_FLOAT},         {"REAL", DL_TYPE_FLOAT},
    {"DOUBLE", DL_TYPE_DOUBLE},     {"STRING", DL_TYPE_STRING},       {"BINARY", DL_TYPE_BINARY},
    {"DATE", DL_TYPE_DATE},         {"TIMESTAMP", DL_TYPE_TIMESTAMP}, {"TIMESTAMP_LTZ", DL_TYPE_TIMESTAMP},
    {"TIMESTAMP_NTZ", DL_TYPE_TIMESTAMP_NTZ}, {"VOID", DL_TYPE_NULL}, {"NULL", DL_TYPE_NULL},
    {"VARIANT", DL_TYPE_VARIANT},
};

static int parse_type(tparser *p, dl_type **out)
{
	*out = NULL;
	if (p->tok.kind != TK_IDENT) return fail(p, "a data type");
	if (++p->depth > MAX_TYPE_DEPTH) return fail(p, "a less deeply nested type");
	int rc = 0;
	for (size_t i = 0; i < sizeof simple / sizeof simple[0]; i++) {
		if (!ex_tok_is(&p->tok, simple[i].name)) continue;
		DL_TRY(adv(p));
		if (simple[i].id == DL_TYPE_DOUBLE && ex_tok_is(&p->tok, "PRECISION")) DL_TRY(adv(p));
		*out = simple[i].id == DL_TYPE_VARIANT ? dl_type_variant() : dl_type_new(simple[i].id);
		p->depth--;
		return *out ? 0 : DL_ENOMEM;
	}
	if (ex_tok_is(&p->tok, "VARCHAR") || ex_tok_is(&p->tok, "CHAR") || ex_tok_is(&p->tok, "CHARACTER")) {
		int64_t n;
		DL_TRY(adv(p));
		DL_TRY(expect(p, "(", "'(' and a length"));
		DL_TRY(int_arg(p, &n));
		DL_TRY(expect(p, ")", "')'"));
		if (n < 1) return dl_error_set(DL_EINVALID, "the length of a CHAR/VARCHAR type must be positive");
		*out = dl_type_new(DL_TYPE_STRING);
	} else if (ex_tok_is(&p->tok, "DECIMAL") || ex_tok_is(&p->tok, "DEC") || ex_tok_is(&p->tok, "NUMERIC")) {
		int64_t prec = 10, scale = 0;
		DL_TRY(adv(p));
		if (is_op(p, "(")) {
			DL_TRY(adv(p));
			DL_TRY(int_arg(p, &prec));
			if (is_op(p, ",")) {
				DL_TRY(adv(p));
				DL_TRY(int_arg(p, &scale));
			}
			DL_TRY(expect(p, ")", "')'"));
		}
		if (prec < 1 || prec > 38 || scale > prec)
			return dl_error_set(DL_EINVALID,
			                    "DECIMAL(%lld,%lld) is invalid: precision must be 1..38 and scale 0..precision",
			                    (long long)prec, (long long)scale);
		*out = dl_type_decimal((int)prec, (int)scale);
	} else if (ex_tok_is(&p->tok, "ARRAY")) {
		dl_type *el;
		DL_TRY(adv(p));
		DL_TRY(expect(p, "<", "'<' after ARRAY"));
		DL_TRY(parse_type(p, &el));
		rc = expect_close(p);
		if (rc == 0 && !(*out = dl_type_array(el, true))) rc = DL_ENOMEM;
		dl_type_unref(el);
		if (rc < 0) return rc;
	} else if (ex_tok_is(&p->tok, "MAP")) {
		dl_type *k, *v = NULL;
		DL_TRY(adv(p));
		DL_TRY(expect(p, "<", "'<' after MAP"));
		DL_TRY(parse_type(p, &k));
		rc = expect(p, ",", "','");
		if (rc == 0) rc = parse_type(p, &v);
		if (rc == 0) rc = expect_close(p);
		if (rc == 0 && !(*out = dl_type_map(k, v, true))) rc = DL_ENOMEM;
		dl_type_unref(k);
		if (v) dl_type_unref(v);
		if (rc < 0) return rc;
	} else if (ex_tok_is(&p->tok, "STRUCT")) {
		DL_TRY(adv(p));
		DL_TRY(parse_struct(p, out));
	} else if (ex_tok_is(&p->tok, "GEOMETRY") || ex_tok_is(&p->tok, "GEOGRAPHY")) {
		dl_geo_kind k = ex_tok_is(&p->tok, "GEOMETRY") ? DL_GEO_GEOMETRY : DL_GEO_GEOGRAPHY;
		DL_TRY(adv(p));
		DL_TRY(parse_geo(p, out, k));
	} else {
		return fail(p, "a data type (INT, BIGINT, STRING, DECIMAL(p,s), STRUCT<...>, ARRAY<...>, MAP<...>...)");
	}
	p->depth--;
	return *out ? 0 : DL_ENOMEM;
}

int ex_parse_type_at(dl_type **out, const char *src, size_t len, size_t *pos)
{
	*out = NULL;
	tparser p = {.lx = {src, len, *pos}};
	int rc = adv(&p);
	if (rc == 0) rc = parse_type(&p, out);
	if (rc < 0) {
		if (*out) dl_type_unref(*out);
		*out = NULL;
		*pos = p.tok.pos >= 0 ? (size_t)p.tok.pos : *pos;
		return rc;
	}
	*pos = (size_t)p.tok.pos;
	return 0;
}
