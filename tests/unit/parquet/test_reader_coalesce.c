/* The Parquet reader's requests to a store: the column chunks of a row
 * group come in coalesced range reads (file_source.h), counted through a
 * fault:// store, and a failing read in a fetching thread reaches the
 * caller with its message. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <string.h>
#include "columnar/builder.h"
#include "parquet/file_source.h"
#include "parquet/reader.h"
#include "parquet/writer.h"
#include "util/mem.h"
#include "storage/store_fault.h"

#define NCOLS 6
#define ROWS 3000
#define RG_ROWS 1000

/* A file of NCOLS long columns (value row * 10 + column) in row groups of
 * rg_rows, uncompressed: 8 bytes a value. */
static void write_file_rows(dl_buf *out, int64_t rows, int64_t rg_rows)
{
	dl_field f[NCOLS];
	char names[NCOLS][8];
	dl_type *lt = dl_type_new(DL_TYPE_LONG);
	for (int c = 0; c < NCOLS; c++) {
		snprintf(names[c], sizeof names[c], "c%d", c);
		f[c] = (dl_field){names[c], lt, false, (char *)"{}"};
	}
	dl_type *schema = dl_type_struct(f, NCOLS);
	dl_type_unref(lt);
	pq_writer_options opt = PQ_WRITER_OPTIONS_INIT;
	opt.row_group_rows = rg_rows;
	opt.dictionary = false;
	opt.codec = PQ_CODEC_UNCOMPRESSED; /* sizes as written: the big file outgrows the footer guess */
	pq_sink sink;
	pq_sink_init_buf(&sink, out);
	pq_writer *w;
	assert_int_equal(pq_writer_open(&w, schema, &sink, &opt), 0);
	dl_batch *b = dl_batch_new(schema, rows);
	for (int c = 0; c < NCOLS; c++) {
		dl_builder *bl;
		assert_int_equal(dl_builder_new(&bl, lt = schema->children[c].type), 0);
		for (int64_t r = 0; r < rows; r++) assert_int_equal(dl_builder_append_int(bl, r * 10 + c), 0);
		assert_int_equal(dl_builder_finish(&b->cols[c], bl), 0);
		dl_builder_free(bl);
	}
	assert_int_equal(pq_writer_write(w, b), 0);
	assert_int_equal(pq_writer_close(w), 0);
	pq_writer_free(w);
	dl_batch_free(b);
	dl_type_unref(schema);
}

static void write_file(dl_buf *out) { write_file_rows(out, ROWS, RG_ROWS); }

static dl_store *store_with_file(const char *uri, const dl_store_options *o, dl_buf *file)
{
	dl_store *s;
	assert_int_equal(dl_store_open(&s, uri, o), 0);
	assert_int_equal(dl_store_put(s, "f.parquet", file->data, file->len), 0);
	return s;
}

static int64_t range_gets(dl_store *s)
{
	dl_store_fault_counts c;
	assert_int_equal(dl_store_fault_counts_get(&c, s), 0);
	return c.calls[DL_FAULT_GET_RANGE] + c.calls[DL_FAULT_GET];
}

/* Reads every batch and checks the values of the selected columns. */
static void read_rows(pq_reader *rd, const int *cols, int n, int64_t rows)
{
	int64_t seen = 0;
	for (;;) {
		dl_batch *b;
		int64_t first;
		if (pq_reader_next(rd, &b, &first)) fail_msg("next: %s", dl_error_last()->message);
		if (!b) break;
		assert_int_equal(b->ncols, n);
		for (int k = 0; k < n; k++) {
			const int64_t *v = b->cols[k]->values;
			for (int64_t r = 0; r < b->num_rows; r++) assert_int_equal(v[r], (first + r) * 10 + cols[k]);
		}
		seen += b->num_rows;
		dl_batch_free(b);
	}
	assert_int_equal(seen, rows);
}

static void read_all(pq_reader *rd, const int *cols, int n) { read_rows(rd, cols, n, ROWS); }

/* All columns: one request per row group instead of one per chunk. */
static void test_all_columns_one_get_per_row_group(void **state)
{
	(void)state;
	dl_buf file = DL_BUF_INIT;
	write_file(&file);
	assert_true(file.len > 64 * 1024); /* the footer read does not take it whole */
	dl_store *s = store_with_file("fault://mem://coalesce_all", NULL, &file);
	pq_reader *rd;
	assert_int_equal(pq_reader_open_store(&rd, s, "f.parquet", (int64_t)file.len), 0);
	assert_int_equal(pq_reader_num_row_groups(rd), 3);
	int64_t footer = range_gets(s);
	assert_true(footer >= 1 && footer <= 2);
	int cols[NCOLS] = {0, 1, 2, 3, 4, 5};
	read_all(rd, cols, NCOLS);
	/* Without coalescing this is NCOLS * 3 = 18. */
	assert_int_equal(range_gets(s) - footer, 3);
	pq_reader_free(rd);
	dl_store_free(s);
	dl_buf_free(&file);
}

/* Two columns far apart in each row group, with the skipped chunks (about
 * 8 KB each) well under the gap limit: still one request per row group,
 * and the values are right. */
