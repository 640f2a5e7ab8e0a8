/* The streaming source (Spark's DeltaSource): its options, where a stream
 * starts (options or checkpoint), and the batch cycle: plan
 * (stream_plan.c), record the end offset in the checkpoint, read
 * (stream_read.c, stream_changes.c), commit. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "expr/regex_java.h"
#include "log/log_segment.h"
#include "storage/backend.h"
#include "stream/stream_internal.h"
#include "util/buf.h"
#include "util/error.h"
#include "util/mem.h"
#include "util/options.h"

/* ---- starting position ---- */

static int start_from_options(dl_stream *s, dl_stream_offset *pos, const dl_stream_offset *first_end)
{
	int64_t latest = dl_snapshot_version(s->read_snap);
	if (s->o.starting_version >= 0) {
		/* Spark's checkVersionExists(mustBeRecreatable = false): a commit
		 * of the log, not beyond the latest (only commits are read from it,
		 * so no checkpoint is needed there) */
		if (!first_end) {
			/* A store whose listing does not show every commit (a
			 * shared table's: its server knows which versions it
			 * shares) leaves only the upper bound ours to check. */
			int64_t earliest = 0;
			if (dl_store_lists_commits(s->store)) {
				int64_t *versions, *ts;
				size_t n;
				DL_TRY(dl_log_commit_timestamps(s->store, dl_snapshot_props(s->read_snap), &versions, &ts,
				                                &n));
				earliest = n ? versions[0] : latest;
				dl_free(versions);
				dl_free(ts);
			}
			if (s->o.starting_version < earliest || s->o.starting_version > latest)
				return dl_error_set_class(DL_ENOTFOUND, "DELTA_VERSION_NOT_FOUND",
				                          "[DELTA_VERSION_NOT_FOUND] Cannot time travel Delta table to version %"
				                          PRId64 ". Available versions: [%" PRId64 ", %" PRId64 "] (%s: "
				                          "option startingVersion; 'latest' reads only new commits)",
				                          s->o.starting_version, earliest, latest, s->table);
		}
		pos->reservoir_version = s->o.starting_version;
		pos->index = DL_STREAM_BASE_INDEX;
		pos->is_starting_version = false;
		return 0;
	}
	if (s->o.starting_timestamp_ms != DL_NO_TIMESTAMP) {
		/* A store that resolves times itself (a shared table lists no
		 * commit files: its server answers, GET .../version?
		 * startingTimestamp, as DeltaSharingSource asks) decides first. */
		int64_t sv;
		int by_store = dl_store_version_at_timestamp(&sv, s->store, s->o.starting_timestamp_ms,
		                                             DL_STORE_TS_STARTING, false);
		DL_TRY(by_store);
		if (by_store == 1) {
			pos->reservoir_version = sv;
			pos->index = DL_STREAM_BASE_INDEX;
			pos->is_starting_version = false;
			return 0;
		}
		int64_t *versions, *ts;
		size_t n;
		DL_TRY(dl_log_commit_timestamps(s->store, dl_snapshot_props(s->read_snap), &versions, &ts, &n));
		int64_t v = -1;
		for (size_t i = 0; i < n && v < 0; i++)
			if (ts[i] >= s->o.starting_timestamp_ms) v = versions[i];
		int64_t last_ts = n ? ts[n - 1] : 0;
		dl_free(versions);
		dl_free(ts);
		if (v < 0)
			return dl_error_set_class(DL_EINVALID, "DELTA_TIMESTAMP_GREATER_THAN_COMMIT",
			                          "[DELTA_TIMESTAMP_GREATER_THAN_COMMIT] The provided timestamp (%" PRId64
			                          " ms) is after the latest version available to this table (%s). Please "
			                          "use a timestamp before or at %" PRId64 " ms (version %" PRId64 ") "
			                          "(option startingTimestamp)", s->o.starting_timestamp_ms, s->table,
			                          last_ts, latest);
		pos->reservoir_version = v;
		pos->index = DL_STREAM_BASE_INDEX;
		pos->is_starting_version = false;
		return 0;
	}
	if (s->o.starting_version == DL_STREAM_LATEST) {
		pos->reservoir_version = latest + 1;
		pos->index = DL_STREAM_BASE_INDEX;
		pos->is_starting_version = false;
		return 0;
	}
	/* the initial snapshot; replaying batch 0: the snapshot it was planned on
	 * (Spark's extractStartingState) */
	int64_t v = latest;
	if (first_end) v = first_end->is_starting_version ? first_end->reservoir_version : first_end->reservoir_version - 1;
	pos->reservoir_version = v;
	pos->index = DL_STREAM_BASE_INDEX;
	pos->is_starting_version = true;
	return 0;
}

