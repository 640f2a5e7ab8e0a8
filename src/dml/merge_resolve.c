/* Names in MERGE's conditions and values (Spark's resolution of
 * DeltaMergeInto): `alias.col` names the target or the source by its alias,
 * an unqualified name the one side that has the column (both:
 * AMBIGUOUS_REFERENCE; neither: DELTA_MERGE_UNRESOLVED_EXPRESSION). Every
 * reference is rewritten onto the canonical join row (merge_internal.h), so
 * one binding serves the join, the clause conditions and the values. The ON
 * condition is split into equi-keys for the hash join (target side = source
 * side, `=` or `<=>`), a residual, and its target-only terms for pruning. */
#include "dml/merge_internal.h"
#include "dml/merge_nested.h"
#include "dml/struct_store.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include "expr/ast.h"
#include "util/buf.h"
#include "util/error.h"
#include "util/mem.h"

void dl_mg_tname(char *buf, size_t cap, int i) { snprintf(buf, cap, "__t%d", i); }
void dl_mg_sname(char *buf, size_t cap, int j) { snprintf(buf, cap, "__s%d", j); }

static int find_col(const dl_type *s, const char *name)
{
	for (int i = 0; s && i < s->nchildren; i++)
		if (strcasecmp(s->children[i].name, name) == 0) return i;
	return -1;
}

int dl_mg_build_canon(mg_exec *x)
{
	int n = x->nt + 2 + x->ns + 1;
	dl_field *f = dl_calloc((size_t)n, sizeof *f);
	dl_type *lt = dl_type_new(DL_TYPE_LONG);
	if (!f || !lt) {
		dl_free(f);
		dl_type_unref(lt);
		return DL_ENOMEM;
	}
	int k = 0;
	char nm[32];
	for (int i = 0; i < x->nt; i++, k++) {
		dl_mg_tname(nm, sizeof nm, i);
		f[k].name = dl_arena_strdup(&x->arena, nm);
		f[k].type = x->tschema->children[i].type;
		f[k].nullable = true;
		f[k].metadata = (char *)"{}";
	}
	f[k].name = (char *)"__file", f[k].type = lt, f[k].nullable = true, f[k++].metadata = (char *)"{}";
	f[k].name = (char *)"__pos", f[k].type = lt, f[k].nullable = true, f[k++].metadata = (char *)"{}";
	for (int j = 0; j < x->ns; j++, k++) {
		dl_mg_sname(nm, sizeof nm, j);
		f[k].name = dl_arena_strdup(&x->arena, nm);
		f[k].type = x->sschema->children[j].type;
		f[k].nullable = true;
		f[k].metadata = (char *)"{}";
	}
	f[k].name = (char *)"__srow", f[k].type = lt, f[k].nullable = true, f[k++].metadata = (char *)"{}";
	/* a failed arena copy of a name is out of memory, not a nameless column */
	bool named = true;
	for (int i = 0; i < n; i++) named = named && f[i].name;
	x->canon = named ? dl_type_struct(f, n) : NULL;
	dl_free(f);
	dl_type_unref(lt);
	return x->canon ? 0 : dl_error_last()->code;
}

/* ---- rewriting references ---- */

typedef struct rw_ctx {
	mg_exec *x;
	dl_expr *e;
	bool allow_t, allow_s;
	const char *what;
	const char *sql;
} rw_ctx;

static int columns_text(mg_exec *x, bool t, bool s, dl_buf *b)
{
	for (int i = 0; t && i < x->nt; i++)
		DL_TRY(dl_buf_printf(b, "%s%s%s%s", b->len ? ", " : "", x->m->talias ? x->m->talias : "",
		                     x->m->talias ? "." : "", x->tschema->children[i].name));
	for (int j = 0; s && j < x->ns; j++)
		DL_TRY(dl_buf_printf(b, "%s%s%s%s", b->len ? ", " : "", x->m->salias ? x->m->salias : "",
		                     x->m->salias ? "." : "", x->sschema->children[j].name));
	return 0;
}

