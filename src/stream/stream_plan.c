/* Planning a micro-batch (Spark's DeltaSource.getFileChangesWithRateLimit):
 * which files or commits form the next batch from the stream's position,
 * under the admission limits maxFilesPerTrigger / maxBytesPerTrigger.
 * The initial snapshot's files come first (modificationTime, path), then
 * each commit's data-changing adds in log order (with readChangeFeed its
 * changes), the rules for commits that are not appends applied
 * (stream_rules.c).
 *
 * Positions are DeltaSourceOffsets: (version, index, initial) means every
 * file up to `index` of that version (of its snapshot when `initial`) was
 * taken; index -1 is "none of it yet". A fully read version moves the
 * position to (version + 1, -1), as Spark's isLast file does. */
#include <inttypes.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "json/json.h"
#include "storage/backend.h"
#include "stream/stream_internal.h"
#include "util/error.h"
#include "util/mem.h"

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
int dl_stream_plan_batch(st_plan **out, dl_stream *s)
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
