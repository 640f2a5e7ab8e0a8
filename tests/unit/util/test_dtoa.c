/* Shortest round-trip digits (util/dtoa.h): edge values spelled out, and
 * millions of random bit patterns checked against the C library: the digits
 * read back (strtod/strtof) as the same bits, one digit fewer never does, and
 * they are the correctly rounded ones (what %.*e prints at that length). */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <float.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "util/dtoa.h"

#define RANDOM_DOUBLES 2000000
#define RANDOM_FLOATS 1000000

static uint64_t rng_state = 0x9E3779B97F4A7C15u;

static uint64_t next_random(void)
{
	/* xorshift64*: fixed seed, so a failure reproduces. */
	rng_state ^= rng_state >> 12;
	rng_state ^= rng_state << 25;
	rng_state ^= rng_state >> 27;
	return rng_state * 0x2545F4914F6CDD1Du;
}

/* "d1.d2...dne<exp>" from the digits. */
static void sci_text(char *out, const char *digits, int n, int exp10)
{
	int len = 0;
	out[len++] = digits[0];
	if (n > 1) {
		out[len++] = '.';
		memcpy(out + len, digits + 1, (size_t)n - 1);
		len += n - 1;
	}
	snprintf(out + len, 16, "e%d", exp10);
}

/* %.*e at n digits, as "d1...dn" and exponent. */
static void libc_digits(char *out, int *exp10, double v, int n)
{
	char sci[64];
	snprintf(sci, sizeof sci, "%.*e", n - 1, fabs(v));
	int k = 0;
	const char *s = sci;
	for (; *s != 'e'; s++)
		if (*s != '.') out[k++] = *s;
	out[k] = 0;
	*exp10 = atoi(s + 1);
}

static void check_double(double v)
{
	char digits[DL_DTOA_DIGITS_MAX + 1], text[64];
	int exp10;
	int n = dl_dtoa_shortest(digits, &exp10, v);
	assert_true(n >= 1 && n <= 17);
	digits[n] = 0;
	if (v == 0) {
		assert_string_equal(digits, "0");
		return;
	}
	assert_true(digits[0] != '0' && digits[n - 1] != '0');
	sci_text(text, digits, n, exp10);
	double back = strtod(text, NULL);
	if (back != fabs(v)) fail_msg("%.17g: %s reads back as %.17g", v, text, back);
	uint64_t bits;
	memcpy(&bits, &v, sizeof bits);
	/* At a power of two the interval is lopsided: the nearest shorter
	 * number can miss it while a farther one fits, so %.*e is no
	 * reference there (round-trip is still checked above). */
	if ((bits & ((1ull << 52) - 1)) == 0) return;
	char want[32];
	int want_exp;
	libc_digits(want, &want_exp, v, n);
	while (strlen(want) > 1 && want[strlen(want) - 1] == '0') want[strlen(want) - 1] = 0;
	if (strcmp(want, digits) != 0 || want_exp != exp10)
		fail_msg("%.17g: got %se%d, nearest %d digits %se%d", v, digits, exp10, n, want, want_exp);
	if (n > 1) {
		char shorter[64];
		snprintf(shorter, sizeof shorter, "%.*e", n - 2, fabs(v));
		if (strtod(shorter, NULL) == fabs(v)) fail_msg("%.17g: %s is shorter than %s", v, shorter, text);
	}
}

static void check_float(float v)
{
	char digits[DL_DTOA_DIGITS_MAX + 1], text[64];
	int exp10;
	int n = dl_ftoa_shortest(digits, &exp10, v);
	assert_true(n >= 1 && n <= 9);
	digits[n] = 0;
	if (v == 0) {
		assert_string_equal(digits, "0");
		return;
	}
	sci_text(text, digits, n, exp10);
	float back = strtof(text, NULL);
	if (back != fabsf(v)) fail_msg("%.9g: %s reads back as %.9g", (double)v, text, (double)back);
	if (n > 1) {
		/* The nearest (n-1)-digit decimal, rounded as a float. */
		char shorter[64];
		snprintf(shorter, sizeof shorter, "%.*e", n - 2, fabs((double)v));
		uint32_t bits;
		memcpy(&bits, &v, sizeof bits);
		if ((bits & ((1u << 23) - 1)) != 0 && strtof(shorter, NULL) == fabsf(v))
			fail_msg("%.9g: %s is shorter than %s", (double)v, shorter, text);
	}
}

