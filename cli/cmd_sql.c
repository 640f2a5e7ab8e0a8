/* `deltalake sql`: runs SQL over a warehouse catalog and Delta tables by
 * path. Statements come from the arguments (each a ';'-separated script),
 * -c, -f FILE, standard input, or the interactive shell when none is given
 * and standard input is a terminal. A script stops at its first error
 * (exit 1), as DuckDB's CLI does; the shell reports it and goes on. */
#include <ctype.h>
#include <errno.h>
#include <signal.h>
#include <string.h>
#include <unistd.h>
#include "deltalake.h"
#include "sql_run.h"
#include "sql_shell.h"
#include "util.h"

typedef struct sql_args {
	dl_cli_list statements;
	dl_cli_list commands;
	const char *file;
	const char *warehouse;
	const char *memory_limit;
	const char *format;
} sql_args;

static const dl_cli_opt sql_opts[] = {
	DL_CLI_ARG_REST(sql_args, statements, "STATEMENTS", "';'-separated statements to run (each argument a script)"),
	DL_CLI_LIST(sql_args, commands, 'c', "command", "SQL", "run SQL (after -f, before STATEMENTS)"),
	DL_CLI_STRING(sql_args, file, 'f', "file", "FILE", NULL, "run the script FILE ('-': standard input)"),
	DL_CLI_STRING(sql_args, warehouse, 0, "warehouse", "DIR", NULL,
	              "the catalog's warehouse (default: $DELTALAKE_WAREHOUSE, else ./warehouse)"),
	DL_CLI_STRING(sql_args, memory_limit, 0, "memory-limit", "SIZE", NULL,
	              "memory of joins, aggregations and sorts before they spill: 256MB, 2GiB... (default: half the RAM)"),
	DL_CLI_STRING(sql_args, format, 0, "format", "FMT", NULL,
	              "table (default), csv, jsonl, json, vertical; arrow or parquet: the last result as one file (-o)"),
	DL_CLI_END,
};

/* "256MB", "1.5GiB", "1000000": bytes, with SET memory_limit's units (B,
 * K/KB/KiB, M/MB/MiB, G/GB/GiB, T/TB/TiB: powers of 1024, any case). */
static int parse_size(int64_t *out, const char *s)
{
	const char *p = s;
	char *end;
	errno = 0;
	double v = strtod(p, &end);
	if (end == p || errno || v < 0 || !isdigit((unsigned char)*p)) return -1;
	while (*end == ' ') end++;
	static const char *const units[] = {"b", "k", "m", "g", "t"};
	double mult = 1;
	bool ok = !*end;
	for (size_t i = 0; !ok && i < sizeof units / sizeof *units; i++, mult *= 1024) {
		char kb[4] = {units[i][0], 'b', 0}, kib[4] = {units[i][0], 'i', 'b', 0};
		ok = !strcasecmp(end, units[i]) || (i && (!strcasecmp(end, kb) || !strcasecmp(end, kib)));
		if (ok) break;
	}
	double b = v * mult;
	if (!ok || b >= 9.2e18 || b < 1) return -1;
	*out = (int64_t)b;
	return 0;
}

static void on_sigint(int sig)
{
	/* A script's Ctrl-C cancels the statement, which then fails and ends the
	 * script cleanly (a write leaves no half commit); with none running, it
	 * stops the program as usual. */
	if (sql_interrupt_running()) return;
	signal(sig, SIG_DFL);
	raise(sig);
}

/* An argument or -c value: a dot command or a script. */
static int run_text(sql_session *s, const char *text)
{
	const char *t = text;
	while (*t == ' ' || *t == '\t' || *t == '\n') t++;
	if (*t == '.') return sql_dot_run(s, t);
	return sql_run_script(s, text, NULL, 1);
}

