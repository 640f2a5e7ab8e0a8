/* One SELECT block, in Spark's order of evaluation: FROM, WHERE (with
 * [NOT] EXISTS / IN subqueries turned into joins, and conjuncts over one
 * relation pushed into it), GROUP BY / aggregates, HAVING, window
 * functions, the select list, DISTINCT, ORDER BY (select aliases and
 * ordinals first, then any expression over the input, computed as a
 * hidden column), LIMIT / OFFSET (a top-N sort under ORDER BY). */
#include "sql/plan_internal.h"
#include <strings.h>
#include <string.h>

typedef struct item {
	const ex_node *expr; /* NULL: a star column (iname) */
	const char *iname;   /* star: the input column */
	const char *name;    /* output name */
	ex_node *post;       /* rewritten over the projection's input */
	const char *out;     /* output internal name */
	bool aliased;
} item;

/* A bare column keeps the spelling of its table (Spark returns the
 * resolved attribute), a nested field the spelling of the query. */
static void column_spelling(item *it, const scope *sc)
{
	if (it->aliased || !it->expr || it->expr->kind != EX_COL || !it->post || it->post->kind != EX_COL ||
	    it->post->npath != 1)
		return;
	for (int i = 0; i < sc->n; i++)
		if (!strcmp(sc->cols[i].iname, it->post->path[0])) {
			it->name = sc->cols[i].name;
			return;
		}
}

/* Lateral column aliases (Spark 3.4+): an item may use an earlier item's
 * alias when no input column has that name. */
static int lateral_init(rw_ctx *c, planner *P, const item *items, int n)
{
	const char **names = pl_alloc(P, sizeof *names * ((size_t)n + 1));
	ex_node **posts = pl_alloc(P, sizeof *posts * ((size_t)n + 1));
	if (!names || !posts) return DL_ENOMEM;
	for (int i = 0; i < n; i++) names[i] = items[i].aliased ? items[i].name : NULL;
	c->lateral_names = names;
	c->lateral_posts = posts;
	return 0;
}

static int lateral_rewrite(rw_ctx *c, item *items, int i)
{
	DL_TRY(pl_rewrite(&items[i].post, c, items[i].expr));
	((ex_node **)c->lateral_posts)[i] = items[i].post;
	return 0;
}

static bool star_matches(const sc_col *c, const sql_select_item *it)
{
	if (it->qual.nparts == 0) return !c->no_star;
	if (it->qual.nparts > c->nqual) return false;
	for (int i = 0; i < it->qual.nparts; i++)
		if (strcasecmp(c->qual[c->nqual - it->qual.nparts + i], it->qual.parts[i]) != 0) return false;
	return true;
}

static int expand_items(item **out, int *n, planner *P, const sql_select *s, const scope *sc)
{
	int cap = 0;
	*out = NULL;
	*n = 0;
	for (int i = 0; i < s->nitems; i++) {
		const sql_select_item *it = &s->items[i];
		if (!it->star) {
			item x = {it->expr, NULL, it->alias, NULL, NULL, it->alias != NULL};
			if (!x.name) {
				dl_buf b = DL_BUF_INIT;
				int rc = pl_auto_name(&b, it->expr);
				x.name = rc == 0 ? pl_strdup(P, b.data ? b.data : "") : NULL;
				dl_buf_free(&b);
				if (!x.name) return rc < 0 ? rc : DL_ENOMEM;
			}
			DL_TRY(pl_push(P, out, n, &cap, sizeof x, &x));
			continue;
		}
		int before = *n;
		for (int k = 0; k < sc->n; k++) {
			const sc_col *c = &sc->cols[k];
			if (!star_matches(c, it)) continue;
			item x = {NULL, c->iname, c->name, NULL, NULL, false};
			DL_TRY(pl_push(P, out, n, &cap, sizeof x, &x));
		}
		if (*n == before && it->qual.nparts) {
			dl_buf q = DL_BUF_INIT;
			for (int k = 0; k < it->qual.nparts; k++) dl_buf_printf(&q, "%s`%s`", k ? "." : "", it->qual.parts[k]);
			int rc = dl_error_set_class(DL_EINVALID, "CANNOT_RESOLVE_STAR_EXPAND",
			                            "[CANNOT_RESOLVE_STAR_EXPAND] Cannot resolve %s.* given input columns.",
			                            q.data ? q.data : "");
			dl_buf_free(&q);
			return rc;
		}
	}
	return 0;
}

