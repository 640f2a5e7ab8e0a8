/* Reading Iceberg metadata (the table spec's Appendix C JSON), manifest
 * lists and manifests (Avro object container files, read with avro-c's
 * file reader over the bytes fetched from the store). Used by the UniForm
 * converter to continue from the last metadata it wrote, by CONVERT TO
 * DELTA from Iceberg, and by tests. Everything read is outside data:
 * every field is type-checked and a bad one is DL_ECORRUPT naming the file
 * and the field. */
#include "uniform/iceberg_read.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/error.h"
#include "util/mem.h"

static int bad(const char *what, const char *field, const char *problem)
{
	return dl_error_set(DL_ECORRUPT, "Iceberg metadata %s: %s %s", what, field, problem);
}

static int get_long(const dl_json *o, const char *key, bool required, int64_t *out, int64_t dflt,
                    const char *what)
{
	const dl_json *v = dl_json_get(o, key);
	if (!v || v->kind == DL_JSON_NULL) {
		if (required) return bad(what, key, "is missing");
		*out = dflt;
		return 0;
	}
	if (v->kind != DL_JSON_NUMBER || dl_json_int64(v, out) < 0) {
		dl_error_clear();
		return bad(what, key, "is not an integer");
	}
	return 0;
}

static int get_str(const dl_json *o, const char *key, bool required, const char **out, const char *what)
{
	const dl_json *v = dl_json_get(o, key);
	*out = NULL;
	if (!v) return required ? bad(what, key, "is missing") : 0;
	if (v->kind != DL_JSON_STRING) return bad(what, key, "is not a string");
	*out = v->u.str.ptr;
	return 0;
}

static const dl_json *get_kind(const dl_json *o, const char *key, dl_json_kind k)
{
	const dl_json *v = dl_json_get(o, key);
	return v && v->kind == k ? v : NULL;
}

