/* Page compression codecs of Parquet, over the Debian libraries (zstd,
 * snappy, zlib, lz4, brotli). */
#ifndef DL_PARQUET_CODEC_H
#define DL_PARQUET_CODEC_H
#include <stddef.h>
#include <stdint.h>
#include "parquet/format.h"
#include "util/buf.h"

/* Decompresses src into dst, which must hold exactly `dst_len` bytes (the
 * page header's uncompressed size). DL_ECORRUPT if the data is malformed or
 * does not decompress to exactly dst_len bytes; DL_EUNSUPPORTED for LZO. */
int pq_decompress(pq_codec codec, const uint8_t *src, size_t src_len, uint8_t *dst, size_t dst_len);
/* Compresses src, appending to out. `level` 0 means the codec's default. */
int pq_compress(pq_codec codec, int level, const uint8_t *src, size_t src_len, dl_buf *out);
const char *pq_codec_name(pq_codec codec);
/* Parses "zstd", "snappy", "gzip", "lz4_raw", "lz4", "brotli", "none" /
 * "uncompressed" (case-insensitive). */
int pq_codec_parse(const char *name, pq_codec *out);

#endif