static int unresolved(rw_ctx *c, const ex_node *n)
{
	dl_buf name = DL_BUF_INIT, cols = DL_BUF_INIT;
	for (int i = 0; i < n->npath; i++) dl_buf_printf(&name, "%s%s", i ? "." : "", n->path[i]);
	columns_text(c->x, c->allow_t, c->allow_s, &cols);
	int rc = dl_error_set_class(DL_EINVALID, "DELTA_MERGE_UNRESOLVED_EXPRESSION",
	                            "[DELTA_MERGE_UNRESOLVED_EXPRESSION] Cannot resolve %s in %s given "
	                            "columns %s.",
	                            name.data ? name.data : "?", c->what, cols.data ? cols.data : "");
	dl_buf_free(&name);
	dl_buf_free(&cols);
	return rc;
}

static int rewrite_col(rw_ctx *c, ex_node *n)
{
	mg_exec *x = c->x;
	int side = 0, col = -1, used = 1; /* side 1 target, 2 source */
	if (n->npath >= 2 && x->m->talias && strcasecmp(n->path[0], x->m->talias) == 0 &&
	    (col = find_col(x->tschema, n->path[1])) >= 0) {
		side = 1, used = 2;
	} else if (n->npath >= 2 && x->m->salias && strcasecmp(n->path[0], x->m->salias) == 0 &&
	           (col = find_col(x->sschema, n->path[1])) >= 0) {
		side = 2, used = 2;
	} else {
		int t = find_col(x->tschema, n->path[0]), s = find_col(x->sschema, n->path[0]);
		if (t >= 0 && s >= 0 && c->allow_t && c->allow_s)
			return dl_error_set_class(DL_EINVALID, "AMBIGUOUS_REFERENCE",
			                          "[AMBIGUOUS_REFERENCE] Reference `%s` is ambiguous in %s: "
			                          "both the target and the source have it; qualify it with "
			                          "an alias",
			                          n->path[0], c->what);
		if (t >= 0 && (c->allow_t || s < 0)) side = 1, col = t;
		else if (s >= 0) side = 2, col = s;
	}
	if (!side || (side == 1 && !c->allow_t) || (side == 2 && !c->allow_s)) return unresolved(c, n);
	char nm[32];
	if (side == 1) dl_mg_tname(nm, sizeof nm, col);
	else dl_mg_sname(nm, sizeof nm, col);
	int np = n->npath - used + 1;
	char **path = dl_arena_calloc(&c->e->arena, (size_t)np, sizeof *path);
	if (!path) return DL_ENOMEM;
	path[0] = dl_arena_strdup(&c->e->arena, nm);
	for (int i = 1; i < np; i++) path[i] = n->path[used + i - 1];
	n->path = path;
	n->npath = np;
	return path[0] ? 0 : DL_ENOMEM;
}

static const char *const aggregates[] = {
	"sum", "count", "avg", "mean", "min", "max", "first", "last", "first_value", "last_value",
	"collect_list", "collect_set", "count_if", "bool_and", "bool_or", "every", "any", "some",
	"variance", "var_samp", "var_pop", "stddev", "stddev_samp", "stddev_pop", "any_value",
	"approx_count_distinct", "percentile_approx", "percentile", "median", NULL};

static bool is_aggregate(const ex_node *n)
{
	if (n->kind != EX_CALL || !n->name || n->over) return false;
	for (int i = 0; aggregates[i]; i++)
		if (strcasecmp(n->name, aggregates[i]) == 0) return true;
	return false;
}

static int walk(rw_ctx *c, ex_node *n, bool *agg, bool *subq)
{
	if (!n) return 0;
	if (is_aggregate(n)) *agg = true;
	if (n->kind == EX_SUBQUERY) *subq = true;
	if (n->kind == EX_COL) DL_TRY(rewrite_col(c, n));
	for (int i = 0; i < n->nargs; i++) DL_TRY(walk(c, n->args[i], agg, subq));
	return 0;
}

