/* File statistics: typed values from the stats JSON, and the skipping
 * adapter (partition values, column mapping, wide bounds). */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <string.h>
#include "log/schema.h"
#include "log/stats.h"
#include "util/error.h"

static void typed_values(void **state)
{
	(void)state;
	const char *js = "{\"numRecords\":10,\"minValues\":{\"l\":-5,\"d\":1.5,\"s\":\"abc\","
	                 "\"dt\":\"2021-01-01\",\"ts\":\"2021-09-08T11:11:11.123Z\",\"dec\":12.50,"
	                 "\"n\":{\"x\":3}},\"maxValues\":{\"l\":99,\"s\":\"0123456789012345678901234567890123\","
	                 "\"ts\":\"2021-09-08T11:11:11.123Z\",\"n\":{\"x\":7}},"
	                 "\"nullCount\":{\"l\":0,\"s\":4,\"n\":{\"x\":10}}}";
	dl_arena a = DL_ARENA_INIT;
	dl_file_stats s;
	assert_int_equal(dl_file_stats_parse(&s, &a, js, strlen(js)), 0);
	assert_int_equal(s.num_records, 10);
	assert_true(s.tight_bounds);
	dl_col_stats c;
	dl_type *l = dl_type_new(DL_TYPE_LONG), *str = dl_type_new(DL_TYPE_STRING);
	dl_type *ts = dl_type_new(DL_TYPE_TIMESTAMP), *dt = dl_type_new(DL_TYPE_DATE);
	dl_type *dec = dl_type_decimal(5, 2), *i = dl_type_new(DL_TYPE_INTEGER);
	const char *pl[] = {"l"}, *ps[] = {"s"}, *pts[] = {"ts"}, *pdt[] = {"dt"}, *pdec[] = {"dec"};
	const char *pnx[] = {"n", "x"}, *pmissing[] = {"zz"};
	assert_int_equal(dl_file_stats_column(&s, pl, 1, l, &c), 0);
	assert_true(c.has_min && c.has_max && c.has_null_count);
	assert_int_equal(c.min.v.i64, -5);
	assert_int_equal(c.max.v.i64, 99);
	assert_int_equal(c.null_count, 0);
	assert_int_equal(dl_file_stats_column(&s, ps, 1, str, &c), 0);
	assert_int_equal(c.min.v.str.len, 3);
	assert_true(c.max_is_prefix); /* 34 chars: may be truncated */
	assert_int_equal(c.null_count, 4);
	assert_int_equal(dl_file_stats_column(&s, pts, 1, ts, &c), 0);
	assert_int_equal(c.min.v.i64, 1631099471123000LL);
	assert_int_equal(c.max.v.i64, 1631099471123999LL);
	assert_int_equal(dl_file_stats_column(&s, pdt, 1, dt, &c), 0);
	assert_int_equal(c.min.v.i64, 18628);
	assert_false(c.has_max);
	assert_int_equal(dl_file_stats_column(&s, pdec, 1, dec, &c), 0);
	assert_true(c.min.v.dec == 1250);
	assert_int_equal(dl_file_stats_column(&s, pnx, 2, i, &c), 0);
	assert_int_equal(c.min.v.i64, 3);
	assert_int_equal(c.max.v.i64, 7);
	assert_int_equal(c.null_count, 10);
	assert_int_equal(dl_file_stats_column(&s, pmissing, 1, l, &c), 0);
	assert_false(c.has_min || c.has_max || c.has_null_count);

	/* wide bounds: only nullCount 0 or numRecords carry information */
	const char *wide = "{\"numRecords\":10,\"tightBounds\":false,\"nullCount\":{\"a\":3,\"b\":0,\"c\":10}}";
	assert_int_equal(dl_file_stats_parse(&s, &a, wide, strlen(wide)), 0);
	const char *pa[] = {"a"}, *pb[] = {"b"}, *pc[] = {"c"};
	assert_int_equal(dl_file_stats_column(&s, pa, 1, l, &c), 0);
	assert_false(c.has_null_count);
	assert_int_equal(dl_file_stats_column(&s, pb, 1, l, &c), 0);
	assert_true(c.has_null_count);
	assert_int_equal(dl_file_stats_column(&s, pc, 1, l, &c), 0);
	assert_int_equal(c.null_count, 10);
	assert_int_equal(dl_file_stats_parse(&s, &a, "{", 1), DL_ECORRUPT);
	assert_int_equal(dl_file_stats_parse(&s, &a, NULL, 0), 0);
	assert_int_equal(s.num_records, -1);
	dl_type_unref(l);
	dl_type_unref(str);
	dl_type_unref(ts);
	dl_type_unref(dt);
	dl_type_unref(dec);
	dl_type_unref(i);
	dl_arena_free(&a);
}

