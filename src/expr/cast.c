/* CAST between all types with Spark 4 ANSI semantics: invalid input and
 * overflow raise CAST_INVALID_INPUT / CAST_OVERFLOW (TRY_CAST gives NULL).
 * Text forms follow Spark: doubles print as Java's Double.toString, dates
 * as yyyy-MM-dd, timestamps in the session time zone, arrays as [a, b],
 * structs as {a, b}, maps as {k -> v}. */
#include "expr/datetime.h"
#include "expr/eval.h"
#include "expr/parse_util.h"
#include "util/error.h"
#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

static const char *sqlname(const dl_type *t, char *buf, size_t cap)
{
	dl_type_sql(t, buf, cap);
	return buf;
}

int ex_err_cast(const ex_val *v, const dl_type *from, const dl_type *to)
{
	char f[128], t[128];
	if (from->id == DL_TYPE_STRING)
		return dl_error_set_class(DL_EINVALID, "CAST_INVALID_INPUT",
		                          "[CAST_INVALID_INPUT] The value '%.*s' of the type \"STRING\" cannot be cast to \"%s\" "
		                          "because it is malformed. Correct the value as per the syntax, or change its target "
		                          "type. Use `try_cast` to tolerate malformed input and return NULL instead.",
		                          (int)(v->v.s.n > 100 ? 100 : v->v.s.n), v->v.s.p, sqlname(to, t, sizeof t));
	/* the value as Spark's toSQLValue writes it (Literal.sql: 1Y, 2S, 3,
	 * 4L, 1.0E30D, 1.5BD; a float as Float.toString) */
	char val[160] = "";
	switch (from->id) {
	case DL_TYPE_BYTE: snprintf(val, sizeof val, "%" PRId64 "Y ", v->v.i); break;
	case DL_TYPE_SHORT: snprintf(val, sizeof val, "%" PRId64 "S ", v->v.i); break;
	case DL_TYPE_INTEGER: snprintf(val, sizeof val, "%" PRId64 " ", v->v.i); break;
	case DL_TYPE_LONG: snprintf(val, sizeof val, "%" PRId64 "L ", v->v.i); break;
	case DL_TYPE_FLOAT:
	case DL_TYPE_DOUBLE: {
		int n = ex_format_double(val, v->v.d, from->id == DL_TYPE_FLOAT);
		snprintf(val + n, sizeof val - (size_t)n, "%s ",
		         from->id == DL_TYPE_DOUBLE && isfinite(v->v.d) ? "D" : "");
		break;
	}
	case DL_TYPE_DECIMAL: {
		int n = ex_dec_to_text(val, v->v.dec, from->scale);
		snprintf(val + n, sizeof val - (size_t)n, "BD ");
		break;
	}
	default: break;
	}
	return dl_error_set_class(DL_EINVALID, "CAST_OVERFLOW",
	                          "[CAST_OVERFLOW] The value %sof the type \"%s\" cannot be cast to \"%s\" due to an "
	                          "overflow. Use `try_cast` to tolerate overflow and return NULL instead.",
	                          val, sqlname(from, f, sizeof f), sqlname(to, t, sizeof t));
}

/* Spark's containsIntegralOrDecimalType: the only targets whose store
 * assignment Spark wraps in an overflow check. */
static bool int_or_dec(const dl_type *t)
{
	if (t->id == DL_TYPE_BYTE || t->id == DL_TYPE_SHORT || t->id == DL_TYPE_INTEGER || t->id == DL_TYPE_LONG ||
	    t->id == DL_TYPE_DECIMAL)
		return true;
	for (int i = 0; i < t->nchildren; i++)
		if (int_or_dec(t->children[i].type)) return true;
	return false;
}

/* `name` as Spark's toSQLId: backquoted, backquotes doubled. */
static void sql_id(char *out, size_t cap, const char *name)
{
	size_t o = 0;
	if (cap < 3) return;
	out[o++] = '`';
	for (const char *p = name ? name : ""; *p && o + 3 < cap; p++) {
		if (*p == '`') out[o++] = '`';
		out[o++] = *p;
	}
	out[o++] = '`';
	out[o] = 0;
}

