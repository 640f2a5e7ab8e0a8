/* `deltalake alter TABLE "<clause>"`: runs ALTER TABLE delta.`TABLE`
 * <clause> through the public SQL API, so every form SQL knows (columns,
 * properties, constraints, features, clustering) works here the same
 * way, with the same validation and errors. Prints nothing, as Spark's
 * ALTER TABLE returns no rows. */
#include "table_cli.h"
#include "deltalake/sql.h"

typedef struct alter_args {
	const char *table;
	const char *clause;
} alter_args;

static const dl_cli_opt alter_opts[] = {
	DL_CLI_ARG(alter_args, table, "TABLE", "path (or store URI) of the table"),
	DL_CLI_ARG(alter_args, clause, "CLAUSE", "what follows ALTER TABLE t, e.g. \"ADD COLUMNS (c INT)\""),
	DL_CLI_END,
};

/* ALTER TABLE delta.`TABLE` CLAUSE, with backquotes in the path doubled. */
static char *statement(const char *table, const char *clause)
{
	size_t n = strlen(table), m = strlen(clause);
	char *s = malloc(2 * n + m + 40);
	if (!s) return NULL;
	char *w = s + sprintf(s, "ALTER TABLE delta.`");
	for (const char *p = table; *p; p++) {
		if (*p == '`') *w++ = '`';
		*w++ = *p;
	}
	sprintf(w, "` %s", clause);
	return s;
}

static int alter_run(dl_cli *cli, const void *args)
{
	const alter_args *a = args;
	const char *c = a->clause;
	while (*c == ' ' || *c == '\t' || *c == '\n') c++;
	if (!*c) return dl_cli_usage_error(cli, "the clause is empty: give what follows ALTER TABLE t, "
	                                        "e.g. \"ADD COLUMNS (c INT)\"");
	/* "ALTER COLUMN c ..." is a clause; "ALTER TABLE t ..." is a statement */
	if (strncasecmp(c, "ALTER", 5) == 0 && (c[5] == ' ' || c[5] == '\t')) {
		const char *w = c + 5;
		while (*w == ' ' || *w == '\t') w++;
		if (strncasecmp(w, "TABLE", 5) == 0 && (w[5] == ' ' || w[5] == '\t' || !w[5]))
			return dl_cli_usage_error(cli, "give only the clause after ALTER TABLE t (\"%s\" is a "
			                               "whole statement)", c);
	}
	char *sql = statement(a->table, c);
	if (!sql) return DL_ENOMEM;
	dl_sql_options o = DL_SQL_OPTIONS_INIT;
	o.store_options = dl_cli_store_options(cli);
	dl_sql_conn *conn = NULL;
	int rc = dl_sql_open(&conn, &o);
	struct ArrowArrayStream st = {0};
	if (rc == 0) rc = dl_sql_execute(&st, conn, sql);
	while (rc == 0 && st.release) {
		struct ArrowArray arr = {0};
		if (st.get_next(&st, &arr) != 0) {
			rc = dl_error_last()->code < 0 ? dl_error_last()->code : DL_ERROR;
			break;
		}
		if (!arr.release) break;
		arr.release(&arr);
	}
	if (st.release) st.release(&st);
	dl_sql_close(conn);
	free(sql);
	return rc;
}

DL_CLI_COMMAND(alter, .name = "alter", .summary = "change a table: columns, properties, constraints, features",
               .description =
                   "Runs ALTER TABLE delta.`TABLE` CLAUSE with Spark's rules and errors\n"
                   "(docs/ALTER.md, docs/ALTER_PROPERTIES.md): CLAUSE is what follows\n"
                   "ALTER TABLE t in Spark SQL. Each run commits one version (nothing when\n"
                   "there is nothing to change); a refusal leaves the table as it was.\n"
                   "RENAME COLUMN and DROP COLUMN need column mapping\n"
                   "('delta.columnMapping.mode' = 'name'); TYPE changes only widen, with\n"
                   "delta.enableTypeWidening. Prints nothing on success.",
               .examples = "  deltalake alter /data/events \"ADD COLUMNS (country STRING COMMENT 'ISO code' AFTER id)\"\n"
                           "  deltalake alter /data/events \"ALTER COLUMN id SET NOT NULL\"\n"
                           "  deltalake alter /data/events \"ALTER COLUMN amount TYPE DECIMAL(12,2)\"\n"
                           "  deltalake alter /data/events \"RENAME COLUMN country TO country_code\"\n"
                           "  deltalake alter /data/events \"SET TBLPROPERTIES ('delta.enableChangeDataFeed' = 'true')\"\n"
                           "  deltalake alter /data/events \"ADD CONSTRAINT positive CHECK (amount > 0)\"",
               .opts = alter_opts, .args_size = sizeof(alter_args), .run = alter_run);
