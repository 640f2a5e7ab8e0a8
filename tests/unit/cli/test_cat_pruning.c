/* `deltalake cat --where` tells on stderr what the predicate skipped,
 * including the row groups only Parquet Bloom filters can skip: a table
 * of one file of 10 row groups whose keys are shuffled (each row group's
 * min/max span the whole range, so statistics skip none), written with a
 * Bloom filter on k. A lookup of an absent key reads no row and its note
 * counts the row groups the filters skipped; a present key is still
 * found; without --where, or with -q, there is no note. The binary is
 * run as users run it (DL_BINARY_DIR/bin/deltalake). */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <cmocka.h>
#include "table/scan.h"
#include "unit/table/table_fixture.h"

#define NROWS 10000
#define NRG 10

static const char *schema_json =
	"\"{\\\"type\\\":\\\"struct\\\",\\\"fields\\\":["
	"{\\\"name\\\":\\\"k\\\",\\\"type\\\":\\\"long\\\",\\\"nullable\\\":true,\\\"metadata\\\":{}}]}\"";

/* k of row i: 2 * a permutation of 0..NROWS-1 (7919 is prime to NROWS) */
static int64_t key_of(int64_t i)
{
	return 2 * ((i * 7919) % NROWS);
}

static void make_table(fixture *f)
{
	assert_int_equal(fixture_open(f), 0);
	dl_type *lt = dl_type_new(DL_TYPE_LONG);
	dl_field fs[1] = {{"k", lt, true, "{}"}};
	dl_type *schema = dl_type_struct(fs, 1);
	dl_batch *b = dl_batch_new(schema, NROWS);
	dl_builder *bl;
	assert_int_equal(dl_builder_new(&bl, lt), 0);
	for (int64_t i = 0; i < NROWS; i++) assert_int_equal(dl_builder_append_int(bl, key_of(i)), 0);
	assert_int_equal(dl_builder_finish(&b->cols[0], bl), 0);
	dl_builder_free(bl);
	dl_buf buf = DL_BUF_INIT;
	pq_sink sink;
	pq_sink_init_buf(&sink, &buf);
	pq_writer_options o = PQ_WRITER_OPTIONS_INIT;
	o.row_group_rows = NROWS / NRG;
	const char *cols[] = {"k"};
	o.bloom_columns = cols;
	o.nbloom_columns = 1;
	pq_writer *w;
	assert_int_equal(pq_writer_open(&w, b->schema, &sink, &o), 0);
	assert_int_equal(pq_writer_write(w, b), 0);
	assert_int_equal(pq_writer_close(w), 0);
	pq_writer_free(w);
	dl_batch_free(b);
	dl_type_unref(lt);
	dl_type_unref(schema);
	assert_int_equal(dl_store_put(f->store, "a.parquet", buf.data, buf.len), 0);
	char add[512], meta[1024];
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

/* Runs `deltalake [global] cat DIR ARGS --format csv`; the output's lines
 * go to *rows (header excluded), stderr into err. */
static int run_cat(const fixture *f, const char *global, const char *args, int *rows, char *err, size_t errlen)
{
	char out_path[300], err_path[300], cmd[1200];
	snprintf(out_path, sizeof out_path, "%s.out", f->dir);
	snprintf(err_path, sizeof err_path, "%s.err", f->dir);
	snprintf(cmd, sizeof cmd, "'%s/bin/deltalake' %s cat '%s' %s --format csv >'%s' 2>'%s'", DL_BINARY_DIR,
	         global, f->dir, args, out_path, err_path);
	int rc = system(cmd);
	FILE *o = fopen(out_path, "r");
	assert_non_null(o);
	char line[256];
	*rows = -1;
	while (fgets(line, sizeof line, o)) (*rows)++;
	fclose(o);
	FILE *e = fopen(err_path, "r");
	assert_non_null(e);
	size_t n = fread(err, 1, errlen - 1, e);
	err[n] = 0;
	fclose(e);
	remove(out_path);
	remove(err_path);
	return rc;
}

static void cat_counts_bloom_skips(void **state)
{
	(void)state;
	fixture f;
	make_table(&f);
	char err[2048];
	int rows;
	long long stats = -1, bloom = -1;

	/* an absent odd key amid the range: statistics keep every row group */
	assert_int_equal(run_cat(&f, "", "--where 'k = 5001'", &rows, err, sizeof err), 0);
	print_message("%s", err);
	assert_int_equal(rows, 0);
	const char *p = strstr(err, "row groups skipped: ");
	assert_non_null(p);
	assert_int_equal(sscanf(p, "row groups skipped: %lld by statistics, %lld by Bloom filters", &stats, &bloom), 2);
	assert_int_equal(stats, 0);
	/* at fpp 1% a false positive in one of 10 row groups is possible */
	assert_true(bloom >= NRG - 1);
	assert_non_null(strstr(err, "1 of 1 files (0 pruned by partition values, 0 by statistics)"));

	/* a key out of every row group's range: statistics skip them all */
	assert_int_equal(run_cat(&f, "", "--where 'k = 100000'", &rows, err, sizeof err), 0);
	assert_int_equal(rows, 0);
	p = strstr(err, "row groups skipped: ");
	assert_non_null(p);
	assert_int_equal(sscanf(p, "row groups skipped: %lld by statistics, %lld by Bloom filters", &stats, &bloom), 2);
	assert_int_equal(stats, NRG);
	assert_int_equal(bloom, 0);

	/* a present key is found: its row group is read */
	assert_int_equal(run_cat(&f, "", "--where 'k = 5000'", &rows, err, sizeof err), 0);
	assert_int_equal(rows, 1);
	p = strstr(err, "row groups skipped: ");
	assert_non_null(p);
	assert_int_equal(sscanf(p, "row groups skipped: %lld by statistics, %lld by Bloom filters", &stats, &bloom), 2);
	assert_true(bloom <= NRG - 1);

	/* no predicate, or quiet: no note */
	assert_int_equal(run_cat(&f, "", "", &rows, err, sizeof err), 0);
	assert_int_equal(rows, NROWS);
	assert_string_equal(err, "");
	assert_int_equal(run_cat(&f, "-q", "--where 'k = 5001'", &rows, err, sizeof err), 0);
	assert_string_equal(err, "");
	fixture_close(&f);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(cat_counts_bloom_skips),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
