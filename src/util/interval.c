#include "util/interval.h"
#include "util/error.h"
#include <ctype.h>
#include <stdbool.h>
#include <string.h>
#include <strings.h>

typedef struct unit {
	const char *name;
	int64_t micros; /* 0: no fixed length */
} unit;

static const unit units[] = {
	{"microsecond", 1},
	{"millisecond", 1000},
	{"second", 1000000},
	{"minute", INT64_C(60000000)},
	{"hour", INT64_C(3600000000)},
	{"day", INT64_C(86400000000)},
	{"week", INT64_C(604800000000)},
	{"month", 0},
	{"year", 0},
};

static int bad(const char *s, size_t n, const char *why)
{
	return dl_error_set(DL_EINVALID,
	                    "bad interval \"%.*s\": %s; write e.g. \"interval 7 days\" or \"1 week\"",
	                    (int)(n > 100 ? 100 : n), s, why);
}

static void skip_space(const char *s, size_t n, size_t *i)
{
	while (*i < n && isspace((unsigned char)s[*i])) (*i)++;
}

static const unit *find_unit(const char *w, size_t len)
{
	if (len > 1 && (w[len - 1] == 's' || w[len - 1] == 'S')) {
		for (size_t k = 0; k < sizeof units / sizeof units[0]; k++)
			if (strlen(units[k].name) == len - 1 && strncasecmp(w, units[k].name, len - 1) == 0)
				return &units[k];
	}
	for (size_t k = 0; k < sizeof units / sizeof units[0]; k++)
		if (strlen(units[k].name) == len && strncasecmp(w, units[k].name, len) == 0) return &units[k];
	return NULL;
}

/* One "[+-]digits[.digits] unit" term, added to *total. */
static int term(const char *s, size_t n, size_t *i, const char *all, size_t all_n, int64_t *total)
{
	bool neg = false;
	if (*i < n && (s[*i] == '-' || s[*i] == '+')) neg = s[(*i)++] == '-';
	int64_t whole = 0, frac = 0;
	size_t start = *i;
	while (*i < n && isdigit((unsigned char)s[*i])) {
		if (__builtin_mul_overflow(whole, 10, &whole) ||
		    __builtin_add_overflow(whole, s[*i] - '0', &whole))
			return bad(all, all_n, "number too large");
		(*i)++;
	}
	if (*i == start) return bad(all, all_n, "expected a number");
	int frac_digits = -1;
	if (*i < n && s[*i] == '.') {
		(*i)++;
		frac_digits = 0;
		while (*i < n && isdigit((unsigned char)s[*i])) {
			if (frac_digits < 6) frac = frac * 10 + (s[*i] - '0'), frac_digits++;
			(*i)++;
		}
		for (int k = frac_digits; k < 6; k++) frac *= 10;
	}
	if (*i >= n || !isspace((unsigned char)s[*i])) return bad(all, all_n, "expected a unit after the number");
	skip_space(s, n, i);
	size_t ws = *i;
	while (*i < n && isalpha((unsigned char)s[*i])) (*i)++;
	const unit *u = find_unit(s + ws, *i - ws);
	if (!u) return bad(all, all_n, "unknown unit (use microseconds, milliseconds, seconds, minutes, hours, days or weeks)");
	if (u->micros == 0)
		return bad(all, all_n, "months and years have no fixed length; use days or weeks");
	if (frac_digits >= 0 && u->micros != 1000000)
		return bad(all, all_n, "only seconds may have a fractional part");
	int64_t v;
	if (__builtin_mul_overflow(whole, u->micros, &v) || __builtin_add_overflow(v, frac, &v))
		return bad(all, all_n, "duration too large");
	if (neg) v = -v;
	if (__builtin_add_overflow(*total, v, total)) return bad(all, all_n, "duration too large");
	return 0;
}

int dl_duration_parse(int64_t *micros, const char *s, size_t n)
{
	const char *all = s;
	size_t all_n = n, i = 0;
	skip_space(s, n, &i);
	if (n - i >= 8 && strncasecmp(s + i, "interval", 8) == 0 &&
	    (n - i == 8 || isspace((unsigned char)s[i + 8]) || s[i + 8] == '\'' || s[i + 8] == '"'))
		i += 8;
	skip_space(s, n, &i);
	while (n > i && isspace((unsigned char)s[n - 1])) n--;
	/* '3650 days': Delta users sometimes quote the value as a SQL literal. */
	if (n - i >= 2 && (s[i] == '\'' || s[i] == '"') && s[n - 1] == s[i]) {
		i++;
		n--;
		skip_space(s, n, &i);
		while (n > i && isspace((unsigned char)s[n - 1])) n--;
	}
	if (i == n) return bad(all, all_n, "it is empty");
	int64_t total = 0;
	while (i < n) {
		DL_TRY(term(s, n, &i, all, all_n, &total));
		if (i < n && !isspace((unsigned char)s[i])) return bad(all, all_n, "unexpected text after a unit");
		skip_space(s, n, &i);
	}
	if (total < 0) return bad(all, all_n, "a duration cannot be negative");
	*micros = total;
	return 0;
}
