/* UPDATE t SET c = e [, ...] [WHERE p] (include/deltalake/dml.h), following
 * Spark's PreprocessTableUpdate and UpdateCommand.performUpdate.
 *
 * Assignments become one expression per top-level column over the row's
 * old values: the value cast to the column type (ANSI store assignment),
 * and for nested fields a named_struct rebuilding the struct with the
 * assigned fields replaced (Spark's UpdateExpressionsSupport). The rewrite
 * engine selects the rows and calls back with the matched rows of each
 * file; the callback evaluates the expressions, recomputes generated
 * columns not assigned, checks NOT NULL / CHECK / generated values (the
 * write path's enforcer, ops/enforce.h) and returns the new rows, which the
 * engine writes to new files (partitioned by their new values) while the
 * old rows are deleted by DV or copy-on-write.
 *
 * Spark's cases: a condition over partition columns only (or none)
 * rewrites the candidate files whole, copy-on-write even when the table
 * has DVs (case 2); otherwise DVs when the table writes them (case 3.1),
 * else copy-on-write of the files holding a match (case 3.2). Metrics as
 * Spark sets them in each case. */
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>
#include "deltalake/dml.h"
#include "dml/dml_common.h"
#include "dml/struct_store.h"
#include "log/schema.h"
#include "ops/enforce.h"
#include "rewrite/conform.h"
#include "util/buf.h"
#include "util/error.h"
#include "util/mem.h"
#include "util/options.h"

static const size_t update_options_ends[] = {
	DL_OPTIONS_END(dl_update_options, target_file_size), /* 1 */
	sizeof(dl_update_options),                           /* 2: txn_app_id, txn_version */
};
DL_OPTIONS_ENDS_CHECK(update_options_ends, DL_UPDATE_OPTIONS_VERSION);

#define MAX_DEPTH 32

/* One assignment resolved against the schema: field indexes per level. */
typedef struct resolved {
	int idx[MAX_DEPTH];
	const char *names[MAX_DEPTH]; /* as spelled in the schema */
	int depth;
	const char *expression;
	const char *column;           /* as the caller wrote it */
} resolved;

typedef struct update_ctx {
	dl_dml_cmd *c;
	const dl_type *schema;        /* the snapshot's (borrowed) */
	int ncols;
	dl_expr **values;             /* per column: the new value, or NULL (kept) */
	bool *fill;                   /* per column: provided to the enforcer's fill */
	bool *check;                  /* per column: provided to its check */
	dl_enforcer *enf;
	pthread_mutex_t lock;         /* the enforcer is not thread-safe */
} update_ctx;

/* ---- resolving the SET columns ---- */

/* Splits "a.b" / "`a.b`.c" into parts (in `arena`). */
static int split_path(const char *col, dl_arena *arena, char **parts, int *n)
{
	*n = 0;
	const char *p = col;
	while (*p) {
		if (*n == MAX_DEPTH) return dl_error_set(DL_EINVALID, "column path %s is too deep", col);
		dl_buf b = DL_BUF_INIT;
		dl_buf_puts(&b, "");
		if (*p == '`') {
			p++;
			for (;;) {
				if (!*p) {
					dl_buf_free(&b);
					return dl_error_set(DL_EINVALID, "unterminated ` in column %s", col);
				}
				if (*p == '`' && p[1] == '`') { dl_buf_putc(&b, '`'); p += 2; continue; }
				if (*p == '`') { p++; break; }
				dl_buf_putc(&b, *p++);
			}
		} else {
			while (*p && *p != '.') dl_buf_putc(&b, *p++);
		}
		parts[(*n)++] = dl_arena_strdup(arena, b.data);
		dl_buf_free(&b);
		if (!parts[*n - 1]) return DL_ENOMEM;
		if (*p == '.') {
			p++;
			if (!*p) return dl_error_set(DL_EINVALID, "column %s ends with '.'", col);
		} else if (*p) {
			return dl_error_set(DL_EINVALID, "unexpected text after ` in column %s", col);
		}
	}
	if (*n == 0) return dl_error_set(DL_EINVALID, "an UPDATE assignment names no column");
	return 0;
}

static int find_field(const dl_type *st, const char *name)
{
	for (int i = 0; i < st->nchildren; i++)
		if (strcasecmp(st->children[i].name, name) == 0) return i;
	return -1;
}

