/* Recursive-descent parser for Spark SQL expressions, following the
 * precedence of Spark's SqlBaseParser (lowest first):
 *   OR; AND; NOT/!; predicates (BETWEEN, IN, LIKE, IS); comparisons;
 *   |; ^; &; + - ||; * / % DIV; unary - + ~; postfix [i] .f ::type. */
#include "expr/ast.h"
#include "expr/datetime.h"
#include "expr/lexer.h"
#include "expr/parse_util.h"
#include "expr/type_parse.h"
#include "util/error.h"
#include "util/mem.h"
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "expr/parser_internal.h"

static int parse_unary(parser *p, ex_node **out);

/* ---- primaries --------------------------------------------------------- */

static int parse_args(parser *p, ex_node *n, bool allow_star)
{
	ex_node *args[256];
	int na = 0;
	DL_TRY(expect_op(p, "(", "'('"));
	if (allow_star && is_op(p, "*")) {
		n->flag = true;
		DL_TRY(advance(p));
	} else if (is_kw(p, "DISTINCT")) {
		/* aggregate arguments: count(DISTINCT x); the binder decides
		 * whether an aggregate is allowed where it stands */
		n->distinct = true;
		DL_TRY(advance(p));
	}
	while (!n->flag && !is_op(p, ")")) {
		if (na == 256) return dl_error_set(DL_EUNSUPPORTED, "more than 256 arguments in a function call");
		if (na) DL_TRY(expect_op(p, ",", "',' or ')'"));
		DL_TRY(exp_parse_expr(p, &args[na]));
		na++;
	}
	DL_TRY(expect_op(p, ")", "')'"));
	DL_TRY(ex_node_set_args(p->e, n, na));
	if (na) memcpy(n->args, args, (size_t)na * sizeof *args);
	return 0;
}

static int parse_cast(parser *p, ex_node **out, bool try_cast)
{
	ex_node *n = node(p, EX_CAST, p->tok.pos);
	if (!n || ex_node_set_args(p->e, n, 1) < 0) return DL_ENOMEM;
	n->flag = try_cast;
	DL_TRY(advance(p));
	DL_TRY(expect_op(p, "(", "'(' after CAST"));
	DL_TRY(exp_parse_expr(p, &n->args[0]));
	DL_TRY(expect_kw(p, "AS", "AS"));
	dl_type *t;
	DL_TRY(exp_parse_type(p, &t));
	if (!(n->to = ex_keep_type(p->e, t))) return DL_ENOMEM;
	DL_TRY(expect_op(p, ")", "')'"));
	*out = n;
	return 0;
}

static int parse_case(parser *p, ex_node **out)
{
	ex_node *n = node(p, EX_CASE, p->tok.pos);
	if (!n) return DL_ENOMEM;
	ex_node *args[512];
	int na = 0;
	DL_TRY(advance(p));
	if (is_kw(p, "END") || is_kw(p, "ELSE")) return syntax_error(p, "WHEN");
	if (!is_kw(p, "WHEN")) {
		n->flag = true;
		DL_TRY(exp_parse_expr(p, &args[na++]));
	}
	if (!is_kw(p, "WHEN")) return syntax_error(p, "WHEN");
	while (is_kw(p, "WHEN")) {
		if (na > 500) return dl_error_set(DL_EUNSUPPORTED, "CASE with more than 250 branches");
		DL_TRY(advance(p));
		DL_TRY(exp_parse_expr(p, &args[na++]));
		DL_TRY(expect_kw(p, "THEN", "THEN"));
		DL_TRY(exp_parse_expr(p, &args[na++]));
	}
	if (is_kw(p, "ELSE")) {
		DL_TRY(advance(p));
		DL_TRY(exp_parse_expr(p, &args[na++]));
		n->has_else = true;
	}
	DL_TRY(expect_kw(p, "END", "WHEN, ELSE or END"));
	DL_TRY(ex_node_set_args(p->e, n, na));
	if (na) memcpy(n->args, args, (size_t)na * sizeof *args);
	*out = n;
	return 0;
}

static bool starts_query(parser *p)
{
	return is_kw(p, "SELECT") || is_kw(p, "WITH");
}

static char *ident_text(parser *p)
{
	if (p->tok.kind == TK_QIDENT) return ex_unquote_ident(&p->e->arena, p->tok.p, p->tok.len);
	return dl_arena_strndup(&p->e->arena, p->tok.p, p->tok.len);
}

/* A column reference a.b.c (dots bind to the name; computed structs use
 * EX_FIELD) or a function call name(...). */
