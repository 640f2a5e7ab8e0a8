/* The expression parser's literals (numbers, strings, X'..', DATE/TIMESTAMP
 * '...', INTERVAL) and its entry to the shared type grammar. */
#include "expr/datetime.h"
#include "expr/parse_util.h"
#include "expr/parser_internal.h"
#include "expr/type_parse.h"
#include "util/mem.h"
#include <stdio.h>

/* ---- literals ---------------------------------------------------------- */

int exp_lit_node(parser *p, ex_node **out, int pos, dl_type_id t)
{
	ex_node *n = node(p, EX_LIT, pos);
	if (!n) return DL_ENOMEM;
	n->lit.type = t;
	*out = n;
	return 0;
}

int exp_number_literal(parser *p, ex_node **out)
{
	ex_token t = p->tok;
	char *text = dl_arena_strndup(&p->e->arena, t.p, t.len);
	if (!text) return DL_ENOMEM;
	dl_scalar s;
	if (ex_parse_number_literal(text, &s) < 0) {
		char why[160];
		snprintf(why, sizeof why, "%s", dl_error_last()->message);
		return dl_error_set(DL_EINVALID, "syntax error at position %d near '%s': invalid numeric literal (%s)",
		                    t.pos, text, why);
	}
	DL_TRY(exp_lit_node(p, out, t.pos, s.type));
	(*out)->lit = s;
	return advance(p);
}

/* Undoes Spark's string escapes and concatenates adjacent literals
 * ('a' 'b' is 'ab'). */
int exp_string_literal(parser *p, const char **str, size_t *len)
{
	dl_buf b = DL_BUF_INIT;
	int rc = 0;
	while (p->tok.kind == TK_STRING) {
		if ((rc = ex_unescape_string(&b, p->tok.p + 1, p->tok.len - 2)) < 0) break;
		if ((rc = advance(p)) < 0) break;
	}
	if (rc == 0) {
		char *s = dl_arena_strndup(&p->e->arena, b.data ? b.data : "", b.len);
		if (!s) rc = DL_ENOMEM;
		*str = s;
		*len = b.len;
	}
	dl_buf_free(&b);
	return rc;
}

int exp_hex_literal(parser *p, ex_node **out)
{
	ex_token t = p->tok;
	const char *h = t.p + 2;
	size_t n = t.len - 3;
	if (n % 2) {
		return dl_error_set(DL_EINVALID, "syntax error at position %d: hex literal X'...' needs an even number of digits",
		                    t.pos);
	}
	char *bytes = dl_arena_alloc(&p->e->arena, n / 2 + 1);
	if (!bytes) return DL_ENOMEM;
	for (size_t i = 0; i < n; i += 2) {
		int hi = ex_hex_value(h[i]), lo = ex_hex_value(h[i + 1]);
		if (hi < 0 || lo < 0)
			return dl_error_set(DL_EINVALID, "syntax error at position %d: invalid hex digit in X'...'", t.pos);
		bytes[i / 2] = (char)(hi << 4 | lo);
	}
	DL_TRY(exp_lit_node(p, out, t.pos, DL_TYPE_BINARY));
	(*out)->lit.v.str.ptr = bytes;
	(*out)->lit.v.str.len = n / 2;
	return advance(p);
}

/* DATE '...', TIMESTAMP '...', TIMESTAMP_NTZ '...', TIMESTAMP_LTZ '...',
 * X'..' is handled by the lexer. */
int exp_typed_literal(parser *p, ex_node **out, dl_type_id t)
{
	int pos = p->tok.pos;
	DL_TRY(advance(p));
	const char *s;
	size_t n;
	DL_TRY(exp_string_literal(p, &s, &n));
	DL_TRY(exp_lit_node(p, out, pos, t));
	bool ok;
	if (t == DL_TYPE_DATE) {
		int32_t d;
		ok = ex_date_parse(s, n, &d);
		(*out)->lit.v.i64 = d;
	} else {
		bool zone;
		ok = ex_ts_parse_zone(s, n, t == DL_TYPE_TIMESTAMP_NTZ, NULL, &(*out)->lit.v.i64, &zone);
		/* a TIMESTAMP without a zone is wall-clock time in the session
		 * zone, resolved when binding */
		(*out)->flag = t == DL_TYPE_TIMESTAMP && !zone;
	}
	if (!ok) {
		return dl_error_set(DL_EINVALID, "syntax error at position %d: cannot parse '%.*s' as a %s literal", pos,
		                    (int)(n > 60 ? 60 : n), s, t == DL_TYPE_DATE ? "DATE" : "TIMESTAMP");
	}
	return 0;
}

/* INTERVAL <value> <unit> [<value> <unit>...] and INTERVAL '1 2:03' forms
 * limited to single-unit strings. */
int exp_interval_literal(parser *p, ex_node **out)
{
	int pos = p->tok.pos;
	DL_TRY(advance(p));
	ex_node *n = node(p, EX_INTERVAL, pos);
	if (!n) return DL_ENOMEM;
	int parts = 0;
	for (;;) {
		bool neg = false;
		if (is_op(p, "-")) {
			neg = true;
			DL_TRY(advance(p));
		}
		const char *num;
		size_t nlen;
		if (p->tok.kind == TK_STRING) {
			DL_TRY(exp_string_literal(p, &num, &nlen));
		} else if (p->tok.kind == TK_NUMBER) {
			num = p->tok.p;
			nlen = p->tok.len;
			DL_TRY(advance(p));
		} else {
			if (parts) break;
			return syntax_error(p, "an interval value");
		}
		if (p->tok.kind != TK_IDENT) return syntax_error(p, "an interval unit (YEAR, MONTH, DAY, HOUR...)");
		char unit[24];
		size_t ul = p->tok.len < sizeof unit - 1 ? p->tok.len : sizeof unit - 1;
		memcpy(unit, p->tok.p, ul);
		unit[ul] = 0;
		if (ex_interval_add(unit, num, nlen, neg, &n->months, &n->days, &n->micros) < 0)
			return dl_error_prefix("syntax error at position %d: ", p->tok.pos);
		DL_TRY(advance(p));
		parts++;
	}
	*out = n;
	return 0;
}

/* ---- types ------------------------------------------------------------- */

/* The shared type grammar (type_parse.c) reads from the current token's
 * start; the lexer resumes after the type. */
int exp_parse_type(parser *p, dl_type **out)
{
	size_t pos = (size_t)p->tok.pos;
	int rc = ex_parse_type_at(out, p->lx.src, p->lx.len, &pos);
	if (rc < 0) return rc;
	p->has_peek = false;
	p->lx.i = pos;
	rc = advance(p);
	if (rc < 0) {
		dl_type_unref(*out);
		*out = NULL;
	}
	return rc;
}
