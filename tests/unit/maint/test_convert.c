/* dl_convert_to_delta: Spark's ConvertToDeltaCommand over directories of
 * Parquet files (made here by writing a Delta table and deleting its log).
 * Rows are identical before and after; partition directories checked
 * against PARTITIONED BY with Spark's errors; __HIVE_DEFAULT_PARTITION__
 * reads back as NULL; hidden files skipped; schemas merged, conflicting
 * ones refused; stats from the footers unless NO STATISTICS; a Delta
 * table is left alone; a failure leaves the directory as it was. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include "restore_fixture.h"
#include "maint/convert_internal.h"

#define DDL "id BIGINT, name STRING, p INT"

/* A Parquet directory: a Delta table's data files without its log. */
static char *parquet_dir(const char *name, const char *part, const char *rows)
{
	char *uri = fx_table(g_dir, name);
	dx_create(uri, DDL, part, NULL, 0);
	dx_append(uri, DDL, rows);
	mx_sh("rm -rf '%s/_delta_log'%s", uri, "");
	return uri;
}

static void test_convert_plain(void **state)
{
	(void)state;
	char *dir = parquet_dir("plain", NULL, "1,a,1;2,b,1;3,NULL,2");
	mx_sh("touch '%s/_SUCCESS' '%s/.hidden'", dir, dir);
	mx_sh("mkdir -p '%s/_tmp' && echo junk > '%s/_tmp/part-x.parquet'", dir, dir);
	dl_convert_metrics m;
	dl_convert_options o = DL_CONVERT_OPTIONS_INIT;
	o.threads = 2;
	assert_int_equal(dl_convert_to_delta(&m, dir, &o), 0);
	assert_int_equal(m.version, 0);
	assert_int_equal(m.numConvertedFiles, 1);
	dx_rows(dir, "id,name,p", "1,a,1;2,b,1;3,NULL,2");
	dx_commit_has(dir, 0, "\"operation\":\"CONVERT\"");
	dx_commit_has(dir, 0, "\"numFiles\":1");
	dx_commit_has(dir, 0, "\"partitionedBy\":\"[]\"");
	dx_commit_has(dir, 0, "\"collectStats\":true");
	dx_commit_has(dir, 0, "\"numConvertedFiles\":\"1\"");
	dx_commit_has(dir, 0, "\\\"numRecords\\\":3");
	dx_commit_has(dir, 0, "\\\"minValues\\\":{\\\"id\\\":1,\\\"name\\\":\\\"a\\\",\\\"p\\\":1}");
	dx_commit_has(dir, 0, "\\\"nullCount\\\":{\\\"id\\\":0,\\\"name\\\":1,\\\"p\\\":0}");
	dx_commit_has(dir, 0, "{\"protocol\":{\"minReaderVersion\":1,\"minWriterVersion\":2}}");
	/* a Delta table already: nothing (version -1) */
	assert_int_equal(dl_convert_to_delta(&m, dir, NULL), 0);
	assert_int_equal(m.version, -1);
	assert_int_equal(fx_version(dir), 0);
	dl_free(dir);
}

static void test_convert_partitioned(void **state)
{
	(void)state;
	char *dir = parquet_dir("part", "p", "1,a,1;2,b,1;3,c,2;4,d,NULL");
	dl_convert_options o = DL_CONVERT_OPTIONS_INIT;
	o.partition_schema_ddl = "p INT";
	dl_convert_metrics m;
	assert_int_equal(dl_convert_to_delta(&m, dir, &o), 0);
	assert_int_equal(m.numConvertedFiles, 3);
	dx_rows(dir, "id,p", "1,1;2,1;3,2;4,NULL");
	dx_commit_has(dir, 0, "\"partitionedBy\":\"[\\\"p\\\"]\"");
	dx_commit_has(dir, 0, "\"partitionValues\":{\"p\":null}");
	dx_commit_has(dir, 0, "\"partitionColumns\":[\"p\"]");
	/* pruning works on the converted partitions */
	dl_free(dir);
}

