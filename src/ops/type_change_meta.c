/* delta.typeChanges entries (type_change_meta.h). */
#include "ops/type_change_meta.h"
#include <stdio.h>
#include <string.h>
#include "json/json.h"
#include "rewrite/conform.h" /* dl_type_widens_to */
#include "uniform/uniform.h" /* dl_uniform_format_enabled */
#include "util/buf.h"
#include "util/error.h"
#include "util/mem.h"

/* The array `old` (an array, or NULL) with the new entry appended. */
static int write_changes(dl_json_writer *w, dl_buf *v, const dl_json *old, const char *from,
                         const char *to, const char *field_path)
{
	int rc = 0;
	dl_jw_array_begin(w);
	for (size_t i = 0; old && old->kind == DL_JSON_ARRAY && i < old->u.arr.n && rc == 0; i++) {
		dl_buf_clear(v);
		rc = dl_json_write(v, &old->u.arr.items[i]);
		dl_jw_raw(w, v->data ? v->data : "null");
	}
	dl_jw_object_begin(w);
	dl_jw_key(w, "fromType");
	dl_jw_string(w, from);
	dl_jw_key(w, "toType");
	dl_jw_string(w, to);
	if (field_path) {
		dl_jw_key(w, "fieldPath");
		dl_jw_string(w, field_path);
	}
	dl_jw_object_end(w);
	dl_jw_array_end(w);
	return rc;
}

