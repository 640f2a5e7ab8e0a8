/* Tab completion of the SQL shell: which words fit where the cursor is.
 * Pure text logic over a catalog given as callbacks (sql_catalog.c asks
 * the connection; the unit test gives a fixed one), so it is tested
 * without a terminal. */
#ifndef DL_CLI_SQL_COMPLETE_H
#define DL_CLI_SQL_COMPLETE_H
#include <stddef.h>
#include "sql_run.h"

/* What completion may ask of the warehouse. Each appends to out; an error
 * simply means no names. */
typedef struct sql_catalog {
	/* the tables of `schema`, or of the current schema when NULL */
	int (*tables)(sql_names *out, const char *schema, void *payload);
	int (*schemas)(sql_names *out, void *payload);
	/* the columns of `table` as written in the statement (maybe qualified) */
	int (*columns)(sql_names *out, const char *table, void *payload);
	void *payload;
} sql_catalog;

/* The candidates for the word that ends at line[cursor], sorted and each
 * once, spelled as they should replace it: SQL keywords in the case the
 * word is typed in, table names (after FROM, JOIN, INTO, TABLE...; after
 * "schema." that schema's tables), schema names, the columns of the
 * tables the statement names, and dot commands at the start of a line.
 * `before` is the statement's text on earlier lines ("" for none).
 * *word_start: where the word starts in line. Nothing inside quotes or
 * comments. */
int sql_complete(sql_names *out, size_t *word_start, const char *before, const char *line, size_t cursor,
                 const sql_catalog *cat);

/* The length of the longest prefix all candidates share. */
size_t sql_common_prefix(const sql_names *c);

/* The SQL keywords completion offers (upper case), for tests. */
extern const char *const sql_keywords[];

#endif
