/* Time zone resolution and our TZif reader (RFC 8536). See tz.h. */
#include "util/tz.h"
#include "util/error.h"
#include "util/mem.h"
#include "util/time.h"
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#define TZ_DIR "/usr/share/zoneinfo"
#define TZ_FILE_MAX (1 << 20)
#define MAX_OFFSET (18 * 3600)

/* One date of a POSIX TZ rule: "Jn", "n" or "Mm.w.d", plus the local time
 * of day (seconds, may be negative or above 24h) the change happens. */
typedef struct rule_date {
	char kind; /* 'J', 'N' or 'M' */
	int m, w, d, n;
	int32_t time;
} rule_date;

/* The POSIX TZ string at the end of a TZif file: it gives the offsets for
 * every instant after the last listed transition. Offsets east positive. */
typedef struct posix_rule {
	int32_t std_off, dst_off;
	bool has_dst;
	rule_date start, end;
} posix_rule;

struct dl_tz {
	char *id;            /* the id it was requested by (the cache key) */
	char *name;
	int64_t *trans;      /* transition instants, UTC seconds, ascending */
	uint8_t *trans_type; /* index into type_off for each transition */
	size_t ntrans;
	int32_t *type_off;   /* offsets of the local time types */
	size_t ntypes;
	bool has_rule;
	posix_rule rule;
	int32_t fixed;       /* used when there are no types and no rule */
	struct dl_tz *next;  /* cache chain */
};

static dl_tz g_utc = {.name = "UTC"};
static pthread_mutex_t g_lock = PTHREAD_MUTEX_INITIALIZER;
static dl_tz *g_cache;

const dl_tz *dl_tz_utc(void)
{
	return &g_utc;
}

const char *dl_tz_name(const dl_tz *tz)
{
	return tz->name;
}

/* ---- offsets ---- */

static int parse_digits(const char *s, size_t n, size_t *i, int maxd, int *out)
{
	int v = 0, d = 0;
	while (*i < n && d < maxd && isdigit((unsigned char)s[*i])) v = v * 10 + (s[(*i)++] - '0'), d++;
	*out = v;
	return d;
}

/* "+h", "+hh", "+hh:mm", "+hhmm", "+hh:mm:ss", "+hhmmss" -> seconds. */
static bool parse_fixed_offset(const char *s, size_t n, int32_t *out)
{
	if (n < 2 || (s[0] != '+' && s[0] != '-')) return false;
	size_t i = 1;
	int h, m = 0, sec = 0;
	if (parse_digits(s, n, &i, 2, &h) == 0) return false;
	if (i < n) {
		bool colon = s[i] == ':';
		if (colon) i++;
		if (parse_digits(s, n, &i, 2, &m) != 2) return false;
		if (i < n) {
			if (colon != (s[i] == ':')) return false;
			if (colon) i++;
			if (parse_digits(s, n, &i, 2, &sec) != 2) return false;
		}
	}
	if (i != n || m > 59 || sec > 59) return false;
	int32_t v = h * 3600 + m * 60 + sec;
	if (v > MAX_OFFSET) return false;
	*out = s[0] == '-' ? -v : v;
	return true;
}

static void format_offset(char *out, size_t cap, int32_t off)
{
	int32_t a = off < 0 ? -off : off;
	if (a % 60)
		snprintf(out, cap, "%c%02d:%02d:%02d", off < 0 ? '-' : '+', a / 3600, a / 60 % 60, a % 60);
	else
		snprintf(out, cap, "%c%02d:%02d", off < 0 ? '-' : '+', a / 3600, a / 60 % 60);
}

/* ---- POSIX TZ rules ---- */

/* Parses [+-]hh[:mm[:ss]] (hours up to 167 for TZif v3 times). */
static bool rule_time(const char **p, int32_t *out)
{
	const char *s = *p;
	int sign = 1;
	if (*s == '+' || *s == '-') sign = *s++ == '-' ? -1 : 1;
	if (!isdigit((unsigned char)*s)) return false;
	int32_t v = 0;
	for (int k = 0; k < 3 && isdigit((unsigned char)*s); k++) v = v * 10 + (*s++ - '0');
	if (v > 167) return false;
	v *= 3600;
	for (int part = 0; part < 2 && *s == ':'; part++) {
		s++;
		if (!isdigit((unsigned char)s[0]) || !isdigit((unsigned char)s[1])) return false;
		int x = (s[0] - '0') * 10 + (s[1] - '0');
		if (x > 59) return false;
		v += part == 0 ? x * 60 : x;
		s += 2;
	}
	*out = sign * v;
	*p = s;
	return true;
}