int dl_type_change_meta(char **out, const char *meta, const dl_type *from, const dl_type *to,
                        const char *field_path)
{
	*out = NULL;
	if (!meta || !*meta) meta = "{}";
	char fname[128], tname[128];
	dl_type_name(from, fname, sizeof fname);
	dl_type_name(to, tname, sizeof tname);
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
		/* the history is the last delta.typeChanges (as dl_json_get reads
		 * it), written once, where the first one was */
		const dl_json *old = dl_json_get(root, DL_TYPE_CHANGES_KEY);
		bool done = false;
		for (size_t i = 0; i < root->u.obj.n && rc == 0; i++) {
			const dl_json_member *m = &root->u.obj.items[i];
			if (strcmp(m->key, DL_TYPE_CHANGES_KEY) == 0) {
				if (done) continue;
				done = true;
				dl_jw_key(&w, m->key);
				rc = write_changes(&w, &v, old, fname, tname, field_path);
				continue;
			}
			dl_jw_key(&w, m->key);
			dl_buf_clear(&v);
			rc = dl_json_write(&v, &m->value);
			dl_jw_raw(&w, v.data ? v.data : "null");
		}
		if (!done && rc == 0) {
			dl_jw_key(&w, DL_TYPE_CHANGES_KEY);
			rc = write_changes(&w, &v, NULL, fname, tname, field_path);
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

/* TypeWidening.isTypeChangeSupportedForSchemaEvolution (SAME_FAMILY_TYPE). */
static bool same_family(const dl_type *from, const dl_type *to)
{
	/* integers never become double or decimal by themselves: their values
	 * would change meaning silently (Spark asks for ALTER TABLE) */
	if (dl_type_integral_rank(from->id)) return dl_type_integral_rank(to->id) > 0;
	return true;
}

/* TypeWidening.isTypeChangeSupportedByIceberg: Iceberg's promotions
 * (V1/V2; not date -> timestamp_ntz, not a decimal's scale). */
static bool iceberg_promotes(const dl_type *from, const dl_type *to)
{
	int rf = dl_type_integral_rank(from->id), rt = dl_type_integral_rank(to->id);
	if (rf || rt) return rf && rt && rf <= rt;
	if (from->id == DL_TYPE_FLOAT) return to->id == DL_TYPE_DOUBLE;
	if (from->id == DL_TYPE_DECIMAL && to->id == DL_TYPE_DECIMAL)
		return from->scale == to->scale && from->precision <= to->precision;
	return false;
}

void dl_widening_of(dl_widening *out, const dl_str_map *conf, dl_auto_widening mode)
{
	out->mode = mode;
	out->iceberg_only = conf && dl_uniform_format_enabled(conf, "iceberg");
}

bool dl_widening_allows(const dl_widening *w, const dl_type *from, const dl_type *to)
{
	if (!w || w->mode == DL_AUTO_WIDENING_NEVER) return false;
	if (!dl_type_is_primitive(from) || !dl_type_is_primitive(to) || dl_type_equals(from, to)) return false;
	if (!dl_type_widens_to(from, to)) return false;
	if (w->mode == DL_AUTO_WIDENING_SAME_FAMILY_TYPE && !same_family(from, to)) return false;
	return !w->iceberg_only || iceberg_promotes(from, to);
}

#define MAX_DEPTH 256

static int record(dl_type **out, const dl_type *o, const dl_type *n, const char *path, const char *orig,
                  char **meta, int depth);

static int record_struct(dl_type **out, const dl_type *o, const dl_type *n, int depth)
{
	*out = NULL;
	int cnt = n->nchildren;
	dl_field *fs = dl_calloc((size_t)cnt + 1, sizeof *fs);
	dl_type **types = dl_calloc((size_t)cnt + 1, sizeof *types);
	char **metas = dl_calloc((size_t)cnt + 1, sizeof *metas);
	int rc = fs && types && metas ? 0 : DL_ENOMEM;
	for (int i = 0; rc == 0 && i < cnt; i++) {
		fs[i] = n->children[i];
		int k = dl_type_field_index(o, fs[i].name);
		if (k < 0) types[i] = dl_type_ref(fs[i].type);
		else rc = record(&types[i], o->children[k].type, fs[i].type, "", fs[i].metadata, &metas[i], depth + 1);
		fs[i].type = types[i];
		if (metas[i]) fs[i].metadata = metas[i];
	}
	if (rc == 0 && !(*out = dl_type_struct(fs, cnt))) rc = dl_error_last()->code;
	for (int i = 0; types && metas && i < cnt; i++) {
		dl_type_unref(types[i]);
		dl_free(metas[i]);
	}
	dl_free(fs);
	dl_free(types);
	dl_free(metas);
	return rc;
}

/* The path of a part inside a map or array: "element", "value.key"... */
static void sub_path(char *out, size_t cap, const char *path, const char *part)
{
	snprintf(out, cap, "%s%s%s", path, *path ? "." : "", part);
}

/* n (the evolved o) rebuilt with its structs' fields recorded; the changes
 * of primitives reached through arrays and maps appended to *meta (the
 * field's metadata, orig until the first change). */
static int record(dl_type **out, const dl_type *o, const dl_type *n, const char *path, const char *orig,
                  char **meta, int depth)
{
	*out = NULL;
	if (depth > MAX_DEPTH) return dl_error_set(DL_ESCHEMA, "the schema is nested too deeply");
	if (o->id == DL_TYPE_STRUCT && n->id == DL_TYPE_STRUCT) return record_struct(out, o, n, depth);
	if ((o->id == DL_TYPE_ARRAY || o->id == DL_TYPE_MAP) && o->id == n->id) {
		static const char *const parts[2][2] = {{"element", NULL}, {"key", "value"}};
		const char *const *pp = parts[o->id == DL_TYPE_MAP];
		dl_type *c[2] = {NULL, NULL};
		char sub[512];
		int rc = 0;
		for (int i = 0; i < n->nchildren && rc == 0; i++) {
			sub_path(sub, sizeof sub, path, pp[i]);
			rc = record(&c[i], o->children[i].type, n->children[i].type, sub, orig, meta, depth + 1);
		}
		if (rc == 0) {
			*out = n->id == DL_TYPE_ARRAY ? dl_type_array(c[0], n->children[0].nullable)
			                              : dl_type_map(c[0], c[1], n->children[1].nullable);
			if (!*out) rc = dl_error_last()->code;
		}
		dl_type_unref(c[0]);
		dl_type_unref(c[1]);
		return rc;
	}
	if (dl_type_is_primitive(o) && dl_type_is_primitive(n) && o->id != DL_TYPE_NULL && n->id != DL_TYPE_NULL &&
	    !dl_type_equals(o, n)) {
		char *m;
		DL_TRY(dl_type_change_meta(&m, *meta ? *meta : orig, o, n, *path ? path : NULL));
		dl_free(*meta);
		*meta = m;
	}
	*out = dl_type_ref((dl_type *)n);
	return 0;
}

int dl_type_changes_record(dl_type **out, const dl_type *old, const dl_type *evolved)
{
	return record_struct(out, old, evolved, 0);
}
