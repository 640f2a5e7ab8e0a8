/* Window functions: fn(...) OVER (PARTITION BY ... ORDER BY ... frame).
 *
 * Each call in the select list (or ORDER BY) becomes one function of a
 * window operator and is replaced by a reference to its output column;
 * calls sharing PARTITION BY and ORDER BY share an operator (the frame is
 * per function), and operators for different specifications are chained,
 * after aggregation and HAVING, before the projection, as in Spark.
 * Arguments see the same columns the select list does, so
 * sum(sum(x)) OVER () works over an aggregate. */
#include "sql/plan_internal.h"
#include <string.h>

typedef struct win_name {
	const char *name;
	dl_win_kind kind;
	int min, max; /* arguments */
} win_name;

static const win_name wins[] = {
	{"row_number", DL_WIN_ROW_NUMBER, 0, 0},   {"rank", DL_WIN_RANK, 0, 0},
	{"dense_rank", DL_WIN_DENSE_RANK, 0, 0},   {"percent_rank", DL_WIN_PERCENT_RANK, 0, 0},
	{"cume_dist", DL_WIN_CUME_DIST, 0, 0},     {"ntile", DL_WIN_NTILE, 1, 1},
	{"lag", DL_WIN_LAG, 1, 3},                 {"lead", DL_WIN_LEAD, 1, 3},
	{"first_value", DL_WIN_FIRST_VALUE, 1, 2}, {"first", DL_WIN_FIRST_VALUE, 1, 2},
	{"last_value", DL_WIN_LAST_VALUE, 1, 2},   {"last", DL_WIN_LAST_VALUE, 1, 2},
	{"nth_value", DL_WIN_NTH_VALUE, 2, 3},
};

static int int_arg(int64_t *out, planner *P, const ex_node *n, const char *fn)
{
	dl_scalar v;
	DL_TRY(pl_const_arg(&v, P, n, fn));
	if (v.is_null || !(v.type >= DL_TYPE_BYTE && v.type <= DL_TYPE_LONG))
		return dl_error_set(DL_EINVALID, "the argument of %s at position %d must be an integer constant", fn, n->pos);
	*out = v.v.i64;
	return 0;
}

static int bool_arg(bool *out, planner *P, const ex_node *n, const char *fn)
{
	dl_scalar v;
	DL_TRY(pl_const_arg(&v, P, n, fn));
	if (v.is_null || v.type != DL_TYPE_BOOLEAN)
		return dl_error_set(DL_EINVALID, "the ignoreNulls argument of %s must be a BOOLEAN constant", fn);
	*out = v.v.b;
	return 0;
}

static dl_frame_bound bound(ex_bound_kind k)
{
	switch (k) {
	case BOUND_UNBOUNDED_PRECEDING: return DL_FRAME_UNBOUNDED_PRECEDING;
	case BOUND_PRECEDING: return DL_FRAME_PRECEDING;
	case BOUND_CURRENT_ROW: return DL_FRAME_CURRENT_ROW;
	case BOUND_FOLLOWING: return DL_FRAME_FOLLOWING;
	case BOUND_UNBOUNDED_FOLLOWING: break;
	}
	return DL_FRAME_UNBOUNDED_FOLLOWING;
}