static bool rule_name(const char **p)
{
	const char *s = *p;
	if (*s == '<') {
		while (*s && *s != '>') s++;
		if (*s != '>') return false;
		*p = s + 1;
		return true;
	}
	while (isalpha((unsigned char)*s)) s++;
	if (s - *p < 3) return false;
	*p = s;
	return true;
}

static bool rule_int(const char **p, int lo, int hi, int *out)
{
	const char *s = *p;
	int v = 0, d = 0;
	while (isdigit((unsigned char)*s) && d < 4) v = v * 10 + (*s++ - '0'), d++;
	if (d == 0 || v < lo || v > hi) return false;
	*out = v;
	*p = s;
	return true;
}

static bool rule_date_parse(const char **p, rule_date *r)
{
	const char *s = *p;
	bool ok;
	if (*s == 'M') {
		s++;
		r->kind = 'M';
		ok = rule_int(&s, 1, 12, &r->m) && *s++ == '.' && rule_int(&s, 1, 5, &r->w) &&
		     *s++ == '.' && rule_int(&s, 0, 6, &r->d);
	} else if (*s == 'J') {
		s++;
		r->kind = 'J';
		ok = rule_int(&s, 1, 365, &r->n);
	} else {
		r->kind = 'N';
		ok = rule_int(&s, 0, 365, &r->n);
	}
	if (!ok) return false;
	r->time = 7200;
	if (*s == '/' && (s++, !rule_time(&s, &r->time))) return false;
	*p = s;
	return true;
}

/* "PST8PDT,M3.2.0,M11.1.0", "<+0530>-5:30", "CET-1CEST,M3.5.0,M10.5.0/3". */
static bool rule_parse(const char *s, posix_rule *r)
{
	int32_t west;
	memset(r, 0, sizeof *r);
	if (!rule_name(&s) || !rule_time(&s, &west)) return false;
	r->std_off = -west;
	if (*s == 0) return true;
	if (!rule_name(&s)) return false;
	r->has_dst = true;
	r->dst_off = r->std_off + 3600;
	if (*s && *s != ',') {
		if (!rule_time(&s, &west)) return false;
		r->dst_off = -west;
	}
	if (*s == 0) {
		/* No dates: POSIX leaves them to the implementation; US rules. */
		r->start = (rule_date){'M', 3, 2, 0, 0, 7200};
		r->end = (rule_date){'M', 11, 1, 0, 0, 7200};
		return true;
	}
	return *s++ == ',' && rule_date_parse(&s, &r->start) && *s++ == ',' &&
	       rule_date_parse(&s, &r->end) && *s == 0;
}

/* Days since epoch of a rule date in `year`. */
static int64_t rule_day(const rule_date *r, int64_t year)
{
	int64_t jan1 = dl_days_from_civil(year, 1, 1);
	bool leap = dl_is_leap_year(year);
	if (r->kind == 'J') return jan1 + r->n - 1 + (leap && r->n >= 60 ? 1 : 0);
	if (r->kind == 'N') return jan1 + r->n;
	int64_t first = dl_days_from_civil(year, r->m, 1);
	int wd_first = (int)(((first + 4) % 7 + 7) % 7); /* 1970-01-01 was a Thursday */
	int64_t day = first + (r->d - wd_first + 7) % 7 + (int64_t)(r->w - 1) * 7;
	int mdays = dl_days_in_month(year, r->m);
	while (day >= first + mdays) day -= 7; /* week 5 means "last" */
	return day;
}

static int32_t rule_offset_at(const posix_rule *r, int64_t utc_s)
{
	if (!r->has_dst) return r->std_off;
	/* Far beyond any real date (+-30 million years) the rule is the same;
	 * clamping keeps the day arithmetic below from overflowing. */
	const int64_t limit = INT64_C(1) << 50;
	if (utc_s > limit) utc_s = limit;
	if (utc_s < -limit) utc_s = -limit;
	int64_t y;
	int m, d;
	dl_civil_from_days(dl_floor_div(utc_s + r->std_off, 86400), &y, &m, &d);
	/* Start is given in standard local time, end in daylight local time. */
	int64_t start = rule_day(&r->start, y) * 86400 + r->start.time - r->std_off;
	int64_t end = rule_day(&r->end, y) * 86400 + r->end.time - r->dst_off;
	bool dst = start < end ? (utc_s >= start && utc_s < end) : !(utc_s >= end && utc_s < start);
	return dst ? r->dst_off : r->std_off;
}

