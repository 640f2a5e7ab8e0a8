/* Token helpers, names, literals and table references shared by every
 * statement parser, and the script driver. The SQL layer reads the same
 * tokens as the expression parser (expr/lexer.c) and hands expression
 * positions to it (ex_parse_expr_at), which stops before the first token
 * that cannot continue the expression: one grammar, two files. */
#include "sql/parser.h"
#include "expr/parse_util.h"
#include "expr/type_parse.h"
#include "sql/sql.h"
#include "util/error.h"
#include "util/mem.h"
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

int sp_advance(sql_parser *p)
{
	int rc = ex_lex_next(&p->lx, &p->tok);
	if (rc < 0) {
		/* the lexer names the problem; place it like any syntax error */
		char msg[256];
		snprintf(msg, sizeof msg, "%s", dl_error_last()->message);
		size_t pos = p->lx.i;
		const char *at = strstr(msg, "at position ");
		if (at) pos = strtoul(at + 12, NULL, 10);
		return sp_error_at(p, pos < p->len ? pos : p->len, "PARSE_SYNTAX_ERROR", msg);
	}
	return 0;
}

int sp_seek(sql_parser *p, size_t pos)
{
	p->lx.i = pos;
	return sp_advance(p);
}

bool sp_is(const sql_parser *p, const char *kw)
{
	return ex_tok_is(&p->tok, kw);
}

bool sp_is_op(const sql_parser *p, const char *op)
{
	return p->tok.kind == TK_OP && strcmp(p->tok.op, op) == 0;
}

static bool peek_tok(const sql_parser *p, int ahead, ex_token *t)
{
	ex_lexer lx = p->lx;
	*t = p->tok;
	for (int i = 0; i < ahead; i++)
		if (ex_lex_next(&lx, t) < 0) return false;
	return true;
}

bool sp_peek_is(const sql_parser *p, int ahead, const char *kw)
{
	ex_token t;
	return peek_tok(p, ahead, &t) && ex_tok_is(&t, kw);
}

bool sp_peek_op(const sql_parser *p, int ahead, const char *op)
{
	ex_token t;
	return peek_tok(p, ahead, &t) && t.kind == TK_OP && strcmp(t.op, op) == 0;
}

bool sp_peek_end(const sql_parser *p, int ahead)
{
	ex_token t;
	return peek_tok(p, ahead, &t) && t.kind == TK_EOF;
}

int sp_accept(sql_parser *p, const char *kw)
{
	if (!sp_is(p, kw)) return 0;
	DL_TRY(sp_advance(p));
	return 1;
}

int sp_accept_op(sql_parser *p, const char *op)
{
	if (!sp_is_op(p, op)) return 0;
	DL_TRY(sp_advance(p));
	return 1;
}

int sp_expect(sql_parser *p, const char *kw)
{
	if (!sp_is(p, kw)) return sp_syntax_error(p);
	return sp_advance(p);
}

int sp_expect_op(sql_parser *p, const char *op)
{
	if (!sp_is_op(p, op)) return sp_syntax_error(p);
	return sp_advance(p);
}

int sp_enter(sql_parser *p)
{
	if (++p->depth > EX_MAX_DEPTH)
		return sp_error_at(p, (size_t)p->tok.pos, "PARSE_SYNTAX_ERROR", "statement nested too deeply");
	return 0;
}

/* Line (from 1), column (from 0) and the line's text, with a caret. */
int sp_error_at(sql_parser *p, size_t pos, const char *cls, const char *msg)
{
	if (pos > p->len) pos = p->len;
	int line = 1;
	size_t ls = 0;
	for (size_t i = 0; i < pos; i++)
		if (p->src[i] == '\n') {
			line++;
			ls = i + 1;
		}
	size_t le = ls;
	while (p->src[le] && p->src[le] != '\n') le++;
	int col = (int)(pos - ls);
	int shown = (int)(le - ls > 300 ? 300 : le - ls);
	char caret[320];
	int nc = col < 300 ? col : 300;
	for (int i = 0; i < nc; i++) caret[i] = p->src[ls + (size_t)i] == '\t' ? '\t' : ' ';
	caret[nc] = '^';
	caret[nc + 1] = 0;
	return dl_error_set(DL_EINVALID, "[%s] %s: line %d, column %d\n%.*s\n%s", cls, msg, line, col, shown, p->src + ls,
	                    caret);
}

