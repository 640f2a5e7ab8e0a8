/* JSON lines input: one object per line; members are
 * columns (case-insensitive). Nested objects and arrays fill struct, array
 * and map columns of the table; strings fill dates, timestamps and
 * decimals by their text. */
#include <string.h>
#include <strings.h>
#include "columnar/builder.h"
#include "columnar/name_index.h"
#include "io/input.h"
#include "json/json.h"
#include "log/schema.h"
#include "util/buf.h"
#include "util/error.h"
#include "util/mem.h"

#define INFER_LINES 1000

typedef struct jl_state {
	dl_io_input *in;
	int64_t batch_rows;
	size_t batch_text;  /* input bytes a batch stops at (SIZE_MAX: none) */
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
	/* a member the schema lacks (first seen after the lines the schema was
	 * inferred from) would be dropped: an error instead */
	for (size_t k = 0; k < v->u.obj.n; k++)
		if (dl_schema_find(t, v->u.obj.items[k].key) < 0)
			return dl_error_set(DL_EINVALID, "field '%s' is not in the schema (the table's, and the fields of the "
			                    "first %d lines)",
			                    v->u.obj.items[k].key, INFER_LINES);
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
			DL_TRY(dl_io_append_text(dl_builder_child(b, 0), m->key, m->key_len));
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
	case DL_JSON_STRING: return dl_io_append_text(b, v->u.str.ptr, v->u.str.len);
	case DL_JSON_NUMBER: return dl_io_append_text(b, v->u.num.ptr, v->u.num.len);
	case DL_JSON_TRUE: return dl_io_append_text(b, "true", 4);
	case DL_JSON_FALSE: return dl_io_append_text(b, "false", 5);
	default:
		if (t->id != DL_TYPE_STRING) return dl_error_set(DL_EINVALID, "a JSON object or array cannot be a %s", dl_type_id_name(t->id));
		dl_buf_clear(&st->text);
		DL_TRY(dl_json_write(&st->text, v));
		return dl_builder_append_bytes(b, st->text.data, st->text.len);
	}
}

/* What the first lines say about a value's type: a tree mirroring the
 * nesting of objects (structs, fields in first-seen order) and arrays.
 * Conflicting shapes fall back to STRING (objects then keep their JSON
 * text); long and double unify to double. */
typedef struct guess {
	dl_type_id id;          /* DL_TYPE_NULL until a value is seen */
	char *name;             /* as a struct field */
	struct guess *kids;     /* STRUCT: fields; ARRAY: kids[0] = element */
	int n, cap;
} guess;

static void guess_free(guess *g)
{
	for (int i = 0; i < g->n; i++) guess_free(&g->kids[i]);
	dl_free(g->kids);
	dl_free(g->name);
}

static guess *guess_child(guess *g, const char *name)
{
	for (int i = 0; i < g->n; i++)
		if ((!name && !g->kids[i].name) || (name && g->kids[i].name && strcasecmp(g->kids[i].name, name) == 0))
			return &g->kids[i];
	if (g->n == g->cap) {
		int cap = g->cap ? g->cap * 2 : 4;
		guess *k = dl_reallocarray(g->kids, (size_t)cap, sizeof *k);
		if (!k) return NULL;
		g->kids = k;
		g->cap = cap;
	}
	guess *c = &g->kids[g->n];
	memset(c, 0, sizeof *c);
	if (name && !(c->name = dl_strdup(name))) return NULL;
	g->n++;
	return c;
}

static dl_type_id scalar_type(const dl_json *v)
{
	switch (v->kind) {
	case DL_JSON_TRUE: case DL_JSON_FALSE: return DL_TYPE_BOOLEAN;
	case DL_JSON_NUMBER: {
		int64_t i;
		return dl_json_int64(v, &i) == 0 ? DL_TYPE_LONG : DL_TYPE_DOUBLE;
	}
	default: return DL_TYPE_STRING;
	}
}

