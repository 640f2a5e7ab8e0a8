/* Date/time text and zone arithmetic over the calendar of util/time.h. */
#include "expr/datetime.h"
#include <ctype.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

int64_t ex_days_to_us(int64_t days)
{
	int64_t r;
	if (__builtin_mul_overflow(days, EX_US_PER_DAY, &r)) return days > 0 ? INT64_MAX : INT64_MIN;
	return r;
}

void ex_split_us(int64_t us, int64_t *days, int64_t *tod)
{
	*days = dl_floor_div(us, EX_US_PER_DAY);
	/* the exact difference is in [0, a day): compute it modulo 2^64 */
	*tod = (int64_t)((uint64_t)us - (uint64_t)*days * (uint64_t)EX_US_PER_DAY);
}

/* Values come from data files and may be anywhere in int64: the zone
 * shift saturates instead of overflowing. */
static int64_t sat_add(int64_t a, int64_t b)
{
	int64_t r;
	if (__builtin_add_overflow(a, b, &r)) return b > 0 ? INT64_MAX : INT64_MIN;
	return r;
}

int64_t ex_ts_to_local(int64_t us, const dl_tz *tz)
{
	if (!tz) return us;
	int64_t s = dl_floor_div(us, 1000000);
	return sat_add(us, (int64_t)dl_tz_offset_at(tz, s) * 1000000);
}

int64_t ex_local_to_ts(int64_t local_us, const dl_tz *tz)
{
	if (!tz) return local_us;
	int64_t s = dl_floor_div(local_us, 1000000);
	int64_t frac = local_us - s * 1000000;
	int64_t utc_s = dl_tz_local_to_utc(tz, s), r;
	if (__builtin_mul_overflow(utc_s, (int64_t)1000000, &r)) return utc_s > 0 ? INT64_MAX : INT64_MIN;
	return sat_add(r, frac);
}

/* ---- parsing ----------------------------------------------------------- */

typedef struct cursor {
	const char *s;
	size_t n, i;
} cursor;

/* Reads between min and max digits. */
static bool digits(cursor *c, int min, int max, int64_t *v)
{
	int k = 0;
	int64_t x = 0;
	while (c->i < c->n && k < max && isdigit((unsigned char)c->s[c->i])) {
		x = x * 10 + (c->s[c->i++] - '0');
		k++;
	}
	*v = x;
	return k >= min && !(c->i < c->n && k == max && isdigit((unsigned char)c->s[c->i]));
}

static void trim(const char **s, size_t *n)
{
	while (*n && isspace((unsigned char)**s)) {
		(*s)++;
		(*n)--;
	}
	while (*n && isspace((unsigned char)(*s)[*n - 1])) (*n)--;
}

/* Date part; leaves the cursor after it. */
static bool date_part(cursor *c, int64_t *days)
{
	int sign = 1;
	if (c->i < c->n && (c->s[c->i] == '+' || c->s[c->i] == '-')) sign = c->s[c->i++] == '-' ? -1 : 1;
	int64_t y, m = 1, d = 1;
	if (!digits(c, 4, 7, &y)) return false;
	if (c->i < c->n && c->s[c->i] == '-') {
		c->i++;
		if (!digits(c, 1, 2, &m)) return false;
		if (c->i < c->n && c->s[c->i] == '-') {
			c->i++;
			if (!digits(c, 1, 2, &d)) return false;
		}
	}
	y *= sign;
	if (m < 1 || m > 12 || d < 1 || d > dl_days_in_month(y, (int)m)) return false;
	*days = dl_days_from_civil(y, (int)m, (int)d);
	return true;
}

bool ex_date_parse(const char *s, size_t n, int32_t *days)
{
	trim(&s, &n);
	cursor c = {s, n, 0};
	int64_t d;
	if (!date_part(&c, &d)) return false;
	if (c.i < c.n && c.s[c.i] != ' ' && c.s[c.i] != 'T') return false;
	if (d < INT32_MIN || d > INT32_MAX) return false;
	*days = (int32_t)d;
	return true;
}

