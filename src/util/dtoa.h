/* Shortest round-trip decimal digits of doubles and floats.
 *
 * The digits are the fewest that read back (round to nearest, ties to even)
 * as exactly the same value, and of those the closest to it (ties to an even
 * last digit): the Ryu algorithm (Ulf Adams, "Ryu: fast float-to-string
 * conversion", PLDI 2018), so no printf and no strtod. Layout (fixed or
 * exponent form, sign, NaN and infinities) is the caller's business: the
 * CLI and the JSON writer spell numbers differently. */
#ifndef DL_UTIL_DTOA_H
#define DL_UTIL_DTOA_H
#include <stdint.h>

/* Longest digit strings: 17 for a double, 9 for a float. */
#define DL_DTOA_DIGITS_MAX 17

/* Digits of |v| (the sign is ignored; v must be finite) into digits (no
 * NUL, no leading or trailing zeros except "0" for zero); returns their
 * count n. *exp10 is the scientific exponent: |v| reads as
 * d1.d2...dn x 10^exp10. */
int dl_dtoa_shortest(char digits[DL_DTOA_DIGITS_MAX], int *exp10, double v);
/* The same for a float: the fewest digits that read back as the float. */
int dl_ftoa_shortest(char digits[DL_DTOA_DIGITS_MAX], int *exp10, float v);

#endif
