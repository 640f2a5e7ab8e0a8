/* Unit tests of the Parquet writer's parts: Thrift compact encoding, the
 * RLE/bit-packed hybrid, statistics and their truncation, the schema
 * mapping, and whole files whose footer is decoded back by our reader. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <math.h>
#include <zlib.h>
#include <string.h>
#include "columnar/builder.h"
#include "parquet/encoding_write.h"
#include "parquet/metadata.h"
#include "parquet/metadata_write.h"
#include "parquet/reader.h"
#include "parquet/thrift_read.h"
#include "parquet/stats.h"
#include "parquet/thrift_write.h"
#include "parquet/writer.h"

static void test_thrift_compact(void **state)
{
	(void)state;
	dl_buf b = DL_BUF_INIT;
	pq_tw w;
	pq_tw_init(&w, &b);
	pq_tw_i32(&w, 1, 1);      /* delta 1, type i32: 0x15, zigzag(1)=2 */
	pq_tw_i64(&w, 3, -1);     /* delta 2, type i64: 0x26, zigzag(-1)=1 */
	pq_tw_bool(&w, 4, true);  /* 0x11 */
	pq_tw_string(&w, 20, "ab"); /* delta 16: long form 0x08, zigzag(20)=40, len 2 */
	pq_tw_list_begin(&w, 21, PQ_TT_I32, 2); /* 0x19, 0x25 */
	pq_tw_elem_i32(&w, 300);  /* zigzag 600 = 0xd8 0x04 */
	pq_tw_elem_i32(&w, -2);   /* 3 */
	pq_tw_struct_begin(&w, 22); /* 0x1c */
	pq_tw_end(&w);            /* 0x00 */
	assert_int_equal(pq_tw_finish(&w), 0);
	const uint8_t want[] = {0x15, 0x02, 0x26, 0x01, 0x11, 0x08, 40, 0x02, 'a', 'b',
	                        0x19, 0x25, 0xd8, 0x04, 0x03, 0x1c, 0x00, 0x00};
	assert_int_equal(b.len, sizeof want);
	assert_memory_equal(b.data, want, sizeof want);
	dl_buf_free(&b);
}

/* Decodes the hybrid encoding (test oracle). */
static size_t rle_decode(const uint8_t *p, size_t len, int w, uint32_t *out, size_t n)
{
	size_t got = 0, i = 0;
	while (got < n && i < len) {
		uint64_t h = 0;
		int sh = 0;
		while (p[i] & 0x80) h |= (uint64_t)(p[i++] & 0x7f) << sh, sh += 7;
		h |= (uint64_t)p[i++] << sh;
		if (h & 1) {
			size_t cnt = (size_t)(h >> 1) * 8;
			uint64_t acc = 0;
			int bits = 0;
			for (size_t k = 0; k < cnt; k++) {
				while (bits < w) acc |= (uint64_t)p[i++] << bits, bits += 8;
				uint32_t v = (uint32_t)(acc & ((w == 32) ? 0xffffffffu : ((1u << w) - 1)));
				acc >>= w;
				bits -= w;
				if (got < n) out[got++] = v;
			}
		} else {
			size_t cnt = (size_t)(h >> 1);
			uint32_t v = 0;
			for (int k = 0; k < (w + 7) / 8; k++) v |= (uint32_t)p[i++] << (8 * k);
			for (size_t k = 0; k < cnt && got < n; k++) out[got++] = v;
		}
	}
	return got;
}

static void test_rle_hybrid(void **state)
{
	(void)state;
	/* Encodings.md: 8 values 0..7 at width 3, bit-packed: 0x03 0x88 0xC6 0xFA. */
	uint32_t seq[8] = {0, 1, 2, 3, 4, 5, 6, 7};
	dl_buf b = DL_BUF_INIT;
	assert_int_equal(pq_rle_encode_u32(&b, seq, 8, 3), 0);
	const uint8_t want[] = {0x03, 0x88, 0xC6, 0xFA};
	assert_int_equal(b.len, 4);
	assert_memory_equal(b.data, want, 4);
	/* A run of 100 fives at width 3: varint(200) then one byte. */
	uint32_t run[100];
	for (int i = 0; i < 100; i++) run[i] = 5;
	dl_buf_clear(&b);
	assert_int_equal(pq_rle_encode_u32(&b, run, 100, 3), 0);
	const uint8_t want2[] = {0xC8, 0x01, 0x05};
	assert_int_equal(b.len, 3);
	assert_memory_equal(b.data, want2, 3);
	/* Random mixes of runs and literals round-trip at every width. */
	uint64_t r = 12345;
	for (int w = 1; w <= 32; w++) {
		uint32_t v[1000], back[1000];
		size_t n = 0;
		while (n < 1000) {
			r = r * 6364136223846793005ULL + 1442695040888963407ULL;
			uint32_t x = (uint32_t)(r >> 32) & (w == 32 ? 0xffffffffu : (1u << w) - 1);
			size_t len = (r >> 20) % 4 == 0 ? (size_t)((r >> 8) % 30) : 1;
			for (size_t k = 0; k < len && n < 1000; k++) v[n++] = x;
		}
		dl_buf_clear(&b);
		assert_int_equal(pq_rle_encode_u32(&b, v, n, w), 0);
		assert_int_equal(rle_decode((const uint8_t *)b.data, b.len, w, back, n), n);
		assert_memory_equal(v, back, n * sizeof *v);
	}
	dl_buf_free(&b);
}

