/* Partition value (de)serialization and Hive-style partition paths. */
#include "log/partition_values.h"
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include "util/error.h"
#include "util/time.h"

static int bad_value(const char *s, const dl_type *t)
{
	char name[64];
	dl_type_sql(t, name, sizeof name);
	return dl_error_set(DL_ECORRUPT, "partition value '%s' is not a valid %s", s, name);
}

static int parse_integer(dl_scalar *out, const dl_type *t, const char *s)
{
	static const int64_t lo[] = {INT8_MIN, INT16_MIN, INT32_MIN, INT64_MIN};
	static const int64_t hi[] = {INT8_MAX, INT16_MAX, INT32_MAX, INT64_MAX};
	int k = t->id == DL_TYPE_BYTE ? 0 : t->id == DL_TYPE_SHORT ? 1 : t->id == DL_TYPE_INTEGER ? 2 : 3;
	char *end;
	errno = 0;
	long long v = strtoll(s, &end, 10);
	if (end == s || *end || errno || v < lo[k] || v > hi[k]) return bad_value(s, t);
	out->v.i64 = v;
	return 0;
}

static int parse_float(dl_scalar *out, const dl_type *t, const char *s)
{
	char *end;
	double d;
	if (strcmp(s, "NaN") == 0) d = NAN;
	else if (strcmp(s, "Infinity") == 0) d = INFINITY;
	else if (strcmp(s, "-Infinity") == 0) d = -INFINITY;
	else {
		d = strtod(s, &end);
		if (end == s || *end) return bad_value(s, t);
	}
	out->v.f64 = t->id == DL_TYPE_FLOAT ? (double)(float)d : d;
	return 0;
}

/* "-123.45" at the type's scale into an unscaled 128-bit integer. Extra
 * fraction digits must be zeros (a value of another scale is an error). */
static int parse_decimal(dl_scalar *out, const dl_type *t, const char *s)
{
	const char *p = s;
	bool neg = false;
	if (*p == '-' || *p == '+') neg = *p++ == '-';
	dl_i128 v = 0;
	int digits = 0, frac = -1;
	for (; *p; p++) {
		if (*p == '.' && frac < 0) {
			frac = 0;
			continue;
		}
		if (*p < '0' || *p > '9') return bad_value(s, t);
		if (frac >= 0 && frac >= t->scale) {
			if (*p != '0') return bad_value(s, t);
			continue;
		}
		if (++digits > 38) return bad_value(s, t);
		v = v * 10 + (*p - '0');
		if (frac >= 0) frac++;
	}
	if (digits == 0) return bad_value(s, t);
	for (int f = frac < 0 ? 0 : frac; f < t->scale; f++) {
		if (++digits > 38) return bad_value(s, t);
		v *= 10;
	}
	/* leading zeros do not count against the precision: compare values */
	dl_i128 lim = 1;
	for (int i = 0; i < t->precision; i++) lim *= 10;
	if (v >= lim) return bad_value(s, t);
	out->v.dec = neg ? -v : v;
	out->precision = t->precision;
	out->scale = t->scale;
	return 0;
}

int dl_partition_value_parse(dl_scalar *out, const dl_type *t, const char *s)
{
	memset(out, 0, sizeof *out);
	out->type = t->id;
	if (!s || !*s) {
		out->is_null = true;
		return 0;
	}
	size_t n = strlen(s);
	int32_t days;
	switch (t->id) {
	case DL_TYPE_STRING:
	case DL_TYPE_BINARY:
		out->v.str.ptr = s;
		out->v.str.len = n;
		return 0;
	case DL_TYPE_BYTE:
	case DL_TYPE_SHORT:
	case DL_TYPE_INTEGER:
	case DL_TYPE_LONG: return parse_integer(out, t, s);
	case DL_TYPE_FLOAT:
	case DL_TYPE_DOUBLE: return parse_float(out, t, s);
	case DL_TYPE_DECIMAL: return parse_decimal(out, t, s);
	case DL_TYPE_BOOLEAN:
		if (strcasecmp(s, "true") == 0) out->v.b = true;
		else if (strcasecmp(s, "false") == 0) out->v.b = false;
		else return bad_value(s, t);
		return 0;
	case DL_TYPE_DATE:
		if (dl_date_parse(&days, s, n) < 0) return bad_value(s, t);
		out->v.i64 = days;
		return 0;
	case DL_TYPE_TIMESTAMP:
		if (dl_timestamp_parse(&out->v.i64, s, n, NULL) < 0) return bad_value(s, t);
		return 0;
	case DL_TYPE_TIMESTAMP_NTZ:
		if (dl_timestamp_ntz_parse(&out->v.i64, s, n) < 0) return bad_value(s, t);
		return 0;
	default: {
		char name[64];
		dl_type_sql(t, name, sizeof name);
		return dl_error_set(DL_EUNSUPPORTED, "a partition column cannot have type %s", name);
	}
	}
}

