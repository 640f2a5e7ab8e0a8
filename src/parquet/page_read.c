/* Pages of one column chunk: header, decompression, the dictionary page
 * (decoded once into the output form, so data pages only gather), and the
 * value decoders of every encoding, which append dense (non-null) values in
 * the output form straight into the batch buffers. */
#include <stdarg.h>
#include <stdio.h>
#include "parquet/codec.h"
#include "parquet/column_read.h"
#include "util/error.h"
#include "util/mem.h"

#define PQ_MAX_PAGE_BYTES (1 << 28)

int pq_leaf_prefix(pq_leaf_reader *r)
{
	return dl_error_prefix("%s: row group %d, column '%s', page %d", r->file, r->row_group, r->leaf->path, r->page_no);
}

int pq_leaf_error(pq_leaf_reader *r, int code, const char *fmt, ...)
{
	char msg[512];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof msg, fmt, ap);
	va_end(ap);
	return dl_error_set(code, "%s: row group %d, column '%s', page %d: %s", r->file, r->row_group, r->leaf->path,
	                    r->page_no, msg);
}

int pq_leaf_out_width(const pq_rleaf *leaf)
{
	if (leaf->type->id == DL_TYPE_BOOLEAN) return 1;
	return dl_type_fixed_width(leaf->type);
}

static int grow(void **buf, size_t *cap, size_t need)
{
	if (need <= *cap && *buf) return 0;
	size_t c = *cap ? *cap : 1024;
	while (c < need) c *= 2;
	void *p = dl_realloc(*buf, c);
	if (!p) return DL_ENOMEM;
	*buf = p;
	*cap = c;
	return 0;
}

/* ---- conversions from physical to output values ---- */

/* Sign-extends the low `bytes` bytes of x (1..8). */
static int64_t sext(uint64_t x, size_t bytes)
{
	unsigned sh = (unsigned)(64 - 8 * bytes);
	return (int64_t)(x << sh) >> sh;
}

/* Big-endian two's complement of 0..16 bytes -> 128-bit. Byte swaps of
 * 8-byte loads instead of a byte loop: this is on the decimal hot path. */
static dl_i128 be_to_i128(const uint8_t *p, size_t len)
{
	if (len == 0) return 0;
	if (len <= 8) {
		uint64_t x = 0;
		memcpy((uint8_t *)&x + (8 - len), p, len);
		return sext(__builtin_bswap64(x), len);
	}
	uint64_t lo, hi = 0;
	memcpy(&lo, p + len - 8, 8);
	memcpy((uint8_t *)&hi + (16 - len), p, len - 8);
	__extension__ typedef unsigned __int128 u128;
	/* high half: the leading bytes sign-extended to 64 bits */
	u128 v = (u128)(uint64_t)sext(__builtin_bswap64(hi), len - 8) << 64 | __builtin_bswap64(lo);
	return (dl_i128)v;
}

static float half_to_float(uint16_t h)
{
	uint32_t sign = (uint32_t)(h >> 15) << 31, exp = (h >> 10) & 0x1f, mant = h & 0x3ff, bits;
	if (exp == 0x1f) bits = sign | 0x7f800000u | (mant << 13);
	else if (exp) bits = sign | ((exp + 112) << 23) | (mant << 13);
	else if (!mant) bits = sign;
	else {
		/* subnormal half: normalize */
		int e = -1;
		do {
			e++;
			mant <<= 1;
		} while (!(mant & 0x400));
		bits = sign | ((uint32_t)(112 - e) << 23) | ((mant & 0x3ff) << 13);
	}
	float f;
	memcpy(&f, &bits, 4);
	return f;
}

static void uuid_format(const uint8_t *u, char out[36])
{
	static const char hex[] = "0123456789abcdef";
	int k = 0;
	for (int i = 0; i < 16; i++) {
		if (i == 4 || i == 6 || i == 8 || i == 10) out[k++] = '-';
		out[k++] = hex[u[i] >> 4];
		out[k++] = hex[u[i] & 15];
	}
}

#define JULIAN_EPOCH 2440588LL
#define MICROS_PER_DAY 86400000000LL

/* n physical values at `in` (phys_width each) -> output at `out` (fixed)
 * or appended to `bin`. `in` may equal `out` when the widths are equal. */