static int parse_name(parser *p, ex_node **out)
{
	int pos = p->tok.pos;
	bool quoted = p->tok.kind == TK_QIDENT;
	char *first = ident_text(p);
	if (!first) return DL_ENOMEM;
	DL_TRY(advance(p));
	if (!quoted && is_op(p, "(")) {
		ex_node *n = node(p, EX_CALL, pos);
		if (!n) return DL_ENOMEM;
		for (char *c = first; *c; c++) *c = (char)tolower((unsigned char)*c);
		n->name = first;
		DL_TRY(parse_args(p, n, true));
		if (is_kw(p, "OVER")) DL_TRY(exp_parse_window(p, n));
		*out = n;
		return 0;
	}
	/* CURRENT_DATE and CURRENT_TIMESTAMP need no parentheses (column
	 * DEFAULT expressions use them that way) */
	static const char *const niladic[] = {"current_date", "current_timestamp", "current_timezone", "localtimestamp"};
	for (size_t i = 0; !quoted && !is_op(p, ".") && i < sizeof niladic / sizeof niladic[0]; i++) {
		if (strcasecmp(first, niladic[i]) != 0) continue;
		ex_node *n = node(p, EX_CALL, pos);
		if (!n) return DL_ENOMEM;
		for (char *c = first; *c; c++) *c = (char)tolower((unsigned char)*c);
		n->name = first;
		*out = n;
		return 0;
	}
	char *parts[64];
	int np = 0;
	parts[np++] = first;
	while (is_op(p, ".")) {
		ex_token *nx;
		DL_TRY(peek(p, &nx));
		if (nx->kind != TK_IDENT && nx->kind != TK_QIDENT) break;
		DL_TRY(advance(p));
		if (np == 64) return dl_error_set(DL_EUNSUPPORTED, "column path deeper than 64 levels");
		if (!(parts[np++] = ident_text(p))) return DL_ENOMEM;
		DL_TRY(advance(p));
	}
	ex_node *n = node(p, EX_COL, pos);
	if (!n) return DL_ENOMEM;
	n->path = dl_arena_calloc(&p->e->arena, (size_t)np, sizeof *n->path);
	if (!n->path) return DL_ENOMEM;
	memcpy(n->path, parts, (size_t)np * sizeof *parts);
	n->npath = np;
	*out = n;
	return 0;
}

static int make_call(parser *p, ex_node **out, const char *name, int pos, ex_node **args, int na)
{
	ex_node *n = node(p, EX_CALL, pos);
	if (!n || ex_node_set_args(p->e, n, na) < 0 || !(n->name = dl_arena_strdup(&p->e->arena, name))) return DL_ENOMEM;
	for (int i = 0; i < na; i++) n->args[i] = args[i];
	*out = n;
	return 0;
}

/* SQL-standard call forms: EXTRACT(f FROM x), SUBSTRING(s FROM p [FOR l]),
 * POSITION(a IN b), TRIM([BOTH|LEADING|TRAILING] [c] FROM s). They become
 * the equivalent function calls. Returns 1 when one was parsed. */