static void test_truncation(void **state)
{
	(void)state;
	uint8_t out[64];
	size_t n;
	const char *s = "abcdef";
	assert_int_equal(pq_truncate_min((const uint8_t *)s, 6, 3, true), 3);
	assert_true(pq_truncate_max((const uint8_t *)s, 6, 3, true, out, &n));
	assert_int_equal(n, 3);
	assert_memory_equal(out, "abd", 3);
	/* Not longer than the limit: unchanged and exact. */
	assert_false(pq_truncate_max((const uint8_t *)s, 6, 6, true, out, &n));
	/* UTF-8: "éé" is c3 a9 c3 a9; a cut at 3 keeps one character. */
	const char *e = "\xc3\xa9\xc3\xa9";
	assert_int_equal(pq_truncate_min((const uint8_t *)e, 4, 3, true), 2);
	assert_true(pq_truncate_max((const uint8_t *)e, 4, 3, true, out, &n));
	assert_int_equal(n, 2);
	assert_memory_equal(out, "\xc3\xaa", 2); /* U+00E9 + 1 = U+00EA */
	/* Binary: trailing 0xFF bytes cannot be incremented and are dropped. */
	const uint8_t bin[] = {0x01, 0xFF, 0xFF, 0x07};
	assert_true(pq_truncate_max(bin, 4, 3, false, out, &n));
	assert_int_equal(n, 1);
	assert_int_equal(out[0], 0x02);
	const uint8_t ff[] = {0xFF, 0xFF, 0xFF};
	assert_false(pq_truncate_max(ff, 3, 2, false, out, &n));
	/* U+10FFFF cannot be incremented: the previous character is. */
	const char *hi = "a\xf4\x8f\xbf\xbf" "zz";
	assert_true(pq_truncate_max((const uint8_t *)hi, 7, 5, true, out, &n));
	assert_int_equal(n, 1);
	assert_int_equal(out[0], 'b');
}

static void test_stats_orders(void **state)
{
	(void)state;
	pq_stats s;
	pq_stats_init(&s, PQ_SK_BYTES);
	/* Unsigned byte order: 0xC3 (é) sorts after 'z'. */
	assert_int_equal(pq_stats_bytes(&s, (const uint8_t *)"z", 1), 0);
	assert_int_equal(pq_stats_bytes(&s, (const uint8_t *)"\xc3\xa9", 2), 0);
	assert_int_equal(pq_stats_bytes(&s, (const uint8_t *)"", 0), 0);
	assert_int_equal(s.min_bytes.len, 0);
	assert_memory_equal(s.max_bytes.data, "\xc3\xa9", 2);
	pq_stats_free(&s);

	pq_stats_init(&s, PQ_SK_FLOAT);
	pq_stats_double(&s, NAN);
	assert_false(s.has_minmax);
	pq_stats_double(&s, 0.0);
	pq_stats_double(&s, -0.0);
	pq_stats_double(&s, NAN);
	assert_true(s.has_minmax);
	pq_statistics st;
	dl_buf scratch = DL_BUF_INIT;
	assert_int_equal(pq_stats_to_thrift(&s, PQ_DOUBLE, 0, 0, false, &scratch, &st), 0);
	double mn, mx;
	memcpy(&mn, st.min_value.ptr, 8);
	memcpy(&mx, st.max_value.ptr, 8);
	assert_true(mn == 0 && signbit(mn));  /* min zero is -0.0 */
	assert_true(mx == 0 && !signbit(mx)); /* max zero is +0.0 */

	pq_stats_init(&s, PQ_SK_DECIMAL);
	pq_stats_decimal(&s, -5);
	pq_stats_decimal(&s, 300);
	assert_int_equal(pq_stats_to_thrift(&s, PQ_FIXED_LEN_BYTE_ARRAY, 9, 0, false, &scratch, &st), 0);
	const uint8_t mn9[9] = {0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xfb};
	const uint8_t mx9[9] = {0, 0, 0, 0, 0, 0, 0, 0x01, 0x2c};
	assert_int_equal(st.min_value.len, 9);
	assert_memory_equal(st.min_value.ptr, mn9, 9);
	assert_memory_equal(st.max_value.ptr, mx9, 9);
	pq_stats_free(&s);

	/* Long strings: min is a prefix, max an incremented prefix, flagged. */
	pq_stats_init(&s, PQ_SK_BYTES);
	assert_int_equal(pq_stats_bytes(&s, (const uint8_t *)"aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa", 35), 0);
	assert_int_equal(pq_stats_bytes(&s, (const uint8_t *)"bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb", 36), 0);
	assert_int_equal(pq_stats_to_thrift(&s, PQ_BYTE_ARRAY, 0, 8, true, &scratch, &st), 0);
	assert_int_equal(st.min_value.len, 8);
	assert_memory_equal(st.min_value.ptr, "aaaaaaaa", 8);
	assert_memory_equal(st.max_value.ptr, "bbbbbbbc", 8);
	assert_false(st.is_min_value_exact);
	assert_false(st.is_max_value_exact);
	pq_stats_free(&s);
	dl_buf_free(&scratch);
}

static void test_field_ids(void **state)
{
	(void)state;
	int32_t id;
	assert_true(pq_field_id_from_metadata("{\"delta.columnMapping.id\": 7, \"x\": {\"parquet.field.id\": 1}}", &id));
	assert_int_equal(id, 7);
	assert_true(pq_field_id_from_metadata("{\"a\":\"delta.columnMapping.id\",\"parquet.field.id\":12}", &id));
	assert_int_equal(id, 12);
	assert_false(pq_field_id_from_metadata("{\"x\": {\"delta.columnMapping.id\": 3}}", &id));
	assert_false(pq_field_id_from_metadata("{}", &id));
	assert_int_equal(pq_decimal_bytes(19), 9);
	assert_int_equal(pq_decimal_bytes(38), 16);
	assert_int_equal(pq_decimal_bytes(21), 9);
	assert_int_equal(pq_decimal_bytes(22), 10);
}

