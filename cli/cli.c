/* The command-line framework's entry point: dispatch to a command, the -o
 * output file, error reporting and exit codes. Commands live in
 * cli/cmd_*.c (see cli.h); options.c parses, help.c explains, registry.c
 * finds commands. */
#include "cli.h"
#include "util.h"
#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "deltalake.h"
#include "help.h"
#include "options.h"
#include "registry.h"
#include "storage_options.h"

static void usage_hint(dl_cli *cli)
{
	if (cli->cmd)
		fprintf(cli->err, " (see '%s %s --help')\n", cli->prog, cli->cmd->name);
	else
		fprintf(cli->err, " (see '%s --help')\n", cli->prog);
}

int dl_cli_usage_error(dl_cli *cli, const char *fmt, ...)
{
	va_list ap;
	fprintf(cli->err, "%s: error: ", cli->prog);
	va_start(ap, fmt);
	vfprintf(cli->err, fmt, ap);
	va_end(ap);
	usage_hint(cli);
	return DL_CLI_USAGE;
}

void dl_cli_note(dl_cli *cli, const char *fmt, ...)
{
	if (cli->quiet) return;
	va_list ap;
	fprintf(cli->err, "%s: ", cli->prog);
	va_start(ap, fmt);
	vfprintf(cli->err, fmt, ap);
	va_end(ap);
	fputc('\n', cli->err);
}

static void report_error(dl_cli *cli, int rc)
{
	const char *msg = dl_cli_error_message(), *klass = dl_cli_error_class();
	/* Spark-style messages begin with their class already: not twice */
	size_t kl = strlen(klass);
	bool tagged = msg && kl && msg[0] == '[' && !strncmp(msg + 1, klass, kl) && msg[kl + 1] == ']';
	if (msg && klass[0] && !tagged)
		fprintf(cli->err, "%s: error: %s [%s]\n", cli->prog, msg, klass);
	else if (msg)
		fprintf(cli->err, "%s: error: %s\n", cli->prog, msg);
	else
		fprintf(cli->err, "%s: error: the command failed (%s) without a message\n", cli->prog,
		        dl_error_code_name(rc));
}

int dl_cli_out_begin(dl_out **out, dl_cli *cli, const dl_out_column *cols, int ncols)
{
	return dl_out_begin(out, cli->out, cli->format, cols, ncols);
}

typedef struct resolved {
	const dl_cli_command *cmd; /* a runnable command, or NULL */
	char group[64];            /* the group named when cmd is NULL, or "" */
	int words;                 /* argv words naming the command */
} resolved;

/* Finds the command named by argv[0] (and argv[1] for two-level ones). */
static void resolve(resolved *r, int argc, char **argv)
{
	memset(r, 0, sizeof *r);
	if (argc < 1) return;
	if (argc >= 2) {
		const dl_cli_command *c = dl_cli_find_pair(argv[0], argv[1]);
		if (c && c->run) {
			r->cmd = c;
			r->words = 2;
			return;
		}
	}
	const dl_cli_command *c = dl_cli_find(argv[0]);
	if (c && c->run) {
		r->cmd = c;
		r->words = 1;
		return;
	}
	if (dl_cli_is_group(argv[0]) && strlen(argv[0]) < sizeof r->group) {
		snprintf(r->group, sizeof r->group, "%s", argv[0]);
		r->words = 1;
	}
}

static int unknown_command(dl_cli *cli, const char *group, const char *word)
{
	char buf[64];
	const char *s = dl_cli_suggest(group, word, buf, sizeof buf);
	const char *sep = group[0] ? " " : "";
	if (s)
		fprintf(cli->err, "%s: error: unknown command '%s%s%s'; did you mean '%s%s%s'?", cli->prog,
		        group, sep, word, group, sep, s);
	else
		fprintf(cli->err, "%s: error: unknown command '%s%s%s'", cli->prog, group, sep, word);
	if (group[0])
		fprintf(cli->err, " (see '%s %s --help')\n", cli->prog, group);
	else
		usage_hint(cli);
	return DL_CLI_EXIT_USAGE;
}

