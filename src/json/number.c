/* JSON numbers (RFC 8259 section 6): the parser only validates the grammar
 * and keeps the text; conversion happens on demand, exactly for int64 and
 * correctly rounded for double. */
#include "json/parser.h"
#include "json/c_locale.h"
#include "json/number_format.h"
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

static inline bool is_digit(const char *p, const char *end)
{
	return p < end && (unsigned)(*p - '0') < 10;
}

/* Eight bytes at a time while they are all digits: a byte is a digit when
 * its high nibble is 3 and adding 6 keeps it there. */
static const char *skip_digits(const char *p, const char *end)
{
	const uint64_t nib = UINT64_C(0xF0F0F0F0F0F0F0F0), threes = UINT64_C(0x3030303030303030);
	while (end - p >= 8) {
		uint64_t v;
		memcpy(&v, p, 8);
		if ((v & nib) != threes || ((v + UINT64_C(0x0606060606060606)) & nib) != threes) break;
		p += 8;
	}
	while (is_digit(p, end)) p++;
	return p;
}

int dl_json_parse_number(dl_json_parser *ps, const char *p, const char *end, dl_json *out,
                         const char **next)
{
	const char *s = p;
	if (*p == '-') p++;
	if (!is_digit(p, end)) return dl_json_fail(ps, p, "expected a digit in the number");
	if (*p == '0') {
		p++;
		if (is_digit(p, end))
			return dl_json_fail(ps, p, "leading zero in a number: expected '.', 'e' or the end of the number");
	} else {
		p = skip_digits(p, end);
	}
	if (p < end && *p == '.') {
		p++;
		if (!is_digit(p, end)) return dl_json_fail(ps, p, "expected a digit after the decimal point");
		p = skip_digits(p, end);
	}
	if (p < end && (*p == 'e' || *p == 'E')) {
		p++;
		if (p < end && (*p == '+' || *p == '-')) p++;
		if (!is_digit(p, end)) return dl_json_fail(ps, p, "expected a digit in the exponent");
		p = skip_digits(p, end);
	}
	size_t n = (size_t)(p - s);
	char *t;
	if (n < 16 && end - s >= 16 && ps->text_end - ps->text_cur >= 16) {
		/* Typical numbers: one fixed-size copy instead of a memcpy call
		 * (the bytes after the number are overwritten by later text). */
		t = ps->text_cur;
		memcpy(t, s, 16);
		ps->text_cur += n + 1;
	} else {
		t = dl_json_text_alloc(ps, n + 1);
		if (!t) return DL_ENOMEM;
		memcpy(t, s, n);
	}
	t[n] = 0;
	out->kind = DL_JSON_NUMBER;
	out->u.num.ptr = t;
	out->u.num.len = n;
	*next = p;
	return 0;
}

static int int64_error(const dl_json *v, const char *why)
{
	return dl_error_set(DL_EINVALID, "JSON number %.*s %s", (int)v->u.num.len, v->u.num.ptr, why);
}

int dl_json_int64(const dl_json *v, int64_t *out)
{
	if (!v || v->kind != DL_JSON_NUMBER)
		return dl_error_set(DL_EINVALID, "expected a JSON number for an integer");
	const char *p = v->u.num.ptr, *end = p + v->u.num.len;
	bool neg = p < end && *p == '-';
	if (neg) p++;
	if (p == end) return int64_error(v, "is empty");
	/* Magnitude in uint64 with constant-bound overflow checks (no division
	 * per digit), then the signed range. */
	uint64_t acc = 0;
	if (end - p <= 18) { /* below 10^18: cannot overflow */
		for (; p < end; p++) {
			unsigned d = (unsigned)(*p - '0');
			if (d > 9) return int64_error(v, "is not an integer: expected digits only");
			acc = acc * 10 + d;
		}
	}
	for (; p < end; p++) {
		unsigned d = (unsigned)(*p - '0');
		if (d > 9) return int64_error(v, "is not an integer: expected digits only");
		if (acc > UINT64_MAX / 10 || (acc == UINT64_MAX / 10 && d > UINT64_MAX % 10))
			return int64_error(v, "is out of the int64 range");
		acc = acc * 10 + d;
	}
	uint64_t limit = neg ? (uint64_t)INT64_MAX + 1 : (uint64_t)INT64_MAX;
	if (acc > limit) return int64_error(v, "is out of the int64 range");
	*out = neg ? (acc == limit ? INT64_MIN : -(int64_t)acc) : (int64_t)acc;
	return 0;
}

