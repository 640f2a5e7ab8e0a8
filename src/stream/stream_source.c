/* The streaming source (Spark's DeltaSource): where a stream starts, how a
 * micro-batch is planned (the initial snapshot's files, then each commit's
 * added files, admitted under maxFilesPerTrigger / maxBytesPerTrigger),
 * and the offsets it hands out and records in the checkpoint.
 *
 * Positions are DeltaSourceOffsets: (version, index, initial) means every
 * file up to `index` of that version (of its snapshot when `initial`) was
 * taken; index -1 is "none of it yet". A fully read version moves the
 * position to (version + 1, -1), as Spark's isLast file does. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "expr/regex_java.h"
#include "json/json.h"
#include "log/log_segment.h"
#include "log/schema.h"
#include "storage/backend.h"
#include "stream/stream_internal.h"
#include "util/buf.h"
#include "util/error.h"
#include "util/mem.h"
#include "util/options.h"

/* ---- reading a commit ---- */

typedef struct collect_ctx {
	st_commit *c;
	dl_arena *arena;
	const char *what;
} collect_ctx;

static int collect(const dl_json *line, int64_t lineno, void *payload)
{
	(void)lineno;
	collect_ctx *x = payload;
	dl_action a;
	DL_TRY(dl_action_from_json(&a, x->arena, line, x->what));
	if (a.kind == DL_ACTION_UNKNOWN) return 0;
	st_commit *c = x->c;
	if (c->n == c->cap) {
		size_t cap = c->cap ? c->cap * 2 : 16;
		dl_action *p = dl_reallocarray(c->items, cap, sizeof *p);
		if (!p) return DL_ENOMEM;
		c->items = p;
		c->cap = cap;
	}
	c->items[c->n++] = a;
	return 0;
}

/* Whether the log has a commit after `version` (a missing commit with
 * later ones means the log was cleaned up past the stream). */
static int later_commit_exists(bool *out, dl_store *st, int64_t version)
{
	*out = false;
	char name[32];
	snprintf(name, sizeof name, "%020" PRId64 ".json", version + 1);
	dl_object_list l;
	DL_TRY(dl_store_list_from(&l, st, "_delta_log", name));
	for (size_t i = 0; i < l.count && !*out; i++) {
		const char *p = strrchr(l.items[i].path, '/');
		p = p ? p + 1 : l.items[i].path;
		size_t n = strlen(p);
		*out = n == 25 && strcmp(p + 20, ".json") == 0;
	}
	dl_object_list_free(&l);
	return 0;
}

int dl_stream_read_commit(st_commit *c, dl_arena *arena, dl_stream *s, int64_t version, bool *missing)
{
	memset(c, 0, sizeof *c);
	*missing = false;
	char path[64];
	snprintf(path, sizeof path, "_delta_log/%020" PRId64 ".json", version);
	uint8_t *data;
	size_t len;
	int rc = dl_store_get(&data, &len, s->store, path);
	if (rc == DL_ENOTFOUND) {
		bool later;
		DL_TRY(later_commit_exists(&later, s->store, version));
		if (later)
			return dl_error_set(DL_ENOTFOUND, "commit %" PRId64 " (%s) of %s is missing: the log was cleaned up "
			                    "past the stream's position; restart the stream with a new checkpoint", version,
			                    path, s->table);
		*missing = true;
		return 0;
	}
	DL_TRY(rc);
	collect_ctx x = {c, arena, path};
	rc = dl_json_parse_lines(arena, (const char *)data, len, path, collect, &x);
	dl_free(data);
	return rc;
}

/* ---- plans ---- */

static int plan_push(st_plan *p, st_unit u)
{
	if (p->n == p->cap) {
		size_t cap = p->cap ? p->cap * 2 : 32;
		st_unit *q = dl_reallocarray(p->units, cap, sizeof *q);
		if (!q) return DL_ENOMEM;
		p->units = q;
		p->cap = cap;
	}
	p->units[p->n++] = u;
	return 0;
}

