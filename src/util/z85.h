/* Z85, the Base85 variant of ZeroMQ RFC 32, as Delta uses it for deletion
 * vector ids ("u": a 20-character UUID after an optional prefix) and inline
 * bitmaps ("i"). Every 4 bytes become 5 characters, big-endian. Like
 * Delta's Base85Codec, encoding pads the input with zero bytes to a multiple
 * of 4, and decoding takes the wanted byte count to drop that padding. */
#ifndef DL_UTIL_Z85_H
#define DL_UTIL_Z85_H
#include <stddef.h>
#include <stdint.h>
#include "util/buf.h"

/* Characters needed for n bytes. */
size_t dl_z85_encoded_len(size_t n);
int dl_z85_encode(dl_buf *out, const void *data, size_t n);
/* Decodes s[0..n) (n a multiple of 5) into out[0..out_len); the text must
 * hold at least out_len bytes and at most 3 more (padding). DL_ECORRUPT for
 * a bad length, a character outside the alphabet or a group above 2^32-1. */
int dl_z85_decode(uint8_t *out, size_t out_len, const char *s, size_t n);

#endif
