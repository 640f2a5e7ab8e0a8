/* `deltalake files`: the data files a scan reads after pruning, through
 * the public scan-file API (deltalake/scan.h), as another engine sees them. */
#include <stdlib.h>
#include "deltalake.h"
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

/* A JSON string literal of `s` into fp (RFC 8259 escapes). */
static void json_string(FILE *fp, const char *s)
{
	fputc('"', fp);
	for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
		if (*p == '"' || *p == '\\') fprintf(fp, "\\%c", *p);
		else if (*p == '\n') fputs("\\n", fp);
		else if (*p == '\t') fputs("\\t", fp);
		else if (*p < 0x20) fprintf(fp, "\\u%04x", *p);
		else fputc(*p, fp);
	}
	fputc('"', fp);
}

/* The partition values of file i as a JSON object keyed by logical column
 * names (null for null values), in a buffer the caller frees. */
static int partition_json(char **out, const dl_scan *scan, const dl_scan_file *f, size_t i)
{
	size_t len;
	FILE *fp = open_memstream(out, &len);
	if (!fp) return DL_ENOMEM;
	int rc = 0;
	fputc('{', fp);
	for (size_t j = 0; j < f->npartition_values && rc == 0; j++) {
		const char *k, *v;
		rc = dl_scan_file_partition_value(&k, &v, scan, i, j);
		if (rc < 0) break;
		if (j) fputc(',', fp);
		json_string(fp, k);
		fputc(':', fp);
		if (v) json_string(fp, v);
		else fputs("null", fp);
	}
	fputc('}', fp);
	if (fclose(fp) != 0 && rc == 0) rc = DL_ENOMEM;
	return rc;
}

static int file_row(dl_out *o, const dl_scan *scan, size_t i)
{
	dl_scan_file f;
	DL_CLI_TRY(dl_scan_file_get(&f, scan, i));
	char *pv = NULL;
	int rc = partition_json(&pv, scan, &f, i);
	if (rc < 0) {
		free(pv);
		return rc;
	}
	char size[32], rows[32], deleted[32], mtime[DL_TIME_TEXT_MAX];
	int64_t deleted_rows = f.has_deletion_vector ? f.deletion_vector.cardinality : 0;
	snprintf(size, sizeof size, "%" PRId64, f.size);
	if (f.num_records >= 0) snprintf(rows, sizeof rows, "%" PRId64, f.num_records - deleted_rows);
	snprintf(deleted, sizeof deleted, "%" PRId64, deleted_rows);
	dl_cli_format_ms(mtime, f.modification_time);
	const char *row[6] = {f.path, size, f.num_records >= 0 ? rows : NULL, deleted, pv, mtime};
	rc = dl_out_row(o, row);
	free(pv);
	return rc;
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
	for (size_t i = 0; rc == 0 && i < dl_scan_file_count(scan); i++) rc = file_row(o, scan, i);
	if (rc == 0) rc = dl_out_end(o);
	else dl_out_free(o);
	if (rc == 0 && a->where) {
		dl_scan_metrics m;
		dl_scan_get_metrics(&m, scan);
		dl_cli_note(cli, "%zu of %zu files (%zu pruned by partition values, %zu by statistics) in %.1f ms",
		            dl_scan_file_count(scan), m.files_total, m.files_pruned_partitions, m.files_pruned_stats,
		            (double)m.planning_us / 1000.0);
	}
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
