/* Spark's file sources: parquet.`path`, csv.`path`, json.`path`. A path
 * is a file, a directory (its files, not those starting with '_' or '.',
 * as Spark lists a directory) or a glob matching several files; all are
 * read as one table with the first file's schema (a later file whose
 * columns differ is an error naming it). Options are Spark's defaults:
 *   parquet  the file's schema
 *   csv      no header: every line is a row, columns _c0, _c1... of type
 *            STRING (Spark's header=false, inferSchema=false)
 *   json     JSON lines, types inferred from the first 1000 rows, columns
 *            in alphabetical order as Spark's inference orders them
 * Local paths only (file: URIs and plain paths): globbing needs a file
 * system. */
#include "sql/resolve_internal.h"
#include "columnar/batch_stream.h"
#include "deltalake/input.h"
#include "deltalake/parquet.h"
#include "log/schema.h"
#include "util/buf.h"
#include "util/error.h"
#include "util/mem.h"
#include <dirent.h>
#include <glob.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

typedef enum file_format { FF_PARQUET, FF_CSV, FF_JSON } file_format;

typedef struct file_rel {
	sql_relation r;
	file_format fmt;
	char **files;
	size_t nfiles;
	char *schema_json; /* csv/json: the types every file is read with */
	char *display;
	dl_type *schema;   /* the relation's columns */
} file_rel;

