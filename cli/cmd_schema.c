/* `deltalake schema`: the columns of a table (any version). */
#include "deltalake/schema.h"
#include "table_cli.h"

typedef struct schema_args {
	const char *table;
	int64_t version;
	const char *timestamp;
} schema_args;

static const dl_cli_opt schema_opts[] = {
	DL_CLI_ARG(schema_args, table, "TABLE", "path of the table"),
	DL_CLI_INT(schema_args, version, 0, "version", "N", "-1", "the schema of version N"),
	DL_CLI_STRING(schema_args, timestamp, 0, "timestamp", "TS", NULL, "the schema current at TS"),
	DL_CLI_END,
};

static int schema_rows(dl_out *o, dl_snapshot *snap)
{
	const char *json = dl_snapshot_schema_json(snap);
	if (!json) return 0; /* very old tables: no schemaString */
	dl_schema *schema;
	DL_CLI_TRY(dl_schema_parse_json(&schema, json));
	int rc = 0;
	for (size_t i = 0; rc == 0 && i < dl_schema_column_count(schema); i++) {
		dl_schema_field f;
		rc = dl_schema_field_at(&f, schema, i);
		bool part = false;
		for (size_t k = 0; k < dl_snapshot_partition_column_count(snap); k++)
			if (strcmp(dl_snapshot_partition_column(snap, k), f.name) == 0) part = true;
		const char *row[5] = {f.name, f.type_sql, f.nullable ? "true" : "false", part ? "true" : "false",
		                      strcmp(f.metadata, "{}") ? f.metadata : NULL};
		if (rc == 0) rc = dl_out_row(o, row);
	}
	dl_schema_free(schema);
	return rc;
}

static int schema_run(dl_cli *cli, const void *args)
{
	const schema_args *a = args;
	dl_snapshot *snap;
	int rc = dl_cli_open_snapshot_ex(cli, &snap, a->table, a->version, a->timestamp, true);
	if (rc != 0) return rc;
	static const dl_out_column cols[] = {{"column", DL_OUT_STRING}, {"type", DL_OUT_STRING},
	                                     {"nullable", DL_OUT_BOOL}, {"partition", DL_OUT_BOOL},
	                                     {"metadata", DL_OUT_JSON_TEXT}};
	dl_out *o = NULL;
	rc = dl_cli_out_begin(&o, cli, cols, 5);
	if (rc == 0) rc = schema_rows(o, snap);
	if (rc == 0) rc = dl_out_end(o);
	else dl_out_free(o);
	dl_snapshot_free(snap);
	return rc;
}

DL_CLI_COMMAND(schema, .name = "schema", .summary = "show the columns of a table",
               .description = "One row per top-level column: its logical name, SQL type, nullability,\n"
                              "whether it partitions the table, and its Delta field metadata\n"
                              "(comments, column mapping ids and physical names, generation...).",
               .examples = "  deltalake schema /data/events\n  deltalake schema /data/events --format json",
               .opts = schema_opts, .args_size = sizeof(schema_args), .run = schema_run);
