/* Pieces of the canonical SQL printer shared by print.c (queries) and
 * print_stmt.c (statements). */
#ifndef DL_SQL_PRINT_H
#define DL_SQL_PRINT_H
#include "sql/sql.h"

int sqlp_ident(dl_buf *out, const char *s);
int sqlp_name(dl_buf *out, const sql_name *n);
int sqlp_names(dl_buf *out, const sql_name *n, int count); /* (a, b.c) */
int sqlp_idents(dl_buf *out, char **ids, int n);           /* (a, b) */
int sqlp_string(dl_buf *out, const char *s);
int sqlp_type(dl_buf *out, const dl_type *t);
/* A column definition after its name: " type NOT NULL GENERATED ... DEFAULT ... COMMENT ..." */
struct sql_column_def;
int sqlp_column_clauses(dl_buf *out, const struct sql_column_def *c);
int sqlp_exprs(dl_buf *out, ex_node **e, int n);
int sqlp_time_travel(dl_buf *out, const sql_time_travel *tt);
int sqlp_table_ref(dl_buf *out, const sql_table_ref *t);

#endif
