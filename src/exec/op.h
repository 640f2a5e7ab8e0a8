/* What the operator files share: the stream boilerplate (an operator is a
 * struct whose first member is its dl_batch_stream) and small helpers. */
#ifndef DL_EXEC_OP_H
#define DL_EXEC_OP_H
#include "exec/exec.h"
#include "util/error.h"
#include "util/mem.h"

#define DL_EXEC_BATCH_ROWS 65536

/* The code of the error a constructor that returns NULL has set. */
static inline int dl_exec_failed(void)
{
	int c = dl_error_last()->code;
	return c < 0 ? c : dl_error_set(DL_ENOMEM, "out of memory");
}

static inline int64_t dl_exec_batch_rows(const dl_exec_ctx *ctx)
{
	return ctx && ctx->batch_rows > 0 ? ctx->batch_rows : DL_EXEC_BATCH_ROWS;
}

/* Binds e to schema in the context's time zone, naming the operator. */
int dl_exec_bind(dl_expr *e, const dl_type *schema, const dl_exec_ctx *ctx, const char *what);
/* Evaluates bound expressions over a batch into cols[0..n). */
int dl_exec_eval_all(dl_array **cols, dl_expr *const *exprs, int n, const dl_batch *b, const dl_exec_ctx *ctx);
/* The batch column index when the bound expression e is a bare top-level
 * column reference that b holds in the bound shape (b NULL: the index it
 * was bound to), else -1 (column_ref.c). */
int dl_exec_column_ref(const dl_expr *e, const dl_batch *b);
/* A struct type with the given field names and types (nullable as given). */
dl_type *dl_exec_struct(const char *const *names, dl_type *const *types, const bool *nullable, int n);
/* A batch of the schema with the columns given (ownership passes, also on
 * failure). */
dl_batch *dl_exec_batch(dl_type *schema, dl_array **cols, int64_t rows);
/* A batch holding rows sel[0..n) of b's columns, relabeled to schema. */
dl_batch *dl_exec_take(const dl_batch *b, const uint32_t *sel, int64_t n, dl_type *schema);

/* A batch_stream on the heap around `self` with these callbacks. */
dl_batch_stream *dl_exec_stream_new(void *self, const dl_type *(*schema)(dl_batch_stream *),
                                    int (*next)(dl_batch_stream *, dl_batch **),
                                    void (*release)(dl_batch_stream *));

/* A FIFO of output batches, for operators that produce several per step. */
typedef struct dl_exec_queue {
	dl_batch **b;
	int64_t head, len, cap;
} dl_exec_queue;
int dl_exec_queue_push(dl_exec_queue *q, dl_batch *b); /* takes b, also on failure */
dl_batch *dl_exec_queue_pop(dl_exec_queue *q);
void dl_exec_queue_free(dl_exec_queue *q);

#endif
