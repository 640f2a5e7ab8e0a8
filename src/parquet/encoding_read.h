/* Decoders of Parquet's encodings (Encodings.md): the RLE/bit-packed hybrid
 * (levels, dictionary indices, booleans), legacy BIT_PACKED levels, PLAIN,
 * dictionary gathers, DELTA_BINARY_PACKED, DELTA_LENGTH_BYTE_ARRAY,
 * DELTA_BYTE_ARRAY and BYTE_STREAM_SPLIT. Every function checks its input
 * bounds and returns DL_ECORRUPT (message without location; the caller
 * prefixes file/row group/column/page). */
#ifndef DL_PARQUET_ENCODING_READ_H
#define DL_PARQUET_ENCODING_READ_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

/* Variable-length values in Arrow form: offsets[0..n] and data. */
typedef struct pq_binbuf {
	int32_t *offsets; /* capacity cap + 1 */
	int64_t n, cap;
	uint8_t *data;
	int64_t len, dcap;
} pq_binbuf;

/* Room for `n` more values and `bytes` more data bytes (at most 2 GiB in
 * total, the limit of 32-bit offsets). */
int pq_binbuf_reserve(pq_binbuf *b, int64_t n, int64_t bytes);
/* Appends one value; room must have been reserved. */
static inline void pq_binbuf_push(pq_binbuf *b, const uint8_t *p, uint32_t len)
{
	if (len) memcpy(b->data + b->len, p, len);
	b->len += len;
	b->offsets[++b->n] = (int32_t)b->len;
}
/* Appends one value, growing as needed. */
int pq_binbuf_append(pq_binbuf *b, const uint8_t *p, uint32_t len);
void pq_binbuf_reset(pq_binbuf *b);
void pq_binbuf_free(pq_binbuf *b);

/* ---- RLE / bit-packed hybrid ---- */
typedef struct pq_rle {
	const uint8_t *p, *end;
	int bit_width;
	uint32_t left;        /* values left in the current run */
	bool packed;          /* current run is bit-packed */
	uint32_t value;       /* RLE run value */
	const uint8_t *bp;    /* bit-packed run start */
	const uint8_t *bp_end;
	uint32_t bp_pos;      /* values consumed in the bit-packed run */
} pq_rle;

/* bit_width 0..32. */
void pq_rle_init(pq_rle *d, const uint8_t *p, size_t len, int bit_width);
/* Exactly n values or DL_ECORRUPT. */
int pq_rle_get_u32(pq_rle *d, uint32_t *out, size_t n);
int pq_rle_get_u8(pq_rle *d, uint8_t *out, size_t n);
/* Passes over n values (late materialization: rows no one asked for). */
int pq_rle_skip(pq_rle *d, size_t n);
/* Legacy BIT_PACKED levels: MSB first, no header; *used = bytes consumed. */
int pq_bitpacked_legacy_u8(const uint8_t *p, size_t len, int bit_width, uint8_t *out, size_t n, size_t *used);
/* Bit width needed for values 0..max. */
int pq_bit_width(uint32_t max);

/* ---- PLAIN ---- */
/* Fixed-width values: copies n*width bytes from *p, advancing it. */
int pq_plain_fixed(const uint8_t **p, const uint8_t *end, int width, void *out, size_t n);
/* Booleans, bit-packed LSB first from bit *bit of *p; one byte per value out. */
int pq_plain_bool(const uint8_t **p, const uint8_t *end, int *bit, uint8_t *out, size_t n);
/* BYTE_ARRAY: 4-byte little-endian length + bytes, appended to out. */
int pq_plain_bytes(const uint8_t **p, const uint8_t *end, pq_binbuf *out, size_t n);
/* Passes over n BYTE_ARRAY values, checking their lengths. */
int pq_plain_bytes_skip(const uint8_t **p, const uint8_t *end, size_t n);

/* ---- dictionary ---- */
/* Gathers values of `width` bytes from dict[ndict] by index. An index out
 * of range is DL_ECORRUPT (out's values before it may have been written). */
int pq_dict_gather_fixed(const uint8_t *dict, uint32_t ndict, int width, const uint32_t *idx, size_t n, void *out);
/* Readies a BYTE_ARRAY dictionary for pq_dict_gather_bytes, once after it
 * is built: zeroed slack after its data (entries are read with fixed
 * 16-byte moves) and *maxlen, its longest entry. */
int pq_dict_prepare_bytes(pq_binbuf *dict, int32_t *maxlen);
/* Appends entries idx[0..n) of a prepared dictionary to out, leaving at
 * least 16 bytes of room after out's data. An index out of range is
 * DL_ECORRUPT with out's values unchanged. */
int pq_dict_gather_bytes(const pq_binbuf *dict, int32_t maxlen, const uint32_t *idx, size_t n, pq_binbuf *out);

/* ---- DELTA_BINARY_PACKED ---- */
/* Reads the header: total value count. */
int pq_delta_count(const uint8_t *p, size_t len, uint64_t *count);
/* Decodes all `count` values (as int64 with two's complement wrap-around;
 * INT32 columns take the low 32 bits); *used = bytes of the stream. */
int pq_delta_decode(const uint8_t *p, size_t len, int64_t *out, size_t count, size_t *used);

/* ---- DELTA_LENGTH_BYTE_ARRAY / DELTA_BYTE_ARRAY ---- */
/* Decode all values of a page section into out (appending). `max_values`
 * bounds the count read from the stream. *n_out = values decoded. */
int pq_delta_length_decode(const uint8_t *p, size_t len, size_t max_values, pq_binbuf *out, size_t *n_out);
int pq_delta_bytes_decode(const uint8_t *p, size_t len, size_t max_values, pq_binbuf *out, size_t *n_out);

/* ---- BYTE_STREAM_SPLIT ---- */
/* Values [start, start+n) of a section of `total` values of `width` bytes. */
int pq_bss_decode(const uint8_t *p, size_t len, int width, size_t total, size_t start, size_t n, uint8_t *out);

#endif
