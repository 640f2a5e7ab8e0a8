/* dl_type: construction, reference counting, comparison and names. */
#include "columnar/types.h"
#include <ctype.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>
#include "columnar/geo_type.h"
#include "util/error.h"
#include "util/mem.h"

static dl_type *type_alloc(dl_type_id id)
{
	dl_type *t = dl_calloc(1, sizeof(*t));
	if (!t) return NULL;
	t->id = id;
	t->refcount = 1;
	return t;
}

dl_type *dl_type_new(dl_type_id id)
{
	switch (id) {
	case DL_TYPE_DECIMAL:
		return dl_type_decimal(10, 0); /* Spark's DecimalType default */
	case DL_TYPE_STRUCT:
		return dl_type_struct(NULL, 0);
	case DL_TYPE_VARIANT:
		return dl_type_variant();
	case DL_TYPE_ARRAY:
	case DL_TYPE_MAP:
		dl_error_set(DL_EINVALID, "dl_type_new cannot build %s: use dl_type_array or dl_type_map",
		             dl_type_id_name(id));
		return NULL;
	default:
		if ((int)id < 0 || id > DL_TYPE_VARIANT) {
			dl_error_set(DL_EINVALID, "unknown type id %d", (int)id);
			return NULL;
		}
		return type_alloc(id);
	}
}

dl_type *dl_type_decimal(int precision, int scale)
{
	if (precision < 1 || precision > 38 || scale < 0 || scale > precision) {
		dl_error_set(DL_EINVALID, "invalid decimal(%d,%d): precision must be 1..38 and scale 0..precision",
		             precision, scale);
		return NULL;
	}
	dl_type *t = type_alloc(DL_TYPE_DECIMAL);
	if (!t) return NULL;
	t->precision = precision;
	t->scale = scale;
	return t;
}

static void field_clear(dl_field *f)
{
	dl_free(f->name);
	dl_free(f->metadata);
	if (f->type) dl_type_unref(f->type);
}

/* Copies name/metadata and takes a new reference on the type. */
static int field_copy(dl_field *dst, const char *name, dl_type *type, bool nullable, const char *metadata)
{
	dst->name = dl_strdup(name ? name : "");
	dst->metadata = dl_strdup(metadata && metadata[0] ? metadata : "{}");
	dst->nullable = nullable;
	dst->type = type ? dl_type_ref(type) : NULL;
	if (!dst->name || !dst->metadata || !dst->type) {
		if (!type) dl_error_set(DL_EINVALID, "field '%s' has no type", name ? name : "");
		return -1;
	}
	return 0;
}

static dl_type *nested_new(dl_type_id id, int n)
{
	dl_type *t = type_alloc(id);
	if (!t) return NULL;
	t->children = dl_calloc((size_t)(n > 0 ? n : 1), sizeof(dl_field));
	if (!t->children) {
		dl_free(t);
		return NULL;
	}
	t->nchildren = n;
	return t;
}

dl_type *dl_type_struct(const dl_field *fields, int n)
{
	if (n < 0) {
		dl_error_set(DL_EINVALID, "negative struct field count %d", n);
		return NULL;
	}
	dl_type *t = nested_new(DL_TYPE_STRUCT, n);
	if (!t) return NULL;
	for (int i = 0; i < n; i++) {
		const dl_field *f = &fields[i];
		if (field_copy(&t->children[i], f->name, f->type, f->nullable, f->metadata) < 0) {
			dl_type_unref(t);
			return NULL;
		}
	}
	return t;
}

dl_type *dl_type_map_entries(const dl_type *map)
{
	dl_field f[2] = {map->children[0], map->children[1]};
	f[0].nullable = false;
	f[0].name = "key";
	f[1].name = "value";
	return dl_type_struct(f, 2);
}

dl_type *dl_type_array(dl_type *element, bool contains_null)
{
	dl_type *t = nested_new(DL_TYPE_ARRAY, 1);
	if (!t) return NULL;
	if (field_copy(&t->children[0], "element", element, contains_null, NULL) < 0) {
		dl_type_unref(t);
		return NULL;
	}
	return t;
}

dl_type *dl_type_map(dl_type *key, dl_type *value, bool value_contains_null)
{
	dl_type *t = nested_new(DL_TYPE_MAP, 2);
	if (!t) return NULL;
	if (field_copy(&t->children[0], "key", key, false, NULL) < 0 ||
	    field_copy(&t->children[1], "value", value, value_contains_null, NULL) < 0) {
		dl_type_unref(t);
		return NULL;
	}
	return t;
}

dl_type *dl_type_variant(void)
{
	dl_type *bin = type_alloc(DL_TYPE_BINARY);
	if (!bin) return NULL;
	dl_type *t = nested_new(DL_TYPE_VARIANT, 2);
	if (t && (field_copy(&t->children[0], "value", bin, false, NULL) < 0 ||
	          field_copy(&t->children[1], "metadata", bin, false, NULL) < 0)) {
		dl_type_unref(t);
		t = NULL;
	}
	dl_type_unref(bin);
	return t;
}