int dl_ice_metadata_parse(dl_ice_metadata *out, dl_arena *arena, const char *text, size_t len,
                          const char *what)
{
	memset(out, 0, sizeof *out);
	out->file_version = -1;
	out->current_snapshot_id = -1;
	out->converted_delta_version = -1;
	dl_json *root;
	DL_TRY(dl_json_parse(arena, text, len, what, &root));
	if (root->kind != DL_JSON_OBJECT) return bad(what, "the document", "is not an object");
	out->root = root;
	int64_t fv;
	DL_TRY(get_long(root, "format-version", true, &fv, 0, what));
	if (fv < 1 || fv > 2)
		return dl_error_set(DL_EUNSUPPORTED, "Iceberg metadata %s: format-version %lld is not supported (1 or 2)",
		                    what, (long long)fv);
	DL_TRY(get_str(root, "table-uuid", fv == 2, &out->table_uuid, what));
	DL_TRY(get_str(root, "location", true, &out->location, what));
	DL_TRY(get_long(root, "last-sequence-number", fv == 2, &out->last_sequence_number, 0, what));
	DL_TRY(get_long(root, "last-updated-ms", true, &out->last_updated_ms, 0, what));
	int64_t v;
	DL_TRY(get_long(root, "current-schema-id", false, &v, 0, what));
	out->current_schema_id = (int32_t)v;
	out->schemas = get_kind(root, "schemas", DL_JSON_ARRAY);
	if (out->schemas) {
		for (size_t i = 0; i < out->schemas->u.arr.n; i++) {
			const dl_json *s = &out->schemas->u.arr.items[i];
			int64_t id;
			if (s->kind != DL_JSON_OBJECT) return bad(what, "schemas[]", "is not an object");
			DL_TRY(get_long(s, "schema-id", false, &id, 0, what));
			if (id == out->current_schema_id) out->current_schema = s;
		}
	} else {
		out->current_schema = get_kind(root, "schema", DL_JSON_OBJECT);
	}
	if (!out->current_schema) return bad(what, "current-schema-id", "names no schema in schemas");
	if (!get_kind(out->current_schema, "fields", DL_JSON_ARRAY))
		return bad(what, "schema", "has no fields array");
	out->specs = get_kind(root, "partition-specs", DL_JSON_ARRAY);
	DL_TRY(get_long(root, "default-spec-id", false, &v, 0, what));
	out->default_spec_id = (int32_t)v;
	out->snapshots = get_kind(root, "snapshots", DL_JSON_ARRAY);
	out->snapshot_log = get_kind(root, "snapshot-log", DL_JSON_ARRAY);
	out->metadata_log = get_kind(root, "metadata-log", DL_JSON_ARRAY);
	out->properties = get_kind(root, "properties", DL_JSON_OBJECT);
	DL_TRY(get_long(root, "current-snapshot-id", false, &out->current_snapshot_id, -1, what));
	if (out->current_snapshot_id != -1) {
		const dl_json *cur = NULL;
		for (size_t i = 0; out->snapshots && i < out->snapshots->u.arr.n; i++) {
			const dl_json *s = &out->snapshots->u.arr.items[i];
			int64_t id;
			if (s->kind != DL_JSON_OBJECT) return bad(what, "snapshots[]", "is not an object");
			DL_TRY(get_long(s, "snapshot-id", true, &id, 0, what));
			if (id == out->current_snapshot_id) cur = s;
		}
		if (!cur) return bad(what, "current-snapshot-id", "names no snapshot in snapshots");
		DL_TRY(get_str(cur, "manifest-list", false, &out->current_manifest_list, what));
		if (!out->current_manifest_list)
			return dl_error_set(DL_EUNSUPPORTED,
			                    "Iceberg metadata %s: the current snapshot has no manifest-list (v1 "
			                    "'manifests' lists are not supported)",
			                    what);
	}
	if (out->properties) {
		const char *cv = dl_json_get_str(out->properties, "converted_delta_version");
		if (cv) {
			char *end;
			long long n = strtoll(cv, &end, 10);
			if (*cv && !*end && n >= 0) out->converted_delta_version = n;
		}
	}
	return 0;
}

/* N of "v<N>.metadata.json" (file-system tables) or
 * "<N>-<uuid>.metadata.json" (metastore tables), else -1. */
static int64_t metadata_file_version(const char *name)
{
	const char *p = name[0] == 'v' ? name + 1 : name;
	char *end;
	if (*p < '0' || *p > '9') return -1;
	long long n = strtoll(p, &end, 10);
	if (n < 0) return -1;
	if (name[0] == 'v' && strcmp(end, ".metadata.json") == 0) return n;
	size_t len = strlen(end);
	if (name[0] != 'v' && end[0] == '-' && len > 15 && strcmp(end + len - 14, ".metadata.json") == 0) return n;
	return -1;
}

int dl_ice_metadata_load_latest(dl_ice_metadata *out, dl_arena *arena, dl_store *store)
{
	dl_object_list l = {NULL, 0};
	DL_TRY(dl_store_list_from(&l, store, "metadata", NULL));
	int64_t best = -1;
	char *path = NULL;
	int rc = 0;
	for (size_t i = 0; i < l.count && rc == 0; i++) {
		const char *name = strrchr(l.items[i].path, '/');
		int64_t n = metadata_file_version(name ? name + 1 : l.items[i].path);
		if (n <= best) continue;
		best = n;
		dl_free(path);
		path = dl_strdup(l.items[i].path);
		if (!path) rc = DL_ENOMEM;
	}
	dl_object_list_free(&l);
	if (rc < 0) return rc;
	if (best < 0) return dl_error_set(DL_ENOTFOUND, "no Iceberg metadata under %s/metadata", dl_store_root(store));
	uint8_t *data;
	size_t len;
	rc = dl_store_get(&data, &len, store, path);
	if (rc == 0) {
		char *what = dl_arena_strdup(arena, path);
		rc = what ? dl_ice_metadata_parse(out, arena, (const char *)data, len, what) : DL_ENOMEM;
		dl_free(data);
	}
	dl_free(path);
	if (rc == 0) out->file_version = best;
	return rc;
}