int ex_store_overflow(int rc, const dl_type *from, const dl_type *to, const char *col, bool insert)
{
	if (rc >= 0 || !int_or_dec(to)) return rc;
	const char *k = dl_error_last()->klass;
	if (!k || (strcmp(k, "CAST_OVERFLOW") != 0 && strcmp(k, "NUMERIC_VALUE_OUT_OF_RANGE") != 0)) return rc;
	char f[512], t[512], c[512];
	sql_id(c, sizeof c, col);
	sqlname(from, f, sizeof f);
	sqlname(to, t, sizeof t);
	if (insert)
		return dl_error_set_class(DL_EINVALID, "CAST_OVERFLOW_IN_TABLE_INSERT",
		                          "[CAST_OVERFLOW_IN_TABLE_INSERT] Fail to assign a value of \"%s\" type to the "
		                          "\"%s\" type column or variable %s due to an overflow. Use `try_cast` on the "
		                          "input value to tolerate overflow and return NULL instead.",
		                          f, t, c);
	return dl_error_set_class(
	    DL_EINVALID, "DELTA_CAST_OVERFLOW_IN_TABLE_WRITE",
	    "[DELTA_CAST_OVERFLOW_IN_TABLE_WRITE] Failed to write a value of \"%s\" type into the \"%s\" type "
	    "column %s due to an overflow.\nUse `try_cast` on the input value to tolerate overflow and return NULL "
	    "instead.\nIf necessary, set spark.sql.storeAssignmentPolicy to \"LEGACY\" to bypass this error or set "
	    "spark.databricks.delta.updateAndMergeCastingFollowsAnsiEnabledFlag to true to revert to the old "
	    "behaviour and follow spark.sql.ansi.enabled in UPDATE and MERGE.",
	    f, t, c);
}

static bool is_num(dl_type_id t)
{
	return t == DL_TYPE_BYTE || t == DL_TYPE_SHORT || t == DL_TYPE_INTEGER || t == DL_TYPE_LONG || t == DL_TYPE_FLOAT ||
	       t == DL_TYPE_DOUBLE || t == DL_TYPE_DECIMAL;
}

static bool is_time(dl_type_id t)
{
	return t == DL_TYPE_DATE || t == DL_TYPE_TIMESTAMP || t == DL_TYPE_TIMESTAMP_NTZ;
}

static bool is_nested(dl_type_id t)
{
	return t == DL_TYPE_ARRAY || t == DL_TYPE_STRUCT || t == DL_TYPE_MAP || t == DL_TYPE_VARIANT;
}

static bool castable(const dl_type *from, const dl_type *to);

static bool castable(const dl_type *from, const dl_type *to)
{
	dl_type_id f = from->id, t = to->id;
	if (dl_type_equals(from, to) || f == DL_TYPE_NULL) return true;
	if (t == DL_TYPE_STRING) return f != DL_TYPE_VARIANT;
	/* nested: same shape, element by element (structs by position) */
	if (is_nested(f) || is_nested(t)) {
		if (f != t || f == DL_TYPE_VARIANT || from->nchildren != to->nchildren) return false;
		for (int i = 0; i < from->nchildren; i++)
			if (!castable(from->children[i].type, to->children[i].type)) return false;
		return true;
	}
	if (f == DL_TYPE_STRING) return true;
	if (is_num(f) && is_num(t)) return true;
	if ((is_num(f) && t == DL_TYPE_BOOLEAN) || (f == DL_TYPE_BOOLEAN && is_num(t))) return true;
	if (is_time(f) && is_time(t)) return true;
	if (is_num(f) && t == DL_TYPE_TIMESTAMP) return true;
	if (f == DL_TYPE_TIMESTAMP && is_num(t)) return true;
	return false;
}

bool ex_castable(const dl_type *from, const dl_type *to)
{
	return castable(from, to);
}

int ex_cast_check(const dl_type *from, const dl_type *to)
{
	if (castable(from, to)) return 0;
	char a[128], b[128];
	return dl_error_set(DL_EINVALID, "[DATATYPE_MISMATCH.CAST_WITHOUT_SUGGESTION] cannot cast %s to %s",
	                    sqlname(from, a, sizeof a), sqlname(to, b, sizeof b));
}

/* ---- number text ------------------------------------------------------- */

/* Java's Double.toString / Float.toString: shortest digits that read back;
 * plain notation for 1e-3 <= |d| < 1e7, otherwise d.dddE<exp>. */
