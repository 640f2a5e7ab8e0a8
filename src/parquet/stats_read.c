/* Statistics -> typed min/max/null_count. min_value/max_value follow the
 * column's logical sort order; the deprecated min/max were written with
 * signed comparison, so they are only trusted where that is the type's
 * order (signed integers, floats, dates, timestamps, int decimals). */
#include "parquet/stats_read.h"
#include <math.h>
#include <string.h>

static dl_i128 be_i128(const uint8_t *p, size_t len)
{
	__extension__ typedef unsigned __int128 u128;
	if (!len) return 0;
	u128 v = (p[0] & 0x80) ? ~(u128)0 : 0;
	for (size_t i = 0; i < len; i++) v = v << 8 | p[i];
	return (dl_i128)v;
}

static bool is_unsigned(const pq_rleaf *lf)
{
	pq_converted_type ct = lf->el->converted_type;
	if (lf->el->logical.kind == PQ_LT_INTEGER) return !lf->el->logical.is_signed;
	return ct >= PQ_CT_UINT_8 && ct <= PQ_CT_UINT_64;
}

static bool decode_value(const pq_rleaf *lf, const pq_bytes *b, pq_stat_value *v)
{
	memset(v, 0, sizeof *v);
	const uint8_t *p = b->ptr;
	uint32_t n = b->len;
	switch (lf->el->type) {
	case PQ_BOOLEAN:
		if (n != 1) return false;
		v->b = p[0] & 1;
		v->i = v->b;
		return true;
	case PQ_INT32: {
		if (n != 4) return false;
		int32_t x;
		memcpy(&x, p, 4);
		if (lf->conv == PQ_CONV_I32_DEC) v->dec = x;
		else if (lf->conv == PQ_CONV_U32_I64) v->i = (int64_t)(uint32_t)x;
		else if (lf->conv == PQ_CONV_I32_I8) v->i = (int8_t)x;
		else if (lf->conv == PQ_CONV_I32_I16) v->i = is_unsigned(lf) ? (int64_t)(uint8_t)x : (int16_t)x;
		else v->i = x;
		v->dec = lf->conv == PQ_CONV_I32_DEC ? v->dec : v->i;
		return true;
	}
	case PQ_INT64: {
		if (n != 8) return false;
		int64_t x;
		memcpy(&x, p, 8);
		/* A bound whose micros do not fit in 64 bits is no usable bound. */
		if (lf->conv == PQ_CONV_MILLIS && __builtin_mul_overflow(x, 1000, &x)) return false;
		else if (lf->conv == PQ_CONV_NANOS) x = x / 1000 - (x % 1000 < 0);
		v->i = x;
		v->dec = lf->conv == PQ_CONV_U64_DEC ? (dl_i128)(uint64_t)x : x;
		return true;
	}
	case PQ_FLOAT: {
		if (n != 4) return false;
		float f;
		memcpy(&f, p, 4);
		v->d = f;
		return !isnan(v->d);
	}
	case PQ_DOUBLE:
		if (n != 8) return false;
		memcpy(&v->d, p, 8);
		return !isnan(v->d);
	case PQ_BYTE_ARRAY:
	case PQ_FIXED_LEN_BYTE_ARRAY:
		if (lf->conv == PQ_CONV_BA_DEC || lf->conv == PQ_CONV_FLBA_DEC) {
			if (n > 16) return false;
			v->dec = be_i128(p, n);
			return true;
		}
		if (lf->conv == PQ_CONV_UUID || lf->conv == PQ_CONV_F16) return false;
		v->s = p;
		v->len = n;
		return true;
	default:
		return false; /* INT96: no usable order */
	}
}

static bool signed_order(const pq_rleaf *lf)
{
	switch (lf->el->type) {
	case PQ_BOOLEAN:
	case PQ_FLOAT:
	case PQ_DOUBLE:
		return true;
	case PQ_INT32:
	case PQ_INT64:
		return !is_unsigned(lf);
	default:
		return false;
	}
}

void pq_stats_decode(const pq_rleaf *lf, const pq_column_chunk *cc, pq_column_order order, pq_column_stats *out)
{
	memset(out, 0, sizeof *out);
	out->type = lf->type;
	if (!cc->has_meta_data) return;
	const pq_column_meta *m = &cc->meta_data;
	out->num_values = m->num_values;
	if (!m->has_statistics) return;
	const pq_statistics *s = &m->statistics;
	out->has_null_count = s->has_null_count;
	out->null_count = s->null_count;
	/* Geospatial WKB has no byte order: bounds some writer put there are
	 * not usable (Delta's geo bounds are bounding boxes, not bytes). */
	pq_logical_kind lk = lf->el->logical.kind;
	if (lk == PQ_LT_GEOMETRY || lk == PQ_LT_GEOGRAPHY || (lf->type && lf->type->geo)) return;
	const pq_bytes *mn = NULL, *mx = NULL;
	if (s->has_min_value && s->has_max_value && order != PQ_ORDER_INT96_TIMESTAMP) {
		mn = &s->min_value;
		mx = &s->max_value;
	} else if (s->has_min && s->has_max && signed_order(lf)) {
		mn = &s->min;
		mx = &s->max;
	}
	if (!mn) return;
	if (!decode_value(lf, mn, &out->min) || !decode_value(lf, mx, &out->max)) return;
	if (lf->el->type == PQ_FLOAT || lf->el->type == PQ_DOUBLE) {
		/* A zero bound may stand for either sign (parquet.thrift). */
		if (out->min.d == 0) out->min.d = -0.0;
		if (out->max.d == 0) out->max.d = 0.0;
	}
	out->has_min_max = true;
}
