/* Statistics collection and encoding (see stats.h). */
#include "parquet/stats.h"
#include <math.h>

void pq_stats_init(pq_stats *s, pq_stats_kind kind)
{
	memset(s, 0, sizeof *s);
	s->kind = kind;
}

void pq_stats_reset(pq_stats *s)
{
	s->num_values = 0;
	s->null_count = 0;
	s->nan_count = 0;
	s->has_minmax = false;
	dl_buf_clear(&s->min_bytes);
	dl_buf_clear(&s->max_bytes);
}

void pq_stats_free(pq_stats *s)
{
	dl_buf_free(&s->min_bytes);
	dl_buf_free(&s->max_bytes);
}

static int cmp_bytes(const uint8_t *a, size_t an, const uint8_t *b, size_t bn)
{
	size_t n = an < bn ? an : bn;
	int c = n ? memcmp(a, b, n) : 0;
	if (c) return c;
	return an < bn ? -1 : an > bn;
}

static int set_bytes(dl_buf *b, const uint8_t *p, size_t n)
{
	dl_buf_clear(b);
	return dl_buf_append(b, p, n);
}

int pq_stats_bytes(pq_stats *s, const uint8_t *p, size_t n)
{
	if (!s->has_minmax) {
		DL_TRY(set_bytes(&s->min_bytes, p, n));
		DL_TRY(set_bytes(&s->max_bytes, p, n));
		s->has_minmax = true;
		return 0;
	}
	if (cmp_bytes(p, n, (const uint8_t *)s->min_bytes.data, s->min_bytes.len) < 0)
		return set_bytes(&s->min_bytes, p, n);
	if (cmp_bytes(p, n, (const uint8_t *)s->max_bytes.data, s->max_bytes.len) > 0)
		return set_bytes(&s->max_bytes, p, n);
	return 0;
}

int pq_stats_merge(pq_stats *dst, const pq_stats *src)
{
	dst->num_values += src->num_values;
	dst->null_count += src->null_count;
	dst->nan_count += src->nan_count;
	return pq_stats_merge_minmax(dst, src);
}

int pq_stats_merge_minmax(pq_stats *dst, const pq_stats *src)
{
	if (!src->has_minmax) return 0;
	switch (src->kind) {
	case PQ_SK_NONE:
		return 0;
	case PQ_SK_BOOL:
		pq_stats_bool(dst, src->min.b);
		pq_stats_bool(dst, src->max.b);
		return 0;
	case PQ_SK_INT:
		pq_stats_int(dst, src->min.i);
		pq_stats_int(dst, src->max.i);
		return 0;
	case PQ_SK_FLOAT:
		pq_stats_double(dst, src->min.d);
		pq_stats_double(dst, src->max.d);
		return 0;
	case PQ_SK_DECIMAL:
		pq_stats_decimal(dst, src->min.dec);
		pq_stats_decimal(dst, src->max.dec);
		return 0;
	case PQ_SK_BYTES:
		DL_TRY(pq_stats_bytes(dst, (const uint8_t *)src->min_bytes.data, src->min_bytes.len));
		return pq_stats_bytes(dst, (const uint8_t *)src->max_bytes.data, src->max_bytes.len);
	}
	return 0;
}

/* Length of the UTF-8 sequence starting with byte c (0 if c cannot start one). */
static int utf8_len(uint8_t c)
{
	if (c < 0x80) return 1;
	if ((c & 0xE0) == 0xC0) return 2;
	if ((c & 0xF0) == 0xE0) return 3;
	if ((c & 0xF8) == 0xF0) return 4;
	return 0;
}

/* Largest char-boundary cut <= limit when p[0..n) is valid UTF-8 up to
 * there; -1 when it is not UTF-8 (callers then cut bytes). */
static long utf8_cut(const uint8_t *p, size_t n, size_t limit)
{
	size_t i = 0;
	while (i < n) {
		int l = utf8_len(p[i]);
		if (!l || i + (size_t)l > n) return -1;
		for (int k = 1; k < l; k++)
			if ((p[i + (size_t)k] & 0xC0) != 0x80) return -1;
		if (i + (size_t)l > limit) break;
		i += (size_t)l;
	}
	return (long)i;
}

