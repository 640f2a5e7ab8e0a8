/* GROUP BY, with Spark's grouping analytics:
 *
 *   GROUP BY element [, element ...] [WITH ROLLUP | WITH CUBE]
 *   element: expression | ROLLUP (item, ...) | CUBE (item, ...)
 *          | GROUPING SETS (set, ...)
 *   item:    expression | (expression, ...)        a composite column
 *   set:     expression | ([expression, ...])
 *
 * An element stands for a list of grouping sets: a plain expression for
 * the one set {e}, ROLLUP(a, b) for (a, b), (a), (), CUBE(a, b) for (a, b),
 * (a), (b), () (Spark's cubeExprs order), GROUPING SETS for the sets it
 * lists. The GROUP BY's sets are the cross product of its elements' (Spark
 * 3's GroupingAnalytics), so `a, ROLLUP(b)` is (a, b), (a). A GROUP BY of
 * plain expressions only records no sets: it is the ordinary aggregate.
 * Every expression goes into s->group_by once per place it is written; a
 * set is a list of indexes into it. */
#include "sql/parser.h"
#include "util/error.h"
#include <string.h>

/* Spark caps the grouping expressions at 64 (the bits of its grouping id);
 * the number of sets is capped here so a CUBE of 20 columns is an error,
 * not a million-fold expansion of the input. */
#define MAX_SETS 4096

typedef struct set_list {
	int **sets;
	int *len;
	int n, cap, lcap;
} set_list;

static int too_many(sql_parser *p)
{
	return sp_error_at(p, (size_t)p->tok.pos, "GROUPING_SIZE_LIMIT_EXCEEDED",
	                   "[GROUPING_SIZE_LIMIT_EXCEEDED] Grouping sets size cannot be greater than 4096.");
}

static int add_set(sql_parser *p, set_list *L, const int *idx, int n)
{
	if (L->n >= MAX_SETS) return too_many(p);
	int *copy = sp_alloc(p, sizeof *copy * (size_t)(n ? n : 1));
	if (!copy) return DL_ENOMEM;
	if (n) memcpy(copy, idx, sizeof *copy * (size_t)n);
	DL_TRY(SP_PUSH(p, L->sets, L->n, L->cap, copy));
	L->n--; /* the two lists grow together */
	DL_TRY(SP_PUSH(p, L->len, L->n, L->lcap, n));
	return 0;
}

/* One expression into s->group_by; its index in *idx. */
static int group_expr(sql_parser *p, sql_select *s, int *gcap, int *idx)
{
	ex_node *e;
	DL_TRY(sp_expr(p, &e));
	*idx = s->ngroup;
	return SP_PUSH(p, s->group_by, s->ngroup, *gcap, e);
}

/* A parenthesized list of expressions (possibly empty when allow_empty),
 * or one expression: their indexes in buf. */
static int expr_group(sql_parser *p, sql_select *s, int *gcap, int **buf, int *n, bool allow_empty)
{
	int cap = 0, idx;
	*buf = NULL;
	*n = 0;
	if (!sp_is_op(p, "(")) {
		DL_TRY(group_expr(p, s, gcap, &idx));
		return SP_PUSH(p, *buf, *n, cap, idx);
	}
	DL_TRY(sp_advance(p));
	if (sp_is_op(p, ")")) {
		if (!allow_empty) return sp_syntax_error(p);
		return sp_advance(p);
	}
	do {
		DL_TRY(group_expr(p, s, gcap, &idx));
		DL_TRY(SP_PUSH(p, *buf, *n, cap, idx));
	} while (sp_accept_op(p, ",") == 1);
	return sp_expect_op(p, ")");
}

/* ROLLUP or CUBE over items[0..n) (each a list of indexes). */
static int rollup_cube(sql_parser *p, set_list *out, int **items, const int *ilen, int n, bool cube)
{
	int total = 0;
	for (int i = 0; i < n; i++) total += ilen[i];
	int *buf = sp_alloc(p, sizeof *buf * (size_t)(total ? total : 1));
	if (!buf) return DL_ENOMEM;
	if (!cube) {
		/* (i0..in-1), (i0..in-2), ..., () */
		for (int k = n; k >= 0; k--) {
			int m = 0;
			for (int i = 0; i < k; i++)
				for (int j = 0; j < ilen[i]; j++) buf[m++] = items[i][j];
			DL_TRY(add_set(p, out, buf, m));
		}
		return 0;
	}
	if (n > 12) return too_many(p);
	/* Spark's cubeExprs(x :: xs) = cube(xs).map(x +: _) ++ cube(xs): the
	 * subsets ordered by the bits of a counter where item 0 is the most
	 * significant and a set bit means "left out". */
	for (unsigned m = 0; m < (1u << n); m++) {
		int len = 0;
		for (int i = 0; i < n; i++)
			if (!((m >> (n - 1 - i)) & 1))
				for (int j = 0; j < ilen[i]; j++) buf[len++] = items[i][j];
		DL_TRY(add_set(p, out, buf, len));
	}
	return 0;
}

