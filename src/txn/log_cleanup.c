/* Expired log cleanup: see log_cleanup.h. Checkpoints count only when
 * complete (every part of a multi-part set present), so a half-written
 * multi-part checkpoint can never become the new start of the log. */
#include "txn/log_cleanup.h"

#include <string.h>

#include "log/log_segment.h"
#include "log/snapshot.h"
#include "txn/sidecar_refs.h"
#include "util/error.h"
#include "util/mem.h"
#include "util/options.h"
#include "util/time.h"

#define DAY_MS INT64_C(86400000)

typedef struct listing {
	dl_object_list objs;
	dl_log_file_kind *kind;
	int64_t *version, *end;
	int32_t *part, *nparts;
} listing;

static void listing_free(listing *l)
{
	dl_object_list_free(&l->objs);
	dl_free(l->kind);
	dl_free(l->version);
	dl_free(l->end);
	dl_free(l->part);
	dl_free(l->nparts);
}

static int list_log(listing *l, dl_store *store)
{
	memset(l, 0, sizeof *l);
	DL_TRY(dl_store_list_from(&l->objs, store, DL_LOG_DIR, NULL));
	size_t n = l->objs.count ? l->objs.count : 1;
	l->kind = dl_calloc(n, sizeof *l->kind);
	l->version = dl_calloc(n, sizeof *l->version);
	l->end = dl_calloc(n, sizeof *l->end);
	l->part = dl_calloc(n, sizeof *l->part);
	l->nparts = dl_calloc(n, sizeof *l->nparts);
	if (!l->kind || !l->version || !l->end || !l->part || !l->nparts) return DL_ENOMEM;
	for (size_t i = 0; i < l->objs.count; i++) {
		const char *name = strrchr(l->objs.items[i].path, '/');
		name = name ? name + 1 : l->objs.items[i].path;
		l->kind[i] = dl_log_file_classify(name, &l->version[i], &l->end[i], &l->part[i],
		                                  &l->nparts[i]);
	}
	return 0;
}

static bool is_checkpoint(dl_log_file_kind k)
{
	return k == DL_LOGF_CHECKPOINT || k == DL_LOGF_CHECKPOINT_PART ||
	       k == DL_LOGF_CHECKPOINT_V2_JSON || k == DL_LOGF_CHECKPOINT_V2_PARQUET;
}

/* Whether the checkpoint at index i is complete: single files are; a part
 * needs all nparts parts of its version and count in the listing. */
static bool checkpoint_complete(const listing *l, size_t i)
{
	if (l->kind[i] != DL_LOGF_CHECKPOINT_PART) return true;
	int32_t seen = 0;
	for (size_t j = 0; j < l->objs.count; j++)
		if (l->kind[j] == DL_LOGF_CHECKPOINT_PART && l->version[j] == l->version[i] &&
		    l->nparts[j] == l->nparts[i])
			seen++;
	return seen == l->nparts[i];
}

/* The newest commit not newer than cutoff, by file time made monotonic as
 * Spark does (a commit is never older than its predecessor). */
static int64_t cutoff_commit(const listing *l, int64_t cutoff_ms)
{
	int64_t best = -1, prev_ts = INT64_MIN;
	for (size_t i = 0; i < l->objs.count; i++) {
		if (l->kind[i] != DL_LOGF_COMMIT) continue;
		int64_t ts = l->objs.items[i].mtime_ms;
		if (ts <= prev_ts) ts = prev_ts + 1;
		prev_ts = ts;
		if (ts <= cutoff_ms && l->version[i] > best) best = l->version[i];
	}
	return best;
}

/* The caller's progress callback before a deletion; non-zero stops. */
static int report_progress(dl_progress_fn progress, void *payload, int64_t done, int64_t total)
{
	if (!progress) return 0;
	dl_progress_info p = {"log cleanup", "deleting", "files", done, total, -1, -1};
	if (progress(&p, payload) == 0) return 0;
	return dl_error_set(DL_ECANCELLED, "log cleanup cancelled by the progress callback after "
	                    "deleting %lld of %lld files", (long long)done, (long long)total);
}

/* Deletes paths[0..n) in batches (one DeleteObjects or Blob Batch request
 * each on an object store, dl_store_delete_many), telling progress (may be
 * NULL) before each; *counter gains the files removed (one a concurrent
 * cleanup removed first is not counted), *done the files handled. */
#define CLEANUP_BATCH 1000
static int delete_batched(int64_t *counter, int64_t *done, int64_t total, dl_store *store,
                          const char **paths, size_t n, dl_progress_fn progress, void *payload)
{
	for (size_t i = 0; i < n;) {
		size_t k = n - i < CLEANUP_BATCH ? n - i : CLEANUP_BATCH, d = 0;
		DL_TRY(report_progress(progress, payload, *done, total));
		int rc = dl_store_delete_many(&d, store, paths + i, k);
		*counter += (int64_t)d;
		if (rc < 0) return rc;
		*done += (int64_t)k;
		i += k;
	}
	return 0;
}