static int syntax_error_at(sql_parser *p, size_t pos)
{
	ex_lexer lx = {p->src, p->len, pos};
	ex_token t;
	char msg[128];
	if (ex_lex_next(&lx, &t) < 0 || t.kind == TK_EOF) {
		snprintf(msg, sizeof msg, "Syntax error at or near end of input");
		return sp_error_at(p, pos, "PARSE_SYNTAX_ERROR", msg);
	}
	int n = (int)(t.len > 40 ? 40 : t.len);
	snprintf(msg, sizeof msg, "Syntax error at or near '%.*s'", n, t.p);
	return sp_error_at(p, (size_t)t.pos, "PARSE_SYNTAX_ERROR", msg);
}

int sp_syntax_error(sql_parser *p)
{
	return syntax_error_at(p, (size_t)p->tok.pos);
}

void *sp_alloc(sql_parser *p, size_t n)
{
	void *m = dl_arena_calloc(SP_ARENA(p), 1, n);
	if (!m) dl_error_set(DL_ENOMEM, "out of memory parsing SQL");
	return m;
}

int sp_push(sql_parser *p, void **arr, int *n, int *cap, const void *item, size_t size)
{
	if (*n == *cap) {
		int nc = *cap ? *cap * 2 : 4;
		if (nc > 1000000) return dl_error_set(DL_EUNSUPPORTED, "more than a million items in a SQL list");
		void *m = sp_alloc(p, (size_t)nc * size);
		if (!m) return DL_ENOMEM;
		if (*n) memcpy(m, *arr, (size_t)*n * size);
		*arr = m;
		*cap = nc;
	}
	memcpy((char *)*arr + (size_t)*n * size, item, size);
	(*n)++;
	return 0;
}

int sp_ident(sql_parser *p, char **out)
{
	if (p->tok.kind == TK_QIDENT) *out = ex_unquote_ident(SP_ARENA(p), p->tok.p, p->tok.len);
	else if (p->tok.kind == TK_IDENT) *out = dl_arena_strndup(SP_ARENA(p), p->tok.p, p->tok.len);
	else return sp_syntax_error(p);
	if (!*out) return DL_ENOMEM;
	return sp_advance(p);
}

int sp_name(sql_parser *p, sql_name *out)
{
	memset(out, 0, sizeof *out);
	int cap = 0;
	for (;;) {
		char *part;
		DL_TRY(sp_ident(p, &part));
		DL_TRY(SP_PUSH(p, out->parts, out->nparts, cap, part));
		/* a.* is the caller's (select lists) */
		if (!sp_is_op(p, ".") || sp_peek_op(p, 1, "*")) return 0;
		DL_TRY(sp_advance(p));
	}
}

int sp_name_list(sql_parser *p, sql_name **out, int *n, bool parens)
{
	int cap = 0;
	*out = NULL;
	*n = 0;
	if (parens) DL_TRY(sp_expect_op(p, "("));
	if (parens && sp_is_op(p, ")")) return sp_advance(p);
	do {
		sql_name nm;
		DL_TRY(sp_name(p, &nm));
		DL_TRY(SP_PUSH(p, *out, *n, cap, nm));
	} while (sp_accept_op(p, ",") == 1);
	return parens ? sp_expect_op(p, ")") : 0;
}

int sp_ident_list(sql_parser *p, char ***out, int *n)
{
	int cap = 0;
	*out = NULL;
	*n = 0;
	DL_TRY(sp_expect_op(p, "("));
	do {
		char *s;
		DL_TRY(sp_ident(p, &s));
		DL_TRY(SP_PUSH(p, *out, *n, cap, s));
	} while (sp_accept_op(p, ",") == 1);
	return sp_expect_op(p, ")");
}

int sp_string(sql_parser *p, const char **out)
{
	if (p->tok.kind != TK_STRING) return sp_syntax_error(p);
	dl_buf b = DL_BUF_INIT;
	int rc = 0;
	while (rc == 0 && p->tok.kind == TK_STRING) {
		rc = ex_unescape_string(&b, p->tok.p + 1, p->tok.len - 2);
		if (rc == 0) rc = sp_advance(p);
	}
	if (rc == 0 && !(*out = dl_arena_strndup(SP_ARENA(p), b.data ? b.data : "", b.len))) rc = DL_ENOMEM;
	dl_buf_free(&b);
	return rc;
}