static int function(pn_win_fn *f, rw_ctx *in, const ex_node *n)
{
	planner *P = in->P;
	memset(f, 0, sizeof *f);
	const win_name *w = NULL;
	for (size_t i = 0; i < sizeof wins / sizeof wins[0] && !w; i++)
		if (!strcmp(wins[i].name, n->name)) w = &wins[i];
	if (!w) {
		if (!pl_is_agg_call(n))
			return dl_error_set_class(DL_EINVALID, "UNSUPPORTED_EXPR_FOR_WINDOW",
			                          "[UNSUPPORTED_EXPR_FOR_WINDOW] Expression \"%s\" not supported within a window "
			                          "function.",
			                          n->name);
		f->kind = DL_WIN_AGG;
		return pl_agg_of(&f->agg, in, n);
	}
	if (n->nargs < w->min || n->nargs > w->max)
		return dl_error_set_class(DL_EINVALID, "WRONG_NUM_ARGS",
		                          "[WRONG_NUM_ARGS.WITHOUT_SUGGESTION] The `%s` requires %d to %d parameters but the "
		                          "actual number is %d.",
		                          n->name, w->min, w->max, n->nargs);
	f->kind = w->kind;
	switch (w->kind) {
	case DL_WIN_NTILE: return int_arg(&f->offset, P, n->args[0], n->name);
	case DL_WIN_LAG:
	case DL_WIN_LEAD:
		DL_TRY(pl_rewrite(&f->arg, in, n->args[0]));
		f->offset = 1;
		if (n->nargs > 1) DL_TRY(int_arg(&f->offset, P, n->args[1], n->name));
		if (n->nargs > 2) DL_TRY(pl_rewrite(&f->default_value, in, n->args[2]));
		return 0;
	case DL_WIN_FIRST_VALUE:
	case DL_WIN_LAST_VALUE:
		DL_TRY(pl_rewrite(&f->arg, in, n->args[0]));
		return n->nargs > 1 ? bool_arg(&f->ignore_nulls, P, n->args[1], n->name) : 0;
	case DL_WIN_NTH_VALUE:
		DL_TRY(pl_rewrite(&f->arg, in, n->args[0]));
		DL_TRY(int_arg(&f->offset, P, n->args[1], n->name));
		return n->nargs > 2 ? bool_arg(&f->ignore_nulls, P, n->args[2], n->name) : 0;
	default: return 0;
	}
}

