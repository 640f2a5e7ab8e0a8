/* `deltalake cleanup-log`: deletes log files older than the table's
 * delta.logRetentionDuration that the newest usable checkpoint makes
 * unnecessary (PROTOCOL.md "Metadata Cleanup"). */
#include "deltalake.h"
#include "progress.h"
#include "table_cli.h"

typedef struct cleanup_args {
	const char *table;
	const char *retention;
} cleanup_args;

static const dl_cli_opt cleanup_opts[] = {
	DL_CLI_ARG(cleanup_args, table, "TABLE", "path of the table"),
	DL_CLI_STRING(cleanup_args, retention, 0, "retention", "INTERVAL", NULL,
	              "keep this much history instead of delta.logRetentionDuration ('interval 7 days')"),
	DL_CLI_END,
};

/* The library's progress (files deleted) on the terminal's bar. */
static int show_progress(const dl_progress_info *p, void *payload)
{
	return dl_progress_callback(p->done, p->total, payload);
}

static int cleanup_run(dl_cli *cli, const void *args)
{
	const cleanup_args *a = args;
	dl_snapshot_options so = DL_SNAPSHOT_OPTIONS_INIT;
	so.metadata_only = true;
	so.store_options = dl_cli_store_options(cli);
	dl_snapshot *snap;
	int rc = dl_snapshot_open(&snap, a->table, &so);
	if (rc < 0) return rc;
	dl_progress bar;
	dl_progress_begin(&bar, cli->err, cli->quiet, "deleting log files", 0);
	dl_log_cleanup_options o = DL_LOG_CLEANUP_OPTIONS_INIT;
	o.retention = a->retention;
	o.progress = show_progress;
	o.progress_payload = &bar;
	dl_log_cleanup_result r;
	rc = dl_log_cleanup(&r, snap, &o);
	dl_progress_end(&bar);
	dl_snapshot_free(snap);
	/* A retention the library cannot read is the user's typo: usage. */
	if (rc == DL_EINVALID && a->retention)
		return dl_cli_usage_error(cli, "--retention: %s", dl_error_last()->message);
	if (rc < 0) return rc;
	if (r.cutoff_checkpoint < 0)
		dl_cli_note(cli, "nothing to clean up: no checkpoint is older than the retention period");
	static const dl_out_column cols[] = {
		{"keptFromCheckpoint", DL_OUT_NUMBER}, {"deletedCommits", DL_OUT_NUMBER},
		{"deletedCheckpoints", DL_OUT_NUMBER}, {"deletedOther", DL_OUT_NUMBER},
		{"deletedSidecars", DL_OUT_NUMBER}};
	char k[32], c[32], p[32], other[32], sc[32];
	snprintf(k, sizeof k, "%" PRId64, r.cutoff_checkpoint);
	snprintf(c, sizeof c, "%" PRId64, r.deleted_commits);
	snprintf(p, sizeof p, "%" PRId64, r.deleted_checkpoints);
	snprintf(other, sizeof other, "%" PRId64, r.deleted_other);
	snprintf(sc, sizeof sc, "%" PRId64, r.deleted_sidecars);
	const char *row[5] = {r.cutoff_checkpoint >= 0 ? k : NULL, c, p, other, sc};
	dl_out *out = NULL;
	rc = dl_cli_out_begin(&out, cli, cols, 5);
	if (rc == 0) rc = dl_out_row(out, row);
	if (rc == 0) rc = dl_out_end(out);
	else dl_out_free(out);
	return rc;
}

DL_CLI_COMMAND(cleanup_log, .name = "cleanup-log", .summary = "delete expired log files of a table",
               .description = "Deletes commits, checkpoints and checksum files older than the\n"
                              "table's delta.logRetentionDuration (30 days by default), keeping the\n"
                              "newest checkpoint at or before that point and everything after it,\n"
                              "so every version from there on stays readable, and sidecar files no\n"
                              "remaining checkpoint references. Writers do this on\n"
                              "their own after each automatic checkpoint unless\n"
                              "delta.enableExpiredLogCleanup is false.",
               .examples = "  deltalake cleanup-log /data/events\n"
                           "  deltalake cleanup-log /data/events --retention 'interval 7 days'",
               .opts = cleanup_opts, .args_size = sizeof(cleanup_args), .run = cleanup_run);