void dl_stream_plan_free(st_plan *p)
{
	if (!p) return;
	dl_free(p->units);
	dl_arena_free(&p->arena);
	dl_snapshot_free(p->snap);
	dl_free(p);
}

/* Spark's AdmissionLimits: a file is taken while files and bytes remain
 * before it (so the first always is, and the last may overshoot the
 * bytes); a whole commit (readChangeFeed) is taken when it is the first or
 * fits. Replaying a planned batch admits exactly up to its end. */
typedef struct admission {
	int64_t files_left, bytes_left;
	bool taken_any;
} admission;

static void admission_init(admission *a, const dl_stream_options *o)
{
	a->files_left = o->max_files_per_trigger > 0 ? o->max_files_per_trigger
	                : o->max_bytes_per_trigger > 0 ? INT64_MAX : 1000;
	a->bytes_left = o->max_bytes_per_trigger > 0 ? o->max_bytes_per_trigger : INT64_MAX;
	a->taken_any = false;
}

static bool admit_file(admission *a, int64_t size)
{
	bool ok = a->files_left > 0 && a->bytes_left > 0;
	if (ok) {
		a->files_left--;
		a->bytes_left = size > 0 && a->bytes_left != INT64_MAX ? a->bytes_left - size : a->bytes_left;
		a->taken_any = true;
	}
	return ok;
}

static bool admit_commit(admission *a, int64_t files, int64_t bytes)
{
	if (files == 0) return true;
	bool ok = !a->taken_any || (a->files_left >= files && (a->bytes_left == INT64_MAX || a->bytes_left >= bytes));
	if (ok) {
		a->files_left -= files;
		if (a->bytes_left != INT64_MAX) a->bytes_left -= bytes;
		a->taken_any = true;
	}
	return ok;
}

/* Within a replayed batch's range (up to and including its end). */
static bool within_forced(const dl_stream *s, int64_t version, int64_t index, bool initial)
{
	const dl_stream_offset *f = &s->forced_end;
	if (version != f->reservoir_version) return version < f->reservoir_version;
	return initial == f->is_starting_version && index <= f->index;
}

static bool excluded(const dl_stream *s, const char *path)
{
	return s->has_exclude && regexec(&s->exclude, path, 0, NULL, 0) == 0;
}

static void set_end(st_plan *p, int64_t v, int64_t index, bool initial)
{
	p->end.reservoir_version = v;
	p->end.index = index;
	p->end.is_starting_version = initial;
}

/* (modificationTime, path), the order of Spark's initial snapshot. */
static const dl_log_state *sort_state;
static int init_cmp(const void *a, const void *b)
{
	const dl_add *x = dl_log_state_add(sort_state, *(const size_t *)a);
	const dl_add *y = dl_log_state_add(sort_state, *(const size_t *)b);
	if (x->modification_time != y->modification_time) return x->modification_time < y->modification_time ? -1 : 1;
	return strcmp(x->path, y->path);
}

static int load_initial_snapshot(dl_stream *s, int64_t version)
{
	if (s->init_snap && dl_snapshot_version(s->init_snap) == version) return 0;
	dl_snapshot_free(s->init_snap);
	dl_free(s->init_order);
	s->init_snap = NULL;
	s->init_order = NULL;
	dl_snapshot_options so = DL_SNAPSHOT_OPTIONS_INIT;
	so.as_of_version = version;
	so.skip_tombstones = true;
	so.store = s->store;
	DL_TRY(dl_snapshot_open(&s->init_snap, NULL, &so));
	const dl_log_state *st = dl_snapshot_state(s->init_snap);
	s->ninit = st->nadds;
	s->init_order = dl_malloc((s->ninit ? s->ninit : 1) * sizeof *s->init_order);
	if (!s->init_order) return DL_ENOMEM;
	for (size_t i = 0; i < s->ninit; i++) s->init_order[i] = i;
	/* qsort has no payload argument; the planner runs on one thread per
	 * stream, and this static is only read inside this call */
	static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
	pthread_mutex_lock(&lock);
	sort_state = st;
	qsort(s->init_order, s->ninit, sizeof *s->init_order, init_cmp);
	pthread_mutex_unlock(&lock);
	return 0;
}

