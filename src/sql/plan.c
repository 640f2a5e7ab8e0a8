/* The planner's entry points, and the query level: WITH, set operations,
 * VALUES, and ORDER BY / LIMIT / OFFSET over a whole query.
 *
 * Set operations match columns by position and widen each pair to the
 * common type (INT UNION BIGINT is BIGINT), named after the left input,
 * as Spark does. VALUES rows widen the same way; its columns are col1,
 * col2, ... A CTE is planned afresh at every reference (it is not
 * recursive, and may use only the CTEs before it), so each use has its
 * own internal names. */
#include "sql/plan_internal.h"
#include "exec/op.h"
#include <string.h>

int pl_limit_value(int64_t *out, planner *P, const ex_node *n, const char *what)
{
	dl_expr *e = ex_expr_new();
	if (!e) return DL_ENOMEM;
	int rc = (e->root = ex_copy_tree(e, n)) ? 0 : dl_exec_failed();
	if (rc == 0) rc = dl_expr_bind_ctx(e, NULL, &P->env->ctx.eval);
	dl_scalar v = {0};
	if (rc == 0) rc = dl_expr_eval_scalar(&v, e, &P->env->ctx.eval);
	dl_expr_free(e);
	if (rc < 0 || v.is_null || !(v.type >= DL_TYPE_BYTE && v.type <= DL_TYPE_LONG) || v.v.i64 < 0) {
		return dl_error_set_class(DL_EINVALID, "INVALID_LIMIT_LIKE_EXPRESSION",
		                          "[INVALID_LIMIT_LIKE_EXPRESSION.%s] The %s expression at position %d must be a "
		                          "non-negative integer constant.",
		                          rc < 0 ? "IS_UNFOLDABLE" : v.is_null ? "IS_NULL" : "IS_NEGATIVE", what, n->pos);
	}
	*out = v.v.i64;
	return 0;
}

int pl_order_limit(pq *out, planner *P, const sql_query *q, pn_sort_key *keys, int nkeys)
{
	int64_t limit = -1, offset = 0;
	if (q->limit) DL_TRY(pl_limit_value(&limit, P, q->limit, "LIMIT"));
	if (q->offset) DL_TRY(pl_limit_value(&offset, P, q->offset, "OFFSET"));
	if (nkeys) {
		pn *s = pn_new(P, PN_SORT, out->node, NULL);
		if (!s) return DL_ENOMEM;
		s->keys = keys;
		s->nkeys = nkeys;
		s->limit = limit;
		s->offset = offset;
		DL_TRY(pn_finish(P, s));
		out->node = s;
	} else if (q->limit || q->offset) {
		pn *l = pn_new(P, PN_LIMIT, out->node, NULL);
		if (!l) return DL_ENOMEM;
		l->limit = limit;
		l->offset = offset;
		DL_TRY(pn_finish(P, l));
		out->node = l;
	}
	return 0;
}

/* ORDER BY over a query's own output columns (set operations, VALUES). */
static int order_output(pq *out, planner *P, const sql_query *q)
{
	pn_sort_key *keys = NULL;
	if (q->norder) {
		scope sc = {0};
		for (int i = 0; i < out->n; i++) DL_TRY(sc_add(P, &sc, NULL, 0, out->names[i], out->inames[i]));
		keys = pl_alloc(P, sizeof *keys * (size_t)q->norder);
		if (!keys) return DL_ENOMEM;
		for (int i = 0; i < q->norder; i++) {
			const ex_sort_item *o = &q->order_by[i];
			const ex_node *e = o->expr;
			if (e->kind == EX_LIT && !e->lit.is_null && e->lit.type == DL_TYPE_INTEGER) {
				if (e->lit.v.i64 < 1 || e->lit.v.i64 > out->n)
					return dl_error_set_class(DL_EINVALID, "ORDER_BY_POS_OUT_OF_RANGE",
					                          "[ORDER_BY_POS_OUT_OF_RANGE] ORDER BY position %lld is not in select "
					                          "list (valid range is [1, %d]).",
					                          (long long)e->lit.v.i64, out->n);
				keys[i].expr = pl_col(P, out->inames[e->lit.v.i64 - 1]);
				if (!keys[i].expr) return DL_ENOMEM;
			} else {
				rw_ctx c = {.P = P, .sc = &sc, .no_agg = true, .clause = "ORDER BY"};
				DL_TRY(pl_rewrite(&keys[i].expr, &c, e));
			}
			keys[i].desc = o->desc;
			keys[i].nulls = o->nulls == NULLS_FIRST ? DL_NULLS_FIRST : o->nulls == NULLS_LAST ? DL_NULLS_LAST : DL_NULLS_DEFAULT;
		}
	}
	return pl_order_limit(out, P, q, keys, q->norder);
}

