/* Timestamp text as Spark reads and prints it, for programs that take
 * --timestamp style arguments (time travel, change data feed bounds) or
 * show commit times the way Delta's tools do. Thread-safe. */
#ifndef DELTALAKE_TIMESTAMP_H
#define DELTALAKE_TIMESTAMP_H
#include "deltalake/common.h"
#include "deltalake/error.h"
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Room for any text dl_timestamp_format writes, NUL included. */
#define DL_TIMESTAMP_TEXT_MAX 64

/* Parses Spark's timestamp forms (stringToTimestamp):
 *   yyyy[-[m]m[-[d]d]][( |T)[h]h:[m]m[:[s]s[.fraction]]][ ][zone]
 * e.g. "2024-01-31", "2024-01-31 12:00:00", "2024-01-31T12:00:00.123Z",
 * "2024-01-31 12:00:00+05:30", "2024-01-31 12:00:00 America/Los_Angeles",
 * into microseconds since the epoch. UTC unless the text names a zone;
 * fraction digits beyond microseconds are truncated. DL_EINVALID (with a
 * message naming the text) when malformed. */
DL_EXTERN(int) dl_timestamp_parse_text(int64_t *us, const char *text);

/* "2024-01-31 12:00:00[.fraction]" in UTC for microseconds since the
 * epoch, the fraction without trailing zeros and only when not zero (the
 * form of Spark's partition values and of `deltalake history`). Writes at
 * most n bytes including the NUL (DL_TIMESTAMP_TEXT_MAX always suffices)
 * and returns the length of the whole text. */
DL_EXTERN(size_t) dl_timestamp_format(char *buf, size_t n, int64_t us);

#ifdef __cplusplus
}
#endif

#endif
