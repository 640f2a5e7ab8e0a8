/* `deltalake fsck`: FSCK REPAIR TABLE [DRY RUN] through dl_fsck_repair;
 * prints one row per log entry removed (dataFilePath, dataFileMissing: false
 * when only its deletion vector file is missing). */
#include "table_cli.h"

typedef struct fsck_args {
	const char *table;
	bool dry_run;
	const char *user_metadata;
} fsck_args;

static const dl_cli_opt fsck_opts[] = {
	DL_CLI_ARG(fsck_args, table, "TABLE", "path of the table"),
	DL_CLI_FLAG(fsck_args, dry_run, 'n', "dry-run", "report the entries; commit nothing"),
	DL_CLI_STRING(fsck_args, user_metadata, 0, "user-metadata", "TEXT", NULL,
	              "commitInfo.userMetadata"),
	DL_CLI_END,
};

typedef struct fsck_list {
	dl_out *out;
	int rc;
} fsck_list;

static int on_file(const char *path, int64_t size, void *payload)
{
	fsck_list *f = payload;
	const char *row[2] = {path, size >= 0 ? "true" : "false"};
	f->rc = dl_out_row(f->out, row);
	return f->rc != 0;
}

static int fsck_run(dl_cli *cli, const void *args)
{
	const fsck_args *a = args;
	static const dl_out_column cols[] = {{"dataFilePath", DL_OUT_STRING},
	                                     {"dataFileMissing", DL_OUT_BOOL}};
	dl_out *out = NULL;
	int rc = dl_cli_out_begin(&out, cli, cols, 2);
	if (rc != 0) return rc;
	fsck_list l = {out, 0};
	dl_fsck_options o = DL_FSCK_OPTIONS_INIT;
	o.store_options = dl_cli_store_options(cli);
	o.user_metadata = a->user_metadata;
	o.dry_run = a->dry_run;
	o.on_file = on_file;
	o.on_file_payload = &l;
	dl_fsck_result r;
	rc = dl_fsck_repair(&r, a->table, &o);
	if (rc == 0 && l.rc) rc = l.rc;
	if (rc == 0) return dl_out_end(out);
	dl_out_free(out);
	return rc;
}

DL_CLI_COMMAND(fsck, .name = "fsck", .summary = "remove log entries whose files are missing",
               .description =
                   "FSCK REPAIR TABLE: removes from the log, in one FSCK commit, every file whose\n"
                   "data file or deletion vector file is missing from storage, and lists them.\n"
                   "With --dry-run only lists them.",
               .examples = "  deltalake fsck /data/events --dry-run\n  deltalake fsck /data/events",
               .opts = fsck_opts, .args_size = sizeof(fsck_args), .run = fsck_run);