/* One element's sets. *plain: the element was a plain expression. */
static int element(sql_parser *p, sql_select *s, int *gcap, set_list *out, bool *plain)
{
	*plain = false;
	if (sp_is(p, "GROUPING") && sp_peek_is(p, 1, "SETS")) {
		DL_TRY(sp_advance(p));
		DL_TRY(sp_advance(p));
		DL_TRY(sp_expect_op(p, "("));
		do {
			int *idx, n;
			DL_TRY(expr_group(p, s, gcap, &idx, &n, true));
			DL_TRY(add_set(p, out, idx, n));
		} while (sp_accept_op(p, ",") == 1);
		return sp_expect_op(p, ")");
	}
	bool cube = sp_is(p, "CUBE");
	if ((cube || sp_is(p, "ROLLUP")) && sp_peek_op(p, 1, "(")) {
		DL_TRY(sp_advance(p));
		DL_TRY(sp_advance(p));
		int **items = NULL, *ilen = NULL, n = 0, cap = 0, lcap = 0;
		do {
			int *idx, k;
			DL_TRY(expr_group(p, s, gcap, &idx, &k, false));
			DL_TRY(SP_PUSH(p, items, n, cap, idx));
			n--;
			DL_TRY(SP_PUSH(p, ilen, n, lcap, k));
		} while (sp_accept_op(p, ",") == 1);
		DL_TRY(sp_expect_op(p, ")"));
		return rollup_cube(p, out, items, ilen, n, cube);
	}
	int idx;
	DL_TRY(group_expr(p, s, gcap, &idx));
	*plain = true;
	return add_set(p, out, &idx, 1);
}

/* acc := acc x next (concatenating the index lists). */
static int cross(sql_parser *p, set_list *acc, const set_list *next)
{
	set_list r = {0};
	for (int i = 0; i < acc->n; i++)
		for (int j = 0; j < next->n; j++) {
			int n = acc->len[i] + next->len[j];
			int *buf = sp_alloc(p, sizeof *buf * (size_t)(n ? n : 1));
			if (!buf) return DL_ENOMEM;
			memcpy(buf, acc->sets[i], sizeof *buf * (size_t)acc->len[i]);
			memcpy(buf + acc->len[i], next->sets[j], sizeof *buf * (size_t)next->len[j]);
			DL_TRY(add_set(p, &r, buf, n));
		}
	*acc = r;
	return 0;
}

int sp_group_by(sql_parser *p, sql_select *s)
{
	DL_TRY(sp_expect(p, "GROUP"));
	DL_TRY(sp_expect(p, "BY"));
	int gcap = 0;
	bool all_plain = true;
	set_list acc = {0};
	int none = 0;
	DL_TRY(add_set(p, &acc, &none, 0)); /* the product's unit: one empty set */
	do {
		set_list el = {0};
		bool plain;
		DL_TRY(element(p, s, &gcap, &el, &plain));
		all_plain = all_plain && plain;
		DL_TRY(cross(p, &acc, &el));
	} while (sp_accept_op(p, ",") == 1);
	if (sp_is(p, "WITH") && (sp_peek_is(p, 1, "ROLLUP") || sp_peek_is(p, 1, "CUBE"))) {
		DL_TRY(sp_advance(p));
		bool cube = sp_is(p, "CUBE");
		DL_TRY(sp_advance(p));
		if (!all_plain)
			return sp_error_at(p, (size_t)p->tok.pos, "PARSE_SYNTAX_ERROR",
			                   "[PARSE_SYNTAX_ERROR] WITH ROLLUP / WITH CUBE follow a list of plain GROUP BY "
			                   "expressions, not ROLLUP, CUBE or GROUPING SETS.");
		int **items = sp_alloc(p, sizeof *items * (size_t)s->ngroup);
		int *ilen = sp_alloc(p, sizeof *ilen * (size_t)s->ngroup);
		if (!items || !ilen) return DL_ENOMEM;
		for (int i = 0; i < s->ngroup; i++) {
			if (!(items[i] = sp_alloc(p, sizeof **items))) return DL_ENOMEM;
			items[i][0] = i;
			ilen[i] = 1;
		}
		set_list r = {0};
		DL_TRY(rollup_cube(p, &r, items, ilen, s->ngroup, cube));
		acc = r;
		all_plain = false;
	}
	if (all_plain) return 0;
	s->gsets = acc.sets;
	s->gset_len = acc.len;
	s->ngsets = acc.n;
	return 0;
}
