/* Running SQL scripts for `deltalake sql` (sql_run.h): statement by
 * statement with dl_sql_prepare and its tail, each result printed as it
 * is read, errors reported once with their place. */
#include "sql_run.h"
#include <errno.h>
#include <signal.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>
#include "deltalake.h"
#include "deltalake/parquet.h"
#include "util.h"

/* The connection whose statement runs now, for the SIGINT handler: set
 * around execution and output only, so a Ctrl-C at any other moment
 * cancels nothing. */
static dl_sql_conn *volatile running_conn;

bool sql_interrupt_running(void)
{
	dl_sql_conn *c = running_conn;
	if (!c) return false;
	dl_sql_interrupt(c); /* async-signal-safe by contract */
	return true;
}

/* ---- names ---- */

int sql_names_add(sql_names *l, const char *s, size_t len)
{
	if (l->n == l->cap) {
		size_t cap = l->cap ? l->cap * 2 : 16;
		char **v = dl_cli_realloc(l->v, cap * sizeof *v);
		if (!v) return DL_ENOMEM;
		l->v = v;
		l->cap = cap;
	}
	char *c = dl_cli_strndup(s, len);
	if (!c) return DL_ENOMEM;
	l->v[l->n++] = c;
	return 0;
}

bool sql_names_has(const sql_names *l, const char *s)
{
	for (size_t i = 0; i < l->n; i++)
		if (!strcmp(l->v[i], s)) return true;
	return false;
}

void sql_names_clear(sql_names *l)
{
	for (size_t i = 0; i < l->n; i++) free(l->v[i]);
	l->n = 0;
}

void sql_names_free(sql_names *l)
{
	sql_names_clear(l);
	free(l->v);
	l->v = NULL;
	l->cap = 0;
}

/* ---- text ---- */

const char *sql_skip_blank(const char *p)
{
	for (;;) {
		while (*p == ' ' || *p == '\t' || *p == '\n' || *p == '\r' || *p == '\f' || *p == '\v' || *p == ';') p++;
		if (p[0] == '-' && p[1] == '-') {
			while (*p && *p != '\n') p++;
		} else if (p[0] == '/' && p[1] == '*') {
			const char *e = strstr(p + 2, "*/");
			/* An unterminated comment is left to the parser, which says where. */
			if (!e) return p;
			p = e + 2;
		} else {
			return p;
		}
	}
}

static int count_lines(const char *from, const char *to)
{
	int n = 0;
	for (; from < to; from++) n += *from == '\n';
	return n;
}

/* ---- errors ---- */

int sql_report(sql_session *s, int rc, const char *where)
{
	const char *msg = dl_cli_error_message(), *klass = dl_cli_error_class();
	dl_cli_buf b = DL_CLI_BUF_INIT;
	size_t kl = strlen(klass);
	bool tagged = msg && msg[0] == '[' && !strncmp(msg + 1, klass, kl) && msg[kl + 1] == ']';
	if (kl && !tagged) dl_cli_buf_printf(&b, "[%s] ", klass);
	if (msg) dl_cli_buf_puts(&b, msg);
	else dl_cli_buf_printf(&b, "the statement failed (%s) without a message", dl_error_code_name(rc));
	const char *text = b.data ? b.data : "out of memory";
	if (s->interactive) {
		fflush(s->out);
		fprintf(s->err, "Error: %s%s\n", where ? where : "", text);
		fflush(s->err);
		dl_cli_error_clear();
	} else {
		dl_cli_fail(rc, "%s%s", where ? where : "", text);
	}
	dl_cli_buf_free(&b);
	return rc;
}

static int report_at(sql_session *s, int rc, const char *origin, int line)
{
	char where[512] = "";
	if (origin) snprintf(where, sizeof where, "%s:%d: ", origin, line);
	return sql_report(s, rc, where);
}

/* ---- one statement ---- */

