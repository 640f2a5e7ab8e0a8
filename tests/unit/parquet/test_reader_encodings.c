/* Decoders of every Parquet encoding on hand-made bytes (Encodings.md
 * examples), plus hostile inputs that must fail cleanly. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <cmocka.h>
#include <string.h>
#include "parquet/encoding_read.h"
#include "util/error.h"

static void test_rle_hybrid_spec_example(void **state)
{
	(void)state;
	/* bit-packed run of 8 values 0..7 at width 3, then an RLE run of five 4s */
	const uint8_t data[] = {0x03, 0x88, 0xC6, 0xFA, 0x0A, 0x04};
	pq_rle d;
	pq_rle_init(&d, data, sizeof data, 3);
	uint32_t out[13];
	assert_int_equal(pq_rle_get_u32(&d, out, 13), 0);
	for (uint32_t i = 0; i < 8; i++) assert_int_equal(out[i], i);
	for (int i = 8; i < 13; i++) assert_int_equal(out[i], 4);
	/* reading past the end fails instead of inventing values */
	assert_int_equal(pq_rle_get_u32(&d, out, 1), DL_ECORRUPT);
}

static void test_rle_levels_u8_and_wide_values(void **state)
{
	(void)state;
	/* RLE run of 300 ones at width 1 (header 600 = varint 0xD8 0x04) */
	const uint8_t data[] = {0xD8, 0x04, 0x01};
	pq_rle d;
	pq_rle_init(&d, data, sizeof data, 1);
	uint8_t lv[300];
	assert_int_equal(pq_rle_get_u8(&d, lv, 300), 0);
	for (int i = 0; i < 300; i++) assert_int_equal(lv[i], 1);
	/* width 20: RLE value in 3 bytes */
	const uint8_t w20[] = {0x04, 0x56, 0x34, 0x02};
	pq_rle_init(&d, w20, sizeof w20, 20);
	uint32_t v[2];
	assert_int_equal(pq_rle_get_u32(&d, v, 2), 0);
	assert_int_equal(v[0], 0x023456);
	/* a value wider than the bit width is corrupt */
	const uint8_t bad[] = {0x02, 0x05};
	pq_rle_init(&d, bad, sizeof bad, 2);
	assert_int_equal(pq_rle_get_u32(&d, v, 1), DL_ECORRUPT);
}

static void test_bit_packed_legacy(void **state)
{
	(void)state;
	const uint8_t data[] = {0x05, 0x39, 0x77}; /* 0..7, width 3, MSB first */
	uint8_t out[8];
	size_t used;
	assert_int_equal(pq_bitpacked_legacy_u8(data, sizeof data, 3, out, 8, &used), 0);
	assert_int_equal(used, 3);
	for (int i = 0; i < 8; i++) assert_int_equal(out[i], i);
	assert_int_equal(pq_bitpacked_legacy_u8(data, 2, 3, out, 8, &used), DL_ECORRUPT);
}

static void test_plain(void **state)
{
	(void)state;
	const uint8_t ints[] = {1, 0, 0, 0, 0xff, 0xff, 0xff, 0xff};
	const uint8_t *p = ints;
	int32_t out[2];
	assert_int_equal(pq_plain_fixed(&p, ints + 8, 4, out, 2), 0);
	assert_int_equal(out[0], 1);
	assert_int_equal(out[1], -1);
	p = ints;
	assert_int_equal(pq_plain_fixed(&p, ints + 7, 4, out, 2), DL_ECORRUPT);

	const uint8_t bools[] = {0x0D, 0x01}; /* 1,0,1,1,0,0,0,0, 1 */
	uint8_t b[9];
	int bit = 0;
	p = bools;
	assert_int_equal(pq_plain_bool(&p, bools + 2, &bit, b, 3), 0);
	assert_int_equal(pq_plain_bool(&p, bools + 2, &bit, b + 3, 6), 0);
	const uint8_t want[] = {1, 0, 1, 1, 0, 0, 0, 0, 1};
	assert_memory_equal(b, want, 9);

	const uint8_t bytes[] = {2, 0, 0, 0, 'h', 'i', 0, 0, 0, 0, 3, 0, 0, 0, 'a', 'b', 'c'};
	pq_binbuf bb = {0};
	p = bytes;
	assert_int_equal(pq_plain_bytes(&p, bytes + sizeof bytes, &bb, 3), 0);
	assert_int_equal(bb.n, 3);
	assert_int_equal(bb.offsets[1], 2);
	assert_int_equal(bb.offsets[2], 2);
	assert_int_equal(bb.offsets[3], 5);
	assert_memory_equal(bb.data, "hiabc", 5);
	/* a length running past the data */
	const uint8_t over[] = {9, 0, 0, 0, 'x'};
	p = over;
	assert_int_equal(pq_plain_bytes(&p, over + sizeof over, &bb, 1), DL_ECORRUPT);
	pq_binbuf_free(&bb);
}

