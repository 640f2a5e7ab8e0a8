/* The interactive shell (sql_shell.h): libedit for line editing, history
 * and Tab, a statement read over as many lines as dl_sql_complete needs.
 *
 * Ctrl-C: at the prompt the terminal's ISIG is off while libedit edits, so
 * ^C arrives as a key bound to cancel_line (drop what is typed, a new
 * prompt); while a statement runs the terminal is back to normal and
 * SIGINT's handler cancels the statement (dl_sql_interrupt), which then
 * fails with DL_ECANCELLED and the prompt returns. */
#include "sql_shell.h"
#include <errno.h>
#include <histedit.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "deltalake.h"
#include "sql_catalog.h"
#include "sql_complete.h"
#include "util.h"

typedef struct shell {
	sql_session *s;
	EditLine *el;
	History *hist;
	char *hist_path;          /* NULL: no history file */
	dl_cli_buf stmt;          /* the lines of the statement being typed */
	bool cancelled;           /* ^C at the prompt: forget the line */
	sql_catalog_cache *cache; /* for Tab */
} shell;

#define PROMPT "deltalake> "
#define CONTINUATION "      ...> "

static shell *shell_of(EditLine *el)
{
	void *p = NULL;
	el_get(el, EL_CLIENTDATA, &p);
	return p;
}

static char *prompt(EditLine *el)
{
	return shell_of(el)->stmt.len ? CONTINUATION : PROMPT;
}

static unsigned char cancel_line(EditLine *el, int ch)
{
	(void)ch;
	shell *sh = shell_of(el);
	const LineInfo *li = el_line(el);
	el_cursor(el, (int)(li->lastchar - li->cursor));
	el_insertstr(el, "^C"); /* shown like a terminal's ^C; the line is dropped */
	sh->cancelled = true;
	/* Enter ends the line the usual way (libedit moves to a new line). */
	el_push(el, "\n");
	return CC_REFRESH;
}

/* Lists candidates under the line, in columns. */
static void list_candidates(FILE *fp, const sql_names *c)
{
	size_t width = 0;
	for (size_t i = 0; i < c->n; i++) {
		size_t l = strlen(c->v[i]);
		if (l > width) width = l;
	}
	size_t per = 80 / (width + 2);
	if (per < 1) per = 1;
	fputc('\n', fp);
	for (size_t i = 0; i < c->n; i++) {
		bool eol = (i + 1) % per == 0 || i + 1 == c->n;
		if (eol) fprintf(fp, "%s\n", c->v[i]);
		else fprintf(fp, "%-*s  ", (int)width, c->v[i]);
	}
	fflush(fp);
}

static unsigned char complete_word(EditLine *el, int ch)
{
	(void)ch;
	shell *sh = shell_of(el);
	const LineInfo *li = el_line(el);
	size_t len = (size_t)(li->lastchar - li->buffer), cursor = (size_t)(li->cursor - li->buffer);
	char *line = dl_cli_strndup(li->buffer, len);
	if (!line) return CC_REFRESH_BEEP;
	sql_names c = {0};
	sql_catalog cat;
	size_t ws;
	sql_catalog_of(&cat, sh->cache);
	int rc = sql_complete(&c, &ws, sh->stmt.data ? sh->stmt.data : "", line, cursor, &cat);
	dl_cli_error_clear();
	unsigned char ret = CC_REFRESH_BEEP;
	size_t wlen = cursor - ws, common = sql_common_prefix(&c);
	if (rc == 0 && c.n == 1) {
		el_deletestr(el, (int)wlen);
		el_insertstr(el, c.v[0]);
		size_t l = strlen(c.v[0]);
		if (l && c.v[0][l - 1] != '.') el_insertstr(el, " ");
		ret = CC_REFRESH;
	} else if (rc == 0 && c.n > 1 && common > wlen) {
		c.v[0][common] = 0;
		el_deletestr(el, (int)wlen);
		el_insertstr(el, c.v[0]);
		ret = CC_REFRESH;
	} else if (rc == 0 && c.n > 1) {
		FILE *out;
		el_get(el, EL_GETFP, 1, &out);
		list_candidates(out, &c);
		ret = CC_REDISPLAY;
	}
	sql_names_free(&c);
	free(line);
	return ret;
}

static void on_sigint(int sig)
{
	(void)sig;
	/* The terminal echoed ^C: end that line before the statement's error. */
	if (sql_interrupt_running()) (void)!write(STDERR_FILENO, "\n", 1);
}

static char *history_path(void)
{
	const char *env = getenv("DELTALAKE_HISTORY");
	if (env) return env[0] ? dl_cli_strdup(env) : NULL; /* empty: no history file */
	const char *home = getenv("HOME");
	if (!home || !home[0]) return NULL;
	size_t n = strlen(home) + 32;
	char *p = dl_cli_malloc(n);
	if (p) snprintf(p, n, "%s/.deltalake_history", home);
	return p;
}

