/* `deltalake files`: the data files a scan reads after pruning. */
#include "json/json.h"
#include "log/stats.h"
#include "table/scan.h"
#include "table_cli.h"

typedef struct files_args {
	const char *table;
	int64_t version;
	const char *timestamp;
	const char *where;
} files_args;

static const dl_cli_opt files_opts[] = {
	DL_CLI_ARG(files_args, table, "TABLE", "path of the table"),
	DL_CLI_INT(files_args, version, 0, "version", "N", "-1", "the files of version N"),
	DL_CLI_STRING(files_args, timestamp, 0, "timestamp", "TS", NULL, "the files current at TS"),
	DL_CLI_STRING(files_args, where, 'w', "where", "PRED", NULL,
	              "only files that may hold rows where the SQL predicate holds"),
	DL_CLI_END,
};

static int file_row(dl_out *o, const dl_scan *scan, dl_snapshot *snap, size_t i, dl_arena *arena, dl_buf *pv)
{
	dl_file_info fi;
	DL_TRY(dl_scan_file_at(&fi, scan, i));
	size_t si = dl_scan_file_snapshot_index(scan, i);
	dl_json_writer w;
	dl_buf_clear(pv);
	dl_jw_init(&w, pv);
	dl_jw_object_begin(&w);
	for (size_t j = 0; j < fi.npartition_values; j++) {
		const char *k, *v;
		DL_TRY(dl_snapshot_file_partition_value(&k, &v, snap, si, j));
		dl_jw_key(&w, k);
		if (v) dl_jw_string(&w, v);
		else dl_jw_null(&w);
	}
	dl_jw_object_end(&w);
	DL_TRY(dl_jw_finish(&w));
	char size[32], rows[32], deleted[32], mtime[DL_TIME_TEXT_MAX];
	snprintf(size, sizeof size, "%" PRId64, fi.size);
	dl_file_stats st;
	dl_arena_reset(arena);
	bool has_rows = fi.stats && dl_file_stats_parse(&st, arena, fi.stats, strlen(fi.stats)) == 0 &&
	                st.num_records >= 0;
	dl_error_clear();
	if (has_rows) snprintf(rows, sizeof rows, "%" PRId64, st.num_records - fi.deleted_rows);
	snprintf(deleted, sizeof deleted, "%" PRId64, fi.deleted_rows);
	dl_cli_format_ms(mtime, fi.modification_time);
	const char *row[6] = {fi.path, size, has_rows ? rows : NULL, deleted, pv->data, mtime};
	return dl_out_row(o, row);
}

static int files_run(dl_cli *cli, const void *args)
{
	const files_args *a = args;
	dl_snapshot *snap;
	int rc = dl_cli_open_snapshot(cli, &snap, a->table, a->version, a->timestamp);
	if (rc != 0) return rc;
	dl_scan_options so = DL_SCAN_OPTIONS_INIT;
	so.filter = a->where;
	dl_scan *scan = NULL;
	rc = dl_scan_open(&scan, snap, &so);
	static const dl_out_column cols[] = {{"path", DL_OUT_STRING}, {"size", DL_OUT_NUMBER},
	                                     {"rows", DL_OUT_NUMBER}, {"deleted_rows", DL_OUT_NUMBER},
	                                     {"partition_values", DL_OUT_JSON_TEXT},
	                                     {"modification_time", DL_OUT_STRING}};
	dl_out *o = NULL;
	if (rc == 0) rc = dl_cli_out_begin(&o, cli, cols, 6);
	dl_arena arena = DL_ARENA_INIT;
	dl_buf pv = DL_BUF_INIT;
	for (size_t i = 0; rc == 0 && i < dl_scan_file_count(scan); i++) rc = file_row(o, scan, snap, i, &arena, &pv);
	if (rc == 0) rc = dl_out_end(o);
	else dl_out_free(o);
	if (rc == 0 && a->where) {
		dl_scan_metrics m;
		dl_scan_get_metrics(&m, scan);
		dl_cli_note(cli, "%zu of %zu files (%zu pruned by partition values, %zu by statistics) in %.1f ms",
		            dl_scan_file_count(scan), m.files_total, m.files_pruned_partitions, m.files_pruned_stats,
		            (double)m.planning_us / 1000.0);
	}
	dl_buf_free(&pv);
	dl_arena_free(&arena);
	dl_scan_free(scan);
	dl_snapshot_free(snap);
	return rc;
}

DL_CLI_COMMAND(files, .name = "files", .summary = "list the data files a scan reads",
               .description = "The live data files of the version, after pruning by --where (partition\n"
                              "values and per-file statistics), with size, live rows (numRecords minus\n"
                              "deleted rows), deleted rows and partition values.",
               .examples = "  deltalake files /data/events\n  deltalake files /data/events --where \"id > 100\"",
               .opts = files_opts, .args_size = sizeof(files_args), .run = files_run);
