/* Paths in the Delta log are URIs (RFC 2396): `path` fields of add, remove,
 * cdc, sidecar and 'p' deletion vectors. Readers decode them; the same file
 * may be spelled "/a b", "file:/a%20b" or "file:///a%20b" by different
 * writers, so decoding also canonicalizes the local-file forms, and the
 * replay then counts it once (golden tables canonicalized-paths-*). */
#ifndef DL_LOG_PATH_H
#define DL_LOG_PATH_H
#include <stdbool.h>
#include <stddef.h>
#include "util/arena.h"
#include "util/buf.h"

/* Decodes %XX escapes and drops a "file:" scheme with an empty authority
 * ("file:/p" and "file:///p" become "/p"). Other URIs (s3://...) keep their
 * scheme. A malformed escape is DL_ECORRUPT naming `what`. */
int dl_log_path_decode(dl_arena *arena, const char *uri, size_t n, const char *what,
                       const char **out);
/* The log's spelling of a path next to its decoded form: `decoded` itself
 * when they are equal (no copy), else a copy of uri[0..n) in the arena;
 * NULL when out of memory (DL_ENOMEM set). */
const char *dl_log_path_raw(dl_arena *arena, const char *uri, size_t n, const char *decoded);
/* Encodes a file path for the log the way Spark does (java.net.URI of a
 * relative path): space, '%', '#', '?', ... and non-ASCII are escaped. */
int dl_log_path_encode(dl_buf *out, const char *path);
/* True for absolute paths and URIs with a scheme. */
bool dl_log_path_is_absolute(const char *path);

#endif