int ex_format_double(char *out, double d, bool is_float)
{
	if (isnan(d)) return sprintf(out, "NaN");
	if (isinf(d)) return sprintf(out, d > 0 ? "Infinity" : "-Infinity");
	if (d == 0) return sprintf(out, signbit(d) ? "-0.0" : "0.0");
	char e[40];
	int prec;
	for (prec = 0; prec < 17; prec++) {
		snprintf(e, sizeof e, "%.*e", prec, d);
		if (is_float ? strtof(e, NULL) == (float)d : strtod(e, NULL) == d) break;
	}
	/* e = [-]D.DDDDe[+-]XX */
	char digits[24];
	int nd = 0;
	const char *p = e;
	bool neg = *p == '-';
	if (neg) p++;
	for (; *p && *p != 'e'; p++)
		if (isdigit((unsigned char)*p)) digits[nd++] = *p;
	int exp10 = atoi(p + 1);
	while (nd > 1 && digits[nd - 1] == '0') nd--;
	int o = 0;
	if (neg) out[o++] = '-';
	double ad = fabs(d);
	if (ad >= 1e-3 && ad < 1e7) {
		int point = exp10 + 1; /* digits before the point */
		if (point <= 0) {
			out[o++] = '0';
			out[o++] = '.';
			for (int i = 0; i < -point; i++) out[o++] = '0';
			for (int i = 0; i < nd; i++) out[o++] = digits[i];
		} else {
			for (int i = 0; i < point; i++) out[o++] = i < nd ? digits[i] : '0';
			out[o++] = '.';
			if (nd > point)
				for (int i = point; i < nd; i++) out[o++] = digits[i];
			else
				out[o++] = '0';
		}
		out[o] = 0;
		return o;
	}
	out[o++] = digits[0];
	out[o++] = '.';
	if (nd > 1)
		for (int i = 1; i < nd; i++) out[o++] = digits[i];
	else
		out[o++] = '0';
	return o + sprintf(out + o, "E%d", exp10);
}

static void trim(const char **s, int64_t *n)
{
	while (*n && isspace((unsigned char)**s)) {
		(*s)++;
		(*n)--;
	}
	while (*n && isspace((unsigned char)(*s)[*n - 1])) (*n)--;
}

/* Integer text: [+-]digits. ANSI casts do not accept a decimal point
 * (Spark's UTF8String.toLongExact, allowDecimal = false). */
static bool parse_long(const char *s, int64_t n, int64_t *out)
{
	trim(&s, &n);
	if (n == 0) return false;
	int64_t i = 0;
	bool neg = false;
	if (s[0] == '+' || s[0] == '-') {
		neg = s[0] == '-';
		i++;
	}
	if (i == n) return false;
	uint64_t v = 0;
	bool any = false;
	for (; i < n && isdigit((unsigned char)s[i]); i++) {
		any = true;
		if (v > (UINT64_MAX - 9) / 10) return false;
		v = v * 10 + (uint64_t)(s[i] - '0');
		if (v > (uint64_t)INT64_MAX + 1) return false;
	}
	if (i != n || !any) return false;
	if (!neg && v > (uint64_t)INT64_MAX) return false;
	*out = neg ? (int64_t)(0 - v) : (int64_t)v;
	return true;
}

static bool parse_double(const char *s, int64_t n, double *out)
{
	trim(&s, &n);
	char buf[128];
	if (n == 0 || n >= (int64_t)sizeof buf) return false;
	memcpy(buf, s, (size_t)n);
	buf[n] = 0;
	const char *b = buf;
	bool neg = false;
	if (*b == '+' || *b == '-') neg = *b++ == '-';
	if (strcasecmp(b, "nan") == 0) {
		*out = NAN;
		return true;
	}
	if (strcasecmp(b, "infinity") == 0 || strcasecmp(b, "inf") == 0) {
		*out = neg ? -INFINITY : INFINITY;
		return true;
	}
	if (!isdigit((unsigned char)*b) && *b != '.') return false; /* no hex, no words */
	if (n > 1 && (buf[n - 1] == 'd' || buf[n - 1] == 'D' || buf[n - 1] == 'f' || buf[n - 1] == 'F')) buf[n - 1] = 0;
	char *end;
	errno = 0;
	double d = strtod(buf, &end);
	if (*end) return false;
	*out = d;
	return true;
}

static bool int_fits(dl_type_id t, int64_t v)
{
	switch (t) {
	case DL_TYPE_BYTE: return v >= INT8_MIN && v <= INT8_MAX;
	case DL_TYPE_SHORT: return v >= INT16_MIN && v <= INT16_MAX;
	case DL_TYPE_INTEGER: return v >= INT32_MIN && v <= INT32_MAX;
	default: return true;
	}
}

