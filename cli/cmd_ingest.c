/* `deltalake ingest`: appends CSV or JSON lines from a file or a pipe to a
 * table in micro-batches, exactly once (deltalake/stream.h).
 *
 * The input position is the count of data rows read. Batch N is first
 * claimed in the checkpoint (offsets/N = its row range, put-if-absent),
 * then written by the sink in one commit with txn(appId, N), then marked
 * done (commits/N). Killed anywhere, a restart on the same input skips
 * the rows of committed batches, replays a claimed batch with exactly its
 * rows under its id (the sink skips it when its commit had landed) and
 * goes on: every row lands once. Each batch's rows are parsed from a
 * temporary file by the library's CSV / JSON lines readers, typed by the
 * table's schema once the table exists. */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <math.h>
#include <poll.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>
#include "table_cli.h"

typedef struct ingest_args {
	const char *table;
	const char *input;
	const char *checkpoint;
	int64_t batch_rows;
	const char *batch_seconds;
	const char *app_id;
	const char *input_format;
} ingest_args;

static const dl_cli_opt ingest_opts[] = {
	DL_CLI_ARG(ingest_args, table, "TABLE", "path or URI of the table (created by the first batch if absent)"),
	DL_CLI_STRING(ingest_args, input, 'i', "input", "FILE|-", NULL, "CSV or JSON lines to append; - reads stdin"),
	DL_CLI_STRING(ingest_args, checkpoint, 0, "checkpoint", "DIR", NULL,
	              "progress of this ingestion (any store URI); required"),
	DL_CLI_INT(ingest_args, batch_rows, 0, "batch-rows", "N", "10000", "rows per batch at most"),
	DL_CLI_STRING(ingest_args, batch_seconds, 0, "batch-seconds", "S", NULL,
	              "also end a batch S seconds after its first row (fractions allowed)"),
	DL_CLI_STRING(ingest_args, app_id, 0, "app-id", "ID", NULL, "the txn app id (default: the checkpoint's query id)"),
	DL_CLI_STRING(ingest_args, input_format, 0, "input-format", "csv|jsonl", NULL,
	              "the input's format (default: by extension, else by its first character)"),
	DL_CLI_END,
};

/* ---- reading records ---- */

typedef struct reader {
	int fd;
	const char *name;
	char *buf;
	size_t len, cap, pos;  /* unconsumed bytes are buf[pos..len) */
	bool eof;
	bool csv;
} reader;

/* Whether a complete record is in the buffer: its length (with the line
 * end) in *n. CSV records may hold newlines inside quotes. */
static bool find_record(reader *r, size_t *n)
{
	bool quoted = false;
	for (size_t i = r->pos; i < r->len; i++) {
		char c = r->buf[i];
		if (r->csv && c == '"') quoted = !quoted;
		else if (c == '\n' && !quoted) {
			*n = i + 1 - r->pos;
			return true;
		}
	}
	if (r->eof && r->len > r->pos) {
		*n = r->len - r->pos;
		return true;
	}
	return false;
}

/* Reads more input, waiting at most timeout_ms (< 0: as long as it
 * takes). 1 when data or EOF came, 0 on timeout. */
static int fill(reader *r, int timeout_ms)
{
	if (r->eof) return 1;
	if (r->pos > 0 && r->pos == r->len) r->pos = r->len = 0;
	if (r->pos > r->cap / 2) {
		memmove(r->buf, r->buf + r->pos, r->len - r->pos);
		r->len -= r->pos;
		r->pos = 0;
	}
	if (r->len + 65536 > r->cap) {
		size_t cap = r->cap ? r->cap * 2 : 1 << 17;
		char *b = dl_cli_realloc(r->buf, cap);
		if (!b) return DL_ENOMEM;
		r->buf = b;
		r->cap = cap;
	}
	if (timeout_ms >= 0) {
		struct pollfd p = {r->fd, POLLIN, 0};
		int rc = poll(&p, 1, timeout_ms);
		if (rc == 0) return 0;
		if (rc < 0 && errno != EINTR) return dl_cli_fail_errno("cannot read the input", r->name);
		if (rc < 0) return 0;
	}
	ssize_t got = read(r->fd, r->buf + r->len, r->cap - r->len);
	if (got < 0) {
		if (errno == EINTR) return 0;
		return dl_cli_fail_errno("cannot read the input", r->name);
	}
	if (got == 0) r->eof = true;
	r->len += (size_t)got;
	return 1;
}

static bool blank(const char *p, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (p[i] != ' ' && p[i] != '\t' && p[i] != '\r' && p[i] != '\n') return false;
	return true;
}

/* The next non-blank record into *rec and *n (borrowed until the next call);
 * 0 with *n = 0 at EOF, or on a timeout when deadline_ns is set. */
