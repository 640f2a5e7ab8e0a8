/* BYTE_STREAM_SPLIT: byte k of value i is at stream k, position i, where
 * the `width` streams of `total` bytes each are concatenated. */
#include "parquet/encoding_read.h"
#include "util/error.h"

int pq_bss_decode(const uint8_t *p, size_t len, int width, size_t total, size_t start, size_t n, uint8_t *out)
{
	if (width <= 0 || total > len / (size_t)width) return dl_error_set(DL_ECORRUPT, "BYTE_STREAM_SPLIT data shorter than its values");
	if (start > total || n > total - start) return dl_error_set(DL_ECORRUPT, "BYTE_STREAM_SPLIT read past its values");
	for (int k = 0; k < width; k++) {
		const uint8_t *s = p + (size_t)k * total + start;
		uint8_t *o = out + k;
		for (size_t i = 0; i < n; i++) o[i * (size_t)width] = s[i];
	}
	return 0;
}