int pl_window_call(ex_node **out, rw_ctx *c, const ex_node *n)
{
	planner *P = c->P;
	win_ctx *W = c->win;
	rw_ctx in = *c;
	in.win = NULL;
	in.no_agg = c->agg == NULL;
	in.clause = "a window function";
	pn_win_fn f;
	DL_TRY(function(&f, &in, n));
	const ex_window *w = n->over;
	ex_node **part = pl_alloc(P, sizeof *part * ((size_t)w->npartition + 1));
	pn_sort_key *order = pl_alloc(P, sizeof *order * ((size_t)w->norder + 1));
	if (!part || !order) return DL_ENOMEM;
	dl_buf spec = DL_BUF_INIT, text = DL_BUF_INIT;
	int rc = 0;
	for (int i = 0; i < w->npartition && rc == 0; i++) {
		rc = pl_rewrite(&part[i], &in, w->partition[i]);
		if (rc == 0) rc = pl_print(&spec, part[i]);
		dl_buf_putc(&spec, ',');
	}
	dl_buf_putc(&spec, '|');
	for (int i = 0; i < w->norder && rc == 0; i++) {
		rc = pl_rewrite(&order[i].expr, &in, w->order[i].expr);
		order[i].desc = w->order[i].desc;
		order[i].nulls = w->order[i].nulls == NULLS_FIRST ? DL_NULLS_FIRST
		                 : w->order[i].nulls == NULLS_LAST ? DL_NULLS_LAST : DL_NULLS_DEFAULT;
		if (rc == 0) rc = pl_print(&spec, order[i].expr);
		dl_buf_printf(&spec, " %d %d,", order[i].desc, (int)order[i].nulls);
	}
	if (rc == 0 && w->frame != FRAME_NONE) {
		f.frame = w->frame == FRAME_ROWS ? DL_FRAME_ROWS : DL_FRAME_RANGE;
		f.lo = bound(w->lo.kind);
		f.hi = bound(w->hi.kind);
		if (w->lo.offset) rc = pl_rewrite(&f.lo_offset, &in, w->lo.offset);
		if (rc == 0 && w->hi.offset) rc = pl_rewrite(&f.hi_offset, &in, w->hi.offset);
	}
	/* the whole call as text: equal calls share one column */
	if (rc == 0) {
		dl_buf_printf(&text, "%s/%d/%d/%d/%lld/%d/%d/%d/", n->name, (int)f.kind, (int)f.agg.kind, f.agg.distinct,
		              (long long)f.offset, f.ignore_nulls, (int)f.frame, (int)f.lo * 8 + (int)f.hi);
		ex_node *parts[5] = {f.arg, f.default_value, f.agg.arg, f.lo_offset, f.hi_offset};
		for (int i = 0; i < 5 && rc == 0; i++) {
			if (parts[i]) rc = pl_print(&text, parts[i]);
			dl_buf_putc(&text, '/');
		}
		dl_buf_puts(&text, spec.data ? spec.data : "");
	}
	const char *st = rc == 0 ? pl_strdup(P, spec.data ? spec.data : "") : NULL;
	const char *tt = rc == 0 ? pl_strdup(P, text.data ? text.data : "") : NULL;
	dl_buf_free(&spec);
	dl_buf_free(&text);
	DL_TRY(rc);
	if (!st || !tt) return DL_ENOMEM;
	for (int i = 0; i < W->n; i++)
		if (!strcmp(W->text[i], tt)) {
			*out = pl_col(P, W->fns[i].name);
			return *out ? 0 : DL_ENOMEM;
		}
	dl_buf name = DL_BUF_INIT;
	pl_auto_name(&name, n);
	f.name = pl_new_name(P, name.data);
	dl_buf_free(&name);
	if (!f.name) return DL_ENOMEM;
	if (f.kind == DL_WIN_AGG) f.agg.name = f.name;
	/* parallel arrays grown together */
	if (W->n == W->cap) {
		int cap = W->cap ? W->cap * 2 : 4;
		pn_win_fn *fns = pl_alloc(P, sizeof *fns * (size_t)cap);
		ex_node ***pa = pl_alloc(P, sizeof *pa * (size_t)cap);
		int *np = pl_alloc(P, sizeof *np * (size_t)cap), *no = pl_alloc(P, sizeof *no * (size_t)cap);
		pn_sort_key **oa = pl_alloc(P, sizeof *oa * (size_t)cap);
		const char **sp = pl_alloc(P, sizeof *sp * (size_t)cap), **tx = pl_alloc(P, sizeof *tx * (size_t)cap);
		if (!fns || !pa || !np || !no || !oa || !sp || !tx) return DL_ENOMEM;
		if (W->n) {
			memcpy(fns, W->fns, sizeof *fns * (size_t)W->n);
			memcpy(pa, W->part, sizeof *pa * (size_t)W->n);
			memcpy(np, W->npart, sizeof *np * (size_t)W->n);
			memcpy(oa, W->order, sizeof *oa * (size_t)W->n);
			memcpy(no, W->norder, sizeof *no * (size_t)W->n);
			memcpy(sp, W->spec, sizeof *sp * (size_t)W->n);
			memcpy(tx, W->text, sizeof *tx * (size_t)W->n);
		}
		W->fns = fns, W->part = pa, W->npart = np, W->order = oa, W->norder = no, W->spec = sp, W->text = tx;
		W->cap = cap;
	}
	int i = W->n++;
	W->fns[i] = f;
	W->part[i] = part;
	W->npart[i] = w->npartition;
	W->order[i] = order;
	W->norder[i] = w->norder;
	W->spec[i] = st;
	W->text[i] = tt;
	*out = pl_col(P, f.name);
	return *out ? 0 : DL_ENOMEM;
}

int pl_windows(pn **node, planner *P, win_ctx *W)
{
	bool *done = pl_alloc(P, sizeof *done * ((size_t)W->n + 1));
	if (!done) return DL_ENOMEM;
	for (int i = 0; i < W->n; i++) {
		if (done[i]) continue;
		pn *w = pn_new(P, PN_WINDOW, *node, NULL);
		if (!w) return DL_ENOMEM;
		w->exprs = W->part[i];
		w->n = W->npart[i];
		w->keys = W->order[i];
		w->nkeys = W->norder[i];
		w->wfns = pl_alloc(P, sizeof *w->wfns * (size_t)W->n);
		if (!w->wfns) return DL_ENOMEM;
		for (int k = i; k < W->n; k++)
			if (!done[k] && !strcmp(W->spec[k], W->spec[i])) {
				w->wfns[w->nwfns++] = W->fns[k];
				done[k] = true;
			}
		DL_TRY(pn_finish(P, w));
		*node = w;
	}
	return 0;
}
