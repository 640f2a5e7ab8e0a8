/* Dates, timestamps, time zones (our TZif reader against glibc's), and
 * duration parsing. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "util/error.h"
#include "util/interval.h"
#include "util/time.h"
#include "util/tz.h"

static const dl_tz *zone(const char *name)
{
	const dl_tz *tz = NULL;
	assert_int_equal(dl_tz_get(&tz, name, strlen(name)), 0);
	assert_non_null(tz);
	return tz;
}

static int64_t ts(const char *s, const dl_tz *tz)
{
	int64_t v = 0;
	int rc = dl_timestamp_parse(&v, s, strlen(s), tz);
	if (rc != 0) fail_msg("parsing %s: %s", s, dl_error_last()->message);
	return v;
}

static void civil_days(void **state)
{
	(void)state;
	assert_int_equal(dl_days_from_civil(1970, 1, 1), 0);
	assert_int_equal(dl_days_from_civil(1969, 12, 31), -1);
	assert_int_equal(dl_days_from_civil(2000, 3, 1), 11017);
	assert_int_equal(dl_days_from_civil(1, 1, 1), -719162);
	for (int64_t d = -800000; d < 3000000; d += 7) {
		int64_t y;
		int m, dd;
		dl_civil_from_days(d, &y, &m, &dd);
		assert_true(m >= 1 && m <= 12 && dd >= 1 && dd <= dl_days_in_month(y, m));
		assert_int_equal(dl_days_from_civil(y, m, dd), d);
	}
	assert_true(dl_is_leap_year(2000));
	assert_false(dl_is_leap_year(1900));
	assert_int_equal(dl_days_in_month(2024, 2), 29);
	assert_int_equal(dl_floor_div(-1, 86400), -1);
	assert_int_equal(dl_floor_mod(-1, 86400), 86399);
}

static void dates(void **state)
{
	(void)state;
	int32_t d;
	assert_int_equal(dl_date_parse(&d, "2000-03-01", 10), 0);
	assert_int_equal(d, 11017);
	assert_int_equal(dl_date_parse(&d, " 2021-9-8 ", 10), 0);
	assert_int_equal(d, dl_days_from_civil(2021, 9, 8));
	assert_int_equal(dl_date_parse(&d, "2021-09-08 11:11:11", 19), 0);
	assert_int_equal(d, dl_days_from_civil(2021, 9, 8));
	assert_int_equal(dl_date_parse(&d, "2021", 4), 0);
	assert_int_equal(d, dl_days_from_civil(2021, 1, 1));
	assert_int_equal(dl_date_parse(&d, "2024-02-29", 10), 0);
	assert_int_equal(dl_date_parse(&d, "2023-02-29", 10), DL_EINVALID);
	assert_int_equal(dl_date_parse(&d, "2021-13-01", 10), DL_EINVALID);
	assert_int_equal(dl_date_parse(&d, "21-01-01", 8), DL_EINVALID);
	assert_int_equal(dl_date_parse(&d, "2021-01-01x", 11), DL_EINVALID);
	assert_int_equal(dl_date_parse(&d, "", 0), DL_EINVALID);
	char out[DL_TIME_TEXT_MAX];
	assert_int_equal(dl_date_format(out, 11017), 10);
	assert_string_equal(out, "2000-03-01");
	dl_date_format(out, -719162);
	assert_string_equal(out, "0001-01-01");
	dl_date_format(out, -1);
	assert_string_equal(out, "1969-12-31");
}

static void timestamps_utc_and_offsets(void **state)
{
	(void)state;
	assert_int_equal(ts("2021-09-08 11:11:11", NULL), 1631099471000000LL);
	assert_int_equal(ts("2021-09-08T11:11:11.123456Z", NULL), 1631099471123456LL);
	assert_int_equal(ts("2021-09-08T11:11:11.123456789Z", NULL), 1631099471123456LL);
	assert_int_equal(ts("2021-09-08 11:11:11.1", NULL), 1631099471100000LL);
	assert_int_equal(ts("2021-09-08 11:11:11+05:30", NULL), 1631079671000000LL);
	assert_int_equal(ts("2021-09-08 11:11:11 +0530", NULL), 1631079671000000LL);
	assert_int_equal(ts("2021-09-08 11:11:11UTC+05:30", NULL), 1631079671000000LL);
	assert_int_equal(ts("2021-09-08 11:11:11 UTC", zone("+05:30")), 1631099471000000LL);
	assert_int_equal(ts("2021-09-08 11:11:11", zone("+05:30")), 1631079671000000LL);
	assert_int_equal(ts("2021-09-08 16:41:11 GMT+5:30", NULL), 1631099471000000LL);
	assert_int_equal(ts("2021-09-08 11:11", NULL), 1631099460000000LL);
	assert_int_equal(ts("2021-09-08", NULL), 1631059200000000LL);
	assert_int_equal(ts("1969-12-31 23:59:59.999999", NULL), -1);
	assert_string_equal(dl_tz_name(zone("+5:30")), "+05:30");
	assert_string_equal(dl_tz_name(zone("-8")), "-08:00");

	int64_t v;
	const char *bad[] = {"2021-09-08 25:00:00", "2021-02-30 00:00:00", "2021-09-08 11:61:00",
	                     "abc", "2021-09-08 11:11:11 Mars/Olympus", "2021-09-08 11:11:11+19:00",
	                     "2021-09-08 11:11:11.", "2021-09-08 11:11:11 ../../etc/passwd", ""};
	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		assert_int_equal(dl_timestamp_parse(&v, bad[i], strlen(bad[i]), NULL), DL_EINVALID);
		assert_true(strlen(dl_error_last()->message) > 10);
	}
	assert_int_equal(dl_timestamp_ntz_parse(&v, "2021-09-08 11:11:11", 19), 0);
	assert_int_equal(v, 1631099471000000LL);
	assert_int_equal(dl_timestamp_ntz_parse(&v, "2021-09-08 11:11:11Z", 20), DL_EINVALID);
}

static void timestamps_in_regions_and_dst(void **state)
{
	(void)state;
	const dl_tz *la = zone("America/Los_Angeles");
	assert_int_equal(ts("2021-09-08 11:11:11", la), 1631124671000000LL); /* PDT */
	assert_int_equal(ts("2021-01-08 11:11:11", la), 1610133071000000LL); /* PST */
	assert_int_equal(ts("2021-09-08 11:11:11 America/Los_Angeles", NULL), 1631124671000000LL);
	assert_int_equal(ts("2021-09-08 11:11:11 PST", NULL), 1631124671000000LL); /* short id */
	/* Gap: 2021-03-14 02:30 does not exist; java.time moves it to 03:30 PDT. */
	assert_int_equal(ts("2021-03-14 02:30:00", la), ts("2021-03-14T10:30:00Z", NULL));
	assert_int_equal(ts("2021-03-14 01:59:59", la), ts("2021-03-14T09:59:59Z", NULL));
	assert_int_equal(ts("2021-03-14 03:00:00", la), ts("2021-03-14T10:00:00Z", NULL));
	/* Overlap: 01:30 happens twice on 2021-11-07; the earlier offset (PDT) wins. */
	assert_int_equal(ts("2021-11-07 01:30:00", la), ts("2021-11-07T08:30:00Z", NULL));
	assert_int_equal(ts("2021-11-07 02:00:00", la), ts("2021-11-07T10:00:00Z", NULL));

	char out[DL_TIME_TEXT_MAX];
	dl_timestamp_format_spark(out, ts("2021-03-14T09:59:59Z", NULL), la);
	assert_string_equal(out, "2021-03-14 01:59:59");
	dl_timestamp_format_spark(out, ts("2021-03-14T10:00:00Z", NULL), la);
	assert_string_equal(out, "2021-03-14 03:00:00");
	dl_timestamp_format_spark(out, ts("2021-11-07T08:30:00Z", NULL), la);
	assert_string_equal(out, "2021-11-07 01:30:00");
	dl_timestamp_format_spark(out, ts("2021-11-07T09:30:00Z", NULL), la);
	assert_string_equal(out, "2021-11-07 01:30:00");

	/* Past the last transition in the file, the POSIX footer rule applies. */
	assert_int_equal(dl_tz_offset_at(la, ts("2100-07-01 12:00:00", NULL) / 1000000), -7 * 3600);
	assert_int_equal(dl_tz_offset_at(la, ts("2100-12-01 12:00:00", NULL) / 1000000), -8 * 3600);
	const dl_tz *syd = zone("Australia/Sydney");
	assert_int_equal(dl_tz_offset_at(syd, ts("2090-01-15 00:00:00", NULL) / 1000000), 11 * 3600);
	assert_int_equal(dl_tz_offset_at(syd, ts("2090-07-15 00:00:00", NULL) / 1000000), 10 * 3600);
	const dl_tz *kol = zone("Asia/Kolkata");
	assert_int_equal(dl_tz_offset_at(kol, 1631099471), 19800);
	assert_string_equal(dl_tz_name(zone("IST")), "Asia/Kolkata");

	const dl_tz *bad;
	assert_int_equal(dl_tz_get(&bad, "Nowhere/City", 12), DL_EINVALID);
	assert_int_equal(dl_tz_get(&bad, "../etc/passwd", 13), DL_EINVALID);
	assert_int_equal(dl_tz_get(&bad, "+25:00", 6), DL_EINVALID);
	assert_int_equal(dl_tz_get(&bad, "", 0), DL_EINVALID);
	char *heap = malloc(1); /* an empty id at the very end of a buffer */
	assert_int_equal(dl_tz_get(&bad, heap + 1, 0), DL_EINVALID);
	free(heap);
	assert_int_equal(dl_tz_get(&bad, "America", 7), DL_EINVALID); /* a directory */
	assert_int_equal(dl_tz_get(&bad, "leapseconds", 11), DL_EINVALID);
	assert_non_null(strstr(dl_error_last()->message, "not a time zone"));
	/* Offsets at absurd instants stay defined. */
	int32_t far = dl_tz_offset_at(la, INT64_MAX);
	assert_true(far == -8 * 3600 || far == -7 * 3600);
	far = dl_tz_offset_at(la, INT64_MIN);
	assert_true(far < 0 && far > -9 * 3600);
}