const char *dl_ice_relative(const char *path, const char *location)
{
	size_t n = strlen(location);
	while (n > 0 && location[n - 1] == '/') n--;
	if (strncmp(path, location, n) == 0 && path[n] == '/') return path + n + 1;
	return path;
}

/* avro-c reads from a FILE: the object's bytes through fmemopen. */
static int open_reader(avro_file_reader_t *r, FILE **fp, uint8_t **data, dl_store *store,
                       const char *path)
{
	size_t len;
	*fp = NULL;
	DL_TRY(dl_store_get(data, &len, store, path));
	if (len == 0) {
		dl_free(*data);
		*data = NULL;
		return dl_error_set(DL_ECORRUPT, "Iceberg Avro file %s is empty", path);
	}
	*fp = fmemopen(*data, len, "rb");
	if (!*fp) {
		dl_free(*data);
		*data = NULL;
		return dl_error_errno("fmemopen", path);
	}
	if (avro_file_reader_fp(*fp, path, 0, r)) {
		fclose(*fp);
		*fp = NULL;
		dl_free(*data);
		*data = NULL;
		return dl_ice_avro_error(DL_ECORRUPT, path);
	}
	return 0;
}

static int field_long(avro_value_t *rec, const char *name, int64_t *out, const char *path)
{
	avro_value_t v, b;
	if (avro_value_get_by_name(rec, name, &v, NULL))
		return dl_error_set(DL_ECORRUPT, "Iceberg Avro file %s: field %s is missing", path, name);
	if (avro_value_get_type(&v) == AVRO_UNION) {
		if (avro_value_get_current_branch(&v, &b)) return dl_ice_avro_error(DL_ECORRUPT, path);
		v = b;
		if (avro_value_get_type(&v) == AVRO_NULL) {
			*out = -1;
			return 0;
		}
	}
	int32_t i;
	switch (avro_value_get_type(&v)) {
	case AVRO_INT64: return avro_value_get_long(&v, out) ? dl_ice_avro_error(DL_ECORRUPT, path) : 0;
	case AVRO_INT32:
		if (avro_value_get_int(&v, &i)) return dl_ice_avro_error(DL_ECORRUPT, path);
		*out = i;
		return 0;
	default: return dl_error_set(DL_ECORRUPT, "Iceberg Avro file %s: field %s is not a number", path, name);
	}
}

static int field_str(avro_value_t *rec, const char *name, const char **out, const char *path)
{
	avro_value_t v;
	size_t n;
	if (avro_value_get_by_name(rec, name, &v, NULL) || avro_value_get_type(&v) != AVRO_STRING ||
	    avro_value_get_string(&v, out, &n))
		return dl_error_set(DL_ECORRUPT, "Iceberg Avro file %s: field %s is missing or not a string",
		                    path, name);
	return 0;
}

/* An optional bytes or boolean member of a union, copied out. */
static int opt_bytes(avro_value_t *rec, const char *name, uint8_t **out, size_t *len)
{
	avro_value_t u, b;
	const void *p;
	if (avro_value_get_by_name(rec, name, &u, NULL) || avro_value_get_current_branch(&u, &b)) return -1;
	if (avro_value_get_type(&b) == AVRO_NULL) return 0;
	if (avro_value_get_bytes(&b, &p, len)) return -1;
	*out = dl_malloc(*len ? *len : 1);
	if (!*out) return -1;
	memcpy(*out, p, *len);
	return 0;
}

/* manifest_file.partitions (field_summary list), kept so a manifest
 * carried into the next snapshot's list keeps its summaries. */
