/* FROM: relations, subqueries, CTE references and joins.
 *
 * A join's ON condition is split into equality conjuncts between the two
 * sides (= and <=>, cast to a common type when the sides differ), which
 * become hash keys, and the rest, the residual. USING and NATURAL follow
 * Spark's output rule: the join columns once, first (the left side's for
 * INNER and LEFT, the right's for RIGHT, coalesce(left, right) for FULL),
 * then the other columns of the left, then of the right; each side's own
 * copy stays reachable qualified. The exec join holds its right input in
 * memory, so when both sides' sizes are known the smaller one is put
 * there (an inner join swaps freely, LEFT becomes RIGHT and back). */
#include "sql/plan_internal.h"
#include <strings.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void pl_set_unpushable(pn *n)
{
	if (!n) return;
	if (n->kind == PN_SCAN) n->pushable = false;
	pl_set_unpushable(n->in[0]);
	pl_set_unpushable(n->in[1]);
}

static int derived_scope(prel *out, planner *P, const pq *q, const char *alias, char *const *cols, int ncols,
                         int pos)
{
	if (ncols && ncols != q->n)
		return dl_error_set_class(DL_EINVALID, "ASSIGNMENT_ARITY_MISMATCH",
		                          "[ASSIGNMENT_ARITY_MISMATCH] the column list at position %d names %d columns but "
		                          "the query has %d",
		                          pos, ncols, q->n);
	const char **qual = NULL;
	if (alias) {
		qual = pl_alloc(P, sizeof *qual);
		if (!qual) return DL_ENOMEM;
		qual[0] = alias;
	}
	out->node = q->node;
	for (int i = 0; i < q->n; i++)
		DL_TRY(sc_add(P, &out->sc, qual, alias ? 1 : 0, ncols ? cols[i] : q->names[i], q->inames[i]));
	return 0;
}

static int plan_cte_ref(prel *out, bool *found, planner *P, const sql_table_ref *ref, const scope *outer)
{
	*found = false;
	if (ref->name.nparts != 1) return 0;
	for (cte_def *d = P->ctes; d; d = d->prev) {
		if (strcasecmp(d->cte->name, ref->name.parts[0]) != 0) continue;
		*found = true;
		cte_def *saved = P->ctes;
		P->ctes = d->prev; /* a CTE sees the ones before it */
		pq q;
		int rc = pl_query(&q, P, d->cte->query, outer);
		P->ctes = saved;
		DL_TRY(rc);
		const char *alias = ref->alias ? ref->alias : d->cte->name;
		if (ref->nalias_cols) return derived_scope(out, P, &q, alias, ref->alias_cols, ref->nalias_cols, ref->pos);
		return derived_scope(out, P, &q, alias, d->cte->cols, d->cte->ncols, ref->pos);
	}
	return 0;
}

static int plan_relation(prel *out, planner *P, const sql_table_ref *ref)
{
	sql_relation *rel = NULL;
	DL_TRY(P->env->resolve(&rel, P->env->payload, ref, &P->env->ctx));
	if (pl_push(P, &P->rels, &P->nrels, &P->caprels, sizeof rel, &rel) < 0) {
		rel->release(rel);
		return DL_ENOMEM;
	}
	pn *n = pn_new(P, PN_SCAN, NULL, NULL);
	if (!n) return DL_ENOMEM;
	n->rel = rel;
	n->est = rel->est_rows;
	n->pushable = true;
	DL_TRY(pn_finish(P, n));
	const char *const *qual = NULL;
	int nqual = 0;
	if (ref->alias) {
		const char **a = pl_alloc(P, sizeof *a);
		if (!a) return DL_ENOMEM;
		a[0] = ref->alias;
		qual = a;
		nqual = 1;
	} else if (ref->kind == TREF_NAME) {
		qual = (const char *const *)ref->name.parts;
		nqual = ref->name.nparts;
	}
	if (ref->nalias_cols && ref->nalias_cols != n->n)
		return dl_error_set_class(DL_EINVALID, "ASSIGNMENT_ARITY_MISMATCH",
		                          "[ASSIGNMENT_ARITY_MISMATCH] the column aliases of %s name %d columns but it has %d",
		                          rel->display ? rel->display : "the relation", ref->nalias_cols, n->n);
	out->node = n;
	for (int i = 0; i < n->n; i++) {
		const char *name = ref->nalias_cols ? ref->alias_cols[i] : n->rel_cols[i];
		DL_TRY(sc_add(P, &out->sc, qual, nqual, name, n->names[i]));
		/* EXPLAIN shows t.a */
		if (nqual) {
			size_t len = strlen(qual[nqual - 1]) + strlen(name) + 2;
			char *d = pl_alloc(P, len);
			if (!d) return DL_ENOMEM;
			snprintf(d, len, "%s.%s", qual[nqual - 1], name);
			P->display[atoi(n->names[i] + 1)] = d;
		}
	}
	return 0;
}

