/* DELETE, UPDATE and MERGE statements: the parsed statement turned into the
 * DML layer's C API calls (deltalake/dml.h, deltalake/merge.h), which own
 * every rule of the operation (Spark's semantics, metrics, conflicts). This
 * file only translates:
 *
 *   - the target: a catalog name or delta.`path` (sql_target_resolve); time
 *     travel on a target is refused, as in Spark;
 *   - conditions and values: printed back to Spark SQL text. The C APIs of
 *     DELETE and UPDATE bind against the table's columns, so a qualifier
 *     naming the target (its alias, or its table name) is dropped from
 *     column references first; MERGE resolves its aliases itself, so its
 *     text keeps them;
 *   - MERGE's source: a Delta table (catalog name or delta.`path`, with
 *     VERSION AS OF) is handed over as a table, read by the merge itself;
 *     anything else (a subquery, VALUES, parquet/csv/json files, TIMESTAMP
 *     AS OF) is planned as SELECT * FROM source and streamed;
 *   - uncorrelated subqueries inside DELETE/UPDATE conditions and values
 *     run first and are replaced by their values (a scalar by its value,
 *     EXISTS by TRUE/FALSE, x [NOT] IN (subquery) by an IN list, whose
 *     NULLs keep NOT IN's three-valued answer), as the planner does for
 *     queries; a correlated [NOT] EXISTS is decorrelated
 *     (stmt_dml_exists.c), other correlated ones fail rather than run
 *     with another meaning;
 *   - the session's interrupt flag cancels through the operations' progress
 *     callbacks, and MERGE's join gets the session's memory limit.
 *
 * Results are Spark's: DELETE and UPDATE one row `num_affected_rows`; MERGE
 * `num_affected_rows, num_updated_rows, num_deleted_rows,
 * num_inserted_rows`. */
#include "sql/session_internal.h"
#include "sql/stmt_dml_internal.h"

#include <string.h>
#include <strings.h>

#include "columnar/batch_stream.h"
#include "deltalake/dml.h"
#include "deltalake/merge.h"
#include "expr/ast.h"
#include "rewrite/file_writer.h"
#include "util/buf.h"
#include "util/error.h"
#include "util/mem.h"

/* Cancels an operation once the session is interrupted. */
static int on_progress(const dl_progress_info *info, void *payload)
{
	(void)info;
	dl_sql_conn *c = payload;
	return atomic_load(&c->interrupt) ? 1 : 0;
}

static int cancelled_or(int rc, dl_sql_conn *c)
{
	if (rc == DL_ECANCELLED && atomic_load(&c->interrupt)) return sql_cancelled();
	return rc;
}

/* The name by which a statement may qualify the target's columns: its
 * alias, else the last part of its catalog name (NULL for a path). */
static const char *target_qualifier(const sql_table_ref *ref)
{
	if (ref->alias) return ref->alias;
	if (ref->kind == TREF_NAME && ref->name.nparts > 0) return ref->name.parts[ref->name.nparts - 1];
	return NULL;
}

static bool has_subquery(const ex_node *n)
{
	if (!n) return false;
	if (n->kind == EX_SUBQUERY) return true;
	for (int i = 0; i < n->nargs; i++)
		if (has_subquery(n->args[i])) return true;
	return false;
}

/* Drops a leading `qual.` from the column references of a tree copied into
 * its own dl_expr. A column `qual` itself (a struct column named like the
 * alias) is left alone: only paths of two or more parts lose their head. */
static void strip_qualifier(ex_node *n, const char *qual)
{
	if (!n) return;
	if (n->kind == EX_COL && n->npath >= 2 && qual && strcasecmp(n->path[0], qual) == 0) {
		n->path++;
		n->npath--;
	}
	for (int i = 0; i < n->nargs; i++) strip_qualifier(n->args[i], qual);
	if (n->kind == EX_CALL && n->over) {
		for (int i = 0; i < n->over->npartition; i++) strip_qualifier(n->over->partition[i], qual);
		for (int i = 0; i < n->over->norder; i++) strip_qualifier(n->over->order[i].expr, qual);
	}
}