int sp_integer(sql_parser *p, int64_t *out)
{
	if (p->tok.kind != TK_NUMBER || p->tok.len > 18) return sp_syntax_error(p);
	char buf[24];
	memcpy(buf, p->tok.p, p->tok.len);
	buf[p->tok.len] = 0;
	char *end;
	long long v = strtoll(buf, &end, 10);
	if (*end) return sp_syntax_error(p);
	*out = v;
	return sp_advance(p);
}

/* Expression errors come back as the expression parser's text; the place
 * is re-reported Spark's way. */
static int expr_error(sql_parser *p, size_t pos)
{
	const char *m = dl_error_last()->message;
	if (dl_error_last()->code == DL_ENOMEM) return DL_ENOMEM;
	if (strncmp(m, "[", 1) == 0) return dl_error_last()->code; /* already placed (a subquery) */
	/* the expression layer's messages carry the exact offset */
	const char *at = strstr(m, "at position ");
	if (at) {
		unsigned long off = strtoul(at + 12, NULL, 10);
		if (off <= p->len) pos = off;
	}
	bool plain = strncmp(m, "syntax error at position", 24) == 0 && strstr(m, ": expected ");
	if (plain) return syntax_error_at(p, pos);
	char msg[256];
	snprintf(msg, sizeof msg, "%s", m);
	return sp_error_at(p, pos, "PARSE_SYNTAX_ERROR", msg);
}

int sp_expr(sql_parser *p, ex_node **out)
{
	size_t pos = (size_t)p->tok.pos;
	p->hooks.depth = p->depth;
	int rc = ex_parse_expr_at(p->e, p->src, p->len, &pos, &p->hooks, out);
	if (rc < 0) return expr_error(p, pos);
	return sp_seek(p, pos);
}

int sp_type(sql_parser *p, dl_type **out)
{
	size_t pos = (size_t)p->tok.pos;
	int rc = ex_parse_type_at(out, p->src, p->len, &pos);
	if (rc < 0) return expr_error(p, pos);
	if (!ex_keep_type(p->e, *out)) return DL_ENOMEM;
	return sp_seek(p, pos);
}

/* The expression parser calls back here for ( SELECT ... ). */
static int hook_parse_query(void *payload, size_t *pos, int depth, void **query)
{
	sql_parser *p = payload;
	int saved = p->depth;
	p->depth = depth;
	DL_TRY(sp_seek(p, *pos));
	sql_query *q;
	DL_TRY(sp_query(p, &q));
	p->depth = saved;
	*query = q;
	*pos = (size_t)p->tok.pos;
	return 0;
}

static int hook_print_query(dl_buf *out, const void *q)
{
	return dl_sql_print_query(out, q);
}

/* A property key: 'quoted', or dotted words (delta.appendOnly). Values:
 * strings, numbers, true/false or words, kept as text. */
static int prop_key(sql_parser *p, const char **out)
{
	if (p->tok.kind == TK_STRING) return sp_string(p, out);
	dl_buf b = DL_BUF_INIT;
	int rc = 0;
	for (;;) {
		if (p->tok.kind != TK_IDENT && p->tok.kind != TK_QIDENT) {
			rc = sp_syntax_error(p);
			break;
		}
		char *part;
		if ((rc = sp_ident(p, &part)) < 0 || (rc = dl_buf_puts(&b, part)) < 0) break;
		if (!sp_is_op(p, ".")) break;
		if ((rc = sp_advance(p)) < 0 || (rc = dl_buf_putc(&b, '.')) < 0) break;
	}
	if (rc == 0 && !(*out = dl_arena_strndup(SP_ARENA(p), b.data, b.len))) rc = DL_ENOMEM;
	dl_buf_free(&b);
	return rc;
}

