/* MERGE's nested struct fields, as Spark's UpdateExpressionsSupport
 * (generateUpdateExpressions, castIfNeeded) and ResolveDeltaMergeInto:
 *
 * - `SET t.s.x = v` rebuilds the struct s with named_struct: every field of
 *   the (possibly evolved) struct type, the assigned ones replaced, the
 *   others the target's old value (NULL for fields schema evolution adds).
 *   A NULL struct becomes a struct with the assigned field set (Spark's
 *   CreateNamedStruct). `s` and `s.x` both assigned in one clause is
 *   DELTA_CONFLICT_SET_COLUMN; a field of a non-struct (array, map, ...)
 *   is DELTA_UNSUPPORTED_FIELD_UPDATE_NON_STRUCT.
 * - A struct value stored into a struct column of a different type is
 *   matched by name: every field of the value must exist in the column,
 *   and without schema evolution they must be as many
 *   (DELTA_UPDATE_SCHEMA_MISMATCH_EXPRESSION); fields the value lacks are
 *   NULL, or for UPDATE SET * the target's old values. A NULL value stays
 *   NULL (Spark's merge.preserveNullSourceStructs, on in Spark's test
 *   suites; for UPDATE * only when the target's struct is NULL too).
 * - Schema evolution merges the source's struct fields into the target's
 *   struct columns: new fields appended, recursively (through array
 *   elements and map keys and values too, as mergeSchemas), when a *
 *   clause writes the column or an assignment names it or one of its
 *   ancestors; a struct against another kind of type is
 *   DELTA_FAILED_TO_MERGE_FIELDS. Structs inside arrays and maps are
 *   stored by name by struct_store.c. With delta.enableTypeWidening the
 *   primitive columns and fields written that way take the source's type
 *   where it is an automatic widening of the target's (short -> int,
 *   float -> double, ...; TypeWidening.isTypeChangeSupportedForSchemaEvolution),
 *   recorded in delta.typeChanges.
 *
 * Everything is built as SQL text over the canonical join row's names
 * (merge_internal.h) and bound once, like the top-level values. */
#include "dml/merge_nested.h"
#include "dml/struct_store.h"
#include <stdio.h>
#include <string.h>
#include <strings.h>
#include "expr/ast.h"
#include "ops/type_change_meta.h"
#include "util/buf.h"
#include "util/error.h"
#include "util/mem.h"

#define MAX_DEPTH 32

/* ---- names ---- */

int dl_mg_target_path(mg_exec *x, const char *col, char ***parts, int *np)
{
	char **p = dl_arena_calloc(&x->arena, MAX_DEPTH, sizeof *p);
	if (!p) return DL_ENOMEM;
	int n = 0;
	const char *s = col;
	while (*s) {
		if (n == MAX_DEPTH) return dl_error_set(DL_EINVALID, "column path %s is too deep", col);
		dl_buf b = DL_BUF_INIT;
		int rc = dl_buf_puts(&b, "");
		if (*s == '`') {
			s++;
			for (;;) {
				if (!*s) {
					dl_buf_free(&b);
					return dl_error_set(DL_EINVALID, "unterminated ` in column %s", col);
				}
				if (*s == '`' && s[1] == '`') { dl_buf_putc(&b, '`'); s += 2; continue; }
				if (*s == '`') { s++; break; }
				dl_buf_putc(&b, *s++);
			}
		} else {
			while (*s && *s != '.') dl_buf_putc(&b, *s++);
		}
		p[n++] = rc == 0 && b.data ? dl_arena_strdup(&x->arena, b.data) : NULL;
		dl_buf_free(&b);
		if (!p[n - 1]) return DL_ENOMEM;
		if (*s == '.') {
			s++;
			if (!*s) return dl_error_set(DL_EINVALID, "column %s ends with '.'", col);
		} else if (*s) {
			return dl_error_set(DL_EINVALID, "unexpected text after ` in column %s", col);
		}
	}
	if (n == 0) return dl_error_set(DL_EINVALID, "a MERGE assignment names no column");
	/* `t.c` names the target's column c when t is its alias */
	if (n >= 2 && x->m->talias && strcasecmp(p[0], x->m->talias) == 0) p++, n--;
	*parts = p;
	*np = n;
	return 0;
}

