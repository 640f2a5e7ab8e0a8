/* CONVERT TO DELTA's listing, in parallel (Spark's ManualListingFileManifest
 * over DeltaFileOperations.recursiveListDirs: the base directory listed,
 * then its subdirectories listed in parallel).
 *
 * The store API lists objects, not directories, so the directories to fan
 * out over come from the local filesystem: on a local table (a plain path
 * or file:// root) the walk goes level by level, every directory of a level
 * listed on the pool: its files through the store (dl_store_list_from, so
 * temp files, sizes and mtimes are exactly what the store lists) and its
 * subdirectories with readdir (symlinked directories not followed, as the
 * file store's recursive listing). Hidden directories (`skip`) are never
 * entered: `_delta_log`, `_SUCCESS` markers' siblings, `.spark-staging`...
 * Other stores (s3://, abfss://...) list the whole prefix as one paginated
 * stream, which is what their APIs offer; there the listing is the store's
 * recursive one. The result is sorted by path either way, so CONVERT sees
 * the same files in the same order. */
#include "maint/convert_internal.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "storage/backend.h"
#include "util/buf.h"
#include "util/error.h"
#include "util/mem.h"
#include "util/pool.h"
#include "util/url.h"

/* The local directory of a store root, or NULL for a remote store. */
static int local_root(char **out, const char *root)
{
	*out = NULL;
	if (root[0] == '/') return (*out = dl_strdup(root)) ? 0 : DL_ENOMEM;
	if (strncmp(root, "file://", 7) == 0) return dl_url_decode_str(out, root + 7);
	if (strncmp(root, "file:/", 6) == 0) return dl_url_decode_str(out, root + 5);
	return 0;
}

typedef struct dir_job {
	char *rel;               /* "" for the root, else "a=1/b=2" */
	dl_object_list files;    /* its objects (not recursive) */
	char **subdirs;          /* relative paths of its subdirectories */
	size_t nsub;
} dir_job;

typedef struct walk {
	dl_store *store;
	const char *local;       /* the root's local directory */
	bool (*skip)(const char *rel_dir);
} walk;

static int add_subdir(dir_job *j, size_t *cap, const char *name)
{
	if (j->nsub == *cap) {
		size_t nc = *cap ? *cap * 2 : 8;
		char **n = dl_realloc(j->subdirs, nc * sizeof *n);
		if (!n) return DL_ENOMEM;
		j->subdirs = n;
		*cap = nc;
	}
	dl_buf b = DL_BUF_INIT;
	int rc = j->rel[0] ? dl_buf_printf(&b, "%s/%s", j->rel, name) : dl_buf_puts(&b, name);
	char *p = rc == 0 ? dl_buf_detach(&b, NULL) : NULL;
	dl_buf_free(&b);
	if (!p) return rc ? rc : DL_ENOMEM;
	j->subdirs[j->nsub++] = p;
	return 0;
}

static int subdirs(const walk *w, dir_job *j)
{
	dl_buf full = DL_BUF_INIT;
	int rc = j->rel[0] ? dl_buf_printf(&full, "%s/%s", w->local, j->rel) : dl_buf_puts(&full, w->local);
	if (rc) return rc;
	DIR *d = opendir((const char *)full.data);
	if (!d) {
		/* gone meanwhile, or not a directory: nothing below it */
		rc = (errno == ENOENT || errno == ENOTDIR) ? 0 : dl_error_errno("listing", (const char *)full.data);
		dl_buf_free(&full);
		return rc;
	}
	size_t cap = 0;
	struct dirent *e;
	while (rc == 0 && (errno = 0, e = readdir(d)) != NULL) {
		if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, "..")) continue;
		bool dir = e->d_type == DT_DIR;
		if (e->d_type == DT_UNKNOWN) {
			struct stat st;
			dir = fstatat(dirfd(d), e->d_name, &st, AT_SYMLINK_NOFOLLOW) == 0 && S_ISDIR(st.st_mode);
		}
		if (!dir) continue;
		rc = add_subdir(j, &cap, e->d_name);
		if (rc == 0 && w->skip(j->subdirs[j->nsub - 1])) dl_free(j->subdirs[--j->nsub]);
	}
	if (rc == 0 && !e && errno != 0) rc = dl_error_errno("listing", (const char *)full.data);
	closedir(d);
	dl_buf_free(&full);
	return rc;
}