/* Writes a file with a nested schema and reads its footer back. */
static void test_footer_round_trip(void **state)
{
	(void)state;
	dl_type *i32 = dl_type_new(DL_TYPE_INTEGER), *str = dl_type_new(DL_TYPE_STRING);
	dl_type *dec = dl_type_decimal(25, 3), *ts = dl_type_new(DL_TYPE_TIMESTAMP);
	dl_type *arr = dl_type_array(str, true), *map = dl_type_map(str, i32, true);
	dl_field f[] = {
		{(char *)"id", i32, false, (char *)"{\"delta.columnMapping.id\":5}"},
		{(char *)"name", str, true, (char *)"{}"},
		{(char *)"amount", dec, true, (char *)"{}"},
		{(char *)"at", ts, true, (char *)"{}"},
		{(char *)"tags", arr, true, (char *)"{}"},
		{(char *)"props", map, true, (char *)"{}"},
	};
	dl_type *schema = dl_type_struct(f, 6);
	dl_buf out = DL_BUF_INIT;
	pq_sink sink;
	pq_sink_init_buf(&sink, &out);
	pq_writer *w;
	assert_int_equal(pq_writer_open(&w, schema, &sink, NULL), 0);
	dl_batch *b = dl_batch_new(schema, 3);
	dl_builder *bl;
	assert_int_equal(dl_builder_new(&bl, i32), 0);
	for (int i = 0; i < 3; i++) dl_builder_append_int(bl, 10 - i);
	dl_builder_finish(&b->cols[0], bl);
	dl_builder_free(bl);
	assert_int_equal(dl_builder_new(&bl, str), 0);
	dl_builder_append_str(bl, "pear");
	dl_builder_append_null(bl);
	dl_builder_append_str(bl, "apple");
	dl_builder_finish(&b->cols[1], bl);
	dl_builder_free(bl);
	assert_int_equal(dl_builder_new(&bl, dec), 0);
	dl_builder_append_decimal(bl, -12345);
	dl_builder_append_decimal(bl, 7);
	dl_builder_append_null(bl);
	dl_builder_finish(&b->cols[2], bl);
	dl_builder_free(bl);
	assert_int_equal(dl_builder_new(&bl, ts), 0);
	dl_builder_append_int(bl, 1000000);
	dl_builder_append_nulls(bl, 2);
	dl_builder_finish(&b->cols[3], bl);
	dl_builder_free(bl);
	assert_int_equal(dl_builder_new(&bl, arr), 0);
	dl_builder_begin_list(bl);
	dl_builder_append_str(dl_builder_child(bl, 0), "x");
	dl_builder_append_null(dl_builder_child(bl, 0));
	dl_builder_end_list(bl);
	dl_builder_append_null(bl);
	dl_builder_begin_list(bl);
	dl_builder_end_list(bl);
	dl_builder_finish(&b->cols[4], bl);
	dl_builder_free(bl);
	assert_int_equal(dl_builder_new(&bl, map), 0);
	dl_builder_begin_list(bl);
	dl_builder_append_str(dl_builder_child(bl, 0), "k");
	dl_builder_append_int(dl_builder_child(bl, 1), 1);
	dl_builder_end_list(bl);
	dl_builder_append_null(bl);
	dl_builder_append_null(bl);
	dl_builder_finish(&b->cols[5], bl);
	dl_builder_free(bl);
	assert_int_equal(pq_writer_write(w, b), 0);
	assert_int_equal(pq_writer_add_metadata(w, "k", "v"), 0);
	assert_int_equal(pq_writer_close(w), 0);
	dl_batch_free(b);

	/* Per-file statistics for Delta. */
	assert_int_equal(pq_writer_num_leaves(w), 7);
	const pq_stats *st = pq_writer_leaf_stats(w, 0);
	assert_true(st->has_minmax);
	assert_int_equal(st->min.i, 8);
	assert_int_equal(st->max.i, 10);
	st = pq_writer_leaf_stats(w, 1);
	assert_int_equal(st->null_count, 1);
	assert_memory_equal(st->min_bytes.data, "apple", 5);
	st = pq_writer_leaf_stats(w, 2);
	assert_true(st->min.dec == -12345 && st->max.dec == 7);

	/* The footer, decoded by the reader. */
	const uint8_t *p = (const uint8_t *)out.data;
	assert_memory_equal(p, "PAR1", 4);
	assert_memory_equal(p + out.len - 4, "PAR1", 4);
	uint32_t flen = (uint32_t)p[out.len - 8] | (uint32_t)p[out.len - 7] << 8 | (uint32_t)p[out.len - 6] << 16 |
	                (uint32_t)p[out.len - 5] << 24;
	dl_arena arena = DL_ARENA_INIT;
	pq_file_metadata md;
	assert_int_equal(pq_file_metadata_decode(&md, &arena, p + out.len - 8 - flen, flen, "test"), 0);
	assert_int_equal(md.num_rows, 3);
	assert_int_equal(md.nrow_groups, 1);
	assert_int_equal(md.nschema, 1 + 6 + 2 + 3);
	assert_true(md.schema[1].has_field_id);
	assert_int_equal(md.schema[1].field_id, 5);
	assert_int_equal(md.schema[1].repetition, PQ_REQUIRED);
	assert_int_equal(md.schema[2].converted_type, PQ_CT_UTF8);
	assert_int_equal(md.schema[2].logical.kind, PQ_LT_STRING);
	assert_int_equal(md.schema[3].type, PQ_FIXED_LEN_BYTE_ARRAY);
	assert_int_equal(md.schema[3].type_length, 11);
	assert_int_equal(md.schema[3].logical.kind, PQ_LT_DECIMAL);
	assert_int_equal(md.schema[3].logical.precision, 25);
	assert_int_equal(md.schema[4].logical.kind, PQ_LT_TIMESTAMP);
	assert_true(md.schema[4].logical.is_adjusted_to_utc);
	assert_int_equal(md.schema[4].logical.unit, PQ_UNIT_MICROS);
	assert_int_equal(md.schema[5].converted_type, PQ_CT_LIST);
	assert_string_equal(md.schema[6].name, "list");
	assert_int_equal(md.schema[6].repetition, PQ_REPEATED);
	assert_string_equal(md.schema[7].name, "element");
	assert_int_equal(md.schema[8].converted_type, PQ_CT_MAP);
	assert_string_equal(md.schema[9].name, "key_value");
	assert_int_equal(md.schema[10].repetition, PQ_REQUIRED);
	const pq_column_meta *m = &md.row_groups[0].columns[1].meta_data;
	assert_int_equal(m->codec, PQ_CODEC_ZSTD);
	assert_int_equal(m->num_values, 3);
	assert_true(m->statistics.has_min_value);
	assert_memory_equal(m->statistics.min_value.ptr, "apple", 5);
	assert_memory_equal(m->statistics.max_value.ptr, "pear", 4);
	assert_int_equal(m->statistics.null_count, 1);
	assert_false(m->statistics.has_min); /* strings: no deprecated signed min/max */
	const pq_column_meta *mid = &md.row_groups[0].columns[0].meta_data;
	assert_true(mid->statistics.has_min && mid->statistics.has_max);
	assert_int_equal(mid->statistics.min.len, 4);
	assert_int_equal(mid->statistics.min.ptr[0], 8);
	assert_int_equal(mid->statistics.max.ptr[0], 10);
	m = &md.row_groups[0].columns[4].meta_data; /* tags.list.element: x, null | null | [] */
	assert_int_equal(m->num_values, 4);
	assert_int_equal(m->statistics.null_count, 3);
	assert_int_equal(md.nkey_value_metadata, 1);
	assert_string_equal(md.key_value_metadata[0].key, "k");
	assert_non_null(md.created_by);
	dl_arena_free(&arena);
	pq_writer_free(w);
	dl_buf_free(&out);
	dl_type_unref(schema);
	dl_type *ts_[] = {i32, str, dec, ts, arr, map};
	for (int i = 0; i < 6; i++) dl_type_unref(ts_[i]);
}