int dl_mg_resolve(mg_exec *x, dl_expr **out, const char *sql, bool allow_t, bool allow_s, const char *what)
{
	*out = NULL;
	dl_expr *e;
	int rc = dl_expr_parse(&e, sql);
	if (rc < 0) return dl_error_prefix("%s", what);
	rw_ctx c = {x, e, allow_t, allow_s, what, sql};
	bool agg = false, subq = false;
	rc = walk(&c, e->root, &agg, &subq);
	if (rc == 0 && agg)
		rc = dl_error_set_class(DL_EINVALID, "DELTA_AGGREGATION_NOT_SUPPORTED",
		                        "[DELTA_AGGREGATION_NOT_SUPPORTED] Aggregate functions are not "
		                        "supported in the %s (condition = %s).",
		                        what, sql);
	if (rc == 0 && !dl_expr_is_deterministic(e))
		rc = dl_error_set_class(DL_EINVALID, "DELTA_NON_DETERMINISTIC_FUNCTION_NOT_SUPPORTED",
		                        "[DELTA_NON_DETERMINISTIC_FUNCTION_NOT_SUPPORTED] Non-deterministic "
		                        "functions are not supported in the %s (condition = %s).",
		                        what, sql);
	if (rc == 0 && subq)
		rc = dl_error_set_class(DL_EUNSUPPORTED, "DELTA_UNSUPPORTED_SUBQUERY",
		                        "[DELTA_UNSUPPORTED_SUBQUERY] Subqueries are not supported in the "
		                        "%s (condition = %s).",
		                        what, sql);
	if (rc < 0) {
		dl_expr_free(e);
		return rc;
	}
	*out = e;
	return 0;
}

/* The text of a (rewritten) node, parsed as an expression of its own. */
static int node_expr(dl_expr **out, const ex_node *n, const char *cast_to)
{
	dl_buf b = DL_BUF_INIT;
	int rc = cast_to ? dl_buf_printf(&b, "CAST((") : 0;
	if (rc == 0) rc = ex_print(&b, n);
	if (rc == 0 && cast_to) rc = dl_buf_printf(&b, ") AS %s)", cast_to);
	if (rc == 0) rc = dl_expr_parse(out, b.data);
	dl_buf_free(&b);
	return rc;
}

/* The same stored into column `col` of type `to` (dl_dml_cast_sql). */
static int node_stored(dl_expr **out, const ex_node *n, const dl_type *to, const char *col)
{
	dl_buf b = DL_BUF_INIT, v = DL_BUF_INIT;
	int rc = ex_print(&v, n);
	if (rc == 0) rc = dl_dml_cast_sql(&b, v.data, to, col);
	if (rc == 0) rc = dl_expr_parse(out, b.data);
	dl_buf_free(&b);
	dl_buf_free(&v);
	return rc;
}

static bool needs_cast(const dl_type *from, const dl_type *to)
{
	return from && to && !dl_type_equals(from, to) && from->id != DL_TYPE_NULL;
}

int dl_mg_resolve_bound(mg_exec *x, dl_expr **out, const char *sql, bool allow_t, bool allow_s,
                        const char *what, const dl_type *to, const char *col)
{
	dl_expr *e;
	if (allow_t || allow_s) DL_TRY(dl_mg_resolve(x, &e, sql, allow_t, allow_s, what));
	else DL_TRY(dl_expr_parse(&e, sql)); /* already canonical names (UPDATE SET *, INSERT *) */
	int rc = dl_expr_bind(e, x->canon);
	if (rc < 0) {
		dl_expr_free(e);
		return dl_error_prefix("%s (%s)", what, sql);
	}
	if (to && (needs_cast(dl_expr_type(e), to) || dl_expr_type(e)->id == DL_TYPE_NULL)) {
		char tn[256];
		dl_type_sql(to, tn, sizeof tn);
		dl_expr *c;
		rc = node_stored(&c, e->root, to, col);
		dl_expr_free(e);
		if (rc < 0) return rc;
		e = c;
		if (dl_expr_bind(e, x->canon) < 0) {
			dl_expr_free(e);
			return dl_error_prefix("%s: %s cannot be stored in a %s column", what, sql, tn);
		}
	}
	*out = e;
	return 0;
}

/* ---- ON ---- */

/* Which sides a subtree names: bit 1 target, bit 2 source. */
static int sides(const ex_node *n)
{
	if (!n) return 0;
	int s = 0;
	if (n->kind == EX_COL && n->npath > 0) {
		if (strncmp(n->path[0], "__t", 3) == 0) s |= 1;
		if (strncmp(n->path[0], "__s", 3) == 0) s |= 2;
	}
	for (int i = 0; i < n->nargs; i++) s |= sides(n->args[i]);
	return s;
}

