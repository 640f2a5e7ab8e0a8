/* Canonical SQL text of an expression: every operand that is itself an
 * operator or predicate is parenthesized, identifiers are back-quoted only
 * when needed, and literals carry their type (5L, 1.5D, DATE '...'), so
 * parse(print(e)) == e and print is a fixpoint. */
#include "expr/ast.h"
#include "expr/eval.h"
#include "expr/datetime.h"
#include "util/error.h"
#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

static const char *const op_text[] = {
    [OP_NEG] = "-",  [OP_POS] = "+",   [OP_NOT] = "NOT ", [OP_BITNOT] = "~", [OP_ADD] = "+", [OP_SUB] = "-",
    [OP_MUL] = "*",  [OP_DIV] = "/",   [OP_MOD] = "%",    [OP_IDIV] = "div", [OP_CONCAT] = "||",
    [OP_BITAND] = "&", [OP_BITOR] = "|", [OP_BITXOR] = "^", [OP_EQ] = "=",   [OP_NE] = "!=",  [OP_LT] = "<",
    [OP_LE] = "<=",  [OP_GT] = ">",    [OP_GE] = ">=",    [OP_NSEQ] = "<=>", [OP_AND] = "AND", [OP_OR] = "OR",
};

static bool needs_quotes(const char *s)
{
	static const char *const kw[] = {"and", "or", "not", "is", "in", "between", "like", "ilike", "rlike", "regexp",
	                                 "case", "when", "then", "else", "end", "null", "true", "false", "cast",
	                                 "try_cast", "interval", "date", "timestamp", "timestamp_ntz", "timestamp_ltz",
	                                 "div", "escape", "distinct", "from", "select", "where", "as", "unknown",
	                                 "current_date", "current_timestamp", "current_timezone", "localtimestamp",
	                                 /* words the SQL layer reads as clause keywords after an expression */
	                                 "over", "exists", "order", "group", "having", "limit", "offset", "union",
	                                 "intersect", "except", "minus", "join", "on", "using", "asc", "desc", "nulls",
	                                 "preceding", "following", "rows", "range", "partition", NULL};
	if (!*s || !(isalpha((unsigned char)*s) || *s == '_')) return true;
	for (const char *c = s; *c; c++)
		if (!isalnum((unsigned char)*c) && *c != '_') return true;
	for (int i = 0; kw[i]; i++)
		if (strcasecmp(s, kw[i]) == 0) return true;
	return false;
}

static int print_ident(dl_buf *out, const char *s)
{
	if (!needs_quotes(s)) return dl_buf_puts(out, s);
	DL_TRY(dl_buf_putc(out, '`'));
	for (; *s; s++) {
		if (*s == '`') DL_TRY(dl_buf_putc(out, '`'));
		DL_TRY(dl_buf_putc(out, *s));
	}
	return dl_buf_putc(out, '`');
}

static int print_string(dl_buf *out, const char *s, size_t n)
{
	DL_TRY(dl_buf_putc(out, '\''));
	for (size_t i = 0; i < n; i++) {
		unsigned char c = (unsigned char)s[i];
		switch (c) {
		case '\'': DL_TRY(dl_buf_puts(out, "\\'")); break;
		case '\\':
			/* \% and \_ survive unescaping as two characters: keep them */
			if (i + 1 < n && (s[i + 1] == '%' || s[i + 1] == '_')) DL_TRY(dl_buf_putc(out, '\\'));
			else DL_TRY(dl_buf_puts(out, "\\\\"));
			break;
		case '\n': DL_TRY(dl_buf_puts(out, "\\n")); break;
		case '\t': DL_TRY(dl_buf_puts(out, "\\t")); break;
		case '\r': DL_TRY(dl_buf_puts(out, "\\r")); break;
		default:
			if (c < 0x20) DL_TRY(dl_buf_printf(out, "\\u%04x", c));
			else DL_TRY(dl_buf_putc(out, (char)c));
		}
	}
	return dl_buf_putc(out, '\'');
}

