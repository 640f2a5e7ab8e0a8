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
