/* Row implementations of operators (the fallback behind kernels.c). */
#ifndef DL_EXPR_OPS_H
#define DL_EXPR_OPS_H
#include "expr/eval.h"

ex_row_fn ex_op_row_fn(const ex_node *n);
/* ANSI integer arithmetic on values of an integral type id. */
int ex_int_arith(int op, dl_type_id t, int64_t a, int64_t b, int64_t *out, bool try_mode);
int ex_dec_arith(int op, const dl_type *ta, dl_i128 a, const dl_type *tb, dl_i128 b, const dl_type *tr, dl_i128 *out,
                 bool try_mode, bool *is_null);

#endif
