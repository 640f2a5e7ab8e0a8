/* Filter (exec.h): keeps the rows where the predicate is TRUE. Three-valued
 * logic is the expression layer's (dl_expr_filter drops FALSE and NULL);
 * batches that keep every row pass through uncopied, empty results are
 * skipped rather than returned as zero-row batches. */
#include "exec/op.h"

typedef struct filter_op {
	dl_batch_stream *in;
	dl_expr *pred;
	dl_exec_ctx ctx;
	dl_selection sel;
} filter_op;

static const dl_type *f_schema(dl_batch_stream *s)
{
	filter_op *f = s->private_data;
	return dl_batch_stream_schema(f->in);
}

static int f_next(dl_batch_stream *s, dl_batch **out)
{
	filter_op *f = s->private_data;
	*out = NULL;
	for (;;) {
		dl_batch *b;
		DL_TRY(dl_batch_stream_next(f->in, &b));
		if (!b) return 0;
		int rc = dl_expr_filter(&f->sel, f->pred, b, &f->ctx.eval);
		if (rc < 0) {
			dl_batch_free(b);
			return dl_error_prefix("filter");
		}
		if (f->sel.count == b->num_rows) {
			*out = b;
			return 0;
		}
		if (f->sel.count == 0) {
			dl_batch_free(b);
			continue;
		}
		*out = dl_batch_take(b, f->sel.idx, f->sel.count);
		dl_batch_free(b);
		return *out ? 0 : dl_exec_failed();
	}
}

static void f_free(filter_op *f)
{
	dl_batch_stream_free(f->in);
	dl_expr_free(f->pred);
	dl_selection_free(&f->sel);
	dl_free(f);
}

static void f_release(dl_batch_stream *s)
{
	f_free(s->private_data);
	dl_free(s);
}

int dl_exec_filter(dl_batch_stream **out, dl_batch_stream *in, dl_expr *pred, const dl_exec_ctx *ctx)
{
	*out = NULL;
	filter_op *f = dl_calloc(1, sizeof *f);
	if (!f) {
		dl_batch_stream_free(in);
		dl_expr_free(pred);
		return dl_error_set(DL_ENOMEM, "out of memory");
	}
	f->in = in;
	f->pred = pred;
	if (ctx) f->ctx = *ctx;
	int rc = dl_exec_bind(pred, dl_batch_stream_schema(in), ctx, "filter");
	if (rc == 0 && dl_expr_type(pred)->id != DL_TYPE_BOOLEAN && dl_expr_type(pred)->id != DL_TYPE_NULL) {
		char t[64];
		dl_type_sql(dl_expr_type(pred), t, sizeof t);
		rc = dl_error_set(DL_EINVALID, "filter: the condition must be BOOLEAN, not %s", t);
	}
	if (rc == 0 && !(*out = dl_exec_stream_new(f, f_schema, f_next, f_release))) rc = dl_exec_failed();
	if (rc < 0) f_free(f);
	return rc;
}