static int read_summaries(avro_value_t *rec, dl_ice_manifest_info *m, const char *path)
{
	avro_value_t u, arr, el, x, b;
	size_t cnt;
	if (avro_value_get_by_name(rec, "partitions", &u, NULL)) return 0;
	if (avro_value_get_current_branch(&u, &arr)) return dl_ice_avro_error(DL_ECORRUPT, path);
	if (avro_value_get_type(&arr) != AVRO_ARRAY || avro_value_get_size(&arr, &cnt) || cnt == 0) return 0;
	m->parts = dl_calloc(cnt, sizeof *m->parts);
	if (!m->parts) return DL_ENOMEM;
	m->nparts = (int)cnt;
	for (size_t i = 0; i < cnt; i++) {
		dl_ice_part_summary *ps = &m->parts[i];
		int bv = 0;
		if (avro_value_get_by_index(&arr, i, &el, NULL) ||
		    avro_value_get_by_name(&el, "contains_null", &x, NULL) || avro_value_get_boolean(&x, &bv))
			return dl_ice_avro_error(DL_ECORRUPT, path);
		ps->contains_null = bv;
		if (avro_value_get_by_name(&el, "contains_nan", &x, NULL) == 0 &&
		    avro_value_get_current_branch(&x, &b) == 0 && avro_value_get_type(&b) == AVRO_BOOLEAN &&
		    avro_value_get_boolean(&b, &bv) == 0)
			ps->contains_nan = bv;
		if (opt_bytes(&el, "lower_bound", &ps->lower, &ps->lower_len) ||
		    opt_bytes(&el, "upper_bound", &ps->upper, &ps->upper_len))
			return dl_ice_avro_error(DL_ECORRUPT, path);
	}
	return 0;
}

int dl_ice_manifest_list_read(dl_ice_manifest_info **out, size_t *n, dl_store *store,
                              const char *rel_path)
{
	*out = NULL;
	*n = 0;
	avro_file_reader_t r;
	FILE *fp;
	uint8_t *data;
	DL_TRY(open_reader(&r, &fp, &data, store, rel_path));
	avro_schema_t ws = avro_file_reader_get_writer_schema(r); /* a new reference */
	avro_value_iface_t *iface = avro_generic_class_from_schema(ws);
	avro_schema_decref(ws); /* the class holds its own */
	avro_value_t rec;
	bool have = iface && avro_generic_value_new(iface, &rec) == 0;
	int rc = have ? 0 : dl_ice_avro_error(DL_ENOMEM, rel_path);
	size_t cap = 0;
	while (rc == 0) {
		int got = avro_file_reader_read_value(r, &rec);
		if (got == EOF) break;
		if (got) {
			rc = dl_ice_avro_error(DL_ECORRUPT, rel_path);
			break;
		}
		if (*n == cap) {
			size_t nc = cap ? cap * 2 : 8;
			dl_ice_manifest_info *g = dl_reallocarray(*out, nc, sizeof *g);
			if (!g) {
				rc = DL_ENOMEM;
				break;
			}
			*out = g;
			cap = nc;
		}
		dl_ice_manifest_info *m = &(*out)[*n];
		memset(m, 0, sizeof *m);
		const char *p;
		int64_t x;
		rc = field_str(&rec, "manifest_path", &p, rel_path);
		if (rc == 0 && !(m->path = dl_strdup(p))) rc = DL_ENOMEM;
		if (rc < 0) break;
		(*n)++;
#define L(name, dst)                                                                               \
	if (rc == 0 && (rc = field_long(&rec, name, &x, rel_path)) == 0) dst = x
		L("manifest_length", m->length);
		L("partition_spec_id", m->spec_id);
		L("added_snapshot_id", m->added_snapshot_id);
		avro_value_t tmp;
		bool v2 = avro_value_get_by_name(&rec, "sequence_number", &tmp, NULL) == 0;
		if (v2) {
			L("content", m->content);
			L("sequence_number", m->sequence_number);
			L("min_sequence_number", m->min_sequence_number);
			L("added_files_count", m->added_files);
			L("existing_files_count", m->existing_files);
			L("deleted_files_count", m->deleted_files);
			L("added_rows_count", m->added_rows);
			L("existing_rows_count", m->existing_rows);
			L("deleted_rows_count", m->deleted_rows);
		}
#undef L
		if (rc == 0) rc = read_summaries(&rec, m, rel_path);
	}
	if (have) avro_value_decref(&rec);
	if (iface) avro_value_iface_decref(iface);
	avro_file_reader_close(r);
	fclose(fp);
	dl_free(data);
	if (rc < 0) {
		for (size_t i = 0; i < *n; i++) dl_ice_manifest_info_free(&(*out)[i]);
		dl_free(*out);
		*out = NULL;
		*n = 0;
	}
	return rc;
}