static int next_record(reader *r, const char **rec, size_t *n, int64_t deadline_ns)
{
	for (;;) {
		size_t len;
		while (find_record(r, &len)) {
			const char *p = r->buf + r->pos;
			r->pos += len;
			if (blank(p, len)) continue;
			*rec = p;
			*n = len;
			return 0;
		}
		if (r->eof) {
			*n = 0;
			return 0;
		}
		int timeout = -1;
		if (deadline_ns > 0) {
			struct timespec ts;
			clock_gettime(CLOCK_MONOTONIC, &ts);
			int64_t now = (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
			if (now >= deadline_ns) {
				*n = 0;
				return 0;
			}
			timeout = (int)((deadline_ns - now + 999999) / 1000000);
		}
		int rc = fill(r, timeout);
		if (rc < 0) return rc;
		if (rc == 0 && deadline_ns > 0) {
			/* timed out: the caller flushes; a pending partial record stays */
			struct timespec ts;
			clock_gettime(CLOCK_MONOTONIC, &ts);
			if ((int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec >= deadline_ns) {
				*n = 0;
				return 0;
			}
		}
	}
}

/* ---- batches ---- */

typedef struct ingest {
	dl_cli *cli;
	const ingest_args *a;
	reader r;
	dl_cli_buf header;          /* CSV header line */
	dl_cli_buf rows;            /* the batch's records */
	int64_t nrows;
	int64_t position;           /* data rows read so far */
	dl_stream_checkpoint *cp;
	dl_stream_sink *sink;
	int64_t batch_id;
	int64_t batches, rows_written, replayed_skips;
	char *schema_json;
} ingest;

static int load_schema(ingest *g)
{
	free(g->schema_json);
	g->schema_json = NULL;
	dl_snapshot_options so = DL_SNAPSHOT_OPTIONS_INIT;
	so.metadata_only = true;
	so.store_options = dl_cli_store_options(g->cli);
	dl_snapshot *snap;
	int rc = dl_snapshot_open(&snap, g->a->table, &so);
	if (rc == DL_ENOTFOUND) {
		dl_cli_error_clear();
		return 0;
	}
	DL_CLI_TRY(rc);
	g->schema_json = dl_cli_strdup(dl_snapshot_schema_json(snap));
	dl_snapshot_free(snap);
	return g->schema_json ? 0 : DL_ENOMEM;
}

static int write_temp(ingest *g, char *path, size_t cap)
{
	const char *dir = getenv("TMPDIR");
	snprintf(path, cap, "%s/deltalake-ingest-XXXXXX", dir && *dir ? dir : "/tmp");
	int fd = mkstemp(path);
	if (fd < 0) return dl_cli_fail_errno("cannot create a temporary file", path);
	int rc = 0;
	const dl_cli_buf *parts[] = {&g->header, &g->rows};
	for (int i = 0; rc == 0 && i < 2; i++) {
		size_t off = 0;
		while (rc == 0 && off < parts[i]->len) {
			ssize_t w = write(fd, parts[i]->data + off, parts[i]->len - off);
			if (w < 0 && errno == EINTR) continue;
			if (w <= 0) rc = dl_cli_fail_errno("cannot write the temporary file", path);
			else off += (size_t)w;
		}
	}
	if (close(fd) != 0 && rc == 0) rc = dl_cli_fail_errno("cannot write the temporary file", path);
	if (rc < 0) unlink(path);
	return rc;
}

/* Claims, writes and commits the batch of rows [position - nrows, position). */
static int flush(ingest *g)
{
	if (g->nrows == 0) return 0;
	char offset[128];
	snprintf(offset, sizeof offset, "{\"sourceVersion\":1,\"inputRowsStart\":%" PRId64 ",\"inputRowsEnd\":%" PRId64 "}",
	         g->position - g->nrows, g->position);
	DL_CLI_TRY(dl_stream_checkpoint_write_offset(g->cp, g->batch_id, offset));
	char path[4096];
	DL_CLI_TRY(write_temp(g, path, sizeof path));
	struct ArrowArrayStream st;
	int rc;
	if (g->r.csv) {
		dl_csv_options co = DL_CSV_OPTIONS_INIT;
		co.schema_json = g->schema_json;
		rc = dl_read_csv(&st, path, &co);
	} else {
		dl_jsonl_options jo = DL_JSONL_OPTIONS_INIT;
		jo.schema_json = g->schema_json;
		rc = dl_read_jsonl(&st, path, &jo);
	}
	int64_t version = -1;
	if (rc == 0) rc = dl_stream_sink_write(&version, g->sink, g->batch_id, &st);
	unlink(path);
	if (rc < 0)
		return dl_cli_fail(rc, "batch %" PRId64 " (input rows %" PRId64 "..%" PRId64 "): %s", g->batch_id,
		                   g->position - g->nrows + 1, g->position, dl_cli_error_message());
	DL_CLI_TRY(dl_stream_checkpoint_commit(g->cp, g->batch_id));
	if (version < 0) g->replayed_skips++;
	else g->rows_written += g->nrows;
	if (!g->schema_json) DL_CLI_TRY(load_schema(g));
	g->batches++;
	g->batch_id++;
	g->rows.len = 0;
	g->nrows = 0;
	return 0;
}

static int64_t now_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

/* Reads records into batches until EOF. `replay_end` >= 0: the first
 * batch must end exactly there (a claimed batch being redone). */
static int run_batches(ingest *g, int64_t skip, int64_t replay_end, double batch_seconds)
{
	int64_t deadline = 0;
	for (;;) {
		const char *rec = NULL;
		size_t n = 0;
		bool timed = replay_end < 0 && batch_seconds > 0 && g->nrows > 0;
		DL_CLI_TRY(next_record(&g->r, &rec, &n, timed ? deadline : 0));
		if (n == 0 && !g->r.eof) {
			DL_CLI_TRY(flush(g)); /* --batch-seconds passed */
			continue;
		}
		if (n == 0) break;
		if (g->r.csv && g->header.len == 0) {
			DL_CLI_TRY(dl_cli_buf_append(&g->header, rec, n));
			if (rec[n - 1] != '\n') DL_CLI_TRY(dl_cli_buf_putc(&g->header, '\n'));
			continue;
		}
		g->position++;
		if (g->position <= skip) continue;
		if (g->nrows == 0 && batch_seconds > 0) deadline = now_ns() + (int64_t)(batch_seconds * 1e9);
		DL_CLI_TRY(dl_cli_buf_append(&g->rows, rec, n));
		if (rec[n - 1] != '\n') DL_CLI_TRY(dl_cli_buf_putc(&g->rows, '\n'));
		g->nrows++;
		if (replay_end >= 0 ? g->position == replay_end : g->nrows >= g->a->batch_rows) {
			DL_CLI_TRY(flush(g));
			replay_end = -1;
		}
	}
	if (replay_end >= 0)
		return dl_cli_fail(DL_EINVALID, "the input ends at row %" PRId64 ", but batch %" PRId64 " of the checkpoint "
		                   "holds rows up to %" PRId64 ": resume with the same input, or use a new checkpoint",
		                   g->position, g->batch_id, replay_end);
	return flush(g); /* the partial batch at EOF */
}

/* Where the checkpoint says to continue: rows to skip, and a claimed
 * batch to redo. */
static int resume_point(ingest *g, int64_t *skip, int64_t *replay_start, int64_t *replay_end)
{
	*skip = 0;
	*replay_start = *replay_end = -1;
	int64_t last;
	char *text;
	bool committed;
	DL_CLI_TRY(dl_stream_checkpoint_last(&last, &text, &committed, g->cp));
	if (last < 0) return 0;
	long long a = -1, b = -1;
	int ok = sscanf(text, "{\"sourceVersion\":1,\"inputRowsStart\":%lld,\"inputRowsEnd\":%lld}", &a, &b) == 2 &&
	         a >= 0 && b > a;
	dl_free(text);
	if (!ok)
		return dl_cli_fail(DL_EINVALID, "checkpoint %s is not an ingest checkpoint (batch %" PRId64 " has another "
		                   "offset); use a new checkpoint directory", g->a->checkpoint, last);
	if (committed) {
		*skip = b;
		g->batch_id = last + 1;
	} else {
		*skip = a;
		*replay_start = a;
		*replay_end = b;
		g->batch_id = last;
	}
	return 0;
}

static bool ends_with(const char *s, const char *suffix)
{
	size_t n = strlen(s), m = strlen(suffix);
	return n >= m && strcasecmp(s + n - m, suffix) == 0;
}

static int choose_format(ingest *g)
{
	const char *f = g->a->input_format;
	if (f) {
		g->r.csv = !strcmp(f, "csv"); /* checked by ingest_run */
		return 0;
	}
	const char *in = g->a->input;
	if (ends_with(in, ".csv")) g->r.csv = true;
	else if (ends_with(in, ".json") || ends_with(in, ".jsonl") || ends_with(in, ".ndjson")) g->r.csv = false;
	else {
		/* by the first non-blank character: '{' is JSON lines */
		for (;;) {
			while (g->r.pos < g->r.len && strchr(" \t\r\n", g->r.buf[g->r.pos])) g->r.pos++;
			if (g->r.pos < g->r.len || g->r.eof) break;
			DL_CLI_TRY(fill(&g->r, -1));
		}
		g->r.csv = !(g->r.pos < g->r.len && g->r.buf[g->r.pos] == '{');
	}
	return 0;
}

static int ingest_body(ingest *g, double batch_seconds)
{
	DL_CLI_TRY(choose_format(g));
	DL_CLI_TRY(dl_stream_checkpoint_open(&g->cp, g->a->checkpoint, dl_cli_store_options(g->cli)));
	dl_stream_sink_options so = DL_STREAM_SINK_OPTIONS_INIT;
	so.app_id = g->a->app_id;
	so.checkpoint_location = g->a->checkpoint;
	so.store_options = dl_cli_store_options(g->cli);
	DL_CLI_TRY(dl_stream_sink_open(&g->sink, g->a->table, &so));
	DL_CLI_TRY(load_schema(g));
	int64_t skip, rs, re;
	DL_CLI_TRY(resume_point(g, &skip, &rs, &re));
	DL_CLI_TRY(run_batches(g, skip, re, batch_seconds));
	dl_out *o;
	DL_CLI_TRY(dl_cli_out_begin(&o, g->cli, dl_out_kv_columns, 2));
	char v[3][24];
	snprintf(v[0], sizeof v[0], "%" PRId64, g->batches);
	snprintf(v[1], sizeof v[1], "%" PRId64, g->rows_written);
	snprintf(v[2], sizeof v[2], "%" PRId64, g->batch_id);
	int rc = dl_out_kv(o, "batches", v[0]);
	if (rc == 0) rc = dl_out_kv(o, "rows_written", v[1]);
	if (rc == 0) rc = dl_out_kv(o, "next_batch_id", v[2]);
	if (rc == 0) return dl_out_end(o);
	dl_out_free(o);
	return rc;
}

static int ingest_run(dl_cli *cli, const void *args)
{
	const ingest_args *a = args;
	if (!a->input) return dl_cli_usage_error(cli, "--input FILE (or - for stdin) is required");
	if (!a->checkpoint) return dl_cli_usage_error(cli, "--checkpoint DIR is required: it makes the ingestion exactly-once");
	if (a->batch_rows < 1) return dl_cli_usage_error(cli, "--batch-rows must be >= 1");
	if (a->app_id && !*a->app_id) return dl_cli_usage_error(cli, "--app-id is empty");
	if (a->input_format && strcmp(a->input_format, "csv") && strcmp(a->input_format, "jsonl") &&
	    strcmp(a->input_format, "json"))
		return dl_cli_usage_error(cli, "--input-format must be csv or jsonl");
	double batch_seconds = 0;
	if (a->batch_seconds) {
		char *end;
		errno = 0;
		batch_seconds = strtod(a->batch_seconds, &end);
		if (errno || end == a->batch_seconds || *end || !isfinite(batch_seconds) || batch_seconds <= 0 ||
		    batch_seconds > 86400)
			return dl_cli_usage_error(cli, "--batch-seconds '%s' must be a number of seconds above 0 (at most "
			                          "86400; fractions allowed)", a->batch_seconds);
	}
	ingest g;
	memset(&g, 0, sizeof g);
	g.cli = cli;
	g.a = a;
	bool std = !strcmp(a->input, "-");
	g.r.name = std ? "stdin" : a->input;
	g.r.fd = std ? 0 : open(a->input, O_RDONLY | O_CLOEXEC);
	if (g.r.fd < 0) return dl_cli_fail_errno("cannot open the input", a->input);
	int rc = ingest_body(&g, batch_seconds);
	if (!std) close(g.r.fd);
	free(g.r.buf);
	dl_cli_buf_free(&g.header);
	dl_cli_buf_free(&g.rows);
	free(g.schema_json);
	dl_stream_sink_free(g.sink);
	dl_stream_checkpoint_free(g.cp);
	return rc;
}

DL_CLI_COMMAND(ingest, .name = "ingest", .summary = "append CSV or JSON lines from a file or a pipe, exactly once",
               .description = "Reads rows from --input (a file, or - for a pipe) and appends them in\n"
                              "micro-batches of --batch-rows rows (or what arrived within --batch-seconds),\n"
                              "each batch one commit recording txn(app id, batch id). The checkpoint\n"
                              "directory keeps each batch's input rows, so a run killed at any point and\n"
                              "restarted on the same input appends every row exactly once. The partial\n"
                              "batch at the end of the input is written too.",
               .examples = "  deltalake ingest /data/events --input day1.csv --checkpoint /data/_cp/day1\n"
                           "  tail -f app.log.jsonl | deltalake ingest /data/logs -i - --checkpoint /data/_cp/logs \\\n"
                           "      --batch-rows 10000 --batch-seconds 5",
               .opts = ingest_opts, .args_size = sizeof(ingest_args), .run = ingest_run);
