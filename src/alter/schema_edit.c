/* Schema edits by column path (see schema_edit.h). */
#include "alter/schema_edit.h"
#include <stdio.h>
#include <string.h>
#include <strings.h>
#include "json/json.h"
#include "log/schema.h"
#include "util/error.h"
#include "util/mem.h"

int se_path_parse(se_path *out, dl_arena *arena, const char *text)
{
	out->parts = NULL;
	out->n = 0;
	if (!text || !*text) return dl_error_set(DL_EINVALID, "a column name is empty");
	size_t len = strlen(text);
	out->parts = dl_arena_calloc(arena, len + 1, sizeof *out->parts);
	char *buf = dl_arena_alloc(arena, len + 1);
	if (!out->parts || !buf) return DL_ENOMEM;
	const char *p = text;
	char *w = buf;
	for (;;) {
		char *start = w;
		if (*p == '`') {
			p++;
			for (;;) {
				if (!*p) return dl_error_set(DL_EINVALID, "column name %s: a closing '`' is missing", text);
				if (*p == '`') {
					if (p[1] != '`') break;
					p++;
				}
				*w++ = *p++;
			}
			p++;
		} else {
			while (*p && *p != '.') *w++ = *p++;
		}
		*w++ = 0;
		if (!*start)
			return dl_error_set(DL_EINVALID, "column name %s has an empty part", text);
		out->parts[out->n++] = start;
		if (!*p) break;
		if (*p != '.')
			return dl_error_set(DL_EINVALID, "column name %s: expected '.' after a quoted part", text);
		p++;
	}
	return 0;
}

int se_child_index(const dl_type *t, const char *name)
{
	switch (t->id) {
	case DL_TYPE_STRUCT:
		for (int i = 0; i < t->nchildren; i++)
			if (strcmp(t->children[i].name, name) == 0) return i;
		return dl_type_field_index(t, name);
	case DL_TYPE_ARRAY:
		return strcasecmp(name, "element") == 0 ? 0 : -1;
	case DL_TYPE_MAP:
		return strcasecmp(name, "key") == 0 ? 0 : strcasecmp(name, "value") == 0 ? 1 : -1;
	default:
		return -1;
	}
}

const dl_type *se_resolve(const dl_type *root, const char *const *parts, int n, int *depth)
{
	const dl_type *t = root;
	int d = 0;
	for (; d < n; d++) {
		int i = se_child_index(t, parts[d]);
		if (i < 0) break;
		t = t->children[i].type;
	}
	if (depth) *depth = d;
	return d == n ? t : NULL;
}

int se_with_child(dl_type **out, const dl_type *t, int i, dl_type *child, const char *meta)
{
	*out = NULL;
	if (t->id == DL_TYPE_ARRAY) {
		*out = dl_type_array(child, t->children[0].nullable);
	} else if (t->id == DL_TYPE_MAP) {
		*out = i == 0 ? dl_type_map(child, t->children[1].type, t->children[1].nullable)
		              : dl_type_map(t->children[0].type, child, t->children[1].nullable);
	} else if (t->id == DL_TYPE_STRUCT) {
		dl_field *fs = dl_calloc((size_t)t->nchildren + 1, sizeof *fs);
		if (!fs) return DL_ENOMEM;
		memcpy(fs, t->children, (size_t)t->nchildren * sizeof *fs);
		fs[i].type = child;
		if (meta) fs[i].metadata = (char *)meta;
		*out = dl_type_struct(fs, t->nchildren);
		dl_free(fs);
	} else {
		return dl_error_set(DL_ERROR, "schema edit: not a container type");
	}
	return *out ? 0 : DL_ENOMEM;
}

static int edit_rec(dl_type **out, const dl_type *t, const char *const *parts, int n, int at,
                    se_edit_fn fn, void *payload)
{
	if (at == n) return fn(out, t, payload);
	int i = se_child_index(t, parts[at]);
	if (i < 0) {
		dl_buf b = DL_BUF_INIT;
		dl_field_path_text(&b, parts, at + 1);
		int rc = dl_error_set_class(DL_EINVALID, "DELTA_COLUMN_NOT_FOUND_IN_SCHEMA",
		                            "Unable to find %s column in the table schema", b.data);
		dl_buf_free(&b);
		return rc;
	}
	dl_type *child;
	DL_TRY(edit_rec(&child, t->children[i].type, parts, n, at + 1, fn, payload));
	int rc = se_with_child(out, t, i, child, NULL);
	dl_type_unref(child);
	return rc;
}

