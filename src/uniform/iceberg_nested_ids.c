/* IcebergCompatV2 nested field ids (PROTOCOL.md "Iceberg Compatibility
 * V2" and "Column Mapping"; Spark's DeltaColumnMapping
 * .rewriteFieldIdsForIceberg, Kernel's ColumnMapping).
 *
 * Iceberg gives every list element and map key/value a field id, and its
 * readers resolve those Parquet nodes by id. Delta's schema has no field
 * for them, so their ids live in the metadata of the nearest enclosing
 * struct field, under delta.columnMapping.nested.ids, keyed by the path
 * from that field's physical name:
 *
 *   a ARRAY<INT>                    {"col-a.element": 5}
 *   m MAP<STRING, STRUCT<x INT>>    {"col-m.key": 6, "col-m.value": 7}
 *                                   (x's own metadata holds x's nested ids)
 *   l ARRAY<MAP<INT, INT>>          {"col-l.element": 8,
 *                                    "col-l.element.key": 9,
 *                                    "col-l.element.value": 10}
 *
 * Ids come after the column ids, from maxColumnId, which is raised past
 * them; existing ones are kept, so ALTER and schema evolution add ids only
 * for new nodes. The Parquet writer (parquet/schema_write.c) writes them
 * as the field_id of the element/key/value nodes. As Spark's
 * rewriteFieldIdsForIceberg does (putMetadata on every StructField of
 * every struct, at any depth), every struct field gets the key, an empty
 * object when nothing below it is an array or map; it goes after the
 * field's other keys, where Spark 4's (Scala 2.13) metadata map puts it
 * after delta.columnMapping.id and delta.columnMapping.physicalName.
 * (Kernel writes it only on fields holding an array or map.) */
#include "uniform/iceberg_nested_ids.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "log/properties.h"
#include "log/schema.h"
#include "util/buf.h"
#include "util/error.h"
#include "util/mem.h"

bool dl_ice_compat_v2_enabled(const dl_str_map *conf)
{
	bool found, b = false;
	const char *v = dl_str_map_get(conf, "delta.enableIcebergCompatV2", &found);
	return v && dl_parse_bool_property(v, &b) == 0 && b;
}

int dl_ice_nested_ids_of(const dl_field *f, dl_arena *arena, const dl_json **out)
{
	DL_TRY(dl_field_metadata_get(f, DL_CM_NESTED_IDS_KEY, arena, out));
	if (*out && (*out)->kind != DL_JSON_OBJECT)
		return dl_error_set(DL_ECORRUPT, "column '%s': metadata %s must be an object", f->name,
		                    DL_CM_NESTED_IDS_KEY);
	return 0;
}

bool dl_ice_nested_id(const dl_json *ids, const char *path, int32_t *out)
{
	const dl_json *v = ids ? dl_json_get(ids, path) : NULL;
	int64_t x;
	if (!v || dl_json_int64(v, &x) < 0 || x < INT32_MIN || x > INT32_MAX) {
		dl_error_clear();
		return false;
	}
	*out = (int32_t)x;
	return true;
}

/* The (path, id) pairs of one struct field: the existing ones first. */
typedef struct idlist {
	char **keys;
	int64_t *ids;
	size_t n, cap, nold;
} idlist;

static void idlist_free(idlist *l)
{
	for (size_t i = 0; i < l->n; i++) dl_free(l->keys[i]);
	dl_free(l->keys);
	dl_free(l->ids);
}

static int idlist_put(idlist *l, const char *key, size_t klen, int64_t id)
{
	if (l->n == l->cap) {
		size_t cap = l->cap ? l->cap * 2 : 8;
		char **k = dl_reallocarray(l->keys, cap, sizeof *k);
		if (!k) return DL_ENOMEM;
		l->keys = k;
		int64_t *v = dl_reallocarray(l->ids, cap, sizeof *v);
		if (!v) return DL_ENOMEM;
		l->ids = v;
		l->cap = cap;
	}
	l->keys[l->n] = dl_strndup(key, klen);
	if (!l->keys[l->n]) return DL_ENOMEM;
	l->ids[l->n++] = id;
	return 0;
}

static bool idlist_has(const idlist *l, const char *key)
{
	for (size_t i = 0; i < l->n; i++)
		if (strcmp(l->keys[i], key) == 0) return true;
	return false;
}

typedef struct walk {
	int64_t *max_id;
	bool changed;
} walk;

static int xform_struct(walk *w, dl_type **out, const dl_type *st);