static int parse_checked(dl_stream_offset *o, dl_stream *s, const char *text)
{
	DL_TRY(dl_stream_offset_from_json(o, text, strlen(text)));
	if (strcmp(o->reservoir_id, s->pos.reservoir_id) != 0)
		return dl_error_set_class(DL_EINVALID, "DIFFERENT_DELTA_TABLE_READ_BY_STREAMING_SOURCE",
		                          "The streaming query was reading from an unexpected Delta table (id = '%s'). "
		                          "It used to read from another Delta table (id = '%s') according to the "
		                          "checkpoint %s; use a new checkpoint directory for this table",
		                          s->pos.reservoir_id, o->reservoir_id, s->o.checkpoint_location);
	return 0;
}

/* Resumes from the checkpoint: after its last committed batch, or replays
 * a batch planned but not committed. */
static int resume(dl_stream *s)
{
	int64_t last;
	char *text;
	bool committed;
	DL_TRY(dl_stream_checkpoint_last(&last, &text, &committed, s->cp));
	if (last < 0) return start_from_options(s, &s->pos, NULL);
	dl_stream_offset end;
	int rc = parse_checked(&end, s, text);
	dl_free(text);
	DL_TRY(rc);
	if (committed) {
		s->pos = end;
		s->next_batch_id = last + 1;
		return 0;
	}
	s->forced = true;
	s->forced_end = end;
	s->next_batch_id = last;
	if (last == 0) return start_from_options(s, &s->pos, &end);
	DL_TRY(dl_stream_checkpoint_offset(&text, s->cp, last - 1));
	rc = parse_checked(&s->pos, s, text);
	dl_free(text);
	return rc;
}

/* ---- options ---- */

static int check_options(const dl_stream_options *o)
{
	if (o->starting_version >= 0 || o->starting_version == DL_STREAM_LATEST) {
		if (o->starting_timestamp_ms != DL_NO_TIMESTAMP)
			return dl_error_set_class(DL_EINVALID, "DELTA_STARTING_VERSION_AND_TIMESTAMP_BOTH_SET",
			                          "Please either provide 'startingVersion' or 'startingTimestamp'");
	} else if (o->starting_version != DL_STREAM_NO_VERSION) {
		return dl_error_set_class(DL_EINVALID, "DELTA_ILLEGAL_OPTION",
		                          "Invalid value '%" PRId64 "' for option 'startingVersion', must be greater "
		                          "than or equal to 0, or 'latest'", o->starting_version);
	}
	if (o->max_files_per_trigger < 0)
		return dl_error_set_class(DL_EINVALID, "DELTA_ILLEGAL_OPTION",
		                          "Invalid value '%" PRId64 "' for option 'maxFilesPerTrigger', must be a "
		                          "positive integer", o->max_files_per_trigger);
	if (o->max_bytes_per_trigger < 0)
		return dl_error_set_class(DL_EINVALID, "DELTA_ILLEGAL_OPTION",
		                          "Invalid value '%" PRId64 "' for option 'maxBytesPerTrigger', must be a "
		                          "size configuration such as '10g'", o->max_bytes_per_trigger);
	if (o->ncolumns < 0 || (o->ncolumns > 0 && !o->columns))
		return dl_error_set(DL_EINVALID, "dl_stream_options: columns must hold ncolumns names");
	return 0;
}

static const char *copy_str(dl_stream *s, const char *v)
{
	return v ? dl_arena_strdup(&s->arena, v) : NULL;
}

static int copy_options(dl_stream *s, const dl_stream_options *o)
{
	s->o = *o;
	s->o.exclude_regex = copy_str(s, o->exclude_regex);
	s->o.filter = copy_str(s, o->filter);
	s->o.checkpoint_location = copy_str(s, o->checkpoint_location);
	if ((o->exclude_regex && !s->o.exclude_regex) || (o->filter && !s->o.filter) ||
	    (o->checkpoint_location && !s->o.checkpoint_location)) return DL_ENOMEM;
	if (o->ncolumns > 0) {
		const char **cols = dl_arena_calloc(&s->arena, (size_t)o->ncolumns, sizeof *cols);
		if (!cols) return DL_ENOMEM;
		for (int i = 0; i < o->ncolumns; i++)
			if (!(cols[i] = copy_str(s, o->columns[i]))) return DL_ENOMEM;
		s->o.columns = cols;
	} else {
		s->o.columns = NULL; /* no projection (the scan reads a non-NULL list as "these") */
	}
	s->o.store = NULL;
	s->o.store_options = NULL; /* used at open only */
	return 0;
}