static int print_text(const char **out, planner *P, const ex_node *n)
{
	dl_buf b = DL_BUF_INIT;
	int rc = pl_print(&b, n);
	*out = rc == 0 ? pl_strdup(P, b.data ? b.data : "") : NULL;
	dl_buf_free(&b);
	return *out ? 0 : rc < 0 ? rc : DL_ENOMEM;
}

static bool is_ordinal(const ex_node *n, int64_t *v)
{
	if (n->kind != EX_LIT || n->lit.is_null) return false;
	if (n->lit.type != DL_TYPE_INTEGER && n->lit.type != DL_TYPE_LONG && n->lit.type != DL_TYPE_SHORT &&
	    n->lit.type != DL_TYPE_BYTE)
		return false;
	*v = n->lit.v.i64;
	return true;
}

static int bad_ordinal(int64_t v, int n, const char *clause)
{
	return dl_error_set_class(DL_EINVALID, clause[0] == 'G' ? "GROUP_BY_POS_OUT_OF_RANGE" : "ORDER_BY_POS_OUT_OF_RANGE",
	                          "[%s_BY_POS_OUT_OF_RANGE] %s BY position %lld is not in select list (valid range is "
	                          "[1, %d]).",
	                          clause[0] == 'G' ? "GROUP" : "ORDER", clause, (long long)v, n);
}

/* GROUP BY item -> the expression it groups by (ordinals and aliases of
 * the select list, as Spark allows them). */
static int group_expr(const ex_node **out, const ex_node *g, const item *items, int n, const scope *sc)
{
	int64_t v;
	*out = g;
	if (is_ordinal(g, &v)) {
		if (v < 1 || v > n) return bad_ordinal(v, n, "GROUP");
		if (!items[v - 1].expr) {
			return dl_error_set(DL_EUNSUPPORTED, "GROUP BY %lld refers to a star column", (long long)v);
		}
		if (pl_has_agg(items[v - 1].expr))
			return dl_error_set_class(DL_EINVALID, "GROUP_BY_POS_AGGREGATE",
			                          "[GROUP_BY_POS_AGGREGATE] GROUP BY %lld refers to an expression %s that contains "
			                          "an aggregate function. Aggregate functions are not allowed in GROUP BY.",
			                          (long long)v, items[v - 1].name);
		*out = items[v - 1].expr;
		return 0;
	}
	if (g->kind == EX_COL && g->npath == 1) {
		for (int i = 0; i < sc->n; i++)
			if (!sc->cols[i].no_unqual && strcasecmp(sc->cols[i].name, g->path[0]) == 0) return 0;
		for (int i = 0; i < n; i++)
			if (items[i].expr && strcasecmp(items[i].name, g->path[0]) == 0 && !pl_has_agg(items[i].expr)) {
				*out = items[i].expr;
				return 0;
			}
	}
	return 0;
}

/* Spark's grouping id of each set: bit (nkeys-1-k) set when key k is not
 * in it (the first key is the most significant bit). */
static int grouping_ids(uint64_t **out, planner *P, const sql_select *s, const int *gmap, int nkeys)
{
	uint64_t *ids = pl_alloc(P, sizeof *ids * (size_t)s->ngsets);
	if (!ids) return DL_ENOMEM;
	uint64_t all = nkeys == 64 ? UINT64_MAX : (((uint64_t)1 << nkeys) - 1);
	for (int i = 0; i < s->ngsets; i++) {
		ids[i] = all;
		for (int j = 0; j < s->gset_len[i]; j++) ids[i] &= ~((uint64_t)1 << (nkeys - 1 - gmap[s->gsets[i][j]]));
	}
	*out = ids;
	return 0;
}

