/* Hand-built files for layouts and encodings DuckDB does not write: INT96
 * timestamps, legacy 2-level lists with data, deprecated BIT_PACKED levels,
 * RLE booleans in v2 pages (uncompressed values), DELTA_BYTE_ARRAY strings,
 * BYTE_STREAM_SPLIT decimals and MAP_KEY_VALUE maps. Each file is one row
 * group of one leaf column whose pages are given as raw bytes. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <cmocka.h>
#include <string.h>
#include "parquet/metadata_write.h"
#include "parquet/reader.h"
#include "util/error.h"

/* ---- byte builders ---- */

typedef struct bytes {
	uint8_t b[4096];
	size_t n;
} bytes;

static void put(bytes *o, const void *p, size_t n)
{
	assert_true(o->n + n <= sizeof o->b);
	memcpy(o->b + o->n, p, n);
	o->n += n;
}

static void put_u32(bytes *o, uint32_t v) { put(o, &v, 4); }

static void put_uvarint(bytes *o, uint64_t v)
{
	while (v >= 0x80) {
		uint8_t c = (uint8_t)(v | 0x80);
		put(o, &c, 1);
		v >>= 7;
	}
	uint8_t c = (uint8_t)v;
	put(o, &c, 1);
}

/* One bit-packed run of the RLE/bit-packed hybrid holding all values. */
static void rle_packed(bytes *o, const uint8_t *v, size_t n, int w)
{
	size_t groups = (n + 7) / 8;
	put_uvarint(o, groups << 1 | 1);
	uint8_t packed[512] = {0};
	for (size_t i = 0; i < n; i++)
		for (int k = 0; k < w; k++)
			if ((v[i] >> k) & 1) packed[(i * (size_t)w + (size_t)k) >> 3] |= (uint8_t)(1u << ((i * (size_t)w + (size_t)k) & 7));
	put(o, packed, groups * (size_t)w);
}

/* v1 levels: 4-byte length then the hybrid run. */
static void levels_v1(bytes *o, const uint8_t *v, size_t n, int w)
{
	bytes t = {.n = 0};
	rle_packed(&t, v, n, w);
	put_u32(o, (uint32_t)t.n);
	put(o, t.b, t.n);
}

/* DELTA_BINARY_PACKED of small non-negative deltas (one block). */
static void delta(bytes *o, const int64_t *v, size_t n)
{
	put_uvarint(o, 128);
	put_uvarint(o, 4);
	put_uvarint(o, n);
	put_uvarint(o, ((uint64_t)v[0] << 1) ^ (uint64_t)(v[0] >> 63));
	if (n < 2) return;
	int64_t min = INT64_MAX;
	for (size_t i = 1; i < n; i++) min = v[i] - v[i - 1] < min ? v[i] - v[i - 1] : min;
	put_uvarint(o, ((uint64_t)min << 1) ^ (uint64_t)(min >> 63));
	uint8_t w[4] = {8, 0, 0, 0};
	put(o, w, 4);
	uint8_t mb[32] = {0};
	for (size_t i = 1; i < n; i++) mb[i - 1] = (uint8_t)(v[i] - v[i - 1] - min);
	put(o, mb, 32);
}

/* ---- file builder ---- */

typedef struct page {
	pq_page_header h;
	bytes body;
} page;

static dl_buf g_file;