static int compile_exclude(dl_stream *s)
{
	if (!s->o.exclude_regex) return 0;
	dl_buf ere = DL_BUF_INIT;
	char why[256] = "";
	int rc = ex_regex_from_java(&ere, s->o.exclude_regex, strlen(s->o.exclude_regex));
	if (rc < 0) snprintf(why, sizeof why, ": %s", dl_error_last()->message);
	if (rc == DL_ENOMEM) {
		dl_buf_free(&ere);
		return rc;
	}
	if (rc == 0 && regcomp(&s->exclude, ere.data ? ere.data : "", REG_EXTENDED | REG_NOSUB) != 0) rc = DL_EINVALID;
	dl_buf_free(&ere);
	/* Spark's excludeRegexOptionException */
	if (rc < 0)
		return dl_error_set_class(DL_EINVALID, "DELTA_REGEX_OPT_SYNTAX_ERROR",
		                          "[DELTA_REGEX_OPT_SYNTAX_ERROR] Please recheck your syntax for 'excludeRegex': "
		                          "'%s' is not a valid regular expression%s", s->o.exclude_regex, why);
	s->has_exclude = true;
	return 0;
}

/* The table's store. A shared table (src/sharing/client_changes.c) builds
 * its commits from the server's changes endpoint by default, which is what
 * the change data feed reads (a commit with cdc files is only those); a
 * plain stream needs every data-changing add and remove of each version,
 * the query endpoint's startingVersion form, which Spark's
 * DeltaSharingSource reads and which works without the feed. So a plain
 * stream asks for delta-sharing.commits=query, placed first: a later
 * duplicate key wins, so the caller's own choice stands, and other stores
 * ignore the key (a namespaced option is its backend's). */
static int open_table_store(dl_store **out, const char *uri, const dl_stream_options *o)
{
	if (o->read_change_feed) return dl_store_open(out, uri, o->store_options);
	const dl_store_options *given = o->store_options;
	int n = given ? given->noptions : 0;
	const char **keys = dl_calloc((size_t)n + 1, sizeof *keys);
	const char **values = dl_calloc((size_t)n + 1, sizeof *values);
	int rc = keys && values ? 0 : DL_ENOMEM;
	if (rc == 0) {
		dl_store_options so = DL_STORE_OPTIONS_INIT;
		if (given) so = *given;
		so.version = DL_STORE_OPTIONS_VERSION;
		keys[0] = "delta-sharing.commits";
		values[0] = "query";
		for (int i = 0; i < n; i++) {
			keys[i + 1] = given->keys[i];
			values[i + 1] = given->values[i];
		}
		so.keys = keys;
		so.values = values;
		so.noptions = n + 1;
		rc = dl_store_open(out, uri, &so);
	}
	dl_free(keys);
	dl_free(values);
	return rc;
}

static int open_stream(dl_stream *s, const char *uri, const dl_stream_options *o)
{
	DL_TRY(check_options(o));
	DL_TRY(copy_options(s, o));
	if (o->store) {
		s->store = o->store;
	} else {
		if (!uri) return dl_error_set(DL_EINVALID, "dl_stream_open: no table location and no store");
		DL_TRY(open_table_store(&s->store, uri, o));
		s->owns_store = true;
	}
	s->table = dl_strdup(uri ? uri : dl_store_root(s->store));
	if (!s->table) return DL_ENOMEM;
	dl_snapshot_options so = DL_SNAPSHOT_OPTIONS_INIT;
	so.store = s->store;
	so.metadata_only = true;
	DL_TRY(dl_snapshot_open(&s->read_snap, NULL, &so));
	const char *id = dl_snapshot_table_id(s->read_snap);
	if (!id || strlen(id) >= sizeof s->pos.reservoir_id)
		return dl_error_set(DL_ECORRUPT, "%s: metaData.id is missing or too long", s->table);
	strcpy(s->pos.reservoir_id, id);
	dl_scan_options sc = DL_SCAN_OPTIONS_INIT;
	sc.threads = 1;
	if (!s->o.read_change_feed) {
		sc.columns = s->o.columns;
		sc.ncolumns = s->o.ncolumns;
		sc.filter = s->o.filter;
	}
	DL_TRY(dl_scan_open(&s->scan, s->read_snap, &sc));
	if (s->o.read_change_feed) DL_TRY(dl_stream_cdf_init(s));
	DL_TRY(compile_exclude(s));
	if (s->o.checkpoint_location) {
		DL_TRY(dl_stream_checkpoint_open(&s->cp, s->o.checkpoint_location, o->store_options));
		return resume(s);
	}
	return start_from_options(s, &s->pos, NULL);
}

