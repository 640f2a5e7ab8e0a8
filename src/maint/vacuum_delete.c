/* VACUUM's deletes (Spark's parallelDelete): files on a pool of `threads`
 * workers through dl_store_delete_many, so every backend works and S3
 * deletes 1000 files a request (DeleteObjects); then the empty
 * directories, deepest first, with rmdir on a local file store (the only
 * store that has directories). Like Hadoop's non-recursive delete, a path
 * that is already gone or a directory that is no longer empty (a writer
 * put a file there meanwhile) is not an error and not counted. Any other
 * failure stops the run: the table stays readable, since only
 * unreferenced files were being deleted. */
#include "maint/vacuum_internal.h"

#include <errno.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "util/buf.h"
#include "util/error.h"
#include "util/mem.h"
#include "util/pool.h"

typedef struct del_job {
	dl_vacuum_ctx *c;
	dl_vacuum_entry **files;
	size_t n;
	size_t chunk; /* files a worker takes at once: one batch request on S3 */
	atomic_size_t next;
	atomic_llong deleted;
	atomic_int failed;
} del_job;

static int del_worker(void *arg)
{
	del_job *j = arg;
	const char **paths = dl_malloc(j->chunk * sizeof *paths);
	if (!paths) {
		atomic_store(&j->failed, 1);
		return DL_ENOMEM;
	}
	int rc = 0;
	for (;;) {
		if (atomic_load(&j->failed)) break;
		size_t i = atomic_fetch_add(&j->next, j->chunk);
		if (i >= j->n) break;
		size_t k = j->n - i < j->chunk ? j->n - i : j->chunk;
		for (size_t x = 0; x < k; x++) paths[x] = j->files[i + x]->path;
		size_t d = 0;
		rc = dl_store_delete_many(&d, j->c->store, paths, k);
		atomic_fetch_add(&j->deleted, (long long)d);
		if (rc < 0) {
			atomic_store(&j->failed, 1);
			break;
		}
	}
	dl_free(paths);
	return rc;
}

static int cmp_depth_desc(const void *a, const void *b)
{
	const char *x = (*(dl_vacuum_entry *const *)a)->path, *y = (*(dl_vacuum_entry *const *)b)->path;
	size_t dx = 0, dy = 0;
	for (; *x; x++) dx += *x == '/';
	for (; *y; y++) dy += *y == '/';
	return dx < dy ? 1 : dx > dy ? -1 : 0;
}

static int delete_dirs(int64_t *deleted, dl_vacuum_ctx *c, dl_vacuum_entry **dirs, size_t n)
{
	if (!n || !c->local_root) return 0;
	qsort(dirs, n, sizeof *dirs, cmp_depth_desc);
	dl_buf b = DL_BUF_INIT;
	int rc = 0;
	for (size_t i = 0; i < n && rc == 0; i++) {
		dl_buf_clear(&b);
		if ((rc = dl_buf_printf(&b, "%s/%s", c->local_root, dirs[i]->path)) < 0) break;
		if (rmdir(b.data) == 0) (*deleted)++;
		else if (errno != ENOENT && errno != ENOTEMPTY && errno != EEXIST)
			rc = dl_error_errno("removing the empty directory", b.data);
	}
	dl_buf_free(&b);
	return rc;
}

int dl_vacuum_delete(int64_t *deleted, dl_vacuum_ctx *c, dl_vacuum_entry **paths, size_t n,
                     int threads)
{
	*deleted = 0;
	dl_vacuum_entry **files = NULL, **dirs = NULL;
	size_t nf = 0, nd = 0;
	if (n) {
		files = dl_malloc(n * sizeof *files);
		dirs = dl_malloc(n * sizeof *dirs);
		if (!files || !dirs) {
			dl_free(files);
			dl_free(dirs);
			return DL_ENOMEM;
		}
	}
	for (size_t i = 0; i < n; i++) {
		if (paths[i]->is_dir) dirs[nd++] = paths[i];
		else files[nf++] = paths[i];
	}
	del_job j;
	j.c = c;
	j.files = files;
	j.n = nf;
	/* an even share per worker, but at least 64 (so an object store gets
	 * few big batch requests rather than one per worker) and at most one
	 * batch request (S3's DeleteObjects takes 1000) */
	size_t share = (nf + (size_t)(threads > 0 ? threads : 1) - 1) / (size_t)(threads > 0 ? threads : 1);
	j.chunk = share < 64 ? 64 : share > 1000 ? 1000 : share;
	atomic_init(&j.next, 0);
	atomic_init(&j.deleted, 0);
	atomic_init(&j.failed, 0);
	int rc = 0;
	if (nf > 0) {
		int nt = threads;
		if ((size_t)nt > nf) nt = (int)nf;
		dl_pool *pool = NULL;
		if (nt > 1) rc = dl_pool_create(&pool, nt - 1);
		if (rc == 0 && pool) {
			dl_waitgroup wg;
			dl_waitgroup_init(&wg);
			for (int t = 0; t < nt - 1 && rc == 0; t++) rc = dl_pool_submit(pool, &wg, del_worker, &j);
			int own = rc == 0 ? del_worker(&j) : rc;
			int w = dl_waitgroup_wait(&wg);
			dl_waitgroup_destroy(&wg);
			rc = own < 0 ? own : w;
			dl_pool_free(pool);
		} else if (rc == 0) {
			rc = del_worker(&j);
		}
	}
	*deleted = (int64_t)atomic_load(&j.deleted);
	if (rc == 0) rc = delete_dirs(deleted, c, dirs, nd);
	dl_free(files);
	dl_free(dirs);
	return rc;
}