/* Variant: a group of two required binaries; null type: an OPTIONAL INT32
 * annotated UNKNOWN even when the field says NOT NULL; a null in a NOT NULL
 * field is refused. */
static void test_variant_null_and_required(void **state)
{
	(void)state;
	dl_type *var = dl_type_variant(), *nul = dl_type_new(DL_TYPE_NULL), *i64 = dl_type_new(DL_TYPE_LONG);
	dl_field f[] = {{(char *)"v", var, true, (char *)"{}"}, {(char *)"n", nul, false, (char *)"{}"},
	                {(char *)"x", i64, false, (char *)"{}"}};
	dl_type *schema = dl_type_struct(f, 3);
	pq_wschema ws;
	assert_int_equal(pq_wschema_build(&ws, schema, NULL), 0);
	assert_int_equal(ws.nelems, 6);
	assert_int_equal(ws.elems[1].num_children, 2);
	assert_string_equal(ws.elems[2].name, var->children[0].name);
	assert_int_equal(ws.elems[2].type, PQ_BYTE_ARRAY);
	assert_int_equal(ws.elems[2].repetition, PQ_REQUIRED);
	assert_int_equal(ws.elems[4].repetition, PQ_OPTIONAL);
	assert_int_equal(ws.elems[4].logical.kind, PQ_LT_UNKNOWN);
	pq_wschema_free(&ws);

	dl_buf out = DL_BUF_INIT;
	pq_sink sink;
	pq_sink_init_buf(&sink, &out);
	pq_writer *w;
	assert_int_equal(pq_writer_open(&w, schema, &sink, NULL), 0);
	dl_batch *b = dl_batch_new(schema, 2);
	dl_builder *bl;
	assert_int_equal(dl_builder_new(&bl, var), 0);
	dl_builder_append_null(bl);
	dl_builder_append_null(bl);
	dl_builder_finish(&b->cols[0], bl);
	dl_builder_free(bl);
	b->cols[1] = dl_array_new_null(nul, 2);
	assert_int_equal(dl_builder_new(&bl, i64), 0);
	dl_builder_append_int(bl, 1);
	dl_builder_append_null(bl);
	dl_builder_finish(&b->cols[2], bl);
	dl_builder_free(bl);
	assert_int_equal(pq_writer_write(w, b), DL_ECONSTRAINT);
	assert_non_null(strstr(dl_error_last()->message, "NOT NULL"));
	/* Half the batch is in the pages: the writer refuses to go on. */
	assert_int_equal(pq_writer_close(w), DL_ECONSTRAINT);
	assert_non_null(strstr(dl_error_last()->message, "incomplete"));
	dl_batch_free(b);
	pq_writer_free(w);
	dl_buf_free(&out);
	dl_type_unref(schema);
	dl_type_unref(var);
	dl_type_unref(nul);
	dl_type_unref(i64);
}

/* A decimal beyond its column's precision is refused, not cut to the low
 * bytes of its physical type (INT32, INT64, FIXED_LEN_BYTE_ARRAY); values
 * at the precision's limits are written. */
static void test_decimal_beyond_precision(void **state)
{
	(void)state;
	const int precisions[] = {9, 18, 25};
	for (int k = 0; k < 3; k++) {
		int p = precisions[k];
		dl_i128 lim = 1;
		for (int j = 0; j < p; j++) lim *= 10;
		dl_type *dec = dl_type_decimal(p, 2);
		dl_field f[] = {{(char *)"d", dec, true, (char *)"{}"}};
		dl_type *schema = dl_type_struct(f, 1);
		for (int bad = 0; bad < 2; bad++) {
			dl_buf out = DL_BUF_INIT;
			pq_sink sink;
			pq_sink_init_buf(&sink, &out);
			pq_writer *w;
			assert_int_equal(pq_writer_open(&w, schema, &sink, NULL), 0);
			dl_batch *b = dl_batch_new(schema, 3);
			dl_builder *bl;
			assert_int_equal(dl_builder_new(&bl, dec), 0);
			dl_builder_append_decimal(bl, lim - 1);
			dl_builder_append_decimal(bl, -(lim - 1));
			dl_builder_append_decimal(bl, 0);
			dl_builder_finish(&b->cols[0], bl);
			dl_builder_free(bl);
			/* The builder refuses such values, Arrow data from outside (IPC,
			 * the C data interface) may hold them: put one in by hand. */
			dl_i128 v = k % 2 ? -lim : lim + 172731;
			if (bad) memcpy((uint8_t *)b->cols[0]->values + 32, &v, 16);
			if (bad) {
				assert_int_equal(pq_writer_write(w, b), DL_EINVALID);
				assert_non_null(strstr(dl_error_last()->message, "does not fit DECIMAL"));
			} else {
				assert_int_equal(pq_writer_write(w, b), 0);
				assert_int_equal(pq_writer_close(w), 0);
				const pq_stats *st = pq_writer_leaf_stats(w, 0);
				assert_true(st->min.dec == -(lim - 1));
				assert_true(st->max.dec == lim - 1);
			}
			dl_batch_free(b);
			pq_writer_free(w);
			dl_buf_free(&out);
		}
		dl_type_unref(schema);
		dl_type_unref(dec);
	}
}

