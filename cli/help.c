/* Help text, generated from the registry and the option tables, and the
 * "did you mean" suggestion for unknown commands. */
#include "help.h"
#include "util.h"
#include <string.h>
#include "options.h"
#include "registry.h"

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

const char *dl_cli_suggest(const char *group, const char *word, char *buf, size_t cap)
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
		size_t l = dl_cli_first_word_len(nm);
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
	if (dl_cli_is_positional(o->kind)) {
		snprintf(buf, cap, "%s", o->metavar ? o->metavar : "ARG");
		return;
	}
	char shortpart[8] = "    ";
	if (o->short_name) snprintf(shortpart, sizeof shortpart, "-%c, ", o->short_name);
	if (dl_cli_takes_value(o->kind))
		snprintf(buf, cap, "%s--%s %s", shortpart, o->name, o->metavar ? o->metavar : "VALUE");
	else
		snprintf(buf, cap, "%s--%s", shortpart, o->name);
}

/* True when the command declares an option of that name itself, which then
 * replaces the global one (e.g. a --format that also accepts "arrow"). */
static bool shadowed(const dl_cli_opt *cmd_opts, const dl_cli_opt *global)
{
	return (global->name && dl_cli_find_long(cmd_opts, global->name, strlen(global->name))) ||
	       (global->short_name && dl_cli_find_short(cmd_opts, global->short_name));
}

/* Lists opts (skipping those shadowed by `except`, which may be NULL). */
static void print_opt_lines(FILE *fp, const dl_cli_opt *opts, const dl_cli_opt *except, bool positional,
                            int width)
{
	char left[128];
	for (const dl_cli_opt *o = opts; o && o->kind; o++) {
		if (dl_cli_is_positional(o->kind) != positional) continue;
		if (except && shadowed(except, o)) continue;
		option_left(o, left, sizeof left);
		fprintf(fp, "  %-*s  %s", width, left, o->help ? o->help : "");
		if (o->kind == DL_CLI_OPT_LIST) fputs(" (repeatable)", fp);
		if (o->kind == DL_CLI_OPT_NAMES) fputs(" (comma-separated, repeatable)", fp);
		/* -1 stands for "not given" (options.c): nothing to show */
		if (o->def && strcmp(o->def, "-1") != 0) fprintf(fp, " (default: %s)", o->def);
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
		if (dl_cli_is_positional(o->kind)) return true;
	return false;
}

/* A summary as a sentence: "\nShow the commits of a table.\n". */
static void print_sentence(FILE *fp, const char *summary)
{
	char first = summary[0] >= 'a' && summary[0] <= 'z' ? (char)(summary[0] - 'a' + 'A') : summary[0];
	if (first) fprintf(fp, "\n%c%s.\n", first, summary + 1);
}

void dl_cli_print_command_help(FILE *fp, const char *prog, const dl_cli_command *cmd)
{
	int width = column_width(cmd->opts, dl_cli_global_opts);
	print_usage_line(fp, prog, cmd);
	print_sentence(fp, cmd->summary ? cmd->summary : cmd->name);
	if (cmd->description) fprintf(fp, "\n%s\n", cmd->description);
	if (has_positional(cmd->opts)) {
		fputs("\nArguments:\n", fp);
		print_opt_lines(fp, cmd->opts, NULL, true, width);
	}
	fputs("\nOptions:\n", fp);
	print_opt_lines(fp, cmd->opts, NULL, false, width);
	print_opt_lines(fp, dl_cli_global_opts, cmd->opts, false, width);
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
	const dl_cli_command **cmds = dl_cli_sorted_commands(&n);
	for (size_t i = 0; i < n; i++) {
		const char *nm = relative_name(cmds[i]->name, group);
		if (!nm) continue;
		int wl = (int)dl_cli_first_word_len(nm);
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
	free(cmds);
}

/* Width of the command column: the longest name at that level. */
static int list_width(const char *group)
{
	size_t n;
	int w = 10;
	const dl_cli_command **cmds = dl_cli_sorted_commands(&n);
	for (size_t i = 0; i < n; i++) {
		const char *nm = relative_name(cmds[i]->name, group);
		int l = nm ? (int)(group[0] ? strlen(nm) : dl_cli_first_word_len(nm)) : 0;
		if (l > w) w = l;
	}
	free(cmds);
	return w;
}

void dl_cli_print_main_help(FILE *fp, const char *prog)
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
	print_opt_lines(fp, dl_cli_global_opts, NULL, false, 18);
	fprintf(fp, "  %-18s  %s\n", "-V, --version", "print the version");
	fprintf(fp,
	        "\n"
	        "Run '%s help COMMAND' or '%s COMMAND --help' for a command's options.\n"
	        "Exit status: 0 success, 1 error, 2 usage error.\n",
	        prog, prog);
}

void dl_cli_print_group_help(FILE *fp, const char *prog, const char *group)
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