static int parse_special_call(parser *p, ex_node **out)
{
	int pos = p->tok.pos;
	ex_node *a[3];
	if (is_kw(p, "EXTRACT") || is_kw(p, "DATE_PART")) {
		bool extract = is_kw(p, "EXTRACT");
		ex_token *nx;
		DL_TRY(advance(p));
		DL_TRY(expect_op(p, "(", "'('"));
		char field[24] = "";
		if (extract) {
			if (p->tok.kind != TK_IDENT || p->tok.len >= sizeof field) return syntax_error(p, "a date/time field");
			memcpy(field, p->tok.p, p->tok.len);
			DL_TRY(advance(p));
			DL_TRY(expect_kw(p, "FROM", "FROM"));
		} else {
			if (p->tok.kind != TK_STRING || p->tok.len - 2 >= sizeof field) return syntax_error(p, "a date/time field name");
			memcpy(field, p->tok.p + 1, p->tok.len - 2);
			DL_TRY(advance(p));
			DL_TRY(expect_op(p, ",", "','"));
		}
		(void)nx;
		static const char *const map[][2] = {
		    {"YEAR", "year"},         {"YEARS", "year"},       {"Y", "year"},         {"YR", "year"},
		    {"QUARTER", "quarter"},   {"QTR", "quarter"},      {"MONTH", "month"},    {"MON", "month"},
		    {"MONTHS", "month"},      {"DAY", "day"},          {"D", "day"},          {"DAYS", "day"},
		    {"DAYOFWEEK", "dayofweek"}, {"DOW", "dayofweek"}, {"DOY", "dayofyear"}, {"WEEK", "weekofyear"},
		    {"W", "weekofyear"},      {"HOUR", "hour"},        {"H", "hour"},         {"HOURS", "hour"},
		    {"MINUTE", "minute"},     {"M", "minute"},         {"MIN", "minute"},     {"MINUTES", "minute"},
		    {"SECOND", "second"},     {"S", "second"},         {"SEC", "second"},     {"SECONDS", "second"}};
		const char *fn = NULL;
		for (size_t i = 0; i < sizeof map / sizeof map[0] && !fn; i++)
			if (strcasecmp(field, map[i][0]) == 0) fn = map[i][1];
		if (!fn) return dl_error_set(DL_EINVALID, "syntax error at position %d: unknown date/time field '%s'", pos, field);
		DL_TRY(exp_parse_expr(p, &a[0]));
		DL_TRY(expect_op(p, ")", "')'"));
		DL_TRY(make_call(p, out, fn, pos, a, 1));
		return 1;
	}
	if (is_kw(p, "POSITION")) {
		DL_TRY(advance(p));
		DL_TRY(expect_op(p, "(", "'('"));
		DL_TRY(exp_parse_value(p, &a[0]));
		if (is_kw(p, "IN")) {
			DL_TRY(advance(p));
			DL_TRY(exp_parse_value(p, &a[1]));
		} else {
			DL_TRY(expect_op(p, ",", "IN or ','"));
			DL_TRY(exp_parse_expr(p, &a[1]));
		}
		DL_TRY(expect_op(p, ")", "')'"));
		DL_TRY(make_call(p, out, "locate", pos, a, 2));
		return 1;
	}
	if (is_kw(p, "SUBSTRING") || is_kw(p, "SUBSTR")) {
		DL_TRY(advance(p));
		DL_TRY(expect_op(p, "(", "'('"));
		DL_TRY(exp_parse_expr(p, &a[0]));
		int na = 1;
		if (is_kw(p, "FROM") || is_op(p, ",")) {
			bool sql = is_kw(p, "FROM");
			DL_TRY(advance(p));
			DL_TRY(exp_parse_expr(p, &a[na++]));
			if (sql ? is_kw(p, "FOR") : is_op(p, ",")) {
				DL_TRY(advance(p));
				DL_TRY(exp_parse_expr(p, &a[na++]));
			}
		}
		DL_TRY(expect_op(p, ")", "')'"));
		DL_TRY(make_call(p, out, "substring", pos, a, na));
		return 1;
	}
	if (is_kw(p, "TRIM")) {
		DL_TRY(advance(p));
		DL_TRY(expect_op(p, "(", "'('"));
		const char *fn = "trim";
		bool spec = false;
		if (is_kw(p, "BOTH") || is_kw(p, "LEADING") || is_kw(p, "TRAILING")) {
			fn = is_kw(p, "BOTH") ? "trim" : is_kw(p, "LEADING") ? "ltrim" : "rtrim";
			spec = true;
			DL_TRY(advance(p));
		}
		int na = 0;
		ex_node *chars = NULL;
		if (!(spec && is_kw(p, "FROM"))) DL_TRY(exp_parse_expr(p, &chars));
		if (is_kw(p, "FROM")) {
			/* Spark's function form is trim([trimStr, ]str) */
			DL_TRY(advance(p));
			if (chars) a[na++] = chars;
			DL_TRY(exp_parse_expr(p, &a[na++]));
		} else if (chars && !spec) {
			a[0] = chars;
			na = 1;
			if (is_op(p, ",")) {
				DL_TRY(advance(p));
				DL_TRY(exp_parse_expr(p, &a[na++]));
			}
		} else {
			return syntax_error(p, "FROM");
		}
		DL_TRY(expect_op(p, ")", "')'"));
		DL_TRY(make_call(p, out, fn, pos, a, na));
		return 1;
	}
	return 0;
}

/* `?`, a prepared statement's parameter (SQL statements only: a filter
 * string has no one to bind it). Recorded in e->params for the session. */
static int parse_param(parser *p, ex_node **out)
{
	dl_expr *e = p->e;
	if (e->nparams == e->capparams) {
		size_t c = e->capparams ? e->capparams * 2 : 8;
		ex_node **g = dl_reallocarray(e->params, c, sizeof *g);
		if (!g) return dl_error_set(DL_ENOMEM, "out of memory parsing a parameter");
		e->params = g;
		e->capparams = c;
	}
	ex_node *n = node(p, EX_PARAM, p->tok.pos);
	if (!n) return DL_ENOMEM;
	n->lit.type = DL_TYPE_NULL;
	n->lit.is_null = true;
	e->params[e->nparams++] = n;
	*out = n;
	return advance(p);
}