static int convert(const pq_leaf_reader *r, const uint8_t *in, size_t n, uint8_t *out, pq_binbuf *bin)
{
	const pq_rleaf *lf = r->leaf;
	int pw = lf->phys_width;
	/* nanoseconds stay whole under a shredded variant (timestamp_nanos) */
	pq_conv conv = r->raw_nanos && lf->conv == PQ_CONV_NANOS ? PQ_CONV_NONE : lf->conv;
	switch (conv) {
	case PQ_CONV_NONE:
	case PQ_CONV_BOOL:
		if (in != out) memcpy(out, in, n * (size_t)pw);
		return 0;
	case PQ_CONV_I32_I8:
		for (size_t i = 0; i < n; i++) {
			int32_t v;
			memcpy(&v, in + 4 * i, 4);
			out[i] = (uint8_t)(int8_t)v;
		}
		return 0;
	case PQ_CONV_I32_I16:
		for (size_t i = 0; i < n; i++) {
			int32_t v;
			memcpy(&v, in + 4 * i, 4);
			int16_t s = (int16_t)v;
			memcpy(out + 2 * i, &s, 2);
		}
		return 0;
	case PQ_CONV_U32_I64:
		for (size_t i = n; i-- > 0;) {
			uint32_t v;
			memcpy(&v, in + 4 * i, 4);
			int64_t w = v;
			memcpy(out + 8 * i, &w, 8);
		}
		return 0;
	/* Widening runs from the back: `in` may be the start of `out`. The
	 * 128-bit value is written as two 64-bit halves (low, sign/zero). */
	case PQ_CONV_I32_DEC:
		for (size_t i = n; i-- > 0;) {
			int32_t v;
			memcpy(&v, in + 4 * i, 4);
			int64_t h[2] = {v, v < 0 ? -1 : 0};
			memcpy(out + 16 * i, h, 16);
		}
		return 0;
	case PQ_CONV_I64_DEC:
		for (size_t i = n; i-- > 0;) {
			int64_t v;
			memcpy(&v, in + 8 * i, 8);
			int64_t h[2] = {v, v < 0 ? -1 : 0};
			memcpy(out + 16 * i, h, 16);
		}
		return 0;
	case PQ_CONV_U64_DEC:
		for (size_t i = n; i-- > 0;) {
			uint64_t h[2];
			memcpy(&h[0], in + 8 * i, 8);
			h[1] = 0;
			memcpy(out + 16 * i, h, 16);
		}
		return 0;
	case PQ_CONV_MILLIS:
	case PQ_CONV_NANOS:
		for (size_t i = 0; i < n; i++) {
			int64_t v;
			memcpy(&v, in + 8 * i, 8);
			if (lf->conv == PQ_CONV_MILLIS) v = (int64_t)((uint64_t)v * 1000u);
			else v = v / 1000 - (v % 1000 < 0);
			memcpy(out + 8 * i, &v, 8);
		}
		return 0;
	case PQ_CONV_INT96:
		for (size_t i = 0; i < n; i++) {
			int64_t nanos;
			int32_t day;
			memcpy(&nanos, in + 12 * i, 8);
			memcpy(&day, in + 12 * i + 8, 4);
			int64_t us = nanos / 1000 - (nanos % 1000 < 0);
			int64_t v = (int64_t)((uint64_t)((int64_t)day - JULIAN_EPOCH) * (uint64_t)MICROS_PER_DAY + (uint64_t)us);
			memcpy(out + 8 * i, &v, 8);
		}
		return 0;
	case PQ_CONV_FLBA_DEC:
		for (size_t i = 0; i < n; i++) {
			dl_i128 d = be_to_i128(in + (size_t)pw * i, (size_t)pw);
			memcpy(out + 16 * i, &d, 16);
		}
		return 0;
	case PQ_CONV_F16:
		for (size_t i = n; i-- > 0;) {
			uint16_t h = (uint16_t)(in[2 * i] | in[2 * i + 1] << 8);
			float f = half_to_float(h);
			memcpy(out + 4 * i, &f, 4);
		}
		return 0;
	case PQ_CONV_FLBA_BIN:
		DL_TRY(pq_binbuf_reserve(bin, (int64_t)n, (int64_t)n * pw));
		for (size_t i = 0; i < n; i++) pq_binbuf_push(bin, in + (size_t)pw * i, (uint32_t)pw);
		return 0;
	case PQ_CONV_UUID:
		DL_TRY(pq_binbuf_reserve(bin, (int64_t)n, (int64_t)n * 36));
		for (size_t i = 0; i < n; i++) {
			char s[36];
			uuid_format(in + 16 * i, s);
			pq_binbuf_push(bin, (const uint8_t *)s, 36);
		}
		return 0;
	case PQ_CONV_BA_DEC:
		break;
	}
	return dl_error_set(DL_ERROR, "internal: bad conversion");
}

/* Variable-length physical values (BYTE_ARRAY) -> output. */
static int convert_bin(pq_leaf_reader *r, const pq_binbuf *in, size_t first, size_t n, uint8_t *out, pq_binbuf *bin)
{
	const pq_rleaf *lf = r->leaf;
	if (lf->conv == PQ_CONV_BA_DEC) {
		for (size_t i = 0; i < n; i++) {
			int32_t s = in->offsets[first + i], len = in->offsets[first + i + 1] - s;
			if (len > 16) return pq_leaf_error(r, DL_ECORRUPT, "decimal value of %d bytes (at most 16)", len);
			dl_i128 d = be_to_i128(in->data + s, (size_t)len);
			memcpy(out + 16 * i, &d, 16);
		}
		return 0;
	}
	if (lf->phys_width > 0) {
		/* FIXED_LEN_BYTE_ARRAY decoded by DELTA_BYTE_ARRAY. */
		DL_TRY(grow((void **)&r->tmp, &r->tmp_cap, n * (size_t)lf->phys_width + 1));
		for (size_t i = 0; i < n; i++) {
			int32_t s = in->offsets[first + i], len = in->offsets[first + i + 1] - s;
			if (len != lf->phys_width) return pq_leaf_error(r, DL_ECORRUPT, "fixed-length value of %d bytes, expected %d", len, lf->phys_width);
			memcpy(r->tmp + (size_t)lf->phys_width * i, in->data + s, (size_t)len);
		}
		return convert(r, r->tmp, n, out, bin);
	}
	/* Strings/binary: bulk copy of a contiguous range. */
	int32_t s = in->offsets[first], e = in->offsets[first + n];
	DL_TRY(pq_binbuf_reserve(bin, (int64_t)n, e - s));
	memcpy(bin->data + bin->len, in->data + s, (size_t)(e - s));
	int32_t base = (int32_t)bin->len - s;
	for (size_t i = 1; i <= n; i++) bin->offsets[bin->n + (int64_t)i] = in->offsets[first + i] + base;
	bin->n += (int64_t)n;
	bin->len += e - s;
	return 0;
}

