/* Delta schema JSON <-> dl_type, and field metadata helpers. */
#include "log/schema.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include "columnar/geo_type.h"
#include "util/error.h"
#include "util/mem.h"

static const struct { const char *name; dl_type_id id; } primitives[] = {
	{"string", DL_TYPE_STRING}, {"long", DL_TYPE_LONG}, {"integer", DL_TYPE_INTEGER},
	{"short", DL_TYPE_SHORT}, {"byte", DL_TYPE_BYTE}, {"float", DL_TYPE_FLOAT},
	{"double", DL_TYPE_DOUBLE}, {"boolean", DL_TYPE_BOOLEAN}, {"binary", DL_TYPE_BINARY},
	{"date", DL_TYPE_DATE}, {"timestamp", DL_TYPE_TIMESTAMP},
	{"timestamp_ntz", DL_TYPE_TIMESTAMP_NTZ}, {"void", DL_TYPE_NULL}, {"null", DL_TYPE_NULL},
	{"variant", DL_TYPE_VARIANT},
};

int dl_schema_primitive_from_name(const char *name, dl_type_id *id, int *precision, int *scale)
{
	*precision = *scale = 0;
	for (size_t i = 0; i < sizeof primitives / sizeof primitives[0]; i++) {
		if (strcmp(name, primitives[i].name) == 0) {
			*id = primitives[i].id;
			return 0;
		}
	}
	if (strcmp(name, "decimal") == 0) { /* Spark's default precision */
		*id = DL_TYPE_DECIMAL;
		*precision = 10;
		return 0;
	}
	int p, s, n = 0;
	if (sscanf(name, "decimal(%d ,%d )%n", &p, &s, &n) == 2 && name[n] == 0) {
		if (p < 1 || p > 38 || s < 0 || s > p)
			return dl_error_set(DL_EUNSUPPORTED,
			                    "decimal type %s is out of range: precision must be 1..38 and "
			                    "scale 0..precision",
			                    name);
		*id = DL_TYPE_DECIMAL;
		*precision = p;
		*scale = s;
		return 0;
	}
	return dl_error_set(DL_EUNSUPPORTED, "unknown data type '%s' in the table schema", name);
}

static int meta_text(const dl_json *m, char **out)
{
	dl_buf b = DL_BUF_INIT;
	if (!m || m->kind != DL_JSON_OBJECT) {
		*out = dl_strdup("{}");
		return *out ? 0 : DL_ENOMEM;
	}
	int rc = dl_json_write(&b, m);
	if (rc < 0) {
		dl_buf_free(&b);
		return rc;
	}
	*out = b.data ? dl_buf_detach(&b, NULL) : dl_strdup("{}");
	return *out ? 0 : DL_ENOMEM;
}

static bool json_bool(const dl_json *v, bool dflt)
{
	if (!v) return dflt;
	if (v->kind == DL_JSON_TRUE) return true;
	if (v->kind == DL_JSON_FALSE) return false;
	return dflt;
}

static int parse_struct(dl_type **out, const dl_json *v, const char *where)
{
	const dl_json *fields = dl_json_get(v, "fields");
	if (!fields || fields->kind != DL_JSON_ARRAY)
		return dl_error_set(DL_ECORRUPT, "%s: a struct type needs a \"fields\" array", where);
	size_t n = fields->u.arr.n;
	if (n > 1000000) return dl_error_set(DL_ECORRUPT, "%s: too many fields (%zu)", where, n);
	dl_field *fs = dl_calloc(n ? n : 1, sizeof *fs);
	if (!fs) return DL_ENOMEM;
	int rc = 0;
	size_t built = 0;
	for (; built < n; built++) {
		const dl_json *f = &fields->u.arr.items[built];
		const char *name = dl_json_get_str(f, "name");
		if (!name) {
			rc = dl_error_set(DL_ECORRUPT, "%s: field %zu has no \"name\"", where, built);
			break;
		}
		fs[built].name = (char *)name;
		fs[built].nullable = json_bool(dl_json_get(f, "nullable"), true);
		rc = meta_text(dl_json_get(f, "metadata"), &fs[built].metadata);
		if (rc < 0) break;
		rc = dl_schema_type_from_json(&fs[built].type, dl_json_get(f, "type"), name);
		if (rc < 0) {
			dl_free(fs[built].metadata);
			if (rc != DL_ENOMEM) dl_error_prefix("%s: field '%s'", where, name);
			break;
		}
	}
	if (rc == 0) {
		*out = dl_type_struct(fs, (int)n);
		if (!*out) rc = DL_ENOMEM;
	}
	for (size_t i = 0; i < built; i++) {
		dl_type_unref(fs[i].type);
		dl_free(fs[i].metadata);
	}
	dl_free(fs);
	return rc;
}