static void skipping_adapter(void **state)
{
	(void)state;
	const char *schema_json =
		"{\"type\":\"struct\",\"fields\":[{\"name\":\"Id\",\"type\":\"long\",\"nullable\":true,"
		"\"metadata\":{\"delta.columnMapping.id\":1,\"delta.columnMapping.physicalName\":\"col-a\"}},"
		"{\"name\":\"part\",\"type\":\"date\",\"nullable\":true,\"metadata\":"
		"{\"delta.columnMapping.id\":2,\"delta.columnMapping.physicalName\":\"col-p\"}},"
		"{\"name\":\"q\",\"type\":\"integer\",\"nullable\":true,\"metadata\":"
		"{\"delta.columnMapping.id\":3,\"delta.columnMapping.physicalName\":\"col-q\"}}]}";
	dl_type *schema;
	assert_int_equal(dl_schema_parse(&schema, schema_json, strlen(schema_json)), 0);
	dl_kv pv[] = {{"col-p", "2021-09-08"}, {"col-q", NULL}};
	dl_add add = {0};
	add.path = "f.parquet";
	add.partition_values.items = pv;
	add.partition_values.n = 2;
	add.stats = "{\"numRecords\":4,\"minValues\":{\"col-a\":1},\"maxValues\":{\"col-a\":9},"
	            "\"nullCount\":{\"col-a\":0}}";
	add.stats_len = (uint32_t)strlen(add.stats);
	const char *parts[] = {"part", "q"};
	dl_file_skipping fs = {0};
	dl_stats_provider p;
	assert_int_equal(dl_file_skipping_init(&fs, &p, schema, DL_CM_NAME, parts, 2, &add), 0);
	assert_int_equal(p.num_records, 4);
	dl_col_stats c;
	const char *pid[] = {"id"}, *ppart[] = {"PART"}, *pq[] = {"q"};
	assert_int_equal(p.column(p.payload, pid, 1, &c), 0);
	assert_true(c.has_min && c.has_max);
	assert_int_equal(c.min.v.i64, 1);
	assert_int_equal(c.max.v.i64, 9);
	assert_int_equal(p.column(p.payload, ppart, 1, &c), 0);
	assert_true(c.has_min && c.has_max);
	assert_int_equal(c.min.v.i64, 18878);
	assert_int_equal(c.null_count, 0);
	assert_int_equal(p.column(p.payload, pq, 1, &c), 0);
	assert_true(c.all_null);
	assert_int_equal(c.null_count, 4);
	/* reuse for a file with broken stats: treated as no stats */
	add.stats = "{broken";
	add.stats_len = 7;
	assert_int_equal(dl_file_skipping_init(&fs, &p, schema, DL_CM_NAME, parts, 2, &add), 0);
	assert_int_equal(p.num_records, -1);
	assert_int_equal(p.column(p.payload, pid, 1, &c), 0);
	assert_false(c.has_min);
	dl_file_skipping_free(&fs);
	dl_type_unref(schema);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(typed_values),
		cmocka_unit_test(skipping_adapter),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
