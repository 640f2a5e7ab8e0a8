/* The command-line framework of `deltalake`: command registry, dispatch,
 * option parsing, help, exit codes. How to add a command: docs/CLI_GUIDE.md.
 *
 * A command is a file cli/cmd_<name>.c that declares its arguments as a
 * struct, an option table describing that struct, and a run function, and
 * registers itself with DL_CLI_COMMAND. Nothing else needs editing: the
 * registry is a linker section that collects every DL_CLI_COMMAND of the
 * program, so adding a file adds the command.
 *
 *	typedef struct { const char *table; int64_t limit; } history_args;
 *	static const dl_cli_opt history_opts[] = {
 *		DL_CLI_ARG(history_args, table, "TABLE", "path or URI of the table"),
 *		DL_CLI_INT(history_args, limit, 'n', "limit", "N", "-1", "show at most N commits"),
 *		DL_CLI_END,
 *	};
 *	static int history_run(dl_cli *cli, const void *args) { ... return 0 or a dl_error_code; }
 *	DL_CLI_COMMAND(history, .name = "history", .summary = "show the commits of a table",
 *	               .opts = history_opts, .args_size = sizeof(history_args), .run = history_run);
 *
 * Two-level commands ("parquet schema") are commands whose name has a space;
 * the first word becomes a group, optionally described by DL_CLI_GROUP. */
#ifndef DL_CLI_CLI_H
#define DL_CLI_CLI_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include "output.h"

/* Process exit codes. */
enum { DL_CLI_EXIT_OK = 0, DL_CLI_EXIT_ERROR = 1, DL_CLI_EXIT_USAGE = 2 };

/* What a run function may return besides 0 and a negative dl_error_code
 * (which the framework reports as "deltalake: error: <dl_error_last()>" and
 * exit code 1): DL_CLI_USAGE after dl_cli_usage_error printed the message. */
#define DL_CLI_USAGE 2

typedef enum dl_cli_opt_kind {
	DL_CLI_OPT_END = 0,
	DL_CLI_OPT_FLAG,     /* --name: bool = true */
	DL_CLI_OPT_STRING,   /* --name VALUE: const char * */
	DL_CLI_OPT_INT,      /* --name N: int64_t, whole argument must be an integer */
	DL_CLI_OPT_LIST,     /* --name VALUE, repeatable: dl_cli_list */
	DL_CLI_OPT_NAMES,    /* --name A,B, repeatable, split at commas: dl_cli_list */
	DL_CLI_OPT_ARG,      /* required positional: const char * */
	DL_CLI_OPT_ARG_OPT,  /* optional positional: const char * (NULL when absent) */
	DL_CLI_OPT_ARG_REST, /* all remaining positionals: dl_cli_list */
} dl_cli_opt_kind;

/* Values of a repeatable option or of the remaining positionals. The strings
 * are the process's argv (or copies, for split names); all of it is freed by
 * the framework after run. */
typedef struct dl_cli_list {
	const char **items;
	int n;
} dl_cli_list;

typedef struct dl_cli_opt {
	dl_cli_opt_kind kind;
	size_t offset;       /* of the field in the command's args struct */
	char short_name;     /* 'n' for -n, or 0 */
	const char *name;    /* long name without "--"; positional: unused */
	const char *metavar; /* "N", "FILE"; the positional's display name */
	const char *def;     /* default, parsed like a command-line value, or NULL */
	const char *help;    /* one line */
} dl_cli_opt;

/* Compile-time check that args field `f` of struct T has type `type`: an
 * incompatible pointer initialization is an error under -Werror. */
#define DL_CLI_FIELD_(T, f, type) (offsetof(T, f) + 0 * sizeof((type *){&((T *)0)->f}))

#define DL_CLI_FLAG(T, f, s, name, help) \
	{DL_CLI_OPT_FLAG, DL_CLI_FIELD_(T, f, bool), s, name, NULL, NULL, help}
#define DL_CLI_STRING(T, f, s, name, metavar, def, help) \
	{DL_CLI_OPT_STRING, DL_CLI_FIELD_(T, f, const char *), s, name, metavar, def, help}
#define DL_CLI_INT(T, f, s, name, metavar, def, help) \
	{DL_CLI_OPT_INT, DL_CLI_FIELD_(T, f, int64_t), s, name, metavar, def, help}
