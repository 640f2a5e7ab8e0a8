#include "json/number_format.h"
#include "util/dtoa.h"
#include <math.h>
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

/* "d.ddde+XX" as %g spells it: exponent sign and at least two digits. */
static size_t put_exponent_form(char *out, const char *digits, int nd, int exp)
{
	size_t len = 0;
	out[len++] = digits[0];
	if (nd > 1) {
		out[len++] = '.';
		memcpy(out + len, digits + 1, (size_t)nd - 1);
		len += (size_t)nd - 1;
	}
	out[len++] = 'e';
	out[len++] = exp < 0 ? '-' : '+';
	int mag = exp < 0 ? -exp : exp;
	if (mag >= 100) out[len++] = (char)('0' + mag / 100);
	out[len++] = (char)('0' + mag / 10 % 10);
	out[len++] = (char)('0' + mag % 10);
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
	/* The shortest digits (util/dtoa.h) are what the first of %.15g,
	 * %.16g, %.17g that reads back prints: %.15g rounds to the only
	 * 15-digit number in the interval. Laid out as %.{P}g with P the
	 * larger of 15 and the digit count; no printf, no strtod, no locale. */
	char digits[DL_DTOA_DIGITS_MAX];
	int exp;
	int nd = dl_dtoa_shortest(digits, &exp, v);
	int prec = nd > 15 ? nd : 15;
	size_t len = 0;
	if (signbit(v)) out[len++] = '-';
	if (exp < -4 || exp >= prec) {
		len += put_exponent_form(out + len, digits, nd, exp);
	} else if (exp < 0) {
		out[len++] = '0';
		out[len++] = '.';
		for (int i = 0; i < -exp - 1; i++) out[len++] = '0';
		memcpy(out + len, digits, (size_t)nd);
		len += (size_t)nd;
	} else {
		for (int i = 0; i <= exp; i++) out[len++] = i < nd ? digits[i] : '0';
		if (nd > exp + 1) {
			out[len++] = '.';
			memcpy(out + len, digits + exp + 1, (size_t)(nd - exp - 1));
			len += (size_t)(nd - exp - 1);
		}
	}
	out[len] = 0;
	return (int)len;
}
