/* Time: epoch microseconds, proleptic Gregorian dates, and the timestamp
 * text forms Delta uses - Spark's "yyyy-MM-dd HH:mm:ss[.SSSSSS]" for
 * partition values and ISO 8601 ("2021-09-08T11:11:11.123456Z") for stats
 * and commit timestamps - with time zones from util/tz.h.
 *
 * Timestamps are int64 microseconds since 1970-01-01 00:00:00 UTC; dates are
 * days since 1970-01-01. Timestamps without time zone (TIMESTAMP_NTZ) are
 * the same count taken as wall-clock time: pass tz = NULL. */
#ifndef DL_UTIL_TIME_H
#define DL_UTIL_TIME_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "util/tz.h"

#define DL_MICROS_PER_SECOND INT64_C(1000000)
#define DL_MICROS_PER_DAY INT64_C(86400000000)
/* Room for any formatted date or timestamp, with the NUL. */
#define DL_TIME_TEXT_MAX 64

/* Division and remainder rounding toward negative infinity (b > 0). */
int64_t dl_floor_div(int64_t a, int64_t b);
int64_t dl_floor_mod(int64_t a, int64_t b);

/* ---- clocks ---- */
int64_t dl_now_micros(void);   /* wall clock, epoch microseconds */
int64_t dl_now_millis(void);   /* wall clock, epoch milliseconds */
int64_t dl_monotonic_ns(void); /* for measuring durations only */

/* ---- proleptic Gregorian calendar ---- */
bool dl_is_leap_year(int64_t year);
int dl_days_in_month(int64_t year, int month); /* month 1..12 */
/* Days since 1970-01-01 of y-m-d (month 1..12, day 1..31, any year). */
int64_t dl_days_from_civil(int64_t year, int month, int day);
void dl_civil_from_days(int64_t days, int64_t *year, int *month, int *day);

/* ---- dates ---- */
/* "yyyy", "yyyy-[m]m", "yyyy-[m]m-[d]d", optionally followed by ' ' or 'T'
 * and anything (as Spark's stringToDate); surrounding spaces are ignored.
 * DL_EINVALID when malformed or not a real date. */
int dl_date_parse(int32_t *days, const char *s, size_t n);
/* "yyyy-MM-dd" (years beyond 9999 get a '+'). Returns the length. */
size_t dl_date_format(char out[DL_TIME_TEXT_MAX], int32_t days);

/* ---- timestamps ---- */
/* Spark's stringToTimestamp forms:
 *   yyyy[-[m]m[-[d]d]][( |T)[h]h:[m]m[:[s]s[.fraction]]][ ][zone]
 * e.g. "2021-09-08 11:11:11", "2021-09-08T11:11:11.123456Z",
 * "2021-09-08 11:11:11+05:30", "2021-09-08 11:11:11 America/Los_Angeles".
 * Without a zone in the text, default_tz applies (NULL = UTC). Digits of the
 * fraction beyond microseconds are truncated. DL_EINVALID when malformed. */
int dl_timestamp_parse(int64_t *micros, const char *s, size_t n, const dl_tz *default_tz);
/* The same for TIMESTAMP_NTZ: wall-clock time, a zone in the text is an error. */
int dl_timestamp_ntz_parse(int64_t *micros, const char *s, size_t n);

/* Spark's partition value form "yyyy-MM-dd HH:mm:ss[.SSSSSS]" in zone tz
 * (NULL: micros is wall-clock time); the fraction is printed only when not
 * zero, without trailing zeros ("...:01.5"). Returns the length. */
size_t dl_timestamp_format_spark(char out[DL_TIME_TEXT_MAX], int64_t micros, const dl_tz *tz);
/* ISO 8601 "yyyy-MM-ddTHH:mm:ss[.f...]<zone>" with exactly frac_digits (0..6,
 * truncated) fraction digits; zone is "Z" at offset 0, else "+hh:mm"; with
 * tz NULL there is no zone suffix. Returns the length. */
size_t dl_timestamp_format_iso(char out[DL_TIME_TEXT_MAX], int64_t micros, const dl_tz *tz,
                               int frac_digits);

#endif
