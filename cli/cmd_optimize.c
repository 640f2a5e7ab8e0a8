/* `deltalake optimize` and `deltalake reorg`: OPTIMIZE (bin-packing,
 * ZORDER BY, liquid clustering, FULL) and REORG TABLE ... APPLY (PURGE)
 * through dl_optimize / dl_reorg_purge, the metrics in the global --format
 * and a progress bar over the bins on a terminal. */
#include "table_cli.h"
#include "progress.h"

#include <deltalake/maintenance.h>

/* The bar follows the bins written; the library calls back on this thread. */
static int on_progress(const dl_progress_info *info, void *payload)
{
	dl_progress *p = payload;
	if (info->total > 0) p->total = info->total;
	if (info->done >= 0) dl_progress_update(p, info->done);
	return 0;
}

static int print_metrics(dl_cli *cli, const dl_optimize_metrics *m)
{
	static const dl_out_column cols[] = {
		{"version", DL_OUT_NUMBER},           {"numAddedFiles", DL_OUT_NUMBER},
		{"numRemovedFiles", DL_OUT_NUMBER},   {"numAddedBytes", DL_OUT_NUMBER},
		{"numRemovedBytes", DL_OUT_NUMBER},   {"minFileSize", DL_OUT_NUMBER},
		{"maxFileSize", DL_OUT_NUMBER},       {"partitionsOptimized", DL_OUT_NUMBER},
		{"numBatches", DL_OUT_NUMBER},        {"totalConsideredFiles", DL_OUT_NUMBER},
		{"totalFilesSkipped", DL_OUT_NUMBER}, {"numDeletionVectorsRemoved", DL_OUT_NUMBER},
	};
	int64_t v[] = {m->version,         m->numAddedFiles,       m->numRemovedFiles, m->numAddedBytes,
	               m->numRemovedBytes, m->minFileSize,         m->maxFileSize,     m->partitionsOptimized,
	               m->numBatches,      m->totalConsideredFiles, m->totalFilesSkipped,
	               m->numDeletionVectorsRemoved};
	enum { N = sizeof v / sizeof v[0] };
	char text[N][32];
	const char *row[N];
	for (int i = 0; i < N; i++) {
		snprintf(text[i], sizeof text[i], "%" PRId64, v[i]);
		row[i] = text[i];
	}
	dl_out *out = NULL;
	int rc = dl_cli_out_begin(&out, cli, cols, N);
	if (rc == 0) rc = dl_out_row(out, row);
	if (rc == 0) rc = dl_out_end(out);
	else dl_out_free(out);
	return rc;
}

typedef struct optimize_args {
	const char *table;
	const char *where;
	dl_cli_list zorder_by;
	bool full;
	int64_t max_file_size;
	const char *user_metadata;
	int64_t threads;
} optimize_args;

static const dl_cli_opt optimize_opts[] = {
	DL_CLI_ARG(optimize_args, table, "TABLE", "path of the table"),
	DL_CLI_STRING(optimize_args, where, 'w', "where", "PRED", NULL,
	              "only the partitions where PRED (Spark SQL over partition columns) is true"),
	DL_CLI_NAMES(optimize_args, zorder_by, 'z', "zorder-by", "COL,...",
	             "Z-order the rows by these columns (not on clustered tables)"),
	DL_CLI_FLAG(optimize_args, full, 0, "full", "on a clustered table, recluster every file (OPTIMIZE FULL)"),
	DL_CLI_INT(optimize_args, max_file_size, 0, "max-file-size", "BYTES", "0",
	           "target file size (spark.databricks.delta.optimize.maxFileSize); 0: the table's "
	           "delta.targetFileSize, else 1 GiB"),
	DL_CLI_STRING(optimize_args, user_metadata, 0, "user-metadata", "TEXT", NULL, "commitInfo.userMetadata"),
	DL_CLI_INT(optimize_args, threads, 0, "threads", "N", "0", "bins written at once; 0: one per core"),
	DL_CLI_END,
};

static int optimize_run(dl_cli *cli, const void *args)
{
	const optimize_args *a = args;
	if (a->max_file_size < 0) {
		fprintf(cli->err, "deltalake optimize: --max-file-size must not be negative\n");
		return DL_CLI_USAGE;
	}
	dl_optimize_options o = DL_OPTIMIZE_OPTIONS_INIT;
	o.where = a->where;
	o.zorder_by = a->zorder_by.items;
	o.nzorder_by = a->zorder_by.n;
	o.full = a->full;
	o.max_file_size = a->max_file_size;
	o.user_metadata = a->user_metadata;
	o.threads = (int)a->threads;
	dl_progress p;
	dl_progress_begin(&p, cli->err, cli->quiet, "optimizing (bins)", 0);
	o.progress = on_progress;
	o.progress_payload = &p;
	dl_optimize_metrics m;
	int rc = dl_optimize(&m, a->table, &o);
	dl_progress_end(&p);
	if (rc != 0) return rc;
	return print_metrics(cli, &m);
}

DL_CLI_COMMAND(optimize, .name = "optimize", .summary = "compact small files, Z-order or cluster a table",
               .description =
                   "OPTIMIZE TABLE [WHERE PRED] [ZORDER BY (COLS)] with Spark's rules: in each\n"
                   "partition the files below the minimum size (the max file size) and those\n"
                   "whose deletion vector removes more than 5% of their rows are packed into\n"
                   "bins of at most --max-file-size bytes and each bin is rewritten as one\n"
                   "file, deleted rows purged, row ids kept (dataChange=false: streaming\n"
                   "readers and concurrent appends are not disturbed). --zorder-by rewrites\n"
                   "whole partitions ordered along a Z-order curve of the columns' ranges; on\n"
                   "a clustered table (CLUSTER BY) the files not yet clustered are ordered\n"
                   "along a Hilbert curve of the clustering columns, every file with --full.\n"
                   "Nothing to do commits nothing (version -1).",
               .examples = "  deltalake optimize /data/events\n"
                           "  deltalake optimize /data/events --where \"date >= '2024-01-01'\"\n"
                           "  deltalake optimize /data/events --zorder-by user_id,ts --format json\n"
                           "  deltalake optimize /data/events --max-file-size 134217728",
               .opts = optimize_opts, .args_size = sizeof(optimize_args), .run = optimize_run);