int dl_schema_type_from_json(dl_type **out, const dl_json *v, const char *where)
{
	*out = NULL;
	if (!v) return dl_error_set(DL_ECORRUPT, "%s: missing \"type\"", where);
	if (v->kind == DL_JSON_STRING) {
		dl_type_id id;
		int p, s;
		if (dl_geo_is_geo_name(v->u.str.ptr)) return dl_type_geo(out, v->u.str.ptr);
		DL_TRY(dl_schema_primitive_from_name(v->u.str.ptr, &id, &p, &s));
		*out = id == DL_TYPE_DECIMAL ? dl_type_decimal(p, s)
		       : id == DL_TYPE_VARIANT ? dl_type_variant() : dl_type_new(id);
		return *out ? 0 : DL_ENOMEM;
	}
	if (v->kind != DL_JSON_OBJECT)
		return dl_error_set(DL_ECORRUPT, "%s: a type must be a name or an object", where);
	const char *kind = dl_json_get_str(v, "type");
	if (!kind) return dl_error_set(DL_ECORRUPT, "%s: a nested type needs \"type\"", where);
	if (strcmp(kind, "struct") == 0) return parse_struct(out, v, where);
	if (strcmp(kind, "array") == 0) {
		dl_type *e;
		DL_TRY(dl_schema_type_from_json(&e, dl_json_get(v, "elementType"), where));
		*out = dl_type_array(e, json_bool(dl_json_get(v, "containsNull"), true));
		dl_type_unref(e);
		return *out ? 0 : DL_ENOMEM;
	}
	if (strcmp(kind, "map") == 0) {
		dl_type *k, *val;
		DL_TRY(dl_schema_type_from_json(&k, dl_json_get(v, "keyType"), where));
		int rc = dl_schema_type_from_json(&val, dl_json_get(v, "valueType"), where);
		if (rc < 0) {
			dl_type_unref(k);
			return rc;
		}
		*out = dl_type_map(k, val, json_bool(dl_json_get(v, "valueContainsNull"), true));
		dl_type_unref(k);
		dl_type_unref(val);
		return *out ? 0 : DL_ENOMEM;
	}
	/* {"type":"long"} style wrappers of primitives. */
	dl_json name = {.kind = DL_JSON_STRING};
	name.u.str.ptr = kind;
	name.u.str.len = strlen(kind);
	return dl_schema_type_from_json(out, &name, where);
}

int dl_schema_parse(dl_type **out, const char *json, size_t len)
{
	dl_arena a = DL_ARENA_INIT;
	dl_json *root;
	*out = NULL;
	int rc = dl_json_parse(&a, json, len, "schemaString", &root);
	if (rc == 0) {
		if (root->kind != DL_JSON_OBJECT || !dl_json_get_str(root, "type") ||
		    strcmp(dl_json_get_str(root, "type"), "struct") != 0)
			rc = dl_error_set(DL_ECORRUPT, "schemaString: the table schema must be a struct type");
		else
			rc = dl_schema_type_from_json(out, root, "schemaString");
	}
	dl_arena_free(&a);
	return rc;
}

/* ---- serialization ---- */

