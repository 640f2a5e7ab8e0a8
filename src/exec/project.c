/* Project (exec.h): one column per expression under its alias. A bare
 * column reference takes the input's column without copying it (the input
 * batch is ours and freed here; a second reference to the same column gets
 * a copy); other expressions are evaluated first, while every column is
 * still there. Constants are expanded to full columns by dl_expr_eval. */
#include "exec/op.h"

typedef struct proj_op {
	dl_batch_stream *in;
	dl_expr **exprs;
	int n;
	dl_type *schema;
	dl_exec_ctx ctx;
} proj_op;

static const dl_type *p_schema(dl_batch_stream *s)
{
	proj_op *p = s->private_data;
	return p->schema;
}

static int p_next(dl_batch_stream *s, dl_batch **out)
{
	proj_op *p = s->private_data;
	*out = NULL;
	dl_batch *b;
	DL_TRY(dl_batch_stream_next(p->in, &b));
	if (!b) return 0;
	dl_array **cols = dl_calloc((size_t)(p->n ? p->n : 1), sizeof *cols);
	int *ref = dl_calloc((size_t)(p->n ? p->n : 1), sizeof *ref);
	int rc = cols && ref ? 0 : dl_error_set(DL_ENOMEM, "out of memory");
	for (int i = 0; i < p->n && rc == 0; i++) {
		ref[i] = dl_exec_column_ref(p->exprs[i], b);
		if (ref[i] < 0) rc = dl_expr_eval(&cols[i], p->exprs[i], b, &p->ctx.eval);
	}
	for (int i = 0; i < p->n && rc == 0; i++) {
		if (ref[i] < 0) continue;
		bool again = false;
		for (int j = i + 1; j < p->n && !again; j++) again = ref[j] == ref[i];
		if (again) {
			rc = dl_expr_eval(&cols[i], p->exprs[i], b, &p->ctx.eval);
		} else {
			cols[i] = b->cols[ref[i]];
			b->cols[ref[i]] = NULL;
		}
	}
	dl_free(ref);
	int64_t rows = b->num_rows;
	dl_batch_free(b);
	if (rc < 0) {
		for (int i = 0; cols && i < p->n; i++) dl_array_free(cols[i]);
		dl_free(cols);
		return dl_error_prefix("project");
	}
	*out = dl_exec_batch(p->schema, cols, rows);
	dl_free(cols);
	return *out ? 0 : dl_exec_failed();
}

static void p_free(proj_op *p)
{
	dl_batch_stream_free(p->in);
	for (int i = 0; i < p->n; i++) dl_expr_free(p->exprs[i]);
	dl_free(p->exprs);
	dl_type_unref(p->schema);
	dl_free(p);
}

static void p_release(dl_batch_stream *s)
{
	p_free(s->private_data);
	dl_free(s);
}

int dl_exec_project(dl_batch_stream **out, dl_batch_stream *in, dl_expr *const *exprs, const char *const *names,
                    int n, const dl_exec_ctx *ctx)
{
	*out = NULL;
	proj_op *p = dl_calloc(1, sizeof *p);
	dl_expr **ex = dl_calloc((size_t)(n ? n : 1), sizeof *ex);
	if (!p || !ex) {
		dl_free(p);
		dl_free(ex);
		dl_batch_stream_free(in);
		for (int i = 0; i < n; i++) dl_expr_free(exprs[i]);
		return dl_error_set(DL_ENOMEM, "out of memory");
	}
	p->in = in;
	p->exprs = ex;
	p->n = n;
	for (int i = 0; i < n; i++) ex[i] = exprs[i];
	if (ctx) p->ctx = *ctx;
	int rc = 0;
	for (int i = 0; i < n && rc == 0; i++) rc = dl_exec_bind(ex[i], dl_batch_stream_schema(in), ctx, "project");
	char **nm = rc == 0 ? dl_calloc((size_t)(n ? n : 1), sizeof *nm) : NULL;
	dl_type **ty = rc == 0 ? dl_calloc((size_t)(n ? n : 1), sizeof *ty) : NULL;
	if (rc == 0 && (!nm || !ty)) rc = dl_error_set(DL_ENOMEM, "out of memory");
	dl_buf sql = DL_BUF_INIT;
	for (int i = 0; i < n && rc == 0; i++) {
		ty[i] = (dl_type *)dl_expr_type(ex[i]);
		if (names && names[i]) {
			nm[i] = dl_strdup(names[i]);
		} else {
			dl_buf_clear(&sql);
			rc = dl_expr_sql(ex[i], &sql);
			if (rc == 0) nm[i] = dl_strdup(sql.data ? sql.data : "");
		}
		if (rc == 0 && !nm[i]) rc = dl_error_set(DL_ENOMEM, "out of memory");
	}
	dl_buf_free(&sql);
	if (rc == 0 && !(p->schema = dl_exec_struct((const char *const *)nm, ty, NULL, n))) rc = dl_exec_failed();
	for (int i = 0; nm && i < n; i++) dl_free(nm[i]);
	dl_free(nm);
	dl_free(ty);
	if (rc == 0 && !(*out = dl_exec_stream_new(p, p_schema, p_next, p_release))) rc = dl_exec_failed();
	if (rc < 0) p_free(p);
	return rc;
}