/* One history entry per statement, on one line, saved at once so a killed
 * shell loses nothing. */
static void remember(shell *sh, const char *text)
{
	HistEvent ev;
	char *one = dl_cli_strdup(text);
	if (!one) return;
	for (char *p = one; *p; p++)
		if (*p == '\n' || *p == '\r' || *p == '\t') *p = ' ';
	size_t l = strlen(one);
	while (l && one[l - 1] == ' ') one[--l] = 0;
	if (l) {
		history(sh->hist, &ev, H_ENTER, one);
		if (sh->hist_path) history(sh->hist, &ev, H_SAVE, sh->hist_path);
	}
	free(one);
}

static int shell_open(shell *sh, sql_session *s)
{
	HistEvent ev;
	memset(sh, 0, sizeof *sh);
	sh->s = s;
	DL_CLI_TRY(sql_catalog_cache_new(&sh->cache, s));
	FILE *tout = isatty(STDOUT_FILENO) ? stdout : stderr; /* the prompt never goes into redirected results */
	sh->el = el_init("deltalake", stdin, tout, stderr);
	sh->hist = history_init();
	if (!sh->el || !sh->hist) return dl_cli_fail(DL_ENOMEM, "cannot start the line editor");
	history(sh->hist, &ev, H_SETSIZE, 2000);
	history(sh->hist, &ev, H_SETUNIQUE, 1);
	sh->hist_path = history_path();
	if (sh->hist_path) history(sh->hist, &ev, H_LOAD, sh->hist_path);
	el_set(sh->el, EL_CLIENTDATA, sh);
	el_set(sh->el, EL_EDITOR, "emacs");
	el_set(sh->el, EL_SIGNAL, 1);
	el_set(sh->el, EL_PROMPT, prompt);
	el_set(sh->el, EL_HIST, history, sh->hist);
	el_set(sh->el, EL_SETTY, "-d", "-isig", NULL);
	el_set(sh->el, EL_ADDFN, "dl-complete", "complete a keyword, table or column", complete_word);
	el_set(sh->el, EL_ADDFN, "dl-cancel", "drop the line", cancel_line);
	el_set(sh->el, EL_BIND, "^I", "dl-complete", NULL);
	el_set(sh->el, EL_BIND, "^C", "dl-cancel", NULL);
	el_source(sh->el, NULL); /* ~/.editrc, as other libedit programs */
	return 0;
}

static void shell_close(shell *sh)
{
	if (sh->el) el_end(sh->el);
	if (sh->hist) history_end(sh->hist);
	free(sh->hist_path);
	dl_cli_buf_free(&sh->stmt);
	sql_catalog_cache_free(sh->cache);
}

int sql_shell_run(sql_session *s)
{
	shell sh;
	int rc = shell_open(&sh, s);
	if (rc < 0) {
		shell_close(&sh);
		return rc;
	}
	struct sigaction sa, old;
	memset(&sa, 0, sizeof sa);
	sa.sa_handler = on_sigint;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, &old);
	if (!s->cli->quiet) fprintf(stderr, "deltalake %s SQL shell; .help for help, Ctrl-D to quit\n", dl_version());
	for (;;) {
		int count = 0;
		const char *line = el_gets(sh.el, &count);
		if (!line || count <= 0) {
			if (count < 0 && errno == EINTR) continue;
			fputc('\n', isatty(STDOUT_FILENO) ? stdout : stderr); /* Ctrl-D: end the prompt's line */
			break;
		}
		if (sh.cancelled) {
			sh.cancelled = false;
			dl_cli_buf_clear(&sh.stmt);
			continue;
		}
		if (!sh.stmt.len) {
			if (!*sql_skip_blank(line)) continue; /* blanks and comments only, as sqlite3 */
			const char *l = line;
			while (*l == ' ' || *l == '\t') l++;
			if (*l == '.') {
				remember(&sh, l);
				char *cmd = dl_cli_strdup(l);
				if (!cmd) break;
				size_t n = strlen(cmd);
				while (n && (cmd[n - 1] == '\n' || cmd[n - 1] == '\r')) cmd[--n] = 0;
				int d = sql_dot_run(s, cmd);
				free(cmd);
				if (d == SQL_QUIT) break;
				continue;
			}
		}
		if (dl_cli_buf_puts(&sh.stmt, line) < 0) break;
		if (!dl_sql_complete(sh.stmt.data)) continue;
		remember(&sh, sh.stmt.data);
		sql_run_script(s, sh.stmt.data, NULL, 1); /* errors are printed; the shell goes on */
		dl_cli_buf_clear(&sh.stmt);
	}
	sigaction(SIGINT, &old, NULL);
	shell_close(&sh);
	return 0;
}
