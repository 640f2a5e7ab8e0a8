/* A chunk's Bloom filter from the file, and values in the bytes it hashed:
 * parquet-format hashes the plain encoding (BYTE_ARRAY without its length;
 * INT32/INT64/FLOAT/DOUBLE little-endian; FIXED_LEN_BYTE_ARRAY its bytes,
 * so a decimal there is big-endian two's complement of the type length). */
#include "parquet/bloom_read.h"
#include <math.h>
#include <string.h>
#include "util/error.h"
#include "util/mem.h"

static void le(uint8_t *p, uint64_t v, int n)
{
	for (int i = 0; i < n; i++) p[i] = (uint8_t)(v >> (8 * i));
}

bool pq_bloom_plain_value(const pq_rleaf *lf, const pq_stat_value *v, uint8_t tmp[16], const uint8_t **p,
                          size_t *n)
{
	*p = tmp;
	if (lf->type && lf->type->geo) return false;
	switch (lf->el->type) {
	case PQ_INT32: {
		int64_t x;
		switch (lf->conv) {
		case PQ_CONV_NONE:
		case PQ_CONV_I32_I8:
		case PQ_CONV_I32_I16:
			if (v->i < INT32_MIN || v->i > INT32_MAX) return false;
			x = v->i;
			break;
		case PQ_CONV_U32_I64:
			if (v->i < 0 || v->i > (int64_t)UINT32_MAX) return false;
			x = (int32_t)(uint32_t)v->i;
			break;
		case PQ_CONV_I32_DEC:
			if (v->dec < INT32_MIN || v->dec > INT32_MAX) return false;
			x = (int64_t)v->dec;
			break;
		default: return false;
		}
		le(tmp, (uint64_t)x, 4);
		*n = 4;
		return true;
	}
	case PQ_INT64: {
		uint64_t x;
		switch (lf->conv) {
		case PQ_CONV_NONE: x = (uint64_t)v->i; break;
		case PQ_CONV_I64_DEC:
			if (v->dec < INT64_MIN || v->dec > INT64_MAX) return false;
			x = (uint64_t)(int64_t)v->dec;
			break;
		case PQ_CONV_U64_DEC:
			if (v->dec < 0 || v->dec > (dl_i128)UINT64_MAX) return false;
			x = (uint64_t)v->dec;
			break;
		default: return false; /* millis/nanos: not the bytes of the micros compared */
		}
		le(tmp, x, 8);
		*n = 8;
		return true;
	}
	case PQ_FLOAT: {
		/* -0.0 = 0.0 and NaN = NaN in Spark, with other bits than the literal's */
		if (lf->conv != PQ_CONV_NONE || v->d == 0 || isnan(v->d)) return false;
		float f = (float)v->d;
		memcpy(tmp, &f, 4);
		*n = 4;
		return true;
	}
	case PQ_DOUBLE:
		if (lf->conv != PQ_CONV_NONE || v->d == 0 || isnan(v->d)) return false;
		memcpy(tmp, &v->d, 8);
		*n = 8;
		return true;
	case PQ_BYTE_ARRAY:
		if (lf->conv != PQ_CONV_NONE) return false; /* decimals: any width is valid */
		*p = v->s;
		*n = v->len;
		return v->s != NULL || v->len == 0;
	case PQ_FIXED_LEN_BYTE_ARRAY: {
		int32_t w = lf->el->type_length;
		if (lf->conv == PQ_CONV_FLBA_BIN) {
			if (v->len != (uint32_t)w) return false;
			*p = v->s;
			*n = v->len;
			return true;
		}
		if (lf->conv != PQ_CONV_FLBA_DEC || w <= 0 || w > 16) return false;
		/* the value must fit in w bytes (sign-extended) */
		dl_i128 lim = w == 16 ? 0 : (dl_i128)1 << (8 * w - 1);
		if (w < 16 && (v->dec < -lim || v->dec >= lim)) return false;
		__extension__ typedef unsigned __int128 u128;
		u128 u = (u128)v->dec;
		for (int i = 0; i < w; i++) tmp[w - 1 - i] = (uint8_t)(u >> (8 * i));
		*n = (size_t)w;
		return true;
	}
	default: return false; /* BOOLEAN, INT96 */
	}
}

/* Header bytes read when the chunk gives no length (older writers): a
 * BloomFilterHeader is about 15 bytes. */
#define HEADER_GUESS 64

int pq_bloom_read(pq_source *src, const pq_column_chunk *cc, const char *what, pq_bloom *out)
{
	memset(out, 0, sizeof *out);
	if (!cc->has_meta_data || !cc->meta_data.has_bloom_filter_offset) return 1;
	const pq_column_meta *m = &cc->meta_data;
	int64_t off = m->bloom_filter_offset;
	if (off < 0 || off >= src->size) return 1;
	int64_t len = m->has_bloom_filter_length ? m->bloom_filter_length : -1;
	if (len > src->size - off || len == 0) return 1;
	const uint8_t *p;
	uint8_t *owned = NULL;
	int rc;
	if (len < 0) {
		/* the header first, then header and bitset */
		size_t g = (size_t)(src->size - off < HEADER_GUESS ? src->size - off : HEADER_GUESS);
		rc = pq_source_read(src, off, g, &p, &owned);
		pq_bloom_header h;
		size_t hl = 0;
		if (rc == 0) rc = pq_bloom_header_decode(&h, p, g, &hl, what);
		dl_free(owned);
		owned = NULL;
		if (rc == DL_ENOMEM) return rc;
		if (rc < 0 || h.num_bytes <= 0 || (int64_t)h.num_bytes > src->size - off - (int64_t)hl) {
			dl_error_clear();
			return 1;
		}
		len = (int64_t)hl + h.num_bytes;
	}
	rc = pq_source_read(src, off, (size_t)len, &p, &owned);
	if (rc == 0) rc = pq_bloom_decode(out, p, (size_t)len, what);
	dl_free(owned);
	if (rc == DL_ENOMEM) return rc;
	if (rc < 0) {
		dl_error_clear();
		pq_bloom_free(out);
		return 1;
	}
	return 0;
}
