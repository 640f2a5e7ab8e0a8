/* Helpers of the write-path tests: batches from compact text, tables read
 * back as sorted text, scratch directories, log inspection. */
#ifndef DL_TEST_OPS_FIXTURE_H
#define DL_TEST_OPS_FIXTURE_H
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "columnar/batch_stream.h"
#include "columnar/builder.h"
#include "columnar/format_value.h"
#include "deltalake/scan.h"
#include "deltalake/snapshot.h"
#include "ops/ddl.h"
#include "ops/write.h"
#include "table/scan.h"
#include "util/buf.h"
#include "util/mem.h"
#include "util/time.h"

/* Appends one text value to a builder of a primitive type ("NULL" is null). */
static inline int fx_append(dl_builder *b, const char *s, size_t n)
{
	if (n == 4 && memcmp(s, "NULL", 4) == 0) return dl_builder_append_null(b);
	char tmp[256];
	if (n >= sizeof tmp) return DL_EINVALID;
	memcpy(tmp, s, n);
	tmp[n] = 0;
	switch (dl_builder_type(b)->id) {
	case DL_TYPE_BYTE: case DL_TYPE_SHORT: case DL_TYPE_INTEGER: case DL_TYPE_LONG:
		return dl_builder_append_int(b, strtoll(tmp, NULL, 10));
	case DL_TYPE_DOUBLE: case DL_TYPE_FLOAT:
		return dl_builder_append_double(b, strtod(tmp, NULL));
	case DL_TYPE_BOOLEAN:
		return dl_builder_append_bool(b, strcmp(tmp, "true") == 0);
	case DL_TYPE_DATE: {
		int32_t d;
		DL_TRY(dl_date_parse(&d, tmp, n));
		return dl_builder_append_int(b, d);
	}
	case DL_TYPE_TIMESTAMP: {
		int64_t us;
		DL_TRY(dl_timestamp_parse(&us, tmp, n, NULL));
		return dl_builder_append_int(b, us);
	}
	case DL_TYPE_STRING:
		return dl_builder_append_bytes(b, tmp, n);
	default:
		return DL_EUNSUPPORTED;
	}
}

/* A batch of schema `ddl` from rows "v1,v2;v1,v2" (primitive columns). */
static inline dl_batch *fx_batch(const char *ddl, const char *rows)
{
	dl_type *t;
	if (dl_ddl_parse_schema(&t, ddl) < 0) return NULL;
	dl_builder **bs = dl_calloc((size_t)t->nchildren, sizeof *bs);
	for (int i = 0; i < t->nchildren; i++) dl_builder_new(&bs[i], t->children[i].type);
	int64_t nrows = 0;
	const char *p = rows;
	while (p && *p) {
		for (int i = 0; i < t->nchildren; i++) {
			const char *e = p;
			while (*e && *e != ',' && *e != ';') e++;
			if (fx_append(bs[i], p, (size_t)(e - p)) < 0) return NULL;
			p = *e == ',' ? e + 1 : e;
		}
		nrows++;
		if (*p == ';') p++;
	}
	dl_batch *b = dl_batch_new(t, nrows);
	for (int i = 0; i < t->nchildren; i++) {
		dl_builder_finish(&b->cols[i], bs[i]);
		dl_builder_free(bs[i]);
	}
	dl_free(bs);
	dl_type_unref(t);
	return b;
}

static inline dl_write_options fx_opts(dl_write_mode mode)
{
	dl_write_options o = DL_WRITE_OPTIONS_INIT;
	o.mode = mode;
	return o;
}

/* A stream of one batch of rows "1,2;3,4" of schema ddl (NULL on error). */
static inline dl_batch_stream *fx_stream(const char *ddl, const char *rows)
{
	dl_batch *b = fx_batch(ddl, rows);
	if (!b) return NULL;
	dl_batch_stream *s;
	dl_type *t = dl_type_ref(b->schema);
	int rc = dl_batch_stream_from_batches(&s, t, &b, 1);
	dl_type_unref(t);
	return rc == 0 ? s : NULL;
}

/* Writes rows through dl_ops_write. */
static inline int fx_write(int64_t *v, const char *uri, const char *ddl, const char *rows,
                    const dl_write_options *o)
{
	dl_batch_stream *s = fx_stream(ddl, rows);
	if (!s) return DL_EINVALID;
	int rc = dl_ops_write(v, uri, s, o, NULL, NULL);
	dl_batch_stream_free(s);
	return rc;
}