static int parse_primary(parser *p, ex_node **out)
{
	ex_token *t = &p->tok;
	if (t->kind == TK_NUMBER) return exp_number_literal(p, out);
	if (t->kind == TK_HEXSTR) return exp_hex_literal(p, out);
	if (t->kind == TK_STRING) {
		int pos = t->pos;
		const char *s;
		size_t n;
		DL_TRY(exp_string_literal(p, &s, &n));
		DL_TRY(exp_lit_node(p, out, pos, DL_TYPE_STRING));
		(*out)->lit.v.str.ptr = s;
		(*out)->lit.v.str.len = n;
		return 0;
	}
	if (t->kind == TK_QIDENT) return parse_name(p, out);
	if (p->hooks && is_op(p, "?")) return parse_param(p, out);
	if (is_op(p, "(")) {
		int pos = p->tok.pos;
		DL_TRY(advance(p));
		if (p->hooks && starts_query(p)) return exp_parse_subquery(p, out, SQ_SCALAR, pos, NULL, false);
		DL_TRY(exp_parse_expr(p, out));
		return expect_op(p, ")", "')'");
	}
	if (t->kind != TK_IDENT) return syntax_error(p, "an expression");
	if (is_kw(p, "NULL")) {
		DL_TRY(exp_lit_node(p, out, t->pos, DL_TYPE_NULL));
		(*out)->lit.is_null = true;
		return advance(p);
	}
	if (is_kw(p, "TRUE") || is_kw(p, "FALSE")) {
		DL_TRY(exp_lit_node(p, out, t->pos, DL_TYPE_BOOLEAN));
		(*out)->lit.v.b = is_kw(p, "TRUE");
		return advance(p);
	}
	ex_token *nx;
	DL_TRY(peek(p, &nx));
	if (nx->kind == TK_STRING) {
		if (is_kw(p, "DATE")) return exp_typed_literal(p, out, DL_TYPE_DATE);
		if (is_kw(p, "TIMESTAMP") || is_kw(p, "TIMESTAMP_LTZ")) return exp_typed_literal(p, out, DL_TYPE_TIMESTAMP);
		if (is_kw(p, "TIMESTAMP_NTZ")) return exp_typed_literal(p, out, DL_TYPE_TIMESTAMP_NTZ);
	}
	if (is_kw(p, "INTERVAL") && (nx->kind == TK_STRING || nx->kind == TK_NUMBER ||
	                             (nx->kind == TK_OP && strcmp(nx->op, "-") == 0)))
		return exp_interval_literal(p, out);
	bool call = nx->kind == TK_OP && strcmp(nx->op, "(") == 0;
	if (call && p->hooks && is_kw(p, "EXISTS")) {
		int pos = p->tok.pos;
		DL_TRY(advance(p));
		DL_TRY(advance(p));
		return exp_parse_subquery(p, out, SQ_EXISTS, pos, NULL, false);
	}
	if (call) {
		int rc = parse_special_call(p, out);
		if (rc != 0) return rc < 0 ? rc : 0;
	}
	if (call && is_kw(p, "CAST")) return parse_cast(p, out, false);
	if (call && is_kw(p, "TRY_CAST")) return parse_cast(p, out, true);
	if (is_kw(p, "CASE")) return parse_case(p, out);
	static const char *const reserved[] = {"AND", "OR", "NOT", "IS", "IN", "BETWEEN", "LIKE", "ILIKE", "RLIKE",
	                                       "WHEN", "THEN", "ELSE", "END", "FROM", "SELECT", "WHERE", "AS", NULL};
	bool fn_ok = call && (is_kw(p, "RLIKE") || is_kw(p, "LIKE") || is_kw(p, "ILIKE"));
	for (int i = 0; reserved[i] && !fn_ok; i++)
		if (is_kw(p, reserved[i])) return syntax_error(p, "an expression");
	return parse_name(p, out);
}