static void conjuncts(ex_node *n, ex_node **out, int *k, int cap)
{
	if (n->kind == EX_OP && n->op == OP_AND && n->nargs == 2) {
		conjuncts(n->args[0], out, k, cap);
		conjuncts(n->args[1], out, k, cap);
	} else if (*k < cap) {
		out[(*k)++] = n;
	}
}

/* A target-only term over the table's own column names (pruning). */
static int plain_names(mg_exec *x, ex_node *n, dl_buf *out)
{
	dl_expr *e;
	DL_TRY(node_expr(&e, n, NULL));
	int rc = 0;
	/* walk and rename __tI back */
	ex_node *stack[512];
	int sp = 0;
	stack[sp++] = e->root;
	while (sp > 0 && rc == 0) {
		ex_node *c = stack[--sp];
		if (c->kind == EX_COL && c->npath > 0 && strncmp(c->path[0], "__t", 3) == 0) {
			int i = atoi(c->path[0] + 3);
			c->path[0] = x->tschema->children[i].name;
		}
		for (int i = 0; i < c->nargs && sp < 512; i++) stack[sp++] = c->args[i];
		if (sp >= 512) rc = DL_EUNSUPPORTED;
	}
	if (rc == 0) rc = dl_expr_sql(e, out);
	dl_expr_free(e);
	if (rc == DL_EUNSUPPORTED) {
		dl_error_clear();
		dl_buf_clear(out);
		return 0;
	}
	return rc;
}

static int stream_schema(mg_exec *x, bool target, dl_type **out)
{
	const dl_type *c = x->canon;
	int from = target ? 0 : x->nt + 2, n = target ? x->nt + 2 : x->ns + 1;
	*out = dl_type_struct(c->children + from, n);
	return *out ? 0 : dl_error_last()->code;
}

static int add_key(mg_exec *x, ex_node *tk, ex_node *sk, bool ns, bool *taken)
{
	*taken = false;
	dl_type *ts = NULL, *ss = NULL;
	dl_expr *te = NULL, *se = NULL;
	int rc = stream_schema(x, true, &ts);
	if (rc == 0) rc = stream_schema(x, false, &ss);
	if (rc == 0) rc = node_expr(&te, tk, NULL);
	if (rc == 0) rc = node_expr(&se, sk, NULL);
	if (rc == 0) rc = dl_expr_bind(te, ts);
	if (rc == 0) rc = dl_expr_bind(se, ss);
	if (rc == 0 && !dl_type_equals(dl_expr_type(te), dl_expr_type(se))) {
		const dl_type *a = dl_expr_type(te), *b = dl_expr_type(se);
		const char *to = dl_type_is_integral(a) && dl_type_is_integral(b) ? "BIGINT"
		                 : (a->id == DL_TYPE_DOUBLE || a->id == DL_TYPE_FLOAT || dl_type_is_integral(a)) &&
		                           (b->id == DL_TYPE_DOUBLE || b->id == DL_TYPE_FLOAT || dl_type_is_integral(b))
		                       ? "DOUBLE"
		                       : NULL;
		dl_expr_free(te);
		dl_expr_free(se);
		te = se = NULL;
		if (!to) goto done; /* stays in the residual */
		rc = node_expr(&te, tk, to);
		if (rc == 0) rc = node_expr(&se, sk, to);
		if (rc == 0) rc = dl_expr_bind(te, ts);
		if (rc == 0) rc = dl_expr_bind(se, ss);
	}
	if (rc == 0) {
		int k = x->nkeys;
		int *kc = dl_reallocarray(x->key_tcol, (size_t)k + 1, sizeof *kc);
		if (kc) x->key_tcol = kc;
		char **ks = dl_reallocarray(x->key_ssql, (size_t)k + 1, sizeof *ks);
		if (ks) x->key_ssql = ks;
		if (!kc || !ks) {
			rc = DL_ENOMEM;
			goto done;
		}
		bool plain = tk->kind == EX_COL && tk->npath == 1 && dl_type_equals(dl_expr_type(te), dl_expr_type(se));
		kc[k] = plain ? atoi(tk->path[0] + 3) : -1;
		dl_buf b = DL_BUF_INIT;
		rc = ex_print(&b, sk);
		ks[k] = rc == 0 ? dl_arena_strdup(&x->arena, b.data) : NULL;
		dl_buf_free(&b);
		if (rc == 0 && !ks[k]) rc = DL_ENOMEM;
		if (rc < 0) goto done;
		dl_expr **nt = dl_reallocarray(x->tkeys, (size_t)k + 1, sizeof *nt);
		if (nt) x->tkeys = nt;
		dl_expr **nsk = dl_reallocarray(x->skeys, (size_t)k + 1, sizeof *nsk);
		if (nsk) x->skeys = nsk;
		bool *nn = dl_reallocarray(x->null_safe, (size_t)k + 1, sizeof *nn);
		if (nn) x->null_safe = nn;
		if (!nt || !nsk || !nn) {
			rc = DL_ENOMEM;
		} else {
			x->tkeys[k] = te;
			x->skeys[k] = se;
			x->null_safe[k] = ns;
			x->nkeys++;
			te = se = NULL;
			*taken = true;
		}
	}
done:
	dl_expr_free(te);
	dl_expr_free(se);
	dl_type_unref(ts);
	dl_type_unref(ss);
	return rc;
}

