/* Plan nodes: building, typing and opening them.
 *
 * A node is typed when it is built, by constructing its exec operator over
 * empty inputs of its children's schemas and keeping the schema the
 * operator reports: the operators stay the one authority on result types
 * (sum of an INT is a BIGINT, a LEFT join's right side is nullable...), and
 * the planner never repeats those rules. Opening builds the same operators
 * over the real inputs, after deciding which relation columns anything in
 * the plan references (projection pushdown). */
#include "sql/plan_internal.h"
#include "exec/op.h"
#include "expr/binder.h"
#include "expr/datetime.h"
#include <stdlib.h>
#include <string.h>

void *pl_alloc(planner *P, size_t n)
{
	void *p = dl_arena_calloc(&P->ex->arena, 1, n);
	if (!p) dl_error_set(DL_ENOMEM, "out of memory planning a query");
	return p;
}

char *pl_strdup(planner *P, const char *s)
{
	char *p = dl_arena_strdup(&P->ex->arena, s);
	if (!p) dl_error_set(DL_ENOMEM, "out of memory planning a query");
	return p;
}

int pl_push(planner *P, void *list_ptr, int *len, int *cap, size_t elem, const void *item)
{
	char **list = list_ptr;
	if (*len == *cap) {
		int nc = *cap ? *cap * 2 : 8;
		char *g = dl_arena_alloc(&P->ex->arena, (size_t)nc * elem);
		if (!g) return dl_error_set(DL_ENOMEM, "out of memory planning a query");
		if (*len) memcpy(g, *list, (size_t)*len * elem);
		*list = g;
		*cap = nc;
	}
	memcpy(*list + (size_t)*len * elem, item, elem);
	(*len)++;
	return 0;
}

const char *pl_new_name(planner *P, const char *display)
{
	char buf[32];
	snprintf(buf, sizeof buf, "#%d", P->next_id);
	const char *d = pl_strdup(P, display ? display : buf);
	if (!d || pl_push(P, &P->display, &P->ndisplay, &P->capdisplay, sizeof *P->display, &d) < 0) return NULL;
	P->next_id++;
	return pl_strdup(P, buf);
}

const char *pl_display(const planner *P, const char *iname)
{
	if (iname[0] != '#') return iname;
	int id = atoi(iname + 1);
	return id >= 0 && id < P->ndisplay ? P->display[id] : iname;
}

dl_type *pl_keep(planner *P, dl_type *t)
{
	return ex_keep_type(P->ex, t);
}

pn *pn_new(planner *P, pn_kind kind, pn *a, pn *b)
{
	pn *n = pl_alloc(P, sizeof *n);
	if (!n) return NULL;
	n->kind = kind;
	n->in[0] = a;
	n->in[1] = b;
	n->limit = -1;
	n->est = a ? a->est : -1;
	return n;
}

/* ---- expression helpers ------------------------------------------------ */

ex_node *pl_copy(planner *P, const ex_node *n)
{
	ex_node *c = ex_node_new(P->ex, n->kind, n->pos);
	if (!c) return NULL;
	*c = *n;
	if (ex_node_set_args(P->ex, c, n->nargs) < 0) return NULL;
	for (int i = 0; i < n->nargs; i++) c->args[i] = n->args[i];
	if (n->to && !ex_keep_type(P->ex, dl_type_ref(n->to))) return NULL;
	return c;
}

ex_node *pl_col(planner *P, const char *iname)
{
	ex_node *c = ex_node_new(P->ex, EX_COL, 0);
	if (!c) return NULL;
	c->path = dl_arena_calloc(&P->ex->arena, 1, sizeof *c->path);
	if (!c->path) return NULL;
	c->path[0] = (char *)iname;
	c->npath = 1;
	return c;
}

ex_node *pl_cast(planner *P, ex_node *e, const dl_type *to)
{
	ex_node *c = ex_node_new(P->ex, EX_CAST, e->pos);
	if (!c || ex_node_set_args(P->ex, c, 1) < 0) return NULL;
	c->args[0] = e;
	c->to = ex_keep_type(P->ex, dl_type_ref((dl_type *)to));
	return c->to ? c : NULL;
}

ex_node *pl_call(planner *P, const char *name, ex_node *a, ex_node *b)
{
	ex_node *c = ex_node_new(P->ex, EX_CALL, a ? a->pos : 0);
	if (!c || ex_node_set_args(P->ex, c, (a != NULL) + (b != NULL)) < 0) return NULL;
	if (a) c->args[0] = a;
	if (b) c->args[1] = b;
	c->name = name;
	return c;
}

