/* Aggregate functions: recognising them in expressions and turning each
 * distinct call into one dl_exec_agg of the aggregate node.
 *
 * After aggregation an expression may only use grouping keys (matched by
 * their rewritten text, so `GROUP BY a + 1` serves `SELECT a + 1`) and
 * aggregate calls; any other column is Spark's MISSING_AGGREGATION
 * (plan_scope.c). Equal calls share one aggregate. */
#include "sql/plan_internal.h"
#include "exec/op.h"
#include <stdio.h>
#include <string.h>
#include <strings.h>

typedef struct agg_name {
	const char *name;
	dl_agg_kind kind;
} agg_name;

static const agg_name aggs[] = {
	{"count", DL_AGG_COUNT},
	{"sum", DL_AGG_SUM},
	{"avg", DL_AGG_AVG},
	{"mean", DL_AGG_AVG},
	{"min", DL_AGG_MIN},
	{"max", DL_AGG_MAX},
	{"first", DL_AGG_FIRST},
	{"first_value", DL_AGG_FIRST},
	{"last", DL_AGG_LAST},
	{"last_value", DL_AGG_LAST},
	{"stddev", DL_AGG_STDDEV_SAMP},
	{"std", DL_AGG_STDDEV_SAMP},
	{"stddev_samp", DL_AGG_STDDEV_SAMP},
	{"stddev_pop", DL_AGG_STDDEV_POP},
	{"variance", DL_AGG_VAR_SAMP},
	{"var_samp", DL_AGG_VAR_SAMP},
	{"var_pop", DL_AGG_VAR_POP},
	{"collect_list", DL_AGG_COLLECT_LIST},
	{"array_agg", DL_AGG_COLLECT_LIST},
	{"collect_set", DL_AGG_COLLECT_SET},
	{"approx_count_distinct", DL_AGG_APPROX_COUNT_DISTINCT},
	{"percentile_approx", DL_AGG_PERCENTILE_APPROX},
	{"approx_percentile", DL_AGG_PERCENTILE_APPROX},
	{"count_if", DL_AGG_COUNT_IF},
	{"bool_and", DL_AGG_BOOL_AND},
	{"every", DL_AGG_BOOL_AND},
	{"bool_or", DL_AGG_BOOL_OR},
	{"any", DL_AGG_BOOL_OR},
	{"some", DL_AGG_BOOL_OR},
	{"any_value", DL_AGG_ANY_VALUE},
};

static const agg_name *lookup(const char *name)
{
	for (size_t i = 0; i < sizeof aggs / sizeof aggs[0]; i++)
		if (strcmp(aggs[i].name, name) == 0) return &aggs[i];
	return NULL;
}

bool pl_is_agg_call(const ex_node *n)
{
	return n->kind == EX_CALL && n->name && lookup(n->name) != NULL;
}

bool pl_has_agg(const ex_node *n)
{
	if (n->kind == EX_CALL && !n->over && pl_is_agg_call(n)) return true;
	if (n->kind == EX_SUBQUERY) return false;
	for (int i = 0; i < n->nargs; i++)
		if (pl_has_agg(n->args[i])) return true;
	return false;
}

bool pl_has_window(const ex_node *n)
{
	if (n->kind == EX_CALL && n->over) return true;
	for (int i = 0; i < n->nargs; i++)
		if (pl_has_window(n->args[i])) return true;
	return false;
}

/* A constant argument (ignoreNulls, accuracy, rsd) as a scalar. */
int pl_const_arg(dl_scalar *out, planner *P, const ex_node *n, const char *fn)
{
	dl_expr *e = ex_expr_new();
	if (!e) return DL_ENOMEM;
	int rc = (e->root = ex_copy_tree(e, n)) ? 0 : dl_exec_failed();
	if (rc == 0) rc = dl_expr_bind_ctx(e, NULL, &P->env->ctx.eval);
	if (rc == 0) rc = dl_expr_eval_scalar(out, e, &P->env->ctx.eval);
	if (out->type == DL_TYPE_STRING) out->is_null = true; /* borrowed from e */
	dl_expr_free(e);
	if (rc < 0) return dl_error_prefix("the arguments of %s must be constants", fn);
	return 0;
}

