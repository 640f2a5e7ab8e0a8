/* Delta type -> Parquet schema (see schema_write.h). The conventions are
 * parquet-mr's as Spark uses them (LogicalTypes.md "Nested Types"):
 *   array<T>   <rep> group name (LIST) { repeated group list { <rep> T element; } }
 *   map<K,V>   <rep> group name (MAP) { repeated group key_value { required K key; <rep> V value; } }
 *   byte/short INT32 with INT(8|16, signed) and INT_8/INT_16
 *   decimal    INT32 (p <= 9), INT64 (p <= 18), else FIXED_LEN_BYTE_ARRAY
 *   timestamp  INT64 TIMESTAMP(MICROS, UTC) + TIMESTAMP_MICROS; timestamp_ntz
 *              has no converted type (those imply UTC). */
#include "parquet/schema_write.h"
#include "columnar/geo_type.h"
#include "util/error.h"
#include "util/hash.h"
#include "util/mem.h"
#include <math.h>
#include <stdlib.h>
#include <string.h>

#define MAX_DEPTH 64

typedef struct builder {
	pq_wschema *s;
	size_t cap_elems, cap_leaves;
	pq_step steps[MAX_DEPTH];     /* the walk from the top-level array */
	const char *names[MAX_DEPTH]; /* the path in the schema */
	int nsteps, nnames;
	const char *nmeta;  /* metadata of the nearest struct field (nested ids) */
	char npath[1024];   /* path from that field: "col.value.element" */
	size_t npath_len;   /* 0 when the path did not fit (no lookup) */
	int top;
	int def, rep;
} builder;

int pq_decimal_bytes(int precision)
{
	/* parquet-mr: ceil((log2(10^p - 1) + 1) / 8), i.e. room for the sign bit. */
	return (int)ceil((precision * log2(10.0) + 1) / 8);
}

/* Skips a JSON string starting at the quote; returns the byte after it. */
static const char *skip_string(const char *p)
{
	for (p++; *p && *p != '"'; p++)
		if (*p == '\\' && p[1]) p++;
	return *p ? p + 1 : p;
}

static const char *skip_ws(const char *p)
{
	while (*p == ' ' || *p == '\t' || *p == '\n' || *p == '\r') p++;
	return p;
}

/* The value of member `key` of the JSON object starting at p, or NULL. The
 * metadata comes from our own schema parser, but a malformed text only
 * ends the scan (at its NUL), never reads past it. */
static const char *find_member(const char *p, const char *key)
{
	size_t klen = strlen(key);
	int depth = 0;
	while (p && *p) {
		char c = *p;
		if (c == '"') {
			const char *end = skip_string(p);
			const char *q = skip_ws(end);
			if (depth == 1 && *q == ':' && (size_t)(end - p) == klen + 2 && !memcmp(p + 1, key, klen))
				return skip_ws(q + 1);
			p = end;
			continue;
		}
		if (c == '{' || c == '[') depth++;
		if ((c == '}' || c == ']') && --depth <= 0) return NULL;
		p++;
	}
	return NULL;
}

static bool int_at(const char *v, int32_t *out)
{
	if (!v) return false;
	char *e;
	long n = strtol(v, &e, 10);
	if (e == v || n < INT32_MIN || n > INT32_MAX) return false;
	*out = (int32_t)n;
	return true;
}

static bool find_top_int(const char *json, const char *key, int32_t *out)
{
	return int_at(find_member(json, key), out);
}

/* IcebergCompatV2: ids of list elements and map keys/values live in the
 * nearest struct field's metadata, keyed by the path from that field
 * ("col.element", "col.value.element"). */
static bool nested_field_id(const char *json, const char *path, int32_t *out)
{
	if (!json || !strstr(json, "nested.ids")) return false;
	const char *ids = find_member(json, "delta.columnMapping.nested.ids");
	if (!ids) ids = find_member(json, "parquet.field.nested.ids");
	return ids && *ids == '{' && int_at(find_member(ids, path), out);
}