/* The initial snapshot's files after the position. Returns 1 when the
 * batch is full (the plan ends inside the snapshot). */
static int plan_snapshot(dl_stream *s, st_plan *p, admission *a)
{
	int64_t v = s->pos.reservoir_version;
	DL_TRY(load_initial_snapshot(s, v));
	const dl_log_state *st = dl_snapshot_state(s->init_snap);
	for (size_t i = (size_t)(s->pos.index + 1); i < s->ninit; i++) {
		const dl_add *add = dl_log_state_add(st, s->init_order[i]);
		if (excluded(s, add->path)) continue;
		bool ok = s->forced ? within_forced(s, v, (int64_t)i, true) : admit_file(a, add->size);
		if (!ok) return 1;
		DL_TRY(plan_push(p, (st_unit){s->o.read_change_feed ? ST_SNAPSHOT_INSERT : ST_FILE, v, add}));
		set_end(p, v, (int64_t)i, true);
	}
	set_end(p, v + 1, DL_STREAM_BASE_INDEX, false);
	return 0;
}

/* The stream's schema must still be readable from the new one: every
 * column there, with its type, and not newly nullable. */
int dl_stream_check_schema(dl_stream *s, const dl_metadata *m, int64_t version)
{
	const dl_type *old = dl_snapshot_schema(s->read_snap);
	if (!old || !m->schema_string) return 0;
	dl_type *nw;
	int rc = dl_schema_parse(&nw, m->schema_string, strlen(m->schema_string));
	if (rc < 0) return dl_error_prefix("the schema of version %" PRId64, version);
	bool ok = true;
	for (int i = 0; ok && i < old->nchildren; i++) {
		const dl_field *f = &old->children[i], *g = NULL;
		for (int j = 0; j < nw->nchildren && !g; j++)
			if (strcasecmp(nw->children[j].name, f->name) == 0) g = &nw->children[j];
		ok = g && dl_type_equals(f->type, g->type) && (f->nullable || !g->nullable);
	}
	dl_type_unref(nw);
	if (ok) return 0;
	return dl_error_set_class(DL_ESCHEMA, "DELTA_SCHEMA_CHANGED_WITH_VERSION",
	                          "Detected schema change in version %" PRId64 " of %s: the streaming source "
	                          "schema (of version %" PRId64 ") is not readable from the data file schema %s. "
	                          "Please try restarting the query; if this repeats without making progress, "
	                          "you made an incompatible schema change and need to start from scratch using "
	                          "a new checkpoint directory",
	                          version, s->table, dl_snapshot_version(s->read_snap), m->schema_string);
}

static bool has_dv(const st_commit *c)
{
	for (size_t i = 0; i < c->n; i++) {
		const dl_action *x = &c->items[i];
		if ((x->kind == DL_ACTION_ADD && x->u.add.data_change && x->u.add.dv) ||
		    (x->kind == DL_ACTION_REMOVE && x->u.remove.data_change && x->u.remove.dv))
			return true;
	}
	return false;
}

/* readChangeFeed over a commit of adds and removes only (no cdc files, no
 * deletion vectors): admitted file by file, as Spark's filterFiles, the
 * index counting its data-changing adds and removes in log order. Taken
 * whole from its start, it is one ST_COMMIT_CHANGES (the rows of
 * deltalake/changes.h); split, each file is its own unit. */