static pq_reader *build(pq_schema_element *schema, uint32_t nschema, pq_type type, page *pages, int npages,
                        int64_t rows, int64_t num_values)
{
	dl_buf_clear(&g_file);
	dl_buf_append(&g_file, "PAR1", 4);
	int64_t start = (int64_t)g_file.len;
	for (int i = 0; i < npages; i++) {
		pages[i].h.uncompressed_page_size = pages[i].h.uncompressed_page_size ? pages[i].h.uncompressed_page_size
		                                                                      : (int32_t)pages[i].body.n;
		pages[i].h.compressed_page_size = (int32_t)pages[i].body.n;
		assert_int_equal(pq_page_header_encode(&g_file, &pages[i].h), 0);
		dl_buf_append(&g_file, pages[i].body.b, pages[i].body.n);
	}
	char *path[8];
	int np = 0;
	for (uint32_t i = 1; i < nschema; i++) path[np++] = schema[i].name;
	pq_column_chunk cc = {.has_meta_data = true};
	cc.meta_data.type = type;
	cc.meta_data.path_in_schema = path;
	cc.meta_data.npath = (uint32_t)np;
	cc.meta_data.codec = PQ_CODEC_UNCOMPRESSED;
	cc.meta_data.num_values = num_values;
	cc.meta_data.total_compressed_size = (int64_t)g_file.len - start;
	cc.meta_data.total_uncompressed_size = cc.meta_data.total_compressed_size;
	cc.meta_data.data_page_offset = start;
	pq_row_group rg = {.columns = &cc, .ncolumns = 1, .num_rows = rows, .total_byte_size = 1};
	pq_file_metadata md = {.version = 1, .schema = schema, .nschema = nschema, .num_rows = rows, .row_groups = &rg,
	                       .nrow_groups = 1};
	size_t before = g_file.len;
	assert_int_equal(pq_file_metadata_encode(&g_file, &md), 0);
	uint32_t flen = (uint32_t)(g_file.len - before);
	dl_buf_append(&g_file, &flen, 4);
	dl_buf_append(&g_file, "PAR1", 4);
	pq_reader *r;
	if (pq_reader_open_memory(&r, (const uint8_t *)g_file.data, g_file.len, "hand.parquet") < 0)
		fail_msg("%s", dl_error_last()->message);
	return r;
}

static dl_batch *read_one(pq_reader *r)
{
	dl_batch *b;
	int64_t first;
	if (pq_reader_next(r, &b, &first) < 0) fail_msg("%s", dl_error_last()->message);
	assert_non_null(b);
	return b;
}

#define ROOT {.name = (char *)"schema", .has_num_children = true, .num_children = 1, .converted_type = PQ_CT_NONE}

static page data_v1(int32_t nv, pq_encoding enc)
{
	page p = {0};
	p.h.type = PQ_PAGE_DATA;
	p.h.has_data_page_header = true;
	p.h.data_page_header = (pq_data_page_header){.num_values = nv, .encoding = enc,
	                                             .definition_level_encoding = PQ_ENC_RLE,
	                                             .repetition_level_encoding = PQ_ENC_RLE};
	return p;
}

static void test_int96_timestamps(void **state)
{
	(void)state;
	pq_schema_element s[] = {ROOT, {.name = (char *)"ts", .has_repetition = true, .repetition = PQ_REQUIRED,
	                                .has_type = true, .type = PQ_INT96, .converted_type = PQ_CT_NONE}};
	page p = data_v1(3, PQ_ENC_PLAIN);
	struct { int64_t nanos; int32_t day; } v[3] = {{1500, 2440588}, {0, 2440589}, {-1000, 2440588}};
	for (int i = 0; i < 3; i++) {
		put(&p.body, &v[i].nanos, 8);
		put(&p.body, &v[i].day, 4);
	}
	pq_reader *r = build(s, 2, PQ_INT96, &p, 1, 3, 3);
	assert_int_equal(pq_reader_schema(r)->children[0].type->id, DL_TYPE_TIMESTAMP);
	dl_batch *b = read_one(r);
	const int64_t *t = b->cols[0]->values;
	assert_int_equal(t[0], 1);
	assert_int_equal(t[1], 86400000000LL);
	assert_int_equal(t[2], -1);
	dl_batch_free(b);
	pq_reader_free(r);
}

/* optional group l (LIST) { repeated int32 element; } with rows
 * [1, 2], null, [], [3] — levels written with the deprecated BIT_PACKED. */
static void test_two_level_list_with_bit_packed_levels(void **state)
{
	(void)state;
	pq_schema_element s[] = {{.name = (char *)"schema", .has_num_children = true, .num_children = 1, .converted_type = PQ_CT_NONE},
	                         {.name = (char *)"l", .has_repetition = true, .repetition = PQ_OPTIONAL, .has_num_children = true,
	                          .num_children = 1, .converted_type = PQ_CT_LIST},
	                         {.name = (char *)"element", .has_repetition = true, .repetition = PQ_REPEATED, .has_type = true,
	                          .type = PQ_INT32, .converted_type = PQ_CT_NONE}};
	page p = data_v1(5, PQ_ENC_PLAIN);
	p.h.data_page_header.definition_level_encoding = PQ_ENC_BIT_PACKED;
	p.h.data_page_header.repetition_level_encoding = PQ_ENC_BIT_PACKED;
	/* BIT_PACKED, MSB first, width 1 for rep: 0 1 0 0 0 -> 0100 0000 */
	uint8_t rep = 0x40;
	put(&p.body, &rep, 1);
	/* width 2 for def: 2 2 0 1 2 -> 10 10 00 01 | 10 000000 */
	uint8_t def[2] = {0xA1, 0x80};
	put(&p.body, def, 2);
	int32_t vals[3] = {1, 2, 3};
	put(&p.body, vals, sizeof vals);
	pq_reader *r = build(s, 3, PQ_INT32, &p, 1, 4, 5);
	dl_batch *b = read_one(r);
	const dl_array *l = b->cols[0];
	assert_int_equal(l->length, 4);
	assert_true(dl_array_is_valid(l, 0));
	assert_false(dl_array_is_valid(l, 1));
	assert_true(dl_array_is_valid(l, 2));
	const int32_t want_off[] = {0, 2, 2, 2, 3};
	assert_memory_equal(l->offsets, want_off, sizeof want_off);
	assert_memory_equal(l->children[0]->values, vals, sizeof vals);
	dl_batch_free(b);
	pq_reader_free(r);
}