bool pq_field_id_from_metadata(const char *json, int32_t *out)
{
	if (!json) return false;
	return find_top_int(json, "delta.columnMapping.id", out) || find_top_int(json, "parquet.field.id", out);
}

static pq_schema_element *new_elem(builder *b, const char *name, bool optional, const char *metadata)
{
	pq_wschema *s = b->s;
	if (s->nelems == b->cap_elems) {
		size_t cap = b->cap_elems ? b->cap_elems * 2 : 16;
		pq_schema_element *e = dl_reallocarray(s->elems, cap, sizeof *e);
		if (!e) return NULL;
		s->elems = e;
		b->cap_elems = cap;
	}
	pq_schema_element *e = &s->elems[s->nelems++];
	memset(e, 0, sizeof *e);
	e->name = dl_arena_strdup(&s->arena, name);
	if (!e->name) return NULL;
	e->has_repetition = true;
	e->repetition = optional ? PQ_OPTIONAL : PQ_REQUIRED;
	e->converted_type = PQ_CT_NONE;
	e->has_field_id = pq_field_id_from_metadata(metadata, &e->field_id);
	return e;
}

static void set_primitive(pq_schema_element *e, const dl_type *t, bool *utf8)
{
	e->has_type = true;
	*utf8 = false;
	switch (t->id) {
	case DL_TYPE_BOOLEAN: e->type = PQ_BOOLEAN; return;
	case DL_TYPE_BYTE:
	case DL_TYPE_SHORT:
		e->type = PQ_INT32;
		e->converted_type = t->id == DL_TYPE_BYTE ? PQ_CT_INT_8 : PQ_CT_INT_16;
		e->logical = (pq_logical_type){.kind = PQ_LT_INTEGER, .bit_width = t->id == DL_TYPE_BYTE ? 8 : 16,
		                               .is_signed = true};
		return;
	case DL_TYPE_INTEGER: e->type = PQ_INT32; return;
	case DL_TYPE_LONG: e->type = PQ_INT64; return;
	case DL_TYPE_FLOAT: e->type = PQ_FLOAT; return;
	case DL_TYPE_DOUBLE: e->type = PQ_DOUBLE; return;
	case DL_TYPE_DECIMAL:
		if (t->precision <= 9) {
			e->type = PQ_INT32;
		} else if (t->precision <= 18) {
			e->type = PQ_INT64;
		} else {
			e->type = PQ_FIXED_LEN_BYTE_ARRAY;
			e->has_type_length = true;
			e->type_length = pq_decimal_bytes(t->precision);
		}
		e->converted_type = PQ_CT_DECIMAL;
		e->has_scale = e->has_precision = true;
		e->scale = t->scale;
		e->precision = t->precision;
		e->logical = (pq_logical_type){.kind = PQ_LT_DECIMAL, .scale = t->scale, .precision = t->precision};
		return;
	case DL_TYPE_STRING:
		e->type = PQ_BYTE_ARRAY;
		e->converted_type = PQ_CT_UTF8;
		e->logical.kind = PQ_LT_STRING;
		*utf8 = true;
		return;
	case DL_TYPE_BINARY: e->type = PQ_BYTE_ARRAY; return;
	case DL_TYPE_DATE:
		e->type = PQ_INT32;
		e->converted_type = PQ_CT_DATE;
		e->logical.kind = PQ_LT_DATE;
		return;
	case DL_TYPE_TIMESTAMP:
	case DL_TYPE_TIMESTAMP_NTZ: {
		bool utc = t->id == DL_TYPE_TIMESTAMP;
		e->type = PQ_INT64;
		if (utc) e->converted_type = PQ_CT_TIMESTAMP_MICROS;
		e->logical = (pq_logical_type){.kind = PQ_LT_TIMESTAMP, .is_adjusted_to_utc = utc, .unit = PQ_UNIT_MICROS};
		return;
	}
	default: /* DL_TYPE_NULL: all-null INT32 annotated UNKNOWN, as Arrow writes it */
		e->type = PQ_INT32;
		e->logical.kind = PQ_LT_UNKNOWN;
		return;
	}
}

