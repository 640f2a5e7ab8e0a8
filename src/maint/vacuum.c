/* VACUUM (Spark's VacuumCommand): the retention check, the valid set, the
 * diff against the candidates (vacuum_internal.h states the rule), then
 * VACUUM START, the deletes, VACUUM END.
 *
 * Safety: the cut-off is now - retention. A file a concurrent writer adds
 * is younger than the cut-off (retention >= 0), so it is never deleted,
 * committed or not; a file the snapshot references or a tombstone newer
 * than the cut-off keeps its path valid. What a version inside the window
 * needs is therefore kept: every file it reads was either live at the
 * snapshot (valid) or removed after that version, whose tombstone is newer
 * than the cut-off when the version is. */
#include "maint/vacuum_internal.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "log/deletion_vector.h"
#include "log/path.h"
#include "log/properties.h"
#include "log/protocol.h"
#include "ops/create.h"
#include "storage/backend.h"
#include "storage/path.h"
#include "storage/resolve.h"
#include "txn/txn.h"
#include "util/buf.h"
#include "util/error.h"
#include "util/mem.h"
#include "util/options.h"
#include "util/time.h"

#define HOUR_MS INT64_C(3600000)

static const size_t vacuum_ends[] = {sizeof(dl_vacuum_options)};
DL_OPTIONS_ENDS_CHECK(vacuum_ends, DL_VACUUM_OPTIONS_VERSION);

bool dl_vacuum_hidden_name(const dl_vacuum_ctx *c, const char *name, size_t n)
{
	if (n == 0 || (name[0] != '_' && name[0] != '.')) return false;
	if (n >= 12 && memcmp(name, "_delta_index", 12) == 0) return false;
	if (n >= 12 && memcmp(name, "_change_data", 12) == 0) return false;
	for (uint32_t i = 0; i < c->npartition_columns; i++) {
		size_t cl = strlen(c->partition_columns[i]);
		if (n > cl && memcmp(name, c->partition_columns[i], cl) == 0 && name[cl] == '=')
			return false;
	}
	return true;
}

bool dl_vacuum_hidden_path(const dl_vacuum_ctx *c, const char *path)
{
	const char *s = path;
	for (;;) {
		const char *e = strchr(s, '/');
		size_t n = e ? (size_t)(e - s) : strlen(s);
		if (dl_vacuum_hidden_name(c, s, n)) return true;
		if (!e) return false;
		s = e + 1;
	}
}

int dl_vacuum_relativize(dl_vacuum_ctx *c, const char *log_path, const char **rel)
{
	*rel = NULL;
	if (!dl_log_path_is_absolute(log_path)) {
		*rel = log_path;
		return 0;
	}
	char *canon;
	int rc = dl_path_canonical(&canon, log_path);
	if (rc == DL_EPERM) { /* climbs above "/": surely not inside the table */
		dl_error_clear();
		return 0;
	}
	DL_TRY(rc);
	size_t rl = strlen(c->root_canon);
	if (strncmp(canon, c->root_canon, rl) == 0 && canon[rl] == '/' && canon[rl + 1]) {
		*rel = dl_arena_strdup(&c->arena, canon + rl + 1);
		if (!*rel) rc = DL_ENOMEM;
	}
	dl_free(canon);
	return rc;
}

int dl_vacuum_push(dl_vacuum_ctx *c, const char *path, size_t n, int64_t size, int64_t mtime,
                   bool is_dir)
{
	char *p = dl_arena_strndup(&c->arena, path, n);
	if (!p) return DL_ENOMEM;
	dl_vacuum_entry e = {p, size, mtime, is_dir};
	return dl_vec_push(&c->listed, e);
}

/* Adds a relative path and each of its parent directories to the valid set. */
static int valid_add(dl_vacuum_ctx *c, const char *rel)
{
	size_t n = strlen(rel);
	while (n > 0) {
		void **slot;
		bool inserted;
		DL_TRY(dl_strmap_upsert(&c->valid, rel, n, &slot, &inserted));
		if (!inserted) return 0; /* its parents are in already */
		*slot = (void *)1;
		while (n > 0 && rel[n - 1] != '/') n--;
		if (n > 0) n--; /* drop the '/' */
	}
	return 0;
}

