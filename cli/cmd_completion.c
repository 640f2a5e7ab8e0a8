/* `deltalake completion bash`: shell completion from the registry itself.
 *
 * The script asks the binary (`deltalake __complete -- WORDS... CURRENT`) for
 * the candidates, so completion always knows exactly the commands, groups
 * and options of the installed build: nothing to regenerate when a command
 * is added. An empty answer lets the shell complete file names (tables and
 * Parquet files are paths). */
#include <string.h>
#include "cli.h"
#include "util.h"
#include "options.h"
#include "registry.h"

static const char bash_script[] =
	"# bash completion for deltalake. Load it with:\n"
	"#   source <(deltalake completion bash)\n"
	"# or save it as ~/.local/share/bash-completion/completions/deltalake\n"
	"_deltalake() {\n"
	"\tlocal IFS=$'\\n'\n"
	"\tlocal words=(\"${COMP_WORDS[@]:1:COMP_CWORD}\")\n"
	"\t[ ${#words[@]} -eq 0 ] && words=('')\n"
	"\tCOMPREPLY=($(\"${COMP_WORDS[0]}\" __complete -- \"${words[@]}\" 2>/dev/null))\n"
	"\t[ ${#COMPREPLY[@]} -eq 0 ] && compopt -o default 2>/dev/null\n"
	"\treturn 0\n"
	"}\n"
	"complete -F _deltalake deltalake\n";

typedef struct completion_args {
	const char *shell;
} completion_args;

static const dl_cli_opt completion_opts[] = {
	DL_CLI_ARG_OPT(completion_args, shell, "SHELL", "bash (the default; zsh runs it with bashcompinit)"),
	DL_CLI_END,
};

static int completion_run(dl_cli *cli, const void *args)
{
	const completion_args *a = args;
	if (a->shell && strcmp(a->shell, "bash") && strcmp(a->shell, "zsh"))
		return dl_cli_usage_error(cli, "no completion for shell '%s'; bash and zsh are supported", a->shell);
	if (a->shell && !strcmp(a->shell, "zsh")) fputs("autoload -U +X bashcompinit && bashcompinit\n", cli->out);
	fputs(bash_script, cli->out);
	return 0;
}

DL_CLI_COMMAND(completion, .name = "completion", .summary = "print a shell completion script",
               .description = "Completes commands, subcommands, options and --format values; paths\n"
                              "otherwise. The script asks the binary, so it never goes stale.",
               .examples = "  source <(deltalake completion bash)\n"
                           "  deltalake completion bash > ~/.local/share/bash-completion/completions/deltalake",
               .opts = completion_opts, .args_size = sizeof(completion_args), .run = completion_run);

/* ---- __complete: the candidates for the last word ---- */

static void put_candidate(dl_cli *cli, const char *prefix, const char *word, size_t len)
{
	size_t pl = strlen(prefix);
	if (len >= pl && !strncmp(word, prefix, pl)) fprintf(cli->out, "%.*s\n", (int)len, word);
}

/* Command words at the level of `group` ("" for the top), sorted, each
 * once (a group's word stands for all its subcommands). */
static void complete_commands(dl_cli *cli, const char *group, const char *cur)
{
	size_t n, gl = strlen(group);
	const dl_cli_command **cmds = dl_cli_sorted_commands(&n);
	const char *last = NULL;
	size_t last_len = 0;
	if (!gl) put_candidate(cli, cur, "help", 4);
	for (size_t i = 0; i < n; i++) {
		const char *nm = cmds[i]->name;
		if (gl) {
			if (strncmp(nm, group, gl) || nm[gl] != ' ') continue;
			nm += gl + 1;
		}
		size_t wl = dl_cli_first_word_len(nm);
		if (last && wl == last_len && !strncmp(nm, last, wl)) continue;
		last = nm;
		last_len = wl;
		put_candidate(cli, cur, nm, wl);
	}
	free(cmds);
}

static void complete_options(dl_cli *cli, const dl_cli_opt *opts, const dl_cli_opt *except, const char *cur)
{
	char buf[96];
	for (const dl_cli_opt *o = opts; o && o->kind; o++) {
		if (dl_cli_is_positional(o->kind) || !o->name) continue;
		if (except && dl_cli_find_long(except, o->name, strlen(o->name))) continue;
		int l = snprintf(buf, sizeof buf, "--%s", o->name);
		if (l > 0 && (size_t)l < sizeof buf) put_candidate(cli, cur, buf, (size_t)l);
	}
}

