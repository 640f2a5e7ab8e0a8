/* The command-line framework: registry, dispatch, option parsing, help and
 * error reporting. Commands live in cli/cmd_*.c; see cli.h. */
#include "cli.h"
#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "deltalake.h"
#include "util/arena.h"
#include "util/error.h"
#include "util/mem.h"

/* ---- registry ---- */

/* Defined by the linker around the section; weak so a program without any
 * registered command still links (the range is then empty). */
extern const dl_cli_command *const __start_dl_cli_commands[] __attribute__((weak));
extern const dl_cli_command *const __stop_dl_cli_commands[] __attribute__((weak));

void dl_cli_registry(const dl_cli_command *const **begin, size_t *n)
{
	*begin = __start_dl_cli_commands;
	*n = __start_dl_cli_commands && __stop_dl_cli_commands
	         ? (size_t)(__stop_dl_cli_commands - __start_dl_cli_commands)
	         : 0;
}

const dl_cli_command *dl_cli_find(const char *name)
{
	const dl_cli_command *const *cmds;
	size_t n;
	dl_cli_registry(&cmds, &n);
	for (size_t i = 0; i < n; i++) {
		if (cmds[i] && cmds[i]->name && !strcmp(cmds[i]->name, name)) return cmds[i];
	}
	return NULL;
}

/* Length of the first word of a command name ("parquet" in "parquet schema"). */
static size_t first_word_len(const char *name)
{
	return strcspn(name, " ");
}

/* True when some command's name is "<group> <something>". */
static bool is_group(const char *group)
{
	const dl_cli_command *const *cmds;
	size_t n, gl = strlen(group);
	dl_cli_registry(&cmds, &n);
	for (size_t i = 0; i < n; i++) {
		const char *nm = cmds[i] && cmds[i]->name ? cmds[i]->name : "";
		if (!strncmp(nm, group, gl) && nm[gl] == ' ') return true;
	}
	return false;
}

static int compare_commands(const void *a, const void *b)
{
	const dl_cli_command *x = *(const dl_cli_command *const *)a;
	const dl_cli_command *y = *(const dl_cli_command *const *)b;
	return strcmp(x->name, y->name);
}

/* The visible commands sorted by name, in a new array (NULL when empty). */
static const dl_cli_command **sorted_commands(size_t *count)
{
	const dl_cli_command *const *cmds;
	size_t n, k = 0;
	dl_cli_registry(&cmds, &n);
	*count = 0;
	const dl_cli_command **out = n ? dl_calloc(n, sizeof *out) : NULL;
	if (!out) return NULL;
	for (size_t i = 0; i < n; i++) {
		if (cmds[i] && cmds[i]->name && !cmds[i]->hidden) out[k++] = cmds[i];
	}
	qsort(out, k, sizeof *out, compare_commands);
	*count = k;
	return out;
}

/* ---- messages ---- */

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
	const dl_error *e = dl_error_last();
	const char *msg = e->code != DL_OK && e->message[0] ? e->message : NULL;
	if (msg && e->klass[0])
		fprintf(cli->err, "%s: error: %s [%s]\n", cli->prog, msg, e->klass);
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

/* ---- suggestions ---- */

/* Edit distance (insert, delete, substitute), for "did you mean". Names
 * longer than 63 bytes are never close to what someone types. */
static size_t edit_distance(const char *a, size_t la, const char *b, size_t lb)
{
	size_t row[64];
	if (la > 63 || lb > 63) return (size_t)-1;
	for (size_t j = 0; j <= lb; j++) row[j] = j;
	for (size_t i = 1; i <= la; i++) {
		size_t diag = row[0];
		row[0] = i;
		for (size_t j = 1; j <= lb; j++) {
			size_t up = row[j];
			size_t best = diag + (a[i - 1] != b[j - 1]);
			if (up + 1 < best) best = up + 1;
			if (row[j - 1] + 1 < best) best = row[j - 1] + 1;
			row[j] = best;
			diag = up;
		}
	}
	return row[lb];
}