/* ---- joins -------------------------------------------------------------- */

typedef struct keys {
	ex_node **l, **r;
	bool *ns;
	int n, capl, capr, capns;
	ex_node **res;
	int nres, capres;
} keys;

static bool has_cols(const ex_node *n)
{
	if (n->kind == EX_COL) return true;
	for (int i = 0; i < n->nargs; i++)
		if (has_cols(n->args[i])) return true;
	return false;
}

static int add_key(planner *P, keys *k, ex_node *l, ex_node *r, bool ns, const pn *left, const pn *right)
{
	dl_type *lt, *rt, *t = NULL;
	DL_TRY(pl_type_of(&lt, P, l, left->schema));
	int rc = pl_type_of(&rt, P, r, right->schema);
	if (rc == 0 && !dl_type_equals(lt, rt)) {
		rc = pl_common_type(&t, P, lt, rt, "join keys");
		if (rc == 0) {
			if (!dl_type_equals(lt, t)) l = pl_cast(P, l, t);
			if (!dl_type_equals(rt, t)) r = pl_cast(P, r, t);
			if (!l || !r) rc = DL_ENOMEM;
		}
	}
	dl_type_unref(lt);
	dl_type_unref(rt);
	dl_type_unref(t);
	DL_TRY(rc);
	DL_TRY(pl_push(P, &k->l, &k->n, &k->capl, sizeof l, &l));
	k->n--;
	DL_TRY(pl_push(P, &k->r, &k->n, &k->capr, sizeof r, &r));
	k->n--;
	return pl_push(P, &k->ns, &k->n, &k->capns, sizeof ns, &ns);
}

/* Splits a rewritten condition into keys and residual. */
static int split_on(planner *P, keys *k, ex_node *on, const pn *left, const pn *right)
{
	ex_node **conj = NULL;
	int n = 0, cap = 0;
	DL_TRY(pl_conjuncts(P, on, &conj, &n, &cap));
	for (int i = 0; i < n; i++) {
		ex_node *c = conj[i];
		if (c->kind == EX_OP && (c->op == OP_EQ || c->op == OP_NSEQ) && has_cols(c->args[0]) && has_cols(c->args[1])) {
			ex_node *a = c->args[0], *b = c->args[1];
			if (pl_refs_only(a, left->schema) && pl_refs_only(b, right->schema)) {
				DL_TRY(add_key(P, k, a, b, c->op == OP_NSEQ, left, right));
				continue;
			}
			if (pl_refs_only(b, left->schema) && pl_refs_only(a, right->schema)) {
				DL_TRY(add_key(P, k, b, a, c->op == OP_NSEQ, left, right));
				continue;
			}
		}
		DL_TRY(pl_push(P, &k->res, &k->nres, &k->capres, sizeof c, &c));
	}
	return 0;
}

