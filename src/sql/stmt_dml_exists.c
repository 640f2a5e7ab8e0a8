/* Correlated [NOT] EXISTS in DELETE and UPDATE conditions.
 *
 * The DML layer takes its condition as text over the target's columns, so a
 * subquery that references the target cannot be handed to it; it is
 * decorrelated here instead (Spark's DeleteSuiteBase "exists/notexists
 * subquery" cases are the reference). The rule:
 *
 *   EXISTS (SELECT ... FROM s WHERE o1 = i1 AND o2 <=> i2 AND rest)
 *
 * where each o is an expression over the target's columns, written with the
 * target's qualifier (its alias, or its table name), and i and rest do not
 * reference the target, holds for a target row exactly when some row of
 *
 *   SELECT DISTINCT i1, i2 FROM s WHERE rest
 *
 * equals (o1, o2) key by key, `=` never matching a NULL and `<=>` matching
 * NULL with NULL. That query runs once, here; its rows become a predicate
 * over the target alone: `o1 IN (v, ...)` for one key (evaluated with a
 * hash set), else a balanced disjunction of `o1 = v AND o2 <=> w` per row
 * (linear in the distinct keys per target row). EXISTS is that predicate
 * IS TRUE, so it is never NULL, and NOT EXISTS its negation.
 *
 * Shapes with another meaning are refused by name instead of run: target
 * columns anywhere but one side of a top-level `=` / `<=>` conjunct of the
 * WHERE, GROUP BY, HAVING or aggregates (EXISTS over an aggregate is always
 * true), LIMIT and OFFSET. */
#include "sql/stmt_dml_internal.h"

#include <string.h>
#include <strings.h>

#include "sql/plan_internal.h"
#include "util/error.h"
#include "util/mem.h"

#define UNSUPPORTED "UNSUPPORTED_SUBQUERY_EXPRESSION_CATEGORY"

/* Whether a FROM item of the subquery takes the name `qual` (it then hides
 * the target: `t.c` means the subquery's own t). */
static bool names_inner(const sql_table_ref *r, const char *qual)
{
	if (!r) return false;
	if (r->kind == TREF_JOIN) return names_inner(r->left, qual) || names_inner(r->right, qual);
	if (r->alias) return strcasecmp(r->alias, qual) == 0;
	if (r->kind == TREF_NAME && r->name.nparts > 0) return strcasecmp(r->name.parts[r->name.nparts - 1], qual) == 0;
	return false;
}

static bool is_outer_col(const ex_node *n, const char *qual)
{
	return n->kind == EX_COL && n->npath >= 2 && strcasecmp(n->path[0], qual) == 0;
}

/* Whether n references the target (through `qual`). Nested subqueries are
 * planned with the decorrelated query, where a reference to the target
 * does not resolve and is reported. */
static bool refs_outer(const ex_node *n, const char *qual)
{
	if (!n) return false;
	if (is_outer_col(n, qual)) return true;
	for (int i = 0; i < n->nargs; i++)
		if (refs_outer(n->args[i], qual)) return true;
	if (n->kind == EX_CALL && n->over) {
		for (int i = 0; i < n->over->npartition; i++)
			if (refs_outer(n->over->partition[i], qual)) return true;
		for (int i = 0; i < n->over->norder; i++)
			if (refs_outer(n->over->order[i].expr, qual)) return true;
	}
	return false;
}

/* Whether every column of n is the target's (the outer side of a key). */
static bool only_outer(const ex_node *n, const char *qual)
{
	if (n->kind == EX_COL) return is_outer_col(n, qual);
	if (n->kind == EX_SUBQUERY || (n->kind == EX_CALL && n->over)) return false;
	for (int i = 0; i < n->nargs; i++)
		if (!only_outer(n->args[i], qual)) return false;
	return true;
}

typedef struct conjs {
	const ex_node **v;
	int n, cap;
} conjs;

static int push(conjs *c, const ex_node *n)
{
	if (c->n == c->cap) {
		int cap = c->cap ? 2 * c->cap : 8;
		const ex_node **g = dl_reallocarray(c->v, (size_t)cap, sizeof *g);
		if (!g) return dl_error_set(DL_ENOMEM, "out of memory");
		c->v = g;
		c->cap = cap;
	}
	c->v[c->n++] = n;
	return 0;
}

static int split_and(conjs *c, const ex_node *n)
{
	if (n->kind == EX_OP && n->op == OP_AND && n->nargs == 2) {
		DL_TRY(split_and(c, n->args[0]));
		return split_and(c, n->args[1]);
	}
	return push(c, n);
}