dl_type *dl_type_ref(dl_type *t)
{
	/* Types are shared between threads (one schema, many scan workers). */
	if (t) __atomic_fetch_add(&t->refcount, 1, __ATOMIC_RELAXED);
	return t;
}

void dl_type_unref(dl_type *t)
{
	if (!t) return;
	if (__atomic_sub_fetch(&t->refcount, 1, __ATOMIC_ACQ_REL) != 0) return;
	for (int i = 0; i < t->nchildren; i++) field_clear(&t->children[i]);
	dl_free(t->children);
	dl_free(t->geo);
	dl_free(t);
}

/* Structural equality: ids, decimal parameters, geospatial text, field names (exact),
 * nullability and child types. Field metadata is not compared: two columns
 * with different comments hold the same kind of values. */
bool dl_type_equals(const dl_type *a, const dl_type *b)
{
	if (a == b) return true;
	if (!a || !b || a->id != b->id || a->nchildren != b->nchildren) return false;
	if (a->id == DL_TYPE_DECIMAL && (a->precision != b->precision || a->scale != b->scale)) return false;
	if ((a->geo || b->geo) && (!a->geo || !b->geo || strcmp(a->geo, b->geo) != 0)) return false;
	for (int i = 0; i < a->nchildren; i++) {
		const dl_field *x = &a->children[i], *y = &b->children[i];
		if (x->nullable != y->nullable || strcmp(x->name, y->name) != 0) return false;
		if (!dl_type_equals(x->type, y->type)) return false;
	}
	return true;
}

bool dl_type_is_primitive(const dl_type *t)
{
	return t->id != DL_TYPE_STRUCT && t->id != DL_TYPE_ARRAY && t->id != DL_TYPE_MAP &&
	       t->id != DL_TYPE_VARIANT;
}

bool dl_type_is_integral(const dl_type *t)
{
	return t->id >= DL_TYPE_BYTE && t->id <= DL_TYPE_LONG;
}

bool dl_type_is_numeric(const dl_type *t)
{
	return t->id >= DL_TYPE_BYTE && t->id <= DL_TYPE_DECIMAL;
}

int dl_type_fixed_width(const dl_type *t)
{
	switch (t->id) {
	case DL_TYPE_BYTE: return 1;
	case DL_TYPE_SHORT: return 2;
	case DL_TYPE_INTEGER:
	case DL_TYPE_FLOAT:
	case DL_TYPE_DATE: return 4;
	case DL_TYPE_LONG:
	case DL_TYPE_DOUBLE:
	case DL_TYPE_TIMESTAMP:
	case DL_TYPE_TIMESTAMP_NTZ: return 8;
	case DL_TYPE_DECIMAL: return 16;
	default: return 0;
	}
}

static const char *const delta_names[] = {
	[DL_TYPE_NULL] = "void",       [DL_TYPE_BOOLEAN] = "boolean",
	[DL_TYPE_BYTE] = "byte",       [DL_TYPE_SHORT] = "short",
	[DL_TYPE_INTEGER] = "integer", [DL_TYPE_LONG] = "long",
	[DL_TYPE_FLOAT] = "float",     [DL_TYPE_DOUBLE] = "double",
	[DL_TYPE_DECIMAL] = "decimal", [DL_TYPE_STRING] = "string",
	[DL_TYPE_BINARY] = "binary",   [DL_TYPE_DATE] = "date",
	[DL_TYPE_TIMESTAMP] = "timestamp", [DL_TYPE_TIMESTAMP_NTZ] = "timestamp_ntz",
	[DL_TYPE_STRUCT] = "struct",   [DL_TYPE_ARRAY] = "array",
	[DL_TYPE_MAP] = "map",         [DL_TYPE_VARIANT] = "variant",
};

static const char *const sql_names[] = {
	[DL_TYPE_NULL] = "VOID",       [DL_TYPE_BOOLEAN] = "BOOLEAN",
	[DL_TYPE_BYTE] = "TINYINT",    [DL_TYPE_SHORT] = "SMALLINT",
	[DL_TYPE_INTEGER] = "INT",     [DL_TYPE_LONG] = "BIGINT",
	[DL_TYPE_FLOAT] = "FLOAT",     [DL_TYPE_DOUBLE] = "DOUBLE",
	[DL_TYPE_DECIMAL] = "DECIMAL", [DL_TYPE_STRING] = "STRING",
	[DL_TYPE_BINARY] = "BINARY",   [DL_TYPE_DATE] = "DATE",
	[DL_TYPE_TIMESTAMP] = "TIMESTAMP", [DL_TYPE_TIMESTAMP_NTZ] = "TIMESTAMP_NTZ",
	[DL_TYPE_STRUCT] = "STRUCT",   [DL_TYPE_ARRAY] = "ARRAY",
	[DL_TYPE_MAP] = "MAP",         [DL_TYPE_VARIANT] = "VARIANT",
};

