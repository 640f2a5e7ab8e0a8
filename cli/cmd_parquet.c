/* `deltalake parquet ...`: inspect and rewrite Parquet files.
 *   schema FILE     the Parquet schema (message tree, or rows with --format)
 *   meta FILE       row groups and column chunks: encodings, codecs, sizes, stats
 *   cat FILE        the rows (table, csv, jsonl, json, or an Arrow IPC stream)
 *   rewrite IN OUT  the same rows and types re-encoded by our writer
 * All of it is the public Parquet API (deltalake/parquet.h). */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "cli.h"
#include "deltalake.h"
#include "deltalake/parquet.h"
#include "util.h"

DL_CLI_GROUP(parquet, "parquet", "inspect, print and rewrite Parquet files");

/* ---- parquet schema --------------------------------------------------- */

typedef struct schema_args {
	const char *file;
} schema_args;

static const dl_cli_opt schema_opts[] = {
	DL_CLI_ARG(schema_args, file, "FILE", "the Parquet file"),
	DL_CLI_END,
};

static int schema_rows(dl_cli *cli, dl_parquet_file *f)
{
	static const dl_out_column cols[] = {{"column", DL_OUT_STRING}, {"repetition", DL_OUT_STRING},
	                                     {"physical", DL_OUT_STRING}, {"logical", DL_OUT_STRING},
	                                     {"converted", DL_OUT_STRING}, {"field_id", DL_OUT_NUMBER}};
	size_t n;
	DL_CLI_TRY(dl_parquet_schema_node_count(&n, f));
	dl_out *o;
	DL_CLI_TRY(dl_cli_out_begin(&o, cli, cols, 6));
	int rc = 0;
	for (size_t i = 0; rc == 0 && i < n; i++) {
		dl_parquet_schema_node nd;
		rc = dl_parquet_schema_node_at(&nd, f, i);
		char fid[24];
		if (nd.has_field_id) snprintf(fid, sizeof fid, "%" PRId32, nd.field_id);
		const char *row[6] = {nd.path, nd.repetition, nd.physical, nd.logical, nd.converted,
		                      nd.has_field_id ? fid : NULL};
		if (rc == 0) rc = dl_out_row(o, row);
	}
	if (rc == 0) return dl_out_end(o);
	dl_out_free(o);
	return rc;
}

static int schema_run(dl_cli *cli, const void *args)
{
	const schema_args *a = args;
	dl_parquet_file *f;
	DL_CLI_TRY(dl_parquet_open(&f, a->file));
	int rc;
	if (!cli->format_set) {
		const char *text;
		rc = dl_parquet_schema_text(&text, f);
		if (rc == 0) fputs(text, cli->out);
	} else {
		rc = schema_rows(cli, f);
	}
	dl_parquet_free(f);
	return rc;
}

DL_CLI_COMMAND(parquet_schema, .name = "parquet schema", .summary = "show the schema of a Parquet file",
               .description = "Prints the schema as a Parquet message (repetition, physical type,\n"
                              "logical or converted type, = field id). With --format, one row per\n"
                              "schema node with its dotted path.",
               .examples = "  deltalake parquet schema part-0.parquet\n"
                           "  deltalake parquet schema part-0.parquet --format csv",
               .opts = schema_opts, .args_size = sizeof(schema_args), .run = schema_run);

/* ---- parquet meta ----------------------------------------------------- */

typedef struct meta_args {
	const char *file;
} meta_args;

static const dl_cli_opt meta_opts[] = {
	DL_CLI_ARG(meta_args, file, "FILE", "the Parquet file"),
	DL_CLI_END,
};

static int meta_chunk_row(dl_out *o, int rg, const dl_parquet_column_chunk *c)
{
	char srg[16], vals[24], comp[24], unc[24], nulls[24];
	snprintf(srg, sizeof srg, "%d", rg);
	snprintf(vals, sizeof vals, "%" PRId64, c->num_values);
	snprintf(comp, sizeof comp, "%" PRId64, c->compressed_size);
	snprintf(unc, sizeof unc, "%" PRId64, c->uncompressed_size);
	if (c->null_count >= 0) snprintf(nulls, sizeof nulls, "%" PRId64, c->null_count);
	const char *row[12] = {srg, c->path, c->physical_type, c->logical_type, c->codec, c->encodings, vals,
	                       c->null_count >= 0 ? nulls : NULL, comp, unc, c->min, c->max};
	return dl_out_row(o, row);
}