/* "(e).`f`": field f of the struct e (in the arena). */
static char *field_of(mg_exec *x, const char *e, const char *f)
{
	dl_buf b = DL_BUF_INIT;
	dl_buf_printf(&b, "(%s).", e);
	dl_dml_sql_ident(&b, f);
	char *r = b.data ? dl_arena_strdup(&x->arena, b.data) : NULL;
	dl_buf_free(&b);
	return r;
}

static void type_text(const dl_type *t, char *out, size_t cap) { dl_type_sql(t, out, cap); }

/* Spark's castIfNeeded (struct_store.c) with this MERGE's evolution flag. */
static int store_sql(mg_exec *x, dl_buf *b, const char *e, const dl_type *from, const dl_type *to,
                     const char *orig, const dl_type *otype, const char *col)
{
	return dl_dml_store_sql(b, e, from, to, orig, otype, x->m->evolve, col);
}

/* ---- schema evolution ---- */

static bool star_clause(const dl_merge *m)
{
	for (int i = 0; i < m->ncl; i++)
		if (m->cl[i].kind != MG_BY_SOURCE &&
		    (m->cl[i].action == MG_UPDATE_ALL || m->cl[i].action == MG_INSERT_ALL))
			return true;
	return false;
}

/* 1: an assignment names path[0..n) or one of its ancestors; 2: only
 * fields under it; 0: neither. */
static int assigned(mg_exec *x, char **path, int n)
{
	int r = 0;
	for (int i = 0; i < x->m->ncl; i++) {
		const mg_clause *c = &x->m->cl[i];
		if (c->kind == MG_BY_SOURCE) continue; /* cannot name the source */
		for (int k = 0; k < c->n; k++) {
			char **p;
			int np;
			if (dl_mg_target_path(x, c->cols[k], &p, &np) < 0) {
				dl_error_clear();
				continue;
			}
			int m = np < n ? np : n;
			bool same = true;
			for (int d = 0; d < m && same; d++) same = strcasecmp(p[d], path[d]) == 0;
			if (!same) continue;
			if (np <= n) return 1;
			r = 2;
		}
	}
	return r;
}

/* The source struct s with only the fields the MERGE writes (path: s's). */
static int filter_type(mg_exec *x, const dl_type *s, char **path, int depth, bool all, dl_type **out)
{
	*out = NULL;
	if (all || s->id != DL_TYPE_STRUCT || depth >= MAX_DEPTH) {
		*out = dl_type_ref((dl_type *)s);
		return 0;
	}
	dl_field *f = dl_calloc((size_t)s->nchildren + 1, sizeof *f);
	dl_type **owned = dl_calloc((size_t)s->nchildren + 1, sizeof *owned);
	int n = 0, rc = f && owned ? 0 : DL_ENOMEM;
	for (int i = 0; rc == 0 && i < s->nchildren; i++) {
		path[depth] = s->children[i].name;
		int a = assigned(x, path, depth + 1);
		if (!a) continue;
		rc = filter_type(x, s->children[i].type, path, depth + 1, a == 1, &owned[n]);
		if (rc == 0) {
			f[n] = s->children[i];
			f[n].type = owned[n];
			f[n].nullable = true;
			f[n].metadata = (char *)"{}";
			n++;
		}
	}
	if (rc == 0 && !(*out = dl_type_struct(f, n))) rc = dl_error_last()->code;
	for (int i = 0; i < n; i++) dl_type_unref(owned[i]);
	dl_free(owned);
	dl_free(f);
	return rc;
}

static bool is_nested(const dl_type *t)
{
	return t->id == DL_TYPE_STRUCT || t->id == DL_TYPE_ARRAY || t->id == DL_TYPE_MAP;
}