/* Sidecars no remaining V2 checkpoint references, older than a day as of
 * midnight UTC (a checkpoint being written may not reference its own yet). */
static int cleanup_sidecars(dl_log_cleanup_result *out, dl_store *store, const listing *l,
                            int64_t ckpt, int64_t now_ms)
{
	dl_object_list sc;
	DL_TRY(dl_store_list_from(&sc, store, DL_LOG_DIR "/_sidecars", NULL));
	if (sc.count == 0) {
		dl_object_list_free(&sc);
		return 0;
	}
	dl_strmap refs;
	dl_strmap_init(&refs, true);
	int rc = 0;
	for (size_t i = 0; i < l->objs.count && rc == 0; i++) {
		dl_log_file_kind k = l->kind[i];
		if ((k == DL_LOGF_CHECKPOINT_V2_JSON || k == DL_LOGF_CHECKPOINT_V2_PARQUET ||
		     k == DL_LOGF_CHECKPOINT) && l->version[i] >= ckpt)
			rc = dl_sidecar_refs_add(&refs, store, l->objs.items[i].path);
	}
	int64_t keep_after = dl_floor_div(now_ms, DAY_MS) * DAY_MS - DAY_MS;
	const char **paths = rc == 0 ? dl_malloc(sc.count * sizeof *paths) : NULL;
	if (!paths && rc == 0) rc = DL_ENOMEM;
	size_t n = 0;
	for (size_t i = 0; i < sc.count && rc == 0; i++) {
		const char *name = strrchr(sc.items[i].path, '/');
		name = name ? name + 1 : sc.items[i].path;
		if (name[0] == '.' || sc.items[i].mtime_ms >= keep_after) continue;
		if (dl_strmap_find(&refs, name, strlen(name), NULL)) continue;
		paths[n++] = sc.items[i].path;
	}
	int64_t done = 0;
	if (rc == 0) rc = delete_batched(&out->deleted_sidecars, &done, 0, store, paths, n, NULL, NULL);
	dl_free(paths);
	dl_strmap_free(&refs);
	dl_object_list_free(&sc);
	return rc;
}

/* Temporary files of writes that died before publishing (".name.tmp"):
 * nothing reads them; those older than a day cannot belong to a write in
 * flight. */
static int cleanup_stale_temps(dl_log_cleanup_result *out, dl_store *store, const listing *l,
                               int64_t now_ms)
{
	const char **paths = dl_malloc((l->objs.count ? l->objs.count : 1) * sizeof *paths);
	if (!paths) return DL_ENOMEM;
	size_t n = 0;
	for (size_t i = 0; i < l->objs.count; i++) {
		const char *name = strrchr(l->objs.items[i].path, '/');
		name = name ? name + 1 : l->objs.items[i].path;
		if (name[0] != '.' || l->objs.items[i].mtime_ms >= now_ms - DAY_MS) continue;
		paths[n++] = l->objs.items[i].path;
	}
	int64_t done = 0;
	int rc = delete_batched(&out->deleted_other, &done, 0, store, paths, n, NULL, NULL);
	dl_free(paths);
	return rc;
}

/* The files of the log before the kept checkpoint, oldest first (the
 * listing's order), with the counter each deletion adds to; NULL: keep. */
static int64_t *expired_counter(dl_log_cleanup_result *out, const listing *l, size_t i, int64_t ckpt)
{
	dl_log_file_kind k = l->kind[i];
	bool old = l->version[i] < ckpt;
	if (k == DL_LOGF_COMMIT && old) return &out->deleted_commits;
	if (is_checkpoint(k) && old) return &out->deleted_checkpoints;
	if (k == DL_LOGF_CRC && old) return &out->deleted_other;
	if (k == DL_LOGF_COMPACTION && l->version[i] <= ckpt) return &out->deleted_other;
	return NULL;
}