/* `deltalake help [WORDS...]` */
static int run_help(dl_cli *cli, FILE *out, int argc, char **argv)
{
	if (argc == 0) {
		dl_cli_print_main_help(out, cli->prog);
		return DL_CLI_EXIT_OK;
	}
	if (!strcmp(argv[0], "--help") || !strcmp(argv[0], "-h")) {
		fprintf(out, "usage: %s help [COMMAND [SUBCOMMAND]]\n\nShow help for a command, or list the commands.\n",
		        cli->prog);
		return DL_CLI_EXIT_OK;
	}
	resolved r;
	resolve(&r, argc, argv);
	if (r.cmd && r.words == argc) {
		dl_cli_print_command_help(out, cli->prog, r.cmd);
		return DL_CLI_EXIT_OK;
	}
	if (r.group[0] && argc == 1) {
		dl_cli_print_group_help(out, cli->prog, r.group);
		return DL_CLI_EXIT_OK;
	}
	if (r.group[0]) return unknown_command(cli, r.group, argv[1]);
	if (r.cmd) return dl_cli_usage_error(cli, "'%s' has no subcommand '%s'", r.cmd->name, argv[r.words]);
	return unknown_command(cli, "", argv[0]);
}

/* Applies --quiet, --format and -o to the cli. */
static int apply_globals(dl_cli *cli, const dl_cli_globals *g)
{
	cli->quiet = g->quiet;
	if (g->format) {
		if (dl_out_format_parse(&cli->format, g->format) < 0)
			return dl_cli_usage_error(cli, "%s", dl_cli_error_message());
		cli->format_set = true;
	}
	cli->output_path = g->output && strcmp(g->output, "-") ? g->output : NULL;
	return 0;
}

/* -o FILE: results go to a temporary file renamed over FILE on success, so
 * a failed command never leaves half a file. Special files (a FIFO,
 * /dev/stdout) are written directly. */
typedef struct output_file {
	FILE *fp;
	char *tmp; /* NULL when writing directly */
} output_file;

static int output_open(output_file *of, const char *path)
{
	struct stat st;
	memset(of, 0, sizeof *of);
	bool direct = stat(path, &st) == 0 && !S_ISREG(st.st_mode);
	if (!direct) {
		size_t n = strlen(path) + 32;
		of->tmp = dl_cli_malloc(n);
		if (!of->tmp) return DL_ENOMEM;
		snprintf(of->tmp, n, "%s.tmp-%ld", path, (long)getpid());
	}
	of->fp = fopen(of->tmp ? of->tmp : path, "w");
	if (!of->fp) {
		int rc = dl_cli_fail(DL_EIO, "cannot write the output file %s: %s; check that its directory exists "
		                      "and is writable", path, strerror(errno));
		free(of->tmp);
		of->tmp = NULL;
		return rc;
	}
	return 0;
}

static int output_close(output_file *of, const char *path, bool keep)
{
	int rc = 0;
	if (fclose(of->fp) != 0 && keep)
		rc = dl_cli_fail(DL_EIO, "writing the output file %s failed: %s", path, strerror(errno));
	if (of->tmp) {
		if (keep && rc == 0 && rename(of->tmp, path) != 0)
			rc = dl_cli_fail(DL_EIO, "cannot create the output file %s: %s", path, strerror(errno));
		if (!keep || rc < 0) unlink(of->tmp);
		free(of->tmp);
	}
	return rc;
}

/* Parses the command's arguments and runs it. Returns the exit code. */
static int run_command(dl_cli *cli, dl_cli_globals *g, const dl_cli_command *cmd, int argc, char **argv)
{
	cli->cmd = cmd;
	void *args = dl_cli_calloc(1, cmd->args_size ? cmd->args_size : 1);
	if (!args) {
		report_error(cli, DL_ENOMEM);
		return DL_CLI_EXIT_ERROR;
	}
	dl_cli_target t[2] = {{cmd->opts, args}, {dl_cli_global_opts, (char *)g}};
	int rc = dl_cli_alloc_lists(cli, &t[0], argc, argv);
	if (rc == 0) rc = dl_cli_apply_defaults(cli, &t[0]);
	if (rc == 0) rc = dl_cli_parse_args(cli, t, 2, argc, argv);
	if (rc == 0 && g->help) {
		dl_cli_print_command_help(cli->out, cli->prog, cmd);
		goto done;
	}
	if (rc == 0) rc = dl_cli_check_required(cli, &t[0]);
	if (rc == 0) rc = apply_globals(cli, g);
	output_file of = {NULL, NULL};
	if (rc == 0 && cli->output_path) {
		rc = output_open(&of, cli->output_path);
		if (rc == 0) cli->out = of.fp;
	}
	if (rc == 0) {
		dl_cli_error_clear();
		dl_warning_clear();
		rc = cmd->run(cli, args);
		/* what the library could not finish after a success, e.g. a
		 * checkpoint on a full disk (issue 17 item 10): said, exit 0 */
		const char *warn = dl_warning_last();
		for (const char *w = warn; rc == 0 && w && *w;) {
			const char *nl = strchr(w, '\n');
			int n = nl ? (int)(nl - w) : (int)strlen(w);
			fprintf(cli->err, "%s: warning: %.*s\n", cli->prog, n, w);
			w = nl ? nl + 1 : w + n;
		}
		if (rc == 0 && (fflush(cli->out) != 0 || ferror(cli->out)))
			rc = dl_cli_fail(DL_EIO, "writing the output failed: %s", strerror(errno));
	}
	if (of.fp) {
		int crc = output_close(&of, cli->output_path, rc == 0);
		if (rc == 0) rc = crc;
	}
done:
	dl_cli_scratch_free(cli);
	free(args);
	if (rc < 0) {
		report_error(cli, rc);
		return DL_CLI_EXIT_ERROR;
	}
	return rc == DL_CLI_USAGE ? DL_CLI_EXIT_USAGE : DL_CLI_EXIT_OK;
}

