/* The Delta table source: projection and filter pushed into the scan
 * (files pruned by statistics), time travel by version, and operators on
 * top of it. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>
#include "exec_test_util.h"
#include "table/scan.h"
#include "unit/table/table_fixture.h"

static void add_line(char *out, size_t cap, const char *path, int64_t size, int lo, int hi)
{
	snprintf(out, cap,
	         "{\"add\":{\"path\":\"%s\",\"partitionValues\":{},\"size\":%lld,\"modificationTime\":1,\"dataChange\":true,"
	         "\"stats\":\"{\\\"numRecords\\\":10,\\\"minValues\\\":{\\\"id\\\":%d},\\\"maxValues\\\":{\\\"id\\\":%d},"
	         "\\\"nullCount\\\":{\\\"id\\\":0}}\"}}",
	         path, (long long)size, lo, hi);
}

/* version 0: ids 0..9; version 1 adds ids 10..19 */
static void make_table(fixture *f)
{
	assert_int_equal(fixture_open(f), 0);
	int64_t a[10], b[10], s1, s2;
	for (int i = 0; i < 10; i++) a[i] = i, b[i] = 10 + i;
	assert_int_equal(fixture_parquet(f, "a.parquet", fixture_batch("id", a, 10, true, DL_TYPE_LONG), &s1), 0);
	assert_int_equal(fixture_parquet(f, "b.parquet", fixture_batch("id", b, 10, true, DL_TYPE_LONG), &s2), 0);
	char add1[1024], add2[1024];
	add_line(add1, sizeof add1, "a.parquet", s1, 0, 9);
	add_line(add2, sizeof add2, "b.parquet", s2, 10, 19);
	const char *v0[] = {
		"{\"commitInfo\":{\"timestamp\":1000,\"operation\":\"WRITE\",\"operationParameters\":{\"mode\":\"Append\"}}}",
		"{\"protocol\":{\"minReaderVersion\":1,\"minWriterVersion\":2}}",
		"{\"metaData\":{\"id\":\"t1\",\"format\":{\"provider\":\"parquet\",\"options\":{}},\"schemaString\":"
		"\"{\\\"type\\\":\\\"struct\\\",\\\"fields\\\":[{\\\"name\\\":\\\"id\\\",\\\"type\\\":\\\"long\\\",\\\"nullable\\\":true,"
		"\\\"metadata\\\":{}},{\\\"name\\\":\\\"name\\\",\\\"type\\\":\\\"string\\\",\\\"nullable\\\":true,\\\"metadata\\\":{}}]}\","
		"\"partitionColumns\":[],\"configuration\":{},\"createdTime\":1}}",
		add1};
	assert_int_equal(fixture_commit(f, 0, v0, 4), 0);
	const char *v1[] = {
		"{\"commitInfo\":{\"timestamp\":2000,\"operation\":\"WRITE\",\"operationParameters\":{\"mode\":\"Append\"}}}", add2};
	assert_int_equal(fixture_commit(f, 1, v1, 2), 0);
}

static void pushdown_and_time_travel(void **st)
{
	(void)st;
	fixture f;
	make_table(&f);
	dl_batch_stream *s;
	const char *cols[] = {"name"};
	dl_scan_options so = DL_SCAN_OPTIONS_INIT;
	so.columns = cols;
	so.ncolumns = 1;
	so.filter = "id >= 8 AND id < 12";
	assert_int_equal(dl_exec_scan(&s, f.dir, NULL, &so), 0);
	assert_int_equal(dl_batch_stream_schema(s)->nchildren, 1);
	tu_expect(s, false, "n8", "n9", "n10", "n11");
	/* version 0 has only the first file */
	dl_snapshot_options sn = DL_SNAPSHOT_OPTIONS_INIT;
	sn.as_of_version = 0;
	assert_int_equal(dl_exec_scan(&s, f.dir, &sn, &so), 0);
	tu_expect(s, false, "n8", "n9");
	/* an aggregate over the scan */
	assert_int_equal(dl_exec_scan(&s, f.dir, NULL, NULL), 0);
	dl_exec_agg aggs[] = {{.kind = DL_AGG_COUNT_STAR, .arg = NULL, .name = "n"}, {.kind = DL_AGG_SUM, .arg = tu_expr("id"), .name = "s"}};
	dl_expr *keys[] = {tu_expr("id % 2")};
	dl_batch_stream *g;
	if (dl_exec_aggregate(&g, s, keys, NULL, 1, aggs, 2, NULL) < 0) fail_msg("%s", dl_error_last()->message);
	tu_expect(g, false, "0|10|90", "1|10|100");
	/* over a snapshot the caller holds */
	dl_snapshot *snap;
	sn.as_of_version = 0;
	assert_int_equal(dl_snapshot_open(&snap, f.dir, &sn), 0);
	assert_int_equal(dl_exec_scan_snapshot(&s, snap, &so), 0);
	tu_expect(s, false, "n8", "n9");
	so.filter = "no_such_column = 1";
	assert_int_equal(dl_exec_scan_snapshot(&s, snap, &so), DL_EINVALID);
	assert_null(s);
	dl_snapshot_free(snap);
	sn.as_of_version = 7;
	assert_int_equal(dl_exec_scan(&s, f.dir, &sn, NULL), DL_ENOTFOUND);
	assert_null(s);
	fixture_close(&f);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(pushdown_and_time_travel),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
