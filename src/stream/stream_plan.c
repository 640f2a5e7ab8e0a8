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

/* The first commit of the log after `version`, or -1 (a missing commit
 * with later ones means the log was cleaned up past the stream). */
static int later_commit(int64_t *out, dl_store *st, int64_t version)
{
	*out = -1;
	char name[32];
	snprintf(name, sizeof name, "%020" PRId64 ".json", version + 1);
	dl_object_list l;
	DL_TRY(dl_store_list_from(&l, st, "_delta_log", name));
	for (size_t i = 0; i < l.count && *out < 0; i++) {
		const char *p = strrchr(l.items[i].path, '/');
		p = p ? p + 1 : l.items[i].path;
		size_t n = strlen(p);
		if (n == 25 && strcmp(p + 20, ".json") == 0 && strspn(p, "0123456789") == 20)
			*out = strtoll(p, NULL, 10);
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
		int64_t later;
		DL_TRY(later_commit(&later, s->store, version));
		/* Spark's failOnDataLossException (failOnDataLoss = false, reading
		 * on past the gap, is not offered) */
		if (later >= 0)
			return dl_error_set_class(DL_ENOTFOUND, "DELTA_MISSING_FILES_UNEXPECTED_VERSION",
			                          "[DELTA_MISSING_FILES_UNEXPECTED_VERSION] The stream from your Delta table "
			                          "was expecting process data from version %" PRId64 ", but the earliest "
			                          "available version in the _delta_log directory is %" PRId64 " (%s is "
			                          "missing in %s). The files in the transaction log may have been deleted due "
			                          "to log cleanup. In order to avoid losing data, we recommend that you "
			                          "restart your stream with a new checkpoint location and to increase your "
			                          "delta.logRetentionDuration setting, if you have explicitly set it below "
			                          "30 days", version, later, path, s->table);
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

/* Spark's admit(None), for the entry that marks a commit's start: taken
 * while the limits have room; it takes none of them. */
static bool admit_none(admission *a)
{
	a->taken_any = true;
	return a->files_left > 0 && a->bytes_left > 0;
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

bool dl_stream_excluded(const dl_stream *s, const char *path)
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

/* The initial snapshot's files after the position. Its files never end a
 * version (Spark's DeltaSourceSnapshot marks none isLast): after the last
 * one the end is (version, last index, initial), and the commits follow.
 * Without readChangeFeed excluded files count toward the limits (Spark
 * drops them only when reading the batch); with it they do not (its
 * filterFiles drops them first). Returns 1 when the batch is full. */
static int plan_snapshot(dl_stream *s, st_plan *p, admission *a)
{
	int64_t v = s->pos.reservoir_version;
	DL_TRY(load_initial_snapshot(s, v));
	const dl_log_state *st = dl_snapshot_state(s->init_snap);
	for (size_t i = (size_t)(s->pos.index + 1); i < s->ninit; i++) {
		const dl_add *add = dl_log_state_add(st, s->init_order[i]);
		bool skip = dl_stream_excluded(s, add->path);
		if (skip && s->o.read_change_feed) continue;
		bool ok = s->forced ? within_forced(s, v, (int64_t)i, true) : admit_file(a, add->size);
		if (!ok) return 1;
		if (!skip) DL_TRY(plan_push(p, (st_unit){s->o.read_change_feed ? ST_SNAPSHOT_INSERT : ST_FILE, v, add}));
		set_end(p, v, (int64_t)i, true);
	}
	return 0;
}

/* Spark's IndexedFile(v, BASE_INDEX): every commit after the position
 * starts with an entry that holds no file, so the offset moves onto a
 * commit that adds nothing (OPTIMIZE, a skipped or empty commit) as
 * (v, -1): a restart neither reads such a commit again for rows nor skips
 * the one after it. Returns 1 when the batch is full. */
static int plan_commit_start(dl_stream *s, st_plan *p, admission *a, int64_t v)
{
	if (v <= s->pos.reservoir_version) return 0; /* the position's own commit */
	bool ok = s->forced ? within_forced(s, v, DL_STREAM_BASE_INDEX, false) : admit_none(a);
	if (!ok) return 1;
	set_end(p, v, DL_STREAM_BASE_INDEX, false);
	return 0;
}

/* The end offset after taking file `index` of `last + 1` files of v: the
 * last moves to the start of the next version (Spark's isLast). */
static void set_file_end(st_plan *p, int64_t v, int64_t index, int64_t last)
{
	if (index == last) set_end(p, v + 1, DL_STREAM_BASE_INDEX, false);
	else set_end(p, v, index, false);
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

/* CDCReader.shouldSkipFileActionsInCommit: a MERGE whose metrics say it
 * inserted, updated and deleted no row rewrote files without changing
 * data; its files give no change rows (a missing metric: not skipped). */
static int noop_merge(bool *out, dl_arena *arena, const st_commit *c, int64_t v)
{
	*out = false;
	for (size_t i = 0; i < c->n; i++) {
		const dl_action *x = &c->items[i];
		if (x->kind != DL_ACTION_COMMIT_INFO || !x->u.commit_info.operation ||
		    strcmp(x->u.commit_info.operation, "MERGE") != 0 || !x->u.commit_info.json)
			continue;
		char what[48];
		snprintf(what, sizeof what, "commitInfo of version %" PRId64, v);
		dl_json *ci;
		DL_TRY(dl_json_parse(arena, x->u.commit_info.json, strlen(x->u.commit_info.json), what, &ci));
		const dl_json *m = dl_json_get(ci, "operationMetrics");
		static const char *const keys[] = {"numTargetRowsInserted", "numTargetRowsUpdated", "numTargetRowsDeleted"};
		bool zero = m != NULL;
		for (size_t k = 0; zero && k < 3; k++) {
			const dl_json *n = dl_json_get(m, keys[k]);
			zero = n && n->kind == DL_JSON_STRING && n->u.str.len == 1 && n->u.str.ptr[0] == '0';
		}
		*out = zero;
	}
	return 0;
}

/* readChangeFeed over a commit (DeltaSourceCDCSupport.filterFiles). Its
 * files are its cdc files when it has any, else its data-changing adds and
 * removes, indexed in log order; excluded files (and all of a no-op MERGE)
 * are left out before admission. cdc files and deletion vectors (an
 * add/remove pair must not be split) are taken all or none, with no start
 * entry; plain adds and removes file by file after the start entry. Taken
 * whole from the commit's start the commit is one ST_COMMIT_CHANGES (the
 * rows of deltalake/changes.h, excluded files left out); split, each file
 * is its own unit. Returns 1 when the batch is full. */
static int plan_commit_cdf(dl_stream *s, st_plan *p, admission *a, const st_commit *c, int64_t v)
{
	bool noop;
	DL_TRY(noop_merge(&noop, &p->arena, c, v));
	bool cdc = false;
	for (size_t i = 0; i < c->n && !cdc; i++) cdc = c->items[i].kind == DL_ACTION_CDC;
	bool dv = !cdc && has_dv(c);
	if (cdc) noop = false; /* Spark decides the skip only for commits without cdc files */
	int64_t after = v == s->pos.reservoir_version && !s->pos.is_starting_version ? s->pos.index : DL_STREAM_BASE_INDEX;
	bool whole = after == DL_STREAM_BASE_INDEX;
	/* the files, their indexes and the last index */
	int64_t last = -1, files = 0, bytes = 0, top = -1;
	for (size_t i = 0; i < c->n; i++) {
		const dl_action *x = &c->items[i];
		bool is = cdc ? x->kind == DL_ACTION_CDC
		              : (x->kind == DL_ACTION_ADD && x->u.add.data_change) ||
		                    (x->kind == DL_ACTION_REMOVE && x->u.remove.data_change);
		if (!is) continue;
		last++;
		const char *path = x->kind == DL_ACTION_CDC ? x->u.cdc.path : x->kind == DL_ACTION_ADD ? x->u.add.path
		                                                                                       : x->u.remove.path;
		if (last <= after || noop || dl_stream_excluded(s, path)) continue;
		files++;
		bytes += x->kind == DL_ACTION_CDC ? x->u.cdc.size : x->kind == DL_ACTION_ADD ? x->u.add.size
		         : x->u.remove.size != DL_NONE ? x->u.remove.size : 0;
		top = last;
	}
	if (cdc || dv) {
		if (dv && files == 0) return plan_commit_start(s, p, a, v);
		if (files == 0) return 0; /* nothing of it: the end stays (Spark: an empty admit) */
		dl_stream_offset e = {{0}, 0, 0, false};
		e.reservoir_version = top == last ? v + 1 : v;
		e.index = top == last ? DL_STREAM_BASE_INDEX : top;
		bool ok = s->forced ? dl_stream_offset_cmp(&e, &s->forced_end) <= 0 : admit_commit(a, files, bytes);
		if (!ok) return 1;
		DL_TRY(plan_push(p, (st_unit){ST_COMMIT_CHANGES, v, NULL}));
		set_file_end(p, v, top, last);
		return 0;
	}
	if (plan_commit_start(s, p, a, v)) return 1;
	size_t first = p->n;
	int64_t index = -1;
	int rc = 0;
	for (size_t i = 0; i < c->n; i++) {
		const dl_action *x = &c->items[i];
		bool add = x->kind == DL_ACTION_ADD && x->u.add.data_change;
		bool rem = x->kind == DL_ACTION_REMOVE && x->u.remove.data_change;
		if (!add && !rem) continue;
		index++;
		if (index <= after || noop || dl_stream_excluded(s, add ? x->u.add.path : x->u.remove.path)) continue;
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
		set_file_end(p, v, index, last);
	}
	if (whole && p->n > first) {
		p->n = first;
		DL_TRY(plan_push(p, (st_unit){ST_COMMIT_CHANGES, v, NULL}));
	}
	return rc;
}

/* Commit v's units (DeltaSource.getFileChanges): its start entry, then
 * its data-changing adds in log order, indexed from 0; a skipped commit
 * has only the start entry. Excluded files count toward the limits and
 * the offsets but are not read (Spark filters them in
 * getFileChangesAndCreateDataFrame). Returns 1 when the batch is full. */
static int plan_commit(dl_stream *s, st_plan *p, admission *a, const st_commit *c, int64_t v)
{
	bool skip;
	DL_TRY(dl_stream_check_commit(&skip, s, c, v));
	if (s->o.read_change_feed) return plan_commit_cdf(s, p, a, c, v);
	if (plan_commit_start(s, p, a, v)) return 1;
	if (skip) return 0;
	int64_t last = -1;
	for (size_t i = 0; i < c->n; i++)
		if (c->items[i].kind == DL_ACTION_ADD && c->items[i].u.add.data_change) last++;
	int64_t after = v == s->pos.reservoir_version ? s->pos.index : DL_STREAM_BASE_INDEX;
	int64_t index = -1;
	for (size_t i = 0; i < c->n; i++) {
		const dl_action *x = &c->items[i];
		if (x->kind != DL_ACTION_ADD || !x->u.add.data_change) continue;
		index++;
		if (index <= after) continue;
		bool ok = s->forced ? within_forced(s, v, index, false) : admit_file(a, x->u.add.size);
		if (!ok) return 1;
		set_file_end(p, v, index, last);
		if (dl_stream_excluded(s, x->u.add.path)) continue;
		/* the commit's action array goes after planning; the add's strings
		 * are in the plan's arena already */
		dl_add *copy = dl_arena_alloc(&p->arena, sizeof *copy);
		if (!copy) return DL_ENOMEM;
		*copy = x->u.add;
		DL_TRY(plan_push(p, (st_unit){ST_FILE, v, copy}));
	}
	return 0;
}

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
	int64_t first = s->pos.reservoir_version + (s->pos.is_starting_version ? 1 : 0);
	for (int64_t v = first; rc == 0 && !full; v++) {
		if (s->forced && v > s->forced_end.reservoir_version) break;
		/* the change feed stops listing commits once the limits are used
		 * up (getFileChangesForCDC's takeWhile(hasCapacity)): the next
		 * commit is not even checked */
		if (s->o.read_change_feed && !s->forced && !(a.files_left > 0 && a.bytes_left > 0)) break;
		st_commit c;
		bool missing;
		rc = dl_stream_read_commit(&c, &p->arena, s, v, &missing);
		if (rc == 0 && missing) {
			dl_free(c.items);
			break;
		}
		/* commit v's actions live in p->arena: the units point into them.
		 * A commit the stream may not read fails the whole batch, files
		 * of earlier commits in it included, as Spark's latestOffset
		 * throws while listing (a smaller maxFilesPerTrigger ends the
		 * batch before it) */
		if (rc == 0) rc = plan_commit(s, p, &a, &c, v);
		dl_free(c.items);
		if (rc == 1) full = 1, rc = 0;
	}
	if (rc < 0) {
		dl_stream_plan_free(p);
		return rc;
	}
	/* a replayed batch ends where it ended when it was planned */
	if (s->forced) p->end = s->forced_end;
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