/* ---- to string --------------------------------------------------------- */

static int to_text(dl_buf *buf, const ex_val *in, const dl_type *from, const dl_tz *tz);

static int nested_text(dl_buf *buf, const ex_val *in, const dl_type *t, const dl_tz *tz)
{
	const dl_array *a = in->v.ref.a;
	int64_t row = in->v.ref.row;
	if (t->id == DL_TYPE_STRUCT) {
		DL_TRY(dl_buf_putc(buf, '{'));
		for (int i = 0; i < t->nchildren; i++) {
			if (i) DL_TRY(dl_buf_puts(buf, ", "));
			ex_val c;
			ex_val_load(&c, a->children[i], row);
			if (c.null) DL_TRY(dl_buf_puts(buf, "null"));
			else DL_TRY(to_text(buf, &c, t->children[i].type, tz));
		}
		return dl_buf_putc(buf, '}');
	}
	bool map = t->id == DL_TYPE_MAP;
	DL_TRY(dl_buf_putc(buf, map ? '{' : '['));
	const dl_array *el = a->children[0];
	for (int32_t k = a->offsets[row]; k < a->offsets[row + 1]; k++) {
		if (k > a->offsets[row]) DL_TRY(dl_buf_puts(buf, ", "));
		ex_val c;
		if (map) {
			ex_val_load(&c, el->children[0], k);
			DL_TRY(to_text(buf, &c, t->children[0].type, tz));
			DL_TRY(dl_buf_puts(buf, " -> "));
			ex_val_load(&c, el->children[1], k);
			if (c.null) DL_TRY(dl_buf_puts(buf, "null"));
			else DL_TRY(to_text(buf, &c, t->children[1].type, tz));
		} else {
			ex_val_load(&c, el, k);
			if (c.null) DL_TRY(dl_buf_puts(buf, "null"));
			else DL_TRY(to_text(buf, &c, t->children[0].type, tz));
		}
	}
	return dl_buf_putc(buf, map ? '}' : ']');
}

static int to_text(dl_buf *buf, const ex_val *in, const dl_type *from, const dl_tz *tz)
{
	char tmp[64];
	switch (from->id) {
	case DL_TYPE_BOOLEAN: return dl_buf_puts(buf, in->v.b ? "true" : "false");
	case DL_TYPE_BYTE:
	case DL_TYPE_SHORT:
	case DL_TYPE_INTEGER:
	case DL_TYPE_LONG: {
		/* by hand: printf costs more than the rest of the cast */
		char d[24];
		int k = 24;
		uint64_t u = in->v.i < 0 ? 0 - (uint64_t)in->v.i : (uint64_t)in->v.i;
		do {
			d[--k] = (char)('0' + u % 10);
			u /= 10;
		} while (u);
		if (in->v.i < 0) d[--k] = '-';
		return dl_buf_append(buf, d + k, (size_t)(24 - k));
	}
	case DL_TYPE_FLOAT:
	case DL_TYPE_DOUBLE:
		ex_format_double(tmp, in->v.d, from->id == DL_TYPE_FLOAT);
		return dl_buf_puts(buf, tmp);
	case DL_TYPE_DECIMAL:
		ex_dec_to_text(tmp, in->v.dec, from->scale);
		return dl_buf_puts(buf, tmp);
	case DL_TYPE_STRING:
	case DL_TYPE_BINARY: return dl_buf_append(buf, in->v.s.p, (size_t)in->v.s.n);
	case DL_TYPE_DATE:
		ex_date_format(tmp, (int32_t)in->v.i);
		return dl_buf_puts(buf, tmp);
	case DL_TYPE_TIMESTAMP:
		ex_ts_format(tmp, in->v.i, tz);
		return dl_buf_puts(buf, tmp);
	case DL_TYPE_TIMESTAMP_NTZ:
		ex_ts_format(tmp, in->v.i, NULL);
		return dl_buf_puts(buf, tmp);
	case DL_TYPE_STRUCT:
	case DL_TYPE_ARRAY:
	case DL_TYPE_MAP: return nested_text(buf, in, from, tz);
	default: return dl_error_set(DL_EUNSUPPORTED, "cannot cast %s to STRING", dl_type_id_name(from->id));
	}
}

/* ---- the cast ---------------------------------------------------------- */

