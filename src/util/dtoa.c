/* Shortest round-trip digits (see dtoa.h): Ryu, written from the paper.
 *
 * A binary value m2 x 2^e2 has a rounding interval (the reals that read back
 * as it). Scaling its bounds by a power of ten with a 125-bit approximation
 * of 10^-q (exact enough, as the paper proves for up to 55-bit mantissas)
 * gives integers vm < vr < vp; dropping decimal digits while vm and vp still
 * differ leaves the shortest digits inside the interval, rounded from vr.
 * Trailing-zero flags track whether the dropped parts were exactly zero, so
 * that interval bounds and ties are decided exactly. Floats use the same
 * core: their mantissas are shorter, so the same precision covers them. */
#include "util/dtoa.h"
#include <pthread.h>
#include <stdbool.h>
#include <string.h>

__extension__ typedef unsigned __int128 u128;

#define POW5_BITS 125
#define TABLE_SIZE 342 /* covers every double exponent, as the paper's tables */

/* pow5[i] ~ 5^i scaled to 125 bits; inv5[i] ~ 2^(bitlen(5^i) - 1 + 125) / 5^i,
 * rounded up. [0] is the low 64 bits. Computed once with exact big
 * integers instead of shipping a table. */
static uint64_t pow5[TABLE_SIZE][2];
static uint64_t inv5[TABLE_SIZE][2];
static pthread_once_t tables_once = PTHREAD_ONCE_INIT;

/* Big unsigned integers for the tables: little-endian 32-bit words. */
#define BIG_WORDS 37
#define BIG_TOP_BIT 1150 /* 2^1150 / 5^i still has > 125 + bits needed */

static int big_bitlen(const uint32_t *w)
{
	for (int i = BIG_WORDS - 1; i >= 0; i--)
		if (w[i]) return i * 32 + 32 - __builtin_clz(w[i]);
	return 0;
}

static int big_bit(const uint32_t *w, int b)
{
	if (b < 0 || b >= BIG_WORDS * 32) return 0;
	return (int)(w[b / 32] >> (b % 32)) & 1;
}

/* Bits [shift, shift + 128) of w as two words; a negative shift shifts left. */
static void big_window(uint64_t out[2], const uint32_t *w, int shift)
{
	out[0] = out[1] = 0;
	for (int b = 0; b < 128; b++)
		if (big_bit(w, shift + b)) out[b / 64] |= (uint64_t)1 << (b % 64);
}

static void big_mul_small(uint32_t *w, uint32_t m)
{
	uint64_t carry = 0;
	for (int i = 0; i < BIG_WORDS; i++) {
		uint64_t t = (uint64_t)w[i] * m + carry;
		w[i] = (uint32_t)t;
		carry = t >> 32;
	}
}

static void big_div_small(uint32_t *w, uint32_t d)
{
	uint64_t rem = 0;
	for (int i = BIG_WORDS - 1; i >= 0; i--) {
		uint64_t t = rem << 32 | w[i];
		w[i] = (uint32_t)(t / d);
		rem = t % d;
	}
}

static void build_tables(void)
{
	uint32_t p[BIG_WORDS] = {1};  /* 5^i */
	uint32_t q[BIG_WORDS] = {0};  /* floor(2^BIG_TOP_BIT / 5^i) */
	q[BIG_TOP_BIT / 32] = (uint32_t)1 << (BIG_TOP_BIT % 32);
	for (int i = 0; i < TABLE_SIZE; i++) {
		int len = big_bitlen(p);
		big_window(pow5[i], p, len - POW5_BITS);
		/* floor(floor(x / a) / b) == floor(x / (a b)): shifting the
		 * quotient of the big power of two gives the wanted quotient. */
		big_window(inv5[i], q, BIG_TOP_BIT - (len - 1 + POW5_BITS));
		if (++inv5[i][0] == 0) inv5[i][1]++;
		big_mul_small(p, 5);
		big_div_small(q, 5);
	}
}

/* floor(log10(2^e)) for 0 <= e <= 1650. */
static uint32_t log10_pow2(int e) { return ((uint32_t)e * 78913) >> 18; }
/* floor(log10(5^e)) for 0 <= e <= 2620. */
static uint32_t log10_pow5(int e) { return ((uint32_t)e * 732923) >> 20; }
/* Bit length of 5^e (1 for e == 0), 0 <= e <= 3528. */
static int pow5_bits(int e) { return (int)(((uint32_t)e * 1217359) >> 19) + 1; }

static bool multiple_of_pow5(uint64_t v, uint32_t p)
{
	uint32_t count = 0;
	while (v % 5 == 0) {
		v /= 5;
		if (++count >= p) return true;
	}
	return count >= p;
}

static bool multiple_of_pow2(uint64_t v, uint32_t p)
{
	return (v & (((uint64_t)1 << p) - 1)) == 0;
}

/* (m x mul) >> j for a 128-bit mul; j >= 64 for every exponent. */
static uint64_t mul_shift(uint64_t m, const uint64_t mul[2], int j)
{
	u128 lo = (u128)m * mul[0];
	u128 hi = (u128)m * mul[1];
	return (uint64_t)(((lo >> 64) + hi) >> (j - 64));
}

typedef struct scaled {
	uint64_t vr, vp, vm;
	int e10;
	bool vm_zeros, vr_zeros; /* the parts dropped by scaling were zero */
} scaled;

