#include "parquet/codec.h"
#include <pthread.h>
#include "util/mem.h"
#include <brotli/decode.h>
#include <brotli/encode.h>
#include <lz4.h>
#include <snappy-c.h>
#include <strings.h>
#include <zlib.h>
#include <zstd.h>

static int corrupt(pq_codec codec, const char *why)
{
	return dl_error_set(DL_ECORRUPT, "%s page data is corrupt: %s", pq_codec_name(codec), why);
}

/* Per-thread zstd contexts. ZSTD_compress/ZSTD_decompress build and free a
 * context (hundreds of KiB at level 3) on every call, i.e. every page; a
 * context per thread is reused instead and released when the thread exits.
 * Without one (out of memory, no TLS key) the one-shot calls still work. */
typedef struct zstd_contexts {
	ZSTD_CCtx *c;
	ZSTD_DCtx *d;
} zstd_contexts;

static pthread_key_t zstd_key;
static pthread_once_t zstd_once = PTHREAD_ONCE_INIT;
static int zstd_key_ok;

static void zstd_release(void *p)
{
	zstd_contexts *z = p;
	ZSTD_freeCCtx(z->c);
	ZSTD_freeDCtx(z->d);
	dl_free(z);
}

static void zstd_make_key(void)
{
	zstd_key_ok = pthread_key_create(&zstd_key, zstd_release) == 0;
}

static zstd_contexts *zstd_thread_contexts(void)
{
	pthread_once(&zstd_once, zstd_make_key);
	if (!zstd_key_ok) return NULL;
	zstd_contexts *z = pthread_getspecific(zstd_key);
	if (z) return z;
	z = dl_calloc(1, sizeof *z);
	if (!z) return NULL;
	if (pthread_setspecific(zstd_key, z) != 0) {
		dl_free(z);
		return NULL;
	}
	return z;
}

static size_t zstd_decompress(uint8_t *dst, size_t dst_len, const uint8_t *src, size_t src_len)
{
	zstd_contexts *z = zstd_thread_contexts();
	if (z && !z->d) z->d = ZSTD_createDCtx();
	if (!z || !z->d) return ZSTD_decompress(dst, dst_len, src, src_len);
	return ZSTD_decompressDCtx(z->d, dst, dst_len, src, src_len);
}

static size_t zstd_compress(void *dst, size_t cap, const uint8_t *src, size_t src_len, int level)
{
	zstd_contexts *z = zstd_thread_contexts();
	if (z && !z->c) z->c = ZSTD_createCCtx();
	if (!z || !z->c) return ZSTD_compress(dst, cap, src, src_len, level);
	return ZSTD_compressCCtx(z->c, dst, cap, src, src_len, level);
}

static int gunzip(const uint8_t *src, size_t src_len, uint8_t *dst, size_t dst_len)
{
	z_stream z = {0};
	/* 15 + 32: accept gzip or zlib headers, as parquet-mr may write either. */
	if (inflateInit2(&z, 15 + 32) != Z_OK) return dl_error_set(DL_ENOMEM, "zlib init failed");
	z.next_in = (Bytef *)src;
	z.avail_in = (uInt)src_len;
	z.next_out = dst;
	z.avail_out = (uInt)dst_len;
	int rc = inflate(&z, Z_FINISH);
	size_t produced = z.total_out;
	inflateEnd(&z);
	if (rc != Z_STREAM_END || produced != dst_len) return corrupt(PQ_CODEC_GZIP, "bad deflate stream or size");
	return 0;
}

/* Hadoop's LZ4 framing: blocks of [be32 uncompressed][be32 compressed][lz4].
 * Older writers used raw LZ4 under the same codec id, so fall back to it. */
