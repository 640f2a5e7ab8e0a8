/* Property test: random nested schemas and hostile-ish values (NaN, -0.0,
 * extreme integers, arbitrary bytes, long strings, empty and null lists,
 * null structs, null-type columns) written by our writer and read back by
 * our reader, cell by cell, with every codec and small page/row group/
 * dictionary limits. Also checks the writer's per-file statistics against
 * the footer statistics the reader decodes. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <math.h>
#include <stdio.h>
#include <string.h>
#include "columnar/builder.h"
#include "columnar/format_value.h"
#include "parquet/reader.h"
#include "parquet/writer.h"

static uint64_t rng;
static uint64_t rnd(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return rng;
}
static int rint_(int n) { return (int)(rnd() % (uint64_t)n); }

static dl_type *rand_type(int depth);

static dl_type *rand_struct(int depth, int n)
{
	dl_field f[6] = {{0}};
	char names[6][16];
	for (int i = 0; i < n; i++) {
		snprintf(names[i], sizeof names[i], "f%d", i);
		f[i] = (dl_field){names[i], rand_type(depth + 1), rint_(4) != 0, (char *)"{}"};
	}
	dl_type *t = dl_type_struct(f, n);
	for (int i = 0; i < n; i++) dl_type_unref(f[i].type);
	return t;
}

static dl_type *rand_type(int depth)
{
	int k = depth >= 4 ? 0 : rint_(7);
	if (k == 4) return rand_struct(depth, 1 + rint_(3));
	if (k == 5) {
		dl_type *e = rand_type(depth + 1), *t = dl_type_array(e, rint_(2));
		dl_type_unref(e);
		return t;
	}
	if (k == 6) {
		dl_type *key = rand_type(3), *v = rand_type(depth + 1);
		dl_type *t = dl_type_map(key, v, rint_(2));
		dl_type_unref(key);
		dl_type_unref(v);
		return t;
	}
	static const dl_type_id ids[] = {DL_TYPE_BOOLEAN, DL_TYPE_BYTE, DL_TYPE_SHORT, DL_TYPE_INTEGER, DL_TYPE_LONG,
	                                 DL_TYPE_FLOAT, DL_TYPE_DOUBLE, DL_TYPE_DECIMAL, DL_TYPE_STRING, DL_TYPE_BINARY,
	                                 DL_TYPE_DATE, DL_TYPE_TIMESTAMP, DL_TYPE_TIMESTAMP_NTZ, DL_TYPE_NULL};
	dl_type_id id = ids[rint_(depth == 0 ? 14 : 13)];
	if (id == DL_TYPE_DECIMAL) {
		static const int ps[] = {1, 9, 10, 18, 19, 38};
		int p = ps[rint_(6)];
		return dl_type_decimal(p, rint_(p + 1));
	}
	return dl_type_new(id);
}

static void rand_value(dl_builder *b, const dl_type *t, bool nullable)
{
	if ((nullable && rint_(6) == 0) || t->id == DL_TYPE_NULL) {
		assert_int_equal(dl_builder_append_null(b), 0);
		return;
	}
	switch (t->id) {
	case DL_TYPE_BOOLEAN: assert_int_equal(dl_builder_append_bool(b, rint_(2)), 0); return;
	case DL_TYPE_BYTE:
	case DL_TYPE_SHORT:
	case DL_TYPE_INTEGER:
	case DL_TYPE_LONG:
	case DL_TYPE_DATE:
	case DL_TYPE_TIMESTAMP:
	case DL_TYPE_TIMESTAMP_NTZ: {
		int bits = t->id == DL_TYPE_BYTE ? 8 : t->id == DL_TYPE_SHORT ? 16 : t->id == DL_TYPE_INTEGER || t->id == DL_TYPE_DATE ? 32 : 64;
		int64_t v = (int64_t)rnd();
		int k = rint_(4);
		if (k == 0) v %= 10;
		if (k == 1) v = rint_(2) ? INT64_MIN : INT64_MAX;
		if (bits == 32) v = k == 1 ? (v < 0 ? INT32_MIN : INT32_MAX) : (int32_t)v;
		if (bits == 16) v = (int16_t)v;
		if (bits == 8) v = (int8_t)v;
		if (t->id == DL_TYPE_DATE) v %= 3000000;
		/* Timestamps within +-3000 years: rendering needs a calendar date. */
		if (t->id == DL_TYPE_TIMESTAMP || t->id == DL_TYPE_TIMESTAMP_NTZ) v %= 95000000000000000LL;
		assert_int_equal(dl_builder_append_int(b, v), 0);
		return;
	}
	case DL_TYPE_FLOAT:
	case DL_TYPE_DOUBLE: {
		static const double special[] = {0.0, -0.0, NAN, INFINITY, -INFINITY, 1e300, -1e-300, 3.5};
		double v = rint_(3) ? (double)((int32_t)rnd()) / 7.0 : special[rint_(8)];
		if (t->id == DL_TYPE_FLOAT && fabs(v) > 1e38 && isfinite(v)) v = 1e38;
		if (t->id == DL_TYPE_FLOAT) v = (float)v;
		assert_int_equal(dl_builder_append_double(b, v), 0);
		return;
	}
	case DL_TYPE_DECIMAL: {
		dl_i128 lim = 1;
		for (int i = 0; i < t->precision; i++) lim *= 10;
		dl_i128 v = rint_(3) ? ((dl_i128)(rnd() >> 1) * (dl_i128)(rnd() >> 1)) % lim : lim - 1;
		if (rint_(2)) v = -v;
		assert_int_equal(dl_builder_append_decimal(b, v), 0);
		return;
	}
	case DL_TYPE_STRING:
	case DL_TYPE_BINARY: {
		uint8_t buf[300];
		size_t n = rint_(5) == 0 ? (size_t)(100 + rint_(200)) : (size_t)rint_(6);
		for (size_t i = 0; i < n; i++)
			buf[i] = t->id == DL_TYPE_BINARY ? (uint8_t)rnd() : (uint8_t)("abz\x7f"[rint_(4)]);
		if (t->id == DL_TYPE_STRING && n >= 2 && rint_(3) == 0) buf[0] = 0xc3, buf[1] = 0xa9; /* é */
		assert_int_equal(dl_builder_append_bytes(b, buf, n), 0);
		return;
	}
	case DL_TYPE_STRUCT:
		assert_int_equal(dl_builder_begin_struct(b), 0);
		for (int i = 0; i < t->nchildren; i++)
			rand_value(dl_builder_child(b, i), t->children[i].type, t->children[i].nullable);
		assert_int_equal(dl_builder_end_struct(b), 0);
		return;
	case DL_TYPE_ARRAY:
	case DL_TYPE_MAP: {
		int n = rint_(4);
		assert_int_equal(dl_builder_begin_list(b), 0);
		for (int i = 0; i < n; i++) {
			if (t->id == DL_TYPE_ARRAY) {
				rand_value(dl_builder_child(b, 0), t->children[0].type, t->children[0].nullable);
			} else {
				rand_value(dl_builder_child(b, 0), t->children[0].type, false);
				rand_value(dl_builder_child(b, 1), t->children[1].type, t->children[1].nullable);
			}
		}
		assert_int_equal(dl_builder_end_list(b), 0);
		return;
	}
	default: fail_msg("type %d", t->id);
	}
}