/* Casts pq's columns to types (where they differ), under new names. */
static int cast_to(pq *q, planner *P, dl_type *const *types)
{
	ex_node **ex = pl_alloc(P, sizeof *ex * ((size_t)q->n + 1));
	const char **nm = pl_alloc(P, sizeof *nm * ((size_t)q->n + 1));
	if (!ex || !nm) return DL_ENOMEM;
	bool any = false;
	for (int i = 0; i < q->n; i++) {
		ex[i] = pl_col(P, q->inames[i]);
		if (!ex[i]) return DL_ENOMEM;
		const dl_type *t = pn_col_type(q->node, q->inames[i]);
		if (t && !dl_type_equals(t, types[i])) {
			if (!(ex[i] = pl_cast(P, ex[i], types[i]))) return DL_ENOMEM;
			any = true;
		}
		nm[i] = q->inames[i];
	}
	/* an exact projection also drops columns the node carries beyond the
	 * visible ones, which positional operators must not see */
	if (!any && q->node->schema->nchildren == q->n) return 0;
	for (int i = 0; i < q->n; i++)
		if (!(nm[i] = pl_new_name(P, pl_display(P, q->inames[i])))) return DL_ENOMEM;
	DL_TRY(pn_project_over(&q->node, P, q->node, ex, nm, q->n, false));
	q->inames = nm;
	return 0;
}

static int widen(planner *P, pq *a, pq *b, const char *what)
{
	if (a->n != b->n)
		return dl_error_set_class(DL_EINVALID, "NUM_COLUMNS_MISMATCH",
		                          "[NUM_COLUMNS_MISMATCH] %s can only be performed on inputs with the same number of "
		                          "columns, but the first input has %d columns and the second input has %d columns.",
		                          what, a->n, b->n);
	dl_type **types = pl_alloc(P, sizeof *types * ((size_t)a->n + 1));
	if (!types) return DL_ENOMEM;
	for (int i = 0; i < a->n; i++) {
		dl_type *t;
		DL_TRY(pl_common_type(&t, P, pn_col_type(a->node, a->inames[i]), pn_col_type(b->node, b->inames[i]), what));
		if (!(types[i] = pl_keep(P, t))) return DL_ENOMEM;
	}
	DL_TRY(cast_to(a, P, types));
	return cast_to(b, P, types);
}

static int setop(pq *out, planner *P, const sql_query *q, const scope *outer)
{
	pq a, b;
	DL_TRY(pl_query(&a, P, q->left, outer));
	DL_TRY(pl_query(&b, P, q->right, outer));
	static const char *const what[] = {[Q_UNION] = "UNION", [Q_INTERSECT] = "INTERSECT", [Q_EXCEPT] = "EXCEPT"};
	DL_TRY(widen(P, &a, &b, what[q->kind]));
	pn *s = pn_new(P, PN_SETOP, a.node, b.node);
	if (!s) return DL_ENOMEM;
	s->setop = q->kind == Q_UNION ? DL_SETOP_UNION : q->kind == Q_INTERSECT ? DL_SETOP_INTERSECT : DL_SETOP_EXCEPT;
	s->all = q->all;
	s->est = -1;
	DL_TRY(pn_finish(P, s));
	/* new names above, so no name lives both inside and outside */
	ex_node **ex = pl_alloc(P, sizeof *ex * ((size_t)a.n + 1));
	const char **nm = pl_alloc(P, sizeof *nm * ((size_t)a.n + 1));
	if (!ex || !nm) return DL_ENOMEM;
	for (int i = 0; i < a.n; i++)
		if (!(ex[i] = pl_col(P, a.inames[i])) || !(nm[i] = pl_new_name(P, a.names[i]))) return DL_ENOMEM;
	DL_TRY(pn_project_over(&out->node, P, s, ex, nm, a.n, false));
	out->n = a.n;
	out->names = a.names;
	out->inames = nm;
	return order_output(out, P, q);
}

