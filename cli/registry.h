/* The command registry of the CLI framework (internal to cli/): commands
 * registered with DL_CLI_COMMAND, found by name, listed and grouped. */
#ifndef DL_CLI_REGISTRY_H
#define DL_CLI_REGISTRY_H
#include <stdbool.h>
#include <stddef.h>
#include "cli.h"

/* Length of the first word of a command name ("parquet" in "parquet schema"). */
size_t dl_cli_first_word_len(const char *name);
/* The command named "w0 w1" (a two-level command); NULL when absent. */
const dl_cli_command *dl_cli_find_pair(const char *w0, const char *w1);
/* True when some command's name is "<group> <something>". */
bool dl_cli_is_group(const char *group);
/* The visible commands sorted by name, in a new array to dl_free (NULL when
 * there are none). */
const dl_cli_command **dl_cli_sorted_commands(size_t *count);

#endif