static int valid_file(dl_vacuum_ctx *c, const char *path, const dl_dv_descriptor *dv)
{
	const char *rel;
	DL_TRY(dl_vacuum_relativize(c, path, &rel));
	if (rel) DL_TRY(valid_add(c, rel));
	/* Spark keeps only relative ('u') DV files: an absolute 'p' DV is never
	 * under this table's root as a file of its own. */
	if (dv && dv->storage_type == 'u') {
		dl_buf b = DL_BUF_INIT;
		int rc = dl_dv_file_path(dv, &b);
		if (rc == 0) rc = valid_add(c, b.data);
		dl_buf_free(&b);
		DL_TRY(rc);
	}
	return 0;
}

/* Spark's getValidFilesFromSnapshot: adds and the tombstones not older than
 * the cut-off. A tombstone without a deletion timestamp counts as 0 (old). */
static int build_valid(dl_vacuum_ctx *c)
{
	const dl_log_state *st = dl_snapshot_state(c->snap);
	DL_TRY(dl_strmap_reserve(&c->valid, st->nadds * 2 + st->nremoves + 16));
	for (size_t i = 0; i < st->nadds; i++) {
		const dl_add *a = dl_log_state_add(st, i);
		DL_TRY(valid_file(c, a->path, a->dv));
	}
	for (size_t i = 0; i < st->nremoves; i++) {
		const dl_remove *r = &st->removes[i];
		int64_t ts = r->deletion_timestamp == DL_NONE ? 0 : r->deletion_timestamp;
		if (ts < c->cutoff_ms) continue;
		DL_TRY(valid_file(c, r->path, r->dv));
	}
	return 0;
}

static bool is_valid(const dl_vacuum_ctx *c, const char *path)
{
	return dl_strmap_find(&c->valid, path, strlen(path), NULL);
}

static int cmp_entry_path(const void *a, const void *b)
{
	const dl_vacuum_entry *x = *(dl_vacuum_entry *const *)a, *y = *(dl_vacuum_entry *const *)b;
	return strcmp(x->path, y->path);
}

/* The diff: files older than the cut-off that are not valid, and listed
 * directories that hold no listed file and are not valid (Spark's "count
 * == 1": a directory is deletable only when nothing was counted under it;
 * Spark also counts one holding only files newer than the cut-off, whose
 * non-recursive delete then fails: here it is not a candidate). Sorted by
 * path; duplicates (inventories may repeat a path) keep the newest. */
static int compute_diff(dl_vacuum_ctx *c, dl_vacuum_entry ***out, size_t *nout, int64_t *bytes)
{
	*out = NULL;
	*nout = 0;
	*bytes = 0;
	size_t n = c->listed.len;
	/* directories that hold some file (any age) */
	dl_strmap nonempty;
	dl_strmap_init(&nonempty, false);
	dl_strmap seen;
	dl_strmap_init(&seen, false);
	int rc = 0;
	for (size_t i = 0; i < n && rc == 0; i++) {
		const dl_vacuum_entry *e = &c->listed.data[i];
		if (e->is_dir) continue;
		size_t len = strlen(e->path);
		while (len > 0 && rc == 0) {
			while (len > 0 && e->path[len - 1] != '/') len--;
			if (len == 0) break;
			len--;
			void **slot;
			bool ins;
			rc = dl_strmap_upsert(&nonempty, e->path, len, &slot, &ins);
			if (rc == 0 && !ins) break;
			if (rc == 0) *slot = (void *)1;
		}
	}
	dl_vacuum_entry **v = NULL;
	if (rc == 0 && n) {
		v = dl_malloc(n * sizeof *v);
		if (!v) rc = DL_ENOMEM;
	}
	size_t k = 0;
	for (size_t i = 0; i < n && rc == 0; i++) {
		dl_vacuum_entry *e = &c->listed.data[i];
		if (is_valid(c, e->path)) continue;
		if (e->is_dir) {
			if (dl_strmap_find(&nonempty, e->path, strlen(e->path), NULL)) continue;
		} else if (e->mtime_ms >= c->cutoff_ms) {
			continue;
		}
		void **slot;
		bool ins;
		rc = dl_strmap_upsert(&seen, e->path, strlen(e->path), &slot, &ins);
		if (rc < 0) break;
		if (!ins) {
			/* a duplicate: the newest wins (Spark's maxBy(modificationTime)) */
			dl_vacuum_entry *prev = *slot;
			if (e->mtime_ms > prev->mtime_ms) *prev = *e;
			continue;
		}
		*slot = e;
		v[k++] = e;
	}
	dl_strmap_free(&nonempty);
	dl_strmap_free(&seen);
	if (rc < 0) {
		dl_free(v);
		return rc;
	}
	/* a duplicate newer than the cut-off makes the path stay */
	size_t j = 0;
	for (size_t i = 0; i < k; i++)
		if (v[i]->is_dir || v[i]->mtime_ms < c->cutoff_ms) v[j++] = v[i];
	k = j;
	if (k > 1) qsort(v, k, sizeof *v, cmp_entry_path);
	for (size_t i = 0; i < k; i++)
		if (!v[i]->is_dir && v[i]->size > 0) *bytes += v[i]->size;
	*out = v;
	*nout = k;
	return 0;
}

