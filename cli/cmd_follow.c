/* `deltalake follow`: prints a table's new rows as commits land, like
 * `tail -f`, through the streaming source (deltalake/stream.h). Each
 * micro-batch is printed, flushed, then committed to the checkpoint (when
 * given), so a restarted follow continues after the last batch it
 * printed; a batch printed but not yet committed when the process dies is
 * printed again (at-least-once output: the window is between the flush
 * and the commit; a terminal or a pipe cannot take back a line).
 *
 * With --into TABLE the batches go to a Delta table instead, exactly once,
 * as Spark's Delta sink does: each batch is one commit carrying
 * txn(appId = the checkpoint's query id, version = the batch id), so a
 * batch written but not yet committed to the checkpoint when the process
 * dies is re-delivered on restart and skipped by the sink (the Delta
 * protocol's transaction identifiers).
 *
 * Ctrl-C (SIGINT) or SIGTERM ends it cleanly with exit code 0. */
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <signal.h>
#include <stdlib.h>
#include <time.h>
#include "table_cli.h"

typedef struct follow_args {
	const char *table;
	const char *from;
	const char *where;
	dl_cli_list columns;
	bool changes;
	int64_t max_files;
	int64_t max_bytes;
	const char *interval;
	const char *checkpoint;
	int64_t max_batches;
	bool ignore_deletes;
	bool ignore_changes;
	bool skip_change_commits;
	const char *exclude;
	const char *into;
} follow_args;

static const dl_cli_opt follow_opts[] = {
	DL_CLI_ARG(follow_args, table, "TABLE", "path or URI of the table"),
	DL_CLI_STRING(follow_args, from, 0, "from", "V|latest|TS", NULL,
	              "start at version V, at the first commit at or after timestamp TS, or after the latest "
	              "version (default: the current rows first, then new commits)"),
	DL_CLI_STRING(follow_args, where, 0, "where", "PREDICATE", NULL, "print only rows matching this Spark SQL predicate"),
	DL_CLI_NAMES(follow_args, columns, 'c', "columns", "A,B", "print only these columns"),
	DL_CLI_FLAG(follow_args, changes, 0, "changes",
	            "print the change data feed (_change_type, _commit_version, _commit_timestamp)"),
	DL_CLI_INT(follow_args, max_files, 0, "max-files", "N", "-1", "files per batch at most (maxFilesPerTrigger; default 1000)"),
	DL_CLI_INT(follow_args, max_bytes, 0, "max-bytes", "N", "-1", "bytes per batch, about (maxBytesPerTrigger)"),
	DL_CLI_STRING(follow_args, interval, 0, "interval", "SECONDS", "1", "seconds between polls (fractions allowed)"),
	DL_CLI_STRING(follow_args, checkpoint, 0, "checkpoint", "DIR", NULL,
	              "keep progress here (any store URI): a restart continues where it stopped"),
	DL_CLI_INT(follow_args, max_batches, 0, "max-batches", "N", "-1", "stop after N batches"),
	DL_CLI_FLAG(follow_args, ignore_deletes, 0, "ignore-deletes", "pass over commits that only delete (ignoreDeletes)"),
	DL_CLI_FLAG(follow_args, ignore_changes, 0, "ignore-changes",
	            "re-print the rows of rewritten files of updates (ignoreChanges)"),
	DL_CLI_FLAG(follow_args, skip_change_commits, 0, "skip-change-commits",
	            "pass over commits that update or delete (skipChangeCommits)"),
	DL_CLI_STRING(follow_args, exclude, 0, "exclude-regex", "REGEX", NULL, "leave out added files whose path matches"),
	DL_CLI_STRING(follow_args, into, 0, "into", "TABLE", NULL,
	              "append each batch to this Delta table exactly once instead of printing it (needs --checkpoint)"),
	DL_CLI_END,
};

static volatile sig_atomic_t stop_requested;

static void on_signal(int sig)
{
	(void)sig;
	stop_requested = 1;
}