static void write_field(dl_json_writer *w, const dl_field *f)
{
	dl_jw_object_begin(w);
	dl_jw_key(w, "name");
	dl_jw_string(w, f->name);
	dl_jw_key(w, "type");
	dl_schema_write_type(w, f->type);
	dl_jw_key(w, "nullable");
	dl_jw_bool(w, f->nullable);
	dl_jw_key(w, "metadata");
	dl_jw_raw(w, f->metadata && f->metadata[0] ? f->metadata : "{}");
	dl_jw_object_end(w);
}

void dl_schema_write_type(dl_json_writer *w, const dl_type *t)
{
	char name[32];
	switch (t->id) {
	case DL_TYPE_STRUCT:
		dl_jw_object_begin(w);
		dl_jw_key(w, "type");
		dl_jw_string(w, "struct");
		dl_jw_key(w, "fields");
		dl_jw_array_begin(w);
		for (int i = 0; i < t->nchildren; i++) write_field(w, &t->children[i]);
		dl_jw_array_end(w);
		dl_jw_object_end(w);
		return;
	case DL_TYPE_ARRAY:
		dl_jw_object_begin(w);
		dl_jw_key(w, "type");
		dl_jw_string(w, "array");
		dl_jw_key(w, "elementType");
		dl_schema_write_type(w, t->children[0].type);
		dl_jw_key(w, "containsNull");
		dl_jw_bool(w, t->children[0].nullable);
		dl_jw_object_end(w);
		return;
	case DL_TYPE_MAP:
		dl_jw_object_begin(w);
		dl_jw_key(w, "type");
		dl_jw_string(w, "map");
		dl_jw_key(w, "keyType");
		dl_schema_write_type(w, t->children[0].type);
		dl_jw_key(w, "valueType");
		dl_schema_write_type(w, t->children[1].type);
		dl_jw_key(w, "valueContainsNull");
		dl_jw_bool(w, t->children[1].nullable);
		dl_jw_object_end(w);
		return;
	case DL_TYPE_DECIMAL:
		snprintf(name, sizeof name, "decimal(%d,%d)", t->precision, t->scale);
		dl_jw_string(w, name);
		return;
	case DL_TYPE_NULL: dl_jw_string(w, "void"); return;
	case DL_TYPE_VARIANT: dl_jw_string(w, "variant"); return;
	default:
		if (t->geo) { /* as the schema spelled it */
			dl_jw_string(w, t->geo);
			return;
		}
		for (size_t i = 0; i < sizeof primitives / sizeof primitives[0]; i++) {
			if (primitives[i].id == t->id) {
				dl_jw_string(w, primitives[i].name);
				return;
			}
		}
		dl_jw_string(w, dl_type_id_name(t->id));
	}
}

int dl_schema_to_json(dl_buf *out, const dl_type *schema)
{
	if (!schema || schema->id != DL_TYPE_STRUCT)
		return dl_error_set(DL_EINVALID, "a table schema must be a struct type");
	dl_json_writer w;
	dl_jw_init(&w, out);
	dl_schema_write_type(&w, schema);
	return dl_jw_finish(&w);
}

/* ---- field metadata ---- */

int dl_field_metadata_get(const dl_field *f, const char *key, dl_arena *arena, const dl_json **out)
{
	*out = NULL;
	if (!f->metadata || !strstr(f->metadata, key)) return 0; /* cheap common case */
	dl_json *root;
	int rc = dl_json_parse(arena, f->metadata, strlen(f->metadata), "field metadata", &root);
	if (rc < 0) return dl_error_prefix("column '%s'", f->name);
	*out = dl_json_get(root, key);
	return 0;
}

int dl_field_metadata_string(const dl_field *f, const char *key, dl_arena *arena, const char **out)
{
	const dl_json *v;
	*out = NULL;
	DL_TRY(dl_field_metadata_get(f, key, arena, &v));
	if (!v || v->kind == DL_JSON_NULL) return 0;
	if (v->kind == DL_JSON_STRING) {
		*out = v->u.str.ptr;
		return 0;
	}
	return dl_error_set(DL_ECORRUPT, "column '%s': metadata %s must be a string", f->name, key);
}

