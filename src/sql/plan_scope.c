/* Name resolution: scopes, and rewriting parsed expressions to internal
 * column names.
 *
 * A reference a.b.c is read the way Spark reads it: the longest prefix
 * that names a qualifier (a table, its alias, or schema.table) followed by
 * a column wins, else the first part is a column and the rest are struct
 * fields. Names compare case-insensitively. Two columns answering the
 * same reading are AMBIGUOUS_REFERENCE; none at all is
 * UNRESOLVED_COLUMN.WITH_SUGGESTION with the closest names in scope, in
 * Spark's words. A name the query's own scope lacks may belong to an
 * enclosing query (a correlated reference); the subquery planner decides
 * what it can do with those. */
#include "sql/plan_internal.h"
#include <strings.h>
#include <string.h>

int sc_add(planner *P, scope *s, const char *const *qual, int nqual, const char *name, const char *iname)
{
	sc_col c = {qual, nqual, name, iname, false, false};
	return pl_push(P, &s->cols, &s->n, &s->cap, sizeof c, &c);
}

int sc_append(planner *P, scope *dst, const scope *src)
{
	for (int i = 0; i < src->n; i++) DL_TRY(pl_push(P, &dst->cols, &dst->n, &dst->cap, sizeof src->cols[i], &src->cols[i]));
	return 0;
}

static bool qual_matches(const sc_col *c, const char *const *path, int k)
{
	if (k > c->nqual) return false;
	for (int i = 0; i < k; i++)
		if (strcasecmp(c->qual[c->nqual - k + i], path[i]) != 0) return false;
	return true;
}

static int put_ident(dl_buf *b, const char *s)
{
	DL_TRY(dl_buf_putc(b, '`'));
	for (const char *p = s; *p; p++) {
		if (*p == '`') DL_TRY(dl_buf_putc(b, '`'));
		DL_TRY(dl_buf_putc(b, *p));
	}
	return dl_buf_putc(b, '`');
}

static int put_col_id(dl_buf *b, const sc_col *c)
{
	for (int i = 0; i < c->nqual; i++) {
		DL_TRY(put_ident(b, c->qual[i]));
		DL_TRY(dl_buf_putc(b, '.'));
	}
	return put_ident(b, c->name);
}

static int put_path(dl_buf *b, const char *const *path, int n)
{
	for (int i = 0; i < n; i++) {
		if (i) DL_TRY(dl_buf_putc(b, '.'));
		DL_TRY(put_ident(b, path[i]));
	}
	return 0;
}

static int lev(const char *a, const char *b)
{
	size_t n = strlen(a), m = strlen(b);
	if (n > 200 || m > 200) return (int)(n > m ? n : m);
	int row[201];
	for (size_t j = 0; j <= m; j++) row[j] = (int)j;
	for (size_t i = 1; i <= n; i++) {
		int diag = row[0];
		row[0] = (int)i;
		for (size_t j = 1; j <= m; j++) {
			int up = row[j];
			int cost = (a[i - 1] | 32) == (b[j - 1] | 32) ? 0 : 1;
			int v = diag + cost;
			if (row[j] + 1 < v) v = row[j] + 1;
			if (row[j - 1] + 1 < v) v = row[j - 1] + 1;
			row[j] = v;
			diag = up;
		}
	}
	return row[m];
}

int pl_unresolved(const scope *sc, const char *const *path, int npath)
{
	dl_buf name = DL_BUF_INIT, sug = DL_BUF_INIT;
	put_path(&name, path, npath);
	/* the closest five names in scope, as Spark orders its suggestions */
	int order[5], dist[5], k = 0;
	const char *want = path[npath - 1];
	for (int i = 0; sc && i < sc->n; i++) {
		if (sc->cols[i].no_star && sc->cols[i].no_unqual && sc->cols[i].nqual == 0) continue;
		int d = lev(sc->cols[i].name, want);
		int pos = k;
		while (pos > 0 && dist[pos - 1] > d) pos--;
		if (pos >= 5) continue;
		for (int j = (k < 5 ? k : 4); j > pos; j--) {
			order[j] = order[j - 1];
			dist[j] = dist[j - 1];
		}
		order[pos] = i;
		dist[pos] = d;
		if (k < 5) k++;
	}
	for (int i = 0; i < k; i++) {
		if (i) dl_buf_puts(&sug, ", ");
		put_col_id(&sug, &sc->cols[order[i]]);
	}
	int rc;
	if (k)
		rc = dl_error_set_class(DL_EINVALID, "UNRESOLVED_COLUMN.WITH_SUGGESTION",
		                        "[UNRESOLVED_COLUMN.WITH_SUGGESTION] A column, variable, or function parameter with "
		                        "name %s cannot be resolved. Did you mean one of the following? [%s].",
		                        name.data ? name.data : "", sug.data);
	else
		rc = dl_error_set_class(DL_EINVALID, "UNRESOLVED_COLUMN.WITHOUT_SUGGESTION",
		                        "[UNRESOLVED_COLUMN.WITHOUT_SUGGESTION] A column, variable, or function parameter "
		                        "with name %s cannot be resolved.",
		                        name.data ? name.data : "");
	dl_buf_free(&name);
	dl_buf_free(&sug);
	return rc;
}

