/* Iceberg column metrics from Delta's per-file statistics (PROTOCOL.md
 * "Per-file Statistics"; Iceberg spec "Manifests" and Appendix D
 * "Single-value serialization"), as Spark's delta-iceberg converter fills
 * value_counts, null_value_counts, lower_bounds and upper_bounds:
 *
 *   - value_counts = numRecords (Iceberg counts nulls as values), for
 *     top-level primitive columns;
 *   - null_value_counts = nullCount[physical name];
 *   - bounds = minValues / maxValues[physical name], serialized: int
 *     (byte, short, int, date as days) 4 bytes little-endian; long and
 *     timestamps (micros) 8 bytes little-endian; boolean one byte; string
 *     its UTF-8 bytes (Delta truncates to 32 characters and ends a cut max
 *     with U+FFFD, which still bounds it); decimal the unscaled value as
 *     big-endian two's complement in the fewest bytes.
 *
 * Delta's timestamp stats have millisecond precision (the max is the
 * truncated value), so the upper bound is widened by 999 microseconds.
 * Floats and doubles get no bounds: Delta's min/max may not follow
 * Iceberg's NaN and -0.0 rules, and bounds are optional. Nested columns
 * and binaries get none either. Missing or unreadable stats mean no
 * metrics: never a wrong one. */
#include "uniform/iceberg_bounds.h"

#include <string.h>

#include "expr/expr.h"
#include "log/partition_values.h"
#include "util/error.h"
#include "util/time.h"

static uint8_t *le(dl_arena *a, uint64_t v, size_t n)
{
	uint8_t *p = dl_arena_alloc(a, n);
	for (size_t i = 0; p && i < n; i++) p[i] = (uint8_t)(v >> (8 * i));
	return p;
}

/* Big-endian two's complement in the fewest bytes (Java's
 * BigInteger.toByteArray, which Iceberg uses). */
static uint8_t *decimal_bytes(dl_arena *a, dl_i128 v, size_t *len)
{
	uint8_t tmp[16];
	for (int i = 0; i < 16; i++) tmp[15 - i] = (uint8_t)(v >> (8 * i)) /* arithmetic shift: the low byte is right either way */;
	int start = 0;
	while (start < 15 && ((tmp[start] == 0 && !(tmp[start + 1] & 0x80)) ||
	                      (tmp[start] == 0xFF && (tmp[start + 1] & 0x80))))
		start++;
	*len = (size_t)(16 - start);
	uint8_t *p = dl_arena_alloc(a, *len);
	if (p) memcpy(p, tmp + start, *len);
	return p;
}

/* "-12.30" at scale s to the unscaled integer; false when not plain
 * decimal text or more fraction digits than the scale. */
static bool parse_decimal(const char *s, size_t n, int scale, dl_i128 *out)
{
	size_t i = 0;
	bool neg = false;
	if (i < n && (s[i] == '-' || s[i] == '+')) neg = s[i++] == '-';
	dl_i128 v = 0;
	int frac = -1, digits = 0;
	for (; i < n; i++) {
		if (s[i] == '.' && frac < 0) {
			frac = 0;
			continue;
		}
		if (s[i] < '0' || s[i] > '9' || ++digits > 38) return false;
		v = v * 10 + (s[i] - '0');
		if (frac >= 0) frac++;
	}
	if (digits == 0) return false;
	if (frac < 0) frac = 0;
	if (frac > scale) return false;
	for (; frac < scale; frac++) v *= 10;
	*out = neg ? -v : v;
	return true;
}

static int encode_scalar(uint8_t **out, size_t *len, dl_arena *a, const dl_type *t, int64_t i64,
                         bool b)
{
	switch (t->id) {
	case DL_TYPE_BOOLEAN: *len = 1; *out = le(a, b ? 1 : 0, 1); break;
	case DL_TYPE_BYTE:
	case DL_TYPE_SHORT:
	case DL_TYPE_INTEGER:
	case DL_TYPE_DATE: *len = 4; *out = le(a, (uint64_t)(uint32_t)(int32_t)i64, 4); break;
	default: *len = 8; *out = le(a, (uint64_t)i64, 8); break;
	}
	return *out ? 0 : DL_ENOMEM;
}

