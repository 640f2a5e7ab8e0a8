/* Shared pieces of the resolver (resolve.c, resolve_files.c,
 * resolve_changes.c). */
#ifndef DL_SQL_RESOLVE_INTERNAL_H
#define DL_SQL_RESOLVE_INTERNAL_H
#include "sql/session_internal.h"

/* Evaluates a constant expression (optionally CAST to cast_to) in ctx's
 * zone; the scalar's strings live in *holder (dl_expr_free it). */
int sql_eval_const(dl_scalar *out, dl_expr **holder, const ex_node *n, const char *cast_to, const dl_exec_ctx *ctx);
/* parquet.`glob`, csv.`glob`, json.`glob`. */
int sql_file_relation(sql_relation **out, dl_sql_conn *c, const sql_table_ref *ref, const dl_exec_ctx *ctx);
/* table_changes('name-or-path', start [, end]). */
int sql_changes_relation(sql_relation **out, dl_sql_conn *c, const sql_table_ref *ref, const dl_exec_ctx *ctx);
/* range([start,] end [, step [, numPartitions]]): BIGINT column `id`. */
int sql_range_relation(sql_relation **out, dl_sql_conn *c, const sql_table_ref *ref, const dl_exec_ctx *ctx);
/* resolve_sharing.c: sharing('PROFILE#share.schema.table') */
int sql_sharing_relation(sql_relation **out, dl_sql_conn *c, const sql_table_ref *ref, const dl_exec_ctx *ctx);
/* The columns cols[0..ncols) of `in` (owned), by name (ncols < 0: in
 * unchanged), with the interrupt check of ctx. */
int sql_select_columns(dl_batch_stream **out, dl_batch_stream *in, const char *const *cols, int ncols,
                       const dl_exec_ctx *ctx);
#endif