/* Assigns the id of `path` when missing, then recurses into `t`. */
static int xform_slot(walk *w, dl_type **out, const dl_type *t, const char *path, idlist *l);

static int xform_type(walk *w, dl_type **out, const dl_type *t, const char *path, idlist *l)
{
	char sub[1024];
	switch (t->id) {
	case DL_TYPE_STRUCT: return xform_struct(w, out, t);
	case DL_TYPE_ARRAY: {
		if (snprintf(sub, sizeof sub, "%s.element", path) >= (int)sizeof sub)
			return dl_error_set(DL_EUNSUPPORTED, "nested path %s is too long", path);
		dl_type *e;
		DL_TRY(xform_slot(w, &e, t->children[0].type, sub, l));
		*out = dl_type_array(e, t->children[0].nullable);
		dl_type_unref(e);
		return *out ? 0 : DL_ENOMEM;
	}
	case DL_TYPE_MAP: {
		dl_type *k = NULL, *v = NULL;
		int rc = snprintf(sub, sizeof sub, "%s.value", path) >= (int)sizeof sub
		             ? dl_error_set(DL_EUNSUPPORTED, "nested path %s is too long", path)
		             : 0;
		if (rc == 0) {
			snprintf(sub, sizeof sub, "%s.key", path);
			rc = xform_slot(w, &k, t->children[0].type, sub, l);
		}
		if (rc == 0) {
			snprintf(sub, sizeof sub, "%s.value", path);
			rc = xform_slot(w, &v, t->children[1].type, sub, l);
		}
		if (rc == 0) {
			*out = dl_type_map(k, v, t->children[1].nullable);
			if (!*out) rc = DL_ENOMEM;
		}
		if (k) dl_type_unref(k);
		if (v) dl_type_unref(v);
		return rc;
	}
	default: *out = dl_type_ref((dl_type *)t); return 0;
	}
}

static int xform_slot(walk *w, dl_type **out, const dl_type *t, const char *path, idlist *l)
{
	if (!idlist_has(l, path)) {
		DL_TRY(idlist_put(l, path, strlen(path), ++*w->max_id));
		w->changed = true;
	}
	return xform_type(w, out, t, path, l);
}

/* metadata with delta.columnMapping.nested.ids = the list (in place of an
 * old one, else last). malloc'd. */
static int metadata_with(char **out, const dl_field *f, const idlist *l)
{
	dl_arena a = DL_ARENA_INIT;
	dl_json *root = NULL;
	const char *meta = f->metadata ? f->metadata : "{}";
	int rc = dl_json_parse(&a, meta, strlen(meta), "field metadata", &root);
	if (rc == 0 && root->kind != DL_JSON_OBJECT)
		rc = dl_error_set(DL_ECORRUPT, "column '%s': metadata is not an object", f->name);
	dl_buf b = DL_BUF_INIT, ids = DL_BUF_INIT;
	if (rc == 0) rc = dl_buf_putc(&ids, '{');
	for (size_t i = 0; rc == 0 && i < l->n; i++) {
		if (i) rc = dl_buf_putc(&ids, ',');
		if (rc == 0) rc = dl_buf_put_json_string(&ids, l->keys[i], strlen(l->keys[i]));
		if (rc == 0) rc = dl_buf_printf(&ids, ":%lld", (long long)l->ids[i]);
	}
	if (rc == 0) rc = dl_buf_putc(&ids, '}');
	if (rc == 0) rc = dl_buf_putc(&b, '{');
	bool put = false;
	for (size_t i = 0; rc == 0 && i < root->u.obj.n; i++) {
		const dl_json_member *m = &root->u.obj.items[i];
		if (i) rc = dl_buf_putc(&b, ',');
		if (rc == 0) rc = dl_buf_put_json_string(&b, m->key, m->key_len);
		if (rc == 0) rc = dl_buf_putc(&b, ':');
		if (rc == 0 && strcmp(m->key, DL_CM_NESTED_IDS_KEY) == 0) {
			rc = put ? dl_buf_puts(&b, "{}") : dl_buf_append(&b, ids.data, ids.len);
			put = true;
		} else if (rc == 0) {
			rc = dl_json_write(&b, &m->value);
		}
	}
	if (rc == 0 && !put) {
		if (root->u.obj.n) rc = dl_buf_putc(&b, ',');
		if (rc == 0) rc = dl_buf_put_json_string(&b, DL_CM_NESTED_IDS_KEY, strlen(DL_CM_NESTED_IDS_KEY));
		if (rc == 0) rc = dl_buf_putc(&b, ':');
		if (rc == 0) rc = dl_buf_append(&b, ids.data, ids.len);
	}
	if (rc == 0) rc = dl_buf_putc(&b, '}');
	if (rc == 0) {
		*out = dl_strndup(b.data, b.len);
		if (!*out) rc = DL_ENOMEM;
	}
	dl_buf_free(&b);
	dl_buf_free(&ids);
	dl_arena_free(&a);
	return rc;
}