static inline int fx_cmp(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The rows of the table at `version` (-1: latest) as sorted "a,b;a,b" text
 * with the given columns (NULL: all). */
static inline char *fx_read(const char *uri, int64_t version, const char *cols)
{
	dl_snapshot_options so = DL_SNAPSHOT_OPTIONS_INIT;
	so.as_of_version = version;
	dl_snapshot *snap;
	if (dl_snapshot_open(&snap, uri, &so) < 0) return NULL;
	dl_scan_options o = DL_SCAN_OPTIONS_INIT;
	char *names[16];
	char *copy = cols ? dl_strdup(cols) : NULL;
	int n = 0;
	for (char *tok = copy ? strtok(copy, ",") : NULL; tok && n < 16; tok = strtok(NULL, ","))
		names[n++] = tok;
	if (cols) {
		o.columns = (const char *const *)names;
		o.ncolumns = n;
	}
	dl_scan *scan;
	if (dl_scan_open(&scan, snap, &o) < 0) return NULL;
	dl_batch_stream *st;
	if (dl_scan_batches(&st, scan) < 0) return NULL;
	char **lines = NULL;
	size_t nl = 0;
	dl_batch *b;
	while (dl_batch_stream_next(st, &b) == 0 && b) {
		for (int64_t r = 0; r < b->num_rows; r++) {
			dl_buf line = DL_BUF_INIT;
			dl_buf_puts(&line, "");
			for (int c = 0; c < b->ncols; c++) {
				if (c) dl_buf_putc(&line, ',');
				if (!dl_array_is_valid(b->cols[c], r)) dl_buf_puts(&line, "NULL");
				else dl_format_value(&line, b->cols[c], r);
			}
			lines = realloc(lines, (nl + 1) * sizeof *lines);
			lines[nl++] = line.data;
		}
		dl_batch_free(b);
	}
	if (nl) qsort(lines, nl, sizeof *lines, fx_cmp);
	dl_buf out = DL_BUF_INIT;
	dl_buf_puts(&out, "");
	for (size_t i = 0; i < nl; i++) {
		if (i) dl_buf_putc(&out, ';');
		dl_buf_puts(&out, lines[i]);
		dl_free(lines[i]);
	}
	free(lines);
	dl_batch_stream_free(st);
	dl_scan_free(scan);
	dl_snapshot_free(snap);
	dl_free(copy);
	return out.data;
}

static inline int64_t fx_version(const char *uri)
{
	dl_snapshot *snap;
	if (dl_snapshot_open(&snap, uri, NULL) < 0) return -1;
	int64_t v = dl_snapshot_version(snap);
	dl_snapshot_free(snap);
	return v;
}

/* The text of commit file `version`. */
static inline char *fx_commit(const char *dir, int64_t version)
{
	char path[1024];
	snprintf(path, sizeof path, "%s/_delta_log/%020lld.json", dir, (long long)version);
	FILE *f = fopen(path, "rb");
	if (!f) return NULL;
	dl_buf b = DL_BUF_INIT;
	char chunk[4096];
	size_t n;
	while ((n = fread(chunk, 1, sizeof chunk, f)) > 0) dl_buf_append(&b, chunk, n);
	fclose(f);
	return b.data;
}

/* Number of .parquet files under dir (recursively). */
static inline int fx_count_parquet(const char *dir)
{
	DIR *d = opendir(dir);
	if (!d) return 0;
	int n = 0;
	struct dirent *e;
	while ((e = readdir(d))) {
		if (e->d_name[0] == '.') continue;
		char p[2048];
		if (snprintf(p, sizeof p, "%s/%s", dir, e->d_name) >= (int)sizeof p) continue;
		struct stat st;
		if (stat(p, &st) == 0 && S_ISDIR(st.st_mode)) {
			if (strcmp(e->d_name, "_delta_log") != 0) n += fx_count_parquet(p);
		} else {
			size_t l = strlen(e->d_name);
			if (l > 8 && strcmp(e->d_name + l - 8, ".parquet") == 0) n++;
		}
	}
	closedir(d);
	return n;
}

static inline char *fx_tmpdir(void)
{
	char tmpl[] = "/tmp/dl-ops-test-XXXXXX";
	char *d = mkdtemp(tmpl);
	return d ? dl_strdup(d) : NULL;
}

/* Group setup and teardown for tests that work in one temporary directory,
 * g_dir (set by fx_setup_tmpdir, removed with its contents by
 * fx_teardown_tmpdir). */
static char *g_dir __attribute__((unused));

static inline int fx_setup_tmpdir(void **state)
{
	(void)state;
	g_dir = fx_tmpdir();
	return g_dir ? 0 : -1;
}

static inline int fx_teardown_tmpdir(void **state)
{
	(void)state;
	char cmd[512];
	snprintf(cmd, sizeof cmd, "rm -rf '%s'", g_dir);
	if (system(cmd) != 0) return -1;
	dl_free(g_dir);
	return 0;
}

static inline char *fx_table(const char *base, const char *name)
{
	size_t n = strlen(base) + strlen(name) + 2;
	char *p = dl_malloc(n);
	snprintf(p, n, "%s/%s", base, name);
	return p;
}

#endif
