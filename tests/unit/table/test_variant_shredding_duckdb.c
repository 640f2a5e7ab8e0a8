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
#include "parquet/writer.h"
#include "util/buf.h"
#include "util/error.h"

static char g_dir[512];
static char g_list[65536];
static char g_duck[65536]; /* g_list as read, before strtok cuts it */

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
	memcpy(g_duck, g_list, n + 1);
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

/* Reads DuckDB's `file` as a variant and writes it again with our writer
 * into `out` (unshredded, the group annotated VARIANT(1)). */
static void rewrite(const char *file, const char *out)
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
	dl_buf buf = DL_BUF_INIT;
	pq_sink sink;
	pq_sink_init_buf(&sink, &buf);
	pq_writer *w;
	assert_int_equal(pq_writer_open(&w, req, &sink, NULL), 0);
	/* the group is annotated VARIANT, specification version 1 */
	const pq_wschema *ws = pq_writer_schema(w);
	assert_int_equal(ws->elems[1].logical.kind, PQ_LT_VARIANT);
	assert_true(ws->elems[1].logical.has_spec_version);
	assert_int_equal(ws->elems[1].logical.spec_version, 1);
	dl_batch *b;
	int64_t first;
	int rc;
	while ((rc = pq_reader_next(r, &b, &first)) == 0 && b) {
		assert_int_equal(pq_writer_write(w, b), 0);
		dl_batch_free(b);
	}
	if (rc < 0) fail_msg("%s: %s", file, dl_error_last()->message);
	assert_int_equal(pq_writer_close(w), 0);
	pq_writer_free(w);
	pq_reader_free(r);
	fp = fopen(out, "wb");
	assert_non_null(fp);
	assert_int_equal(fwrite(buf.data, 1, buf.len, fp), buf.len);
	fclose(fp);
	dl_buf_free(&buf);
	dl_type_unref(req);
	dl_type_unref(var);
}

/* DuckDB 1.5 prints a decimal8 between -1 and 1 read from a variant's
 * `value` binary without its leading zero: its own file shredded as VARCHAR
 * (the decimal then in `value`) gives "-.01" for -0.01::DECIMAL(18,2) too,
 * while the same value shredded, or cast in memory, gives "-0.01". */
static const struct {
	const char *file, *want;
} duck_on_binary[] = {
    {"decimal8.parquet", "12345678901.25\t-.01"},
};

/* Our writer's variant columns read back in DuckDB: every case is rewritten
 * by us, and DuckDB must see a VARIANT column with the very rows (its JSON)
 * it wrote; our reader must read our file to the same JSON too. */
static void duckdb_reads_ours(void **state)
{
	(void)state;
	char list[65536];
	memcpy(list, g_duck, sizeof list);
	dl_buf cmd = DL_BUF_INIT;
	const char *oracle = getenv("DL_ORACLE_DIR");
	dl_buf_printf(&cmd, "DL_ORACLE_DIR='%s' node '%s/tests/integration/variant_shred_oracle.mjs' --read",
	              oracle ? oracle : DL_SOURCE_DIR "/tools/oracle", DL_SOURCE_DIR);
	int files = 0;
	char *save = NULL;
	for (char *line = strtok_r(list, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		char *tab = strchr(line, '\t');
		assert_non_null(tab);
		*tab = 0;
		char out[1024];
		snprintf(out, sizeof out, "%s/ours_%s", g_dir, line);
		rewrite(line, out);
		dl_buf_printf(&cmd, " '%s'", out);
		files++;
	}
	FILE *p = popen(cmd.data, "r");
	assert_non_null(p);
	static char got[65536];
	size_t n = fread(got, 1, sizeof got - 1, p);
	got[n] = 0;
	assert_int_equal(pclose(p), 0);
	dl_buf_free(&cmd);
	/* each line: ours_<case>.parquet, VARIANT, the rows: the same rows as
	 * DuckDB's own file gave */
	memcpy(list, g_duck, sizeof list);
	int seen = 0, bad = 0;
	char *s1 = NULL, *s2 = NULL;
	char *want = strtok_r(list, "\n", &s1);
	for (char *line = strtok_r(got, "\n", &s2); line && want; line = strtok_r(NULL, "\n", &s2), want = strtok_r(NULL, "\n", &s1)) {
		char *t1 = strchr(line, '\t'), *w1 = strchr(want, '\t');
		assert_non_null(t1);
		assert_non_null(w1);
		*t1 = *w1 = 0;
		char *t2 = strchr(t1 + 1, '\t');
		const char *rows = t2 ? t2 + 1 : "";
		if (t2) *t2 = 0;
		assert_true(!strncmp(line, "ours_", 5) && !strcmp(line + 5, want));
		if (strcmp(t1 + 1, "VARIANT")) {
			print_error("%s: DuckDB reads it as %s\n", line, t1 + 1);
			bad++;
		}
		const char *expect = w1 + 1;
		for (size_t k = 0; k < sizeof duck_on_binary / sizeof *duck_on_binary; k++)
			if (!strcmp(duck_on_binary[k].file, want)) expect = duck_on_binary[k].want;
		if (strcmp(rows, expect)) {
			print_error("%s:\n duckdb on ours   %s\n wanted %s\n", line, rows, expect);
			bad++;
		}
		seen++;
	}
	assert_int_equal(bad, 0);
	assert_int_equal(seen, files);
	assert_true(files >= 20);
}

int main(void)
{
	const struct CMUnitTest tests[] = {cmocka_unit_test(every_case_matches), cmocka_unit_test(duckdb_reads_ours)};
	return cmocka_run_group_tests(tests, setup, teardown);
}
