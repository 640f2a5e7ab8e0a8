/* Time zones, resolved the way Spark's ZoneId.of does: "UTC", "Z", "GMT",
 * fixed offsets ("+05:30", "-0800", "+5", "UTC+05:30", "GMT-8"), region ids
 * ("America/Los_Angeles", read from the TZif files in /usr/share/zoneinfo
 * by our own reader, including the POSIX rule that extends a zone past its
 * last listed transition) and Java's short ids ("PST", "IST", ...).
 *
 * Zones are loaded once and cached for the life of the process, so the
 * returned pointers never dangle and lookups are thread safe. We never touch
 * the TZ environment variable or the C library's localtime. */
#ifndef DL_UTIL_TZ_H
#define DL_UTIL_TZ_H
#include <stddef.h>
#include <stdint.h>

typedef struct dl_tz dl_tz;

/* Resolves a zone id (name[0..n)). DL_EINVALID for a malformed or unknown
 * id. The result is shared and must not be freed. */
int dl_tz_get(const dl_tz **out, const char *name, size_t n);
/* The UTC zone (never fails). */
const dl_tz *dl_tz_utc(void);
/* The id the zone was resolved from, normalized for offsets ("+05:30"). */
const char *dl_tz_name(const dl_tz *tz);

/* Offset from UTC in seconds (east positive) at the UTC instant `utc_s`. */
int32_t dl_tz_offset_at(const dl_tz *tz, int64_t utc_s);
/* Local wall-clock seconds -> UTC seconds with java.time's rules: in a gap
 * (spring forward) the time moves later by the gap's length; in an overlap
 * (fall back) the earlier offset wins. */
int64_t dl_tz_local_to_utc(const dl_tz *tz, int64_t local_s);

#endif