/* Sibling fields with the same name are refused (readers find columns by
 * name), at the top and inside structs; the same name at different levels
 * is fine. */
static void test_duplicate_names(void **state)
{
	(void)state;
	dl_type *i32 = dl_type_new(DL_TYPE_INTEGER), *f64 = dl_type_new(DL_TYPE_DOUBLE);
	dl_field inner_ok[] = {{(char *)"a", i32, true, (char *)"{}"}, {(char *)"b", f64, true, (char *)"{}"}};
	dl_field inner_dup[] = {{(char *)"a", i32, true, (char *)"{}"}, {(char *)"a", f64, true, (char *)"{}"}};
	dl_type *ok = dl_type_struct(inner_ok, 2), *dup = dl_type_struct(inner_dup, 2);
	dl_field top_ok[] = {{(char *)"a", i32, true, (char *)"{}"}, {(char *)"s", ok, true, (char *)"{}"}};
	dl_field top_dup[] = {{(char *)"a", i32, true, (char *)"{}"}, {(char *)"a", f64, true, (char *)"{}"}};
	dl_field nested_dup[] = {{(char *)"a", i32, true, (char *)"{}"}, {(char *)"s", dup, true, (char *)"{}"}};
	dl_type *schemas[] = {dl_type_struct(top_ok, 2), dl_type_struct(top_dup, 2), dl_type_struct(nested_dup, 2)};
	pq_wschema ws;
	assert_int_equal(pq_wschema_build(&ws, schemas[0], NULL), 0);
	pq_wschema_free(&ws);
	for (int i = 1; i < 3; i++) {
		assert_int_equal(pq_wschema_build(&ws, schemas[i], NULL), DL_EINVALID);
		assert_non_null(strstr(dl_error_last()->message, "'a' appears twice"));
		dl_buf out = DL_BUF_INIT;
		pq_sink sink;
		pq_sink_init_buf(&sink, &out);
		pq_writer *w;
		assert_int_equal(pq_writer_open(&w, schemas[i], &sink, NULL), DL_EINVALID);
		dl_buf_free(&out);
	}
	for (int i = 0; i < 3; i++) dl_type_unref(schemas[i]);
	dl_type_unref(ok);
	dl_type_unref(dup);
	dl_type_unref(i32);
	dl_type_unref(f64);
}

/* Every page of every chunk carries the CRC-32 of its stored bytes. */
static int check_page_crcs(const dl_buf *file, const pq_file_metadata *md)
{
	int pages = 0;
	for (uint32_t g = 0; g < md->nrow_groups; g++) {
		for (uint32_t c = 0; c < md->row_groups[g].ncolumns; c++) {
			const pq_column_meta *m = &md->row_groups[g].columns[c].meta_data;
			int64_t at = m->has_dictionary_page_offset ? m->dictionary_page_offset : m->data_page_offset;
			int64_t end = at + m->total_compressed_size;
			while (at < end) {
				pq_page_header h;
				size_t hl;
				assert_int_equal(pq_page_header_decode(&h, (const uint8_t *)file->data + at, (size_t)(end - at), &hl,
				                                       "crc"), 0);
				assert_true(h.has_crc);
				const uint8_t *data = (const uint8_t *)file->data + at + hl;
				assert_int_equal((uint32_t)h.crc, (uint32_t)crc32(0L, data, (uInt)h.compressed_page_size));
				at += (int64_t)hl + h.compressed_page_size;
				pages++;
			}
			assert_int_equal(at, end);
		}
	}
	return pages;
}

/* All-null pages first: they are PLAIN with no values, and do not turn the
 * dictionary off for the values that follow. */
static void test_null_pages_keep_dictionary(void **state)
{
	(void)state;
	dl_type *i64 = dl_type_new(DL_TYPE_LONG);
	dl_field f[] = {{(char *)"x", i64, true, (char *)"{}"}};
	dl_type *schema = dl_type_struct(f, 1);
	dl_buf out = DL_BUF_INIT;
	pq_sink sink;
	pq_sink_init_buf(&sink, &out);
	pq_writer_options opt = PQ_WRITER_OPTIONS_INIT;
	opt.page_bytes = 256;
	pq_writer *w;
	assert_int_equal(pq_writer_open(&w, schema, &sink, &opt), 0);
	dl_batch *b = dl_batch_new(schema, 6000);
	dl_builder *bl;
	assert_int_equal(dl_builder_new(&bl, i64), 0);
	dl_builder_append_nulls(bl, 3000);
	for (int i = 0; i < 3000; i++) dl_builder_append_int(bl, i % 10);
	dl_builder_finish(&b->cols[0], bl);
	dl_builder_free(bl);
	assert_int_equal(pq_writer_write(w, b), 0);
	assert_int_equal(pq_writer_close(w), 0);
	pq_reader *r;
	assert_int_equal(pq_reader_open_memory(&r, (const uint8_t *)out.data, out.len, "nulls"), 0);
	const pq_column_meta *m = &pq_reader_metadata(r)->row_groups[0].columns[0].meta_data;
	bool dict = false;
	for (uint32_t i = 0; i < m->nencodings; i++) dict |= m->encodings[i] == PQ_ENC_RLE_DICTIONARY;
	assert_true(dict);
	assert_true(m->has_dictionary_page_offset);
	assert_true(check_page_crcs(&out, pq_reader_metadata(r)) > 5);
	int64_t row = 0;
	for (;;) {
		dl_batch *rb;
		int64_t first;
		assert_int_equal(pq_reader_next(r, &rb, &first), 0);
		if (!rb) break;
		for (int64_t i = 0; i < rb->num_rows; i++, row++) {
			assert_int_equal(dl_array_is_valid(rb->cols[0], i), row >= 3000);
			if (row >= 3000) assert_int_equal(((const int64_t *)rb->cols[0]->values)[i], (row - 3000) % 10);
		}
		dl_batch_free(rb);
	}
	assert_int_equal(row, 6000);
	pq_reader_free(r);
	dl_batch_free(b);
	pq_writer_free(w);
	dl_buf_free(&out);
	dl_type_unref(schema);
	dl_type_unref(i64);
}