int dl_field_metadata_long(const dl_field *f, const char *key, int64_t *out, bool *present)
{
	dl_arena a = DL_ARENA_INIT;
	const dl_json *v;
	int rc = dl_field_metadata_get(f, key, &a, &v);
	*present = false;
	if (rc == 0 && v && v->kind != DL_JSON_NULL) {
		if (v->kind == DL_JSON_STRING) {
			char *end;
			long long x = strtoll(v->u.str.ptr, &end, 10);
			if (end == v->u.str.ptr || *end) rc = DL_ECORRUPT;
			else *out = x;
		} else if (dl_json_int64(v, out) < 0) {
			rc = DL_ECORRUPT;
		}
		if (rc == DL_ECORRUPT)
			dl_error_set(rc, "column '%s': metadata %s must be an integer", f->name, key);
		else *present = true;
	}
	dl_arena_free(&a);
	return rc;
}

int dl_field_physical_name(const dl_field *f, dl_column_mapping_mode mode, dl_arena *arena,
                           const char **out)
{
	*out = f->name;
	if (mode == DL_CM_NONE) return 0;
	const char *p;
	DL_TRY(dl_field_metadata_string(f, DL_CM_PHYSICAL_NAME_KEY, arena, &p));
	if (!p)
		return dl_error_set(DL_ECORRUPT,
		                    "column '%s' has no %s although the table uses column mapping mode "
		                    "%s; the schema is invalid",
		                    f->name, DL_CM_PHYSICAL_NAME_KEY, mode == DL_CM_ID ? "id" : "name");
	*out = p;
	return 0;
}

int dl_field_column_id(const dl_field *f, int32_t *out)
{
	int64_t v;
	bool present;
	DL_TRY(dl_field_metadata_long(f, DL_CM_ID_KEY, &v, &present));
	if (!present)
		return dl_error_set(DL_ENOTFOUND, "column '%s' has no %s", f->name, DL_CM_ID_KEY);
	if (v < INT32_MIN || v > INT32_MAX)
		return dl_error_set(DL_ECORRUPT, "column '%s': %s is out of range", f->name, DL_CM_ID_KEY);
	*out = (int32_t)v;
	return 0;
}

static int physical_type(dl_type **out, const dl_type *t, dl_column_mapping_mode mode);

static int physical_struct(dl_type **out, const dl_type *t, dl_column_mapping_mode mode)
{
	int n = t->nchildren;
	dl_field *fs = dl_calloc(n ? (size_t)n : 1, sizeof *fs);
	if (!fs) return DL_ENOMEM;
	dl_arena a = DL_ARENA_INIT;
	int rc = 0, built = 0;
	for (; built < n; built++) {
		const dl_field *src = &t->children[built];
		const char *name;
		rc = dl_field_physical_name(src, mode, &a, &name);
		if (rc < 0) break;
		fs[built] = *src;
		fs[built].name = (char *)name;
		rc = physical_type(&fs[built].type, src->type, mode);
		if (rc < 0) break;
	}
	if (rc == 0) {
		*out = dl_type_struct(fs, n);
		if (!*out) rc = DL_ENOMEM;
	}
	for (int i = 0; i < built; i++) dl_type_unref(fs[i].type);
	dl_free(fs);
	dl_arena_free(&a);
	return rc;
}

static int physical_type(dl_type **out, const dl_type *t, dl_column_mapping_mode mode)
{
	dl_type *a = NULL, *b = NULL;
	switch (t->id) {
	case DL_TYPE_STRUCT: return physical_struct(out, t, mode);
	case DL_TYPE_ARRAY:
		DL_TRY(physical_type(&a, t->children[0].type, mode));
		*out = dl_type_array(a, t->children[0].nullable);
		dl_type_unref(a);
		return *out ? 0 : DL_ENOMEM;
	case DL_TYPE_MAP:
		DL_TRY(physical_type(&a, t->children[0].type, mode));
		if (physical_type(&b, t->children[1].type, mode) < 0) {
			dl_type_unref(a);
			return dl_error_last()->code;
		}
		*out = dl_type_map(a, b, t->children[1].nullable);
		dl_type_unref(a);
		dl_type_unref(b);
		return *out ? 0 : DL_ENOMEM;
	default:
		*out = dl_type_ref((dl_type *)t);
		return 0;
	}
}