ex_node *pl_op(planner *P, int op, ex_node *a, ex_node *b)
{
	ex_node *c = ex_node_new(P->ex, EX_OP, a->pos);
	if (!c || ex_node_set_args(P->ex, c, b ? 2 : 1) < 0) return NULL;
	c->op = op;
	c->args[0] = a;
	if (b) c->args[1] = b;
	return c;
}

ex_node *pl_lit_bool(planner *P, bool v)
{
	ex_node *c = ex_node_new(P->ex, EX_LIT, 0);
	if (!c) return NULL;
	c->lit.type = DL_TYPE_BOOLEAN;
	c->lit.v.b = v;
	return c;
}

int pl_print(dl_buf *out, const ex_node *n)
{
	return ex_print(out, n);
}

int pl_walk_cols(const ex_node *n, int (*fn)(const char *iname, void *payload), void *payload)
{
	if (!n) return 0;
	if (n->kind == EX_COL) DL_TRY(fn(n->path[0], payload));
	for (int i = 0; i < n->nargs; i++) DL_TRY(pl_walk_cols(n->args[i], fn, payload));
	return 0;
}

bool pl_refs_only(const ex_node *n, const dl_type *schema)
{
	if (n->kind == EX_COL && dl_type_field_index(schema, n->path[0]) < 0) return false;
	for (int i = 0; i < n->nargs; i++)
		if (!pl_refs_only(n->args[i], schema)) return false;
	return true;
}

int pl_conjuncts(planner *P, ex_node *n, ex_node ***list, int *len, int *cap)
{
	if (n->kind == EX_OP && n->op == OP_AND) {
		DL_TRY(pl_conjuncts(P, n->args[0], list, len, cap));
		return pl_conjuncts(P, n->args[1], list, len, cap);
	}
	return pl_push(P, list, len, cap, sizeof **list, &n);
}

ex_node *pl_and_all(planner *P, ex_node *const *list, int n)
{
	ex_node *r = NULL;
	for (int i = 0; i < n; i++) r = r ? pl_op(P, OP_AND, r, list[i]) : list[i];
	return r;
}

static dl_expr *mk_expr(const ex_node *n)
{
	dl_expr *e = ex_expr_new();
	if (!e) {
		dl_error_set(DL_ENOMEM, "out of memory");
		return NULL;
	}
	if (!(e->root = ex_copy_tree(e, n))) {
		dl_expr_free(e);
		if (dl_error_last()->code >= 0) dl_error_set(DL_ENOMEM, "out of memory");
		return NULL;
	}
	return e;
}

bool pl_deterministic(const ex_node *n)
{
	dl_expr *e = mk_expr(n);
	bool det = e && dl_expr_is_deterministic(e);
	dl_expr_free(e);
	return det;
}

int pl_type_of(dl_type **out, planner *P, const ex_node *n, const dl_type *schema)
{
	*out = NULL;
	dl_expr *e = mk_expr(n);
	if (!e) return dl_exec_failed();
	int rc = dl_expr_bind_ctx(e, schema, &P->env->ctx.eval);
	if (rc == 0) *out = dl_type_ref((dl_type *)dl_expr_type(e));
	dl_expr_free(e);
	return rc;
}

const dl_type *pn_col_type(const pn *n, const char *iname)
{
	int k = dl_type_field_index(n->schema, iname);
	return k < 0 ? NULL : n->schema->children[k].type;
}

int pl_common_type(dl_type **out, planner *P, const dl_type *a, const dl_type *b, const char *what)
{
	*out = NULL;
	if (dl_type_equals(a, b)) {
		*out = dl_type_ref((dl_type *)a);
		return 0;
	}
	dl_expr *e = ex_expr_new();
	if (!e) return dl_error_set(DL_ENOMEM, "out of memory");
	ex_bind b2 = {e, NULL, NULL, dl_tz_utc()};
	const dl_type *t = ex_common_type(&b2, a, b, what, 0);
	if (t) *out = dl_type_ref((dl_type *)t);
	dl_expr_free(e);
	(void)P;
	return t ? 0 : dl_exec_failed();
}

/* ---- operators ---------------------------------------------------------- */

