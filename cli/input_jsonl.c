/* JSON lines input of `deltalake write`: one object per line; members are
 * columns (case-insensitive). Nested objects and arrays fill struct, array
 * and map columns of the table; strings fill dates, timestamps and
 * decimals by their text. */
#include <string.h>
#include <strings.h>
#include "columnar/builder.h"
#include "input.h"
#include "json/json.h"
#include "log/schema.h"
#include "util/buf.h"
#include "util/error.h"
#include "util/mem.h"

#define INFER_LINES 1000

typedef struct jl_state {
	dl_cli_input *in;
	size_t pos;
	int64_t line;
	dl_type *schema;
	dl_builder *b;   /* a struct builder of the schema */
	dl_arena arena;
	dl_buf text;
} jl_state;

/* The next non-blank line [*s, *s + *n), or false at the end. */
static bool next_line(jl_state *st, const char **s, size_t *n)
{
	const char *d = st->in->data;
	size_t len = st->in->len;
	while (st->pos < len) {
		const char *nl = memchr(d + st->pos, '\n', len - st->pos);
		size_t end = nl ? (size_t)(nl - d) : len;
		size_t start = st->pos;
		st->pos = nl ? end + 1 : len;
		st->line++;
		size_t e = end;
		while (e > start && (d[e - 1] == '\r' || d[e - 1] == ' ' || d[e - 1] == '\t')) e--;
		size_t b = start;
		while (b < e && (d[b] == ' ' || d[b] == '\t')) b++;
		if (b == e) continue;
		*s = d + b;
		*n = e - b;
		return true;
	}
	return false;
}

static int append_value(jl_state *st, dl_builder *b, const dl_json *v, int depth);

static int append_struct(jl_state *st, dl_builder *b, const dl_json *v, int depth)
{
	const dl_type *t = dl_builder_type(b);
	if (v->kind != DL_JSON_OBJECT) return dl_error_set(DL_EINVALID, "expected a JSON object");
	DL_TRY(dl_builder_begin_struct(b));
	for (int i = 0; i < t->nchildren; i++) {
		const dl_json *m = NULL;
		for (size_t k = 0; k < v->u.obj.n; k++)
			if (strcasecmp(v->u.obj.items[k].key, t->children[i].name) == 0) m = &v->u.obj.items[k].value;
		int rc = m ? append_value(st, dl_builder_child(b, i), m, depth + 1)
		           : dl_builder_append_null(dl_builder_child(b, i));
		if (rc < 0) return dl_error_prefix("field %s", t->children[i].name);
	}
	return dl_builder_end_struct(b);
}

static int append_value(jl_state *st, dl_builder *b, const dl_json *v, int depth)
{
	const dl_type *t = dl_builder_type(b);
	if (depth > 200) return dl_error_set(DL_EINVALID, "the JSON value is nested too deeply");
	if (v->kind == DL_JSON_NULL) return dl_builder_append_null(b);
	switch (t->id) {
	case DL_TYPE_STRUCT:
		return append_struct(st, b, v, depth);
	case DL_TYPE_ARRAY:
		if (v->kind != DL_JSON_ARRAY) return dl_error_set(DL_EINVALID, "expected a JSON array");
		DL_TRY(dl_builder_begin_list(b));
		for (size_t i = 0; i < v->u.arr.n; i++)
			DL_TRY(append_value(st, dl_builder_child(b, 0), &v->u.arr.items[i], depth + 1));
		return dl_builder_end_list(b);
	case DL_TYPE_MAP:
		if (v->kind != DL_JSON_OBJECT) return dl_error_set(DL_EINVALID, "expected a JSON object");
		DL_TRY(dl_builder_begin_list(b));
		for (size_t i = 0; i < v->u.obj.n; i++) {
			const dl_json_member *m = &v->u.obj.items[i];
			DL_TRY(dl_cli_append_text(dl_builder_child(b, 0), m->key, m->key_len));
			DL_TRY(append_value(st, dl_builder_child(b, 1), &m->value, depth + 1));
		}
		return dl_builder_end_list(b);
	case DL_TYPE_BOOLEAN:
		if (v->kind == DL_JSON_TRUE || v->kind == DL_JSON_FALSE)
			return dl_builder_append_bool(b, v->kind == DL_JSON_TRUE);
		break;
	default:
		break;
	}
	switch (v->kind) {
	case DL_JSON_STRING: return dl_cli_append_text(b, v->u.str.ptr, v->u.str.len);
	case DL_JSON_NUMBER: return dl_cli_append_text(b, v->u.num.ptr, v->u.num.len);
	case DL_JSON_TRUE: return dl_cli_append_text(b, "true", 4);
	case DL_JSON_FALSE: return dl_cli_append_text(b, "false", 5);
	default:
		if (t->id != DL_TYPE_STRING) return dl_error_set(DL_EINVALID, "a JSON object or array cannot be a %s", dl_type_id_name(t->id));
		dl_buf_clear(&st->text);
		DL_TRY(dl_json_write(&st->text, v));
		return dl_builder_append_bytes(b, st->text.data, st->text.len);
	}
}