static int meta_summary(dl_cli *cli, const char *file, const dl_parquet_file *f)
{
	dl_parquet_file_info info;
	dl_parquet_file_info_get(&info, f);
	dl_out *o;
	DL_CLI_TRY(dl_cli_out_begin(&o, cli, dl_out_kv_columns, 2));
	char rows[24], rgs[24], ver[16];
	snprintf(rows, sizeof rows, "%" PRId64, info.num_rows);
	snprintf(rgs, sizeof rgs, "%d", info.num_row_groups);
	snprintf(ver, sizeof ver, "%d", info.version);
	int rc = dl_out_kv(o, "file", file);
	if (rc == 0) rc = dl_out_kv(o, "rows", rows);
	if (rc == 0) rc = dl_out_kv(o, "row_groups", rgs);
	if (rc == 0) rc = dl_out_kv(o, "version", ver);
	if (rc == 0) rc = dl_out_kv(o, "created_by", info.created_by);
	for (size_t i = 0; rc == 0 && i < info.nkey_values; i++) {
		const char *k, *v;
		dl_parquet_key_value_at(&k, &v, f, i);
		char key[256];
		snprintf(key, sizeof key, "kv:%s", k);
		/* Long values (Spark's schema JSON) are cut for the table. */
		char cut[200];
		if (v && strlen(v) > 160) {
			snprintf(cut, sizeof cut, "%.157s...", v);
			v = cut;
		}
		rc = dl_out_kv(o, key, v);
	}
	if (rc < 0) {
		dl_out_free(o);
		return rc;
	}
	DL_CLI_TRY(dl_out_end(o));
	fputc('\n', cli->out);
	return 0;
}

static int meta_run(dl_cli *cli, const void *args)
{
	const meta_args *a = args;
	dl_parquet_file *f;
	DL_CLI_TRY(dl_parquet_open(&f, a->file));
	dl_out *o = NULL;
	int rc = cli->format == DL_OUT_TABLE ? meta_summary(cli, a->file, f) : 0;
	int ncols = 0;
	if (rc == 0) rc = dl_parquet_column_count(&ncols, f);
	static const dl_out_column cols[] = {
		{"row_group", DL_OUT_NUMBER}, {"column", DL_OUT_STRING}, {"physical", DL_OUT_STRING},
		{"logical", DL_OUT_STRING}, {"codec", DL_OUT_STRING}, {"encodings", DL_OUT_STRING},
		{"values", DL_OUT_NUMBER}, {"nulls", DL_OUT_NUMBER}, {"compressed", DL_OUT_NUMBER},
		{"uncompressed", DL_OUT_NUMBER}, {"min", DL_OUT_STRING}, {"max", DL_OUT_STRING}};
	if (rc == 0) rc = dl_cli_out_begin(&o, cli, cols, 12);
	dl_parquet_file_info info;
	dl_parquet_file_info_get(&info, f);
	for (int g = 0; rc == 0 && g < info.num_row_groups; g++) {
		for (int c = 0; rc == 0 && c < ncols; c++) {
			dl_parquet_column_chunk ch;
			rc = dl_parquet_column_chunk_at(&ch, f, g, c);
			if (rc == 0) rc = meta_chunk_row(o, g, &ch);
		}
	}
	if (o) {
		if (rc == 0) rc = dl_out_end(o);
		else dl_out_free(o);
	}
	dl_parquet_free(f);
	return rc;
}

DL_CLI_COMMAND(parquet_meta, .name = "parquet meta",
               .summary = "show the row groups and column chunks of a Parquet file",
               .description = "For each row group and leaf column: physical and logical type, codec,\n"
                              "encodings, value and null counts, compressed and uncompressed bytes and\n"
                              "the min/max statistics. The table format starts with a file summary\n"
                              "(rows, row groups, created_by, key/value metadata).",
               .examples = "  deltalake parquet meta part-0.parquet\n"
                           "  deltalake parquet meta part-0.parquet --format jsonl",
               .opts = meta_opts, .args_size = sizeof(meta_args), .run = meta_run);

