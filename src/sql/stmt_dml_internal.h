/* What stmt_dml.c and stmt_dml_exists.c share: running a subquery of a
 * DELETE/UPDATE condition and turning its values into literals. */
#ifndef DL_SQL_STMT_DML_INTERNAL_H
#define DL_SQL_STMT_DML_INTERNAL_H
#include "sql/session_internal.h"
#include "expr/ast.h"

/* Runs the query q (a sql_query); all its rows in one batch. */
int sql_dml_run_subquery(dl_batch **out, const sql_env *env, const void *q, const char *what);

/* Row r of a as a literal typed as the column (CAST(NULL AS t) for a NULL). */
int sql_dml_literal(ex_node **out, dl_expr *e, const dl_array *a, int64_t r);

/* A [NOT] EXISTS subquery (sub, an EX_SUBQUERY node) that references the
 * target through `qual`, replaced in *out by a predicate over the target's
 * columns alone. Returns 1 when done, 0 when sub does not reference the
 * target (run it as an uncorrelated subquery), or an error. */
int sql_dml_correlated_exists(ex_node **out, dl_expr *e, const ex_node *sub, const sql_env *env, const char *qual,
                              const char *what);

#endif