static int values(pq *out, planner *P, const sql_query *q, const scope *outer)
{
	int w = q->nrows ? q->rowlen[0] : 0;
	for (int r = 1; r < q->nrows; r++)
		if (q->rowlen[r] != w)
			return dl_error_set_class(DL_EINVALID, "INVALID_INLINE_TABLE.NUM_COLUMNS_MISMATCH",
			                          "[INVALID_INLINE_TABLE.NUM_COLUMNS_MISMATCH] Invalid inline table. Inline table "
			                          "expected %d columns but found %d columns in row %d.",
			                          w, q->rowlen[r], r);
	pq *rows = pl_alloc(P, sizeof *rows * ((size_t)q->nrows + 1));
	const char **names = pl_alloc(P, sizeof *names * ((size_t)w + 1));
	if (!rows || !names) return DL_ENOMEM;
	for (int c = 0; c < w; c++) {
		char b[32];
		snprintf(b, sizeof b, "col%d", c + 1);
		if (!(names[c] = pl_strdup(P, b))) return DL_ENOMEM;
	}
	scope none = {.outer = outer};
	for (int r = 0; r < q->nrows; r++) {
		pn *one = pn_new(P, PN_ONEROW, NULL, NULL);
		if (!one) return DL_ENOMEM;
		DL_TRY(pn_finish(P, one));
		ex_node **ex = pl_alloc(P, sizeof *ex * ((size_t)w + 1));
		const char **nm = pl_alloc(P, sizeof *nm * ((size_t)w + 1));
		if (!ex || !nm) return DL_ENOMEM;
		for (int c = 0; c < w; c++) {
			rw_ctx cx = {.P = P, .sc = &none, .no_agg = true, .clause = "VALUES"};
			DL_TRY(pl_rewrite(&ex[c], &cx, q->rows[r][c]));
			if (!(nm[c] = pl_new_name(P, names[c]))) return DL_ENOMEM;
		}
		DL_TRY(pn_project_over(&rows[r].node, P, one, ex, nm, w, false));
		rows[r].n = w;
		rows[r].names = names;
		rows[r].inames = nm;
	}
	/* one type per column over every row, then UNION ALL as a balanced tree */
	dl_type **types = pl_alloc(P, sizeof *types * ((size_t)w + 1));
	if (!types) return DL_ENOMEM;
	for (int c = 0; c < w; c++) {
		dl_type *t = dl_type_ref((dl_type *)pn_col_type(rows[0].node, rows[0].inames[c]));
		for (int r = 1; r < q->nrows; r++) {
			dl_type *u;
			int rc = pl_common_type(&u, P, t, pn_col_type(rows[r].node, rows[r].inames[c]), "VALUES");
			dl_type_unref(t);
			DL_TRY(rc);
			t = u;
		}
		if (!(types[c] = pl_keep(P, t))) return DL_ENOMEM;
	}
	for (int r = 0; r < q->nrows; r++) DL_TRY(cast_to(&rows[r], P, types));
	int n = q->nrows;
	while (n > 1) {
		int k = 0;
		for (int i = 0; i < n; i += 2) {
			if (i + 1 == n) {
				rows[k++] = rows[i];
				continue;
			}
			pn *s = pn_new(P, PN_SETOP, rows[i].node, rows[i + 1].node);
			if (!s) return DL_ENOMEM;
			s->setop = DL_SETOP_UNION;
			s->all = true;
			DL_TRY(pn_finish(P, s));
			s->est = -1;
			rows[k] = rows[i];
			rows[k++].node = s;
		}
		n = k;
	}
	*out = rows[0];
	out->node->est = q->nrows;
	return order_output(out, P, q);
}