static int observe(guess *g, const dl_json *v, int depth)
{
	if (v->kind == DL_JSON_NULL || g->id == DL_TYPE_STRING) return 0;
	if (depth > 64) {
		g->id = DL_TYPE_STRING;
		return 0;
	}
	dl_type_id t = v->kind == DL_JSON_OBJECT ? DL_TYPE_STRUCT
	               : v->kind == DL_JSON_ARRAY ? DL_TYPE_ARRAY : scalar_type(v);
	if (g->id == DL_TYPE_NULL) g->id = t;
	else if (g->id != t) {
		bool numbers = (g->id == DL_TYPE_LONG || g->id == DL_TYPE_DOUBLE) &&
		               (t == DL_TYPE_LONG || t == DL_TYPE_DOUBLE);
		g->id = numbers ? DL_TYPE_DOUBLE : DL_TYPE_STRING;
		return 0;
	}
	if (t == DL_TYPE_STRUCT) {
		for (size_t k = 0; k < v->u.obj.n; k++) {
			guess *c = guess_child(g, v->u.obj.items[k].key);
			if (!c) return DL_ENOMEM;
			DL_TRY(observe(c, &v->u.obj.items[k].value, depth + 1));
		}
	} else if (t == DL_TYPE_ARRAY) {
		guess *e = guess_child(g, NULL);
		if (!e) return DL_ENOMEM;
		for (size_t k = 0; k < v->u.arr.n; k++) DL_TRY(observe(e, &v->u.arr.items[k], depth + 1));
	}
	return 0;
}

/* The type of a guess; nested values never seen are strings. */
static dl_type *guess_type(const guess *g, bool top)
{
	if (g->id == DL_TYPE_ARRAY) {
		dl_type *e = g->n ? guess_type(&g->kids[0], false) : dl_type_new(DL_TYPE_STRING);
		dl_type *a = e ? dl_type_array(e, true) : NULL;
		dl_type_unref(e);
		return a;
	}
	if (g->id == DL_TYPE_STRUCT) {
		dl_field *fs = dl_calloc((size_t)g->n + 1, sizeof *fs);
		if (!fs) return NULL;
		bool ok = true;
		for (int i = 0; i < g->n; i++) {
			fs[i].name = g->kids[i].name;
			fs[i].nullable = true;
			fs[i].metadata = (char *)"{}";
			ok = ok && (fs[i].type = guess_type(&g->kids[i], false)) != NULL;
		}
		dl_type *t = ok ? dl_type_struct(fs, g->n) : NULL;
		for (int i = 0; i < g->n; i++) dl_type_unref(fs[i].type);
		dl_free(fs);
		return t;
	}
	return dl_type_new(g->id == DL_TYPE_NULL && !top ? DL_TYPE_STRING : g->id);
}

/* A table column's type as the data should be read into it: the table's
 * type, with the fields the data has beyond it (inside structs, at any
 * depth, also in array elements) added with their guessed types. The write
 * then sees those fields and refuses them, or merges them with
 * merge_schema, as for Parquet input: dropping them here would lose the
 * values silently. */
static dl_type *table_type_with_data(const dl_type *t, const guess *g)
{
	if (t->id == DL_TYPE_ARRAY && g->id == DL_TYPE_ARRAY && g->n) {
		dl_type *e = table_type_with_data(t->children[0].type, &g->kids[0]);
		dl_type *a = e ? dl_type_array(e, t->children[0].nullable) : NULL;
		dl_type_unref(e);
		return a;
	}
	if (t->id != DL_TYPE_STRUCT || g->id != DL_TYPE_STRUCT) return dl_type_ref((dl_type *)t);
	int extra = 0;
	for (int k = 0; k < g->n; k++) extra += dl_schema_find(t, g->kids[k].name) < 0;
	dl_field *fs = dl_calloc((size_t)(t->nchildren + extra) + 1, sizeof *fs);
	if (!fs) return NULL;
	int n = 0;
	bool ok = true;
	for (int i = 0; i < t->nchildren; i++, n++) {
		fs[n] = t->children[i];
		const guess *kid = NULL;
		for (int k = 0; k < g->n && !kid; k++)
			if (strcasecmp(g->kids[k].name, t->children[i].name) == 0) kid = &g->kids[k];
		fs[n].type = kid ? table_type_with_data(t->children[i].type, kid) : dl_type_ref(t->children[i].type);
		ok = ok && fs[n].type;
	}
	for (int k = 0; k < g->n; k++) {
		if (dl_schema_find(t, g->kids[k].name) >= 0) continue;
		fs[n].name = g->kids[k].name;
		fs[n].nullable = true;
		fs[n].metadata = (char *)"{}";
		ok = ok && (fs[n].type = guess_type(&g->kids[k], false)) != NULL;
		n++;
	}
	dl_type *r = ok ? dl_type_struct(fs, n) : NULL;
	for (int i = 0; i < n; i++) dl_type_unref(fs[i].type);
	dl_free(fs);
	return r;
}

