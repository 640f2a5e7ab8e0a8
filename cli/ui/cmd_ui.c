/* `deltalake ui`: serves a read-only web page of one table (history,
 * layout, stats coverage, schema, protocol, version diff, a SELECT box)
 * until interrupted. Views and endpoints: docs/UI.md. */
#include <arpa/inet.h>
#include <fcntl.h>
#include <openssl/crypto.h>
#include <openssl/rand.h>
#include <signal.h>
#include <spawn.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>
#include "table_cli.h"
#include "ui.h"

extern char **environ;

typedef struct ui_args {
	const char *table;
	int64_t port;
	const char *bind;
	bool open;
	int64_t max_rows;
	int64_t connections;
	int64_t timeout;
} ui_args;

static const dl_cli_opt ui_opts[] = {
	DL_CLI_ARG(ui_args, table, "TABLE", "path or URI of the table"),
	DL_CLI_INT(ui_args, port, 'p', "port", "N", "8321", "TCP port (0: any free port, printed)"),
	DL_CLI_STRING(ui_args, bind, 0, "bind", "ADDR", "127.0.0.1",
	              "numeric address to listen on; beyond loopback an access token is required"),
	DL_CLI_FLAG(ui_args, open, 0, "open", "open the page in a browser (xdg-open)"),
	DL_CLI_INT(ui_args, max_rows, 0, "max-rows", "N", "1000", "rows the query box returns at most"),
	DL_CLI_INT(ui_args, connections, 0, "connections", "N", "64", "simultaneous connections at most"),
	DL_CLI_INT(ui_args, timeout, 0, "timeout", "SECONDS", "30", "idle connections are closed after this"),
	DL_CLI_END,
};

/* 127.0.0.0/8 and ::1 need no token: only this machine reaches them. */
static bool is_loopback(const char *addr)
{
	struct in_addr a4;
	struct in6_addr a6;
	if (inet_pton(AF_INET, addr, &a4) == 1) return (ntohl(a4.s_addr) >> 24) == 127;
	if (inet_pton(AF_INET6, addr, &a6) == 1) return memcmp(&a6, &in6addr_loopback, sizeof a6) == 0;
	return false;
}

/* 32 random bytes as 64 hex digits. */
static int make_token(char out[65])
{
	unsigned char raw[32];
	if (RAND_bytes(raw, sizeof raw) != 1) return dl_cli_fail(DL_EIO, "no random bytes for the access token (OpenSSL RAND_bytes)");
	for (size_t i = 0; i < sizeof raw; i++) snprintf(out + 2 * i, 3, "%02x", raw[i]);
	OPENSSL_cleanse(raw, sizeof raw);
	return 0;
}

/* xdg-open URL in the background when it is installed; a note otherwise. */
static pid_t open_browser(dl_cli *cli, const char *url)
{
	char *argv[] = {(char *)"xdg-open", (char *)url, NULL};
	pid_t pid = 0;
	posix_spawn_file_actions_t fa;
	posix_spawn_file_actions_init(&fa);
	posix_spawn_file_actions_addopen(&fa, 1, "/dev/null", O_WRONLY, 0);
	posix_spawn_file_actions_addopen(&fa, 2, "/dev/null", O_WRONLY, 0);
	if (posix_spawnp(&pid, "xdg-open", &fa, NULL, argv, environ) != 0) {
		dl_cli_note(cli, "--open: xdg-open is not installed; open the URL yourself");
		pid = 0;
	}
	posix_spawn_file_actions_destroy(&fa);
	return pid;
}

static void free_state(ui_state *st)
{
	dl_history_free(st->history);
	free(st->history_json);
	free(st->layout_json);
	free(st->stats_json);
	free(st->diff_key);
	free(st->diff_json);
	dl_stats_summary_free(st->stats);
	dl_scan_free(st->scan);
	dl_snapshot_free(st->snap);
	pthread_mutex_destroy(&st->lock);
	pthread_mutex_destroy(&st->layout_lock);
}