/* Our TZif reader agrees with glibc's for every hour-ish step over 200
 * years in zones with odd rules. Only this test sets TZ (the library never
 * does). */
static void tzif_matches_glibc(void **state)
{
	(void)state;
	const char *zones[] = {"America/Los_Angeles", "Europe/London",   "Australia/Sydney",
	                       "Asia/Kolkata",        "America/St_Johns", "Pacific/Apia",
	                       "Europe/Dublin",       "America/Sao_Paulo", "Africa/Casablanca",
	                       "Australia/Lord_Howe", "Asia/Tehran",      "Pacific/Chatham"};
	for (size_t z = 0; z < sizeof zones / sizeof zones[0]; z++) {
		const dl_tz *tz = zone(zones[z]);
		setenv("TZ", zones[z], 1);
		tzset();
		int mismatches = 0;
		for (int64_t t = -2208988800LL; t < 4102444800LL; t += 3 * 3600 + 17) {
			time_t tt = (time_t)t;
			struct tm tm;
			localtime_r(&tt, &tm);
			if (tm.tm_gmtoff != dl_tz_offset_at(tz, t)) {
				if (mismatches++ < 3)
					print_message("%s at %lld: glibc %ld ours %d\n", zones[z], (long long)t,
					              tm.tm_gmtoff, dl_tz_offset_at(tz, t));
			}
		}
		assert_int_equal(mismatches, 0);
	}
	unsetenv("TZ");
}

