/* Small results built row by row (SHOW, DESCRIBE, DML counts): one
 * builder per column, finished into a single batch. */
#include "columnar/builder.h"
#include "sql/session_internal.h"
#include "json/json.h"
#include "util/buf.h"
#include "util/error.h"
#include "util/mem.h"
#include <string.h>

int sql_rows_init_typed(sql_rows *r, const char *const *names, dl_type *const *types, int n)
{
	memset(r, 0, sizeof *r);
	dl_field *f = dl_calloc((size_t)(n ? n : 1), sizeof *f);
	r->cols = dl_calloc((size_t)(n ? n : 1), sizeof *r->cols);
	if (!f || !r->cols) {
		dl_free(f);
		dl_free(r->cols);
		r->cols = NULL;
		return dl_error_set(DL_ENOMEM, "out of memory building a result");
	}
	for (int i = 0; i < n; i++) {
		f[i].name = (char *)names[i];
		f[i].nullable = true;
		f[i].metadata = (char *)"{}";
		f[i].type = types[i];
	}
	int rc = (r->schema = dl_type_struct(f, n)) ? 0 : DL_ENOMEM;
	dl_free(f);
	r->ncols = n;
	for (int i = 0; i < n && rc == 0; i++) rc = dl_builder_new(&r->cols[i], r->schema->children[i].type);
	if (rc < 0) sql_rows_free(r);
	return rc;
}

int sql_rows_init(sql_rows *r, const char *const *names, const dl_type_id *types, int n)
{
	dl_type **t = dl_calloc((size_t)(n ? n : 1), sizeof *t);
	int rc = t ? 0 : DL_ENOMEM;
	for (int i = 0; i < n && rc == 0; i++)
		if (!(t[i] = dl_type_new(types[i]))) rc = DL_ENOMEM;
	if (rc == 0) rc = sql_rows_init_typed(r, names, t, n);
	else memset(r, 0, sizeof *r);
	for (int i = 0; t && i < n; i++)
		if (t[i]) dl_type_unref(t[i]);
	dl_free(t);
	return rc;
}

dl_type *sql_type_string_map(void)
{
	dl_type *s = dl_type_new(DL_TYPE_STRING);
	dl_type *m = s ? dl_type_map(s, s, true) : NULL;
	if (s) dl_type_unref(s);
	return m;
}

dl_type *sql_type_string_array(void)
{
	dl_type *s = dl_type_new(DL_TYPE_STRING);
	dl_type *a = s ? dl_type_array(s, true) : NULL;
	if (s) dl_type_unref(s);
	return a;
}

/* A JSON value as a map or array cell: strings as themselves, other
 * values as their compact JSON text, JSON null as NULL. */
static int json_text_cell(dl_builder *b, const dl_json *v)
{
	if (v->kind == DL_JSON_NULL) return dl_builder_append_null(b);
	if (v->kind == DL_JSON_STRING) return dl_builder_append_bytes(b, v->u.str.ptr, v->u.str.len);
	dl_buf t = DL_BUF_INIT;
	int rc = dl_json_write(&t, v);
	if (rc == 0) rc = dl_builder_append_bytes(b, t.data ? t.data : "", t.len);
	dl_buf_free(&t);
	return rc;
}

int sql_rows_json(sql_rows *r, int i, const char *text)
{
	dl_builder *b = r->cols[i];
	if (!text) return dl_builder_append_null(b);
	dl_arena a = DL_ARENA_INIT;
	dl_json *v = NULL;
	int rc = dl_json_parse(&a, text, strlen(text), "result cell", &v);
	bool map = dl_builder_type(b)->id == DL_TYPE_MAP;
	if (rc == 0 && v->kind == DL_JSON_NULL) rc = dl_builder_append_null(b);
	else if (rc == 0 && map && v->kind == DL_JSON_OBJECT) {
		rc = dl_builder_begin_list(b);
		for (size_t k = 0; rc == 0 && k < v->u.obj.n; k++) {
			const dl_json_member *m = &v->u.obj.items[k];
			rc = dl_builder_append_bytes(dl_builder_child(b, 0), m->key, m->key_len);
			if (rc == 0) rc = json_text_cell(dl_builder_child(b, 1), &m->value);
		}
		if (rc == 0) rc = dl_builder_end_list(b);
	} else if (rc == 0 && !map && v->kind == DL_JSON_ARRAY) {
		rc = dl_builder_begin_list(b);
		for (size_t k = 0; rc == 0 && k < v->u.arr.n; k++) rc = json_text_cell(dl_builder_child(b, 0), &v->u.arr.items[k]);
		if (rc == 0) rc = dl_builder_end_list(b);
	} else if (rc == 0) {
		rc = dl_error_set(DL_ECORRUPT, "a result cell is JSON of the wrong shape: %.80s", text);
	}
	dl_arena_free(&a);
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