__extension__ typedef unsigned __int128 pv_u128;

static int format_decimal(dl_buf *out, dl_i128 v, int scale)
{
	char digits[64];
	int n = 0;
	bool neg = v < 0;
	pv_u128 u = neg ? (pv_u128)(-(v + 1)) + 1 : (pv_u128)v;
	do {
		digits[n++] = (char)('0' + (int)(u % 10));
		u /= 10;
	} while (u);
	while (n <= scale) digits[n++] = '0';
	if (neg) DL_TRY(dl_buf_putc(out, '-'));
	for (int k = n - 1; k >= 0; k--) {
		DL_TRY(dl_buf_putc(out, digits[k]));
		if (k == scale && k > 0) DL_TRY(dl_buf_putc(out, '.'));
	}
	return 0;
}

/* Java's Double.toString: shortest digits that read back to the same
 * value; "1.0E10" style below 1e-3 and from 1e7 on; "1.0" for integers. */
static int format_double(dl_buf *out, double d, bool is_float)
{
	if (isnan(d)) return dl_buf_puts(out, "NaN");
	if (isinf(d)) return dl_buf_puts(out, d > 0 ? "Infinity" : "-Infinity");
	if (d == 0) return dl_buf_puts(out, signbit(d) ? "-0.0" : "0.0");
	char tmp[64];
	int prec;
	for (prec = 1; prec <= 17; prec++) {
		snprintf(tmp, sizeof tmp, "%.*e", prec - 1, d);
		double back = strtod(tmp, NULL);
		if (is_float ? (float)back == (float)d : back == d) break;
	}
	/* tmp: [-]d.ddde[+-]XX */
	char mant[32];
	int m = 0, exp;
	const char *p = tmp;
	bool neg = *p == '-';
	if (neg) p++;
	for (; *p && *p != 'e'; p++)
		if (*p != '.') mant[m++] = *p;
	exp = atoi(p + 1);
	while (m > 1 && mant[m - 1] == '0') m--;
	mant[m] = 0;
	double a = fabs(d);
	if (neg) DL_TRY(dl_buf_putc(out, '-'));
	if (a >= 1e-3 && a < 1e7) {
		if (exp >= 0) {
			for (int i = 0; i <= exp; i++) DL_TRY(dl_buf_putc(out, i < m ? mant[i] : '0'));
			DL_TRY(dl_buf_putc(out, '.'));
			if (m > exp + 1) DL_TRY(dl_buf_append(out, mant + exp + 1, (size_t)(m - exp - 1)));
			else DL_TRY(dl_buf_putc(out, '0'));
		} else {
			DL_TRY(dl_buf_puts(out, "0."));
			for (int i = 0; i < -exp - 1; i++) DL_TRY(dl_buf_putc(out, '0'));
			DL_TRY(dl_buf_append(out, mant, (size_t)m));
		}
		return 0;
	}
	DL_TRY(dl_buf_putc(out, mant[0]));
	DL_TRY(dl_buf_putc(out, '.'));
	if (m > 1) DL_TRY(dl_buf_append(out, mant + 1, (size_t)(m - 1)));
	else DL_TRY(dl_buf_putc(out, '0'));
	return dl_buf_printf(out, "E%d", exp);
}

