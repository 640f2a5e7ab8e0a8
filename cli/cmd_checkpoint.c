/* `deltalake checkpoint`: writes a checkpoint of a table version (classic,
 * multi-part when large, V2 with sidecars when the table's checkpoint
 * policy is v2) and points _last_checkpoint at it. */
#include "deltalake.h"
#include "progress.h"
#include "table_cli.h"

typedef struct checkpoint_args {
	const char *table;
	int64_t version;
	int64_t part_actions;
} checkpoint_args;

static const dl_cli_opt checkpoint_opts[] = {
	DL_CLI_ARG(checkpoint_args, table, "TABLE", "path of the table"),
	DL_CLI_INT(checkpoint_args, version, 0, "version", "N", "-1", "checkpoint version N (default: the latest)"),
	DL_CLI_INT(checkpoint_args, part_actions, 0, "part-size", "N", "-1",
	           "actions per part or sidecar before splitting (default 5000000)"),
	DL_CLI_END,
};

/* The library's progress (actions written) on the terminal's bar. */
static int show_progress(const dl_progress_info *p, void *payload)
{
	return dl_progress_callback(p->done, p->total, payload);
}

static int checkpoint_run(dl_cli *cli, const void *args)
{
	const checkpoint_args *a = args;
	if (a->part_actions == 0) return dl_cli_usage_error(cli, "--part-size must be positive, got 0");
	dl_snapshot *snap;
	int rc = dl_cli_open_snapshot(cli, &snap, a->table, a->version, NULL);
	if (rc != 0) return rc;
	dl_progress bar;
	dl_progress_begin(&bar, cli->err, cli->quiet, "writing checkpoint", 0);
	dl_checkpoint_options o = DL_CHECKPOINT_OPTIONS_INIT;
	o.part_actions = a->part_actions > 0 ? a->part_actions : 0; /* 0: the library's 5,000,000 */
	o.progress = show_progress;
	o.progress_payload = &bar;
	dl_checkpoint_result r;
	rc = dl_checkpoint(&r, snap, &o);
	dl_progress_end(&bar);
	dl_snapshot_free(snap);
	if (rc < 0) return rc;
	static const dl_out_column cols[] = {
		{"version", DL_OUT_NUMBER}, {"kind", DL_OUT_STRING}, {"files", DL_OUT_NUMBER},
		{"actions", DL_OUT_NUMBER}, {"numOfAddFiles", DL_OUT_NUMBER}, {"sizeInBytes", DL_OUT_NUMBER}};
	char v[32], files[16], actions[32], adds[32], size[32];
	snprintf(v, sizeof v, "%" PRId64, r.version);
	snprintf(files, sizeof files, "%d", r.v2 ? 1 + r.sidecars : r.parts);
	snprintf(actions, sizeof actions, "%" PRId64, r.actions);
	snprintf(adds, sizeof adds, "%" PRId64, r.add_files);
	snprintf(size, sizeof size, "%" PRId64, r.size_bytes);
	const char *kind = r.v2 ? "v2 (sidecars)" : r.parts > 1 ? "multi-part" : "classic";
	const char *row[6] = {v, kind, files, actions, adds, size};
	dl_out *out = NULL;
	rc = dl_cli_out_begin(&out, cli, cols, 6);
	if (rc == 0) rc = dl_out_row(out, row);
	if (rc == 0) rc = dl_out_end(out);
	else dl_out_free(out);
	return rc;
}

DL_CLI_COMMAND(checkpoint, .name = "checkpoint", .summary = "write a checkpoint of a table",
               .description = "Writes the state of a version (the latest by default) as a Parquet\n"
                              "checkpoint so readers need not replay the JSON commits, and updates\n"
                              "_delta_log/_last_checkpoint. Tables whose delta.checkpointPolicy is\n"
                              "v2 get a V2 checkpoint with sidecar files; very large states are\n"
                              "split into parts. Writers also checkpoint on their own every\n"
                              "delta.checkpointInterval commits (10 by default).",
               .examples = "  deltalake checkpoint /data/events\n"
                           "  deltalake checkpoint /data/events --version 120 --format json",
               .opts = checkpoint_opts, .args_size = sizeof(checkpoint_args), .run = checkpoint_run);
