/* URI percent-encoding of paths. Paths in the Delta log (add.path,
 * remove.path, ...) are URIs relative to the table root: a file
 * "a=x y/part-0.parquet" appears as "a=x%20y/part-0.parquet". */
#ifndef DL_UTIL_URL_H
#define DL_UTIL_URL_H
#include <stddef.h>
#include "util/buf.h"

/* Appends s[0..n) to out, percent-encoding (uppercase hex) every byte that
 * java.net.URI would quote in a path: everything except ASCII letters,
 * digits, "-._~!$&'()*+,;=:@", '/' and non-ASCII bytes (kept as UTF-8, as
 * URI.toString does). Spaces become "%20", '%' becomes "%25". */
int dl_url_encode_path(dl_buf *out, const char *s, size_t n);
/* Appends the decoded form of s[0..n) to out ("%20" -> ' '; '+' stays '+').
 * DL_EINVALID for a '%' not followed by two hex digits or a NUL (raw or %00). */
int dl_url_decode(dl_buf *out, const char *s, size_t n);
/* Convenience: a malloc'd NUL-terminated decoded copy in *out. */
int dl_url_decode_str(char **out, const char *s);

#endif