/* Finds path in one scope: *col and the parts k used as qualifier; 1 when
 * found, 0 when not, < 0 on ambiguity. */
static int find_in(const sc_col **col, int *k, const scope *sc, const char *const *path, int npath)
{
	for (int q = npath - 1 < 3 ? npath - 1 : 3; q >= 0; q--) {
		const sc_col *hit = NULL;
		int nhits = 0;
		for (int i = 0; i < sc->n; i++) {
			const sc_col *c = &sc->cols[i];
			if (q == 0 ? c->no_unqual : !qual_matches(c, path, q)) continue;
			if (strcasecmp(c->name, path[q]) != 0) continue;
			if (hit && strcmp(hit->iname, c->iname) == 0) continue; /* the same column twice */
			if (!hit) hit = c;
			nhits++;
		}
		if (nhits > 1) {
			dl_buf name = DL_BUF_INIT, cands = DL_BUF_INIT;
			put_path(&name, path, q + 1);
			int listed = 0;
			for (int i = 0; i < sc->n; i++) {
				const sc_col *c = &sc->cols[i];
				if ((q == 0 ? c->no_unqual : !qual_matches(c, path, q)) || strcasecmp(c->name, path[q]) != 0) continue;
				if (listed++) dl_buf_puts(&cands, ", ");
				put_col_id(&cands, c);
			}
			int rc = dl_error_set_class(DL_EINVALID, "AMBIGUOUS_REFERENCE",
			                            "[AMBIGUOUS_REFERENCE] Reference %s is ambiguous, could be: [%s].",
			                            name.data ? name.data : "", cands.data ? cands.data : "");
			dl_buf_free(&name);
			dl_buf_free(&cands);
			return rc;
		}
		if (hit) {
			*col = hit;
			*k = q;
			return 1;
		}
	}
	return 0;
}

int pl_resolve_col(ex_node **out, rw_ctx *c, const ex_node *n)
{
	const char *const *path = (const char *const *)n->path;
	const sc_col *col = NULL;
	int k = 0, rc = 0;
	bool outer = false;
	for (const scope *s = c->sc; s; s = s->outer) {
		if ((rc = find_in(&col, &k, s, path, n->npath)) < 0) return rc;
		if (rc == 1) break;
		outer = true;
	}
	if (rc == 0) return pl_unresolved(c->sc, path, n->npath);
	if (outer) {
		c->correlated = true;
		c->P->outer_refs++;
	}
	ex_node *r = pl_copy(c->P, n);
	if (!r) return DL_ENOMEM;
	r->npath = n->npath - k;
	r->path = dl_arena_calloc(&c->P->ex->arena, (size_t)r->npath, sizeof *r->path);
	if (!r->path) return DL_ENOMEM;
	r->path[0] = (char *)col->iname;
	for (int i = 1; i < r->npath; i++) r->path[i] = n->path[k + i];
	*out = r;
	return 0;
}

static bool has_subquery(const ex_node *n)
{
	if (n->kind == EX_SUBQUERY) return true;
	for (int i = 0; i < n->nargs; i++)
		if (has_subquery(n->args[i])) return true;
	return false;
}

static bool has_grouping(const ex_node *n)
{
	if (pl_is_grouping_call(n)) return true;
	for (int i = 0; i < n->nargs; i++)
		if (has_grouping(n->args[i])) return true;
	return false;
}

/* Post-aggregation: n as a grouping key's column, if it is one. */
static int match_key(ex_node **out, rw_ctx *c, const ex_node *n)
{
	*out = NULL;
	if (!c->agg->nkeys || pl_has_agg(n) || pl_has_window(n) || has_subquery(n) || has_grouping(n)) return 0;
	rw_ctx plain = *c;
	plain.agg = NULL;
	plain.win = NULL;
	ex_node *r;
	DL_TRY(pl_rewrite(&r, &plain, n));
	dl_buf t = DL_BUF_INIT;
	int rc = pl_print(&t, r);
	for (int i = 0; rc == 0 && i < c->agg->nkeys; i++)
		if (t.data && strcmp(t.data, c->agg->key_text[i]) == 0) {
			*out = pl_col(c->P, c->agg->key_iname[i]);
			if (!*out) rc = DL_ENOMEM;
			break;
		}
	dl_buf_free(&t);
	return rc;
}