static void formats(void **state)
{
	(void)state;
	char out[DL_TIME_TEXT_MAX];
	int64_t t = 1631099471123456LL;
	assert_int_equal(dl_timestamp_format_spark(out, t, NULL), 26);
	assert_string_equal(out, "2021-09-08 11:11:11.123456");
	dl_timestamp_format_spark(out, 1631099471000000LL, dl_tz_utc());
	assert_string_equal(out, "2021-09-08 11:11:11");
	dl_timestamp_format_spark(out, 1631099471500000LL, NULL);
	assert_string_equal(out, "2021-09-08 11:11:11.5");
	dl_timestamp_format_spark(out, -1, NULL);
	assert_string_equal(out, "1969-12-31 23:59:59.999999");
	dl_timestamp_format_iso(out, t, dl_tz_utc(), 6);
	assert_string_equal(out, "2021-09-08T11:11:11.123456Z");
	dl_timestamp_format_iso(out, t, zone("America/Los_Angeles"), 3);
	assert_string_equal(out, "2021-09-08T04:11:11.123-07:00");
	dl_timestamp_format_iso(out, t, zone("+05:30"), 0);
	assert_string_equal(out, "2021-09-08T16:41:11+05:30");
	dl_timestamp_format_iso(out, t, NULL, 3);
	assert_string_equal(out, "2021-09-08T11:11:11.123");
	/* Round trip through both forms. */
	for (int64_t v = -5000000000000000LL; v < 5000000000000000LL; v += 123456789012345LL) {
		int64_t back;
		size_t n = dl_timestamp_format_spark(out, v, NULL);
		assert_int_equal(dl_timestamp_parse(&back, out, n, NULL), 0);
		assert_int_equal(back, v);
		n = dl_timestamp_format_iso(out, v, zone("Europe/Paris"), 6);
		assert_int_equal(dl_timestamp_parse(&back, out, n, NULL), 0);
		assert_int_equal(back, v);
	}
}