static int print_i128(dl_buf *out, dl_i128 v, int scale)
{
	char tmp[48];
	int k = 0;
	bool neg = v < 0;
	ex_u128 u = neg ? (ex_u128)0 - (ex_u128)v : (ex_u128)v;
	do {
		tmp[k++] = (char)('0' + (int)(u % 10));
		u /= 10;
	} while (u || k <= scale);
	if (neg) DL_TRY(dl_buf_putc(out, '-'));
	for (int i = k - 1; i >= 0; i--) {
		DL_TRY(dl_buf_putc(out, tmp[i]));
		if (i == scale && scale > 0) DL_TRY(dl_buf_putc(out, '.'));
	}
	return 0;
}

int ex_format_double(char *out, double d, bool is_float); /* cast.c */

/* Java's shortest text (1.5, 1.0E10) plus the type suffix. */
static int print_double(dl_buf *out, double d, bool is_float)
{
	char b[40];
	ex_format_double(b, d, is_float);
	DL_TRY(dl_buf_puts(out, b));
	return dl_buf_puts(out, is_float ? "F" : "D");
}

static int print_scalar(dl_buf *out, const dl_scalar *s, bool wall);

int ex_print_scalar(dl_buf *out, const dl_scalar *s)
{
	return print_scalar(out, s, false);
}

/* wall: a zone-less TIMESTAMP literal (printed without 'Z'). */
static int print_scalar(dl_buf *out, const dl_scalar *s, bool wall)
{
	if (s->is_null || s->type == DL_TYPE_NULL) return dl_buf_puts(out, "NULL");
	char tmp[64];
	switch (s->type) {
	case DL_TYPE_BOOLEAN: return dl_buf_puts(out, s->v.b ? "true" : "false");
	case DL_TYPE_BYTE: return dl_buf_printf(out, "%lldY", (long long)s->v.i64);
	case DL_TYPE_SHORT: return dl_buf_printf(out, "%lldS", (long long)s->v.i64);
	case DL_TYPE_INTEGER: return dl_buf_printf(out, "%lld", (long long)s->v.i64);
	case DL_TYPE_LONG:
		/* 9223372036854775808L does not lex; the unsuffixed form reads
		 * back as BIGINT */
		if (s->v.i64 == INT64_MIN) return dl_buf_puts(out, "-9223372036854775808");
		return dl_buf_printf(out, "%lldL", (long long)s->v.i64);
	case DL_TYPE_FLOAT:
	case DL_TYPE_DOUBLE:
		if (!isfinite(s->v.f64))
			return dl_buf_printf(out, "CAST('%s' AS %s)",
			                     isnan(s->v.f64) ? "NaN" : s->v.f64 > 0 ? "Infinity" : "-Infinity",
			                     s->type == DL_TYPE_FLOAT ? "FLOAT" : "DOUBLE");
		return print_double(out, s->v.f64, s->type == DL_TYPE_FLOAT);
	case DL_TYPE_DECIMAL:
		DL_TRY(print_i128(out, s->v.dec, s->scale));
		return s->scale == 0 ? dl_buf_puts(out, "BD") : 0;
	case DL_TYPE_STRING: return print_string(out, s->v.str.ptr, s->v.str.len);
	case DL_TYPE_BINARY:
		DL_TRY(dl_buf_puts(out, "X'"));
		for (size_t i = 0; i < s->v.str.len; i++)
			DL_TRY(dl_buf_printf(out, "%02X", (unsigned char)s->v.str.ptr[i]));
		return dl_buf_putc(out, '\'');
	case DL_TYPE_DATE:
		ex_date_format(tmp, (int32_t)s->v.i64);
		return dl_buf_printf(out, "DATE '%s'", tmp);
	case DL_TYPE_TIMESTAMP:
	case DL_TYPE_TIMESTAMP_NTZ:
		ex_ts_format(tmp, s->v.i64, NULL);
		return dl_buf_printf(out, "%s '%s%s'", s->type == DL_TYPE_TIMESTAMP ? "TIMESTAMP" : "TIMESTAMP_NTZ", tmp,
		                     s->type == DL_TYPE_TIMESTAMP && !wall ? "Z" : "");
	default: return dl_error_set(DL_EUNSUPPORTED, "cannot print a literal of type %s", dl_type_id_name(s->type));
	}
}

