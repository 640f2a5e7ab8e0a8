/* `deltalake update`: UPDATE TABLE SET c = e [, ...] [WHERE P] through
 * dl_update, the result as Spark's (num_affected_rows). */
#include <ctype.h>
#include <stdlib.h>
#include "table_cli.h"

typedef struct update_args {
	const char *table;
	dl_cli_list set;
	const char *where;
	const char *user_metadata;
	bool copy_on_write;
	const char *txn_app_id;
	int64_t txn_version;
} update_args;

static const dl_cli_opt update_opts[] = {
	DL_CLI_ARG(update_args, table, "TABLE", "path of the table"),
	DL_CLI_LIST(update_args, set, 's', "set", "\"COL = EXPR\"",
	            "an assignment (repeat for more); COL may be a nested field s.a"),
	DL_CLI_STRING(update_args, where, 'w', "where", "PRED", NULL,
	              "update only the rows where PRED is true; without it, every row"),
	DL_CLI_STRING(update_args, user_metadata, 0, "user-metadata", "TEXT", NULL,
	              "commitInfo.userMetadata"),
	DL_CLI_FLAG(update_args, copy_on_write, 0, "copy-on-write",
	            "rewrite files even when the table enables deletion vectors"),
	DL_CLI_STRING(update_args, txn_app_id, 0, "txn-app-id", "ID", NULL,
	              "idempotent update: application id"),
	DL_CLI_INT(update_args, txn_version, 0, "txn-version", "N", "-1",
	           "idempotent update: skipped when ID already committed version N or later"),
	DL_CLI_END,
};

/* The '=' of "col = expr": the first one outside backquotes that is not
 * part of ==, <=, >=, !=, <=>. */
static char *assignment_eq(char *s)
{
	bool quoted = false;
	for (char *p = s; *p; p++) {
		if (*p == '`') quoted = !quoted;
		if (quoted || *p != '=') continue;
		if (p > s && (p[-1] == '<' || p[-1] == '>' || p[-1] == '!')) continue;
		if (p[1] == '=' || p[1] == '>') continue;
		return p;
	}
	return NULL;
}

static char *trim(char *s)
{
	while (isspace((unsigned char)*s)) s++;
	size_t n = strlen(s);
	while (n && isspace((unsigned char)s[n - 1])) s[--n] = 0;
	return s;
}

static int update_run(dl_cli *cli, const void *args)
{
	const update_args *a = args;
	dl_cli_malloc_for_reads();
	if (a->set.n == 0) return dl_cli_usage_error(cli, "give at least one --set \"COL = EXPR\"");
	dl_update_assignment *as = dl_cli_calloc((size_t)a->set.n, sizeof *as);
	char **copies = dl_cli_calloc((size_t)a->set.n, sizeof *copies);
	int rc = as && copies ? 0 : DL_ENOMEM;
	for (int i = 0; i < a->set.n && rc == 0; i++) {
		copies[i] = dl_cli_strdup(a->set.items[i]);
		if (!copies[i]) {
			rc = DL_ENOMEM;
			break;
		}
		char *eq = assignment_eq(copies[i]);
		if (!eq) {
			rc = dl_cli_usage_error(cli, "--set '%s' must be \"COL = EXPR\"", a->set.items[i]);
			break;
		}
		*eq = 0;
		as[i].column = trim(copies[i]);
		as[i].expression = trim(eq + 1);
		if (!*as[i].column || !*as[i].expression)
			rc = dl_cli_usage_error(cli, "--set '%s' must be \"COL = EXPR\"", a->set.items[i]);
	}
	dl_update_metrics m;
	if (rc == 0) {
		dl_update_options o = DL_UPDATE_OPTIONS_INIT;
		o.user_metadata = a->user_metadata;
		o.copy_on_write = a->copy_on_write;
		o.txn_app_id = a->txn_app_id;
		o.txn_version = a->txn_version;
		rc = dl_update(&m, a->table, as, (size_t)a->set.n, a->where, &o);
	}
	if (rc == 0) {
		static const dl_out_column cols[] = {{"num_affected_rows", DL_OUT_NUMBER}};
		char n[32];
		snprintf(n, sizeof n, "%" PRId64, m.num_affected_rows);
		const char *row[1] = {n};
		dl_out *out = NULL;
		rc = dl_cli_out_begin(&out, cli, cols, 1);
		if (rc == 0) rc = dl_out_row(out, row);
		if (rc == 0) rc = dl_out_end(out);
		else dl_out_free(out);
	}
	for (int i = 0; copies && i < a->set.n; i++) free(copies[i]);
	free(copies);
	free(as);
	return rc;
}

DL_CLI_COMMAND(update, .name = "update", .summary = "update the rows of a table matching a condition",
               .description =
                   "UPDATE TABLE SET COL = EXPR [, ...] [WHERE PRED] with Spark's semantics:\n"
                   "values are cast to the column types (ANSI store assignment), generated\n"
                   "columns are recomputed, NOT NULL and CHECK constraints hold, a changed\n"
                   "partition column moves the row, identity columns cannot be set. The old\n"
                   "rows are deleted through deletion vectors when the table enables them,\n"
                   "else their files are rewritten. Prints num_affected_rows.",
               .examples = "  deltalake update /data/events --set \"name = upper(name)\" --where \"id = 2\"\n"
                           "  deltalake update /data/events --set \"s.a = s.a + 1\" --set \"d = DATE'2024-02-01'\"",
               .opts = update_opts, .args_size = sizeof(update_args), .run = update_run);