/* ---- TZif ---- */

static uint32_t be32(const uint8_t *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

static int64_t be64(const uint8_t *p)
{
	return (int64_t)((uint64_t)be32(p) << 32 | be32(p + 4));
}

typedef struct tzif_counts {
	uint32_t isut, isstd, leap, time, type, chars;
} tzif_counts;

static int corrupt(const char *path, const char *what)
{
	return dl_error_set(DL_ECORRUPT, "time zone file %s is malformed: %s; reinstall tzdata", path, what);
}

/* Reads a header at p (44 bytes) and the size of the data block after it. */
static int tzif_header(const uint8_t *p, size_t avail, int tsize, tzif_counts *c, size_t *block,
                       const char *path)
{
	if (avail < 44 || memcmp(p, "TZif", 4) != 0) return corrupt(path, "bad header");
	c->isut = be32(p + 20);
	c->isstd = be32(p + 24);
	c->leap = be32(p + 28);
	c->time = be32(p + 32);
	c->type = be32(p + 36);
	c->chars = be32(p + 40);
	if (c->type == 0 || c->type > 256 || c->time > 100000 || c->leap > 100000 ||
	    c->chars > 100000 || (c->isut && c->isut != c->type) || (c->isstd && c->isstd != c->type))
		return corrupt(path, "impossible counts");
	*block = (size_t)c->time * (tsize + 1) + (size_t)c->type * 6 + c->chars +
	         (size_t)c->leap * (tsize + 4) + c->isstd + c->isut;
	if (*block > avail - 44) return corrupt(path, "truncated data block");
	return 0;
}

/* The v2+ footer: "\n<POSIX TZ string>\n"; an empty string means no rule. */
static int tzif_footer(dl_tz *tz, const uint8_t *f, size_t avail, const char *path)
{
	if (avail == 0 || f[0] != '\n') return 0;
	const uint8_t *nl = memchr(f + 1, '\n', avail - 1);
	if (!nl) return corrupt(path, "unterminated footer");
	size_t len = (size_t)(nl - (f + 1));
	char rule[128];
	if (len == 0) return 0;
	if (len >= sizeof rule) return corrupt(path, "footer too long");
	memcpy(rule, f + 1, len);
	rule[len] = 0;
	if (!rule_parse(rule, &tz->rule)) return corrupt(path, "bad POSIX TZ footer");
	tz->has_rule = true;
	return 0;
}

static int tzif_parse(dl_tz *tz, const uint8_t *buf, size_t n, const char *path)
{
	tzif_counts c;
	size_t block;
	DL_TRY(tzif_header(buf, n, 4, &c, &block, path));
	const uint8_t *data = buf + 44;
	int tsize = 4;
	if (buf[4] >= '2') {
		/* Skip the 32-bit block; the 64-bit one follows with the footer. */
		size_t off = 44 + block;
		DL_TRY(tzif_header(buf + off, n - off, 8, &c, &block, path));
		data = buf + off + 44;
		tsize = 8;
	}
	tz->ntrans = c.time;
	tz->ntypes = c.type;
	tz->trans = dl_calloc(c.time ? c.time : 1, sizeof *tz->trans);
	tz->trans_type = dl_calloc(c.time ? c.time : 1, 1);
	tz->type_off = dl_calloc(c.type, sizeof *tz->type_off);
	if (!tz->trans || !tz->trans_type || !tz->type_off) return DL_ENOMEM;
	const uint8_t *p = data;
	for (uint32_t i = 0; i < c.time; i++) {
		tz->trans[i] = tsize == 8 ? be64(p + (size_t)i * 8) : (int32_t)be32(p + (size_t)i * 4);
		if (i > 0 && tz->trans[i] <= tz->trans[i - 1]) return corrupt(path, "unsorted transitions");
	}
	p += (size_t)c.time * tsize;
	for (uint32_t i = 0; i < c.time; i++) {
		if (p[i] >= c.type) return corrupt(path, "transition names a missing type");
		tz->trans_type[i] = p[i];
	}
	p += c.time;
	for (uint32_t i = 0; i < c.type; i++) {
		int32_t off = (int32_t)be32(p + (size_t)i * 6);
		if (off < -25 * 3600 || off > 26 * 3600) return corrupt(path, "offset out of range");
		tz->type_off[i] = off;
	}
	if (tsize == 8) DL_TRY(tzif_footer(tz, data + block, (size_t)(buf + n - (data + block)), path));
	return 0;
}

static int read_small_file(const char *path, uint8_t **out, size_t *len)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0) return -1;
	uint8_t *buf = dl_malloc(TZ_FILE_MAX);
	if (!buf) {
		close(fd);
		return DL_ENOMEM;
	}
	size_t n = 0;
	for (;;) {
		ssize_t r = read(fd, buf + n, TZ_FILE_MAX - n);
		if (r < 0 && errno == EINTR) continue;
		if (r <= 0) break;
		n += (size_t)r;
		if (n == TZ_FILE_MAX) break;
	}
	close(fd);
	*out = buf;
	*len = n;
	return 0;
}

