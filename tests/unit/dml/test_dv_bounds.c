/* A deletion vector file that deletes a row past its data file's end (row
 * 100 of a 10-row file) is corruption, not "nothing deleted" (issue 17 item
 * 8): reading the table fails naming the data file and the row, where it
 * used to read all 10 rows while the log's counts said 9. Inline DVs keep
 * Spark's tolerance (scan_read.c says why). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>
#include "dml_fixture.h"
#include "log/deletion_vector.h"

static void row_past_the_end(void **state)
{
	(void)state;
	char *dir = fx_tmpdir();
	const char *props[] = {"delta.enableDeletionVectors", "true"};
	dx_create(dir, "id BIGINT", NULL, props, 1);
	dx_append(dir, "id BIGINT", "0;1;2;3;4;5;6;7;8;9");
	dl_delete_metrics m;
	assert_int_equal(dl_delete(&m, dir, "id = 0", NULL), 0);
	dx_rows(dir, "id", "1;2;3;4;5;6;7;8;9");
	/* the DV file now deletes row 0: make it delete row 100 instead, in
	 * a file of the same layout (one row: same size, offset 1) */
	DIR *d = opendir(dir);
	assert_non_null(d);
	char path[2048] = "";
	struct dirent *e;
	while ((e = readdir(d)))
		if (strncmp(e->d_name, "deletion_vector_", 16) == 0)
			snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
	closedir(d);
	assert_true(path[0]);
	uint64_t row = 100;
	dl_dv_rows rows;
	assert_int_equal(dl_dv_rows_from_array(&rows, &row, 1), 0);
	dl_buf b = DL_BUF_INIT;
	int64_t off;
	int32_t size;
	assert_int_equal(dl_dv_write_file(&rows, &b, &off, &size), 0);
	dl_dv_rows_free(&rows);
	assert_int_equal(off, 1);
	struct stat st;
	assert_int_equal(stat(path, &st), 0);
	assert_int_equal((int64_t)st.st_size, (int64_t)b.len);
	FILE *f = fopen(path, "wb");
	assert_non_null(f);
	assert_int_equal(fwrite(b.data, 1, b.len, f), b.len);
	fclose(f);
	dl_buf_free(&b);
	dl_error_clear();
	/* fx_read stops at a failing batch: no rows, the error kept */
	char *got = fx_read(dir, -1, "id");
	if (got && *got) fail_msg("read a DV deleting row 100 of 10 as \"%s\"", got);
	dl_free(got);
	const dl_error *err = dl_error_last();
	assert_int_equal(err->code, DL_ECORRUPT);
	if (!strstr(err->message, "deletes row 100, but the file has 10 rows") || !strstr(err->message, ".parquet"))
		fail_msg("message: %s", err->message);
	char cmd[1100];
	snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
	assert_int_equal(system(cmd), 0);
	dl_free(dir);
}

int main(void)
{
	const struct CMUnitTest tests[] = {cmocka_unit_test(row_past_the_end)};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
