/* Help of the CLI framework (internal to cli/): generated from the command
 * structs and option tables, and "did you mean" suggestions. */
#ifndef DL_CLI_HELP_H
#define DL_CLI_HELP_H
#include <stdio.h>
#include "cli.h"

void dl_cli_print_main_help(FILE *fp, const char *prog);
void dl_cli_print_group_help(FILE *fp, const char *prog, const char *group);
void dl_cli_print_command_help(FILE *fp, const char *prog, const dl_cli_command *cmd);
/* The closest command word to `word` among the commands of `group` ("" for
 * the top level), written into buf; NULL when nothing is close. */
const char *dl_cli_suggest(const char *group, const char *word, char *buf, size_t cap);

#endif