/* The closest command word to `word` at the level of `group` ("" for top). */
static const char *suggest(const char *group, const char *word, char *buf, size_t cap)
{
	const dl_cli_command *const *cmds;
	size_t n, best = (size_t)-1, gl = strlen(group);
	dl_cli_registry(&cmds, &n);
	buf[0] = 0;
	size_t wl = strlen(word);
	for (size_t i = 0; i < n; i++) {
		const char *nm = cmds[i] && cmds[i]->name && !cmds[i]->hidden ? cmds[i]->name : NULL;
		if (!nm) continue;
		if (gl) {
			if (strncmp(nm, group, gl) || nm[gl] != ' ') continue;
			nm += gl + 1;
		}
		size_t l = first_word_len(nm);
		size_t d = edit_distance(word, wl, nm, l);
		if (l > wl && !strncmp(nm, word, wl) && wl >= 2) d = 1; /* a prefix */
		if (d < best) {
			best = d;
			snprintf(buf, cap, "%.*s", (int)l, nm);
		}
	}
	size_t limit = wl / 3 > 2 ? wl / 3 : 2;
	return best <= limit && buf[0] ? buf : NULL;
}

/* ---- option parsing ---- */

typedef struct global_args {
	bool help;
	bool quiet;
	bool version;
	const char *format;
	const char *output;
} global_args;

static const dl_cli_opt global_opts[] = {
	DL_CLI_STRING(global_args, format, 0, "format", "FMT", NULL,
	              "output format: table (default), csv, jsonl or json"),
	DL_CLI_STRING(global_args, output, 'o', "output", "FILE", NULL,
	              "write the results to FILE instead of standard output"),
	DL_CLI_FLAG(global_args, quiet, 'q', "quiet", "no progress bars or notes on standard error"),
	DL_CLI_FLAG(global_args, help, 'h', "help", "show this help"),
	DL_CLI_END,
};

static bool is_positional(dl_cli_opt_kind k)
{
	return k == DL_CLI_OPT_ARG || k == DL_CLI_OPT_ARG_OPT || k == DL_CLI_OPT_ARG_REST;
}

static bool takes_value(dl_cli_opt_kind k)
{
	return k == DL_CLI_OPT_STRING || k == DL_CLI_OPT_INT || k == DL_CLI_OPT_LIST || k == DL_CLI_OPT_NAMES;
}

static bool is_list(dl_cli_opt_kind k)
{
	return k == DL_CLI_OPT_LIST || k == DL_CLI_OPT_NAMES || k == DL_CLI_OPT_ARG_REST;
}

/* What a command's parse allocates, freed after the command ran. */
typedef struct cli_scratch {
	const char **items; /* the arrays of every list */
	dl_arena arena;     /* copies of split names */
} cli_scratch;

static void scratch_free(dl_cli *cli)
{
	cli_scratch *s = cli->scratch_;
	if (!s) return;
	dl_free(s->items);
	dl_arena_free(&s->arena);
	dl_free(s);
	cli->scratch_ = NULL;
}

/* Where parsed values go: the command's args struct and the globals. */
typedef struct parse_target {
	const dl_cli_opt *opts;
	char *base;
} parse_target;

static void *field(const parse_target *t, const dl_cli_opt *o)
{
	return t->base + o->offset;
}

static int parse_int(int64_t *out, const char *s)
{
	char *end;
	errno = 0;
	long long v = strtoll(s, &end, 10);
	if (errno || end == s || *end) return -1;
	*out = v;
	return 0;
}

static const char *opt_display(const dl_cli_opt *o, char *buf, size_t cap)
{
	if (o->name) snprintf(buf, cap, "--%s", o->name);
	else snprintf(buf, cap, "-%c", o->short_name);
	return buf;
}

/* --columns a,b: each comma-separated name becomes an item (copied, so the
 * caller's argv stays intact). Empty names are a usage error. */
static int store_names(dl_cli *cli, const parse_target *t, const dl_cli_opt *o, const char *value)
{
	cli_scratch *s = cli->scratch_;
	dl_cli_list *l = field(t, o);
	for (const char *p = value;; p++) {
		size_t n = strcspn(p, ",");
		if (n == 0)
			return dl_cli_usage_error(cli, "--%s needs names separated by commas, got '%s'", o->name, value);
		const char *copy = dl_arena_strndup(&s->arena, p, n);
		if (!copy) return DL_ENOMEM;
		l->items[l->n++] = copy;
		p += n;
		if (!*p) return 0;
	}
}