int dl_ice_bound_encode(uint8_t **out, size_t *len, dl_arena *arena, const dl_type *t,
                        const dl_json *v, bool upper)
{
	*out = NULL;
	*len = 0;
	if (!v) return 0;
	int64_t i64 = 0;
	switch (t->id) {
	case DL_TYPE_BYTE:
	case DL_TYPE_SHORT:
	case DL_TYPE_INTEGER:
	case DL_TYPE_LONG:
		if (v->kind != DL_JSON_NUMBER || dl_json_int64(v, &i64) < 0) break;
		if (t->id != DL_TYPE_LONG && (i64 < INT32_MIN || i64 > INT32_MAX)) break;
		return encode_scalar(out, len, arena, t, i64, false);
	case DL_TYPE_BOOLEAN:
		if (v->kind != DL_JSON_TRUE && v->kind != DL_JSON_FALSE) break;
		return encode_scalar(out, len, arena, t, 0, v->kind == DL_JSON_TRUE);
	case DL_TYPE_DATE: {
		int32_t d;
		if (v->kind != DL_JSON_STRING || dl_date_parse(&d, v->u.str.ptr, v->u.str.len) < 0) break;
		return encode_scalar(out, len, arena, t, d, false);
	}
	case DL_TYPE_TIMESTAMP:
	case DL_TYPE_TIMESTAMP_NTZ: {
		if (v->kind != DL_JSON_STRING) break;
		int rc = t->id == DL_TYPE_TIMESTAMP
		             ? dl_timestamp_parse(&i64, v->u.str.ptr, v->u.str.len, NULL)
		             : dl_timestamp_ntz_parse(&i64, v->u.str.ptr, v->u.str.len);
		if (rc < 0) break;
		if (upper && i64 <= INT64_MAX - 999) i64 += 999;
		return encode_scalar(out, len, arena, t, i64, false);
	}
	case DL_TYPE_STRING:
		if (v->kind != DL_JSON_STRING) break;
		*len = v->u.str.len;
		*out = dl_arena_alloc(arena, *len + 1);
		if (!*out) return DL_ENOMEM;
		memcpy(*out, v->u.str.ptr, *len);
		return 0;
	case DL_TYPE_DECIMAL: {
		dl_i128 d;
		if (v->kind != DL_JSON_NUMBER || !parse_decimal(v->u.num.ptr, v->u.num.len, t->scale, &d))
			break;
		*out = decimal_bytes(arena, d, len);
		return *out ? 0 : DL_ENOMEM;
	}
	default: break;
	}
	dl_error_clear();
	return 0;
}

int dl_ice_partition_bound(uint8_t **out, size_t *len, dl_arena *arena, const dl_type *t,
                           const char *value)
{
	*out = NULL;
	*len = 0;
	if (!value) return 0;
	dl_scalar s;
	DL_TRY(dl_partition_value_parse(&s, t, value));
	if (s.is_null) return 0;
	switch (t->id) {
	case DL_TYPE_STRING:
		*len = s.v.str.len;
		*out = dl_arena_alloc(arena, *len + 1);
		if (!*out) return DL_ENOMEM;
		memcpy(*out, s.v.str.ptr, *len);
		return 0;
	case DL_TYPE_FLOAT: {
		float f = (float)s.v.f64;
		uint32_t u;
		memcpy(&u, &f, 4);
		*len = 4;
		*out = le(arena, u, 4);
		return *out ? 0 : DL_ENOMEM;
	}
	case DL_TYPE_DOUBLE: {
		uint64_t u;
		memcpy(&u, &s.v.f64, 8);
		*len = 8;
		*out = le(arena, u, 8);
		return *out ? 0 : DL_ENOMEM;
	}
	default: return encode_scalar(out, len, arena, t, t->id == DL_TYPE_BOOLEAN ? 0 : s.v.i64, t->id == DL_TYPE_BOOLEAN && s.v.b);
	}
}

static bool metric_type(const dl_type *t)
{
	return dl_type_is_primitive(t) && t->id != DL_TYPE_NULL;
}

int dl_ice_metrics_from_stats(dl_ice_metrics *out, dl_arena *arena, const dl_ice_table_schema *s,
                              const char *stats, size_t len, const char *file)
{
	out->num_records = -1;
	out->n = 0;
	out->m = dl_arena_calloc(arena, (size_t)s->ncols + 1, sizeof *out->m);
	if (!out->m) return DL_ENOMEM;
	if (!stats || len == 0) return 0;
	dl_json *root;
	if (dl_json_parse(arena, stats, len, file, &root) < 0 || root->kind != DL_JSON_OBJECT) {
		dl_error_clear(); /* unreadable stats: no metrics, as for none */
		return 0;
	}
	const dl_json *nr = dl_json_get(root, "numRecords");
	if (!nr || dl_json_int64(nr, &out->num_records) < 0 || out->num_records < 0) {
		dl_error_clear();
		out->num_records = -1;
		return 0;
	}
	const dl_json *nulls = dl_json_get(root, "nullCount");
	const dl_json *mins = dl_json_get(root, "minValues");
	const dl_json *maxs = dl_json_get(root, "maxValues");
	for (int i = 0; i < s->ncols; i++) {
		const dl_ice_column *c = &s->cols[i];
		if (!metric_type(c->type)) continue;
		dl_ice_metric *m = &out->m[out->n];
		memset(m, 0, sizeof *m);
		m->id = c->id;
		const dl_json *nc = nulls ? dl_json_get(nulls, c->physical) : NULL;
		if (nc && dl_json_int64(nc, &m->null_count) == 0 && m->null_count >= 0 &&
		    m->null_count <= out->num_records) {
			m->has_counts = true;
			m->value_count = out->num_records;
		}
		dl_error_clear();
		if (c->type->id != DL_TYPE_FLOAT && c->type->id != DL_TYPE_DOUBLE) {
			DL_TRY(dl_ice_bound_encode(&m->lower, &m->lower_len, arena, c->type,
			                           mins ? dl_json_get(mins, c->physical) : NULL, false));
			DL_TRY(dl_ice_bound_encode(&m->upper, &m->upper_len, arena, c->type,
			                           maxs ? dl_json_get(maxs, c->physical) : NULL, true));
		}
		if (m->has_counts || m->lower || m->upper) out->n++;
	}
	return 0;
}
