/* `deltalake clone`: CREATE [OR REPLACE] TABLE delta.`DST` SHALLOW CLONE
 * delta.`SRC` [VERSION AS OF n | TIMESTAMP AS OF ts] [TBLPROPERTIES]
 * through dl_shallow_clone; prints Spark's result columns. */
#include <stdlib.h>
#include "restore_clone_cli.h"

typedef struct clone_args {
	const char *source;
	const char *target;
	int64_t version;
	const char *timestamp;
	dl_cli_list props;
	bool replace;
	bool if_not_exists;
	const char *user_metadata;
} clone_args;

static const dl_cli_opt clone_opts[] = {
	DL_CLI_ARG(clone_args, source, "SRC", "path of the source table"),
	DL_CLI_ARG(clone_args, target, "DST", "path of the clone"),
	DL_CLI_INT(clone_args, version, 'v', "version", "N", "-1", "clone the source as it was at version N"),
	DL_CLI_STRING(clone_args, timestamp, 't', "timestamp", "TS", NULL,
	              "clone the source version current at TS (Spark timestamp text, UTC unless it names a zone)"),
	DL_CLI_LIST(clone_args, props, 'p', "property", "KEY=VALUE",
	            "a table property of the clone, overriding the source's (repeatable)"),
	DL_CLI_FLAG(clone_args, replace, 0, "replace", "CREATE OR REPLACE: DST may already be a Delta table"),
	DL_CLI_FLAG(clone_args, if_not_exists, 0, "if-not-exists", "do nothing when DST already is a Delta table"),
	DL_CLI_STRING(clone_args, user_metadata, 0, "user-metadata", "TEXT", NULL, "commitInfo.userMetadata"),
	DL_CLI_END,
};

static int clone_run(dl_cli *cli, const void *args)
{
	const clone_args *a = args;
	if (a->version >= 0 && a->timestamp) return dl_cli_usage_error(cli, "give --version or --timestamp, not both");
	dl_clone_options o = DL_CLONE_OPTIONS_INIT;
	o.store_options = dl_cli_store_options(cli);
	o.source_version = a->version;
	o.source_timestamp = a->timestamp;
	o.replace = a->replace;
	o.if_not_exists = a->if_not_exists;
	o.user_metadata = a->user_metadata;
	const char **keys = calloc((size_t)a->props.n + 1, sizeof *keys);
	const char **vals = calloc((size_t)a->props.n + 1, sizeof *vals);
	char **copies = calloc((size_t)a->props.n + 1, sizeof *copies);
	if (!keys || !vals || !copies) {
		free(keys);
		free(vals);
		free(copies);
		return dl_cli_usage_error(cli, "out of memory");
	}
	int rc = 0;
	for (int i = 0; i < a->props.n && rc == 0; i++) {
		const char *eq = strchr(a->props.items[i], '=');
		if (!eq || eq == a->props.items[i]) {
			rc = dl_cli_usage_error(cli, "--property %s: expected KEY=VALUE", a->props.items[i]);
			break;
		}
		copies[i] = strdup(a->props.items[i]);
		if (!copies[i]) {
			rc = dl_cli_usage_error(cli, "out of memory");
			break;
		}
		copies[i][eq - a->props.items[i]] = 0;
		keys[i] = copies[i];
		vals[i] = copies[i] + (eq - a->props.items[i]) + 1;
	}
	o.property_keys = keys;
	o.property_values = vals;
	o.nproperties = a->props.n;
	dl_clone_metrics m;
	if (rc == 0) {
		dl_progress p;
		dl_progress_begin(&p, cli->err, cli->quiet, "cloning", 0);
		o.progress = dl_cli_maint_progress;
		o.progress_payload = &p;
		rc = dl_shallow_clone(&m, a->source, a->target, &o);
		dl_progress_end(&p);
	}
	for (int i = 0; i < a->props.n; i++) free(copies[i]);
	free(copies);
	free(keys);
	free(vals);
	if (rc != 0) return rc;
	static const char *const names[] = {"source_table_size", "source_num_of_files", "num_removed_files",
	                                    "num_copied_files",  "removed_files_size",  "copied_files_size"};
	int64_t v[] = {m.sourceTableSize, m.sourceNumOfFiles, m.numRemovedFiles,
	               m.numCopiedFiles,  m.removedFilesSize, m.copiedFilesSize};
	return dl_cli_metrics_row(cli, names, v, 6);
}

DL_CLI_COMMAND(clone, .name = "clone", .summary = "shallow-clone a table (its files referenced, not copied)",
               .description =
                   "CREATE TABLE DST SHALLOW CLONE SRC, as Spark: DST's first version\n"
                   "references SRC's data files (and deletion vectors) by absolute path,\n"
                   "with SRC's schema, partitioning, properties (overridden by --property)\n"
                   "and protocol, and a new table id. Writes to DST never touch SRC; VACUUM\n"
                   "of DST never deletes SRC's files; a VACUUM of SRC can, so keep SRC's\n"
                   "files while the clone needs them. Deep clones are not part of open\n"
                   "source Delta. Prints Spark's metrics.",
               .examples = "  deltalake clone /data/events /data/events_dev\n"
                           "  deltalake clone /data/events /data/events_v3 --version 3\n"
                           "  deltalake clone /data/events /data/events_dev --replace -p delta.appendOnly=true",
               .opts = clone_opts, .args_size = sizeof(clone_args), .run = clone_run);