static int lz4_hadoop(const uint8_t *src, size_t src_len, uint8_t *dst, size_t dst_len)
{
	size_t in = 0, out = 0;
	while (in + 8 <= src_len) {
		uint32_t ulen = (uint32_t)src[in] << 24 | (uint32_t)src[in + 1] << 16 | (uint32_t)src[in + 2] << 8 | src[in + 3];
		uint32_t clen = (uint32_t)src[in + 4] << 24 | (uint32_t)src[in + 5] << 16 | (uint32_t)src[in + 6] << 8 | src[in + 7];
		in += 8;
		if (clen > src_len - in || ulen > dst_len - out) goto raw;
		int n = LZ4_decompress_safe((const char *)src + in, (char *)dst + out, (int)clen, (int)ulen);
		if (n < 0 || (uint32_t)n != ulen) goto raw;
		in += clen;
		out += ulen;
	}
	if (in == src_len && out == dst_len) return 0;
raw:;
	int n = LZ4_decompress_safe((const char *)src, (char *)dst, (int)src_len, (int)dst_len);
	if (n < 0 || (size_t)n != dst_len) return corrupt(PQ_CODEC_LZ4, "bad lz4 block or size");
	return 0;
}

int pq_decompress(pq_codec codec, const uint8_t *src, size_t src_len, uint8_t *dst, size_t dst_len)
{
	if (src_len > INT32_MAX || dst_len > INT32_MAX) return corrupt(codec, "page larger than 2 GiB");
	switch (codec) {
	case PQ_CODEC_UNCOMPRESSED:
		if (src_len != dst_len) return corrupt(codec, "size mismatch");
		if (dst_len) __builtin_memcpy(dst, src, dst_len);
		return 0;
	case PQ_CODEC_SNAPPY: {
		size_t n;
		if (snappy_uncompressed_length((const char *)src, src_len, &n) != SNAPPY_OK || n != dst_len)
			return corrupt(codec, "bad length header");
		if (snappy_uncompress((const char *)src, src_len, (char *)dst, &n) != SNAPPY_OK || n != dst_len)
			return corrupt(codec, "bad snappy stream");
		return 0;
	}
	case PQ_CODEC_GZIP:
		return gunzip(src, src_len, dst, dst_len);
	case PQ_CODEC_ZSTD: {
		size_t n = zstd_decompress(dst, dst_len, src, src_len);
		if (ZSTD_isError(n) || n != dst_len) return corrupt(codec, ZSTD_isError(n) ? ZSTD_getErrorName(n) : "size mismatch");
		return 0;
	}
	case PQ_CODEC_LZ4_RAW: {
		int n = LZ4_decompress_safe((const char *)src, (char *)dst, (int)src_len, (int)dst_len);
		if (n < 0 || (size_t)n != dst_len) return corrupt(codec, "bad lz4 block or size");
		return 0;
	}
	case PQ_CODEC_LZ4:
		return lz4_hadoop(src, src_len, dst, dst_len);
	case PQ_CODEC_BROTLI: {
		size_t n = dst_len;
		if (BrotliDecoderDecompress(src_len, src, &n, dst) != BROTLI_DECODER_RESULT_SUCCESS || n != dst_len)
			return corrupt(codec, "bad brotli stream or size");
		return 0;
	}
	case PQ_CODEC_LZO:
		return dl_error_set(DL_EUNSUPPORTED, "the LZO codec is not supported (no Debian library); rewrite the file with another codec");
	}
	return dl_error_set(DL_ECORRUPT, "unknown compression codec %d", (int)codec);
}