/* PLAIN byte arrays: n values at len[0..n) (value i's bytes all 'a'+i%26). */
static size_t plain_strings(uint8_t *out, const uint32_t *len, size_t n)
{
	size_t k = 0;
	for (size_t i = 0; i < n; i++) {
		memcpy(out + k, &len[i], 4);
		memset(out + k + 4, 'a' + (int)(i % 26), len[i]);
		k += 4 + len[i];
	}
	return k;
}

/* Skipping PLAIN byte arrays (late materialization) runs over values of one
 * length without chaining the loads: it must land where a walk value by
 * value does, whatever the runs, and still refuse a value overrunning the
 * page inside a run. A few values decoded reserve their own bytes, not the
 * rest of the page. */
static void test_plain_bytes_skip_runs(void **state)
{
	(void)state;
	enum { N = 1000 };
	uint32_t len[N];
	for (size_t i = 0; i < N; i++) len[i] = i < 100 ? 10 : i < 103 ? (uint32_t)i % 3 : i < 250 ? 7 : (uint32_t)(i * 7 % 13);
	static uint8_t page[N * 24];
	size_t total = plain_strings(page, len, N);
	for (size_t from = 0; from < N; from += 37)
		for (size_t n = 0; from + n <= N; n += 11) {
			size_t want = 0;
			for (size_t i = 0; i < from + n; i++) want += 4 + len[i];
			const uint8_t *p = page;
			assert_int_equal(pq_plain_bytes_skip(&p, page + total, from), 0);
			assert_int_equal(pq_plain_bytes_skip(&p, page + total, n), 0);
			assert_int_equal((size_t)(p - page), want);
		}
	/* one value more than the page holds; a run cut by the page's end */
	const uint8_t *p = page;
	assert_int_equal(pq_plain_bytes_skip(&p, page + total, N + 1), DL_ECORRUPT);
	size_t cut = 0;
	for (size_t i = 0; i < 50; i++) cut += 4 + len[i];
	p = page;
	assert_int_equal(pq_plain_bytes_skip(&p, page + cut + 6, 51), DL_ECORRUPT);
	p = page;
	assert_int_equal(pq_plain_bytes_skip(&p, page + cut + 6, 50), 0);
	assert_int_equal((size_t)(p - page), cut);
	/* the 151st value (7 bytes) decoded alone reserves about its size */
	size_t at = 0;
	for (size_t i = 0; i < 150; i++) at += 4 + len[i];
	p = page + at;
	pq_binbuf bb;
	memset(&bb, 0, sizeof bb);
	assert_int_equal(pq_plain_bytes(&p, page + total, &bb, 1), 0);
	assert_int_equal(bb.n, 1);
	assert_int_equal(bb.len, 7);
	assert_memory_equal(bb.data, "uuuuuuu", 7);
	assert_true(bb.dcap <= 4096);
	pq_binbuf_free(&bb);
}