static bool is_compound(const ex_node *n)
{
	switch (n->kind) {
	case EX_OP:
		/* negative numbers print as literals; unary minus on a column is
		 * still an operator and needs parentheses around it as an operand */
		return true;
	case EX_IN:
	case EX_BETWEEN:
	case EX_LIKE:
	case EX_IS: return true;
	case EX_SUBQUERY: return n->op == SQ_IN;
	case EX_LIT:
		/* -5 as an operand of '-' would lex as '- -5' fine, but a negative
		 * literal on the left of a postfix needs grouping */
		return (n->lit.type == DL_TYPE_INTEGER || n->lit.type == DL_TYPE_LONG || n->lit.type == DL_TYPE_SHORT ||
		        n->lit.type == DL_TYPE_BYTE) ? n->lit.v.i64 < 0
		       : n->lit.type == DL_TYPE_DECIMAL ? n->lit.v.dec < 0
		       : (n->lit.type == DL_TYPE_DOUBLE || n->lit.type == DL_TYPE_FLOAT) ? signbit(n->lit.v.f64) != 0
		                                                                          : false;
	default: return false;
	}
}

static int print_operand(dl_buf *out, const ex_node *n)
{
	if (!is_compound(n)) return ex_print(out, n);
	DL_TRY(dl_buf_putc(out, '('));
	DL_TRY(ex_print(out, n));
	return dl_buf_putc(out, ')');
}

/* The left operand of a binary operator: without parentheses when it is
 * a binary operator of the same level, which is left-associative (`a + b
 * - c` reads as (a + b) - c), so a chain prints flat. Grouped a level a
 * term, a chain of 200 terms (a generated sum, say) would read back past
 * the parser's nesting limit: the text a scan, a commit or a stored
 * constraint reparses must parse. AND and OR chains are balanced trees
 * (parser.c) and keep their grouping, as Spark prints them. */
static int print_left(dl_buf *out, const ex_node *parent, const ex_node *n)
{
	if (n->kind == EX_OP && n->nargs == 2 && parent->op != OP_AND && parent->op != OP_OR &&
	    ex_binary_level(n->op) == ex_binary_level(parent->op))
		return ex_print(out, n);
	return print_operand(out, n);
}

/* Apart from ex_print: its type text would take 512 bytes of every
 * level of the recursion. */
static int print_cast(dl_buf *out, const ex_node *n)
{
	char tsql[512];
	dl_type_sql(n->to, tsql, sizeof tsql);
	DL_TRY(dl_buf_puts(out, n->flag ? "TRY_CAST(" : "CAST("));
	DL_TRY(ex_print(out, n->args[0]));
	return dl_buf_printf(out, " AS %s)", tsql);
}

/* The base of a postfix (.f, [i]): anything but a name, call or postfix
 * is grouped, so 2.a or -1[0] cannot lex differently. */
static int print_postfix_base(dl_buf *out, const ex_node *n)
{
	bool plain = n->kind == EX_COL || n->kind == EX_CALL || n->kind == EX_FIELD || n->kind == EX_INDEX ||
	             n->kind == EX_CAST || n->kind == EX_CASE;
	if (plain) return ex_print(out, n);
	DL_TRY(dl_buf_putc(out, '('));
	DL_TRY(ex_print(out, n));
	return dl_buf_putc(out, ')');
}

static int print_list(dl_buf *out, ex_node **args, int from, int to)
{
	for (int i = from; i < to; i++) {
		if (i > from) DL_TRY(dl_buf_puts(out, ", "));
		DL_TRY(ex_print(out, args[i]));
	}
	return 0;
}

static int print_interval(dl_buf *out, const ex_node *n)
{
	DL_TRY(dl_buf_puts(out, "INTERVAL"));
	bool any = false;
	if (n->months) {
		DL_TRY(dl_buf_printf(out, " '%d' MONTH", n->months));
		any = true;
	}
	if (n->days) {
		DL_TRY(dl_buf_printf(out, " '%d' DAY", n->days));
		any = true;
	}
	if (n->micros || !any) DL_TRY(dl_buf_printf(out, " '%lld' MICROSECOND", (long long)n->micros));
	return 0;
}