static int exprs_of(dl_expr **out, ex_node *const *n, int k)
{
	for (int i = 0; i < k; i++) {
		if (!(out[i] = mk_expr(n[i]))) {
			for (int j = 0; j < i; j++) dl_expr_free(out[j]);
			return dl_exec_failed();
		}
	}
	return 0;
}

static void free_exprs(dl_expr **e, int k)
{
	for (int i = 0; i < k; i++) dl_expr_free(e[i]);
}

static int mk_agg(dl_exec_agg *a, const pn_agg *p)
{
	*a = (dl_exec_agg){.kind = p->kind, .name = p->name, .ignore_nulls = p->ignore_nulls, .distinct = p->distinct,
	                   .accuracy = p->accuracy, .rsd = p->rsd};
	if (p->arg && !(a->arg = mk_expr(p->arg))) return dl_exec_failed();
	if (p->param && !(a->param = mk_expr(p->param))) {
		dl_expr_free(a->arg);
		return dl_exec_failed();
	}
	return 0;
}

static void free_agg(dl_exec_agg *a)
{
	dl_expr_free(a->arg);
	dl_expr_free(a->param);
}

static int open_agg(dl_batch_stream **out, pn *n, dl_batch_stream *in, const dl_exec_ctx *ctx)
{
	dl_expr **keys = dl_calloc((size_t)n->n + 1, sizeof *keys);
	dl_exec_agg *aggs = dl_calloc((size_t)n->naggs + 1, sizeof *aggs);
	int rc = keys && aggs ? 0 : dl_error_set(DL_ENOMEM, "out of memory");
	if (rc == 0) rc = exprs_of(keys, n->exprs, n->n);
	int made = 0;
	for (; rc == 0 && made < n->naggs; made++)
		if ((rc = mk_agg(&aggs[made], &n->aggs[made])) < 0) break;
	if (rc < 0) {
		if (keys) free_exprs(keys, n->n);
		for (int i = 0; i < made; i++) free_agg(&aggs[i]);
		dl_batch_stream_free(in);
	} else {
		rc = dl_exec_aggregate(out, in, keys, n->names, n->n, aggs, n->naggs, ctx);
	}
	dl_free(keys);
	dl_free(aggs);
	return rc;
}

static int open_sort_keys(dl_exec_sort_key *k, const pn_sort_key *p, int n)
{
	for (int i = 0; i < n; i++) {
		k[i].descending = p[i].desc;
		k[i].nulls = p[i].nulls;
		if (!(k[i].expr = mk_expr(p[i].expr))) {
			for (int j = 0; j < i; j++) dl_expr_free(k[j].expr);
			return dl_exec_failed();
		}
	}
	return 0;
}

static void free_win_fns(dl_exec_window_fn *fns, int n)
{
	for (int i = 0; i < n; i++) {
		free_agg(&fns[i].agg);
		dl_expr_free(fns[i].arg);
		dl_expr_free(fns[i].default_value);
		dl_expr_free(fns[i].frame.lo_offset);
		dl_expr_free(fns[i].frame.hi_offset);
	}
}

static int mk_win_fn(dl_exec_window_fn *f, const pn_win_fn *w)
{
	f->kind = w->kind;
	f->offset = w->offset;
	f->ignore_nulls = w->ignore_nulls;
	f->name = w->name;
	f->frame.kind = w->frame;
	f->frame.lo = w->lo;
	f->frame.hi = w->hi;
	if (w->kind == DL_WIN_AGG) DL_TRY(mk_agg(&f->agg, &w->agg));
	if ((w->arg && !(f->arg = mk_expr(w->arg))) || (w->default_value && !(f->default_value = mk_expr(w->default_value))) ||
	    (w->lo_offset && !(f->frame.lo_offset = mk_expr(w->lo_offset))) ||
	    (w->hi_offset && !(f->frame.hi_offset = mk_expr(w->hi_offset)))) {
		free_win_fns(f, 1);
		return dl_exec_failed();
	}
	return 0;
}

