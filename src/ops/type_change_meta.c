/* delta.typeChanges entries (type_change_meta.h). */
#include "ops/type_change_meta.h"
#include <string.h>
#include "json/json.h"
#include "util/buf.h"
#include "util/error.h"

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
