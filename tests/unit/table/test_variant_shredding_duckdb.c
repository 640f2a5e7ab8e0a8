/* Shredded variants written by another engine: DuckDB (1.5 shreds VARIANT
 * columns when it writes Parquet) writes one file per case of
 * tests/integration/variant_shred_oracle.mjs, with every shredded type of
 * the spec (UUID, TIME, nanosecond timestamps included) and rows that fall
 * back to `value`. Each file is read here as a variant and printed as JSON:
 * the text must be DuckDB's own JSON of the rows, except where the two
 * printers differ by design (listed below). */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "columnar/variant_json.h"
#include "parquet/reader.h"
#include "util/buf.h"
#include "util/error.h"

static char g_dir[512];
static char g_list[65536];

/* Our text where it differs from DuckDB's: DuckDB prints an offset "+00",
 * we "+00:00" (Spark's form); binary as DuckDB's \x escapes, ours base64
 * (Spark's). Nanosecond timestamps match DuckDB's digit for digit. */
static const struct {
	const char *file, *want;
} ours[] = {
    {"timestamp.parquet", "\"2024-10-24 01:02:03.456789+00:00\"\t\"1970-01-01 00:00:00+00:00\""},
    {"binary.parquet", "\"qrs=\"\t\"\""},
    {"double.parquet", "2.25\t-1e+300"},
};

static int setup(void **state)
{
	(void)state;
	snprintf(g_dir, sizeof g_dir, "%s/variant_duckdb_XXXXXX", DL_BINARY_DIR);
	if (!mkdtemp(g_dir)) return -1;
	const char *oracle = getenv("DL_ORACLE_DIR");
	char cmd[2048];
	snprintf(cmd, sizeof cmd, "DL_ORACLE_DIR='%s' node '%s/tests/integration/variant_shred_oracle.mjs' '%s'",
	         oracle ? oracle : DL_SOURCE_DIR "/tools/oracle", DL_SOURCE_DIR, g_dir);
	FILE *p = popen(cmd, "r");
	if (!p) return -1;
	size_t n = fread(g_list, 1, sizeof g_list - 1, p);
	g_list[n] = 0;
	return pclose(p) == 0 && n > 0 ? 0 : -1;
}

static int teardown(void **state)
{
	(void)state;
	char cmd[600];
	snprintf(cmd, sizeof cmd, "rm -rf '%s'", g_dir);
	return system(cmd) == 0 ? 0 : -1;
}

/* The rows of `file` as our JSON, tab-separated. */
static void read_rows(const char *file, dl_buf *text)
{
	char path[1024];
	snprintf(path, sizeof path, "%s/%s", g_dir, file);
	dl_type *var = dl_type_variant();
	dl_field f = {(char *)"v", var, true, (char *)"{}"};
	dl_type *req = dl_type_struct(&f, 1);
	FILE *fp = fopen(path, "rb");
	assert_non_null(fp);
	static uint8_t bytes[1 << 20];
	size_t len = fread(bytes, 1, sizeof bytes, fp);
	fclose(fp);
	pq_reader *r;
	assert_int_equal(pq_reader_open_memory(&r, bytes, len, file), 0);
	assert_int_equal(pq_reader_set_projection(r, req, false), 0);
	dl_batch *b;
	int64_t first, row = 0;
	int rc;
	while ((rc = pq_reader_next(r, &b, &first)) == 0 && b) {
		const dl_array *a = b->cols[0], *val = a->children[0], *meta = a->children[1];
		for (int64_t i = 0; i < a->length; i++, row++) {
			if (row) dl_buf_putc(text, '\t');
			if (!dl_array_is_valid(a, i)) {
				dl_buf_puts(text, "NULL");
				continue;
			}
			assert_int_equal(dl_variant_to_json(text, val->data + val->offsets[i], (size_t)(val->offsets[i + 1] - val->offsets[i]),
			                                    meta->data + meta->offsets[i], (size_t)(meta->offsets[i + 1] - meta->offsets[i])),
			                 0);
		}
		dl_batch_free(b);
	}
	if (rc < 0) fail_msg("%s: %s", file, dl_error_last()->message);
	pq_reader_free(r);
	dl_type_unref(req);
	dl_type_unref(var);
}

static void every_case_matches(void **state)
{
	(void)state;
	int files = 0, bad = 0;
	for (char *line = strtok(g_list, "\n"); line; line = strtok(NULL, "\n")) {
		char *tab = strchr(line, '\t');
		assert_non_null(tab);
		*tab = 0;
		const char *want = tab + 1;
		for (size_t k = 0; k < sizeof ours / sizeof *ours; k++)
			if (!strcmp(ours[k].file, line)) want = ours[k].want;
		dl_buf text = DL_BUF_INIT;
		read_rows(line, &text);
		if (strcmp(text.data, want)) {
			print_error("%s:\n ours   %s\n wanted %s\n", line, text.data, want);
			bad++;
		}
		dl_buf_free(&text);
		files++;
	}
	assert_int_equal(bad, 0);
	assert_true(files >= 20);
}

int main(void)
{
	const struct CMUnitTest tests[] = {cmocka_unit_test(every_case_matches)};
	return cmocka_run_group_tests(tests, setup, teardown);
}