/* Options before the command word: the globals and --version. Returns the
 * index of the command word, or -1 after a usage error. */
static int parse_leading(dl_cli *cli, dl_cli_globals *g, int argc, char **argv)
{
	static const dl_cli_opt version_opt[] = {
		DL_CLI_FLAG(dl_cli_globals, version, 'V', "version", "print the version"),
		DL_CLI_END,
	};
	dl_cli_target t[2] = {{dl_cli_global_opts, (char *)g}, {version_opt, (char *)g}};
	int i = 1;
	for (; i < argc && argv[i][0] == '-' && argv[i][1]; i++) {
		if (!strcmp(argv[i], "--")) return i + 1;
		if (dl_cli_parse_option(cli, t, 2, argc, argv, &i)) return -1;
	}
	return i;
}

static int dispatch(int argc, char **argv, FILE *out, FILE *err);

int dl_cli_main(int argc, char **argv, FILE *out, FILE *err)
{
	/* Every table path may name a shared table (PROFILE#share.schema.table). */
	if (dl_sharing_register() < 0)
		fprintf(err, "deltalake: warning: Delta Sharing paths unavailable: %s\n", dl_error_last()->message);
	int code = dispatch(argc, argv, out, err);
	dl_cli_storage_options_free(NULL);
	/* Help and listings count as output too: a full disk is an error. */
	if (code == DL_CLI_EXIT_OK && (fflush(out) != 0 || ferror(out))) {
		fprintf(err, "deltalake: error: writing the output failed: %s\n", strerror(errno));
		code = DL_CLI_EXIT_ERROR;
	}
	return code;
}

static int dispatch(int argc, char **argv, FILE *out, FILE *err)
{
	dl_cli cli = {0};
	dl_cli_globals g = {0};
	cli.prog = "deltalake";
	cli.out = out;
	cli.err = err;
	int src = dl_cli_take_storage_options(&cli, &argc, argv);
	if (src < 0) fprintf(err, "deltalake: error: %s\n", dl_cli_error_message());
	if (src != 0) return src < 0 ? DL_CLI_EXIT_ERROR : DL_CLI_EXIT_USAGE;
	int i = parse_leading(&cli, &g, argc, argv);
	if (i < 0) return DL_CLI_EXIT_USAGE;
	if (g.version) {
		fprintf(out, "%s %s\n", cli.prog, dl_version());
		return DL_CLI_EXIT_OK;
	}
	if (i >= argc) {
		dl_cli_print_main_help(g.help ? out : err, cli.prog);
		return g.help ? DL_CLI_EXIT_OK : DL_CLI_EXIT_USAGE;
	}
	int rest = argc - i;
	char **words = argv + i;
	if (!strcmp(words[0], "help")) return run_help(&cli, out, rest - 1, words + 1);
	resolved r;
	resolve(&r, rest, words);
	if (r.cmd) return run_command(&cli, &g, r.cmd, rest - r.words, words + r.words);
	if (r.group[0]) {
		bool asked = g.help || (rest >= 2 && (!strcmp(words[1], "--help") || !strcmp(words[1], "-h")));
		if (asked) {
			dl_cli_print_group_help(out, cli.prog, r.group);
			return DL_CLI_EXIT_OK;
		}
		if (rest >= 2 && words[1][0] != '-') return unknown_command(&cli, r.group, words[1]);
		fprintf(err, "%s: error: '%s' needs a command\n\n", cli.prog, r.group);
		dl_cli_print_group_help(err, cli.prog, r.group);
		return DL_CLI_EXIT_USAGE;
	}
	return unknown_command(&cli, "", words[0]);
}
