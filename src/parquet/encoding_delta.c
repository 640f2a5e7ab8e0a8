/* DELTA_BINARY_PACKED, DELTA_LENGTH_BYTE_ARRAY and DELTA_BYTE_ARRAY
 * (Encodings.md). The integer stream: header <block size> <miniblocks per
 * block> <total count> <first value (zigzag)>, then blocks of <min delta
 * (zigzag)> <one bit width byte per miniblock> <miniblocks, each padded to
 * a full miniblock>. Arithmetic wraps around in 64 bits, as writers do. */
#include "parquet/encoding_read.h"
#include "util/error.h"
#include "util/mem.h"

typedef struct cursor {
	const uint8_t *p, *end;
} cursor;

static int uvarint(cursor *c, uint64_t *out)
{
	uint64_t v = 0;
	for (int shift = 0; shift < 64; shift += 7) {
		if (c->p >= c->end) return dl_error_set(DL_ECORRUPT, "DELTA_BINARY_PACKED header truncated");
		uint8_t b = *c->p++;
		v |= (uint64_t)(b & 0x7f) << shift;
		if (!(b & 0x80)) {
			*out = v;
			return 0;
		}
	}
	return dl_error_set(DL_ECORRUPT, "DELTA_BINARY_PACKED varint too long");
}

static int zvarint(cursor *c, int64_t *out)
{
	uint64_t v;
	DL_TRY(uvarint(c, &v));
	*out = (int64_t)(v >> 1) ^ -(int64_t)(v & 1);
	return 0;
}

typedef struct header {
	uint64_t block, miniblocks, count;
	int64_t first;
} header;

static int read_header(cursor *c, header *h)
{
	DL_TRY(uvarint(c, &h->block));
	DL_TRY(uvarint(c, &h->miniblocks));
	DL_TRY(uvarint(c, &h->count));
	DL_TRY(zvarint(c, &h->first));
	if (h->block == 0 || h->block % 128 || h->block > (1u << 20) || h->miniblocks == 0 ||
	    h->block % h->miniblocks || (h->block / h->miniblocks) % 32)
		return dl_error_set(DL_ECORRUPT, "DELTA_BINARY_PACKED block size %llu / %llu miniblocks is invalid",
		                    (unsigned long long)h->block, (unsigned long long)h->miniblocks);
	return 0;
}

int pq_delta_count(const uint8_t *p, size_t len, uint64_t *count)
{
	cursor c = {p, p + len};
	header h;
	DL_TRY(read_header(&c, &h));
	*count = h.count;
	return 0;
}

static uint64_t get_bits(const uint8_t *p, const uint8_t *end, uint64_t bit, int w)
{
	const uint8_t *q = p + (bit >> 3);
	int sh = (int)(bit & 7);
	if (w <= 56 && end - q >= 8) {
		uint64_t word;
		memcpy(&word, q, 8);
		return (word >> sh) & ((1ull << w) - 1);
	}
	uint64_t v = 0;
	int got = 0;
	for (int k = 0; got < w + sh && q + k < end; k++, got += 8) {
		uint64_t byte = q[k];
		if (k == 0) v = byte >> sh;
		else if (8 * k - sh < 64) v |= byte << (8 * k - sh);
	}
	return w == 64 ? v : v & ((1ull << w) - 1);
}

int pq_delta_decode(const uint8_t *p, size_t len, int64_t *out, size_t count, size_t *used)
{
	cursor c = {p, p + len};
	header h;
	DL_TRY(read_header(&c, &h));
	if (h.count < count) return dl_error_set(DL_ECORRUPT, "DELTA_BINARY_PACKED holds %llu values, %zu needed",
	                                          (unsigned long long)h.count, count);
	count = (size_t)h.count < count ? (size_t)h.count : count;
	uint64_t vpm = h.block / h.miniblocks;
	uint64_t prev = (uint64_t)h.first;
	size_t i = 0;
	if (count) out[i++] = h.first;
	uint8_t widths[256];
	if (h.miniblocks > sizeof widths) return dl_error_set(DL_ECORRUPT, "DELTA_BINARY_PACKED has too many miniblocks");
	while (i < h.count && i < count) {
		int64_t min_delta;
		DL_TRY(zvarint(&c, &min_delta));
		if ((uint64_t)(c.end - c.p) < h.miniblocks) return dl_error_set(DL_ECORRUPT, "DELTA_BINARY_PACKED bit widths truncated");
		memcpy(widths, c.p, h.miniblocks);
		c.p += h.miniblocks;
		for (uint64_t m = 0; m < h.miniblocks && i < count; m++) {
			int w = widths[m];
			if (w > 64) return dl_error_set(DL_ECORRUPT, "DELTA_BINARY_PACKED bit width %d > 64", w);
			uint64_t bytes = vpm * (uint64_t)w / 8;
			const uint8_t *mb = c.p;
			/* The last miniblock may be cut short by some writers: only the
			 * bits of the values we need must be present. */
			uint64_t n = count - i < vpm ? count - i : vpm;
			if ((n * (uint64_t)w + 7) / 8 > (uint64_t)(c.end - c.p))
				return dl_error_set(DL_ECORRUPT, "DELTA_BINARY_PACKED miniblock truncated");
			const uint8_t *mend = (uint64_t)(c.end - c.p) < bytes ? c.end : c.p + bytes;
			for (uint64_t k = 0; k < n; k++) {
				prev += (uint64_t)min_delta + get_bits(mb, mend, k * (uint64_t)w, w);
				out[i++] = (int64_t)prev;
			}
			c.p = mend;
		}
	}
	*used = (size_t)(c.p - p);
	return 0;
}

