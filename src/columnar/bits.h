/* Bitmap helpers for validity and boolean buffers (LSB-first, as Arrow). */
#ifndef DL_COLUMNAR_BITS_H
#define DL_COLUMNAR_BITS_H
#include <stdint.h>

/* Sets bits [off, off+n). */
void dl_bits_set_range(uint8_t *bits, int64_t off, int64_t n);
/* Number of set bits in [off, off+n). */
int64_t dl_bits_count(const uint8_t *bits, int64_t off, int64_t n);
/* dst bits [doff, doff+n) = src bits [soff, soff+n); src NULL means all set. */
void dl_bits_copy(uint8_t *dst, int64_t doff, const uint8_t *src, int64_t soff, int64_t n);

#endif
