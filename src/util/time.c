/* Calendar arithmetic and timestamp text. See time.h. */
#include "util/time.h"
#include "util/error.h"
#include <ctype.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

int64_t dl_floor_div(int64_t a, int64_t b)
{
	int64_t q = a / b;
	return (a % b != 0 && (a < 0) != (b < 0)) ? q - 1 : q;
}

int64_t dl_floor_mod(int64_t a, int64_t b)
{
	/* From the truncated remainder, not a - floor_div(a, b) * b: that
	 * product leaves int64 for a near INT64_MIN. */
	int64_t r = a % b;
	return (r != 0 && (r < 0) != (b < 0)) ? r + b : r;
}

static int64_t clock_ns(clockid_t id)
{
	struct timespec ts;
	clock_gettime(id, &ts);
	return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

int64_t dl_now_micros(void)
{
	return clock_ns(CLOCK_REALTIME) / 1000;
}

int64_t dl_now_millis(void)
{
	return clock_ns(CLOCK_REALTIME) / 1000000;
}

int64_t dl_monotonic_ns(void)
{
	return clock_ns(CLOCK_MONOTONIC);
}

bool dl_is_leap_year(int64_t y)
{
	return (y % 4 == 0 && y % 100 != 0) || y % 400 == 0;
}

int dl_days_in_month(int64_t y, int m)
{
	static const int days[] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
	return m == 2 && dl_is_leap_year(y) ? 29 : days[m - 1];
}

/* Howard Hinnant's days_from_civil: eras of 400 years, March-based years
 * so the leap day is last. Exact for the proleptic Gregorian calendar. */
int64_t dl_days_from_civil(int64_t y, int m, int d)
{
	y -= m <= 2;
	int64_t era = dl_floor_div(y, 400);
	int64_t yoe = y - era * 400;
	int64_t doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
	int64_t doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
	return era * 146097 + doe - 719468;
}

void dl_civil_from_days(int64_t z, int64_t *year, int *month, int *day)
{
	z += 719468;
	int64_t era = dl_floor_div(z, 146097);
	int64_t doe = z - era * 146097;
	int64_t yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
	int64_t doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
	int64_t mp = (5 * doy + 2) / 153;
	int d = (int)(doy - (153 * mp + 2) / 5 + 1);
	int m = (int)(mp < 10 ? mp + 3 : mp - 9);
	*year = yoe + era * 400 + (m <= 2);
	*month = m;
	*day = d;
}

/* ---- parsing ---- */

typedef struct cursor {
	const char *s;
	size_t i, n;
} cursor;

static int digits(cursor *c, int min, int max, int64_t *out)
{
	int64_t v = 0;
	int k = 0;
	while (c->i < c->n && k < max && isdigit((unsigned char)c->s[c->i])) {
		v = v * 10 + (c->s[c->i++] - '0');
		k++;
	}
	if (k < min || (c->i < c->n && isdigit((unsigned char)c->s[c->i]))) return -1;
	*out = v;
	return k;
}

static bool eat(cursor *c, char ch)
{
	if (c->i < c->n && c->s[c->i] == ch) {
		c->i++;
		return true;
	}
	return false;
}

static void trim(const char **s, size_t *n)
{
	while (*n > 0 && isspace((unsigned char)(*s)[0])) (*s)++, (*n)--;
	while (*n > 0 && isspace((unsigned char)(*s)[*n - 1])) (*n)--;
}

/* [+-]yyyy[-[m]m[-[d]d]] -> days; leaves the cursor after the date. */
static int parse_date_part(cursor *c, int64_t *days)
{
	int sign = 1;
	if (c->i < c->n && (c->s[c->i] == '-' || c->s[c->i] == '+')) sign = c->s[c->i++] == '-' ? -1 : 1;
	int64_t y, m = 1, d = 1;
	if (digits(c, 4, 6, &y) < 0) return -1;
	if (eat(c, '-')) {
		if (digits(c, 1, 2, &m) < 0) return -1;
		if (eat(c, '-') && digits(c, 1, 2, &d) < 0) return -1;
	}
	y *= sign;
	if (m < 1 || m > 12 || d < 1 || d > dl_days_in_month(y, (int)m)) return -1;
	*days = dl_days_from_civil(y, (int)m, (int)d);
	return 0;
}

static int bad_date(const char *s, size_t n)
{
	return dl_error_set(DL_EINVALID, "bad date \"%.*s\": expected yyyy-MM-dd with a real month and day",
	                    (int)(n > 100 ? 100 : n), s);
}

int dl_date_parse(int32_t *days, const char *s, size_t n)
{
	trim(&s, &n);
	cursor c = {s, 0, n};
	int64_t d;
	if (parse_date_part(&c, &d) < 0) return bad_date(s, n);
	if (c.i < n && s[c.i] != ' ' && s[c.i] != 'T') return bad_date(s, n);
	if (d < INT32_MIN || d > INT32_MAX) return bad_date(s, n);
	*days = (int32_t)d;
	return 0;
}

/* [h]h:[m]m[:[s]s[.fraction]] -> micros of the day. */
static int parse_time_part(cursor *c, int64_t *micros)
{
	int64_t h, m, sec = 0, frac = 0;
	if (digits(c, 1, 2, &h) < 0 || !eat(c, ':') || digits(c, 1, 2, &m) < 0) return -1;
	if (eat(c, ':')) {
		if (digits(c, 1, 2, &sec) < 0) return -1;
		if (eat(c, '.')) {
			int k = 0;
			while (c->i < c->n && isdigit((unsigned char)c->s[c->i])) {
				if (k < 6) frac = frac * 10 + (c->s[c->i] - '0');
				k++;
				c->i++;
			}
			if (k == 0 || k > 9) return -1;
			for (; k < 6; k++) frac *= 10;
		}
	}
	if (h > 23 || m > 59 || sec > 59) return -1;
	*micros = ((h * 60 + m) * 60 + sec) * DL_MICROS_PER_SECOND + frac;
	return 0;
}

static int bad_timestamp(const char *s, size_t n)
{
	return dl_error_set(DL_EINVALID,
	                    "bad timestamp \"%.*s\": expected yyyy-MM-dd[ HH:mm[:ss[.ffffff]]][zone], "
	                    "e.g. 2021-09-08 11:11:11 or 2021-09-08T11:11:11.123456Z",
	                    (int)(n > 100 ? 100 : n), s);
}

/* Parses everything but the zone: local micros and where the zone starts. */
static int parse_local(const char *s, size_t n, int64_t *local, size_t *zone_at)
{
	cursor c = {s, 0, n};
	int64_t days, tod = 0;
	if (parse_date_part(&c, &days) < 0) return bad_timestamp(s, n);
	if (c.i < n && (s[c.i] == ' ' || s[c.i] == 'T')) {
		size_t save = c.i++;
		if (parse_time_part(&c, &tod) < 0) {
			/* "2021-09-08 UTC": a date with a zone and no time. */
			if (s[save] != ' ') return bad_timestamp(s, n);
			c.i = save;
			tod = 0;
		}
	}
	while (c.i < n && s[c.i] == ' ') c.i++;
	if (__builtin_mul_overflow(days, DL_MICROS_PER_DAY, local) ||
	    __builtin_add_overflow(*local, tod, local))
		return dl_error_set(DL_EINVALID, "timestamp \"%.*s\" is out of range", (int)n, s);
	*zone_at = c.i;
	return 0;
}

static int64_t to_utc(const dl_tz *tz, int64_t local)
{
	int64_t secs = dl_floor_div(local, DL_MICROS_PER_SECOND);
	int64_t frac = local - secs * DL_MICROS_PER_SECOND;
	return dl_tz_local_to_utc(tz, secs) * DL_MICROS_PER_SECOND + frac;
}

int dl_timestamp_parse(int64_t *micros, const char *s, size_t n, const dl_tz *default_tz)
{
	trim(&s, &n);
	int64_t local;
	size_t zone_at;
	DL_TRY(parse_local(s, n, &local, &zone_at));
	const dl_tz *tz = default_tz ? default_tz : dl_tz_utc();
	if (zone_at < n) {
		int rc = dl_tz_get(&tz, s + zone_at, n - zone_at);
		if (rc < 0) return dl_error_prefix("in timestamp \"%.*s\"", (int)(n > 100 ? 100 : n), s);
	}
	/* Keep clear of the int64 edges so offset arithmetic cannot overflow. */
	if (local < INT64_MIN / 2 || local > INT64_MAX / 2)
		return dl_error_set(DL_EINVALID, "timestamp \"%.*s\" is out of range", (int)n, s);
	*micros = to_utc(tz, local);
	return 0;
}

int dl_timestamp_ntz_parse(int64_t *micros, const char *s, size_t n)
{
	trim(&s, &n);
	int64_t local;
	size_t zone_at;
	DL_TRY(parse_local(s, n, &local, &zone_at));
	if (zone_at < n)
		return dl_error_set(DL_EINVALID,
		                    "timestamp without time zone \"%.*s\" has a zone; remove \"%.*s\"",
		                    (int)n, s, (int)(n - zone_at), s + zone_at);
	*micros = local;
	return 0;
}

/* ---- formatting ---- */

static size_t put_date(char *out, int64_t days)
{
	int64_t y;
	int m, d;
	dl_civil_from_days(days, &y, &m, &d);
	if (y > 9999) return (size_t)snprintf(out, DL_TIME_TEXT_MAX, "+%lld-%02d-%02d", (long long)y, m, d);
	if (y < 0) return (size_t)snprintf(out, DL_TIME_TEXT_MAX, "-%04lld-%02d-%02d", (long long)-y, m, d);
	return (size_t)snprintf(out, DL_TIME_TEXT_MAX, "%04lld-%02d-%02d", (long long)y, m, d);
}

size_t dl_date_format(char out[DL_TIME_TEXT_MAX], int32_t days)
{
	return put_date(out, days);
}

/* Wall-clock time as whole days and micros within the day. Kept apart so
 * that any int64 micros plus any zone offset stays in range: INT64_MIN
 * micros is year -290308, and shifting it by a negative offset would leave
 * int64 if added before splitting. */
typedef struct {
	int64_t days;
	int64_t in_day; /* 0 .. DL_MICROS_PER_DAY - 1 */
	int32_t offset; /* seconds east of UTC that were applied */
} local_time;

static local_time to_local(int64_t micros, const dl_tz *tz)
{
	local_time t;
	t.offset = tz ? dl_tz_offset_at(tz, dl_floor_div(micros, DL_MICROS_PER_SECOND)) : 0;
	t.days = dl_floor_div(micros, DL_MICROS_PER_DAY);
	int64_t in_day = dl_floor_mod(micros, DL_MICROS_PER_DAY) + (int64_t)t.offset * DL_MICROS_PER_SECOND;
	t.days += dl_floor_div(in_day, DL_MICROS_PER_DAY);
	t.in_day = dl_floor_mod(in_day, DL_MICROS_PER_DAY);
	return t;
}

/* Date, separator and HH:mm:ss of a wall-clock time; *frac gets the
 * microseconds within the second. Years beyond 9999 print with '+' and
 * years before 0000 with '-' (as Spark/java.time do), e.g. INT64_MIN is
 * "-290308-12-21 19:59:05.224192". */
static size_t put_local(char *out, local_time t, char sep, int64_t *frac)
{
	int64_t secs = t.in_day / DL_MICROS_PER_SECOND;
	*frac = t.in_day % DL_MICROS_PER_SECOND;
	size_t n = put_date(out, t.days);
	n += (size_t)snprintf(out + n, DL_TIME_TEXT_MAX - n, "%c%02d:%02d:%02d", sep,
	                      (int)(secs / 3600), (int)(secs / 60 % 60), (int)(secs % 60));
	return n;
}

size_t dl_timestamp_format_spark(char out[DL_TIME_TEXT_MAX], int64_t micros, const dl_tz *tz)
{
	int64_t frac;
	size_t n = put_local(out, to_local(micros, tz), ' ', &frac);
	if (frac) {
		char f[8];
		snprintf(f, sizeof f, "%06lld", (long long)frac);
		int k = 6;
		while (f[k - 1] == '0') k--;
		n += (size_t)snprintf(out + n, DL_TIME_TEXT_MAX - n, ".%.*s", k, f);
	}
	return n;
}

size_t dl_timestamp_format_iso(char out[DL_TIME_TEXT_MAX], int64_t micros, const dl_tz *tz,
                               int frac_digits)
{
	local_time t = to_local(micros, tz);
	int32_t off = t.offset;
	int64_t frac;
	size_t n = put_local(out, t, 'T', &frac);
	if (frac_digits > 6) frac_digits = 6;
	if (frac_digits > 0) {
		char f[8];
		snprintf(f, sizeof f, "%06lld", (long long)frac);
		n += (size_t)snprintf(out + n, DL_TIME_TEXT_MAX - n, ".%.*s", frac_digits, f);
	}
	if (!tz) return n;
	if (off == 0) {
		out[n++] = 'Z';
		out[n] = 0;
		return n;
	}
	int32_t a = off < 0 ? -off : off;
	n += (size_t)snprintf(out + n, DL_TIME_TEXT_MAX - n, "%c%02d:%02d", off < 0 ? '-' : '+',
	                      (int)(a / 3600), (int)(a / 60 % 60));
	if (a % 60) n += (size_t)snprintf(out + n, DL_TIME_TEXT_MAX - n, ":%02d", (int)(a % 60));
	return n;
}