int se_edit_at(dl_type **out, const dl_type *root, const char *const *parts, int n,
               se_edit_fn fn, void *payload)
{
	*out = NULL;
	return edit_rec(out, root, parts, n, 0, fn, payload);
}

char *se_json_string(const char *s)
{
	dl_buf b = DL_BUF_INIT;
	dl_json_writer w;
	dl_jw_init(&w, &b);
	dl_jw_string(&w, s);
	if (dl_jw_finish(&w) < 0) {
		dl_buf_free(&b);
		return NULL;
	}
	return dl_buf_detach(&b, NULL);
}

int se_meta_set(char **out, const char *meta, const char *key, const char *raw)
{
	*out = NULL;
	if (!meta || !*meta) meta = "{}";
	dl_arena a = DL_ARENA_INIT;
	dl_json *root;
	int rc = dl_json_parse(&a, meta, strlen(meta), "field metadata", &root);
	if (rc == 0 && root->kind != DL_JSON_OBJECT)
		rc = dl_error_set(DL_ECORRUPT, "field metadata is not a JSON object: %s", meta);
	dl_buf b = DL_BUF_INIT, v = DL_BUF_INIT;
	if (rc == 0) {
		dl_json_writer w;
		dl_jw_init(&w, &b);
		dl_jw_object_begin(&w);
		bool done = false;
		for (size_t i = 0; i < root->u.obj.n && rc == 0; i++) {
			const dl_json_member *m = &root->u.obj.items[i];
			if (strcmp(m->key, key) == 0) {
				done = true;
				if (!raw) continue;
				dl_jw_key(&w, m->key);
				dl_jw_raw(&w, raw);
				continue;
			}
			dl_buf_clear(&v);
			rc = dl_json_write(&v, &m->value);
			dl_jw_key(&w, m->key);
			dl_jw_raw(&w, v.data ? v.data : "null");
		}
		if (!done && raw) {
			dl_jw_key(&w, key);
			dl_jw_raw(&w, raw);
		}
		dl_jw_object_end(&w);
		if (rc == 0) rc = dl_jw_finish(&w);
	}
	dl_arena_free(&a);
	dl_buf_free(&v);
	if (rc < 0) {
		dl_buf_free(&b);
		return rc;
	}
	*out = dl_buf_detach(&b, NULL);
	return *out ? 0 : DL_ENOMEM;
}

bool se_any_field_has(const dl_type *t, const char *key)
{
	if (t->id == DL_TYPE_VARIANT) return false;
	for (int i = 0; i < t->nchildren; i++) {
		const dl_field *f = &t->children[i];
		if (t->id == DL_TYPE_STRUCT && f->metadata && strstr(f->metadata, key)) {
			char q[128];
			snprintf(q, sizeof q, "\"%s\"", key);
			if (strstr(f->metadata, q)) return true;
		}
		if (se_any_field_has(f->type, key)) return true;
	}
	return false;
}

/* Whether field metadata `meta` has one of `keys` as a member. */
static bool has_any_key(const char *meta, const char *const *keys, int n)
{
	for (int k = 0; meta && k < n; k++) {
		char q[128];
		snprintf(q, sizeof q, "\"%s\"", keys[k]);
		if (strstr(meta, q)) return true;
	}
	return false;
}

int se_strip_meta(dl_type **out, const dl_type *t, const char *const *keys, int n)
{
	if (t->nchildren == 0 || t->id == DL_TYPE_VARIANT) {
		*out = dl_type_ref((dl_type *)t);
		return 0;
	}
	dl_type *cur = dl_type_ref((dl_type *)t);
	int rc = 0;
	for (int i = 0; i < t->nchildren && rc == 0; i++) {
		const dl_field *f = &t->children[i];
		dl_type *child = NULL;
		rc = se_strip_meta(&child, f->type, keys, n);
		char *meta = NULL;
		bool has = t->id == DL_TYPE_STRUCT && has_any_key(f->metadata, keys, n);
		if (rc == 0 && has) {
			meta = dl_strdup(f->metadata);
			if (!meta) rc = DL_ENOMEM;
			for (int k = 0; k < n && rc == 0; k++) {
				char *next = NULL;
				rc = se_meta_set(&next, meta, keys[k], NULL);
				dl_free(meta);
				meta = next;
			}
		}
		if (rc == 0 && (child != f->type || has)) {
			dl_type *next = NULL;
			rc = se_with_child(&next, cur, i, child, meta);
			if (rc == 0) {
				dl_type_unref(cur);
				cur = next;
			}
		}
		dl_free(meta);
		dl_type_unref(child);
	}
	if (rc < 0) {
		dl_type_unref(cur);
		return rc;
	}
	*out = cur;
	return 0;
}
