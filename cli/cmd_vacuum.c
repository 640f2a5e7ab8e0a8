/* `deltalake vacuum`: VACUUM TABLE [RETAIN n HOURS] [DRY RUN] [LITE]
 * through dl_vacuum. A dry run prints the files that would be deleted
 * (column path, as Spark's DRY RUN); a real run prints Spark's VACUUM
 * metrics (numFilesToDelete, sizeOfDataToDelete, numDeletedFiles,
 * numVacuumedDirectories) in the global --format. */
#include <errno.h>
#include <stdlib.h>
#include "progress.h"
#include "table_cli.h"

typedef struct vacuum_args {
	const char *table;
	const char *retain;
	bool dry_run;
	bool lite;
	bool no_retention_check;
	const char *user_metadata;
	int64_t threads;
} vacuum_args;

static const dl_cli_opt vacuum_opts[] = {
	DL_CLI_ARG(vacuum_args, table, "TABLE", "path of the table"),
	DL_CLI_STRING(vacuum_args, retain, 'r', "retain", "HOURS", NULL,
	              "keep files removed less than HOURS ago (default: the table's "
	              "delta.deletedFileRetentionDuration, 168 hours)"),
	DL_CLI_FLAG(vacuum_args, dry_run, 'n', "dry-run", "list the files that would be deleted; delete nothing"),
	DL_CLI_FLAG(vacuum_args, lite, 0, "lite",
	            "VACUUM LITE: take the candidates from the log instead of listing the table"),
	DL_CLI_FLAG(vacuum_args, no_retention_check, 0, "no-retention-check",
	            "allow a retention shorter than the table's (Spark's "
	            "retentionDurationCheck.enabled=false)"),
	DL_CLI_STRING(vacuum_args, user_metadata, 0, "user-metadata", "TEXT", NULL,
	              "commitInfo.userMetadata of the VACUUM START/END commits"),
	DL_CLI_INT(vacuum_args, threads, 0, "threads", "N", "0", "parallel deletes (default 16)"),
	DL_CLI_END,
};

typedef struct dry_list {
	dl_out *out;
	const char *root;
	int rc;
} dry_list;

static int on_file(const char *path, int64_t size, void *payload)
{
	(void)size;
	dry_list *d = payload;
	size_t n = strlen(d->root) + strlen(path) + 2;
	char *full = malloc(n);
	if (!full) return 1;
	if (path[0] == '/' || strstr(path, "://")) snprintf(full, n, "%s", path);
	else snprintf(full, n, "%s/%s", d->root, path);
	const char *row[1] = {full};
	d->rc = dl_out_row(d->out, row);
	free(full);
	return d->rc != 0;
}

static int show_progress(const dl_progress_info *p, void *payload)
{
	return dl_progress_callback(p->done, p->total, payload);
}

static int vacuum_run(dl_cli *cli, const void *args)
{
	const vacuum_args *a = args;
	dl_vacuum_options o = DL_VACUUM_OPTIONS_INIT;
	o.store_options = dl_cli_store_options(cli);
	o.user_metadata = a->user_metadata;
	o.dry_run = a->dry_run;
	o.lite = a->lite;
	o.no_retention_check = a->no_retention_check;
	o.threads = (int)a->threads;
	if (a->retain) {
		char *end;
		errno = 0;
		double h = strtod(a->retain, &end);
		if (errno || end == a->retain || *end || h < 0)
			return dl_cli_usage_error(cli, "--retain '%s' is not a number of hours >= 0", a->retain);
		o.retain_hours = h;
	}
	dl_out *out = NULL;
	dry_list d = {NULL, a->table, 0};
	int rc = 0;
	if (a->dry_run) {
		static const dl_out_column cols[] = {{"path", DL_OUT_STRING}};
		rc = dl_cli_out_begin(&out, cli, cols, 1);
		if (rc != 0) return rc;
		d.out = out;
		o.on_file = on_file;
		o.on_file_payload = &d;
	}
	dl_progress bar;
	dl_progress_begin(&bar, cli->err, cli->quiet || a->dry_run, "vacuum", 0);
	o.progress = show_progress;
	o.progress_payload = &bar;
	dl_vacuum_result r;
	rc = dl_vacuum(&r, a->table, &o);
	dl_progress_end(&bar);
	if (a->dry_run) {
		if (rc == 0 && d.rc) rc = d.rc;
		if (rc == 0) return dl_out_end(out);
		dl_out_free(out);
		return rc;
	}
	if (rc != 0) return rc;
	static const dl_out_column cols[] = {
		{"numFilesToDelete", DL_OUT_NUMBER}, {"sizeOfDataToDelete", DL_OUT_NUMBER},
		{"numDeletedFiles", DL_OUT_NUMBER}, {"numVacuumedDirectories", DL_OUT_NUMBER}};
	char v[4][32];
	snprintf(v[0], 32, "%" PRId64, r.numFilesToDelete);
	snprintf(v[1], 32, "%" PRId64, r.sizeOfDataToDelete);
	snprintf(v[2], 32, "%" PRId64, r.numDeletedFiles);
	snprintf(v[3], 32, "%" PRId64, r.numVacuumedDirectories);
	const char *row[4] = {v[0], v[1], v[2], v[3]};
	rc = dl_cli_out_begin(&out, cli, cols, 4);
	if (rc == 0) rc = dl_out_row(out, row);
	if (rc == 0) rc = dl_out_end(out);
	else dl_out_free(out);
	return rc;
}

DL_CLI_COMMAND(vacuum, .name = "vacuum", .summary = "delete files the table no longer references",
               .description =
                   "VACUUM with Spark's rules: deletes the files under the table that no version\n"
                   "inside the retention window references (data, deletion vector and\n"
                   "_change_data files, leftovers of failed writes) and the empty directories;\n"
                   "never _delta_log or other hidden paths outside partition directories. The\n"
                   "retention defaults to delta.deletedFileRetentionDuration (168 hours); a\n"
                   "shorter one fails with DELTA_VACUUM_RETENTION_PERIOD_TOO_SHORT unless\n"
                   "--no-retention-check. Time travel to versions older than the window fails\n"
                   "afterwards. Recorded as VACUUM START and VACUUM END commits.",
               .examples = "  deltalake vacuum /data/events --dry-run\n"
                           "  deltalake vacuum /data/events --retain 24 --no-retention-check\n"
                           "  deltalake vacuum /data/events --lite",
               .opts = vacuum_opts, .args_size = sizeof(vacuum_args), .run = vacuum_run);