/* Renders every cell of a batch column (JSON form) into one string per row. */
static void render(dl_buf *out, const dl_array *a, int64_t row)
{
	if (!dl_array_is_valid(a, row)) {
		dl_buf_puts(out, "null");
	} else if (dl_format_value_json(out, a, row) < 0) {
		fail_msg("render: %s", dl_error_last()->message);
	}
	dl_buf_putc(out, '\n');
}

static void round_trip(uint64_t seed, const pq_writer_options *opt, int64_t rows, int batches)
{
	rng = seed * 0x9E3779B97F4A7C15ULL + 7;
	int ncols = 1 + rint_(5);
	dl_type *schema = rand_struct(0, ncols);
	dl_buf out = DL_BUF_INIT, want = DL_BUF_INIT, got = DL_BUF_INIT;
	pq_sink sink;
	pq_sink_init_buf(&sink, &out);
	pq_writer *w;
	assert_int_equal(pq_writer_open(&w, schema, &sink, opt), 0);
	dl_batch *bs[8];
	for (int bt = 0; bt < batches; bt++) {
		dl_batch *b = dl_batch_new(schema, rows);
		for (int i = 0; i < ncols; i++) {
			dl_builder *bl;
			assert_int_equal(dl_builder_new(&bl, schema->children[i].type), 0);
			for (int64_t r = 0; r < rows; r++) rand_value(bl, schema->children[i].type, schema->children[i].nullable);
			assert_int_equal(dl_builder_finish(&b->cols[i], bl), 0);
			dl_builder_free(bl);
		}
		if (pq_writer_write(w, b)) fail_msg("seed %llu write: %s", (unsigned long long)seed, dl_error_last()->message);
		bs[bt] = b;
	}
	assert_int_equal(pq_writer_close(w), 0);
	for (int i = 0; i < ncols; i++)
		for (int bt = 0; bt < batches; bt++)
			for (int64_t r = 0; r < rows; r++) render(&want, bs[bt]->cols[i], r);

	pq_reader *rd;
	if (pq_reader_open_memory(&rd, (const uint8_t *)out.data, out.len, "roundtrip"))
		fail_msg("seed %llu open: %s", (unsigned long long)seed, dl_error_last()->message);
	assert_int_equal(pq_reader_num_rows(rd), rows * batches);
	dl_buf cols[8] = {DL_BUF_INIT};
	for (;;) {
		dl_batch *b;
		int64_t first;
		if (pq_reader_next(rd, &b, &first)) fail_msg("seed %llu read: %s", (unsigned long long)seed, dl_error_last()->message);
		if (!b) break;
		assert_int_equal(b->ncols, ncols);
		for (int i = 0; i < ncols; i++)
			for (int64_t r = 0; r < b->num_rows; r++) render(&cols[i], b->cols[i], r);
		dl_batch_free(b);
	}
	for (int i = 0; i < ncols; i++) {
		dl_buf_append(&got, cols[i].data, cols[i].len);
		dl_buf_free(&cols[i]);
	}
	if (want.len != got.len || memcmp(want.data, got.data, want.len)) {
		char type[512];
		dl_type_sql(schema, type, sizeof type);
		size_t k = 0;
		while (k < want.len && k < got.len && want.data[k] == got.data[k]) k++;
		size_t s = k > 80 ? k - 80 : 0;
		fail_msg("seed %llu: %s\nwant ...%.160s\ngot  ...%.160s", (unsigned long long)seed, type, want.data + s,
		         got.data ? got.data + s : "");
	}

	/* Per-file stats equal the footer's row-group stats folded (flat leaves). */
	for (int l = 0; l < pq_writer_num_leaves(w); l++) {
		const pq_leaf *leaf = pq_writer_leaf(w, l);
		const pq_stats *st = pq_writer_leaf_stats(w, l);
		int64_t nulls = 0;
		for (int g = 0; g < pq_reader_num_row_groups(rd); g++) {
			pq_column_stats cs;
			assert_int_equal(pq_reader_column_stats(rd, g, l, &cs), 0);
			assert_true(cs.has_null_count);
			nulls += cs.null_count;
			if (leaf->max_rep == 0 && pq_reader_num_row_groups(rd) == 1 && cs.has_min_max &&
			    st->kind == PQ_SK_INT) {
				assert_int_equal(cs.min.i, st->min.i);
				assert_int_equal(cs.max.i, st->max.i);
			}
		}
		assert_int_equal(nulls, st->null_count);
	}
	pq_reader_free(rd);
	pq_writer_free(w);
	for (int bt = 0; bt < batches; bt++) dl_batch_free(bs[bt]);
	dl_type_unref(schema);
	dl_buf_free(&out);
	dl_buf_free(&want);
	dl_buf_free(&got);
}

