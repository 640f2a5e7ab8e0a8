/* Internal to the expression parser (parser.c, parse_literal.c, parse_window.c):
 * the parser state, its token helpers, and the productions shared across
 * those files. */
#ifndef DL_EXPR_PARSER_INTERNAL_H
#define DL_EXPR_PARSER_INTERNAL_H

#include "expr/ast.h"
#include "expr/lexer.h"
#include "util/error.h"
#include <stdbool.h>
#include <string.h>

typedef struct parser {
	dl_expr *e;
	ex_lexer lx;
	ex_token tok;  /* current */
	ex_token peek; /* next, when has_peek */
	bool has_peek;
	int depth;
	const ex_sql_hooks *hooks; /* subqueries, when called from the SQL layer */
} parser;

static inline int advance(parser *p)
{
	if (p->has_peek) {
		p->tok = p->peek;
		p->has_peek = false;
		return 0;
	}
	return ex_lex_next(&p->lx, &p->tok);
}

static inline int peek(parser *p, ex_token **out)
{
	if (!p->has_peek) {
		DL_TRY(ex_lex_next(&p->lx, &p->peek));
		p->has_peek = true;
	}
	*out = &p->peek;
	return 0;
}

static inline int syntax_error(parser *p, const char *expected)
{
	if (p->tok.kind == TK_EOF)
		return dl_error_set(DL_EINVALID, "syntax error at position %d near end of input: expected %s",
		                    p->tok.pos, expected);
	int n = (int)(p->tok.len > 40 ? 40 : p->tok.len);
	return dl_error_set(DL_EINVALID, "syntax error at position %d near '%.*s': expected %s", p->tok.pos, n,
	                    p->tok.p, expected);
}

static inline bool is_op(const parser *p, const char *op)
{
	return p->tok.kind == TK_OP && strcmp(p->tok.op, op) == 0;
}

static inline bool is_kw(const parser *p, const char *kw)
{
	return ex_tok_is(&p->tok, kw);
}

static inline int expect_op(parser *p, const char *op, const char *what)
{
	if (!is_op(p, op)) return syntax_error(p, what);
	return advance(p);
}

static inline int expect_kw(parser *p, const char *kw, const char *what)
{
	if (!is_kw(p, kw)) return syntax_error(p, what);
	return advance(p);
}


static ex_node *node(parser *p, ex_kind k, int pos)
{
	return ex_node_new(p->e, k, pos);
}

static inline int make_op(parser *p, ex_node **out, int op, int pos, ex_node *a, ex_node *b)
{
	ex_node *n = node(p, EX_OP, pos);
	if (!n || ex_node_set_args(p->e, n, b ? 2 : 1) < 0) return DL_ENOMEM;
	n->op = op;
	n->args[0] = a;
	if (b) n->args[1] = b;
	*out = n;
	return 0;
}

/* parser.c */
int exp_parse_expr(parser *p, ex_node **out);
int exp_parse_value(parser *p, ex_node **out);

/* parse_literal.c: literals and types */
int exp_lit_node(parser *p, ex_node **out, int pos, dl_type_id t);
int exp_number_literal(parser *p, ex_node **out);
int exp_string_literal(parser *p, const char **str, size_t *len);
int exp_hex_literal(parser *p, ex_node **out);
int exp_typed_literal(parser *p, ex_node **out, dl_type_id t);
int exp_interval_literal(parser *p, ex_node **out);
int exp_parse_type(parser *p, dl_type **out);

/* parse_window.c: expression and sort lists, window specs, subqueries */
int exp_parse_expr_list(parser *p, ex_node ***out, int *n, bool (*stop)(parser *));
int exp_parse_sort_list(parser *p, ex_sort_item **out, int *n);
int exp_parse_window(parser *p, ex_node *call);
int exp_parse_subquery(parser *p, ex_node **out, int kind, int pos, ex_node *lhs, bool neg);

#endif