static int fail(ex_val *out, const ex_val *in, const dl_type *from, const dl_type *to, bool try_cast)
{
	if (try_cast) {
		out->null = true;
		return 0;
	}
	if (to->id == DL_TYPE_DECIMAL && from->id != DL_TYPE_STRING && from->id != DL_TYPE_BINARY) {
		/* Spark reports a value that does not fit a decimal type this way */
		char f[128], t[128];
		return dl_error_set_class(DL_EINVALID, "NUMERIC_VALUE_OUT_OF_RANGE",
		                          "[NUMERIC_VALUE_OUT_OF_RANGE.WITH_SUGGESTION] a %s value cannot be represented as %s. "
		                          "Use `try_cast` to return NULL instead.",
		                          sqlname(from, f, sizeof f), sqlname(to, t, sizeof t));
	}
	return ex_err_cast(in, from, to);
}

static int from_double(ex_val *out, double d, const ex_val *in, const dl_type *from, const dl_type *to, bool tc)
{
	switch (to->id) {
	case DL_TYPE_FLOAT:
	case DL_TYPE_DOUBLE: out->v.d = to->id == DL_TYPE_FLOAT ? (double)(float)d : d; return 0;
	case DL_TYPE_BOOLEAN: out->v.b = d != 0; return 0;
	case DL_TYPE_DECIMAL: {
		if (!isfinite(d)) return fail(out, in, from, to, tc);
		char buf[400];
		snprintf(buf, sizeof buf, "%.17g", d);
		char j[64];
		ex_format_double(j, d, from->id == DL_TYPE_FLOAT);
		if (ex_decimal_from_text(j, strlen(j), to->precision, to->scale, &out->v.dec, true) < 0) {
			dl_error_clear();
			return fail(out, in, from, to, tc);
		}
		return 0;
	}
	case DL_TYPE_TIMESTAMP:
		if (!isfinite(d) || fabs(d) > 9.2e12) return fail(out, in, from, to, tc);
		out->v.i = (int64_t)(d * 1e6);
		return 0;
	default: {
		double t = trunc(d);
		if (!isfinite(d) || t < -9223372036854775808.0 || t >= 9223372036854775808.0 || !int_fits(to->id, (int64_t)t))
			return fail(out, in, from, to, tc);
		out->v.i = (int64_t)t;
		return 0;
	}
	}
}

static int from_long(ex_val *out, int64_t v, const ex_val *in, const dl_type *from, const dl_type *to, bool tc)
{
	switch (to->id) {
	case DL_TYPE_FLOAT: out->v.d = (double)(float)v; return 0;
	case DL_TYPE_DOUBLE: out->v.d = (double)v; return 0;
	case DL_TYPE_BOOLEAN: out->v.b = v != 0; return 0;
	case DL_TYPE_DECIMAL: {
		dl_i128 x;
		if (!ex_dec_rescale(v, 0, to->scale, to->precision, &x)) return fail(out, in, from, to, tc);
		out->v.dec = x;
		return 0;
	}
	case DL_TYPE_TIMESTAMP: {
		int64_t us;
		if (__builtin_mul_overflow(v, (int64_t)1000000, &us)) return fail(out, in, from, to, tc);
		out->v.i = us;
		return 0;
	}
	default:
		if (!int_fits(to->id, v)) return fail(out, in, from, to, tc);
		out->v.i = v;
		return 0;
	}
}

static int from_decimal(ex_val *out, const ex_val *in, const dl_type *from, const dl_type *to, bool tc)
{
	dl_i128 v = in->v.dec;
	switch (to->id) {
	case DL_TYPE_DECIMAL:
		if (!ex_dec_rescale(v, from->scale, to->scale, to->precision, &out->v.dec)) return fail(out, in, from, to, tc);
		return 0;
	case DL_TYPE_FLOAT:
	case DL_TYPE_DOUBLE:
	case DL_TYPE_TIMESTAMP: return from_double(out, ex_dec_to_double(v, from->scale), in, from, to, tc);
	case DL_TYPE_BOOLEAN: out->v.b = v != 0; return 0;
	default: {
		dl_i128 t = v / ex_pow10(from->scale); /* truncate toward zero */
		if (t > INT64_MAX || t < INT64_MIN || !int_fits(to->id, (int64_t)t)) return fail(out, in, from, to, tc);
		out->v.i = (int64_t)t;
		return 0;
	}
	}
}

