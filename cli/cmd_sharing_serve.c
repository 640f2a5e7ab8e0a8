/* `deltalake sharing serve` and `deltalake sharing token`: the Delta
 * Sharing server (deltalake/sharing_server.h; docs/SHARING_SERVER.md).
 * `sharing list` (the client) lives in its own file. */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "cli.h"
#include "deltalake.h"
#include "deltalake/sharing_server.h"
#include "storage_options.h"
#include "util.h"

DL_CLI_GROUP(sharing, "sharing", "Delta Sharing server and client");

/* ---- sharing serve ---------------------------------------------------- */

typedef struct serve_args {
	const char *config;
	int64_t port;
	const char *bind;
	const char *tls_cert;
	const char *tls_key;
	const char *access_log;
	const char *public_url;
	int64_t max_connections;
	int64_t timeout;
} serve_args;

static const dl_cli_opt serve_opts[] = {
	DL_CLI_STRING(serve_args, config, 'c', "config", "FILE", NULL,
	              "the server config (YAML, the reference server's format)"),
	DL_CLI_INT(serve_args, port, 'p', "port", "N", "-1",
	           "listen on port N (0: any free port, printed); default: the config's port, else 8080"),
	DL_CLI_STRING(serve_args, bind, 0, "bind", "ADDR", NULL,
	              "listen on this numeric address (default: the config's host, else 127.0.0.1)"),
	DL_CLI_STRING(serve_args, tls_cert, 0, "tls-cert", "FILE", NULL, "serve HTTPS with this PEM certificate"),
	DL_CLI_STRING(serve_args, tls_key, 0, "tls-key", "FILE", NULL, "the PEM private key of --tls-cert"),
	DL_CLI_STRING(serve_args, access_log, 0, "access-log", "FILE", "-",
	              "append one line per request to FILE ('-': stderr; with --quiet: none)"),
	DL_CLI_STRING(serve_args, public_url, 0, "public-url", "URL", NULL,
	              "the scheme://host:port file URLs start with (behind a proxy)"),
	DL_CLI_INT(serve_args, max_connections, 0, "max-connections", "N", "-1",
	           "accept at most N connections at once (default 256)"),
	DL_CLI_INT(serve_args, timeout, 0, "timeout", "SECONDS", "-1",
	           "close idle connections after SECONDS (default: the config's requestTimeoutSeconds, else 30)"),
	DL_CLI_END,
};

static int serve_run(dl_cli *cli, const void *args)
{
	const serve_args *a = args;
	if (!a->config) return dl_cli_usage_error(cli, "--config FILE is required");
	if (dl_cli_store_options(cli))
		return dl_cli_usage_error(cli, "--storage-option does not apply to 'sharing serve': each table's "
		                               "store is opened from its location and the environment (AWS_*, AZURE_*)");
	if (!a->tls_cert != !a->tls_key)
		return dl_cli_usage_error(cli, "--tls-cert and --tls-key go together");
	if (a->port > 65535) return dl_cli_usage_error(cli, "--port must be 0 to 65535");
	if (a->max_connections == 0) return dl_cli_usage_error(cli, "--max-connections must be at least 1");
	if (a->timeout == 0) return dl_cli_usage_error(cli, "--timeout must be at least 1 second");
	FILE *log = NULL;
	bool close_log = false;
	if (!cli->quiet && a->access_log) {
		if (!strcmp(a->access_log, "-")) log = cli->err;
		else {
			log = fopen(a->access_log, "a");
			if (!log) {
				fprintf(cli->err, "deltalake: error: cannot open the access log %s: %s\n", a->access_log,
				        strerror(errno));
				return DL_CLI_USAGE;
			}
			close_log = true;
		}
	}
	dl_sharing_server_options o = DL_SHARING_SERVER_OPTIONS_INIT;
	o.config_path = a->config;
	o.port = (int)a->port;
	o.bind_address = a->bind;
	o.tls_cert_path = a->tls_cert;
	o.tls_key_path = a->tls_key;
	o.access_log = log;
	o.public_url = a->public_url;
	if (a->max_connections > 0) o.max_connections = (unsigned)a->max_connections;
	if (a->timeout > 0) o.timeout_seconds = (unsigned)a->timeout;
	/* Signals are blocked while the daemon starts so its threads inherit
	 * the mask and only this thread sees SIGINT/SIGTERM. */
	sigset_t set, old;
	sigemptyset(&set);
	sigaddset(&set, SIGINT);
	sigaddset(&set, SIGTERM);
	pthread_sigmask(SIG_BLOCK, &set, &old);
	signal(SIGPIPE, SIG_IGN);
	dl_sharing_server *srv;
	int rc = dl_sharing_server_start(&srv, &o);
	if (rc < 0) {
		pthread_sigmask(SIG_SETMASK, &old, NULL);
		if (close_log) fclose(log);
		return rc;
	}
	fprintf(cli->out, "listening on port %d\n", dl_sharing_server_port(srv));
	fflush(cli->out);
	int sig = 0;
	sigwait(&set, &sig);
	dl_sharing_server_stop(srv);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (close_log) fclose(log);
	dl_cli_note(cli, "stopped (%s)", sig == SIGINT ? "SIGINT" : "SIGTERM");
	return 0;
}

