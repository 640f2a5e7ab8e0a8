/* The public scan API (include/deltalake/scan.h): planning, the planned
 * files, the schema and the Arrow stream of the rows. */
#include <string.h>
#include <time.h>
#include "columnar/arrow_c.h"
#include "log/path.h"
#include "parquet/output_pool.h"
#include "table/scan.h"
#include "util/error.h"
#include "util/mem.h"
#include "util/options.h"
#include "util/pool.h"

static int64_t now_us(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000000 + ts.tv_nsec / 1000;
}

/* The caller's options of any known version (util/options.h) as the
 * current version. */
static int load_options(dl_scan_options *dst, const dl_scan_options *o)
{
	static const size_t ends[] = {
		DL_OPTIONS_END(dl_scan_options, max_queued_batches), /* 1 */
		DL_OPTIONS_END(dl_scan_options, progress_payload),   /* 2: progress */
		sizeof(dl_scan_options),                             /* 3: allowed roots */
	};
	DL_OPTIONS_ENDS_CHECK(ends, DL_SCAN_OPTIONS_VERSION);
	static const dl_scan_options def = DL_SCAN_OPTIONS_INIT;
	*dst = def;
	return dl_options_load(dst, o, ends, DL_SCAN_OPTIONS_VERSION, "dl_scan_options",
	                       "DL_SCAN_OPTIONS_INIT");
}

int dl_scan_open(dl_scan **out, dl_snapshot *snap, const dl_scan_options *opts)
{
	*out = NULL;
	if (!snap) return dl_error_set(DL_EINVALID, "dl_scan_open needs a snapshot");
	dl_scan_options loaded;
	DL_TRY(load_options(&loaded, opts));
	const dl_scan_options *o = &loaded;
	if (o->columns == NULL && o->ncolumns != 0)
		return dl_error_set(DL_EINVALID, "dl_scan_options.ncolumns is %d but columns is NULL", o->ncolumns);
	int64_t t0 = now_us();
	dl_scan *s = dl_calloc(1, sizeof *s);
	if (!s) return DL_ENOMEM;
	s->snap = snap;
	dl_path_roots roots;
	int rc = dl_path_roots_copy(&roots, o->allowed_roots, o->nallowed_roots, "dl_scan_options");
	if (rc == 0) {
		rc = dl_store_resolver_init(&s->resolver, dl_snapshot_store(snap),
		                            roots.n ? &roots : dl_snapshot_allowed_roots(snap));
		dl_path_roots_free(&roots);
	}
	if (rc == 0) rc = dl_dv_files_new(&s->dvs, &s->resolver);
	if (rc == 0 && !(s->buffers = pq_pool_new())) rc = DL_ENOMEM;
	if (rc < 0) {
		dl_scan_free(s);
		return rc;
	}
	s->batch_rows = o->batch_rows > 0 ? o->batch_rows : 65536;
	s->threads = o->threads > 0 ? o->threads : 0;
	int threads = s->threads;
	if (!threads) {
		dl_pool *p;
		threads = dl_pool_shared(&p) == 0 ? dl_pool_size(p) : 1;
	}
	s->max_queued = o->max_queued_batches > 0 ? o->max_queued_batches : 2 * threads + 2;
	s->max_queued_bytes = o->max_queued_batches > 0 ? 0 : (int64_t)32 << 20;
	s->progress = o->progress;
	s->progress_payload = o->progress_payload;
	rc = dl_scan_plan_columns(s, o);
	if (rc == 0) rc = dl_scan_plan_files(s);
	/* The policy refuses at planning, so a caller handing the planned files
	 * to another reader (dl_scan_file_get) never sees a forbidden one. */
	for (size_t i = 0; rc == 0 && s->resolver.roots.n && i < s->nfiles; i++)
		rc = dl_scan_check_add_paths(s, dl_log_state_add(dl_snapshot_state(snap), s->files[i]));
	if (rc == 0) rc = dl_scan_files_init(s);
	if (rc < 0) {
		dl_scan_free(s);
		return rc;
	}
	s->metrics.planning_us = now_us() - t0;
	*out = s;
	return 0;
}

int dl_scan_open_expr(dl_scan **out, dl_snapshot *snap, const dl_scan_options *o, const dl_expr *filter)
{
	*out = NULL;
	dl_scan_options copy;
	DL_TRY(load_options(&copy, o));
	if (copy.filter)
		return dl_error_set(DL_EINVALID, "dl_scan_open_expr takes the filter as an expression: leave "
		                    "options.filter NULL");
	if (!filter) return dl_scan_open(out, snap, &copy);
	dl_buf sql = DL_BUF_INIT;
	int rc = dl_expr_sql(filter, &sql);
	copy.filter = sql.data;
	if (rc == 0) rc = dl_scan_open(out, snap, &copy);
	dl_buf_free(&sql);
	return rc;
}

void dl_scan_free(dl_scan *s)
{
	if (!s) return;
	dl_scan_files_free(s);
	dl_type_unref(s->read_schema);
	dl_type_unref(s->out_schema);
	dl_type_unref(s->phys_request);
	dl_expr_free(s->prune);
	dl_expr_free(s->residual);
	dl_free(s->late_data);
	dl_expr_free(s->prune_generated);
	dl_free(s->cols);
	dl_free(s->out_cols);
	dl_free(s->indexed);
	dl_free(s->files);
	dl_dv_files_free(s->dvs);
	pq_pool_unref(s->buffers);
	dl_store_resolver_free(&s->resolver);
	dl_arena_free(&s->arena);
	dl_free(s);
}

size_t dl_scan_file_count(const dl_scan *s)
{
	return s->nfiles;
}

int dl_scan_file_at(dl_file_info *out, const dl_scan *s, size_t i)
{
	if (i >= s->nfiles) return dl_error_set(DL_EINVALID, "file index %zu out of range (%zu files)", i, s->nfiles);
	return dl_snapshot_file_at(out, s->snap, s->files[i]);
}

size_t dl_scan_file_snapshot_index(const dl_scan *s, size_t i)
{
	return i < s->nfiles ? s->files[i] : (size_t)-1;
}

void dl_scan_get_metrics(dl_scan_metrics *out, const dl_scan *s)
{
	*out = s->metrics;
}

int dl_scan_schema(struct ArrowSchema *out, const dl_scan *s)
{
	return dl_arrow_export_schema(out, s->out_schema);
}

int dl_scan_to_arrow(struct ArrowArrayStream *out, dl_scan *s)
{
	dl_batch_stream *bs;
	DL_TRY(dl_scan_batches(&bs, s));
	return dl_batch_stream_export(out, bs);
}

/* ---- data file paths ---- */

int dl_scan_resolve_path(dl_scan *s, const char *path, dl_store **store, const char **rel)
{
	return dl_store_resolve(store, rel, &s->resolver, path, "data file");
}

int dl_scan_check_add_paths(dl_scan *s, const dl_add *add)
{
	DL_TRY(dl_store_resolver_check(&s->resolver, add->path, "data file"));
	if (!add->dv || add->dv->storage_type == 'i') return 0;
	dl_buf path = DL_BUF_INIT;
	int rc = dl_dv_file_path(add->dv, &path);
	if (rc == 0) rc = dl_store_resolver_check(&s->resolver, path.data, "deletion vector file");
	dl_buf_free(&path);
	return rc;
}