static int ui_run(dl_cli *cli, const void *args)
{
	const ui_args *a = args;
	if (a->port < 0 || a->port > 65535) return dl_cli_usage_error(cli, "--port must be from 0 to 65535");
	if (a->max_rows < 1) return dl_cli_usage_error(cli, "--max-rows must be >= 1");
	if (a->connections < 1 || a->connections > 10000)
		return dl_cli_usage_error(cli, "--connections must be from 1 to 10000");
	if (a->timeout < 1) return dl_cli_usage_error(cli, "--timeout must be >= 1");
	struct in6_addr probe;
	if (inet_pton(AF_INET, a->bind, &probe) != 1 && inet_pton(AF_INET6, a->bind, &probe) != 1)
		return dl_cli_usage_error(cli, "--bind '%s' is not a numeric IPv4 or IPv6 address "
		                          "(127.0.0.1, 0.0.0.0, ::1...)", a->bind);
	ui_state st = {0};
	st.cli = cli;
	st.table = a->table;
	st.max_rows = a->max_rows;
	pthread_mutex_init(&st.lock, NULL);
	pthread_mutex_init(&st.layout_lock, NULL);
	int rc = dl_cli_open_snapshot(cli, &st.snap, a->table, -1, NULL);
	dl_scan_options so = DL_SCAN_OPTIONS_INIT;
	if (rc == 0) rc = dl_scan_open(&st.scan, st.snap, &so);
	char token[65] = "";
	bool need_token = !is_loopback(a->bind);
	if (rc == 0 && need_token) rc = make_token(token);
	/* Block the signals before the server's threads start, so they inherit
	 * the mask and only sigwait below takes them. */
	sigset_t sigs, old;
	sigemptyset(&sigs);
	sigaddset(&sigs, SIGINT);
	sigaddset(&sigs, SIGTERM);
	sigaddset(&sigs, SIGHUP);
	pthread_sigmask(SIG_BLOCK, &sigs, &old);
	ui_server *srv = NULL;
	if (rc == 0) {
		ui_server_options o = {a->bind, (int)a->port, need_token ? token : NULL, (unsigned)a->connections,
		                       (unsigned)a->timeout};
		rc = ui_server_start(&srv, &st, &o);
	}
	pthread_t warm[2];
	bool warming[2] = {rc == 0 && pthread_create(&warm[0], NULL, ui_warm_history, &st) == 0,
	                   rc == 0 && pthread_create(&warm[1], NULL, ui_warm_layout, &st) == 0};
	if (rc == 0) {
		bool v6 = strchr(a->bind, ':') != NULL;
		char url[256];
		snprintf(url, sizeof url, "http://%s%s%s:%d/%s%s", v6 ? "[" : "", a->bind, v6 ? "]" : "",
		         ui_server_port(srv), need_token ? "?token=" : "", need_token ? token : "");
		fprintf(cli->out, "deltalake ui: serving %s (version %" PRId64 ", %zu files) at %s\n", a->table,
		        dl_snapshot_version(st.snap), dl_snapshot_file_count(st.snap), url);
		if (need_token)
			fprintf(cli->out, "deltalake ui: bound beyond loopback: every request needs the access token "
			                  "(in the URL above, then a cookie, or 'Authorization: Bearer TOKEN')\n");
		fprintf(cli->out, "deltalake ui: press Ctrl-C to stop\n");
		fflush(cli->out);
		pid_t opener = a->open ? open_browser(cli, url) : 0;
		int sig = 0;
		sigwait(&sigs, &sig);
		if (opener > 0) waitpid(opener, NULL, WNOHANG); /* xdg-open returns at once */
		ui_server_stop(srv);
		OPENSSL_cleanse(url, sizeof url);
	}
	for (int i = 0; i < 2; i++)
		if (warming[i]) pthread_join(warm[i], NULL);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	OPENSSL_cleanse(token, sizeof token);
	free_state(&st);
	return rc;
}

DL_CLI_COMMAND(ui, .name = "ui", .summary = "serve a read-only web page of a table's history, layout and health",
               .description = "Serves one page (HTML, CSS and JavaScript built into the binary: nothing is\n"
                              "fetched from the internet) with the table's commit timeline, file-size\n"
                              "histogram, partition skew, deletion vectors, statistics coverage, clustering\n"
                              "overlap, schema, protocol, a version diff and a SELECT box; each view is also\n"
                              "JSON under /api/ (docs/UI.md). Read-only: only GET is answered.\n"
                              "It listens on 127.0.0.1 unless --bind says otherwise; any other address\n"
                              "needs the random access token printed at start. Stops on Ctrl-C.",
               .examples = "  deltalake ui /data/events\n  deltalake ui /data/events --port 0 --open\n"
                           "  deltalake ui /data/events --bind 0.0.0.0 --port 8321",
               .opts = ui_opts, .args_size = sizeof(ui_args), .run = ui_run);
