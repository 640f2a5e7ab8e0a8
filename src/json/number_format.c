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
	locale_t c = dl_json_c_locale();
	/* Without a C locale object, fall back to the current locale; the
	 * fix-up below still turns a decimal comma into a point. */
	locale_t old = c ? uselocale(c) : (locale_t)0;
	int n = 0;
	for (int prec = 15; prec <= 17; prec++) {
		n = snprintf(out, 32, "%.*g", prec, v);
		if (prec == 17 || strtod(out, NULL) == v) break;
	}
	if (c) uselocale(old);
	for (int i = 0; i < n; i++)
		if (out[i] == ',') out[i] = '.';
	return n;
}
