/* CRC-32 (IEEE 802.3, the polynomial of zlib, gzip and the checksums of
 * deletion vector files and Parquet pages). */
#ifndef DL_UTIL_CRC32_H
#define DL_UTIL_CRC32_H
#include <stddef.h>
#include <stdint.h>

/* Continues crc over data: start with crc = 0; dl_crc32(0, "123456789", 9)
 * is 0xCBF43926. Same results as zlib's crc32(). */
uint32_t dl_crc32(uint32_t crc, const void *data, size_t n);

#endif