static bool zone_part(cursor *c, const dl_tz **tz)
{
	while (c->i < c->n && c->s[c->i] == ' ') c->i++;
	if (c->i == c->n) return true;
	return dl_tz_get(tz, c->s + c->i, c->n - c->i) == 0;
}

bool ex_ts_parse(const char *s, size_t n, bool ntz, const dl_tz *tz, int64_t *us)
{
	bool z;
	return ex_ts_parse_zone(s, n, ntz, tz, us, &z);
}

bool ex_ts_parse_zone(const char *s, size_t n, bool ntz, const dl_tz *tz, int64_t *us, bool *has_zone)
{
	trim(&s, &n);
	cursor c = {s, n, 0};
	int64_t days, h = 0, mi = 0, sec = 0, frac = 0;
	if (!date_part(&c, &days)) return false;
	if (c.i < c.n && (c.s[c.i] == ' ' || c.s[c.i] == 'T')) {
		c.i++;
		if (c.i < c.n && isdigit((unsigned char)c.s[c.i])) {
			if (!digits(&c, 1, 2, &h) || c.i >= c.n || c.s[c.i] != ':') return false;
			c.i++;
			if (!digits(&c, 1, 2, &mi)) return false;
			if (c.i < c.n && c.s[c.i] == ':') {
				c.i++;
				if (!digits(&c, 1, 2, &sec)) return false;
				if (c.i < c.n && c.s[c.i] == '.') {
					c.i++;
					int k = 0;
					while (c.i < c.n && isdigit((unsigned char)c.s[c.i])) {
						if (k < 6) frac = frac * 10 + (c.s[c.i] - '0');
						else if (k >= 9) return false;
						k++;
						c.i++;
					}
					for (; k < 6; k++) frac *= 10;
				}
			}
		}
		if (h > 23 || mi > 59 || sec > 59) return false;
	} else if (c.i < c.n) {
		return false;
	}
	const dl_tz *zone = tz;
	*has_zone = c.i < c.n;
	if (c.i < c.n && !zone_part(&c, &zone)) return false;
	if (days > EX_MAX_TS_DAYS || days < -EX_MAX_TS_DAYS) return false;
	int64_t local = days * EX_US_PER_DAY + ((h * 60 + mi) * 60 + sec) * 1000000 + frac;
	*us = ntz ? local : ex_local_to_ts(local, zone);
	return true;
}

/* ---- formatting -------------------------------------------------------- */

static int put_year(char *out, int64_t y)
{
	if (y > 9999) return sprintf(out, "+%lld", (long long)y);
	if (y < 0) return sprintf(out, "-%04lld", (long long)-y);
	return sprintf(out, "%04lld", (long long)y);
}

int ex_date_format(char *out, int32_t days)
{
	int64_t y;
	int m, d;
	dl_civil_from_days(days, &y, &m, &d);
	int k = put_year(out, y);
	return k + sprintf(out + k, "-%02d-%02d", m, d);
}

int ex_ts_format(char *out, int64_t us, const dl_tz *tz)
{
	int64_t local = ex_ts_to_local(us, tz);
	int64_t days, tod;
	ex_split_us(local, &days, &tod);
	int k = ex_date_format(out, (int32_t)days);
	int64_t sec = tod / 1000000, frac = tod % 1000000;
	k += sprintf(out + k, " %02d:%02d:%02d", (int)(sec / 3600), (int)(sec / 60 % 60), (int)(sec % 60));
	if (frac) {
		char f[8];
		sprintf(f, "%06d", (int)frac);
		int fl = 6;
		while (f[fl - 1] == '0') fl--;
		out[k++] = '.';
		memcpy(out + k, f, (size_t)fl);
		k += fl;
		out[k] = 0;
	}
	return k;
}

static const char *const month_names[] = {"January", "February", "March",     "April",   "May",      "June",
                                          "July",    "August",   "September", "October", "November", "December"};
