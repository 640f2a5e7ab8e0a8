/* `deltalake detail`: DESCRIBE DETAIL of a table. */
#include "table_cli.h"

typedef struct detail_args {
	const char *table;
	int64_t version;
} detail_args;

static const dl_cli_opt detail_opts[] = {
	DL_CLI_ARG(detail_args, table, "TABLE", "path of the table"),
	DL_CLI_INT(detail_args, version, 0, "version", "N", "-1", "the detail of version N"),
	DL_CLI_END,
};

/* UniForm Iceberg tables get two more columns: the Delta version the
 * Iceberg metadata shows and its metadata file (docs/UNIFORM.md). */
static bool uniform_iceberg(const dl_snapshot *s)
{
	const char *f = dl_snapshot_property(s, "delta.universalFormat.enabledFormats");
	return f && strstr(f, "iceberg") != NULL;
}

static int detail_row(dl_out *o, const dl_table_detail *d, const dl_uniform_info *u)
{
	char created[DL_TIME_TEXT_MAX], modified[DL_TIME_TEXT_MAX], nf[32], size[32], rv[16], wv[16], ver[32];
	if (d->created_at_ms >= 0) dl_cli_format_ms(created, d->created_at_ms);
	dl_cli_format_ms(modified, d->last_modified_ms);
	snprintf(nf, sizeof nf, "%" PRId64, d->num_files);
	snprintf(size, sizeof size, "%" PRId64, d->size_in_bytes);
	snprintf(rv, sizeof rv, "%d", d->min_reader_version);
	snprintf(wv, sizeof wv, "%d", d->min_writer_version);
	snprintf(ver, sizeof ver, "%" PRId64, d->version);
	char cv[32], mv[48];
	snprintf(cv, sizeof cv, "%" PRId64, u ? u->converted_delta_version : -1);
	snprintf(mv, sizeof mv, "metadata/v%" PRId64 ".metadata.json", u ? u->metadata_version : -1);
	const char *row[18] = {d->format, d->id, d->name, d->description, d->location,
	                       d->created_at_ms >= 0 ? created : NULL, modified, d->partition_columns,
	                       d->clustering_columns, nf, size, d->properties, rv, wv, d->table_features, ver,
	                       u && u->converted_delta_version >= 0 ? cv : NULL,
	                       u && u->metadata_version >= 0 ? mv : NULL};
	return dl_out_row(o, row);
}

static int detail_run(dl_cli *cli, const void *args)
{
	const detail_args *a = args;
	dl_snapshot *snap;
	int rc = dl_cli_open_snapshot(cli, &snap, a->table, a->version, NULL);
	if (rc != 0) return rc;
	dl_detail *d = NULL;
	const dl_table_detail *td = NULL;
	rc = dl_detail_open(&d, &td, snap);
	static const dl_out_column cols[] = {
		{"format", DL_OUT_STRING}, {"id", DL_OUT_STRING}, {"name", DL_OUT_STRING},
		{"description", DL_OUT_STRING}, {"location", DL_OUT_STRING}, {"createdAt", DL_OUT_STRING},
		{"lastModified", DL_OUT_STRING}, {"partitionColumns", DL_OUT_JSON_TEXT},
		{"clusteringColumns", DL_OUT_JSON_TEXT}, {"numFiles", DL_OUT_NUMBER}, {"sizeInBytes", DL_OUT_NUMBER},
		{"properties", DL_OUT_JSON_TEXT}, {"minReaderVersion", DL_OUT_NUMBER},
		{"minWriterVersion", DL_OUT_NUMBER}, {"tableFeatures", DL_OUT_JSON_TEXT}, {"version", DL_OUT_NUMBER},
		{"uniformIcebergConvertedVersion", DL_OUT_NUMBER}, {"uniformIcebergMetadata", DL_OUT_STRING}};
	dl_uniform_info u;
	bool uni = rc == 0 && uniform_iceberg(snap);
	if (uni) {
		dl_uniform_options uo = DL_UNIFORM_OPTIONS_INIT;
		uo.store_options = dl_cli_store_options(cli);
		rc = dl_uniform_status(&u, dl_snapshot_table_root(snap), &uo);
	}
	dl_out *o = NULL;
	if (rc == 0) rc = dl_cli_out_begin(&o, cli, cols, uni ? 18 : 16);
	if (rc == 0) rc = detail_row(o, td, uni ? &u : NULL);
	if (rc == 0) rc = dl_out_end(o);
	else dl_out_free(o);
	dl_detail_free(d);
	dl_snapshot_free(snap);
	return rc;
}

DL_CLI_COMMAND(detail, .name = "detail", .summary = "describe a table (format, files, size, properties)",
               .examples = "  deltalake detail /data/events\n  deltalake detail /data/events --format json",
               .opts = detail_opts, .args_size = sizeof(detail_args), .run = detail_run);