static int arity(const ex_node *n, int lo, int hi)
{
	if (n->nargs >= lo && n->nargs <= hi) return 0;
	return dl_error_set_class(DL_EINVALID, "WRONG_NUM_ARGS",
	                          "[WRONG_NUM_ARGS.WITHOUT_SUGGESTION] The `%s` requires %d%s%s parameters but the actual "
	                          "number is %d.",
	                          n->name, lo, hi > lo ? " to " : "", hi > lo ? (hi == 2 ? "2" : "3") : "", n->nargs);
}

/* count(DISTINCT a, b): Spark counts the distinct tuples with no NULL in
 * them, so the argument is CASE WHEN a IS NULL OR b IS NULL THEN NULL
 * ELSE named_struct('0', a, '1', b) END. */
static int distinct_tuple(pn_agg *a, rw_ctx *in, const ex_node *n)
{
	planner *P = in->P;
	ex_node *any_null = NULL, *st = pl_call(P, "named_struct", NULL, NULL);
	if (!st || ex_node_set_args(P->ex, st, 2 * n->nargs) < 0) return DL_ENOMEM;
	for (int i = 0; i < n->nargs; i++) {
		ex_node *x;
		DL_TRY(pl_rewrite(&x, in, n->args[i]));
		ex_node *is = ex_node_new(P->ex, EX_IS, x->pos), *name = ex_node_new(P->ex, EX_LIT, x->pos);
		char buf[16];
		snprintf(buf, sizeof buf, "%d", i);
		const char *nm = pl_strdup(P, buf);
		if (!is || !name || !nm || ex_node_set_args(P->ex, is, 1) < 0) return DL_ENOMEM;
		is->op = IS_NULL;
		is->args[0] = x;
		any_null = any_null ? pl_op(P, OP_OR, any_null, is) : is;
		name->lit.type = DL_TYPE_STRING;
		name->lit.v.str.ptr = nm;
		name->lit.v.str.len = strlen(nm);
		st->args[2 * i] = name;
		st->args[2 * i + 1] = x;
	}
	ex_node *c = ex_node_new(P->ex, EX_CASE, n->pos), *null = ex_node_new(P->ex, EX_LIT, n->pos);
	if (!c || !null || !any_null || ex_node_set_args(P->ex, c, 3) < 0) return DL_ENOMEM;
	null->lit.type = DL_TYPE_NULL;
	null->lit.is_null = true;
	c->has_else = true;
	c->args[0] = any_null;
	c->args[1] = null;
	c->args[2] = st;
	a->arg = c;
	return 0;
}

/* The pn_agg of call n, arguments rewritten with argc. */
int pl_agg_of(pn_agg *a, rw_ctx *argc, const ex_node *n)
{
	const agg_name *an = lookup(n->name);
	memset(a, 0, sizeof *a);
	a->kind = an->kind;
	a->distinct = n->distinct;
	rw_ctx in = *argc, *c = argc;
	if (a->kind == DL_AGG_COUNT && n->flag) {
		a->kind = DL_AGG_COUNT_STAR;
		return 0;
	}
	if (a->kind == DL_AGG_COUNT && n->distinct) {
		a->kind = DL_AGG_COUNT_DISTINCT;
		a->distinct = false;
		if (n->nargs > 1) return distinct_tuple(a, &in, n);
	}
	int max = 1;
	switch (a->kind) {
	case DL_AGG_FIRST:
	case DL_AGG_LAST:
	case DL_AGG_ANY_VALUE:
	case DL_AGG_APPROX_COUNT_DISTINCT: max = 2; break;
	case DL_AGG_PERCENTILE_APPROX: max = 3; break;
	default: break;
	}
	DL_TRY(arity(n, a->kind == DL_AGG_PERCENTILE_APPROX ? 2 : 1, max));
	DL_TRY(pl_rewrite(&a->arg, &in, n->args[0]));
	if (n->nargs > 1) {
		dl_scalar v;
		switch (a->kind) {
		case DL_AGG_FIRST:
		case DL_AGG_LAST:
		case DL_AGG_ANY_VALUE:
			DL_TRY(pl_const_arg(&v, c->P, n->args[1], n->name));
			if (v.type != DL_TYPE_BOOLEAN || v.is_null)
				return dl_error_set(DL_EINVALID, "the second argument of %s must be a BOOLEAN constant", n->name);
			a->ignore_nulls = v.v.b;
			break;
		case DL_AGG_APPROX_COUNT_DISTINCT:
			DL_TRY(pl_const_arg(&v, c->P, n->args[1], n->name));
			if (v.is_null || (v.type != DL_TYPE_DOUBLE && v.type != DL_TYPE_DECIMAL && v.type != DL_TYPE_FLOAT))
				return dl_error_set(DL_EINVALID, "the relative standard deviation of %s must be a number", n->name);
			a->rsd = v.type == DL_TYPE_DECIMAL ? (double)v.v.dec / 10.0 : v.v.f64;
			if (v.type == DL_TYPE_DECIMAL) {
				double d = (double)v.v.dec;
				for (int s = 0; s < v.scale; s++) d /= 10;
				a->rsd = d;
			}
			break;
		case DL_AGG_PERCENTILE_APPROX:
			DL_TRY(pl_rewrite(&a->param, &in, n->args[1]));
			if (n->nargs > 2) {
				DL_TRY(pl_const_arg(&v, c->P, n->args[2], n->name));
				if (v.is_null || !(v.type >= DL_TYPE_BYTE && v.type <= DL_TYPE_LONG))
					return dl_error_set(DL_EINVALID, "the accuracy of %s must be an integer constant", n->name);
				a->accuracy = v.v.i64;
			}
			break;
		default: break;
		}
	}
	return 0;
}