/* Stores one value of an option; DL_CLI_USAGE after a message. */
static int store_value(dl_cli *cli, const parse_target *t, const dl_cli_opt *o, const char *value)
{
	char name[80];
	switch (o->kind) {
	case DL_CLI_OPT_FLAG:
		*(bool *)field(t, o) = true;
		return 0;
	case DL_CLI_OPT_STRING:
	case DL_CLI_OPT_ARG:
	case DL_CLI_OPT_ARG_OPT:
		*(const char **)field(t, o) = value;
		return 0;
	case DL_CLI_OPT_INT:
		if (parse_int((int64_t *)field(t, o), value) < 0)
			return dl_cli_usage_error(cli, "%s expects an integer, got '%s'",
			                          opt_display(o, name, sizeof name), value);
		return 0;
	case DL_CLI_OPT_NAMES:
		return store_names(cli, t, o, value);
	case DL_CLI_OPT_LIST:
	case DL_CLI_OPT_ARG_REST: {
		/* The items array was sized for every argument by parse_args. */
		dl_cli_list *l = field(t, o);
		l->items[l->n++] = value;
		return 0;
	}
	case DL_CLI_OPT_END:
		break;
	}
	return 0;
}

static const dl_cli_opt *find_long(const dl_cli_opt *opts, const char *name, size_t len)
{
	for (const dl_cli_opt *o = opts; o && o->kind; o++) {
		if (!is_positional(o->kind) && o->name && strlen(o->name) == len && !strncmp(o->name, name, len))
			return o;
	}
	return NULL;
}

static const dl_cli_opt *find_short(const dl_cli_opt *opts, char c)
{
	for (const dl_cli_opt *o = opts; o && o->kind; o++) {
		if (!is_positional(o->kind) && o->short_name == c) return o;
	}
	return NULL;
}

/* Looks an option up in the command's table, then in the global one. */
static const dl_cli_opt *lookup(const parse_target *t, int nt, const char *name, size_t len, char c,
                                const parse_target **which)
{
	for (int i = 0; i < nt; i++) {
		const dl_cli_opt *o = c ? find_short(t[i].opts, c) : find_long(t[i].opts, name, len);
		if (o) {
			*which = &t[i];
			return o;
		}
	}
	return NULL;
}

/* Sizes every list of the table for all the values argv could give it (one
 * allocation): one per word, plus one per comma for split names. */
static int alloc_lists(dl_cli *cli, const parse_target *t, int argc, char **argv)
{
	size_t nlists = 0, per = (size_t)argc + 1;
	for (const dl_cli_opt *o = t->opts; o && o->kind; o++) nlists += is_list(o->kind);
	for (int i = 0; i < argc; i++)
		for (const char *p = argv[i]; (p = strchr(p, ',')); p++) per++;
	cli_scratch *s = dl_calloc(1, sizeof *s);
	if (!s) return DL_ENOMEM;
	cli->scratch_ = s;
	if (!nlists) return 0;
	size_t total;
	if (dl_size_mul(nlists, per, &total) < 0) return DL_ENOMEM;
	const char **items = dl_calloc(total, sizeof *items);
	if (!items) return DL_ENOMEM;
	s->items = items;
	for (const dl_cli_opt *o = t->opts; o && o->kind; o++) {
		if (is_list(o->kind)) {
			((dl_cli_list *)field(t, o))->items = items;
			items += per;
		}
	}
	return 0;
}

static int apply_defaults(dl_cli *cli, const parse_target *t)
{
	for (const dl_cli_opt *o = t->opts; o && o->kind; o++) {
		if (o->def && !is_positional(o->kind) && !is_list(o->kind)) {
			int rc = store_value(cli, t, o, o->def);
			if (rc) return rc;
		}
	}
	return 0;
}

/* The next positional of the table still open for a value. */
static const dl_cli_opt *next_positional(const parse_target *t, int *pos_index)
{
	int i = 0;
	for (const dl_cli_opt *o = t->opts; o && o->kind; o++) {
		if (!is_positional(o->kind)) continue;
		if (o->kind == DL_CLI_OPT_ARG_REST) return o;
		if (i++ == *pos_index) {
			(*pos_index)++;
			return o;
		}
	}
	return NULL;
}

/* A "-5" or "-1.5" is a value, not an option, unless -5 is declared. */
static bool looks_like_option(const parse_target *t, int nt, const char *a)
{
	const parse_target *w;
	if (a[0] != '-' || a[1] == 0) return false; /* "-" is stdin, a value */
	if ((a[1] >= '0' && a[1] <= '9') || a[1] == '.') return lookup(t, nt, NULL, 0, a[1], &w) != NULL;
	return true;
}

