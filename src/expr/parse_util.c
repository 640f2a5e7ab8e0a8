#include "expr/parse_util.h"
#include "util/error.h"
#include "util/mem.h"
#include "util/utf8.h"
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

int ex_hex_value(char c)
{
	if (c >= '0' && c <= '9') return c - '0';
	if (c >= 'a' && c <= 'f') return c - 'a' + 10;
	if (c >= 'A' && c <= 'F') return c - 'A' + 10;
	return -1;
}

char *ex_unquote_ident(dl_arena *a, const char *p, size_t len)
{
	char *s = dl_arena_alloc(a, len + 1);
	if (!s) return NULL;
	size_t j = 0;
	for (size_t i = 1; i + 1 < len; i++) {
		s[j++] = p[i];
		if (p[i] == '`' && i + 2 < len && p[i + 1] == '`') i++;
	}
	s[j] = 0;
	return s;
}

int ex_unescape_string(dl_buf *out, const char *s, size_t n)
{
	DL_TRY(dl_buf_reserve(out, n));
	for (size_t i = 0; i < n; i++) {
		char c = s[i];
		if (c != '\\' || i + 1 >= n) {
			DL_TRY(dl_buf_putc(out, c));
			continue;
		}
		char d = s[++i];
		switch (d) {
		case 'n': c = '\n'; break;
		case 't': c = '\t'; break;
		case 'r': c = '\r'; break;
		case 'b': c = '\b'; break;
		case 'Z': c = 26; break;
		case '%':
		case '_':
			DL_TRY(dl_buf_putc(out, '\\'));
			c = d;
			break;
		case 'u':
			if (i + 4 < n && isxdigit((unsigned char)s[i + 1]) && isxdigit((unsigned char)s[i + 2]) &&
			    isxdigit((unsigned char)s[i + 3]) && isxdigit((unsigned char)s[i + 4])) {
				uint32_t cp = 0;
				for (int k = 1; k <= 4; k++) cp = cp << 4 | (uint32_t)ex_hex_value(s[i + k]);
				i += 4;
				DL_TRY(dl_utf8_append(out, cp));
				continue;
			}
			c = d;
			break;
		default:
			if (d >= '0' && d <= '3' && i + 2 < n && s[i + 1] >= '0' && s[i + 1] <= '7' && s[i + 2] >= '0' &&
			    s[i + 2] <= '7') {
				c = (char)((d - '0') * 64 + (s[i + 1] - '0') * 8 + (s[i + 2] - '0'));
				i += 2;
			} else if (d == '0') {
				c = 0;
			} else {
				c = d; /* \' \" \\ and any other char stand for themselves */
			}
		}
		DL_TRY(dl_buf_putc(out, c));
	}
	return 0;
}

/* Parses [+-]digits[.digits][E[+-]exp] into an unscaled integer at the
 * requested scale (rounding half up when digits are dropped). */
int ex_decimal_from_text(const char *s, size_t n, int precision, int scale, dl_i128 *out, bool round_half_up)
{
	size_t i = 0;
	bool neg = false;
	while (i < n && isspace((unsigned char)s[i])) i++;
	while (n > i && isspace((unsigned char)s[n - 1])) n--;
	if (i < n && (s[i] == '+' || s[i] == '-')) neg = s[i++] == '-';
	char digits[80];
	int nd = 0, point = -1;
	bool any = false;
	for (; i < n; i++) {
		char c = s[i];
		if (c == '.' && point < 0) {
			point = nd;
			continue;
		}
		if (!isdigit((unsigned char)c)) break;
		any = true;
		if (nd == 0 && c == '0' && point < 0) continue; /* leading zeros */
		if (nd >= 78) return dl_error_set(DL_EINVALID, "too many digits");
		digits[nd++] = c;
	}
	if (!any) return dl_error_set(DL_EINVALID, "not a number");
	if (point < 0) point = nd;
	long exp10 = 0;
	if (i < n && (s[i] == 'e' || s[i] == 'E')) {
		char *end;
		char tmp[16];
		size_t k = n - i - 1 < 15 ? n - i - 1 : 15;
		memcpy(tmp, s + i + 1, k);
		tmp[k] = 0;
		exp10 = strtol(tmp, &end, 10);
		if (end == tmp || *end || exp10 > 100 || exp10 < -100) return dl_error_set(DL_EINVALID, "bad exponent");
		i = n;
	}
	if (i != n) return dl_error_set(DL_EINVALID, "not a number");
	/* value = 0.digits * 10^(point+exp10); want unscaled = value * 10^scale */
	long intdigits = point + exp10;  /* digits before the decimal point */
	long keep = intdigits + scale;   /* digits of digits[] kept */
	dl_i128 v = 0;
	int sig = 0;
	for (long k = 0; k < keep; k++) {
		int d = k < nd ? digits[k] - '0' : 0;
		/* count before multiplying so 39 digits never overflow 128 bits */
		if (v != 0 || d != 0) sig++;
		if (sig > precision || sig > 38) return dl_error_set(DL_EINVALID, "exceeds precision %d", precision);
		v = v * 10 + d;
	}
	if (round_half_up && keep >= 0 && keep < nd && digits[keep] >= '5') v += 1;
	dl_i128 lim = 1;
	for (int k = 0; k < precision; k++) lim *= 10;
	if (v >= lim) return dl_error_set(DL_EINVALID, "exceeds precision %d", precision);
	*out = neg ? -v : v;
	return 0;
}