/* ---- dictionary page ---- */

static int load_dictionary(pq_leaf_reader *r, const pq_page_header *h, const uint8_t *data, size_t len)
{
	const pq_rleaf *lf = r->leaf;
	if (r->has_dict) return pq_leaf_error(r, DL_ECORRUPT, "a second dictionary page");
	if (!h->has_dictionary_page_header) return pq_leaf_error(r, DL_ECORRUPT, "dictionary page without its header");
	const pq_dictionary_page_header *dh = &h->dictionary_page_header;
	if (dh->encoding != PQ_ENC_PLAIN && dh->encoding != PQ_ENC_PLAIN_DICTIONARY)
		return pq_leaf_error(r, DL_EUNSUPPORTED, "dictionary encoding %d (only PLAIN is defined)", (int)dh->encoding);
	if (dh->num_values < 0 || dh->num_values > PQ_MAX_PAGE_VALUES)
		return pq_leaf_error(r, DL_ECORRUPT, "dictionary of %d values", dh->num_values);
	size_t n = (size_t)dh->num_values;
	const uint8_t *p = data, *end = data + len;
	/* Every entry takes bytes of the page (4 at least for byte arrays), so
	 * a count the page cannot hold is rejected before allocating for it. */
	size_t min_bytes = lf->phys_width ? (size_t)lf->phys_width : 4;
	if (n > len / min_bytes) return pq_leaf_error(r, DL_ECORRUPT, "dictionary of %zu values in %zu bytes", n, len);
	r->has_dict = true;
	r->ndict = (uint32_t)n;
	if (lf->el->type == PQ_BOOLEAN) return pq_leaf_error(r, DL_ECORRUPT, "dictionary for a BOOLEAN column");
	if (lf->phys_width == 0) {
		pq_binbuf_reset(&r->tbin);
		DL_TRY(pq_plain_bytes(&p, end, &r->tbin, n));
		if (r->out_width == 0) return convert_bin(r, &r->tbin, 0, n, NULL, &r->dict_bin);
		r->dict = dl_malloc(n * (size_t)r->out_width + 16);
		if (!r->dict) return DL_ENOMEM;
		return convert_bin(r, &r->tbin, 0, n, r->dict, NULL);
	}
	DL_TRY(grow((void **)&r->tmp, &r->tmp_cap, n * (size_t)lf->phys_width + 1));
	DL_TRY(pq_plain_fixed(&p, end, lf->phys_width, r->tmp, n));
	if (r->out_width == 0) return convert(r, r->tmp, n, NULL, &r->dict_bin);
	r->dict = dl_malloc(n * (size_t)r->out_width + 16);
	if (!r->dict) return DL_ENOMEM;
	return convert(r, r->tmp, n, r->dict, NULL);
}

/* ---- data pages ---- */

static int decode_levels(pq_leaf_reader *r, pq_encoding enc, int max, const uint8_t **p, const uint8_t *end,
                         bool v2, size_t v2_len, uint8_t *out, size_t n)
{
	int w = pq_bit_width((uint32_t)max);
	if (v2) {
		pq_rle d;
		pq_rle_init(&d, *p, v2_len, w);
		DL_TRY(pq_rle_get_u8(&d, out, n));
		*p += v2_len;
	} else if (enc == PQ_ENC_RLE) {
		if (end - *p < 4) return pq_leaf_error(r, DL_ECORRUPT, "levels length truncated");
		uint32_t len;
		memcpy(&len, *p, 4);
		*p += 4;
		if (len > (size_t)(end - *p)) return pq_leaf_error(r, DL_ECORRUPT, "levels of %u bytes overrun the page", len);
		pq_rle d;
		pq_rle_init(&d, *p, len, w);
		DL_TRY(pq_rle_get_u8(&d, out, n));
		*p += len;
	} else if (enc == PQ_ENC_BIT_PACKED) {
		size_t used;
		DL_TRY(pq_bitpacked_legacy_u8(*p, (size_t)(end - *p), w, out, n, &used));
		*p += used;
	} else {
		return pq_leaf_error(r, DL_EUNSUPPORTED, "level encoding %d", (int)enc);
	}
	/* w bits can only hold a level above max when max is not 2^w - 1
	 * (the decoders keep values within the width) */
	if ((uint32_t)max != (1u << w) - 1)
		for (size_t i = 0; i < n; i++)
			if (out[i] > max) return pq_leaf_error(r, DL_ECORRUPT, "level %d above the maximum %d", out[i], max);
	return 0;
}