static int infer(jl_state *st, guess *root)
{
	size_t saved = st->pos;
	int64_t saved_line = st->line;
	int rc = 0;
	const char *s;
	size_t len;
	root->id = DL_TYPE_STRUCT;
	for (int lines = 0; lines < INFER_LINES && rc == 0 && next_line(st, &s, &len); lines++) {
		dl_json *v;
		rc = dl_json_parse(&st->arena, s, len, st->in->path, &v);
		/* The parser counts lines within this one line: name the file's. */
		if (rc < 0) rc = dl_error_prefix("%s: line %lld", st->in->path, (long long)st->line);
		if (rc == 0 && v->kind != DL_JSON_OBJECT)
			rc = dl_error_set(DL_EINVALID, "%s: line %lld is not a JSON object", st->in->path,
			                  (long long)st->line);
		if (rc == 0) rc = observe(root, v, 0);
	}
	dl_arena_reset(&st->arena);
	st->pos = saved;
	st->line = saved_line;
	if (rc == 0 && root->n == 0)
		rc = dl_error_set(DL_EINVALID, "%s: no JSON object with members in the first lines", st->in->path);
	return rc;
}

/* *t with field k's type replaced by c. */
static int replace_field(dl_type **t, int k, dl_type *c)
{
	const dl_type *cur = *t;
	dl_field *fs = dl_calloc((size_t)cur->nchildren + 1, sizeof *fs);
	if (!fs) return DL_ENOMEM;
	memcpy(fs, cur->children, (size_t)cur->nchildren * sizeof *fs);
	fs[k].type = c;
	dl_type *r = dl_type_struct(fs, cur->nchildren);
	dl_free(fs);
	if (!r) return DL_ENOMEM;
	dl_type_unref(*t);
	*t = r;
	return 0;
}

/* Type widening (input.h): *t widened where the value v needs it, in
 * primitive columns and the fields of structs. Not inside arrays and maps:
 * the write records a widening in delta.typeChanges only for struct
 * fields, and an unrecorded change would leave older files unreadable to
 * a reader that trusts the record. Values of the wrong kind are left to
 * reading, which names them. */
static int widen_json(dl_type **t, const dl_json *v, int depth)
{
	if (v->kind == DL_JSON_NULL || depth > 200) return 0;
	if ((*t)->id == DL_TYPE_STRUCT) {
		if (v->kind != DL_JSON_OBJECT) return 0;
		for (size_t m = 0; m < v->u.obj.n; m++) {
			int k = dl_schema_find(*t, v->u.obj.items[m].key);
			if (k < 0) continue;
			dl_type *c = dl_type_ref((*t)->children[k].type);
			int rc = widen_json(&c, &v->u.obj.items[m].value, depth + 1);
			if (rc == 0 && c != (*t)->children[k].type) rc = replace_field(t, k, c);
			dl_type_unref(c);
			if (rc < 0) return rc;
		}
		return 0;
	}
	if (!dl_io_widenable(*t)) return 0;
	if (v->kind == DL_JSON_NUMBER) return dl_io_widen_for_text(t, v->u.num.ptr, v->u.num.len);
	if (v->kind == DL_JSON_STRING) return dl_io_widen_for_text(t, v->u.str.ptr, v->u.str.len);
	return 0;
}

/* The whole file's values widen the types of the table's columns
 * (use_table); a line that does not parse ends the pass, reading reports
 * it. */