static int open_window(dl_batch_stream **out, pn *n, dl_batch_stream *in, const dl_exec_ctx *ctx)
{
	dl_expr **part = dl_calloc((size_t)n->n + 1, sizeof *part);
	dl_exec_sort_key *keys = dl_calloc((size_t)n->nkeys + 1, sizeof *keys);
	dl_exec_window_fn *fns = dl_calloc((size_t)n->nwfns + 1, sizeof *fns);
	int rc = part && keys && fns ? 0 : dl_error_set(DL_ENOMEM, "out of memory");
	int nparts = 0, nkeys = 0, made = 0;
	if (rc == 0 && (rc = exprs_of(part, n->exprs, n->n)) == 0) nparts = n->n;
	if (rc == 0 && (rc = open_sort_keys(keys, n->keys, n->nkeys)) == 0) nkeys = n->nkeys;
	for (; rc == 0 && made < n->nwfns; made++)
		if ((rc = mk_win_fn(&fns[made], &n->wfns[made])) < 0) break;
	if (rc < 0) {
		free_exprs(part, nparts);
		for (int i = 0; i < nkeys; i++) dl_expr_free(keys[i].expr);
		free_win_fns(fns, made);
		dl_batch_stream_free(in);
	} else {
		rc = dl_exec_window(out, in, part, n->n, keys, n->nkeys, fns, n->nwfns, ctx);
	}
	dl_free(part);
	dl_free(keys);
	dl_free(fns);
	return rc;
}

/* Builds n's operator over its inputs (taken). */
static int open_op(dl_batch_stream **out, planner *P, pn *n, dl_batch_stream *a, dl_batch_stream *b)
{
	const dl_exec_ctx *ctx = &P->env->ctx;
	int rc;
	switch (n->kind) {
	case PN_FILTER: {
		dl_expr *e = mk_expr(n->exprs[0]);
		if (!e) {
			dl_batch_stream_free(a);
			return dl_exec_failed();
		}
		return dl_exec_filter(out, a, e, ctx);
	}
	case PN_PROJECT: {
		dl_expr **e = dl_calloc((size_t)n->n + 1, sizeof *e);
		rc = e ? exprs_of(e, n->exprs, n->n) : dl_error_set(DL_ENOMEM, "out of memory");
		if (rc == 0) rc = dl_exec_project(out, a, e, n->names, n->n, ctx);
		else dl_batch_stream_free(a);
		dl_free(e);
		return rc;
	}
	case PN_AGG: return open_agg(out, n, a, ctx);
	case PN_SORT: {
		dl_exec_sort_key *k = dl_calloc((size_t)n->nkeys + 1, sizeof *k);
		rc = k ? open_sort_keys(k, n->keys, n->nkeys) : dl_error_set(DL_ENOMEM, "out of memory");
		if (rc == 0) rc = dl_exec_sort(out, a, k, n->nkeys, n->limit, n->offset, ctx);
		else dl_batch_stream_free(a);
		dl_free(k);
		return rc;
	}
	case PN_LIMIT: return dl_exec_limit(out, a, n->limit, n->offset);
	case PN_DISTINCT: return dl_exec_distinct(out, a, ctx);
	case PN_SETOP: return dl_exec_setop(out, a, b, n->setop, n->all, ctx);
	case PN_JOIN: {
		dl_expr **lk = dl_calloc((size_t)n->njk + 1, sizeof *lk), **rk = dl_calloc((size_t)n->njk + 1, sizeof *rk);
		dl_expr *res = NULL;
		rc = lk && rk ? 0 : dl_error_set(DL_ENOMEM, "out of memory");
		if (rc == 0 && (rc = exprs_of(lk, n->lk, n->njk)) == 0 && (rc = exprs_of(rk, n->rk, n->njk)) < 0)
			free_exprs(lk, n->njk);
		if (rc == 0 && n->residual && !(res = mk_expr(n->residual))) {
			free_exprs(lk, n->njk);
			free_exprs(rk, n->njk);
			rc = dl_exec_failed();
		}
		if (rc == 0) {
			dl_exec_join spec = {n->join, n->njk, lk, rk, n->null_safe, res};
			rc = dl_exec_hash_join(out, a, b, &spec, ctx);
		} else {
			dl_batch_stream_free(a);
			dl_batch_stream_free(b);
		}
		dl_free(lk);
		dl_free(rk);
		return rc;
	}
	case PN_WINDOW: return open_window(out, n, a, ctx);
	case PN_EXPAND: {
		dl_expr **e = dl_calloc((size_t)n->n + 1, sizeof *e);
		rc = e ? exprs_of(e, n->exprs, n->n) : dl_error_set(DL_ENOMEM, "out of memory");
		if (rc == 0) rc = dl_exec_expand(out, a, e, n->names, n->n, n->gids, n->ngids, n->gid_name, ctx);
		else dl_batch_stream_free(a);
		dl_free(e);
		return rc;
	}
	case PN_SCAN:
	case PN_ONEROW: break;
	}
	return dl_error_set(DL_ERROR, "plan node %d has no operator", (int)n->kind);
}