static int plan_where(prel *r, planner *P, const ex_node *where, corr_sink *sink)
{
	const ex_node **conj = NULL;
	int n = 0, cap = 0;
	/* conjuncts of the parsed tree: subquery predicates are found at the top */
	const ex_node *stack[256];
	int sp = 0;
	stack[sp++] = where;
	while (sp) {
		const ex_node *e = stack[--sp];
		if (e->kind == EX_OP && e->op == OP_AND && sp < 254) {
			stack[sp++] = e->args[1];
			stack[sp++] = e->args[0];
			continue;
		}
		DL_TRY(pl_push(P, &conj, &n, &cap, sizeof *conj, &e));
	}
	ex_node **kept = NULL;
	int nk = 0, capk = 0;
	for (int i = 0; i < n; i++) {
		ex_node *x;
		DL_TRY(pl_where_subquery(&x, P, r, conj[i]));
		if (!x) {
			rw_ctx c = {.P = P, .sc = &r->sc, .no_agg = true, .clause = "WHERE", .input = &r->node,
			            .input_scope = &r->sc};
			DL_TRY(pl_rewrite(&x, &c, conj[i]));
			if (c.correlated && sink) {
				DL_TRY(pl_push(P, &sink->conj, &sink->n, &sink->cap, sizeof x, &x));
				continue;
			}
		}
		if (x->kind == EX_LIT && x->lit.type == DL_TYPE_BOOLEAN && !x->lit.is_null && x->lit.v.b) continue;
		DL_TRY(pl_conjuncts(P, x, &kept, &nk, &capk));
	}
	if (!nk) return 0;
	DL_TRY(pl_where_keys(P, r->node, kept, nk));
	pn *f = pn_new(P, PN_FILTER, r->node, NULL);
	if (!f) return DL_ENOMEM;
	f->n = 1;
	f->exprs = pl_alloc(P, sizeof *f->exprs);
	if (!f->exprs || !(f->exprs[0] = pl_and_all(P, kept, nk))) return DL_ENOMEM;
	DL_TRY(pn_finish(P, f));
	r->node = f;
	/* conjuncts over one relation go to it too (it may prune) */
	for (int i = 0; i < nk; i++) DL_TRY(pl_push_filter(P, f->in[0], kept[i]));
	return 0;
}

static int plan_order(pn_sort_key **keys_out, int *nkeys, ex_node ***hidden, const char ***hnames, int *nh,
                      planner *P, const sql_query *q, item *items, int n, rw_ctx *c, bool distinct)
{
	pn_sort_key *keys = pl_alloc(P, sizeof *keys * ((size_t)q->norder + 1));
	*hidden = pl_alloc(P, sizeof **hidden * ((size_t)q->norder + 1));
	*hnames = pl_alloc(P, sizeof **hnames * ((size_t)q->norder + 1));
	if (!keys || !*hidden || !*hnames) return DL_ENOMEM;
	for (int i = 0; i < q->norder; i++) {
		const ex_sort_item *o = &q->order_by[i];
		const char *target = NULL;
		int64_t v;
		if (is_ordinal(o->expr, &v)) {
			if (v < 1 || v > n) return bad_ordinal(v, n, "ORDER");
			target = items[v - 1].out;
		} else if (o->expr->kind == EX_COL && o->expr->npath == 1) {
			for (int k = 0; k < n && !target; k++)
				if (strcasecmp(items[k].name, o->expr->path[0]) == 0)
					target = items[k].out;
		}
		if (!target) {
			ex_node *x;
			DL_TRY(pl_rewrite(&x, c, o->expr));
			const char *t;
			DL_TRY(print_text(&t, P, x));
			for (int k = 0; k < n && !target; k++) {
				const char *it;
				DL_TRY(print_text(&it, P, items[k].post));
				if (strcmp(it, t) == 0) target = items[k].out;
			}
			if (!target) {
				if (distinct) {
					dl_buf b = DL_BUF_INIT;
					pl_auto_name(&b, o->expr);
					int rc = dl_error_set_class(DL_EINVALID, "MISSING_ATTRIBUTES.RESOLVED_ATTRIBUTE_APPEAR_IN_OPERATION",
					                            "ORDER BY %s of a SELECT DISTINCT must be one of the selected columns",
					                            b.data ? b.data : "");
					dl_buf_free(&b);
					return rc;
				}
				dl_buf b = DL_BUF_INIT;
				pl_auto_name(&b, o->expr);
				const char *hn = pl_new_name(P, b.data);
				dl_buf_free(&b);
				if (!hn) return DL_ENOMEM;
				(*hidden)[*nh] = x;
				(*hnames)[(*nh)++] = hn;
				target = hn;
			}
		}
		keys[i].expr = pl_col(P, target);
		if (!keys[i].expr) return DL_ENOMEM;
		keys[i].desc = o->desc;
		keys[i].nulls = o->nulls == NULLS_FIRST ? DL_NULLS_FIRST : o->nulls == NULLS_LAST ? DL_NULLS_LAST : DL_NULLS_DEFAULT;
	}
	*keys_out = keys;
	*nkeys = q->norder;
	return 0;
}

