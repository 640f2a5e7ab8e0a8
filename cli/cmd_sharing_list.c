/* `deltalake sharing list PROFILE [share[.schema]]`: what a Delta Sharing
 * profile gives access to. Without a share, the shares; with a share, all
 * its tables (List all Tables in a Share); with share.schema, the tables of
 * that schema. The `sharing` group itself is declared by the server's
 * commands (cmd_sharing_serve.c). */
#include <string.h>
#include "cli.h"
#include "deltalake.h"
#include "util.h"

typedef struct sharing_list_args {
	const char *profile;
	const char *what;
	bool schemas;
} sharing_list_args;

static const dl_cli_opt sharing_list_opts[] = {
	DL_CLI_ARG(sharing_list_args, profile, "PROFILE", "the profile file (.share) from the data provider"),
	DL_CLI_ARG_OPT(sharing_list_args, what, "SHARE[.SCHEMA]", "list the tables of a share or of one schema"),
	DL_CLI_FLAG(sharing_list_args, schemas, 's', "schemas", "with SHARE: list its schemas instead of its tables"),
	DL_CLI_END,
};

static int emit_share(const dl_sharing_item *it, void *p)
{
	const char *row[2] = {it->name, it->id};
	return dl_out_row(p, row);
}

static int emit_schema(const dl_sharing_item *it, void *p)
{
	const char *row[2] = {it->share, it->name};
	return dl_out_row(p, row);
}

static int emit_table(const dl_sharing_item *it, void *p)
{
	char path[1024];
	snprintf(path, sizeof path, "%s.%s.%s", it->share ? it->share : "", it->schema ? it->schema : "",
	         it->name);
	const char *row[6] = {it->share, it->schema, it->name, path, it->id, it->share_id};
	return dl_out_row(p, row);
}

static int sharing_list_run(dl_cli *cli, const void *args)
{
	const sharing_list_args *a = args;
	char *share = NULL, *schema = NULL;
	if (a->what) {
		const char *dot = strchr(a->what, '.');
		if (!a->what[0] || dot == a->what || (dot && (!dot[1] || strchr(dot + 1, '.'))))
			return dl_cli_usage_error(cli, "the second argument is SHARE or SHARE.SCHEMA, not \"%s\"",
			                          a->what);
		share = dot ? dl_cli_strndup(a->what, (size_t)(dot - a->what)) : dl_cli_strdup(a->what);
		if (dot) schema = dl_cli_strdup(dot + 1);
	}
	if (a->schemas && (!share || schema)) {
		free(share);
		free(schema);
		return dl_cli_usage_error(cli, "--schemas lists the schemas of a SHARE: give the share alone");
	}
	dl_sharing_client *c;
	int rc = dl_sharing_client_open(&c, a->profile, NULL);
	dl_out *o = NULL;
	static const dl_out_column share_cols[] = {{"share", DL_OUT_STRING}, {"id", DL_OUT_STRING}};
	static const dl_out_column schema_cols[] = {{"share", DL_OUT_STRING}, {"schema", DL_OUT_STRING}};
	static const dl_out_column table_cols[] = {{"share", DL_OUT_STRING},    {"schema", DL_OUT_STRING},
	                                           {"table", DL_OUT_STRING},    {"path", DL_OUT_STRING},
	                                           {"id", DL_OUT_STRING},       {"shareId", DL_OUT_STRING}};
	if (rc == 0) {
		if (!share) rc = dl_cli_out_begin(&o, cli, share_cols, 2);
		else if (a->schemas) rc = dl_cli_out_begin(&o, cli, schema_cols, 2);
		else rc = dl_cli_out_begin(&o, cli, table_cols, 6);
	}
	if (rc == 0) {
		if (!share) rc = dl_sharing_list_shares(c, emit_share, o);
		else if (a->schemas) rc = dl_sharing_list_schemas(c, share, emit_schema, o);
		else if (schema) rc = dl_sharing_list_tables(c, share, schema, emit_table, o);
		else rc = dl_sharing_list_all_tables(c, share, emit_table, o);
	}
	if (rc == 0) rc = dl_out_end(o);
	else dl_out_free(o);
	dl_sharing_client_free(c);
	free(share);
	free(schema);
	return rc;
}

DL_CLI_COMMAND(sharing_list, .name = "sharing list",
               .summary = "list the shares, schemas or tables a Delta Sharing profile can read",
               .description = "PROFILE is a profile file (shareCredentialsVersion 1 or 2). A table it\n"
                              "lists reads with any read command as PROFILE#share.schema.table.",
               .examples = "  deltalake sharing list config.share\n"
                           "  deltalake sharing list config.share share1\n"
                           "  deltalake sharing list config.share share1 --schemas\n"
                           "  deltalake cat 'config.share#share1.default.events' -n 10",
               .opts = sharing_list_opts, .args_size = sizeof(sharing_list_args), .run = sharing_list_run);