/* Every int64 formats without overflow: the extremes are years -290308 and
 * +294247, shown with a sign as java.time does; zone offsets may push the
 * wall-clock time past the int64 micros range. */
static void format_extremes(void **state)
{
	(void)state;
	char out[DL_TIME_TEXT_MAX];
	dl_timestamp_format_spark(out, INT64_MIN, NULL);
	assert_string_equal(out, "-290308-12-21 19:59:05.224192");
	dl_timestamp_format_spark(out, INT64_MAX, NULL);
	assert_string_equal(out, "+294247-01-10 04:00:54.775807");
	dl_timestamp_format_iso(out, INT64_MIN, zone("-05:00"), 6);
	assert_string_equal(out, "-290308-12-21T14:59:05.224192-05:00");
	dl_timestamp_format_iso(out, INT64_MAX, zone("+05:30"), 0);
	assert_string_equal(out, "+294247-01-10T09:30:54+05:30");
	dl_timestamp_format_iso(out, INT64_MIN, dl_tz_utc(), 3);
	assert_string_equal(out, "-290308-12-21T19:59:05.224Z");
	const char *zones[] = {"America/Los_Angeles", "Asia/Tokyo", "Europe/Paris"};
	for (size_t i = 0; i < sizeof zones / sizeof *zones; i++) {
		int64_t edges[] = {INT64_MIN, INT64_MIN + 1, INT64_MAX, INT64_MAX - 1};
		for (size_t j = 0; j < 4; j++) {
			size_t n = dl_timestamp_format_iso(out, edges[j], zone(zones[i]), 6);
			assert_true(n > 20 && n < DL_TIME_TEXT_MAX);
			n = dl_timestamp_format_spark(out, edges[j], zone(zones[i]));
			assert_true(n > 20 && n < DL_TIME_TEXT_MAX);
		}
	}
	assert_int_equal(dl_floor_mod(INT64_MIN, DL_MICROS_PER_DAY), 71945224192LL);
	assert_int_equal(dl_floor_mod(-1, 7), 6);
	assert_int_equal(dl_floor_mod(7, 7), 0);
}

