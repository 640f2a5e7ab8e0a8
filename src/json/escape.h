/* JSON string literals for the writers. */
#ifndef DL_JSON_ESCAPE_H
#define DL_JSON_ESCAPE_H
#include <stddef.h>
#include "util/buf.h"

/* Appends s[0..n) as a JSON string literal: quotes, backslashes and control
 * bytes escaped, UTF-8 passed through. Bytes that are not valid UTF-8 are
 * refused with DL_EINVALID (JSON text must be UTF-8, and other Delta readers
 * reject it), leaving a partial literal in b. */
int dl_json_put_string(dl_buf *b, const char *s, size_t n);

#endif