static int literal_error(const char *text)
{
	return dl_error_set(DL_EINVALID, "'%s' is out of range", text);
}

int ex_parse_number_literal(const char *text, dl_scalar *out)
{
	memset(out, 0, sizeof *out);
	size_t n = strlen(text), body = n;
	while (body > 0 && isalpha((unsigned char)text[body - 1])) body--;
	/* an exponent's E is not a suffix */
	if (body < n && (text[body] == 'e' || text[body] == 'E') && body + 1 < n) return dl_error_set(DL_EINVALID, "bad number");
	const char *suf = text + body;
	char num[96];
	if (body >= sizeof num) return dl_error_set(DL_EINVALID, "numeric literal too long");
	memcpy(num, text, body);
	num[body] = 0;
	bool frac = strchr(num, '.') != NULL, expo = strpbrk(num, "eE") != NULL;
	if (*suf == 0 && !frac && !expo) {
		errno = 0;
		char *end;
		long long v = strtoll(num, &end, 10);
		if (errno == 0 && *end == 0) {
			out->type = (v >= INT32_MIN && v <= INT32_MAX) ? DL_TYPE_INTEGER : DL_TYPE_LONG;
			out->v.i64 = v;
			return 0;
		}
		suf = "BD";
	}
	if (*suf == 0 && frac && !expo) suf = "BD";
	if (strcasecmp(suf, "L") == 0 || strcasecmp(suf, "S") == 0 || strcasecmp(suf, "Y") == 0) {
		if (frac || expo) return dl_error_set(DL_EINVALID, "integer suffix on a fractional number");
		errno = 0;
		char *end;
		long long v = strtoll(num, &end, 10);
		if (errno || *end) return literal_error(text);
		int c = tolower((unsigned char)*suf);
		if (c == 's' && (v < INT16_MIN || v > INT16_MAX)) return literal_error(text);
		if (c == 'y' && (v < INT8_MIN || v > INT8_MAX)) return literal_error(text);
		out->type = c == 'l' ? DL_TYPE_LONG : c == 's' ? DL_TYPE_SHORT : DL_TYPE_BYTE;
		out->v.i64 = v;
		return 0;
	}
	if (*suf == 0 || strcasecmp(suf, "D") == 0 || strcasecmp(suf, "F") == 0) {
		char *end;
		errno = 0;
		double d = strtod(num, &end);
		if (*end || !isfinite(d)) return literal_error(text);
		bool f = strcasecmp(suf, "F") == 0;
		if (f && !isfinite((float)d)) return literal_error(text);
		out->type = f ? DL_TYPE_FLOAT : DL_TYPE_DOUBLE;
		out->v.f64 = f ? (double)(float)d : d;
		return 0;
	}
	if (strcasecmp(suf, "BD") == 0) {
		/* precision = significant digits, scale = digits after the point
		 * (negative-scale exponents become scale 0). */
		const char *dot = strchr(num, '.');
		const char *e = strpbrk(num, "eE");
		int scale = 0;
		if (dot) scale = (int)((e ? e : num + body) - dot - 1);
		if (e) scale -= atoi(e + 1);
		if (scale < 0) scale = 0;
		if (scale > 38) return literal_error(text);
		dl_i128 v = 0;
		if (ex_decimal_from_text(num, body, 38, scale, &v, false) < 0) {
			/* Beyond DECIMAL(38): Spark falls back to DOUBLE for plain
			 * fractional literals. */
			if (strcasecmp(text + body, "BD") == 0) return literal_error(text);
			out->type = DL_TYPE_DOUBLE;
			out->v.f64 = strtod(num, NULL);
			return 0;
		}
		dl_i128 a = v < 0 ? -v : v;
		int digits = 0;
		while (a > 0) {
			a /= 10;
			digits++;
		}
		out->type = DL_TYPE_DECIMAL;
		out->precision = digits > scale ? digits : scale;
		if (out->precision == 0) out->precision = 1;
		out->scale = scale;
		out->v.dec = v;
		return 0;
	}
	return dl_error_set(DL_EINVALID, "unknown numeric suffix '%s'", suf);
}