static int drain(struct ArrowArrayStream *st)
{
	for (;;) {
		struct ArrowArray b = {0};
		int e = st->get_next(st, &b);
		if (e) return dl_out_stream_error(st, e);
		if (!b.release) return 0;
		b.release(&b);
	}
}

/* Runs st and writes its result: a text format prints every result with
 * columns; Arrow and Parquet write only the last statement's (earlier ones
 * are read to the end, which is what runs them). */
static int run_statement(sql_session *s, dl_sql_stmt *st, bool last)
{
	struct ArrowArrayStream rows = {0};
	struct ArrowSchema schema = {0};
	running_conn = s->conn;
	int rc = dl_sql_stmt_execute(&rows, st);
	if (rc == 0) {
		int e = rows.get_schema(&rows, &schema);
		if (e) rc = dl_out_stream_error(&rows, e);
	}
	if (rc == 0) {
		if (schema.n_children == 0 || (s->binary && !last)) {
			rc = drain(&rows);
			if (rc == 0 && s->binary && last)
				rc = dl_cli_fail(DL_EINVALID, "--format %s writes the result of the last statement, and %s has no "
				                 "result columns; end the script with a query",
				                 s->binary == SQL_ARROW ? "arrow" : "parquet", dl_sql_stmt_kind(st));
		} else if (s->binary == SQL_ARROW) {
			rc = dl_arrow_ipc_write_stream(s->out, &rows);
		} else if (s->binary == SQL_PARQUET) {
			dl_parquet_write_options po = DL_PARQUET_WRITE_OPTIONS_INIT;
			rc = dl_parquet_write_stream(s->out, &rows, &po);
		} else {
			rc = dl_out_arrow_stream(s->out, s->format, &rows, -1);
		}
	}
	running_conn = NULL;
	dl_arrow_schema_release(&schema);
	dl_arrow_stream_release(&rows);
	if (rc == 0 && fflush(s->out) != 0) rc = dl_cli_fail(DL_EIO, "writing the output failed: %s", strerror(errno));
	return rc;
}

/* ---- timer ---- */

typedef struct sql_clock {
	struct timespec real;
	struct rusage use;
} sql_clock;

static void clock_now(sql_clock *c)
{
	clock_gettime(CLOCK_MONOTONIC, &c->real);
	getrusage(RUSAGE_SELF, &c->use);
}

static double tv_seconds(struct timeval a, struct timeval b)
{
	return (double)(b.tv_sec - a.tv_sec) + (double)(b.tv_usec - a.tv_usec) / 1e6;
}

/* sqlite3's line: "Run Time: real 0.012 user 0.008000 sys 0.004000". */
static void print_timer(sql_session *s, const sql_clock *t0)
{
	sql_clock t1;
	clock_now(&t1);
	double real = (double)(t1.real.tv_sec - t0->real.tv_sec) + (double)(t1.real.tv_nsec - t0->real.tv_nsec) / 1e9;
	FILE *fp = s->binary ? s->err : s->out;
	fprintf(fp, "Run Time: real %.3f user %.6f sys %.6f\n", real, tv_seconds(t0->use.ru_utime, t1.use.ru_utime),
	        tv_seconds(t0->use.ru_stime, t1.use.ru_stime));
	fflush(fp);
}

/* ---- scripts ---- */

int sql_run_script(sql_session *s, const char *text, const char *origin, int first_line)
{
	const char *p = text;
	int line = first_line;
	for (;;) {
		/* The statement starts at its first token, so the line and column of
		 * a syntax error count from its own first line. */
		const char *start = sql_skip_blank(p);
		line += count_lines(p, start);
		if (!*start) return 0;
		dl_sql_stmt *st = NULL;
		const char *tail = NULL;
		sql_clock t0;
		clock_now(&t0);
		dl_cli_error_clear();
		int rc = dl_sql_prepare(&st, &tail, s->conn, start);
		bool last = !s->more_input && !*sql_skip_blank(tail ? tail : "");
		if (rc == 0 && st) rc = run_statement(s, st, last);
		s->catalog_changed = true;
		if (s->timer && st) print_timer(s, &t0);
		if (st) dl_sql_stmt_free(st);
		if (rc < 0) return report_at(s, rc, origin, line);
		if (!st || !tail || tail <= start) return 0;
		line += count_lines(start, tail);
		p = tail;
	}
}