static void test_partition_errors(void **state)
{
	(void)state;
	char *dir = parquet_dir("perr", "p", "1,a,1;3,c,2");
	char *before = dx_tree(dir);
	dl_convert_options o = DL_CONVERT_OPTIONS_INIT;
	dl_convert_metrics m;
	o.partition_schema_ddl = "q INT";
	mx_fails(dl_convert_to_delta(&m, dir, &o), DL_EINVALID, "DELTA_UNEXPECTED_PARTITION_COLUMN_FROM_FILE_NAME");
	assert_non_null(strstr(dl_error_last()->message, "Expecting partition column q, but found partition column p"));
	o.partition_schema_ddl = "p INT, q INT";
	mx_fails(dl_convert_to_delta(&m, dir, &o), DL_EINVALID, "DELTA_UNEXPECTED_NUM_PARTITION_COLUMNS_FROM_FILE_NAME");
	o.partition_schema_ddl = "p DATE";
	mx_fails(dl_convert_to_delta(&m, dir, &o), DL_EINVALID, "DELTA_FAILED_CAST_PARTITION_VALUE");
	assert_non_null(strstr(dl_error_last()->message, "Failed to cast partition value `1` to DATE"));
	o.partition_schema_ddl = "p INT,";
	assert_true(dl_convert_to_delta(&m, dir, &o) < 0);
	assert_int_equal(m.version, -1);
	char *after = dx_tree(dir);
	assert_string_equal(before, after);
	free(before);
	free(after);
	dl_free(dir);
}

static void test_schema_merge(void **state)
{
	(void)state;
	/* a file with an extra column: merged, older rows NULL in it */
	char *a = parquet_dir("merge_a", NULL, "1,a,1");
	char *b = fx_table(g_dir, "merge_b");
	dx_create(b, "id BIGINT, extra DOUBLE", NULL, NULL, 0);
	dx_append(b, "id BIGINT, extra DOUBLE", "2,2.5");
	mx_sh("cp '%s'/*.parquet '%s/'", b, a);
	dl_convert_metrics m;
	assert_int_equal(dl_convert_to_delta(&m, a, NULL), 0);
	assert_int_equal(m.numConvertedFiles, 2);
	dx_rows(a, "id,name,p,extra", "1,a,1,NULL;2,NULL,NULL,2.5");
	/* the same column with two types */
	char *c = parquet_dir("merge_c", NULL, "1,a,1");
	char *d = fx_table(g_dir, "merge_d");
	dx_create(d, "id STRING", NULL, NULL, 0);
	dx_append(d, "id STRING", "x");
	mx_sh("cp '%s'/*.parquet '%s/'", d, c);
	char *before = dx_tree(c);
	mx_fails(dl_convert_to_delta(&m, c, NULL), DL_ESCHEMA, "CANNOT_MERGE_INCOMPATIBLE_DATA_TYPE");
	char *after = dx_tree(c);
	assert_string_equal(before, after);
	free(before);
	free(after);
	dl_free(a);
	dl_free(b);
	dl_free(c);
	dl_free(d);
}

static void test_no_statistics_and_empty(void **state)
{
	(void)state;
	char *dir = parquet_dir("nostats", NULL, "1,a,1");
	dl_convert_options o = DL_CONVERT_OPTIONS_INIT;
	o.no_statistics = true;
	dl_convert_metrics m;
	assert_int_equal(dl_convert_to_delta(&m, dir, &o), 0);
	dx_commit_lacks(dir, 0, "\"stats\"");
	dx_commit_has(dir, 0, "\"collectStats\":false");
	dx_rows(dir, "id", "1");
	char *empty = fx_table(g_dir, "empty");
	mx_sh("mkdir -p '%s/_hidden'%s", empty, "");
	mx_fails(dl_convert_to_delta(&m, empty, NULL), DL_ENOTFOUND, "DELTA_EMPTY_DIRECTORY");
	/* a file that is not Parquet */
	mx_sh("echo hello > '%s/data.parquet'%s", empty, "");
	assert_true(dl_convert_to_delta(&m, empty, NULL) < 0);
	assert_non_null(strstr(dl_error_last()->message, "data.parquet"));
	assert_int_equal(fx_version(empty), -1);
	dl_free(empty);
	dl_free(dir);
}

