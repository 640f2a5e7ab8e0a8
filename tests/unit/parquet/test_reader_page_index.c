/* The reader's page index: OffsetIndex/ColumnIndex decoded per page, and
 * row ranges that read only the pages holding them, across columns whose
 * pages hold different row counts (ints, long strings, lists, structs with
 * nulls): every range set gives exactly the rows of a full read. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>
#include "columnar/builder.h"
#include "columnar/format_value.h"
#include "parquet/reader.h"
#include "parquet/writer.h"
#include "util/mem.h"

#define NROWS 2500

/* id long, s string (long, null every 9th), l list<int> (0..4 elements,
 * null every 11th), st struct<a int, b string> (null every 13th). */
static dl_batch *make_rows(void)
{
	dl_type *lt = dl_type_new(DL_TYPE_LONG), *st = dl_type_new(DL_TYPE_STRING), *it = dl_type_new(DL_TYPE_INTEGER);
	dl_type *list = dl_type_array(it, true);
	dl_field sf[2] = {{"a", it, true, "{}"}, {"b", st, true, "{}"}};
	dl_type *sct = dl_type_struct(sf, 2);
	dl_field fs[4] = {{"id", lt, true, "{}"}, {"s", st, true, "{}"}, {"l", list, true, "{}"}, {"st", sct, true, "{}"}};
	dl_type *schema = dl_type_struct(fs, 4);
	dl_batch *b = dl_batch_new(schema, NROWS);
	dl_builder *bl[4];
	for (int c = 0; c < 4; c++) assert_int_equal(dl_builder_new(&bl[c], fs[c].type), 0);
	for (int i = 0; i < NROWS; i++) {
		dl_builder_append_int(bl[0], i);
		char s[128];
		snprintf(s, sizeof s, "row %d %.*s", i, i % 60, "------------------------------------------------------------");
		if (i % 9 == 4) dl_builder_append_null(bl[1]);
		else dl_builder_append_str(bl[1], s);
		if (i % 11 == 5) {
			dl_builder_append_null(bl[2]);
		} else {
			dl_builder_begin_list(bl[2]);
			for (int k = 0; k < i % 5; k++) dl_builder_append_int(dl_builder_child(bl[2], 0), i * 10 + k);
			dl_builder_end_list(bl[2]);
		}
		if (i % 13 == 6) {
			dl_builder_append_null(bl[3]);
		} else {
			dl_builder_begin_struct(bl[3]);
			dl_builder_append_int(dl_builder_child(bl[3], 0), -i);
			if (i % 3) dl_builder_append_str(dl_builder_child(bl[3], 1), s);
			else dl_builder_append_null(dl_builder_child(bl[3], 1));
			dl_builder_end_struct(bl[3]);
		}
	}
	for (int c = 0; c < 4; c++) {
		assert_int_equal(dl_builder_finish(&b->cols[c], bl[c]), 0);
		dl_builder_free(bl[c]);
	}
	dl_type_unref(lt);
	dl_type_unref(st);
	dl_type_unref(it);
	dl_type_unref(list);
	dl_type_unref(sct);
	dl_type_unref(schema);
	return b;
}

static void write_file(dl_buf *buf)
{
	dl_batch *b = make_rows();
	pq_sink sink;
	pq_sink_init_buf(&sink, buf);
	pq_writer_options o = PQ_WRITER_OPTIONS_INIT;
	o.row_group_rows = 1200;
	o.page_bytes = 256;
	pq_writer *w;
	assert_int_equal(pq_writer_open(&w, b->schema, &sink, &o), 0);
	assert_int_equal(pq_writer_write(w, b), 0);
	assert_int_equal(pq_writer_close(w), 0);
	pq_writer_free(w);
	dl_batch_free(b);
}