static void test_dictionary_gather_checks_indices(void **state)
{
	(void)state;
	const int64_t dict[] = {10, 20, 30};
	uint32_t idx[] = {2, 0, 1, 1};
	int64_t out[4];
	assert_int_equal(pq_dict_gather_fixed((const uint8_t *)dict, 3, 8, idx, 4, out), 0);
	assert_int_equal(out[0], 30);
	assert_int_equal(out[3], 20);
	idx[2] = 3;
	assert_int_equal(pq_dict_gather_fixed((const uint8_t *)dict, 3, 8, idx, 4, out), DL_ECORRUPT);

	pq_binbuf d = {0}, o = {0};
	assert_int_equal(pq_binbuf_append(&d, (const uint8_t *)"ab", 2), 0);
	assert_int_equal(pq_binbuf_append(&d, (const uint8_t *)"", 0), 0);
	assert_int_equal(pq_binbuf_append(&d, (const uint8_t *)"xyz", 3), 0);
	int32_t maxlen;
	assert_int_equal(pq_dict_prepare_bytes(&d, &maxlen), 0);
	assert_int_equal(maxlen, 3);
	uint32_t bi[] = {2, 1, 0, 2};
	assert_int_equal(pq_dict_gather_bytes(&d, maxlen, bi, 4, &o), 0);
	assert_int_equal(o.len, 8);
	assert_memory_equal(o.data, "xyzabxyz", 8);
	assert_int_equal(o.offsets[2], 3);
	/* the bad index is the third: the message names the chunk's largest,
	 * and the two values before it are not appended */
	bi[2] = 7;
	bi[3] = 9;
	assert_int_equal(pq_dict_gather_bytes(&d, maxlen, bi, 4, &o), DL_ECORRUPT);
	assert_string_equal(dl_error_last()->message, "dictionary index 9 out of range (dictionary has 3 entries)");
	assert_int_equal(o.n, 4);
	assert_int_equal(o.len, 8);
	/* an unprepared dictionary is refused, not over-read */
	pq_binbuf u = {0};
	assert_int_equal(pq_binbuf_append(&u, (const uint8_t *)"ab", 2), 0);
	u.dcap = u.len; /* as if its buffer ended at its data */
	bi[2] = 0;
	assert_int_equal(pq_dict_gather_bytes(&u, 2, bi, 1, &o), DL_ERROR);
	pq_binbuf_free(&u);
	pq_binbuf_free(&d);
	pq_binbuf_free(&o);
}

/* Fixed-width gathers of each width the reader uses (and an odd one)
 * against a byte-wise reference, lengths not a multiple of the 4-value
 * rounds, and a bad index in a round or in the tail. */
static void test_dictionary_gather_fixed_widths(void **state)
{
	(void)state;
	enum { ND = 37, NI = 1023 };
	static uint8_t dict[ND * 16], out[(NI + 1) * 16], want[NI * 16];
	static uint32_t idx[NI];
	const int widths[] = {1, 2, 4, 8, 12, 16};
	for (size_t i = 0; i < sizeof dict; i++) dict[i] = (uint8_t)(i * 13 + 5);
	for (size_t i = 0; i < NI; i++) idx[i] = (uint32_t)((i * 2654435761u) >> 9) % ND;
	idx[NI - 1] = ND - 1;
	for (size_t k = 0; k < sizeof widths / sizeof *widths; k++) {
		size_t w = (size_t)widths[k];
		for (size_t n = 0; n <= 7; n++) {
			size_t cnt = n == 7 ? NI : n;
			memset(out, 0xEE, sizeof out);
			for (size_t i = 0; i < cnt; i++) memcpy(want + i * w, dict + idx[i] * w, w);
			assert_int_equal(pq_dict_gather_fixed(dict, ND, (int)w, idx, cnt, out), 0);
			if (cnt) assert_memory_equal(out, want, cnt * w);
			assert_int_equal(out[cnt * w], 0xEE); /* nothing written past the values */
		}
		const size_t bad[] = {0, 3, 1000, NI - 1};
		for (size_t b = 0; b < sizeof bad / sizeof *bad; b++) {
			uint32_t keep = idx[bad[b]];
			idx[bad[b]] = ND + 40;
			assert_int_equal(pq_dict_gather_fixed(dict, ND, (int)w, idx, NI, out), DL_ECORRUPT);
			assert_string_equal(dl_error_last()->message, "dictionary index 77 out of range (dictionary has 37 entries)");
			idx[bad[b]] = keep;
		}
	}
	/* an empty dictionary has no valid index */
	assert_int_equal(pq_dict_gather_fixed(dict, 0, 8, idx, 1, out), DL_ECORRUPT);
	assert_int_equal(pq_dict_gather_fixed(dict, 0, 8, idx, 0, out), 0);
}

/* A PLAIN page of the entries lens[i] long (bytes from seed) -> *page. */
static size_t plain_page(const uint32_t *lens, size_t n, unsigned seed, const uint32_t *pick, size_t np, uint8_t *page)
{
	uint8_t *p = page;
	for (size_t k = 0; k < (pick ? np : n); k++) {
		size_t i = pick ? pick[k] : k;
		memcpy(p, &lens[i], 4);
		p += 4;
		for (uint32_t b = 0; b < lens[i]; b++) *p++ = (uint8_t)(seed + 31 * i + 7 * b);
	}
	return (size_t)(p - page);
}