static ex_node *binop(dl_expr *e, int op, ex_node *a, ex_node *b)
{
	ex_node *n = ex_node_new(e, EX_OP, a->pos);
	if (!n || ex_node_set_args(e, n, 2) < 0) return NULL;
	n->op = op;
	n->args[0] = a;
	n->args[1] = b;
	return n;
}

static ex_node *bool_lit(dl_expr *e, bool v, int pos)
{
	ex_node *l = ex_node_new(e, EX_LIT, pos);
	if (!l) return NULL;
	l->lit.type = DL_TYPE_BOOLEAN;
	l->lit.v.b = v;
	return l;
}

/* The disjunction of terms[lo, hi), as a balanced tree (the condition is
 * printed and parsed again: a chain of 10^4 ORs would recurse that deep). */
static ex_node *any_of(dl_expr *e, ex_node **terms, int lo, int hi)
{
	if (hi - lo == 1) return terms[lo];
	int mid = lo + (hi - lo) / 2;
	ex_node *a = any_of(e, terms, lo, mid), *b = a ? any_of(e, terms, mid, hi) : NULL;
	return b ? binop(e, OP_OR, a, b) : NULL;
}

typedef struct keys {
	const ex_node **outer, **inner;
	int *op; /* OP_EQ or OP_NSEQ */
	int n;
} keys;

/* The rows of b (one column per key) as a predicate over the target. */
static int build_match(ex_node **out, dl_expr *e, const keys *k, const dl_batch *b, int pos)
{
	*out = NULL;
	int64_t rows = b->num_rows;
	if (k->n == 1) {
		bool sawnull = false;
		int64_t nonnull = 0;
		for (int64_t r = 0; r < rows; r++) {
			if (dl_array_is_valid(b->cols[0], r)) nonnull++;
			else sawnull = true;
		}
		ex_node *pred = NULL;
		if (nonnull > 0) {
			if (nonnull > INT32_MAX - 1)
				return dl_error_set(DL_EUNSUPPORTED, "a correlated EXISTS subquery with %lld distinct keys",
				                    (long long)nonnull);
			ex_node *in = ex_node_new(e, EX_IN, pos);
			if (!in || ex_node_set_args(e, in, (int)nonnull + 1) < 0) return DL_ENOMEM;
			if (!(in->args[0] = ex_copy_tree(e, k->outer[0]))) return DL_ENOMEM;
			int at = 1;
			for (int64_t r = 0; r < rows; r++)
				if (dl_array_is_valid(b->cols[0], r)) DL_TRY(sql_dml_literal(&in->args[at++], e, b->cols[0], r));
			pred = in;
		}
		if (sawnull && k->op[0] == OP_NSEQ) {
			ex_node *is = ex_node_new(e, EX_IS, pos), *o = ex_copy_tree(e, k->outer[0]);
			if (!is || !o || ex_node_set_args(e, is, 1) < 0) return DL_ENOMEM;
			is->op = IS_NULL;
			is->args[0] = o;
			pred = pred ? binop(e, OP_OR, pred, is) : is;
			if (!pred) return DL_ENOMEM;
		}
		*out = pred;
		return 0;
	}
	ex_node **terms = dl_calloc((size_t)(rows ? rows : 1), sizeof *terms);
	if (!terms) return dl_error_set(DL_ENOMEM, "out of memory");
	int nt = 0, rc = 0;
	for (int64_t r = 0; r < rows && rc == 0; r++) {
		bool skip = false; /* a NULL under `=` matches nothing */
		for (int i = 0; i < k->n && !skip; i++) skip = k->op[i] == OP_EQ && !dl_array_is_valid(b->cols[i], r);
		if (skip) continue;
		ex_node *conj = NULL;
		for (int i = 0; i < k->n && rc == 0; i++) {
			ex_node *lit, *o = ex_copy_tree(e, k->outer[i]), *cmp;
			if ((rc = sql_dml_literal(&lit, e, b->cols[i], r)) < 0) break;
			if (!o || !(cmp = binop(e, k->op[i], o, lit)) || (conj && !(cmp = binop(e, OP_AND, conj, cmp)))) {
				rc = DL_ENOMEM;
				break;
			}
			conj = cmp;
		}
		if (rc == 0) terms[nt++] = conj;
	}
	if (rc == 0 && nt > 0 && !(*out = any_of(e, terms, 0, nt))) rc = DL_ENOMEM;
	dl_free(terms);
	return rc;
}

static int refuse(const char *what, const char *why)
{
	return dl_error_set_class(DL_EUNSUPPORTED, UNSUPPORTED,
	                          "[" UNSUPPORTED "] %s: this correlated EXISTS subquery cannot be rewritten: %s", what,
	                          why);
}

