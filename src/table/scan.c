/* The public scan API (include/deltalake/scan.h): planning, the planned
 * files, the schema and the Arrow stream of the rows. */
#include <string.h>
#include <time.h>
#include "columnar/arrow_c.h"
#include "log/path.h"
#include "table/scan.h"
#include "util/error.h"
#include "util/mem.h"
#include "util/pool.h"

static int64_t now_us(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000000 + ts.tv_nsec / 1000;
}

int dl_scan_open(dl_scan **out, dl_snapshot *snap, const dl_scan_options *opts)
{
	static const dl_scan_options defaults = DL_SCAN_OPTIONS_INIT;
	const dl_scan_options *o = opts ? opts : &defaults;
	*out = NULL;
	if (!snap) return dl_error_set(DL_EINVALID, "dl_scan_open needs a snapshot");
	if (o->version != DL_SCAN_OPTIONS_VERSION)
		return dl_error_set(DL_EINVALID, "dl_scan_options.version is %d, expected %d: initialize options "
		                    "with DL_SCAN_OPTIONS_INIT", o->version, DL_SCAN_OPTIONS_VERSION);
	if (o->columns == NULL && o->ncolumns != 0)
		return dl_error_set(DL_EINVALID, "dl_scan_options.ncolumns is %d but columns is NULL", o->ncolumns);
	int64_t t0 = now_us();
	dl_scan *s = dl_calloc(1, sizeof *s);
	if (!s) return DL_ENOMEM;
	pthread_mutex_init(&s->store_mu, NULL);
	s->snap = snap;
	s->batch_rows = o->batch_rows > 0 ? o->batch_rows : 65536;
	s->threads = o->threads > 0 ? o->threads : 0;
	int threads = s->threads;
	if (!threads) {
		dl_pool *p;
		threads = dl_pool_shared(&p) == 0 ? dl_pool_size(p) : 1;
	}
	s->max_queued = o->max_queued_batches > 0 ? o->max_queued_batches : 2 * threads + 2;
	int rc = dl_scan_plan_columns(s, o);
	if (rc == 0) rc = dl_scan_plan_files(s);
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
	dl_scan_options copy = DL_SCAN_OPTIONS_INIT;
	if (o) copy = *o;
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
	dl_type_unref(s->read_schema);
	dl_type_unref(s->out_schema);
	dl_type_unref(s->phys_request);
	dl_expr_free(s->prune);
	dl_expr_free(s->residual);
	dl_free(s->cols);
	dl_free(s->out_cols);
	dl_free(s->indexed);
	dl_free(s->files);
	dl_store_free(s->root_store);
	pthread_mutex_destroy(&s->store_mu);
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

int dl_table_resolve_path(dl_store *table_store, dl_store **root_store, pthread_mutex_t *mu,
                          const char *path, dl_store **store, const char **rel)
{
	if (!dl_log_path_is_absolute(path)) {
		*store = table_store;
		*rel = path;
		return 0;
	}
	if (path[0] != '/')
		return dl_error_set(DL_EUNSUPPORTED, "data file %s is on a storage this reader cannot open (only "
		                    "local paths are supported)", path);
	int rc = 0;
	pthread_mutex_lock(mu);
	if (!*root_store) rc = dl_store_open(root_store, "/", NULL);
	pthread_mutex_unlock(mu);
	if (rc < 0) return rc;
	*store = *root_store;
	*rel = path + 1;
	return 0;
}

int dl_scan_resolve_path(dl_scan *s, const char *path, dl_store **store, const char **rel)
{
	return dl_table_resolve_path(dl_snapshot_store(s->snap), &s->root_store, &s->store_mu, path, store, rel);
}
