/* `deltalake cat`: the rows of a table (any version), optionally projected
 * and filtered, as text, JSON, CSV, an Arrow IPC stream or one Parquet
 * file. */
#include <errno.h>
#include "columnar/ipc_writer.h"
#include "parquet/writer.h"
#include "table/scan.h"
#include "table_cli.h"

typedef struct cat_args {
	const char *table;
	int64_t version;
	const char *timestamp;
	dl_cli_list columns;
	const char *where;
	int64_t limit;
	const char *format;
} cat_args;

static const dl_cli_opt cat_opts[] = {
	DL_CLI_ARG(cat_args, table, "TABLE", "path of the table"),
	DL_CLI_INT(cat_args, version, 0, "version", "N", "-1", "read version N (time travel)"),
	DL_CLI_STRING(cat_args, timestamp, 0, "timestamp", "TS", NULL,
	              "read the version current at TS ('2024-01-31 12:00:00', UTC unless a zone is given)"),
	DL_CLI_NAMES(cat_args, columns, 'c', "columns", "A,B", "only these columns, in this order"),
	DL_CLI_STRING(cat_args, where, 'w', "where", "PRED", NULL, "only rows where the SQL predicate holds"),
	DL_CLI_INT(cat_args, limit, 'n', "limit", "N", "-1", "print at most N rows"),
	DL_CLI_STRING(cat_args, format, 0, "format", "FMT", NULL,
	              "table (default), csv, jsonl, json, vertical, arrow (IPC stream) or parquet"),
	DL_CLI_END,
};

typedef struct cat_sink {
	dl_out *o;
	dl_ipc_writer *ipc;
	pq_writer *pq;
	pq_sink pq_sink;
} cat_sink;

static int sink_open(cat_sink *k, dl_cli *cli, const char *format, dl_out_format fmt, dl_type *schema)
{
	if (format && !strcmp(format, "arrow")) return dl_ipc_writer_new_file(&k->ipc, schema, cli->out);
	if (format && !strcmp(format, "parquet")) {
		pq_sink_init_file(&k->pq_sink, cli->out);
		pq_writer_options po = PQ_WRITER_OPTIONS_INIT;
		return pq_writer_open(&k->pq, schema, &k->pq_sink, &po);
	}
	return dl_out_begin_schema(&k->o, cli->out, fmt, schema);
}

static int sink_write(cat_sink *k, const dl_batch *b)
{
	if (k->ipc) return dl_ipc_writer_write(k->ipc, b);
	if (k->pq) return pq_writer_write(k->pq, b);
	return dl_out_batch(k->o, b);
}

static int sink_close(cat_sink *k, int rc)
{
	if (k->o) {
		if (rc == 0) rc = dl_out_end(k->o);
		else dl_out_free(k->o);
	}
	if (k->ipc) {
		if (rc == 0) rc = dl_ipc_writer_finish(k->ipc);
		dl_ipc_writer_free(k->ipc);
	}
	if (k->pq) {
		if (rc == 0) rc = pq_writer_close(k->pq);
		pq_writer_free(k->pq);
	}
	return rc;
}

static int cat_stream(cat_sink *k, dl_batch_stream *bs, int64_t left)
{
	while (left != 0) {
		dl_batch *b;
		DL_TRY(dl_batch_stream_next(bs, &b));
		if (!b) return 0;
		int rc = 0;
		if (left >= 0 && left < b->num_rows) {
			dl_batch *h = dl_batch_slice(b, 0, left);
			rc = h ? sink_write(k, h) : DL_ENOMEM;
			dl_batch_free(h);
			left = 0;
		} else {
			rc = sink_write(k, b);
			if (left > 0) left -= b->num_rows;
		}
		dl_batch_free(b);
		if (rc < 0) return rc;
	}
	return 0;
}

static int cat_run(dl_cli *cli, const void *args)
{
	const cat_args *a = args;
	dl_out_format fmt = cli->format;
	bool binary = a->format && (!strcmp(a->format, "arrow") || !strcmp(a->format, "parquet"));
	if (a->format && !binary && dl_out_format_parse(&fmt, a->format) < 0)
		return dl_cli_usage_error(cli, "--format must be table, csv, jsonl, json, vertical, arrow or parquet, not '%s'",
		                          a->format);
	if (a->limit < -1) return dl_cli_usage_error(cli, "--limit must be >= 0");
	dl_snapshot *snap;
	int rc = dl_cli_open_snapshot(cli, &snap, a->table, a->version, a->timestamp);
	if (rc != 0) return rc;
	dl_scan_options so = DL_SCAN_OPTIONS_INIT;
	so.columns = a->columns.n ? a->columns.items : NULL;
	so.ncolumns = a->columns.n;
	so.filter = a->where;
	dl_scan *scan = NULL;
	dl_batch_stream *bs = NULL;
	cat_sink k = {0};
	rc = dl_scan_open(&scan, snap, &so);
	if (rc == 0) rc = dl_scan_batches(&bs, scan);
	if (rc == 0) rc = sink_open(&k, cli, a->format, fmt, (dl_type *)dl_batch_stream_schema(bs));
	if (rc == 0) rc = cat_stream(&k, bs, a->limit);
	rc = sink_close(&k, rc);
	if (rc == 0 && fflush(cli->out) != 0) rc = dl_error_set(DL_EIO, "writing the output failed: %s", strerror(errno));
	dl_batch_stream_free(bs);
	dl_scan_free(scan);
	dl_snapshot_free(snap);
	return rc;
}

DL_CLI_COMMAND(cat, .name = "cat", .summary = "print the rows of a table",
               .description = "Reads the table at its latest version (or --version/--timestamp) and\n"
                              "prints the rows. --where prunes files and row groups by statistics\n"
                              "and keeps exactly the matching rows; --columns takes logical names\n"
                              "and _metadata.row_id / _metadata.row_commit_version on tables with\n"
                              "row tracking. --format parquet writes one Parquet file (use -o).",
               .examples = "  deltalake cat /data/events --limit 10\n"
                           "  deltalake cat /data/events --where \"country = 'FR'\" --columns id,country\n"
                           "  deltalake cat /data/events --version 3 --format csv\n"
                           "  deltalake cat /data/events --format parquet -o events.parquet",
               .opts = cat_opts, .args_size = sizeof(cat_args), .run = cat_run);