int sp_props(sql_parser *p, sql_prop **out, int *n, bool keys_only)
{
	int cap = 0;
	*out = NULL;
	*n = 0;
	DL_TRY(sp_expect_op(p, "("));
	do {
		sql_prop pr = {0};
		DL_TRY(prop_key(p, &pr.key));
		if (!keys_only) {
			DL_TRY(sp_accept_op(p, "="));
			if (p->tok.kind == TK_STRING) {
				DL_TRY(sp_string(p, &pr.value));
			} else if (p->tok.kind == TK_NUMBER || p->tok.kind == TK_IDENT) {
				if (!(pr.value = dl_arena_strndup(SP_ARENA(p), p->tok.p, p->tok.len))) return DL_ENOMEM;
				DL_TRY(sp_advance(p));
			} else if (sp_is_op(p, "-")) {
				/* a negative number: the sign and the digits */
				size_t start = (size_t)p->tok.pos;
				DL_TRY(sp_advance(p));
				if (p->tok.kind != TK_NUMBER) return sp_syntax_error(p);
				size_t end = (size_t)p->tok.pos + p->tok.len;
				if (!(pr.value = dl_arena_strndup(SP_ARENA(p), p->src + start, end - start))) return DL_ENOMEM;
				DL_TRY(sp_advance(p));
			} else {
				return sp_syntax_error(p);
			}
		}
		DL_TRY(SP_PUSH(p, *out, *n, cap, pr));
	} while (sp_accept_op(p, ",") == 1);
	return sp_expect_op(p, ")");
}

/* VERSION AS OF n | TIMESTAMP AS OF expr (also FOR SYSTEM_VERSION /
 * SYSTEM_TIME AS OF, Spark's synonyms). */
int sp_time_travel(sql_parser *p, sql_time_travel *tt)
{
	if (sp_is(p, "FOR") && (sp_peek_is(p, 1, "SYSTEM_VERSION") || sp_peek_is(p, 1, "SYSTEM_TIME")))
		DL_TRY(sp_advance(p));
	bool version = sp_is(p, "VERSION") || sp_is(p, "SYSTEM_VERSION");
	bool ts = sp_is(p, "TIMESTAMP") || sp_is(p, "SYSTEM_TIME");
	if ((!version && !ts) || !sp_peek_is(p, 1, "AS") || !sp_peek_is(p, 2, "OF")) return 0;
	DL_TRY(sp_advance(p));
	DL_TRY(sp_advance(p));
	DL_TRY(sp_advance(p));
	tt->kind = version ? TT_VERSION : TT_TIMESTAMP;
	if (version && p->tok.kind != TK_NUMBER && p->tok.kind != TK_STRING && !sp_is_op(p, "?")) return sp_syntax_error(p);
	return sp_expr(p, &tt->value);
}

static ex_node *lit_node(sql_parser *p, int pos, bool str, const char *text, size_t n)
{
	ex_node *lit = ex_node_new(p->e, EX_LIT, pos);
	if (!lit) return NULL;
	if (str) {
		lit->lit.type = DL_TYPE_STRING;
		lit->lit.v.str.ptr = dl_arena_strndup(SP_ARENA(p), text, n);
		lit->lit.v.str.len = n;
		if (!lit->lit.v.str.ptr) return NULL;
	} else {
		char buf[24];
		if (n >= sizeof buf) n = sizeof buf - 1;
		memcpy(buf, text, n);
		buf[n] = 0;
		if (ex_parse_number_literal(buf, &lit->lit) < 0) return NULL;
	}
	return lit;
}

/* @v<n> or @yyyyMMddHHmmssSSS after a name or inside a path: Delta's
 * shorthand for VERSION / TIMESTAMP AS OF. */
static int at_suffix(sql_parser *p, const char *s, size_t n, int pos, sql_time_travel *tt)
{
	if (n >= 2 && (s[0] == 'v' || s[0] == 'V')) {
		for (size_t i = 1; i < n; i++)
			if (!isdigit((unsigned char)s[i])) goto bad;
		if (n > 19) goto bad;
		tt->kind = TT_VERSION;
		tt->value = lit_node(p, pos, false, s + 1, n - 1);
		if (tt->value && tt->value->lit.type != DL_TYPE_LONG && tt->value->lit.type != DL_TYPE_INTEGER) goto bad;
		return tt->value ? 0 : DL_ENOMEM;
	}
	if (n == 17) {
		for (size_t i = 0; i < n; i++)
			if (!isdigit((unsigned char)s[i])) goto bad;
		char ts[32];
		snprintf(ts, sizeof ts, "%.4s-%.2s-%.2s %.2s:%.2s:%.2s.%.3s", s, s + 4, s + 6, s + 8, s + 10, s + 12, s + 14);
		tt->kind = TT_TIMESTAMP;
		tt->value = lit_node(p, pos, true, ts, strlen(ts));
		return tt->value ? 0 : DL_ENOMEM;
	}
bad:
	return sp_error_at(p, (size_t)pos, "PARSE_SYNTAX_ERROR",
	                   "a time travel suffix is @v<version> or @yyyyMMddHHmmssSSS");
}

