/* dl_stats_summary (deltalake/stats_summary.h): statistics coverage per
 * leaf column (nested fields, column mapping's physical names, files
 * without stats, partial stats) and the overlap depth of file ranges
 * (numbers, strings, point ranges, reversed bounds ignored), on tables
 * whose commits are written by hand; a stats text that is not JSON is
 * DL_ECORRUPT naming the file. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include "table/scan.h"
#include "table_fixture.h"
#include "util/error.h"

#define PROTO "{\"protocol\":{\"minReaderVersion\":1,\"minWriterVersion\":2}}"
#define META(schema, conf)                                                                      \
	"{\"metaData\":{\"id\":\"t\",\"format\":{\"provider\":\"parquet\",\"options\":{}},"       \
	"\"schemaString\":\"" schema "\",\"partitionColumns\":[],\"configuration\":{" conf "}}}"
#define ADD(path, stats)                                                                        \
	"{\"add\":{\"path\":\"" path "\",\"partitionValues\":{},\"size\":10,\"modificationTime\":1," \
	"\"dataChange\":true" stats "}}"

static dl_snapshot *open_table(fixture *f)
{
	dl_snapshot *snap = NULL;
	assert_int_equal(dl_snapshot_open(&snap, f->dir, NULL), 0);
	return snap;
}

static void coverage_and_nested(void **state)
{
	(void)state;
	fixture f;
	assert_int_equal(fixture_open(&f), 0);
	const char *lines[] = {
		PROTO,
		META("{\\\"type\\\":\\\"struct\\\",\\\"fields\\\":["
		     "{\\\"name\\\":\\\"id\\\",\\\"type\\\":\\\"long\\\",\\\"nullable\\\":true,\\\"metadata\\\":{}},"
		     "{\\\"name\\\":\\\"s\\\",\\\"type\\\":{\\\"type\\\":\\\"struct\\\",\\\"fields\\\":["
		     "{\\\"name\\\":\\\"a\\\",\\\"type\\\":\\\"string\\\",\\\"nullable\\\":true,\\\"metadata\\\":{}}]},"
		     "\\\"nullable\\\":true,\\\"metadata\\\":{}},"
		     "{\\\"name\\\":\\\"xs\\\",\\\"type\\\":{\\\"type\\\":\\\"array\\\",\\\"elementType\\\":\\\"long\\\","
		     "\\\"containsNull\\\":true},\\\"nullable\\\":true,\\\"metadata\\\":{}}]}",
		     ""),
		/* id in [0, 10], s.a in ["a", "c"] */
		ADD("f1", ",\"stats\":\"{\\\"numRecords\\\":3,\\\"minValues\\\":{\\\"id\\\":0,\\\"s\\\":{\\\"a\\\":\\\"a\\\"}},"
		          "\\\"maxValues\\\":{\\\"id\\\":10,\\\"s\\\":{\\\"a\\\":\\\"c\\\"}},\\\"nullCount\\\":{\\\"id\\\":0,"
		          "\\\"s\\\":{\\\"a\\\":1},\\\"xs\\\":0}}\""),
		/* id in [5, 15]; no string stats */
		ADD("f2", ",\"stats\":\"{\\\"numRecords\\\":2,\\\"minValues\\\":{\\\"id\\\":5},\\\"maxValues\\\":{\\\"id\\\":15},"
		          "\\\"nullCount\\\":{\\\"id\\\":0}}\""),
		/* id a point at 10; s.a in ["b", "b"] */
		ADD("f3", ",\"stats\":\"{\\\"numRecords\\\":1,\\\"minValues\\\":{\\\"id\\\":10,\\\"s\\\":{\\\"a\\\":\\\"b\\\"}},"
		          "\\\"maxValues\\\":{\\\"id\\\":10,\\\"s\\\":{\\\"a\\\":\\\"b\\\"}}}\""),
		/* reversed bounds: counted as covered, left out of the overlap */
		ADD("f4", ",\"stats\":\"{\\\"numRecords\\\":1,\\\"minValues\\\":{\\\"id\\\":30},\\\"maxValues\\\":{\\\"id\\\":20}}\""),
		ADD("f5", ""), /* no stats at all */
	};
	assert_int_equal(fixture_commit(&f, 0, lines, 7), 0);
	dl_snapshot *snap = open_table(&f);
	dl_stats_summary *s;
	assert_int_equal(dl_stats_summary_open(&s, snap), 0);
	assert_int_equal(dl_stats_summary_file_count(s), 5);
	assert_int_equal(dl_stats_summary_files_with_stats(s), 4);
	/* the array column has no min/max: two leaves */
	assert_int_equal(dl_stats_summary_column_count(s), 2);
	dl_stats_column c;
	assert_int_equal(dl_stats_summary_column_at(&c, s, 0), 0);
	assert_string_equal(c.column, "id");
	assert_string_equal(c.type, "long");
	assert_int_equal(c.files_with_min, 4);
	assert_int_equal(c.files_with_max, 4);
	assert_int_equal(c.files_with_null_count, 2);
	assert_int_equal(dl_stats_summary_column_at(&c, s, 1), 0);
	assert_string_equal(c.column, "s.a");
	assert_string_equal(c.physical, "s.a");
	assert_int_equal(c.files_with_min, 2);
	assert_int_equal(c.files_with_null_count, 1);
	assert_int_equal(dl_stats_summary_column_at(&c, s, 2), DL_EINVALID);
	size_t idx;
	assert_int_equal(dl_stats_summary_find(&idx, s, "S.A"), 0);
	assert_int_equal(idx, 1);
	assert_int_equal(dl_stats_summary_find(&idx, s, "nope"), DL_ENOTFOUND);

	/* id: bounds 0, 5, 10, 15; pieces {0}:1 (0,5):1 {5}:2 (5,10):2 {10}:3
	 * (10,15):1 {15}:1 -> 7 pieces, depth sum 11, max 3. */
	dl_overlap_depth d;
	assert_int_equal(dl_stats_summary_overlap(&d, s, 0), 0);
	assert_int_equal(d.files, 3);
	assert_int_equal(d.pieces, 7);
	assert_int_equal(d.max_depth, 3);
	assert_true(d.average_depth > 11.0 / 7 - 1e-9 && d.average_depth < 11.0 / 7 + 1e-9);
	assert_int_equal(d.histogram[0], 4);
	assert_int_equal(d.histogram[1], 2);
	assert_int_equal(d.histogram[2], 1);
	/* s.a as text: ["a","c"] and the point "b": {a}:1 (a,b):1 {b}:2 (b,c):1 {c}:1 */
	assert_int_equal(dl_stats_summary_overlap(&d, s, 1), 0);
	assert_int_equal(d.files, 2);
	assert_int_equal(d.pieces, 5);
	assert_int_equal(d.max_depth, 2);
	assert_int_equal(dl_stats_summary_overlap(&d, s, 5), DL_EINVALID);
	dl_stats_summary_free(s);
	dl_snapshot_free(snap);
	fixture_close(&f);
}