static const char *const day_names[] = {"Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday"};

typedef struct fields {
	int64_t y;
	int mon, d, h, mi, s, us, dow, doy;
} fields;

static void split_local(int64_t local, fields *f)
{
	int64_t days, tod;
	ex_split_us(local, &days, &tod);
	dl_civil_from_days(days, &f->y, &f->mon, &f->d);
	f->h = (int)(tod / 3600000000LL);
	f->mi = (int)(tod / 60000000LL % 60);
	f->s = (int)(tod / 1000000 % 60);
	f->us = (int)(tod % 1000000);
	f->dow = (int)dl_floor_mod(days + 3, 7); /* 1970-01-01 was a Thursday; 0 = Monday */
	f->doy = (int)(days - dl_days_from_civil(f->y, 1, 1)) + 1;
}

static int put_num(dl_buf *out, int64_t v, int width)
{
	return dl_buf_printf(out, "%0*lld", width, (long long)v);
}

int ex_pattern_format(dl_buf *out, int64_t local, const char *p, size_t n)
{
	fields f;
	split_local(local, &f);
	for (size_t i = 0; i < n;) {
		char c = p[i];
		if (c == '\'') {
			size_t j = i + 1;
			if (j < n && p[j] == '\'') {
				DL_TRY(dl_buf_putc(out, '\''));
				i += 2;
				continue;
			}
			while (j < n && p[j] != '\'') j++;
			DL_TRY(dl_buf_append(out, p + i + 1, j - i - 1));
			i = j + 1;
			continue;
		}
		if (!isalpha((unsigned char)c)) {
			DL_TRY(dl_buf_putc(out, c));
			i++;
			continue;
		}
		size_t k = i;
		while (k < n && p[k] == c) k++;
		int w = (int)(k - i);
		i = k;
		switch (c) {
		case 'y':
		case 'u':
			if (w == 2) DL_TRY(put_num(out, dl_floor_mod(f.y, 100), 2));
			else DL_TRY(put_num(out, f.y, w));
			break;
		case 'M':
		case 'L':
			if (w >= 4) DL_TRY(dl_buf_puts(out, month_names[f.mon - 1]));
			else if (w == 3) DL_TRY(dl_buf_append(out, month_names[f.mon - 1], 3));
			else DL_TRY(put_num(out, f.mon, w));
			break;
		case 'd': DL_TRY(put_num(out, f.d, w)); break;
		case 'D': DL_TRY(put_num(out, f.doy, w)); break;
		case 'H': DL_TRY(put_num(out, f.h, w)); break;
		case 'k': DL_TRY(put_num(out, f.h == 0 ? 24 : f.h, w)); break;
		case 'h': DL_TRY(put_num(out, f.h % 12 == 0 ? 12 : f.h % 12, w)); break;
		case 'K': DL_TRY(put_num(out, f.h % 12, w)); break;
		case 'm': DL_TRY(put_num(out, f.mi, w)); break;
		case 's': DL_TRY(put_num(out, f.s, w)); break;
		case 'S': {
			char fr[8];
			snprintf(fr, sizeof fr, "%06d", f.us);
			for (int q = 0; q < w; q++) DL_TRY(dl_buf_putc(out, q < 6 ? fr[q] : '0'));
			break;
		}
		case 'a': DL_TRY(dl_buf_puts(out, f.h < 12 ? "AM" : "PM")); break;
		case 'E':
			if (w >= 4) DL_TRY(dl_buf_puts(out, day_names[f.dow]));
			else DL_TRY(dl_buf_append(out, day_names[f.dow], 3));
			break;
		case 'Q':
		case 'q': DL_TRY(put_num(out, (f.mon - 1) / 3 + 1, w)); break;
		case 'G': DL_TRY(dl_buf_puts(out, f.y > 0 ? "AD" : "BC")); break;
		default:
			return dl_error_set(DL_EINVALID, "unsupported date/time pattern letter '%c' in '%.*s'", c, (int)n, p);
		}
	}
	return 0;
}