DL_CLI_COMMAND(sharing_serve, .name = "sharing serve", .summary = "serve Delta tables over the Delta Sharing protocol",
               .description =
                   "Serves the shares of a config (the reference server's YAML: version, shares,\n"
                   "authorization.bearerToken, host, port, endpoint, preSignedUrlTimeoutSeconds;\n"
                   "plus recipients with hashed tokens and expiry, and per-table partitionFilter).\n"
                   "Every request needs a recipient's bearer token; a recipient sees only its\n"
                   "shares. Data files are served through expiring signed URLs (presigned S3\n"
                   "URLs for tables on S3, else URLs of this server).\n"
                   "Listens on 127.0.0.1 unless told otherwise; prints the port, then serves\n"
                   "until SIGINT or SIGTERM. See docs/SHARING_SERVER.md.",
               .examples = "  deltalake sharing serve --config shares.yaml\n"
                           "  deltalake sharing serve -c shares.yaml --port 0\n"
                           "  deltalake sharing serve -c shares.yaml --bind 0.0.0.0 --port 8443 \\\n"
                           "      --tls-cert server.pem --tls-key server.key",
               .opts = serve_opts, .args_size = sizeof(serve_args), .run = serve_run);

/* ---- sharing token ---------------------------------------------------- */

typedef struct token_args {
	const char *recipient;
} token_args;

static const dl_cli_opt token_opts[] = {
	DL_CLI_STRING(token_args, recipient, 'r', "recipient", "NAME", NULL,
	              "print the config entry for recipient NAME"),
	DL_CLI_END,
};

static int token_run(dl_cli *cli, const void *args)
{
	const token_args *a = args;
	char *token, *hash;
	int rc = dl_sharing_token_make(&token, &hash);
	if (rc < 0) return rc;
	if (cli->format_set) {
		static const dl_out_column cols[] = {{"token", DL_OUT_STRING}, {"tokenHash", DL_OUT_STRING}};
		dl_out *o;
		rc = dl_cli_out_begin(&o, cli, cols, 2);
		if (rc == 0) {
			const char *row[2] = {token, hash};
			rc = dl_out_row(o, row);
			if (rc == 0) rc = dl_out_end(o);
			else dl_out_free(o);
		}
	} else {
		fprintf(cli->out, "token: %s\n", token);
		if (a->recipient)
			fprintf(cli->out, "config:\n  - name: \"%s\"\n    tokenHash: \"%s\"\n    shares: []\n",
			        a->recipient, hash);
		else fprintf(cli->out, "tokenHash: \"%s\"\n", hash);
	}
	memset(token, 0, strlen(token));
	dl_free(token);
	dl_free(hash);
	return rc;
}

DL_CLI_COMMAND(sharing_token, .name = "sharing token", .summary = "make a bearer token for a sharing recipient",
               .description = "Prints a new random token (give it to the recipient, in their profile\n"
                              "file) and the tokenHash line the server config keeps instead of it.\n"
                              "The token is shown once: the server never stores it.",
               .examples = "  deltalake sharing token\n  deltalake sharing token --recipient alice",
               .opts = token_opts, .args_size = sizeof(token_args), .run = token_run);