size_t pq_truncate_min(const uint8_t *p, size_t n, size_t limit, bool utf8)
{
	if (!limit || n <= limit) return n;
	if (utf8) {
		long cut = utf8_cut(p, n, limit);
		if (cut >= 0) return (size_t)cut;
	}
	return limit;
}

static uint32_t utf8_decode(const uint8_t *p, int l)
{
	static const uint8_t lead_mask[5] = {0, 0x7F, 0x1F, 0x0F, 0x07};
	uint32_t cp = p[0] & lead_mask[l];
	for (int k = 1; k < l; k++) cp = (cp << 6) | (p[k] & 0x3F);
	return cp;
}

static int utf8_encode(uint32_t cp, uint8_t *o)
{
	if (cp < 0x80) { o[0] = (uint8_t)cp; return 1; }
	if (cp < 0x800) {
		o[0] = (uint8_t)(0xC0 | (cp >> 6));
		o[1] = (uint8_t)(0x80 | (cp & 0x3F));
		return 2;
	}
	if (cp < 0x10000) {
		o[0] = (uint8_t)(0xE0 | (cp >> 12));
		o[1] = (uint8_t)(0x80 | ((cp >> 6) & 0x3F));
		o[2] = (uint8_t)(0x80 | (cp & 0x3F));
		return 3;
	}
	o[0] = (uint8_t)(0xF0 | (cp >> 18));
	o[1] = (uint8_t)(0x80 | ((cp >> 12) & 0x3F));
	o[2] = (uint8_t)(0x80 | ((cp >> 6) & 0x3F));
	o[3] = (uint8_t)(0x80 | (cp & 0x3F));
	return 4;
}

/* Increments the last character of a valid UTF-8 prefix p[0..cut); drops
 * characters that cannot be incremented (U+10FFFF). */
static bool utf8_increment(const uint8_t *p, size_t cut, uint8_t *out, size_t *len)
{
	while (cut > 0) {
		size_t start = cut - 1;
		while (start > 0 && (p[start] & 0xC0) == 0x80) start--;
		int l = (int)(cut - start);
		uint32_t cp = utf8_decode(p + start, l) + 1;
		if (cp >= 0xD800 && cp <= 0xDFFF) cp = 0xE000;
		if (cp <= 0x10FFFF) {
			memcpy(out, p, start);
			*len = start + (size_t)utf8_encode(cp, out + start);
			return true;
		}
		cut = start;
	}
	return false;
}

bool pq_truncate_max(const uint8_t *p, size_t n, size_t limit, bool utf8, uint8_t *out, size_t *len)
{
	if (!limit || n <= limit) return false;
	if (utf8) {
		long cut = utf8_cut(p, n, limit);
		if (cut >= 0) return utf8_increment(p, (size_t)cut, out, len);
	}
	size_t cut = limit;
	while (cut > 0 && p[cut - 1] == 0xFF) cut--;
	if (!cut) return false;
	memcpy(out, p, cut);
	out[cut - 1]++;
	*len = cut;
	return true;
}

/* Plain encoding of one fixed-width statistic into scratch; returns its offset. */
static void put_le(uint8_t *o, uint64_t v, int n)
{
	for (int i = 0; i < n; i++) o[i] = (uint8_t)(v >> (8 * i));
}

