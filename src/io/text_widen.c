/* The type a text value of CSV or JSON lines input needs, for a table that
 * enables type widening (see input.h). Only the widenings Delta applies by
 * itself during schema evolution (Spark's TypeWidening
 * isTypeChangeSupportedForSchemaEvolution, Delta 4.0): BYTE -> SHORT ->
 * INT -> BIGINT, FLOAT -> DOUBLE, DECIMAL(p, s) -> DECIMAL(p + k, s) (the
 * same scale: Delta 4.0 no longer widens the scale, and extra fraction
 * digits round HALF_UP as without widening) and DATE -> TIMESTAMP_NTZ.
 * Integers never become DOUBLE or DECIMAL here: Delta asks for a manual
 * ALTER for those, so a value that no automatic widening holds is left to
 * the reader, which names its file, line and column. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "expr/parse_util.h"
#include "io/input.h"
#include "util/error.h"
#include "util/time.h"

/* BYTE 1 .. BIGINT 4, else 0 (rewrite/'s int_rank is a layer
 * above this one). */
static int int_rank(dl_type_id id)
{
	switch (id) {
	case DL_TYPE_BYTE: return 1;
	case DL_TYPE_SHORT: return 2;
	case DL_TYPE_INTEGER: return 3;
	case DL_TYPE_LONG: return 4;
	default: return 0;
	}
}

static bool text_copy(char *tmp, size_t cap, const char *s, size_t n)
{
	if (n == 0 || n >= cap) return false;
	memcpy(tmp, s, n);
	tmp[n] = 0;
	return true;
}

/* The narrowest of SHORT, INT, BIGINT holding v (BYTE when it fits one). */
static dl_type_id integral_for(int64_t v)
{
	if (v >= INT8_MIN && v <= INT8_MAX) return DL_TYPE_BYTE;
	if (v >= INT16_MIN && v <= INT16_MAX) return DL_TYPE_SHORT;
	if (v >= INT32_MIN && v <= INT32_MAX) return DL_TYPE_INTEGER;
	return DL_TYPE_LONG;
}

/* Significant digits of a number's mantissa ("0.00120" has 2). */
static int significant_digits(const char *s)
{
	int first = -1, last = -1, i = 0;
	for (const char *p = s; *p && *p != 'e' && *p != 'E'; p++) {
		if (*p < '0' || *p > '9') continue;
		if (*p != '0') {
			if (first < 0) first = i;
			last = i;
		}
		i++;
	}
	return first < 0 ? 0 : last - first + 1;
}

/* Whether a FLOAT keeps the value as written: to the digits the text has,
 * the float and the double of it print the same. A value beyond FLOAT's
 * range (inf or 0 as a float) or with more digits than it holds does not. */
static bool float_holds(const char *tmp, double d)
{
	if (!isfinite(d)) return true;
	int sig = significant_digits(tmp);
	if (sig == 0) return true;
	if (sig > 17) sig = 17;
	char a[40], b[40];
	snprintf(a, sizeof a, "%.*e", sig - 1, (double)(float)d);
	snprintf(b, sizeof b, "%.*e", sig - 1, d);
	return strcmp(a, b) == 0;
}

/* Digits of the unscaled value (at least 1). */
static int decimal_digits(dl_i128 v)
{
	int d = 1;
	/* toward zero: no overflow at the most negative value */
	while (v >= 10 || v <= -10) {
		v /= 10;
		d++;
	}
	return d;
}

int dl_io_widen_for_text(dl_type **t, const char *s, size_t n)
{
	const dl_type *cur = *t;
	char tmp[64];
	dl_type *wider = NULL;
	int rank = int_rank(cur->id);
	if (rank && cur->id != DL_TYPE_LONG) {
		int64_t v;
		char *end;
		if (!text_copy(tmp, sizeof tmp, s, n)) return 0;
		errno = 0;
		v = strtoll(tmp, &end, 10);
		if (errno || *end) return 0; /* not an integer or beyond BIGINT */
		dl_type_id id = integral_for(v);
		if (int_rank(id) <= rank) return 0;
		wider = dl_type_new(id);
	} else if (cur->id == DL_TYPE_FLOAT) {
		char *end;
		if (!text_copy(tmp, sizeof tmp, s, n)) return 0;
		double d = strtod(tmp, &end);
		if (*end || float_holds(tmp, d)) return 0;
		wider = dl_type_new(DL_TYPE_DOUBLE);
	} else if (cur->id == DL_TYPE_DECIMAL) {
		dl_i128 v;
		if (ex_decimal_from_text(s, n, 38, cur->scale, &v, true) < 0) {
			dl_error_clear();
			return 0; /* not a number, or more than 38 digits at this scale */
		}
		int digits = decimal_digits(v);
		if (digits <= cur->precision) return 0;
		wider = dl_type_decimal(digits, cur->scale);
	} else if (cur->id == DL_TYPE_DATE) {
		int64_t us;
		/* the date parser takes "2024-01-03 04:05:06" as Spark does, dropping
		 * the time: a DATE holds the value only when that time is midnight */
		if (dl_timestamp_ntz_parse(&us, s, n) < 0 || us % INT64_C(86400000000) == 0) return 0;
		wider = dl_type_new(DL_TYPE_TIMESTAMP_NTZ);
	} else {
		return 0;
	}
	if (!wider) return DL_ENOMEM;
	dl_type_unref(*t);
	*t = wider;
	return 0;
}

bool dl_io_widenable(const dl_type *t)
{
	return (int_rank(t->id) && t->id != DL_TYPE_LONG) || t->id == DL_TYPE_FLOAT ||
	       t->id == DL_TYPE_DECIMAL || t->id == DL_TYPE_DATE;
}