/* Spark's mergeSchemas refusing a struct, array or map merged with another
 * kind of type (DELTA_MERGE_INCOMPATIBLE_DATATYPE, wrapped by the column
 * it is under as DELTA_FAILED_TO_MERGE_FIELDS). */
static int incompatible(const dl_type *t, const dl_type *s, char **path)
{
	char a[2048], b[2048];
	dl_type_sql(t, a, sizeof a);
	dl_type_sql(s, b, sizeof b);
	return dl_error_set_class(DL_ESCHEMA, "DELTA_FAILED_TO_MERGE_FIELDS",
	                          "[DELTA_FAILED_TO_MERGE_FIELDS] Failed to merge fields '%s' and '%s'. "
	                          "Caused by: [DELTA_MERGE_INCOMPATIBLE_DATATYPE] Failed to merge "
	                          "incompatible data types %s and %s",
	                          path[0], path[0], a, b);
}

static int evolve(mg_exec *x, const dl_type *t, const dl_type *s, char **path, int depth, bool all,
                  dl_type **out);

/* Arrays and maps written whole: their element (key, value) types merged,
 * as mergeSchemas recurses into ArrayType and MapType. */
static int evolve_list(mg_exec *x, const dl_type *t, const dl_type *s, char **path, int depth, dl_type **out)
{
	dl_type *k = NULL, *v = NULL;
	int rc = evolve(x, t->children[0].type, s->children[0].type, path, depth, true, &k);
	if (rc == 0 && t->id == DL_TYPE_MAP) rc = evolve(x, t->children[1].type, s->children[1].type, path, depth, true, &v);
	if (rc == 0) {
		*out = t->id == DL_TYPE_ARRAY ? dl_type_array(k, t->children[0].nullable)
		                              : dl_type_map(k, v, t->children[1].nullable);
		if (!*out) rc = dl_error_last()->code;
	}
	dl_type_unref(k);
	dl_type_unref(v);
	return rc;
}

static int evolve(mg_exec *x, const dl_type *t, const dl_type *s, char **path, int depth, bool all,
                  dl_type **out)
{
	*out = NULL;
	if (all && t->id != s->id && (is_nested(t) || is_nested(s)) && s->id != DL_TYPE_NULL &&
	    t->id != DL_TYPE_NULL)
		return incompatible(t, s, path);
	if (all && (t->id == DL_TYPE_ARRAY || t->id == DL_TYPE_MAP) && t->id == s->id && depth < MAX_DEPTH)
		return evolve_list(x, t, s, path, depth, out);
	if (t->id != DL_TYPE_STRUCT || s->id != DL_TYPE_STRUCT || depth >= MAX_DEPTH) {
		/* a column or field the MERGE writes takes the source's wider type
		 * when the table allows type widening (mergeSchemas with
		 * TypeEvolution); otherwise values are cast to the target's */
		bool wider = all && x->widen && dl_widening_allows(&x->widening, t, s);
		*out = dl_type_ref((dl_type *)(wider ? s : t));
		return 0;
	}
	int cap = t->nchildren + s->nchildren + 1;
	dl_field *f = dl_calloc((size_t)cap, sizeof *f);
	dl_type **owned = dl_calloc((size_t)cap, sizeof *owned);
	int n = 0, rc = f && owned ? 0 : DL_ENOMEM;
	for (int i = 0; rc == 0 && i < t->nchildren; i++) {
		const dl_field *tf = &t->children[i];
		int k = dl_type_field_index(s, tf->name);
		path[depth] = tf->name;
		if (k >= 0) {
			int a = all ? 1 : assigned(x, path, depth + 1);
			rc = evolve(x, tf->type, s->children[k].type, path, depth + 1, a == 1, &owned[n]);
		} else {
			owned[n] = dl_type_ref(tf->type);
		}
		if (rc == 0) {
			f[n] = *tf;
			f[n].type = owned[n];
			n++;
		}
	}
	for (int i = 0; rc == 0 && i < s->nchildren; i++) {
		const dl_field *sf = &s->children[i];
		if (dl_type_field_index(t, sf->name) >= 0) continue;
		path[depth] = sf->name;
		int a = all ? 1 : assigned(x, path, depth + 1);
		if (!a) continue;
		rc = filter_type(x, sf->type, path, depth + 1, a == 1, &owned[n]);
		if (rc == 0) {
			f[n] = *sf;
			f[n].type = owned[n];
			f[n].nullable = true;
			f[n].metadata = (char *)"{}";
			n++;
		}
	}
	if (rc == 0 && !(*out = dl_type_struct(f, n))) rc = dl_error_last()->code;
	for (int i = 0; i < n; i++) dl_type_unref(owned[i]);
	dl_free(owned);
	dl_free(f);
	return rc;
}