static int from_string(ex_val *out, const ex_val *in, const dl_type *from, const dl_type *to, bool tc,
                       const dl_tz *tz)
{
	const char *s = in->v.s.p;
	int64_t n = in->v.s.n;
	switch (to->id) {
	case DL_TYPE_BOOLEAN: {
		const char *p = s;
		int64_t m = n;
		trim(&p, &m);
		static const char *const t[] = {"t", "true", "y", "yes", "1"}, *const f[] = {"f", "false", "n", "no", "0"};
		for (int i = 0; i < 5; i++) {
			if ((int64_t)strlen(t[i]) == m && strncasecmp(p, t[i], (size_t)m) == 0) return out->v.b = true, 0;
			if ((int64_t)strlen(f[i]) == m && strncasecmp(p, f[i], (size_t)m) == 0) return out->v.b = false, 0;
		}
		return fail(out, in, from, to, tc);
	}
	case DL_TYPE_BYTE:
	case DL_TYPE_SHORT:
	case DL_TYPE_INTEGER:
	case DL_TYPE_LONG: {
		int64_t v;
		if (!parse_long(s, n, &v) || !int_fits(to->id, v)) return fail(out, in, from, to, tc);
		out->v.i = v;
		return 0;
	}
	case DL_TYPE_FLOAT:
	case DL_TYPE_DOUBLE: {
		double d;
		if (!parse_double(s, n, &d)) return fail(out, in, from, to, tc);
		out->v.d = to->id == DL_TYPE_FLOAT ? (double)(float)d : d;
		return 0;
	}
	case DL_TYPE_DECIMAL:
		if (ex_decimal_from_text(s, (size_t)n, to->precision, to->scale, &out->v.dec, true) < 0) {
			dl_error_clear();
			dl_i128 wide;
			if (!tc && ex_decimal_from_text(s, (size_t)n, 38, to->scale, &wide, true) == 0) {
				/* well-formed but too many digits for the type */
				char t[64];
				return dl_error_set_class(DL_EINVALID, "NUMERIC_VALUE_OUT_OF_RANGE",
				                          "[NUMERIC_VALUE_OUT_OF_RANGE.WITH_SUGGESTION] '%.*s' cannot be represented as "
				                          "%s. Use `try_cast` to return NULL instead.",
				                          (int)(n > 60 ? 60 : n), s, sqlname(to, t, sizeof t));
			}
			dl_error_clear();
			return fail(out, in, from, to, tc);
		}
		return 0;
	case DL_TYPE_DATE: {
		int32_t d;
		if (!ex_date_parse(s, (size_t)n, &d)) return fail(out, in, from, to, tc);
		out->v.i = d;
		return 0;
	}
	case DL_TYPE_TIMESTAMP:
	case DL_TYPE_TIMESTAMP_NTZ:
		if (!ex_ts_parse(s, (size_t)n, to->id == DL_TYPE_TIMESTAMP_NTZ, tz, &out->v.i)) return fail(out, in, from, to, tc);
		return 0;
	case DL_TYPE_BINARY: out->v.s = in->v.s; return 0;
	default: return dl_error_set(DL_EUNSUPPORTED, "cannot cast STRING to %s", dl_type_id_name(to->id));
	}
}

static int from_time(ex_val *out, const ex_val *in, const dl_type *from, const dl_type *to, const dl_tz *tz)
{
	int64_t v = in->v.i;
	switch (from->id * 32 + to->id) {
	case DL_TYPE_DATE * 32 + DL_TYPE_TIMESTAMP: out->v.i = ex_local_to_ts(ex_days_to_us(v), tz); return 0;
	case DL_TYPE_DATE * 32 + DL_TYPE_TIMESTAMP_NTZ: out->v.i = ex_days_to_us(v); return 0;
	case DL_TYPE_TIMESTAMP * 32 + DL_TYPE_DATE: out->v.i = dl_floor_div(ex_ts_to_local(v, tz), EX_US_PER_DAY); return 0;
	case DL_TYPE_TIMESTAMP_NTZ * 32 + DL_TYPE_DATE: out->v.i = dl_floor_div(v, EX_US_PER_DAY); return 0;
	case DL_TYPE_TIMESTAMP * 32 + DL_TYPE_TIMESTAMP_NTZ: out->v.i = ex_ts_to_local(v, tz); return 0;
	case DL_TYPE_TIMESTAMP_NTZ * 32 + DL_TYPE_TIMESTAMP: out->v.i = ex_local_to_ts(v, tz); return 0;
	}
	return dl_error_set(DL_EUNSUPPORTED, "cannot cast %s to %s", dl_type_id_name(from->id), dl_type_id_name(to->id));
}

