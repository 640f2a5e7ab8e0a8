/* `deltalake protocol`: the protocol versions and table features. */
#include "table_cli.h"
#include "util.h"

typedef struct protocol_args {
	const char *table;
	int64_t version;
} protocol_args;

static const dl_cli_opt protocol_opts[] = {
	DL_CLI_ARG(protocol_args, table, "TABLE", "path of the table"),
	DL_CLI_INT(protocol_args, version, 0, "version", "N", "-1", "the protocol of version N"),
	DL_CLI_END,
};

static int features(dl_cli_buf *b, dl_snapshot *snap, bool reader)
{
	dl_cli_buf_clear(b);
	size_t n = reader ? dl_snapshot_reader_feature_count(snap) : dl_snapshot_writer_feature_count(snap);
	for (size_t i = 0; i < n; i++) {
		if (i) DL_CLI_TRY(dl_cli_buf_puts(b, ","));
		DL_CLI_TRY(dl_cli_buf_puts(b, reader ? dl_snapshot_reader_feature(snap, i) : dl_snapshot_writer_feature(snap, i)));
	}
	return 0;
}

static int protocol_run(dl_cli *cli, const void *args)
{
	const protocol_args *a = args;
	dl_snapshot *snap;
	int rc = dl_cli_open_snapshot_ex(cli, &snap, a->table, a->version, NULL, true);
	if (rc != 0) return rc;
	dl_out *o = NULL;
	dl_cli_buf b = DL_CLI_BUF_INIT;
	char num[32];
	rc = dl_cli_out_begin(&o, cli, dl_out_kv_columns, 2);
	snprintf(num, sizeof num, "%d", dl_snapshot_min_reader_version(snap));
	if (rc == 0) rc = dl_out_kv(o, "minReaderVersion", num);
	snprintf(num, sizeof num, "%d", dl_snapshot_min_writer_version(snap));
	if (rc == 0) rc = dl_out_kv(o, "minWriterVersion", num);
	if (rc == 0) rc = features(&b, snap, true);
	if (rc == 0) rc = dl_out_kv(o, "readerFeatures", b.data ? b.data : "");
	if (rc == 0) rc = features(&b, snap, false);
	if (rc == 0) rc = dl_out_kv(o, "writerFeatures", b.data ? b.data : "");
	if (rc == 0) rc = dl_out_end(o);
	else dl_out_free(o);
	dl_cli_buf_free(&b);
	dl_snapshot_free(snap);
	return rc;
}

DL_CLI_COMMAND(protocol, .name = "protocol", .summary = "show the protocol versions and table features",
               .examples = "  deltalake protocol /data/events",
               .opts = protocol_opts, .args_size = sizeof(protocol_args), .run = protocol_run);
