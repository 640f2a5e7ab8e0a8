/* Queries: WITH, SELECT, VALUES, set operations, ORDER BY / LIMIT /
 * OFFSET. Precedence as Spark's: INTERSECT binds tighter than UNION and
 * EXCEPT (MINUS), which associate to the left. */
#include "sql/parser.h"
#include "util/error.h"
#include <string.h>

static int query_primary(sql_parser *p, sql_query **out);

/* Words that end a select item instead of naming its alias. */
static bool item_alias_stop(const sql_parser *p)
{
	static const char *const kw[] = {"FROM", "WHERE", "GROUP", "HAVING", "ORDER", "LIMIT", "OFFSET", "UNION",
	                                  "INTERSECT", "EXCEPT", "MINUS", "WINDOW", "SORT", "CLUSTER", "DISTRIBUTE",
	                                  "LATERAL", "INTO", NULL};
	if (p->tok.kind == TK_QIDENT) return false;
	if (p->tok.kind != TK_IDENT) return true;
	for (int i = 0; kw[i]; i++)
		if (sp_is(p, kw[i])) return true;
	return false;
}

static int select_item(sql_parser *p, sql_select_item *it)
{
	memset(it, 0, sizeof *it);
	if (sp_is_op(p, "*")) {
		it->star = true;
		return sp_advance(p);
	}
	if (p->tok.kind == TK_IDENT || p->tok.kind == TK_QIDENT) {
		for (int k = 1; k <= 9 && sp_peek_op(p, k, "."); k += 2) {
			if (!sp_peek_op(p, k + 1, "*")) continue;
			it->star = true;
			DL_TRY(sp_name(p, &it->qual));
			DL_TRY(sp_expect_op(p, "."));
			return sp_expect_op(p, "*");
		}
	}
	DL_TRY(sp_expr(p, &it->expr));
	int as = sp_accept(p, "AS");
	if (as < 0) return as;
	if (as || !item_alias_stop(p)) {
		char *a;
		DL_TRY(sp_ident(p, &a));
		it->alias = a;
	}
	return 0;
}

static int expr_list(sql_parser *p, ex_node ***out, int *n)
{
	int cap = 0;
	*out = NULL;
	*n = 0;
	do {
		ex_node *e;
		DL_TRY(sp_expr(p, &e));
		DL_TRY(SP_PUSH(p, *out, *n, cap, e));
	} while (sp_accept_op(p, ",") == 1);
	return 0;
}

static int parse_select(sql_parser *p, sql_query *q)
{
	sql_select *s = sp_alloc(p, sizeof *s);
	if (!s) return DL_ENOMEM;
	q->kind = Q_SELECT;
	q->select = s;
	DL_TRY(sp_expect(p, "SELECT"));
	int d = sp_accept(p, "DISTINCT");
	if (d < 0) return d;
	s->distinct = d == 1;
	if (!d) DL_TRY(sp_accept(p, "ALL"));
	int cap = 0;
	do {
		sql_select_item it;
		DL_TRY(select_item(p, &it));
		DL_TRY(SP_PUSH(p, s->items, s->nitems, cap, it));
	} while (sp_accept_op(p, ",") == 1);
	if (sp_accept(p, "FROM") == 1) DL_TRY(sp_table_ref(p, &s->from));
	if (sp_accept(p, "WHERE") == 1) DL_TRY(sp_expr(p, &s->where));
	if (sp_is(p, "GROUP")) DL_TRY(sp_group_by(p, s));
	if (sp_accept(p, "HAVING") == 1) DL_TRY(sp_expr(p, &s->having));
	return 0;
}

static int parse_values(sql_parser *p, sql_query *q)
{
	q->kind = Q_VALUES;
	DL_TRY(sp_expect(p, "VALUES"));
	int cap = 0, lcap = 0, nl = 0;
	do {
		ex_node **row;
		int n;
		if (sp_is_op(p, "(")) {
			DL_TRY(sp_advance(p));
			DL_TRY(expr_list(p, &row, &n));
			DL_TRY(sp_expect_op(p, ")"));
		} else {
			DL_TRY(expr_list(p, &row, &n));
			/* VALUES 1, 2: one column, a row per value */
			for (int i = 0; i < n; i++) {
				ex_node **one = sp_alloc(p, sizeof *one);
				if (!one) return DL_ENOMEM;
				one[0] = row[i];
				int len = 1;
				DL_TRY(SP_PUSH(p, q->rows, q->nrows, cap, one));
				DL_TRY(SP_PUSH(p, q->rowlen, nl, lcap, len));
			}
			return 0;
		}
		DL_TRY(SP_PUSH(p, q->rows, q->nrows, cap, row));
		DL_TRY(SP_PUSH(p, q->rowlen, nl, lcap, n));
	} while (sp_accept_op(p, ",") == 1);
	return 0;
}

static int query_primary(sql_parser *p, sql_query **out)
{
	sql_query *q;
	if (sp_is_op(p, "(")) {
		DL_TRY(sp_advance(p));
		DL_TRY(sp_query(p, &q));
		DL_TRY(sp_expect_op(p, ")"));
		*out = q;
		return 0;
	}
	if (!(q = sp_alloc(p, sizeof *q))) return DL_ENOMEM;
	q->pos = p->tok.pos;
	if (sp_is(p, "SELECT")) DL_TRY(parse_select(p, q));
	else if (sp_is(p, "VALUES")) DL_TRY(parse_values(p, q));
	else if (sp_is(p, "TABLE")) {
		/* TABLE t is SELECT * FROM t */
		DL_TRY(sp_advance(p));
		sql_select *s = sp_alloc(p, sizeof *s);
		sql_select_item *star = sp_alloc(p, sizeof *star);
		if (!s || !star) return DL_ENOMEM;
		star->star = true;
		s->items = star;
		s->nitems = 1;
		DL_TRY(sp_table_name(p, &s->from));
		q->kind = Q_SELECT;
		q->select = s;
	} else return sp_syntax_error(p);
	*out = q;
	return 0;
}

