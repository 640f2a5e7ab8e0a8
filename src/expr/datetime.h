/* Calendar arithmetic (proleptic Gregorian, as Spark 3+), the string forms
 * of dates and timestamps that Spark's casts accept and print, and Java
 * DateTimeFormatter patterns for date_format/to_timestamp. Time zones come
 * from util/tz.h. */
#ifndef DL_EXPR_DATETIME_H
#define DL_EXPR_DATETIME_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "util/buf.h"
#include "util/time.h" /* calendar: dl_days_from_civil, dl_floor_div... */
#include "util/tz.h"

#define EX_US_PER_DAY 86400000000LL

/* Days -> microseconds, saturating at the int64 range (dates from data
 * files may be any int32). */
int64_t ex_days_to_us(int64_t days);
/* Splits microseconds into days and time of day (0 <= tod < a day) without
 * overflow at the ends of the range. */
void ex_split_us(int64_t us, int64_t *days, int64_t *tod);
#define EX_MAX_TS_DAYS 106751990 /* days representable in int64 microseconds */

/* Spark's string -> date cast: [+-]yyyy[-[m]m[-[d]d]] then optionally ' ' or
 * 'T' and anything; surrounding whitespace trimmed. */
bool ex_date_parse(const char *s, size_t n, int32_t *days);
/* Spark's string -> timestamp cast: a date as above, then [T ]h:m[:s[.f]]
 * and an optional zone (Z, +hh:mm, UTC, region id). Without a zone the
 * wall clock is in `tz` (NULL = UTC). For NTZ the zone is ignored. */
bool ex_ts_parse(const char *s, size_t n, bool ntz, const dl_tz *tz, int64_t *us);

/* The same, telling whether the text named a zone. */
bool ex_ts_parse_zone(const char *s, size_t n, bool ntz, const dl_tz *tz, int64_t *us, bool *has_zone);

/* "yyyy-MM-dd". out must hold 32 bytes; returns the length. */
int ex_date_format(char *out, int32_t days);
/* "yyyy-MM-dd HH:mm:ss[.ffffff]" with trailing fraction zeros trimmed, as
 * Spark's cast to string. tz NULL = UTC (also for NTZ). */
int ex_ts_format(char *out, int64_t us, const dl_tz *tz);

/* Local wall-clock microseconds of an instant. */
int64_t ex_ts_to_local(int64_t us, const dl_tz *tz);
int64_t ex_local_to_ts(int64_t local_us, const dl_tz *tz);

/* Java DateTimeFormatter pattern formatting of local microseconds. */
int ex_pattern_format(dl_buf *out, int64_t local_us, const char *pat, size_t plen);
/* Parses text with a pattern into local microseconds; false when the text
 * does not match. */
bool ex_pattern_parse(const char *s, size_t n, const char *pat, size_t plen, int64_t *local_us);

#endif