static void durations(void **state)
{
	(void)state;
	struct {
		const char *text;
		int64_t micros;
	} ok[] = {
		{"interval 7 days", 7 * DL_MICROS_PER_DAY},
		{"interval 1 weeks", 7 * DL_MICROS_PER_DAY},
		{"'3650 days'", 3650 * DL_MICROS_PER_DAY},
		{"interval '30 days'", 30 * DL_MICROS_PER_DAY},
		{"1 week", 7 * DL_MICROS_PER_DAY},
		{"30 days", 30 * DL_MICROS_PER_DAY},
		{"interval 1 hour", 3600 * DL_MICROS_PER_SECOND},
		{"2 minutes", 120 * DL_MICROS_PER_SECOND},
		{"  INTERVAL 1 Day 12 Hours ", 36 * 3600 * DL_MICROS_PER_SECOND},
		{"1.5 seconds", 1500000},
		{"10 milliseconds 5 microseconds", 10005},
		{"1 day -1 hour", 23 * 3600 * DL_MICROS_PER_SECOND},
		{"0 days", 0},
	};
	for (size_t i = 0; i < sizeof ok / sizeof ok[0]; i++) {
		int64_t v = -1;
		int rc = dl_duration_parse(&v, ok[i].text, strlen(ok[i].text));
		if (rc != 0) fail_msg("%s: %s", ok[i].text, dl_error_last()->message);
		assert_int_equal(v, ok[i].micros);
	}
	struct {
		const char *text;
		const char *why;
	} bad[] = {
		{"interval 1 month", "months and years"}, {"2 years", "months and years"},
		{"7 fortnights", "unknown unit"},         {"days", "expected a number"},
		{"7", "expected a unit"},                 {"7days", "expected a unit"},
		{"", "empty"},                            {"interval", "empty"},
		{"1.5 days", "fractional"},               {"-1 day", "negative"},
		{"99999999999999 weeks", "too large"},    {"1 day,", "unexpected text"},
	};
	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		int64_t v;
		assert_int_equal(dl_duration_parse(&v, bad[i].text, strlen(bad[i].text)), DL_EINVALID);
		if (!strstr(dl_error_last()->message, bad[i].why))
			fail_msg("%s: message \"%s\" lacks \"%s\"", bad[i].text, dl_error_last()->message, bad[i].why);
	}
}

static void *load_zones(void *arg)
{
	const char *names[] = {"Europe/Berlin", "Asia/Tokyo", "America/New_York", "+03:00"};
	for (int i = 0; i < 200; i++) {
		const dl_tz *tz;
		const char *n = names[(i + (int)(intptr_t)arg) % 4];
		if (dl_tz_get(&tz, n, strlen(n)) != 0) return (void *)1;
	}
	return NULL;
}

static void zones_load_from_many_threads(void **state)
{
	(void)state;
	pthread_t th[8];
	for (intptr_t i = 0; i < 8; i++) assert_int_equal(pthread_create(&th[i], NULL, load_zones, (void *)i), 0);
	for (int i = 0; i < 8; i++) {
		void *r;
		pthread_join(th[i], &r);
		assert_null(r);
	}
	const dl_tz *a = zone("Asia/Tokyo"), *b = zone("Asia/Tokyo");
	assert_ptr_equal(a, b);
	/* Ids whose normalized name differs are cached too (no growth per call). */
	assert_ptr_equal(zone("Z"), zone("Z"));
	assert_ptr_equal(zone("+5:30"), zone("+5:30"));
	assert_ptr_equal(zone("GMT-8"), zone("GMT-8"));
	assert_ptr_equal(zone("EST"), zone("EST"));
	assert_int_equal(dl_tz_offset_at(a, 0), 9 * 3600);
}

static void clocks(void **state)
{
	(void)state;
	int64_t a = dl_monotonic_ns(), b = dl_monotonic_ns();
	assert_true(b >= a);
	int64_t now = dl_now_micros();
	assert_true(now > 1700000000000000LL);
	assert_true(dl_now_millis() >= now / 1000);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(civil_days),
		cmocka_unit_test(dates),
		cmocka_unit_test(timestamps_utc_and_offsets),
		cmocka_unit_test(timestamps_in_regions_and_dst),
		cmocka_unit_test(tzif_matches_glibc),
		cmocka_unit_test(formats),
		cmocka_unit_test(format_extremes),
		cmocka_unit_test(durations),
		cmocka_unit_test(zones_load_from_many_threads),
		cmocka_unit_test(clocks),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
