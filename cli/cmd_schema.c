/* `deltalake schema`: the columns of a table (any version). */
#include "log/snapshot.h"
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
	const dl_type *t = dl_snapshot_schema(snap);
	for (int i = 0; t && i < t->nchildren; i++) {
		const dl_field *f = &t->children[i];
		char type[512];
		dl_type_sql(f->type, type, sizeof type);
		bool part = false;
		for (size_t k = 0; k < dl_snapshot_partition_column_count(snap); k++)
			if (strcmp(dl_snapshot_partition_column(snap, k), f->name) == 0) part = true;
		const char *row[5] = {f->name, type, f->nullable ? "true" : "false", part ? "true" : "false",
		                      f->metadata && strcmp(f->metadata, "{}") ? f->metadata : NULL};
		DL_TRY(dl_out_row(o, row));
	}
	return 0;
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
