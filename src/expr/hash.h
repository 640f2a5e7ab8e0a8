/* Message digests (RFC 1321 MD5, FIPS 180-4 SHA-1/SHA-2), CRC-32 (ISO-HDLC,
 * as java.util.zip.CRC32) and Spark's Murmur3_x86_32 variant. Written from
 * the specifications; no external crypto library. */
#ifndef DL_EXPR_HASH_H
#define DL_EXPR_HASH_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

void ex_md5(const void *data, size_t n, uint8_t out[16]);
void ex_sha1(const void *data, size_t n, uint8_t out[20]);
/* SHA-256 (or SHA-224 when is224: out gets 28 bytes). */
void ex_sha256(const void *data, size_t n, uint8_t out[32], bool is224);
/* SHA-512 (or SHA-384 when is384: out gets 48 bytes). */
void ex_sha512(const void *data, size_t n, uint8_t out[64], bool is384);
uint32_t ex_crc32(const void *data, size_t n);

/* Spark's Murmur3_x86_32 (org.apache.spark.unsafe.hash). */
int32_t ex_murmur3_int(int32_t v, int32_t seed);
int32_t ex_murmur3_long(int64_t v, int32_t seed);
/* hashUnsafeBytes: 4-byte little-endian words, then each remaining byte
 * mixed on its own as a signed int (Spark's historical variant). */
int32_t ex_murmur3_bytes(const void *data, size_t n, int32_t seed);

#endif