static int plan_change_files(dl_stream *s, st_plan *p, admission *a, const st_commit *c, int64_t v)
{
	size_t first = p->n;
	bool whole = !(v == s->pos.reservoir_version && s->pos.index >= 0 && !s->pos.is_starting_version);
	int64_t index = -1;
	int rc = 0;
	for (size_t i = 0; rc == 0 && i < c->n; i++) {
		const dl_action *x = &c->items[i];
		bool add = x->kind == DL_ACTION_ADD && x->u.add.data_change;
		bool rem = x->kind == DL_ACTION_REMOVE && x->u.remove.data_change;
		if (!add && !rem) continue;
		index++;
		if (!whole && index <= s->pos.index) continue;
		int64_t size = add ? x->u.add.size : x->u.remove.size != DL_NONE ? x->u.remove.size : 0;
		bool ok = s->forced ? within_forced(s, v, index, false) : admit_file(a, size);
		if (!ok) {
			whole = false;
			rc = 1;
			break;
		}
		dl_add *f = dl_arena_alloc(&p->arena, sizeof *f);
		if (!f) return DL_ENOMEM;
		if (add) {
			*f = x->u.add;
		} else {
			const dl_remove *r = &x->u.remove;
			memset(f, 0, sizeof *f);
			f->path = r->path;
			f->partition_values = r->partition_values;
			f->size = r->size != DL_NONE ? r->size : 0;
			f->stats = r->stats;
			f->stats_len = r->stats_len;
			f->data_change = true;
			f->tags = r->tags;
			f->base_row_id = r->base_row_id;
			f->default_row_commit_version = r->default_row_commit_version;
		}
		DL_TRY(plan_push(p, (st_unit){add ? ST_CHANGE_INSERT : ST_CHANGE_DELETE, v, f}));
		set_end(p, v, index, false);
	}
	if (rc == 0) set_end(p, v + 1, DL_STREAM_BASE_INDEX, false);
	if (whole && p->n > first) {
		p->n = first;
		DL_TRY(plan_push(p, (st_unit){ST_COMMIT_CHANGES, v, NULL}));
	}
	return rc;
}

/* Commit v's units. Returns 1 when the batch is full before the end of v. */
static int plan_commit(dl_stream *s, st_plan *p, admission *a, const st_commit *c, int64_t v)
{
	bool skip;
	DL_TRY(dl_stream_check_commit(&skip, s, c, v));
	if (s->o.read_change_feed) {
		/* DeltaSourceCDCSupport.filterCDCActions: a commit with cdc files
		 * is its cdc files; otherwise its data-changing adds and removes
		 * (a remove without a size counts 0 bytes, as getFileSize) */
		int64_t files = 0, bytes = 0, cdc_files = 0, cdc_bytes = 0;
		for (size_t i = 0; i < c->n; i++) {
			const dl_action *x = &c->items[i];
			if (x->kind == DL_ACTION_CDC) {
				cdc_files++;
				cdc_bytes += x->u.cdc.size;
			} else if (x->kind == DL_ACTION_ADD && x->u.add.data_change) {
				files++;
				bytes += x->u.add.size;
			} else if (x->kind == DL_ACTION_REMOVE && x->u.remove.data_change) {
				files++;
				bytes += x->u.remove.size != DL_NONE ? x->u.remove.size : 0;
			}
		}
		if (cdc_files > 0) files = cdc_files, bytes = cdc_bytes;
		if (cdc_files == 0 && !has_dv(c)) return plan_change_files(s, p, a, c, v);
		/* cdc files, or deletion vectors (an add/remove pair must not be
		 * split): all or nothing, as Spark */
		bool ok = s->forced ? within_forced(s, v + 1, DL_STREAM_BASE_INDEX, false) : admit_commit(a, files, bytes);
		if (!ok) return 1;
		if (files > 0) DL_TRY(plan_push(p, (st_unit){ST_COMMIT_CHANGES, v, NULL}));
		set_end(p, v + 1, DL_STREAM_BASE_INDEX, false);
		return 0;
	}
	int64_t index = -1;
	for (size_t i = 0; !skip && i < c->n; i++) {
		const dl_action *x = &c->items[i];
		if (x->kind != DL_ACTION_ADD || !x->u.add.data_change) continue;
		index++;
		if (v == s->pos.reservoir_version && index <= s->pos.index) continue;
		if (excluded(s, x->u.add.path)) continue;
		bool ok = s->forced ? within_forced(s, v, index, false) : admit_file(a, x->u.add.size);
		if (!ok) return 1;
		/* the commit's action array goes after planning; the add's strings
		 * are in the plan's arena already */
		dl_add *copy = dl_arena_alloc(&p->arena, sizeof *copy);
		if (!copy) return DL_ENOMEM;
		*copy = x->u.add;
		DL_TRY(plan_push(p, (st_unit){ST_FILE, v, copy}));
		set_end(p, v, index, false);
	}
	set_end(p, v + 1, DL_STREAM_BASE_INDEX, false);
	return 0;
}

