/* Checking and merging the schema of written data, and conforming batches
 * to the table schema (see schema_align.h). */
#include "ops/schema_align.h"
#include <stdio.h>
#include <string.h>
#include <strings.h>
#include "columnar/builder.h"
#include "json/json.h"
#include "util/buf.h"
#include "util/error.h"
#include "util/mem.h"

#define TYPE_CHANGES_KEY "delta.typeChanges"

static int rank_integral(dl_type_id id)
{
	switch (id) {
	case DL_TYPE_BYTE: return 1;
	case DL_TYPE_SHORT: return 2;
	case DL_TYPE_INTEGER: return 3;
	case DL_TYPE_LONG: return 4;
	default: return 0;
	}
}

/* Decimal digits an integral type needs. */
static int integral_digits(dl_type_id id)
{
	return id == DL_TYPE_BYTE ? 3 : id == DL_TYPE_SHORT ? 5 : id == DL_TYPE_INTEGER ? 10 : 20;
}

bool dl_type_widens_to(const dl_type *from, const dl_type *to)
{
	int rf = rank_integral(from->id), rt = rank_integral(to->id);
	if (rf && rt) return rf <= rt;
	if (rf && to->id == DL_TYPE_DOUBLE) return rf <= 3;
	if (rf && to->id == DL_TYPE_DECIMAL) return to->precision - to->scale >= integral_digits(from->id);
	if (from->id == DL_TYPE_FLOAT && to->id == DL_TYPE_DOUBLE) return true;
	if (from->id == DL_TYPE_DATE && to->id == DL_TYPE_TIMESTAMP_NTZ) return true;
	if (from->id == DL_TYPE_DECIMAL && to->id == DL_TYPE_DECIMAL)
		return to->scale >= from->scale &&
		       to->precision - to->scale >= from->precision - from->scale;
	return false;
}

int dl_data_column(const dl_type *data, const char *name)
{
	for (int i = 0; i < data->nchildren; i++)
		if (strcasecmp(data->children[i].name, name) == 0) return i;
	return -1;
}

static int mismatch(const char *path, const dl_type *table, const dl_type *data)
{
	char a[128], b[128];
	if (table->id == DL_TYPE_NULL) {
		dl_type_sql(data, b, sizeof b);
		return dl_error_set(DL_ESCHEMA,
		                    "column %s has no type yet (NullType) in the table and %s in the data; "
		                    "merge the schema to give it the data's type",
		                    path, b);
	}
	dl_type_sql(table, a, sizeof a);
	dl_type_sql(data, b, sizeof b);
	return dl_error_set(DL_ESCHEMA,
	                    "a schema mismatch was detected when writing to the Delta table: column "
	                    "%s has type %s in the table but %s in the data; cast the data to %s%s",
	                    path, a, b, a,
	                    dl_type_widens_to(table, data)
	                        ? ", or enable type widening (delta.enableTypeWidening = true) and "
	                          "merge the schema"
	                        : "");
}

static int merge_type(dl_type **out, bool *changed, const dl_type *t, const dl_type *d,
                      bool merge, bool widen, const char *path, int depth);

/* Field metadata with {"fromType", "toType"} appended to delta.typeChanges
 * (the type widening history readers use to read older files). */
