/* approx_count_distinct (agg_ext.h): HyperLogLog++ as Spark's
 * HyperLogLogPlusPlusHelper computes it, so the same values give the same
 * registers:
 *
 * - precision p = ceil(2 * log2(1.106 / rsd)) (rsd 0.05: p = 9, 512
 *   registers per group, one byte each here);
 * - each non-null value is hashed with XXH64, seed 42, the way Spark's
 *   XxHash64Function hashes its type: booleans, bytes, shorts, ints and
 *   dates as a 4-byte int, longs and timestamps as an 8-byte long, floats
 *   and doubles by their bits after -0.0 -> 0.0 and NaN -> the canonical
 *   NaN, decimals of precision <= 18 as their unscaled long and wider ones
 *   as the unscaled value's minimal big-endian two's complement bytes,
 *   strings and binaries as their bytes, arrays, structs and maps by
 *   chaining their elements' hashes (each the seed of the next; NULLs leave
 *   it unchanged);
 * - register idx = the top p bits, value = leading zeros of (x << p | 1 <<
 *   (p - 1)) plus one, kept as the maximum;
 * - the estimate: linear counting m * ln(m / V) while there are empty
 *   registers V and it is below Spark's threshold for p (or the raw estimate
 *   is at most 2.5 m), else the raw estimate alpha * m^2 / sum(2^-M),
 *   rounded half up.
 *
 * One difference: Spark subtracts an empirical bias (the HLL++ paper's
 * interpolation tables) from raw estimates below 5 m, i.e. for p = 9 from
 * about 400 to 2560 distinct values; those tables are not reproduced
 * here, so in that range the estimate is the uncorrected one (still within
 * the requested error, but not Spark's number). Small sets, where linear
 * counting applies, and large ones match Spark. */
#include <math.h>
#include <string.h>
#include "exec/agg_ext.h"
#include "expr/eval.h"

#define P1 0x9E3779B185EBCA87ULL
#define P2 0xC2B2AE3D27D4EB4FULL
#define P3 0x165667B19E3779F9ULL
#define P4 0x85EBCA77C2B2AE63ULL
#define P5 0x27D4EB2F165667C5ULL

static uint64_t rotl(uint64_t x, int r)
{
	return x << r | x >> (64 - r);
}
static uint64_t rd64(const uint8_t *p)
{
	uint64_t v = 0;
	for (int i = 7; i >= 0; i--) v = v << 8 | p[i];
	return v;
}
static uint32_t rd32(const uint8_t *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}
static uint64_t round64(uint64_t acc, uint64_t lane)
{
	return rotl(acc + lane * P2, 31) * P1;
}
static uint64_t avalanche(uint64_t h)
{
	h ^= h >> 33;
	h *= P2;
	h ^= h >> 29;
	h *= P3;
	h ^= h >> 32;
	return h;
}

/* XXH64 of n bytes (the algorithm's specification; little-endian lanes). */
uint64_t agg_xxh64(const void *data, size_t n, uint64_t seed)
{
	const uint8_t *p = data, *end = p + n;
	uint64_t h;
	if (n >= 32) {
		uint64_t v1 = seed + P1 + P2, v2 = seed + P2, v3 = seed, v4 = seed - P1;
		for (; p + 32 <= end; p += 32) {
			v1 = round64(v1, rd64(p));
			v2 = round64(v2, rd64(p + 8));
			v3 = round64(v3, rd64(p + 16));
			v4 = round64(v4, rd64(p + 24));
		}
		h = rotl(v1, 1) + rotl(v2, 7) + rotl(v3, 12) + rotl(v4, 18);
		uint64_t v[4] = {v1, v2, v3, v4};
		for (int i = 0; i < 4; i++) h = (h ^ round64(0, v[i])) * P1 + P4;
	} else {
		h = seed + P5;
	}
	h += (uint64_t)n;
	for (; p + 8 <= end; p += 8) h = rotl(h ^ round64(0, rd64(p)), 27) * P1 + P4;
	if (p + 4 <= end) {
		h = rotl(h ^ (uint64_t)rd32(p) * P1, 23) * P2 + P3;
		p += 4;
	}
	for (; p < end; p++) h = rotl(h ^ (uint64_t)*p * P5, 11) * P1;
	return avalanche(h);
}

static uint64_t hash_int(int32_t v, uint64_t seed)
{
	uint8_t b[4];
	uint32_t u = (uint32_t)v;
	for (int i = 0; i < 4; i++) b[i] = (uint8_t)(u >> (8 * i));
	return agg_xxh64(b, 4, seed);
}
static uint64_t hash_long(int64_t v, uint64_t seed)
{
	uint8_t b[8];
	uint64_t u = (uint64_t)v;
	for (int i = 0; i < 8; i++) b[i] = (uint8_t)(u >> (8 * i));
	return agg_xxh64(b, 8, seed);
}

/* Java's BigInteger.toByteArray: the fewest big-endian two's complement
 * bytes that keep the sign. */
static uint64_t hash_big_decimal(dl_i128 v, uint64_t seed)
{
	uint8_t b[16];
	ex_u128 u = (ex_u128)v;
	for (int i = 0; i < 16; i++) b[15 - i] = (uint8_t)(u >> (8 * i));
	int k = 0;
	while (k < 15 && ((b[k] == 0x00 && !(b[k + 1] & 0x80)) || (b[k] == 0xff && (b[k + 1] & 0x80)))) k++;
	return agg_xxh64(b + k, (size_t)(16 - k), seed);
}

