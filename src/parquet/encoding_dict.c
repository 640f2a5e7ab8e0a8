/* Dictionary decoding: indices (RLE/bit-packed hybrid) gathered from the
 * decoded dictionary page. Indices come from the file: each is checked in
 * the copy loop (one compare, no extra pass), and a bad one is reported
 * with the chunk's largest index. */
#include "parquet/encoding_read.h"
#include "util/error.h"

#define PQ_BIN_MAX ((int64_t)INT32_MAX)
/* Bytes after a prepared dictionary's data and after the gathered values:
 * the fixed 16-byte moves read and write up to 32 bytes from a value's
 * start (two moves for entries of 17..32 bytes, one for shorter ones). */
#define PQ_DICT_SLACK 32

static int check_indices(const uint32_t *idx, size_t n, uint32_t ndict)
{
	uint32_t max = 0;
	for (size_t i = 0; i < n; i++) max = idx[i] > max ? idx[i] : max;
	if (n && max >= ndict)
		return dl_error_set(DL_ECORRUPT, "dictionary index %u out of range (dictionary has %u entries)", max, ndict);
	return 0;
}

/* Values of w bytes (a constant where inlined, so each copy is one move)
 * gathered with the index check in the loop: one compare a value instead
 * of a separate pass. Returns how many were copied: n, or the position of
 * the first index out of range. */
static inline __attribute__((always_inline)) size_t gather_w(const uint8_t *dict, uint32_t nd, size_t w,
                                                             const uint32_t *idx, size_t n, uint8_t *o)
{
	size_t i = 0;
	/* four indices loaded before the four stores, which for the compiler
	 * may alias them */
	for (; i + 4 <= n; i += 4) {
		uint32_t j0 = idx[i], j1 = idx[i + 1], j2 = idx[i + 2], j3 = idx[i + 3];
		if (j0 >= nd || j1 >= nd || j2 >= nd || j3 >= nd) break;
		memcpy(o + i * w, dict + j0 * w, w);
		memcpy(o + (i + 1) * w, dict + j1 * w, w);
		memcpy(o + (i + 2) * w, dict + j2 * w, w);
		memcpy(o + (i + 3) * w, dict + j3 * w, w);
	}
	for (; i < n; i++) {
		uint32_t j = idx[i];
		if (j >= nd) break;
		memcpy(o + i * w, dict + j * w, w);
	}
	return i;
}

int pq_dict_gather_fixed(const uint8_t *dict, uint32_t ndict, int width, const uint32_t *idx, size_t n, void *out)
{
	size_t done;
	switch (width) {
	case 1: done = gather_w(dict, ndict, 1, idx, n, out); break;
	case 2: done = gather_w(dict, ndict, 2, idx, n, out); break;
	case 4: done = gather_w(dict, ndict, 4, idx, n, out); break;
	case 8: done = gather_w(dict, ndict, 8, idx, n, out); break;
	case 16: done = gather_w(dict, ndict, 16, idx, n, out); break;
	default: done = gather_w(dict, ndict, (size_t)width, idx, n, out); break;
	}
	/* the message names the chunk's largest index, as a first pass would */
	return done < n ? check_indices(idx, n, ndict) : 0;
}

int pq_dict_prepare_bytes(pq_binbuf *dict, int32_t *maxlen)
{
	DL_TRY(pq_binbuf_reserve(dict, 0, PQ_DICT_SLACK));
	/* Zeroed, so the bytes an over-read copies past the last entry are
	 * defined (they land in the output's slack, beyond its length). */
	memset(dict->data + dict->len, 0, PQ_DICT_SLACK);
	int32_t m = 0;
	for (int64_t i = 0; i < dict->n; i++) {
		int32_t len = dict->offsets[i + 1] - dict->offsets[i];
		m = len > m ? len : m;
	}
	*maxlen = m;
	return 0;
}

/* The gather loop for dictionaries whose entries are all at most 16 * moves
 * bytes: each value is `moves` unconditional 16-byte moves (the dictionary's
 * and the output's slack take the over-read and over-write), so
 * the loop has no branch but the index check. Returns how many values it
 * copied: n, or the position of the first index out of range. */
