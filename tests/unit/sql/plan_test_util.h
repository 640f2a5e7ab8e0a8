/* A test environment for the planner: tables are batches in memory,
 * resolved by (case-insensitive) last name part. Each relation records
 * the columns and the filter the planner opened it with, so tests can
 * assert projection and filter pushdown; it applies the filter itself too
 * (as a Delta scan would), so pushing a wrong one shows in the results. */
#ifndef PLAN_TEST_UTIL_H
#define PLAN_TEST_UTIL_H
#include <strings.h>
#include "../exec/exec_test_util.h"
#include "sql/plan.h"
#include "sql/sql.h"
#include "util/error.h"

#define PT_MAX_TABLES 8

typedef struct pt_table {
	const char *name;
	dl_batch **batches; /* owned */
	int nbatches;
	dl_type *schema;
	int64_t est;
	/* what the last open() received */
	char opened_cols[512];
	char opened_filter[512];
	int opens;
} pt_table;

typedef struct pt_env {
	pt_table t[PT_MAX_TABLES];
	int n;
	sql_env env;
} pt_env;

static inline pt_table *pt_add(pt_env *e, const char *name, const char *spec, const char *const *rows, int nrows,
                               int per_batch)
{
	pt_table *t = &e->t[e->n++];
	memset(t, 0, sizeof *t);
	t->name = name;
	t->schema = tu_schema(spec);
	t->est = -1;
	int nb = per_batch > 0 ? (nrows + per_batch - 1) / per_batch : 0;
	t->batches = calloc((size_t)nb + 1, sizeof *t->batches);
	for (int i = 0; i < nb; i++) {
		int k = nrows - i * per_batch < per_batch ? nrows - i * per_batch : per_batch;
		t->batches[i] = tu_batch(t->schema, rows + i * per_batch, k);
	}
	t->nbatches = nb;
	return t;
}

static int pt_open(dl_batch_stream **out, sql_relation *r, const char *const *cols, int ncols, dl_expr *filter,
                   const dl_exec_ctx *ctx)
{
	pt_table *t = r->impl;
	t->opens++;
	t->opened_cols[0] = 0;
	for (int i = 0; i < ncols; i++) {
		strcat(t->opened_cols, i ? "," : "");
		strcat(t->opened_cols, cols[i]);
	}
	t->opened_filter[0] = 0;
	dl_batch **bs = calloc((size_t)t->nbatches + 1, sizeof *bs);
	for (int i = 0; i < t->nbatches; i++) bs[i] = dl_batch_slice(t->batches[i], 0, t->batches[i]->num_rows);
	dl_batch_stream *s;
	int rc = dl_batch_stream_from_batches(&s, t->schema, bs, t->nbatches);
	free(bs);
	if (rc < 0) return rc;
	if (filter) {
		dl_buf b = DL_BUF_INIT;
		dl_expr_sql(filter, &b);
		snprintf(t->opened_filter, sizeof t->opened_filter, "%s", b.data ? b.data : "");
		dl_buf_free(&b);
		if ((rc = dl_exec_filter(&s, s, filter, ctx)) < 0) return rc;
	}
	dl_expr *e[32];
	for (int i = 0; i < ncols; i++) {
		dl_expr *x = ex_expr_new();
		x->root = ex_node_new(x, EX_COL, 0);
		x->root->path = dl_arena_calloc(&x->arena, 1, sizeof(char *));
		x->root->path[0] = dl_arena_strdup(&x->arena, cols[i]);
		x->root->npath = 1;
		e[i] = x;
	}
	if (ncols < 0) {
		*out = s;
		return 0;
	}
	return dl_exec_project(out, s, e, cols, ncols, ctx);
}

static int pt_explain(dl_buf *out, sql_relation *r, const char *const *cols, int ncols, const dl_expr *filter,
                      const dl_exec_ctx *ctx)
{
	(void)cols;
	(void)ncols;
	(void)filter;
	(void)ctx;
	pt_table *t = r->impl;
	return dl_buf_printf(out, "memory table of %d batches", t->nbatches);
}

static void pt_release(sql_relation *r)
{
	free((char *)r->display);
	free(r);
}

static int pt_resolve(sql_relation **out, void *payload, const sql_table_ref *ref, const dl_exec_ctx *ctx)
{
	(void)ctx;
	pt_env *e = payload;
	if (ref->kind == TREF_NAME)
		for (int i = 0; i < e->n; i++)
			if (!strcasecmp(e->t[i].name, ref->name.parts[ref->name.nparts - 1])) {
				sql_relation *r = calloc(1, sizeof *r);
				r->schema = e->t[i].schema;
				char d[128];
				snprintf(d, sizeof d, "mem.%s", e->t[i].name);
				r->display = strdup(d);
				r->est_rows = e->t[i].est;
				r->open = pt_open;
				r->explain = pt_explain;
				r->release = pt_release;
				r->impl = &e->t[i];
				*out = r;
				return 0;
			}
	return dl_error_set_class(DL_EINVALID, "TABLE_OR_VIEW_NOT_FOUND",
	                          "[TABLE_OR_VIEW_NOT_FOUND] The table or view `%s` cannot be found.",
	                          ref->kind == TREF_NAME ? ref->name.parts[ref->name.nparts - 1] : "?");
}

static inline void pt_init(pt_env *e)
{
	memset(e, 0, sizeof *e);
	e->env.resolve = pt_resolve;
	e->env.payload = e;
	e->env.ctx = (dl_exec_ctx)DL_EXEC_CTX_INIT;
}

static inline void pt_free(pt_env *e)
{
	for (int i = 0; i < e->n; i++) {
		for (int k = 0; k < e->t[i].nbatches; k++) dl_batch_free(e->t[i].batches[k]);
		free(e->t[i].batches);
		dl_type_unref(e->t[i].schema);
	}
}

/* Plans and opens one query; NULL with the error set on failure. */
static inline dl_batch_stream *pt_query(pt_env *e, const char *sql)
{
	dl_sql_script *s;
	if (dl_sql_parse(&s, sql) < 0) return NULL;
	const sql_stmt *st = dl_sql_script_stmt(s, 0);
	dl_batch_stream *out = NULL;
	if (st->kind != ST_QUERY) dl_error_set(DL_EINVALID, "not a query");
	else if (sql_plan_query(&out, &e->env, st->query) < 0) out = NULL;
	dl_sql_script_free(s);
	return out;
}

/* The output column names "a,b,c". */
static inline char *pt_names(dl_batch_stream *s)
{
	static char buf[1024];
	buf[0] = 0;
	const dl_type *t = dl_batch_stream_schema(s);
	for (int i = 0; i < t->nchildren; i++) {
		strcat(buf, i ? "," : "");
		strcat(buf, t->children[i].name);
	}
	return buf;
}

#endif