/* ---- parquet cat ------------------------------------------------------ */

typedef struct cat_args {
	const char *file;
	dl_cli_list columns;
	int64_t limit;
	const char *format;
} cat_args;

static const dl_cli_opt cat_opts[] = {
	DL_CLI_ARG(cat_args, file, "FILE", "the Parquet file"),
	DL_CLI_NAMES(cat_args, columns, 'c', "columns", "A,B", "only these top-level columns, in this order"),
	DL_CLI_INT(cat_args, limit, 'n', "limit", "N", "-1", "print at most N rows"),
	DL_CLI_STRING(cat_args, format, 0, "format", "FMT", NULL, "table (default), csv, jsonl, json or arrow"),
	DL_CLI_END,
};

static int cat_run(dl_cli *cli, const void *args)
{
	const cat_args *a = args;
	dl_out_format fmt = cli->format;
	bool arrow = a->format && !strcmp(a->format, "arrow");
	if (a->format && !arrow && dl_out_format_parse(&fmt, a->format) < 0)
		return dl_cli_usage_error(cli, "--format must be table, csv, jsonl, json or arrow, not '%s'", a->format);
	if (a->limit < -1) return dl_cli_usage_error(cli, "--limit must be >= 0");
	dl_parquet_file *f;
	DL_CLI_TRY(dl_parquet_open(&f, a->file));
	dl_parquet_read_options ro = DL_PARQUET_READ_OPTIONS_INIT;
	ro.columns = a->columns.items;
	ro.ncolumns = a->columns.n;
	struct ArrowArrayStream st;
	int rc = dl_parquet_read(&st, f, &ro);
	if (rc == 0 && arrow) {
		struct ArrowArrayStream limited;
		rc = dl_arrow_stream_limit(&limited, &st, a->limit);
		if (rc == 0) rc = dl_arrow_ipc_write_stream(cli->out, &limited);
	} else if (rc == 0) {
		rc = dl_out_arrow_stream(cli->out, fmt, &st, a->limit);
	}
	if (rc == 0 && fflush(cli->out) != 0) rc = dl_cli_fail(DL_EIO, "writing the output failed: %s", strerror(errno));
	dl_parquet_free(f);
	return rc;
}

DL_CLI_COMMAND(parquet_cat, .name = "parquet cat", .summary = "print the rows of a Parquet file",
               .description = "Streams the rows batch by batch. --format arrow writes an Arrow IPC\n"
                              "stream (pyarrow.ipc.open_stream, DuckDB, arrow-js read it).",
               .examples = "  deltalake parquet cat part-0.parquet --limit 10\n"
                           "  deltalake parquet cat part-0.parquet --columns id,name --format csv\n"
                           "  deltalake parquet cat part-0.parquet --format arrow > rows.arrows",
               .opts = cat_opts, .args_size = sizeof(cat_args), .run = cat_run);

/* ---- parquet rewrite -------------------------------------------------- */

typedef struct rewrite_args {
	const char *in;
	const char *out;
	const char *compression;
	int64_t level;
	int64_t row_group_rows;
	int64_t threads;
} rewrite_args;

static const dl_cli_opt rewrite_opts[] = {
	DL_CLI_ARG(rewrite_args, in, "IN", "the Parquet file to read"),
	DL_CLI_ARG(rewrite_args, out, "OUT", "the Parquet file to write (replaced atomically)"),
	DL_CLI_STRING(rewrite_args, compression, 0, "compression", "CODEC", "zstd",
	              "zstd, snappy, gzip, lz4_raw, brotli or none"),
	DL_CLI_INT(rewrite_args, level, 0, "level", "N", "0", "compression level (0: the codec's default)"),
	DL_CLI_INT(rewrite_args, row_group_rows, 0, "row-group-rows", "N", "0",
	           "rows per row group (0: by size, 128 MiB uncompressed)"),
	DL_CLI_INT(rewrite_args, threads, 't', "threads", "N", "0",
	           "threads encoding columns (0: DL_THREADS or the CPU count)"),
	DL_CLI_END,
};