/* A v2 page: RLE booleans, levels outside the (uncompressed) values. */
static void test_rle_booleans_in_v2_page(void **state)
{
	(void)state;
	pq_schema_element s[] = {ROOT, {.name = (char *)"b", .has_repetition = true, .repetition = PQ_OPTIONAL,
	                               .has_type = true, .type = PQ_BOOLEAN, .converted_type = PQ_CT_NONE}};
	page p = {0};
	p.h.type = PQ_PAGE_DATA_V2;
	p.h.has_data_page_header_v2 = true;
	uint8_t def[6] = {1, 0, 1, 1, 1, 0};
	rle_packed(&p.body, def, 6, 1);
	size_t dl = p.body.n;
	uint8_t vals[4] = {1, 1, 0, 1};
	bytes v = {.n = 0};
	rle_packed(&v, vals, 4, 1);
	put_u32(&p.body, (uint32_t)v.n);
	put(&p.body, v.b, v.n);
	p.h.data_page_header_v2 = (pq_data_page_header_v2){.num_values = 6, .num_nulls = 2, .num_rows = 6,
	                                                   .encoding = PQ_ENC_RLE, .definition_levels_byte_length = (int32_t)dl,
	                                                   .is_compressed = false};
	pq_reader *r = build(s, 2, PQ_BOOLEAN, &p, 1, 6, 6);
	dl_batch *b = read_one(r);
	const dl_array *a = b->cols[0];
	const int want[6] = {1, -1, 1, 0, 1, -1};
	for (int i = 0; i < 6; i++) {
		assert_int_equal(dl_array_is_valid(a, i), want[i] >= 0);
		if (want[i] >= 0) assert_int_equal(dl_bit_get(a->values, i), want[i]);
	}
	dl_batch_free(b);
	pq_reader_free(r);
}

/* DELTA_BYTE_ARRAY strings, then a DELTA_LENGTH_BYTE_ARRAY page. */
static void test_delta_byte_array_pages(void **state)
{
	(void)state;
	pq_schema_element s[] = {ROOT, {.name = (char *)"s", .has_repetition = true, .repetition = PQ_REQUIRED,
	                               .has_type = true, .type = PQ_BYTE_ARRAY, .converted_type = PQ_CT_UTF8}};
	page p[2] = {data_v1(3, PQ_ENC_DELTA_BYTE_ARRAY), data_v1(1, PQ_ENC_DELTA_LENGTH_BYTE_ARRAY)};
	/* "apple", "ap" + "pl!" = "appl!", "appl!" + "s" = "appl!s" */
	const int64_t pre[] = {0, 2, 5}, suf[] = {5, 3, 1};
	delta(&p[0].body, pre, 3);
	delta(&p[0].body, suf, 3);
	put(&p[0].body, "applepl!s", 9);
	const int64_t len[] = {4};
	delta(&p[1].body, len, 1);
	put(&p[1].body, "kiwi", 4);
	pq_reader *r = build(s, 2, PQ_BYTE_ARRAY, p, 2, 4, 4);
	dl_batch *b = read_one(r);
	const dl_array *a = b->cols[0];
	const char *want[] = {"apple", "appl!", "appl!s", "kiwi"};
	for (int i = 0; i < 4; i++) {
		assert_int_equal(a->offsets[i + 1] - a->offsets[i], (int)strlen(want[i]));
		assert_memory_equal(a->data + a->offsets[i], want[i], strlen(want[i]));
	}
	dl_batch_free(b);
	pq_reader_free(r);
}