static int progress(dl_vacuum_ctx *c, const char *phase, int64_t done, int64_t total)
{
	if (!c->o->progress) return 0;
	dl_progress_info p = {"vacuum", phase, "files", done, total, -1, -1};
	if (c->o->progress(&p, c->o->progress_payload))
		return dl_error_set(DL_ECANCELLED, "VACUUM cancelled by the progress callback");
	return 0;
}

/* Spark's checkRetentionPeriodSafety. */
static int check_retention(const dl_vacuum_options *o, int64_t specified_ms, int64_t default_ms)
{
	if (specified_ms == DL_NONE) return 0;
	if (specified_ms < 0)
		return dl_error_set_class(DL_EINVALID, "DELTA_VACUUM_RETENTION_PERIOD_NEGATIVE",
		                          "Retention for Vacuum can't be less than 0.");
	if (o->no_retention_check || specified_ms >= default_ms) return 0;
	int64_t hours = default_ms / HOUR_MS;
	if (hours * HOUR_MS < default_ms) hours++;
	return dl_error_set_class(
		DL_EINVALID, "DELTA_VACUUM_RETENTION_PERIOD_TOO_SHORT",
		"Are you sure you would like to vacuum files with such a low retention period? If you "
		"have writers that are currently writing to this table, there is a risk that you may "
		"corrupt the state of your Delta table. If you are certain that there are no operations "
		"being performed on this table, such as insert/upsert/delete/optimize, then you may turn "
		"off this check by setting: spark.databricks.delta.retentionDurationCheck.enabled = "
		"false (no_retention_check, --no-retention-check). If you are not sure, please use a "
		"value not less than \"%lld hours\".",
		(long long)hours);
}

/* An empty commit (commitInfo only, dataChange false: Spark's empty commit
 * of DeltaOperations.VacuumStart / VacuumEnd). */
static int commit_marker(dl_vacuum_ctx *c, bool start, const char *status, int64_t specified_ms,
                         int64_t default_ms, int64_t nfiles, int64_t bytes, int64_t deleted,
                         int64_t dirs, int64_t *version)
{
	dl_snapshot *snap = NULL;
	DL_TRY(dl_ops_open_latest(&snap, c->store));
	if (!snap) return dl_error_set(DL_ENOTFOUND, "VACUUM: the table at %s is gone",
	                               dl_store_root(c->store));
	dl_txn_options to = DL_TXN_OPTIONS_INIT;
	to.operation = start ? "VACUUM START" : "VACUUM END";
	to.user_metadata = c->o->user_metadata;
	dl_transaction *t = NULL;
	int rc = dl_txn_begin(&t, c->store, snap, &to);
	char num[32];
	if (rc == 0 && start) {
		rc = dl_txn_set_parameter_json(t, "retentionCheckEnabled",
		                               c->o->no_retention_check ? "false" : "true");
		if (rc == 0 && specified_ms != DL_NONE) {
			snprintf(num, sizeof num, "%lld", (long long)specified_ms);
			rc = dl_txn_set_parameter_json(t, "specifiedRetentionMillis", num);
		}
		if (rc == 0) {
			snprintf(num, sizeof num, "%lld", (long long)default_ms);
			rc = dl_txn_set_parameter_json(t, "defaultRetentionMillis", num);
		}
		if (rc == 0) rc = dl_txn_set_metric(t, "numFilesToDelete", nfiles);
		if (rc == 0) rc = dl_txn_set_metric(t, "sizeOfDataToDelete", bytes);
	} else if (rc == 0) {
		rc = dl_txn_set_parameter(t, "status", status);
		if (rc == 0 && deleted >= 0) {
			rc = dl_txn_set_metric(t, "numDeletedFiles", deleted);
			if (rc == 0) rc = dl_txn_set_metric(t, "numVacuumedDirectories", dirs);
		}
	}
	if (rc == 0) dl_txn_set_blind_append(t, false);
	if (rc == 0) rc = dl_txn_commit(t, version);
	dl_txn_free(t);
	dl_snapshot_free(snap);
	return rc;
}