static void column_mapping_and_corrupt(void **state)
{
	(void)state;
	fixture f;
	assert_int_equal(fixture_open(&f), 0);
	const char *lines[] = {
		"{\"protocol\":{\"minReaderVersion\":2,\"minWriterVersion\":5}}",
		META("{\\\"type\\\":\\\"struct\\\",\\\"fields\\\":[{\\\"name\\\":\\\"id\\\",\\\"type\\\":\\\"integer\\\","
		     "\\\"nullable\\\":true,\\\"metadata\\\":{\\\"delta.columnMapping.id\\\":1,"
		     "\\\"delta.columnMapping.physicalName\\\":\\\"col-1\\\"}}]}",
		     "\"delta.columnMapping.mode\":\"name\",\"delta.columnMapping.maxColumnId\":\"1\""),
		ADD("f1", ",\"stats\":\"{\\\"numRecords\\\":1,\\\"minValues\\\":{\\\"col-1\\\":1},\\\"maxValues\\\":{\\\"col-1\\\":2}}\""),
		/* keyed by the logical name: not the column's stats under mapping */
		ADD("f2", ",\"stats\":\"{\\\"numRecords\\\":1,\\\"minValues\\\":{\\\"id\\\":1}}\""),
	};
	assert_int_equal(fixture_commit(&f, 0, lines, 4), 0);
	dl_snapshot *snap = open_table(&f);
	dl_stats_summary *s;
	assert_int_equal(dl_stats_summary_open(&s, snap), 0);
	dl_stats_column c;
	assert_int_equal(dl_stats_summary_column_at(&c, s, 0), 0);
	assert_string_equal(c.column, "id");
	assert_string_equal(c.physical, "col-1");
	assert_int_equal(c.files_with_min, 1);
	dl_stats_summary_free(s);
	dl_snapshot_free(snap);

	const char *bad[] = {ADD("broken.parquet", ",\"stats\":\"{not json\"")};
	assert_int_equal(fixture_commit(&f, 1, bad, 1), 0);
	snap = open_table(&f);
	s = NULL;
	assert_int_equal(dl_stats_summary_open(&s, snap), DL_ECORRUPT);
	assert_null(s);
	assert_non_null(strstr(dl_error_last()->message, "broken.parquet"));
	dl_snapshot_free(snap);
	fixture_close(&f);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(coverage_and_nested),
		cmocka_unit_test(column_mapping_and_corrupt),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