int dl_ice_manifest_read(dl_store *store, const char *rel_path, dl_ice_entry_fn fn, void *payload)
{
	avro_file_reader_t r;
	FILE *fp;
	uint8_t *data;
	DL_TRY(open_reader(&r, &fp, &data, store, rel_path));
	avro_schema_t ws = avro_file_reader_get_writer_schema(r); /* a new reference */
	avro_value_iface_t *iface = avro_generic_class_from_schema(ws);
	avro_schema_decref(ws); /* the class holds its own */
	avro_value_t rec;
	bool have = iface && avro_generic_value_new(iface, &rec) == 0;
	int rc = have ? 0 : dl_ice_avro_error(DL_ENOMEM, rel_path);
	while (rc == 0) {
		int got = avro_file_reader_read_value(r, &rec);
		if (got == EOF) break;
		if (got) {
			rc = dl_ice_avro_error(DL_ECORRUPT, rel_path);
			break;
		}
		dl_ice_entry e;
		memset(&e, 0, sizeof e);
		int64_t x;
		avro_value_t df;
		rc = field_long(&rec, "status", &x, rel_path);
		e.status = (int)x;
		if (rc == 0) rc = field_long(&rec, "snapshot_id", &e.snapshot_id, rel_path);
		avro_value_t tmp;
		e.sequence_number = e.file_sequence_number = -1;
		if (rc == 0 && avro_value_get_by_name(&rec, "sequence_number", &tmp, NULL) == 0)
			rc = field_long(&rec, "sequence_number", &e.sequence_number, rel_path);
		if (rc == 0 && avro_value_get_by_name(&rec, "file_sequence_number", &tmp, NULL) == 0)
			rc = field_long(&rec, "file_sequence_number", &e.file_sequence_number, rel_path);
		if (rc == 0 && (avro_value_get_by_name(&rec, "data_file", &df, NULL) ||
		                avro_value_get_type(&df) != AVRO_RECORD))
			rc = dl_error_set(DL_ECORRUPT, "Iceberg manifest %s: entry without data_file", rel_path);
		if (rc == 0 && avro_value_get_by_name(&df, "content", &tmp, NULL) == 0) {
			rc = field_long(&df, "content", &x, rel_path);
			e.content = (int32_t)x;
		}
		if (rc == 0) rc = field_str(&df, "file_path", &e.file_path, rel_path);
		if (rc == 0) rc = field_str(&df, "file_format", &e.file_format, rel_path);
		if (rc == 0) rc = field_long(&df, "record_count", &e.record_count, rel_path);
		if (rc == 0) rc = field_long(&df, "file_size_in_bytes", &e.file_size, rel_path);
		if (rc == 0 && (e.status < 0 || e.status > 2))
			rc = dl_error_set(DL_ECORRUPT, "Iceberg manifest %s: entry status %d is not 0, 1 or 2",
			                  rel_path, e.status);
		if (rc == 0) rc = fn(&e, &df, payload);
	}
	if (have) avro_value_decref(&rec);
	if (iface) avro_value_iface_decref(iface);
	avro_file_reader_close(r);
	fclose(fp);
	dl_free(data);
	return rc;
}
