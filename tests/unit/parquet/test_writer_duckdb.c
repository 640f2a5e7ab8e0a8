/* Property test of the Parquet writer against DuckDB: random nested schemas
 * and rows are written both as Parquet (by us) and as JSON lines; DuckDB
 * reads the two (the JSON with the explicit schema) and EXCEPT ALL must be
 * empty both ways (tests/integration/parquet_duckdb_write_check.mjs). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "columnar/builder.h"
#include "parquet/writer.h"
#include "util/buf.h"

static uint64_t rng = 88172645463325252ULL;
static uint64_t rnd(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return rng;
}
static int rint_(int n) { return (int)(rnd() % (uint64_t)n); }

/* ---- random types ----------------------------------------------------- */

static const dl_type_id prims[] = {
	DL_TYPE_BOOLEAN, DL_TYPE_BYTE, DL_TYPE_SHORT, DL_TYPE_INTEGER, DL_TYPE_LONG, DL_TYPE_FLOAT, DL_TYPE_DOUBLE,
	DL_TYPE_DECIMAL, DL_TYPE_STRING, DL_TYPE_BINARY, DL_TYPE_DATE, DL_TYPE_TIMESTAMP, DL_TYPE_TIMESTAMP_NTZ,
};

static dl_type *rand_type(int depth);

static dl_type *rand_prim(void)
{
	dl_type_id id = prims[rint_((int)(sizeof prims / sizeof *prims))];
	if (id == DL_TYPE_DECIMAL) {
		static const int ps[] = {5, 9, 10, 18, 19, 25, 38};
		int p = ps[rint_(7)];
		return dl_type_decimal(p, rint_(p + 1) % 7);
	}
	return dl_type_new(id);
}

static dl_type *rand_struct(int depth, int n, const char *prefix)
{
	dl_field f[8];
	char names[8][16];
	for (int i = 0; i < n; i++) {
		snprintf(names[i], sizeof names[i], "%s%d", prefix, i);
		f[i] = (dl_field){names[i], rand_type(depth + 1), rint_(4) != 0, (char *)"{}"};
	}
	dl_type *t = dl_type_struct(f, n);
	for (int i = 0; i < n; i++) dl_type_unref(f[i].type);
	return t;
}

static dl_type *rand_type(int depth)
{
	int k = depth >= 3 ? 0 : rint_(6);
	if (k == 3) return rand_struct(depth, 1 + rint_(3), "f");
	if (k == 4) {
		dl_type *e = rand_type(depth + 1);
		dl_type *t = dl_type_array(e, rint_(2));
		dl_type_unref(e);
		return t;
	}
	if (k == 5) {
		dl_type *key = rint_(2) ? dl_type_new(DL_TYPE_STRING) : dl_type_new(DL_TYPE_INTEGER);
		dl_type *v = rand_type(depth + 1);
		dl_type *t = dl_type_map(key, v, rint_(2));
		dl_type_unref(key);
		dl_type_unref(v);
		return t;
	}
	return rand_prim();
}

/* DuckDB's spelling of a type, for read_json(columns=...). */
static void duck_type(dl_buf *o, const dl_type *t)
{
	switch (t->id) {
	case DL_TYPE_BOOLEAN: dl_buf_puts(o, "BOOLEAN"); return;
	case DL_TYPE_BYTE: dl_buf_puts(o, "TINYINT"); return;
	case DL_TYPE_SHORT: dl_buf_puts(o, "SMALLINT"); return;
	case DL_TYPE_INTEGER: dl_buf_puts(o, "INTEGER"); return;
	case DL_TYPE_LONG: dl_buf_puts(o, "BIGINT"); return;
	case DL_TYPE_FLOAT: dl_buf_puts(o, "FLOAT"); return;
	case DL_TYPE_DOUBLE: dl_buf_puts(o, "DOUBLE"); return;
	case DL_TYPE_DECIMAL: dl_buf_printf(o, "DECIMAL(%d,%d)", t->precision, t->scale); return;
	case DL_TYPE_STRING: dl_buf_puts(o, "VARCHAR"); return;
	case DL_TYPE_BINARY: dl_buf_puts(o, "BLOB"); return;
	case DL_TYPE_DATE: dl_buf_puts(o, "DATE"); return;
	case DL_TYPE_TIMESTAMP: dl_buf_puts(o, "TIMESTAMPTZ"); return;
	case DL_TYPE_TIMESTAMP_NTZ: dl_buf_puts(o, "TIMESTAMP"); return;
	case DL_TYPE_ARRAY: duck_type(o, t->children[0].type); dl_buf_puts(o, "[]"); return;
	case DL_TYPE_MAP:
		dl_buf_puts(o, "MAP(");
		duck_type(o, t->children[0].type);
		dl_buf_puts(o, ", ");
		duck_type(o, t->children[1].type);
		dl_buf_puts(o, ")");
		return;
	case DL_TYPE_STRUCT:
		dl_buf_puts(o, "STRUCT(");
		for (int i = 0; i < t->nchildren; i++) {
			dl_buf_printf(o, "%s%s ", i ? ", " : "", t->children[i].name);
			duck_type(o, t->children[i].type);
		}
		dl_buf_puts(o, ")");
		return;
	default: fail_msg("type %d", t->id);
	}
}

