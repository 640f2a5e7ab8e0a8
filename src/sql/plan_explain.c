/* EXPLAIN: the operator tree, one operator a line, children indented by
 * two spaces, expressions printed with the columns' readable names
 * (t.a rather than the internal #7), scans with the columns and filter
 * they would be opened with and the relation's own account of what it
 * would read (files pruned). */
#include "sql/plan_internal.h"
#include <stdint.h>
#include <stdio.h>
#include <string.h>

int pl_scan_explain_args(dl_buf *out, planner *P, pn *n, const pn *root);

int pl_subplan_tag(planner *P, ex_node *e, pn *node, const char *kind)
{
	char name[64];
	snprintf(name, sizeof name, "%s_%d", kind, P->nsub + 1);
	pl_subplan sp = {node, pl_strdup(P, name)};
	if (!sp.what) return DL_ENOMEM;
	DL_TRY(pl_push(P, &P->subplans, &P->nsub, &P->capsub, sizeof sp, &sp));
	e->aux = (void *)(intptr_t)P->nsub;
	return 0;
}

/* A copy of e with display names. */
static ex_node *readable(planner *P, const ex_node *e)
{
	if (e->aux && (e->kind == EX_CAST || e->kind == EX_LIT) && (intptr_t)e->aux <= P->nsub) {
		/* a subquery's stand-in */
		ex_node *c = pl_col(P, P->subplans[(intptr_t)e->aux - 1].what);
		return c;
	}
	ex_node *c = pl_copy(P, e);
	if (!c) return NULL;
	if (e->kind == EX_COL) {
		/* "t.a" prints as the qualified name it is */
		const char *d = pl_display(P, e->path[0]);
		const char *dot = strchr(d, '.');
		int extra = dot && dot != d && dot[1] ? 1 : 0;
		c->npath = e->npath + extra;
		c->path = dl_arena_calloc(&P->ex->arena, (size_t)c->npath, sizeof *c->path);
		if (!c->path) return NULL;
		memcpy(c->path + extra, e->path, sizeof *c->path * (size_t)e->npath);
		if (extra) {
			c->path[0] = dl_arena_strndup(&P->ex->arena, d, (size_t)(dot - d));
			c->path[1] = (char *)dot + 1;
			if (!c->path[0]) return NULL;
		} else {
			c->path[0] = (char *)d;
		}
	}
	for (int i = 0; i < e->nargs; i++)
		if (!(c->args[i] = readable(P, e->args[i]))) return NULL;
	return c;
}

int pl_explain_expr(dl_buf *out, planner *P, const ex_node *e);
int pl_explain_expr(dl_buf *out, planner *P, const ex_node *e)
{
	ex_node *r = readable(P, e);
	if (!r) return DL_ENOMEM;
	return ex_print(out, r);
}

static const char *agg_name(dl_agg_kind k)
{
	static const char *const n[] = {"count(*)", "count", "count_distinct", "sum", "avg", "min", "max", "first", "last",
	                                "var_samp", "var_pop", "stddev_samp", "stddev_pop", "collect_list", "collect_set",
	                                "approx_count_distinct", "percentile_approx", "count_if", "bool_and", "bool_or",
	                                "any_value"};
	return (int)k >= 0 && (size_t)k < sizeof n / sizeof n[0] ? n[k] : "?";
}