typedef struct col_guess {
	char *name;
	dl_type_id id; /* DL_TYPE_NULL until a value is seen */
} col_guess;

static dl_type_id kind_type(const dl_json *v)
{
	switch (v->kind) {
	case DL_JSON_NULL: return DL_TYPE_NULL;
	case DL_JSON_TRUE: case DL_JSON_FALSE: return DL_TYPE_BOOLEAN;
	case DL_JSON_NUMBER: {
		int64_t i;
		return dl_json_int64(v, &i) == 0 ? DL_TYPE_LONG : DL_TYPE_DOUBLE;
	}
	default: return DL_TYPE_STRING;
	}
}

static dl_type_id unify(dl_type_id a, dl_type_id b)
{
	if (a == DL_TYPE_NULL) return b;
	if (b == DL_TYPE_NULL || a == b) return a;
	if ((a == DL_TYPE_LONG && b == DL_TYPE_DOUBLE) || (a == DL_TYPE_DOUBLE && b == DL_TYPE_LONG))
		return DL_TYPE_DOUBLE;
	return DL_TYPE_STRING;
}

static int infer(jl_state *st, col_guess **out, int *ncols)
{
	size_t saved = st->pos;
	int64_t saved_line = st->line;
	col_guess *g = NULL;
	int n = 0, cap = 0, rc = 0;
	const char *s;
	size_t len;
	for (int lines = 0; lines < INFER_LINES && rc == 0 && next_line(st, &s, &len); lines++) {
		dl_json *v;
		rc = dl_json_parse(&st->arena, s, len, st->in->path, &v);
		if (rc == 0 && v->kind != DL_JSON_OBJECT)
			rc = dl_error_set(DL_EINVALID, "%s: line %lld is not a JSON object", st->in->path,
			                  (long long)st->line);
		for (size_t k = 0; rc == 0 && k < v->u.obj.n; k++) {
			const dl_json_member *m = &v->u.obj.items[k];
			int c = 0;
			while (c < n && strcasecmp(g[c].name, m->key) != 0) c++;
			if (c == n) {
				if (n == cap) {
					cap = cap ? cap * 2 : 16;
					col_guess *ng = dl_reallocarray(g, (size_t)cap, sizeof *ng);
					if (!ng) { rc = DL_ENOMEM; break; }
					g = ng;
				}
				g[n].name = dl_strdup(m->key);
				g[n].id = DL_TYPE_NULL;
				if (!g[n++].name) { rc = DL_ENOMEM; break; }
			}
			g[c].id = unify(g[c].id, kind_type(&m->value));
		}
	}
	dl_arena_reset(&st->arena);
	st->pos = saved;
	st->line = saved_line;
	*out = g;
	*ncols = n;
	if (rc == 0 && n == 0) rc = dl_error_set(DL_EINVALID, "%s: no JSON object with members in the first lines", st->in->path);
	return rc;
}