/* Parses one option at argv[*i]; advances *i past its value. */
static int parse_option(dl_cli *cli, const parse_target *t, int nt, int argc, char **argv, int *i)
{
	const char *a = argv[*i];
	const char *value = NULL;
	const parse_target *which = NULL;
	const dl_cli_opt *o;
	char name[80];
	if (a[1] == '-') {
		const char *nm = a + 2;
		const char *eq = strchr(nm, '=');
		size_t len = eq ? (size_t)(eq - nm) : strlen(nm);
		o = lookup(t, nt, nm, len, 0, &which);
		if (!o) return dl_cli_usage_error(cli, "unknown option '--%.*s'", (int)len, nm);
		if (eq && !takes_value(o->kind))
			return dl_cli_usage_error(cli, "option --%s takes no value", o->name);
		if (eq) value = eq + 1;
	} else {
		o = lookup(t, nt, NULL, 0, a[1], &which);
		if (!o) return dl_cli_usage_error(cli, "unknown option '-%c'", a[1]);
		if (a[2] && !takes_value(o->kind))
			return dl_cli_usage_error(cli, "unknown option '%s' (flags cannot be combined)", a);
		if (a[2]) value = a + 2;
	}
	if (takes_value(o->kind) && !value) {
		if (*i + 1 >= argc)
			return dl_cli_usage_error(cli, "option %s needs a value (%s)",
			                          opt_display(o, name, sizeof name), o->metavar ? o->metavar : "VALUE");
		value = argv[++*i];
	}
	return store_value(cli, which, o, value);
}

/* Parses argv[0..argc) into the targets; the first target's positionals
 * receive the non-option words. */
static int parse_args(dl_cli *cli, const parse_target *t, int nt, int argc, char **argv)
{
	int pos_index = 0;
	bool only_positional = false;
	for (int i = 0; i < argc; i++) {
		const char *a = argv[i];
		if (!only_positional && !strcmp(a, "--")) {
			only_positional = true;
			continue;
		}
		if (!only_positional && looks_like_option(t, nt, a)) {
			int rc = parse_option(cli, t, nt, argc, argv, &i);
			if (rc) return rc;
			continue;
		}
		const dl_cli_opt *p = next_positional(&t[0], &pos_index);
		if (!p) return dl_cli_usage_error(cli, "unexpected argument '%s'", a);
		int rc = store_value(cli, &t[0], p, a);
		if (rc) return rc;
	}
	return 0;
}

static int check_required(dl_cli *cli, const parse_target *t)
{
	for (const dl_cli_opt *o = t->opts; o && o->kind; o++) {
		if (o->kind == DL_CLI_OPT_ARG && !*(const char **)field(t, o))
			return dl_cli_usage_error(cli, "missing %s", o->metavar ? o->metavar : "argument");
	}
	return 0;
}

/* ---- help ---- */

static void print_usage_line(FILE *fp, const char *prog, const dl_cli_command *cmd)
{
	fprintf(fp, "usage: %s %s [OPTIONS]", prog, cmd->name);
	for (const dl_cli_opt *o = cmd->opts; o && o->kind; o++) {
		const char *mv = o->metavar ? o->metavar : "ARG";
		if (o->kind == DL_CLI_OPT_ARG) fprintf(fp, " %s", mv);
		else if (o->kind == DL_CLI_OPT_ARG_OPT) fprintf(fp, " [%s]", mv);
		else if (o->kind == DL_CLI_OPT_ARG_REST) fprintf(fp, " [%s...]", mv);
	}
	fputc('\n', fp);
}

static void option_left(const dl_cli_opt *o, char *buf, size_t cap)
{
	if (is_positional(o->kind)) {
		snprintf(buf, cap, "%s", o->metavar ? o->metavar : "ARG");
		return;
	}
	char shortpart[8] = "    ";
	if (o->short_name) snprintf(shortpart, sizeof shortpart, "-%c, ", o->short_name);
	if (takes_value(o->kind))
		snprintf(buf, cap, "%s--%s %s", shortpart, o->name, o->metavar ? o->metavar : "VALUE");
	else
		snprintf(buf, cap, "%s--%s", shortpart, o->name);
}

/* True when the command declares an option of that name itself, which then
 * replaces the global one (e.g. a --format that also accepts "arrow"). */
