/* Bloom filters against DuckDB: a file DuckDB wrote with Bloom filters
 * (dictionary-encoded columns) answers our probes with no false negative
 * for any value present in a row group, and exactly as DuckDB's own
 * parquet_bloom_probe answers for present and absent values (same
 * algorithm, hash and bytes hashed); absent values are mostly excluded.
 * And the other way: a file we write with Bloom filters is probed by
 * DuckDB, which answers as we do and never excludes a present value. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>
#include "parquet/reader.h"
#include "parquet/sink.h"
#include "parquet/writer.h"
#include "util/buf.h"
#include "util/error.h"
#include "util/mem.h"

#define NROWS 10000
#define NRG 5

static char g_dir[512], g_file[600];
static int g_rg_of[NROWS]; /* row group holding 3 * x */

static const char *oracle_dir(void)
{
	const char *d = getenv("DL_ORACLE_DIR");
	return d ? d : DL_SOURCE_DIR "/tools/oracle";
}

static int run_oracle(const char *args, dl_buf *out)
{
	char cmd[8192];
	snprintf(cmd, sizeof cmd, "DL_ORACLE_DIR='%s' node '%s/tests/unit/parquet/bloom_oracle.mjs' %s", oracle_dir(),
	         DL_SOURCE_DIR, args);
	FILE *p = popen(cmd, "r");
	if (!p) return -1;
	char buf[4096];
	size_t n;
	while ((n = fread(buf, 1, sizeof buf, p)) > 0)
		if (out) dl_buf_append(out, buf, n);
	if (out) dl_buf_putc(out, 0);
	return pclose(p);
}

static dl_store *g_store;

static int open_file(pq_reader **r, const char *name)
{
	if (!g_store) {
		char uri[600];
		snprintf(uri, sizeof uri, "file://%s", g_dir);
		if (dl_store_open(&g_store, uri, NULL) < 0) return -1;
	}
	return pq_reader_open_store(r, g_store, name, -1);
}

static int setup(void **state)
{
	(void)state;
	snprintf(g_dir, sizeof g_dir, "%s/bloom_duckdb_XXXXXX", DL_BINARY_DIR);
	if (!mkdtemp(g_dir)) return -1;
	snprintf(g_file, sizeof g_file, "%s/duck.parquet", g_dir);
	char args[700];
	snprintf(args, sizeof args, "gen '%s'", g_file);
	return run_oracle(args, NULL);
}

static int teardown(void **state)
{
	(void)state;
	dl_store_free(g_store);
	char cmd[700];
	snprintf(cmd, sizeof cmd, "rm -rf '%s'", g_dir);
	return system(cmd) == 0 ? 0 : -1;
}

static bool probe_i(pq_reader *r, int rg, int leaf, int64_t v)
{
	pq_stat_value sv = {.i = v};
	bool maybe = false;
	assert_int_equal(pq_reader_bloom_may_contain(r, rg, leaf, &sv, &maybe), 0);
	return maybe;
}

static bool probe_s(pq_reader *r, int rg, int leaf, int64_t v)
{
	char s[32];
	snprintf(s, sizeof s, "v%lld", (long long)v);
	pq_stat_value sv = {.s = (const uint8_t *)s, .len = (uint32_t)strlen(s)};
	bool maybe = false;
	assert_int_equal(pq_reader_bloom_may_contain(r, rg, leaf, &sv, &maybe), 0);
	return maybe;
}

/* g_rg_of from the rows of a file (DuckDB's row groups are not exactly
 * ROW_GROUP_SIZE rows; ours are). */
static void row_groups_of(pq_reader *r)
{
	dl_batch *b;
	int64_t first, seen = 0;
	int nrg = pq_reader_num_row_groups(r);
	while (pq_reader_next(r, &b, &first) == 0 && b) {
		int g = 0;
		while (g + 1 < nrg && pq_reader_row_group_first_row(r, g + 1) <= first) g++;
		const int64_t *iv = b->cols[0]->values;
		for (int64_t k = 0; k < b->num_rows; k++) g_rg_of[iv[k] / 3] = g;
		seen += b->num_rows;
		dl_batch_free(b);
	}
	assert_int_equal(seen, NROWS);
}

