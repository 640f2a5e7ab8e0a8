/* `deltalake create`: CREATE TABLE [IF NOT EXISTS] / CREATE OR REPLACE TABLE
 * from a Spark SQL column list. */
#include <stdlib.h>
#include "table_cli.h"

typedef struct create_args {
	const char *table;
	const char *schema;
	dl_cli_list partition_by;
	dl_cli_list cluster_by;
	dl_cli_list properties;
	dl_cli_list constraints;
	const char *name;
	const char *comment;
	bool if_not_exists;
	bool replace;
} create_args;

static const dl_cli_opt create_opts[] = {
	DL_CLI_ARG(create_args, table, "TABLE", "path of the table to create"),
	DL_CLI_STRING(create_args, schema, 's', "schema", "COLUMNS", NULL,
	              "column list, e.g. \"id BIGINT NOT NULL, name STRING COMMENT 'c'\""),
	DL_CLI_NAMES(create_args, partition_by, 'p', "partition-by", "COLS", "partition columns"),
	DL_CLI_NAMES(create_args, cluster_by, 0, "cluster-by", "COLS",
	             "liquid clustering columns (at most 4, e.g. a,s.b); not with --partition-by"),
	DL_CLI_LIST(create_args, properties, 0, "property", "KEY=VALUE",
	            "table property, e.g. delta.appendOnly=true"),
	DL_CLI_LIST(create_args, constraints, 0, "constraint", "NAME=EXPR",
	            "CHECK constraint, e.g. positive=\"amount > 0\""),
	DL_CLI_STRING(create_args, name, 0, "name", "NAME", NULL, "table name stored in the metadata"),
	DL_CLI_STRING(create_args, comment, 0, "comment", "TEXT", NULL, "table description"),
	DL_CLI_FLAG(create_args, if_not_exists, 0, "if-not-exists", "do nothing when the table exists"),
	DL_CLI_FLAG(create_args, replace, 0, "replace",
	            "replace an existing table (a new version; history is kept)"),
	DL_CLI_END,
};

/* Splits "k=v" items into parallel arrays (pointing into copies). */
static int split_pairs(dl_cli *cli, const dl_cli_list *l, const char *what, const char ***keys,
                       const char ***values, char ***copies)
{
	*keys = calloc((size_t)l->n + 1, sizeof(char *));
	*values = calloc((size_t)l->n + 1, sizeof(char *));
	*copies = calloc((size_t)l->n + 1, sizeof(char *));
	if (!*keys || !*values || !*copies) return DL_ENOMEM;
	for (int i = 0; i < l->n; i++) {
		char *c = strdup(l->items[i]);
		if (!c) return DL_ENOMEM;
		(*copies)[i] = c;
		char *eq = strchr(c, '=');
		if (!eq || eq == c)
			return dl_cli_usage_error(cli, "%s '%s' must be NAME=VALUE", what, l->items[i]);
		*eq = 0;
		(*keys)[i] = c;
		(*values)[i] = eq + 1;
	}
	return 0;
}

static void free_pairs(const char **keys, const char **values, char **copies, int n)
{
	for (int i = 0; copies && i < n; i++) free(copies[i]);
	free(copies);
	free((void *)keys);
	free((void *)values);
}

static int create_run(dl_cli *cli, const void *args)
{
	const create_args *a = args;
	if (!a->schema) return dl_cli_usage_error(cli, "--schema is required");
	if (a->if_not_exists && a->replace)
		return dl_cli_usage_error(cli, "give --if-not-exists or --replace, not both");
	dl_create_options o = DL_CREATE_OPTIONS_INIT;
	o.schema_ddl = a->schema;
	o.store_options = dl_cli_store_options(cli);
	o.partition_columns = a->partition_by.items;
	o.npartition_columns = a->partition_by.n;
	o.cluster_by = a->cluster_by.items;
	o.ncluster_by = a->cluster_by.n;
	o.name = a->name;
	o.description = a->comment;
	o.mode = a->replace ? DL_CREATE_OR_REPLACE
	         : a->if_not_exists ? DL_CREATE_IF_NOT_EXISTS : DL_CREATE_ERROR_IF_EXISTS;
	const char **pk = NULL, **pv = NULL, **ck = NULL, **cv = NULL;
	char **pc = NULL, **cc = NULL;
	int rc = split_pairs(cli, &a->properties, "--property", &pk, &pv, &pc);
	if (rc == 0) rc = split_pairs(cli, &a->constraints, "--constraint", &ck, &cv, &cc);
	int64_t version = -1;
	if (rc == 0) {
		o.property_keys = pk;
		o.property_values = pv;
		o.nproperties = a->properties.n;
		o.constraint_names = ck;
		o.constraint_exprs = cv;
		o.nconstraints = a->constraints.n;
		rc = dl_create_table(&version, a->table, &o);
	}
	if (rc == 0) {
		if (version < 0) dl_cli_note(cli, "%s already exists; nothing done", a->table);
		else fprintf(cli->out, "%s %s at version %" PRId64 "\n", a->replace ? "replaced" : "created",
		             a->table, version);
	}
	free_pairs(pk, pv, pc, a->properties.n);
	free_pairs(ck, cv, cc, a->constraints.n);
	return rc;
}

DL_CLI_COMMAND(create, .name = "create", .summary = "create a Delta table",
               .description =
                   "Creates an empty table from a Spark SQL column list. Columns may be\n"
                   "NOT NULL, have a COMMENT, be GENERATED ALWAYS AS (expr), be identity\n"
                   "columns (GENERATED ALWAYS|BY DEFAULT AS IDENTITY (START WITH n\n"
                   "INCREMENT BY m)) or have a DEFAULT; types nest with STRUCT<>, ARRAY<>\n"
                   "and MAP<>. The protocol is the lowest covering the features used, as\n"
                   "Spark chooses it. Properties such as delta.columnMapping.mode=name,\n"
                   "delta.enableDeletionVectors=true or delta.feature.<name>=enabled turn\n"
                   "features on. --cluster-by makes a liquid-clustered table (OPTIMIZE\n"
                   "then clusters its files; ALTER TABLE t CLUSTER BY changes the columns).",
               .examples =
                   "  deltalake create /data/events --schema \"id BIGINT NOT NULL, ts TIMESTAMP, "
                   "d DATE GENERATED ALWAYS AS (CAST(ts AS DATE))\" --partition-by d\n"
                   "  deltalake create /data/t --schema \"a INT\" --constraint positive=\"a > 0\" "
                   "--property delta.appendOnly=true\n"
                   "  deltalake create /data/t --schema \"a INT, b STRING\" --replace\n"
                   "  deltalake create /data/c --schema \"id BIGINT, ts TIMESTAMP\" --cluster-by id,ts",
               .opts = create_opts, .args_size = sizeof(create_args), .run = create_run);