static void test_projection_coalesced_across_gap(void **state)
{
	(void)state;
	dl_buf file = DL_BUF_INIT;
	write_file(&file);
	dl_store *s = store_with_file("fault://mem://coalesce_proj", NULL, &file);
	pq_reader *rd;
	assert_int_equal(pq_reader_open_store(&rd, s, "f.parquet", (int64_t)file.len), 0);
	const char *names[] = {"c0", "c5"};
	assert_int_equal(pq_reader_select_columns(rd, names, 2), 0);
	int64_t footer = range_gets(s);
	int cols[2] = {0, 5};
	read_all(rd, cols, 2);
	assert_int_equal(range_gets(s) - footer, 3);
	pq_reader_free(rd);
	dl_store_free(s);
	dl_buf_free(&file);
}

/* A file smaller than the footer guess (64 KB) is fetched whole for its
 * footer; its row groups are then read from that buffer: one request in
 * all, not one more per row group. */
static void test_small_file_one_request(void **state)
{
	(void)state;
	dl_buf file = DL_BUF_INIT;
	write_file_rows(&file, 600, 200); /* 3 row groups, about 29 KB */
	assert_true(file.len < 64 * 1024);
	dl_store *s = store_with_file("fault://mem://coalesce_small", NULL, &file);
	pq_reader *rd;
	assert_int_equal(pq_reader_open_store(&rd, s, "f.parquet", (int64_t)file.len), 0);
	assert_int_equal(pq_reader_num_row_groups(rd), 3);
	assert_int_equal(range_gets(s), 1);
	int cols[NCOLS] = {0, 1, 2, 3, 4, 5};
	read_rows(rd, cols, NCOLS, 600);
	assert_int_equal(range_gets(s), 1);
	pq_reader_free(rd);
	dl_store_free(s);
	dl_buf_free(&file);
}

/* The merging rule itself: gap, overlap, containment, the size cap and
 * empty ranges. */
static void test_coalesce_ranges(void **state)
{
	(void)state;
	const int64_t MiB = 1 << 20;
	pq_range in[] = {
		{2 * MiB, 10},          /* past the gap from [0, 30): its own range */
		{0, 10},
		{20, 10},               /* gap 10 < 1 MiB: merged with [0, 10) */
		{5, 3},                 /* inside [0, 10) */
		{100, 0},               /* empty: dropped */
		{2 * MiB + 5, 40},      /* overlaps: merged */
		{3 * MiB, 32 * MiB},    /* would make [2 MiB, 35 MiB): over the cap */
		{40 * MiB, 40 * MiB},   /* bigger than the cap alone: kept whole */
	};
	pq_range *out;
	int n;
	assert_int_equal(pq_coalesce_ranges(&out, &n, in, (int)(sizeof in / sizeof in[0]), PQ_COALESCE_GAP), 0);
	assert_int_equal(n, 4);
	assert_int_equal(out[0].off, 0);
	assert_int_equal(out[0].len, 30);
	assert_int_equal(out[1].off, 2 * MiB);
	assert_int_equal(out[1].len, 45);
	assert_int_equal(out[2].off, 3 * MiB);
	assert_int_equal(out[2].len, 32 * MiB);
	assert_int_equal(out[3].off, 40 * MiB);
	assert_int_equal(out[3].len, 40 * MiB);
	dl_free(out);
	/* A gap of 0 merges only touching or overlapping ranges. */
	pq_range in2[] = {{0, 10}, {10, 10}, {21, 1}};
	assert_int_equal(pq_coalesce_ranges(&out, &n, in2, 3, 0), 0);
	assert_int_equal(n, 2);
	assert_int_equal(out[0].len, 20);
	dl_free(out);
}

/* Several row-group chunks fetched at once, one of them failing: the
 * reader fails with the store's message, and nothing leaks. */
static void test_failed_fetch_reports_store_error(void **state)
{
	(void)state;
	dl_buf file = DL_BUF_INIT;
	write_file(&file);
	static const char *const keys[] = {"fault.fail_kind", "fault.fail_nth"};
	static const char *const vals[] = {"get_range", "3"};
	dl_store_options o = DL_STORE_OPTIONS_INIT;
	o.keys = keys;
	o.values = vals;
	o.noptions = 2;
	dl_store *s = store_with_file("fault://mem://coalesce_fail", &o, &file);
	pq_reader *rd;
	assert_int_equal(pq_reader_open_store(&rd, s, "f.parquet", (int64_t)file.len), 0);
	int rc = 0;
	for (;;) {
		dl_batch *b;
		int64_t first;
		rc = pq_reader_next(rd, &b, &first);
		if (rc < 0 || !b) break;
		dl_batch_free(b);
	}
	assert_int_equal(rc, DL_EIO);
	assert_non_null(strstr(dl_error_last()->message, "f.parquet"));
	assert_non_null(strstr(dl_error_last()->message, "get_range"));
	pq_reader_free(rd);
	dl_store_free(s);
	dl_buf_free(&file);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_all_columns_one_get_per_row_group),
		cmocka_unit_test(test_projection_coalesced_across_gap),
		cmocka_unit_test(test_coalesce_ranges),
		cmocka_unit_test(test_small_file_one_request),
		cmocka_unit_test(test_failed_fetch_reports_store_error),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
