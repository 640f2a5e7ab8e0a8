/* Subqueries in expressions.
 *
 * Uncorrelated ones run while planning (sql_plan_query; EXPLAIN and the
 * schema use typed NULL stand-ins): a scalar subquery becomes its value
 * (more than one row is Spark's SCALAR_SUBQUERY_TOO_MANY_ROWS), EXISTS a
 * boolean, `x [NOT] IN (subquery)` an IN list of the values, whose NULLs
 * give NOT IN its three-valued answer; a top-level `x IN (subquery)` in
 * WHERE is a semi join instead.
 *
 * Correlated ones are decorrelated when the correlation is in the
 * subquery's WHERE (corr_sink): [NOT] EXISTS and [NOT] IN in a WHERE
 * conjunct become semi/anti joins on those predicates (NOT IN null-aware:
 * a row goes when some correlated value equals it or the comparison is
 * NULL); a correlated scalar aggregate becomes a left join against the
 * aggregate grouped by the correlated columns (a count is 0, not NULL,
 * for rows without partners). Other shapes are refused by name. */
#include "sql/plan_internal.h"
#include "exec/op.h"
#include "rewrite/file_writer.h"
#include <string.h>

static int plan_sub(pq *out, corr_sink *sink, planner *P, const scope *sc, const sql_query *q)
{
	memset(sink, 0, sizeof *sink);
	corr_sink *saved = P->sink;
	P->sink = q->kind == Q_SELECT ? sink : NULL;
	int before = P->outer_refs;
	int rc = pl_query(out, P, q, sc);
	P->sink = saved;
	if (rc < 0 && P->outer_refs != before && !sink->n)
		return dl_error_prefix("[UNSUPPORTED_SUBQUERY_EXPRESSION_CATEGORY] a correlated subquery may reference outer "
		                       "columns only in its WHERE clause");
	if (rc == 0 && P->outer_refs != before && !sink->n)
		return dl_error_set_class(DL_EUNSUPPORTED, "UNSUPPORTED_SUBQUERY_EXPRESSION_CATEGORY",
		                          "[UNSUPPORTED_SUBQUERY_EXPRESSION_CATEGORY] this correlated subquery cannot be "
		                          "decorrelated: outer columns are supported in the subquery's WHERE only");
	return rc;
}

/* Every row of a planned query, concatenated. */
static int run(dl_batch **out, planner *P, pq *q)
{
	*out = NULL;
	ex_node **ex = pl_alloc(P, sizeof *ex * ((size_t)q->n + 1));
	if (!ex) return DL_ENOMEM;
	for (int i = 0; i < q->n; i++)
		if (!(ex[i] = pl_col(P, q->inames[i]))) return DL_ENOMEM;
	pn *top;
	DL_TRY(pn_project_over(&top, P, q->node, ex, q->inames, q->n, false));
	dl_batch_stream *s;
	DL_TRY(pn_open(&s, P, top));
	dl_batch **bs = NULL;
	int n = 0, cap = 0, rc = 0;
	for (;;) {
		dl_batch *b;
		if ((rc = dl_batch_stream_next(s, &b)) < 0 || !b) break;
		if (n == cap) {
			cap = cap ? cap * 2 : 8;
			dl_batch **g = dl_reallocarray(bs, (size_t)cap, sizeof *g);
			if (!g) {
				dl_batch_free(b);
				rc = dl_error_set(DL_ENOMEM, "out of memory");
				break;
			}
			bs = g;
		}
		bs[n++] = b;
	}
	if (rc == 0) {
		if (n == 0) *out = dl_batch_new((dl_type *)dl_batch_stream_schema(s), 0);
		else *out = n == 1 ? bs[0] : dl_batch_concat(bs, n);
		if (!*out) rc = dl_exec_failed();
		if (n == 1) n = 0;
	}
	for (int i = 0; i < n; i++) dl_batch_free(bs[i]);
	dl_free(bs);
	dl_batch_stream_free(s);
	return rc;
}

static ex_node *null_of(planner *P, const dl_type *t)
{
	ex_node *l = ex_node_new(P->ex, EX_LIT, 0);
	if (!l) return NULL;
	l->lit.type = DL_TYPE_NULL;
	l->lit.is_null = true;
	return pl_cast(P, l, t);
}

/* Row r of a as a literal. */
static int literal(ex_node **out, planner *P, const dl_array *a, int64_t r)
{
	if (!dl_array_is_valid(a, r)) {
		*out = null_of(P, a->type);
		return *out ? 0 : DL_ENOMEM;
	}
	dl_scalar v;
	if (dl_array_scalar(&v, a, r) < 0) {
		char tn[128];
		dl_type_sql(a->type, tn, sizeof tn);
		return dl_error_set(DL_EUNSUPPORTED, "a subquery returning %s values cannot be used in an expression yet", tn);
	}
	ex_node *l = ex_node_new(P->ex, EX_LIT, 0);
	if (!l) return DL_ENOMEM;
	if (v.type == DL_TYPE_STRING || v.type == DL_TYPE_BINARY) {
		char *s = dl_arena_strndup(&P->ex->arena, v.v.str.ptr, v.v.str.len);
		if (!s) return DL_ENOMEM;
		v.v.str.ptr = s;
	}
	l->lit = v;
	*out = l;
	return 0;
}

