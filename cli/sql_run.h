/* `deltalake sql` internals shared by the command (cmd_sql.c), the dot
 * commands (sql_dot.c), the interactive shell (sql_shell.c) and completion
 * (sql_complete.c, sql_catalog.c): a session over one connection that runs
 * scripts statement by statement and prints each result.
 *
 * Error policy: a script (arguments, -f, stdin, .read) stops at its first
 * failing statement, as DuckDB's CLI and `sqlite3 -bail` do, so a later
 * statement never runs on the state a failed one left; the shell reports
 * and reads the next statement. */
#ifndef DL_CLI_SQL_RUN_H
#define DL_CLI_SQL_RUN_H
#include <stdbool.h>
#include <stdio.h>
#include "cli.h"
#include "deltalake/sql.h"

/* How results are written: a text format (output.h), or the last
 * statement's result as one Arrow IPC stream or one Parquet file. */
typedef enum sql_binary { SQL_TEXT = 0, SQL_ARROW, SQL_PARQUET } sql_binary;

typedef struct sql_session {
	dl_cli *cli;
	dl_sql_conn *conn;
	FILE *out;              /* results */
	FILE *err;              /* messages */
	dl_out_format format;   /* text format (.format changes it) */
	sql_binary binary;
	bool timer;             /* .timer on: "Run Time: ..." after each statement */
	bool interactive;       /* the shell: errors print "Error: ..." and it goes on */
	bool catalog_changed;   /* a statement ran since completion last listed tables */
	bool more_input;        /* more scripts follow this one: its last statement is not the last */
} sql_session;

/* sql_dot_run's answer when the command was .quit or .exit. */
#define SQL_QUIT 1

/* Runs the statements of `text` (origin: "FILE:" prefix of error messages,
 * NULL for none; first_line: the line of text[0] in that origin). Returns 0
 * or the negative code of the first failure, already reported (see
 * sql_report). */
int sql_run_script(sql_session *s, const char *text, const char *origin, int first_line);
/* Reads statements and dot commands from fp line by line, running each
 * statement once complete (dl_sql_complete) and what remains at the end.
 * 0, SQL_QUIT, or the first failure's negative code (reported). */
int sql_run_stream(sql_session *s, FILE *fp, const char *origin);
/* A dot command line (".tables", ".format csv"...): 0, SQL_QUIT, or a
 * negative code after reporting. */
int sql_dot_run(sql_session *s, const char *line);
/* The dot commands with their help lines, for .help and completion. */
typedef struct sql_dot_command {
	const char *name; /* ".tables" */
	const char *args; /* "[SCHEMA]" */
	const char *help;
} sql_dot_command;
extern const sql_dot_command sql_dot_commands[];

/* Reports the last error (dl_cli_error_message, with "[CLASS] " in front
 * when the library gave a class the message does not already start with).
 * Interactive: "Error: ..." on s->err now. Batch: kept as the CLI's error,
 * so the framework prints "deltalake: error: ..." and exits 1. `where` is
 * a prefix such as "script.sql:12: " or "". Returns rc. */
int sql_report(sql_session *s, int rc, const char *where);

/* Called from a SIGINT handler: cancels the statement that runs now, if
 * any (dl_sql_interrupt). Returns false when none runs. */
bool sql_interrupt_running(void);

/* The position after blanks, -- and bracketed comments and stray ';'. */
const char *sql_skip_blank(const char *p);

/* A list of strings owned by the list. */
typedef struct sql_names {
	char **v;
	size_t n, cap;
} sql_names;
int sql_names_add(sql_names *l, const char *s, size_t len);
bool sql_names_has(const sql_names *l, const char *s);
void sql_names_clear(sql_names *l);
void sql_names_free(sql_names *l);

/* Runs `sql` and appends the text of column `column` (by name; the first
 * column when NULL) of every row to out. For the shell's own listings
 * (SHOW TABLES, DESCRIBE); the statement's errors are returned, not
 * reported. */
int sql_query_column(sql_names *out, dl_sql_conn *conn, const char *sql, const char *column);

#endif