/* Clinger's fast path: when the decimal significand has at most 15 digits
 * and the power of ten is at most 22, both are exact doubles and one IEEE
 * multiplication or division gives the correctly rounded result. */
bool dl_json_fast_double(const char *p, const char *end, double *out)
{
	static const double pow10[] = {1e0,  1e1,  1e2,  1e3,  1e4,  1e5,  1e6,  1e7,
	                               1e8,  1e9,  1e10, 1e11, 1e12, 1e13, 1e14, 1e15,
	                               1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22};
	bool neg = p < end && *p == '-';
	if (neg) p++;
	const char *first = p;
	uint64_t m = 0;
	int digits = 0, exp10 = 0;
	for (; p < end && (unsigned)(*p - '0') < 10; p++) {
		if (m || *p != '0') digits++;
		m = m * 10 + (unsigned)(*p - '0');
		if (digits > 15) return false;
	}
	if (p < end && *p == '.') {
		for (p++; p < end && (unsigned)(*p - '0') < 10; p++) {
			if (m || *p != '0') digits++;
			m = m * 10 + (unsigned)(*p - '0');
			exp10--;
			if (digits > 15) return false;
		}
	}
	if (p == first) return false;
	if (p < end) { /* exponent; anything unexpected goes to the checked path */
		if (*p != 'e' && *p != 'E') return false;
		p++;
		bool eneg = p < end && *p == '-';
		if (p < end && (*p == '-' || *p == '+')) p++;
		if (p == end) return false;
		int e = 0;
		for (; p < end; p++) {
			if ((unsigned)(*p - '0') >= 10) return false;
			e = e * 10 + (*p - '0');
			if (e > 400) return false;
		}
		exp10 += eneg ? -e : e;
	}
	if (exp10 < -22 || exp10 > 22) return false;
	double d = (double)m;
	d = exp10 < 0 ? d / pow10[-exp10] : d * pow10[exp10];
	*out = neg ? -d : d;
	return true;
}

int dl_json_double(const dl_json *v, double *out)
{
	if (!v || v->kind != DL_JSON_NUMBER)
		return dl_error_set(DL_EINVALID, "expected a JSON number for a double");
	if (v->u.num.len == 0 || (v->u.num.ptr[0] != '-' && (unsigned)(v->u.num.ptr[0] - '0') > 9))
		return dl_error_set(DL_EINVALID, "%.*s is not a JSON number", (int)v->u.num.len, v->u.num.ptr);
	if (dl_json_fast_double(v->u.num.ptr, v->u.num.ptr + v->u.num.len, out)) return 0;
	/* num.ptr is NUL-terminated; the C locale keeps '.' as the decimal point
	 * whatever the application's locale. */
	locale_t c = dl_json_c_locale();
	if (!c) return dl_error_set(DL_ENOMEM, "cannot create the C locale for number conversion");
	errno = 0;
	char *endp;
	double d = strtod_l(v->u.num.ptr, &endp, c);
	if (endp == v->u.num.ptr || endp != v->u.num.ptr + v->u.num.len)
		return dl_error_set(DL_EINVALID, "%.*s is not a JSON number", (int)v->u.num.len, v->u.num.ptr);
	if (errno == ERANGE && isinf(d))
		return dl_error_set(DL_EINVALID, "JSON number %.*s is out of the double range",
		                    (int)v->u.num.len, v->u.num.ptr);
	*out = d;
	return 0;
}