static int missing_agg(rw_ctx *c, const ex_node *n)
{
	dl_buf t = DL_BUF_INIT;
	pl_auto_name(&t, n);
	int rc;
	if (c->agg->grouped)
		rc = dl_error_set_class(DL_EINVALID, "MISSING_AGGREGATION",
		                        "[MISSING_AGGREGATION] The non-aggregating expression \"%s\" is based on columns which "
		                        "are not participating in the GROUP BY clause. Add the columns or the expression to "
		                        "the GROUP BY, aggregate the expression, or use \"any_value(%s)\" if you do not care "
		                        "which of the values within a group is returned.",
		                        t.data ? t.data : "", t.data ? t.data : "");
	else
		rc = dl_error_set_class(DL_EINVALID, "MISSING_GROUP_BY",
		                        "[MISSING_GROUP_BY] The query does not include a GROUP BY clause. Add GROUP BY or "
		                        "turn it into the window functions using OVER clauses. (column \"%s\")",
		                        t.data ? t.data : "");
	dl_buf_free(&t);
	return rc;
}

/* An aggregate or window function where Spark allows none. */
static int misplaced(rw_ctx *c, const ex_node *n, bool window)
{
	dl_buf t = DL_BUF_INIT;
	pl_auto_name(&t, n);
	const char *x = t.data ? t.data : n->name;
	const char *clause = c->clause ? c->clause : "this clause";
	int rc;
	if (!strcmp(clause, "WHERE"))
		rc = dl_error_set_class(DL_EINVALID, "INVALID_WHERE_CONDITION",
		                        "[INVALID_WHERE_CONDITION] The WHERE condition contains invalid expressions: %s. "
		                        "Rewrite the query to avoid window functions, aggregate functions, and generator "
		                        "functions in the WHERE clause.",
		                        x);
	else if (!strcmp(clause, "GROUP BY") && !window)
		rc = dl_error_set_class(DL_EINVALID, "GROUP_BY_AGGREGATE",
		                        "[GROUP_BY_AGGREGATE] Aggregate functions are not allowed in GROUP BY, but found %s.", x);
	else
		rc = dl_error_set_class(DL_EINVALID, "UNSUPPORTED_EXPR_FOR_OPERATOR",
		                        "[UNSUPPORTED_EXPR_FOR_OPERATOR] A query operator contains one or more unsupported "
		                        "expressions: %s %s is not allowed in %s (position %d).",
		                        window ? "the window function" : "the aggregate function", x, clause, n->pos);
	dl_buf_free(&t);
	return rc;
}

int pl_rewrite(ex_node **out, rw_ctx *c, const ex_node *n)
{
	/* the depth counts the queries around the expression and its levels
	 * down to n: a tree the parser took (at most EX_MAX_HEIGHT levels) in
	 * queries nested as deep as the parser allows */
	if (c->P->depth > EX_MAX_DEPTH + EX_MAX_HEIGHT) return dl_error_set(DL_EINVALID, "expression nested too deeply");
	if (n->kind == EX_COL && n->npath == 1 && c->nlateral) {
		/* a name no input column answers may be an earlier item's alias */
		const sc_col *col;
		int k, rc = find_in(&col, &k, c->sc, (const char *const *)n->path, 1);
		if (rc < 0) return rc;
		for (int i = c->nlateral - 1; rc == 0 && i >= 0; i--)
			if (c->lateral_names[i] && !strcasecmp(c->lateral_names[i], n->path[0])) {
				*out = c->lateral_posts[i];
				return 0;
			}
	}
	if (c->agg && n->kind != EX_SUBQUERY && !(n->kind == EX_CALL && (n->over || pl_is_agg_call(n)))) {
		DL_TRY(match_key(out, c, n));
		if (*out) return 0;
		if (n->kind == EX_COL) {
			rw_ctx plain = *c;
			plain.agg = NULL;
			plain.correlated = false;
			ex_node *r;
			DL_TRY(pl_resolve_col(&r, &plain, n));
			if (!plain.correlated) return missing_agg(c, n);
			c->correlated = true;
			*out = r;
			return 0;
		}
	}
	switch (n->kind) {
	case EX_COL: return pl_resolve_col(out, c, n);
	case EX_SUBQUERY: return pl_subquery_expr(out, c, n);
	case EX_CALL:
		if (n->over) {
			if (!c->win) return misplaced(c, n, true);
			return pl_window_call(out, c, n);
		}
		if (pl_is_agg_call(n)) {
			if (c->no_agg || !c->agg) return misplaced(c, n, false);
			return pl_agg_call(out, c, n);
		}
		if (pl_is_grouping_call(n)) return pl_grouping_call(out, c, n);
		break;
	default: break;
	}
	ex_node *r = pl_copy(c->P, n);
	if (!r) return DL_ENOMEM;
	c->P->depth++;
	for (int i = 0; i < n->nargs; i++) {
		int rc = pl_rewrite(&r->args[i], c, n->args[i]);
		if (rc < 0) {
			c->P->depth--;
			return rc;
		}
	}
	c->P->depth--;
	*out = r;
	return 0;
}