const char *dl_type_id_name(dl_type_id id)
{
	if ((int)id < 0 || id > DL_TYPE_VARIANT) return "unknown";
	return delta_names[id];
}

/* A bounded string writer: keeps writing the NUL terminator, drops what does
 * not fit. */
typedef struct sw {
	char *out;
	size_t cap, len;
} sw;

static void sw_printf(sw *w, const char *fmt, ...) DL_PRINTF(2, 3);
static void sw_printf(sw *w, const char *fmt, ...)
{
	if (w->cap == 0) return;
	size_t room = w->len < w->cap ? w->cap - w->len : 0;
	va_list ap;
	va_start(ap, fmt);
	int n = vsnprintf(w->out + w->len, room, fmt, ap);
	va_end(ap);
	if (n > 0) w->len += (size_t)n < room ? (size_t)n : (room ? room - 1 : 0);
}

static bool plain_identifier(const char *s)
{
	if (!s[0] || !(isalpha((unsigned char)s[0]) || s[0] == '_')) return false;
	for (const char *p = s; *p; p++)
		if (!(isalnum((unsigned char)*p) || *p == '_')) return false;
	return true;
}

/* GEOMETRY(<crs>) / GEOGRAPHY(<crs>, <algorithm>), defaults spelled out. */
static void sql_geo(sw *w, const char *text)
{
	dl_geo_info g;
	if (dl_geo_parse(&g, text) < 0) {
		sw_printf(w, "BINARY");
		return;
	}
	if (g.kind == DL_GEO_GEOMETRY) sw_printf(w, "GEOMETRY(%.*s)", (int)g.crs_len, g.crs);
	else
		sw_printf(w, "GEOGRAPHY(%.*s, %s)", (int)g.crs_len, g.crs, dl_geo_algorithm_name(g.algorithm));
}

static void sql_rec(sw *w, const dl_type *t)
{
	if (t->geo) {
		sql_geo(w, t->geo);
		return;
	}
	switch (t->id) {
	case DL_TYPE_DECIMAL:
		sw_printf(w, "DECIMAL(%d,%d)", t->precision, t->scale);
		break;
	case DL_TYPE_ARRAY:
		sw_printf(w, "ARRAY<");
		sql_rec(w, t->children[0].type);
		sw_printf(w, ">");
		break;
	case DL_TYPE_MAP:
		sw_printf(w, "MAP<");
		sql_rec(w, t->children[0].type);
		sw_printf(w, ", ");
		sql_rec(w, t->children[1].type);
		sw_printf(w, ">");
		break;
	case DL_TYPE_STRUCT:
		sw_printf(w, "STRUCT<");
		for (int i = 0; i < t->nchildren; i++) {
			const char *name = t->children[i].name;
			if (plain_identifier(name)) sw_printf(w, "%s%s: ", i ? ", " : "", name);
			else {
				sw_printf(w, "%s`", i ? ", " : "");
				for (const char *p = name; *p; p++) sw_printf(w, *p == '`' ? "``" : "%c", *p);
				sw_printf(w, "`: ");
			}
			sql_rec(w, t->children[i].type);
		}
		sw_printf(w, ">");
		break;
	default:
		sw_printf(w, "%s", sql_names[t->id]);
	}
}

void dl_type_sql(const dl_type *t, char *out, size_t cap)
{
	sw w = {out, cap, 0};
	if (cap) out[0] = 0;
	sql_rec(&w, t);
}

static void name_rec(sw *w, const dl_type *t)
{
	if (t->id == DL_TYPE_DECIMAL) sw_printf(w, "decimal(%d,%d)", t->precision, t->scale);
	else if (t->geo) sw_printf(w, "%s", t->geo);
	else sw_printf(w, "%s", delta_names[t->id]);
}

void dl_type_name(const dl_type *t, char *out, size_t cap)
{
	sw w = {out, cap, 0};
	if (cap) out[0] = 0;
	name_rec(&w, t);
}

int dl_type_field_index(const dl_type *st, const char *name)
{
	if (!st || (st->id != DL_TYPE_STRUCT && st->id != DL_TYPE_VARIANT)) return -1;
	/* An exact match wins over a case-insensitive one ("a" and "A" may
	 * both exist in a case-sensitive writer's schema). */
	for (int i = 0; i < st->nchildren; i++)
		if (strcmp(st->children[i].name, name) == 0) return i;
	for (int i = 0; i < st->nchildren; i++)
		if (strcasecmp(st->children[i].name, name) == 0) return i;
	return -1;
}
