/* Number text for the writers. */
#ifndef DL_JSON_NUMBER_FORMAT_H
#define DL_JSON_NUMBER_FORMAT_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Writes v in decimal into out (at least 21 bytes), no NUL; returns the
 * length. */
size_t dl_json_format_int64(char *out, int64_t v);
/* Writes v as the shortest of %.15g, %.16g, %.17g that reads back as v (C
 * locale) would, but with the shortest round-trip digits (util/dtoa.h; they
 * differ only for subnormals: 5e-324) into out (at least 32 bytes,
 * NUL-terminated); returns the length, or -1 for NaN and infinities, which
 * JSON cannot represent. */
int dl_json_format_double(char *out, double v);

/* Clinger's fast path for decimal text [p, end) in JSON number syntax:
 * true with the correctly rounded value when the significand has at most 15
 * digits and the power of ten is within +-22; false otherwise (then use
 * strtod). */
bool dl_json_fast_double(const char *p, const char *end, double *out);

#endif