static size_t count_nonnull(const pq_leaf_reader *r)
{
	if (r->page_dense) return (size_t)r->page_values;
	return pq_count_level(r->pdef, (size_t)r->page_values, (uint8_t)r->leaf->max_def);
}

size_t pq_count_level(const uint8_t *lv, size_t n, uint8_t m)
{
	/* columns without nulls have every level at m: compare 8 at a time
	 * while that holds */
	uint64_t pat = UINT64_C(0x0101010101010101) * m;
	size_t i = 0;
	for (; i + 8 <= n; i += 8) {
		uint64_t w;
		memcpy(&w, lv + i, 8);
		if (w != pat) break;
	}
	size_t c = i;
	/* then 8 at a time by bytes >= m (levels were checked to be <= m when
	 * decoded, so that counts those at m; see column_read.c ge_mask) */
	if (m < 128)
		for (; i + 8 <= n; i += 8) {
			uint64_t w;
			memcpy(&w, lv + i, 8);
			uint64_t hit = ((w | UINT64_C(0x8080808080808080)) - UINT64_C(0x0101010101010101) * m) &
			               UINT64_C(0x8080808080808080);
			c += (size_t)(((hit >> 7) * UINT64_C(0x0101010101010101)) >> 56);
		}
	for (; i < n; i++) c += lv[i] == m;
	return c;
}

static int setup_values(pq_leaf_reader *r)
{
	const pq_rleaf *lf = r->leaf;
	pq_type pt = lf->el->type;
	size_t len = (size_t)(r->vend - r->vp);
	size_t nn = count_nonnull(r);
	switch (r->enc) {
	case PQ_ENC_PLAIN:
		r->bool_bit = 0;
		return 0;
	case PQ_ENC_PLAIN_DICTIONARY:
	case PQ_ENC_RLE_DICTIONARY:
		if (!r->has_dict) return pq_leaf_error(r, DL_ECORRUPT, "dictionary-encoded page without a dictionary page");
		if (nn == 0) return 0;
		if (len < 1 || r->vp[0] > 32) return pq_leaf_error(r, DL_ECORRUPT, "bad dictionary index bit width");
		pq_rle_init(&r->rle, r->vp + 1, len - 1, r->vp[0]);
		return 0;
	case PQ_ENC_RLE:
		if (pt != PQ_BOOLEAN) return pq_leaf_error(r, DL_EUNSUPPORTED, "RLE values for a non-boolean column");
		if (len < 4) return pq_leaf_error(r, DL_ECORRUPT, "RLE boolean length truncated");
		uint32_t bl;
		memcpy(&bl, r->vp, 4);
		if (bl > len - 4) return pq_leaf_error(r, DL_ECORRUPT, "RLE booleans overrun the page");
		pq_rle_init(&r->rle, r->vp + 4, bl, 1);
		return 0;
	case PQ_ENC_DELTA_BINARY_PACKED: {
		if (pt != PQ_INT32 && pt != PQ_INT64) return pq_leaf_error(r, DL_ECORRUPT, "DELTA_BINARY_PACKED for a non-integer column");
		if (nn > r->dcap) {
			int64_t *d = dl_reallocarray(r->dints, nn, sizeof *d);
			if (!d) return DL_ENOMEM;
			r->dints = d;
			r->dcap = nn;
		}
		size_t used;
		r->dpos = 0;
		r->dcount = nn;
		if (nn == 0) return 0;
		return pq_delta_decode(r->vp, len, r->dints, nn, &used);
	}
	case PQ_ENC_DELTA_LENGTH_BYTE_ARRAY:
	case PQ_ENC_DELTA_BYTE_ARRAY: {
		if (pt != PQ_BYTE_ARRAY && !(pt == PQ_FIXED_LEN_BYTE_ARRAY && r->enc == PQ_ENC_DELTA_BYTE_ARRAY))
			return pq_leaf_error(r, DL_ECORRUPT, "delta byte array encoding for a %d column", (int)pt);
		size_t got = 0;
		pq_binbuf_reset(&r->dbin);
		r->dbpos = 0;
		if (nn == 0) return 0;
		DL_TRY(r->enc == PQ_ENC_DELTA_BYTE_ARRAY ? pq_delta_bytes_decode(r->vp, len, nn, &r->dbin, &got)
		                                         : pq_delta_length_decode(r->vp, len, nn, &r->dbin, &got));
		if (got < nn) return pq_leaf_error(r, DL_ECORRUPT, "%zu delta-encoded values for %zu non-null entries", got, nn);
		return 0;
	}
	case PQ_ENC_BYTE_STREAM_SPLIT:
		if (lf->phys_width <= 1) return pq_leaf_error(r, DL_ECORRUPT, "BYTE_STREAM_SPLIT for a variable-width column");
		r->bss_total = nn;
		r->bss_pos = 0;
		if ((size_t)lf->phys_width * nn > len) return pq_leaf_error(r, DL_ECORRUPT, "BYTE_STREAM_SPLIT data shorter than its values");
		return 0;
	default:
		return pq_leaf_error(r, DL_EUNSUPPORTED, "value encoding %d", (int)r->enc);
	}
}