/* Spark's XxHash64Function.hash(value, type, seed) of row i of a. */
uint64_t agg_spark_hash(const dl_array *a, int64_t i, uint64_t seed)
{
	if (!dl_array_is_valid(a, i)) return seed;
	const dl_type *t = a->type;
	switch (t->id) {
	case DL_TYPE_BOOLEAN: return hash_int(dl_bit_get(a->values, i) ? 1 : 0, seed);
	case DL_TYPE_BYTE: return hash_int(((const int8_t *)a->values)[i], seed);
	case DL_TYPE_SHORT: return hash_int(((const int16_t *)a->values)[i], seed);
	case DL_TYPE_INTEGER:
	case DL_TYPE_DATE: return hash_int(((const int32_t *)a->values)[i], seed);
	case DL_TYPE_LONG:
	case DL_TYPE_TIMESTAMP:
	case DL_TYPE_TIMESTAMP_NTZ: return hash_long(((const int64_t *)a->values)[i], seed);
	case DL_TYPE_FLOAT: {
		float f = ((const float *)a->values)[i];
		int32_t bits;
		if (f == 0.0f) f = 0.0f; /* -0.0 */
		if (isnan(f)) bits = 0x7fc00000;
		else memcpy(&bits, &f, 4);
		return hash_int(bits, seed);
	}
	case DL_TYPE_DOUBLE: {
		double d = ((const double *)a->values)[i];
		int64_t bits;
		if (d == 0.0) d = 0.0;
		if (isnan(d)) bits = 0x7ff8000000000000LL;
		else memcpy(&bits, &d, 8);
		return hash_long(bits, seed);
	}
	case DL_TYPE_DECIMAL: {
		ex_val v;
		ex_val_load(&v, a, i);
		if (t->precision <= 18) return hash_long((int64_t)v.v.dec, seed);
		return hash_big_decimal(v.v.dec, seed);
	}
	case DL_TYPE_STRING:
	case DL_TYPE_BINARY:
		return agg_xxh64(a->data + a->offsets[i], (size_t)(a->offsets[i + 1] - a->offsets[i]), seed);
	case DL_TYPE_ARRAY: {
		uint64_t h = seed;
		for (int64_t j = a->offsets[i]; j < a->offsets[i + 1]; j++) h = agg_spark_hash(a->children[0], j, h);
		return h;
	}
	case DL_TYPE_MAP: {
		uint64_t h = seed;
		const dl_array *e = a->children[0];
		for (int64_t j = a->offsets[i]; j < a->offsets[i + 1]; j++) {
			h = agg_spark_hash(e->children[0], j, h);
			h = agg_spark_hash(e->children[1], j, h);
		}
		return h;
	}
	case DL_TYPE_STRUCT:
	case DL_TYPE_VARIANT: {
		uint64_t h = seed;
		for (int c = 0; c < a->nchildren; c++) h = agg_spark_hash(a->children[c], i, h);
		return h;
	}
	default: return seed;
	}
}

int agg_hll_precision(double rsd, int *p)
{
	*p = (int)ceil(2.0 * log(1.106 / rsd) / log(2.0));
	if (!(rsd > 0) || *p < 4)
		return dl_error_set_class(DL_EINVALID, "DATATYPE_MISMATCH.VALUE_OUT_OF_RANGE",
		                          "approx_count_distinct: HLL++ requires at least 4 bits for addressing; use a lower "
		                          "error, at most 39%% (got rsd %g)",
		                          rsd);
	if (*p > 24)
		return dl_error_set_class(DL_EINVALID, "DATATYPE_MISMATCH.VALUE_OUT_OF_RANGE",
		                          "approx_count_distinct: rsd %g needs 2^%d registers per group; use at least 0.0003",
		                          rsd, *p);
	return 0;
}

int agg_hll_update(dl_agg_ext *x, const uint32_t *ids, const dl_array *arg, int64_t n)
{
	int p = x->p;
	uint64_t pad = (uint64_t)1 << (p - 1);
	for (int64_t i = 0; i < n; i++) {
		if (!dl_array_is_valid(arg, i)) continue;
		uint64_t h = agg_spark_hash(arg, i, 42);
		uint64_t idx = h >> (64 - p);
		uint8_t pw = (uint8_t)(__builtin_clzll(h << p | pad) + 1);
		uint8_t *r = &x->reg[((uint64_t)ids[i] << p) + idx];
		if (pw > *r) *r = pw;
	}
	return 0;
}

static const double thresholds[] = {10,    20,    40,    80,    220,    400,    900,   1800,
                                    3100,  6500,  15500, 20000, 50000, 120000, 350000};

int64_t agg_hll_estimate(const dl_agg_ext *x, int64_t group)
{
	int p = x->p;
	double m = (double)((int64_t)1 << p), zinv = 0, v = 0;
	const uint8_t *r = &x->reg[(uint64_t)group << p];
	for (int64_t j = 0; j < ((int64_t)1 << p); j++) {
		zinv += 1.0 / (double)((uint64_t)1 << r[j]);
		if (r[j] == 0) v += 1;
	}
	double alpha = p == 4 ? 0.673 : p == 5 ? 0.697 : p == 6 ? 0.709 : 0.7213 / (1.0 + 1.079 / m);
	double e = alpha * m * m / zinv, est = e;
	if (v > 0) {
		double h = m * log(m / v);
		if ((p < 19 && h <= thresholds[p - 4 < 15 ? p - 4 : 14]) || e <= 2.5 * m) est = h;
	}
	return (int64_t)floor(est + 0.5);
}