typedef struct extras {
	const char **names;
	int n, cap;
} extras;

static int add_extra(const char *iname, void *payload)
{
	void **pp = payload;
	extras *X = pp[0];
	planner *P = pp[1];
	const pn *in = pp[2];
	if (dl_type_field_index(in->schema, iname) < 0) return 0; /* an outer column */
	for (int i = 0; i < X->n; i++)
		if (!strcmp(X->names[i], iname)) return 0;
	return pl_push(P, &X->names, &X->n, &X->cap, sizeof iname, &iname);
}

static bool refs_none(const ex_node *n, const dl_type *schema)
{
	if (n->kind == EX_COL && dl_type_field_index(schema, n->path[0]) >= 0) return false;
	for (int i = 0; i < n->nargs; i++)
		if (!refs_none(n->args[i], schema)) return false;
	return true;
}

/* A correlated aggregate subquery groups by the inner side of each
 * correlated equality; the join then compares the key with the outer side. */
static int corr_keys(planner *P, corr_sink *sink, agg_ctx *A, ex_node **kx, const pn *in, extras *X)
{
	for (int i = 0; i < sink->n; i++) {
		ex_node *e = sink->conj[i];
		int inner = -1;
		if (e->kind == EX_OP && (e->op == OP_EQ || e->op == OP_NSEQ))
			for (int k = 0; k < 2 && inner < 0; k++)
				if (pl_refs_only(e->args[k], in->schema) && refs_none(e->args[1 - k], in->schema)) inner = k;
		if (inner < 0)
			return dl_error_set_class(DL_EUNSUPPORTED, "UNSUPPORTED_SUBQUERY_EXPRESSION_CATEGORY",
			                          "[UNSUPPORTED_SUBQUERY_EXPRESSION_CATEGORY.CORRELATED_REFERENCE] a correlated "
			                          "aggregate subquery may correlate only through equalities (inner = outer)");
		const char *t;
		DL_TRY(print_text(&t, P, e->args[inner]));
		const char *iname = NULL;
		for (int k = 0; k < A->nkeys && !iname; k++)
			if (!strcmp(A->key_text[k], t)) iname = A->key_iname[k];
		if (!iname) {
			if (!(iname = pl_new_name(P, "correlation key"))) return DL_ENOMEM;
			kx[A->nkeys] = e->args[inner];
			A->key_text[A->nkeys] = t;
			A->key_iname[A->nkeys++] = iname;
		}
		ex_node *k = pl_col(P, iname);
		if (!k || !(sink->conj[i] = pl_op(P, e->op, k, e->args[1 - inner]))) return DL_ENOMEM;
		DL_TRY(pl_push(P, &X->names, &X->n, &X->cap, sizeof iname, &iname));
	}
	return 0;
}