/* Wide rows: one batch of 100 KB strings still splits into row groups near
 * the size limit instead of one huge group. */
static void test_wide_rows_respect_row_group_size(void **state)
{
	(void)state;
	dl_type *bin = dl_type_new(DL_TYPE_BINARY);
	dl_field f[] = {{(char *)"blob", bin, false, (char *)"{}"}};
	dl_type *schema = dl_type_struct(f, 1);
	dl_buf out = DL_BUF_INIT;
	pq_sink sink;
	pq_sink_init_buf(&sink, &out);
	pq_writer_options opt = PQ_WRITER_OPTIONS_INIT;
	opt.row_group_bytes = 1 << 20;
	opt.codec = PQ_CODEC_UNCOMPRESSED;
	pq_writer *w;
	assert_int_equal(pq_writer_open(&w, schema, &sink, &opt), 0);
	dl_batch *b = dl_batch_new(schema, 200);
	dl_builder *bl;
	assert_int_equal(dl_builder_new(&bl, bin), 0);
	static uint8_t big[100000];
	for (int i = 0; i < 200; i++) {
		memset(big, i, sizeof big);
		assert_int_equal(dl_builder_append_bytes(bl, big, sizeof big), 0);
	}
	dl_builder_finish(&b->cols[0], bl);
	dl_builder_free(bl);
	assert_int_equal(pq_writer_write(w, b), 0);
	assert_int_equal(pq_writer_close(w), 0);
	pq_reader *r;
	assert_int_equal(pq_reader_open_memory(&r, (const uint8_t *)out.data, out.len, "wide"), 0);
	const pq_file_metadata *md = pq_reader_metadata(r);
	assert_true(md->nrow_groups >= 15);
	for (uint32_t g = 0; g < md->nrow_groups; g++) assert_true(md->row_groups[g].total_byte_size < (3 << 19));
	assert_int_equal(md->num_rows, 200);
	pq_reader_free(r);
	dl_batch_free(b);
	pq_writer_free(w);
	dl_buf_free(&out);
	dl_type_unref(schema);
	dl_type_unref(bin);
}

/* No rows at all: a valid file with no row groups, readable as empty. */
static void test_empty_file(void **state)
{
	(void)state;
	dl_type *str = dl_type_new(DL_TYPE_STRING);
	dl_field f[] = {{(char *)"s", str, true, (char *)"{}"}};
	dl_type *schema = dl_type_struct(f, 1);
	dl_buf out = DL_BUF_INIT;
	pq_sink sink;
	pq_sink_init_buf(&sink, &out);
	pq_writer *w;
	assert_int_equal(pq_writer_open(&w, schema, &sink, NULL), 0);
	dl_batch *b = dl_batch_new(schema, 0);
	dl_builder *bl;
	assert_int_equal(dl_builder_new(&bl, str), 0);
	dl_builder_finish(&b->cols[0], bl);
	dl_builder_free(bl);
	assert_int_equal(pq_writer_write(w, b), 0);
	assert_int_equal(pq_writer_close(w), 0);
	assert_int_equal(pq_writer_num_rows(w), 0);
	assert_false(pq_writer_leaf_stats(w, 0)->has_minmax);
	pq_reader *r;
	assert_int_equal(pq_reader_open_memory(&r, (const uint8_t *)out.data, out.len, "empty"), 0);
	assert_int_equal(pq_reader_num_rows(r), 0);
	assert_int_equal(pq_reader_num_row_groups(r), 0);
	dl_batch *rb;
	int64_t first;
	assert_int_equal(pq_reader_next(r, &rb, &first), 0);
	assert_null(rb);
	pq_reader_free(r);
	dl_batch_free(b);
	pq_writer_free(w);
	dl_buf_free(&out);
	dl_type_unref(schema);
	dl_type_unref(str);
}

/* IcebergCompatV2 nested ids: list elements and map keys/values get the ids
 * stored in the nearest struct field's metadata, keyed by path. */
static void test_nested_field_ids(void **state)
{
	(void)state;
	dl_type *i32 = dl_type_new(DL_TYPE_INTEGER), *i64 = dl_type_new(DL_TYPE_LONG);
	dl_type *arr64 = dl_type_array(i64, true), *map = dl_type_map(i32, arr64, true), *arr32 = dl_type_array(i32, true);
	dl_field f[] = {
		{(char *)"m", map, true,
		 (char *)"{\"delta.columnMapping.id\": 1, \"delta.columnMapping.nested.ids\": "
		         "{\"m.key\": 7, \"m.value\": 8, \"m.value.element\": 9}}"},
		{(char *)"a", arr32, true, (char *)"{\"parquet.field.id\":2,\"parquet.field.nested.ids\":{\"a.element\":5}}"},
	};
	dl_type *schema = dl_type_struct(f, 2);
	pq_wschema ws;
	assert_int_equal(pq_wschema_build(&ws, schema, NULL), 0);
	static const char *names[] = {"schema", "m", "key_value", "key", "value", "list", "element", "a", "list", "element"};
	static const int ids[] = {-1, 1, -1, 7, 8, -1, 9, 2, -1, 5};
	assert_int_equal(ws.nelems, 10);
	for (int i = 0; i < 10; i++) {
		assert_string_equal(ws.elems[i].name, names[i]);
		assert_int_equal(ws.elems[i].has_field_id ? ws.elems[i].field_id : -1, ids[i]);
	}
	pq_wschema_free(&ws);
	dl_type_unref(schema);
	dl_type *ts[] = {i32, i64, arr64, map, arr32};
	for (int i = 0; i < 5; i++) dl_type_unref(ts[i]);
}

/* ---- page index ---- */

typedef struct page_loc {
	int64_t offset, first_row;
	int32_t size;
} page_loc;

typedef struct col_index {
	int n;
	bool null_page[512];
	const uint8_t *min[512], *max[512];
	uint32_t min_len[512], max_len[512];
	int64_t nulls[512];
} col_index;

