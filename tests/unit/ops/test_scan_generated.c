/* Partition pruning through generated partition columns: a filter on ts
 * prunes the partitions of day GENERATED ALWAYS AS (CAST(ts AS DATE)),
 * soundly (a file that may hold a matching row is kept, and the rows are
 * exactly the matching ones). Statistics are off so that only partition
 * values can prune. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include "ops_fixture.h"
#include "util/error.h"


static char *make_table(const char *name, const char *ddl, const char *part)
{
	char *uri = fx_table(g_dir, name);
	dl_create_options c = DL_CREATE_OPTIONS_INIT;
	c.schema_ddl = ddl;
	const char *parts[] = {part};
	c.partition_columns = parts;
	c.npartition_columns = 1;
	const char *keys[] = {"delta.dataSkippingNumIndexedCols"}, *vals[] = {"0"};
	c.property_keys = keys;
	c.property_values = vals;
	c.nproperties = 1;
	int64_t v;
	if (dl_create_table(&v, uri, &c) < 0) fail_msg("create: %s", dl_error_last()->message);
	return uri;
}

/* Scans with `filter`: the sorted ids and the files pruned by partitions. */
static void scan(const char *uri, const char *filter, const char *want_ids, size_t want_files,
                 size_t want_pruned)
{
	dl_snapshot *snap;
	assert_int_equal(dl_snapshot_open(&snap, uri, NULL), 0);
	dl_scan_options o = DL_SCAN_OPTIONS_INIT;
	o.filter = filter;
	const char *cols[] = {"id"};
	o.columns = cols;
	o.ncolumns = 1;
	dl_scan *sc;
	if (dl_scan_open(&sc, snap, &o) < 0) fail_msg("scan: %s", dl_error_last()->message);
	dl_scan_metrics m;
	dl_scan_get_metrics(&m, sc);
	if (m.files_pruned_partitions != want_pruned || dl_scan_file_count(sc) != want_files)
		fail_msg("'%s': %zu files, %zu pruned by partitions; expected %zu and %zu", filter,
		         dl_scan_file_count(sc), (size_t)m.files_pruned_partitions, want_files, want_pruned);
	assert_int_equal(m.files_pruned_stats, 0);
	dl_batch_stream *st;
	assert_int_equal(dl_scan_batches(&st, sc), 0);
	int64_t ids[64];
	int n = 0;
	dl_batch *b;
	while (dl_batch_stream_next(st, &b) == 0 && b) {
		for (int64_t r = 0; r < b->num_rows && n < 64; r++) ids[n++] = ((const int64_t *)b->cols[0]->values)[r];
		dl_batch_free(b);
	}
	for (int i = 1; i < n; i++)
		for (int j = i; j > 0 && ids[j - 1] > ids[j]; j--) {
			int64_t t = ids[j];
			ids[j] = ids[j - 1];
			ids[j - 1] = t;
		}
	dl_buf got = DL_BUF_INIT;
	dl_buf_puts(&got, "");
	for (int i = 0; i < n; i++) dl_buf_printf(&got, "%s%lld", i ? "," : "", (long long)ids[i]);
	assert_string_equal(got.data, want_ids);
	dl_buf_free(&got);
	dl_batch_stream_free(st);
	dl_scan_free(sc);
	dl_snapshot_free(snap);
}

static void cast_to_date(void **state)
{
	(void)state;
	char *uri = make_table("by_day", "id BIGINT, ts TIMESTAMP, day DATE GENERATED ALWAYS AS "
	                                 "(CAST(ts AS DATE))", "day");
	dl_write_options o = fx_opts(DL_WRITE_APPEND);
	int64_t v;
	/* four days, one file each (day is computed by the writer) */
	assert_int_equal(fx_write(&v, uri, "id BIGINT, ts TIMESTAMP",
	                          "1,2024-01-01 10:00:00;2,2024-01-01 23:59:59;"
	                          "3,2024-01-02 00:00:00;4,2024-01-02 18:30:00;"
	                          "5,2024-01-03 12:00:00;6,2024-01-04 08:00:00", &o), 0);
	assert_int_equal(fx_count_parquet(uri), 4);
	/* a range inside one day: the other three days are pruned */
	scan(uri, "ts >= '2024-01-02 00:00:00' AND ts < '2024-01-02 12:00:00'", "3", 1, 3);
	/* a bound at a day's end keeps the next day (CAST is not injective:
	 * ts < '2024-01-03 00:00' only gives day <= 2024-01-03) */
	scan(uri, "ts >= '2024-01-02 00:00:00' AND ts < '2024-01-03 00:00:00'", "3,4", 2, 2);
	scan(uri, "ts > '2024-01-03 00:00:00'", "5,6", 2, 2);
	scan(uri, "ts = '2024-01-01 23:59:59'", "2", 1, 3);
	scan(uri, "ts IN ('2024-01-01 10:00:00', '2024-01-04 08:00:00')", "1,6", 2, 2);
	/* what the rules cannot use prunes nothing, and still filters rows */
	scan(uri, "ts >= '2024-01-02 00:00:00' OR id = 1", "1,3,4,5,6", 4, 0);
	scan(uri, "hour(ts) = 12", "5", 4, 0);
	/* conjuncts on the partition column itself still prune */
	scan(uri, "day = DATE'2024-01-04' AND ts > '2024-01-01 00:00:00'", "6", 1, 3);
	dl_free(uri);
}

static void year_partition(void **state)
{
	(void)state;
	char *uri = make_table("by_year", "id BIGINT, d DATE, y INT GENERATED ALWAYS AS (year(d))", "y");
	dl_write_options o = fx_opts(DL_WRITE_APPEND);
	int64_t v;
	assert_int_equal(fx_write(&v, uri, "id BIGINT, d DATE",
	                          "1,2022-12-31;2,2023-01-01;3,2023-06-30;4,2024-02-29", &o), 0);
	scan(uri, "d >= '2023-01-01' AND d <= '2023-12-31'", "2,3", 1, 2);
	/* d < 2023-01-01 only gives y <= 2023 */
	scan(uri, "d < '2023-01-01'", "1", 2, 1);
	scan(uri, "d <= '2022-12-31'", "1", 1, 2);
	scan(uri, "d > '2023-12-31'", "4", 2, 1); /* y >= 2023 */
	dl_free(uri);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(cast_to_date),
		cmocka_unit_test(year_partition),
	};
	return cmocka_run_group_tests(tests, fx_setup_tmpdir, fx_teardown_tmpdir);
}