static void encode_fixed(const pq_stats *s, const pq_stats_value *v, bool is_max, pq_type phys, int type_length,
                         uint8_t *o, size_t *n)
{
	switch (phys) {
	case PQ_BOOLEAN:
		o[0] = v->b;
		*n = 1;
		return;
	case PQ_INT32: {
		int64_t x = s->kind == PQ_SK_DECIMAL ? (int64_t)v->dec : v->i;
		put_le(o, (uint64_t)x, 4);
		*n = 4;
		return;
	}
	case PQ_INT64: {
		int64_t x = s->kind == PQ_SK_DECIMAL ? (int64_t)v->dec : v->i;
		put_le(o, (uint64_t)x, 8);
		*n = 8;
		return;
	}
	case PQ_FLOAT: {
		/* The spec: a zero min is written as -0.0 and a zero max as +0.0. */
		float f = (float)v->d;
		if (f == 0) f = is_max ? 0.0f : -0.0f;
		uint32_t bits;
		memcpy(&bits, &f, 4);
		put_le(o, bits, 4);
		*n = 4;
		return;
	}
	case PQ_DOUBLE: {
		double d = v->d;
		if (d == 0) d = is_max ? 0.0 : -0.0;
		uint64_t bits;
		memcpy(&bits, &d, 8);
		put_le(o, bits, 8);
		*n = 8;
		return;
	}
	case PQ_FIXED_LEN_BYTE_ARRAY: {
		/* Decimal: big-endian two's complement in type_length bytes. */
		dl_i128 u = v->dec;
		for (int i = type_length - 1; i >= 0; i--) {
			o[i] = (uint8_t)u;
			u >>= 8; /* arithmetic shift keeps the sign bytes */
		}
		*n = (size_t)type_length;
		return;
	}
	default:
		*n = 0;
		return;
	}
}

int pq_stats_to_thrift(const pq_stats *s, pq_type phys, int type_length, size_t trunc_len, bool utf8,
                       dl_buf *scratch, pq_statistics *out)
{
	memset(out, 0, sizeof *out);
	out->has_null_count = true;
	out->null_count = s->null_count;
	if (s->kind == PQ_SK_FLOAT) {
		out->has_nan_count = true; /* readers may then trust that no NaN hides */
		out->nan_count = s->nan_count;
	}
	if (!s->has_minmax || s->kind == PQ_SK_NONE) return 0;
	dl_buf_clear(scratch);
	size_t min_off, max_off, min_n, max_n;
	bool min_exact = true, max_exact = true;
	if (s->kind == PQ_SK_BYTES) {
		const uint8_t *mn = (const uint8_t *)s->min_bytes.data, *mx = (const uint8_t *)s->max_bytes.data;
		min_n = pq_truncate_min(mn, s->min_bytes.len, trunc_len, utf8);
		min_exact = min_n == s->min_bytes.len;
		/* Room for the max: its cut plus a longer incremented character. */
		DL_TRY(dl_buf_reserve(scratch, min_n + s->max_bytes.len + 8));
		memcpy(scratch->data, mn ? (const char *)mn : "", min_n);
		min_off = 0;
		max_off = min_n;
		uint8_t *o = (uint8_t *)scratch->data + max_off;
		if (pq_truncate_max(mx, s->max_bytes.len, trunc_len, utf8, o, &max_n)) {
			max_exact = false;
		} else {
			max_n = s->max_bytes.len;
			if (max_n) memcpy(o, mx, max_n);
		}
		scratch->len = max_off + max_n;
	} else {
		DL_TRY(dl_buf_reserve(scratch, 64));
		uint8_t *o = (uint8_t *)scratch->data;
		encode_fixed(s, &s->min, false, phys, type_length, o, &min_n);
		encode_fixed(s, &s->max, true, phys, type_length, o + 32, &max_n);
		min_off = 0;
		max_off = 32;
		scratch->len = 64;
	}
	const uint8_t *base = (const uint8_t *)scratch->data;
	out->has_min_value = out->has_max_value = true;
	out->min_value = (pq_bytes){base + min_off, (uint32_t)min_n};
	out->max_value = (pq_bytes){base + max_off, (uint32_t)max_n};
	out->has_is_min_value_exact = out->has_is_max_value_exact = true;
	out->is_min_value_exact = min_exact;
	out->is_max_value_exact = max_exact;
	/* The deprecated min/max too where their (signed) order is the type's,
	 * as parquet-mr does for readers that predate min_value/max_value. */
	if (phys == PQ_BOOLEAN || phys == PQ_INT32 || phys == PQ_INT64 || phys == PQ_FLOAT || phys == PQ_DOUBLE) {
		out->has_min = out->has_max = true;
		out->min = out->min_value;
		out->max = out->max_value;
	}
	return 0;
}