static int empty_stream(dl_batch_stream **out, const dl_type *schema)
{
	dl_batch *none[1] = {NULL}; /* not NULL: it is memcpy'd from, for 0 bytes */
	return dl_batch_stream_from_batches(out, (dl_type *)schema, none, 0);
}

/* An error from binding over internal names, told with the names users
 * wrote: "#7" becomes "t.a". */
static int readable_error(planner *P, int rc)
{
	const dl_error *e = dl_error_last();
	if (!e->message || !strchr(e->message, '#')) return rc;
	dl_buf b = DL_BUF_INIT;
	for (const char *p = e->message; *p; p++) {
		if (*p == '#' && p[1] >= '0' && p[1] <= '9') {
			char *end;
			long id = strtol(p + 1, &end, 10);
			if (id >= 0 && id < P->ndisplay) {
				dl_buf_puts(&b, P->display[id]);
				p = end - 1;
				continue;
			}
		}
		dl_buf_putc(&b, *p);
	}
	char klass[128];
	snprintf(klass, sizeof klass, "%s", e->klass ? e->klass : "");
	int code = e->code;
	if (klass[0]) dl_error_set_class(code, klass, "%s", b.data ? b.data : "");
	else dl_error_set(code, "%s", b.data ? b.data : "");
	dl_buf_free(&b);
	return rc;
}

static int finish(planner *P, pn *n);

int pn_finish(planner *P, pn *n)
{
	int rc = finish(P, n);
	return rc < 0 ? readable_error(P, rc) : rc;
}

static int finish(planner *P, pn *n)
{
	if (n->kind == PN_SCAN) {
		const dl_type *rs = n->rel->schema;
		const char **names = dl_calloc((size_t)rs->nchildren + 1, sizeof *names);
		dl_type **types = dl_calloc((size_t)rs->nchildren + 1, sizeof *types);
		bool *nullable = dl_calloc((size_t)rs->nchildren + 1, sizeof *nullable);
		n->rel_cols = pl_alloc(P, sizeof *n->rel_cols * ((size_t)rs->nchildren + 1));
		n->names = pl_alloc(P, sizeof *n->names * ((size_t)rs->nchildren + 1));
		int rc = names && types && nullable && n->rel_cols && n->names ? 0 : DL_ENOMEM;
		for (int i = 0; rc == 0 && i < rs->nchildren; i++) {
			char disp[512];
			snprintf(disp, sizeof disp, "%s", rs->children[i].name);
			n->rel_cols[i] = rs->children[i].name;
			if (!(names[i] = n->names[i] = pl_new_name(P, disp))) rc = DL_ENOMEM;
			types[i] = rs->children[i].type;
			nullable[i] = rs->children[i].nullable;
		}
		n->n = rs->nchildren;
		if (rc == 0 && !(n->schema = pl_keep(P, dl_exec_struct(names, types, nullable, rs->nchildren))))
			rc = dl_exec_failed();
		dl_free(names);
		dl_free(types);
		dl_free(nullable);
		return rc < 0 ? dl_error_set(rc, "out of memory") : 0;
	}
	if (n->kind == PN_ONEROW) {
		n->schema = pl_keep(P, dl_exec_struct(NULL, NULL, NULL, 0));
		n->est = 1;
		return n->schema ? 0 : dl_exec_failed();
	}
	dl_batch_stream *a = NULL, *b = NULL, *op = NULL;
	DL_TRY(empty_stream(&a, n->in[0]->schema));
	if (n->in[1] && empty_stream(&b, n->in[1]->schema) < 0) {
		dl_batch_stream_free(a);
		return dl_exec_failed();
	}
	DL_TRY(open_op(&op, P, n, a, b));
	n->schema = pl_keep(P, dl_type_ref((dl_type *)dl_batch_stream_schema(op)));
	dl_batch_stream_free(op);
	return n->schema ? 0 : dl_exec_failed();
}

