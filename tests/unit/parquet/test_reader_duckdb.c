/* The reader against DuckDB: files of every type, nesting, both page
 * versions and every codec are written by DuckDB, decoded by us, and our
 * rows compared with DuckDB's (tests/integration/parquet_read_oracle.mjs). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <cmocka.h>
#include "parquet/reader.h"
#include "pq_dump.h"
#include "util/error.h"
#include "util/mem.h"
#include "util/pool.h"

static dl_pool *g_pool; /* when set, columns decode in parallel */

static char g_dir[512];
static char g_files[64][600];
static int g_nfiles;

static const char *oracle_dir(void)
{
	const char *d = getenv("DL_ORACLE_DIR");
	return d ? d : DL_SOURCE_DIR "/tools/oracle";
}

static int run_node(const char *args, char *out, size_t cap)
{
	char cmd[4096];
	snprintf(cmd, sizeof cmd, "DL_ORACLE_DIR='%s' node '%s/tests/integration/parquet_read_oracle.mjs' %s", oracle_dir(),
	         DL_SOURCE_DIR, args);
	FILE *p = popen(cmd, "r");
	if (!p) return -1;
	size_t n = out ? fread(out, 1, cap - 1, p) : 0;
	if (out) out[n] = 0;
	else {
		char buf[4096];
		while (fread(buf, 1, sizeof buf, p) > 0) {
		}
	}
	return pclose(p);
}

static int setup(void **state)
{
	(void)state;
	snprintf(g_dir, sizeof g_dir, "%s/pqr_duckdb_XXXXXX", DL_BINARY_DIR);
	if (!mkdtemp(g_dir)) return -1;
	static char list[65536];
	char args[1024];
	snprintf(args, sizeof args, "gen '%s'", g_dir);
	if (run_node(args, list, sizeof list) != 0) return -1;
	for (char *line = strtok(list, "\n"); line && g_nfiles < 64; line = strtok(NULL, "\n"))
		snprintf(g_files[g_nfiles++], sizeof g_files[0], "%s", line);
	return g_nfiles > 0 ? 0 : -1;
}

static int teardown(void **state)
{
	(void)state;
	char cmd[700];
	snprintf(cmd, sizeof cmd, "rm -rf '%s'", g_dir);
	return system(cmd) == 0 ? 0 : -1;
}

/* Reads a whole file (from the store) into JSON lines. */
static int read_all(const char *path, int64_t batch_size, dl_buf *out, int64_t *rows)
{
	dl_store *store;
	char uri[600];
	snprintf(uri, sizeof uri, "file://%s", g_dir);
	int rc = dl_store_open(&store, uri, NULL);
	if (rc < 0) return rc;
	pq_reader *r;
	rc = pq_reader_open_store(&r, store, path + strlen(g_dir) + 1, -1);
	if (rc == 0) {
		pq_reader_set_batch_size(r, batch_size);
		pq_reader_set_pool(r, g_pool);
		int64_t expect_first = 0;
		*rows = 0;
		for (;;) {
			dl_batch *b;
			int64_t first;
			rc = pq_reader_next(r, &b, &first);
			if (rc < 0 || !b) break;
			assert_int_equal(first, expect_first);
			expect_first += b->num_rows;
			*rows += b->num_rows;
			pq_dump_batch(out, b);
			dl_batch_free(b);
		}
		pq_reader_free(r);
	}
	dl_store_free(store);
	return rc;
}

static void compare_with_duckdb(const char *file, int64_t batch_size)
{
	dl_buf out = DL_BUF_INIT;
	int64_t rows = 0;
	int rc = read_all(file, batch_size, &out, &rows);
	if (rc < 0) fail_msg("%s: %s", file, dl_error_last()->message);
	char ours[700];
	snprintf(ours, sizeof ours, "%s.ours.jsonl", file);
	FILE *f = fopen(ours, "w");
	assert_non_null(f);
	if (out.len) fwrite(out.data, 1, out.len, f);
	fclose(f);
	dl_buf_free(&out);
	char args[1600], msg[8192];
	snprintf(args, sizeof args, "compare '%s' '%s' 2>&1", file, ours);
	if (run_node(args, msg, sizeof msg) != 0) fail_msg("%s", msg);
}

static void test_every_file_matches_duckdb(void **state)
{
	(void)state;
	for (int i = 0; i < g_nfiles; i++) compare_with_duckdb(g_files[i], 0);
}

static void test_small_batches_split_row_groups(void **state)
{
	(void)state;
	/* 700 does not divide DuckDB's 1000-row groups: batches start mid
	 * page and mid row group, also inside nested columns. */
	for (int i = 0; i < g_nfiles; i++)
		if (strstr(g_files[i], "V1_zstd") || strstr(g_files[i], "V2_snappy")) compare_with_duckdb(g_files[i], 700);
}

static void test_parallel_column_decoding(void **state)
{
	(void)state;
	assert_int_equal(dl_pool_create(&g_pool, 3), 0);
	for (int i = 0; i < g_nfiles; i++)
		if (strstr(g_files[i], "V2_zstd") || strstr(g_files[i], "V1_gzip") || strstr(g_files[i], "flat"))
			compare_with_duckdb(g_files[i], 333);
	dl_pool_free(g_pool);
	g_pool = NULL;
}

/* DuckDB's FIELD_IDS: ids reach the field metadata, and a projection by
 * id finds a column whatever its name (column mapping "id" mode). */
static void test_projection_by_field_id(void **state)
{
	(void)state;
	const char *file = NULL;
	for (int i = 0; i < g_nfiles; i++)
		if (strstr(g_files[i], "field_ids.parquet")) file = g_files[i];
	assert_non_null(file);
	FILE *f = fopen(file, "rb");
	assert_non_null(f);
	static uint8_t buf[1 << 16];
	size_t n = fread(buf, 1, sizeof buf, f);
	fclose(f);
	pq_reader *r;
	assert_int_equal(pq_reader_open_memory(&r, buf, n, "field_ids.parquet"), 0);
	const dl_type *t = pq_reader_schema(r);
	assert_int_equal(t->nchildren, 2);
	assert_string_equal(t->children[0].metadata, "{\"parquet.field.id\":7}");
	assert_string_equal(t->children[1].metadata, "{\"parquet.field.id\":9}");
	dl_type *str = dl_type_new(DL_TYPE_STRING), *i32 = dl_type_new(DL_TYPE_INTEGER);
	dl_field want[] = {{(char *)"renamed", str, true, (char *)"{\"parquet.field.id\":9}"},
	                   {(char *)"a", i32, true, (char *)"{\"parquet.field.id\":8}"}};
	dl_type *req = dl_type_struct(want, 2);
	assert_int_equal(pq_reader_set_projection(r, req, true), 0);
	dl_batch *b;
	int64_t first;
	assert_int_equal(pq_reader_next(r, &b, &first), 0);
	assert_non_null(b);
	assert_int_equal(b->num_rows, 1);
	const dl_array *s = b->cols[0];
	assert_int_equal(s->offsets[1], 1);
	assert_memory_equal(s->data, "x", 1);
	/* id 8 is not in the file (a has id 7): all null despite the name */
	assert_false(dl_array_is_valid(b->cols[1], 0));
	dl_batch_free(b);
	pq_reader_free(r);
	dl_type_unref(req);
	dl_type_unref(str);
	dl_type_unref(i32);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_every_file_matches_duckdb),
		cmocka_unit_test(test_small_batches_split_row_groups),
		cmocka_unit_test(test_projection_by_field_id),
		cmocka_unit_test(test_parallel_column_decoding),
	};
	return cmocka_run_group_tests(tests, setup, teardown);
}