static int line(dl_buf *out, planner *P, pn *n, const pn *root)
{
	static const char *const jk[] = {"Inner", "LeftOuter", "RightOuter", "FullOuter", "LeftSemi", "LeftAnti", "Cross"};
	static const char *const so[] = {"Union", "Intersect", "Except"};
	switch (n->kind) {
	case PN_SCAN: return pl_scan_explain_args(out, P, n, root);
	case PN_ONEROW: return dl_buf_puts(out, "OneRowRelation");
	case PN_FILTER:
		DL_TRY(dl_buf_puts(out, "Filter "));
		return pl_explain_expr(out, P, n->exprs[0]);
	case PN_PROJECT:
		DL_TRY(dl_buf_puts(out, "Project ["));
		for (int i = 0; i < n->n; i++) {
			if (i) DL_TRY(dl_buf_puts(out, ", "));
			DL_TRY(pl_explain_expr(out, P, n->exprs[i]));
			if (n->exprs[i]->kind != EX_COL || strcmp(pl_display(P, n->exprs[i]->path[0]), pl_display(P, n->names[i])))
				DL_TRY(dl_buf_printf(out, " AS %s", pl_display(P, n->names[i])));
		}
		return dl_buf_putc(out, ']');
	case PN_AGG:
		DL_TRY(dl_buf_puts(out, "Aggregate keys=["));
		for (int i = 0; i < n->n; i++) {
			if (i) DL_TRY(dl_buf_puts(out, ", "));
			DL_TRY(pl_explain_expr(out, P, n->exprs[i]));
		}
		DL_TRY(dl_buf_puts(out, "] functions=["));
		for (int i = 0; i < n->naggs; i++) {
			if (i) DL_TRY(dl_buf_puts(out, ", "));
			if (n->aggs[i].kind == DL_AGG_COUNT_STAR) {
				DL_TRY(dl_buf_puts(out, "count(*)"));
				continue;
			}
			DL_TRY(dl_buf_printf(out, "%s(%s", agg_name(n->aggs[i].kind), n->aggs[i].distinct ? "DISTINCT " : ""));
			if (n->aggs[i].arg) DL_TRY(pl_explain_expr(out, P, n->aggs[i].arg));
			DL_TRY(dl_buf_putc(out, ')'));
		}
		return dl_buf_putc(out, ']');
	case PN_SORT:
		DL_TRY(dl_buf_puts(out, n->limit >= 0 ? "TopN [" : "Sort ["));
		for (int i = 0; i < n->nkeys; i++) {
			if (i) DL_TRY(dl_buf_puts(out, ", "));
			DL_TRY(pl_explain_expr(out, P, n->keys[i].expr));
			DL_TRY(dl_buf_puts(out, n->keys[i].desc ? " DESC" : " ASC"));
			if (n->keys[i].nulls) DL_TRY(dl_buf_puts(out, n->keys[i].nulls == DL_NULLS_FIRST ? " NULLS FIRST" : " NULLS LAST"));
		}
		DL_TRY(dl_buf_putc(out, ']'));
		if (n->limit >= 0) DL_TRY(dl_buf_printf(out, " limit=%lld", (long long)n->limit));
		return n->offset ? dl_buf_printf(out, " offset=%lld", (long long)n->offset) : 0;
	case PN_LIMIT:
		DL_TRY(dl_buf_printf(out, "Limit %lld", (long long)n->limit));
		return n->offset ? dl_buf_printf(out, " offset=%lld", (long long)n->offset) : 0;
	case PN_JOIN:
		DL_TRY(dl_buf_printf(out, "HashJoin %s", jk[n->join]));
		if (n->njk) {
			DL_TRY(dl_buf_puts(out, " keys=["));
			for (int i = 0; i < n->njk; i++) {
				if (i) DL_TRY(dl_buf_puts(out, ", "));
				DL_TRY(pl_explain_expr(out, P, n->lk[i]));
				DL_TRY(dl_buf_puts(out, n->null_safe && n->null_safe[i] ? " <=> " : " = "));
				DL_TRY(pl_explain_expr(out, P, n->rk[i]));
			}
			DL_TRY(dl_buf_putc(out, ']'));
		}
		if (n->residual) {
			DL_TRY(dl_buf_puts(out, " condition="));
			DL_TRY(pl_explain_expr(out, P, n->residual));
		}
		return dl_buf_puts(out, " (build: right)");
	case PN_EXPAND:
		/* Spark's Expand, its sets as the keys each keeps */
		DL_TRY(dl_buf_puts(out, "Expand sets=["));
		for (int s = 0; s < n->ngids; s++) {
			DL_TRY(dl_buf_puts(out, s ? ", (" : "("));
			bool first = true;
			for (int k = 0; k < n->n; k++) {
				if ((n->gids[s] >> (n->n - 1 - k)) & 1) continue;
				if (!first) DL_TRY(dl_buf_puts(out, ", "));
				first = false;
				DL_TRY(pl_explain_expr(out, P, n->exprs[k]));
			}
			DL_TRY(dl_buf_putc(out, ')'));
		}
		return dl_buf_putc(out, ']');
	case PN_DISTINCT: return dl_buf_puts(out, "Distinct");
	case PN_SETOP: return dl_buf_printf(out, "%s%s", so[n->setop], n->all ? " All" : "");
	case PN_WINDOW:
		DL_TRY(dl_buf_puts(out, "Window partition=["));
		for (int i = 0; i < n->n; i++) {
			if (i) DL_TRY(dl_buf_puts(out, ", "));
			DL_TRY(pl_explain_expr(out, P, n->exprs[i]));
		}
		DL_TRY(dl_buf_puts(out, "] order=["));
		for (int i = 0; i < n->nkeys; i++) {
			if (i) DL_TRY(dl_buf_puts(out, ", "));
			DL_TRY(pl_explain_expr(out, P, n->keys[i].expr));
			if (n->keys[i].desc) DL_TRY(dl_buf_puts(out, " DESC"));
		}
		DL_TRY(dl_buf_printf(out, "] functions=%d", n->nwfns));
		return 0;
	}
	return 0;
}

/* A Project that passes its input's columns through unchanged, in order
 * and under the same shown names (the planner's last Project, which gives
 * the output its names, often repeats the one under it); EXPLAIN shows only its input, as Spark's collapsed plan
 * does. */
static bool identity_project(planner *P, const pn *n)
{
	const pn *c = n->in[0];
	if (n->kind != PN_PROJECT || !c || !c->schema || c->schema->nchildren != n->n) return false;
	for (int i = 0; i < n->n; i++) {
		const ex_node *e = n->exprs[i];
		if (e->kind != EX_COL || e->npath != 1 || !n->names[i] || !c->schema->children[i].name ||
		    strcmp(e->path[0], c->schema->children[i].name) ||
		    strcmp(pl_display(P, e->path[0]), pl_display(P, n->names[i])))
			return false;
	}
	return true;
}

static int tree(dl_buf *out, planner *P, pn *n, const pn *root, int depth)
{
	if (identity_project(P, n)) return tree(out, P, n->in[0], root, depth);
	for (int i = 0; i < depth; i++) DL_TRY(dl_buf_puts(out, "  "));
	DL_TRY(line(out, P, n, root));
	DL_TRY(dl_buf_putc(out, '\n'));
	for (int k = 0; k < 2; k++)
		if (n->in[k]) DL_TRY(tree(out, P, n->in[k], root, depth + 1));
	return 0;
}

int pn_explain(dl_buf *out, planner *P, const pn *n, int depth)
{
	DL_TRY(tree(out, P, (pn *)n, n, depth));
	for (int i = 0; i < P->nsub; i++) {
		DL_TRY(dl_buf_printf(out, "%s:\n", P->subplans[i].what));
		DL_TRY(tree(out, P, P->subplans[i].node, P->subplans[i].node, depth + 1));
	}
	return 0;
}
