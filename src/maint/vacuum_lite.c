/* VACUUM LITE (Spark's getFilesFromDeltaLog): instead of listing the
 * table, the candidates are the files the log itself says were removed
 * (remove actions, their 'u' DV files, cdc files) in the commits from just
 * after the previous VACUUM's watermark (_delta_log/_last_vacuum_info) up
 * to the newest commit outside the retention window. When log cleanup has
 * already deleted commits of that range, some removed files can no longer
 * be found this way: DELTA_CANNOT_VACUUM_LITE, run a full VACUUM. Files
 * never referenced by the log (failed writes) are left to full VACUUM.
 * Commits are parsed one at a time, each line into a scratch arena. */
#include "maint/vacuum_internal.h"

#include <string.h>

#include "json/json.h"
#include "log/actions.h"
#include "log/deletion_vector.h"
#include "log/log_segment.h"
#include "util/buf.h"
#include "util/error.h"
#include "util/mem.h"

#define LAST_VACUUM_INFO DL_LOG_DIR "/_last_vacuum_info"
#define WATERMARK_KEY "latestCommitVersionOutsideOfRetentionWindow"

/* The previous watermark, or -1 (no file, or null in it). */
static int read_watermark(dl_store *store, int64_t *out)
{
	*out = -1;
	uint8_t *data;
	size_t len;
	int rc = dl_store_get(&data, &len, store, LAST_VACUUM_INFO);
	if (rc == DL_ENOTFOUND) {
		dl_error_clear();
		return 0;
	}
	DL_TRY(rc);
	dl_arena a = DL_ARENA_INIT;
	dl_json *j;
	rc = dl_json_parse(&a, (const char *)data, len, LAST_VACUUM_INFO, &j);
	if (rc == 0) {
		const dl_json *v = dl_json_get(j, WATERMARK_KEY);
		if (v && !dl_json_is_null(v) && dl_json_int64(v, out) < 0) {
			*out = -1;
			dl_error_clear();
		}
	} else {
		dl_error_clear(); /* a malformed hint is no hint */
		rc = 0;
	}
	dl_arena_free(&a);
	dl_free(data);
	return rc;
}

int dl_vacuum_write_last_info(dl_vacuum_ctx *c)
{
	dl_buf b = DL_BUF_INIT;
	int rc = c->lite_end_version >= 0
		? dl_buf_printf(&b, "{\"" WATERMARK_KEY "\":%lld}\n", (long long)c->lite_end_version)
		: dl_buf_puts(&b, "{}\n");
	if (rc == 0) rc = dl_store_put(c->store, LAST_VACUUM_INFO, b.data, b.len);
	dl_buf_free(&b);
	return rc;
}

typedef struct lite_parse {
	dl_vacuum_ctx *c;
	const char *what;
	dl_arena *scratch;
} lite_parse;

static int push_log_path(dl_vacuum_ctx *c, const char *path, int64_t size, int64_t mtime)
{
	const char *rel;
	DL_TRY(dl_vacuum_relativize(c, path, &rel));
	if (!rel) return 0; /* outside the table (shallow clone): not ours */
	return dl_vacuum_push(c, rel, strlen(rel), size, mtime, false);
}

static int on_line(const dl_json *line, int64_t lineno, void *payload)
{
	(void)lineno;
	lite_parse *p = payload;
	dl_action a;
	DL_TRY(dl_action_from_json(&a, p->scratch, line, p->what));
	if (a.kind == DL_ACTION_REMOVE) {
		const dl_remove *r = &a.u.remove;
		int64_t mtime = r->deletion_timestamp == DL_NONE ? 0 : r->deletion_timestamp;
		if (r->dv && r->dv->storage_type == 'u') {
			dl_buf b = DL_BUF_INIT;
			int rc = dl_dv_file_path(r->dv, &b);
			if (rc == 0) rc = dl_vacuum_push(p->c, b.data, b.len, r->dv->size_in_bytes, mtime, false);
			dl_buf_free(&b);
			DL_TRY(rc);
		}
		DL_TRY(push_log_path(p->c, r->path, r->size == DL_NONE ? 0 : r->size, mtime));
	} else if (a.kind == DL_ACTION_CDC) {
		DL_TRY(push_log_path(p->c, a.u.cdc.path, a.u.cdc.size, 0));
	}
	return 0;
}

static int read_commit(dl_vacuum_ctx *c, const dl_log_file *f)
{
	uint8_t *data;
	size_t len;
	DL_TRY(dl_store_get(&data, &len, c->store, f->path));
	dl_arena scratch = DL_ARENA_INIT;
	lite_parse p = {c, f->path, &scratch};
	int rc = dl_json_parse_lines(&scratch, (const char *)data, len, f->path, on_line, &p);
	dl_arena_free(&scratch);
	dl_free(data);
	return rc;
}

int dl_vacuum_list_lite(dl_vacuum_ctx *c)
{
	int64_t *versions = NULL, *ts = NULL;
	size_t n = 0;
	DL_TRY(dl_log_commit_timestamps(c->store, dl_snapshot_props(c->snap), &versions, &ts, &n));
	int rc = 0;
	/* Spark's getActiveCommitAtTime(cut-off, canReturnLastCommit): none when
	 * the cut-off is before the first commit — nothing is old enough. */
	int64_t end = -1;
	if (n > 0 && c->cutoff_ms >= ts[0])
		rc = dl_log_version_at_timestamp(versions, ts, n, c->cutoff_ms, true, &end);
	c->lite_end_version = end;
	int64_t earliest = n ? versions[0] : 0;
	int64_t watermark = -1;
	if (rc == 0 && end >= 0) rc = read_watermark(c->store, &watermark);
	if (rc == 0 && end >= 0 && earliest != 0 && (watermark < 0 || watermark < earliest))
		rc = dl_error_set_class(DL_EUNSUPPORTED, "DELTA_CANNOT_VACUUM_LITE",
		                        "VACUUM LITE cannot delete all eligible files as some files are "
		                        "not referenced by the Delta log (its commits before version "
		                        "%lld were cleaned up after the last VACUUM). Please run VACUUM "
		                        "FULL.", (long long)earliest);
	dl_free(versions);
	dl_free(ts);
	if (rc < 0 || end < 0) return rc;
	int64_t start = watermark >= 0 ? watermark + 1 : earliest;
	if (start > dl_snapshot_version(c->snap)) start = dl_snapshot_version(c->snap);
	if (start > end) return 0;
	dl_log_file *files = NULL;
	size_t nf = 0;
	DL_TRY(dl_log_list_commits(c->store, &files, &nf));
	for (size_t i = 0; i < nf && rc == 0; i++) {
		if (files[i].version < start || files[i].version > end) continue;
		rc = read_commit(c, &files[i]);
	}
	dl_log_files_free(files, nf);
	return rc;
}