/* decimal(9,2) in FIXED_LEN_BYTE_ARRAY(4) with BYTE_STREAM_SPLIT. */
static void test_byte_stream_split_flba_decimal(void **state)
{
	(void)state;
	pq_schema_element s[] = {ROOT, {.name = (char *)"d", .has_repetition = true, .repetition = PQ_REQUIRED,
	                               .has_type = true, .type = PQ_FIXED_LEN_BYTE_ARRAY, .has_type_length = true,
	                               .type_length = 4, .converted_type = PQ_CT_DECIMAL, .has_precision = true,
	                               .precision = 9, .has_scale = true, .scale = 2}};
	page p = data_v1(2, PQ_ENC_BYTE_STREAM_SPLIT);
	/* big-endian 12345 = 00 00 30 39, -2 = FF FF FF FE; streams of 2 */
	const uint8_t be[2][4] = {{0x00, 0x00, 0x30, 0x39}, {0xFF, 0xFF, 0xFF, 0xFE}};
	for (int k = 0; k < 4; k++)
		for (int i = 0; i < 2; i++) put(&p.body, &be[i][k], 1);
	pq_reader *r = build(s, 2, PQ_FIXED_LEN_BYTE_ARRAY, &p, 1, 2, 2);
	dl_batch *b = read_one(r);
	dl_i128 v[2];
	memcpy(v, b->cols[0]->values, sizeof v);
	assert_true(v[0] == 12345);
	assert_true(v[1] == -2);
	assert_int_equal(b->cols[0]->type->precision, 9);
	dl_batch_free(b);
	pq_reader_free(r);
}

/* decimal(20,2) in FIXED_LEN_BYTE_ARRAY(9) and decimal(5,0) in FLBA(3),
 * PLAIN, as Spark writes them (the fewest bytes for the precision). */
static void test_flba_decimal_widths(void **state)
{
	(void)state;
	pq_schema_element s9[] = {ROOT, {.name = (char *)"d", .has_repetition = true, .repetition = PQ_REQUIRED,
	                                .has_type = true, .type = PQ_FIXED_LEN_BYTE_ARRAY, .has_type_length = true,
	                                .type_length = 9, .converted_type = PQ_CT_DECIMAL, .has_precision = true,
	                                .precision = 20, .has_scale = true, .scale = 2}};
	page p = data_v1(3, PQ_ENC_PLAIN);
	/* 2^64 + 5, -(2^64 + 5), -1 in 9 big-endian bytes */
	const uint8_t v[3][9] = {{0x01, 0, 0, 0, 0, 0, 0, 0, 0x05},
	                         {0xFE, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFB},
	                         {0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF}};
	put(&p.body, v, sizeof v);
	pq_reader *r = build(s9, 2, PQ_FIXED_LEN_BYTE_ARRAY, &p, 1, 3, 3);
	dl_batch *b = read_one(r);
	dl_i128 d[3];
	memcpy(d, b->cols[0]->values, sizeof d);
	dl_i128 two64 = (dl_i128)1 << 64;
	assert_true(d[0] == two64 + 5);
	assert_true(d[1] == -(two64 + 5));
	assert_true(d[2] == -1);
	dl_batch_free(b);
	pq_reader_free(r);

	pq_schema_element s3[] = {ROOT, {.name = (char *)"d", .has_repetition = true, .repetition = PQ_REQUIRED,
	                                .has_type = true, .type = PQ_FIXED_LEN_BYTE_ARRAY, .has_type_length = true,
	                                .type_length = 3, .converted_type = PQ_CT_DECIMAL, .has_precision = true,
	                                .precision = 5, .has_scale = true, .scale = 0}};
	page q = data_v1(2, PQ_ENC_PLAIN);
	const uint8_t w[2][3] = {{0x01, 0x86, 0x9F}, {0xFE, 0x79, 0x61}}; /* 99999, -99999 */
	put(&q.body, w, sizeof w);
	r = build(s3, 2, PQ_FIXED_LEN_BYTE_ARRAY, &q, 1, 2, 2);
	b = read_one(r);
	memcpy(d, b->cols[0]->values, 2 * sizeof d[0]);
	assert_true(d[0] == 99999);
	assert_true(d[1] == -99999);
	dl_batch_free(b);
	pq_reader_free(r);
}

