/* Binding: name resolution and Spark's implicit type coercion. */
#ifndef DL_EXPR_BINDER_H
#define DL_EXPR_BINDER_H
#include "expr/eval.h"

typedef struct ex_bind {
	dl_expr *e;
	const dl_type *schema;
	const dl_eval_ctx *ctx; /* session settings used for constant folding */
	const dl_tz *tz;
} ex_bind;

/* New reference-kept type objects owned by the expression. */
dl_type *ex_type(ex_bind *b, dl_type_id id);
dl_type *ex_type_dec(ex_bind *b, int p, int s);
/* The type of an argument spec / result code (see binder.c). */
dl_type *ex_type_code(ex_bind *b, char code);
/* Wraps *slot in an implicit cast to `to` (folding literals). */
int ex_coerce(ex_bind *b, ex_node **slot, const dl_type *to);
/* The type both a and b can be implicitly cast to, or NULL (with an
 * error naming `what`). */
const dl_type *ex_common_type(ex_bind *b, const dl_type *x, const dl_type *y, const char *what, int pos);
/* Spark's decimal type of an integral type (BYTE -> DECIMAL(3,0) ...). */
dl_type *ex_decimal_of(ex_bind *b, const dl_type *t);
/* Bound literal node. */
ex_node *ex_lit_node(ex_bind *b, const dl_scalar *s, int pos);
/* Folds a bound node whose inputs are all literals into a literal. */
int ex_fold(ex_bind *b, ex_node **slot);

#endif
