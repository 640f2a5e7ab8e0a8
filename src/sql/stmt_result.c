/* Small results built row by row (SHOW, DESCRIBE, DML counts): one
 * builder per column, finished into a single batch. */
#include "columnar/builder.h"
#include "sql/session_internal.h"
#include "util/error.h"
#include "util/mem.h"
#include <string.h>

int sql_rows_init(sql_rows *r, const char *const *names, const dl_type_id *types, int n)
{
	memset(r, 0, sizeof *r);
	dl_field *f = dl_calloc((size_t)(n ? n : 1), sizeof *f);
	r->cols = dl_calloc((size_t)(n ? n : 1), sizeof *r->cols);
	if (!f || !r->cols) {
		dl_free(f);
		return dl_error_set(DL_ENOMEM, "out of memory building a result");
	}
	int rc = 0;
	for (int i = 0; i < n && rc == 0; i++) {
		f[i].name = (char *)names[i];
		f[i].nullable = true;
		f[i].metadata = (char *)"{}";
		if (!(f[i].type = dl_type_new(types[i]))) rc = DL_ENOMEM;
	}
	if (rc == 0 && !(r->schema = dl_type_struct(f, n))) rc = DL_ENOMEM;
	for (int i = 0; i < n; i++)
		if (f[i].type) dl_type_unref(f[i].type);
	dl_free(f);
	r->ncols = n;
	for (int i = 0; i < n && rc == 0; i++) rc = dl_builder_new(&r->cols[i], r->schema->children[i].type);
	if (rc < 0) sql_rows_free(r);
	return rc;
}

void sql_rows_free(sql_rows *r)
{
	if (r->cols)
		for (int i = 0; i < r->ncols; i++) dl_builder_free(r->cols[i]);
	dl_free(r->cols);
	if (r->schema) dl_type_unref(r->schema);
	memset(r, 0, sizeof *r);
}

int sql_rows_str(sql_rows *r, int i, const char *s)
{
	return s ? dl_builder_append_str(r->cols[i], s) : dl_builder_append_null(r->cols[i]);
}

int sql_rows_int(sql_rows *r, int i, int64_t v)
{
	return dl_builder_append_int(r->cols[i], v);
}

int sql_rows_bool(sql_rows *r, int i, bool v)
{
	return dl_builder_append_bool(r->cols[i], v);
}

int sql_rows_null(sql_rows *r, int i)
{
	return dl_builder_append_null(r->cols[i]);
}

int sql_rows_finish(dl_batch_stream **out, sql_rows *r)
{
	*out = NULL;
	int64_t n = r->ncols ? dl_builder_length(r->cols[0]) : 0;
	for (int i = 1; i < r->ncols; i++)
		if (dl_builder_length(r->cols[i]) != n)
			return dl_error_set(DL_ERROR, "internal: result column %d has %lld rows, not %lld", i,
			                    (long long)dl_builder_length(r->cols[i]), (long long)n);
	dl_batch *b = NULL;
	if (n > 0) {
		if (!(b = dl_batch_new(r->schema, n))) return DL_ENOMEM;
		for (int i = 0; i < r->ncols; i++) {
			int rc = dl_builder_finish(&b->cols[i], r->cols[i]);
			if (rc < 0) {
				dl_batch_free(b);
				return rc;
			}
		}
	}
	dl_batch *batches[1] = {b};
	return dl_batch_stream_from_batches(out, r->schema, batches, b ? 1 : 0); /* frees b on failure */
}

int sql_empty_result(dl_batch_stream **out)
{
	sql_rows r;
	DL_TRY(sql_rows_init(&r, NULL, NULL, 0));
	int rc = sql_rows_finish(out, &r);
	sql_rows_free(&r);
	return rc;
}
