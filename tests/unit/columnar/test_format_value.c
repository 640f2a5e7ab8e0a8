#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <math.h>
#include <string.h>
#include "columnar/format_value.h"
#include "columnar/variant_json.h"
#include "util/error.h"
#include "sample.h"

static void numbers(void **state)
{
	(void)state;
	char b[DL_NUMBER_TEXT_MAX];
	struct { dl_i128 v; int s; const char *want; } dec[] = {
		{12345, 2, "123.45"}, {-5, 2, "-0.05"}, {0, 0, "0"}, {0, 3, "0.000"}, {-7, 0, "-7"}, {100, 1, "10.0"},
	};
	for (size_t i = 0; i < sizeof dec / sizeof *dec; i++) {
		dl_format_decimal(b, dec[i].v, dec[i].s);
		assert_string_equal(b, dec[i].want);
	}
	dl_i128 max38 = 0;
	for (int i = 0; i < 38; i++) max38 = max38 * 10 + 9;
	dl_format_decimal(b, -max38, 38);
	assert_string_equal(b, "-0.99999999999999999999999999999999999999");
	struct { double v; const char *want; } dbl[] = {
		{1.0, "1.0"}, {0.1, "0.1"}, {-2.5, "-2.5"}, {1e20, "1e+20"}, {1e-7, "1e-07"}, {123456.789, "123456.789"},
		{1e15, "1000000000000000.0"}, {1e16, "1e+16"}, {0.0001, "0.0001"}, {-0.0, "-0.0"}, {NAN, "NaN"},
		{-INFINITY, "-Infinity"}, {0.30000000000000004, "0.30000000000000004"}, {5e-324, "5e-324"},
	};
	for (size_t i = 0; i < sizeof dbl / sizeof *dbl; i++) {
		dl_format_double(b, dbl[i].v);
		assert_string_equal(b, dbl[i].want);
	}
	dl_format_float(b, 0.1f);
	assert_string_equal(b, "0.1");
	dl_format_float(b, 3.4028235e38f);
	assert_string_equal(b, "3.4028235e+38");
}

static void render_row(dl_batch *b, int64_t row, bool json, dl_buf *out)
{
	dl_buf_clear(out);
	for (int c = 0; c < b->ncols; c++) {
		if (c) dl_buf_puts(out, "|");
		assert_int_equal((json ? dl_format_value_json : dl_format_value)(out, b->cols[c], row), 0);
	}
}

static void cells_as_text_and_json(void **state)
{
	(void)state;
	dl_batch *b = sample_batch(4);
	dl_buf out = DL_BUF_INIT;
	render_row(b, 1, false, &out);
	assert_string_equal(out.data,
	                    "false|-99|NULL|1|9999999995|1.5|NULL|122.46|str1\xc3\xa9|X'01'|NULL|"
	                    "2020-09-13 12:26:41.000001|1969-12-31 00:00:00.000001|{x: 1, y: yy}|NULL|{k0=[1.5]}|"
	                    "[{k: a, v: {0=v}}, {k: b, v: {1=v}}]|1|NULL");
	render_row(b, 1, true, &out);
	assert_string_equal(out.data,
	                    "false|-99|null|1|9999999995|1.5|null|122.46|\"str1\xc3\xa9\"|\"AQ==\"|null|"
	                    "\"2020-09-13 12:26:41.000001\"|\"1969-12-31 00:00:00.000001\"|{\"x\":1,\"y\":\"yy\"}|null|"
	                    "{\"k0\":[1.5]}|[{\"k\":\"a\",\"v\":{\"0\":\"v\"}},{\"k\":\"b\",\"v\":{\"1\":\"v\"}}]|1|null");
	render_row(b, 2, false, &out);
	assert_string_equal(out.data,
	                    "true|NULL|-1400|2|19999999995|NULL|-0.5|245.91|str2\xc3\xa9|NULL|2019-04-16|"
	                    "2020-09-13 12:26:42.000002|1969-12-31 00:00:00.000002|NULL|[2, NULL]|{k0=[3.0], k1=NULL}|"
	                    "[{k: a, v: {0=v}}, {k: b, v: {1=v}}]|NULL|NULL");
	render_row(b, 0, false, &out);
	assert_string_equal(out.data,
	                    "true|-100|0|0|-5|0.5|-0.0|NULL|str0\xc3\xa9|X''|2019-04-14|NULL|1969-12-31 00:00:00|"
	                    "{x: 0, y: NULL}|[]|NULL|[{k: a, v: {0=v}}, {k: b, v: {1=v}}]|0|NULL");
	assert_int_equal(dl_format_value(&out, b->cols[0], 4), DL_EINVALID);
	/* integer extremes */
	dl_type *i64 = dl_type_new(DL_TYPE_LONG);
	dl_builder *ib;
	assert_int_equal(dl_builder_new(&ib, i64), 0);
	int64_t ext[] = {INT64_MIN, INT64_MAX, 0, -1, 10};
	assert_int_equal(dl_builder_append_fixed(ib, ext, 5, NULL, 0), 0);
	dl_array *ia;
	assert_int_equal(dl_builder_finish(&ia, ib), 0);
	dl_buf_clear(&out);
	for (int i = 0; i < 5; i++) {
		dl_format_value(&out, ia, i);
		dl_buf_putc(&out, ' ');
	}
	assert_string_equal(out.data, "-9223372036854775808 9223372036854775807 0 -1 10 ");
	dl_array_free(ia);
	dl_builder_free(ib);
	dl_type_unref(i64);
	dl_buf_free(&out);
	dl_batch_free(b);
}

