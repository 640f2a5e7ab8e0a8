/* The expression parser's lists, window specifications (OVER (PARTITION BY
 * ... ORDER BY ... ROWS|RANGE ...)) and subqueries, which it hands to the SQL
 * layer's hooks. */
#include "expr/parser_internal.h"
#include "util/mem.h"

/* ---- window specs and subqueries ---------------------------------------- */

int exp_parse_expr_list(parser *p, ex_node ***out, int *n, bool (*stop)(parser *))
{
	ex_node *items[256];
	int k = 0;
	for (;;) {
		if (k == 256) return dl_error_set(DL_EUNSUPPORTED, "more than 256 items in a list");
		DL_TRY(exp_parse_expr(p, &items[k++]));
		if (!is_op(p, ",") || (stop && stop(p))) break;
		DL_TRY(advance(p));
	}
	*out = dl_arena_alloc(&p->e->arena, (size_t)k * sizeof **out);
	if (!*out) return DL_ENOMEM;
	memcpy(*out, items, (size_t)k * sizeof *items);
	*n = k;
	return 0;
}

int exp_parse_sort_list(parser *p, ex_sort_item **out, int *n)
{
	ex_sort_item items[256];
	int k = 0;
	for (;;) {
		if (k == 256) return dl_error_set(DL_EUNSUPPORTED, "more than 256 ORDER BY items");
		ex_sort_item *it = &items[k++];
		memset(it, 0, sizeof *it);
		DL_TRY(exp_parse_expr(p, &it->expr));
		if (is_kw(p, "ASC") || is_kw(p, "DESC")) {
			it->desc = is_kw(p, "DESC");
			DL_TRY(advance(p));
		}
		if (is_kw(p, "NULLS")) {
			DL_TRY(advance(p));
			if (is_kw(p, "FIRST")) it->nulls = NULLS_FIRST;
			else if (is_kw(p, "LAST")) it->nulls = NULLS_LAST;
			else return syntax_error(p, "FIRST or LAST after NULLS");
			DL_TRY(advance(p));
		}
		if (!is_op(p, ",")) break;
		DL_TRY(advance(p));
	}
	*out = dl_arena_alloc(&p->e->arena, (size_t)k * sizeof **out);
	if (!*out) return DL_ENOMEM;
	memcpy(*out, items, (size_t)k * sizeof *items);
	*n = k;
	return 0;
}

static int parse_bound(parser *p, ex_frame_bound *b)
{
	if (is_kw(p, "UNBOUNDED")) {
		DL_TRY(advance(p));
		if (is_kw(p, "PRECEDING")) b->kind = BOUND_UNBOUNDED_PRECEDING;
		else if (is_kw(p, "FOLLOWING")) b->kind = BOUND_UNBOUNDED_FOLLOWING;
		else return syntax_error(p, "PRECEDING or FOLLOWING");
		return advance(p);
	}
	if (is_kw(p, "CURRENT")) {
		DL_TRY(advance(p));
		b->kind = BOUND_CURRENT_ROW;
		return expect_kw(p, "ROW", "ROW after CURRENT");
	}
	DL_TRY(exp_parse_value(p, &b->offset));
	if (is_kw(p, "PRECEDING")) b->kind = BOUND_PRECEDING;
	else if (is_kw(p, "FOLLOWING")) b->kind = BOUND_FOLLOWING;
	else return syntax_error(p, "PRECEDING or FOLLOWING");
	return advance(p);
}

int exp_parse_window(parser *p, ex_node *call)
{
	ex_window *w = dl_arena_calloc(&p->e->arena, 1, sizeof *w);
	if (!w) return DL_ENOMEM;
	DL_TRY(advance(p));
	DL_TRY(expect_op(p, "(", "'(' after OVER (named windows are not supported)"));
	if (is_kw(p, "PARTITION") || is_kw(p, "DISTRIBUTE")) {
		DL_TRY(advance(p));
		DL_TRY(expect_kw(p, "BY", "BY"));
		DL_TRY(exp_parse_expr_list(p, &w->partition, &w->npartition, NULL));
	}
	if (is_kw(p, "ORDER") || is_kw(p, "SORT")) {
		DL_TRY(advance(p));
		DL_TRY(expect_kw(p, "BY", "BY"));
		DL_TRY(exp_parse_sort_list(p, &w->order, &w->norder));
	}
	if (is_kw(p, "ROWS") || is_kw(p, "RANGE")) {
		w->frame = is_kw(p, "ROWS") ? FRAME_ROWS : FRAME_RANGE;
		DL_TRY(advance(p));
		w->hi.kind = BOUND_CURRENT_ROW;
		if (is_kw(p, "BETWEEN")) {
			DL_TRY(advance(p));
			DL_TRY(parse_bound(p, &w->lo));
			DL_TRY(expect_kw(p, "AND", "AND in the frame"));
			DL_TRY(parse_bound(p, &w->hi));
		} else {
			DL_TRY(parse_bound(p, &w->lo));
		}
	}
	DL_TRY(expect_op(p, ")", "PARTITION BY, ORDER BY, ROWS, RANGE or ')'"));
	call->over = w;
	return 0;
}

/* ( query ), EXISTS ( query ), x IN ( query ): the current token is the
 * query's first; the SQL layer parses it and hands back where it ended. */
int exp_parse_subquery(parser *p, ex_node **out, int kind, int pos, ex_node *lhs, bool neg)
{
	if (!p->hooks) return syntax_error(p, "an expression (subqueries are not supported outside a SQL statement)");
	ex_node *n = node(p, EX_SUBQUERY, pos);
	if (!n || ex_node_set_args(p->e, n, lhs ? 1 : 0) < 0) return DL_ENOMEM;
	n->op = kind;
	n->negated = neg;
	if (lhs) n->args[0] = lhs;
	size_t at = (size_t)p->tok.pos;
	DL_TRY(p->hooks->parse_query(p->hooks->payload, &at, p->depth, &n->query));
	n->print_query = p->hooks->print_query;
	p->has_peek = false;
	p->lx.i = at;
	DL_TRY(advance(p));
	DL_TRY(expect_op(p, ")", "')' after the subquery"));
	*out = n;
	return 0;
}
