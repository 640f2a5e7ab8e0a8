/* Paths and URIs of stores: joining object paths, validating relative paths,
 * and mapping a table URI ("file:///t", "file:/t", "/t", "mem://x/t") to a
 * backend scheme and location. */
#ifndef DL_STORAGE_PATH_H
#define DL_STORAGE_PATH_H
#include <stdbool.h>
#include <stddef.h>

/* A parsed store URI. `scheme` is a static string ("file", "mem");
 * `location` is malloc'd: a local path for file (percent-decoded when the
 * URI had the file: scheme; a plain path is taken literally) and
 * "name[/prefix]" for mem. Neither has a trailing '/' (except the root "/"). */
typedef struct dl_store_uri {
	const char *scheme;
	char *location;
} dl_store_uri;

/* Parses the URIs of the built-in file and mem backends. DL_EINVALID for
 * another scheme or an empty location. */
int dl_store_uri_parse(dl_store_uri *out, const char *uri);
void dl_store_uri_free(dl_store_uri *u);
/* Length of a URI's scheme ("file" in "file:/x"), or 0 when it has none
 * (a plain path). One letter is not a scheme, so "c:/x" stays a path. */
size_t dl_uri_scheme_len(const char *s);

/* *out = a + "/" + b with exactly one separator; either side may be "". */
int dl_path_join(char **out, const char *a, const char *b);
/* True when p is a valid object path relative to a store root: not empty, not
 * starting or ending with '/', no "//", no "." or ".." segments. With
 * allow_empty, "" (the root) is accepted too (for listings). */
bool dl_path_is_valid_relative(const char *p, bool allow_empty);
/* The key prefix of an object store URI's path: "a//b/" and "/a/b" become
 * "a/b/" (no empty segments, one trailing slash), "" for the bucket or
 * container root. *out is malloc'd; 0 or DL_ENOMEM. */
int dl_path_key_prefix(char **out, const char *path);
/* Length of the directory part of p ("a/b/c" -> 3 for "a/b"; "c" -> 0). */
size_t dl_path_dirname_len(const char *p);
/* The last segment of p (borrowed, points into p). */
const char *dl_path_basename(const char *p);

#endif