int dl_mg_evolve_type(mg_exec *x, const dl_type *t, const dl_type *s, char **path, int depth,
                      dl_type **out)
{
	int a = star_clause(x->m) ? 1 : assigned(x, path, depth);
	return evolve(x, t, s, path, depth, a == 1, out);
}

/* ---- values ---- */

/* The value sql resolved onto canonical names: its text and bound type
 * (*e keeps the type alive; the caller frees it). */
static int canonical(mg_exec *x, const char *sql, bool at, bool as, const char *what, dl_expr **e,
                     char **text)
{
	*e = NULL;
	if (at || as) DL_TRY(dl_mg_resolve(x, e, sql, at, as, what));
	else DL_TRY(dl_expr_parse(e, sql));
	int rc = dl_expr_bind(*e, x->canon);
	if (rc < 0) rc = dl_error_prefix("%s (%s)", what, sql);
	dl_buf b = DL_BUF_INIT;
	if (rc == 0) rc = ex_print(&b, (*e)->root);
	if (rc == 0 && !(*text = dl_arena_strdup(&x->arena, b.data ? b.data : ""))) rc = DL_ENOMEM;
	dl_buf_free(&b);
	if (rc < 0) {
		dl_expr_free(*e);
		*e = NULL;
	}
	return rc;
}

static int bind_text(mg_exec *x, mg_clause *c, int w, dl_buf *b, const char *what)
{
	if (!b->data) return DL_ENOMEM;
	return dl_mg_resolve_bound(x, &c->set[w], b->data, false, false, what, x->wschema->children[w].type,
	                           x->wschema->children[w].name);
}

int dl_mg_set_stored(mg_exec *x, mg_clause *c, int w, const char *sql, bool at, bool as,
                     const char *orig_sql, const char *what)
{
	const dl_type *to = x->wschema->children[w].type;
	const char *col = x->wschema->children[w].name;
	if (!dl_dml_has_struct(to)) return dl_mg_resolve_bound(x, &c->set[w], sql, at, as, what, to, col);
	dl_expr *e;
	char *text;
	DL_TRY(canonical(x, sql, at, as, what, &e, &text));
	const dl_type *from = dl_expr_type(e);
	int rc;
	if (!dl_dml_has_struct(from) || dl_dml_same_type(from, to)) {
		rc = dl_mg_resolve_bound(x, &c->set[w], text, false, false, what, to, col);
	} else {
		dl_buf b = DL_BUF_INIT;
		const dl_type *otype = orig_sql && w < x->nt ? x->tschema->children[w].type : NULL;
		rc = store_sql(x, &b, text, from, to, otype ? orig_sql : NULL, otype,
		               x->wschema->children[w].name);
		if (rc == 0) rc = bind_text(x, c, w, &b, what);
		dl_buf_free(&b);
	}
	dl_expr_free(e);
	return rc;
}

typedef struct mg_op {
	char **parts;
	int np;
	char *sql;           /* canonical */
	const dl_type *type; /* of the value */
	const char *col;     /* as written */
} mg_op;