int dl_partition_value_format(dl_buf *out, const dl_scalar *v, bool *is_null)
{
	char t[DL_TIME_TEXT_MAX];
	*is_null = v->is_null;
	if (v->is_null) return 0;
	switch (v->type) {
	case DL_TYPE_STRING:
	case DL_TYPE_BINARY:
		if (v->v.str.len == 0) { /* "" reads back as null */
			*is_null = true;
			return 0;
		}
		return dl_buf_append(out, v->v.str.ptr, v->v.str.len);
	case DL_TYPE_BYTE:
	case DL_TYPE_SHORT:
	case DL_TYPE_INTEGER:
	case DL_TYPE_LONG: return dl_buf_printf(out, "%" PRId64, v->v.i64);
	case DL_TYPE_FLOAT: return format_double(out, v->v.f64, true);
	case DL_TYPE_DOUBLE: return format_double(out, v->v.f64, false);
	case DL_TYPE_DECIMAL: return format_decimal(out, v->v.dec, v->scale);
	case DL_TYPE_BOOLEAN: return dl_buf_puts(out, v->v.b ? "true" : "false");
	case DL_TYPE_DATE:
		if (v->v.i64 < INT32_MIN || v->v.i64 > INT32_MAX)
			return dl_error_set(DL_EINVALID, "date out of range");
		dl_date_format(t, (int32_t)v->v.i64);
		return dl_buf_puts(out, t);
	case DL_TYPE_TIMESTAMP:
		dl_timestamp_format_iso(t, v->v.i64, NULL, 6);
		DL_TRY(dl_buf_puts(out, t));
		return dl_buf_putc(out, 'Z');
	case DL_TYPE_TIMESTAMP_NTZ:
		dl_timestamp_format_spark(t, v->v.i64, NULL);
		return dl_buf_puts(out, t);
	default:
		return dl_error_set(DL_EUNSUPPORTED, "a %s value cannot be a partition value",
		                    dl_type_id_name(v->type));
	}
}

/* Spark's ExternalCatalogUtils.charToEscape (non-Windows). */
static bool needs_escape(unsigned char c)
{
	if (c >= 0x01 && c <= 0x1F) return true;
	return c == 0x7F || (c && strchr("\"#%'*/:=?\\{[]^", c) != NULL);
}

int dl_partition_path_escape(dl_buf *out, const char *s)
{
	static const char hex[] = "0123456789ABCDEF";
	if (!s || !*s) return dl_buf_puts(out, DL_HIVE_DEFAULT_PARTITION);
	for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
		if (needs_escape(*p)) {
			char e[3] = {'%', hex[*p >> 4], hex[*p & 15]};
			DL_TRY(dl_buf_append(out, e, 3));
		} else {
			DL_TRY(dl_buf_putc(out, (char)*p));
		}
	}
	return 0;
}

static int hexv(char c)
{
	if (c >= '0' && c <= '9') return c - '0';
	if (c >= 'a' && c <= 'f') return c - 'a' + 10;
	if (c >= 'A' && c <= 'F') return c - 'A' + 10;
	return -1;
}

int dl_partition_path_unescape(dl_buf *out, const char *s, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		int hi, lo;
		if (s[i] == '%' && i + 2 < n && (hi = hexv(s[i + 1])) >= 0 &&
		    (lo = hexv(s[i + 2])) >= 0) {
			DL_TRY(dl_buf_putc(out, (char)(hi << 4 | lo)));
			i += 2;
		} else {
			DL_TRY(dl_buf_putc(out, s[i]));
		}
	}
	if (!out->data) DL_TRY(dl_buf_reserve(out, 0));
	return 0;
}

int dl_partition_dir(dl_buf *out, const char *const *names, const char *const *values, int n)
{
	for (int i = 0; i < n; i++) {
		DL_TRY(dl_partition_path_escape(out, names[i]));
		DL_TRY(dl_buf_putc(out, '='));
		DL_TRY(dl_partition_path_escape(out, values[i]));
		DL_TRY(dl_buf_putc(out, '/'));
	}
	if (!out->data) DL_TRY(dl_buf_reserve(out, 0));
	return 0;
}
