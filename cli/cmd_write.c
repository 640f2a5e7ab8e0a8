/* `deltalake write`: writes a CSV, JSON lines or Parquet file to a table,
 * creating it when absent (DataFrameWriter.save with Delta's options). */
#include <stdlib.h>
#include <strings.h>
#include "deltalake/input.h"
#include "deltalake/parquet.h"
#include "progress.h"
#include "table_cli.h"

typedef struct write_args {
	const char *table;
	const char *input;
	const char *format;
	const char *mode;
	const char *replace_where;
	bool no_replace_where_check;
	const char *partition_overwrite;
	bool merge_schema;
	bool overwrite_schema;
	dl_cli_list partition_by;
	dl_cli_list properties;
	const char *txn_app_id;
	int64_t txn_version;
	const char *user_metadata;
	int64_t max_records_per_file;
	int64_t target_file_size;
} write_args;

static const dl_cli_opt write_opts[] = {
	DL_CLI_ARG(write_args, table, "TABLE", "path of the table (created when absent)"),
	DL_CLI_STRING(write_args, input, 'i', "input", "FILE", NULL,
	              "data to write: .csv (with a header), .jsonl / .json (JSON lines) or .parquet"),
	DL_CLI_STRING(write_args, format, 0, "input-format", "FMT", NULL,
	              "csv, jsonl or parquet (default: from the file name)"),
	DL_CLI_STRING(write_args, mode, 'm', "mode", "MODE", "error",
	              "error (the table must not exist), append, overwrite or ignore"),
	DL_CLI_STRING(write_args, replace_where, 0, "replace-where", "PRED", NULL,
	              "with --mode overwrite: replace only the rows matching PRED"),
	DL_CLI_FLAG(write_args, no_replace_where_check, 0, "no-replace-where-check",
	            "allow written rows outside --replace-where"),
	DL_CLI_STRING(write_args, partition_overwrite, 0, "partition-overwrite", "MODE", "static",
	              "dynamic: with --mode overwrite, replace only the partitions written"),
	DL_CLI_FLAG(write_args, merge_schema, 0, "merge-schema", "add new columns to the table"),
	DL_CLI_FLAG(write_args, overwrite_schema, 0, "overwrite-schema",
	            "with --mode overwrite: replace the table's schema and partitioning"),
	DL_CLI_NAMES(write_args, partition_by, 'p', "partition-by", "COLS",
	             "partition columns of a new table (checked against an existing one)"),
	DL_CLI_LIST(write_args, properties, 0, "property", "KEY=VALUE",
	            "table property of a new table"),
	DL_CLI_STRING(write_args, txn_app_id, 0, "txn-app-id", "ID", NULL,
	              "idempotent write: application id"),
	DL_CLI_INT(write_args, txn_version, 0, "txn-version", "N", "-1",
	           "idempotent write: skipped when ID already wrote version N or later"),
	DL_CLI_STRING(write_args, user_metadata, 0, "user-metadata", "TEXT", NULL,
	              "commitInfo.userMetadata"),
	DL_CLI_INT(write_args, max_records_per_file, 0, "max-records-per-file", "N", "0",
	           "rows per data file at most (0: no limit)"),
	DL_CLI_INT(write_args, target_file_size, 0, "target-file-size", "BYTES", "0",
	           "data file size to aim for (0: 128 MiB)"),
	DL_CLI_END,
};

static int parse_mode(const char *s, dl_write_mode *out)
{
	if (strcasecmp(s, "error") == 0 || strcasecmp(s, "errorifexists") == 0) *out = DL_WRITE_ERROR_IF_EXISTS;
	else if (strcasecmp(s, "append") == 0) *out = DL_WRITE_APPEND;
	else if (strcasecmp(s, "overwrite") == 0) *out = DL_WRITE_OVERWRITE;
	else if (strcasecmp(s, "ignore") == 0) *out = DL_WRITE_IGNORE;
	else return -1;
	return 0;
}

static bool ends_with(const char *s, const char *suffix)
{
	size_t n = strlen(s), m = strlen(suffix);
	return n >= m && strcasecmp(s + n - m, suffix) == 0;
}