static int ctx_open(dl_vacuum_ctx *c)
{
	const dl_log_state *st = dl_snapshot_state(c->snap);
	c->partition_columns = st->metadata->partition_columns;
	c->npartition_columns = st->metadata->npartition_columns;
	DL_TRY(dl_path_canonical(&c->root_canon, dl_store_root(c->store)));
	if (dl_store_impl_of(c->store, &dl_store_backend_file)) {
		dl_store_uri u;
		DL_TRY(dl_store_uri_parse(&u, dl_store_root(c->store)));
		c->local_root = u.location;
	}
	return 0;
}

static void ctx_free(dl_vacuum_ctx *c)
{
	dl_strmap_free(&c->valid);
	dl_arena_free(&c->arena);
	dl_vec_free(&c->listed);
	dl_free(c->root_canon);
	dl_free(c->local_root);
}

static int run(dl_vacuum_result *out, dl_vacuum_ctx *c)
{
	const dl_vacuum_options *o = c->o;
	const dl_log_state *st = dl_snapshot_state(c->snap);
	/* PROTOCOL.md "Vacuum Protocol Check": VACUUM applies the reader and the
	 * writer checks (Spark's protocolWrite always; the reader's passed when
	 * the snapshot opened). */
	DL_TRY(dl_protocol_check_read(st->protocol));
	DL_TRY(dl_protocol_check_write(st->protocol));
	dl_table_properties props;
	dl_table_properties_defaults(&props);
	(void)dl_table_properties_parse(&props, &st->metadata->configuration, false);
	dl_error_clear();
	int64_t default_ms = props.deleted_file_retention_ms;
	/* Spark: TimeUnit.HOURS.toMillis(math.round(h)) */
	int64_t specified_ms = DL_NONE;
	if (o->retain_hours >= 0) {
		if (!isfinite(o->retain_hours) || o->retain_hours > 1e12)
			return dl_error_set(DL_EINVALID, "VACUUM: RETAIN %g HOURS is out of range",
			                    o->retain_hours);
		specified_ms = (int64_t)llround(o->retain_hours) * HOUR_MS;
	}
	DL_TRY(check_retention(o, specified_ms, default_ms));
	int64_t now = dl_now_millis();
	c->cutoff_ms = now - (specified_ms != DL_NONE ? specified_ms : default_ms);

	DL_TRY(ctx_open(c));
	DL_TRY(build_valid(c));
	DL_TRY(progress(c, "listing", 0, -1));
	if (o->lite) DL_TRY(dl_vacuum_list_lite(c));
	else if (o->inventory) {
		c->inventory_taken = true;
		DL_TRY(dl_vacuum_list_inventory(c, o->inventory));
	}
	else DL_TRY(dl_vacuum_list_table(c));

	dl_vacuum_entry **diff = NULL;
	size_t ndiff = 0;
	int64_t bytes = 0;
	DL_TRY(compute_diff(c, &diff, &ndiff, &bytes));
	out->numFilesToDelete = (int64_t)ndiff;
	out->sizeOfDataToDelete = bytes;
	int rc = 0;
	if (o->dry_run) {
		for (size_t i = 0; i < ndiff && rc == 0 && o->on_file; i++)
			if (o->on_file(diff[i]->path, diff[i]->is_dir ? 0 : diff[i]->size, o->on_file_payload))
				rc = dl_error_set(DL_ECANCELLED, "VACUUM DRY RUN cancelled by the file callback");
		dl_free(diff);
		return rc;
	}
	rc = commit_marker(c, true, NULL, specified_ms, default_ms, (int64_t)ndiff, bytes, -1, -1,
	                   &out->start_version);
	if (rc < 0) {
		dl_free(diff);
		return rc;
	}
	int64_t deleted = 0;
	rc = progress(c, "deleting", 0, (int64_t)ndiff);
	if (rc == 0) rc = dl_vacuum_delete(&deleted, c, diff, ndiff, o->threads > 0 ? o->threads : 16);
	for (size_t i = 0; i < ndiff && rc == 0 && o->on_file; i++)
		if (o->on_file(diff[i]->path, diff[i]->is_dir ? 0 : diff[i]->size, o->on_file_payload))
			rc = dl_error_set(DL_ECANCELLED, "VACUUM cancelled by the file callback");
	dl_free(diff);
	int64_t dirs = c->dirs_present + 1; /* Spark's dirCounts: +1 for the base path */
	if (rc < 0) {
		/* Spark's logVacuumEnd with status FAILED, then the failure */
		char keep[512];
		snprintf(keep, sizeof keep, "%s", dl_error_last()->message);
		int code = rc;
		dl_error_clear();
		int64_t v;
		if (commit_marker(c, false, "FAILED", 0, 0, 0, 0, -1, -1, &v) == 0) out->end_version = v;
		dl_error_clear();
		return dl_error_set(code, "%s", keep);
	}
	out->numDeletedFiles = deleted;
	out->numVacuumedDirectories = dirs;
	DL_TRY(commit_marker(c, false, "COMPLETED", 0, 0, 0, 0, deleted, dirs, &out->end_version));
	/* Spark persists the LITE watermark after every successful run; a
	 * failure here only costs the next LITE run its shortcut. */
	if (dl_vacuum_write_last_info(c) < 0) dl_error_clear();
	return 0;
}