static void test_duckdb_file(void **state)
{
	(void)state;
	pq_reader *r;
	assert_int_equal(open_file(&r, "duck.parquet"), 0);
	assert_int_equal(pq_reader_num_row_groups(r), NRG);
	int li = pq_reader_find_leaf(r, "i"), ls = pq_reader_find_leaf(r, "s");
	assert_true(li >= 0 && ls >= 0);
	for (int g = 0; g < NRG; g++)
		assert_true(pq_reader_metadata(r)->row_groups[g].columns[li].meta_data.has_bloom_filter_offset);
	row_groups_of(r);
	pq_reader_free(r);
	assert_int_equal(open_file(&r, "duck.parquet"), 0);
	/* no false negatives, few false positives */
	int fp = 0;
	for (int64_t x = 0; x < NROWS; x++) {
		assert_true(probe_i(r, g_rg_of[x], li, 3 * x));
		assert_true(probe_s(r, g_rg_of[x], ls, 3 * x));
		for (int g = 0; g < NRG; g++) fp += probe_i(r, g, li, 3 * x + 1);
	}
	assert_true(fp < NROWS * NRG / 20);
	/* the same answers as DuckDB's parquet_bloom_probe */
	const char *cols[2] = {"i", "s"};
	for (int c = 0; c < 2; c++) {
		dl_buf args = DL_BUF_INIT;
		dl_buf_printf(&args, "probe '%s' %s", g_file, cols[c]);
		for (int64_t v = 0; v < 120; v++) dl_buf_printf(&args, c ? " v%lld" : " %lld", (long long)v);
		dl_buf out = DL_BUF_INIT;
		assert_int_equal(run_oracle(args.data, &out), 0);
		int lines = 0;
		for (char *line = strtok(out.data, "\n"); line; line = strtok(NULL, "\n")) {
			long long v;
			int g, ex;
			assert_int_equal(sscanf(line + (c ? 1 : 0), "%lld %d %d", &v, &g, &ex), 3);
			bool maybe = c ? probe_s(r, g, ls, v) : probe_i(r, g, li, v);
			assert_int_equal(maybe, !ex);
			lines++;
		}
		assert_int_equal(lines, 120 * NRG);
		dl_buf_free(&args);
		dl_buf_free(&out);
	}
	pq_reader_free(r);
}

/* Probes values 0..199 of columns i (long) and s (string) of `name` by
 * DuckDB and by us: same answers; present values (multiples of 3 in the
 * row group g_rg_of gives) never excluded. */
static void compare_probes(const char *name, const char *path)
{
	pq_reader *r;
	assert_int_equal(open_file(&r, name), 0);
	row_groups_of(r);
	pq_reader_free(r);
	assert_int_equal(open_file(&r, name), 0);
	int li = pq_reader_find_leaf(r, "i"), ls = pq_reader_find_leaf(r, "s");
	const char *cols[2] = {"i", "s"};
	int excluded = 0;
	for (int c = 0; c < 2; c++) {
		dl_buf args = DL_BUF_INIT;
		dl_buf_printf(&args, "probe '%s' %s", path, cols[c]);
		for (int64_t v = 0; v < 200; v++) dl_buf_printf(&args, c ? " v%lld" : " %lld", (long long)v);
		dl_buf out = DL_BUF_INIT;
		assert_int_equal(run_oracle(args.data, &out), 0);
		int lines = 0;
		for (char *line = strtok(out.data, "\n"); line; line = strtok(NULL, "\n")) {
			long long v;
			int g, ex;
			assert_int_equal(sscanf(line + (c ? 1 : 0), "%lld %d %d", &v, &g, &ex), 3);
			bool maybe = c ? probe_s(r, g, ls, v) : probe_i(r, g, li, v);
			assert_int_equal(maybe, !ex);
			if (v % 3 == 0 && g_rg_of[v / 3] == g) assert_false(ex);
			excluded += ex;
			lines++;
		}
		assert_int_equal(lines, 200 * NRG);
		dl_buf_free(&args);
		dl_buf_free(&out);
	}
	/* of 2 x 200 x 5 probes, about a third present (in one row group of five) */
	assert_true(excluded > 2 * 200 * NRG * 3 / 4);
	pq_reader_free(r);
}

static void test_duckdb_probes_ours(void **state)
{
	(void)state;
	/* DuckDB's rows, in its row order, rewritten by us with filters on i and s */
	pq_reader *r;
	assert_int_equal(open_file(&r, "duck.parquet"), 0);
	dl_buf buf = DL_BUF_INIT;
	pq_sink sink;
	pq_sink_init_buf(&sink, &buf);
	pq_writer_options o = PQ_WRITER_OPTIONS_INIT;
	o.row_group_rows = NROWS / NRG;
	const char *bc[] = {"i", "s"};
	o.bloom_columns = bc;
	o.nbloom_columns = 2;
	pq_writer *w;
	assert_int_equal(pq_writer_open(&w, (dl_type *)pq_reader_output_schema(r), &sink, &o), 0);
	dl_batch *b;
	int64_t first;
	while (pq_reader_next(r, &b, &first) == 0 && b) {
		assert_int_equal(pq_writer_write(w, b), 0);
		dl_batch_free(b);
	}
	assert_int_equal(pq_writer_close(w), 0);
	pq_writer_free(w);
	pq_reader_free(r);
	char path[700];
	snprintf(path, sizeof path, "%s/ours.parquet", g_dir);
	FILE *f = fopen(path, "wb");
	assert_non_null(f);
	assert_int_equal(fwrite(buf.data, 1, buf.len, f), buf.len);
	fclose(f);
	dl_buf_free(&buf);
	compare_probes("ours.parquet", path);
	/* a column not named has none */
	assert_int_equal(open_file(&r, "ours.parquet"), 0);
	assert_false(pq_reader_metadata(r)->row_groups[0].columns[pq_reader_find_leaf(r, "n")].meta_data.has_bloom_filter_offset);
	pq_reader_free(r);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_duckdb_file),
		cmocka_unit_test(test_duckdb_probes_ours),
	};
	return cmocka_run_group_tests(tests, setup, teardown);
}