int dl_mg_split_on(mg_exec *x)
{
	dl_expr *e;
	DL_TRY(dl_mg_resolve(x, &e, x->m->on, true, true, "search condition of the MERGE operation"));
	/* the whole condition must bind (unknown functions, types) */
	int rc = dl_expr_bind(e, x->canon);
	if (rc == 0 && dl_expr_type(e)->id != DL_TYPE_BOOLEAN)
		rc = dl_error_set(DL_EINVALID, "the merge condition %s is not a boolean", x->m->on);
	ex_node *parts[256];
	int np = 0;
	if (rc == 0) conjuncts(e->root, parts, &np, 256);
	dl_buf res = DL_BUF_INIT, prune = DL_BUF_INIT, one = DL_BUF_INIT;
	for (int i = 0; i < np && rc == 0; i++) {
		ex_node *p = parts[i];
		bool taken = false;
		if (p->kind == EX_OP && (p->op == OP_EQ || p->op == OP_NSEQ) && p->nargs == 2) {
			int a = sides(p->args[0]), b = sides(p->args[1]);
			if (a == 1 && b == 2) rc = add_key(x, p->args[0], p->args[1], p->op == OP_NSEQ, &taken);
			else if (a == 2 && b == 1) rc = add_key(x, p->args[1], p->args[0], p->op == OP_NSEQ, &taken);
		}
		if (rc < 0 || taken) continue;
		rc = dl_buf_printf(&res, "%s(", res.len ? " AND " : "");
		if (rc == 0) rc = ex_print(&res, p);
		if (rc == 0) rc = dl_buf_printf(&res, ")");
		if (rc == 0 && sides(p) == 1 && !x->has_by_source) {
			dl_buf_clear(&one);
			rc = plain_names(x, p, &one);
			if (rc == 0 && one.len)
				rc = dl_buf_printf(&prune, "%s(%s)", prune.len ? " AND " : "", one.data);
		}
	}
	if (rc == 0 && res.len) {
		rc = dl_expr_parse(&x->residual, res.data);
		if (rc == 0) rc = dl_expr_bind(x->residual, x->canon);
	}
	if (rc == 0 && prune.len) {
		x->prune = dl_arena_strdup(&x->arena, prune.data);
		if (!x->prune) rc = DL_ENOMEM;
	}
	dl_buf_free(&res);
	dl_buf_free(&prune);
	dl_buf_free(&one);
	dl_expr_free(e);
	return rc;
}

/* ---- clauses ---- */

static const char *clause_what(const mg_clause *c)
{
	switch (c->kind) {
	case MG_MATCHED:
		return c->action == MG_DELETE ? "DELETE clause" : "UPDATE clause";
	case MG_NOT_MATCHED:
		return "INSERT clause";
	default:
		return c->action == MG_DELETE ? "DELETE clause (NOT MATCHED BY SOURCE)"
		                              : "UPDATE clause (NOT MATCHED BY SOURCE)";
	}
}

static bool is_generated_or_identity(const dl_field *f)
{
	return f->metadata && (strstr(f->metadata, "delta.generationExpression") ||
	                       strstr(f->metadata, "delta.identity.") ||
	                       strstr(f->metadata, "CURRENT_DEFAULT"));
}

/* allow_t and allow_s both false: sql names canonical columns already. */
static bool is_identity(const dl_field *f)
{
	return f->metadata && strstr(f->metadata, "delta.identity.");
}

