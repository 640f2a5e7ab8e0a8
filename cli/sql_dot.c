/* The dot commands of `deltalake sql` (.help, .tables, .schema, .format,
 * .timer, .read, .quit), as sqlite3 and DuckDB spell them. They work in
 * the shell and in scripts alike; the listings go through SQL (SHOW
 * TABLES, SHOW CREATE TABLE, DESCRIBE), so they show what the catalog
 * says and nothing the CLI keeps on the side. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>
#include "sql_run.h"
#include "util.h"

const sql_dot_command sql_dot_commands[] = {
	{".exit", "", "leave the shell (also .quit, Ctrl-D)"},
	{".format", "[FMT]", "output format: table, csv, jsonl, json or vertical (no FMT: show it)"},
	{".help", "", "show this list"},
	{".mode", "[FMT]", "the same as .format"},
	{".quit", "", "leave the shell"},
	{".read", "FILE", "run the statements of FILE (stops at its first error)"},
	{".schema", "[TABLE]", "the CREATE TABLE statement of TABLE (of every table when none)"},
	{".tables", "[SCHEMA]", "the tables of SCHEMA (default: the current schema)"},
	{".timer", "on|off", "print the time each statement takes"},
	{NULL, NULL, NULL},
};

/* Splits a dot command line into words; '...' and "..." quote a word. */
static int split_words(sql_names *w, const char *line)
{
	const char *p = line;
	for (;;) {
		while (*p == ' ' || *p == '\t' || *p == '\r' || *p == '\n') p++;
		if (!*p) return 0;
		if (*p == '\'' || *p == '"') {
			char q = *p++;
			const char *e = strchr(p, q);
			if (!e) return dl_cli_fail(DL_EINVALID, "unterminated %c in '%s'", q, line);
			DL_CLI_TRY(sql_names_add(w, p, (size_t)(e - p)));
			p = e + 1;
		} else {
			size_t n = strcspn(p, " \t\r\n");
			DL_CLI_TRY(sql_names_add(w, p, n));
			p += n;
		}
	}
}