static void column_list(dl_buf *b, const dl_type *st)
{
	dl_buf_putc(b, '[');
	for (int i = 0; i < st->nchildren; i++)
		dl_buf_printf(b, "%s`%s`", i ? ", " : "", st->children[i].name);
	dl_buf_putc(b, ']');
}

static int resolve(resolved *r, const dl_type *schema, const dl_update_assignment *a,
                   dl_arena *arena)
{
	if (!a->column || !a->expression)
		return dl_error_set(DL_EINVALID, "an UPDATE assignment lacks its column or value");
	char *parts[MAX_DEPTH];
	int n;
	DL_TRY(split_path(a->column, arena, parts, &n));
	const dl_type *st = schema;
	memset(r, 0, sizeof *r);
	for (int d = 0; d < n; d++) {
		if (st->id != DL_TYPE_STRUCT)
			return dl_error_set_class(DL_EINVALID, "DELTA_UNSUPPORTED_FIELD_UPDATE_NON_STRUCT",
			                          "Nested field is not supported in the UPDATE: `%s` is not "
			                          "a struct (SET %s)", r->names[d - 1], a->column);
		int k = find_field(st, parts[d]);
		if (k < 0) {
			dl_buf b = DL_BUF_INIT;
			column_list(&b, st);
			int rc = dl_error_set_class(DL_EINVALID, "DELTA_MISSING_SET_COLUMN",
			                            "`%s` is not a column of the target table: %s (SET %s)",
			                            parts[d], b.data ? b.data : "[]", a->column);
			dl_buf_free(&b);
			return rc;
		}
		r->idx[d] = k;
		r->names[d] = st->children[k].name;
		st = st->children[k].type;
	}
	r->depth = n;
	r->expression = a->expression;
	r->column = a->column;
	dl_identity_info id;
	DL_TRY(dl_field_identity(&schema->children[r->idx[0]], &id));
	if (id.is_identity)
		return dl_error_set_class(DL_EINVALID, "DELTA_IDENTITY_COLUMNS_UPDATE_NOT_SUPPORTED",
		                          "IDENTITY column update is not supported: `%s`",
		                          r->names[0]);
	return 0;
}

/* Two assignments of one column, or of a struct and a field inside it. */
static int check_conflicts(const resolved *rs, size_t n)
{
	for (size_t i = 0; i < n; i++)
		for (size_t j = i + 1; j < n; j++) {
			int d = rs[i].depth < rs[j].depth ? rs[i].depth : rs[j].depth;
			bool prefix = true;
			for (int k = 0; k < d && prefix; k++) prefix = rs[i].idx[k] == rs[j].idx[k];
			if (prefix)
				return dl_error_set_class(DL_EINVALID, "DELTA_CONFLICT_SET_COLUMN",
				                          "There is a conflict from these SET columns: [`%s`, "
				                          "`%s`]", rs[i].column, rs[j].column);
		}
	return 0;
}

/* ---- the new value of a column as SQL ---- */

/* The value expr (over the table's columns) stored into type t: a struct
 * value by field name (Spark's castIfNeeded, struct_store.c), else a
 * CAST. */
static int cast_text(dl_buf *b, const char *expr, const dl_type *t, const dl_type *schema,
                     const char *col)
{
	if (dl_dml_has_struct(t)) {
		dl_expr *e = NULL;
		/* errors are reported where the value is bound (build_values) */
		if (dl_expr_parse(&e, expr) == 0 && dl_expr_bind(e, schema) == 0 &&
		    dl_dml_has_struct(dl_expr_type(e))) {
			int rc = dl_dml_store_sql(b, expr, dl_expr_type(e), t, NULL, NULL, false, col);
			dl_expr_free(e);
			return rc;
		}
		if (e) dl_expr_free(e);
		dl_error_clear();
	}
	return dl_dml_cast_sql(b, expr, t, col);
}

/* The value of the field at `prefix` (SQL text of its path, depth `depth`)
 * of type `t` given the assignments rs (all under this prefix). */