/* The option `word` names in the command's table or the globals, if any. */
static const dl_cli_opt *option_named(const dl_cli_command *cmd, const char *word)
{
	const dl_cli_opt *o = NULL;
	if (word[0] == '-' && word[1] == '-' && word[2]) {
		if (cmd) o = dl_cli_find_long(cmd->opts, word + 2, strlen(word + 2));
		if (!o) o = dl_cli_find_long(dl_cli_global_opts, word + 2, strlen(word + 2));
	} else if (word[0] == '-' && word[1] && !word[2]) {
		if (cmd) o = dl_cli_find_short(cmd->opts, word[1]);
		if (!o) o = dl_cli_find_short(dl_cli_global_opts, word[1]);
	}
	return o;
}

typedef struct complete_args {
	dl_cli_list words; /* what is typed, the last one being completed */
} complete_args;

static const dl_cli_opt complete_opts[] = {
	DL_CLI_ARG_REST(complete_args, words, "WORD", "the words typed after 'deltalake'"),
	DL_CLI_END,
};

static int complete_run(dl_cli *cli, const void *args)
{
	const complete_args *a = args;
	const char *cur = a->words.n ? a->words.items[a->words.n - 1] : "";
	int ndone = a->words.n ? a->words.n - 1 : 0;
	const char *const *w = a->words.items;
	/* The command words among the completed ones: the first word, and the
	 * second after a group or "help". Options and their values are skipped;
	 * other words are arguments (paths). */
	const char *cmd_words[2] = {NULL, NULL};
	int ncmd = 0;
	const dl_cli_command *cmd = NULL;
	const char *prev = ndone ? w[ndone - 1] : "";
	for (int i = 0; i < ndone; i++) {
		if (w[i][0] == '-' && w[i][1]) {
			const dl_cli_opt *o = option_named(cmd, w[i]);
			bool attached = strchr(w[i], '=') || (w[i][1] != '-' && w[i][2]);
			if (o && dl_cli_takes_value(o->kind) && !attached) i++;
			continue;
		}
		if (ncmd == 0) {
			cmd_words[ncmd++] = w[i];
			cmd = dl_cli_find(w[i]);
		} else if (ncmd == 1 && (dl_cli_is_group(cmd_words[0]) || !strcmp(cmd_words[0], "help"))) {
			cmd_words[ncmd++] = w[i];
			if (strcmp(cmd_words[0], "help")) cmd = dl_cli_find_pair(cmd_words[0], w[i]);
		}
	}
	const dl_cli_opt *po = ndone ? option_named(cmd, prev) : NULL;
	if (po && dl_cli_takes_value(po->kind)) { /* the value of an option */
		if (po->name && !strcmp(po->name, "format") && (!cmd || !dl_cli_find_long(cmd->opts, "format", 6))) {
			static const char *const formats[] = {"table", "csv", "jsonl", "json", "vertical"};
			for (size_t i = 0; i < sizeof formats / sizeof *formats; i++)
				put_candidate(cli, cur, formats[i], strlen(formats[i]));
		}
		return 0; /* else a path or a free value: the shell's default */
	}
	if (cur[0] == '-') {
		complete_options(cli, cmd ? cmd->opts : NULL, NULL, cur);
		complete_options(cli, dl_cli_global_opts, cmd ? cmd->opts : NULL, cur);
		if (!ncmd) put_candidate(cli, cur, "--version", 9);
		return 0;
	}
	if (ncmd == 0) {
		complete_commands(cli, "", cur);
	} else if (!strcmp(cmd_words[0], "help") || (ncmd == 1 && dl_cli_is_group(cmd_words[0]))) {
		bool help = !strcmp(cmd_words[0], "help");
		const char *group = help ? (ncmd == 2 && dl_cli_is_group(cmd_words[1]) ? cmd_words[1] : "") : cmd_words[0];
		if (!help || ncmd == 1 || group[0]) complete_commands(cli, group, cur);
	}
	return 0; /* positionals are paths: the shell completes them */
}

DL_CLI_COMMAND(complete, .name = "__complete", .summary = "completion candidates (used by the script)",
               .opts = complete_opts, .args_size = sizeof(complete_args), .run = complete_run, .hidden = true);