static int name_cmp(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Names in columns across the terminal's width, as sqlite3's .tables. */
static void print_columns(FILE *fp, sql_names *names)
{
	qsort(names->v, names->n, sizeof *names->v, name_cmp);
	size_t width = 0, term = 80;
	for (size_t i = 0; i < names->n; i++) {
		size_t l = strlen(names->v[i]);
		if (l > width) width = l;
	}
	struct winsize ws;
	if (isatty(fileno(fp)) && ioctl(fileno(fp), TIOCGWINSZ, &ws) == 0 && ws.ws_col > 0) term = ws.ws_col;
	size_t per = term / (width + 2);
	if (per < 1) per = 1;
	size_t rows = (names->n + per - 1) / per;
	for (size_t r = 0; r < rows; r++) {
		for (size_t c = 0; c < per; c++) {
			size_t i = c * rows + r;
			if (i >= names->n) break;
			bool last = c + 1 == per || (c + 1) * rows + r >= names->n;
			if (last) fprintf(fp, "%s", names->v[i]);
			else fprintf(fp, "%-*s  ", (int)width, names->v[i]);
		}
		fputc('\n', fp);
	}
}

static int dot_help(sql_session *s)
{
	for (const sql_dot_command *d = sql_dot_commands; d->name; d++) {
		char left[40];
		snprintf(left, sizeof left, "%s %s", d->name, d->args);
		fprintf(s->out, "%-20s %s\n", left, d->help);
	}
	fprintf(s->out, "\nStatements end with ';' and may span lines. Ctrl-C cancels the running statement;\n"
	                "at the prompt it clears the line. Tab completes keywords, tables and columns.\n");
	return 0;
}

static int dot_tables(sql_session *s, const char *schema)
{
	sql_names names = {0};
	dl_cli_buf q = DL_CLI_BUF_INIT;
	int rc = schema ? dl_cli_buf_printf(&q, "SHOW TABLES IN %s", schema) : dl_cli_buf_puts(&q, "SHOW TABLES");
	if (rc == 0) rc = sql_query_column(&names, s->conn, q.data, "tableName");
	if (rc == 0) print_columns(s->out, &names);
	s->catalog_changed = true;
	sql_names_free(&names);
	dl_cli_buf_free(&q);
	return rc;
}

/* SHOW CREATE TABLE's text, or DESCRIBE as a table where the statement
 * cannot show it (a path table, or SHOW CREATE TABLE not there yet). */
static int schema_of(sql_session *s, const char *table)
{
	sql_names text = {0};
	dl_cli_buf q = DL_CLI_BUF_INIT;
	int rc = dl_cli_buf_printf(&q, "SHOW CREATE TABLE %s", table);
	if (rc == 0) rc = sql_query_column(&text, s->conn, q.data, NULL);
	if (rc == 0) {
		for (size_t i = 0; i < text.n; i++) {
			size_t l = strlen(text.v[i]);
			while (l && (text.v[i][l - 1] == '\n' || text.v[i][l - 1] == ' ')) l--;
			fprintf(s->out, "%.*s%s\n", (int)l, text.v[i], l && text.v[i][l - 1] == ';' ? "" : ";");
		}
	} else if (rc == DL_EUNSUPPORTED) {
		dl_cli_buf_clear(&q);
		rc = dl_cli_buf_printf(&q, "DESCRIBE %s", table);
		if (rc == 0) rc = sql_run_script(&(sql_session){.cli = s->cli, .conn = s->conn, .out = s->out,
		                                                .err = s->err, .format = s->format},
		                                 q.data, NULL, 1);
	}
	sql_names_free(&text);
	dl_cli_buf_free(&q);
	return rc;
}

static int dot_schema(sql_session *s, const char *table)
{
	if (table) return schema_of(s, table);
	sql_names names = {0};
	int rc = sql_query_column(&names, s->conn, "SHOW TABLES", "tableName");
	if (rc == 0) qsort(names.v, names.n, sizeof *names.v, name_cmp);
	for (size_t i = 0; rc == 0 && i < names.n; i++) {
		char quoted[600];
		snprintf(quoted, sizeof quoted, "`%s`", names.v[i]);
		rc = schema_of(s, quoted);
	}
	sql_names_free(&names);
	return rc;
}

static int dot_format(sql_session *s, const char *name)
{
	if (!name) {
		fprintf(s->out, "%s\n", dl_out_format_name(s->format));
		return 0;
	}
	dl_out_format f;
	if (!strcmp(name, "arrow") || !strcmp(name, "parquet"))
		return dl_cli_fail(DL_EINVALID, "%s output is for one result: use deltalake sql --format %s -o FILE", name,
		                   name);
	DL_CLI_TRY(dl_out_format_parse(&f, name));
	s->format = f;
	return 0;
}

static int dot_read(sql_session *s, const char *path)
{
	FILE *fp = fopen(path, "r");
	if (!fp) return dl_cli_fail_errno("cannot read", path);
	/* The file runs as a script: it stops at its first error, even in the
	 * shell, which then goes on with its next line. */
	bool interactive = s->interactive;
	s->interactive = false;
	int rc = sql_run_stream(s, fp, path);
	s->interactive = interactive;
	fclose(fp);
	return rc == SQL_QUIT ? 0 : rc;
}

static int dispatch(sql_session *s, sql_names *w)
{
	const char *cmd = w->v[0], *a1 = w->n > 1 ? w->v[1] : NULL;
	size_t max = !strcmp(cmd, ".help") || !strcmp(cmd, ".quit") || !strcmp(cmd, ".exit") ? 1 : 2;
	if (w->n > max) return dl_cli_fail(DL_EINVALID, "%s takes %s", cmd, max == 1 ? "no argument" : "one argument");
	if (!strcmp(cmd, ".help")) return dot_help(s);
	if (!strcmp(cmd, ".quit") || !strcmp(cmd, ".exit")) return SQL_QUIT;
	if (!strcmp(cmd, ".tables")) return dot_tables(s, a1);
	if (!strcmp(cmd, ".schema")) return dot_schema(s, a1);
	if (!strcmp(cmd, ".format") || !strcmp(cmd, ".mode")) return dot_format(s, a1);
	if (!strcmp(cmd, ".read")) {
		if (!a1) return dl_cli_fail(DL_EINVALID, ".read needs a FILE");
		return dot_read(s, a1);
	}
	if (!strcmp(cmd, ".timer")) {
		if (a1 && (!strcmp(a1, "on") || !strcmp(a1, "off"))) {
			s->timer = !strcmp(a1, "on");
			return 0;
		}
		return dl_cli_fail(DL_EINVALID, ".timer takes on or off");
	}
	return dl_cli_fail(DL_EINVALID, "unknown command %s; .help lists the commands", cmd);
}

int sql_dot_run(sql_session *s, const char *line)
{
	sql_names w = {0};
	dl_cli_error_clear();
	int rc = s->binary ? dl_cli_fail(DL_EINVALID, "dot commands print text: not with --format arrow or parquet")
	                   : split_words(&w, line);
	if (rc == 0 && w.n) rc = dispatch(s, &w);
	sql_names_free(&w);
	if (rc == 0 && fflush(s->out) != 0) rc = dl_cli_fail(DL_EIO, "writing the output failed: %s", strerror(errno));
	/* A failure inside .read comes with its file and line already. */
	return rc < 0 ? sql_report(s, rc, "") : rc;
}
