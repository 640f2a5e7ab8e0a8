/* Rendering one cell of an array as text, for the CLI and for messages.
 *
 * Text (dl_format_value), as Spark's show() and DuckDB print cells:
 *   NULL; true/false; integers; doubles in the shortest form that reads back
 *   the same ("1.0", "0.1", "1e+20", "NaN", "Infinity"); decimals with all
 *   scale digits ("-0.50"); dates "2024-01-31"; timestamps (UTC) and
 *   timestamp_ntz "2024-01-31 12:00:00[.fraction]" without trailing zeros;
 *   binary X'0AFF'; structs {a: 1, b: [1, 2]}; maps {k=v, ...}; variants as
 *   their JSON.
 * JSON (dl_format_value_json), one value for JSON-lines output: null,
 *   numbers (decimals exact), escaped strings, binary as base64, dates and
 *   timestamps as strings in the text form above, structs and maps as
 *   objects (map keys in their text form), arrays as arrays, non-finite
 *   doubles as the strings "NaN", "Infinity", "-Infinity".
 * CSV (dl_format_value_csv): the text form, quoted as RFC 4180 says when it
 *   holds the delimiter, a quote or a line break (and the empty string as
 *   ""), NULL as nothing. */
#ifndef DL_COLUMNAR_FORMAT_VALUE_H
#define DL_COLUMNAR_FORMAT_VALUE_H
#include "columnar/array.h"
#include "util/buf.h"

#define DL_NUMBER_TEXT_MAX 48

int dl_format_value(dl_buf *out, const dl_array *a, int64_t row);
int dl_format_value_json(dl_buf *out, const dl_array *a, int64_t row);
int dl_format_value_csv(dl_buf *out, const dl_array *a, int64_t row, char delim);
/* Appends s[0..n) as one CSV field. */
int dl_format_csv_field(dl_buf *out, const char *s, size_t n, char delim);

/* The pieces, returning the length written (NUL-terminated). */
size_t dl_format_decimal(char out[DL_NUMBER_TEXT_MAX], dl_i128 unscaled, int scale);
size_t dl_format_double(char out[DL_NUMBER_TEXT_MAX], double v);
size_t dl_format_float(char out[DL_NUMBER_TEXT_MAX], float v);

#endif