static bool shadowed(const dl_cli_opt *cmd_opts, const dl_cli_opt *global)
{
	return (global->name && find_long(cmd_opts, global->name, strlen(global->name))) ||
	       (global->short_name && find_short(cmd_opts, global->short_name));
}

/* Lists opts (skipping those shadowed by `except`, which may be NULL). */
static void print_opt_lines(FILE *fp, const dl_cli_opt *opts, const dl_cli_opt *except, bool positional,
                            int width)
{
	char left[128];
	for (const dl_cli_opt *o = opts; o && o->kind; o++) {
		if (is_positional(o->kind) != positional) continue;
		if (except && shadowed(except, o)) continue;
		option_left(o, left, sizeof left);
		fprintf(fp, "  %-*s  %s", width, left, o->help ? o->help : "");
		if (o->kind == DL_CLI_OPT_LIST) fputs(" (repeatable)", fp);
		if (o->kind == DL_CLI_OPT_NAMES) fputs(" (comma-separated, repeatable)", fp);
		if (o->def) fprintf(fp, " (default: %s)", o->def);
		fputc('\n', fp);
	}
}

static int column_width(const dl_cli_opt *a, const dl_cli_opt *b)
{
	char left[128];
	int w = 12;
	const dl_cli_opt *tables[2] = {a, b};
	for (int k = 0; k < 2; k++) {
		for (const dl_cli_opt *o = tables[k]; o && o->kind; o++) {
			option_left(o, left, sizeof left);
			int l = (int)strlen(left);
			if (l > w) w = l;
		}
	}
	return w > 30 ? 30 : w;
}

static bool has_positional(const dl_cli_opt *opts)
{
	for (const dl_cli_opt *o = opts; o && o->kind; o++)
		if (is_positional(o->kind)) return true;
	return false;
}

/* A summary as a sentence: "\nShow the commits of a table.\n". */
static void print_sentence(FILE *fp, const char *summary)
{
	char first = summary[0] >= 'a' && summary[0] <= 'z' ? (char)(summary[0] - 'a' + 'A') : summary[0];
	if (first) fprintf(fp, "\n%c%s.\n", first, summary + 1);
}

static void print_command_help(FILE *fp, const char *prog, const dl_cli_command *cmd)
{
	int width = column_width(cmd->opts, global_opts);
	print_usage_line(fp, prog, cmd);
	print_sentence(fp, cmd->summary ? cmd->summary : cmd->name);
	if (cmd->description) fprintf(fp, "\n%s\n", cmd->description);
	if (has_positional(cmd->opts)) {
		fputs("\nArguments:\n", fp);
		print_opt_lines(fp, cmd->opts, NULL, true, width);
	}
	fputs("\nOptions:\n", fp);
	print_opt_lines(fp, cmd->opts, NULL, false, width);
	print_opt_lines(fp, global_opts, cmd->opts, false, width);
	if (cmd->examples) fprintf(fp, "\nExamples:\n%s\n", cmd->examples);
}

/* The name of a command relative to `group` ("" for the top level), or
 * NULL when the command is not in that group. */
static const char *relative_name(const char *name, const char *group)
{
	size_t gl = strlen(group);
	if (!gl) return name;
	if (strncmp(name, group, gl) || name[gl] != ' ') return NULL;
	return name + gl + 1;
}

/* Lists the commands of a group ("" for the top level), one line each; at
 * the top level a group appears once, with its DL_CLI_GROUP summary. */
static void print_command_list(FILE *fp, const char *group, int width)
{
	size_t n;
	const dl_cli_command **cmds = sorted_commands(&n);
	for (size_t i = 0; i < n; i++) {
		const char *nm = relative_name(cmds[i]->name, group);
		if (!nm) continue;
		int wl = (int)first_word_len(nm);
		if ((int)strlen(nm) > wl && !group[0]) {
			/* A subcommand: print its group once, at its first subcommand. */
			if (i > 0 && !strncmp(cmds[i - 1]->name, nm, (size_t)wl) &&
			    (cmds[i - 1]->name[wl] == ' ' || cmds[i - 1]->name[wl] == 0))
				continue;
			char gname[64];
			snprintf(gname, sizeof gname, "%.*s", wl, nm);
			const dl_cli_command *g = dl_cli_find(gname);
			fprintf(fp, "  %-*s  %s\n", width, gname,
			        g && g->summary ? g->summary : "(subcommands: see --help)");
			continue;
		}
		fprintf(fp, "  %-*s  %s\n", width, nm, cmds[i]->summary ? cmds[i]->summary : "");
	}
	dl_free(cmds);
}