static void expect_same(const pq_binbuf *a, const pq_binbuf *b)
{
	assert_int_equal(a->n, b->n);
	assert_int_equal(a->len, b->len);
	assert_memory_equal(a->offsets, b->offsets, (size_t)(a->n + 1) * sizeof(int32_t));
	if (a->len) assert_memory_equal(a->data, b->data, (size_t)a->len);
}

/* Dictionary gathers against PLAIN decoding of the same values, for each
 * loop (entries all <= 16 bytes, all <= 32, any length), with empty
 * entries, the last entry at the very end of a tight buffer, and outputs
 * that start non-empty, have room for the upper bound or only the exact
 * size. */
static void test_dictionary_gather_bytes_matches_plain(void **state)
{
	(void)state;
	enum { ND = 40, NI = 3000 };
	static uint8_t page[ND * 304], expect_page[NI * 304];
	const uint32_t maxes[] = {0, 1, 16, 17, 32, 33, 64, 65, 300};
	uint32_t idx[NI], lens[ND];
	for (size_t m = 0; m < sizeof maxes / sizeof *maxes; m++) {
		uint32_t max = maxes[m];
		for (size_t i = 0; i < ND; i++) lens[i] = max ? (uint32_t)((i * 7919 + m) % (max + 1)) : 0;
		lens[ND - 1] = max; /* the longest entry last, against the buffer's end */
		if (ND > 3) lens[3] = 0;
		for (size_t i = 0; i < NI; i++) idx[i] = (uint32_t)((i * 2654435761u) >> 7) % ND;
		idx[NI - 1] = ND - 1;
		size_t plen = plain_page(lens, ND, (unsigned)m, NULL, 0, page);
		const uint8_t *p = page;
		pq_binbuf built = {0};
		assert_int_equal(pq_plain_bytes(&p, page + plen, &built, ND), 0);
		int32_t maxlen;
		assert_int_equal(pq_dict_prepare_bytes(&built, &maxlen), 0);
		assert_int_equal(maxlen, (int32_t)max);
		/* a copy in a buffer that ends right after the prepared slack */
		pq_binbuf tight = built;
		size_t slack = (size_t)(built.dcap - built.len) < 32 ? (size_t)(built.dcap - built.len) : 32;
		assert_int_equal(slack, 32);
		tight.dcap = built.len + 32;
		tight.data = malloc((size_t)tight.dcap);
		tight.offsets = malloc((ND + 1) * sizeof(int32_t));
		assert_non_null(tight.data);
		assert_non_null(tight.offsets);
		memcpy(tight.data, built.data, (size_t)tight.dcap);
		memcpy(tight.offsets, built.offsets, (ND + 1) * sizeof(int32_t));
		tight.cap = ND;

		/* expected: a first value "pre", then every gathered value */
		size_t elen = plain_page(lens, ND, (unsigned)m, idx, NI, expect_page);
		pq_binbuf want = {0};
		assert_int_equal(pq_binbuf_append(&want, (const uint8_t *)"pre", 3), 0);
		p = expect_page;
		assert_int_equal(pq_plain_bytes(&p, expect_page + elen, &want, NI), 0);

		for (int variant = 0; variant < 3; variant++) {
			const pq_binbuf *dict = variant == 1 ? &tight : &built;
			pq_binbuf got = {0};
			if (variant == 2) {
				/* room for exactly the values and the slack: the exact path,
				 * and writes must stay inside this allocation */
				int64_t total = want.len - 3;
				got.cap = NI + 1;
				got.offsets = malloc((NI + 2) * sizeof(int32_t));
				got.dcap = 3 + total + 32;
				got.data = malloc((size_t)got.dcap);
				assert_non_null(got.offsets);
				assert_non_null(got.data);
				got.offsets[0] = 0;
				pq_binbuf_push(&got, (const uint8_t *)"pre", 3);
			} else {
				assert_int_equal(pq_binbuf_append(&got, (const uint8_t *)"pre", 3), 0);
				/* variant 1 presized for the upper bound: no reservation */
				if (variant == 1) assert_int_equal(pq_binbuf_reserve(&got, NI, (int64_t)NI * (max + 1) + 64), 0);
			}
			int64_t cap0 = got.dcap;
			for (size_t done = 0; done < NI;) {
				size_t k = NI - done < 1024 ? NI - done : 1024;
				assert_int_equal(pq_dict_gather_bytes(dict, maxlen, idx + done, k, &got), 0);
				done += k;
			}
			expect_same(&got, &want);
			assert_true(got.dcap - got.len >= 16);
			if (variant >= 1) assert_int_equal(got.dcap, cap0);
			/* a bad index after good ones: an error, got unchanged */
			uint32_t keep = idx[5];
			idx[5] = ND;
			assert_int_equal(pq_dict_gather_bytes(dict, maxlen, idx, 10, &got), DL_ECORRUPT);
			idx[5] = keep;
			expect_same(&got, &want);
			if (variant == 2) {
				free(got.offsets);
				free(got.data);
			} else {
				pq_binbuf_free(&got);
			}
		}
		pq_binbuf_free(&want);
		free(tight.data);
		free(tight.offsets);
		pq_binbuf_free(&built);
	}
}

