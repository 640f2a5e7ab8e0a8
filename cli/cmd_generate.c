/* `deltalake generate`: GENERATE symlink_format_manifest FOR TABLE through
 * dl_generate_manifest; prints the number of data files listed. */
#include "table_cli.h"

typedef struct generate_args {
	const char *table;
	const char *mode;
} generate_args;

static const dl_cli_opt generate_opts[] = {
	DL_CLI_ARG(generate_args, table, "TABLE", "path of the table"),
	DL_CLI_STRING(generate_args, mode, 0, "mode", "MODE", "symlink_format_manifest",
	              "what to generate (only symlink_format_manifest)"),
	DL_CLI_END,
};

static int generate_run(dl_cli *cli, const void *args)
{
	const generate_args *a = args;
	dl_generate_options o = DL_GENERATE_OPTIONS_INIT;
	o.store_options = dl_cli_store_options(cli);
	o.mode = a->mode;
	int64_t files = 0;
	int rc = dl_generate_manifest(&files, a->table, &o);
	if (rc != 0) return rc;
	static const dl_out_column cols[] = {{"numFiles", DL_OUT_NUMBER}};
	char n[32];
	snprintf(n, sizeof n, "%" PRId64, files);
	const char *row[1] = {n};
	dl_out *out = NULL;
	rc = dl_cli_out_begin(&out, cli, cols, 1);
	if (rc == 0) rc = dl_out_row(out, row);
	if (rc == 0) rc = dl_out_end(out);
	else dl_out_free(out);
	return rc;
}

DL_CLI_COMMAND(generate, .name = "generate", .summary = "write the symlink manifests Presto/Trino/Athena read",
               .description =
                   "GENERATE symlink_format_manifest FOR TABLE: writes\n"
                   "_symlink_format_manifest/[partition dir/]manifest, one per partition, each\n"
                   "listing the absolute paths of its data files, and deletes the manifests of\n"
                   "partitions that no longer exist. Tables whose files have deletion vectors or\n"
                   "that use column mapping are refused, as in Spark. With\n"
                   "delta.compatibility.symlinkFormatManifest.enabled=true the manifests are\n"
                   "rewritten after every commit.",
               .examples = "  deltalake generate /data/events",
               .opts = generate_opts, .args_size = sizeof(generate_args), .run = generate_run);