static bool valid_region(const char *s, size_t n)
{
	if (n == 0 || n > 200 || s[0] == '/' || s[0] == '.') return false;
	for (size_t i = 0; i < n; i++) {
		unsigned char c = (unsigned char)s[i];
		if (!(isalnum(c) || c == '/' || c == '_' || c == '-' || c == '+')) return false;
		if (c == '/' && i + 1 < n && s[i + 1] == '.') return false;
	}
	return true;
}

static int load_region(dl_tz *tz, const char *name)
{
	char path[256];
	snprintf(path, sizeof path, "%s/%s", TZ_DIR, name);
	uint8_t *buf = NULL;
	size_t n = 0;
	int rc = read_small_file(path, &buf, &n);
	if (rc == DL_ENOMEM) return rc;
	if (rc < 0)
		return dl_error_set(DL_EINVALID,
		                    "unknown time zone \"%s\" (no %s): use a region like "
		                    "America/Los_Angeles, UTC or an offset like +05:30", name, path);
	/* A directory ("America") or another file of the database
	 * ("leapseconds") is not a zone. */
	if (n < 4 || memcmp(buf, "TZif", 4) != 0)
		rc = dl_error_set(DL_EINVALID,
		                  "\"%s\" is not a time zone: use a region like America/Los_Angeles, UTC "
		                  "or an offset like +05:30", name);
	else
		rc = tzif_parse(tz, buf, n, path);
	dl_free(buf);
	return rc;
}

/* ---- resolution and cache ---- */

static const char *const short_ids[][2] = {
	{"ACT", "Australia/Darwin"}, {"AET", "Australia/Sydney"},
	{"AGT", "America/Argentina/Buenos_Aires"}, {"ART", "Africa/Cairo"},
	{"AST", "America/Anchorage"}, {"BET", "America/Sao_Paulo"}, {"BST", "Asia/Dhaka"},
	{"CAT", "Africa/Harare"}, {"CNT", "America/St_Johns"}, {"CST", "America/Chicago"},
	{"CTT", "Asia/Shanghai"}, {"EAT", "Africa/Addis_Ababa"}, {"ECT", "Europe/Paris"},
	{"EST", "-05:00"}, {"HST", "-10:00"}, {"IET", "America/Indiana/Indianapolis"},
	{"IST", "Asia/Kolkata"}, {"JST", "Asia/Tokyo"}, {"MIT", "Pacific/Apia"},
	{"MST", "-07:00"}, {"NET", "Asia/Yerevan"}, {"NST", "Pacific/Auckland"},
	{"PLT", "Asia/Karachi"}, {"PNT", "America/Phoenix"}, {"PRT", "America/Puerto_Rico"},
	{"PST", "America/Los_Angeles"}, {"SST", "Pacific/Guadalcanal"}, {"VST", "Asia/Ho_Chi_Minh"},
};

static bool is_utc_name(const char *s, size_t n)
{
	static const char *const names[] = {"Z", "UTC", "GMT", "UT", "Etc/UTC", "Etc/GMT", "UCT",
	                                    "Zulu", "Etc/Zulu", "Universal", "Etc/Universal"};
	for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
		if (strlen(names[i]) == n && strncasecmp(names[i], s, n) == 0) return true;
	return false;
}