static int set_op(sql_parser *p, sql_query **out, sql_query_kind k, sql_query *left, bool intersect_level);

static int intersect_term(sql_parser *p, sql_query **out)
{
	DL_TRY(query_primary(p, out));
	while (sp_is(p, "INTERSECT")) DL_TRY(set_op(p, out, Q_INTERSECT, *out, true));
	return 0;
}

static int set_op(sql_parser *p, sql_query **out, sql_query_kind k, sql_query *left, bool intersect_level)
{
	sql_query *q = sp_alloc(p, sizeof *q);
	if (!q) return DL_ENOMEM;
	q->pos = p->tok.pos;
	q->kind = k;
	q->left = left;
	DL_TRY(sp_advance(p));
	int all = sp_accept(p, "ALL");
	if (all < 0) return all;
	if (!all) DL_TRY(sp_accept(p, "DISTINCT"));
	q->all = all == 1;
	if (intersect_level) DL_TRY(query_primary(p, &q->right));
	else DL_TRY(intersect_term(p, &q->right));
	*out = q;
	return 0;
}

int sp_order_by(sql_parser *p, ex_sort_item **out, int *n)
{
	int cap = 0;
	*out = NULL;
	*n = 0;
	do {
		ex_sort_item it = {0};
		DL_TRY(sp_expr(p, &it.expr));
		if (sp_is(p, "ASC") || sp_is(p, "DESC")) {
			it.desc = sp_is(p, "DESC");
			DL_TRY(sp_advance(p));
		}
		if (sp_accept(p, "NULLS") == 1) {
			if (sp_is(p, "FIRST")) it.nulls = NULLS_FIRST;
			else if (sp_is(p, "LAST")) it.nulls = NULLS_LAST;
			else return sp_syntax_error(p);
			DL_TRY(sp_advance(p));
		}
		DL_TRY(SP_PUSH(p, *out, *n, cap, it));
	} while (sp_accept_op(p, ",") == 1);
	return 0;
}

int sp_ctes(sql_parser *p, sql_cte **out, int *n)
{
	int cap = 0;
	DL_TRY(sp_expect(p, "WITH"));
	if (sp_is(p, "RECURSIVE"))
		return sp_error_at(p, (size_t)p->tok.pos, "UNSUPPORTED_FEATURE", "recursive common table expressions");
	do {
		sql_cte c = {0};
		char *name;
		DL_TRY(sp_ident(p, &name));
		c.name = name;
		if (sp_is_op(p, "(")) DL_TRY(sp_ident_list(p, &c.cols, &c.ncols));
		DL_TRY(sp_accept(p, "AS"));
		DL_TRY(sp_expect_op(p, "("));
		DL_TRY(sp_query(p, &c.query));
		DL_TRY(sp_expect_op(p, ")"));
		DL_TRY(SP_PUSH(p, *out, *n, cap, c));
	} while (sp_accept_op(p, ",") == 1);
	return 0;
}

int sp_query(sql_parser *p, sql_query **out)
{
	DL_TRY(sp_enter(p));
	sql_cte *ctes = NULL;
	int nctes = 0;
	if (sp_is(p, "WITH")) DL_TRY(sp_ctes(p, &ctes, &nctes));
	sql_query *q;
	DL_TRY(intersect_term(p, &q));
	for (;;) {
		sql_query_kind k;
		if (sp_is(p, "UNION")) k = Q_UNION;
		else if (sp_is(p, "EXCEPT") || sp_is(p, "MINUS")) k = Q_EXCEPT;
		else break;
		DL_TRY(set_op(p, &q, k, q, false));
	}
	bool tail = sp_is(p, "ORDER") || sp_is(p, "LIMIT") || sp_is(p, "OFFSET") || nctes;
	if (tail && (q->ctes || q->order_by || q->limit || q->offset)) {
		/* (SELECT ... LIMIT 1) ORDER BY x: the outer clauses apply to the
		 * inner query's result, SELECT * FROM (inner) ORDER BY x */
		sql_query *w = sp_alloc(p, sizeof *w);
		sql_select *s = sp_alloc(p, sizeof *s);
		sql_select_item *star = sp_alloc(p, sizeof *star);
		sql_table_ref *t = sp_alloc(p, sizeof *t);
		if (!w || !s || !star || !t) return DL_ENOMEM;
		star->star = true;
		t->kind = TREF_QUERY;
		t->query = q;
		t->pos = q->pos;
		s->items = star;
		s->nitems = 1;
		s->from = t;
		w->kind = Q_SELECT;
		w->select = s;
		w->pos = q->pos;
		q = w;
	}
	q->ctes = ctes;
	q->nctes = nctes;
	if (sp_is(p, "ORDER")) {
		DL_TRY(sp_advance(p));
		DL_TRY(sp_expect(p, "BY"));
		DL_TRY(sp_order_by(p, &q->order_by, &q->norder));
	}
	if (sp_accept(p, "LIMIT") == 1) {
		if (sp_accept(p, "ALL") != 1) DL_TRY(sp_expr(p, &q->limit));
	}
	if (sp_accept(p, "OFFSET") == 1) DL_TRY(sp_expr(p, &q->offset));
	p->depth--;
	*out = q;
	return 0;
}