/* ---- uncorrelated subqueries, replaced by their values ---- */

/* NULL of type t: CAST(NULL AS t). */
static ex_node *null_of(dl_expr *e, const dl_type *t)
{
	ex_node *l = ex_node_new(e, EX_LIT, 0), *c = ex_node_new(e, EX_CAST, 0);
	if (!l || !c || ex_node_set_args(e, c, 1) < 0) return NULL;
	l->lit.type = DL_TYPE_NULL;
	l->lit.is_null = true;
	c->args[0] = l;
	c->to = ex_keep_type(e, dl_type_ref((dl_type *)t));
	return c->to ? c : NULL;
}

int sql_dml_literal(ex_node **out, dl_expr *e, const dl_array *a, int64_t r)
{
	if (!dl_array_is_valid(a, r)) return (*out = null_of(e, a->type)) ? 0 : DL_ENOMEM;
	dl_scalar v;
	if (dl_array_scalar(&v, a, r) < 0) {
		char tn[128];
		dl_type_sql(a->type, tn, sizeof tn);
		return dl_error_set(DL_EUNSUPPORTED, "a subquery returning %s values cannot be used here yet", tn);
	}
	if (v.type == DL_TYPE_STRING || v.type == DL_TYPE_BINARY) {
		char *p = dl_arena_strndup(&e->arena, v.v.str.ptr, v.v.str.len);
		if (!p) return DL_ENOMEM;
		v.v.str.ptr = p;
	}
	ex_node *l = ex_node_new(e, EX_LIT, 0);
	if (!l) return DL_ENOMEM;
	l->lit = v;
	/* typed as the column: a literal 1 of a BIGINT column stays BIGINT */
	ex_node *c = ex_node_new(e, EX_CAST, 0);
	if (!c || ex_node_set_args(e, c, 1) < 0) return DL_ENOMEM;
	c->args[0] = l;
	c->to = ex_keep_type(e, dl_type_ref(a->type));
	if (!c->to) return DL_ENOMEM;
	*out = c;
	return 0;
}

int sql_dml_run_subquery(dl_batch **out, const sql_env *env, const void *q, const char *what)
{
	*out = NULL;
	dl_batch_stream *s;
	int rc = sql_plan_query(&s, env, q);
	if (rc < 0)
		return rc == DL_EINVALID || rc == DL_ENOTFOUND
		               ? dl_error_prefix("%s: the subquery (where it references the target's columns: a "
		                                 "correlated subquery is supported as [NOT] EXISTS comparing them with "
		                                 "= or <=> in its WHERE)",
		                                 what)
		               : rc;
	dl_batch **bs = NULL;
	int n = 0, cap = 0;
	for (;;) {
		dl_batch *b;
		if ((rc = dl_batch_stream_next(s, &b)) < 0 || !b) break;
		if (n == cap) {
			cap = cap ? 2 * cap : 8;
			dl_batch **g = dl_reallocarray(bs, (size_t)cap, sizeof *g);
			if (!g) {
				dl_batch_free(b);
				rc = dl_error_set(DL_ENOMEM, "out of memory");
				break;
			}
			bs = g;
		}
		bs[n++] = b;
	}
	if (rc == 0) {
		*out = n == 0 ? dl_batch_new((dl_type *)dl_batch_stream_schema(s), 0)
		              : n == 1 ? bs[0] : dl_batch_concat(bs, n);
		if (!*out) rc = dl_error_set(DL_ENOMEM, "out of memory");
		if (n == 1 && *out) n = 0;
	}
	for (int i = 0; i < n; i++) dl_batch_free(bs[i]);
	dl_free(bs);
	dl_batch_stream_free(s);
	return rc;
}

/* Copies n into e with its uncorrelated subqueries replaced by their values.
 * (ex_copy_tree cannot copy a subquery out of its statement: a node above
 * one is copied field by field with new children, the rest by
 * ex_copy_tree.) */