/* Geospatial columns (binary annotated with Delta's geometry/geography
 * text) carry Parquet's GEOMETRY / GEOGRAPHY logical type; the CRS and the
 * algorithm are written only when they differ from Parquet's defaults
 * (OGC:CRS84, SPHERICAL), which are also Delta's. */
static int set_geo(pq_wschema *s, pq_schema_element *e, const dl_type *t)
{
	dl_geo_info g;
	DL_TRY(dl_geo_parse(&g, t->geo));
	e->logical.kind = g.kind == DL_GEO_GEOMETRY ? PQ_LT_GEOMETRY : PQ_LT_GEOGRAPHY;
	if (g.crs_len != strlen(DL_GEO_DEFAULT_CRS) || memcmp(g.crs, DL_GEO_DEFAULT_CRS, g.crs_len) != 0) {
		e->logical.crs = dl_arena_strndup(&s->arena, g.crs, g.crs_len);
		if (!e->logical.crs) return DL_ENOMEM;
	}
	if (g.kind == DL_GEO_GEOGRAPHY && g.algorithm != DL_GEO_SPHERICAL) {
		e->logical.has_algorithm = true;
		e->logical.algorithm = (int32_t)g.algorithm;
	}
	return 0;
}

static int push_step(builder *b, pq_step st)
{
	if (b->nsteps >= MAX_DEPTH)
		return dl_error_set(DL_EUNSUPPORTED, "schema nested deeper than %d levels; flatten the column", MAX_DEPTH);
	b->steps[b->nsteps++] = st;
	return 0;
}

static int push_name(builder *b, const char *name)
{
	if (b->nnames >= MAX_DEPTH)
		return dl_error_set(DL_EUNSUPPORTED, "schema nested deeper than %d levels; flatten the column", MAX_DEPTH);
	b->names[b->nnames++] = name;
	return 0;
}

static int add_leaf(builder *b, const dl_type *t, bool utf8)
{
	pq_wschema *s = b->s;
	if ((size_t)s->nleaves == b->cap_leaves) {
		size_t cap = b->cap_leaves ? b->cap_leaves * 2 : 16;
		pq_leaf *l = dl_reallocarray(s->leaves, cap, sizeof *l);
		if (!l) return DL_ENOMEM;
		s->leaves = l;
		b->cap_leaves = cap;
	}
	pq_leaf *l = &s->leaves[s->nleaves];
	memset(l, 0, sizeof *l);
	const pq_schema_element *e = &s->elems[s->nelems - 1];
	l->steps = dl_arena_alloc(&s->arena, sizeof(pq_step) * (size_t)b->nsteps);
	l->path = dl_arena_alloc(&s->arena, sizeof(char *) * (size_t)b->nnames);
	if (!l->steps || !l->path) return DL_ENOMEM;
	memcpy(l->steps, b->steps, sizeof(pq_step) * (size_t)b->nsteps);
	for (int i = 0; i < b->nnames; i++) {
		l->path[i] = dl_arena_strdup(&s->arena, b->names[i]);
		if (!l->path[i]) return DL_ENOMEM;
	}
	l->nsteps = b->nsteps;
	l->npath = b->nnames;
	l->top = b->top;
	l->max_def = b->def;
	l->max_rep = b->rep;
	l->phys = e->type;
	l->type_length = e->type_length;
	l->type = t;
	l->schema_index = (int)s->nelems - 1;
	l->utf8 = utf8;
	s->nleaves++;
	return 0;
}

static int add_node(builder *b, const char *name, const dl_type *t, bool optional, const char *metadata,
                    bool slot);