/* ---- random values: appended to a builder and to the JSON line -------- */

static void civil(int64_t days, int *y, int *m, int *d)
{
	/* Howard Hinnant's days -> civil date. */
	days += 719468;
	int64_t era = (days >= 0 ? days : days - 146096) / 146097;
	int64_t doe = days - era * 146097;
	int64_t yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
	int64_t doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
	int64_t mp = (5 * doy + 2) / 153;
	*d = (int)(doy - (153 * mp + 2) / 5 + 1);
	*m = (int)(mp < 10 ? mp + 3 : mp - 9);
	*y = (int)(yoe + era * 400 + (*m <= 2));
}

static void put_i128(dl_buf *o, dl_i128 v, int scale)
{
	char tmp[64];
	int n = 0;
	bool neg = v < 0;
	dl_i128 u = neg ? -v : v;
	do {
		tmp[n++] = (char)('0' + (int)(u % 10));
		u /= 10;
	} while (u || n <= scale);
	dl_buf_putc(o, '"');
	if (neg) dl_buf_putc(o, '-');
	for (int i = n - 1; i >= 0; i--) {
		dl_buf_putc(o, tmp[i]);
		if (i == scale && scale) dl_buf_putc(o, '.');
	}
	dl_buf_putc(o, '"');
}

static void rand_value(dl_builder *b, const dl_type *t, dl_buf *o, bool nullable);

static void rand_bytes(dl_builder *b, dl_buf *o, bool utf8)
{
	static const char *words[] = {"", "a", "abc", "Zürich", "日本語", "x y z", "quote\"d", "back\\slash",
	                              "ssssssssssssssssssssssssssssssssssssssssssssssssssssssssssssssssssssssssssssssss"};
	char buf[160];
	size_t n;
	if (utf8 && rint_(3) == 0) {
		const char *w = words[rint_(9)];
		n = strlen(w);
		memcpy(buf, w, n);
	} else {
		n = (size_t)rint_(utf8 ? 100 : 12);
		for (size_t i = 0; i < n; i++) buf[i] = (char)('a' + rint_(utf8 ? 26 : 3));
	}
	assert_int_equal(dl_builder_append_bytes(b, buf, n), 0);
	dl_buf_put_json_string(o, buf, n);
}

