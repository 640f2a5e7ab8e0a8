/* `deltalake convert`: CONVERT TO DELTA parquet.`DIR` [NO STATISTICS]
 * [PARTITIONED BY (...)] through dl_convert_to_delta. */
#include <string.h>
#include "restore_clone_cli.h"

typedef struct convert_args {
	const char *dir;
	const char *partition_by;
	bool no_statistics;
	const char *user_metadata;
	const char *source;
} convert_args;

static const dl_cli_opt convert_opts[] = {
	DL_CLI_ARG(convert_args, dir, "DIR", "directory of Parquet files"),
	DL_CLI_STRING(convert_args, partition_by, 'P', "partition-by", "\"c TYPE,...\"", NULL,
	              "the partition columns the col=value/ directories hold, in order (Spark DDL)"),
	DL_CLI_FLAG(convert_args, no_statistics, 0, "no-statistics", "NO STATISTICS: add files without stats"),
	DL_CLI_STRING(convert_args, user_metadata, 0, "user-metadata", "TEXT", NULL, "commitInfo.userMetadata"),
	DL_CLI_STRING(convert_args, source, 0, "source", "FORMAT", "parquet",
	              "what DIR holds: parquet (files) or iceberg (an Iceberg table: CONVERT TO DELTA iceberg.`DIR`)"),
	DL_CLI_END,
};

static int convert_run(dl_cli *cli, const void *args)
{
	const convert_args *a = args;
	dl_convert_options o = DL_CONVERT_OPTIONS_INIT;
	o.store_options = dl_cli_store_options(cli);
	o.partition_schema_ddl = a->partition_by;
	o.no_statistics = a->no_statistics;
	o.user_metadata = a->user_metadata;
	dl_progress p;
	dl_progress_begin(&p, cli->err, cli->quiet, "reading footers", 0);
	o.progress = dl_cli_maint_progress;
	o.progress_payload = &p;
	dl_convert_metrics m;
	bool iceberg = a->source && strcmp(a->source, "iceberg") == 0;
	if (!iceberg && a->source && strcmp(a->source, "parquet") != 0) {
		dl_progress_end(&p);
		return dl_cli_usage_error(cli, "--source must be parquet or iceberg, not '%s'", a->source);
	}
	int rc = iceberg ? dl_convert_iceberg_to_delta(&m, a->dir, &o) : dl_convert_to_delta(&m, a->dir, &o);
	dl_progress_end(&p);
	if (rc != 0) return rc;
	static const char *const names[] = {"version", "num_converted_files"};
	int64_t v[] = {m.version, m.numConvertedFiles};
	return dl_cli_metrics_row(cli, names, v, 2);
}

DL_CLI_COMMAND(convert, .name = "convert", .summary = "turn a directory of Parquet files into a Delta table",
               .description =
                   "CONVERT TO DELTA parquet.`DIR`, as Spark: lists the Parquet files\n"
                   "(hidden _ and . files and directories skipped), checks their col=value/\n"
                   "directories against --partition-by, merges their schemas (conflicting\n"
                   "types are an error), takes statistics from their footers unless\n"
                   "--no-statistics, and commits version 0 in place; the files stay where\n"
                   "they are. A directory that already is a Delta table is left alone\n"
                   "(version -1). Prints the version and the number of files converted.",
               .examples = "  deltalake convert /data/raw_events\n"
                           "  deltalake convert /data/raw_events --partition-by \"d DATE, country STRING\"",
               .opts = convert_opts, .args_size = sizeof(convert_args), .run = convert_run);