/* A path's own @v<n> / @<17 digits> ending; any other '@' is part of it. */
static int path_suffix(sql_parser *p, char *path, int pos, sql_time_travel *tt)
{
	char *at = strrchr(path, '@');
	if (!at) return 0;
	const char *s = at + 1;
	size_t n = strlen(s), i = (*s == 'v' || *s == 'V') ? 1 : 0;
	if (n <= i || (i == 0 && n != 17) || n > 19) return 0;
	for (size_t k = i; k < n; k++)
		if (!isdigit((unsigned char)s[k])) return 0;
	DL_TRY(at_suffix(p, s, n, pos, tt));
	*at = 0;
	return 0;
}

static bool is_file_format(const char *s)
{
	static const char *const f[] = {"delta", "parquet", "csv", "json", "text", "orc", "avro", "iceberg", NULL};
	for (int i = 0; f[i]; i++)
		if (strcasecmp(s, f[i]) == 0) return true;
	return false;
}

int sp_delta_target(sql_parser *p, sql_table_ref **out)
{
	if (p->tok.kind != TK_STRING) return sp_table_name(p, out);
	/* Delta's commands take a quoted path for delta.`path` */
	sql_table_ref *t = sp_alloc(p, sizeof *t);
	if (!t) return DL_ENOMEM;
	t->pos = p->tok.pos;
	t->kind = TREF_PATH;
	t->format = "delta";
	const char *path;
	DL_TRY(sp_string(p, &path));
	DL_TRY(path_suffix(p, (char *)path, t->pos, &t->tt));
	t->path = path;
	*out = t;
	return 0;
}

int sp_table_name(sql_parser *p, sql_table_ref **out)
{
	sql_table_ref *t = sp_alloc(p, sizeof *t);
	if (!t) return DL_ENOMEM;
	t->pos = p->tok.pos;
	/* format.`path`: the path is the back-quoted part */
	if (p->tok.kind == TK_IDENT && sp_peek_op(p, 1, ".")) {
		ex_token nx;
		peek_tok(p, 2, &nx);
		char fmt[16];
		size_t fl = p->tok.len < sizeof fmt - 1 ? p->tok.len : sizeof fmt - 1;
		memcpy(fmt, p->tok.p, fl);
		fmt[fl] = 0;
		if (nx.kind == TK_QIDENT && is_file_format(fmt)) {
			for (char *c = fmt; *c; c++) *c = (char)tolower((unsigned char)*c);
			t->kind = TREF_PATH;
			if (!(t->format = dl_arena_strdup(SP_ARENA(p), fmt))) return DL_ENOMEM;
			DL_TRY(sp_advance(p));
			DL_TRY(sp_advance(p));
			char *path;
			int ppos = p->tok.pos;
			DL_TRY(sp_ident(p, &path));
			DL_TRY(path_suffix(p, path, ppos, &t->tt));
			t->path = path;
			goto suffix;
		}
	}
	t->kind = TREF_NAME;
	DL_TRY(sp_name(p, &t->name));
suffix:
	if (sp_is_op(p, "@")) {
		int pos = p->tok.pos;
		DL_TRY(sp_advance(p));
		if (p->tok.kind != TK_IDENT && p->tok.kind != TK_NUMBER) return sp_syntax_error(p);
		DL_TRY(at_suffix(p, p->tok.p, p->tok.len, pos, &t->tt));
		DL_TRY(sp_advance(p));
	}
	if (t->tt.kind == TT_NONE) DL_TRY(sp_time_travel(p, &t->tt));
	*out = t;
	return 0;
}

/* Words that end a FROM item rather than name its alias. */
static bool alias_stop(const sql_parser *p)
{
	static const char *const kw[] = {
	    "WHERE", "GROUP", "HAVING", "ORDER", "LIMIT", "OFFSET", "UNION", "INTERSECT", "EXCEPT", "MINUS",
	    "JOIN", "INNER", "LEFT", "RIGHT", "FULL", "CROSS", "NATURAL", "SEMI", "ANTI", "ON", "USING",
	    "SET", "WHEN", "VALUES", "SELECT", "ZORDER", "RETAIN", "DRY", "LITE", "TO", "APPLY", "WINDOW",
	    "LATERAL", "PIVOT", "TBLPROPERTIES", "LOCATION", "REPLACE", "TABLESAMPLE", "FULL", "SORT",
	    "CLUSTER", "DISTRIBUTE", "PARTITION", "FOR", "VERSION", "TIMESTAMP", "AS", "OVERWRITE", "INTO", NULL};
	if (p->tok.kind != TK_IDENT) return p->tok.kind != TK_QIDENT;
	for (int i = 0; kw[i]; i++)
		if (ex_tok_is(&p->tok, kw[i])) return true;
	return false;
}