/* orig_sql: the target's old value of column w, whose fields the value
 * lacks are kept (UPDATE SET * with schema evolution), or NULL. */
static int set_value(mg_exec *x, mg_clause *c, int w, const char *sql, bool allow_t, bool allow_s,
                     const char *orig_sql)
{
	if (c->kind != MG_NOT_MATCHED && is_identity(&x->wschema->children[w]))
		return dl_error_set_class(DL_EINVALID, "DELTA_IDENTITY_COLUMNS_UPDATE_NOT_SUPPORTED",
		                          "[DELTA_IDENTITY_COLUMNS_UPDATE_NOT_SUPPORTED] IDENTITY column %s "
		                          "cannot be updated (MERGE %s)",
		                          x->wschema->children[w].name, clause_what(c));
	if (c->set[w])
		return dl_error_set_class(DL_EINVALID, "DELTA_MULTIPLE_ASSIGNMENTS",
		                          "[DELTA_DUPLICATE_COLUMNS_FOUND] column %s is assigned more than "
		                          "once in the %s",
		                          x->wschema->children[w].name, clause_what(c));
	return dl_mg_set_stored(x, c, w, sql, allow_t, allow_s, orig_sql, clause_what(c));
}

static int target_column(mg_exec *x, mg_clause *c, const char *name, int *w)
{
	const char *n;
	char **parts;
	int np;
	DL_TRY(dl_mg_target_path(x, name, &parts, &np));
	if (np > 1) /* UPDATE clauses with nested fields go to dl_mg_update_nested */
		return dl_error_set_class(DL_EINVALID, "DELTA_UNSUPPORTED_NESTED_FIELD_IN_OPERATION",
		                          "[DELTA_UNSUPPORTED_NESTED_FIELD_IN_OPERATION] Nested field is not "
		                          "supported in the INSERT clause of MERGE operation (field = %s).",
		                          name);
	n = parts[0];
	*w = find_col(x->wschema, n);
	if (*w < 0)
		return dl_error_set_class(DL_EINVALID, "DELTA_MERGE_UNRESOLVED_EXPRESSION",
		                          "[DELTA_MERGE_UNRESOLVED_EXPRESSION] Cannot resolve %s in %s "
		                          "given columns of the target table",
		                          name, clause_what(c));
	return 0;
}

/* Whether one of the clause's assignments names a nested field. */
static bool nested_assignment(mg_exec *x, const mg_clause *c)
{
	for (int k = 0; k < c->n; k++) {
		char **parts;
		int np;
		if (dl_mg_target_path(x, c->cols[k], &parts, &np) < 0) {
			dl_error_clear();
			continue; /* reported where the column is resolved */
		}
		if (np > 1) return true;
	}
	return false;
}

static int star(mg_exec *x, mg_clause *c, bool update)
{
	char nm[32];
	for (int w = 0; w < x->nw; w++) {
		const dl_field *f = &x->wschema->children[w];
		int s = find_col(x->sschema, f->name);
		bool in_target = w < x->nt;
		if (update && is_identity(f)) continue; /* kept: identity values are never updated */
		if (s < 0) {
			if (!in_target || x->m->evolve || is_generated_or_identity(f)) continue;
			return dl_error_set_class(DL_EINVALID, "DELTA_MERGE_UNRESOLVED_EXPRESSION",
			                          "[DELTA_MERGE_UNRESOLVED_EXPRESSION] Cannot resolve %s%s%s in "
			                          "%s given columns of the source: the source has no column "
			                          "%s (enable schema evolution, or list the columns)",
			                          x->m->talias ? x->m->talias : "", x->m->talias ? "." : "",
			                          f->name, update ? "UPDATE clause" : "INSERT clause", f->name);
		}
		dl_mg_sname(nm, sizeof nm, s);
		char old[32];
		dl_mg_tname(old, sizeof old, w);
		/* UPDATE SET * with evolution keeps the target-only fields of structs */
		DL_TRY(set_value(x, c, w, nm, false, false, update && x->m->evolve && in_target ? old : NULL));
	}
	return 0;
}