/* Scales the interval of m2 x 2^e2 (mv = 4 m2 and its bounds) by 10^-e10. */
static scaled scale(uint64_t m2, int e2, bool mm_shift, bool accept)
{
	scaled s = {0};
	uint64_t mv = 4 * m2, mp = mv + 2, mm = mv - 1 - (mm_shift ? 1 : 0);
	if (e2 >= 0) {
		/* One digit more than needed (q - 1), so the last removed digit
		 * comes from the loop instead of another multiplication. */
		uint32_t q = log10_pow2(e2) - (e2 > 3);
		s.e10 = (int)q;
		int j = -e2 + (int)q + POW5_BITS + pow5_bits((int)q) - 1;
		s.vr = mul_shift(mv, inv5[q], j);
		s.vp = mul_shift(mp, inv5[q], j);
		s.vm = mul_shift(mm, inv5[q], j);
		if (q <= 21) {
			/* At most one of mp, mv, mm is a multiple of 5. */
			if (mv % 5 == 0) s.vr_zeros = multiple_of_pow5(mv, q);
			else if (accept) s.vm_zeros = multiple_of_pow5(mm, q);
			else s.vp -= multiple_of_pow5(mp, q);
		}
	} else {
		uint32_t q = log10_pow5(-e2) - (-e2 > 1);
		s.e10 = (int)q + e2;
		int i = -e2 - (int)q;
		int j = (int)q - (pow5_bits(i) - POW5_BITS);
		s.vr = mul_shift(mv, pow5[i], j);
		s.vp = mul_shift(mp, pow5[i], j);
		s.vm = mul_shift(mm, pow5[i], j);
		if (q <= 1) {
			/* mv = 4 m2 has at least two trailing zero bits. */
			s.vr_zeros = true;
			if (accept) s.vm_zeros = mm_shift;
			else s.vp--;
		} else if (q < 63) {
			s.vr_zeros = multiple_of_pow2(mv, q);
		}
	}
	return s;
}

/* Drops digits while the interval still holds a shorter number; returns
 * the digits, *removed says how many were dropped. */
static uint64_t shorten(scaled *s, bool accept, int *removed)
{
	uint64_t vr = s->vr, vp = s->vp, vm = s->vm;
	int n = 0;
	if (!s->vm_zeros && !s->vr_zeros) {
		/* The common case: no exact ties to worry about. */
		bool round_up = false;
		if (vp / 100 > vm / 100) {
			round_up = vr % 100 >= 50;
			vr /= 100, vp /= 100, vm /= 100, n += 2;
		}
		while (vp / 10 > vm / 10) {
			round_up = vr % 10 >= 5;
			vr /= 10, vp /= 10, vm /= 10, n++;
		}
		*removed = n;
		return vr + (vr == vm || round_up);
	}
	bool vm_zeros = s->vm_zeros, vr_zeros = s->vr_zeros;
	unsigned last = 0;
	while (vp / 10 > vm / 10) {
		vm_zeros &= vm % 10 == 0;
		vr_zeros &= last == 0;
		last = (unsigned)(vr % 10);
		vr /= 10, vp /= 10, vm /= 10, n++;
	}
	if (vm_zeros) {
		/* The lower bound itself is shorter and inside the interval. */
		while (vm % 10 == 0) {
			vr_zeros &= last == 0;
			last = (unsigned)(vr % 10);
			vr /= 10, vp /= 10, vm /= 10, n++;
		}
	}
	if (vr_zeros && last == 5 && vr % 2 == 0) last = 4; /* exact tie: to even */
	*removed = n;
	return vr + ((vr == vm && (!accept || !vm_zeros)) || last >= 5);
}

static int put_digits(char digits[DL_DTOA_DIGITS_MAX], uint64_t v)
{
	char tmp[20];
	int n = 0;
	do {
		tmp[n++] = (char)('0' + v % 10);
		v /= 10;
	} while (v);
	for (int i = 0; i < n; i++) digits[i] = tmp[n - 1 - i];
	return n;
}

static int shortest(char digits[DL_DTOA_DIGITS_MAX], int *exp10, uint64_t m2, int e2, bool mm_shift)
{
	pthread_once(&tables_once, build_tables);
	bool accept = (m2 & 1) == 0; /* round-to-even reads an even value at its bounds */
	scaled s = scale(m2, e2 - 2, mm_shift, accept);
	int removed = 0;
	uint64_t out = shorten(&s, accept, &removed);
	int n = put_digits(digits, out);
	*exp10 = s.e10 + removed + n - 1;
	return n;
}

int dl_dtoa_shortest(char digits[DL_DTOA_DIGITS_MAX], int *exp10, double v)
{
	uint64_t bits;
	memcpy(&bits, &v, sizeof bits);
	uint64_t mant = bits & (((uint64_t)1 << 52) - 1);
	int exp = (int)(bits >> 52) & 0x7ff;
	if (exp == 0 && mant == 0) {
		digits[0] = '0';
		*exp10 = 0;
		return 1;
	}
	if (exp == 0) return shortest(digits, exp10, mant, 1 - 1023 - 52, true);
	/* The gap below a power of two is half the gap above it. */
	return shortest(digits, exp10, mant | (uint64_t)1 << 52, exp - 1023 - 52, mant != 0 || exp <= 1);
}

int dl_ftoa_shortest(char digits[DL_DTOA_DIGITS_MAX], int *exp10, float v)
{
	uint32_t bits;
	memcpy(&bits, &v, sizeof bits);
	uint32_t mant = bits & ((1u << 23) - 1);
	int exp = (int)(bits >> 23) & 0xff;
	if (exp == 0 && mant == 0) {
		digits[0] = '0';
		*exp10 = 0;
		return 1;
	}
	if (exp == 0) return shortest(digits, exp10, mant, 1 - 127 - 23, true);
	return shortest(digits, exp10, mant | 1u << 23, exp - 127 - 23, mant != 0 || exp <= 1);
}