static int copy_inline(ex_node **n, dl_expr *e, const ex_node *src, const sql_env *env, const char *qual,
                       const char *what)
{
	*n = NULL;
	if (!src) return 0;
	if (!has_subquery(src)) return (*n = ex_copy_tree(e, src)) ? 0 : DL_ENOMEM;
	ex_node *x = ex_node_new(e, src->kind, src->pos);
	if (!x) return DL_ENOMEM;
	*x = *src;
	x->args = NULL;
	if (ex_node_set_args(e, x, src->nargs) < 0) return DL_ENOMEM;
	for (int i = 0; i < src->nargs; i++) DL_TRY(copy_inline(&x->args[i], e, src->args[i], env, qual, what));
	*n = x;
	if (x->kind != EX_SUBQUERY) return 0;
	if (x->op == SQ_EXISTS) {
		int handled = sql_dml_correlated_exists(n, e, x, env, qual, what);
		if (handled != 0) return handled < 0 ? handled : 0;
	}
	dl_batch *b;
	DL_TRY(sql_dml_run_subquery(&b, env, x->query, what));
	int rc = 0;
	if (x->op == SQ_EXISTS) {
		ex_node *l = ex_node_new(e, EX_LIT, x->pos);
		if (!l) rc = DL_ENOMEM;
		else {
			l->lit.type = DL_TYPE_BOOLEAN;
			l->lit.v.b = (b->num_rows > 0) != x->negated;
			*n = l;
		}
	} else if (b->ncols != 1) {
		rc = dl_error_set_class(DL_EINVALID, "INVALID_SUBQUERY_EXPRESSION",
		                        "[INVALID_SUBQUERY_EXPRESSION.SCALAR_SUBQUERY_RETURN_MORE_THAN_ONE_OUTPUT_COLUMN] "
		                        "Invalid subquery: the subquery must return only one column, but got %d.",
		                        b->ncols);
	} else if (x->op == SQ_SCALAR) {
		if (b->num_rows > 1)
			rc = dl_error_set_class(DL_EINVALID, "SCALAR_SUBQUERY_TOO_MANY_ROWS",
			                        "[SCALAR_SUBQUERY_TOO_MANY_ROWS] More than one row returned by a subquery "
			                        "used as an expression.");
		else if (b->num_rows == 0)
			rc = (*n = null_of(e, b->cols[0]->type)) ? 0 : DL_ENOMEM;
		else
			rc = sql_dml_literal(n, e, b->cols[0], 0);
	} else if (b->num_rows == 0) { /* x IN (no rows) is FALSE, even for a NULL x */
		ex_node *l = ex_node_new(e, EX_LIT, x->pos);
		if (!l) rc = DL_ENOMEM;
		else {
			l->lit.type = DL_TYPE_BOOLEAN;
			l->lit.v.b = x->negated;
			*n = l;
		}
	} else {
		ex_node *in = ex_node_new(e, EX_IN, x->pos);
		if (!in || ex_node_set_args(e, in, (int)b->num_rows + 1) < 0) rc = DL_ENOMEM;
		else {
			in->negated = x->negated;
			in->args[0] = x->args[0];
			for (int64_t r = 0; r < b->num_rows && rc == 0; r++) rc = sql_dml_literal(&in->args[r + 1], e, b->cols[0], r);
			*n = in;
		}
	}
	dl_batch_free(b);
	return rc;
}

/* Spark SQL text of n (NUL-terminated in *out: dl_free), with the target's
 * qualifier dropped when `qual` is given and uncorrelated subqueries
 * replaced by their values (env NULL: subqueries are refused). */