int dl_vacuum(dl_vacuum_result *out, const char *uri, const dl_vacuum_options *opts)
{
	if (!out) return dl_error_set(DL_EINVALID, "dl_vacuum: out is NULL");
	dl_vacuum_result r = {-1, -1, 0, 0, -1, -1};
	*out = r;
	dl_vacuum_options o = DL_VACUUM_OPTIONS_INIT;
	DL_TRY(dl_options_load(&o, opts, vacuum_ends, DL_VACUUM_OPTIONS_VERSION, "dl_vacuum_options",
	                       "DL_VACUUM_OPTIONS_INIT"));
	if (o.lite && o.inventory) {
		if (o.inventory->release) o.inventory->release(o.inventory);
		return dl_error_set(DL_EINVALID, "VACUUM LITE takes its files from the log: it cannot "
		                    "use an inventory");
	}
	dl_store *store = o.store;
	int rc = 0;
	if (!store) {
		rc = uri ? dl_store_open(&store, uri, o.store_options)
		         : dl_error_set(DL_EINVALID, "VACUUM: no table given");
		if (rc < 0) {
			/* the inventory is consumed whatever happens */
			if (o.inventory && o.inventory->release) o.inventory->release(o.inventory);
			return rc;
		}
	}
	dl_vacuum_ctx c;
	memset(&c, 0, sizeof c);
	c.store = store;
	c.o = &o;
	c.lite_end_version = -1;
	dl_strmap_init(&c.valid, true);
	rc = dl_ops_open_latest(&c.snap, store);
	if (rc == 0 && !c.snap)
		rc = dl_error_set(DL_ENOTFOUND, "VACUUM: no Delta table at %s (no state defined for "
		                  "this table; refusing to garbage collect)", dl_store_root(store));
	if (rc == 0) rc = run(&r, &c);
	if (rc == 0) *out = r;
	if (o.inventory && !c.inventory_taken && o.inventory->release) o.inventory->release(o.inventory);
	ctx_free(&c);
	dl_snapshot_free(c.snap);
	if (!o.store) dl_store_free(store);
	return rc;
}
