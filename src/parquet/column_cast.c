/* Widening of a leaf array to the type a reader asked for: Delta's type
 * widening (byte -> short -> int -> long, float -> double, ints and
 * decimals to wider decimals, date -> timestamp_ntz) lets a table's schema
 * be wider than the files written before the change. */
#include "parquet/column_read.h"
#include "util/error.h"
#include "util/mem.h"

static dl_i128 get_int(const dl_array *a, int64_t i)
{
	const uint8_t *v = a->values;
	switch (a->type->id) {
	case DL_TYPE_BYTE: return ((const int8_t *)v)[i];
	case DL_TYPE_SHORT: { int16_t x; memcpy(&x, v + 2 * i, 2); return x; }
	case DL_TYPE_INTEGER:
	case DL_TYPE_DATE: { int32_t x; memcpy(&x, v + 4 * i, 4); return x; }
	case DL_TYPE_DECIMAL: { dl_i128 x; memcpy(&x, v + 16 * i, 16); return x; }
	default: { int64_t x; memcpy(&x, v + 8 * i, 8); return x; }
	}
}

static dl_i128 pow10_i128(int n)
{
	dl_i128 p = 1;
	while (n-- > 0) p *= 10;
	return p;
}

int pq_cast_array(dl_array **ap, dl_type *to)
{
	dl_array *a = *ap;
	dl_type_id f = a->type->id, t = to->id;
	bool same_layout = (f == DL_TYPE_STRING && t == DL_TYPE_BINARY) || (f == DL_TYPE_BINARY && t == DL_TYPE_STRING) ||
	                   (f == DL_TYPE_BINARY && t == DL_TYPE_BINARY) || /* plain <-> geospatial WKB */
	                   ((f == DL_TYPE_TIMESTAMP || f == DL_TYPE_TIMESTAMP_NTZ) &&
	                    (t == DL_TYPE_TIMESTAMP || t == DL_TYPE_TIMESTAMP_NTZ)) ||
	                   dl_type_equals(a->type, to);
	if (same_layout) {
		dl_type *old = a->type;
		a->type = dl_type_ref(to);
		dl_type_unref(old);
		return 0;
	}
	int w = dl_type_fixed_width(to);
	if (w <= 0 || (!dl_type_is_numeric(a->type) && f != DL_TYPE_DATE))
		return dl_error_set(DL_ESCHEMA, "cannot widen %s to %s", dl_type_id_name(f), dl_type_id_name(t));
	uint8_t *out = dl_calloc((size_t)(a->length ? a->length : 1), (size_t)w);
	if (!out) return DL_ENOMEM;
	dl_i128 scale = t == DL_TYPE_DECIMAL ? pow10_i128(to->scale - (f == DL_TYPE_DECIMAL ? a->type->scale : 0)) : 1;
	for (int64_t i = 0; i < a->length; i++) {
		if (a->validity && !dl_bit_get(a->validity, i)) continue;
		uint8_t *o = out + (size_t)i * (size_t)w;
		if (t == DL_TYPE_DOUBLE) {
			double d;
			if (f == DL_TYPE_FLOAT) {
				float x;
				memcpy(&x, (const uint8_t *)a->values + 4 * i, 4);
				d = x;
			} else {
				d = (double)get_int(a, i);
			}
			memcpy(o, &d, 8);
		} else if (t == DL_TYPE_DECIMAL) {
			dl_i128 v = get_int(a, i) * scale;
			memcpy(o, &v, 16);
		} else if (t == DL_TYPE_TIMESTAMP_NTZ && f == DL_TYPE_DATE) {
			/* wraps (no UB) for days beyond the int64 micros range */
			int64_t v = (int64_t)((uint64_t)(int64_t)get_int(a, i) * 86400000000ULL);
			memcpy(o, &v, 8);
		} else {
			int64_t v = (int64_t)get_int(a, i);
			if (w == 2) { int16_t x = (int16_t)v; memcpy(o, &x, 2); }
			else if (w == 4) { int32_t x = (int32_t)v; memcpy(o, &x, 4); }
			else memcpy(o, &v, 8);
		}
	}
	dl_free(a->values);
	a->values = out;
	dl_type *old = a->type;
	a->type = dl_type_ref(to);
	dl_type_unref(old);
	return 0;
}