int dl_mg_resolve_clauses(mg_exec *x)
{
	for (int i = 0; i < x->m->ncl; i++) {
		mg_clause *c = &x->m->cl[i];
		bool at = c->kind != MG_NOT_MATCHED, as = c->kind != MG_BY_SOURCE;
		if (c->cond) {
			DL_TRY(dl_mg_resolve_bound(x, &c->cond_e, c->cond, at, as, clause_what(c), NULL, NULL));
			if (dl_expr_type(c->cond_e)->id != DL_TYPE_BOOLEAN)
				return dl_error_set(DL_EINVALID, "the condition %s of a MERGE %s is not a boolean",
				                    c->cond, clause_what(c));
		}
		if (c->action == MG_DELETE) continue;
		c->set = dl_calloc((size_t)x->nw + 1, sizeof *c->set);
		if (!c->set) return DL_ENOMEM;
		bool update = c->action == MG_UPDATE || c->action == MG_UPDATE_ALL;
		if (c->action == MG_UPDATE_ALL || c->action == MG_INSERT_ALL) {
			DL_TRY(star(x, c, c->action == MG_UPDATE_ALL));
		} else if (update && nested_assignment(x, c)) {
			DL_TRY(dl_mg_update_nested(x, c, at, as, clause_what(c)));
		} else {
			for (int k = 0; k < c->n; k++) {
				int w;
				DL_TRY(target_column(x, c, c->cols[k], &w));
				DL_TRY(set_value(x, c, w, c->vals[k], at, as, NULL));
			}
		}
		if (update) DL_TRY(dl_mg_evolved_defaults(x, c, clause_what(c)));
	}
	return 0;
}

/* ---- the source's key range (pruning target files by their stats) ---- */

static bool range_type(const dl_type *t)
{
	return dl_type_is_integral(t) || t->id == DL_TYPE_DATE || t->id == DL_TYPE_STRING;
}

static int cmp_cell(const dl_array *a, int64_t i, int64_t j)
{
	if (a->type->id == DL_TYPE_STRING) {
		const char *d = (const char *)a->data;
		int32_t li = a->offsets[i + 1] - a->offsets[i], lj = a->offsets[j + 1] - a->offsets[j];
		int c = memcmp(d + a->offsets[i], d + a->offsets[j], (size_t)(li < lj ? li : lj));
		return c ? c : (li > lj) - (li < lj);
	}
	int w = dl_type_fixed_width(a->type);
	int64_t x = 0, y = 0;
	switch (w) {
	case 1: x = ((const int8_t *)a->values)[i], y = ((const int8_t *)a->values)[j]; break;
	case 2: x = ((const int16_t *)a->values)[i], y = ((const int16_t *)a->values)[j]; break;
	case 4: x = ((const int32_t *)a->values)[i], y = ((const int32_t *)a->values)[j]; break;
	default: x = ((const int64_t *)a->values)[i], y = ((const int64_t *)a->values)[j];
	}
	return (x > y) - (x < y);
}

static int print_cell(dl_buf *out, const dl_array *a, int64_t i)
{
	dl_scalar s;
	memset(&s, 0, sizeof s);
	s.type = a->type->id;
	if (a->type->id == DL_TYPE_STRING) {
		s.v.str.ptr = (const char *)a->data + a->offsets[i];
		s.v.str.len = (size_t)(a->offsets[i + 1] - a->offsets[i]);
	} else {
		int w = dl_type_fixed_width(a->type);
		s.v.i64 = w == 1 ? ((const int8_t *)a->values)[i]
		          : w == 2 ? ((const int16_t *)a->values)[i]
		          : w == 4 ? ((const int32_t *)a->values)[i]
		                   : ((const int64_t *)a->values)[i];
	}
	return ex_print_scalar(out, &s);
}

/* The key range is gathered batch by batch while the source is read (it
 * may not stay in memory): per key, a 2-row array of its least and greatest
 * value so far (NULL until a non-NULL value is seen). */
