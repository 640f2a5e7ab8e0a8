/* LIKE pattern matching shared by the evaluator, functions and pruning. */
#ifndef DL_EXPR_LIKE_H
#define DL_EXPR_LIKE_H
#include "expr/eval.h"

int ex_like_compile(void **out, const char *pat, size_t n, int kind, int escape);
void ex_like_free(void *p);
bool ex_like_match(const void *pat, const char *s, size_t n, dl_buf *scratch);
int ex_like_prepare(dl_expr *e, ex_node *n);
int ex_like_prefix(const ex_node *n, const char **prefix, size_t *len, bool *exact);
int ex_like_eval(ex_vec *out, const ex_node *n, ex_vec *args, ex_run *r);

#endif