static int value_sql(dl_buf *b, const dl_type *t, const char *prefix, int depth,
                     const resolved *const *rs, size_t n, const dl_type *schema)
{
	for (size_t i = 0; i < n; i++)
		if (rs[i]->depth == depth) /* errors name the column as the schema spells it */
			return cast_text(b, rs[i]->expression, t, schema, rs[i]->names[depth - 1]);
	/* nested assignments: rebuild the struct field by field */
	dl_buf_puts(b, "named_struct(");
	const resolved **sub = dl_calloc(n + 1, sizeof *sub);
	if (!sub) return DL_ENOMEM;
	int rc = 0;
	for (int f = 0; f < t->nchildren && rc == 0; f++) {
		const dl_field *fld = &t->children[f];
		size_t m = 0;
		for (size_t i = 0; i < n; i++)
			if (rs[i]->idx[depth] == f) sub[m++] = rs[i];
		if (f) dl_buf_puts(b, ", ");
		dl_dml_sql_string(b, fld->name);
		dl_buf_puts(b, ", ");
		dl_buf path = DL_BUF_INIT;
		dl_buf_puts(&path, prefix);
		dl_buf_putc(&path, '.');
		dl_dml_sql_ident(&path, fld->name);
		if (m == 0) dl_buf_puts(b, path.data);
		else rc = value_sql(b, fld->type, path.data, depth + 1, sub, m, schema);
		dl_buf_free(&path);
	}
	dl_free(sub);
	dl_buf_putc(b, ')');
	return rc;
}

/* Binds every value, checking each assignment's expression first so an
 * error names the assignment the caller wrote. */
static int build_values(update_ctx *u, const resolved *rs, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		dl_expr *e;
		char what[600];
		snprintf(what, sizeof what, "the UPDATE value of %s", rs[i].column);
		if (dl_expr_parse(&e, rs[i].expression) < 0) return dl_error_prefix("%s", what);
		int rc = dl_expr_bind(e, u->schema);
		if (rc == 0 && !dl_expr_is_deterministic(e))
			rc = dl_error_set_class(DL_EINVALID, "DELTA_NON_DETERMINISTIC_FUNCTION_NOT_SUPPORTED",
			                        "%s '%s' is not deterministic", what, rs[i].expression);
		else if (rc < 0)
			rc = dl_error_prefix("%s", what);
		dl_expr_free(e);
		DL_TRY(rc);
	}
	const resolved **mine = dl_calloc(n + 1, sizeof *mine);
	if (!mine) return DL_ENOMEM;
	int rc = 0;
	for (int col = 0; col < u->ncols && rc == 0; col++) {
		size_t m = 0;
		for (size_t i = 0; i < n; i++)
			if (rs[i].idx[0] == col) mine[m++] = &rs[i];
		if (!m) continue;
		const dl_field *f = &u->schema->children[col];
		dl_buf sql = DL_BUF_INIT, prefix = DL_BUF_INIT;
		dl_dml_sql_ident(&prefix, f->name);
		rc = value_sql(&sql, f->type, prefix.data, 1, mine, m, u->schema);
		if (rc == 0) rc = dl_expr_parse(&u->values[col], sql.data);
		if (rc == 0) rc = dl_expr_bind(u->values[col], u->schema);
		if (rc < 0) rc = dl_error_prefix("SET %s", mine[0]->column);
		dl_buf_free(&sql);
		dl_buf_free(&prefix);
	}
	dl_free(mine);
	return rc;
}

/* ---- the update callback (pool threads) ---- */

static int new_rows(dl_batch **out, const dl_rewrite_matched *m, void *payload)
{
	update_ctx *u = payload;
	int64_t n = m->rows->num_rows;
	/* the matched rows start with the snapshot's columns */
	dl_batch old = {(dl_type *)u->schema, n, u->ncols, m->rows->cols};
	dl_batch *b = dl_batch_new((dl_type *)u->schema, n);
	if (!b) return dl_error_last()->code;
	int rc = 0;
	for (int i = 0; i < u->ncols && rc == 0; i++) {
		dl_type *t = u->schema->children[i].type;
		dl_array *a = NULL;
		if (!u->fill[i]) {
			a = dl_array_new_null(t, n); /* placeholder the enforcer replaces */
			if (!a) rc = dl_error_last()->code;
		} else if (u->values[i]) {
			rc = dl_expr_eval(&a, u->values[i], &old, NULL);
			if (rc == 0 && !dl_type_equals(a->type, t)) {
				dl_array *c;
				rc = dl_array_conform(&c, a, t);
				dl_array_free(a);
				a = rc == 0 ? c : NULL;
			}
		} else {
			a = dl_array_slice(old.cols[i], 0, n);
			if (!a) rc = dl_error_last()->code;
		}
		b->cols[i] = a;
	}
	if (rc == 0) {
		pthread_mutex_lock(&u->lock);
		rc = dl_enforcer_fill(u->enf, b, u->fill);
		if (rc == 0) rc = dl_enforcer_check(u->enf, b, u->check);
		pthread_mutex_unlock(&u->lock);
	}
	if (rc < 0) {
		dl_batch_free(b);
		return rc;
	}
	*out = b;
	return 0;
}

