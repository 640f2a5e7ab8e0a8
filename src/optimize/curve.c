/* Range ids and space-filling curve keys (see curve.h). */
#include "optimize/curve.h"

#include <stdlib.h>
#include <string.h>

#include "util/error.h"
#include "util/mem.h"

int dl_curve_bits(int n, int64_t ranges)
{
	int bits = 1;
	while (bits < 31 && ((int64_t)1 << bits) < ranges) bits++;
	if (n < 1) n = 1;
	while (bits > 1 && n * bits > 63) bits--;
	return bits;
}

uint64_t dl_zorder_key(const uint32_t *ids, int n, int bits)
{
	uint64_t k = 0;
	for (int q = bits - 1; q >= 0; q--)
		for (int i = 0; i < n; i++) k = (k << 1) | ((ids[i] >> q) & 1u);
	return k;
}

uint64_t dl_hilbert_key(const uint32_t *ids, int n, int bits)
{
	if (n == 1) return ids[0];
	uint32_t x[64];
	for (int i = 0; i < n; i++) x[i] = ids[i] & ((bits >= 32) ? 0xffffffffu : ((1u << bits) - 1));
	/* Skilling, "Programming the Hilbert curve" (2004): axes to the
	 * transposed Hilbert index. */
	uint32_t m = 1u << (bits - 1);
	for (uint32_t q = m; q > 1; q >>= 1) {
		uint32_t p = q - 1;
		for (int i = 0; i < n; i++) {
			if (x[i] & q) {
				x[0] ^= p;
			} else {
				uint32_t t = (x[0] ^ x[i]) & p;
				x[0] ^= t;
				x[i] ^= t;
			}
		}
	}
	for (int i = 1; i < n; i++) x[i] ^= x[i - 1];
	uint32_t t = 0;
	for (uint32_t q = m; q > 1; q >>= 1)
		if (x[n - 1] & q) t ^= q - 1;
	for (int i = 0; i < n; i++) x[i] ^= t;
	/* the transposed form read bit plane by bit plane is the index */
	return dl_zorder_key(x, n, bits);
}

static uint64_t double_key(double d)
{
	if (d != d) return UINT64_MAX; /* NaN above every number, as Spark sorts it */
	if (d == 0) d = 0;           /* -0.0 = 0.0 */
	uint64_t u;
	memcpy(&u, &d, sizeof u);
	return (u & 0x8000000000000000ull) ? ~u : u | 0x8000000000000000ull;
}

static int valid(const dl_array *a, int64_t row)
{
	return !a->validity || (a->validity[row >> 3] >> (row & 7)) & 1;
}

uint64_t dl_curve_value_key(const dl_array *a, int64_t row, int *null)
{
	*null = 0;
	if (a->type->id == DL_TYPE_NULL || !valid(a, row)) {
		*null = 1;
		return 0;
	}
	int64_t i;
	switch (a->type->id) {
	case DL_TYPE_BOOLEAN:
		return (((const uint8_t *)a->values)[row >> 3] >> (row & 7)) & 1;
	case DL_TYPE_BYTE: i = ((const int8_t *)a->values)[row]; break;
	case DL_TYPE_SHORT: i = ((const int16_t *)a->values)[row]; break;
	case DL_TYPE_INTEGER:
	case DL_TYPE_DATE: i = ((const int32_t *)a->values)[row]; break;
	case DL_TYPE_LONG:
	case DL_TYPE_TIMESTAMP:
	case DL_TYPE_TIMESTAMP_NTZ: i = ((const int64_t *)a->values)[row]; break;
	case DL_TYPE_FLOAT: return double_key(((const float *)a->values)[row]);
	case DL_TYPE_DOUBLE: return double_key(((const double *)a->values)[row]);
	case DL_TYPE_DECIMAL: {
		dl_i128 v;
		memcpy(&v, (const uint8_t *)a->values + 16 * row, sizeof v);
		double d = (double)v;
		for (int s = 0; s < a->type->scale; s++) d /= 10;
		return double_key(d);
	}
	case DL_TYPE_STRING:
	case DL_TYPE_BINARY: {
		const uint8_t *p = a->data + a->offsets[row];
		int32_t len = a->offsets[row + 1] - a->offsets[row];
		uint64_t k = 0;
		for (int b = 0; b < 8; b++) k = (k << 8) | (b < len ? p[b] : 0);
		return k;
	}
	default:
		*null = 1; /* no order: everything in range 0 */
		return 0;
	}
	return (uint64_t)i ^ 0x8000000000000000ull;
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
	return x < y ? -1 : x > y;
}

int dl_curve_ranges_from_sample(dl_curve_ranges *out, uint64_t *sample, size_t n, int64_t ranges)
{
	out->bounds = NULL;
	out->n = 0;
	if (n == 0 || ranges <= 1) return 0;
	qsort(sample, n, sizeof *sample, cmp_u64);
	size_t want = (size_t)ranges - 1;
	out->bounds = dl_calloc(want, sizeof *out->bounds);
	if (!out->bounds) return DL_ENOMEM;
	for (size_t i = 1; i <= want; i++) {
		size_t at = (size_t)((double)i * (double)n / (double)ranges);
		if (at >= n) at = n - 1;
		uint64_t v = sample[at];
		/* distinct and ascending, as RangePartitioner.determineBounds */
		if (out->n == 0 || v > out->bounds[out->n - 1]) out->bounds[out->n++] = v;
	}
	return 0;
}

uint32_t dl_curve_range_id(const dl_curve_ranges *r, uint64_t key, int null)
{
	if (null) return 0;
	size_t lo = 0, hi = r->n;
	while (lo < hi) {
		size_t mid = (lo + hi) / 2;
		if (r->bounds[mid] < key) lo = mid + 1;
		else hi = mid;
	}
	return (uint32_t)lo;
}

void dl_curve_ranges_free(dl_curve_ranges *r)
{
	dl_free(r->bounds);
	r->bounds = NULL;
	r->n = 0;
}