static int xform_field(walk *w, dl_field *dst, const dl_field *f)
{
	*dst = *f;
	dst->metadata = NULL;
	dst->type = NULL;
	dl_arena a = DL_ARENA_INIT;
	idlist l = {0};
	const dl_json *old = NULL;
	const char *phys = NULL;
	int rc = dl_ice_nested_ids_of(f, &a, &old);
	if (rc == 0) rc = dl_field_physical_name(f, DL_CM_NAME, &a, &phys);
	for (size_t i = 0; rc == 0 && old && i < old->u.obj.n; i++) {
		int64_t id;
		const dl_json_member *m = &old->u.obj.items[i];
		if (dl_json_int64(&m->value, &id) < 0)
			rc = dl_error_set(DL_ECORRUPT, "column '%s': %s.%s is not an integer", f->name,
			                  DL_CM_NESTED_IDS_KEY, m->key);
		else rc = idlist_put(&l, m->key, m->key_len, id);
	}
	l.nold = l.n;
	if (rc == 0) rc = xform_type(w, &dst->type, f->type, phys, &l);
	if (rc == 0 && !old) w->changed = true; /* Spark's empty {} */
	if (rc == 0 && (l.n > l.nold || !old)) rc = metadata_with(&dst->metadata, f, &l);
	else if (rc == 0) dst->metadata = f->metadata; /* borrowed; dl_type_struct copies */
	idlist_free(&l);
	dl_arena_free(&a);
	return rc;
}

static int xform_struct(walk *w, dl_type **out, const dl_type *st)
{
	dl_field *fs = dl_calloc((size_t)st->nchildren + 1, sizeof *fs);
	if (!fs) return DL_ENOMEM;
	int rc = 0;
	for (int i = 0; i < st->nchildren && rc == 0; i++) rc = xform_field(w, &fs[i], &st->children[i]);
	if (rc == 0) {
		*out = dl_type_struct(fs, st->nchildren);
		if (!*out) rc = DL_ENOMEM;
	}
	for (int i = 0; i < st->nchildren; i++) {
		if (fs[i].metadata != st->children[i].metadata) dl_free(fs[i].metadata);
		if (fs[i].type) dl_type_unref(fs[i].type);
	}
	dl_free(fs);
	return rc;
}

int dl_ice_assign_nested_ids(dl_type **out, const dl_type *schema, int64_t *max_id, bool *changed)
{
	int64_t have = dl_ice_max_nested_id(schema);
	if (have > *max_id) *max_id = have;
	walk w = {.max_id = max_id};
	dl_type *t;
	DL_TRY(xform_struct(&w, &t, schema));
	*changed = w.changed;
	if (!w.changed) {
		dl_type_unref(t);
		t = dl_type_ref((dl_type *)schema);
	}
	*out = t;
	return 0;
}

int64_t dl_ice_max_nested_id(const dl_type *t)
{
	int64_t m = 0;
	if (t->id == DL_TYPE_VARIANT) return 0;
	for (int i = 0; i < t->nchildren; i++) {
		const dl_field *f = &t->children[i];
		if (t->id == DL_TYPE_STRUCT && f->metadata && strstr(f->metadata, DL_CM_NESTED_IDS_KEY)) {
			dl_arena a = DL_ARENA_INIT;
			const dl_json *ids = NULL;
			if (dl_ice_nested_ids_of(f, &a, &ids) < 0) dl_error_clear();
			for (size_t k = 0; ids && k < ids->u.obj.n; k++) {
				int64_t id;
				if (dl_json_int64(&ids->u.obj.items[k].value, &id) == 0 && id > m) m = id;
				dl_error_clear();
			}
			dl_arena_free(&a);
		}
		int64_t c = dl_ice_max_nested_id(f->type);
		if (c > m) m = c;
	}
	return m;
}

/* Checks the ids under `t`, reached from struct field `f` by `path`. */
static int check_type(const dl_type *t, const dl_field *f, const dl_json *ids, const char *path);