static int expr_text_env(char **out, const ex_node *n, const char *qual, const char *what, const sql_env *env)
{
	*out = NULL;
	if (has_subquery(n) && !env)
		return dl_error_set(DL_EUNSUPPORTED, "%s with a subquery here is not supported yet: run the subquery "
		                                     "first and use its values",
		                    what);
	dl_expr *e = ex_expr_new();
	if (!e) return dl_error_set(DL_ENOMEM, "out of memory");
	ex_node *copy = NULL;
	int rc = env ? copy_inline(&copy, e, n, env, qual, what) : (copy = ex_copy_tree(e, n)) ? 0 : DL_ENOMEM;
	if (rc == DL_ENOMEM && dl_error_last()->code != DL_ENOMEM) rc = dl_error_set(DL_ENOMEM, "out of memory");
	if (rc == 0) strip_qualifier(copy, qual);
	dl_buf b = DL_BUF_INIT;
	if (rc == 0) rc = ex_print(&b, copy);
	if (rc == 0) rc = dl_buf_putc(&b, 0);
	if (rc == 0) *out = (char *)dl_buf_detach(&b, NULL);
	if (rc == 0 && !*out) rc = dl_error_set(DL_ENOMEM, "out of memory");
	dl_buf_free(&b);
	dl_expr_free(e);
	return rc;
}

static int expr_text(char **out, const ex_node *n, const char *qual, const char *what)
{
	return expr_text_env(out, n, qual, what, NULL);
}

/* A column name of SET / INSERT (cols): its parts joined by '.', each in
 * backquotes when it needs them, without a leading target qualifier. */
static int column_text(char **out, const sql_name *name, const char *qual)
{
	int first = 0;
	if (qual && name->nparts >= 2 && strcasecmp(name->parts[0], qual) == 0) first = 1;
	dl_buf b = DL_BUF_INIT;
	int rc = 0;
	for (int i = first; i < name->nparts && rc == 0; i++) {
		const char *p = name->parts[i];
		bool plain = p[0] && !(p[0] >= '0' && p[0] <= '9');
		for (const char *q = p; *q && plain; q++)
			plain = (*q >= 'a' && *q <= 'z') || (*q >= 'A' && *q <= 'Z') || (*q >= '0' && *q <= '9') || *q == '_';
		if (i > first) rc = dl_buf_putc(&b, '.');
		if (rc == 0 && plain) rc = dl_buf_puts(&b, p);
		if (rc == 0 && !plain) {
			rc = dl_buf_putc(&b, '`');
			for (const char *q = p; *q && rc == 0; q++)
				rc = *q == '`' ? dl_buf_puts(&b, "``") : dl_buf_putc(&b, *q);
			if (rc == 0) rc = dl_buf_putc(&b, '`');
		}
	}
	if (rc == 0) rc = dl_buf_putc(&b, 0);
	if (rc == 0) *out = (char *)dl_buf_detach(&b, NULL);
	if (rc == 0 && !*out) rc = dl_error_set(DL_ENOMEM, "out of memory");
	dl_buf_free(&b);
	return rc;
}

static int no_time_travel(const sql_table_ref *ref, const char *what)
{
	if (ref->tt.kind != TT_NONE)
		return dl_error_set_class(DL_EUNSUPPORTED, "DELTA_UNSUPPORTED_TIME_TRAVEL_VIEWS",
		                          "%s cannot write to a table at a past version (time travel on the target "
		                          "of %s is not allowed)",
		                          what, what);
	return 0;
}

static int counts_result(dl_batch_stream **out, const char *const *names, const int64_t *v, int n)
{
	dl_type_id types[4] = {DL_TYPE_LONG, DL_TYPE_LONG, DL_TYPE_LONG, DL_TYPE_LONG};
	sql_rows r;
	DL_TRY(sql_rows_init(&r, names, types, n));
	int rc = 0;
	for (int i = 0; i < n && rc == 0; i++) rc = sql_rows_int(&r, i, v[i]);
	if (rc == 0) rc = sql_rows_finish(out, &r);
	sql_rows_free(&r);
	return rc;
}

/* ---- DELETE ------------------------------------------------------------ */