static dl_join_kind exec_kind(sql_join_kind k)
{
	switch (k) {
	case JOIN_LEFT: return DL_JOIN_LEFT;
	case JOIN_RIGHT: return DL_JOIN_RIGHT;
	case JOIN_FULL: return DL_JOIN_FULL;
	case JOIN_LEFT_SEMI: return DL_JOIN_SEMI;
	case JOIN_LEFT_ANTI: return DL_JOIN_ANTI;
	case JOIN_CROSS:
	case JOIN_COMMA:
	case JOIN_INNER: break;
	}
	return DL_JOIN_INNER;
}

/* The join node over left and right with keys k; swaps the sides so the
 * smaller one is built. */
static int join_node(pn **out, planner *P, dl_join_kind kind, pn *left, pn *right, keys *k)
{
	pn *j = pn_new(P, PN_JOIN, left, right);
	if (!j) return DL_ENOMEM;
	if (kind == DL_JOIN_INNER && k->n == 0) kind = DL_JOIN_CROSS;
	j->join = kind;
	j->lk = k->l;
	j->rk = k->r;
	j->null_safe = k->ns;
	j->njk = k->n;
	j->residual = pl_and_all(P, k->res, k->nres);
	bool swappable = kind == DL_JOIN_INNER || kind == DL_JOIN_CROSS || kind == DL_JOIN_LEFT || kind == DL_JOIN_RIGHT ||
	                 kind == DL_JOIN_FULL;
	if (swappable && left->est >= 0 && right->est >= 0 && left->est < right->est) {
		j->in[0] = right;
		j->in[1] = left;
		j->lk = k->r;
		j->rk = k->l;
		j->join = kind == DL_JOIN_LEFT ? DL_JOIN_RIGHT : kind == DL_JOIN_RIGHT ? DL_JOIN_LEFT : kind;
	}
	j->est = left->est >= 0 && right->est >= 0 ? (left->est > right->est ? left->est : right->est) : -1;
	if (kind == DL_JOIN_SEMI || kind == DL_JOIN_ANTI) j->est = left->est;
	DL_TRY(pn_finish(P, j));
	*out = j;
	return 0;
}

int pl_join(pn **out, planner *P, dl_join_kind kind, pn *left, pn *right, ex_node *on)
{
	keys k = {0};
	if (on) DL_TRY(split_on(P, &k, on, left, right));
	return join_node(out, P, kind, left, right, &k);
}

/* FROM a, b WHERE a.x = b.y: equalities of WHERE between the two sides of
 * an inner or cross join (reached through inner and cross joins only)
 * become its hash keys; the filter above still checks them. */
static int keys_into(planner *P, pn *j, ex_node *c)
{
	if (j->kind != PN_JOIN) return 0;
	/* a semi/anti join (a WHERE subquery) passes its left rows unchanged */
	if (j->join == DL_JOIN_SEMI || j->join == DL_JOIN_ANTI) return keys_into(P, j->in[0], c);
	if (j->join != DL_JOIN_INNER && j->join != DL_JOIN_CROSS) return 0;
	for (int k = 0; k < 2; k++)
		if (pl_refs_only(c, j->in[k]->schema)) return keys_into(P, j->in[k], c);
	if (c->kind != EX_OP || (c->op != OP_EQ && c->op != OP_NSEQ) || !has_cols(c->args[0]) || !has_cols(c->args[1]))
		return 0;
	int l = pl_refs_only(c->args[0], j->in[0]->schema) && pl_refs_only(c->args[1], j->in[1]->schema) ? 0
	        : pl_refs_only(c->args[1], j->in[0]->schema) && pl_refs_only(c->args[0], j->in[1]->schema) ? 1 : -1;
	if (l < 0) return 0;
	keys k = {j->lk, j->rk, j->null_safe, j->njk, j->njk, j->njk, j->njk, NULL, 0, 0};
	DL_TRY(add_key(P, &k, c->args[l], c->args[1 - l], c->op == OP_NSEQ, j->in[0], j->in[1]));
	j->lk = k.l;
	j->rk = k.r;
	j->null_safe = k.ns;
	j->njk = k.n;
	j->join = DL_JOIN_INNER;
	return pn_finish(P, j);
}