static int parse_postfix(parser *p, ex_node **out)
{
	DL_TRY(parse_primary(p, out));
	for (;;) {
		int pos = p->tok.pos;
		if (is_op(p, "[")) {
			ex_node *n = node(p, EX_INDEX, pos);
			if (!n || ex_node_set_args(p->e, n, 2) < 0) return DL_ENOMEM;
			DL_TRY(advance(p));
			n->args[0] = *out;
			DL_TRY(exp_parse_expr(p, &n->args[1]));
			DL_TRY(expect_op(p, "]", "']'"));
			*out = n;
		} else if (is_op(p, ".")) {
			DL_TRY(advance(p));
			if (p->tok.kind != TK_IDENT && p->tok.kind != TK_QIDENT) return syntax_error(p, "a field name");
			ex_node *n = node(p, EX_FIELD, pos);
			if (!n || ex_node_set_args(p->e, n, 1) < 0) return DL_ENOMEM;
			n->args[0] = *out;
			n->path = dl_arena_calloc(&p->e->arena, 1, sizeof *n->path);
			if (!n->path || !(n->path[0] = ident_text(p))) return DL_ENOMEM;
			n->npath = 1;
			DL_TRY(advance(p));
			*out = n;
		} else if (is_op(p, "::")) {
			ex_node *n = node(p, EX_CAST, pos);
			if (!n || ex_node_set_args(p->e, n, 1) < 0) return DL_ENOMEM;
			DL_TRY(advance(p));
			n->args[0] = *out;
			dl_type *t;
			DL_TRY(exp_parse_type(p, &t));
			if (!(n->to = ex_keep_type(p->e, t))) return DL_ENOMEM;
			*out = n;
		} else {
			return 0;
		}
	}
}

static int parse_unary(parser *p, ex_node **out)
{
	int op = -1, pos = p->tok.pos;
	if (is_op(p, "-")) op = OP_NEG;
	else if (is_op(p, "+")) op = OP_POS;
	else if (is_op(p, "~")) op = OP_BITNOT;
	if (op < 0) return parse_postfix(p, out);
	if (++p->depth > EX_MAX_DEPTH) return dl_error_set(DL_EINVALID, "expression nested too deeply at position %d", pos);
	DL_TRY(advance(p));
	ex_node *a;
	DL_TRY(parse_unary(p, &a));
	p->depth--;
	/* -<number> is a negative literal, as in Spark (so -2147483648 is INT). */
	if (op == OP_NEG && a->kind == EX_LIT && a->pos == pos + 1 && ex_negate_literal(&a->lit) == 0) {
		/* the most negative INT and BIGINT are written without a suffix
		 * but their magnitude only fits the next wider type */
		const char *t = p->lx.src + a->pos;
		while (*t >= '0' && *t <= '9') t++;
		bool suffixed = (*t >= 'a' && *t <= 'z') || (*t >= 'A' && *t <= 'Z') || *t == '.';
		if (!suffixed && a->lit.type == DL_TYPE_LONG && a->lit.v.i64 == INT32_MIN) a->lit.type = DL_TYPE_INTEGER;
		if (!suffixed && a->lit.type == DL_TYPE_DECIMAL && a->lit.scale == 0 && a->lit.v.dec == (dl_i128)INT64_MIN) {
			a->lit.type = DL_TYPE_LONG;
			a->lit.v.i64 = INT64_MIN;
			a->lit.precision = 0;
		}
		a->pos = pos;
		*out = a;
		return 0;
	}
	return make_op(p, out, op, pos, a, NULL);
}

/* Binary levels, from tightest to loosest. */
typedef struct level {
	const char *ops[6];
	int codes[6];
} level;

static const level levels[] = {
    {{"*", "/", "%", "DIV"}, {OP_MUL, OP_DIV, OP_MOD, OP_IDIV}},
    {{"+", "-", "||"}, {OP_ADD, OP_SUB, OP_CONCAT}},
    {{"&"}, {OP_BITAND}},
    {{"^"}, {OP_BITXOR}},
    {{"|"}, {OP_BITOR}},
    {{"=", "==", "<>", "!=", "<", "<="}, {OP_EQ, OP_EQ, OP_NE, OP_NE, OP_LT, OP_LE}},
};
#define NLEVELS ((int)(sizeof levels / sizeof levels[0]))

int ex_binary_level(int op)
{
	if (op == OP_AND) return NLEVELS;
	if (op == OP_OR) return NLEVELS + 1;
	if (op == OP_GT || op == OP_GE || op == OP_NSEQ) return NLEVELS - 1; /* match_level's extras */
	for (int l = 0; l < NLEVELS; l++)
		for (int i = 0; i < 6 && levels[l].ops[i]; i++)
			if (levels[l].codes[i] == op) return l;
	return -1;
}

static int match_level(parser *p, int lvl)
{
	const level *L = &levels[lvl];
	for (int i = 0; i < 6 && L->ops[i]; i++) {
		if (isalpha((unsigned char)L->ops[i][0]) ? is_kw(p, L->ops[i]) : is_op(p, L->ops[i])) return L->codes[i];
	}
	if (lvl == NLEVELS - 1) {
		if (is_op(p, ">")) return OP_GT;
		if (is_op(p, ">=")) return OP_GE;
		if (is_op(p, "<=>")) return OP_NSEQ;
	}
	return -1;
}

