/* Base64 (RFC 4648, standard alphabet, '=' padding). */
#ifndef DL_UTIL_BASE64_H
#define DL_UTIL_BASE64_H
#include <stddef.h>
#include <stdint.h>
#include "util/buf.h"

/* Appends the padded encoding of data[0..n) to out. */
int dl_base64_encode(dl_buf *out, const void *data, size_t n);
/* Appends the decoded bytes of s[0..n) to out. Padding is optional; any
 * other character, a bad length or non-zero trailing bits -> DL_ECORRUPT. */
int dl_base64_decode(dl_buf *out, const char *s, size_t n);

#endif