static int decode_offset_index(const uint8_t *p, size_t len, page_loc *out, int cap)
{
	pq_thrift t;
	pq_thrift_init(&t, p, len, "offset index");
	int n = 0;
	assert_int_equal(pq_thrift_struct_begin(&t), 0);
	for (int type;;) {
		int16_t id;
		assert_int_equal(pq_thrift_field(&t, &type, &id), 0);
		if (type == TC_STOP) break;
		assert_int_equal(id, 1);
		int et;
		uint32_t cnt;
		assert_int_equal(pq_thrift_list(&t, &et, &cnt), 0);
		assert_true((int)cnt <= cap);
		for (uint32_t i = 0; i < cnt; i++, n++) {
			assert_int_equal(pq_thrift_struct_begin(&t), 0);
			for (int ft;;) {
				int16_t fid;
				assert_int_equal(pq_thrift_field(&t, &ft, &fid), 0);
				if (ft == TC_STOP) break;
				int32_t v32;
				if (fid == 1) assert_int_equal(pq_thrift_i64(&t, &out[n].offset), 0);
				else if (fid == 2) assert_int_equal(pq_thrift_i32(&t, &v32), 0), out[n].size = v32;
				else if (fid == 3) assert_int_equal(pq_thrift_i64(&t, &out[n].first_row), 0);
				else fail_msg("PageLocation field %d", fid);
			}
			pq_thrift_struct_end(&t);
		}
	}
	pq_thrift_struct_end(&t);
	assert_int_equal(pq_thrift_pos(&t), len);
	return n;
}

static void decode_column_index(const uint8_t *p, size_t len, col_index *ci)
{
	pq_thrift t;
	pq_thrift_init(&t, p, len, "column index");
	memset(ci, 0, sizeof *ci);
	assert_int_equal(pq_thrift_struct_begin(&t), 0);
	for (int type;;) {
		int16_t id;
		assert_int_equal(pq_thrift_field(&t, &type, &id), 0);
		if (type == TC_STOP) break;
		int et;
		uint32_t cnt;
		if (id == 4) {
			int32_t order;
			assert_int_equal(pq_thrift_i32(&t, &order), 0);
			assert_int_equal(order, 0);
			continue;
		}
		assert_int_equal(pq_thrift_list(&t, &et, &cnt), 0);
		assert_true(cnt <= 512);
		ci->n = (int)cnt;
		for (uint32_t i = 0; i < cnt; i++) {
			if (id == 1) assert_int_equal(pq_thrift_bool_elem(&t, &ci->null_page[i]), 0);
			else if (id == 2) assert_int_equal(pq_thrift_binary(&t, &ci->min[i], &ci->min_len[i]), 0);
			else if (id == 3) assert_int_equal(pq_thrift_binary(&t, &ci->max[i], &ci->max_len[i]), 0);
			else if (id == 5) assert_int_equal(pq_thrift_i64(&t, &ci->nulls[i]), 0);
			else fail_msg("ColumnIndex field %d", id);
		}
	}
	pq_thrift_struct_end(&t);
	assert_int_equal(pq_thrift_pos(&t), len);
}

static int cmp_bytes(const uint8_t *a, size_t an, const uint8_t *b, size_t bn)
{
	size_t n = an < bn ? an : bn;
	int c = n ? memcmp(a, b, n) : 0;
	return c ? c : (an > bn) - (an < bn);
}

/* Pages of every chunk are where the OffsetIndex says, with the rows it
 * says, and the ColumnIndex bounds every value and counts every null of
 * each page (checked against the rows read back). */
