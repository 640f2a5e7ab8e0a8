/* Durations of table properties (delta.logRetentionDuration,
 * delta.deletedFileRetentionDuration, ...), parsed like Delta does: Spark's
 * CalendarInterval text with an optional "interval" prefix. */
#ifndef DL_UTIL_INTERVAL_H
#define DL_UTIL_INTERVAL_H
#include <stddef.h>
#include <stdint.h>

/* "interval 7 days", "1 week", "30 days", "interval 1 hour 30 minutes",
 * "'3650 days'", "2 minutes", "1.5 seconds" -> microseconds. Units
 * (case-insensitive, singular or plural): microsecond, millisecond, second,
 * minute, hour, day, week; a fraction is allowed for seconds only (as in
 * Spark). Months and years have no fixed length and are rejected, as is a
 * negative total. DL_EINVALID with the reason when malformed. */
int dl_duration_parse(int64_t *micros, const char *s, size_t n);

#endif