int sql_run_delete(dl_batch_stream **out, dl_sql_conn *c, const sql_stmt *st)
{
	DL_TRY(no_time_travel(st->table, "DELETE"));
	sql_env env;
	sql_session_env(&env, c);
	char *pred = NULL;
	if (st->where) DL_TRY(expr_text_env(&pred, st->where, target_qualifier(st->table), "DELETE", &env));
	sql_target t;
	int rc = sql_target_resolve(&t, c, st->table);
	if (rc < 0) {
		dl_free(pred);
		return rc;
	}
	dl_delete_options o = DL_DELETE_OPTIONS_INIT;
	o.store_options = c->store_options;
	o.progress = on_progress;
	o.progress_payload = c;
	dl_delete_metrics m;
	rc = cancelled_or(dl_delete(&m, t.uri, pred, &o), c);
	sql_target_free(&t);
	dl_free(pred);
	DL_TRY(rc);
	static const char *const names[] = {"num_affected_rows"};
	int64_t v[] = {m.num_affected_rows};
	return counts_result(out, names, v, 1);
}

/* ---- UPDATE ------------------------------------------------------------ */

int sql_run_update(dl_batch_stream **out, dl_sql_conn *c, const sql_stmt *st)
{
	DL_TRY(no_time_travel(st->table, "UPDATE"));
	const char *qual = target_qualifier(st->table);
	sql_env env;
	sql_session_env(&env, c);
	int n = st->nsets;
	dl_update_assignment *as = dl_calloc((size_t)(n ? n : 1), sizeof *as);
	char **texts = dl_calloc((size_t)(2 * n + 1), sizeof *texts);
	int rc = as && texts ? 0 : dl_error_set(DL_ENOMEM, "out of memory");
	for (int i = 0; i < n && rc == 0; i++) {
		rc = column_text(&texts[2 * i], &st->sets[i].column, qual);
		if (rc == 0) rc = expr_text_env(&texts[2 * i + 1], st->sets[i].value, qual, "UPDATE", &env);
		if (rc == 0) as[i] = (dl_update_assignment){texts[2 * i], texts[2 * i + 1]};
	}
	if (rc == 0 && st->where) rc = expr_text_env(&texts[2 * n], st->where, qual, "UPDATE", &env);
	sql_target t;
	bool have_t = false;
	if (rc == 0) have_t = (rc = sql_target_resolve(&t, c, st->table)) == 0;
	dl_update_metrics m;
	if (rc == 0) {
		dl_update_options o = DL_UPDATE_OPTIONS_INIT;
		o.store_options = c->store_options;
		o.progress = on_progress;
		o.progress_payload = c;
		rc = cancelled_or(dl_update(&m, t.uri, as, (size_t)n, texts[2 * n], &o), c);
	}
	if (have_t) sql_target_free(&t);
	for (int i = 0; texts && i < 2 * n + 1; i++) dl_free(texts[i]);
	dl_free(texts);
	dl_free(as);
	DL_TRY(rc);
	static const char *const names[] = {"num_affected_rows"};
	int64_t v[] = {m.num_affected_rows};
	return counts_result(out, names, v, 1);
}

/* ---- MERGE ------------------------------------------------------------- */

/* Strings a merge call borrows, freed together at the end. */
typedef struct strs {
	char **v;
	int n, cap;
} strs;

static int keep(strs *s, char *p)
{
	if (s->n == s->cap) {
		int cap = s->cap ? 2 * s->cap : 16;
		char **v = dl_reallocarray(s->v, (size_t)cap, sizeof *v);
		if (!v) {
			dl_free(p);
			return dl_error_set(DL_ENOMEM, "out of memory");
		}
		s->v = v;
		s->cap = cap;
	}
	s->v[s->n++] = p;
	return 0;
}

static void strs_free(strs *s)
{
	for (int i = 0; i < s->n; i++) dl_free(s->v[i]);
	dl_free(s->v);
}

/* Text of a merge condition or value (aliases kept: the merge resolves
 * them), kept in s; *out NULL for a NULL node. */