int sql_run_stream(sql_session *s, FILE *fp, const char *origin)
{
	dl_cli_buf stmt = DL_CLI_BUF_INIT;
	char *line = NULL;
	size_t cap = 0;
	int lineno = 0, start_line = 1, rc = 0;
	ssize_t n;
	while (rc == 0 && (n = getline(&line, &cap, fp)) >= 0) {
		lineno++;
		if (stmt.len == 0) {
			const char *l = line;
			while (*l == ' ' || *l == '\t') l++;
			if (*l == '.') { /* a dot command is one line, outside statements */
				if (n && line[n - 1] == '\n') line[n - 1] = 0;
				rc = sql_dot_run(s, l);
				if (rc < 0 && origin && !s->interactive) {
					/* say where, in front of the message already kept */
					char where[512];
					snprintf(where, sizeof where, "%s:%d: ", origin, lineno);
					sql_report(s, rc, where);
				}
				continue;
			}
			if (!*sql_skip_blank(line)) continue; /* blanks and comments only */
			start_line = lineno;
		}
		if (dl_cli_buf_append(&stmt, line, (size_t)n) < 0) {
			rc = DL_ENOMEM;
			break;
		}
		/* Arrow and Parquet need the whole script to know its last statement. */
		if (!s->binary && dl_sql_complete(stmt.data)) {
			rc = sql_run_script(s, stmt.data, origin, start_line);
			dl_cli_buf_clear(&stmt);
		}
	}
	if (rc == 0 && ferror(fp)) rc = dl_cli_fail_errno("reading", origin ? origin : "the script");
	/* A last statement without its ';' still runs, as in sqlite3. */
	if (rc == 0 && stmt.len) rc = sql_run_script(s, stmt.data, origin, start_line);
	free(line);
	dl_cli_buf_free(&stmt);
	return rc;
}

/* ---- listings ---- */

int sql_query_column(sql_names *out, dl_sql_conn *conn, const char *sql, const char *column)
{
	struct ArrowArrayStream rows = {0};
	struct ArrowSchema schema = {0};
	dl_arrow_formatter *f = NULL;
	int rc = dl_sql_execute(&rows, conn, sql);
	if (rc < 0) return rc;
	int e = rows.get_schema(&rows, &schema);
	if (e) rc = dl_out_stream_error(&rows, e);
	int col = -1;
	for (int64_t i = 0; rc == 0 && i < schema.n_children; i++) {
		if (!column || !strcmp(schema.children[i]->name, column)) {
			col = (int)i;
			break;
		}
	}
	if (rc == 0 && col < 0)
		rc = dl_cli_fail(DL_EINVALID, "'%s' returned no column %s", sql, column ? column : "at all");
	if (rc == 0) rc = dl_arrow_formatter_new(&f, &schema);
	while (rc == 0) {
		struct ArrowArray b = {0};
		e = rows.get_next(&rows, &b);
		if (e) {
			rc = dl_out_stream_error(&rows, e);
			break;
		}
		if (!b.release) break;
		int64_t nrows;
		rc = dl_arrow_formatter_set_batch(&nrows, f, &b);
		for (int64_t r = 0; rc == 0 && r < nrows; r++) {
			const char *text;
			size_t len;
			rc = dl_arrow_formatter_cell(&text, &len, f, col, r, DL_FORMAT_TEXT);
			if (rc == 0 && text) rc = sql_names_add(out, text, len);
		}
	}
	dl_arrow_formatter_free(f);
	dl_arrow_schema_release(&schema);
	dl_arrow_stream_release(&rows);
	return rc;
}