/* The table's schema JSON (malloc'd), for typing text input; NULL when
 * there is no table. *widening: the table enables type widening. */
static int table_schema(char **out, bool *widening, const char *uri)
{
	*out = NULL;
	*widening = false;
	dl_snapshot_options o = DL_SNAPSHOT_OPTIONS_INIT;
	o.metadata_only = true;
	o.store_options = dl_cli_store_options(NULL);
	dl_snapshot *snap;
	int rc = dl_snapshot_open(&snap, uri, &o);
	if (rc == DL_ENOTFOUND) {
		dl_error_clear();
		return 0;
	}
	DL_CLI_TRY(rc);
	const char *json = dl_snapshot_schema_json(snap);
	if (json && !(*out = dl_cli_strdup(json))) rc = DL_ENOMEM;
	const char *tw = dl_snapshot_property(snap, "delta.enableTypeWidening");
	*widening = tw && strcasecmp(tw, "true") == 0;
	dl_snapshot_free(snap);
	return rc;
}

/* The input as an Arrow stream; a Parquet input's file handle goes to *pq
 * (it must outlive the stream). */
static int open_input(dl_cli *cli, const write_args *a, struct ArrowArrayStream *st, dl_parquet_file **pq)
{
	const char *fmt = a->format;
	if (!fmt) {
		fmt = ends_with(a->input, ".csv") ? "csv"
		      : ends_with(a->input, ".jsonl") || ends_with(a->input, ".json") ||
		                ends_with(a->input, ".ndjson") ? "jsonl"
		      : ends_with(a->input, ".parquet") ? "parquet" : NULL;
		if (!fmt)
			return dl_cli_usage_error(cli, "cannot tell the format of '%s'; give --input-format "
			                          "csv, jsonl or parquet", a->input);
	}
	bool csv = strcasecmp(fmt, "csv") == 0, jsonl = strcasecmp(fmt, "jsonl") == 0,
	     parquet = strcasecmp(fmt, "parquet") == 0;
	if (!csv && !jsonl && !parquet)
		return dl_cli_usage_error(cli, "--input-format must be csv, jsonl or parquet");
	if (parquet) {
		int rc = dl_parquet_open(pq, a->input);
		if (rc < 0) return rc == DL_ENOMEM ? rc : dl_cli_fail(rc, "input %s: %s", a->input, dl_cli_error_message());
		return dl_parquet_read(st, *pq, NULL);
	}
	char *schema = NULL;
	bool widening;
	DL_CLI_TRY(table_schema(&schema, &widening, a->table));
	/* Spark widens a column automatically only under schema evolution:
	 * without --merge-schema a wider value stays an error naming its line */
	bool widen = widening && a->merge_schema;
	int rc;
	if (csv) {
		dl_csv_options o = DL_CSV_OPTIONS_INIT;
		o.schema_json = schema;
		o.widen_types = widen;
		rc = dl_read_csv(st, a->input, &o);
	} else {
		dl_jsonl_options o = DL_JSONL_OPTIONS_INIT;
		o.schema_json = schema;
		o.widen_types = widen;
		rc = dl_read_jsonl(st, a->input, &o);
	}
	free(schema);
	return rc;
}

/* The library's progress callback drives the bar: rows taken from the input
 * while writing. */
static int on_progress(const dl_progress_info *info, void *payload)
{
	if (info->rows >= 0) dl_progress_update(payload, info->rows);
	return 0;
}