static int print_case(dl_buf *out, const ex_node *n)
{
	DL_TRY(dl_buf_puts(out, "CASE"));
	int i = 0;
	if (n->flag) {
		DL_TRY(dl_buf_putc(out, ' '));
		DL_TRY(ex_print(out, n->args[i++]));
	}
	int end = n->has_else ? n->nargs - 1 : n->nargs;
	for (; i + 1 < end + 1 && i < end; i += 2) {
		DL_TRY(dl_buf_puts(out, " WHEN "));
		DL_TRY(ex_print(out, n->args[i]));
		DL_TRY(dl_buf_puts(out, " THEN "));
		DL_TRY(ex_print(out, n->args[i + 1]));
	}
	if (n->has_else) {
		DL_TRY(dl_buf_puts(out, " ELSE "));
		DL_TRY(ex_print(out, n->args[n->nargs - 1]));
	}
	return dl_buf_puts(out, " END");
}

static int print_bound(dl_buf *out, const ex_frame_bound *b)
{
	switch (b->kind) {
	case BOUND_UNBOUNDED_PRECEDING: return dl_buf_puts(out, "UNBOUNDED PRECEDING");
	case BOUND_UNBOUNDED_FOLLOWING: return dl_buf_puts(out, "UNBOUNDED FOLLOWING");
	case BOUND_CURRENT_ROW: return dl_buf_puts(out, "CURRENT ROW");
	case BOUND_PRECEDING:
	case BOUND_FOLLOWING:
		DL_TRY(print_operand(out, b->offset));
		return dl_buf_puts(out, b->kind == BOUND_PRECEDING ? " PRECEDING" : " FOLLOWING");
	}
	return 0;
}

int ex_print_sort_items(dl_buf *out, const ex_sort_item *items, int n)
{
	for (int i = 0; i < n; i++) {
		if (i) DL_TRY(dl_buf_puts(out, ", "));
		DL_TRY(ex_print(out, items[i].expr));
		if (items[i].desc) DL_TRY(dl_buf_puts(out, " DESC"));
		if (items[i].nulls != NULLS_DEFAULT)
			DL_TRY(dl_buf_puts(out, items[i].nulls == NULLS_FIRST ? " NULLS FIRST" : " NULLS LAST"));
	}
	return 0;
}

static int print_window(dl_buf *out, const ex_window *w)
{
	DL_TRY(dl_buf_puts(out, " OVER ("));
	const char *sep = "";
	if (w->npartition) {
		DL_TRY(dl_buf_puts(out, "PARTITION BY "));
		DL_TRY(print_list(out, w->partition, 0, w->npartition));
		sep = " ";
	}
	if (w->norder) {
		DL_TRY(dl_buf_printf(out, "%sORDER BY ", sep));
		DL_TRY(ex_print_sort_items(out, w->order, w->norder));
		sep = " ";
	}
	if (w->frame != FRAME_NONE) {
		DL_TRY(dl_buf_printf(out, "%s%s BETWEEN ", sep, w->frame == FRAME_ROWS ? "ROWS" : "RANGE"));
		DL_TRY(print_bound(out, &w->lo));
		DL_TRY(dl_buf_puts(out, " AND "));
		DL_TRY(print_bound(out, &w->hi));
	}
	return dl_buf_putc(out, ')');
}

static int print_subquery(dl_buf *out, const ex_node *n)
{
	if (n->op == SQ_IN) {
		DL_TRY(print_operand(out, n->args[0]));
		DL_TRY(dl_buf_puts(out, n->negated ? " NOT IN (" : " IN ("));
	} else {
		DL_TRY(dl_buf_puts(out, n->op == SQ_EXISTS ? "EXISTS (" : "("));
	}
	if (!n->print_query) return dl_error_set(DL_ERROR, "a subquery without its printer");
	DL_TRY(n->print_query(out, n->query));
	return dl_buf_putc(out, ')');
}