int pl_agg_call(ex_node **out, rw_ctx *c, const ex_node *n)
{
	agg_ctx *A = c->agg;
	pn_agg a;
	rw_ctx in = *c;
	in.agg = NULL;
	in.win = NULL;
	in.no_agg = true;
	in.clause = "the argument of an aggregate function";
	DL_TRY(pl_agg_of(&a, &in, n));
	dl_buf t = DL_BUF_INIT;
	int rc = dl_buf_printf(&t, "%d/%d/%d/%d/%g/", (int)a.kind, a.distinct, a.ignore_nulls, (int)a.accuracy, a.rsd);
	if (rc == 0 && a.arg) rc = pl_print(&t, a.arg);
	if (rc == 0 && a.param) {
		dl_buf_putc(&t, '/');
		rc = pl_print(&t, a.param);
	}
	const char *text = rc == 0 ? pl_strdup(c->P, t.data ? t.data : "") : NULL;
	dl_buf_free(&t);
	if (!text) return DL_ENOMEM;
	for (int i = 0; i < A->naggs; i++)
		if (strcmp(A->agg_text[i], text) == 0) {
			*out = pl_col(c->P, A->aggs[i].name);
			return *out ? 0 : DL_ENOMEM;
		}
	dl_buf name = DL_BUF_INIT;
	pl_auto_name(&name, n);
	a.name = pl_new_name(c->P, name.data);
	dl_buf_free(&name);
	if (!a.name) return DL_ENOMEM;
	int cap = A->capaggs, len = A->naggs;
	DL_TRY(pl_push(c->P, &A->aggs, &A->naggs, &A->capaggs, sizeof a, &a));
	A->capaggs = cap;
	A->naggs = len;
	DL_TRY(pl_push(c->P, &A->agg_text, &A->naggs, &A->capaggs, sizeof text, &text));
	*out = pl_col(c->P, a.name);
	return *out ? 0 : DL_ENOMEM;
}

/* ---- grouping() and grouping_id() --------------------------------------- */

bool pl_is_grouping_call(const ex_node *n)
{
	return n->kind == EX_CALL && n->name && !n->over &&
	       (!strcasecmp(n->name, "grouping") || !strcasecmp(n->name, "grouping_id"));
}

/* The key index of argument n (-1: not a grouping key). */
static int key_index(int *out, rw_ctx *c, const ex_node *n)
{
	rw_ctx plain = *c;
	plain.agg = NULL;
	plain.win = NULL;
	plain.no_agg = true;
	ex_node *r;
	*out = -1;
	DL_TRY(pl_rewrite(&r, &plain, n));
	dl_buf t = DL_BUF_INIT;
	int rc = pl_print(&t, r);
	for (int i = 0; rc == 0 && i < c->agg->nkeys; i++)
		if (t.data && !strcmp(t.data, c->agg->key_text[i])) *out = i;
	dl_buf_free(&t);
	return rc;
}

