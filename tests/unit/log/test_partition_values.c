/* Partition values: parsing every type, serializing back, Hive paths. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <math.h>
#include <string.h>
#include "log/partition_values.h"
#include "util/error.h"

static dl_scalar parse_ok(dl_type_id id, const char *s)
{
	dl_type *t = dl_type_new(id);
	dl_scalar v;
	assert_int_equal(dl_partition_value_parse(&v, t, s), 0);
	dl_type_unref(t);
	return v;
}

static void round_trip(const dl_type *t, const char *s, const char *want)
{
	dl_scalar v;
	bool is_null;
	dl_buf b = DL_BUF_INIT;
	assert_int_equal(dl_partition_value_parse(&v, t, s), 0);
	assert_int_equal(dl_partition_value_format(&b, &v, &is_null), 0);
	assert_false(is_null);
	assert_string_equal(b.data, want);
	dl_buf_free(&b);
}

static void every_type(void **state)
{
	(void)state;
	assert_int_equal(parse_ok(DL_TYPE_LONG, "-9223372036854775808").v.i64, INT64_MIN);
	assert_int_equal(parse_ok(DL_TYPE_INTEGER, "42").v.i64, 42);
	assert_int_equal(parse_ok(DL_TYPE_BYTE, "-128").v.i64, -128);
	assert_true(parse_ok(DL_TYPE_BOOLEAN, "true").v.b);
	assert_false(parse_ok(DL_TYPE_BOOLEAN, "False").v.b);
	assert_int_equal(parse_ok(DL_TYPE_DATE, "1970-01-02").v.i64, 1);
	assert_int_equal(parse_ok(DL_TYPE_DATE, "2021-09-08").v.i64, 18878);
	/* both timestamp forms the protocol allows, as UTC */
	assert_int_equal(parse_ok(DL_TYPE_TIMESTAMP, "2021-09-08 11:11:11").v.i64, 1631099471000000LL);
	assert_int_equal(parse_ok(DL_TYPE_TIMESTAMP, "1970-01-01T00:00:00.123456Z").v.i64, 123456);
	assert_int_equal(parse_ok(DL_TYPE_TIMESTAMP_NTZ, "1970-01-01 00:00:01.5").v.i64, 1500000);
	assert_true(isnan(parse_ok(DL_TYPE_DOUBLE, "NaN").v.f64));
	assert_true(parse_ok(DL_TYPE_DOUBLE, "-Infinity").v.f64 < 0);
	assert_true(parse_ok(DL_TYPE_DOUBLE, "1.5").v.f64 == 1.5);
	dl_scalar s = parse_ok(DL_TYPE_STRING, "a b/c");
	assert_int_equal(s.v.str.len, 5);
	/* binary values are the string's bytes (the JSON escapes are gone) */
	s = parse_ok(DL_TYPE_BINARY, "\x01\x02\x03");
	assert_int_equal(s.v.str.len, 3);
	/* null: absent or empty for every type */
	assert_true(parse_ok(DL_TYPE_LONG, NULL).is_null);
	assert_true(parse_ok(DL_TYPE_STRING, "").is_null);
	assert_true(parse_ok(DL_TYPE_DATE, "").is_null);

	dl_type *dec = dl_type_decimal(10, 2);
	dl_scalar v;
	assert_int_equal(dl_partition_value_parse(&v, dec, "-123.4"), 0);
	assert_true(v.v.dec == -12340);
	assert_int_equal(dl_partition_value_parse(&v, dec, "5"), 0);
	assert_true(v.v.dec == 500);
	assert_int_equal(dl_partition_value_parse(&v, dec, "1.234"), DL_ECORRUPT);
	assert_int_equal(dl_partition_value_parse(&v, dec, "123456789.00"), DL_ECORRUPT);
	round_trip(dec, "-0.5", "-0.50");
	round_trip(dec, "12345678.99", "12345678.99");
	dl_type_unref(dec);

	dl_type *t = dl_type_new(DL_TYPE_INTEGER);
	assert_int_equal(dl_partition_value_parse(&v, t, "2147483648"), DL_ECORRUPT);
	assert_non_null(strstr(dl_error_last()->message, "'2147483648'"));
	assert_int_equal(dl_partition_value_parse(&v, t, "12x"), DL_ECORRUPT);
	round_trip(t, "-7", "-7");
	dl_type_unref(t);
	t = dl_type_new(DL_TYPE_DOUBLE);
	round_trip(t, "1.5", "1.5");
	round_trip(t, "3", "3.0");
	round_trip(t, "1e10", "1.0E10");
	round_trip(t, "0.0001", "1.0E-4");
	round_trip(t, "0.1", "0.1");
	round_trip(t, "123456.75", "123456.75");
	dl_type_unref(t);
	t = dl_type_new(DL_TYPE_TIMESTAMP);
	round_trip(t, "2021-09-08 11:11:11", "2021-09-08T11:11:11.000000Z");
	dl_type_unref(t);
	t = dl_type_new(DL_TYPE_TIMESTAMP_NTZ);
	round_trip(t, "2021-09-08 11:11:11.25", "2021-09-08 11:11:11.25");
	dl_type_unref(t);
	t = dl_type_new(DL_TYPE_DATE);
	round_trip(t, "2020-02-29", "2020-02-29");
	assert_int_equal(dl_partition_value_parse(&v, t, "2021-02-30"), DL_ECORRUPT);
	dl_type_unref(t);
	t = dl_type_new(DL_TYPE_BOOLEAN);
	round_trip(t, "TRUE", "true");
	assert_int_equal(dl_partition_value_parse(&v, t, "yes"), DL_ECORRUPT);
	dl_type_unref(t);
}

static void hive_paths(void **state)
{
	(void)state;
	dl_buf b = DL_BUF_INIT;
	const char *names[] = {"date", "a=b", "s"};
	const char *values[] = {"2021-09-08", NULL, "x/y:%#\x01 z"};
	assert_int_equal(dl_partition_dir(&b, names, values, 3), 0);
	assert_string_equal(b.data, "date=2021-09-08/a%3Db=__HIVE_DEFAULT_PARTITION__/s=x%2Fy%3A%25%23%01 z/");
	dl_buf_clear(&b);
	assert_int_equal(dl_partition_path_unescape(&b, "x%2Fy%3A%25%23%01 z%", 20), 0);
	assert_string_equal(b.data, "x/y:%#\x01 z%");
	dl_buf_free(&b);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(every_type),
		cmocka_unit_test(hive_paths),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
