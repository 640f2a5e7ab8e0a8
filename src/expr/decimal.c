/* 128-bit decimal helpers: powers of ten, rescaling with HALF_UP rounding
 * (Spark's rounding for casts and arithmetic), text and double forms. */
#include "expr/eval.h"
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* 10^0 .. 10^38 (the rescaling of every decimal value uses them). */
static const dl_i128 pow10_table[39] = {
	(dl_i128)1LL,
	(dl_i128)10LL,
	(dl_i128)100LL,
	(dl_i128)1000LL,
	(dl_i128)10000LL,
	(dl_i128)100000LL,
	(dl_i128)1000000LL,
	(dl_i128)10000000LL,
	(dl_i128)100000000LL,
	(dl_i128)1000000000LL,
	(dl_i128)10000000000LL,
	(dl_i128)100000000000LL,
	(dl_i128)1000000000000LL,
	(dl_i128)10000000000000LL,
	(dl_i128)100000000000000LL,
	(dl_i128)1000000000000000LL,
	(dl_i128)10000000000000000LL,
	(dl_i128)100000000000000000LL,
	(dl_i128)1000000000000000000LL,
	(dl_i128)1000000000000000000LL * 10LL,
	(dl_i128)1000000000000000000LL * 100LL,
	(dl_i128)1000000000000000000LL * 1000LL,
	(dl_i128)1000000000000000000LL * 10000LL,
	(dl_i128)1000000000000000000LL * 100000LL,
	(dl_i128)1000000000000000000LL * 1000000LL,
	(dl_i128)1000000000000000000LL * 10000000LL,
	(dl_i128)1000000000000000000LL * 100000000LL,
	(dl_i128)1000000000000000000LL * 1000000000LL,
	(dl_i128)1000000000000000000LL * 10000000000LL,
	(dl_i128)1000000000000000000LL * 100000000000LL,
	(dl_i128)1000000000000000000LL * 1000000000000LL,
	(dl_i128)1000000000000000000LL * 10000000000000LL,
	(dl_i128)1000000000000000000LL * 100000000000000LL,
	(dl_i128)1000000000000000000LL * 1000000000000000LL,
	(dl_i128)1000000000000000000LL * 10000000000000000LL,
	(dl_i128)1000000000000000000LL * 100000000000000000LL,
	(dl_i128)1000000000000000000LL * 1000000000000000000LL,
	(dl_i128)1000000000000000000LL * 1000000000000000000LL * 10LL,
	(dl_i128)1000000000000000000LL * 1000000000000000000LL * 100LL,
};

dl_i128 ex_pow10(int k)
{
	/* callers keep 0 <= k <= 38 */
	return pow10_table[k < 0 ? 0 : k > 38 ? 38 : k];
}

bool ex_dec_fits(dl_i128 v, int precision)
{
	if (precision > 38) return true; /* only i128 overflow limits it */
	dl_i128 lim = ex_pow10(precision);
	return v < lim && v > -lim;
}

bool ex_dec_rescale(dl_i128 v, int from, int to, int prec, dl_i128 *out)
{
	if (to >= from) {
		int k = to - from;
		if (k > 38) return v == 0 ? (*out = 0, true) : false;
		dl_i128 m = ex_pow10(k), r;
		if (__builtin_mul_overflow(v, m, &r)) return false;
		v = r;
	} else {
		int k = from - to;
		if (k > 38) {
			*out = 0;
			return true;
		}
		dl_i128 m = ex_pow10(k);
		dl_i128 q = v / m, rem = v % m;
		if (rem < 0) rem = -rem;
		if (rem * 2 >= m) q += v < 0 ? -1 : 1;
		v = q;
	}
	if (!ex_dec_fits(v, prec)) return false;
	*out = v;
	return true;
}

int ex_dec_to_text(char *out, dl_i128 v, int scale)
{
	char tmp[48];
	int k = 0;
	bool neg = v < 0;
	ex_u128 u = neg ? (ex_u128)0 - (ex_u128)v : (ex_u128)v;
	do {
		tmp[k++] = (char)('0' + (int)(u % 10));
		u /= 10;
	} while (u || k <= scale);
	int o = 0;
	if (neg) out[o++] = '-';
	for (int i = k - 1; i >= 0; i--) {
		out[o++] = tmp[i];
		if (i == scale && scale > 0) out[o++] = '.';
	}
	out[o] = 0;
	return o;
}

double ex_dec_to_double(dl_i128 v, int scale)
{
	/* Through text so the double is correctly rounded, as Java does. */
	char buf[64];
	ex_dec_to_text(buf, v, scale);
	return strtod(buf, NULL);
}

