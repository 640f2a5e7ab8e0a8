/* Dictionary decoding: indices (RLE/bit-packed hybrid) gathered from the
 * decoded dictionary page. Indices come from the file, so each chunk's
 * maximum is checked before the gather loop runs unchecked. */
#include "parquet/encoding_read.h"
#include "util/error.h"

static int check_indices(const uint32_t *idx, size_t n, uint32_t ndict)
{
	uint32_t max = 0;
	for (size_t i = 0; i < n; i++) max = idx[i] > max ? idx[i] : max;
	if (n && max >= ndict)
		return dl_error_set(DL_ECORRUPT, "dictionary index %u out of range (dictionary has %u entries)", max, ndict);
	return 0;
}

int pq_dict_gather_fixed(const uint8_t *dict, uint32_t ndict, int width, const uint32_t *idx, size_t n, void *out)
{
	DL_TRY(check_indices(idx, n, ndict));
	switch (width) {
	case 1: {
		uint8_t *o = out;
		for (size_t i = 0; i < n; i++) o[i] = dict[idx[i]];
		return 0;
	}
	case 4: {
		uint32_t *o = out;
		const uint32_t *d = (const uint32_t *)(const void *)dict;
		for (size_t i = 0; i < n; i++) o[i] = d[idx[i]];
		return 0;
	}
	case 8: {
		uint64_t *o = out;
		const uint64_t *d = (const uint64_t *)(const void *)dict;
		for (size_t i = 0; i < n; i++) o[i] = d[idx[i]];
		return 0;
	}
	default: {
		uint8_t *o = out;
		for (size_t i = 0; i < n; i++) memcpy(o + i * (size_t)width, dict + (size_t)idx[i] * (size_t)width, (size_t)width);
		return 0;
	}
	}
}

int pq_dict_gather_bytes(const pq_binbuf *dict, const uint32_t *idx, size_t n, pq_binbuf *out)
{
	DL_TRY(check_indices(idx, n, (uint32_t)dict->n));
	int64_t total = 0;
	for (size_t i = 0; i < n; i++) total += dict->offsets[idx[i] + 1] - dict->offsets[idx[i]];
	/* 16 bytes of slack after the output let short values be copied with
	 * one fixed 16-byte move (inlined) instead of a memcpy call each. */
	DL_TRY(pq_binbuf_reserve(out, (int64_t)n, total + 16));
	const int32_t *off = dict->offsets;
	const uint8_t *data = dict->data;
	uint8_t *dst = out->data + out->len;
	int32_t *o = out->offsets + out->n + 1;
	int32_t pos = (int32_t)out->len;
	/* Entries starting 16 bytes before the end of the dictionary's buffer
	 * may not be over-read. */
	int64_t safe = dict->dcap - 16;
	for (size_t i = 0; i < n; i++) {
		int32_t s = off[idx[i]], len = off[idx[i] + 1] - s;
		if (len <= 16 && s <= safe) memcpy(dst, data + s, 16);
		else memcpy(dst, data + s, (size_t)len);
		dst += len;
		pos += len;
		o[i] = pos;
	}
	out->n += (int64_t)n;
	out->len = pos;
	return 0;
}
