/* Every Parquet file of the shared conformance corpus (written by Spark,
 * delta-rs, DuckDB and others) must open and decode without error, and
 * decode to the same rows as DuckDB reads (hive partitioning off). */
#include <ftw.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <cmocka.h>
#include <string.h>
#include "parquet/reader.h"
#include "pq_dump.h"
#include "util/buf.h"
#include "util/error.h"
#include "util/mem.h"

typedef struct entry {
	char *path;
	int64_t rows;
} entry;

static entry *g_files;
static size_t g_n, g_cap;

static int visit(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	(void)st;
	(void)ftw;
	size_t len = strlen(path);
	if (flag != FTW_F || len < 8 || strcmp(path + len - 8, ".parquet")) return 0;
	/* "._name" files are macOS AppleDouble metadata, not Parquet. */
	const char *base = strrchr(path, '/');
	if (base && !strncmp(base + 1, "._", 2)) return 0;
	if (g_n == g_cap) {
		g_cap = g_cap ? g_cap * 2 : 256;
		g_files = realloc(g_files, g_cap * sizeof *g_files);
	}
	g_files[g_n].path = strdup(path);
	g_files[g_n].rows = -1;
	g_n++;
	return 0;
}

/* Decodes a file; with `dump`, its rows as JSON lines (pq_dump.h). */
static int decode_file(const char *path, int64_t *rows, dl_buf *dump)
{
	FILE *f = fopen(path, "rb");
	if (!f) return dl_error_set(DL_EIO, "cannot open %s", path);
	fseek(f, 0, SEEK_END);
	long size = ftell(f);
	fseek(f, 0, SEEK_SET);
	uint8_t *data = malloc((size_t)size + 1);
	size_t got = fread(data, 1, (size_t)size, f);
	fclose(f);
	pq_reader *r;
	int rc = got == (size_t)size ? pq_reader_open_memory(&r, data, got, path) : DL_EIO;
	*rows = 0;
	if (rc == 0) {
		for (;;) {
			dl_batch *b;
			int64_t first;
			rc = pq_reader_next(r, &b, &first);
			if (rc < 0 || !b) break;
			*rows += b->num_rows;
			if (dump) pq_dump_batch(dump, b);
			dl_batch_free(b);
		}
		pq_reader_free(r);
	}
	free(data);
	return rc;
}

static void test_conformance_files_decode(void **state)
{
	(void)state;
	const char *shared = getenv("DL_SHARED_DIR") ? getenv("DL_SHARED_DIR") : DL_SHARED_DIR;
	char root[1024];
	snprintf(root, sizeof root, "%s/conformance", shared);
	if (nftw(root, visit, 32, FTW_PHYS) != 0 || g_n == 0) skip();
	int failures = 0;
	for (size_t i = 0; i < g_n; i++) {
		if (decode_file(g_files[i].path, &g_files[i].rows, NULL) < 0) {
			print_error("%s\n", dl_error_last()->message);
			failures++;
		}
	}
	print_message("%zu conformance Parquet files decoded, %d failed\n", g_n, failures);
	assert_int_equal(failures, 0);
}

static void test_expected_row_counts_match_duckdb(void **state)
{
	(void)state;
	if (!g_n) skip();
	const char *oracle = getenv("DL_ORACLE_DIR") ? getenv("DL_ORACLE_DIR") : DL_SOURCE_DIR "/tools/oracle";
	char listfile[600];
	snprintf(listfile, sizeof listfile, "%s/pqr_conformance_expected.txt", DL_BINARY_DIR);
	FILE *l = fopen(listfile, "w");
	assert_non_null(l);
	int n = 0;
	for (size_t i = 0; i < g_n; i++)
		if (strstr(g_files[i].path, "/expected/")) {
			fprintf(l, "%s\n", g_files[i].path);
			n++;
		}
	fclose(l);
	if (!n) skip();
	char cmd[2048];
	snprintf(cmd, sizeof cmd, "DL_ORACLE_DIR='%s' node '%s/tests/integration/parquet_read_oracle.mjs' count @'%s'", oracle,
	         DL_SOURCE_DIR, listfile);
	FILE *p = popen(cmd, "r");
	assert_non_null(p);
	char line[2048];
	int checked = 0, bad = 0;
	while (fgets(line, sizeof line, p)) {
		char *tab = strchr(line, '\t');
		if (!tab) continue;
		*tab = 0;
		char *path = tab + 1;
		path[strcspn(path, "\n")] = 0;
		int64_t want = strtoll(line, NULL, 10);
		for (size_t i = 0; i < g_n; i++)
			if (!strcmp(g_files[i].path, path)) {
				checked++;
				if (g_files[i].rows != want) {
					print_error("%s: %lld rows, DuckDB says %lld\n", path, (long long)g_files[i].rows, (long long)want);
					bad++;
				}
			}
	}
	assert_int_equal(pclose(p), 0);
	print_message("%d expected/ files: row counts checked against DuckDB\n", checked);
	assert_int_equal(checked, n);
	assert_int_equal(bad, 0);
}

/* Every file's full contents (data files, checkpoints, change data, the
 * golden expected/ files) against DuckDB's reading of it. */
static void test_all_rows_match_duckdb(void **state)
{
	(void)state;
	if (!g_n) skip();
	char list[600];
	snprintf(list, sizeof list, "%s/pqr_conformance_compare.txt", DL_BINARY_DIR);
	FILE *l = fopen(list, "w");
	assert_non_null(l);
	int n = 0;
	for (size_t i = 0; i < g_n; i++) {
		dl_buf dump = DL_BUF_INIT;
		int64_t rows;
		if (decode_file(g_files[i].path, &rows, &dump) < 0) fail_msg("%s", dl_error_last()->message);
		char ours[700];
		snprintf(ours, sizeof ours, "%s/pqr_conf_%d.jsonl", DL_BINARY_DIR, n++);
		FILE *f = fopen(ours, "w");
		assert_non_null(f);
		if (dump.len) fwrite(dump.data, 1, dump.len, f);
		fclose(f);
		dl_buf_free(&dump);
		fprintf(l, "%s\t%s\n", g_files[i].path, ours);
	}
	fclose(l);
	const char *oracle = getenv("DL_ORACLE_DIR") ? getenv("DL_ORACLE_DIR") : DL_SOURCE_DIR "/tools/oracle";
	char cmd[2048];
	snprintf(cmd, sizeof cmd, "DL_ORACLE_DIR='%s' node '%s/tests/integration/parquet_read_oracle.mjs' compare-many '%s' >/dev/null",
	         oracle, DL_SOURCE_DIR, list);
	assert_int_equal(system(cmd), 0);
	for (int i = 0; i < n; i++) {
		char ours[700];
		snprintf(ours, sizeof ours, "%s/pqr_conf_%d.jsonl", DL_BINARY_DIR, i);
		remove(ours);
	}
}

static int teardown(void **state)
{
	(void)state;
	for (size_t i = 0; i < g_n; i++) free(g_files[i].path);
	free(g_files);
	return 0;
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_conformance_files_decode),
		cmocka_unit_test(test_expected_row_counts_match_duckdb),
		cmocka_unit_test(test_all_rows_match_duckdb),
	};
	return cmocka_run_group_tests(tests, NULL, teardown);
}
