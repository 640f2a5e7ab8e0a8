/* Filter pushdown into relations: a conjunct over one relation's columns
 * is handed to it as `filter` (a Delta scan prunes files and row groups
 * with it); the plan still applies the conjunct where it was written, so
 * pushing only ever drops rows the plan drops anyway.
 *
 * The rule that keeps that true: a conjunct may pass a node only if the
 * node neither invents rows the conjunct would see differently nor
 * depends on rows the conjunct removes: filters and renaming projections
 * (the conjunct is translated through them), and the sides of joins that
 * are not preserved (inner sides; a LEFT join's right side for its own ON
 * condition). Scans below the null-supplying side of an outer join take
 * no WHERE conjunct (`pushable`): an `IS NULL` there would turn dropped
 * matches into NULL-extended rows. Aggregates, limits, windows, DISTINCT
 * and set operations stop it. Non-deterministic conjuncts are never
 * pushed (rand() must be drawn once). */
#include "sql/plan_internal.h"
#include <string.h>

/* conj over p's outputs -> over p's input, or NULL when a column it uses
 * is computed. */
static ex_node *through_project(planner *P, const pn *p, const ex_node *e, bool *ok)
{
	ex_node *c = pl_copy(P, e);
	if (!c) {
		*ok = false;
		return NULL;
	}
	if (e->kind == EX_COL) {
		int k = -1;
		for (int i = 0; i < p->n && k < 0; i++)
			if (!strcmp(p->names[i], e->path[0])) k = i;
		if (k < 0 || p->exprs[k]->kind != EX_COL || p->exprs[k]->npath != 1) {
			*ok = false;
			return NULL;
		}
		c->path = dl_arena_calloc(&P->ex->arena, (size_t)e->npath, sizeof *c->path);
		if (!c->path) {
			*ok = false;
			return NULL;
		}
		memcpy(c->path, e->path, sizeof *c->path * (size_t)e->npath);
		c->path[0] = p->exprs[k]->path[0];
	}
	for (int i = 0; i < e->nargs && *ok; i++) c->args[i] = through_project(P, p, e->args[i], ok);
	return *ok ? c : NULL;
}

static int push(planner *P, pn *x, ex_node *conj)
{
	if (!pl_refs_only(conj, x->schema)) return 0;
	switch (x->kind) {
	case PN_SCAN:
		if (!x->pushable) return 0;
		return pl_push(P, &x->pushed, &x->npushed, &x->cappushed, sizeof conj, &conj);
	case PN_FILTER: return push(P, x->in[0], conj);
	case PN_PROJECT: {
		bool ok = true;
		ex_node *t = through_project(P, x, conj, &ok);
		return ok ? push(P, x->in[0], t) : 0;
	}
	case PN_JOIN:
		/* above a join a conjunct sees each side's rows as they are; the
		 * null-supplying sides refuse it at their scans (pushable) */
		DL_TRY(push(P, x->in[0], conj));
		return x->join == DL_JOIN_SEMI || x->join == DL_JOIN_ANTI ? 0 : push(P, x->in[1], conj);
	default: return 0;
	}
}

/* Without running subqueries (EXPLAIN) their stand-ins are typed NULLs: a
 * relation would prune with those, so such conjuncts stay in the plan. */
static bool has_standin(const ex_node *n)
{
	if (n->aux) return true;
	for (int i = 0; i < n->nargs; i++)
		if (has_standin(n->args[i])) return true;
	return false;
}

int pl_push_filter(planner *P, pn *node, ex_node *conj)
{
	if (!pl_deterministic(conj) || (!P->execute && has_standin(conj))) return 0;
	return push(P, node, conj);
}

int pl_push_on(planner *P, pn *join_left, pn *join_right, dl_join_kind kind, ex_node *conj)
{
	if (!pl_deterministic(conj) || (!P->execute && has_standin(conj))) return 0;
	bool left = kind == DL_JOIN_INNER || kind == DL_JOIN_CROSS || kind == DL_JOIN_RIGHT || kind == DL_JOIN_SEMI;
	bool right = kind == DL_JOIN_INNER || kind == DL_JOIN_CROSS || kind == DL_JOIN_LEFT || kind == DL_JOIN_SEMI ||
	             kind == DL_JOIN_ANTI;
	if (left && pl_refs_only(conj, join_left->schema)) return push(P, join_left, conj);
	if (right && pl_refs_only(conj, join_right->schema)) return push(P, join_right, conj);
	return 0;
}