/* Writes the rows of `f` to fd with the input's key/value metadata,
 * except Arrow's schema, which describes the input's encoding choices
 * rather than the data, and its root name ("spark_schema" stays). */
static int rewrite_stream(dl_parquet_file *f, int fd, const rewrite_args *a)
{
	dl_parquet_file_info info;
	dl_parquet_file_info_get(&info, f);
	const char **keys = dl_cli_calloc(info.nkey_values + 1, sizeof *keys);
	const char **vals = dl_cli_calloc(info.nkey_values + 1, sizeof *vals);
	FILE *fp = NULL;
	int rc = keys && vals ? 0 : DL_ENOMEM, n = 0;
	for (size_t i = 0; rc == 0 && i < info.nkey_values; i++) {
		dl_parquet_key_value_at(&keys[n], &vals[n], f, i);
		if (strcmp(keys[n], "ARROW:schema")) n++;
	}
	dl_parquet_write_options wo = DL_PARQUET_WRITE_OPTIONS_INIT;
	wo.compression = a->compression;
	wo.level = (int)a->level;
	wo.row_group_rows = a->row_group_rows;
	wo.threads = (int)a->threads;
	wo.root_name = info.root_name;
	wo.metadata_keys = keys;
	wo.metadata_values = vals;
	wo.nmetadata = n;
	if (rc == 0) {
		fp = fdopen(dup(fd), "wb");
		if (!fp) rc = dl_cli_fail_errno("cannot write the output file", a->out);
	}
	struct ArrowArrayStream st;
	if (rc == 0) rc = dl_parquet_read(&st, f, NULL);
	if (rc == 0) rc = dl_parquet_write_stream(fp, &st, &wo);
	if (fp && fclose(fp) != 0 && rc == 0) rc = dl_cli_fail_errno("closing the output file", a->out);
	free(keys);
	free(vals);
	return rc;
}

static int rewrite_run(dl_cli *cli, const void *args)
{
	const rewrite_args *a = args;
	if (!dl_parquet_codec_supported(a->compression))
		return dl_cli_usage_error(cli, "--compression must be zstd, snappy, gzip, lz4_raw, brotli or none, not '%s'",
		                          a->compression);
	if (a->row_group_rows < 0) return dl_cli_usage_error(cli, "--row-group-rows must be >= 0");
	if (a->threads < 0 || a->threads > 1024) return dl_cli_usage_error(cli, "--threads must be 0..1024");
	dl_parquet_file *f;
	DL_CLI_TRY(dl_parquet_open(&f, a->in));
	/* Write a temporary next to OUT and rename it over OUT on success, so a
	 * failure never leaves half a file (and IN may equal OUT). */
	size_t n = strlen(a->out) + 32;
	char *tmp = dl_cli_malloc(n);
	int rc = tmp ? 0 : DL_ENOMEM, fd = -1;
	if (rc == 0) {
		snprintf(tmp, n, "%s.tmp-%ld", a->out, (long)getpid());
		fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC, 0644);
		if (fd < 0) rc = dl_cli_fail_errno("cannot create the output file", tmp);
	}
	if (rc == 0) rc = rewrite_stream(f, fd, a);
	if (fd >= 0 && close(fd) != 0 && rc == 0) rc = dl_cli_fail_errno("closing the output file", tmp);
	if (rc == 0 && rename(tmp, a->out) != 0) rc = dl_cli_fail_errno("cannot rename the output into place", a->out);
	if (rc < 0 && fd >= 0) unlink(tmp);
	free(tmp);
	dl_parquet_free(f);
	return rc;
}

DL_CLI_COMMAND(parquet_rewrite, .name = "parquet rewrite",
               .summary = "rewrite a Parquet file with our writer (same rows and types)",
               .description = "Streams IN batch by batch through the reader and the writer: memory\n"
                              "holds one row group whatever the file size. Keeps field ids and the\n"
                              "key/value metadata (except ARROW:schema).",
               .examples = "  deltalake parquet rewrite in.parquet out.parquet\n"
                           "  deltalake parquet rewrite in.parquet out.parquet --compression snappy",
               .opts = rewrite_opts, .args_size = sizeof(rewrite_args), .run = rewrite_run);