int ex_cast_val(ex_val *out, const ex_val *in, const dl_type *from, const dl_type *to, bool tc, const dl_tz *tz,
                dl_buf *buf)
{
	out->null = in->null;
	if (in->null) return 0;
	if (dl_type_equals(from, to)) {
		*out = *in;
		return 0;
	}
	if (to->id == DL_TYPE_STRING) {
		size_t start = buf->len;
		DL_TRY(to_text(buf, in, from, tz));
		out->v.s.p = buf->data + start;
		out->v.s.n = (int64_t)(buf->len - start);
		return 0;
	}
	switch (from->id) {
	case DL_TYPE_STRING:
	case DL_TYPE_BINARY: return from_string(out, in, from, to, tc, tz);
	case DL_TYPE_BOOLEAN: return from_long(out, in->v.b, in, from, to, tc);
	case DL_TYPE_BYTE:
	case DL_TYPE_SHORT:
	case DL_TYPE_INTEGER:
	case DL_TYPE_LONG: return from_long(out, in->v.i, in, from, to, tc);
	case DL_TYPE_FLOAT:
	case DL_TYPE_DOUBLE: return from_double(out, in->v.d, in, from, to, tc);
	case DL_TYPE_DECIMAL: return from_decimal(out, in, from, to, tc);
	case DL_TYPE_TIMESTAMP:
		if (is_num(to->id)) {
			if (to->id == DL_TYPE_DOUBLE || to->id == DL_TYPE_FLOAT || to->id == DL_TYPE_DECIMAL) {
				ex_val d = {.v.d = (double)in->v.i / 1e6};
				return from_double(out, d.v.d, in, from, to, tc);
			}
			return from_long(out, dl_floor_div(in->v.i, 1000000), in, from, to, tc);
		}
		return from_time(out, in, from, to, tz);
	case DL_TYPE_DATE:
	case DL_TYPE_TIMESTAMP_NTZ: return from_time(out, in, from, to, tz);
	default:
		return dl_error_set(DL_EUNSUPPORTED, "casting %s to %s is not supported", dl_type_id_name(from->id),
		                    dl_type_id_name(to->id));
	}
}

/* Casts one value into a builder of type `to`, recursing into arrays, maps
 * and structs (Spark casts struct fields by position). */
int ex_cast_into(dl_builder *b, const ex_val *in, const dl_type *from, const dl_type *to, bool tc, const dl_tz *tz,
                 dl_buf *buf)
{
	if (in->null) return dl_builder_append_null(b);
	if (dl_type_equals(from, to)) return ex_builder_put(b, in);
	const dl_array *a = in->v.ref.a;
	int64_t row = in->v.ref.row;
	ex_val c;
	switch (to->id) {
	case DL_TYPE_ARRAY:
		DL_TRY(dl_builder_begin_list(b));
		for (int32_t k = a->offsets[row]; k < a->offsets[row + 1]; k++) {
			ex_val_load(&c, a->children[0], k);
			DL_TRY(ex_cast_into(dl_builder_child(b, 0), &c, from->children[0].type, to->children[0].type, tc, tz, buf));
		}
		return dl_builder_end_list(b);
	case DL_TYPE_MAP:
		DL_TRY(dl_builder_begin_list(b));
		for (int32_t k = a->offsets[row]; k < a->offsets[row + 1]; k++) {
			ex_val_load(&c, a->children[0]->children[0], k);
			DL_TRY(ex_cast_into(dl_builder_child(b, 0), &c, from->children[0].type, to->children[0].type, tc, tz, buf));
			ex_val_load(&c, a->children[0]->children[1], k);
			DL_TRY(ex_cast_into(dl_builder_child(b, 1), &c, from->children[1].type, to->children[1].type, tc, tz, buf));
		}
		return dl_builder_end_list(b);
	case DL_TYPE_STRUCT:
		DL_TRY(dl_builder_begin_struct(b));
		for (int i = 0; i < to->nchildren; i++) {
			ex_val_load(&c, a->children[i], row);
			DL_TRY(ex_cast_into(dl_builder_child(b, i), &c, from->children[i].type, to->children[i].type, tc, tz, buf));
		}
		return dl_builder_end_struct(b);
	default: {
		size_t mark = buf->len;
		ex_val o;
		memset(&o, 0, sizeof o);
		int rc = ex_cast_val(&o, in, from, to, tc, tz, buf);
		if (rc == 0) rc = ex_builder_put(b, &o);
		buf->len = mark;
		return rc;
	}
	}
}