int sp_alias(sql_parser *p, sql_table_ref *t, bool cols)
{
	int as = sp_accept(p, "AS");
	if (as < 0) return as;
	if (!as && alias_stop(p)) return 0;
	char *a;
	DL_TRY(sp_ident(p, &a));
	t->alias = a;
	if (cols && sp_is_op(p, "(")) DL_TRY(sp_ident_list(p, &t->alias_cols, &t->nalias_cols));
	return 0;
}

static int table_primary(sql_parser *p, sql_table_ref **out)
{
	sql_table_ref *t;
	int pos = p->tok.pos;
	if (sp_is_op(p, "(")) {
		bool query = sp_peek_is(p, 1, "SELECT") || sp_peek_is(p, 1, "WITH") || sp_peek_is(p, 1, "VALUES") ||
		             sp_peek_op(p, 1, "(");
		if (!query) {
			/* a parenthesized join */
			DL_TRY(sp_advance(p));
			DL_TRY(sp_enter(p));
			DL_TRY(sp_table_ref(p, &t));
			p->depth--;
			DL_TRY(sp_expect_op(p, ")"));
			*out = t;
			return 0;
		}
		if (!(t = sp_alloc(p, sizeof *t))) return DL_ENOMEM;
		t->kind = TREF_QUERY;
		t->pos = pos;
		DL_TRY(sp_advance(p));
		DL_TRY(sp_query(p, &t->query));
		DL_TRY(sp_expect_op(p, ")"));
	} else if (sp_is(p, "VALUES")) {
		if (!(t = sp_alloc(p, sizeof *t))) return DL_ENOMEM;
		t->kind = TREF_QUERY;
		t->pos = pos;
		DL_TRY(sp_query(p, &t->query));
	} else if (p->tok.kind == TK_IDENT && sp_peek_op(p, 1, "(")) {
		/* table-valued function: table_changes('t', 0, 5) */
		if (!(t = sp_alloc(p, sizeof *t))) return DL_ENOMEM;
		t->kind = TREF_FUNCTION;
		t->pos = pos;
		char *fn;
		DL_TRY(sp_ident(p, &fn));
		for (char *c = fn; *c; c++) *c = (char)tolower((unsigned char)*c);
		t->function = fn;
		DL_TRY(sp_advance(p));
		int cap = 0;
		while (!sp_is_op(p, ")")) {
			if (t->nargs) DL_TRY(sp_expect_op(p, ","));
			ex_node *a;
			DL_TRY(sp_expr(p, &a));
			DL_TRY(SP_PUSH(p, t->args, t->nargs, cap, a));
		}
		DL_TRY(sp_advance(p));
	} else {
		DL_TRY(sp_table_name(p, &t));
	}
	DL_TRY(sp_alias(p, t, true));
	*out = t;
	return 0;
}

/* The join keyword sequence at the current token, or -1. */
static int join_kind(sql_parser *p, bool *natural)
{
	*natural = false;
	if (sp_is_op(p, ",")) {
		DL_TRY(sp_advance(p));
		return JOIN_COMMA;
	}
	if (sp_is(p, "NATURAL")) {
		*natural = true;
		DL_TRY(sp_advance(p));
	}
	int k = -1;
	if (sp_accept(p, "JOIN") == 1) return JOIN_INNER;
	if (sp_is(p, "INNER")) k = JOIN_INNER;
	else if (sp_is(p, "CROSS")) k = JOIN_CROSS;
	else if (sp_is(p, "LEFT")) {
		DL_TRY(sp_advance(p));
		if (sp_accept(p, "SEMI") == 1) k = JOIN_LEFT_SEMI;
		else if (sp_accept(p, "ANTI") == 1) k = JOIN_LEFT_ANTI;
		else {
			DL_TRY(sp_accept(p, "OUTER"));
			k = JOIN_LEFT;
		}
		DL_TRY(sp_expect(p, "JOIN"));
		return k;
	} else if (sp_is(p, "RIGHT")) k = JOIN_RIGHT;
	else if (sp_is(p, "FULL")) k = JOIN_FULL;
	else if (sp_is(p, "SEMI")) k = JOIN_LEFT_SEMI;
	else if (sp_is(p, "ANTI")) k = JOIN_LEFT_ANTI;
	else return *natural ? sp_syntax_error(p) : -1;
	DL_TRY(sp_advance(p));
	if (k == JOIN_RIGHT || k == JOIN_FULL) DL_TRY(sp_accept(p, "OUTER"));
	DL_TRY(sp_expect(p, "JOIN"));
	return k;
}