static int keys_text(dl_buf *b, const agg_ctx *A, planner *P)
{
	for (int i = 0; i < A->nkeys; i++) {
		if (i) DL_TRY(dl_buf_puts(b, ","));
		DL_TRY(dl_buf_puts(b, pl_display(P, A->key_iname[i])));
	}
	return 0;
}

/* Spark's Grouping and GroupingID over the grouping id column gid, whose
 * bit (nkeys-1-i) is set when key i is not in the row's set:
 * grouping(e) = CAST((gid >> (nkeys-1-i)) & 1 AS TINYINT), grouping_id()
 * = gid (BIGINT); grouping_id(e1, ..., en) must name the GROUP BY's keys
 * in order, as Spark requires. */
int pl_grouping_call(ex_node **out, rw_ctx *c, const ex_node *n)
{
	planner *P = c->P;
	agg_ctx *A = c->agg;
	bool id = !strcasecmp(n->name, "grouping_id");
	if (!A || !A->gid_iname)
		return dl_error_set_class(DL_EINVALID, "UNSUPPORTED_GROUPING_EXPRESSION",
		                          "[UNSUPPORTED_GROUPING_EXPRESSION] grouping()/grouping_id() can only be used with "
		                          "GroupingSets/Cube/Rollup.");
	ex_node *gid = pl_col(P, A->gid_iname);
	if (!gid) return DL_ENOMEM;
	if (id) {
		bool match = n->nargs == 0 || n->nargs == A->nkeys;
		for (int i = 0; match && i < n->nargs; i++) {
			int k;
			DL_TRY(key_index(&k, c, n->args[i]));
			match = k == i;
		}
		if (!match) {
			dl_buf args = DL_BUF_INIT, keys = DL_BUF_INIT;
			for (int i = 0; i < n->nargs; i++) {
				if (i) dl_buf_puts(&args, ",");
				pl_auto_name(&args, n->args[i]);
			}
			keys_text(&keys, A, P);
			int rc = dl_error_set_class(DL_EINVALID, "GROUPING_ID_COLUMN_MISMATCH",
			                            "[GROUPING_ID_COLUMN_MISMATCH] Columns of grouping_id (%s) does not match "
			                            "grouping columns (%s).",
			                            args.data ? args.data : "", keys.data ? keys.data : "");
			dl_buf_free(&args);
			dl_buf_free(&keys);
			return rc;
		}
		*out = gid;
		return 0;
	}
	if (n->nargs != 1) DL_TRY(arity(n, 1, 1));
	int k;
	DL_TRY(key_index(&k, c, n->args[0]));
	if (k < 0) {
		dl_buf arg = DL_BUF_INIT, keys = DL_BUF_INIT;
		pl_auto_name(&arg, n->args[0]);
		keys_text(&keys, A, P);
		int rc = dl_error_set_class(DL_EINVALID, "GROUPING_COLUMN_MISMATCH",
		                            "[GROUPING_COLUMN_MISMATCH] Column of grouping (%s) can't be found in grouping "
		                            "columns %s.",
		                            arg.data ? arg.data : "", keys.data ? keys.data : "");
		dl_buf_free(&arg);
		dl_buf_free(&keys);
		return rc;
	}
	ex_node *sh = ex_node_new(P->ex, EX_LIT, n->pos), *one = ex_node_new(P->ex, EX_LIT, n->pos);
	if (!sh || !one) return DL_ENOMEM;
	sh->lit.type = DL_TYPE_INTEGER;
	sh->lit.v.i64 = A->nkeys - 1 - k;
	one->lit.type = DL_TYPE_LONG;
	one->lit.v.i64 = 1;
	ex_node *shifted = pl_call(P, "shiftright", gid, sh);
	ex_node *bit = shifted ? pl_op(P, OP_BITAND, shifted, one) : NULL;
	dl_type *tiny = bit ? dl_type_new(DL_TYPE_BYTE) : NULL;
	*out = tiny ? pl_cast(P, bit, tiny) : NULL;
	dl_type_unref(tiny);
	return *out ? 0 : DL_ENOMEM;
}