static int one_column(const pq *q, const char *what)
{
	if (q->n == 1) return 0;
	return dl_error_set_class(DL_EINVALID, "INVALID_SUBQUERY_EXPRESSION",
	                          "[INVALID_SUBQUERY_EXPRESSION.SCALAR_SUBQUERY_RETURN_MORE_THAN_ONE_OUTPUT_COLUMN] "
	                          "Invalid subquery: %s subquery must return only one column, but got %d.",
	                          what, q->n);
}

static int scalar_value(ex_node **out, planner *P, pq *q)
{
	DL_TRY(one_column(q, "Scalar"));
	const dl_type *t = pn_col_type(q->node, q->inames[0]);
	if (!P->execute) {
		*out = null_of(P, t);
		return *out ? pl_subplan_tag(P, *out, q->node, "scalar_subquery") : DL_ENOMEM;
	}
	dl_batch *b;
	DL_TRY(run(&b, P, q));
	int rc = 0;
	if (b->num_rows > 1)
		rc = dl_error_set_class(DL_EINVALID, "SCALAR_SUBQUERY_TOO_MANY_ROWS",
		                        "[SCALAR_SUBQUERY_TOO_MANY_ROWS] More than one row returned by a subquery used as "
		                        "an expression.");
	else if (b->num_rows == 0)
		rc = (*out = null_of(P, t)) ? 0 : DL_ENOMEM;
	else
		rc = literal(out, P, b->cols[0], 0);
	dl_batch_free(b);
	return rc;
}

static int exists_value(ex_node **out, planner *P, pq *q, bool negated)
{
	bool any = true;
	if (P->execute) {
		dl_batch *b;
		DL_TRY(run(&b, P, q));
		any = b->num_rows > 0;
		dl_batch_free(b);
	}
	*out = pl_lit_bool(P, any != negated);
	if (*out && !P->execute) return pl_subplan_tag(P, *out, q->node, negated ? "not_exists_subquery" : "exists_subquery");
	return *out ? 0 : DL_ENOMEM;
}

static int in_value(ex_node **out, planner *P, ex_node *x, pq *q, bool negated)
{
	DL_TRY(one_column(q, "IN"));
	dl_batch *b = NULL;
	if (P->execute) DL_TRY(run(&b, P, q));
	int64_t rows = b ? b->num_rows : 1;
	int rc = 0;
	if (rows == 0) {
		/* x IN (no rows) is FALSE even for a NULL x */
		*out = pl_lit_bool(P, negated);
		rc = *out ? 0 : DL_ENOMEM;
	} else {
		ex_node *in = ex_node_new(P->ex, EX_IN, x->pos);
		if (!in || ex_node_set_args(P->ex, in, (int)rows + 1) < 0) rc = DL_ENOMEM;
		else {
			in->negated = negated;
			in->args[0] = x;
			for (int64_t r = 0; r < rows && rc == 0; r++) {
				if (b) rc = literal(&in->args[r + 1], P, b->cols[0], r);
				else if (!(in->args[1] = null_of(P, pn_col_type(q->node, q->inames[0])))) rc = DL_ENOMEM;
				else rc = pl_subplan_tag(P, in->args[1], q->node, "list_subquery");
			}
			*out = in;
		}
	}
	dl_batch_free(b);
	return rc;
}