/* ---- metrics ---- */

static void fill_metrics(dl_update_metrics *m, const dl_dml_cmd *c, bool whole_files,
                         int64_t scan_ms, int64_t rewrite_ms)
{
	const dl_rewrite_metrics *r = dl_rewrite_get_metrics(c->rw);
	bool dv = c->use_dv && !whole_files;
	m->numUpdatedRows = r->updated_rows;
	m->numRemovedFiles = r->removed_files;
	m->numAddedChangeFiles = r->change_files;
	m->numDeletionVectorsAdded = r->dvs_added + r->dvs_updated;
	m->numDeletionVectorsRemoved = r->dvs_removed + r->dvs_updated;
	m->numDeletionVectorsUpdated = r->dvs_updated;
	if (dv) {
		/* case 3.1: Spark counts neither the files of the updated rows nor
		 * bytes, and copies no rows */
		m->numAddedFiles = m->numAddedBytes = m->numRemovedBytes = m->numCopiedRows = 0;
	} else {
		m->numAddedFiles = r->added_files;
		m->numAddedBytes = r->added_bytes;
		m->numRemovedBytes = r->removed_bytes;
		m->numCopiedRows = r->copied_rows;
	}
	m->scanTimeMs = scan_ms;
	m->rewriteTimeMs = rewrite_ms;
	m->executionTimeMs = dl_dml_elapsed_ms(c);
	m->num_affected_rows = m->numUpdatedRows;
}

static int set_metrics(dl_dml_cmd *c, const dl_update_metrics *m)
{
	struct {
		const char *k;
		int64_t v;
	} kv[] = {
		{"numAddedFiles", m->numAddedFiles},
		{"numRemovedFiles", m->numRemovedFiles},
		{"numAddedChangeFiles", m->numAddedChangeFiles},
		{"numDeletionVectorsAdded", m->numDeletionVectorsAdded},
		{"numDeletionVectorsRemoved", m->numDeletionVectorsRemoved},
		{"numDeletionVectorsUpdated", m->numDeletionVectorsUpdated},
		{"numUpdatedRows", m->numUpdatedRows},
		{"numCopiedRows", m->numCopiedRows},
		{"executionTimeMs", m->executionTimeMs},
		{"scanTimeMs", m->scanTimeMs},
		{"rewriteTimeMs", m->rewriteTimeMs},
		{"numRemovedBytes", m->numRemovedBytes},
		{"numAddedBytes", m->numAddedBytes},
	};
	for (size_t i = 0; i < sizeof kv / sizeof kv[0]; i++)
		DL_TRY(dl_txn_set_metric(c->txn, kv[i].k, kv[i].v));
	return 0;
}

/* ---- the command ---- */

static int prepare(update_ctx *u, const dl_update_assignment *as, size_t n)
{
	dl_dml_cmd *c = u->c;
	u->schema = dl_snapshot_schema(c->snap);
	u->ncols = u->schema->nchildren;
	if (n == 0) return dl_error_set(DL_EINVALID, "UPDATE needs at least one SET assignment");
	resolved *rs = dl_calloc(n, sizeof *rs);
	u->values = dl_calloc((size_t)u->ncols + 1, sizeof *u->values);
	u->fill = dl_calloc((size_t)u->ncols + 1, sizeof *u->fill);
	u->check = dl_calloc((size_t)u->ncols + 1, sizeof *u->check);
	if (!rs || !u->values || !u->fill || !u->check) {
		dl_free(rs);
		return DL_ENOMEM;
	}
	int rc = 0;
	for (size_t i = 0; i < n && rc == 0; i++) rc = resolve(&rs[i], u->schema, &as[i], &c->arena);
	if (rc == 0) rc = check_conflicts(rs, n);
	if (rc == 0) rc = build_values(u, rs, n);
	dl_free(rs);
	DL_TRY(rc);
	/* Generated columns not assigned are recomputed from the new values
	 * (Spark's PreprocessTableUpdate); assigned ones must equal their
	 * expression; identity and default columns keep their values. */
	dl_arena a = DL_ARENA_INIT;
	for (int i = 0; i < u->ncols && rc == 0; i++) {
		const char *gen = NULL;
		rc = dl_field_generation_expression(&u->schema->children[i], &a, &gen);
		u->fill[i] = !(gen && !u->values[i]);
		u->check[i] = gen && u->values[i];
	}
	dl_arena_free(&a);
	DL_TRY(rc);
	return dl_enforcer_new(&u->enf, u->schema, &c->config);
}

