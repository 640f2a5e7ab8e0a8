/* table_changes('name-or-path', start [, end]): the change data feed
 * (deltalake/changes.h) as a relation: the table's columns plus
 * _change_type, _commit_version and _commit_timestamp, as Spark gives them.
 * start and end are versions (integers) or timestamps (anything else, cast
 * to TIMESTAMP in the session's zone). A first argument containing '/',
 * '#' (a shared table) or a URI scheme is a path; anything else a catalog
 * name. */
#include "sql/resolve_internal.h"
#include "columnar/batch_stream.h"
#include "deltalake/changes.h"
#include "expr/ast.h"
#include "util/error.h"
#include "util/mem.h"
#include <string.h>

typedef struct changes_rel {
	sql_relation r;
	dl_batch_stream *pending; /* opened at resolve: its schema is the relation's */
	char *display;
} changes_rel;

static int changes_open(dl_batch_stream **out, sql_relation *r, const char *const *cols, int ncols, dl_expr *filter,
                        const dl_exec_ctx *ctx)
{
	changes_rel *cr = r->impl;
	dl_expr_free(filter);
	if (!cr->pending) return dl_error_set(DL_EINVALID, "internal: table_changes opened twice");
	dl_batch_stream *in = cr->pending;
	cr->pending = NULL;
	return sql_select_columns(out, in, cols, ncols, ctx);
}

static void changes_release(sql_relation *r)
{
	changes_rel *cr = r->impl;
	dl_batch_stream_free(cr->pending);
	if (r->schema) dl_type_unref((dl_type *)r->schema);
	dl_free(cr->display);
	dl_free(cr);
}

/* A bound: a version when the argument is an integer, else a timestamp. */
static int bound(int64_t *version, int64_t *ts_ms, const ex_node *n, const dl_exec_ctx *ctx, const char *what)
{
	dl_scalar v;
	dl_expr *h = NULL;
	bool integral = n->kind == EX_LIT && (n->lit.type == DL_TYPE_INTEGER || n->lit.type == DL_TYPE_LONG ||
	                                      n->lit.type == DL_TYPE_SHORT || n->lit.type == DL_TYPE_BYTE);
	int rc = sql_eval_const(&v, &h, n, integral ? "BIGINT" : "TIMESTAMP", ctx);
	if (rc == 0 && v.is_null) rc = dl_error_set(DL_EINVALID, "table_changes: the %s is NULL", what);
	if (rc == 0 && integral) *version = v.v.i64;
	else if (rc == 0) *ts_ms = v.v.i64 >= 0 ? v.v.i64 / 1000 : -((-v.v.i64 + 999) / 1000);
	dl_expr_free(h);
	if (rc < 0 && !*dl_error_last()->klass) return dl_error_prefix("table_changes %s", what);
	return rc;
}