int pl_subquery_expr(ex_node **out, rw_ctx *c, const ex_node *n)
{
	planner *P = c->P;
	pq q;
	corr_sink sink;
	ex_node *x = NULL;
	if (n->op == SQ_IN) DL_TRY(pl_rewrite(&x, c, n->args[0]));
	DL_TRY(plan_sub(&q, &sink, P, c->sc, n->query));
	if (!sink.n) {
		switch (n->op) {
		case SQ_SCALAR: return scalar_value(out, P, &q);
		case SQ_EXISTS: return exists_value(out, P, &q, false);
		default: return in_value(out, P, x, &q, n->negated);
		}
	}
	if (n->op != SQ_SCALAR || !c->input || c->agg)
		return dl_error_set_class(DL_EUNSUPPORTED, "UNSUPPORTED_SUBQUERY_EXPRESSION_CATEGORY",
		                          "[UNSUPPORTED_SUBQUERY_EXPRESSION_CATEGORY] a correlated %s subquery at position %d "
		                          "is supported only as a WHERE conjunct (EXISTS, IN) or as an aggregate value in "
		                          "a query without GROUP BY",
		                          n->op == SQ_EXISTS ? "EXISTS" : n->op == SQ_IN ? "IN" : "scalar", n->pos);
	DL_TRY(one_column(&q, "Scalar"));
	const pn *agg = NULL;
	for (const pn *k = q.node; k && !agg; k = k->in[0])
		if (k->kind == PN_AGG) agg = k;
	/* one row per correlated key: GROUP BY only the correlated columns */
	int ncorr = 0;
	for (int i = 0; i < sink.n; i++) {
		bool seen = false;
		for (int j = 0; j < i && !seen; j++) seen = !strcmp(sink.conj[j]->args[0]->path[0], sink.conj[i]->args[0]->path[0]);
		ncorr += !seen;
	}
	if (agg && agg->n > ncorr)
		return dl_error_set_class(DL_EINVALID, "UNSUPPORTED_SUBQUERY_EXPRESSION_CATEGORY",
		                          "[UNSUPPORTED_SUBQUERY_EXPRESSION_CATEGORY.NON_CORRELATED_COLUMNS_IN_GROUP_BY] "
		                          "Unsupported subquery expression: A GROUP BY clause in a scalar correlated "
		                          "subquery cannot contain non-correlated columns.");
	if (!agg)
		return dl_error_set_class(DL_EINVALID, "UNSUPPORTED_SUBQUERY_EXPRESSION_CATEGORY",
		                          "[UNSUPPORTED_SUBQUERY_EXPRESSION_CATEGORY.MUST_AGGREGATE_CORRELATED_SCALAR_SUBQUERY] "
		                          "Unsupported subquery expression: Correlated scalar subqueries must be aggregated "
		                          "to return at most one row.");
	pl_set_unpushable(q.node);
	DL_TRY(pl_join(c->input, P, DL_JOIN_LEFT, *c->input, q.node, pl_and_all(P, sink.conj, sink.n)));
	ex_node *v = pl_col(P, q.inames[0]);
	if (v && sink.count_default) {
		ex_node *zero = ex_node_new(P->ex, EX_LIT, 0);
		if (!zero) return DL_ENOMEM;
		zero->lit.type = DL_TYPE_LONG;
		v = pl_call(P, "coalesce", v, zero);
	}
	*out = v;
	return v ? 0 : DL_ENOMEM;
}

int pl_where_subquery(ex_node **out, planner *P, prel *r, const ex_node *conj)
{
	*out = NULL;
	bool neg = false;
	const ex_node *e = conj;
	if (e->kind == EX_OP && e->op == OP_NOT && e->args[0]->kind == EX_SUBQUERY) {
		neg = true;
		e = e->args[0];
	}
	if (e->kind != EX_SUBQUERY || e->op == SQ_SCALAR) return 0;
	if (e->op == SQ_IN) neg ^= e->negated;
	rw_ctx c = {.P = P, .sc = &r->sc, .no_agg = true, .clause = "WHERE"};
	ex_node *x = NULL;
	if (e->op == SQ_IN) DL_TRY(pl_rewrite(&x, &c, e->args[0]));
	pq q;
	corr_sink sink;
	DL_TRY(plan_sub(&q, &sink, P, &r->sc, e->query));
	if (e->op == SQ_IN) DL_TRY(one_column(&q, "IN"));
	if (!sink.n && (e->op == SQ_EXISTS || neg)) {
		/* uncorrelated EXISTS and NOT IN: a constant or an IN list */
		if (e->op == SQ_EXISTS) return exists_value(out, P, &q, neg);
		return in_value(out, P, x, &q, true);
	}
	ex_node **conds = sink.conj;
	int nc = sink.n, capc = sink.cap;
	dl_join_kind kind = neg ? DL_JOIN_ANTI : DL_JOIN_SEMI;
	if (e->op == SQ_IN) {
		ex_node *eq = pl_op(P, OP_EQ, x, pl_col(P, q.inames[0]));
		if (!eq) return DL_ENOMEM;
		if (neg) {
			/* null-aware: the row goes when x = v is TRUE or NULL for a
			 * correlated v */
			ex_node *isf = ex_node_new(P->ex, EX_IS, eq->pos);
			if (!isf || ex_node_set_args(P->ex, isf, 1) < 0) return DL_ENOMEM;
			isf->op = IS_FALSE;
			isf->negated = true;
			isf->args[0] = eq;
			eq = isf;
		}
		DL_TRY(pl_push(P, &conds, &nc, &capc, sizeof eq, &eq));
	}
	DL_TRY(pl_join(&r->node, P, kind, r->node, q.node, pl_and_all(P, conds, nc)));
	*out = pl_lit_bool(P, true);
	return *out ? 0 : DL_ENOMEM;
}