static int parse_from(dl_cli *cli, const char *s, dl_stream_options *o)
{
	if (!strcmp(s, "latest")) {
		o->starting_version = DL_STREAM_LATEST;
		return 0;
	}
	bool digits = *s != 0;
	for (const char *c = s; *c; c++) digits &= isdigit((unsigned char)*c) != 0;
	if (digits) {
		errno = 0;
		long long v = strtoll(s, NULL, 10);
		if (errno) return dl_cli_usage_error(cli, "--from %s: version too large", s);
		o->starting_version = v;
		return 0;
	}
	int64_t us;
	if (dl_timestamp_parse_text(&us, s) < 0)
		return dl_cli_usage_error(cli, "--from '%s' is neither a version, 'latest' nor a timestamp such as "
		                          "'2024-01-31 12:00:00'", s);
	o->starting_timestamp_ms = dl_cli_floor_div(us, 1000);
	return 0;
}

static int parse_interval(dl_cli *cli, const char *s, double *out)
{
	char *end;
	errno = 0;
	double d = strtod(s, &end);
	if (errno || end == s || *end || !isfinite(d) || d < 0 || d > 86400)
		return dl_cli_usage_error(cli, "--interval '%s' must be a number of seconds from 0 to 86400 "
		                          "(fractions allowed, e.g. 0.2)", s);
	*out = d;
	return 0;
}

/* Sleeps up to `seconds`, returning early on a signal. */
static void pause_for(double seconds)
{
	struct timespec ts;
	ts.tv_sec = (time_t)seconds;
	ts.tv_nsec = (long)((seconds - (double)ts.tv_sec) * 1e9);
	if (!stop_requested) nanosleep(&ts, NULL);
}

typedef struct printer {
	dl_out *out;
	struct ArrowSchema schema; /* the first batch's: the columns never change */
} printer;

static int print_batch(dl_cli *cli, printer *p, struct ArrowArrayStream *st)
{
	int rc = 0;
	if (!p->out) {
		int err = st->get_schema(st, &p->schema);
		if (err) return dl_out_stream_error(st, err);
		rc = dl_out_begin_arrow(&p->out, cli->out, cli->format, &p->schema);
		if (rc < 0) return rc;
	}
	for (;;) {
		struct ArrowArray a;
		int err = st->get_next(st, &a);
		if (err) return dl_out_stream_error(st, err);
		if (!a.release) break;
		int64_t printed;
		rc = dl_out_arrow_batch(&printed, p->out, &a, -1);
		if (rc < 0) return rc;
	}
	if (fflush(cli->out) != 0 || ferror(cli->out)) return dl_cli_fail(DL_EIO, "writing the rows failed");
	return 0;
}

/* Appends one batch to the --into table. The sink consumes `st`; a batch
 * it already holds (a re-delivery after a crash) writes nothing. */
static int sink_batch(dl_stream_sink *sink, int64_t id, struct ArrowArrayStream *st)
{
	int64_t version;
	return dl_stream_sink_write(&version, sink, id, st);
}

static int follow_loop(dl_cli *cli, dl_stream *s, dl_stream_sink *sink, const follow_args *a, double interval)
{
	printer p;
	memset(&p, 0, sizeof p);
	int rc = 0;
	int64_t batches = 0;
	while (!stop_requested && (a->max_batches < 0 || batches < a->max_batches)) {
		struct ArrowArrayStream st;
		dl_stream_offset end;
		int64_t id;
		rc = dl_stream_next_batch(&st, &end, &id, s);
		if (rc < 0) break;
		if (!st.release) {
			pause_for(interval);
			continue;
		}
		if (sink) {
			rc = sink_batch(sink, id, &st);
		} else {
			rc = print_batch(cli, &p, &st);
			st.release(&st);
		}
		if (rc < 0) break;
		rc = dl_stream_commit(s, &end);
		if (rc < 0) break;
		batches++;
	}
	if (p.out) {
		int erc = rc == 0 ? dl_out_end(p.out) : (dl_out_free(p.out), 0);
		if (rc == 0) rc = erc;
	}
	if (p.schema.release) p.schema.release(&p.schema);
	return rc;
}

