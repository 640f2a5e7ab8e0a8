/* `deltalake reorg TABLE --purge`: REORG TABLE ... APPLY (PURGE) through
 * dl_reorg_purge, metrics as OPTIMIZE's in the global --format. */
#include "table_cli.h"
#include "progress.h"

#include <deltalake/maintenance.h>

static int on_progress(const dl_progress_info *info, void *payload)
{
	dl_progress *p = payload;
	if (info->total > 0) p->total = info->total;
	if (info->done >= 0) dl_progress_update(p, info->done);
	return 0;
}

typedef struct reorg_args {
	const char *table;
	const char *where;
	bool purge;
	const char *user_metadata;
} reorg_args;

static const dl_cli_opt reorg_opts[] = {
	DL_CLI_ARG(reorg_args, table, "TABLE", "path of the table"),
	DL_CLI_STRING(reorg_args, where, 'w', "where", "PRED", NULL,
	              "only the partitions where PRED (Spark SQL over partition columns) is true"),
	DL_CLI_FLAG(reorg_args, purge, 0, "purge", "APPLY (PURGE): rewrite the files with deletion vectors (required)"),
	DL_CLI_STRING(reorg_args, user_metadata, 0, "user-metadata", "TEXT", NULL, "commitInfo.userMetadata"),
	DL_CLI_END,
};

static int reorg_run(dl_cli *cli, const void *args)
{
	const reorg_args *a = args;
	if (!a->purge) {
		fprintf(cli->err, "deltalake reorg: --purge is required (REORG TABLE ... APPLY (PURGE) is the "
		                  "supported form)\n");
		return DL_CLI_USAGE;
	}
	dl_reorg_options o = DL_REORG_OPTIONS_INIT;
	o.where = a->where;
	o.user_metadata = a->user_metadata;
	dl_progress p;
	dl_progress_begin(&p, cli->err, cli->quiet, "purging (bins)", 0);
	o.progress = on_progress;
	o.progress_payload = &p;
	dl_optimize_metrics m;
	int rc = dl_reorg_purge(&m, a->table, &o);
	dl_progress_end(&p);
	if (rc != 0) return rc;
	static const dl_out_column cols[] = {
		{"version", DL_OUT_NUMBER},         {"numAddedFiles", DL_OUT_NUMBER},
		{"numRemovedFiles", DL_OUT_NUMBER}, {"numAddedBytes", DL_OUT_NUMBER},
		{"numRemovedBytes", DL_OUT_NUMBER}, {"numDeletionVectorsRemoved", DL_OUT_NUMBER},
	};
	int64_t v[] = {m.version, m.numAddedFiles, m.numRemovedFiles, m.numAddedBytes, m.numRemovedBytes,
	               m.numDeletionVectorsRemoved};
	char text[6][32];
	const char *row[6];
	for (int i = 0; i < 6; i++) {
		snprintf(text[i], sizeof text[i], "%" PRId64, v[i]);
		row[i] = text[i];
	}
	dl_out *out = NULL;
	rc = dl_cli_out_begin(&out, cli, cols, 6);
	if (rc == 0) rc = dl_out_row(out, row);
	if (rc == 0) rc = dl_out_end(out);
	else dl_out_free(out);
	return rc;
}

DL_CLI_COMMAND(reorg, .name = "reorg", .summary = "purge deleted rows from storage (REORG ... APPLY (PURGE))",
               .description =
                   "REORG TABLE TABLE [WHERE PRED] APPLY (PURGE): every file with a deletion\n"
                   "vector is rewritten without its deleted rows (small ones packed together\n"
                   "as OPTIMIZE does), so that the rows are gone from the data files; commits\n"
                   "as Spark's REORG with OPTIMIZE's metrics (version -1: no deletion vector).",
               .examples = "  deltalake reorg /data/events --purge\n"
                           "  deltalake reorg /data/events --purge --where \"date = '2024-01-01'\"",
               .opts = reorg_opts, .args_size = sizeof(reorg_args), .run = reorg_run);