int sp_table_ref(sql_parser *p, sql_table_ref **out)
{
	DL_TRY(table_primary(p, out));
	for (;;) {
		int pos = p->tok.pos;
		bool natural;
		int k = join_kind(p, &natural);
		if (k < 0 && k != -1) return k;
		if (k == -1) return 0;
		sql_table_ref *j = sp_alloc(p, sizeof *j);
		if (!j) return DL_ENOMEM;
		j->kind = TREF_JOIN;
		j->pos = pos;
		j->join = (sql_join_kind)k;
		j->natural = natural;
		j->left = *out;
		DL_TRY(table_primary(p, &j->right));
		if (k != JOIN_COMMA && k != JOIN_CROSS && !natural) {
			if (sp_accept(p, "ON") == 1) {
				DL_TRY(sp_expr(p, &j->on));
			} else if (sp_is(p, "USING")) {
				DL_TRY(sp_advance(p));
				DL_TRY(sp_ident_list(p, &j->using_cols, &j->nusing));
			}
		}
		*out = j;
	}
}

int sp_end(sql_parser *p)
{
	if (p->tok.kind != TK_EOF) return sp_syntax_error(p);
	return 0;
}

/* ---- the script ---------------------------------------------------------- */

struct dl_sql_script {
	dl_expr *e;
	char *text;
	sql_stmt *stmts;
	int n, cap;
};

int dl_sql_parse(dl_sql_script **out, const char *text)
{
	*out = NULL;
	if (!text) return dl_error_set(DL_EINVALID, "SQL text is NULL");
	dl_sql_script *s = dl_calloc(1, sizeof *s);
	if (!s) return DL_ENOMEM;
	size_t len = strlen(text);
	dl_sql_span *spans = NULL;
	size_t nspans = 0;
	int rc = 0;
	if (!(s->e = ex_expr_new()) || !(s->text = dl_strdup(text))) rc = DL_ENOMEM;
	if (rc == 0) rc = dl_sql_split(&spans, &nspans, s->text, len);
	for (size_t i = 0; rc == 0 && i < nspans; i++) {
		sql_parser p = {.e = s->e, .src = s->text, .len = spans[i].end};
		p.lx = (ex_lexer){s->text, spans[i].end, spans[i].start};
		p.hooks = (ex_sql_hooks){hook_parse_query, hook_print_query, &p, 0};
		if ((rc = sp_advance(&p)) < 0) break;
		if (p.tok.kind == TK_EOF) continue; /* blank or only comments */
		sql_stmt st;
		memset(&st, 0, sizeof st);
		st.pos = p.tok.pos;
		st.start = spans[i].start;
		st.end = spans[i].end;
		if ((rc = sp_stmt(&p, &st)) < 0) break;
		if ((rc = sp_end(&p)) < 0) break;
		sql_parser ap = {.e = s->e};
		rc = sp_push(&ap, (void **)&s->stmts, &s->n, &s->cap, &st, sizeof st);
	}
	dl_free(spans);
	if (rc < 0) {
		dl_sql_script_free(s);
		return rc;
	}
	*out = s;
	return 0;
}

dl_expr *dl_sql_script_expr(const dl_sql_script *s)
{
	return s->e;
}

void dl_sql_script_free(dl_sql_script *s)
{
	if (!s) return;
	if (s->e) dl_expr_free(s->e);
	dl_free(s->text);
	dl_free(s);
}

size_t dl_sql_script_count(const dl_sql_script *s)
{
	return (size_t)s->n;
}

const sql_stmt *dl_sql_script_stmt(const dl_sql_script *s, size_t i)
{
	return i < (size_t)s->n ? &s->stmts[i] : NULL;
}

const char *dl_sql_script_text(const dl_sql_script *s)
{
	return s->text;
}