/* A group's fields; the struct step's `child` selects each in turn. */
static int add_children(builder *b, const dl_type *t, bool force_key_required)
{
	int at = b->nsteps - 1;
	for (int i = 0; i < t->nchildren; i++) {
		b->steps[at].child = i;
		const dl_field *f = &t->children[i];
		bool optional = f->nullable && !(force_key_required && i == 0);
		/* A map's children are its key/value slots, not struct fields. */
		DL_TRY(add_node(b, f->name, f->type, optional, f->metadata, force_key_required));
	}
	return 0;
}

/* Sibling fields must have different names: readers find columns by name
 * (path_in_schema), so a second "x" would be unreachable or mistaken for
 * the first. */
static int check_unique_names(const dl_type *t, const char *where)
{
	dl_strmap seen;
	dl_strmap_init(&seen, false);
	int rc = 0;
	for (int i = 0; i < t->nchildren && rc == 0; i++) {
		const char *name = t->children[i].name;
		if (dl_strmap_find(&seen, name, strlen(name), NULL))
			rc = dl_error_set(DL_EINVALID,
			                  "field name '%s' appears twice in %s; Parquet finds columns by name, so "
			                  "sibling fields need different names",
			                  name, where);
		else
			rc = dl_strmap_put(&seen, name, strlen(name), NULL, NULL);
	}
	dl_strmap_free(&seen);
	return rc;
}

static int add_struct(builder *b, const dl_type *t, uint32_t ei, bool optional)
{
	if (t->nchildren < 1)
		return dl_error_set(DL_EUNSUPPORTED, "Parquet cannot store a struct without fields (column '%s')",
		                    b->s->elems[ei].name);
	DL_TRY(check_unique_names(t, b->s->elems[ei].name));
	b->s->elems[ei].has_num_children = true;
	b->s->elems[ei].num_children = t->nchildren;
	DL_TRY(push_step(b, (pq_step){.kind = PQ_STEP_STRUCT, .optional = optional}));
	DL_TRY(add_children(b, t, false));
	b->nsteps--;
	return 0;
}

static int add_repeated(builder *b, const dl_type *t, uint32_t ei, bool optional)
{
	bool is_map = t->id == DL_TYPE_MAP;
	if (t->nchildren != (is_map ? 2 : 1))
		return dl_error_set(DL_EINVALID, "malformed %s type: %d children", is_map ? "map" : "array", t->nchildren);
	pq_schema_element *e = &b->s->elems[ei];
	e->has_num_children = true;
	e->num_children = 1;
	e->converted_type = is_map ? PQ_CT_MAP : PQ_CT_LIST;
	e->logical.kind = is_map ? PQ_LT_MAP : PQ_LT_LIST;
	const char *group = is_map ? "key_value" : "list";
	pq_schema_element *g = new_elem(b, group, false, NULL);
	if (!g) return DL_ENOMEM;
	g->repetition = PQ_REPEATED;
	g->has_num_children = true;
	g->num_children = is_map ? 2 : 1;
	DL_TRY(push_name(b, group));
	b->def += 1;
	b->rep += 1;
	DL_TRY(push_step(b, (pq_step){.kind = PQ_STEP_REPEATED, .optional = optional, .rep_level = b->rep}));
	if (is_map) {
		/* key_value: a required struct step over Arrow's entries array. */
		DL_TRY(push_step(b, (pq_step){.kind = PQ_STEP_STRUCT}));
		DL_TRY(add_children(b, t, true));
		b->nsteps--;
	} else {
		const dl_field *f = &t->children[0];
		DL_TRY(add_node(b, "element", f->type, f->nullable, f->metadata, true));
	}
	b->nsteps--;
	b->nnames--;
	return 0;
}

static int add_node_at(builder *b, const char *name, const dl_type *t, bool optional, const char *metadata,
                       bool slot);