static int run_batch(sql_session *s, const sql_args *a)
{
	bool any = a->file || a->commands.n || a->statements.n;
	int rc = 0;
	struct sigaction sa;
	memset(&sa, 0, sizeof sa);
	sa.sa_handler = on_sigint;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	if (!any) return sql_run_stream(s, stdin, "stdin");
	int nsources = (a->file != NULL) + a->commands.n + a->statements.n, done = 0;
	if (a->file) {
		bool std = !strcmp(a->file, "-");
		FILE *fp = std ? stdin : fopen(a->file, "r");
		if (!fp) return dl_cli_fail_errno("cannot read the script", a->file);
		s->more_input = ++done < nsources;
		rc = sql_run_stream(s, fp, std ? "stdin" : a->file);
		if (!std) fclose(fp);
	}
	for (int i = 0; rc == 0 && i < a->commands.n; i++) {
		s->more_input = ++done < nsources;
		rc = run_text(s, a->commands.items[i]);
	}
	for (int i = 0; rc == 0 && i < a->statements.n; i++) {
		s->more_input = ++done < nsources;
		rc = run_text(s, a->statements.items[i]);
	}
	return rc;
}

static int sql_run(dl_cli *cli, const void *args)
{
	const sql_args *a = args;
	sql_session s = {.cli = cli, .out = cli->out, .err = cli->err, .format = cli->format};
	if (a->format && !strcmp(a->format, "arrow")) s.binary = SQL_ARROW;
	else if (a->format && !strcmp(a->format, "parquet")) s.binary = SQL_PARQUET;
	else if (a->format && dl_out_format_parse(&s.format, a->format) < 0)
		return dl_cli_usage_error(cli, "--format must be table, csv, jsonl, json, vertical, arrow or parquet, not '%s'",
		                          a->format);
	dl_sql_options o = DL_SQL_OPTIONS_INIT;
	o.warehouse = a->warehouse;
	if (a->memory_limit && parse_size(&o.memory_limit, a->memory_limit) < 0)
		return dl_cli_usage_error(cli, "--memory-limit must be a size such as 512MB, 2GB or 1GiB, not '%s'",
		                          a->memory_limit);
	s.interactive = !a->file && !a->commands.n && !a->statements.n && isatty(STDIN_FILENO);
	if (s.binary && s.interactive)
		return dl_cli_usage_error(cli, "--format %s writes one result to a file; give the statements (or -f FILE) "
		                          "and -o FILE", a->format);
	if (s.binary && !cli->output_path && isatty(fileno(cli->out)))
		return dl_cli_usage_error(cli, "--format %s is binary; write it to a file with -o FILE", a->format);
	int rc = dl_sql_open(&s.conn, &o);
	if (rc < 0) return rc;
	rc = s.interactive ? sql_shell_run(&s) : run_batch(&s, a);
	dl_sql_close(s.conn);
	return rc == SQL_QUIT ? 0 : rc;
}

DL_CLI_COMMAND(sql, .name = "sql", .summary = "run SQL statements, or an interactive SQL shell",
               .description =
                   "Runs Spark SQL as Delta uses it (docs/SQL.md) over the warehouse catalog\n"
                   "(schemas and tables by name) and tables by path (delta.`/data/t`).\n"
                   "Each argument is a ';'-separated script; -c adds one, -f FILE runs a file.\n"
                   "With none, statements are read from standard input, or, when it is a\n"
                   "terminal, an interactive shell starts (.help lists its dot commands;\n"
                   "history in $DELTALAKE_HISTORY, default ~/.deltalake_history).\n"
                   "\n"
                   "Every result prints in --format; statements without result columns (CREATE,\n"
                   "DROP, USE, SET) print nothing. --format arrow|parquet -o FILE writes the\n"
                   "last statement's result with its column names and types. A script stops at\n"
                   "its first error, printed with its file and line, and exits with 1; the\n"
                   "shell prints the error and goes on. Ctrl-C cancels the running statement.",
               .examples = "  deltalake sql\n"
                           "  deltalake sql \"CREATE TABLE t (id BIGINT, name STRING); INSERT INTO t VALUES (1, 'a')\"\n"
                           "  deltalake sql --warehouse /data/wh -f report.sql --format csv\n"
                           "  deltalake sql \"SELECT * FROM delta.\\`/data/events\\` LIMIT 10\"\n"
                           "  echo 'SELECT count(*) FROM sales.orders;' | deltalake sql --format json\n"
                           "  deltalake sql --format parquet -o top.parquet \"SELECT * FROM t ORDER BY id LIMIT 100\"",
               .opts = sql_opts, .args_size = sizeof(sql_args), .run = sql_run);
