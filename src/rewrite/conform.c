/* Conforming arrays read or given under one type to a wider type of the
 * same table (Delta's type widening and schema evolution): shared by the
 * write path (ops/schema_align.c) and the rewrite engine, which copies rows
 * written under an older schema into files of the current one. */
#include "rewrite/conform.h"
#include <string.h>
#include <strings.h>
#include "columnar/builder.h"
#include "util/error.h"
#include "log/schema.h"
#include "util/mem.h"

int dl_type_integral_rank(dl_type_id id)
{
	switch (id) {
	case DL_TYPE_BYTE: return 1;
	case DL_TYPE_SHORT: return 2;
	case DL_TYPE_INTEGER: return 3;
	case DL_TYPE_LONG: return 4;
	default: return 0;
	}
}

/* The integral digits PROTOCOL.md "Type Widening" asks of a decimal an
 * integer widens to: `Byte`, `Short` or `Int` -> `Decimal(10 + k1, k2)`,
 * `Long` -> `Decimal(20 + k1, k2)`, k1 >= k2 >= 0. Byte and short take the
 * int's 10 (not the 3 or 5 digits their values need): the protocol lists no
 * smaller target, and a reader that follows it would refuse one. */
static int integral_digits(dl_type_id id)
{
	return id == DL_TYPE_LONG ? 20 : 10;
}

bool dl_type_widens_to(const dl_type *from, const dl_type *to)
{
	int rf = dl_type_integral_rank(from->id), rt = dl_type_integral_rank(to->id);
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

/* ---- conforming data ---- */

/* The field of `t` named `name` case-insensitively, or -1. */
static int column_named(const dl_type *t, const char *name)
{
	for (int i = 0; i < t->nchildren; i++)
		if (strcasecmp(t->children[i].name, name) == 0) return i;
	return -1;
}

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
		int k = column_named(a->type, to->children[i].name);
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