static void free_files(char **f, size_t n)
{
	for (size_t i = 0; i < n; i++) dl_free(f[i]);
	dl_free(f);
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static int push_file(char ***files, size_t *n, size_t *cap, const char *path)
{
	if (*n == *cap) {
		size_t c = *cap ? *cap * 2 : 16;
		char **g = dl_reallocarray(*files, c, sizeof *g);
		if (!g) return DL_ENOMEM;
		*files = g;
		*cap = c;
	}
	if (!((*files)[*n] = dl_strdup(path))) return DL_ENOMEM;
	(*n)++;
	return 0;
}

static int list_files(char ***out, size_t *nout, const char *uri)
{
	*out = NULL;
	*nout = 0;
	const char *p = uri;
	if (strncmp(p, "file://", 7) == 0) p += 7;
	else if (strncmp(p, "file:", 5) == 0) p += 5;
	else if (strstr(p, "://"))
		return dl_error_set(DL_EUNSUPPORTED, "%s: file sources read local paths only", uri);
	char **files = NULL;
	size_t n = 0, cap = 0;
	int rc = 0;
	struct stat sb;
	if (stat(p, &sb) == 0 && S_ISDIR(sb.st_mode)) {
		DIR *d = opendir(p);
		if (!d) return dl_error_errno("listing", p);
		struct dirent *e;
		while (rc == 0 && (e = readdir(d))) {
			if (e->d_name[0] == '.' || e->d_name[0] == '_') continue;
			char *full = NULL;
			dl_buf b = DL_BUF_INIT;
			rc = dl_buf_printf(&b, "%s/%s%c", p, e->d_name, 0);
			full = (char *)b.data;
			struct stat fs;
			if (rc == 0 && stat(full, &fs) == 0 && S_ISREG(fs.st_mode)) rc = push_file(&files, &n, &cap, full);
			dl_buf_free(&b);
		}
		closedir(d);
	} else if (strpbrk(p, "*?[{")) {
		glob_t g;
		int gr = glob(p, GLOB_NOSORT | GLOB_BRACE, NULL, &g);
		if (gr == 0)
			for (size_t i = 0; i < g.gl_pathc && rc == 0; i++) {
				struct stat fs;
				if (stat(g.gl_pathv[i], &fs) == 0 && S_ISREG(fs.st_mode)) rc = push_file(&files, &n, &cap, g.gl_pathv[i]);
			}
		if (gr == 0 || gr == GLOB_NOMATCH) globfree(&g);
	} else if (stat(p, &sb) == 0) {
		rc = push_file(&files, &n, &cap, p);
	}
	if (rc == 0 && n == 0)
		rc = dl_error_set_class(DL_ENOTFOUND, "PATH_NOT_FOUND", "[PATH_NOT_FOUND] Path does not exist: file:%s.", p);
	if (rc < 0) {
		free_files(files, n);
		return rc;
	}
	qsort(files, n, sizeof *files, cmp_str);
	*out = files;
	*nout = n;
	return 0;
}

/* One file's rows, all columns, as a stream (*pq holds a Parquet file
 * open under it). */
static int open_file(dl_batch_stream **out, dl_parquet_file **pq, file_format fmt, const char *path,
                     const char *schema_json)
{
	struct ArrowArrayStream a;
	memset(&a, 0, sizeof a);
	int rc;
	*pq = NULL;
	if (fmt == FF_PARQUET) {
		rc = dl_parquet_open(pq, path);
		if (rc == 0) rc = dl_parquet_read(&a, *pq, NULL);
	} else if (fmt == FF_CSV) {
		dl_csv_options o = DL_CSV_OPTIONS_INIT;
		o.header = false;
		o.schema_json = schema_json;
		rc = dl_read_csv(&a, path, &o);
	} else {
		dl_jsonl_options o = DL_JSONL_OPTIONS_INIT;
		o.schema_json = schema_json;
		rc = dl_read_jsonl(&a, path, &o);
	}
	if (rc == 0) rc = dl_batch_stream_import(out, &a);
	if (a.release) a.release(&a);
	if (rc < 0) {
		dl_parquet_free(*pq);
		*pq = NULL;
		return dl_error_prefix("%s: ", path);
	}
	return 0;
}

/* ---- reading the files one after the other ---- */

typedef struct files_stream {
	file_format fmt;
	char **files;
	size_t nfiles, next_file;
	char *schema_json;
	char **cols;
	int ncols;
	dl_exec_ctx ctx;
	dl_batch_stream *cur;
	dl_parquet_file *pq;
	dl_type *schema; /* of the first file's projection */
} files_stream;

static int fs_open_next(files_stream *f)
{
	dl_batch_stream *raw = NULL;
	const char *path = f->files[f->next_file++];
	DL_TRY(open_file(&raw, &f->pq, f->fmt, path, f->schema_json));
	int rc = sql_select_columns(&f->cur, raw, (const char *const *)f->cols, f->ncols, NULL);
	if (rc < 0) return dl_error_prefix("%s: ", path);
	const dl_type *t = dl_batch_stream_schema(f->cur);
	if (!f->schema) {
		f->schema = dl_type_ref((dl_type *)t);
		return 0;
	}
	bool same = t->nchildren == f->schema->nchildren;
	for (int i = 0; same && i < t->nchildren; i++)
		same = dl_type_equals(t->children[i].type, f->schema->children[i].type);
	if (!same)
		return dl_error_set_class(DL_ESCHEMA, "CANNOT_MERGE_SCHEMAS",
		                          "[CANNOT_MERGE_SCHEMAS] %s: its columns' types differ from those of %s", path,
		                          f->files[0]);
	return 0;
}

static void fs_close_cur(files_stream *f)
{
	dl_batch_stream_free(f->cur);
	f->cur = NULL;
	dl_parquet_free(f->pq);
	f->pq = NULL;
}

static const dl_type *fs_schema(dl_batch_stream *s)
{
	files_stream *f = s->private_data;
	return f->schema;
}

static int fs_next(dl_batch_stream *s, dl_batch **out)
{
	files_stream *f = s->private_data;
	*out = NULL;
	for (;;) {
		if (f->ctx.interrupt && atomic_load(f->ctx.interrupt)) return sql_cancelled();
		if (!f->cur) {
			if (f->next_file >= f->nfiles) return 0;
			DL_TRY(fs_open_next(f));
		}
		DL_TRY(dl_batch_stream_next(f->cur, out));
		if (*out) {
			/* the stream's schema is the first file's: relabel (same layout) */
			if (!dl_type_equals((*out)->schema, f->schema)) {
				int rc = dl_batch_set_schema(*out, f->schema);
				if (rc < 0) {
					dl_batch_free(*out);
					*out = NULL;
					return rc;
				}
			}
			return 0;
		}
		fs_close_cur(f);
	}
}

static void fs_release(dl_batch_stream *s)
{
	files_stream *f = s->private_data;
	fs_close_cur(f);
	free_files(f->files, f->nfiles);
	if (f->cols)
		for (int i = 0; i < f->ncols; i++) dl_free(f->cols[i]);
	dl_free(f->cols);
	dl_free(f->schema_json);
	if (f->schema) dl_type_unref(f->schema);
	dl_free(f);
	dl_free(s);
}

static int file_open(dl_batch_stream **out, sql_relation *r, const char *const *cols, int ncols, dl_expr *filter,
                     const dl_exec_ctx *ctx)
{
	file_rel *fr = r->impl;
	*out = NULL;
	dl_expr_free(filter); /* the planner filters above: files have no statistics here */
	dl_batch_stream *s = dl_calloc(1, sizeof *s);
	files_stream *f = s ? dl_calloc(1, sizeof *f) : NULL;
	if (!f) {
		dl_free(s);
		return dl_error_set(DL_ENOMEM, "out of memory");
	}
	s->private_data = f;
	s->schema = fs_schema;
	s->next = fs_next;
	s->release = fs_release;
	f->fmt = fr->fmt;
	f->ctx = ctx ? *ctx : (dl_exec_ctx)DL_EXEC_CTX_INIT;
	int rc = 0;
	/* the relation's column order (JSON's is alphabetical, not the file's) */
	int n = ncols >= 0 ? ncols : fr->schema->nchildren;
	f->cols = dl_calloc((size_t)(n ? n : 1), sizeof *f->cols);
	if (!f->cols) rc = DL_ENOMEM;
	for (int i = 0; i < n && rc == 0; i++) {
		const char *name = ncols >= 0 ? cols[i] : fr->schema->children[i].name;
		if (!(f->cols[i] = dl_strdup(name))) rc = DL_ENOMEM;
		else f->ncols++;
	}
	if (rc == 0 && fr->schema_json && !(f->schema_json = dl_strdup(fr->schema_json))) rc = DL_ENOMEM;
	if (rc == 0 && !(f->files = dl_calloc(fr->nfiles, sizeof *f->files))) rc = DL_ENOMEM;
	for (size_t i = 0; i < fr->nfiles && rc == 0; i++) {
		if (!(f->files[i] = dl_strdup(fr->files[i]))) rc = DL_ENOMEM;
		else f->nfiles++;
	}
	/* the first file now: the stream's schema must be known before next() */
	if (rc == 0) rc = fs_open_next(f);
	if (rc < 0) {
		fs_release(s);
		return rc;
	}
	*out = s;
	return 0;
}

static int file_explain(dl_buf *out, sql_relation *r, const char *const *cols, int ncols, const dl_expr *filter,
                        const dl_exec_ctx *ctx)
{
	(void)cols;
	(void)ncols;
	(void)filter;
	(void)ctx;
	file_rel *fr = r->impl;
	return dl_buf_printf(out, "files %zu", fr->nfiles);
}

static void file_release(sql_relation *r)
{
	file_rel *fr = r->impl;
	free_files(fr->files, fr->nfiles);
	dl_free(fr->schema_json);
	dl_free(fr->display);
	if (fr->schema) dl_type_unref(fr->schema);
	dl_free(fr);
}

static int cmp_field(const void *a, const void *b)
{
	return strcmp(((const dl_field *)a)->name, ((const dl_field *)b)->name);
}

/* The relation's schema from the first file (see the top of the file). */
static int first_schema(file_rel *fr)
{
	dl_batch_stream *s = NULL;
	dl_parquet_file *pq = NULL;
	DL_TRY(open_file(&s, &pq, fr->fmt, fr->files[0], NULL));
	const dl_type *t = dl_batch_stream_schema(s);
	int rc = 0;
	dl_field *f = dl_calloc((size_t)(t->nchildren ? t->nchildren : 1), sizeof *f);
	if (!f) rc = DL_ENOMEM;
	dl_type *str = rc == 0 ? dl_type_new(DL_TYPE_STRING) : NULL;
	if (rc == 0 && !str) rc = DL_ENOMEM;
	for (int i = 0; rc == 0 && i < t->nchildren; i++) {
		f[i] = t->children[i];
		f[i].nullable = true;
		if (fr->fmt == FF_CSV) f[i].type = str;
	}
	if (rc == 0 && fr->fmt == FF_JSON) qsort(f, (size_t)t->nchildren, sizeof *f, cmp_field);
	if (rc == 0 && !(fr->schema = dl_type_struct(f, t->nchildren))) rc = DL_ENOMEM;
	if (rc == 0 && fr->fmt != FF_PARQUET) {
		dl_buf b = DL_BUF_INIT;
		rc = dl_schema_to_json(&b, fr->schema);
		if (rc == 0) rc = dl_buf_putc(&b, 0);
		if (rc == 0) fr->schema_json = (char *)b.data;
		else dl_buf_free(&b);
	}
	if (str) dl_type_unref(str);
	dl_free(f);
	dl_batch_stream_free(s);
	dl_parquet_free(pq);
	return rc;
}

/* Parquet footers know their rows (the planner builds joins on the smaller
 * side); only for a moderate number of files, each footer being a read. */
static int64_t parquet_rows(const file_rel *fr)
{
	if (fr->nfiles > 256) return -1;
	int64_t total = 0;
	for (size_t i = 0; i < fr->nfiles; i++) {
		dl_parquet_file *f = NULL;
		if (dl_parquet_open(&f, fr->files[i]) < 0) {
			dl_error_clear();
			return -1;
		}
		dl_parquet_file_info info;
		dl_parquet_file_info_get(&info, f);
		total += info.num_rows;
		dl_parquet_free(f);
	}
	return total;
}

int sql_file_relation(sql_relation **out, dl_sql_conn *c, const sql_table_ref *ref, const dl_exec_ctx *ctx)
{
	(void)c;
	(void)ctx;
	file_format fmt;
	if (strcmp(ref->format, "parquet") == 0) fmt = FF_PARQUET;
	else if (strcmp(ref->format, "csv") == 0) fmt = FF_CSV;
	else if (strcmp(ref->format, "json") == 0) fmt = FF_JSON;
	else
		return dl_error_set_class(DL_EUNSUPPORTED, "UNSUPPORTED_DATASOURCE_FOR_DIRECT_QUERY",
		                          "[UNSUPPORTED_DATASOURCE_FOR_DIRECT_QUERY] Unsupported data source type for direct "
		                          "query on files: %s (delta, parquet, csv and json are)",
		                          ref->format);
	file_rel *fr = dl_calloc(1, sizeof *fr);
	if (!fr) return dl_error_set(DL_ENOMEM, "out of memory");
	fr->fmt = fmt;
	fr->r.impl = fr;
	dl_buf b = DL_BUF_INIT;
	int rc = list_files(&fr->files, &fr->nfiles, ref->path);
	if (rc == 0) rc = first_schema(fr);
	if (rc == 0) rc = dl_buf_printf(&b, "%s.`%s`%c", ref->format, ref->path, 0);
	if (rc < 0) {
		dl_buf_free(&b);
		file_release(&fr->r);
		return rc;
	}
	fr->display = (char *)b.data;
	fr->r.schema = fr->schema;
	fr->r.display = fr->display;
	fr->r.est_rows = fmt == FF_PARQUET ? parquet_rows(fr) : -1;
	fr->r.open = file_open;
	fr->r.explain = file_explain;
	fr->r.release = file_release;
	fr->r.impl = fr;
	*out = &fr->r;
	return 0;
}