int sql_dml_correlated_exists(ex_node **out, dl_expr *e, const ex_node *sub, const sql_env *env, const char *qual,
                              const char *what)
{
	const sql_query *q = sub->query;
	if (!qual || !q || q->kind != Q_SELECT || !q->select) return 0;
	const sql_select *sel = q->select;
	if (!sel->where || names_inner(sel->from, qual) || !refs_outer(sel->where, qual)) return 0;

	conjs all = {0}, inner = {0};
	keys k = {0};
	dl_batch *b = NULL;
	sql_select_item *items = NULL;
	int rc = split_and(&all, sel->where);
	if (rc == 0) {
		k.outer = dl_calloc((size_t)all.n, sizeof *k.outer);
		k.inner = dl_calloc((size_t)all.n, sizeof *k.inner);
		k.op = dl_calloc((size_t)all.n, sizeof *k.op);
		if (!k.outer || !k.inner || !k.op) rc = dl_error_set(DL_ENOMEM, "out of memory");
	}
	for (int i = 0; i < all.n && rc == 0; i++) {
		const ex_node *c = all.v[i];
		if (!refs_outer(c, qual)) {
			rc = push(&inner, c);
			continue;
		}
		if (c->kind != EX_OP || (c->op != OP_EQ && c->op != OP_NSEQ) || c->nargs != 2) {
			rc = refuse(what, "the target's columns may appear only in `=` or `<=>` conditions joined by AND in its "
			                  "WHERE");
			break;
		}
		int side = refs_outer(c->args[0], qual) ? 0 : 1;
		const ex_node *o = c->args[side], *in = c->args[1 - side];
		if (refs_outer(in, qual) || !only_outer(o, qual)) {
			rc = refuse(what, "each `=` / `<=>` condition must compare an expression of the target's columns "
			                  "(qualified by the target's name) with one of the subquery's");
			break;
		}
		k.outer[k.n] = o;
		k.inner[k.n] = in;
		k.op[k.n++] = c->op;
	}
	if (rc == 0 && (sel->ngroup || sel->ngsets || sel->having))
		rc = refuse(what, "it has GROUP BY or HAVING");
	for (int i = 0; i < sel->nitems && rc == 0; i++)
		if (sel->items[i].expr && pl_has_agg(sel->items[i].expr))
			rc = refuse(what, "it selects an aggregate (EXISTS over an aggregate is always true)");
	if (rc == 0 && (q->limit || q->offset)) rc = refuse(what, "it has LIMIT or OFFSET");

	/* SELECT DISTINCT inner keys FROM ... WHERE the other conjuncts */
	if (rc == 0 && !(items = dl_calloc((size_t)k.n, sizeof *items))) rc = dl_error_set(DL_ENOMEM, "out of memory");
	ex_node *where = NULL;
	for (int i = 0; i < inner.n && rc == 0; i++) {
		ex_node *c = (ex_node *)inner.v[i];
		if (!(where = where ? binop(e, OP_AND, where, c) : c)) rc = dl_error_set(DL_ENOMEM, "out of memory");
	}
	if (rc == 0) {
		for (int i = 0; i < k.n; i++) items[i].expr = (ex_node *)k.inner[i];
		sql_select s2 = *sel;
		s2.distinct = true;
		s2.items = items;
		s2.nitems = k.n;
		s2.where = where;
		sql_query q2 = *q;
		q2.select = &s2;
		q2.order_by = NULL;
		q2.norder = 0;
		rc = sql_dml_run_subquery(&b, env, &q2, what);
	}
	ex_node *match = NULL;
	if (rc == 0) rc = build_match(&match, e, &k, b, sub->pos);
	if (rc == DL_ENOMEM && dl_error_last()->code != DL_ENOMEM) rc = dl_error_set(DL_ENOMEM, "out of memory");
	if (rc == 0) {
		if (!match) { /* no key can match: EXISTS is FALSE for every row */
			*out = bool_lit(e, sub->negated, sub->pos);
		} else {
			ex_node *is = ex_node_new(e, EX_IS, sub->pos);
			if (is && ex_node_set_args(e, is, 1) == 0) {
				is->op = IS_TRUE;
				is->negated = sub->negated;
				is->args[0] = match;
				*out = is;
			}
		}
		rc = *out ? 1 : dl_error_set(DL_ENOMEM, "out of memory");
	}
	if (b) dl_batch_free(b);
	dl_free(items);
	dl_free(k.outer);
	dl_free(k.inner);
	dl_free(k.op);
	dl_free(all.v);
	dl_free(inner.v);
	return rc;
}