static inline __attribute__((always_inline)) size_t gather_short(const int32_t *off, const uint8_t *data, uint32_t nd,
                                                                 const uint32_t *idx, size_t n, uint8_t *base,
                                                                 int32_t *o, size_t *posp, int moves)
{
	size_t pos = *posp, i = 0;
	/* Its offsets are loaded before a value's stores: for the compiler a
	 * byte store may alias them and would force reloads. */
#define PUT(j, k)                                                                   \
	do {                                                                        \
		int64_t s_ = off[j], e_ = off[(size_t)(j) + 1];                      \
		memcpy(base + pos, data + s_, 16);                                  \
		if (moves > 1) memcpy(base + pos + 16, data + s_ + 16, 16);         \
		pos += (size_t)(e_ - s_);                                           \
		o[k] = (int32_t)pos;                                                \
	} while (0)
	/* Four values a round (a quarter of the loop's overhead); a bad index
	 * among them leaves the four to the loop below, which stops at it. */
	for (; i + 4 <= n; i += 4) {
		uint32_t j0 = idx[i], j1 = idx[i + 1], j2 = idx[i + 2], j3 = idx[i + 3];
		if (j0 >= nd || j1 >= nd || j2 >= nd || j3 >= nd) break;
		PUT(j0, i);
		PUT(j1, i + 1);
		PUT(j2, i + 2);
		PUT(j3, i + 3);
	}
	for (; i < n; i++) {
		uint32_t j = idx[i];
		if (j >= nd) break;
		PUT(j, i);
	}
#undef PUT
	*posp = pos;
	return i;
}

/* Any entry lengths: up to 64 bytes in 16-byte moves, longer by memcpy. */
static size_t gather_any(const int32_t *off, const uint8_t *data, uint32_t nd, const uint32_t *idx, size_t n,
                         uint8_t *base, int32_t *o, size_t *posp)
{
	size_t pos = *posp, i = 0;
	for (; i < n; i++) {
		uint32_t j = idx[i];
		if (j >= nd) break;
		int64_t so = off[j], e = off[(size_t)j + 1];
		const uint8_t *s = data + so;
		size_t len = (size_t)(e - so);
		uint8_t *d = base + pos;
		memcpy(d, s, 16);
		if (len > 16) {
			if (len <= 64)
				for (size_t k = 16; k < len; k += 16) memcpy(d + k, s + k, 16);
			else
				memcpy(d, s, len);
		}
		pos += len;
		o[i] = (int32_t)pos;
	}
	*posp = pos;
	return i;
}

int pq_dict_gather_bytes(const pq_binbuf *dict, int32_t maxlen, const uint32_t *idx, size_t n, pq_binbuf *out)
{
	if (maxlen < 0 || !dict->data || !dict->offsets || dict->dcap - dict->len < PQ_DICT_SLACK)
		return dl_error_set(DL_ERROR, "internal: dictionary gathered before pq_dict_prepare_bytes");
	uint32_t nd = (uint32_t)dict->n;
	/* No reservation when the values' upper bound (every one of maxlen
	 * bytes) already fits the output's buffer, as it mostly does once a
	 * batch's buffer is presized: summing the lengths first would cost
	 * about as much as copying them. Otherwise the exact sum is reserved,
	 * so a buffer never grows for room it will not use. Both leave
	 * PQ_DICT_SLACK bytes after the values (other code relies on 16). */
	int64_t bound = -1;
	if (n <= (size_t)(PQ_BIN_MAX / ((int64_t)maxlen + 1))) bound = (int64_t)n * maxlen + PQ_DICT_SLACK;
	if (!(out->offsets && out->data && bound >= 0 && out->n + (int64_t)n <= out->cap &&
	      out->len + bound <= out->dcap && out->len + bound <= PQ_BIN_MAX)) {
		int64_t total = 0;
		for (size_t i = 0; i < n; i++) {
			uint32_t j = idx[i];
			if (j >= nd) return check_indices(idx, n, nd);
			total += dict->offsets[(size_t)j + 1] - dict->offsets[j];
		}
		DL_TRY(pq_binbuf_reserve(out, (int64_t)n, total + PQ_DICT_SLACK));
	}
	size_t pos = (size_t)out->len, done;
	int32_t *o = out->offsets + out->n + 1;
	if (maxlen <= 16)
		done = gather_short(dict->offsets, dict->data, nd, idx, n, out->data, o, &pos, 1);
	else if (maxlen <= 32)
		done = gather_short(dict->offsets, dict->data, nd, idx, n, out->data, o, &pos, 2);
	else
		done = gather_any(dict->offsets, dict->data, nd, idx, n, out->data, o, &pos);
	/* A bad index stops the loop; the values before it were written past
	 * out's length only, so out is unchanged, and the message names the
	 * chunk's largest index as before. */
	if (done < n) return check_indices(idx, n, nd);
	out->n += (int64_t)n;
	out->len = (int64_t)pos;
	return 0;
}
