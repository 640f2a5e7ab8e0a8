/* `deltalake restore`: RESTORE TABLE t TO VERSION AS OF n | TIMESTAMP AS
 * OF ts through dl_restore; prints Spark's result columns. */
#include "restore_clone_cli.h"

typedef struct restore_args {
	const char *table;
	int64_t version;
	const char *timestamp;
	bool ignore_missing_files;
	const char *user_metadata;
} restore_args;

static const dl_cli_opt restore_opts[] = {
	DL_CLI_ARG(restore_args, table, "TABLE", "path of the table"),
	DL_CLI_INT(restore_args, version, 'v', "version", "N", "-1", "restore the table as it was at version N"),
	DL_CLI_STRING(restore_args, timestamp, 't', "timestamp", "TS", NULL,
	              "restore the version current at TS (Spark timestamp text, UTC unless it names a zone)"),
	DL_CLI_FLAG(restore_args, ignore_missing_files, 0, "ignore-missing-files",
	            "restore even when files of that version are gone (spark.sql.files.ignoreMissingFiles)"),
	DL_CLI_STRING(restore_args, user_metadata, 0, "user-metadata", "TEXT", NULL, "commitInfo.userMetadata"),
	DL_CLI_END,
};

static int restore_run(dl_cli *cli, const void *args)
{
	const restore_args *a = args;
	if ((a->version >= 0) == (a->timestamp != NULL))
		return dl_cli_usage_error(cli, "give exactly one of --version N and --timestamp TS");
	dl_restore_options o = DL_RESTORE_OPTIONS_INIT;
	o.store_options = dl_cli_store_options(cli);
	o.to_version = a->version;
	o.to_timestamp = a->timestamp;
	o.ignore_missing_files = a->ignore_missing_files;
	o.user_metadata = a->user_metadata;
	dl_progress p;
	dl_progress_begin(&p, cli->err, cli->quiet, "restoring", 0);
	o.progress = dl_cli_maint_progress;
	o.progress_payload = &p;
	dl_restore_metrics m;
	int rc = dl_restore(&m, a->table, &o);
	dl_progress_end(&p);
	if (rc != 0) return rc;
	static const char *const names[] = {"table_size_after_restore", "num_of_files_after_restore",
	                                    "num_removed_files",        "num_restored_files",
	                                    "removed_files_size",       "restored_files_size"};
	int64_t v[] = {m.tableSizeAfterRestore, m.numOfFilesAfterRestore, m.numRemovedFiles,
	               m.numRestoredFiles,      m.removedFilesSize,        m.restoredFilesSize};
	return dl_cli_metrics_row(cli, names, v, 6);
}

DL_CLI_COMMAND(restore, .name = "restore", .summary = "roll a table back to an older version",
               .description =
                   "RESTORE TABLE TABLE TO VERSION AS OF N | TIMESTAMP AS OF TS, as Spark:\n"
                   "one commit re-adds the files of that version the table no longer has\n"
                   "and removes the files it did not have (files compared by path and\n"
                   "deletion vector), restores its metadata, and never downgrades the\n"
                   "protocol. The history stays: the restore is a new version. Fails when\n"
                   "files of that version are gone (VACUUM) unless --ignore-missing-files.\n"
                   "Prints Spark's metrics.",
               .examples = "  deltalake restore /data/events --version 3\n"
                           "  deltalake restore /data/events --timestamp '2024-05-01 12:00:00'",
               .opts = restore_opts, .args_size = sizeof(restore_args), .run = restore_run);