/* ---- 256-bit intermediates ----------------------------------------------
 * Spark computes decimal products and quotients with BigDecimal and rounds
 * to the result type; two 38-digit operands need up to 77 digits before
 * rounding, so those cases go through 256-bit magnitudes. */

typedef struct u256 {
	uint64_t w[4]; /* little-endian 64-bit limbs */
} u256;

static u256 mul128(ex_u128 a, ex_u128 b)
{
	uint64_t a0 = (uint64_t)a, a1 = (uint64_t)(a >> 64), b0 = (uint64_t)b, b1 = (uint64_t)(b >> 64);
	ex_u128 p00 = (ex_u128)a0 * b0, p01 = (ex_u128)a0 * b1, p10 = (ex_u128)a1 * b0, p11 = (ex_u128)a1 * b1;
	u256 r;
	r.w[0] = (uint64_t)p00;
	ex_u128 mid = (p00 >> 64) + (uint64_t)p01 + (uint64_t)p10;
	r.w[1] = (uint64_t)mid;
	ex_u128 hi = (mid >> 64) + (p01 >> 64) + (p10 >> 64) + (uint64_t)p11;
	r.w[2] = (uint64_t)hi;
	r.w[3] = (uint64_t)((hi >> 64) + (p11 >> 64));
	return r;
}

/* n / d (d > 0, d < 2^127) by shift and subtract; the remainder in *rem. */
static u256 divmod(u256 n, ex_u128 d, ex_u128 *rem)
{
	u256 q = {{0, 0, 0, 0}};
	ex_u128 r = 0;
	for (int i = 255; i >= 0; i--) {
		r = (r << 1) | ((n.w[i / 64] >> (i % 64)) & 1);
		if (r >= d) {
			r -= d;
			q.w[i / 64] |= (uint64_t)1 << (i % 64);
		}
	}
	*rem = r;
	return q;
}

static bool fits128(u256 v, ex_u128 *out)
{
	if (v.w[2] || v.w[3] || (v.w[1] >> 63)) return false;
	*out = (ex_u128)v.w[1] << 64 | v.w[0];
	return true;
}

/* Divides by 10^k rounding HALF_UP (k <= 76), as two steps when k > 38:
 * flooring first never changes a HALF_UP decision. */
static u256 div_pow10_half_up(u256 n, int k)
{
	ex_u128 rem;
	if (k > 38) {
		n = divmod(n, (ex_u128)ex_pow10(k - 38), &rem);
		k = 38;
	}
	if (k == 0) return n;
	ex_u128 d = (ex_u128)ex_pow10(k);
	u256 q = divmod(n, d, &rem);
	if (rem * 2 >= d) {
		for (int i = 0; i < 4 && ++q.w[i] == 0; i++) {
		}
	}
	return q;
}

static ex_u128 mag(dl_i128 v)
{
	return v < 0 ? (ex_u128)0 - (ex_u128)v : (ex_u128)v;
}

bool ex_dec_mul_wide(dl_i128 a, dl_i128 b, int drop_digits, int precision, dl_i128 *out)
{
	if (drop_digits < 0 || drop_digits > 76) return false;
	u256 p = div_pow10_half_up(mul128(mag(a), mag(b)), drop_digits);
	ex_u128 m;
	if (!fits128(p, &m)) return false;
	dl_i128 v = (a < 0) != (b < 0) ? -(dl_i128)m : (dl_i128)m;
	if (!ex_dec_fits(v, precision)) return false;
	*out = v;
	return true;
}

bool ex_dec_div_wide(dl_i128 a, int shift, dl_i128 b, dl_i128 *out)
{
	if (b == 0 || shift > 76) return false;
	ex_u128 rem, am = mag(a);
	if (shift < 0) {
		/* floor now: a later floor of the quotient is the same floor */
		am /= (ex_u128)ex_pow10(-shift > 38 ? 38 : -shift);
		shift = 0;
	}
	u256 num = mul128(am, (ex_u128)ex_pow10(shift > 38 ? 38 : shift));
	if (shift > 38) {
		ex_u128 low;
		if (!fits128(num, &low)) return false;
		num = mul128(low, (ex_u128)ex_pow10(shift - 38));
	}
	u256 q = divmod(num, mag(b), &rem);
	ex_u128 m;
	if (!fits128(q, &m)) return false;
	*out = (a < 0) != (b < 0) ? -(dl_i128)m : (dl_i128)m;
	return true;
}
