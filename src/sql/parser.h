/* Shared state and token helpers of the statement parsers (parse_*.c). */
#ifndef DL_SQL_PARSER_H
#define DL_SQL_PARSER_H
#include "expr/lexer.h"
#include "sql/ast.h"

typedef struct sql_parser {
	dl_expr *e;       /* owner of every node (its arena) */
	const char *src;  /* the whole script */
	size_t len;       /* end of the current statement */
	ex_lexer lx;
	ex_token tok;
	ex_sql_hooks hooks;
	int depth;
} sql_parser;

#define SP_ARENA(p) (&(p)->e->arena)

int sp_advance(sql_parser *p);
/* Repositions at byte offset pos (the next token starts there). */
int sp_seek(sql_parser *p, size_t pos);
bool sp_is(const sql_parser *p, const char *kw);
bool sp_is_op(const sql_parser *p, const char *op);
/* The kw'th token ahead (1 = next) is keyword kw / operator op. */
bool sp_peek_is(const sql_parser *p, int ahead, const char *kw);
bool sp_peek_op(const sql_parser *p, int ahead, const char *op);
bool sp_peek_end(const sql_parser *p, int ahead);
/* Consumes a keyword or operator when it is next: 1 taken, 0 not, <0 error. */
int sp_accept(sql_parser *p, const char *kw);
int sp_accept_op(sql_parser *p, const char *op);
int sp_expect(sql_parser *p, const char *kw);
int sp_expect_op(sql_parser *p, const char *op);
/* [PARSE_SYNTAX_ERROR] at the current token / at an offset. */
int sp_syntax_error(sql_parser *p);
int sp_error_at(sql_parser *p, size_t pos, const char *cls, const char *msg);
/* Enters one nesting level (queries in queries); DL_EINVALID when too deep. */
int sp_enter(sql_parser *p);

void *sp_alloc(sql_parser *p, size_t n);
/* Appends *item to a growing arena array (doubling). */
int sp_push(sql_parser *p, void **arr, int *n, int *cap, const void *item, size_t size);
#define SP_PUSH(p, arr, n, cap, item) sp_push((p), (void **)&(arr), &(n), &(cap), &(item), sizeof(item))

/* Pieces. */
int sp_ident(sql_parser *p, char **out);          /* name or `quoted` */
int sp_name(sql_parser *p, sql_name *out);        /* a.b.c */
int sp_name_list(sql_parser *p, sql_name **out, int *n, bool parens); /* (a, b.c) */
int sp_ident_list(sql_parser *p, char ***out, int *n); /* (a, b) */
int sp_string(sql_parser *p, const char **out);   /* 'literal' (escapes undone) */
int sp_integer(sql_parser *p, int64_t *out);
int sp_expr(sql_parser *p, ex_node **out);
int sp_type(sql_parser *p, dl_type **out);
int sp_props(sql_parser *p, sql_prop **out, int *n, bool keys_only);
int sp_table_name(sql_parser *p, sql_table_ref **out); /* name or format.`path`, time travel */
int sp_delta_target(sql_parser *p, sql_table_ref **out); /* also 'path' */
int sp_time_travel(sql_parser *p, sql_time_travel *tt);
int sp_table_ref(sql_parser *p, sql_table_ref **out);  /* FROM item with joins */
int sp_alias(sql_parser *p, sql_table_ref *t, bool cols);
/* Nothing may follow: the statement's end. */
int sp_end(sql_parser *p);

/* Statements (the current token is the first keyword). */
int sp_query(sql_parser *p, sql_query **out);
int sp_ctes(sql_parser *p, sql_cte **out, int *n);
int sp_order_by(sql_parser *p, ex_sort_item **out, int *n);
int sp_group_by(sql_parser *p, sql_select *s); /* GROUP BY ... (parse_group_by.c) */
int sp_signed_integer(sql_parser *p, int64_t *out);
int sp_stmt(sql_parser *p, sql_stmt *st);
int sp_create(sql_parser *p, sql_stmt *st);
int sp_drop(sql_parser *p, sql_stmt *st);
int sp_column_def(sql_parser *p, sql_column_def *c, bool alter);
int sp_insert(sql_parser *p, sql_stmt *st);
int sp_delete(sql_parser *p, sql_stmt *st);
int sp_update(sql_parser *p, sql_stmt *st);
int sp_merge(sql_parser *p, sql_stmt *st);
int sp_maintenance(sql_parser *p, sql_stmt *st); /* OPTIMIZE REORG VACUUM RESTORE CONVERT GENERATE FSCK */
int sp_alter(sql_parser *p, sql_stmt *st);
int sp_misc(sql_parser *p, sql_stmt *st);        /* DESCRIBE SHOW USE EXPLAIN SET RESET */

#endif