static int check_slot(const dl_type *t, const dl_field *f, const dl_json *ids, const char *path,
                      const char *slot)
{
	char sub[1024];
	int32_t id;
	snprintf(sub, sizeof sub, "%s.%s", path, slot);
	if (!dl_ice_nested_id(ids, sub, &id))
		return dl_error_set_class(DL_EUNSUPPORTED, "DELTA_ICEBERG_COMPAT_VIOLATION.UNSUPPORTED_DATA_TYPE",
		                          "column '%s' has no Iceberg field id for %s in %s (written before "
		                          "IcebergCompatV2 was enabled?); set the table's properties again to "
		                          "assign it",
		                          f->name, sub, DL_CM_NESTED_IDS_KEY);
	return check_type(t, f, ids, sub);
}

static int check_struct(const dl_type *st)
{
	for (int i = 0; i < st->nchildren; i++) {
		const dl_field *f = &st->children[i];
		if (f->type->id != DL_TYPE_STRUCT && f->type->id != DL_TYPE_ARRAY && f->type->id != DL_TYPE_MAP)
			continue;
		dl_arena a = DL_ARENA_INIT;
		const dl_json *ids = NULL;
		const char *phys = NULL;
		int rc = dl_ice_nested_ids_of(f, &a, &ids);
		if (rc == 0) rc = dl_field_physical_name(f, DL_CM_NAME, &a, &phys);
		if (rc == 0) rc = check_type(f->type, f, ids, phys);
		dl_arena_free(&a);
		DL_TRY(rc);
	}
	return 0;
}

static int check_type(const dl_type *t, const dl_field *f, const dl_json *ids, const char *path)
{
	switch (t->id) {
	case DL_TYPE_STRUCT: return check_struct(t);
	case DL_TYPE_ARRAY: return check_slot(t->children[0].type, f, ids, path, "element");
	case DL_TYPE_MAP:
		DL_TRY(check_slot(t->children[0].type, f, ids, path, "key"));
		return check_slot(t->children[1].type, f, ids, path, "value");
	default: return 0;
	}
}

int dl_ice_check_nested_ids(const dl_type *schema) { return check_struct(schema); }

int dl_ice_metadata_with_nested_ids(dl_metadata *out, dl_arena *arena, const dl_metadata *in)
{
	*out = *in;
	if (!dl_ice_compat_v2_enabled(&in->configuration) || !in->schema_string)
		return 0;
	dl_type *schema, *mapped = NULL;
	DL_TRY(dl_schema_parse(&schema, in->schema_string, strlen(in->schema_string)));
	int rc = 0;
	bool changed = false;
	/* Every struct field gets the key (Spark's empty {} included), so the
	 * schema changes even when no id is added; maxColumnId only when one is. */
	bool found;
	const char *m = dl_str_map_get(&in->configuration, "delta.columnMapping.maxColumnId", &found);
	int64_t max_id = m ? strtoll(m, NULL, 10) : 0, old_max = max_id;
	rc = dl_ice_assign_nested_ids(&mapped, schema, &max_id, &changed);
	dl_buf sj = DL_BUF_INIT;
	if (rc == 0 && changed) rc = dl_schema_to_json(&sj, mapped);
	if (rc == 0 && changed) out->schema_string = dl_arena_strdup(arena, sj.data);
	if (rc == 0 && changed && !out->schema_string) rc = DL_ENOMEM;
	if (rc == 0 && max_id != old_max) {
		dl_kv *items = dl_arena_calloc(arena, (size_t)in->configuration.n + 1, sizeof *items);
		char *num = dl_arena_alloc(arena, 24);
		if (!items || !num) rc = DL_ENOMEM;
		if (rc == 0) {
			snprintf(num, 24, "%lld", (long long)max_id);
			uint32_t n = 0;
			bool set = false;
			for (uint32_t i = 0; i < in->configuration.n; i++) {
				items[n] = in->configuration.items[i];
				if (strcmp(items[n].key, "delta.columnMapping.maxColumnId") == 0) {
					items[n].value = num;
					set = true;
				}
				n++;
			}
			if (!set) {
				items[n].key = "delta.columnMapping.maxColumnId";
				items[n++].value = num;
			}
			out->configuration.items = items;
			out->configuration.n = n;
		}
	}
	dl_buf_free(&sj);
	if (mapped) dl_type_unref(mapped);
	dl_type_unref(schema);
	return rc;
}