static void shf(const char *fmt, ...)
{
	char cmd[2048];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(cmd, sizeof cmd, fmt, ap);
	va_end(ap);
	assert_int_equal(system(cmd), 0);
}

static bool skip_none(const char *rel) { (void)rel; return false; }
static bool skip_underscore(const char *rel)
{
	const char *last = strrchr(rel, '/');
	return (last ? last[1] : rel[0]) == '_';
}

/* The parallel listing (convert_list.c) lists exactly what the store's
 * recursive listing lists, in the same order, over nested directories,
 * temp files and a symlinked directory (not followed); skipped directories
 * are never entered; a missing root is DL_ENOTFOUND. */
static void test_parallel_listing(void **state)
{
	(void)state;
	char *dir = fx_table(g_dir, "listing");
	shf("mkdir -p '%s/a=1/b=x' '%s/a=1/b=y' '%s/a=2/b=x/deep' '%s/_skip/z' '%s/e'", dir, dir, dir, dir, dir);
	for (int i = 0; i < 40; i++) shf("echo %d > '%s/a=1/b=x/f%02d.parquet'", i, dir, i);
	shf("echo 1 > '%s/root.parquet'; echo 2 > '%s/a=2/b=x/deep/g.parquet'", dir, dir);
	shf("echo 3 > '%s/_skip/z/h.parquet'; echo 4 > '%s/a=1/b=y/.tmp.0123456789abcdef'", dir, dir);
	shf("ln -s '%s/a=1' '%s/link'", dir, dir);
	dl_store *s;
	assert_int_equal(dl_store_open(&s, dir, NULL), 0);
	dl_object_list want, got;
	assert_int_equal(dl_store_list_recursive(&want, s, ""), 0);
	dl_pool *pool;
	assert_int_equal(dl_pool_create(&pool, 3), 0);
	assert_int_equal(dl_convert_list(&got, s, pool, skip_none), 0);
	assert_int_equal(got.count, want.count);
	assert_true(got.count >= 43); /* 43 data files, whatever the store makes of the dot file */
	for (size_t i = 0; i < got.count; i++) {
		assert_string_equal(got.items[i].path, want.items[i].path);
		assert_int_equal(got.items[i].size, want.items[i].size);
		assert_int_equal(got.items[i].mtime_ms, want.items[i].mtime_ms);
	}
	dl_object_list_free(&got);
	assert_int_equal(dl_convert_list(&got, s, pool, skip_underscore), 0);
	assert_int_equal(got.count, want.count - 1);
	for (size_t i = 0; i < got.count; i++) assert_null(strstr(got.items[i].path, "_skip"));
	dl_object_list_free(&got);
	dl_object_list_free(&want);
	dl_store_free(s);
	char *missing = fx_table(g_dir, "no_such_dir");
	assert_int_equal(dl_store_open(&s, missing, NULL), 0);
	assert_int_equal(dl_convert_list(&got, s, NULL, skip_none), DL_ENOTFOUND);
	dl_store_free(s);
	dl_pool_free(pool);
	dl_free(missing);
	dl_free(dir);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_convert_plain),
		cmocka_unit_test(test_convert_partitioned),
		cmocka_unit_test(test_partition_errors),
		cmocka_unit_test(test_schema_merge),
		cmocka_unit_test(test_no_statistics_and_empty),
		cmocka_unit_test(test_parallel_listing),
	};
	return cmocka_run_group_tests(tests, fx_setup_tmpdir, fx_teardown_tmpdir);
}