static int follow_run(dl_cli *cli, const void *args)
{
	const follow_args *a = args;
	if (cli->format_set && cli->format != DL_OUT_JSONL && cli->format != DL_OUT_CSV)
		return dl_cli_usage_error(cli, "follow prints jsonl or csv (--format jsonl|csv)");
	if (!cli->format_set) cli->format = DL_OUT_JSONL;
	if (a->max_files == 0 || a->max_files < -1) return dl_cli_usage_error(cli, "--max-files must be >= 1");
	if (a->max_bytes == 0 || a->max_bytes < -1) return dl_cli_usage_error(cli, "--max-bytes must be >= 1");
	if (a->max_batches == 0 || a->max_batches < -1) return dl_cli_usage_error(cli, "--max-batches must be >= 1");
	if (a->where && !*a->where) return dl_cli_usage_error(cli, "--where is empty");
	if (a->into && !a->checkpoint)
		return dl_cli_usage_error(cli, "--into needs --checkpoint: its query id is the sink's app id, which "
		                          "makes a re-delivered batch recognizable");
	if (a->into && cli->format_set) return dl_cli_usage_error(cli, "--into writes a table: --format does not apply");
	double interval = 1;
	int rc = parse_interval(cli, a->interval, &interval);
	if (rc != 0) return rc;
	dl_stream_options o = DL_STREAM_OPTIONS_INIT;
	if (a->from && (rc = parse_from(cli, a->from, &o)) != 0) return rc;
	o.max_files_per_trigger = a->max_files > 0 ? a->max_files : 0;
	o.max_bytes_per_trigger = a->max_bytes > 0 ? a->max_bytes : 0;
	o.ignore_deletes = a->ignore_deletes;
	o.ignore_changes = a->ignore_changes;
	o.skip_change_commits = a->skip_change_commits;
	o.read_change_feed = a->changes;
	o.exclude_regex = a->exclude;
	o.filter = a->where;
	o.columns = a->columns.n ? a->columns.items : NULL;
	o.ncolumns = a->columns.n;
	o.checkpoint_location = a->checkpoint;
	o.store_options = dl_cli_store_options(cli);
	struct sigaction sa, old_int, old_term;
	memset(&sa, 0, sizeof sa);
	sa.sa_handler = on_signal;
	sigemptyset(&sa.sa_mask);
	stop_requested = 0;
	sigaction(SIGINT, &sa, &old_int);
	sigaction(SIGTERM, &sa, &old_term);
	dl_stream_sink *sink = NULL;
	if (a->into) {
		dl_stream_sink_options ko = DL_STREAM_SINK_OPTIONS_INIT;
		ko.checkpoint_location = a->checkpoint;
		ko.store_options = o.store_options;
		rc = dl_stream_sink_open(&sink, a->into, &ko);
	}
	dl_stream *s;
	if (rc == 0) rc = dl_stream_open(&s, a->table, &o);
	if (rc == 0) {
		rc = follow_loop(cli, s, sink, a, interval);
		dl_stream_close(s);
	}
	dl_stream_sink_free(sink);
	sigaction(SIGINT, &old_int, NULL);
	sigaction(SIGTERM, &old_term, NULL);
	return rc;
}

DL_CLI_COMMAND(follow, .name = "follow", .summary = "print a table's new rows as commits land (like tail -f)",
               .description = "Reads the table as a stream of micro-batches, as Spark's Delta streaming\n"
                              "source does: the current rows first (unless --from), then the rows of each\n"
                              "new commit in commit order, polling every --interval seconds. Commits that\n"
                              "delete or update rows stop it with Spark's error unless --ignore-deletes,\n"
                              "--ignore-changes or --skip-change-commits; --changes prints the change data\n"
                              "feed instead. With --checkpoint, a restart continues after the last batch\n"
                              "printed (a batch printed just before a kill may be printed again). With\n"
                              "--into TABLE each batch is appended to that Delta table exactly once\n"
                              "(txn appId = the checkpoint's query id, version = the batch id), as Spark's\n"
                              "Delta sink does. Ends on Ctrl-C (exit 0) or after --max-batches batches.",
               .examples = "  deltalake follow /data/events\n"
                           "  deltalake follow /data/events --from latest --interval 0.2 --format csv\n"
                           "  deltalake follow /data/events --checkpoint /data/_cp/tail --where \"country = 'FR'\"\n"
                           "  deltalake follow /data/events --changes --from 12\n"
                           "  deltalake follow /data/events --checkpoint /data/_cp/copy --into /data/events_copy",
               .opts = follow_opts, .args_size = sizeof(follow_args), .run = follow_run);
