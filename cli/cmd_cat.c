/* `deltalake cat`: the rows of a table (any version), optionally projected
 * and filtered, as text, JSON, CSV, an Arrow IPC stream or one Parquet
 * file. */
#include <errno.h>
#include "deltalake/parquet.h"
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

/* What --where saved, as `deltalake files --where` says it for the files,
 * with what only reading tells: the row groups skipped inside the files by
 * their footer statistics or page index and by Parquet Bloom filters, and
 * the pages skipped by the page index (counted up to where a --limit
 * stopped the read). */
static void cat_note_pruning(dl_cli *cli, const dl_scan *scan)
{
	dl_scan_metrics m;
	dl_scan_get_metrics(&m, scan);
	dl_cli_note(cli,
	            "%zu of %zu files (%zu pruned by partition values, %zu by statistics); row groups "
	            "skipped: %lld by statistics, %lld by Bloom filters; %lld pages skipped (%lld bytes)",
	            dl_scan_file_count(scan), m.files_total, m.files_pruned_partitions, m.files_pruned_stats,
	            (long long)m.row_groups_pruned_stats, (long long)m.row_groups_pruned_bloom,
	            (long long)m.pages_skipped, (long long)m.page_bytes_skipped);
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
	struct ArrowArrayStream st = {0};
	rc = dl_scan_open(&scan, snap, &so);
	if (rc == 0) rc = dl_scan_to_arrow(&st, scan);
	if (rc == 0 && binary) {
		/* The limit cuts the stream itself, so Arrow and Parquet get only
		 * those rows and the scan stops decoding once they are out. */
		struct ArrowArrayStream limited;
		rc = dl_arrow_stream_limit(&limited, &st, a->limit);
		if (rc == 0 && !strcmp(a->format, "arrow")) {
			rc = dl_arrow_ipc_write_stream(cli->out, &limited);
		} else if (rc == 0) {
			dl_parquet_write_options po = DL_PARQUET_WRITE_OPTIONS_INIT;
			po.threads = 1;
			rc = dl_parquet_write_stream(cli->out, &limited, &po);
		}
	} else if (rc == 0) {
		rc = dl_out_arrow_stream(cli->out, fmt, &st, a->limit);
	}
	dl_arrow_stream_release(&st);
	if (rc == 0 && fflush(cli->out) != 0) rc = dl_cli_fail(DL_EIO, "writing the output failed: %s", strerror(errno));
	if (rc == 0 && a->where) cat_note_pruning(cli, scan);
	dl_scan_free(scan);
	dl_snapshot_free(snap);
	return rc;
}

DL_CLI_COMMAND(cat, .name = "cat", .summary = "print the rows of a table",
               .description = "Reads the table at its latest version (or --version/--timestamp) and\n"
                              "prints the rows. --where prunes files and row groups by statistics\n"
                              "(and row groups by Parquet Bloom filters) and keeps exactly the\n"
                              "matching rows; a note on stderr counts what it skipped (-q: none).\n"
                              "--columns takes logical names and _metadata.row_id /\n"
                              "_metadata.row_commit_version on tables with row tracking.\n"
                              "--format parquet writes one Parquet file (use -o).",
               .examples = "  deltalake cat /data/events --limit 10\n"
                           "  deltalake cat /data/events --where \"country = 'FR'\" --columns id,country\n"
                           "  deltalake cat /data/events --version 3 --format csv\n"
                           "  deltalake cat /data/events --format parquet -o events.parquet",
               .opts = cat_opts, .args_size = sizeof(cat_args), .run = cat_run);