static void test_page_index(void **state)
{
	(void)state;
	dl_type *i64 = dl_type_new(DL_TYPE_LONG), *str = dl_type_new(DL_TYPE_STRING), *dbl = dl_type_new(DL_TYPE_DOUBLE);
	dl_type *lst = dl_type_array(i64, true);
	dl_field f[] = {{(char *)"id", i64, false, (char *)"{}"}, {(char *)"s", str, true, (char *)"{}"},
	                {(char *)"d", dbl, true, (char *)"{}"}, {(char *)"l", lst, true, (char *)"{}"}};
	dl_type *schema = dl_type_struct(f, 4);
	const int64_t rows = 9000;
	dl_buf out = DL_BUF_INIT;
	pq_sink sink;
	pq_sink_init_buf(&sink, &out);
	pq_writer_options opt = PQ_WRITER_OPTIONS_INIT;
	opt.page_bytes = 700;
	opt.row_group_rows = 4000;
	opt.stats_truncate = 6;
	pq_writer *w;
	assert_int_equal(pq_writer_open(&w, schema, &sink, &opt), 0);
	dl_batch *b = dl_batch_new(schema, rows);
	dl_builder *bl[4];
	for (int i = 0; i < 4; i++) assert_int_equal(dl_builder_new(&bl[i], f[i].type), 0);
	for (int64_t i = 0; i < rows; i++) {
		dl_builder_append_int(bl[0], (i * 7919) % 100000);
		char t[32];
		snprintf(t, sizeof t, "key-%03d-long-suffix", (int)(i % 300));
		if (i < 2000 || i % 5 == 0) dl_builder_append_null(bl[1]);
		else dl_builder_append_str(bl[1], t);
		if (i == 5000) dl_builder_append_double(bl[2], NAN); /* no column index for d's chunk */
		else dl_builder_append_double(bl[2], (double)(i % 1000) - 500.5);
		if (i % 7 == 0) {
			dl_builder_append_null(bl[3]);
		} else {
			dl_builder_begin_list(bl[3]);
			for (int k = 0; k < (int)(i % 4); k++) dl_builder_append_int(dl_builder_child(bl[3], 0), i * 4 + k);
			dl_builder_end_list(bl[3]);
		}
	}
	for (int i = 0; i < 4; i++) {
		dl_builder_finish(&b->cols[i], bl[i]);
		dl_builder_free(bl[i]);
	}
	assert_int_equal(pq_writer_write(w, b), 0);
	assert_int_equal(pq_writer_close(w), 0);

	pq_reader *r;
	assert_int_equal(pq_reader_open_memory(&r, (const uint8_t *)out.data, out.len, "page index"), 0);
	const pq_file_metadata *md = pq_reader_metadata(r);
	assert_int_equal(md->nrow_groups, 3);
	const uint8_t *file = (const uint8_t *)out.data;
	int64_t rg_first = 0;
	int with_ci = 0, pages_total = 0;
	for (uint32_t g = 0; g < md->nrow_groups; g++) {
		const pq_row_group *rg = &md->row_groups[g];
		for (uint32_t c = 0; c < rg->ncolumns; c++) {
			const pq_column_chunk *cc = &rg->columns[c];
			const pq_column_meta *m = &cc->meta_data;
			assert_true(cc->has_offset_index_offset && cc->has_offset_index_length);
			page_loc loc[512];
			int n = decode_offset_index(file + cc->offset_index_offset, (size_t)cc->offset_index_length, loc, 512);
			if (n < 1) fail_msg("row group %u column %u: %d pages", g, c, n);
			pages_total += n;
			assert_int_equal(loc[0].offset, m->data_page_offset);
			assert_int_equal(loc[0].first_row, 0);
			int64_t values = 0;
			for (int i = 0; i < n; i++) {
				pq_page_header h;
				size_t hl;
				assert_int_equal(pq_page_header_decode(&h, file + loc[i].offset, 4096, &hl, "page"), 0);
				assert_int_equal(h.type, PQ_PAGE_DATA);
				assert_int_equal((int64_t)hl + h.compressed_page_size, loc[i].size);
				values += h.data_page_header.num_values;
				if (i + 1 < n) {
					assert_int_equal(loc[i + 1].offset, loc[i].offset + loc[i].size);
					assert_true(loc[i + 1].first_row > loc[i].first_row);
				}
			}
			int64_t chunk_start = m->has_dictionary_page_offset ? m->dictionary_page_offset : m->data_page_offset;
			assert_int_equal(loc[n - 1].offset + loc[n - 1].size, chunk_start + m->total_compressed_size);
			assert_int_equal(values, m->num_values);
			assert_true(loc[n - 1].first_row < rg->num_rows);
			if (c == 2) { /* NaN counted; none in row groups 0 and 2 */
				assert_true(m->statistics.has_nan_count);
				assert_int_equal(m->statistics.nan_count, g == 1);
			}
			if (c == 2 && g == 1) { /* the NaN chunk: no column index */
				assert_false(cc->has_column_index_offset);
				continue;
			}
			if (!cc->has_column_index_offset) fail_msg("no column index for row group %u column %u", g, c);
			with_ci++;
			col_index ci;
			decode_column_index(file + cc->column_index_offset, (size_t)cc->column_index_length, &ci);
			assert_int_equal(ci.n, n);
			/* Every row of every page against the page's entry. */
			for (int i = 0; i < n; i++) {
				int64_t lo = rg_first + loc[i].first_row;
				int64_t hi = rg_first + (i + 1 < n ? loc[i + 1].first_row : rg->num_rows);
				int64_t nulls = 0;
				bool any = false;
				for (int64_t row = lo; row < hi; row++) {
					if (c == 0) {
						int64_t v = (row * 7919) % 100000, mn, mx;
						memcpy(&mn, ci.min[i], 8);
						memcpy(&mx, ci.max[i], 8);
						assert_true(mn <= v && v <= mx);
						any = true;
					} else if (c == 1) {
						if (row < 2000 || row % 5 == 0) {
							nulls++;
							continue;
						}
						char t[32];
						int tl = snprintf(t, sizeof t, "key-%03d-long-suffix", (int)(row % 300));
						assert_true(ci.min_len[i] <= 6 && ci.max_len[i] <= 6);
						assert_true(cmp_bytes(ci.min[i], ci.min_len[i], (const uint8_t *)t, (size_t)tl) <= 0);
						assert_true(cmp_bytes((const uint8_t *)t, (size_t)tl, ci.max[i], ci.max_len[i]) <= 0);
						any = true;
					} else if (c == 2) {
						double v = (double)(row % 1000) - 500.5, mn, mx;
						memcpy(&mn, ci.min[i], 8);
						memcpy(&mx, ci.max[i], 8);
						assert_true(mn <= v && v <= mx);
						any = true;
					} else {
						int k = (int)(row % 4);
						if (row % 7 == 0 || k == 0) {
							nulls++; /* null list or empty list: one null slot */
							continue;
						}
						int64_t mn, mx;
						memcpy(&mn, ci.min[i], 8);
						memcpy(&mx, ci.max[i], 8);
						assert_true(mn <= row * 4 && row * 4 + k - 1 <= mx);
						any = true;
					}
				}
				assert_int_equal(ci.nulls[i], nulls);
				assert_int_equal(ci.null_page[i], !any);
				if (!any) assert_int_equal(ci.min_len[i], 0);
			}
		}
		rg_first += rg->num_rows;
	}
	assert_int_equal(with_ci, 3 * 4 - 1);
	assert_true(pages_total > 40);
	pq_reader_free(r);
	dl_batch_free(b);
	pq_writer_free(w);
	dl_buf_free(&out);
	dl_type_unref(schema);
	dl_type *ts[] = {i64, str, dbl, lst};
	for (int i = 0; i < 4; i++) dl_type_unref(ts[i]);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_thrift_compact),
		cmocka_unit_test(test_rle_hybrid),
		cmocka_unit_test(test_truncation),
		cmocka_unit_test(test_stats_orders),
		cmocka_unit_test(test_field_ids),
		cmocka_unit_test(test_footer_round_trip),
		cmocka_unit_test(test_variant_null_and_required),
		cmocka_unit_test(test_null_pages_keep_dictionary),
		cmocka_unit_test(test_wide_rows_respect_row_group_size),
		cmocka_unit_test(test_empty_file),
		cmocka_unit_test(test_nested_field_ids),
		cmocka_unit_test(test_page_index),
		cmocka_unit_test(test_decimal_beyond_precision),
		cmocka_unit_test(test_duplicate_names),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