static bool parse_name(cursor *c, const char *const *names, int count, int prefix, int *out)
{
	for (int i = 0; i < count; i++) {
		size_t l = prefix ? (size_t)prefix : strlen(names[i]);
		if (c->n - c->i >= l && strncasecmp(c->s + c->i, names[i], l) == 0) {
			c->i += l;
			*out = i;
			return true;
		}
	}
	return false;
}

bool ex_pattern_parse(const char *s, size_t n, const char *p, size_t pn, int64_t *local)
{
	cursor c = {s, n, 0};
	int64_t y = 1970, mon = 1, d = 1, h = 0, mi = 0, sec = 0, us = 0, v;
	int pm = -1, h12 = -1;
	for (size_t i = 0; i < pn;) {
		char ch = p[i];
		if (ch == '\'') {
			size_t j = i + 1;
			while (j < pn && p[j] != '\'') j++;
			size_t l = j - i - 1;
			if (c.n - c.i < l || memcmp(c.s + c.i, p + i + 1, l) != 0) return false;
			c.i += l;
			i = j + 1;
			continue;
		}
		if (!isalpha((unsigned char)ch)) {
			if (c.i >= c.n || c.s[c.i] != ch) return false;
			c.i++;
			i++;
			continue;
		}
		size_t k = i;
		while (k < pn && p[k] == ch) k++;
		int w = (int)(k - i);
		i = k;
		int maxw = w == 1 ? 2 : w;
		int idx;
		switch (ch) {
		case 'y':
		case 'u':
			if (w == 2) {
				if (!digits(&c, 2, 2, &v)) return false;
				y = 2000 + v;
			} else if (!digits(&c, w, w == 1 ? 9 : (w < 4 ? 9 : w), &y)) {
				return false;
			}
			break;
		case 'M':
		case 'L':
			if (w >= 3) {
				if (!parse_name(&c, month_names, 12, w == 3 ? 3 : 0, &idx)) return false;
				mon = idx + 1;
			} else if (!digits(&c, w, maxw, &mon)) {
				return false;
			}
			break;
		case 'd': if (!digits(&c, w, maxw, &d)) return false; break;
		case 'H': if (!digits(&c, w, maxw, &h)) return false; break;
		case 'h':
			if (!digits(&c, w, maxw, &v)) return false;
			h12 = (int)v;
			break;
		case 'm': if (!digits(&c, w, maxw, &mi)) return false; break;
		case 's': if (!digits(&c, w, maxw, &sec)) return false; break;
		case 'S': {
			int64_t f;
			size_t st = c.i;
			if (!digits(&c, 1, w, &f)) return false;
			for (size_t q = c.i - st; q < 6; q++) f *= 10;
			for (size_t q = c.i - st; q > 6; q--) f /= 10;
			us = f;
			break;
		}
		case 'a':
			if (c.n - c.i >= 2 && strncasecmp(c.s + c.i, "AM", 2) == 0) pm = 0;
			else if (c.n - c.i >= 2 && strncasecmp(c.s + c.i, "PM", 2) == 0) pm = 1;
			else return false;
			c.i += 2;
			break;
		case 'E':
			if (!parse_name(&c, day_names, 7, w >= 4 ? 0 : 3, &idx)) return false;
			break;
		default:
			return false;
		}
	}
	if (c.i != c.n) return false;
	if (h12 >= 0) h = (h12 % 12) + (pm == 1 ? 12 : 0);
	else if (pm == 1 && h < 12) h += 12;
	if (mon < 1 || mon > 12 || d < 1 || d > dl_days_in_month(y, (int)mon) || h > 23 || mi > 59 || sec > 59)
		return false;
	int64_t days = dl_days_from_civil(y, (int)mon, (int)d);
	if (days > EX_MAX_TS_DAYS || days < -EX_MAX_TS_DAYS) return false;
	*local = days * EX_US_PER_DAY + ((h * 60 + mi) * 60 + sec) * 1000000 + us;
	return true;
}