typedef struct level {
	const walk *w;
	dir_job *jobs;
} level;

static int list_level(void *ctx, size_t begin, size_t end)
{
	level *l = ctx;
	for (size_t i = begin; i < end; i++) {
		dir_job *j = &l->jobs[i];
		DL_TRY(dl_store_list_from(&j->files, l->w->store, j->rel, NULL));
		DL_TRY(subdirs(l->w, j));
	}
	return 0;
}

static int cmp_path(const void *a, const void *b)
{
	return strcmp(((const dl_object_info *)a)->path, ((const dl_object_info *)b)->path);
}

static void jobs_free(dir_job *jobs, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		dl_free(jobs[i].rel);
		dl_object_list_free(&jobs[i].files);
		for (size_t k = 0; k < jobs[i].nsub; k++) dl_free(jobs[i].subdirs[k]);
		dl_free(jobs[i].subdirs);
	}
	dl_free(jobs);
}

/* Moves the objects of a level into out, and its subdirectories into the
 * next level's jobs. */
static int collect(dl_object_list *out, size_t *cap, dir_job *jobs, size_t n, dir_job **next, size_t *nnext)
{
	size_t total = 0;
	for (size_t i = 0; i < n; i++) total += jobs[i].nsub;
	*next = NULL;
	*nnext = 0;
	if (total) {
		*next = dl_calloc(total, sizeof **next);
		if (!*next) return DL_ENOMEM;
	}
	for (size_t i = 0; i < n; i++) {
		for (size_t k = 0; k < jobs[i].files.count; k++) {
			const dl_object_info *o = &jobs[i].files.items[k];
			DL_TRY(dl_object_list_push(out, cap, o->path, o->size, o->mtime_ms));
		}
		for (size_t k = 0; k < jobs[i].nsub; k++) {
			(*next)[(*nnext)++].rel = jobs[i].subdirs[k];
			jobs[i].subdirs[k] = NULL;
		}
	}
	return 0;
}

int dl_convert_list(dl_object_list *out, dl_store *store, dl_pool *pool, bool (*skip)(const char *rel_dir))
{
	out->items = NULL;
	out->count = 0;
	char *local;
	DL_TRY(local_root(&local, dl_store_root(store)));
	if (!local) return dl_store_list_recursive(out, store, "");
	struct stat st;
	if (stat(local, &st) != 0 || !S_ISDIR(st.st_mode)) {
		dl_free(local);
		return DL_ENOTFOUND; /* the caller names the missing directory */
	}
	walk w = {store, local, skip};
	dir_job *jobs = dl_calloc(1, sizeof *jobs);
	if (!jobs) {
		dl_free(local);
		return DL_ENOMEM;
	}
	size_t n = 1, cap = 0;
	int rc = (jobs[0].rel = dl_strdup("")) ? 0 : DL_ENOMEM;
	while (rc == 0 && n > 0) {
		level l = {&w, jobs};
		rc = dl_parallel_for(pool, n, 1, list_level, &l);
		dir_job *next = NULL;
		size_t nnext = 0;
		if (rc == 0) rc = collect(out, &cap, jobs, n, &next, &nnext);
		jobs_free(jobs, n);
		jobs = next;
		n = nnext;
	}
	jobs_free(jobs, n);
	dl_free(local);
	if (rc == 0 && out->count) qsort(out->items, out->count, sizeof *out->items, cmp_path);
	if (rc) dl_object_list_free(out);
	return rc;
}