int pl_query(pq *out, planner *P, const sql_query *q, const scope *outer)
{
	memset(out, 0, sizeof *out);
	if (++P->depth > EX_MAX_DEPTH) return dl_error_set(DL_EINVALID, "query nested too deeply");
	cte_def *saved = P->ctes;
	int rc = 0;
	for (int i = 0; i < q->nctes && rc == 0; i++) {
		for (int j = 0; j < i; j++)
			if (!strcasecmp(q->ctes[j].name, q->ctes[i].name))
				rc = dl_error_set_class(DL_EINVALID, "DUPLICATED_CTE_NAMES",
				                        "[DUPLICATED_CTE_NAMES] CTE definition can't have duplicate names: `%s`.",
				                        q->ctes[i].name);
		cte_def *d = pl_alloc(P, sizeof *d);
		if (!d) rc = DL_ENOMEM;
		else {
			d->cte = &q->ctes[i];
			d->prev = P->ctes;
			P->ctes = d;
		}
	}
	if (rc == 0) {
		switch (q->kind) {
		case Q_SELECT: rc = pl_select(out, P, q, outer); break;
		case Q_VALUES: rc = values(out, P, q, outer); break;
		default: rc = setop(out, P, q, outer); break;
		}
	}
	P->ctes = saved;
	P->depth--;
	return rc;
}

/* ---- entry points ------------------------------------------------------- */

static int plan_init(planner *P, const sql_env *env, bool execute)
{
	memset(P, 0, sizeof *P);
	P->env = env;
	P->execute = execute;
	if (!(P->ex = ex_expr_new())) return dl_error_set(DL_ENOMEM, "out of memory");
	return 0;
}

static void plan_free(planner *P)
{
	for (int i = 0; i < P->nrels; i++) P->rels[i]->release(P->rels[i]);
	dl_expr_free(P->ex);
}

/* The whole query, renamed to its user-visible names at the top. */
static int plan_top(pn **out, planner *P, const sql_query *q)
{
	pq r;
	DL_TRY(pl_query(&r, P, q, NULL));
	ex_node **ex = pl_alloc(P, sizeof *ex * ((size_t)r.n + 1));
	if (!ex) return DL_ENOMEM;
	for (int i = 0; i < r.n; i++)
		if (!(ex[i] = pl_col(P, r.inames[i]))) return DL_ENOMEM;
	return pn_project_over(out, P, r.node, ex, r.names, r.n, false);
}

int sql_plan_query(dl_batch_stream **out, const sql_env *env, const sql_query *q)
{
	*out = NULL;
	planner P;
	DL_TRY(plan_init(&P, env, true));
	pn *root;
	int rc = plan_top(&root, &P, q);
	if (rc == 0) rc = pn_open(out, &P, root);
	plan_free(&P);
	return rc;
}

int sql_query_schema(dl_type **out, const sql_env *env, const sql_query *q)
{
	*out = NULL;
	planner P;
	DL_TRY(plan_init(&P, env, false));
	pn *root;
	int rc = plan_top(&root, &P, q);
	if (rc == 0) *out = dl_type_ref(root->schema);
	plan_free(&P);
	return rc;
}

int sql_explain_query(dl_buf *out, const sql_env *env, const sql_query *q, const char *mode)
{
	planner P;
	(void)mode;
	DL_TRY(plan_init(&P, env, false));
	pn *root;
	int rc = plan_top(&root, &P, q);
	if (rc == 0) rc = pn_explain(out, &P, root, 0);
	plan_free(&P);
	return rc;
}