static int parse_level(parser *p, int lvl, ex_node **out)
{
	if (lvl < 0) return parse_unary(p, out);
	DL_TRY(parse_level(p, lvl - 1, out));
	int op;
	while ((op = match_level(p, lvl)) >= 0) {
		int pos = p->tok.pos;
		DL_TRY(advance(p));
		ex_node *b;
		DL_TRY(parse_level(p, lvl - 1, &b));
		DL_TRY(make_op(p, out, op, pos, *out, b));
	}
	return 0;
}

int exp_parse_value(parser *p, ex_node **out)
{
	return parse_level(p, NLEVELS - 1, out);
}

static int parse_in_list(parser *p, ex_node *lhs, ex_node **out, bool neg, int pos)
{
	ex_node *n = node(p, EX_IN, pos);
	if (!n) return DL_ENOMEM;
	n->negated = neg;
	DL_TRY(expect_op(p, "(", "'(' after IN"));
	size_t cap = 16, na = 1;
	ex_node **args = dl_malloc(cap * sizeof *args);
	if (!args) return DL_ENOMEM;
	args[0] = lhs;
	int rc = 0;
	if (starts_query(p)) {
		dl_free(args);
		return exp_parse_subquery(p, out, SQ_IN, pos, lhs, neg);
	}
	while (rc == 0) {
		if (na == cap) {
			ex_node **g = cap > (1u << 20) ? NULL : dl_reallocarray(args, cap * 2, sizeof *args);
			if (!g) {
				rc = DL_ENOMEM;
				break;
			}
			args = g;
			cap *= 2;
		}
		if ((rc = exp_parse_expr(p, &args[na++])) < 0) break;
		if (is_op(p, ")")) break;
		rc = expect_op(p, ",", "',' or ')'");
	}
	if (rc == 0) rc = advance(p);
	if (rc == 0) rc = ex_node_set_args(p->e, n, (int)na);
	if (rc == 0) memcpy(n->args, args, na * sizeof *args);
	dl_free(args);
	*out = n;
	return rc;
}

static int parse_predicate(parser *p, ex_node **out)
{
	DL_TRY(exp_parse_value(p, out));
	int pos = p->tok.pos;
	if (is_kw(p, "IS")) {
		DL_TRY(advance(p));
		bool neg = false;
		if (is_kw(p, "NOT")) {
			neg = true;
			DL_TRY(advance(p));
		}
		if (is_kw(p, "DISTINCT")) {
			DL_TRY(advance(p));
			DL_TRY(expect_kw(p, "FROM", "FROM after IS [NOT] DISTINCT"));
			ex_node *b;
			DL_TRY(exp_parse_value(p, &b));
			DL_TRY(make_op(p, out, OP_NSEQ, pos, *out, b));
			if (!neg) DL_TRY(make_op(p, out, OP_NOT, pos, *out, NULL));
			return 0;
		}
		ex_node *n = node(p, EX_IS, pos);
		if (!n || ex_node_set_args(p->e, n, 1) < 0) return DL_ENOMEM;
		n->negated = neg;
		n->args[0] = *out;
		if (is_kw(p, "NULL") || is_kw(p, "UNKNOWN")) n->op = IS_NULL;
		else if (is_kw(p, "TRUE")) n->op = IS_TRUE;
		else if (is_kw(p, "FALSE")) n->op = IS_FALSE;
		else return syntax_error(p, "NULL, TRUE, FALSE or DISTINCT FROM after IS");
		*out = n;
		return advance(p);
	}
	bool neg = false;
	if (is_kw(p, "NOT")) {
		ex_token *nx;
		DL_TRY(peek(p, &nx));
		static const char *const follow[] = {"IN", "BETWEEN", "LIKE", "ILIKE", "RLIKE", "REGEXP", NULL};
		bool ok = false;
		for (int i = 0; follow[i]; i++) ok |= ex_tok_is(nx, follow[i]);
		if (!ok) return 0; /* the caller reports the stray NOT */
		neg = true;
		DL_TRY(advance(p));
	}
	if (is_kw(p, "IN")) {
		DL_TRY(advance(p));
		return parse_in_list(p, *out, out, neg, pos);
	}
	if (is_kw(p, "BETWEEN")) {
		ex_node *n = node(p, EX_BETWEEN, pos);
		if (!n || ex_node_set_args(p->e, n, 3) < 0) return DL_ENOMEM;
		n->negated = neg;
		n->args[0] = *out;
		DL_TRY(advance(p));
		DL_TRY(exp_parse_value(p, &n->args[1]));
		DL_TRY(expect_kw(p, "AND", "AND in BETWEEN"));
		DL_TRY(exp_parse_value(p, &n->args[2]));
		*out = n;
		return 0;
	}
	int lk = is_kw(p, "LIKE") ? LIKE_LIKE : is_kw(p, "ILIKE") ? LIKE_ILIKE
	         : (is_kw(p, "RLIKE") || is_kw(p, "REGEXP")) ? LIKE_RLIKE : -1;
	if (lk >= 0) {
		ex_node *n = node(p, EX_LIKE, pos);
		if (!n || ex_node_set_args(p->e, n, 2) < 0) return DL_ENOMEM;
		n->op = lk;
		n->negated = neg;
		n->args[0] = *out;
		DL_TRY(advance(p));
		DL_TRY(exp_parse_value(p, &n->args[1]));
		if (lk != LIKE_RLIKE && is_kw(p, "ESCAPE")) {
			DL_TRY(advance(p));
			const char *s;
			size_t len;
			if (p->tok.kind != TK_STRING) return syntax_error(p, "a one-character string after ESCAPE");
			DL_TRY(exp_string_literal(p, &s, &len));
			if (len != 1) return dl_error_set(DL_EINVALID, "the ESCAPE string must be one character, got '%s'", s);
			n->escape = (unsigned char)s[0];
		}
		*out = n;
		return 0;
	}
	if (neg) return syntax_error(p, "IN, BETWEEN or LIKE after NOT");
	return 0;
}