/* Every row of the reader as "first_row: cells" lines. */
static void read_text(pq_reader *r, dl_buf *out)
{
	for (;;) {
		dl_batch *b;
		int64_t first;
		assert_int_equal(pq_reader_next(r, &b, &first), 0);
		if (!b) break;
		for (int64_t i = 0; i < b->num_rows; i++) {
			dl_buf_printf(out, "%lld:", (long long)(first + i));
			for (int c = 0; c < b->ncols; c++) {
				dl_buf_putc(out, ' ');
				assert_int_equal(dl_format_value_json(out, b->cols[c], i), 0);
			}
			dl_buf_putc(out, '\n');
		}
		dl_batch_free(b);
	}
}

/* The lines of `all` whose row is in one of the ranges of its row group. */
static void expected(const char *all, const pq_row_range *rr, int n, int64_t rg_first, int64_t rg_rows, dl_buf *out)
{
	for (const char *p = all; *p;) {
		const char *e = strchr(p, '\n');
		long long row = atoll(p);
		bool in = false;
		if (row >= rg_first && row < rg_first + rg_rows) {
			for (int k = 0; k < n; k++) in |= row - rg_first >= rr[k].first && row - rg_first < rr[k].end;
		} else {
			in = true; /* other row groups are read whole */
		}
		if (in) dl_buf_append(out, p, (size_t)(e - p + 1));
		p = e + 1;
	}
}

static void ranges_give_the_same_rows(void **state)
{
	(void)state;
	dl_buf file = DL_BUF_INIT;
	write_file(&file);
	pq_reader *r;
	assert_int_equal(pq_reader_open_memory(&r, (const uint8_t *)file.data, file.len, "pidx.parquet"), 0);
	dl_buf all = DL_BUF_INIT;
	read_text(r, &all);
	pq_reader_free(r);
	/* pages of different row counts across the columns */
	assert_int_equal(pq_reader_open_memory(&r, (const uint8_t *)file.data, file.len, "pidx.parquet"), 0);
	int np_id, np_s, np_l;
	assert_int_equal(pq_reader_num_pages(r, 1, pq_reader_find_leaf(r, "id"), &np_id), 0);
	assert_int_equal(pq_reader_num_pages(r, 1, pq_reader_find_leaf(r, "s"), &np_s), 0);
	assert_int_equal(pq_reader_num_pages(r, 1, pq_reader_find_leaf(r, "l.list.element"), &np_l), 0);
	assert_true(np_id > 3 && np_s > np_id && np_l > 1);
	pq_column_stats cs;
	assert_int_equal(pq_reader_page_stats(r, 1, 0, 1, &cs), 0);
	int64_t first, rows;
	assert_int_equal(pq_reader_page_rows(r, 1, 0, 1, &first, &rows), 0);
	assert_true(cs.has_min_max);
	assert_int_equal(cs.min.i, 1200 + first);
	assert_int_equal(cs.max.i, 1200 + first + rows - 1);
	pq_reader_free(r);

	const pq_row_range sets[][4] = {
		{{0, 1}},
		{{5, 6}, {7, 9}, {300, 301}},
		{{1, 1200}},
		{{0, 1300}},
		{{1299, 1300}},
		{{100, 200}, {201, 202}, {700, 900}, {1000, 1300}},
		{{1250, 1251}},
		{{33, 34}, {35, 36}, {37, 38}, {1100, 1101}},
	};
	const int nsets[] = {1, 3, 1, 1, 1, 4, 1, 4};
	const int rgs[] = {0, 0, 0, 1, 1, 1, 1, 0};
	const char *projections[][3] = {{"id", "s", "l"}, {"st", "l", NULL}, {"s", NULL, NULL}};
	const int nproj[] = {3, 2, 1};
	for (int p = 0; p < 3; p++) {
		for (size_t k = 0; k < sizeof nsets / sizeof *nsets; k++) {
			assert_int_equal(pq_reader_open_memory(&r, (const uint8_t *)file.data, file.len, "pidx.parquet"), 0);
			assert_int_equal(pq_reader_select_columns(r, projections[p], nproj[p]), 0);
			assert_int_equal(pq_reader_set_batch_size(r, 50), 0);
			int rg = rgs[k];
			int64_t rg_rows = pq_reader_row_group_rows(r, rg);
			pq_row_range rr[4];
			int n = 0;
			for (int i = 0; i < nsets[k]; i++)
				if (sets[k][i].end <= rg_rows) rr[n++] = sets[k][i];
			assert_int_equal(pq_reader_set_row_ranges(r, rg, rr, n), 0);
			dl_buf got = DL_BUF_INIT, want = DL_BUF_INIT, ref = DL_BUF_INIT;
			read_text(r, &got);
			pq_skip_stats sk;
			pq_reader_skip_stats(r, &sk);
			pq_reader_free(r);
			/* the reference: the projection read whole */
			assert_int_equal(pq_reader_open_memory(&r, (const uint8_t *)file.data, file.len, "pidx.parquet"), 0);
			assert_int_equal(pq_reader_select_columns(r, projections[p], nproj[p]), 0);
			read_text(r, &ref);
			pq_reader_free(r);
			expected(ref.data, rr, n, rg ? 1200 : 0, rg_rows, &want);
			assert_string_equal(got.data ? got.data : "", want.data ? want.data : "");
			if (rr[0].end - rr[0].first < 5 && n == 1) assert_true(sk.pages_skipped > 0 && sk.bytes_skipped > 0);
			dl_buf_free(&got);
			dl_buf_free(&want);
			dl_buf_free(&ref);
		}
	}
	/* no rows wanted: the row group is skipped */
	assert_int_equal(pq_reader_open_memory(&r, (const uint8_t *)file.data, file.len, "pidx.parquet"), 0);
	assert_int_equal(pq_reader_set_row_ranges(r, 0, NULL, 0), 0);
	dl_buf got = DL_BUF_INIT;
	read_text(r, &got);
	assert_int_equal(atoll(got.data), 1200);
	dl_buf_free(&got);
	/* bad ranges */
	pq_row_range bad[2] = {{5, 10}, {8, 12}};
	assert_int_equal(pq_reader_set_row_ranges(r, 1, bad, 2), DL_EINVALID);
	pq_reader_free(r);
	dl_buf_free(&all);
	dl_buf_free(&file);
}

