/* Allocation and ownership of expression trees. */
#include "expr/ast.h"
#include "util/mem.h"
#include <string.h>

dl_expr *ex_expr_new(void)
{
	dl_expr *e = dl_calloc(1, sizeof *e);
	return e;
}

ex_node *ex_node_new(dl_expr *e, ex_kind kind, int pos)
{
	ex_node *n = dl_arena_calloc(&e->arena, 1, sizeof *n);
	if (!n) return NULL;
	n->kind = kind;
	n->pos = pos;
	n->escape = -1;
	return n;
}

int ex_node_set_args(dl_expr *e, ex_node *n, int nargs)
{
	n->nargs = nargs;
	if (nargs == 0) {
		n->args = NULL;
		return 0;
	}
	n->args = dl_arena_calloc(&e->arena, (size_t)nargs, sizeof *n->args);
	return n->args ? 0 : DL_ENOMEM;
}

dl_type *ex_keep_type(dl_expr *e, dl_type *t)
{
	if (!t) return NULL;
	if (e->ntypes == e->captypes) {
		size_t cap = e->captypes ? e->captypes * 2 : 16;
		dl_type **nt = dl_reallocarray(e->types, cap, sizeof *nt);
		if (!nt) {
			dl_type_unref(t);
			return NULL;
		}
		e->types = nt;
		e->captypes = cap;
	}
	e->types[e->ntypes++] = t;
	return t;
}

int ex_keep_aux(dl_expr *e, void *aux, void (*free_fn)(void *))
{
	if (e->naux == e->capaux) {
		size_t cap = e->capaux ? e->capaux * 2 : 8;
		void **na = dl_reallocarray(e->auxs, cap, sizeof *na);
		if (!na) {
			free_fn(aux);
			return DL_ENOMEM;
		}
		e->auxs = na;
		void (**nf)(void *) = dl_reallocarray(e->aux_free, cap, sizeof *nf);
		if (!nf) {
			free_fn(aux);
			return DL_ENOMEM;
		}
		e->aux_free = nf;
		e->capaux = cap;
	}
	e->auxs[e->naux] = aux;
	e->aux_free[e->naux++] = free_fn;
	return 0;
}

static void release_bound(dl_expr *e)
{
	for (size_t i = 0; i < e->naux; i++) e->aux_free[i](e->auxs[i]);
	e->naux = 0;
}

void dl_expr_free(dl_expr *e)
{
	if (!e) return;
	release_bound(e);
	for (size_t i = 0; i < e->ntypes; i++) dl_type_unref(e->types[i]);
	dl_free(e->types);
	dl_free(e->auxs);
	dl_free(e->aux_free);
	dl_free(e->params);
	if (e->schema) dl_type_unref(e->schema);
	dl_buf_free(&e->scratch);
	dl_arena_free(&e->arena);
	dl_free(e);
}

/* Deep copy of an unbound tree into another expression's arena. */
ex_node *ex_copy_tree(dl_expr *dst, const ex_node *n)
{
	ex_node *c = ex_node_new(dst, n->kind, n->pos);
	if (!c) return NULL;
	*c = *n;
	c->type = NULL;
	c->colidx = NULL;
	c->fn = NULL;
	c->aux = NULL;
	if (n->to && !ex_keep_type(dst, dl_type_ref(n->to))) return NULL;
	if (n->lit.type == DL_TYPE_STRING || n->lit.type == DL_TYPE_BINARY) {
		if (!n->lit.is_null) {
			char *s = dl_arena_strndup(&dst->arena, n->lit.v.str.ptr, n->lit.v.str.len);
			if (!s) return NULL;
			c->lit.v.str.ptr = s;
		}
	}
	if (n->npath) {
		c->path = dl_arena_calloc(&dst->arena, (size_t)n->npath, sizeof *c->path);
		if (!c->path) return NULL;
		for (int i = 0; i < n->npath; i++)
			if (!(c->path[i] = dl_arena_strdup(&dst->arena, n->path[i]))) return NULL;
	}
	if (n->name && !(c->name = dl_arena_strdup(&dst->arena, n->name))) return NULL;
	if (n->kind == EX_SUBQUERY) {
		/* the query belongs to the SQL layer's tree, which cannot be
		 * copied from here */
		dl_error_set(DL_EUNSUPPORTED, "a subquery at position %d cannot be copied out of its statement", n->pos);
		return NULL;
	}
	if (n->over) {
		const ex_window *w = n->over;
		ex_window *cw = dl_arena_calloc(&dst->arena, 1, sizeof *cw);
		if (!cw) return NULL;
		*cw = *w;
		cw->partition = dl_arena_calloc(&dst->arena, (size_t)w->npartition + 1, sizeof *cw->partition);
		cw->order = dl_arena_calloc(&dst->arena, (size_t)w->norder + 1, sizeof *cw->order);
		if (!cw->partition || !cw->order) return NULL;
		for (int i = 0; i < w->npartition; i++)
			if (!(cw->partition[i] = ex_copy_tree(dst, w->partition[i]))) return NULL;
		for (int i = 0; i < w->norder; i++) {
			cw->order[i] = w->order[i];
			if (!(cw->order[i].expr = ex_copy_tree(dst, w->order[i].expr))) return NULL;
		}
		if (w->lo.offset && !(cw->lo.offset = ex_copy_tree(dst, w->lo.offset))) return NULL;
		if (w->hi.offset && !(cw->hi.offset = ex_copy_tree(dst, w->hi.offset))) return NULL;
		c->over = cw;
	}
	if (ex_node_set_args(dst, c, n->nargs) < 0) return NULL;
	for (int i = 0; i < n->nargs; i++)
		if (!(c->args[i] = ex_copy_tree(dst, n->args[i]))) return NULL;
	return c;
}
