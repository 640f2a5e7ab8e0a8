/* Option parsing of the CLI framework (internal to cli/): the tables of
 * cli.h (DL_CLI_FLAG, DL_CLI_INT, ...) applied to argv. */
#ifndef DL_CLI_OPTIONS_H
#define DL_CLI_OPTIONS_H
#include <stdbool.h>
#include "cli.h"

/* The options every command accepts (before or after the command). */
typedef struct dl_cli_globals {
	bool help;
	bool quiet;
	bool version;
	const char *format;
	const char *output;
	const char *storage_option; /* shown in help; taken out of argv first (storage_options.h) */
} dl_cli_globals;

extern const dl_cli_opt dl_cli_global_opts[];

/* Where parsed values go: the command's args struct and the globals. */
typedef struct dl_cli_target {
	const dl_cli_opt *opts;
	char *base;
} dl_cli_target;

bool dl_cli_is_positional(dl_cli_opt_kind k);
bool dl_cli_takes_value(dl_cli_opt_kind k);
const dl_cli_opt *dl_cli_find_long(const dl_cli_opt *opts, const char *name, size_t len);
const dl_cli_opt *dl_cli_find_short(const dl_cli_opt *opts, char c);

/* Sizes the lists of t's table for argv and keeps the allocation in
 * cli->scratch_ (released by dl_cli_scratch_free after the command). */
int dl_cli_alloc_lists(dl_cli *cli, const dl_cli_target *t, int argc, char **argv);
void dl_cli_scratch_free(dl_cli *cli);
/* Stores the defaults of t's table. */
int dl_cli_apply_defaults(dl_cli *cli, const dl_cli_target *t);
/* Parses the option at argv[*i] against the nt tables (the first found
 * wins) and advances *i past its value. */
int dl_cli_parse_option(dl_cli *cli, const dl_cli_target *t, int nt, int argc, char **argv, int *i);
/* Parses argv[0..argc); t[0]'s positionals take the non-option words. */
int dl_cli_parse_args(dl_cli *cli, const dl_cli_target *t, int nt, int argc, char **argv);
/* DL_CLI_USAGE (after a message) when a required positional is missing. */
int dl_cli_check_required(dl_cli *cli, const dl_cli_target *t);

#endif
