#include "json/number_format.h"
#include "json/c_locale.h"
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

size_t dl_json_format_int64(char *out, int64_t v)
{
	char tmp[20];
	size_t n = 0;
	/* Work with the magnitude as unsigned so INT64_MIN is fine. */
	uint64_t u = v < 0 ? (uint64_t)0 - (uint64_t)v : (uint64_t)v;
	do {
		tmp[n++] = (char)('0' + u % 10);
		u /= 10;
	} while (u);
	size_t len = 0;
	if (v < 0) out[len++] = '-';
	while (n) out[len++] = tmp[--n];
	return len;
}

int dl_json_format_double(char *out, double v)
{
	if (!isfinite(v)) return -1;
	/* Integral values below 1e15 print as the integer under %.15g too;
	 * formatting them directly skips snprintf and strtod. */
	if (v == trunc(v) && fabs(v) < 1e15) {
		size_t n;
		if (v == 0) {
			n = signbit(v) ? 2 : 1;
			memcpy(out, "-0", 2);
			if (n == 1) out[0] = '0';
		} else {
			n = dl_json_format_int64(out, (int64_t)v);
		}
		out[n] = 0;
		return (int)n;
	}
	locale_t c = dl_json_c_locale();
	/* Without a C locale object, fall back to the current locale; the
	 * fix-up below still turns a decimal comma into a point. */
	locale_t old = c ? uselocale(c) : (locale_t)0;
	int n = 0;
	for (int prec = 15; prec <= 17; prec++) {
		n = snprintf(out, 32, "%.*g", prec, v);
		if (prec == 17) break;
		/* %.15g has at most 15 digits: usually Clinger's path checks it
		 * without strtod. */
		double back;
		if (!dl_json_fast_double(out, out + n, &back)) back = strtod(out, NULL);
		if (back == v) break;
	}
	if (c) uselocale(old);
	for (int i = 0; i < n; i++)
		if (out[i] == ',') out[i] = '.';
	return n;
}