static int conflict(mg_op *const *ops, int n)
{
	dl_buf b = DL_BUF_INIT;
	for (int i = 0; i < n; i++) {
		dl_buf_puts(&b, i ? ", " : "[");
		for (int d = 0; d < ops[i]->np; d++) {
			if (d) dl_buf_putc(&b, '.');
			dl_dml_sql_ident(&b, ops[i]->parts[d]);
		}
	}
	dl_buf_putc(&b, ']');
	int rc = dl_error_set_class(DL_EINVALID, "DELTA_CONFLICT_SET_COLUMN",
	                            "[DELTA_CONFLICT_SET_COLUMN] There is a conflict from these SET "
	                            "columns: %s.",
	                            b.data ? b.data : "");
	dl_buf_free(&b);
	return rc;
}

static void path_text(dl_buf *b, char **parts, int n)
{
	for (int d = 0; d < n; d++) {
		if (d) dl_buf_putc(b, '.');
		dl_dml_sql_ident(b, parts[d]);
	}
}

/* The new value of the field at depth `depth` of type `to` given the
 * assignments under it (Spark's generateUpdateExpressions). dflt/dtype:
 * its old value (NULL: a field schema evolution adds). */
static int rebuild(mg_exec *x, dl_buf *b, const dl_type *to, const char *dflt, const dl_type *dtype,
                   mg_op **ops, int n, int depth, const char *what)
{
	mg_op *full = NULL;
	for (int i = 0; i < n; i++)
		if (ops[i]->np == depth) full = ops[i];
	if (full && n > 1) return conflict(ops, n);
	if (full) return store_sql(x, b, full->sql, full->type, to, NULL, NULL, full->col);
	if (n == 0) return store_sql(x, b, dflt, dtype, to, NULL, NULL, what);
	if (to->id != DL_TYPE_STRUCT) {
		dl_buf p = DL_BUF_INIT;
		char ts[2048];
		path_text(&p, ops[0]->parts, depth);
		type_text(to, ts, sizeof ts);
		int rc = dl_error_set_class(DL_EINVALID, "DELTA_UNSUPPORTED_FIELD_UPDATE_NON_STRUCT",
		                            "[DELTA_UNSUPPORTED_FIELD_UPDATE_NON_STRUCT] Updating nested "
		                            "fields is only supported for StructType, but you are trying to "
		                            "update a field of %s, which is of type: %s (SET %s in the %s).",
		                            p.data ? p.data : "", ts, ops[0]->col, what);
		dl_buf_free(&p);
		return rc;
	}
	for (int i = 0; i < n; i++)
		if (dl_type_field_index(to, ops[i]->parts[depth]) < 0)
			return dl_error_set_class(DL_EINVALID, "DELTA_MERGE_UNRESOLVED_EXPRESSION",
			                          "[DELTA_MERGE_UNRESOLVED_EXPRESSION] Cannot resolve %s in %s "
			                          "given columns of the target table: the struct has no field "
			                          "`%s`",
			                          ops[i]->col, what, ops[i]->parts[depth]);
	mg_op **sub = dl_calloc((size_t)n + 1, sizeof *sub);
	if (!sub) return DL_ENOMEM;
	int rc = dl_buf_puts(b, "named_struct(");
	for (int f = 0; rc == 0 && f < to->nchildren; f++) {
		const dl_field *fld = &to->children[f];
		int m = 0;
		for (int i = 0; i < n; i++)
			if (strcasecmp(ops[i]->parts[depth], fld->name) == 0) sub[m++] = ops[i];
		int k = dflt && dtype && dtype->id == DL_TYPE_STRUCT ? dl_type_field_index(dtype, fld->name) : -1;
		char *child = k >= 0 ? field_of(x, dflt, dtype->children[k].name) : NULL;
		if (k >= 0 && !child) rc = DL_ENOMEM;
		if (rc == 0 && f) rc = dl_buf_puts(b, ", ");
		if (rc == 0) {
			dl_dml_sql_string(b, fld->name);
			rc = dl_buf_puts(b, ", ");
		}
		if (rc == 0)
			rc = rebuild(x, b, fld->type, child, k >= 0 ? dtype->children[k].type : NULL, sub, m,
			             depth + 1, what);
	}
	dl_free(sub);
	if (rc == 0) rc = dl_buf_puts(b, ")");
	return rc;
}