int dl_schema_to_physical(dl_type **out, const dl_type *logical, dl_column_mapping_mode mode)
{
	return physical_type(out, logical, mode);
}

int dl_field_generation_expression(const dl_field *f, dl_arena *arena, const char **out)
{
	return dl_field_metadata_string(f, DL_GENERATION_EXPRESSION_KEY, arena, out);
}

int dl_field_default_expression(const dl_field *f, dl_arena *arena, const char **out)
{
	return dl_field_metadata_string(f, DL_DEFAULT_KEY, arena, out);
}

int dl_field_invariant(const dl_field *f, dl_arena *arena, const char **out)
{
	const char *text;
	*out = NULL;
	DL_TRY(dl_field_metadata_string(f, DL_INVARIANTS_KEY, arena, &text));
	if (!text) return 0;
	dl_json *root;
	if (dl_json_parse(arena, text, strlen(text), "delta.invariants", &root) < 0)
		return dl_error_prefix("column '%s'", f->name);
	const dl_json *e = dl_json_get(root, "expression");
	const char *sql = e ? dl_json_get_str(e, "expression") : NULL;
	if (!sql)
		return dl_error_set(DL_ECORRUPT,
		                    "column '%s': delta.invariants must be {\"expression\": "
		                    "{\"expression\": \"<SQL>\"}}",
		                    f->name);
	*out = sql;
	return 0;
}

int dl_field_identity(const dl_field *f, dl_identity_info *out)
{
	memset(out, 0, sizeof *out);
	bool has_start, has_step;
	DL_TRY(dl_field_metadata_long(f, DL_IDENTITY_START_KEY, &out->start, &has_start));
	DL_TRY(dl_field_metadata_long(f, DL_IDENTITY_STEP_KEY, &out->step, &has_step));
	DL_TRY(dl_field_metadata_long(f, DL_IDENTITY_HWM_KEY, &out->high_water_mark,
	                              &out->has_high_water_mark));
	if (!has_start && !has_step) return 0;
	out->is_identity = true;
	if (!has_start) out->start = 1;
	if (!has_step) out->step = 1;
	if (out->step == 0)
		return dl_error_set(DL_ECORRUPT, "identity column '%s' has step 0", f->name);
	dl_arena a = DL_ARENA_INIT;
	const dl_json *v;
	int rc = dl_field_metadata_get(f, DL_IDENTITY_EXPLICIT_KEY, &a, &v);
	if (rc == 0 && v) out->allow_explicit_insert = v->kind == DL_JSON_TRUE;
	dl_arena_free(&a);
	return rc;
}

int dl_schema_find(const dl_type *schema, const char *name)
{
	for (int i = 0; i < schema->nchildren; i++)
		if (strcmp(schema->children[i].name, name) == 0) return i;
	for (int i = 0; i < schema->nchildren; i++)
		if (strcasecmp(schema->children[i].name, name) == 0) return i;
	return -1;
}

void dl_field_path_text(dl_buf *out, const char *const *parts, int n)
{
	for (int i = 0; i < n; i++) {
		if (i) dl_buf_putc(out, '.');
		if (strpbrk(parts[i], ".` ") == NULL) {
			dl_buf_puts(out, parts[i]);
			continue;
		}
		dl_buf_putc(out, '`');
		for (const char *c = parts[i]; *c; c++) {
			if (*c == '`') dl_buf_putc(out, '`');
			dl_buf_putc(out, *c);
		}
		dl_buf_putc(out, '`');
	}
	if (!out->data) dl_buf_puts(out, "");
}