int pn_project_over(pn **out, planner *P, pn *in, ex_node *const *exprs, const char *const *names, int n,
                    bool keep_input)
{
	pn *p = pn_new(P, PN_PROJECT, in, NULL);
	if (!p) return DL_ENOMEM;
	int base = keep_input ? in->schema->nchildren : 0;
	p->n = base + n;
	p->exprs = pl_alloc(P, sizeof *p->exprs * ((size_t)p->n + 1));
	p->names = pl_alloc(P, sizeof *p->names * ((size_t)p->n + 1));
	if (!p->exprs || !p->names) return DL_ENOMEM;
	for (int i = 0; i < base; i++) {
		p->names[i] = in->schema->children[i].name;
		if (!(p->exprs[i] = pl_col(P, p->names[i]))) return DL_ENOMEM;
	}
	for (int i = 0; i < n; i++) {
		p->exprs[base + i] = exprs[i];
		p->names[base + i] = names[i];
	}
	DL_TRY(pn_finish(P, p));
	*out = p;
	return 0;
}

/* ---- opening ------------------------------------------------------------ */

typedef struct used_set {
	const char **names;
	int n, cap;
	planner *P;
} used_set;

static int use_col(const char *iname, void *payload)
{
	used_set *u = payload;
	for (int i = 0; i < u->n; i++)
		if (u->names[i] == iname || strcmp(u->names[i], iname) == 0) return 0;
	return pl_push(u->P, &u->names, &u->n, &u->cap, sizeof *u->names, &iname);
}

static int collect_used(used_set *u, const pn *n)
{
	if (!n) return 0;
	for (int i = 0; i < n->n && n->kind != PN_SCAN; i++) DL_TRY(pl_walk_cols(n->exprs[i], use_col, u));
	for (int i = 0; i < n->naggs; i++) {
		DL_TRY(pl_walk_cols(n->aggs[i].arg, use_col, u));
		DL_TRY(pl_walk_cols(n->aggs[i].param, use_col, u));
	}
	for (int i = 0; i < n->nkeys; i++) DL_TRY(pl_walk_cols(n->keys[i].expr, use_col, u));
	for (int i = 0; i < n->njk; i++) {
		DL_TRY(pl_walk_cols(n->lk[i], use_col, u));
		DL_TRY(pl_walk_cols(n->rk[i], use_col, u));
	}
	DL_TRY(pl_walk_cols(n->residual, use_col, u));
	for (int i = 0; i < n->nwfns; i++) {
		DL_TRY(pl_walk_cols(n->wfns[i].agg.arg, use_col, u));
		DL_TRY(pl_walk_cols(n->wfns[i].arg, use_col, u));
		DL_TRY(pl_walk_cols(n->wfns[i].default_value, use_col, u));
	}
	/* set operations and DISTINCT compare whole rows */
	if (n->kind == PN_SETOP || n->kind == PN_DISTINCT)
		for (int k = 0; k < 2; k++)
			for (int i = 0; n->in[k] && i < n->in[k]->schema->nchildren; i++)
				DL_TRY(use_col(n->in[k]->schema->children[i].name, u));
	DL_TRY(collect_used(u, n->in[0]));
	return collect_used(u, n->in[1]);
}

/* The pushed filter over the relation's own column names. */
static ex_node *rename_to_rel(planner *P, const pn *scan, const ex_node *n)
{
	ex_node *c = pl_copy(P, n);
	if (!c) return NULL;
	if (n->kind == EX_COL) {
		int k = dl_type_field_index(scan->schema, n->path[0]);
		if (k < 0) return NULL;
		c->path = dl_arena_calloc(&P->ex->arena, (size_t)n->npath, sizeof *c->path);
		if (!c->path) return NULL;
		memcpy(c->path, n->path, sizeof *c->path * (size_t)n->npath);
		c->path[0] = (char *)scan->rel_cols[k];
	}
	for (int i = 0; i < n->nargs; i++)
		if (!(c->args[i] = rename_to_rel(P, scan, n->args[i]))) return NULL;
	return c;
}

typedef struct scan_args {
	const char **cols;
	int ncols;
	const char **inames;
	ex_node *filter; /* over relation names, or NULL */
} scan_args;

static int scan_args_of(scan_args *s, planner *P, const pn *n, const used_set *u)
{
	s->cols = pl_alloc(P, sizeof *s->cols * ((size_t)n->n + 1));
	s->inames = pl_alloc(P, sizeof *s->inames * ((size_t)n->n + 1));
	if (!s->cols || !s->inames) return DL_ENOMEM;
	s->ncols = 0;
	for (int i = 0; i < n->n; i++) {
		bool used = false;
		for (int j = 0; j < u->n && !used; j++) used = strcmp(u->names[j], n->names[i]) == 0;
		if (!used) continue;
		s->cols[s->ncols] = n->rel_cols[i];
		s->inames[s->ncols++] = n->names[i];
	}
	s->filter = NULL;
	if (n->npushed) {
		ex_node *f = pl_and_all(P, n->pushed, n->npushed);
		if (!f || !(s->filter = rename_to_rel(P, n, f))) return dl_exec_failed();
	}
	return 0;
}

