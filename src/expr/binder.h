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

/* dl_type_sql into buf, returned (for messages). */
static inline const char *ex_tname(const dl_type *t, char *buf, size_t cap)
{
	dl_type_sql(t, buf, cap);
	return buf;
}
/* Spark's numeric widening order: BYTE 1, SHORT 2, INT 3, LONG 4, DECIMAL 5,
 * FLOAT 6, DOUBLE 7; 0 for other types. */
int ex_numeric_rank(dl_type_id id);
bool ex_is_numeric(const dl_type *t);
/* The decimal both integral-or-decimal types fit (NULL for others). */
const dl_type *ex_wider_decimal(ex_bind *b, const dl_type *x, const dl_type *y);
static inline bool ex_is_datetime(const dl_type *t)
{
	return t->id == DL_TYPE_DATE || t->id == DL_TYPE_TIMESTAMP || t->id == DL_TYPE_TIMESTAMP_NTZ;
}
/* Binds n as a call of the registered function fname (operators that are
 * functions underneath: ||, date + int...). */
int ex_bind_call_internal(ex_bind *b, ex_node *n, const char *fname);
/* bind_ops.c: an EX_OP node whose arguments are bound; a comparison
 * (=, <>, <, <=, >, >=, <=>) with its implicit casts; the DATATYPE_MISMATCH
 * error of operator sym on n's argument types. */
int ex_bind_op(ex_bind *b, ex_node *n);
int ex_bind_compare(ex_bind *b, ex_node *n);
int ex_op_mismatch(ex_node *n, const char *sym);
/* Casts *slot to BOOLEAN where Spark allows it, else DATATYPE_MISMATCH naming what. */
int ex_to_boolean(ex_bind *b, ex_node **slot, const char *what, int pos);

#endif
