/* What the rewrite and OPTIMIZE test fixtures share: a temporary directory
 * of tables per test program, the text of a commit, and a table's rows read
 * back as one sorted line of text (each fixture formats its own rows). */
#ifndef DL_TEST_TABLE_FIXTURE_H
#define DL_TEST_TABLE_FIXTURE_H
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "deltalake/scan.h"
#include "deltalake/snapshot.h"
#include "util/buf.h"
#include "util/mem.h"

/* root/name, malloc'd; root (a char[256] of the fixture, empty at first)
 * becomes a fresh mkdtemp directory from tmpl ("/tmp/x_XXXXXX") on first use. */
static inline char *fx_table_path(char *root, size_t cap, const char *tmpl, const char *name)
{
	if (!root[0]) {
		snprintf(root, cap, "%s", tmpl);
		if (!mkdtemp(root)) return NULL;
	}
	char *p = malloc(512);
	snprintf(p, 512, "%s/%s", root, name);
	return p;
}

static inline void fx_remove_root(const char *root)
{
	if (!root[0]) return;
	char cmd[300];
	snprintf(cmd, sizeof cmd, "rm -rf '%s'", root);
	if (system(cmd) != 0) fprintf(stderr, "cleanup of %s failed\n", root);
}

/* The text of commit `version` (up to 1 MiB), malloc'd; NULL if missing. */
static inline char *fx_commit_text(const char *uri, int64_t version)
{
	char path[600];
	snprintf(path, sizeof path, "%s/_delta_log/%020lld.json", uri, (long long)version);
	FILE *f = fopen(path, "rb");
	if (!f) return NULL;
	char *buf = calloc(1, 1 << 20);
	size_t got = fread(buf, 1, (1 << 20) - 1, f);
	buf[got] = 0;
	fclose(f);
	return buf;
}

/* Occurrences of `needle` in `hay`. */
static inline int fx_count(const char *hay, const char *needle)
{
	int n = 0;
	for (const char *p = hay; (p = strstr(p, needle)); p += strlen(needle)) n++;
	return n;
}

/* qsort order of row texts by their leading integer (the id). */
static inline int fx_cmp_leading_int(const void *a, const void *b)
{
	long long x, y;
	sscanf(*(char *const *)a, "%lld", &x);
	sscanf(*(char *const *)b, "%lld", &y);
	return x < y ? -1 : x > y;
}

/* Writes row r of b as text into out (cap bytes). */
typedef void (*fx_row_text_fn)(const dl_batch *b, int64_t r, char *out, size_t cap);

/* Every row of the latest version, columns cols, as fmt formats them (each
 * at most cap bytes), sorted by leading integer, joined by spaces;
 * malloc'd, NULL on error. */
static inline char *fx_read_rows(const char *uri, const char *const *cols, size_t ncols, fx_row_text_fn fmt,
                                 size_t cap)
{
	dl_snapshot *snap;
	if (dl_snapshot_open(&snap, uri, NULL) < 0) return NULL;
	dl_scan_options so = DL_SCAN_OPTIONS_INIT;
	so.columns = cols;
	so.ncolumns = ncols;
	dl_scan *scan;
	if (dl_scan_open(&scan, snap, &so) < 0) {
		dl_snapshot_free(snap);
		return NULL;
	}
	dl_batch_stream *s;
	char **rows = NULL;
	size_t n = 0;
	int rc = dl_scan_batches(&s, scan);
	while (rc == 0) {
		dl_batch *b;
		rc = dl_batch_stream_next(s, &b);
		if (rc < 0 || !b) break;
		for (int64_t r = 0; r < b->num_rows; r++) {
			rows = realloc(rows, (n + 1) * sizeof *rows);
			rows[n] = malloc(cap);
			fmt(b, r, rows[n++], cap);
		}
		dl_batch_free(b);
	}
	if (rc == 0) dl_batch_stream_free(s);
	dl_scan_free(scan);
	dl_snapshot_free(snap);
	if (rc < 0) {
		for (size_t i = 0; i < n; i++) free(rows[i]);
		free(rows);
		return NULL;
	}
	qsort(rows, n, sizeof *rows, fx_cmp_leading_int);
	dl_buf out = DL_BUF_INIT;
	for (size_t i = 0; i < n; i++) {
		dl_buf_printf(&out, "%s%s", i ? " " : "", rows[i]);
		free(rows[i]);
	}
	free(rows);
	if (!out.data) return dl_strdup("");
	return dl_buf_detach(&out, NULL);
}

#endif