/* Width of the command column: the longest name at that level. */
static int list_width(const char *group)
{
	size_t n;
	int w = 10;
	const dl_cli_command **cmds = sorted_commands(&n);
	for (size_t i = 0; i < n; i++) {
		const char *nm = relative_name(cmds[i]->name, group);
		int l = nm ? (int)(group[0] ? strlen(nm) : first_word_len(nm)) : 0;
		if (l > w) w = l;
	}
	dl_free(cmds);
	return w;
}

static void print_main_help(FILE *fp, const char *prog)
{
	fprintf(fp,
	        "usage: %s [OPTIONS] COMMAND [ARGS]\n"
	        "\n"
	        "Read, write and maintain Delta Lake tables.\n"
	        "\n"
	        "Commands:\n",
	        prog);
	int width = list_width("");
	fprintf(fp, "  %-*s  %s\n", width, "help", "show help for a command");
	print_command_list(fp, "", width);
	fprintf(fp, "\nOptions (also accepted after the command):\n");
	print_opt_lines(fp, global_opts, NULL, false, 18);
	fprintf(fp, "  %-18s  %s\n", "-V, --version", "print the version");
	fprintf(fp,
	        "\n"
	        "Run '%s help COMMAND' or '%s COMMAND --help' for a command's options.\n"
	        "Exit status: 0 success, 1 error, 2 usage error.\n",
	        prog, prog);
}

static void print_group_help(FILE *fp, const char *prog, const char *group)
{
	const dl_cli_command *g = dl_cli_find(group);
	fprintf(fp, "usage: %s %s COMMAND [ARGS]\n", prog, group);
	if (g && g->summary) {
		print_sentence(fp, g->summary);
	}
	if (g && g->description) fprintf(fp, "\n%s\n", g->description);
	fputs("\nCommands:\n", fp);
	print_command_list(fp, group, list_width(group));
	fprintf(fp, "\nRun '%s %s COMMAND --help' for a command's options.\n", prog, group);
}

/* ---- dispatch ---- */

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
	size_t l0 = strlen(argv[0]), l1 = argc >= 2 ? strlen(argv[1]) : 0;
	if (argc >= 2 && l0 + l1 + 2 <= 128) {
		char two[128];
		memcpy(two, argv[0], l0);
		two[l0] = ' ';
		memcpy(two + l0 + 1, argv[1], l1 + 1);
		const dl_cli_command *c = dl_cli_find(two);
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
	if (is_group(argv[0]) && strlen(argv[0]) < sizeof r->group) {
		snprintf(r->group, sizeof r->group, "%s", argv[0]);
		r->words = 1;
	}
}

static int unknown_command(dl_cli *cli, const char *group, const char *word)
{
	char buf[64];
	const char *s = suggest(group, word, buf, sizeof buf);
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
		print_main_help(out, cli->prog);
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
		print_command_help(out, cli->prog, r.cmd);
		return DL_CLI_EXIT_OK;
	}
	if (r.group[0] && argc == 1) {
		print_group_help(out, cli->prog, r.group);
		return DL_CLI_EXIT_OK;
	}
	if (r.group[0]) return unknown_command(cli, r.group, argv[1]);
	if (r.cmd) return dl_cli_usage_error(cli, "'%s' has no subcommand '%s'", r.cmd->name, argv[r.words]);
	return unknown_command(cli, "", argv[0]);
}

/* Applies --quiet, --format and -o to the cli. */
static int apply_globals(dl_cli *cli, const global_args *g)
{
	cli->quiet = g->quiet;
	if (g->format) {
		if (dl_out_format_parse(&cli->format, g->format) < 0)
			return dl_cli_usage_error(cli, "%s", dl_error_last()->message);
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
		of->tmp = dl_malloc(n);
		if (!of->tmp) return DL_ENOMEM;
		snprintf(of->tmp, n, "%s.tmp-%ld", path, (long)getpid());
	}
	of->fp = fopen(of->tmp ? of->tmp : path, "w");
	if (!of->fp) {
		int rc = dl_error_errno("cannot open the output file", of->tmp ? of->tmp : path);
		dl_free(of->tmp);
		of->tmp = NULL;
		return rc;
	}
	return 0;
}