#define DL_CLI_LIST(T, f, s, name, metavar, help) \
	{DL_CLI_OPT_LIST, DL_CLI_FIELD_(T, f, dl_cli_list), s, name, metavar, NULL, help}
#define DL_CLI_NAMES(T, f, s, name, metavar, help) \
	{DL_CLI_OPT_NAMES, DL_CLI_FIELD_(T, f, dl_cli_list), s, name, metavar, NULL, help}
#define DL_CLI_ARG(T, f, metavar, help) \
	{DL_CLI_OPT_ARG, DL_CLI_FIELD_(T, f, const char *), 0, NULL, metavar, NULL, help}
#define DL_CLI_ARG_OPT(T, f, metavar, help) \
	{DL_CLI_OPT_ARG_OPT, DL_CLI_FIELD_(T, f, const char *), 0, NULL, metavar, NULL, help}
#define DL_CLI_ARG_REST(T, f, metavar, help) \
	{DL_CLI_OPT_ARG_REST, DL_CLI_FIELD_(T, f, dl_cli_list), 0, NULL, metavar, NULL, help}
#define DL_CLI_END {DL_CLI_OPT_END, 0, 0, NULL, NULL, NULL, NULL}

typedef struct dl_cli dl_cli;

typedef struct dl_cli_command {
	const char *name;        /* "history", or "parquet schema" for a two-level command */
	const char *summary;     /* one line, lower case, no final period */
	const char *description; /* paragraphs shown by --help, or NULL */
	const char *examples;    /* lines shown under "Examples:" by --help, or NULL */
	const dl_cli_opt *opts;  /* ends with DL_CLI_END; NULL for none */
	size_t args_size;        /* sizeof the args struct the opts describe */
	/* Returns 0, a negative dl_error_code (message in dl_error_last()) or
	 * DL_CLI_USAGE. NULL for a group entry (DL_CLI_GROUP). */
	int (*run)(dl_cli *cli, const void *args);
	bool hidden;             /* not listed by help */
} dl_cli_command;

/* Registration: one pointer per command in the "dl_cli_commands" section of
 * the executable (GNU ld and lld define __start_/__stop_ for it). Sanitizers
 * leave user sections unpadded, so the entries stay contiguous. */
#define DL_CLI_COMMAND(ident, ...)                                          \
	static const dl_cli_command dl_cli_cmd_##ident = {__VA_ARGS__};         \
	static const dl_cli_command *const dl_cli_cmd_ptr_##ident               \
		__attribute__((used, section("dl_cli_commands"))) = &dl_cli_cmd_##ident
/* Describes the group "name" (the first word of two-level commands). */
#define DL_CLI_GROUP(ident, group_name, group_summary) \
	DL_CLI_COMMAND(ident, .name = group_name, .summary = group_summary)

/* The state every command receives: global options and streams. */
struct dl_cli {
	const char *prog;             /* "deltalake" */
	const dl_cli_command *cmd;    /* the command being run */
	dl_out_format format;         /* --format, default table */
	bool format_set;              /* --format was given */
	bool quiet;                   /* -q/--quiet: no progress or notes */
	const char *output_path;      /* -o/--output FILE, or NULL */
	FILE *out;                    /* results: stdout or the -o file */
	FILE *err;                    /* messages: stderr */
	/* Internal: allocations to free after the command. */
	void *scratch_;
};

/* Runs the program: returns the exit code. out/err are the streams to use
 * (stdout/stderr in main; memory streams in tests). */
int dl_cli_main(int argc, char **argv, FILE *out, FILE *err);

/* Prints "deltalake: error: <message>; run 'deltalake CMD --help'" to
 * cli->err and returns DL_CLI_USAGE: `return dl_cli_usage_error(cli, ...)`. */
int dl_cli_usage_error(dl_cli *cli, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* A note for the user on stderr ("deltalake: <message>"), unless --quiet. */
void dl_cli_note(dl_cli *cli, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* Starts result output on cli->out in cli->format. */
int dl_cli_out_begin(dl_out **out, dl_cli *cli, const dl_out_column *cols, int ncols);

/* The registered commands, in link order (entries may be NULL: skip them). */
void dl_cli_registry(const dl_cli_command *const **begin, size_t *n);
/* Lookup by full name ("parquet schema"); NULL when absent. */
const dl_cli_command *dl_cli_find(const char *name);

#endif
