/* Row groups skipped by Parquet Bloom filters: a file of 10 row groups
 * whose values are shuffled (every row group's min/max span the whole
 * range, so statistics prune nothing) written with Bloom filters on a long
 * and a string column. Point lookups of absent values skip row groups by
 * the filters; every present value is still found (no false negative);
 * the same scans of the file written without filters give the same rows
 * and skip nothing. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <cmocka.h>
#include "table/scan.h"
#include "table_fixture.h"
#include "util/error.h"

#define NROWS 10000
#define NRG 10

static const char *schema_json =
	"\"{\\\"type\\\":\\\"struct\\\",\\\"fields\\\":["
	"{\\\"name\\\":\\\"k\\\",\\\"type\\\":\\\"long\\\",\\\"nullable\\\":true,\\\"metadata\\\":{}},"
	"{\\\"name\\\":\\\"s\\\",\\\"type\\\":\\\"string\\\",\\\"nullable\\\":true,\\\"metadata\\\":{}}]}\"";

/* k of row i: 2 * a permutation of 0..NROWS-1 (7919 is prime to NROWS) */
static int64_t key_of(int64_t i)
{
	return 2 * ((i * 7919) % NROWS);
}

static void make_table(fixture *f, bool bloom)
{
	assert_int_equal(fixture_open(f), 0);
	dl_type *lt = dl_type_new(DL_TYPE_LONG), *st = dl_type_new(DL_TYPE_STRING);
	dl_field fs[2] = {{"k", lt, true, "{}"}, {"s", st, true, "{}"}};
	dl_type *schema = dl_type_struct(fs, 2);
	dl_batch *b = dl_batch_new(schema, NROWS);
	dl_builder *bl[2];
	for (int c = 0; c < 2; c++) assert_int_equal(dl_builder_new(&bl[c], fs[c].type), 0);
	for (int64_t i = 0; i < NROWS; i++) {
		dl_builder_append_int(bl[0], key_of(i));
		char s[32];
		snprintf(s, sizeof s, "s%lld", (long long)key_of(i));
		dl_builder_append_str(bl[1], s);
	}
	for (int c = 0; c < 2; c++) {
		assert_int_equal(dl_builder_finish(&b->cols[c], bl[c]), 0);
		dl_builder_free(bl[c]);
	}
	dl_buf buf = DL_BUF_INIT;
	pq_sink sink;
	pq_sink_init_buf(&sink, &buf);
	pq_writer_options o = PQ_WRITER_OPTIONS_INIT;
	o.row_group_rows = NROWS / NRG;
	const char *cols[] = {"k", "S"};
	if (bloom) {
		o.bloom_columns = cols;
		o.nbloom_columns = 2;
	}
	pq_writer *w;
	assert_int_equal(pq_writer_open(&w, b->schema, &sink, &o), 0);
	assert_int_equal(pq_writer_write(w, b), 0);
	assert_int_equal(pq_writer_close(w), 0);
	pq_writer_free(w);
	dl_batch_free(b);
	dl_type_unref(lt);
	dl_type_unref(st);
	dl_type_unref(schema);
	assert_int_equal(dl_store_put(f->store, "a.parquet", buf.data, buf.len), 0);
	char add[512], meta[2048];
	snprintf(add, sizeof add,
	         "{\"add\":{\"path\":\"a.parquet\",\"partitionValues\":{},\"size\":%zu,\"modificationTime\":1,"
	         "\"dataChange\":true}}", buf.len);
	snprintf(meta, sizeof meta,
	         "{\"metaData\":{\"id\":\"t\",\"format\":{\"provider\":\"parquet\",\"options\":{}},\"schemaString\":%s,"
	         "\"partitionColumns\":[],\"configuration\":{},\"createdTime\":1}}",
	         schema_json);
	const char *lines[] = {"{\"protocol\":{\"minReaderVersion\":1,\"minWriterVersion\":2}}", meta, add};
	assert_int_equal(fixture_commit(f, 0, lines, 3), 0);
	dl_buf_free(&buf);
}

static int64_t scan(fixture *f, const char *filter, dl_scan_metrics *m, int64_t *k0)
{
	dl_scan_options o = DL_SCAN_OPTIONS_INIT;
	o.filter = filter;
	dl_batch *b = NULL;
	assert_int_equal(fixture_scan(&b, f->dir, &o, m), 0);
	int64_t n = b ? b->num_rows : 0;
	if (k0 && n) *k0 = ((const int64_t *)b->cols[0]->values)[0];
	dl_batch_free(b);
	return n;
}

static void bloom_skips_absent_finds_present(void **state)
{
	(void)state;
	fixture with, without;
	make_table(&with, true);
	make_table(&without, false);
	dl_scan_metrics m;
	char f[128];
	/* absent odd keys amid the range: statistics keep every row group, the filters skip most */
	int64_t skipped = 0;
	for (int v = 5001; v < 5200; v += 2) {
		snprintf(f, sizeof f, "k = %d", v);
		assert_int_equal(scan(&with, f, &m, NULL), 0);
		assert_int_equal(m.row_groups_pruned_stats, 0);
		skipped += m.row_groups_pruned_bloom;
		assert_int_equal(scan(&without, f, &m, NULL), 0);
		assert_int_equal(m.row_groups_pruned_bloom, 0);
	}
	/* 100 lookups of 10 row groups at fpp 1% */
	assert_true(skipped >= 100 * NRG * 95 / 100);
	snprintf(f, sizeof f, "s = 's7' OR s = 's9'");
	assert_int_equal(scan(&with, f, &m, NULL), 0);
	assert_true(m.row_groups_pruned_bloom >= NRG - 1);
	assert_int_equal(scan(&with, "k IN (5001, 5003, 5005) AND s <> 'x'", &m, NULL), 0);
	assert_true(m.row_groups_pruned_bloom >= NRG - 1);
	/* present values: found, whichever row group holds them */
	for (int64_t i = 0; i < NROWS; i += 37) {
		int64_t k = -1;
		snprintf(f, sizeof f, "k = %lld", (long long)key_of(i));
		assert_int_equal(scan(&with, f, &m, &k), 1);
		assert_int_equal(k, key_of(i));
		assert_true(m.row_groups_pruned_stats + m.row_groups_pruned_bloom >= NRG - 3); /* the others, but for false positives */
		snprintf(f, sizeof f, "s = 's%lld'", (long long)key_of(i));
		assert_int_equal(scan(&with, f, &m, &k), 1);
		snprintf(f, sizeof f, "k IN (5001, %lld, 5003)", (long long)key_of(i));
		assert_int_equal(scan(&with, f, &m, &k), 1);
		assert_int_equal(k, key_of(i));
	}
	/* a cast literal (k compared as a double) uses no filter: rows still right */
	assert_int_equal(scan(&with, "k = 4.0D", &m, NULL), 1);
	fixture_close(&with);
	fixture_close(&without);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(bloom_skips_absent_finds_present),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