static int run(dl_update_metrics *m, update_ctx *u, const char *uri,
               const dl_update_assignment *as, size_t n, const char *predicate,
               const dl_update_options *o)
{
	dl_dml_cmd *c = u->c;
	DL_TRY(dl_dml_begin(c, uri, o->store, o->store_options, o->user_metadata));
	bool applied;
	DL_TRY(dl_dml_already_applied(c, o->txn_app_id, o->txn_version, &applied));
	if (applied) return 0;
	dl_expr *pred = NULL;
	if (predicate) DL_TRY(dl_dml_check_predicate(c, predicate, "the UPDATE condition", &pred));
	bool whole = !pred || dl_dml_partition_only(c, pred);
	dl_expr_free(pred);
	DL_TRY(prepare(u, as, n));
	dl_rewrite_options ro = DL_REWRITE_OPTIONS_INIT;
	/* Spark's case 2 rewrites the files of the partitions whole */
	ro.output = o->copy_on_write || whole ? DL_REWRITE_COPY : DL_REWRITE_AUTO;
	ro.threads = o->threads;
	ro.max_records_per_file = o->max_records_per_file;
	ro.target_file_size = o->target_file_size;
	ro.update = new_rows;
	ro.update_payload = u;
	DL_TRY(dl_dml_open_rewrite(c, &ro));
	DL_TRY(dl_rewrite_touch_where(c->rw, predicate ? predicate : "true"));
	int64_t scan_ms = dl_dml_elapsed_ms(c);
	DL_TRY(dl_dml_progress(c, "scanning", "files", 1, 1, -1));
	DL_TRY(dl_rewrite_run(c->rw));
	int64_t rewrite_ms = dl_dml_elapsed_ms(c) - scan_ms;
	DL_TRY(dl_dml_commit_rewrite(c));
	fill_metrics(m, c, whole || o->copy_on_write, scan_ms, rewrite_ms);
	/* commitIfNeeded: nothing updated, nothing committed (but the app id of
	 * an idempotent UPDATE, Spark's SetTransaction) */
	if (dl_rewrite_get_metrics(c->rw)->updated_rows == 0 && !o->txn_app_id) return 0;
	DL_TRY(dl_dml_set_predicate_parameter(c, predicate));
	DL_TRY(set_metrics(c, m));
	const dl_rewrite_metrics *r = dl_rewrite_get_metrics(c->rw);
	DL_TRY(dl_dml_progress(c, "committing", "files", r->added_files, r->added_files, -1));
	return dl_dml_commit(c, &m->version);
}

int dl_update(dl_update_metrics *metrics, const char *uri, const dl_update_assignment *assignments,
              size_t nassignments, const char *predicate, const dl_update_options *opts)
{
	if (!metrics) return dl_error_set(DL_EINVALID, "dl_update: metrics missing");
	memset(metrics, 0, sizeof *metrics);
	metrics->version = -1;
	if (nassignments && !assignments)
		return dl_error_set(DL_EINVALID, "dl_update: assignments missing");
	dl_update_options o = DL_UPDATE_OPTIONS_INIT;
	DL_TRY(dl_options_load(&o, opts, update_options_ends, DL_UPDATE_OPTIONS_VERSION,
	                       "dl_update_options", "DL_UPDATE_OPTIONS_INIT"));
	dl_dml_cmd c;
	memset(&c, 0, sizeof c);
	c.operation = "UPDATE";
	c.progress_name = "update";
	c.progress = o.progress;
	c.progress_payload = o.progress_payload;
	update_ctx u;
	memset(&u, 0, sizeof u);
	u.c = &c;
	pthread_mutex_init(&u.lock, NULL);
	int rc = run(metrics, &u, uri, assignments, nassignments, predicate, &o);
	if (rc < 0) {
		memset(metrics, 0, sizeof *metrics);
		metrics->version = -1;
	}
	/* the enforcer and the values borrow the snapshot's schema: first */
	for (int i = 0; i < u.ncols && u.values; i++) dl_expr_free(u.values[i]);
	dl_free(u.values);
	dl_free(u.fill);
	dl_free(u.check);
	dl_enforcer_free(u.enf);
	dl_dml_end(&c, rc);
	pthread_mutex_destroy(&u.lock);
	return rc;
}