static void expect(double v, const char *digits, int exp10)
{
	char d[DL_DTOA_DIGITS_MAX + 1];
	int e;
	int n = dl_dtoa_shortest(d, &e, v);
	d[n] = 0;
	assert_string_equal(d, digits);
	assert_int_equal(e, exp10);
}

static void expect_float(float v, const char *digits, int exp10)
{
	char d[DL_DTOA_DIGITS_MAX + 1];
	int e;
	int n = dl_ftoa_shortest(d, &e, v);
	d[n] = 0;
	assert_string_equal(d, digits);
	assert_int_equal(e, exp10);
}

static void edge_values(void **state)
{
	(void)state;
	expect(0.0, "0", 0);
	expect(-0.0, "0", 0);
	expect(1.0, "1", 0);
	expect(-2.5, "25", 0);
	expect(0.1, "1", -1);
	expect(0.30000000000000004, "30000000000000004", -1);
	expect(1e23, "1", 23);
	expect(5e-324, "5", -324);                   /* smallest subnormal */
	expect(1e-323, "1", -323);
	expect(DBL_MAX, "17976931348623157", 308);
	expect(DBL_MIN, "22250738585072014", -308);  /* smallest normal */
	expect(2.225073858507201e-308, "2225073858507201", -308); /* largest subnormal */
	expect(9007199254740992.0, "9007199254740992", 15); /* 2^53 */
	expect(18014398509481988.0, "18014398509481988", 16);
	expect(123456.789, "123456789", 5);
	expect(1e15, "1", 15);
	expect(5e22, "5", 22);
	expect(2.0 / 3.0, "6666666666666666", -1);
	expect(4.35e-321, "435", -321);
	expect_float(0.0f, "0", 0);
	expect_float(0.1f, "1", -1);
	expect_float(3.4028235e38f, "34028235", 38);
	expect_float(1.4e-45f, "1", -45);             /* smallest subnormal float */
	expect_float(1.17549435e-38f, "11754944", -38);
	expect_float(16777216.0f, "16777216", 7);
	expect_float(1.0f / 3.0f, "33333334", -1);
	const double specials[] = {DBL_EPSILON, 1.0 - DBL_EPSILON / 2, 1.0 + DBL_EPSILON, 0x1p-1022, 0x1p-1074,
	                           0x1.fffffffffffffp-1023, 0x1p1023, 1e22, 1e21, 9.5e-5, 1.5, 0.5};
	for (size_t i = 0; i < sizeof specials / sizeof *specials; i++) check_double(specials[i]);
}

static void every_power_of_two_and_ten(void **state)
{
	(void)state;
	for (int e = -1074; e <= 1023; e++) {
		check_double(ldexp(1.0, e));
		check_double(nextafter(ldexp(1.0, e), 0));
		check_double(nextafter(ldexp(1.0, e), INFINITY));
	}
	for (int e = -323; e <= 308; e++) {
		char t[16];
		snprintf(t, sizeof t, "1e%d", e);
		double p = strtod(t, NULL);
		check_double(p);
		check_double(nextafter(p, 0));
		check_double(nextafter(p, INFINITY));
	}
	for (int e = -149; e <= 127; e++) check_float(ldexpf(1.0f, e));
}

static void random_doubles(void **state)
{
	(void)state;
	for (int i = 0; i < RANDOM_DOUBLES; i++) {
		uint64_t bits = next_random();
		double v;
		memcpy(&v, &bits, sizeof v);
		if (!isfinite(v)) continue;
		check_double(v);
	}
	/* Short decimals, as data usually holds: they must come back short. */
	for (int i = 0; i < 300000; i++) {
		uint64_t r = next_random();
		int scale = (int)(r >> 60);
		double v = (double)(int64_t)(r % 100000000) / pow(10, scale);
		check_double(v);
	}
	/* Subnormals. */
	for (int i = 0; i < 300000; i++) {
		uint64_t bits = next_random() & ((1ull << 52) - 1);
		double v;
		memcpy(&v, &bits, sizeof v);
		check_double(v);
	}
}

static void random_floats(void **state)
{
	(void)state;
	for (int i = 0; i < RANDOM_FLOATS; i++) {
		uint32_t bits = (uint32_t)(next_random() >> 32);
		float v;
		memcpy(&v, &bits, sizeof v);
		if (!isfinite(v)) continue;
		check_float(v);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(edge_values),
		cmocka_unit_test(every_power_of_two_and_ten),
		cmocka_unit_test(random_doubles),
		cmocka_unit_test(random_floats),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
