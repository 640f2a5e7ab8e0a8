/* The interactive SQL shell of `deltalake sql` (libedit). */
#ifndef DL_CLI_SQL_SHELL_H
#define DL_CLI_SQL_SHELL_H
#include "sql_run.h"

/* Reads statements at the prompt until .quit or Ctrl-D: 0, or a negative
 * code when the shell itself could not run (no terminal). */
int sql_shell_run(sql_session *s);

#endif