int ex_negate_literal(dl_scalar *s)
{
	switch (s->type) {
	case DL_TYPE_BYTE:
	case DL_TYPE_SHORT:
	case DL_TYPE_INTEGER:
	case DL_TYPE_LONG:
		if (s->v.i64 == INT64_MIN) return DL_EINVALID;
		s->v.i64 = -s->v.i64;
		return 0;
	case DL_TYPE_FLOAT:
	case DL_TYPE_DOUBLE:
		s->v.f64 = -s->v.f64;
		return 0;
	case DL_TYPE_DECIMAL:
		s->v.dec = -s->v.dec;
		return 0;
	default:
		return DL_EINVALID;
	}
}

int ex_interval_add(const char *unit, const char *num, size_t nlen, bool neg, int32_t *months, int32_t *days,
                    int64_t *micros)
{
	char buf[64];
	if (nlen >= sizeof buf) return dl_error_set(DL_EINVALID, "interval value too long");
	memcpy(buf, num, nlen);
	buf[nlen] = 0;
	char *end;
	errno = 0;
	double v = strtod(buf, &end);
	while (*end == ' ') end++;
	if (end == buf || *end || errno || fabs(v) > 1e12)
		return dl_error_set(DL_EINVALID, "invalid interval value '%s'", buf);
	if (neg) v = -v;
	size_t ul = strlen(unit);
	char u[24];
	for (size_t i = 0; i <= ul && i < sizeof u; i++) u[i] = (char)toupper((unsigned char)unit[i]);
	if (ul > 1 && u[ul - 1] == 'S') u[ul - 1] = 0; /* DAYS -> DAY */
	bool whole = v == floor(v);
	/* field, scale: months, days or microseconds */
	int field;
	double scale;
	if (strcmp(u, "YEAR") == 0 && whole) field = 0, scale = 12;
	else if (strcmp(u, "MONTH") == 0 && whole) field = 0, scale = 1;
	else if (strcmp(u, "WEEK") == 0 && whole) field = 1, scale = 7;
	else if (strcmp(u, "DAY") == 0 && whole) field = 1, scale = 1;
	else if (strcmp(u, "HOUR") == 0) field = 2, scale = 3600e6;
	else if (strcmp(u, "MINUTE") == 0) field = 2, scale = 60e6;
	else if (strcmp(u, "SECOND") == 0) field = 2, scale = 1e6;
	else if (strcmp(u, "MILLISECOND") == 0) field = 2, scale = 1e3;
	else if (strcmp(u, "MICROSECOND") == 0 && whole) field = 2, scale = 1;
	else return dl_error_set(DL_EINVALID, "invalid interval unit '%s' for value '%s'", unit, buf);
	double total = (field == 0 ? (double)*months : field == 1 ? (double)*days : (double)*micros) + v * scale;
	double lim = field == 2 ? 9.2e18 : 2147483647.0;
	if (fabs(total) > lim) return dl_error_set(DL_EINVALID, "interval value '%s' %s is out of range", buf, unit);
	if (field == 0) *months = (int32_t)total;
	else if (field == 1) *days = (int32_t)total;
	else *micros += (int64_t)llround(v * scale);
	return 0;
}