/* A minimal DELTA_BINARY_PACKED encoder (block 128, 4 miniblocks of 32). */
static void put_uvarint(uint8_t **p, uint64_t v)
{
	while (v >= 0x80) {
		*(*p)++ = (uint8_t)(v | 0x80);
		v >>= 7;
	}
	*(*p)++ = (uint8_t)v;
}

static void put_zvarint(uint8_t **p, int64_t v)
{
	put_uvarint(p, ((uint64_t)v << 1) ^ (uint64_t)(v >> 63));
}

static size_t enc_delta(const int64_t *v, size_t n, uint8_t *out)
{
	uint8_t *p = out;
	put_uvarint(&p, 128);
	put_uvarint(&p, 4);
	put_uvarint(&p, n);
	put_zvarint(&p, n ? v[0] : 0);
	for (size_t b = 1; b < n; b += 128) {
		size_t cnt = n - b < 128 ? n - b : 128;
		int64_t min = INT64_MAX;
		for (size_t i = 0; i < cnt; i++) {
			int64_t d = (int64_t)((uint64_t)v[b + i] - (uint64_t)v[b + i - 1]);
			if (d < min) min = d;
		}
		put_zvarint(&p, min);
		uint8_t *widths = p;
		p += 4;
		for (int m = 0; m < 4; m++) {
			uint64_t maxr = 0;
			size_t s = (size_t)m * 32;
			for (size_t i = s; i < s + 32 && i < cnt; i++) {
				uint64_t r = (uint64_t)v[b + i] - (uint64_t)v[b + i - 1] - (uint64_t)min;
				if (r > maxr) maxr = r;
			}
			int w = 0;
			while (w < 64 && (maxr >> w)) w++;
			widths[m] = (uint8_t)w;
			if (s >= cnt) continue;
			memset(p, 0, (size_t)w * 4);
			for (size_t i = 0; i < 32; i++) {
				uint64_t r = s + i < cnt ? (uint64_t)v[b + s + i] - (uint64_t)v[b + s + i - 1] - (uint64_t)min : 0;
				for (int k = 0; k < w; k++)
					if ((r >> k) & 1) p[(i * (size_t)w + (size_t)k) >> 3] |= (uint8_t)(1u << ((i * (size_t)w + (size_t)k) & 7));
			}
			p += (size_t)w * 4;
		}
	}
	return (size_t)(p - out);
}

static void test_delta_binary_packed(void **state)
{
	(void)state;
	/* Encodings.md example 2: 7 5 3 1 2 3 4 5 */
	const uint8_t ex[] = {0x80, 0x01, 0x04, 0x08, 0x0E, 0x03, 0x02, 0x00, 0x00, 0x00,
	                      0xC0, 0x3F, 0, 0, 0, 0, 0, 0};
	int64_t out[300];
	size_t used;
	uint64_t cnt;
	assert_int_equal(pq_delta_count(ex, sizeof ex, &cnt), 0);
	assert_int_equal(cnt, 8);
	assert_int_equal(pq_delta_decode(ex, sizeof ex, out, 8, &used), 0);
	const int64_t want[] = {7, 5, 3, 1, 2, 3, 4, 5};
	assert_memory_equal(out, want, sizeof want);
	assert_int_equal(used, sizeof ex);
	/* round trip through several blocks with extreme values (wrap-around) */
	int64_t v[300];
	for (int i = 0; i < 300; i++) v[i] = (i % 3 == 0) ? INT64_MIN + i : (i % 3 == 1 ? INT64_MAX - i : i * 1000);
	uint8_t buf[16384];
	size_t len = enc_delta(v, 300, buf);
	assert_int_equal(pq_delta_decode(buf, len, out, 300, &used), 0);
	assert_memory_equal(out, v, sizeof v);
	assert_int_equal(used, len);
	/* truncated stream and bad header */
	assert_int_equal(pq_delta_decode(buf, len / 2, out, 300, &used), DL_ECORRUPT);
	const uint8_t bad[] = {0x07, 0x04, 0x01, 0x00};
	assert_int_equal(pq_delta_decode(bad, sizeof bad, out, 1, &used), DL_ECORRUPT);
	/* asking for more values than the stream holds */
	assert_int_equal(pq_delta_decode(ex, sizeof ex, out, 9, &used), DL_ECORRUPT);
}