/* Levels that contradict the page (a definition level above the maximum)
 * are reported with their location. */
static void test_bad_levels_are_located(void **state)
{
	(void)state;
	pq_schema_element s[] = {ROOT, {.name = (char *)"x", .has_repetition = true, .repetition = PQ_OPTIONAL,
	                               .has_type = true, .type = PQ_INT32, .converted_type = PQ_CT_NONE}};
	page p = data_v1(2, PQ_ENC_PLAIN);
	/* an RLE run of two 3s where the maximum level is 1 */
	const uint8_t run[] = {0x04, 0x03};
	put_u32(&p.body, sizeof run);
	put(&p.body, run, sizeof run);
	int32_t vals[2] = {7, 8};
	put(&p.body, vals, sizeof vals);
	pq_reader *r = build(s, 2, PQ_INT32, &p, 1, 2, 2);
	dl_batch *b;
	int64_t first;
	assert_int_equal(pq_reader_next(r, &b, &first), DL_ECORRUPT);
	assert_non_null(strstr(dl_error_last()->message, "hand.parquet: row group 0, column 'x', page 1"));
	pq_reader_free(r);
}

/* optional group st { required int32 a; }: rows {a: 1}, null, {a: 2}.
 * The required child still gets a null slot under the null struct. */
static void test_required_field_under_null_struct(void **state)
{
	(void)state;
	pq_schema_element s[] = {{.name = (char *)"schema", .has_num_children = true, .num_children = 1, .converted_type = PQ_CT_NONE},
	                         {.name = (char *)"st", .has_repetition = true, .repetition = PQ_OPTIONAL, .has_num_children = true,
	                          .num_children = 1, .converted_type = PQ_CT_NONE},
	                         {.name = (char *)"a", .has_repetition = true, .repetition = PQ_REQUIRED, .has_type = true,
	                          .type = PQ_INT32, .converted_type = PQ_CT_NONE}};
	page p = data_v1(3, PQ_ENC_PLAIN);
	const uint8_t def[3] = {1, 0, 1};
	levels_v1(&p.body, def, 3, 1);
	const int32_t vals[2] = {1, 2};
	put(&p.body, vals, sizeof vals);
	pq_reader *r = build(s, 3, PQ_INT32, &p, 1, 3, 3);
	dl_batch *b = read_one(r);
	const dl_array *st = b->cols[0], *a = st->children[0];
	assert_int_equal(a->length, 3);
	assert_false(dl_array_is_valid(st, 1));
	assert_false(dl_array_is_valid(a, 1));
	assert_int_equal(((const int32_t *)a->values)[0], 1);
	assert_int_equal(((const int32_t *)a->values)[2], 2);
	dl_batch_free(b);
	pq_reader_free(r);
}

/* An uncompressed page whose header claims more bytes than it has must not
 * be read past its end. */
static void test_uncompressed_size_mismatch(void **state)
{
	(void)state;
	pq_schema_element s[] = {ROOT, {.name = (char *)"x", .has_repetition = true, .repetition = PQ_REQUIRED,
	                               .has_type = true, .type = PQ_INT32, .converted_type = PQ_CT_NONE}};
	page p = data_v1(2, PQ_ENC_PLAIN);
	const int32_t vals[2] = {1, 2};
	put(&p.body, vals, sizeof vals);
	p.h.uncompressed_page_size = 4096;
	pq_reader *r = build(s, 2, PQ_INT32, &p, 1, 2, 2);
	dl_batch *b;
	int64_t first;
	assert_int_equal(pq_reader_next(r, &b, &first), DL_ECORRUPT);
	assert_non_null(strstr(dl_error_last()->message, "declares 4096"));
	pq_reader_free(r);
}

static int teardown(void **state)
{
	(void)state;
	dl_buf_free(&g_file);
	return 0;
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_int96_timestamps),
		cmocka_unit_test(test_two_level_list_with_bit_packed_levels),
		cmocka_unit_test(test_rle_booleans_in_v2_page),
		cmocka_unit_test(test_delta_byte_array_pages),
		cmocka_unit_test(test_byte_stream_split_flba_decimal),
		cmocka_unit_test(test_flba_decimal_widths),
		cmocka_unit_test(test_bad_levels_are_located),
		cmocka_unit_test(test_required_field_under_null_struct),
		cmocka_unit_test(test_uncompressed_size_mismatch),
	};
	return cmocka_run_group_tests(tests, NULL, teardown);
}