static int key_range_init(mg_exec *x)
{
	x->kr_init = true;
	x->kr_e = dl_calloc((size_t)x->nkeys + 1, sizeof *x->kr_e);
	x->kr_best = dl_calloc((size_t)x->nkeys + 1, sizeof *x->kr_best);
	if (!x->kr_e || !x->kr_best) return DL_ENOMEM;
	if (x->has_by_source) return 0; /* every target row takes part */
	dl_type *ss = NULL;
	int rc = stream_schema(x, false, &ss); /* the source batches' columns */
	for (int k = 0; k < x->nkeys && rc == 0; k++) {
		if (x->key_tcol[k] < 0 || x->null_safe[k]) continue;
		if (!range_type(x->tschema->children[x->key_tcol[k]].type)) continue;
		rc = dl_expr_parse(&x->kr_e[k], x->key_ssql[k]);
		if (rc == 0) rc = dl_expr_bind(x->kr_e[k], ss);
	}
	dl_type_unref(ss);
	return rc;
}

/* The least and greatest valid rows of v as a 2-row array, or NULL. */
static int min_max(const dl_array *v, dl_array **out)
{
	*out = NULL;
	int64_t lo = -1, hi = -1;
	for (int64_t i = 0; i < v->length; i++) {
		if (!dl_array_is_valid(v, i)) continue;
		if (lo < 0 || cmp_cell(v, i, lo) < 0) lo = i;
		if (hi < 0 || cmp_cell(v, i, hi) > 0) hi = i;
	}
	if (lo < 0) return 0;
	uint32_t sel[2] = {(uint32_t)lo, (uint32_t)hi};
	*out = dl_array_take(v, sel, 2);
	return *out ? 0 : dl_error_last()->code;
}

int dl_mg_key_range_add(mg_exec *x, const dl_batch *b)
{
	if (!x->kr_init) DL_TRY(key_range_init(x));
	int rc = 0;
	for (int k = 0; k < x->nkeys && rc == 0; k++) {
		if (!x->kr_e[k]) continue;
		dl_array *v = NULL, *mm = NULL;
		rc = dl_expr_eval(&v, x->kr_e[k], b, NULL);
		if (rc == 0) rc = min_max(v, &mm);
		dl_array_free(v);
		if (rc == 0 && mm && x->kr_best[k]) {
			dl_array *two[2] = {x->kr_best[k], mm}, *all = dl_array_concat(two, 2), *best = NULL;
			if (!all) rc = dl_error_last()->code;
			if (rc == 0) rc = min_max(all, &best);
			dl_array_free(all);
			dl_array_free(mm);
			mm = NULL;
			if (rc == 0) {
				dl_array_free(x->kr_best[k]);
				x->kr_best[k] = best;
			}
		} else if (rc == 0 && mm) {
			x->kr_best[k] = mm;
		}
	}
	return rc;
}

void dl_mg_key_range_free(mg_exec *x)
{
	for (int k = 0; k < x->nkeys; k++) {
		if (x->kr_e) dl_expr_free(x->kr_e[k]);
		if (x->kr_best) dl_array_free(x->kr_best[k]);
	}
	dl_free(x->kr_e);
	dl_free(x->kr_best);
}

int dl_mg_key_range(mg_exec *x)
{
	if (!x->kr_init) DL_TRY(key_range_init(x));
	if (x->has_by_source) return 0; /* every target row takes part */
	dl_buf terms = DL_BUF_INIT;
	int rc = 0;
	for (int k = 0; k < x->nkeys && rc == 0; k++) {
		if (!x->kr_e[k]) continue;
		const dl_field *f = &x->tschema->children[x->key_tcol[k]];
		const dl_array *v = x->kr_best[k];
		rc = dl_buf_printf(&terms, "%s", terms.len ? " AND " : "");
		if (rc == 0 && !v) {
			rc = dl_buf_printf(&terms, "FALSE"); /* no source key can match */
		} else if (rc == 0) {
			rc = dl_buf_printf(&terms, "`%s` >= ", f->name);
			if (rc == 0) rc = print_cell(&terms, v, 0);
			if (rc == 0) rc = dl_buf_printf(&terms, " AND `%s` <= ", f->name);
			if (rc == 0) rc = print_cell(&terms, v, 1);
		}
	}
	if (rc == 0 && terms.len) {
		size_t n = (x->prune ? strlen(x->prune) + 5 : 0) + terms.len + 1;
		char *p = dl_arena_alloc(&x->arena, n);
		if (!p) rc = DL_ENOMEM;
		else {
			snprintf(p, n, "%s%s%s", x->prune ? x->prune : "", x->prune ? " AND " : "", terms.data);
			x->prune = p;
		}
	}
	dl_buf_free(&terms);
	return rc;
}
