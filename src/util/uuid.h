/* UUIDs: random version 4 (file names, txn ids, deletion vector files) and
 * the canonical 36-character text form. */
#ifndef DL_UTIL_UUID_H
#define DL_UTIL_UUID_H
#include <stddef.h>
#include <stdint.h>

#define DL_UUID_TEXT_LEN 36

/* 16 random bytes with the version (4) and variant (10xx) bits set. */
int dl_uuid_v4_bytes(uint8_t out[16]);
/* A fresh v4 UUID as "xxxxxxxx-xxxx-4xxx-yxxx-xxxxxxxxxxxx" (lowercase,
 * NUL-terminated). 0 or DL_EIO. */
int dl_uuid_v4(char out[DL_UUID_TEXT_LEN + 1]);
/* Canonical lowercase text of 16 bytes (big-endian, as java.util.UUID). */
void dl_uuid_format(char out[DL_UUID_TEXT_LEN + 1], const uint8_t bytes[16]);
/* Parses the canonical form (either case). DL_EINVALID when malformed. */
int dl_uuid_parse(uint8_t out[16], const char *s, size_t n);

#endif