static int output_close(output_file *of, const char *path, bool keep)
{
	int rc = 0;
	if (fclose(of->fp) != 0 && keep) rc = dl_error_errno("writing the output file failed", path);
	if (of->tmp) {
		if (keep && rc == 0 && rename(of->tmp, path) != 0) rc = dl_error_errno("cannot create", path);
		if (!keep || rc < 0) unlink(of->tmp);
		dl_free(of->tmp);
	}
	return rc;
}

/* Parses the command's arguments and runs it. Returns the exit code. */
static int run_command(dl_cli *cli, global_args *g, const dl_cli_command *cmd, int argc, char **argv)
{
	cli->cmd = cmd;
	void *args = dl_calloc(1, cmd->args_size ? cmd->args_size : 1);
	if (!args) {
		report_error(cli, DL_ENOMEM);
		return DL_CLI_EXIT_ERROR;
	}
	parse_target t[2] = {{cmd->opts, args}, {global_opts, (char *)g}};
	int rc = alloc_lists(cli, &t[0], argc, argv);
	if (rc == 0) rc = apply_defaults(cli, &t[0]);
	if (rc == 0) rc = parse_args(cli, t, 2, argc, argv);
	if (rc == 0 && g->help) {
		print_command_help(cli->out, cli->prog, cmd);
		goto done;
	}
	if (rc == 0) rc = check_required(cli, &t[0]);
	if (rc == 0) rc = apply_globals(cli, g);
	output_file of = {NULL, NULL};
	if (rc == 0 && cli->output_path) {
		rc = output_open(&of, cli->output_path);
		if (rc == 0) cli->out = of.fp;
	}
	if (rc == 0) {
		dl_error_clear();
		rc = cmd->run(cli, args);
		if (rc == 0 && (fflush(cli->out) != 0 || ferror(cli->out)))
			rc = dl_error_set(DL_EIO, "writing the output failed: %s", strerror(errno));
	}
	if (of.fp) {
		int crc = output_close(&of, cli->output_path, rc == 0);
		if (rc == 0) rc = crc;
	}
done:
	scratch_free(cli);
	dl_free(args);
	if (rc < 0) {
		report_error(cli, rc);
		return DL_CLI_EXIT_ERROR;
	}
	return rc == DL_CLI_USAGE ? DL_CLI_EXIT_USAGE : DL_CLI_EXIT_OK;
}

/* Options before the command word: the globals and --version. Returns the
 * index of the command word, or -1 after a usage error. */
static int parse_leading(dl_cli *cli, global_args *g, int argc, char **argv)
{
	static const dl_cli_opt version_opt[] = {
		DL_CLI_FLAG(global_args, version, 'V', "version", "print the version"),
		DL_CLI_END,
	};
	parse_target t[2] = {{global_opts, (char *)g}, {version_opt, (char *)g}};
	int i = 1;
	for (; i < argc && argv[i][0] == '-' && argv[i][1]; i++) {
		if (!strcmp(argv[i], "--")) return i + 1;
		if (parse_option(cli, t, 2, argc, argv, &i)) return -1;
	}
	return i;
}

static int dispatch(int argc, char **argv, FILE *out, FILE *err);

int dl_cli_main(int argc, char **argv, FILE *out, FILE *err)
{
	int code = dispatch(argc, argv, out, err);
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
	global_args g = {0};
	cli.prog = "deltalake";
	cli.out = out;
	cli.err = err;
	int i = parse_leading(&cli, &g, argc, argv);
	if (i < 0) return DL_CLI_EXIT_USAGE;
	if (g.version) {
		fprintf(out, "%s %s\n", cli.prog, dl_version());
		return DL_CLI_EXIT_OK;
	}
	if (i >= argc) {
		print_main_help(g.help ? out : err, cli.prog);
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
			print_group_help(out, cli.prog, r.group);
			return DL_CLI_EXIT_OK;
		}
		if (rest >= 2 && words[1][0] != '-') return unknown_command(&cli, r.group, words[1]);
		fprintf(err, "%s: error: '%s' needs a command\n\n", cli.prog, r.group);
		print_group_help(err, cli.prog, r.group);
		return DL_CLI_EXIT_USAGE;
	}
	return unknown_command(&cli, "", words[0]);
}