int ex_print(dl_buf *out, const ex_node *n)
{
	switch (n->kind) {
	case EX_LIT: return print_scalar(out, &n->lit, n->flag);
	case EX_PARAM: return dl_buf_putc(out, '?');
	case EX_INTERVAL: return print_interval(out, n);
	case EX_COL:
		for (int i = 0; i < n->npath; i++) {
			if (i) DL_TRY(dl_buf_putc(out, '.'));
			DL_TRY(print_ident(out, n->path[i]));
		}
		return 0;
	case EX_FIELD:
		DL_TRY(print_postfix_base(out, n->args[0]));
		DL_TRY(dl_buf_putc(out, '.'));
		return print_ident(out, n->path[0]);
	case EX_INDEX:
		DL_TRY(print_postfix_base(out, n->args[0]));
		DL_TRY(dl_buf_putc(out, '['));
		DL_TRY(ex_print(out, n->args[1]));
		return dl_buf_putc(out, ']');
	case EX_OP:
		if (n->nargs == 1) {
			DL_TRY(dl_buf_puts(out, op_text[n->op]));
			/* -(5) stays an operator: -5 would read back as a literal */
			if ((n->op == OP_NEG || n->op == OP_POS) && n->args[0]->kind == EX_LIT) {
				DL_TRY(dl_buf_putc(out, '('));
				DL_TRY(ex_print(out, n->args[0]));
				return dl_buf_putc(out, ')');
			}
			/* chains of unary operators need no grouping (fewer nesting
			 * levels when read back), except - - which would lex as a
			 * comment and ~ NOT which is not an expression */
			const ex_node *c = n->args[0];
			if (c->kind == EX_OP && c->nargs == 1 && !(n->op == OP_NEG && c->op == OP_NEG) &&
			    !(n->op != OP_NOT && c->op == OP_NOT))
				return ex_print(out, c);
			return print_operand(out, c);
		}
		DL_TRY(print_left(out, n, n->args[0]));
		DL_TRY(dl_buf_printf(out, " %s ", op_text[n->op]));
		return print_operand(out, n->args[1]);
	case EX_CALL:
		DL_TRY(dl_buf_puts(out, n->name));
		DL_TRY(dl_buf_putc(out, '('));
		if (n->flag) DL_TRY(dl_buf_putc(out, '*'));
		if (n->distinct) DL_TRY(dl_buf_puts(out, "DISTINCT "));
		DL_TRY(print_list(out, n->args, 0, n->nargs));
		DL_TRY(dl_buf_putc(out, ')'));
		return n->over ? print_window(out, n->over) : 0;
	case EX_SUBQUERY: return print_subquery(out, n);
	case EX_CAST: return print_cast(out, n);
	case EX_CASE: return print_case(out, n);
	case EX_IN:
		DL_TRY(print_operand(out, n->args[0]));
		DL_TRY(dl_buf_puts(out, n->negated ? " NOT IN (" : " IN ("));
		DL_TRY(print_list(out, n->args, 1, n->nargs));
		return dl_buf_putc(out, ')');
	case EX_BETWEEN:
		DL_TRY(print_operand(out, n->args[0]));
		DL_TRY(dl_buf_puts(out, n->negated ? " NOT BETWEEN " : " BETWEEN "));
		DL_TRY(print_operand(out, n->args[1]));
		DL_TRY(dl_buf_puts(out, " AND "));
		return print_operand(out, n->args[2]);
	case EX_LIKE: {
		static const char *const kw[] = {"LIKE", "ILIKE", "RLIKE"};
		DL_TRY(print_operand(out, n->args[0]));
		DL_TRY(dl_buf_printf(out, " %s%s ", n->negated ? "NOT " : "", kw[n->op]));
		DL_TRY(print_operand(out, n->args[1]));
		if (n->escape >= 0) {
			char c = (char)n->escape;
			DL_TRY(dl_buf_puts(out, " ESCAPE "));
			return print_string(out, &c, 1);
		}
		return 0;
	}
	case EX_IS: {
		static const char *const what[] = {"NULL", "TRUE", "FALSE"};
		DL_TRY(print_operand(out, n->args[0]));
		return dl_buf_printf(out, " IS %s%s", n->negated ? "NOT " : "", what[n->op]);
	}
	}
	return dl_error_set(DL_ERROR, "unknown expression node kind %d", (int)n->kind);
}

int dl_expr_sql(const dl_expr *e, dl_buf *out)
{
	return ex_print(out, e->root);
}
