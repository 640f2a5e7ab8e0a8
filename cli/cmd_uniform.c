/* `deltalake uniform`: brings a UniForm table's Iceberg metadata up to
 * the latest Delta version through dl_uniform_regenerate. */
#include "table_cli.h"

typedef struct uniform_args {
	const char *table;
	bool force;
} uniform_args;

static const dl_cli_opt uniform_opts[] = {
	DL_CLI_ARG(uniform_args, table, "TABLE", "path of the table"),
	DL_CLI_FLAG(uniform_args, force, 0, "force", "write a new metadata version even when up to date"),
	DL_CLI_END,
};

static int uniform_run(dl_cli *cli, const void *args)
{
	const uniform_args *a = args;
	dl_uniform_options o = DL_UNIFORM_OPTIONS_INIT;
	o.store_options = dl_cli_store_options(cli);
	o.force = a->force;
	dl_uniform_info info;
	int rc = dl_uniform_regenerate(&info, a->table, &o);
	if (rc != 0) return rc;
	static const dl_out_column cols[] = {{"converted", DL_OUT_BOOL},
	                                     {"convertedDeltaVersion", DL_OUT_NUMBER},
	                                     {"previousDeltaVersion", DL_OUT_NUMBER},
	                                     {"icebergMetadataVersion", DL_OUT_NUMBER},
	                                     {"icebergSnapshotId", DL_OUT_NUMBER}};
	char v[4][32];
	snprintf(v[0], sizeof v[0], "%" PRId64, info.converted_delta_version);
	snprintf(v[1], sizeof v[1], "%" PRId64, info.previous_delta_version);
	snprintf(v[2], sizeof v[2], "%" PRId64, info.metadata_version);
	snprintf(v[3], sizeof v[3], "%" PRId64, info.snapshot_id);
	const char *row[5] = {info.converted ? "true" : "false", v[0], v[1], v[2], v[3]};
	dl_out *out = NULL;
	rc = dl_cli_out_begin(&out, cli, cols, 5);
	if (rc == 0) rc = dl_out_row(out, row);
	if (rc == 0) rc = dl_out_end(out);
	else dl_out_free(out);
	return rc;
}

DL_CLI_COMMAND(uniform, .name = "uniform", .summary = "write a UniForm table's Iceberg metadata now",
               .description =
                   "Brings the Iceberg metadata under TABLE/metadata/ up to the latest Delta\n"
                   "version, from the version it last converted (converted_delta_version),\n"
                   "as one Iceberg snapshot. Commits do this themselves when the table has\n"
                   "'delta.universalFormat.enabledFormats' = 'iceberg'; use this after a\n"
                   "conversion failed or another writer committed. A table without UniForm\n"
                   "Iceberg is refused (DELTA_UNIVERSAL_FORMAT_VIOLATION).",
               .examples = "  deltalake uniform /data/events\n  deltalake uniform /data/events --force",
               .opts = uniform_opts, .args_size = sizeof(uniform_args), .run = uniform_run);