static void test_default_options(void **state)
{
	(void)state;
	static const pq_codec codecs[] = {PQ_CODEC_ZSTD, PQ_CODEC_SNAPPY, PQ_CODEC_GZIP, PQ_CODEC_LZ4_RAW,
	                                  PQ_CODEC_UNCOMPRESSED, PQ_CODEC_BROTLI};
	pq_writer_options opt = PQ_WRITER_OPTIONS_INIT;
	for (uint64_t seed = 1; seed <= 60; seed++) {
		opt.codec = codecs[seed % 6];
		opt.threads = 1 + (int)(seed % 3); /* columns in parallel too */
		round_trip(seed, &opt, 200, 2);
	}
}

static void test_small_limits(void **state)
{
	(void)state;
	pq_writer_options opt = PQ_WRITER_OPTIONS_INIT;
	opt.page_bytes = 300;
	opt.dict_bytes = 200;
	opt.row_group_rows = 333;
	opt.stats_truncate = 8;
	opt.threads = 2;
	for (uint64_t seed = 1000; seed <= 1030; seed++) round_trip(seed, &opt, 400, 3);
	opt.dictionary = false;
	opt.row_group_rows = 0;
	opt.row_group_bytes = 2000;
	for (uint64_t seed = 2000; seed <= 2020; seed++) round_trip(seed, &opt, 300, 2);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_default_options),
		cmocka_unit_test(test_small_limits),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