/* Decodes a DELTA_BINARY_PACKED stream of lengths (count <= max). */
static int lengths(cursor *c, size_t max, int64_t **out, size_t *n)
{
	uint64_t cnt;
	DL_TRY(pq_delta_count(c->p, (size_t)(c->end - c->p), &cnt));
	if (cnt > max) return dl_error_set(DL_ECORRUPT, "delta-encoded byte arrays: %llu lengths for at most %zu values",
	                                   (unsigned long long)cnt, max);
	*out = dl_malloc(cnt ? (size_t)cnt * sizeof **out : 1);
	if (!*out) return DL_ENOMEM;
	size_t used;
	int rc = pq_delta_decode(c->p, (size_t)(c->end - c->p), *out, (size_t)cnt, &used);
	if (rc < 0) {
		dl_free(*out);
		*out = NULL;
		return rc;
	}
	c->p += used;
	*n = (size_t)cnt;
	return 0;
}

int pq_delta_length_decode(const uint8_t *p, size_t len, size_t max_values, pq_binbuf *out, size_t *n_out)
{
	cursor c = {p, p + len};
	int64_t *lens;
	size_t n;
	DL_TRY(lengths(&c, max_values, &lens, &n));
	uint64_t total = 0;
	int rc = 0;
	for (size_t i = 0; i < n && rc == 0; i++) {
		if (lens[i] < 0 || lens[i] > INT32_MAX) rc = dl_error_set(DL_ECORRUPT, "DELTA_LENGTH_BYTE_ARRAY negative length");
		total += (uint64_t)lens[i];
	}
	if (rc == 0 && total > (uint64_t)(c.end - c.p)) rc = dl_error_set(DL_ECORRUPT, "DELTA_LENGTH_BYTE_ARRAY data truncated");
	if (rc == 0) rc = pq_binbuf_reserve(out, (int64_t)n, (int64_t)total);
	for (size_t i = 0; i < n && rc == 0; i++) {
		pq_binbuf_push(out, c.p, (uint32_t)lens[i]);
		c.p += lens[i];
	}
	dl_free(lens);
	*n_out = n;
	return rc;
}

int pq_delta_bytes_decode(const uint8_t *p, size_t len, size_t max_values, pq_binbuf *out, size_t *n_out)
{
	cursor c = {p, p + len};
	int64_t *pre = NULL, *suf = NULL;
	size_t np, ns;
	DL_TRY(lengths(&c, max_values, &pre, &np));
	int rc = lengths(&c, max_values, &suf, &ns);
	if (rc == 0 && np != ns) rc = dl_error_set(DL_ECORRUPT, "DELTA_BYTE_ARRAY has %zu prefixes but %zu suffixes", np, ns);
	uint64_t total = 0, sufs = 0, prev = 0;
	for (size_t i = 0; i < np && rc == 0; i++) {
		if (pre[i] < 0 || suf[i] < 0 || (uint64_t)pre[i] > prev || suf[i] > INT32_MAX)
			rc = dl_error_set(DL_ECORRUPT, "DELTA_BYTE_ARRAY prefix or suffix length invalid at value %zu", i);
		else {
			prev = (uint64_t)pre[i] + (uint64_t)suf[i];
			total += prev;
			sufs += (uint64_t)suf[i];
			if (total > INT32_MAX) rc = dl_error_set(DL_EUNSUPPORTED, "DELTA_BYTE_ARRAY page expands beyond 2 GiB");
		}
	}
	if (rc == 0 && sufs > (uint64_t)(c.end - c.p)) rc = dl_error_set(DL_ECORRUPT, "DELTA_BYTE_ARRAY suffix data truncated");
	if (rc == 0) rc = pq_binbuf_reserve(out, (int64_t)np, (int64_t)total);
	int64_t last = -1; /* start of the previous value in out->data */
	for (size_t i = 0; i < np && rc == 0; i++) {
		uint8_t *dst = out->data + out->len;
		if (pre[i]) memmove(dst, out->data + last, (size_t)pre[i]);
		if (suf[i]) memcpy(dst + pre[i], c.p, (size_t)suf[i]);
		c.p += suf[i];
		last = out->len;
		out->len += pre[i] + suf[i];
		out->offsets[++out->n] = (int32_t)out->len;
	}
	dl_free(pre);
	dl_free(suf);
	*n_out = np;
	return rc;
}
