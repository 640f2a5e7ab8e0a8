/* Helpers of the VACUUM / FSCK / GENERATE tests: tables through the write
 * path (dml_fixture.h), files placed with chosen modification times, the
 * sorted list of a table directory's files, and a file-name collector for
 * the on_file callbacks. */
#ifndef DL_TEST_MAINT_FIXTURE_H
#define DL_TEST_MAINT_FIXTURE_H
#include <sys/stat.h>
#include <utime.h>
#include "../dml/dml_fixture.h"
#include "deltalake/maintenance.h"

#define DAY_S (24 * 3600)

/* Creates dir/rel (parents too) holding `n` bytes, modified `age_s` ago. */
static inline void mx_file(const char *dir, const char *rel, int n, long age_s)
{
	char path[2048], cmd[2400];
	snprintf(path, sizeof path, "%s/%s", dir, rel);
	snprintf(cmd, sizeof cmd, "mkdir -p \"$(dirname '%s')\"", path);
	assert_int_equal(system(cmd), 0);
	FILE *f = fopen(path, "wb");
	assert_non_null(f);
	for (int i = 0; i < n; i++) fputc('x', f);
	fclose(f);
	struct utimbuf t;
	t.actime = t.modtime = time(NULL) - age_s;
	assert_int_equal(utime(path, &t), 0);
}

static inline void mx_dir(const char *dir, const char *rel)
{
	char cmd[2400];
	snprintf(cmd, sizeof cmd, "mkdir -p '%s/%s'", dir, rel);
	assert_int_equal(system(cmd), 0);
}

/* Ages every file of the table except the log by `age_s` (so that the
 * files a test wrote count as old). */
static inline void mx_age_files(const char *dir, long age_s)
{
	char cmd[2400];
	snprintf(cmd, sizeof cmd,
	         "cd '%s' && find . -path ./_delta_log -prune -o -type f -print0 | "
	         "xargs -0 -r touch -d '@%ld'", dir, (long)time(NULL) - age_s);
	assert_int_equal(system(cmd), 0);
}

static inline bool mx_exists(const char *dir, const char *rel)
{
	char path[2048];
	snprintf(path, sizeof path, "%s/%s", dir, rel);
	struct stat st;
	return stat(path, &st) == 0;
}

/* Every file and directory under dir except _delta_log, sorted, ";"-joined. */
static inline char *mx_tree(const char *dir)
{
	char cmd[1200];
	snprintf(cmd, sizeof cmd,
	         "cd '%s' && find . -mindepth 1 -path ./_delta_log -prune -o -print | "
	         "sed 's|^\\./||' | LC_ALL=C sort | paste -sd ';'", dir);
	FILE *p = popen(cmd, "r");
	if (!p) return NULL;
	dl_buf b = DL_BUF_INIT;
	dl_buf_puts(&b, "");
	char chunk[4096];
	size_t n;
	while ((n = fread(chunk, 1, sizeof chunk, p)) > 0) dl_buf_append(&b, chunk, n);
	pclose(p);
	while (b.len && b.data[b.len - 1] == '\n') b.data[--b.len] = '\0';
	return b.data;
}

/* The data file names (relative paths) of the latest snapshot, sorted. */
static inline int mx_live_files(const char *uri, char ***out)
{
	dl_snapshot *snap;
	if (dl_snapshot_open(&snap, uri, NULL) < 0) return -1;
	size_t n = dl_snapshot_file_count(snap);
	char **v = calloc(n + 1, sizeof *v);
	for (size_t i = 0; i < n; i++) {
		dl_file_info f;
		assert_int_equal(dl_snapshot_file_at(&f, snap, i), 0);
		v[i] = strdup(f.path);
	}
	qsort(v, n, sizeof *v, fx_cmp);
	dl_snapshot_free(snap);
	*out = v;
	return (int)n;
}

static inline void mx_strv_free(char **v)
{
	for (size_t i = 0; v && v[i]; i++) free(v[i]);
	free(v);
}

/* Collects the paths an on_file callback gets, ";"-joined in call order. */
typedef struct mx_names {
	dl_buf b;
	int n;
	int64_t bytes;
} mx_names;

static inline int mx_collect(const char *path, int64_t size, void *payload)
{
	mx_names *m = payload;
	if (m->n++) dl_buf_putc(&m->b, ';');
	dl_buf_puts(&m->b, path);
	if (size > 0) m->bytes += size;
	return 0;
}

static inline const char *mx_names_text(mx_names *m)
{
	if (!m->b.data) dl_buf_puts(&m->b, "");
	return m->b.data;
}

#endif
