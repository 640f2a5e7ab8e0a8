/* The SQL front end: Spark SQL text as Delta uses it -> statement trees
 * (sql/ast.h). Parsing only; executing statements is the engine's job.
 *
 * Syntax errors are DL_EINVALID with Spark's error class and the place:
 *   [PARSE_SYNTAX_ERROR] Syntax error at or near 'FORM': line 1, column 9
 *   SELECT * FORM t
 *            ^
 * Lines count from 1 and columns from 0 (Spark's "pos"), in the script. */
#ifndef DL_SQL_SQL_H
#define DL_SQL_SQL_H
#include "sql/ast.h"
#include "util/buf.h"
#include <stddef.h>

typedef struct dl_sql_script dl_sql_script;

/* Parses every ';'-separated statement of text (empty statements are
 * skipped). *out is NULL on error. */
int dl_sql_parse(dl_sql_script **out, const char *text);
void dl_sql_script_free(dl_sql_script *s);

size_t dl_sql_script_count(const dl_sql_script *s);
const sql_stmt *dl_sql_script_stmt(const dl_sql_script *s, size_t i);
/* The owner of every expression node of the script (its params list the
 * `?` parameters: see expr/ast.h). */
dl_expr *dl_sql_script_expr(const dl_sql_script *s);
/* The script text the statement positions refer to. */
const char *dl_sql_script_text(const dl_sql_script *s);

/* Canonical SQL of a statement: keywords upper case, identifiers quoted
 * only when needed, every optional clause spelled the one way the parser
 * reads back to the same tree (parse(print(t)) prints as print(t)). */
int dl_sql_print(dl_buf *out, const sql_stmt *st);
int dl_sql_print_query(dl_buf *out, const sql_query *q);

/* The statement spans of a script: splits on ';' outside quotes,
 * back quotes and comments. Spans exclude the ';' and may be blank. */
typedef struct dl_sql_span {
	size_t start, end;
} dl_sql_span;
int dl_sql_split(dl_sql_span **out, size_t *n, const char *text, size_t len);

/* Human name of a statement kind ("MERGE", "DESCRIBE HISTORY"). */
const char *dl_sql_stmt_kind_name(sql_stmt_kind k);

#endif