/* A file without the page index: ranges are refused (1), nothing changes. */
static void no_offset_index(void **state)
{
	(void)state;
	dl_batch *b = make_rows();
	dl_buf buf = DL_BUF_INIT;
	pq_sink sink;
	pq_sink_init_buf(&sink, &buf);
	pq_writer_options o = PQ_WRITER_OPTIONS_INIT;
	o.page_bytes = 256;
	o.page_index = false;
	pq_writer *w;
	assert_int_equal(pq_writer_open(&w, b->schema, &sink, &o), 0);
	assert_int_equal(pq_writer_write(w, b), 0);
	assert_int_equal(pq_writer_close(w), 0);
	pq_writer_free(w);
	dl_batch_free(b);
	pq_reader *r;
	assert_int_equal(pq_reader_open_memory(&r, (const uint8_t *)buf.data, buf.len, "noidx.parquet"), 0);
	int np;
	assert_int_equal(pq_reader_num_pages(r, 0, 0, &np), 0);
	assert_int_equal(np, 0);
	pq_row_range rr = {3, 4};
	assert_int_equal(pq_reader_set_row_ranges(r, 0, &rr, 1), 1);
	dl_buf got = DL_BUF_INIT;
	read_text(r, &got);
	int lines = 0;
	for (const char *p = got.data; *p; p++) lines += *p == '\n';
	assert_int_equal(lines, NROWS);
	dl_buf_free(&got);
	pq_reader_free(r);
	dl_buf_free(&buf);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(ranges_give_the_same_rows),
		cmocka_unit_test(no_offset_index),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