static int merge_text(const char **out, strs *s, const ex_node *n)
{
	*out = NULL;
	if (!n) return 0;
	char *t;
	DL_TRY(expr_text(&t, n, NULL, "MERGE"));
	DL_TRY(keep(s, t));
	*out = t;
	return 0;
}

/* SET assignments as two arrays of texts kept in s. */
static int merge_sets(const char ***cols, const char ***vals, strs *s, const sql_assign *sets, int n,
                      const char *target_qual)
{
	*cols = dl_calloc((size_t)(n ? n : 1), sizeof **cols);
	*vals = dl_calloc((size_t)(n ? n : 1), sizeof **vals);
	if (!*cols || !*vals) return dl_error_set(DL_ENOMEM, "out of memory");
	for (int i = 0; i < n; i++) {
		char *col;
		DL_TRY(column_text(&col, &sets[i].column, target_qual));
		DL_TRY(keep(s, col));
		(*cols)[i] = col;
		DL_TRY(merge_text(&(*vals)[i], s, sets[i].value));
	}
	return 0;
}

static int merge_clause(dl_merge *m, strs *s, const sql_merge_clause *cl, const char *target_qual)
{
	const char *cond;
	DL_TRY(merge_text(&cond, s, cl->cond));
	const char **cols = NULL, **vals = NULL;
	int rc = 0;
	switch (cl->action) {
	case MERGE_UPDATE:
		rc = merge_sets(&cols, &vals, s, cl->sets, cl->nsets, target_qual);
		if (rc == 0)
			rc = cl->match == MERGE_NOT_MATCHED_BY_SOURCE
			             ? dl_merge_when_not_matched_by_source_update(m, cond, cols, vals, cl->nsets)
			             : dl_merge_when_matched_update(m, cond, cols, vals, cl->nsets);
		break;
	case MERGE_UPDATE_STAR:
		rc = dl_merge_when_matched_update_all(m, cond);
		break;
	case MERGE_DELETE:
		rc = cl->match == MERGE_NOT_MATCHED_BY_SOURCE ? dl_merge_when_not_matched_by_source_delete(m, cond)
		                                              : dl_merge_when_matched_delete(m, cond);
		break;
	case MERGE_INSERT:
		if (cl->ncols != cl->nvalues && cl->ncols > 0) {
			rc = dl_error_set(DL_EINVALID, "MERGE: INSERT lists %d columns but %d values", cl->ncols, cl->nvalues);
			break;
		}
		cols = dl_calloc((size_t)(cl->nvalues ? cl->nvalues : 1), sizeof *cols);
		vals = dl_calloc((size_t)(cl->nvalues ? cl->nvalues : 1), sizeof *vals);
		if (!cols || !vals) rc = dl_error_set(DL_ENOMEM, "out of memory");
		for (int i = 0; i < cl->nvalues && rc == 0; i++) {
			if (cl->ncols > 0) {
				char *col;
				rc = column_text(&col, &cl->cols[i], target_qual);
				if (rc == 0) rc = keep(s, col);
				if (rc == 0) cols[i] = col;
			}
			if (rc == 0) rc = merge_text(&vals[i], s, cl->values[i]);
		}
		if (rc == 0 && cl->ncols == 0)
			rc = dl_error_set(DL_EINVALID, "MERGE: INSERT VALUES needs the column list: INSERT (a, b) "
			                               "VALUES (s.a, s.b), or INSERT * for every column");
		if (rc == 0) rc = dl_merge_when_not_matched_insert(m, cond, cols, vals, cl->nvalues);
		break;
	case MERGE_INSERT_STAR:
		rc = dl_merge_when_not_matched_insert_all(m, cond);
		break;
	}
	dl_free(cols);
	dl_free(vals);
	return rc;
}

/* A Delta table source read by the merge itself: a catalog name or
 * delta.`path`, at the latest version or VERSION AS OF n. */