/* Windows, the select list, DISTINCT, ORDER BY, LIMIT. */
static int select_finish(pq *out, planner *P, const sql_query *q, prel *r, item *items, int n, win_ctx *W,
                         pn_sort_key *keys, int nkeys, ex_node **hidden, const char **hnames, int nh, bool distinct,
                         const char *const *extra, int nextra)
{
	if (W->n) DL_TRY(pl_windows(&r->node, P, W));
	ex_node **ex = pl_alloc(P, sizeof *ex * ((size_t)(n + nh + nextra) + 1));
	const char **nm = pl_alloc(P, sizeof *nm * ((size_t)(n + nh + nextra) + 1));
	out->names = pl_alloc(P, sizeof *out->names * ((size_t)n + 1));
	out->inames = pl_alloc(P, sizeof *out->inames * ((size_t)n + 1));
	if (!ex || !nm || !out->names || !out->inames) return DL_ENOMEM;
	for (int i = 0; i < n; i++) {
		ex[i] = items[i].post;
		nm[i] = items[i].out;
		out->names[i] = items[i].name;
		out->inames[i] = items[i].out;
	}
	for (int i = 0; i < nextra; i++) {
		if (!(ex[n + i] = pl_col(P, extra[i]))) return DL_ENOMEM;
		nm[n + i] = extra[i];
	}
	for (int i = 0; i < nh; i++) {
		ex[n + nextra + i] = hidden[i];
		nm[n + nextra + i] = hnames[i];
	}
	pn *p;
	DL_TRY(pn_project_over(&p, P, r->node, ex, nm, n + nh + nextra, false));
	if (distinct) {
		if (!(p = pn_new(P, PN_DISTINCT, p, NULL))) return DL_ENOMEM;
		DL_TRY(pn_finish(P, p));
	}
	out->n = n;
	out->node = p;
	DL_TRY(pl_order_limit(out, P, q, keys, nkeys));
	if (nh) {
		ex_node **keep = pl_alloc(P, sizeof *keep * ((size_t)(n + nextra) + 1));
		if (!keep) return DL_ENOMEM;
		for (int i = 0; i < n + nextra; i++)
			if (!(keep[i] = pl_col(P, nm[i]))) return DL_ENOMEM;
		DL_TRY(pn_project_over(&out->node, P, out->node, keep, nm, n + nextra, false));
	}
	return 0;
}