static void test_delta_length_and_delta_byte_array(void **state)
{
	(void)state;
	uint8_t buf[4096];
	/* DELTA_LENGTH_BYTE_ARRAY of Hello World Foobar ABCDEF */
	const int64_t lens[] = {5, 5, 6, 6};
	size_t n = enc_delta(lens, 4, buf);
	memcpy(buf + n, "HelloWorldFoobarABCDEF", 22);
	pq_binbuf out = {0};
	size_t got;
	assert_int_equal(pq_delta_length_decode(buf, n + 22, 4, &out, &got), 0);
	assert_int_equal(got, 4);
	assert_int_equal(out.offsets[3], 16);
	assert_memory_equal(out.data + 10, "Foobar", 6);
	assert_int_equal(pq_delta_length_decode(buf, n + 21, 4, &out, &got), DL_ECORRUPT);
	assert_int_equal(pq_delta_length_decode(buf, n + 22, 3, &out, &got), DL_ECORRUPT);
	pq_binbuf_free(&out);

	/* DELTA_BYTE_ARRAY of axis axle babble babyhood */
	const int64_t pre[] = {0, 2, 0, 3}, suf[] = {4, 2, 6, 5};
	size_t a = enc_delta(pre, 4, buf);
	size_t b = enc_delta(suf, 4, buf + a);
	memcpy(buf + a + b, "axislebabbleyhood", 17);
	assert_int_equal(pq_delta_bytes_decode(buf, a + b + 17, 4, &out, &got), 0);
	assert_int_equal(out.n, 4);
	assert_memory_equal(out.data, "axisaxlebabblebabyhood", 22);
	assert_int_equal(out.offsets[2], 8);
	pq_binbuf_free(&out);
	/* a prefix longer than the previous value */
	const int64_t bad_pre[] = {0, 9};
	const int64_t bad_suf[] = {1, 1};
	a = enc_delta(bad_pre, 2, buf);
	b = enc_delta(bad_suf, 2, buf + a);
	memcpy(buf + a + b, "xy", 2);
	assert_int_equal(pq_delta_bytes_decode(buf, a + b + 2, 2, &out, &got), DL_ECORRUPT);
	pq_binbuf_free(&out);
}

static void test_byte_stream_split(void **state)
{
	(void)state;
	float f[3] = {1.5f, -2.25f, 1e10f}, back[3];
	uint8_t enc[12];
	const uint8_t *raw = (const uint8_t *)f;
	for (int i = 0; i < 3; i++)
		for (int k = 0; k < 4; k++) enc[k * 3 + i] = raw[i * 4 + k];
	assert_int_equal(pq_bss_decode(enc, 12, 4, 3, 0, 1, (uint8_t *)back), 0);
	assert_int_equal(pq_bss_decode(enc, 12, 4, 3, 1, 2, (uint8_t *)(back + 1)), 0);
	assert_memory_equal(back, f, sizeof f);
	assert_int_equal(pq_bss_decode(enc, 11, 4, 3, 0, 3, (uint8_t *)back), DL_ECORRUPT);
	assert_int_equal(pq_bss_decode(enc, 12, 4, 3, 2, 2, (uint8_t *)back), DL_ECORRUPT);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_rle_hybrid_spec_example),
		cmocka_unit_test(test_rle_levels_u8_and_wide_values),
		cmocka_unit_test(test_bit_packed_legacy),
		cmocka_unit_test(test_plain),
		cmocka_unit_test(test_plain_bytes_skip_runs),
		cmocka_unit_test(test_dictionary_gather_checks_indices),
		cmocka_unit_test(test_dictionary_gather_bytes_matches_plain),
		cmocka_unit_test(test_dictionary_gather_fixed_widths),
		cmocka_unit_test(test_delta_binary_packed),
		cmocka_unit_test(test_delta_length_and_delta_byte_array),
		cmocka_unit_test(test_byte_stream_split),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