int pl_explain_expr(dl_buf *out, planner *P, const ex_node *e); /* plan_explain.c */

static int open_scan(dl_batch_stream **out, planner *P, pn *n, const used_set *u)
{
	scan_args s;
	DL_TRY(scan_args_of(&s, P, n, u));
	dl_expr *filter = NULL;
	if (s.filter && !(filter = mk_expr(s.filter))) return dl_exec_failed();
	dl_batch_stream *raw;
	DL_TRY(n->rel->open(&raw, n->rel, s.cols, s.ncols, filter, &P->env->ctx));
	dl_expr **e = dl_calloc((size_t)s.ncols + 1, sizeof *e);
	if (!e) {
		dl_batch_stream_free(raw);
		return dl_error_set(DL_ENOMEM, "out of memory");
	}
	int rc = 0;
	for (int i = 0; i < s.ncols && rc == 0; i++) {
		ex_node *c = pl_col(P, s.cols[i]);
		if (!c || !(e[i] = mk_expr(c))) {
			free_exprs(e, i);
			rc = dl_exec_failed();
		}
	}
	if (rc == 0) rc = dl_exec_project(out, raw, e, s.inames, s.ncols, &P->env->ctx);
	else dl_batch_stream_free(raw);
	dl_free(e);
	return rc;
}

static int open_node(dl_batch_stream **out, planner *P, pn *n, const used_set *u)
{
	*out = NULL;
	if (n->kind == PN_SCAN) return open_scan(out, P, n, u);
	if (n->kind == PN_ONEROW) {
		dl_batch *b = dl_batch_new(n->schema, 1);
		if (!b) return dl_exec_failed();
		return dl_batch_stream_from_batches(out, n->schema, &b, 1);
	}
	dl_batch_stream *a = NULL, *b = NULL;
	DL_TRY(open_node(&a, P, n->in[0], u));
	if (n->in[1] && open_node(&b, P, n->in[1], u) < 0) {
		dl_batch_stream_free(a);
		return dl_exec_failed();
	}
	return open_op(out, P, n, a, b);
}

int pn_open(dl_batch_stream **out, planner *P, pn *root)
{
	used_set u = {NULL, 0, 0, P};
	for (int i = 0; i < root->schema->nchildren; i++) DL_TRY(use_col(root->schema->children[i].name, &u));
	DL_TRY(collect_used(&u, root));
	return open_node(out, P, root, &u);
}

/* EXPLAIN's view of a scan: what open() would be given. */
int pl_scan_explain_args(dl_buf *out, planner *P, pn *n, const pn *root)
{
	used_set u = {NULL, 0, 0, P};
	for (int i = 0; i < root->schema->nchildren; i++) DL_TRY(use_col(root->schema->children[i].name, &u));
	DL_TRY(collect_used(&u, root));
	scan_args s;
	DL_TRY(scan_args_of(&s, P, n, &u));
	DL_TRY(dl_buf_printf(out, "Scan %s [", n->rel->display ? n->rel->display : "?"));
	for (int i = 0; i < s.ncols; i++) DL_TRY(dl_buf_printf(out, "%s%s", i ? ", " : "", s.cols[i]));
	DL_TRY(dl_buf_puts(out, "]"));
	if (s.filter) {
		DL_TRY(dl_buf_puts(out, " filter: "));
		DL_TRY(pl_explain_expr(out, P, s.filter));
	}
	if (n->rel->explain) {
		dl_expr *f = NULL;
		if (s.filter && !(f = mk_expr(s.filter))) return dl_exec_failed();
		dl_buf t = DL_BUF_INIT;
		int rc = n->rel->explain(&t, n->rel, s.cols, s.ncols, f, &P->env->ctx);
		dl_expr_free(f);
		if (rc == 0 && t.len) rc = dl_buf_printf(out, " (%s)", t.data);
		dl_buf_free(&t);
		DL_TRY(rc);
	}
	return 0;
}