int pl_where_keys(planner *P, pn *from, ex_node *const *conj, int n)
{
	for (int i = 0; i < n; i++) DL_TRY(keys_into(P, from, conj[i]));
	return 0;
}

static int find_unqual(const sc_col **out, const scope *sc, const char *name)
{
	*out = NULL;
	for (int i = 0; i < sc->n; i++) {
		if (sc->cols[i].no_unqual || strcasecmp(sc->cols[i].name, name) != 0) continue;
		if (*out && strcmp((*out)->iname, sc->cols[i].iname) != 0)
			return dl_error_set_class(DL_EINVALID, "AMBIGUOUS_REFERENCE",
			                          "[AMBIGUOUS_REFERENCE] Reference `%s` is ambiguous in the USING join", name);
		if (!*out) *out = &sc->cols[i];
	}
	return 0;
}

static int using_join(prel *out, planner *P, const sql_table_ref *ref, prel *l, prel *r, dl_join_kind kind)
{
	const char **names = NULL;
	int nn = 0, cap = 0;
	if (ref->natural) {
		for (int i = 0; i < l->sc.n; i++) {
			const sc_col *lc = &l->sc.cols[i], *rc;
			if (lc->no_star) continue;
			DL_TRY(find_unqual(&rc, &r->sc, lc->name));
			if (rc) DL_TRY(pl_push(P, &names, &nn, &cap, sizeof *names, &lc->name));
		}
	} else {
		for (int i = 0; i < ref->nusing; i++) DL_TRY(pl_push(P, &names, &nn, &cap, sizeof *names, &ref->using_cols[i]));
	}
	keys k = {0};
	const sc_col **lcs = pl_alloc(P, sizeof *lcs * ((size_t)nn + 1)), **rcs = pl_alloc(P, sizeof *rcs * ((size_t)nn + 1));
	if (!lcs || !rcs) return DL_ENOMEM;
	for (int i = 0; i < nn; i++) {
		DL_TRY(find_unqual(&lcs[i], &l->sc, names[i]));
		DL_TRY(find_unqual(&rcs[i], &r->sc, names[i]));
		if (!lcs[i] || !rcs[i]) {
			const char *p[1] = {names[i]};
			return dl_error_set_class(DL_EINVALID, "UNRESOLVED_USING_COLUMN_FOR_JOIN",
			                          "[UNRESOLVED_USING_COLUMN_FOR_JOIN] USING column `%s` cannot be resolved on the "
			                          "%s side of the join.",
			                          p[0], lcs[i] ? "right" : "left");
		}
		ex_node *a = pl_col(P, lcs[i]->iname), *b = pl_col(P, rcs[i]->iname);
		if (!a || !b) return DL_ENOMEM;
		DL_TRY(add_key(P, &k, a, b, false, l->node, r->node));
	}
	if (kind == DL_JOIN_RIGHT || kind == DL_JOIN_FULL) pl_set_unpushable(l->node);
	if (kind == DL_JOIN_LEFT || kind == DL_JOIN_FULL) pl_set_unpushable(r->node);
	pn *j;
	ex_node **keys_l = k.l, **keys_r = k.r;
	DL_TRY(join_node(&j, P, kind, l->node, r->node, &k));
	/* the merged columns: one side's, or coalesce for FULL and cast keys */
	ex_node **extra = pl_alloc(P, sizeof *extra * ((size_t)nn + 1));
	const char **enames = pl_alloc(P, sizeof *enames * ((size_t)nn + 1)), **merged = pl_alloc(P, sizeof *merged * ((size_t)nn + 1));
	if (!extra || !enames || !merged) return DL_ENOMEM;
	int ne = 0;
	for (int i = 0; i < nn; i++) {
		ex_node *lk = keys_l[i], *rk = keys_r[i];
		bool plain = lk->kind == EX_COL && rk->kind == EX_COL;
		if (kind == DL_JOIN_FULL || !plain) {
			ex_node *v = kind == DL_JOIN_FULL ? pl_call(P, "coalesce", lk, rk) : kind == DL_JOIN_RIGHT ? rk : lk;
			if (!v || !(enames[ne] = pl_new_name(P, names[i]))) return DL_ENOMEM;
			extra[ne] = v;
			merged[i] = enames[ne++];
		} else {
			merged[i] = kind == DL_JOIN_RIGHT ? rcs[i]->iname : lcs[i]->iname;
		}
	}
	if (ne) DL_TRY(pn_project_over(&j, P, j, extra, enames, ne, true));
	out->node = j;
	for (int i = 0; i < nn; i++) DL_TRY(sc_add(P, &out->sc, NULL, 0, (kind == DL_JOIN_RIGHT ? rcs : lcs)[i]->name, merged[i]));
	for (int side = 0; side < (kind == DL_JOIN_SEMI || kind == DL_JOIN_ANTI ? 1 : 2); side++) {
		const scope *s = side ? &r->sc : &l->sc;
		const sc_col **used = side ? rcs : lcs;
		for (int i = 0; i < s->n; i++) {
			sc_col c = s->cols[i];
			for (int u = 0; u < nn; u++)
				if (used[u] == &s->cols[i]) c.no_star = c.no_unqual = true;
			DL_TRY(pl_push(P, &out->sc.cols, &out->sc.n, &out->sc.cap, sizeof c, &c));
		}
	}
	return 0;
}