/* Decompresses `src` into the page buffer unless uncompressed. */
static int page_data(pq_leaf_reader *r, bool compressed, const uint8_t *src, size_t slen, size_t ulen,
                     const uint8_t **out)
{
	if (!compressed || r->codec == PQ_CODEC_UNCOMPRESSED) {
		/* The bytes are used in place: the sizes must agree, or the
		 * uncompressed size would send readers past the page. */
		if (slen != ulen) return pq_leaf_error(r, DL_ECORRUPT, "uncompressed page of %zu bytes declares %zu", slen, ulen);
		*out = src;
		return 0;
	}
	if (ulen > PQ_MAX_PAGE_BYTES) return pq_leaf_error(r, DL_ECORRUPT, "page of %zu bytes uncompressed (limit 256 MiB)", ulen);
	if (r->pool && ulen + 8 > 4096 && (!r->page_buf || r->page_cap < ulen + 8)) {
		/* The buffer holds no earlier page's bytes that are still needed
		 * (dictionaries are copied out): trade it for one of the pool's,
		 * already faulted in. Growing it in place instead (a column's
		 * small dictionary page, then its data pages) allocated fresh
		 * memory for every column chunk, and the pool, which these grown
		 * buffers went back to but were never taken from, filled its 64
		 * slots (bench_dml.sh's UPDATE with DVs: 23 of its 40 MB of peak
		 * heap). Sizes are rounded to a power of two so that the next
		 * chunk's pages, a little larger or smaller, fit the same one. */
		size_t c = 8192;
		while (c < ulen + 8) c *= 2;
		pq_pool_put(r->pool, r->page_buf, r->page_cap);
		r->page_buf = pq_pool_get(r->pool, c, &r->page_cap);
		if (!r->page_buf) {
			r->page_cap = 0;
			return DL_ENOMEM;
		}
	}
	DL_TRY(grow((void **)&r->page_buf, &r->page_cap, ulen + 8));
	/* zstd through the thread's context (codec.c): one per column reader
	 * was created, and its ~100 KiB of fresh pages faulted in, for every
	 * row group of every column read */
	int rc = pq_decompress(r->codec, src, slen, r->page_buf, ulen);
	if (rc < 0) return pq_leaf_prefix(r);
	*out = r->page_buf;
	return 0;
}

static int level_buffers(pq_leaf_reader *r, size_t n)
{
	if (n <= r->plvl_cap && r->pdef && r->prep) return 0;
	size_t c = r->plvl_cap ? r->plvl_cap : 1024;
	while (c < n) c *= 2;
	if (!r->pdef && !r->prep && r->pool && c > 4096) {
		/* a new file's first page: buffers another file's pages used */
		size_t c1, c2;
		r->pdef = pq_pool_get(r->pool, c, &c1);
		r->prep = pq_pool_get(r->pool, c, &c2);
		if (!r->pdef || !r->prep) return DL_ENOMEM;
		r->plvl_cap = c1 < c2 ? c1 : c2;
		return 0;
	}
	uint8_t *d = dl_realloc(r->pdef, c), *e;
	if (!d) return DL_ENOMEM;
	r->pdef = d;
	e = dl_realloc(r->prep, c);
	if (!e) return DL_ENOMEM;
	r->prep = e;
	r->plvl_cap = c;
	return 0;
}