int dl_stream_open(dl_stream **out, const char *uri, const dl_stream_options *opts)
{
	static const size_t ends[] = {sizeof(dl_stream_options)};
	DL_OPTIONS_ENDS_CHECK(ends, DL_STREAM_OPTIONS_VERSION);
	*out = NULL;
	dl_stream_options o = DL_STREAM_OPTIONS_INIT;
	DL_TRY(dl_options_load(&o, opts, ends, DL_STREAM_OPTIONS_VERSION, "dl_stream_options", "DL_STREAM_OPTIONS_INIT"));
	dl_stream *s = dl_calloc(1, sizeof *s);
	if (!s) return DL_ENOMEM;
	int rc = open_stream(s, uri, &o);
	if (rc < 0) {
		dl_stream_close(s);
		return rc;
	}
	*out = s;
	return 0;
}

void dl_stream_close(dl_stream *s)
{
	if (!s) return;
	dl_scan_free(s->scan);
	dl_scan_free(s->cdf_scan);
	dl_type_unref(s->cdf_schema);
	dl_expr_free(s->cdf_filter);
	dl_snapshot_free(s->init_snap);
	dl_free(s->init_order);
	dl_snapshot_free(s->read_snap);
	if (s->has_exclude) regfree(&s->exclude);
	dl_stream_checkpoint_free(s->cp);
	if (s->owns_store) dl_store_free(s->store);
	dl_free(s->table);
	dl_arena_free(&s->arena);
	dl_free(s);
}

/* ---- batches ---- */

int dl_stream_next_batch(struct ArrowArrayStream *out, dl_stream_offset *end, int64_t *batch_id, dl_stream *s)
{
	memset(out, 0, sizeof *out);
	*end = s->pos;
	*batch_id = s->next_batch_id;
	if (s->pending) {
		/* the last batch was not committed: the same one again */
		s->forced = true;
		s->forced_end = s->pending_end;
		s->pending = false;
	}
	st_plan *p;
	DL_TRY(dl_stream_plan_batch(&p, s));
	if (p->n == 0) {
		/* no rows to read. When the offset still moved (commits that add
		 * nothing, skipped commits, excluded files) Spark runs an empty
		 * micro-batch: its offset and commit are recorded, so a restart
		 * resumes after those commits. A replayed batch that is empty is
		 * done the same way. */
		bool moved = s->forced || !dl_stream_offset_equal(&p->end, &s->pos);
		int rc = 0;
		if (moved && s->cp) {
			char *json;
			rc = dl_stream_offset_to_json(&json, &p->end);
			if (rc == 0) rc = dl_stream_checkpoint_write_offset(s->cp, s->next_batch_id, json);
			dl_free(json);
			if (rc == 0) rc = dl_stream_checkpoint_commit(s->cp, s->next_batch_id);
		}
		if (rc == 0 && moved) {
			s->pos = p->end;
			s->next_batch_id++;
			s->forced = false;
		}
		dl_stream_plan_free(p);
		return rc;
	}
	int rc = 0;
	if (s->cp) {
		char *json;
		rc = dl_stream_offset_to_json(&json, &p->end);
		if (rc == 0) rc = dl_stream_checkpoint_write_offset(s->cp, s->next_batch_id, json);
		dl_free(json);
	}
	dl_batch_stream *bs = NULL;
	dl_stream_offset e = p->end;
	if (rc == 0) rc = s->o.read_change_feed ? dl_stream_cdf_batches(&bs, s, p) : dl_stream_file_batches(&bs, s, p);
	else dl_stream_plan_free(p);
	if (rc == 0) rc = dl_batch_stream_export(out, bs);
	if (rc < 0) return rc;
	s->forced = false;
	s->pending = true;
	s->pending_end = e;
	*end = e;
	return 0;
}

int dl_stream_commit(dl_stream *s, const dl_stream_offset *end)
{
	if (!s->pending || !dl_stream_offset_equal(end, &s->pending_end))
		return dl_error_set(DL_EINVALID, "dl_stream_commit: the offset is not the end of the last batch "
		                    "returned by dl_stream_next_batch");
	if (s->cp) DL_TRY(dl_stream_checkpoint_commit(s->cp, s->next_batch_id));
	s->pos = *end;
	s->pending = false;
	s->next_batch_id++;
	return 0;
}

void dl_stream_position(dl_stream_offset *out, const dl_stream *s)
{
	*out = s->pos;
}