/* Enters a node for the nested-id path (restored by add_node). */
static void enter_path(builder *b, const char *name, const char *metadata, bool slot)
{
	size_t n = strlen(name);
	if (!slot) {
		b->nmeta = metadata;
		b->npath_len = 0;
	} else if (!b->npath_len) {
		return; /* no struct field above, or the path overflowed */
	}
	size_t at = b->npath_len + (slot ? 1 : 0);
	if (at + n + 1 > sizeof b->npath) {
		b->npath_len = 0;
		return;
	}
	if (slot) b->npath[b->npath_len] = '.';
	memcpy(b->npath + at, name, n + 1);
	b->npath_len = at + n;
}

static int add_node(builder *b, const char *name, const dl_type *t, bool optional, const char *metadata,
                    bool slot)
{
	const char *saved_meta = b->nmeta;
	size_t saved_len = b->npath_len;
	enter_path(b, name, metadata, slot);
	int rc = add_node_at(b, name, t, optional, metadata, slot);
	b->nmeta = saved_meta;
	b->npath_len = saved_len;
	if (saved_len < sizeof b->npath) b->npath[saved_len] = 0;
	return rc;
}

static int add_node_at(builder *b, const char *name, const dl_type *t, bool optional, const char *metadata,
                       bool slot)
{
	/* A null-type column holds only nulls: it must be OPTIONAL to say so. */
	if (t->id == DL_TYPE_NULL) optional = true;
	pq_schema_element *e = new_elem(b, name, optional, metadata);
	if (!e) return DL_ENOMEM;
	if (slot && !e->has_field_id && b->npath_len)
		e->has_field_id = nested_field_id(b->nmeta, b->npath, &e->field_id);
	uint32_t ei = b->s->nelems - 1;
	int def = b->def, rep = b->rep;
	DL_TRY(push_name(b, name));
	b->def += optional;
	switch (t->id) {
	case DL_TYPE_VARIANT:
		/* LogicalTypes.md "VARIANT": the group must be annotated VARIANT
		 * with specification version 1 (no ConvertedType exists) */
		e->logical.kind = PQ_LT_VARIANT;
		e->logical.has_spec_version = true;
		e->logical.spec_version = 1;
		DL_TRY(add_struct(b, t, ei, optional));
		break;
	case DL_TYPE_STRUCT:
		DL_TRY(add_struct(b, t, ei, optional));
		break;
	case DL_TYPE_ARRAY:
	case DL_TYPE_MAP:
		DL_TRY(add_repeated(b, t, ei, optional));
		break;
	default: {
		bool utf8;
		set_primitive(e, t, &utf8);
		if (t->geo) DL_TRY(set_geo(b->s, e, t));
		DL_TRY(push_step(b, (pq_step){.kind = PQ_STEP_LEAF, .optional = optional}));
		DL_TRY(add_leaf(b, t, utf8));
		b->nsteps--;
	}
	}
	b->nnames--;
	b->def = def;
	b->rep = rep;
	return 0;
}

int pq_wschema_build(pq_wschema *out, const dl_type *schema, const char *root_name)
{
	memset(out, 0, sizeof *out);
	if (!schema || schema->id != DL_TYPE_STRUCT || schema->nchildren < 1)
		return dl_error_set(DL_EINVALID, "a Parquet file needs a struct schema with at least one column");
	builder b = {.s = out};
	int rc = DL_ENOMEM;
	pq_schema_element *root = new_elem(&b, root_name ? root_name : "schema", false, NULL);
	if (!root) goto fail;
	root->has_repetition = false;
	root->has_num_children = true;
	root->num_children = schema->nchildren;
	rc = check_unique_names(schema, "the schema");
	if (rc < 0) goto fail;
	for (int i = 0; i < schema->nchildren; i++) {
		const dl_field *f = &schema->children[i];
		b.top = i;
		rc = add_node(&b, f->name, f->type, f->nullable, f->metadata, false);
		if (rc < 0) goto fail;
	}
	return 0;
fail:
	pq_wschema_free(out);
	return rc;
}

void pq_wschema_free(pq_wschema *s)
{
	dl_free(s->elems);
	dl_free(s->leaves);
	dl_arena_free(&s->arena);
	memset(s, 0, sizeof *s);
}