static int data_page(pq_leaf_reader *r, const pq_page_header *h, const uint8_t *body, size_t blen)
{
	const pq_rleaf *lf = r->leaf;
	bool v2 = h->type == PQ_PAGE_DATA_V2;
	int32_t nv;
	const uint8_t *p, *end;
	pq_encoding def_enc = PQ_ENC_RLE, rep_enc = PQ_ENC_RLE;
	size_t rl = 0, dl = 0;
	if (v2) {
		if (!h->has_data_page_header_v2) return pq_leaf_error(r, DL_ECORRUPT, "DATA_PAGE_V2 without its header");
		const pq_data_page_header_v2 *d = &h->data_page_header_v2;
		nv = d->num_values;
		r->enc = d->encoding;
		if (d->repetition_levels_byte_length < 0 || d->definition_levels_byte_length < 0 ||
		    (size_t)d->repetition_levels_byte_length + (size_t)d->definition_levels_byte_length > blen ||
		    (size_t)d->repetition_levels_byte_length + (size_t)d->definition_levels_byte_length > (size_t)h->uncompressed_page_size)
			return pq_leaf_error(r, DL_ECORRUPT, "level lengths exceed the page");
		rl = (size_t)d->repetition_levels_byte_length;
		dl = (size_t)d->definition_levels_byte_length;
		p = body;
		end = body + rl + dl;
	} else {
		if (!h->has_data_page_header) return pq_leaf_error(r, DL_ECORRUPT, "DATA_PAGE without its header");
		const pq_data_page_header *d = &h->data_page_header;
		nv = d->num_values;
		r->enc = d->encoding;
		def_enc = d->definition_level_encoding;
		rep_enc = d->repetition_level_encoding;
		DL_TRY(page_data(r, true, body, blen, (size_t)h->uncompressed_page_size, &p));
		end = p + h->uncompressed_page_size;
	}
	if (nv < 0 || nv > PQ_MAX_PAGE_VALUES || nv > r->values_left)
		return pq_leaf_error(r, DL_ECORRUPT, "%d values in the page but %lld left in the column chunk", nv, (long long)r->values_left);
	r->values_left -= nv;
	r->page_values = nv;
	r->page_pos = 0;
	DL_TRY(level_buffers(r, (size_t)nv + 1));
	uint8_t *def = lf->max_def ? r->pdef : NULL, *rep = lf->max_rep ? r->prep : NULL;
	int rc = 0;
	if (rep) rc = decode_levels(r, rep_enc, lf->max_rep, &p, end, v2, rl, rep, (size_t)nv);
	else if (v2) p += rl;
	if (rc == 0 && def) rc = decode_levels(r, def_enc, lf->max_def, &p, end, v2, dl, def, (size_t)nv);
	else if (v2) p += dl;
	if (rc < 0) return strstr(dl_error_last()->message, "row group") ? rc : pq_leaf_prefix(r);
	if (rep && nv && rep[0] != 0 && v2) return pq_leaf_error(r, DL_ECORRUPT, "DATA_PAGE_V2 starts inside a row");
	/* counted once here, so that the spans of a page without nulls (most
	 * pages of most columns) need no counting */
	r->page_dense = !def || pq_count_level(def, (size_t)nv, (uint8_t)lf->max_def) == (size_t)nv;
	r->in_page = true;
	if (v2) {
		size_t vlen = blen - rl - dl;
		size_t ulen = (size_t)h->uncompressed_page_size - rl - dl;
		const uint8_t *vals;
		DL_TRY(page_data(r, h->data_page_header_v2.is_compressed, body + rl + dl, vlen, ulen, &vals));
		r->vp = vals;
		r->vend = vals + (h->data_page_header_v2.is_compressed && r->codec != PQ_CODEC_UNCOMPRESSED ? ulen : vlen);
	} else {
		r->vp = p;
		r->vend = end;
	}
	if (!r->values_needed) return 0;
	rc = setup_values(r);
	return rc < 0 && !strstr(dl_error_last()->message, "row group") ? pq_leaf_prefix(r) : rc;
}

int pq_leaf_next_page(pq_leaf_reader *r, bool *eof)
{
	*eof = false;
	r->in_page = false;
	for (;;) {
		if (r->cp >= r->cend || r->values_left <= 0) {
			if (r->locs && !r->prefix_only && r->values_left > 0) {
				bool any;
				DL_TRY(pq_leaf_load_run(r, &any));
				if (any) continue;
			}
			*eof = true;
			return 0;
		}
		/* with a page selection: where this page starts in the file */
		int64_t at = r->locs ? r->run_off + (r->cp - r->run_base) : 0;
		r->page_no++;
		pq_page_header h;
		size_t hl;
		char what[256];
		snprintf(what, sizeof what, "%s: row group %d, column '%s', page %d header", r->file, r->row_group,
		         r->leaf->path, r->page_no);
		DL_TRY(pq_page_header_decode(&h, r->cp, (size_t)(r->cend - r->cp), &hl, what));
		const uint8_t *body = r->cp + hl;
		if ((size_t)h.compressed_page_size > (size_t)(r->cend - body))
			return pq_leaf_error(r, DL_ECORRUPT, "page of %d bytes overruns the column chunk", h.compressed_page_size);
		r->cp = body + h.compressed_page_size;
		switch (h.type) {
		case PQ_PAGE_DICTIONARY: {
			if (!r->values_needed) continue;
			const uint8_t *d;
			DL_TRY(page_data(r, true, body, (size_t)h.compressed_page_size, (size_t)h.uncompressed_page_size, &d));
			int rc = load_dictionary(r, &h, d, (size_t)h.uncompressed_page_size);
			if (rc == 0 && r->out_width == 0) rc = pq_dict_prepare_bytes(&r->dict_bin, &r->dict_maxlen);
			if (rc < 0) return strstr(dl_error_last()->message, "row group") ? rc : pq_leaf_prefix(r);
			continue;
		}
		case PQ_PAGE_DATA:
		case PQ_PAGE_DATA_V2:
			if (r->locs) {
				if (r->prefix_only) return 0; /* the caller reports it */
				if (r->loc_next >= r->nlocs || r->locs[r->loc_next].offset != at)
					return pq_leaf_error(r, DL_ECORRUPT, "a data page at offset %lld that the offset index does not list there",
					                     (long long)at);
				r->page_no = r->loc_next + 1 + (r->has_dict ? 1 : 0);
				r->loc_cur = r->loc_next++;
			}
			if (r->skip_ahead > 0 && !r->leaf->max_rep) {
				/* Late materialization: a page of a flat column holds one
				 * level per row, so one whose rows all come before the next
				 * selected row is passed over without decompressing it. */
				bool v2 = h.type == PQ_PAGE_DATA_V2;
				int32_t nv = v2 ? (h.has_data_page_header_v2 ? h.data_page_header_v2.num_values : -1)
				                : (h.has_data_page_header ? h.data_page_header.num_values : -1);
				if (nv > 0 && nv <= r->skip_ahead && nv <= r->values_left) {
					r->values_left -= nv;
					r->skip_ahead -= nv;
					r->skipped_rows += nv;
					r->pages_passed++;
					continue;
				}
			}
			return data_page(r, &h, body, (size_t)h.compressed_page_size);
		default:
			continue; /* index pages and unknown kinds carry no values */
		}
	}
}