/* The next batch from s->pos: its units and end offset. */
static int plan_batch(st_plan **out, dl_stream *s)
{
	*out = NULL;
	st_plan *p = dl_calloc(1, sizeof *p);
	if (!p) return DL_ENOMEM;
	p->end = s->pos;
	admission a;
	admission_init(&a, &s->o);
	int rc = 0, full = 0;
	if (s->pos.is_starting_version) {
		rc = plan_snapshot(s, p, &a);
		if (rc == 1) full = 1, rc = 0;
	}
	for (int64_t v = p->end.reservoir_version; rc == 0 && !full; v++) {
		if (s->forced && v > s->forced_end.reservoir_version) break;
		if (s->forced && v == s->forced_end.reservoir_version && s->forced_end.index == DL_STREAM_BASE_INDEX &&
		    !s->forced_end.is_starting_version) break;
		st_commit c;
		bool missing;
		size_t before = p->n;
		rc = dl_stream_read_commit(&c, &p->arena, s, v, &missing);
		if (rc == 0 && missing) {
			dl_free(c.items);
			break;
		}
		/* commit v's actions live in p->arena: the units point into them */
		dl_stream_offset saved = p->end;
		if (rc == 0) rc = plan_commit(s, p, &a, &c, v);
		dl_free(c.items);
		if (rc == 1) full = 1, rc = 0;
		if (rc < 0 && before > 0 && !s->forced) {
			/* deliver what was taken before the failing commit; the error
			 * comes back when the next batch reads that commit again */
			p->n = before;
			p->end = saved;
			rc = 0;
			break;
		}
	}
	if (rc < 0) {
		dl_stream_plan_free(p);
		return rc;
	}
	/* the initial snapshot is done: the plan's units may point into it,
	 * so the plan keeps it until the batch is read */
	if (!p->end.is_starting_version && s->init_snap) {
		p->snap = s->init_snap;
		dl_free(s->init_order);
		s->init_snap = NULL;
		s->init_order = NULL;
	}
	*out = p;
	return 0;
}

/* ---- starting position ---- */

static int start_from_options(dl_stream *s, dl_stream_offset *pos, const dl_stream_offset *first_end)
{
	int64_t latest = dl_snapshot_version(s->read_snap);
	if (s->o.starting_version >= 0) {
		if (s->o.starting_version > latest && !first_end)
			return dl_error_set(DL_EINVALID, "startingVersion %" PRId64 " is after the latest version %" PRId64
			                    " of %s; use a version <= %" PRId64 " or 'latest'",
			                    s->o.starting_version, latest, s->table, latest);
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
			                          "The provided timestamp (%" PRId64 " ms) is after the latest version "
			                          "available to this table (%" PRId64 " ms, version %" PRId64 "); give "
			                          "an earlier startingTimestamp", s->o.starting_timestamp_ms, last_ts, latest);
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
	int rc = ex_regex_from_java(&ere, s->o.exclude_regex, strlen(s->o.exclude_regex));
	if (rc == 0 && regcomp(&s->exclude, ere.data ? ere.data : "", REG_EXTENDED | REG_NOSUB) != 0)
		rc = dl_error_set(DL_EINVALID, "excludeRegex '%s' does not compile", s->o.exclude_regex);
	dl_buf_free(&ere);
	if (rc < 0) return dl_error_prefix("option excludeRegex");
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
	DL_TRY(plan_batch(&p, s));
	if (p->n == 0) {
		/* nothing to read (skipped or empty commits): move on quietly;
		 * a replayed range that is empty is done too */
		s->pos = p->end;
		s->forced = false;
		dl_stream_plan_free(p);
		return 0;
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
