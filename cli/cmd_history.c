/* `deltalake history`: DESCRIBE HISTORY, newest commit first. */
#include "table_cli.h"

typedef struct history_args {
	const char *table;
	int64_t limit;
} history_args;

static const dl_cli_opt history_opts[] = {
	DL_CLI_ARG(history_args, table, "TABLE", "path of the table"),
	DL_CLI_INT(history_args, limit, 'n', "limit", "N", "-1", "show the N newest commits"),
	DL_CLI_END,
};

static int history_rows(dl_out *o, const dl_history *h)
{
	for (size_t i = 0; i < dl_history_count(h); i++) {
		const dl_history_entry *e = dl_history_at(h, i);
		char version[32], ts[DL_TIME_TEXT_MAX], rv[32];
		snprintf(version, sizeof version, "%" PRId64, e->version);
		dl_cli_format_ms(ts, e->timestamp_ms);
		snprintf(rv, sizeof rv, "%" PRId64, e->read_version);
		const char *row[15] = {version, ts, e->user_id, e->user_name, e->operation, e->operation_parameters,
		                       e->job, e->notebook, e->cluster_id, e->read_version != INT64_MIN ? rv : NULL,
		                       e->isolation_level,
		                       e->is_blind_append < 0 ? NULL : e->is_blind_append ? "true" : "false",
		                       e->operation_metrics, e->user_metadata, e->engine_info};
		DL_CLI_TRY(dl_out_row(o, row));
	}
	return 0;
}

static int history_run(dl_cli *cli, const void *args)
{
	const history_args *a = args;
	if (a->limit < -1) return dl_cli_usage_error(cli, "--limit must be >= 0");
	dl_snapshot *snap;
	int rc = dl_cli_open_snapshot_ex(cli, &snap, a->table, -1, NULL, true);
	if (rc != 0) return rc;
	dl_history *h = NULL;
	rc = dl_history_open(&h, snap, a->limit);
	static const dl_out_column cols[] = {
		{"version", DL_OUT_NUMBER}, {"timestamp", DL_OUT_STRING}, {"userId", DL_OUT_STRING},
		{"userName", DL_OUT_STRING}, {"operation", DL_OUT_STRING}, {"operationParameters", DL_OUT_JSON_TEXT},
		{"job", DL_OUT_JSON_TEXT}, {"notebook", DL_OUT_JSON_TEXT}, {"clusterId", DL_OUT_STRING},
		{"readVersion", DL_OUT_NUMBER}, {"isolationLevel", DL_OUT_STRING}, {"isBlindAppend", DL_OUT_BOOL},
		{"operationMetrics", DL_OUT_JSON_TEXT}, {"userMetadata", DL_OUT_STRING}, {"engineInfo", DL_OUT_STRING}};
	dl_out *o = NULL;
	if (rc == 0) rc = dl_cli_out_begin(&o, cli, cols, 15);
	if (rc == 0) rc = history_rows(o, h);
	if (rc == 0) rc = dl_out_end(o);
	else dl_out_free(o);
	dl_history_free(h);
	dl_snapshot_free(snap);
	return rc;
}

DL_CLI_COMMAND(history, .name = "history", .summary = "show the commits of a table, newest first",
               .description = "The columns of DESCRIBE HISTORY, from each commit's commitInfo. The\n"
                              "timestamp is the one time travel uses (in-commit timestamp when enabled).",
               .examples = "  deltalake history /data/events -n 5\n  deltalake history /data/events --format jsonl",
               .opts = history_opts, .args_size = sizeof(history_args), .run = history_run);