/* Fixed-width output of n values from the current page's decoder. */
static int decode_fixed(pq_leaf_reader *r, size_t n, uint8_t *dst)
{
	const pq_rleaf *lf = r->leaf;
	int pw = lf->phys_width, ow = r->out_width;
	bool direct = pw == ow; /* decode in place, convert in place */
	uint8_t *buf = dst;
	if (!direct && lf->phys_width > 0) {
		DL_TRY(grow((void **)&r->tmp, &r->tmp_cap, n * (size_t)pw + 1));
		buf = r->tmp;
	}
	switch (r->enc) {
	case PQ_ENC_PLAIN:
		if (lf->el->type == PQ_BOOLEAN) return pq_plain_bool(&r->vp, r->vend, &r->bool_bit, dst, n);
		if (pw == 0) {
			pq_binbuf_reset(&r->tbin);
			DL_TRY(pq_plain_bytes(&r->vp, r->vend, &r->tbin, n));
			return convert_bin(r, &r->tbin, 0, n, dst, NULL);
		}
		DL_TRY(pq_plain_fixed(&r->vp, r->vend, pw, buf, n));
		return convert(r, buf, n, dst, NULL);
	case PQ_ENC_PLAIN_DICTIONARY:
	case PQ_ENC_RLE_DICTIONARY:
	case PQ_ENC_RLE:
		for (size_t done = 0; done < n;) {
			size_t k = n - done < 1024 ? n - done : 1024;
			DL_TRY(pq_rle_get_u32(&r->rle, r->idx, k));
			if (r->enc == PQ_ENC_RLE) {
				for (size_t i = 0; i < k; i++) dst[done + i] = (uint8_t)(r->idx[i] & 1);
			} else {
				DL_TRY(pq_dict_gather_fixed(r->dict, r->ndict, ow, r->idx, k, dst + done * (size_t)ow));
			}
			done += k;
		}
		return 0;
	case PQ_ENC_DELTA_BINARY_PACKED:
		if (r->dcount - r->dpos < n) return dl_error_set(DL_ECORRUPT, "DELTA_BINARY_PACKED ran out of values");
		if (pw == 4)
			for (size_t i = 0; i < n; i++) {
				int32_t v = (int32_t)(uint32_t)r->dints[r->dpos + i];
				memcpy(buf + 4 * i, &v, 4);
			}
		else
			memcpy(buf, r->dints + r->dpos, n * 8);
		r->dpos += n;
		return convert(r, buf, n, dst, NULL);
	case PQ_ENC_DELTA_LENGTH_BYTE_ARRAY:
	case PQ_ENC_DELTA_BYTE_ARRAY:
		if ((size_t)r->dbin.n - r->dbpos < n) return dl_error_set(DL_ECORRUPT, "delta byte arrays ran out of values");
		DL_TRY(convert_bin(r, &r->dbin, r->dbpos, n, dst, NULL));
		r->dbpos += n;
		return 0;
	case PQ_ENC_BYTE_STREAM_SPLIT:
		DL_TRY(pq_bss_decode(r->vp, (size_t)(r->vend - r->vp), pw, r->bss_total, r->bss_pos, n, buf));
		r->bss_pos += n;
		return convert(r, buf, n, dst, NULL);
	default:
		return dl_error_set(DL_EUNSUPPORTED, "value encoding %d", (int)r->enc);
	}
}

