/* `deltalake delete`: DELETE FROM TABLE [WHERE P] through dl_delete, the
 * result as Spark's (num_affected_rows) in the global --format. */
#include "table_cli.h"

typedef struct delete_args {
	const char *table;
	const char *where;
	const char *user_metadata;
	bool copy_on_write;
	const char *txn_app_id;
	int64_t txn_version;
} delete_args;

static const dl_cli_opt delete_opts[] = {
	DL_CLI_ARG(delete_args, table, "TABLE", "path of the table"),
	DL_CLI_STRING(delete_args, where, 'w', "where", "PRED", NULL,
	              "delete only the rows where PRED (Spark SQL) is true; without it, every row"),
	DL_CLI_STRING(delete_args, user_metadata, 0, "user-metadata", "TEXT", NULL,
	              "commitInfo.userMetadata"),
	DL_CLI_FLAG(delete_args, copy_on_write, 0, "copy-on-write",
	            "rewrite files even when the table enables deletion vectors"),
	DL_CLI_STRING(delete_args, txn_app_id, 0, "txn-app-id", "ID", NULL,
	              "idempotent delete: application id"),
	DL_CLI_INT(delete_args, txn_version, 0, "txn-version", "N", "-1",
	           "idempotent delete: skipped when ID already committed version N or later"),
	DL_CLI_END,
};

static int delete_run(dl_cli *cli, const void *args)
{
	const delete_args *a = args;
	dl_cli_malloc_for_reads();
	dl_delete_options o = DL_DELETE_OPTIONS_INIT;
	o.user_metadata = a->user_metadata;
	o.copy_on_write = a->copy_on_write;
	o.txn_app_id = a->txn_app_id;
	o.txn_version = a->txn_version;
	dl_delete_metrics m;
	int rc = dl_delete(&m, a->table, a->where, &o);
	if (rc != 0) return rc;
	static const dl_out_column cols[] = {{"num_affected_rows", DL_OUT_NUMBER}};
	char n[32];
	snprintf(n, sizeof n, "%" PRId64, m.num_affected_rows);
	const char *row[1] = {n};
	dl_out *out = NULL;
	rc = dl_cli_out_begin(&out, cli, cols, 1);
	if (rc == 0) rc = dl_out_row(out, row);
	if (rc == 0) rc = dl_out_end(out);
	else dl_out_free(out);
	return rc;
}

DL_CLI_COMMAND(delete, .name = "delete", .summary = "delete the rows of a table matching a condition",
               .description =
                   "DELETE FROM TABLE [WHERE PRED] with Spark's semantics: a condition on\n"
                   "partition columns only removes whole files; otherwise the matching rows\n"
                   "are deleted through deletion vectors when the table enables them\n"
                   "(delta.enableDeletionVectors), else by rewriting the files holding them.\n"
                   "Rows where PRED is NULL stay. Prints num_affected_rows (-1 when whole\n"
                   "files went without row counts, as Spark). Nothing is committed when no\n"
                   "row matches.",
               .examples = "  deltalake delete /data/events --where \"id = 2\"\n"
                           "  deltalake delete /data/events --where \"d < '2024-01-01'\" --format json\n"
                           "  deltalake delete /data/events",
               .opts = delete_opts, .args_size = sizeof(delete_args), .run = delete_run);