static int parse_not(parser *p, ex_node **out)
{
	if (is_kw(p, "NOT") || is_op(p, "!")) {
		int pos = p->tok.pos;
		if (++p->depth > EX_MAX_DEPTH)
			return dl_error_set(DL_EINVALID, "expression nested too deeply at position %d", pos);
		DL_TRY(advance(p));
		ex_node *a;
		DL_TRY(parse_not(p, &a));
		p->depth--;
		return make_op(p, out, OP_NOT, pos, a, NULL);
	}
	return parse_predicate(p, out);
}

/* A chain x1 AND x2 AND ... (or OR) as a balanced tree, as Spark's
 * AstBuilder.visitLogicalBinary builds it: a left-deep tree of a generated
 * condition with thousands of terms (`id = 1 OR id = 2 OR ...`) would be as
 * deep as it is long, past EX_MAX_HEIGHT, for every recursive walk of it.
 * The operators are associative and the operands keep their order, so the
 * result, errors included, is that of the left-deep tree. */
typedef struct chain {
	ex_node **items;
	int *pos;    /* position of the operator before items[i] (i > 0) */
	int n, cap;
} chain;

static int chain_push(chain *c, ex_node *x, int pos)
{
	if (c->n == c->cap) {
		int cap = c->cap ? c->cap * 2 : 16;
		ex_node **items = dl_reallocarray(c->items, (size_t)cap, sizeof *items);
		if (!items) return DL_ENOMEM;
		c->items = items;
		int *ps = dl_reallocarray(c->pos, (size_t)cap, sizeof *ps);
		if (!ps) return DL_ENOMEM;
		c->pos = ps;
		c->cap = cap;
	}
	c->items[c->n] = x;
	c->pos[c->n++] = pos;
	return 0;
}

/* items[lo..hi] joined by op: split at the middle, as Spark's
 * reduceToExpressionTree; recursion depth log2 of the chain's length. */
static int chain_reduce(parser *p, const chain *c, int op, int lo, int hi, ex_node **out)
{
	if (lo == hi) {
		*out = c->items[lo];
		return 0;
	}
	int mid = lo + (hi - lo) / 2;
	ex_node *a, *b;
	DL_TRY(chain_reduce(p, c, op, lo, mid, &a));
	DL_TRY(chain_reduce(p, c, op, mid + 1, hi, &b));
	return make_op(p, out, op, c->pos[mid + 1], a, b);
}

static int parse_chain(parser *p, const char *kw, int op, int (*operand)(parser *, ex_node **), ex_node **out)
{
	DL_TRY(operand(p, out));
	if (!is_kw(p, kw)) return 0;
	chain c = {0};
	int rc = chain_push(&c, *out, 0);
	while (rc == 0 && is_kw(p, kw)) {
		int pos = p->tok.pos;
		ex_node *b;
		rc = advance(p);
		if (rc == 0) rc = operand(p, &b);
		if (rc == 0) rc = chain_push(&c, b, pos);
	}
	if (rc == 0) rc = chain_reduce(p, &c, op, 0, c.n - 1, out);
	dl_free(c.items);
	dl_free(c.pos);
	return rc;
}