static int meta_with_type_change(const char *meta, const dl_type *from, const dl_type *to,
                                 char **out)
{
	dl_arena a = DL_ARENA_INIT;
	dl_json *root;
	int rc = dl_json_parse(&a, meta, strlen(meta), "field metadata", &root);
	dl_buf b = DL_BUF_INIT, v = DL_BUF_INIT;
	const dl_json *old = NULL;
	char fname[64], tname[64];
	dl_type_name(from, fname, sizeof fname);
	dl_type_name(to, tname, sizeof tname);
	if (rc == 0) {
		dl_json_writer w;
		dl_jw_init(&w, &b);
		dl_jw_object_begin(&w);
		for (size_t i = 0; root->kind == DL_JSON_OBJECT && i < root->u.obj.n && rc == 0; i++) {
			const dl_json_member *m = &root->u.obj.items[i];
			if (strcmp(m->key, TYPE_CHANGES_KEY) == 0) {
				old = &m->value;
				continue;
			}
			dl_buf_clear(&v);
			rc = dl_json_write(&v, &m->value);
			dl_jw_key(&w, m->key);
			dl_jw_raw(&w, v.data ? v.data : "null");
		}
		dl_jw_key(&w, TYPE_CHANGES_KEY);
		dl_jw_array_begin(&w);
		for (size_t i = 0; old && old->kind == DL_JSON_ARRAY && i < old->u.arr.n && rc == 0; i++) {
			dl_buf_clear(&v);
			rc = dl_json_write(&v, &old->u.arr.items[i]);
			dl_jw_raw(&w, v.data ? v.data : "null");
		}
		dl_jw_object_begin(&w);
		dl_jw_key(&w, "fromType");
		dl_jw_string(&w, fname);
		dl_jw_key(&w, "toType");
		dl_jw_string(&w, tname);
		dl_jw_object_end(&w);
		dl_jw_array_end(&w);
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
	return 0;
}

static int merge_struct(dl_type **out, bool *changed, const dl_type *t, const dl_type *d,
                        bool merge, bool widen, const char *path, int depth)
{
	for (int i = 0; i < d->nchildren; i++)
		for (int j = 0; j < i; j++)
			if (strcasecmp(d->children[i].name, d->children[j].name) == 0)
				return dl_error_set(DL_ESCHEMA,
				                    "the data has columns differing only by case: '%s' and '%s'%s%s; "
				                    "Delta column names are case-insensitive, rename one",
				                    d->children[j].name, d->children[i].name,
				                    *path ? " in " : "", path);
	int n = t->nchildren, extra = 0;
	dl_field *fs = dl_calloc((size_t)(n + d->nchildren) + 1, sizeof *fs);
	if (!fs) return DL_ENOMEM;
	int rc = 0;
	char sub[512];
	char **metas = dl_calloc((size_t)n + 1, sizeof *metas);
	if (!metas) {
		dl_free(fs);
		return DL_ENOMEM;
	}
	for (int i = 0; i < n && rc == 0; i++) {
		const dl_field *tf = &t->children[i];
		fs[i] = *tf;
		fs[i].type = NULL;
		int k = dl_data_column(d, tf->name);
		snprintf(sub, sizeof sub, "%s%s%s", path, *path ? "." : "", tf->name);
		if (k < 0) fs[i].type = dl_type_ref(tf->type);
		else rc = merge_type(&fs[i].type, changed, tf->type, d->children[k].type,
		                     merge, widen, sub, depth + 1);
		if (rc == 0 && dl_type_is_primitive(tf->type) && tf->type->id != DL_TYPE_NULL &&
		    !dl_type_equals(fs[i].type, tf->type)) {
			rc = meta_with_type_change(tf->metadata ? tf->metadata : "{}", tf->type, fs[i].type,
			                           &metas[i]);
			if (rc == 0) fs[i].metadata = metas[i];
		}
	}
	for (int k = 0; k < d->nchildren && rc == 0; k++) {
		if (dl_data_column(t, d->children[k].name) >= 0) continue;
		if (!merge) {
			rc = dl_error_set(DL_ESCHEMA,
			                  "a schema mismatch was detected when writing to the Delta table: "
			                  "the data has column %s%s%s, which the table does not have; to add "
			                  "it, enable schema evolution (merge schema)",
			                  path, *path ? "." : "", d->children[k].name);
			break;
		}
		fs[n + extra] = d->children[k];
		fs[n + extra].nullable = true; /* existing rows have no value */
		fs[n + extra].metadata = (char *)"{}";
		fs[n + extra].type = dl_type_ref(d->children[k].type);
		extra++;
		*changed = true;
	}
	if (rc == 0) {
		*out = dl_type_struct(fs, n + extra);
		if (!*out) rc = DL_ENOMEM;
	}
	for (int i = 0; i < n + extra; i++) dl_type_unref(fs[i].type);
	for (int i = 0; i < n; i++) dl_free(metas[i]);
	dl_free(metas);
	dl_free(fs);
	return rc;
}

static int merge_type(dl_type **out, bool *changed, const dl_type *t, const dl_type *d,
                      bool merge, bool widen, const char *path, int depth)
{
	if (depth > 256) return dl_error_set(DL_ESCHEMA, "the data is nested too deeply");
	if (d->id == DL_TYPE_NULL) { /* NullType data fits anything */
		*out = dl_type_ref((dl_type *)t);
		return 0;
	}
	if (t->id == DL_TYPE_NULL) {
		if (!merge) return mismatch(path, t, d);
		*out = dl_type_ref((dl_type *)d);
		*changed = true;
		return 0;
	}
	if (t->id == DL_TYPE_STRUCT && d->id == DL_TYPE_STRUCT)
		return merge_struct(out, changed, t, d, merge, widen, path, depth);
	if ((t->id == DL_TYPE_ARRAY || t->id == DL_TYPE_MAP) && t->id == d->id) {
		dl_type *c[2] = {NULL, NULL};
		int rc = 0;
		for (int i = 0; i < t->nchildren && rc == 0; i++)
			rc = merge_type(&c[i], changed, t->children[i].type, d->children[i].type, merge,
			                widen, path, depth + 1);
		if (rc == 0) {
			*out = t->id == DL_TYPE_ARRAY ? dl_type_array(c[0], t->children[0].nullable)
			                              : dl_type_map(c[0], c[1], t->children[1].nullable);
			if (!*out) rc = DL_ENOMEM;
		}
		dl_type_unref(c[0]);
		dl_type_unref(c[1]);
		return rc;
	}
	if (dl_type_equals(t, d) || (t->id == d->id && dl_type_is_primitive(t) &&
	                             (t->id != DL_TYPE_DECIMAL ||
	                              (t->precision == d->precision && t->scale == d->scale)))) {
		*out = dl_type_ref((dl_type *)t);
		return 0;
	}
	if (merge && dl_type_widens_to(d, t)) { /* narrower data: kept as the table type */
		*out = dl_type_ref((dl_type *)t);
		return 0;
	}
	/* Integers are never widened to double or decimal automatically: Delta
	 * asks for a manual ALTER for those, so values are not silently changed
	 * in meaning. */
	bool manual_only = rank_integral(t->id) && !rank_integral(d->id);
	if (merge && widen && !manual_only && dl_type_widens_to(t, d)) {
		*out = dl_type_ref((dl_type *)d);
		*changed = true;
		return 0;
	}
	return mismatch(path, t, d);
}

int dl_schema_merge(dl_type **out, bool *changed, const dl_type *table, const dl_type *data,
                    bool merge_schema, bool type_widening)
{
	*changed = false;
	return merge_type(out, changed, table, data, merge_schema, type_widening, "", 0);
}

/* ---- conforming data ---- */

static bool same_layout(const dl_type *a, const dl_type *b)
{
	if (a->id != b->id || a->nchildren != b->nchildren) return false;
	if (a->id == DL_TYPE_DECIMAL && (a->precision != b->precision || a->scale != b->scale))
		return false;
	for (int i = 0; i < a->nchildren; i++) {
		if (a->id == DL_TYPE_STRUCT && strcmp(a->children[i].name, b->children[i].name) != 0 &&
		    strcasecmp(a->children[i].name, b->children[i].name) != 0)
			return false;
		if (!same_layout(a->children[i].type, b->children[i].type)) return false;
	}
	return true;
}

static int copy_validity(dl_array *dst, const dl_array *src)
{
	if (!src->validity) return 0;
	size_t n = (size_t)(src->length + 7) / 8;
	dst->validity = dl_malloc(n ? n : 1);
	if (!dst->validity) return DL_ENOMEM;
	memcpy(dst->validity, src->validity, n);
	dst->null_count = -1;
	return 0;
}

static int64_t int_at(const dl_array *a, int64_t i)
{
	switch (a->type->id) {
	case DL_TYPE_BYTE: return ((const int8_t *)a->values)[i];
	case DL_TYPE_SHORT: return ((const int16_t *)a->values)[i];
	case DL_TYPE_INTEGER: case DL_TYPE_DATE: return ((const int32_t *)a->values)[i];
	default: return ((const int64_t *)a->values)[i];
	}
}

static dl_i128 pow10_128(int n)
{
	dl_i128 p = 1;
	while (n-- > 0) p *= 10;
	return p;
}

/* Widening of primitive values (dl_type_widens_to accepted the pair). */
static int widen_values(dl_array **out, const dl_array *a, dl_type *to)
{
	dl_array *r = dl_array_new(to, a->length);
	if (!r) return dl_error_last()->code;
	int rc = copy_validity(r, a);
	for (int64_t i = 0; i < a->length && rc == 0; i++) {
		switch (to->id) {
		case DL_TYPE_SHORT: ((int16_t *)r->values)[i] = (int16_t)int_at(a, i); break;
		case DL_TYPE_INTEGER: ((int32_t *)r->values)[i] = (int32_t)int_at(a, i); break;
		case DL_TYPE_LONG: ((int64_t *)r->values)[i] = int_at(a, i); break;
		case DL_TYPE_TIMESTAMP_NTZ:
			((int64_t *)r->values)[i] = int_at(a, i) * INT64_C(86400000000);
			break;
		case DL_TYPE_DOUBLE:
			((double *)r->values)[i] = a->type->id == DL_TYPE_FLOAT
			                               ? ((const float *)a->values)[i]
			                               : (double)int_at(a, i);
			break;
		case DL_TYPE_DECIMAL: {
			dl_i128 v;
			if (a->type->id == DL_TYPE_DECIMAL) {
				memcpy(&v, (const uint8_t *)a->values + 16 * i, 16);
				v *= pow10_128(to->scale - a->type->scale);
			} else {
				v = (dl_i128)int_at(a, i) * pow10_128(to->scale);
			}
			memcpy((uint8_t *)r->values + 16 * i, &v, 16);
			break;
		}
		default:
			rc = dl_error_set(DL_EUNSUPPORTED, "cannot widen %s to %s",
			                  dl_type_id_name(a->type->id), dl_type_id_name(to->id));
		}
	}
	if (rc < 0) {
		dl_array_free(r);
		return rc;
	}
	*out = r;
	return 0;
}

static int conform_struct(dl_array **out, const dl_array *a, dl_type *to)
{
	dl_array *r = dl_array_new(to, a->length);
	if (!r) return dl_error_last()->code;
	int rc = copy_validity(r, a);
	for (int i = 0; i < to->nchildren && rc == 0; i++) {
		int k = dl_data_column(a->type, to->children[i].name);
		dl_array *c;
		if (k < 0) {
			c = dl_array_new_null(to->children[i].type, a->length);
			if (!c) rc = dl_error_last()->code;
		} else {
			rc = dl_array_conform(&c, a->children[k], to->children[i].type);
		}
		if (rc == 0) {
			dl_array_free(r->children[i]);
			r->children[i] = c;
		}
	}
	if (rc < 0) {
		dl_array_free(r);
		return rc;
	}
	*out = r;
	return 0;
}

/* Arrays and maps: the same offsets and validity, elements (or the
 * key/value entries) conformed to the new element type. */
static int conform_list(dl_array **out, const dl_array *a, dl_type *to)
{
	dl_array *r = dl_array_new(to, a->length);
	if (!r) return dl_error_last()->code;
	int rc = copy_validity(r, a);
	if (rc == 0) memcpy(r->offsets, a->offsets, (size_t)(a->length + 1) * sizeof *r->offsets);
	dl_array *child = NULL;
	if (rc == 0) rc = dl_array_conform(&child, a->children[0], r->children[0]->type);
	if (rc == 0) {
		dl_array_free(r->children[0]);
		r->children[0] = child;
		*out = r;
		return 0;
	}
	dl_array_free(r);
	return rc;
}

int dl_array_conform(dl_array **out, const dl_array *a, dl_type *to)
{
	if (a->type->id == DL_TYPE_NULL && to->id != DL_TYPE_NULL) {
		*out = dl_array_new_null(to, a->length);
		return *out ? 0 : dl_error_last()->code;
	}
	if (same_layout(a->type, to)) {
		dl_array *c = dl_array_slice(a, 0, a->length);
		if (!c) return dl_error_last()->code;
		int rc = dl_array_set_type(c, to);
		if (rc < 0) {
			dl_array_free(c);
			return rc;
		}
		*out = c;
		return 0;
	}
	if (a->type->id == DL_TYPE_STRUCT && to->id == DL_TYPE_STRUCT) return conform_struct(out, a, to);
	if ((a->type->id == DL_TYPE_ARRAY || a->type->id == DL_TYPE_MAP) && a->type->id == to->id)
		return conform_list(out, a, to);
	if (dl_type_is_primitive(a->type) && dl_type_widens_to(a->type, to))
		return widen_values(out, a, to);
	char x[128], y[128];
	dl_type_sql(a->type, x, sizeof x);
	dl_type_sql(to, y, sizeof y);
	return dl_error_set(DL_ESCHEMA, "%s data cannot be written into a %s column; cast it to %s",
	                    x, y, y);
}
