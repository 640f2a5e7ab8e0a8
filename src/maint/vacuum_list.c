/* VACUUM's candidates from listing the table (Spark's recursiveListDirs
 * with the hidden-name filter on every directory and file name): the
 * store's recursive listing gives the objects; directories exist only on
 * a local file store, where they are walked so that empty ones can go.
 * Object stores have none: their "directories" are prefixes of objects,
 * counted (numVacuumedDirectories) but never empty. */
#include "maint/vacuum_internal.h"

#include <dirent.h>
#include <errno.h>
#include <string.h>
#include <sys/stat.h>

#include "util/buf.h"
#include "util/error.h"
#include "util/mem.h"

/* Walks the local directories under `rel` ("" for the root), pushing each
 * non-hidden one. Symbolic links are not followed (the store does not
 * list through them either). */
static int walk_dirs(dl_vacuum_ctx *c, dl_buf *full, size_t root_len, int depth)
{
	if (depth > 256) return 0;
	DIR *d = opendir(full->data);
	if (!d) {
		if (errno == ENOENT || errno == ENOTDIR) return 0;
		return dl_error_errno("listing the directory", full->data);
	}
	int rc = 0;
	size_t base = full->len;
	struct dirent *de;
	while (rc == 0 && (errno = 0, de = readdir(d))) {
		const char *name = de->d_name;
		if (!strcmp(name, ".") || !strcmp(name, "..")) continue;
		if (dl_vacuum_hidden_name(c, name, strlen(name))) continue;
		full->len = base;
		full->data[base] = '\0';
		if ((rc = dl_buf_putc(full, '/')) < 0 || (rc = dl_buf_puts(full, name)) < 0) break;
		/* files are the store's listing; only directories matter here,
		 * and d_type saves a stat per file where the file system gives it */
		if (de->d_type != DT_DIR && de->d_type != DT_UNKNOWN) continue;
		struct stat st;
		if (lstat(full->data, &st) < 0 || !S_ISDIR(st.st_mode)) continue;
		const char *rel = full->data + root_len + 1;
		rc = dl_vacuum_push(c, rel, strlen(rel), 0, (int64_t)st.st_mtime * 1000, true);
		if (rc == 0) rc = walk_dirs(c, full, root_len, depth + 1);
	}
	if (rc == 0 && errno) rc = dl_error_errno("listing the directory", full->data);
	full->len = base;
	full->data[base] = '\0';
	closedir(d);
	return rc;
}

/* Distinct parent prefixes of the listed files (object stores). */
static int count_prefixes(dl_vacuum_ctx *c, int64_t *n)
{
	dl_strmap seen;
	dl_strmap_init(&seen, false);
	int rc = 0;
	for (size_t i = 0; i < c->listed.len && rc == 0; i++) {
		const char *p = c->listed.data[i].path;
		size_t len = strlen(p);
		for (;;) {
			while (len > 0 && p[len - 1] != '/') len--;
			if (len == 0) break;
			len--;
			void **slot;
			bool ins;
			if ((rc = dl_strmap_upsert(&seen, p, len, &slot, &ins)) < 0 || !ins) break;
			*slot = (void *)1;
		}
	}
	*n = (int64_t)seen.count;
	dl_strmap_free(&seen);
	return rc;
}

int dl_vacuum_list_table(dl_vacuum_ctx *c)
{
	dl_object_list l = {NULL, 0};
	DL_TRY(dl_store_list_recursive(&l, c->store, ""));
	int rc = dl_vec_reserve(&c->listed, l.count);
	for (size_t i = 0; i < l.count && rc == 0; i++) {
		const dl_object_info *it = &l.items[i];
		if (dl_vacuum_hidden_path(c, it->path)) continue;
		rc = dl_vacuum_push(c, it->path, strlen(it->path), it->size, it->mtime_ms, false);
	}
	dl_object_list_free(&l);
	DL_TRY(rc);
	if (c->local_root) {
		size_t files = c->listed.len;
		dl_buf full = DL_BUF_INIT;
		rc = dl_buf_puts(&full, c->local_root);
		size_t root_len = full.len;
		/* a table at "/" itself: its directories are not walked */
		if (rc == 0 && strcmp(full.data, "/") == 0) {
			dl_buf_free(&full);
			return count_prefixes(c, &c->dirs_present);
		}
		if (rc == 0) rc = walk_dirs(c, &full, root_len, 0);
		dl_buf_free(&full);
		c->dirs_present = (int64_t)(c->listed.len - files);
		return rc;
	}
	return count_prefixes(c, &c->dirs_present);
}