/* Variable-width output (strings, binary, UUID text). */
static int decode_var(pq_leaf_reader *r, size_t n)
{
	const pq_rleaf *lf = r->leaf;
	int pw = lf->phys_width;
	switch (r->enc) {
	case PQ_ENC_PLAIN:
		if (pw == 0) return pq_plain_bytes(&r->vp, r->vend, &r->bin, n);
		DL_TRY(grow((void **)&r->tmp, &r->tmp_cap, n * (size_t)pw + 1));
		DL_TRY(pq_plain_fixed(&r->vp, r->vend, pw, r->tmp, n));
		return convert(r, r->tmp, n, NULL, &r->bin);
	case PQ_ENC_PLAIN_DICTIONARY:
	case PQ_ENC_RLE_DICTIONARY:
		for (size_t done = 0; done < n;) {
			size_t k = n - done < 1024 ? n - done : 1024;
			DL_TRY(pq_rle_get_u32(&r->rle, r->idx, k));
			DL_TRY(pq_dict_gather_bytes(&r->dict_bin, r->dict_maxlen, r->idx, k, &r->bin));
			done += k;
		}
		return 0;
	case PQ_ENC_DELTA_LENGTH_BYTE_ARRAY:
	case PQ_ENC_DELTA_BYTE_ARRAY:
		if ((size_t)r->dbin.n - r->dbpos < n) return dl_error_set(DL_ECORRUPT, "delta byte arrays ran out of values");
		DL_TRY(convert_bin(r, &r->dbin, r->dbpos, n, NULL, &r->bin));
		r->dbpos += n;
		return 0;
	case PQ_ENC_BYTE_STREAM_SPLIT:
		DL_TRY(grow((void **)&r->tmp, &r->tmp_cap, n * (size_t)pw + 1));
		DL_TRY(pq_bss_decode(r->vp, (size_t)(r->vend - r->vp), pw, r->bss_total, r->bss_pos, n, r->tmp));
		r->bss_pos += n;
		return convert(r, r->tmp, n, NULL, &r->bin);
	default:
		return dl_error_set(DL_EUNSUPPORTED, "value encoding %d", (int)r->enc);
	}
}

int pq_leaf_decode_values(pq_leaf_reader *r, size_t n)
{
	if (n == 0) return 0;
	int rc;
	if (r->out_width == 0) {
		rc = decode_var(r, n);
	} else {
		size_t ow = (size_t)r->out_width;
		size_t need = ((size_t)r->nvals + n) * ow;
		if (need + 16 > (size_t)r->vals_cap || !r->vals) {
			size_t cap = r->vals_cap ? (size_t)r->vals_cap : 4096;
			while (cap < need + 16) cap *= 2;
			uint8_t *v = dl_realloc(r->vals, cap);
			if (!v) return DL_ENOMEM;
			r->vals = v;
			r->vals_cap = (int64_t)cap;
		}
		rc = decode_fixed(r, n, r->vals + (size_t)r->nvals * ow);
		if (rc == 0) r->nvals += (int64_t)n;
	}
	if (rc < 0) return strstr(dl_error_last()->message, "row group") ? rc : pq_leaf_prefix(r);
	return 0;
}

/* Passes over the next n non-null values of the current page without
 * producing them: pointer arithmetic where the encoding allows, else a
 * decode whose output is dropped. */
int pq_leaf_skip_values(pq_leaf_reader *r, size_t n)
{
	if (n == 0 || !r->values_needed) return 0;
	const pq_rleaf *lf = r->leaf;
	int pw = lf->phys_width;
	int rc = 1;
	switch (r->enc) {
	case PQ_ENC_PLAIN:
		if (lf->el->type == PQ_BOOLEAN) break;
		if (pw == 0) {
			rc = pq_plain_bytes_skip(&r->vp, r->vend, n);
		} else if ((size_t)(r->vend - r->vp) / (size_t)pw < n) {
			rc = dl_error_set(DL_ECORRUPT, "PLAIN values truncated");
		} else {
			r->vp += n * (size_t)pw;
			rc = 0;
		}
		break;
	case PQ_ENC_PLAIN_DICTIONARY:
	case PQ_ENC_RLE_DICTIONARY: rc = pq_rle_skip(&r->rle, n); break;
	case PQ_ENC_DELTA_BINARY_PACKED:
		if (r->dcount - r->dpos < n) rc = dl_error_set(DL_ECORRUPT, "DELTA_BINARY_PACKED ran out of values");
		else r->dpos += n, rc = 0;
		break;
	case PQ_ENC_DELTA_LENGTH_BYTE_ARRAY:
	case PQ_ENC_DELTA_BYTE_ARRAY:
		if ((size_t)r->dbin.n - r->dbpos < n) rc = dl_error_set(DL_ECORRUPT, "delta byte arrays ran out of values");
		else r->dbpos += n, rc = 0;
		break;
	case PQ_ENC_BYTE_STREAM_SPLIT:
		if (r->bss_total - r->bss_pos < n) rc = dl_error_set(DL_ECORRUPT, "BYTE_STREAM_SPLIT ran out of values");
		else r->bss_pos += n, rc = 0;
		break;
	default: break;
	}
	if (rc < 0) return strstr(dl_error_last()->message, "row group") ? rc : pq_leaf_prefix(r);
	if (rc == 0) return 0;
	/* the rest (booleans, RLE): decode, then drop what was appended */
	if (r->out_width == 0) {
		int64_t n0 = r->bin.n;
		DL_TRY(pq_leaf_decode_values(r, n));
		r->bin.n = n0;
		r->bin.len = r->bin.offsets[n0];
	} else {
		int64_t n0 = r->nvals;
		DL_TRY(pq_leaf_decode_values(r, n));
		r->nvals = n0;
	}
	return 0;
}