static bool is_identity(const dl_field *f) { return f->metadata && strstr(f->metadata, "delta.identity."); }

int dl_mg_update_nested(mg_exec *x, mg_clause *c, bool at, bool as, const char *what)
{
	mg_op *ops = dl_calloc((size_t)c->n + 1, sizeof *ops);
	dl_expr **es = dl_calloc((size_t)c->n + 1, sizeof *es);
	int *col = dl_calloc((size_t)c->n + 1, sizeof *col);
	mg_op **mine = dl_calloc((size_t)c->n + 1, sizeof *mine);
	int rc = ops && es && col && mine ? 0 : DL_ENOMEM;
	for (int k = 0; rc == 0 && k < c->n; k++) {
		rc = dl_mg_target_path(x, c->cols[k], &ops[k].parts, &ops[k].np);
		if (rc < 0) break;
		col[k] = dl_type_field_index(x->wschema, ops[k].parts[0]);
		if (col[k] < 0) {
			rc = dl_error_set_class(DL_EINVALID, "DELTA_MERGE_UNRESOLVED_EXPRESSION",
			                        "[DELTA_MERGE_UNRESOLVED_EXPRESSION] Cannot resolve %s in %s given "
			                        "columns of the target table",
			                        c->cols[k], what);
			break;
		}
		if (is_identity(&x->wschema->children[col[k]])) {
			rc = dl_error_set_class(DL_EINVALID, "DELTA_IDENTITY_COLUMNS_UPDATE_NOT_SUPPORTED",
			                        "[DELTA_IDENTITY_COLUMNS_UPDATE_NOT_SUPPORTED] IDENTITY column %s "
			                        "cannot be updated (MERGE %s)",
			                        x->wschema->children[col[k]].name, what);
			break;
		}
		ops[k].col = c->cols[k];
		rc = canonical(x, c->vals[k], at, as, what, &es[k], &ops[k].sql);
		if (rc == 0) ops[k].type = dl_expr_type(es[k]);
	}
	for (int w = 0; rc == 0 && w < x->nw; w++) {
		int m = 0;
		for (int k = 0; k < c->n; k++)
			if (col[k] == w) mine[m++] = &ops[k];
		if (m == 0) continue;
		/* the top-level column is depth 1 of each path */
		char old[32];
		dl_mg_tname(old, sizeof old, w);
		const dl_type *to = x->wschema->children[w].type;
		const dl_type *dtype = w < x->nt ? x->tschema->children[w].type : NULL;
		dl_buf b = DL_BUF_INIT;
		rc = rebuild(x, &b, to, dtype ? old : NULL, dtype, mine, m, 1, what);
		if (rc == 0) rc = bind_text(x, c, w, &b, what);
		dl_buf_free(&b);
	}
	for (int k = 0; es && k < c->n; k++) dl_expr_free(es[k]);
	dl_free(es);
	dl_free(ops);
	dl_free(col);
	dl_free(mine);
	return rc;
}

int dl_mg_evolved_defaults(mg_exec *x, mg_clause *c, const char *what)
{
	for (int w = 0; w < x->nt; w++) {
		const dl_type *from = x->tschema->children[w].type, *to = x->wschema->children[w].type;
		if (c->set[w] || dl_type_equals(from, to)) continue;
		char old[32];
		dl_mg_tname(old, sizeof old, w);
		dl_buf b = DL_BUF_INIT;
		int rc = store_sql(x, &b, old, from, to, NULL, NULL, x->wschema->children[w].name);
		if (rc == 0) rc = bind_text(x, c, w, &b, what);
		dl_buf_free(&b);
		DL_TRY(rc);
	}
	return 0;
}
