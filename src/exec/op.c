/* Helpers shared by the operators (op.h). */
#include <string.h>
#include "exec/op.h"

int dl_exec_bind(dl_expr *e, const dl_type *schema, const dl_exec_ctx *ctx, const char *what)
{
	int rc = dl_expr_bind_ctx(e, schema, ctx ? &ctx->eval : NULL);
	if (rc < 0) return dl_error_prefix("%s", what);
	return 0;
}

int dl_exec_eval_all(dl_array **cols, dl_expr *const *exprs, int n, const dl_batch *b, const dl_exec_ctx *ctx)
{
	for (int i = 0; i < n; i++) cols[i] = NULL;
	for (int i = 0; i < n; i++) {
		int rc = dl_expr_eval(&cols[i], exprs[i], b, ctx ? &ctx->eval : NULL);
		if (rc < 0) {
			for (int j = 0; j < i; j++) {
				dl_array_free(cols[j]);
				cols[j] = NULL;
			}
			return rc;
		}
	}
	return 0;
}

dl_type *dl_exec_struct(const char *const *names, dl_type *const *types, const bool *nullable, int n)
{
	dl_field *f = dl_calloc((size_t)(n ? n : 1), sizeof *f);
	if (!f) {
		dl_error_set(DL_ENOMEM, "out of memory");
		return NULL;
	}
	for (int i = 0; i < n; i++) {
		f[i].name = (char *)names[i];
		f[i].type = types[i];
		f[i].nullable = nullable ? nullable[i] : true;
		f[i].metadata = (char *)"{}";
	}
	dl_type *t = dl_type_struct(f, n);
	dl_free(f);
	if (!t) dl_error_set(DL_ENOMEM, "out of memory");
	return t;
}

dl_batch *dl_exec_batch(dl_type *schema, dl_array **cols, int64_t rows)
{
	dl_batch *b = dl_batch_new(schema, rows);
	if (!b) {
		for (int i = 0; i < schema->nchildren; i++) dl_array_free(cols[i]);
		return NULL;
	}
	for (int i = 0; i < schema->nchildren; i++) {
		b->cols[i] = cols[i];
		if (cols[i] && dl_array_set_type(cols[i], schema->children[i].type) < 0) {
			for (int j = i + 1; j < schema->nchildren; j++) dl_array_free(cols[j]);
			dl_batch_free(b);
			return NULL;
		}
	}
	return b;
}

dl_batch *dl_exec_take(const dl_batch *b, const uint32_t *sel, int64_t n, dl_type *schema)
{
	dl_array **cols = dl_calloc((size_t)(b->ncols ? b->ncols : 1), sizeof *cols);
	if (!cols) {
		dl_error_set(DL_ENOMEM, "out of memory");
		return NULL;
	}
	for (int i = 0; i < b->ncols; i++) {
		cols[i] = dl_array_take(b->cols[i], sel, n);
		if (!cols[i]) {
			for (int j = 0; j < i; j++) dl_array_free(cols[j]);
			dl_free(cols);
			return NULL;
		}
	}
	dl_batch *out = dl_exec_batch(schema, cols, n);
	dl_free(cols);
	return out;
}

dl_batch_stream *dl_exec_stream_new(void *self, const dl_type *(*schema)(dl_batch_stream *),
                                    int (*next)(dl_batch_stream *, dl_batch **),
                                    void (*release)(dl_batch_stream *))
{
	dl_batch_stream *s = dl_calloc(1, sizeof *s);
	if (!s) {
		dl_error_set(DL_ENOMEM, "out of memory");
		return NULL;
	}
	s->schema = schema;
	s->next = next;
	s->release = release;
	s->private_data = self;
	return s;
}

int dl_exec_queue_push(dl_exec_queue *q, dl_batch *b)
{
	if (q->head > 0 && q->head == q->len) q->head = q->len = 0;
	if (q->len == q->cap) {
		int64_t nc = q->cap ? q->cap * 2 : 8;
		dl_batch **nb = dl_reallocarray(q->b, (size_t)nc, sizeof *nb);
		if (!nb) {
			dl_batch_free(b);
			return dl_error_set(DL_ENOMEM, "out of memory");
		}
		q->b = nb;
		q->cap = nc;
	}
	q->b[q->len++] = b;
	return 0;
}

dl_batch *dl_exec_queue_pop(dl_exec_queue *q)
{
	return q->head < q->len ? q->b[q->head++] : NULL;
}

void dl_exec_queue_free(dl_exec_queue *q)
{
	for (int64_t i = q->head; i < q->len; i++) dl_batch_free(q->b[i]);
	dl_free(q->b);
	memset(q, 0, sizeof *q);
}