static int parse_and(parser *p, ex_node **out)
{
	return parse_chain(p, "AND", OP_AND, parse_not, out);
}

int exp_parse_expr(parser *p, ex_node **out)
{
	if (++p->depth > EX_MAX_DEPTH)
		return dl_error_set(DL_EINVALID, "expression nested too deeply at position %d", p->tok.pos);
	DL_TRY(parse_chain(p, "OR", OP_OR, parse_and, out));
	p->depth--;
	return 0;
}

/* The height of the tree (a leaf is 1) over EX_MAX_HEIGHT is refused: every
 * walk of an expression (binding, evaluation, printing, pruning, freeing)
 * recurses once a level, and a chain `a + a + ... + a` builds a level an
 * operator without nesting anything (the parser's depth counts nesting
 * only). Walked here with a stack of its own, not by recursion. */
static int check_height(const ex_node *root, int base)
{
	typedef struct item {
		const ex_node *n;
		int h;
	} item;
	size_t cap = 64, top = 0;
	item *st = dl_malloc(cap * sizeof *st);
	if (!st) return DL_ENOMEM;
	st[top++] = (item){root, base + 1};
	int rc = 0;
	while (top && rc == 0) {
		item it = st[--top];
		if (it.h > EX_MAX_HEIGHT) {
			rc = dl_error_set(DL_EINVALID, "expression nested too deeply: more than %d levels at position %d",
			                  EX_MAX_HEIGHT, it.n->pos);
			break;
		}
		const ex_window *w = it.n->kind == EX_CALL ? it.n->over : NULL;
		size_t need = (size_t)it.n->nargs + (w ? (size_t)w->npartition + (size_t)w->norder + 2 : 0);
		if (top + need > cap) {
			size_t nc = cap;
			while (top + need > nc) nc *= 2;
			item *g = dl_reallocarray(st, nc, sizeof *st);
			if (!g) {
				rc = DL_ENOMEM;
				break;
			}
			st = g;
			cap = nc;
		}
		for (int i = 0; i < it.n->nargs; i++)
			if (it.n->args[i]) st[top++] = (item){it.n->args[i], it.h + 1};
		if (w) {
			for (int i = 0; i < w->npartition; i++) st[top++] = (item){w->partition[i], it.h + 1};
			for (int i = 0; i < w->norder; i++) st[top++] = (item){w->order[i].expr, it.h + 1};
			if (w->lo.offset) st[top++] = (item){w->lo.offset, it.h + 1};
			if (w->hi.offset) st[top++] = (item){w->hi.offset, it.h + 1};
		}
	}
	dl_free(st);
	return rc;
}

int dl_expr_parse(dl_expr **out, const char *sql)
{
	*out = NULL;
	if (!sql) return dl_error_set(DL_EINVALID, "expression text is NULL");
	dl_expr *e = ex_expr_new();
	if (!e) return DL_ENOMEM;
	parser p = {.e = e, .lx = {sql, strlen(sql), 0}};
	int rc = advance(&p);
	if (rc == 0) rc = exp_parse_expr(&p, &e->root);
	if (rc == 0 && p.tok.kind != TK_EOF) rc = syntax_error(&p, "end of input or an operator");
	if (rc == 0) rc = check_height(e->root, 0);
	if (rc < 0) {
		dl_expr_free(e);
		return rc;
	}
	*out = e;
	return 0;
}

int ex_parse_expr_at(dl_expr *e, const char *src, size_t len, size_t *pos, const ex_sql_hooks *hooks,
                     ex_node **out)
{
	parser p = {.e = e, .lx = {src, len, *pos}, .hooks = hooks, .depth = hooks ? hooks->depth : 0};
	int rc = advance(&p);
	if (rc == 0) rc = exp_parse_expr(&p, out);
	if (rc == 0) rc = check_height(*out, p.depth);
	*pos = rc < 0 && p.tok.pos < (int)*pos ? p.lx.i : (size_t)p.tok.pos;
	return rc;
}

int ex_parse_type_text(dl_type **out, const char *text)
{
	dl_expr *e = ex_expr_new();
	if (!e) return DL_ENOMEM;
	parser p = {.e = e, .lx = {text, strlen(text), 0}};
	int rc = advance(&p);
	if (rc == 0) rc = exp_parse_type(&p, out);
	if (rc == 0 && p.tok.kind != TK_EOF) {
		dl_type_unref(*out);
		rc = syntax_error(&p, "end of the type");
	}
	dl_expr_free(e);
	return rc;
}