static int widen_columns(jl_state *st, dl_field *fs, const bool *use_table, int n)
{
	/* members found by name in constant time: an index over the column
	 * names (the types in fs change, the names do not) */
	dl_type *names = dl_type_struct(fs, n);
	if (!names) return DL_ENOMEM;
	dl_name_index ix;
	int rc = dl_name_index_init(&ix, names);
	if (rc < 0) {
		dl_type_unref(names);
		return rc;
	}
	size_t saved = st->pos;
	int64_t saved_line = st->line;
	const char *s;
	size_t len;
	for (int64_t lines = 1; rc == 0 && next_line(st, &s, &len); lines++) {
		dl_json *v;
		if (dl_json_parse(&st->arena, s, len, st->in->path, &v) < 0 || v->kind != DL_JSON_OBJECT) {
			dl_error_clear();
			break;
		}
		for (size_t m = 0; m < v->u.obj.n && rc == 0; m++) {
			int c = dl_name_index_find(&ix, v->u.obj.items[m].key);
			if (c >= 0 && use_table[c]) rc = widen_json(&fs[c].type, &v->u.obj.items[m].value, 0);
		}
		if ((lines & 1023) == 0) {
			dl_arena_reset(&st->arena);
			dl_io_input_release(st->in, st->pos); /* reading comes back, from the page cache */
		}
	}
	dl_name_index_free(&ix);
	dl_type_unref(names);
	dl_arena_reset(&st->arena);
	st->pos = saved;
	st->line = saved_line;
	return rc;
}

static int build_schema(jl_state *st, const dl_type *table, bool widen)
{
	guess root;
	memset(&root, 0, sizeof root);
	int rc = infer(st, &root);
	int n = root.n;
	dl_field *fs = rc == 0 ? dl_calloc((size_t)n + 1, sizeof *fs) : NULL;
	bool *use = rc == 0 ? dl_calloc((size_t)n + 1, sizeof *use) : NULL;
	if (rc == 0 && (!fs || !use)) rc = DL_ENOMEM;
	for (int c = 0; c < n && rc == 0; c++) {
		const guess *g = &root.kids[c];
		int k = table ? dl_schema_find(table, g->name) : -1;
		fs[c].name = g->name;
		fs[c].nullable = true;
		fs[c].metadata = (char *)"{}";
		/* A NullType table column takes the data's type (schema evolution). */
		use[c] = k >= 0 && table->children[k].type->id != DL_TYPE_NULL;
		fs[c].type = use[c] ? table_type_with_data(table->children[k].type, g) : guess_type(g, true);
		if (!fs[c].type) rc = DL_ENOMEM;
	}
	if (rc == 0 && widen) rc = widen_columns(st, fs, use, n);
	if (rc == 0) {
		st->schema = dl_type_struct(fs, n);
		if (!st->schema) rc = DL_ENOMEM;
	}
	for (int c = 0; fs && c < n; c++) dl_type_unref(fs[c].type);
	dl_free(fs);
	dl_free(use);
	guess_free(&root);
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
	size_t start = st->pos;
	while (rows < st->batch_rows && st->pos - start < st->batch_text && next_line(st, &line, &len)) {
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
	/* the builder holds copies and the arena is empty: nothing before pos
	 * is looked at again */
	dl_io_input_release(st->in, st->pos);
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
	dl_io_input_free(st->in);
	dl_free(st);
	dl_free(s);
}

int dl_io_jsonl_stream(dl_batch_stream **out, dl_io_input *in, const dl_type *table, int64_t batch_rows,
                       bool widen)
{
	*out = NULL;
	dl_batch_stream *s = dl_calloc(1, sizeof *s);
	jl_state *st = dl_calloc(1, sizeof *st);
	if (!s || !st) {
		dl_free(s);
		dl_free(st);
		dl_io_input_free(in);
		return DL_ENOMEM;
	}
	st->in = in;
	st->batch_rows = batch_rows > 0 ? batch_rows : DL_IO_BATCH_ROWS;
	st->batch_text = batch_rows > 0 ? SIZE_MAX : DL_IO_BATCH_TEXT;
	s->private_data = st;
	s->schema = jl_schema;
	s->next = jl_next;
	s->release = jl_release;
	int rc = build_schema(st, table, widen);
	if (rc == 0) rc = dl_builder_new(&st->b, st->schema);
	if (rc < 0) {
		jl_release(s);
		return rc;
	}
	*out = s;
	return 0;
}