static int plan_join(prel *out, planner *P, const sql_table_ref *ref, const scope *outer)
{
	prel l = {0}, r = {0};
	DL_TRY(pl_from(&l, P, ref->left, outer));
	DL_TRY(pl_from(&r, P, ref->right, outer));
	dl_join_kind kind = exec_kind(ref->join);
	if (ref->natural || ref->nusing) return using_join(out, P, ref, &l, &r, kind);
	scope both = {0};
	DL_TRY(sc_append(P, &both, &l.sc));
	DL_TRY(sc_append(P, &both, &r.sc));
	keys k = {0};
	if (ref->on) {
		rw_ctx c = {.P = P, .sc = &both, .no_agg = true, .clause = "a join condition"};
		ex_node *on;
		DL_TRY(pl_rewrite(&on, &c, ref->on));
		DL_TRY(split_on(P, &k, on, l.node, r.node));
		for (int i = 0; i < k.nres; i++) DL_TRY(pl_push_on(P, l.node, r.node, kind, k.res[i]));
	}
	if (kind == DL_JOIN_RIGHT || kind == DL_JOIN_FULL) pl_set_unpushable(l.node);
	if (kind == DL_JOIN_LEFT || kind == DL_JOIN_FULL) pl_set_unpushable(r.node);
	DL_TRY(join_node(&out->node, P, kind, l.node, r.node, &k));
	if (kind == DL_JOIN_SEMI || kind == DL_JOIN_ANTI) return sc_append(P, &out->sc, &l.sc);
	return sc_append(P, &out->sc, &both);
}

int pl_from(prel *out, planner *P, const sql_table_ref *ref, const scope *outer)
{
	memset(out, 0, sizeof *out);
	switch (ref->kind) {
	case TREF_NAME: {
		bool found;
		DL_TRY(plan_cte_ref(out, &found, P, ref, outer));
		if (found) return 0;
		return plan_relation(out, P, ref);
	}
	case TREF_PATH:
	case TREF_FUNCTION: return plan_relation(out, P, ref);
	case TREF_QUERY: {
		pq q;
		DL_TRY(pl_query(&q, P, ref->query, outer));
		return derived_scope(out, P, &q, ref->alias, ref->alias_cols, ref->nalias_cols, ref->pos);
	}
	case TREF_JOIN: return plan_join(out, P, ref, outer);
	}
	return dl_error_set(DL_ERROR, "unknown table reference kind %d", (int)ref->kind);
}
