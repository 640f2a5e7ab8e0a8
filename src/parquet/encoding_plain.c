/* PLAIN encoding and the growable Arrow-style binary buffer. */
#include "parquet/encoding_read.h"
#include "util/error.h"
#include "util/mem.h"

#define PQ_BIN_MAX ((int64_t)INT32_MAX)

int pq_binbuf_reserve(pq_binbuf *b, int64_t n, int64_t bytes)
{
	if (n < 0 || bytes < 0 || b->n + n > PQ_BIN_MAX || b->len + bytes > PQ_BIN_MAX)
		return dl_error_set(DL_EUNSUPPORTED, "more than 2 GiB of string/binary data in one batch; use a smaller batch size");
	if (b->n + n > b->cap || !b->offsets) {
		int64_t cap = b->cap ? b->cap : 1024;
		while (cap < b->n + n) cap *= 2;
		int32_t *o = dl_reallocarray(b->offsets, (size_t)cap + 1, sizeof *o);
		if (!o) return DL_ENOMEM;
		if (!b->offsets) o[0] = 0;
		b->offsets = o;
		b->cap = cap;
	}
	if (b->len + bytes > b->dcap || !b->data) {
		int64_t cap = b->dcap ? b->dcap : 4096;
		while (cap < b->len + bytes) cap *= 2;
		uint8_t *d = dl_realloc(b->data, (size_t)cap);
		if (!d) return DL_ENOMEM;
		b->data = d;
		b->dcap = cap;
	}
	return 0;
}

int pq_binbuf_append(pq_binbuf *b, const uint8_t *p, uint32_t len)
{
	if (b->n + 1 > b->cap || b->len + len > b->dcap || !b->offsets || !b->data) DL_TRY(pq_binbuf_reserve(b, 1, len));
	pq_binbuf_push(b, p, len);
	return 0;
}

void pq_binbuf_reset(pq_binbuf *b)
{
	b->n = 0;
	b->len = 0;
}

void pq_binbuf_free(pq_binbuf *b)
{
	dl_free(b->offsets);
	dl_free(b->data);
	memset(b, 0, sizeof *b);
}

int pq_plain_fixed(const uint8_t **p, const uint8_t *end, int width, void *out, size_t n)
{
	size_t bytes = n * (size_t)width;
	if ((size_t)(end - *p) < bytes || (width && bytes / (size_t)width != n))
		return dl_error_set(DL_ECORRUPT, "PLAIN data holds fewer values than the page declares");
	if (bytes) memcpy(out, *p, bytes);
	*p += bytes;
	return 0;
}

int pq_plain_bool(const uint8_t **p, const uint8_t *end, int *bit, uint8_t *out, size_t n)
{
	uint64_t need = (uint64_t)*bit + n;
	if ((need + 7) / 8 > (uint64_t)(end - *p)) return dl_error_set(DL_ECORRUPT, "PLAIN booleans truncated");
	const uint8_t *q = *p;
	uint64_t b = (uint64_t)*bit;
	for (size_t i = 0; i < n; i++, b++) out[i] = (q[b >> 3] >> (b & 7)) & 1;
	*p += b >> 3;
	*bit = (int)(b & 7);
	return 0;
}

/* Below this many values their lengths are summed first and exactly their
 * bytes reserved: late materialization decodes a page's selected rows a
 * few at a time, and reserving the rest of the page for each would grow
 * the batch's buffer to a page's size (copying it) for a handful of rows. */
#define PQ_PLAIN_EXACT 64

int pq_plain_bytes(const uint8_t **p, const uint8_t *end, pq_binbuf *out, size_t n)
{
	/* The values' bytes cannot exceed what is left of the page, so one
	 * reservation covers them and the loop only checks the input. */
	size_t left = (size_t)(end - *p);
	size_t room = left < 4 * n ? 0 : left - 4 * n;
	if (n <= PQ_PLAIN_EXACT) {
		const uint8_t *q = *p;
		size_t total = 0;
		for (size_t i = 0; i < n && end - q >= 4; i++) {
			uint32_t len;
			memcpy(&len, q, 4);
			if ((size_t)(end - q) - 4 < len) break; /* reported below */
			total += len;
			q += 4 + (size_t)len;
		}
		room = total;
	}
	DL_TRY(pq_binbuf_reserve(out, (int64_t)n, (int64_t)room));
	const uint8_t *q = *p;
	for (size_t i = 0; i < n; i++) {
		if (end - q < 4) return dl_error_set(DL_ECORRUPT, "PLAIN byte array length truncated");
		uint32_t len;
		memcpy(&len, q, 4);
		q += 4;
		if ((size_t)(end - q) < len) return dl_error_set(DL_ECORRUPT, "PLAIN byte array of %u bytes overruns the page", len);
		pq_binbuf_push(out, q, len);
		q += len;
	}
	*p = q;
	return 0;
}

int pq_plain_bytes_skip(const uint8_t **p, const uint8_t *end, size_t n)
{
	const uint8_t *q = *p;
	size_t i = 0;
	while (i < n) {
		if (end - q < 4) return dl_error_set(DL_ECORRUPT, "PLAIN byte array length truncated");
		uint32_t len;
		memcpy(&len, q, 4);
		if ((size_t)(end - q) - 4 < len) return dl_error_set(DL_ECORRUPT, "PLAIN byte array of %u bytes overruns the page", len);
		/* Then the values that follow with the same length (codes, keys,
		 * fixed-format text often come in long runs of one length): each
		 * one's position is known before its length is loaded, so the
		 * loads do not wait on one another as a walk length by length
		 * does. Every value of the run lies inside the page. */
		size_t stride = 4 + (size_t)len;
		q += stride;
		i++;
		size_t fit = (size_t)(end - q) / stride, run = n - i < fit ? n - i : fit;
		for (size_t k = 0; k < run; k++) {
			uint32_t next;
			memcpy(&next, q, 4);
			if (next != len) break;
			q += stride;
			i++;
		}
	}
	*p = q;
	return 0;
}