static void csv_quoting(void **state)
{
	(void)state;
	dl_buf out = DL_BUF_INIT;
	assert_int_equal(dl_format_csv_field(&out, "plain", 5, ','), 0);
	dl_buf_putc(&out, ' ');
	dl_format_csv_field(&out, "a,b", 3, ',');
	dl_buf_putc(&out, ' ');
	dl_format_csv_field(&out, "say \"hi\"", 8, ',');
	dl_buf_putc(&out, ' ');
	dl_format_csv_field(&out, "", 0, ',');
	dl_buf_putc(&out, ' ');
	dl_format_csv_field(&out, "l1\nl2", 5, ',');
	dl_buf_putc(&out, ' ');
	dl_format_csv_field(&out, "a,b", 3, '\t');
	assert_string_equal(out.data, "plain \"a,b\" \"say \"\"hi\"\"\" \"\" \"l1\nl2\" a,b");
	dl_buf_clear(&out);
	dl_batch *b = sample_batch(3);
	assert_int_equal(dl_format_value_csv(&out, b->cols[2], 1, ','), 0); /* null: nothing */
	assert_int_equal(out.len, 0);
	assert_int_equal(dl_format_value_csv(&out, b->cols[13], 1, ','), 0);
	assert_string_equal(out.data, "\"{x: 1, y: yy}\"");
	dl_batch_free(b);
	dl_buf_free(&out);
}

static void variants(void **state)
{
	(void)state;
	/* metadata: version 1, 1-byte offsets, dictionary ["a", "b"] */
	const uint8_t meta[] = {0x01, 2, 0, 1, 2, 'a', 'b'};
	/* {"a": 1 (int8), "b": [true, "x" (short string), 2.50 (decimal4 scale 2)]} */
	const uint8_t value[] = {
		0x02, 2, 0, 1, 0, 2, 17,          /* object: 2 fields, ids 0 1, offsets 0 2 17 */
		0x0C, 1,                          /* int8 1 */
		0x03, 3, 0, 1, 3, 9,              /* array of 3, offsets 0 1 3 9 */
		0x04,                             /* true */
		0x05, 'x',                        /* short string "x" */
		0x20, 2, 250, 0, 0, 0,            /* decimal4 scale 2: 2.50 */
		0x00, 0x00, 0x00,                 /* slack not referenced */
	};
	dl_buf out = DL_BUF_INIT;
	assert_int_equal(dl_variant_to_json(&out, value, sizeof value, meta, sizeof meta), 0);
	assert_string_equal(out.data, "{\"a\":1,\"b\":[true,\"x\",2.50]}");
	/* every truncation is caught */
	for (size_t n = 0; n < 24; n++) {
		dl_buf_clear(&out);
		int rc = dl_variant_to_json(&out, value, n, meta, sizeof meta);
		if (rc == 0) fail_msg("truncated variant of %zu bytes accepted", n);
		assert_int_equal(rc, DL_ECORRUPT);
	}
	for (size_t n = 0; n < sizeof meta; n++) {
		dl_buf_clear(&out);
		assert_int_equal(dl_variant_to_json(&out, value, sizeof value, meta, n), DL_ECORRUPT);
	}
	/* a field id outside the dictionary */
	uint8_t bad[sizeof value];
	memcpy(bad, value, sizeof value);
	bad[3] = 7;
	assert_int_equal(dl_variant_to_json(&out, bad, sizeof bad, meta, sizeof meta), DL_ECORRUPT);
	/* primitives: long string, date, timestamp, double NaN */
	const uint8_t s16[] = {16 << 2, 3, 0, 0, 0, 'a', '"', 'b'};
	const uint8_t date[] = {11 << 2, 1, 0, 0, 0};
	const uint8_t ts[] = {12 << 2, 0x40, 0x42, 0x0f, 0, 0, 0, 0, 0};
	const uint8_t empty_meta[] = {0x01, 0, 0};
	struct { const uint8_t *v; size_t n; const char *want; } prim[] = {
		{s16, sizeof s16, "\"a\\\"b\""}, {date, sizeof date, "\"1970-01-02\""},
		{ts, sizeof ts, "\"1970-01-01 00:00:01+00:00\""},
	};
	for (size_t i = 0; i < sizeof prim / sizeof *prim; i++) {
		dl_buf_clear(&out);
		assert_int_equal(dl_variant_to_json(&out, prim[i].v, prim[i].n, empty_meta, sizeof empty_meta), 0);
		assert_string_equal(out.data, prim[i].want);
	}
	dl_buf_free(&out);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(numbers),
		cmocka_unit_test(cells_as_text_and_json),
		cmocka_unit_test(csv_quoting),
		cmocka_unit_test(variants),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
