/* Text values of CSV and JSON lines input into typed builder values (see
 * input.h): integers, floats, decimals rounded HALF_UP to their scale, booleans, dates and
 * timestamps as Spark parses them. */
#include "io/input.h"
#include <ctype.h>
#include <errno.h>
#include <strings.h>
#include <stdlib.h>
#include <string.h>
#include "columnar/builder.h"
#include "expr/parse_util.h"
#include "json/utf8.h"
#include "util/error.h"
#include "util/mem.h"
#include "util/time.h"

static int bad(const char *s, size_t n, const dl_type *t)
{
	char name[64];
	dl_type_name(t, name, sizeof name);
	return dl_error_set(DL_EINVALID, "value '%.*s' is not a valid %s", (int)(n > 80 ? 80 : n), s,
	                    name);
}

static int parse_i64(const char *s, size_t n, int64_t *out)
{
	char tmp[32];
	if (n == 0 || n >= sizeof tmp) return -1;
	memcpy(tmp, s, n);
	tmp[n] = 0;
	char *end;
	errno = 0;
	long long v = strtoll(tmp, &end, 10);
	if (errno || *end) return -1;
	*out = v;
	return 0;
}

static int parse_f64(const char *s, size_t n, double *out)
{
	char tmp[64];
	if (n == 0 || n >= sizeof tmp) return -1;
	memcpy(tmp, s, n);
	tmp[n] = 0;
	char *end;
	*out = strtod(tmp, &end);
	return *end ? -1 : 0;
}

/* "-12.345" (or "1.5E3", as Java's BigDecimal reads) as an unscaled
 * value of the column's scale, rounded HALF_UP as Spark's Decimal
 * toPrecision: more fraction digits than the scale round, never truncate,
 * and a value that then has more digits than the precision is an overflow
 * error, not a changed value. */
static int append_decimal(dl_builder *b, const dl_type *t, const char *s, size_t n)
{
	if (n == 0 || isspace((unsigned char)s[0]) || isspace((unsigned char)s[n - 1])) return bad(s, n, t);
	dl_i128 v;
	if (ex_decimal_from_text(s, n, t->precision, t->scale, &v, true) < 0) {
		char name[64];
		dl_type_name(t, name, sizeof name);
		const char *why = dl_error_last()->message;
		if (strstr(why, "precision"))
			return dl_error_set(DL_EINVALID, "value '%.*s' cannot be represented as %s: it needs more than %d "
			                    "digits (%d after the point, rounded HALF_UP)",
			                    (int)(n > 80 ? 80 : n), s, name, t->precision, t->scale);
		return bad(s, n, t);
	}
	return dl_builder_append_decimal(b, v);
}

/* Delta strings are UTF-8: invalid bytes are an error here, where the
 * file and line are known (Spark would replace them with U+FFFD, changing
 * the value; the writer would fail later without saying where). */
static int check_utf8(const char *s, size_t n)
{
	const unsigned char *u = (const unsigned char *)s, *end = u + n;
	for (size_t i = 0; i < n;) {
		if (u[i] < 0x80) {
			i++;
			continue;
		}
		size_t k = dl_json_utf8_len(u + i, end);
		if (!k)
			return dl_error_set(DL_EINVALID, "invalid UTF-8 (byte 0x%02X at offset %zu of the value); the input "
			                    "must be UTF-8 text",
			                    u[i], i);
		i += k;
	}
	return 0;
}

int dl_io_append_text(void *builder, const char *s, size_t n)
{
	dl_builder *b = builder;
	const dl_type *t = dl_builder_type(b);
	int64_t i;
	double d;
	switch (t->id) {
	case DL_TYPE_BYTE: case DL_TYPE_SHORT: case DL_TYPE_INTEGER: case DL_TYPE_LONG:
		if (parse_i64(s, n, &i) < 0) return bad(s, n, t);
		if (dl_builder_append_int(b, i) < 0) return bad(s, n, t);
		return 0;
	case DL_TYPE_FLOAT: case DL_TYPE_DOUBLE:
		if (parse_f64(s, n, &d) < 0) return bad(s, n, t);
		return dl_builder_append_double(b, d);
	case DL_TYPE_DECIMAL:
		return append_decimal(b, t, s, n);
	case DL_TYPE_BOOLEAN:
		if (n == 4 && strncasecmp(s, "true", 4) == 0) return dl_builder_append_bool(b, true);
		if (n == 5 && strncasecmp(s, "false", 5) == 0) return dl_builder_append_bool(b, false);
		return bad(s, n, t);
	case DL_TYPE_DATE: {
		int32_t days;
		if (dl_date_parse(&days, s, n) < 0) return bad(s, n, t);
		return dl_builder_append_int(b, days);
	}
	case DL_TYPE_TIMESTAMP:
		if (dl_timestamp_parse(&i, s, n, NULL) < 0) return bad(s, n, t);
		return dl_builder_append_int(b, i);
	case DL_TYPE_TIMESTAMP_NTZ:
		if (dl_timestamp_ntz_parse(&i, s, n) < 0) return bad(s, n, t);
		return dl_builder_append_int(b, i);
	case DL_TYPE_STRING:
		DL_TRY(check_utf8(s, n));
		return dl_builder_append_bytes(b, s, n);
	case DL_TYPE_BINARY:
		return dl_builder_append_bytes(b, s, n);
	case DL_TYPE_NULL:
		return dl_builder_append_null(b);
	default:
		return bad(s, n, t);
	}
}