static int fill_options(dl_cli *cli, const write_args *a, dl_write_options *o, char ***copies)
{
	if (parse_mode(a->mode, &o->mode) < 0)
		return dl_cli_usage_error(cli, "--mode must be error, append, overwrite or ignore");
	bool dynamic = strcasecmp(a->partition_overwrite, "dynamic") == 0;
	if (!dynamic && strcasecmp(a->partition_overwrite, "static") != 0)
		return dl_cli_usage_error(cli, "--partition-overwrite must be static or dynamic");
	if ((a->txn_app_id != NULL) != (a->txn_version >= 0))
		return dl_cli_usage_error(cli, "give --txn-app-id and --txn-version together");
	o->replace_where = a->replace_where;
	o->replace_where_check = !a->no_replace_where_check;
	o->dynamic_partition_overwrite = dynamic;
	o->merge_schema = a->merge_schema;
	o->overwrite_schema = a->overwrite_schema;
	o->partition_by = a->partition_by.items;
	o->npartition_by = a->partition_by.n;
	o->txn_app_id = a->txn_app_id;
	o->txn_version = a->txn_version;
	o->user_metadata = a->user_metadata;
	o->max_records_per_file = a->max_records_per_file;
	o->target_file_size = a->target_file_size;
	int n = a->properties.n;
	const char **keys = calloc((size_t)n + 1, sizeof(char *));
	const char **vals = calloc((size_t)n + 1, sizeof(char *));
	*copies = calloc((size_t)n + 1, sizeof(char *));
	o->property_keys = keys;
	o->property_values = vals;
	if (!keys || !vals || !*copies) return DL_ENOMEM;
	for (int i = 0; i < n; i++) {
		char *c = strdup(a->properties.items[i]);
		if (!c) return DL_ENOMEM;
		(*copies)[i] = c;
		char *eq = strchr(c, '=');
		if (!eq || eq == c)
			return dl_cli_usage_error(cli, "--property '%s' must be KEY=VALUE", a->properties.items[i]);
		*eq = 0;
		keys[i] = c;
		vals[i] = eq + 1;
	}
	o->nproperties = n;
	return 0;
}

static int write_run(dl_cli *cli, const void *args)
{
	const write_args *a = args;
	if (!a->input) return dl_cli_usage_error(cli, "--input is required");
	dl_write_options o = DL_WRITE_OPTIONS_INIT;
	char **copies = NULL;
	int rc = fill_options(cli, a, &o, &copies);
	o.store_options = dl_cli_store_options(cli);
	struct ArrowArrayStream st = {0};
	dl_parquet_file *pq = NULL;
	if (rc == 0) rc = open_input(cli, a, &st, &pq);
	int64_t version = -1;
	if (rc == 0) {
		dl_progress p;
		dl_progress_begin(&p, cli->err, cli->quiet, "writing rows", 0);
		o.progress = on_progress;
		o.progress_payload = &p;
		rc = dl_write(&version, a->table, &st, &o);
		dl_progress_end(&p);
	}
	if (rc == 0) {
		if (version < 0) dl_cli_note(cli, "nothing written (the table exists with --mode ignore, "
		                                  "or this --txn-version was already written)");
		else fprintf(cli->out, "wrote %s at version %" PRId64 "\n", a->table, version);
	}
	dl_arrow_stream_release(&st);
	dl_parquet_free(pq);
	for (int i = 0; copies && i < a->properties.n; i++) free(copies[i]);
	free(copies);
	free((void *)o.property_keys);
	free((void *)o.property_values);
	return rc;
}

DL_CLI_COMMAND(write, .name = "write", .summary = "write a CSV, JSON lines or Parquet file to a table",
               .description =
                   "Appends, overwrites or creates, with Delta's rules: columns match the\n"
                   "table's by name (case-insensitive); missing columns are NULL or their\n"
                   "default / generated / identity value; unknown columns need\n"
                   "--merge-schema; NOT NULL, CHECK constraints and generated columns are\n"
                   "enforced and a violation leaves the table unchanged. CSV and JSON values\n"
                   "take the table's column types (inferred for a new table).",
               .examples =
                   "  deltalake write /data/events --input day1.csv --mode append\n"
                   "  deltalake write /data/events --input fix.jsonl --mode overwrite "
                   "--replace-where \"d = '2024-01-01'\"\n"
                   "  deltalake write /data/events --input new.parquet --mode append --merge-schema\n"
                   "  deltalake write /data/events --input b.csv --mode append --txn-app-id etl "
                   "--txn-version 42",
               .opts = write_opts, .args_size = sizeof(write_args), .run = write_run);