static int build_schema(jl_state *st, const dl_type *table)
{
	col_guess *g = NULL;
	int n = 0;
	int rc = infer(st, &g, &n);
	dl_field *fs = rc == 0 ? dl_calloc((size_t)n, sizeof *fs) : NULL;
	if (rc == 0 && !fs) rc = DL_ENOMEM;
	for (int c = 0; c < n && rc == 0; c++) {
		int k = table ? dl_schema_find(table, g[c].name) : -1;
		fs[c].name = g[c].name;
		fs[c].nullable = true;
		fs[c].metadata = (char *)"{}";
		/* A NullType table column takes the data's type (schema evolution). */
		bool use_table = k >= 0 && table->children[k].type->id != DL_TYPE_NULL;
		fs[c].type = use_table ? dl_type_ref(table->children[k].type) : dl_type_new(g[c].id);
		if (!fs[c].type) rc = DL_ENOMEM;
	}
	if (rc == 0) {
		st->schema = dl_type_struct(fs, n);
		if (!st->schema) rc = DL_ENOMEM;
	}
	for (int c = 0; c < n; c++) {
		if (fs) dl_type_unref(fs[c].type);
		dl_free(g[c].name);
	}
	dl_free(fs);
	dl_free(g);
	return rc;
}

static const dl_type *jl_schema(dl_batch_stream *s)
{
	return ((jl_state *)s->private_data)->schema;
}

static int jl_next(dl_batch_stream *s, dl_batch **out)
{
	jl_state *st = s->private_data;
	*out = NULL;
	const char *line;
	size_t len;
	int64_t rows = 0;
	while (rows < DL_CLI_INPUT_BATCH_ROWS && next_line(st, &line, &len)) {
		dl_json *v;
		int rc = dl_json_parse(&st->arena, line, len, st->in->path, &v);
		if (rc == 0 && v->kind != DL_JSON_OBJECT)
			rc = dl_error_set(DL_EINVALID, "not a JSON object");
		if (rc == 0) rc = append_struct(st, st->b, v, 0);
		if (rc < 0) return dl_error_prefix("%s: line %lld", st->in->path, (long long)st->line);
		rows++;
		if ((rows & 1023) == 0) dl_arena_reset(&st->arena);
	}
	dl_arena_reset(&st->arena);
	if (rows == 0) return 0;
	dl_array *a;
	DL_TRY(dl_builder_finish(&a, st->b));
	dl_batch *b = dl_batch_new(st->schema, rows);
	if (!b) {
		dl_array_free(a);
		return dl_error_last()->code;
	}
	/* The struct's children become the columns. */
	for (int c = 0; c < a->nchildren; c++) {
		b->cols[c] = a->children[c];
		a->children[c] = NULL;
	}
	a->nchildren = 0;
	dl_array_free(a);
	*out = b;
	return 0;
}

static void jl_release(dl_batch_stream *s)
{
	jl_state *st = s->private_data;
	dl_builder_free(st->b);
	dl_type_unref(st->schema);
	dl_arena_free(&st->arena);
	dl_buf_free(&st->text);
	dl_free(st);
	dl_free(s);
}

int dl_cli_jsonl_stream(dl_batch_stream **out, dl_cli_input *in, const dl_type *table)
{
	dl_batch_stream *s = dl_calloc(1, sizeof *s);
	jl_state *st = dl_calloc(1, sizeof *st);
	if (!s || !st) {
		dl_free(s);
		dl_free(st);
		return DL_ENOMEM;
	}
	st->in = in;
	s->private_data = st;
	s->schema = jl_schema;
	s->next = jl_next;
	s->release = jl_release;
	int rc = build_schema(st, table);
	if (rc == 0) rc = dl_builder_new(&st->b, st->schema);
	if (rc < 0) {
		jl_release(s);
		return rc;
	}
	*out = s;
	return 0;
}