int pl_select(pq *out, planner *P, const sql_query *q, const scope *outer)
{
	const sql_select *s = q->select;
	prel r = {0};
	/* a subquery's correlated predicates, if this block is one */
	corr_sink *sink = P->sink && !P->sink->taken ? P->sink : NULL;
	if (sink) sink->taken = true;
	P->sink = NULL;
	if (s->from) {
		DL_TRY(pl_from(&r, P, s->from, outer));
	} else {
		if (!(r.node = pn_new(P, PN_ONEROW, NULL, NULL))) return DL_ENOMEM;
		DL_TRY(pn_finish(P, r.node));
	}
	r.sc.outer = outer;
	if (s->where) DL_TRY(plan_where(&r, P, s->where, sink));

	item *items;
	int n;
	DL_TRY(expand_items(&items, &n, P, s, &r.sc));
	extras X = {0};
	bool agg = s->ngroup > 0 || s->having != NULL;
	for (int i = 0; i < n && !agg; i++) agg = items[i].expr && pl_has_agg(items[i].expr);
	for (int i = 0; i < q->norder && !agg && s->nitems; i++) agg = pl_has_agg(q->order_by[i].expr);

	agg_ctx A = {0};
	win_ctx W = {0};
	rw_ctx c = {.P = P, .sc = &r.sc, .win = &W, .clause = "the select list", .input = &r.node,
	            .input_scope = &r.sc};
	if (agg) {
		A.grouped = s->ngroup > 0;
		int nsink = sink ? sink->n : 0;
		A.key_text = pl_alloc(P, sizeof *A.key_text * ((size_t)(s->ngroup + nsink) + 1));
		A.key_iname = pl_alloc(P, sizeof *A.key_iname * ((size_t)(s->ngroup + nsink) + 1));
		ex_node **kx = pl_alloc(P, sizeof *kx * ((size_t)(s->ngroup + nsink) + 1));
		int *gmap = pl_alloc(P, sizeof *gmap * ((size_t)s->ngroup + 1)); /* group_by index -> key */
		if (!A.key_text || !A.key_iname || !kx || !gmap) return DL_ENOMEM;
		for (int i = 0; i < s->ngroup; i++) {
			const ex_node *g;
			DL_TRY(group_expr(&g, s->group_by[i], items, n, &r.sc));
			rw_ctx gc = {.P = P, .sc = &r.sc, .no_agg = true, .clause = "GROUP BY"};
			DL_TRY(pl_rewrite(&kx[A.nkeys], &gc, g));
			const char *t;
			DL_TRY(print_text(&t, P, kx[A.nkeys]));
			int dup = -1;
			for (int k = 0; k < A.nkeys && dup < 0; k++)
				if (strcmp(A.key_text[k], t) == 0) dup = k;
			gmap[i] = dup >= 0 ? dup : A.nkeys;
			if (dup >= 0) continue;
			dl_buf b = DL_BUF_INIT;
			pl_auto_name(&b, g);
			A.key_iname[A.nkeys] = pl_new_name(P, b.data);
			dl_buf_free(&b);
			if (!A.key_iname[A.nkeys]) return DL_ENOMEM;
			A.key_text[A.nkeys++] = t;
		}
		uint64_t *gids = NULL;
		if (s->ngsets) {
			if (nsink)
				return dl_error_set(DL_EUNSUPPORTED, "a correlated subquery with GROUPING SETS, ROLLUP or CUBE is not "
				                                     "supported: aggregate in a derived table and join it");
			if (A.nkeys > 64)
				return dl_error_set_class(DL_EINVALID, "GROUPING_SIZE_LIMIT_EXCEEDED",
				                          "[GROUPING_SIZE_LIMIT_EXCEEDED] Grouping sets size cannot be greater than 64.");
			DL_TRY(grouping_ids(&gids, P, s, gmap, A.nkeys));
			if (!(A.gid_iname = pl_new_name(P, "spark_grouping_id"))) return DL_ENOMEM;
		}
		if (nsink) DL_TRY(corr_keys(P, sink, &A, kx, r.node, &X));
		c.agg = &A;
		/* star columns after aggregation must be keys themselves */
		DL_TRY(lateral_init(&c, P, items, n));
		for (int i = 0; i < n; i++) {
			c.nlateral = i;
			if (items[i].expr) {
				DL_TRY(lateral_rewrite(&c, items, i));
				continue;
			}
			for (int k = 0; k < A.nkeys && !items[i].post; k++)
				if (strcmp(A.key_text[k], items[i].iname) == 0) items[i].post = pl_col(P, A.key_iname[k]);
			if (!items[i].post) {
				ex_node *col = pl_col(P, items[i].name);
				if (!col) return DL_ENOMEM;
				rw_ctx e = c;
				DL_TRY(pl_rewrite(&items[i].post, &e, col));
			}
		}
		c.nlateral = n; /* HAVING and ORDER BY may use the select aliases */
		ex_node *having = NULL;
		if (s->having) {
			rw_ctx hc = c;
			hc.clause = "HAVING";
			hc.win = NULL;
			DL_TRY(pl_rewrite(&having, &hc, s->having));
		}
		/* ORDER BY may add aggregates: resolve it before the node exists */
		pn_sort_key *keys = NULL;
		int nkeys = 0, nh = 0;
		ex_node **hidden = NULL;
		const char **hnames = NULL;
		for (int i = 0; i < n; i++)
			if (!(items[i].out = pl_new_name(P, items[i].name))) return DL_ENOMEM;
		if (q->norder) {
			rw_ctx oc = c;
			oc.clause = "ORDER BY";
			DL_TRY(plan_order(&keys, &nkeys, &hidden, &hnames, &nh, P, q, items, n, &oc, s->distinct));
		}
		/* without GROUP BY an aggregate has a value over no rows (a count's
		 * is 0, not the NULL a left join gives); grouped, no rows is NULL */
		if (sink && n && s->ngroup == 0 && items[0].post->kind == EX_COL)
			for (int i = 0; i < A.naggs; i++)
				if (!strcmp(A.aggs[i].name, items[0].post->path[0]))
					sink->count_default = A.aggs[i].kind == DL_AGG_COUNT || A.aggs[i].kind == DL_AGG_COUNT_STAR ||
					                      A.aggs[i].kind == DL_AGG_COUNT_DISTINCT || A.aggs[i].kind == DL_AGG_COUNT_IF ||
					                      A.aggs[i].kind == DL_AGG_APPROX_COUNT_DISTINCT;
		if (gids) {
			/* Spark's Expand: the input once per set, keys outside it NULL,
			 * then the aggregate groups by the keys and the set's id */
			pn *e = pn_new(P, PN_EXPAND, r.node, NULL);
			ex_node **ak = pl_alloc(P, sizeof *ak * ((size_t)A.nkeys + 1));
			const char **an = pl_alloc(P, sizeof *an * ((size_t)A.nkeys + 1));
			if (!e || !ak || !an) return DL_ENOMEM;
			e->exprs = kx;
			e->names = A.key_iname;
			e->n = A.nkeys;
			e->gids = gids;
			e->ngids = s->ngsets;
			e->gid_name = A.gid_iname;
			e->est = r.node->est < 0 ? -1 : r.node->est * s->ngsets;
			DL_TRY(pn_finish(P, e));
			for (int i = 0; i < A.nkeys; i++) {
				if (!(ak[i] = pl_col(P, A.key_iname[i]))) return DL_ENOMEM;
				an[i] = A.key_iname[i];
			}
			if (!(ak[A.nkeys] = pl_col(P, A.gid_iname))) return DL_ENOMEM;
			an[A.nkeys] = A.gid_iname;
			r.node = e;
			kx = ak;
			A.key_iname = an;
		}
		pn *a = pn_new(P, PN_AGG, r.node, NULL);
		if (!a) return DL_ENOMEM;
		a->exprs = kx;
		a->names = A.key_iname;
		a->n = A.nkeys + (gids != NULL);
		a->aggs = A.aggs;
		a->naggs = A.naggs;
		a->est = -1;
		DL_TRY(pn_finish(P, a));
		r.node = a;
		if (having) {
			pn *f = pn_new(P, PN_FILTER, r.node, NULL);
			if (!f || !(f->exprs = pl_alloc(P, sizeof *f->exprs))) return DL_ENOMEM;
			f->exprs[0] = having;
			f->n = 1;
			DL_TRY(pn_finish(P, f));
			r.node = f;
		}
		return select_finish(out, P, q, &r, items, n, &W, keys, nkeys, hidden, hnames, nh, s->distinct, X.names, X.n);
	}
	if (sink)
		for (int i = 0; i < sink->n; i++) {
			void *pp[3] = {&X, P, r.node};
			DL_TRY(pl_walk_cols(sink->conj[i], add_extra, pp));
		}
	DL_TRY(lateral_init(&c, P, items, n));
	for (int i = 0; i < n; i++) {
		c.nlateral = i;
		if (items[i].expr) DL_TRY(lateral_rewrite(&c, items, i));
		else if (!(items[i].post = pl_col(P, items[i].iname))) return DL_ENOMEM;
		column_spelling(&items[i], &r.sc);
		if (!(items[i].out = pl_new_name(P, items[i].name))) return DL_ENOMEM;
	}
	pn_sort_key *keys = NULL;
	int nkeys = 0, nh = 0;
	ex_node **hidden = NULL;
	const char **hnames = NULL;
	c.nlateral = n;
	if (q->norder) {
		rw_ctx oc = c;
		oc.clause = "ORDER BY";
		DL_TRY(plan_order(&keys, &nkeys, &hidden, &hnames, &nh, P, q, items, n, &oc, s->distinct));
	}
	return select_finish(out, P, q, &r, items, n, &W, keys, nkeys, hidden, hnames, nh, s->distinct, X.names, X.n);
}