static void rand_value(dl_builder *b, const dl_type *t, dl_buf *o, bool nullable)
{
	if (nullable && rint_(5) == 0) {
		assert_int_equal(dl_builder_append_null(b), 0);
		dl_buf_puts(o, "null");
		return;
	}
	switch (t->id) {
	case DL_TYPE_BOOLEAN: {
		bool v = rint_(2);
		assert_int_equal(dl_builder_append_bool(b, v), 0);
		dl_buf_puts(o, v ? "true" : "false");
		return;
	}
	case DL_TYPE_BYTE:
	case DL_TYPE_SHORT:
	case DL_TYPE_INTEGER:
	case DL_TYPE_LONG: {
		int bits = t->id == DL_TYPE_BYTE ? 8 : t->id == DL_TYPE_SHORT ? 16 : t->id == DL_TYPE_INTEGER ? 32 : 64;
		int64_t v = (int64_t)rnd();
		if (rint_(2)) v %= 100; /* small values repeat: dictionary pages */
		if (bits == 32) v = (int32_t)v;
		else if (bits == 16) v = (int16_t)v;
		else if (bits == 8) v = (int8_t)v;
		assert_int_equal(dl_builder_append_int(b, v), 0);
		dl_buf_printf(o, "%lld", (long long)v);
		return;
	}
	case DL_TYPE_FLOAT:
	case DL_TYPE_DOUBLE: {
		double v = (double)((int32_t)rnd() % 100000) / 64.0;
		if (t->id == DL_TYPE_DOUBLE && rint_(3) == 0) v = (double)(int64_t)(rnd() >> 12) * 1024.0;
		assert_int_equal(dl_builder_append_double(b, v), 0);
		dl_buf_printf(o, "%.17g", v);
		return;
	}
	case DL_TYPE_DECIMAL: {
		dl_i128 lim = 1;
		for (int i = 0; i < t->precision; i++) lim *= 10;
		dl_i128 v = ((dl_i128)(rnd() >> 1) * (dl_i128)(rnd() >> 1)) % lim;
		if (rint_(3) == 0) v = (dl_i128)(rnd() % 1000);
		if (rint_(2)) v = -v;
		assert_int_equal(dl_builder_append_decimal(b, v), 0);
		put_i128(o, v, t->scale);
		return;
	}
	case DL_TYPE_STRING: rand_bytes(b, o, true); return;
	case DL_TYPE_BINARY: rand_bytes(b, o, false); return;
	case DL_TYPE_DATE: {
		int64_t d = rint_(90000) - 30000;
		int y, m, dd;
		civil(d, &y, &m, &dd);
		assert_int_equal(dl_builder_append_int(b, d), 0);
		dl_buf_printf(o, "\"%04d-%02d-%02d\"", y, m, dd);
		return;
	}
	case DL_TYPE_TIMESTAMP:
	case DL_TYPE_TIMESTAMP_NTZ: {
		int64_t us = (int64_t)(rnd() % (200LL * 365 * 86400 * 1000000)) - 70LL * 365 * 86400 * 1000000;
		int64_t days = us >= 0 ? us / 86400000000LL : -((-us + 86400000000LL - 1) / 86400000000LL);
		int64_t rem = us - days * 86400000000LL;
		int y, m, dd;
		civil(days, &y, &m, &dd);
		assert_int_equal(dl_builder_append_int(b, us), 0);
		dl_buf_printf(o, "\"%04d-%02d-%02d %02d:%02d:%02d.%06d%s\"", y, m, dd, (int)(rem / 3600000000LL),
		              (int)(rem / 60000000 % 60), (int)(rem / 1000000 % 60), (int)(rem % 1000000),
		              t->id == DL_TYPE_TIMESTAMP ? "+00" : "");
		return;
	}
	case DL_TYPE_STRUCT:
		assert_int_equal(dl_builder_begin_struct(b), 0);
		dl_buf_putc(o, '{');
		for (int i = 0; i < t->nchildren; i++) {
			dl_buf_printf(o, "%s\"%s\":", i ? "," : "", t->children[i].name);
			rand_value(dl_builder_child(b, i), t->children[i].type, o, t->children[i].nullable);
		}
		dl_buf_putc(o, '}');
		assert_int_equal(dl_builder_end_struct(b), 0);
		return;
	case DL_TYPE_ARRAY: {
		int n = rint_(4);
		assert_int_equal(dl_builder_begin_list(b), 0);
		dl_buf_putc(o, '[');
		for (int i = 0; i < n; i++) {
			if (i) dl_buf_putc(o, ',');
			rand_value(dl_builder_child(b, 0), t->children[0].type, o, t->children[0].nullable);
		}
		dl_buf_putc(o, ']');
		assert_int_equal(dl_builder_end_list(b), 0);
		return;
	}
	case DL_TYPE_MAP: {
		int n = rint_(4);
		assert_int_equal(dl_builder_begin_list(b), 0);
		dl_buf_putc(o, '{');
		for (int i = 0; i < n; i++) {
			/* Distinct keys: the index. */
			if (i) dl_buf_putc(o, ',');
			dl_builder *kb = dl_builder_child(b, 0);
			if (t->children[0].type->id == DL_TYPE_STRING) {
				char k[8];
				snprintf(k, sizeof k, "k%d", i);
				assert_int_equal(dl_builder_append_str(kb, k), 0);
				dl_buf_printf(o, "\"%s\":", k);
			} else {
				assert_int_equal(dl_builder_append_int(kb, i * 7 - 3), 0);
				dl_buf_printf(o, "\"%d\":", i * 7 - 3);
			}
			rand_value(dl_builder_child(b, 1), t->children[1].type, o, t->children[1].nullable);
		}
		dl_buf_putc(o, '}');
		assert_int_equal(dl_builder_end_list(b), 0);
		return;
	}
	default: fail_msg("type %d", t->id);
	}
}

static int run_oracle(const char *pq, const char *jsonl, const char *cols)
{
	char cmd[8192];
	snprintf(cmd, sizeof cmd, "cd '%s/tools/oracle' && node '%s/tests/integration/parquet_duckdb_write_check.mjs' '%s' '%s' \"%s\"",
	         DL_SOURCE_DIR, DL_SOURCE_DIR, pq, jsonl, cols);
	return system(cmd);
}

