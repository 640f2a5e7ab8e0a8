/* `deltalake changes`: the change data feed of a range of versions. */
#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include "table_cli.h"

typedef struct changes_args {
	const char *table;
	const char *from;
	const char *to;
	int64_t limit;
} changes_args;

static const dl_cli_opt changes_opts[] = {
	DL_CLI_ARG(changes_args, table, "TABLE", "path of the table"),
	DL_CLI_STRING(changes_args, from, 0, "from", "V|TS", NULL, "first version or timestamp (inclusive; default 0)"),
	DL_CLI_STRING(changes_args, to, 0, "to", "V|TS", NULL, "last version or timestamp (inclusive; default latest)"),
	DL_CLI_INT(changes_args, limit, 'n', "limit", "N", "-1", "print at most N rows"),
	DL_CLI_END,
};

/* A version (digits only) or a timestamp. */
static int parse_bound(dl_cli *cli, const char *s, const char *opt, int64_t *version, int64_t *ts_ms)
{
	bool digits = *s != 0;
	for (const char *c = s; *c; c++) digits &= isdigit((unsigned char)*c) != 0;
	if (digits) {
		errno = 0;
		long long v = strtoll(s, NULL, 10);
		if (errno) return dl_cli_usage_error(cli, "%s %s: version too large", opt, s);
		*version = v;
		return 0;
	}
	int64_t us;
	if (dl_timestamp_parse_text(&us, s) < 0)
		return dl_cli_usage_error(cli, "%s '%s' is neither a version nor a timestamp such as "
		                          "'2024-01-31 12:00:00'", opt, s);
	*ts_ms = dl_cli_floor_div(us, 1000);
	*version = -1;
	return 0;
}

static int changes_run(dl_cli *cli, const void *args)
{
	const changes_args *a = args;
	if (a->limit < -1) return dl_cli_usage_error(cli, "--limit must be >= 0");
	dl_changes_options o = DL_CHANGES_OPTIONS_INIT;
	o.store_options = dl_cli_store_options(cli);
	int rc = a->from ? parse_bound(cli, a->from, "--from", &o.start_version, &o.start_timestamp_ms) : 0;
	if (rc == 0 && a->to) rc = parse_bound(cli, a->to, "--to", &o.end_version, &o.end_timestamp_ms);
	if (rc != 0) return rc;
	struct ArrowArrayStream st;
	DL_CLI_TRY(dl_table_changes(&st, a->table, &o));
	return dl_out_arrow_stream(cli->out, cli->format, &st, a->limit);
}

DL_CLI_COMMAND(changes, .name = "changes", .summary = "show the change data feed between versions",
               .description = "The row-level changes of versions --from..--to (inclusive) with the\n"
                              "columns _change_type, _commit_version and _commit_timestamp. The table\n"
                              "needs delta.enableChangeDataFeed over the whole range.",
               .examples = "  deltalake changes /data/events --from 3\n"
                           "  deltalake changes /data/events --from 2 --to 5 --format jsonl\n"
                           "  deltalake changes /data/events --from '2024-01-31 00:00:00'",
               .opts = changes_opts, .args_size = sizeof(changes_args), .run = changes_run);