int pq_compress(pq_codec codec, int level, const uint8_t *src, size_t src_len, dl_buf *out)
{
	switch (codec) {
	case PQ_CODEC_UNCOMPRESSED:
		return dl_buf_append(out, src, src_len);
	case PQ_CODEC_SNAPPY: {
		size_t cap = snappy_max_compressed_length(src_len);
		DL_TRY(dl_buf_reserve(out, cap));
		size_t n = cap;
		if (snappy_compress((const char *)src, src_len, out->data + out->len, &n) != SNAPPY_OK)
			return dl_error_set(DL_ERROR, "snappy compression failed");
		out->len += n;
		return 0;
	}
	case PQ_CODEC_GZIP: {
		z_stream z = {0};
		if (deflateInit2(&z, level ? level : Z_DEFAULT_COMPRESSION, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY) != Z_OK)
			return dl_error_set(DL_ENOMEM, "zlib init failed");
		size_t cap = deflateBound(&z, (uLong)src_len) + 32;
		if (dl_buf_reserve(out, cap) < 0) { deflateEnd(&z); return DL_ENOMEM; }
		z.next_in = (Bytef *)src;
		z.avail_in = (uInt)src_len;
		z.next_out = (Bytef *)out->data + out->len;
		z.avail_out = (uInt)cap;
		int rc = deflate(&z, Z_FINISH);
		size_t n = z.total_out;
		deflateEnd(&z);
		if (rc != Z_STREAM_END) return dl_error_set(DL_ERROR, "gzip compression failed");
		out->len += n;
		return 0;
	}
	case PQ_CODEC_ZSTD: {
		size_t cap = ZSTD_compressBound(src_len);
		DL_TRY(dl_buf_reserve(out, cap));
		size_t n = zstd_compress(out->data + out->len, cap, src, src_len, level ? level : 3);
		if (ZSTD_isError(n)) return dl_error_set(DL_ERROR, "zstd compression failed: %s", ZSTD_getErrorName(n));
		out->len += n;
		return 0;
	}
	case PQ_CODEC_LZ4_RAW: {
		if (src_len > LZ4_MAX_INPUT_SIZE) return dl_error_set(DL_EINVALID, "page too large for lz4");
		int cap = LZ4_compressBound((int)src_len);
		DL_TRY(dl_buf_reserve(out, (size_t)cap));
		int n = LZ4_compress_default((const char *)src, out->data + out->len, (int)src_len, cap);
		if (n <= 0) return dl_error_set(DL_ERROR, "lz4 compression failed");
		out->len += (size_t)n;
		return 0;
	}
	case PQ_CODEC_BROTLI: {
		size_t cap = BrotliEncoderMaxCompressedSize(src_len);
		if (!cap) cap = src_len + 1024;
		DL_TRY(dl_buf_reserve(out, cap));
		size_t n = cap;
		if (!BrotliEncoderCompress(level ? level : 1, BROTLI_DEFAULT_WINDOW, BROTLI_MODE_GENERIC, src_len, src, &n, (uint8_t *)out->data + out->len))
			return dl_error_set(DL_ERROR, "brotli compression failed");
		out->len += n;
		return 0;
	}
	default:
		return dl_error_set(DL_EUNSUPPORTED, "writing with codec %s is not supported; use zstd, snappy, gzip, lz4_raw, brotli or none", pq_codec_name(codec));
	}
}

const char *pq_codec_name(pq_codec codec)
{
	switch (codec) {
	case PQ_CODEC_UNCOMPRESSED: return "UNCOMPRESSED";
	case PQ_CODEC_SNAPPY: return "SNAPPY";
	case PQ_CODEC_GZIP: return "GZIP";
	case PQ_CODEC_LZO: return "LZO";
	case PQ_CODEC_BROTLI: return "BROTLI";
	case PQ_CODEC_LZ4: return "LZ4";
	case PQ_CODEC_ZSTD: return "ZSTD";
	case PQ_CODEC_LZ4_RAW: return "LZ4_RAW";
	}
	return "UNKNOWN";
}

int pq_codec_parse(const char *name, pq_codec *out)
{
	static const struct { const char *n; pq_codec c; } names[] = {
		{"zstd", PQ_CODEC_ZSTD}, {"snappy", PQ_CODEC_SNAPPY}, {"gzip", PQ_CODEC_GZIP},
		{"lz4_raw", PQ_CODEC_LZ4_RAW}, {"lz4", PQ_CODEC_LZ4}, {"brotli", PQ_CODEC_BROTLI},
		{"none", PQ_CODEC_UNCOMPRESSED}, {"uncompressed", PQ_CODEC_UNCOMPRESSED},
	};
	for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
		if (!strcasecmp(name, names[i].n)) { *out = names[i].c; return 0; }
	return dl_error_set(DL_EINVALID, "unknown compression '%s'; use zstd, snappy, gzip, lz4_raw, brotli or none", name);
}