static int cleanup(dl_log_cleanup_result *out, dl_store *store, const dl_table_properties *props,
                   int64_t now_ms, int64_t granularity_ms, dl_progress_fn progress, void *payload)
{
	memset(out, 0, sizeof *out);
	out->cutoff_checkpoint = -1;
	if (now_ms == INT64_MIN) now_ms = dl_now_millis();
	int64_t cutoff_ms = dl_floor_div(now_ms - props->log_retention_ms, granularity_ms) * granularity_ms;
	listing l;
	int rc = list_log(&l, store);
	int64_t commit = rc == 0 ? cutoff_commit(&l, cutoff_ms) : -1;
	int64_t ckpt = -1;
	for (size_t i = 0; rc == 0 && i < l.objs.count; i++)
		if (is_checkpoint(l.kind[i]) && l.version[i] <= commit && l.version[i] > ckpt &&
		    checkpoint_complete(&l, i))
			ckpt = l.version[i];
	/* checkpointProtection (protocol RFC): history before
	 * delta.requireCheckpointProtectionBeforeVersion goes all at once or not
	 * at all, so a cut-off checkpoint below it deletes nothing. */
	if (ckpt > 0 && ckpt < props->checkpoint_protection_version) ckpt = -1;
	out->cutoff_checkpoint = ckpt;
	int64_t total = 0, done = 0;
	for (size_t i = 0; rc == 0 && ckpt > 0 && i < l.objs.count; i++)
		if (expired_counter(out, &l, i, ckpt)) total++;
	/* by kind, so each batch's count lands on its counter: the commits,
	 * then the checkpoints, then the rest, each oldest first; a reader of
	 * the kept checkpoint on needs none of them */
	const char **paths = dl_malloc((size_t)(total ? total : 1) * sizeof *paths);
	if (!paths && rc == 0) rc = DL_ENOMEM;
	int64_t *counters[] = {&out->deleted_commits, &out->deleted_checkpoints, &out->deleted_other};
	for (size_t c = 0; rc == 0 && ckpt > 0 && c < 3; c++) {
		size_t n = 0;
		for (size_t i = 0; i < l.objs.count; i++)
			if (expired_counter(out, &l, i, ckpt) == counters[c]) paths[n++] = l.objs.items[i].path;
		rc = delete_batched(counters[c], &done, total, store, paths, n, progress, payload);
	}
	dl_free(paths);
	if (rc == 0 && ckpt > 0) rc = cleanup_sidecars(out, store, &l, ckpt, now_ms);
	if (rc == 0) rc = cleanup_stale_temps(out, store, &l, now_ms);
	if (rc == 0 && progress) { /* done: too late to cancel */
		dl_progress_info p = {"log cleanup", "deleting", "files", total, total, -1, -1};
		(void)progress(&p, payload);
	}
	listing_free(&l);
	if (rc < 0) dl_error_prefix("cleaning up expired log files");
	return rc;
}

int dl_log_cleanup_store(dl_log_cleanup_result *out, dl_store *store, const dl_table_properties *props,
                         int64_t now_ms, dl_progress_fn progress, void *payload)
{
	return cleanup(out, store, props, now_ms, DAY_MS, progress, payload);
}

int dl_log_cleanup_truncate_history(dl_log_cleanup_result *out, dl_store *store,
                                    const dl_table_properties *props, int64_t retention_ms, int64_t now_ms)
{
	dl_table_properties p = *props;
	p.log_retention_ms = retention_ms;
	return cleanup(out, store, &p, now_ms, 60 * 1000, NULL, NULL);
}

/* ---- the public entry point (deltalake/maintenance.h) ---- */

int dl_log_cleanup(dl_log_cleanup_result *out, dl_snapshot *snap, const dl_log_cleanup_options *opts)
{
	static const size_t ends[] = {
		DL_OPTIONS_END(dl_log_cleanup_options, progress_payload), /* 1 */
	};
	DL_OPTIONS_ENDS_CHECK(ends, DL_LOG_CLEANUP_OPTIONS_VERSION);
	memset(out, 0, sizeof *out);
	out->cutoff_checkpoint = -1;
	if (!snap) return dl_error_set(DL_EINVALID, "dl_log_cleanup needs a snapshot");
	dl_log_cleanup_options o = DL_LOG_CLEANUP_OPTIONS_INIT;
	DL_TRY(dl_options_load(&o, opts, ends, DL_LOG_CLEANUP_OPTIONS_VERSION, "dl_log_cleanup_options",
	                       "DL_LOG_CLEANUP_OPTIONS_INIT"));
	dl_table_properties props = *dl_snapshot_props(snap);
	if (o.retention) {
		if (dl_parse_interval_ms(o.retention, &props.log_retention_ms) < 0)
			return dl_error_set(DL_EINVALID, "retention '%s' is not an interval such as "
			                    "'interval 30 days'", o.retention);
		/* as Spark's DeltaConfigs.isValidIntervalConfigValue: a negative
		 * retention would put the cut-off in the future and delete the
		 * whole history before the newest checkpoint */
		if (props.log_retention_ms < 0)
			return dl_error_set(DL_EINVALID, "retention '%s' is negative; the history to keep must be 0 or more",
			                    o.retention);
	} else if (o.retention_ms >= 0) {
		props.log_retention_ms = o.retention_ms;
	}
	if (props.log_retention_ms < 0)
		return dl_error_set(DL_EINVALID, "the table's delta.logRetentionDuration is negative; set it to an "
		                    "interval of 0 or more");
	return dl_log_cleanup_store(out, dl_snapshot_store(snap), &props, INT64_MIN, o.progress,
	                            o.progress_payload);
}