/* Builds the zone for a (short-id-mapped) name into tz. */
static int build(dl_tz *tz, const char *s, size_t n)
{
	char norm[32];
	int32_t off;
	size_t pre = 0;
	if (n > 3 && (strncmp(s, "UTC", 3) == 0 || strncmp(s, "GMT", 3) == 0) && (s[3] == '+' || s[3] == '-'))
		pre = 3;
	else if (n > 2 && strncmp(s, "UT", 2) == 0 && (s[2] == '+' || s[2] == '-'))
		pre = 2;
	if (is_utc_name(s, n)) {
		tz->fixed = 0;
		tz->name = dl_strdup("UTC");
	} else if ((pre || s[0] == '+' || s[0] == '-') && parse_fixed_offset(s + pre, n - pre, &off)) {
		format_offset(norm, sizeof norm, off);
		tz->fixed = off;
		tz->name = dl_strdup(norm);
	} else if (pre || s[0] == '+' || s[0] == '-') {
		return dl_error_set(DL_EINVALID,
		                    "bad time zone offset \"%.*s\": write +hh:mm (from -18:00 to +18:00)",
		                    (int)n, s);
	} else if (valid_region(s, n)) {
		tz->name = dl_strndup(s, n);
		if (!tz->name) return DL_ENOMEM;
		return load_region(tz, tz->name);
	} else {
		return dl_error_set(DL_EINVALID,
		                    "bad time zone id \"%.*s\": use a region like Europe/Paris, UTC or +05:30",
		                    (int)(n > 100 ? 100 : n), s);
	}
	return tz->name ? 0 : DL_ENOMEM;
}

static void tz_free(dl_tz *tz)
{
	dl_free(tz->id);
	dl_free(tz->name);
	dl_free(tz->trans);
	dl_free(tz->trans_type);
	dl_free(tz->type_off);
	dl_free(tz);
}

/* Cached by the id as given ("Z" and "+5:30" too, whose names differ), so
 * parsing many timestamps never grows the cache; ids are few, so the chain
 * stays short. */
int dl_tz_get(const dl_tz **out, const char *name, size_t n)
{
	*out = NULL;
	if (n == 0)
		return dl_error_set(DL_EINVALID,
		                    "empty time zone id: use a region like Europe/Paris, UTC or +05:30");
	if (n == 3 && memcmp(name, "UTC", 3) == 0) {
		*out = &g_utc;
		return 0;
	}
	const char *s = name;
	size_t sn = n;
	for (size_t i = 0; i < sizeof short_ids / sizeof short_ids[0]; i++)
		if (n == 3 && memcmp(name, short_ids[i][0], 3) == 0) s = short_ids[i][1], sn = strlen(s);
	pthread_mutex_lock(&g_lock);
	for (dl_tz *t = g_cache; t; t = t->next) {
		if (strlen(t->id) == sn && memcmp(t->id, s, sn) == 0) {
			*out = t;
			break;
		}
	}
	int rc = 0;
	if (!*out) {
		dl_tz *tz = dl_calloc(1, sizeof *tz);
		rc = tz ? build(tz, s, sn) : DL_ENOMEM;
		if (rc == 0 && !(tz->id = dl_strndup(s, sn))) rc = DL_ENOMEM;
		if (rc < 0) {
			if (tz) tz_free(tz);
		} else {
			tz->next = g_cache;
			g_cache = tz;
			*out = tz;
		}
	}
	pthread_mutex_unlock(&g_lock);
	return rc;
}

int32_t dl_tz_offset_at(const dl_tz *tz, int64_t utc_s)
{
	if (tz->ntrans == 0) {
		if (tz->has_rule) return rule_offset_at(&tz->rule, utc_s);
		return tz->ntypes ? tz->type_off[0] : tz->fixed;
	}
	if (utc_s < tz->trans[0]) return tz->type_off[0];
	if (utc_s >= tz->trans[tz->ntrans - 1] && tz->has_rule) return rule_offset_at(&tz->rule, utc_s);
	size_t lo = 0, hi = tz->ntrans; /* last transition <= utc_s */
	while (hi - lo > 1) {
		size_t mid = lo + (hi - lo) / 2;
		if (tz->trans[mid] <= utc_s) lo = mid;
		else hi = mid;
	}
	return tz->type_off[tz->trans_type[lo]];
}

int64_t dl_tz_local_to_utc(const dl_tz *tz, int64_t local_s)
{
	/* Offsets a day before and after bracket any single transition. */
	int32_t before = dl_tz_offset_at(tz, local_s - 86400 - 26 * 3600);
	int32_t after = dl_tz_offset_at(tz, local_s + 86400 + 26 * 3600);
	int64_t ua = local_s - before, ub = local_s - after;
	if (before == after) {
		int32_t o = dl_tz_offset_at(tz, ua);
		return local_s - o;
	}
	bool valid_a = dl_tz_offset_at(tz, ua) == before;
	bool valid_b = dl_tz_offset_at(tz, ub) == after;
	/* Overlap: both valid, the earlier offset (before) wins. Gap: neither,
	 * and moving later by the gap gives local - before as well. */
	if (valid_b && !valid_a) return ub;
	return ua;
}