int sql_changes_relation(sql_relation **out, dl_sql_conn *c, const sql_table_ref *ref, const dl_exec_ctx *ctx)
{
	dl_exec_ctx dctx = DL_EXEC_CTX_INIT;
	if (!ctx) ctx = &dctx;
	if (ref->nargs < 2 || ref->nargs > 3)
		return dl_error_set_class(DL_EINVALID, "WRONG_NUM_ARGS.WITHOUT_SUGGESTION",
		                          "[WRONG_NUM_ARGS.WITHOUT_SUGGESTION] The `table_changes` requires 2 or 3 parameters "
		                          "but the actual number is %d.",
		                          ref->nargs);
	dl_scalar name;
	dl_expr *h = NULL;
	DL_TRY(sql_eval_const(&name, &h, ref->args[0], "STRING", ctx));
	char *text = name.is_null ? NULL : dl_strndup(name.v.str.ptr, name.v.str.len);
	dl_expr_free(h);
	if (!text) return dl_error_set(DL_EINVALID, "table_changes: the table is NULL");
	sql_target t;
	memset(&t, 0, sizeof t);
	int rc;
	/* a path, or a Delta Sharing table (PROFILE#share.schema.table) */
	if (strchr(text, '/') || strstr(text, "://") || strchr(text, '#')) {
		sql_table_ref pr = {.kind = TREF_PATH, .format = "delta", .path = text};
		rc = sql_target_resolve(&t, c, &pr);
	} else {
		rc = dl_catalog_lookup_table(&t.info, c->cat, text);
		if (rc == 0) {
			t.from_catalog = true;
			if (!(t.uri = dl_strdup(t.info.uri)) || !(t.display = dl_strdup(text))) rc = DL_ENOMEM;
		}
	}
	dl_changes_options o = DL_CHANGES_OPTIONS_INIT;
	o.store_options = c->store_options;
	if (rc == 0) rc = bound(&o.start_version, &o.start_timestamp_ms, ref->args[1], ctx, "start");
	if (rc == 0 && o.start_timestamp_ms != DL_NO_TIMESTAMP) o.start_version = -1;
	if (rc == 0 && ref->nargs == 3) rc = bound(&o.end_version, &o.end_timestamp_ms, ref->args[2], ctx, "end");
	/* a missing table gets the snapshot's errors (DELTA_MISSING_DELTA_TABLE...) */
	if (rc == 0) {
		dl_snapshot *snap = NULL;
		dl_snapshot_options so = DL_SNAPSHOT_OPTIONS_INIT;
		so.metadata_only = true;
		rc = sql_open_snapshot(&snap, c, &t, &so);
		dl_snapshot_free(snap);
	}
	struct ArrowArrayStream a;
	memset(&a, 0, sizeof a);
	dl_batch_stream *s = NULL;
	if (rc == 0) rc = dl_table_changes(&a, t.uri, &o);
	if (rc == 0) rc = dl_batch_stream_import(&s, &a);
	if (a.release) a.release(&a);
	changes_rel *cr = rc == 0 ? dl_calloc(1, sizeof *cr) : NULL;
	if (rc == 0 && !cr) rc = DL_ENOMEM;
	if (rc == 0) {
		dl_buf b = DL_BUF_INIT;
		rc = dl_buf_printf(&b, "table_changes(%s)%c", t.display, 0);
		cr->display = (char *)b.data;
	}
	dl_free(text);
	sql_target_free(&t);
	if (rc < 0) {
		dl_batch_stream_free(s);
		if (cr) dl_free(cr->display);
		dl_free(cr);
		if (!*dl_error_last()->klass) return dl_error_prefix("table_changes");
		return rc;
	}
	cr->pending = s;
	cr->r.schema = dl_type_ref((dl_type *)dl_batch_stream_schema(s));
	cr->r.display = cr->display;
	cr->r.est_rows = -1;
	cr->r.open = changes_open;
	cr->r.release = changes_release;
	cr->r.impl = cr;
	*out = &cr->r;
	return 0;
}

int sql_select_columns(dl_batch_stream **out, dl_batch_stream *in, const char *const *cols, int ncols,
                       const dl_exec_ctx *ctx)
{
	*out = NULL;
	dl_exec_ctx d = DL_EXEC_CTX_INIT;
	const dl_exec_ctx *x = ctx ? ctx : &d;
	dl_batch_stream *s = in;
	int rc = 0;
	if (ncols >= 0) {
		dl_expr **ex = dl_calloc((size_t)(ncols ? ncols : 1), sizeof *ex);
		if (!ex) rc = DL_ENOMEM;
		for (int i = 0; i < ncols && rc == 0; i++) {
			dl_buf b = DL_BUF_INIT;
			rc = dl_buf_putc(&b, '`');
			for (const char *p = cols[i]; *p && rc == 0; p++) rc = *p == '`' ? dl_buf_puts(&b, "``") : dl_buf_putc(&b, *p);
			if (rc == 0) rc = dl_buf_puts(&b, "`");
			if (rc == 0) rc = dl_buf_putc(&b, 0);
			if (rc == 0) rc = dl_expr_parse(&ex[i], (const char *)b.data);
			dl_buf_free(&b);
		}
		if (rc == 0) {
			rc = dl_exec_project(&s, in, ex, cols, ncols, x); /* takes in and the exprs */
		} else {
			for (int i = 0; i < ncols; i++) dl_expr_free(ex[i]);
			dl_batch_stream_free(in);
		}
		dl_free(ex);
		if (rc < 0) return rc;
	}
	if (x->interrupt) return sql_interruptible(out, s, x->interrupt);
	*out = s;
	return 0;
}