static void round_trip(uint64_t seed, pq_codec codec, int64_t rows, int batches, const pq_writer_options *base)
{
	rng = seed * 0x9E3779B97F4A7C15ULL + 1;
	int ncols = 1 + rint_(5);
	dl_type *schema = rand_struct(0, ncols, "c");
	dl_buf cols = DL_BUF_INIT, json = DL_BUF_INIT, out = DL_BUF_INIT;
	dl_buf_putc(&cols, '{');
	for (int i = 0; i < ncols; i++) {
		dl_buf_printf(&cols, "%s'c%d': '", i ? ", " : "", i);
		duck_type(&cols, schema->children[i].type);
		dl_buf_putc(&cols, '\'');
	}
	dl_buf_putc(&cols, '}');

	pq_sink sink;
	pq_sink_init_buf(&sink, &out);
	pq_writer_options opt = *base;
	opt.codec = codec;
	pq_writer *w;
	assert_int_equal(pq_writer_open(&w, schema, &sink, &opt), 0);
	dl_builder *bs[8];
	for (int i = 0; i < ncols; i++) assert_int_equal(dl_builder_new(&bs[i], schema->children[i].type), 0);
	for (int bt = 0; bt < batches; bt++) {
		for (int64_t r = 0; r < rows; r++) {
			dl_buf_putc(&json, '{');
			for (int i = 0; i < ncols; i++) {
				dl_buf_printf(&json, "%s\"c%d\":", i ? "," : "", i);
				rand_value(bs[i], schema->children[i].type, &json, schema->children[i].nullable);
			}
			dl_buf_puts(&json, "}\n");
		}
		dl_batch *b = dl_batch_new(schema, rows);
		assert_non_null(b);
		for (int i = 0; i < ncols; i++) assert_int_equal(dl_builder_finish(&b->cols[i], bs[i]), 0);
		int rc = pq_writer_write(w, b);
		if (rc) fail_msg("write: %s", dl_error_last()->message);
		dl_batch_free(b);
	}
	assert_int_equal(pq_writer_close(w), 0);
	assert_int_equal(pq_writer_num_rows(w), rows * batches);

	char dir[] = "/tmp/dl_pqw_XXXXXX";
	assert_non_null(mkdtemp(dir));
	char pq[256], jl[256];
	snprintf(pq, sizeof pq, "%s/t.parquet", dir);
	snprintf(jl, sizeof jl, "%s/t.jsonl", dir);
	FILE *f = fopen(pq, "wb");
	fwrite(out.data, 1, out.len, f);
	fclose(f);
	f = fopen(jl, "wb");
	fwrite(json.data, 1, json.len, f);
	fclose(f);
	printf("seed %llu: %s\n", (unsigned long long)seed, cols.data);
	fflush(stdout);
	int rc = run_oracle(pq, jl, cols.data);
	if (rc != 0) fail_msg("seed %llu: DuckDB disagrees (files kept in %s), columns %s", (unsigned long long)seed, dir, cols.data);
	unlink(pq);
	unlink(jl);
	rmdir(dir);
	for (int i = 0; i < ncols; i++) dl_builder_free(bs[i]);
	pq_writer_free(w);
	dl_type_unref(schema);
	dl_buf_free(&cols);
	dl_buf_free(&json);
	dl_buf_free(&out);
}

static void test_random_schemas(void **state)
{
	(void)state;
	pq_writer_options opt = PQ_WRITER_OPTIONS_INIT;
	static const pq_codec codecs[] = {PQ_CODEC_ZSTD, PQ_CODEC_SNAPPY, PQ_CODEC_GZIP, PQ_CODEC_LZ4_RAW,
	                                  PQ_CODEC_UNCOMPRESSED, PQ_CODEC_BROTLI};
	for (uint64_t seed = 1; seed <= 30; seed++) round_trip(seed, codecs[seed % 6], 300, 2, &opt);
}

/* Small pages, small row groups and a tiny dictionary limit: many pages,
 * fallback to PLAIN mid-chunk, several row groups. */
static void test_small_limits(void **state)
{
	(void)state;
	pq_writer_options opt = PQ_WRITER_OPTIONS_INIT;
	opt.page_bytes = 512;
	opt.dict_bytes = 300;
	opt.row_group_rows = 700;
	for (uint64_t seed = 100; seed <= 105; seed++) round_trip(seed, PQ_CODEC_ZSTD, 500, 3, &opt);
	opt.dictionary = false;
	opt.row_group_rows = 0;
	opt.row_group_bytes = 4096;
	for (uint64_t seed = 200; seed <= 203; seed++) round_trip(seed, PQ_CODEC_SNAPPY, 400, 2, &opt);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_random_schemas),
		cmocka_unit_test(test_small_limits),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