static int source_as_table(bool *done, dl_merge *m, dl_sql_conn *c, const sql_table_ref *src, const sql_env *env)
{
	*done = false;
	bool delta = src->kind == TREF_NAME || (src->kind == TREF_PATH && strcmp(src->format, "delta") == 0);
	if (!delta || src->tt.kind == TT_TIMESTAMP) return 0;
	/* a one-part name may be a CTE or view elsewhere; in MERGE it names a table */
	int64_t version = -1;
	if (src->tt.kind == TT_VERSION) {
		dl_snapshot_options so = DL_SNAPSHOT_OPTIONS_INIT;
		DL_TRY(sql_time_travel_options(&so, &src->tt, &env->ctx));
		version = so.as_of_version;
	}
	sql_target t;
	DL_TRY(sql_target_resolve(&t, c, src));
	int rc = dl_merge_source_table(m, t.uri, version);
	sql_target_free(&t);
	*done = rc == 0;
	return rc;
}

/* Anything else: SELECT * FROM source, planned and streamed. */
static int source_as_stream(dl_merge *m, const sql_table_ref *src, const sql_env *env)
{
	sql_select_item star = {.star = true};
	sql_select sel = {.items = &star, .nitems = 1, .from = (sql_table_ref *)src};
	sql_query q = {.kind = Q_SELECT, .pos = src->pos, .select = &sel};
	dl_batch_stream *s;
	DL_TRY(sql_plan_query(&s, env, &q));
	struct ArrowArrayStream a;
	DL_TRY(dl_batch_stream_export(&a, s));
	int rc = dl_merge_source_stream(m, &a);
	if (a.release) a.release(&a);
	return rc;
}

static const char *source_qualifier(const sql_table_ref *src)
{
	if (src->alias) return src->alias;
	if (src->kind == TREF_NAME && src->name.nparts > 0) return src->name.parts[src->name.nparts - 1];
	return NULL;
}

int sql_run_merge(dl_batch_stream **out, dl_sql_conn *c, const sql_stmt *st)
{
	DL_TRY(no_time_travel(st->table, "MERGE"));
	sql_target t;
	DL_TRY(sql_target_resolve(&t, c, st->table));
	sql_env env;
	sql_session_env(&env, c);
	dl_merge_options o = DL_MERGE_OPTIONS_INIT;
	o.store_options = c->store_options;
	o.progress = on_progress;
	o.progress_payload = c;
	o.memory_limit = c->memory_limit;
	o.temp_dir = c->temp_dir;
	dl_merge *m = NULL;
	strs s = {NULL, 0, 0};
	int rc = sql_auto_widening(&o.auto_widening, c);
	if (rc == 0) rc = dl_merge_new(&m, t.uri, &o);
	const char *tq = target_qualifier(st->table);
	if (rc == 0) rc = dl_merge_alias(m, tq, source_qualifier(st->source));
	const char *on = NULL;
	if (rc == 0) rc = merge_text(&on, &s, st->on);
	if (rc == 0) rc = dl_merge_on(m, on);
	for (int i = 0; i < st->nclauses && rc == 0; i++) rc = merge_clause(m, &s, &st->clauses[i], tq);
	if (rc == 0 && st->schema_evolution) rc = dl_merge_with_schema_evolution(m);
	bool done = false;
	if (rc == 0) rc = source_as_table(&done, m, c, st->source, &env);
	if (rc == 0 && !done) rc = source_as_stream(m, st->source, &env);
	dl_merge_metrics mm;
	memset(&mm, 0, sizeof mm);
	if (rc == 0) rc = cancelled_or(dl_merge_execute(&mm, m), c);
	dl_merge_free(m);
	strs_free(&s);
	sql_target_free(&t);
	DL_TRY(rc);
	static const char *const names[] = {"num_affected_rows", "num_updated_rows", "num_deleted_rows",
	                                    "num_inserted_rows"};
	int64_t v[] = {mm.num_target_rows_updated + mm.num_target_rows_deleted + mm.num_target_rows_inserted,
	               mm.num_target_rows_updated, mm.num_target_rows_deleted, mm.num_target_rows_inserted};
	return counts_result(out, names, v, 4);
}