/* Store assignment by name (Spark's UpdateExpressionsSupport.castIfNeeded
 * with resolveMergeUpdateStructsByName): as ex_cast_into, but struct
 * fields pair by name (any case) at every level, inside arrays and maps
 * too, and a field the value lacks is NULL. A NULL struct stays NULL. */
static int field_named(const dl_type *t, const char *name)
{
	for (int i = 0; i < t->nchildren; i++)
		if (strcasecmp(t->children[i].name, name) == 0) return i;
	return -1;
}

bool ex_storable(const dl_type *from, const dl_type *to)
{
	if (dl_type_equals(from, to) || from->id == DL_TYPE_NULL) return true;
	if (from->id == DL_TYPE_STRUCT || to->id == DL_TYPE_STRUCT) {
		if (from->id != to->id) return false;
		for (int i = 0; i < from->nchildren; i++) {
			int k = field_named(to, from->children[i].name);
			if (k < 0 || !ex_storable(from->children[i].type, to->children[k].type)) return false;
		}
		return true;
	}
	if (from->id == DL_TYPE_ARRAY || from->id == DL_TYPE_MAP || to->id == DL_TYPE_ARRAY || to->id == DL_TYPE_MAP) {
		if (from->id != to->id) return false;
		for (int i = 0; i < to->nchildren; i++)
			if (!ex_storable(from->children[i].type, to->children[i].type)) return false;
		return true;
	}
	return ex_castable(from, to);
}

static bool has_struct(const dl_type *t)
{
	if (t->id == DL_TYPE_STRUCT) return true;
	for (int i = 0; i < t->nchildren; i++)
		if (has_struct(t->children[i].type)) return true;
	return false;
}

int ex_store_into(dl_builder *b, const ex_val *in, const dl_type *from, const dl_type *to, const dl_tz *tz,
                  dl_buf *buf, const char *col)
{
	if (in->null) return dl_builder_append_null(b);
	if (dl_type_equals(from, to)) return ex_builder_put(b, in);
	/* no struct below: one cast of the whole value, as Spark's castIfNeeded
	 * (an overflow names the types of the whole value) */
	if (!has_struct(from) && !has_struct(to))
		return ex_store_overflow(ex_cast_into(b, in, from, to, false, tz, buf), from, to, col, false);
	const dl_array *a = in->v.ref.a;
	int64_t row = in->v.ref.row;
	ex_val c;
	switch (to->id) {
	case DL_TYPE_ARRAY:
		DL_TRY(dl_builder_begin_list(b));
		for (int32_t k = a->offsets[row]; k < a->offsets[row + 1]; k++) {
			ex_val_load(&c, a->children[0], k);
			DL_TRY(ex_store_into(dl_builder_child(b, 0), &c, from->children[0].type, to->children[0].type, tz, buf,
			                     col));
		}
		return dl_builder_end_list(b);
	case DL_TYPE_MAP:
		DL_TRY(dl_builder_begin_list(b));
		for (int32_t k = a->offsets[row]; k < a->offsets[row + 1]; k++) {
			ex_val_load(&c, a->children[0]->children[0], k);
			DL_TRY(ex_store_into(dl_builder_child(b, 0), &c, from->children[0].type, to->children[0].type, tz, buf,
			                     col));
			ex_val_load(&c, a->children[0]->children[1], k);
			DL_TRY(ex_store_into(dl_builder_child(b, 1), &c, from->children[1].type, to->children[1].type, tz, buf,
			                     col));
		}
		return dl_builder_end_list(b);
	case DL_TYPE_STRUCT:
		DL_TRY(dl_builder_begin_struct(b));
		for (int i = 0; i < to->nchildren; i++) {
			int k = field_named(from, to->children[i].name);
			if (k < 0) {
				DL_TRY(dl_builder_append_null(dl_builder_child(b, i)));
				continue;
			}
			ex_val_load(&c, a->children[k], row);
			/* a field's overflow names the field (castIfNeeded's field.name) */
			DL_TRY(ex_store_into(dl_builder_child(b, i), &c, from->children[k].type, to->children[i].type, tz, buf,
			                     to->children[i].name));
		}
		return dl_builder_end_struct(b);
	default:
		return ex_store_overflow(ex_cast_into(b, in, from, to, false, tz, buf), from, to, col, false);
	}
}
