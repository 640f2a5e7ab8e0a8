/* Late materialization (pq_reader_set_late_columns / pq_reader_read_late):
 * the late columns of each batch, decoded for selected rows only, equal the
 * same rows of a full read; pages holding no selected row are passed over
 * undecompressed; nested columns stay early. The file has several row
 * groups of small pages in every encoding our writer picks for flat
 * columns (dictionary, PLAIN fixed, PLAIN byte arrays, booleans), with
 * nulls. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <cmocka.h>
#include <string.h>
#include "columnar/builder.h"
#include "parquet/reader.h"
#include "parquet/writer.h"
#include "util/buf.h"
#include "util/error.h"

#define ROWS 20000
#define NCOL 6

static dl_buf file_bytes;

static int setup(void **state)
{
	(void)state;
	dl_type *lt = dl_type_new(DL_TYPE_LONG), *dt = dl_type_new(DL_TYPE_DOUBLE), *st = dl_type_new(DL_TYPE_STRING),
	        *bt = dl_type_new(DL_TYPE_BOOLEAN), *it = dl_type_new(DL_TYPE_INTEGER);
	dl_type *arr = dl_type_array(it, true);
	dl_field f[NCOL] = {
		{(char *)"id", lt, false, (char *)"{}"}, {(char *)"v", dt, true, (char *)"{}"},
		{(char *)"tag", st, true, (char *)"{}"}, {(char *)"name", st, true, (char *)"{}"},
		{(char *)"flag", bt, true, (char *)"{}"}, {(char *)"xs", arr, true, (char *)"{}"},
	};
	dl_type *schema = dl_type_struct(f, NCOL);
	pq_sink sink;
	pq_sink_init_buf(&sink, &file_bytes);
	pq_writer_options o = PQ_WRITER_OPTIONS_INIT;
	o.page_bytes = 2048;      /* many pages per chunk */
	o.row_group_rows = 7000;  /* three row groups, the last one short */
	pq_writer *w;
	assert_int_equal(pq_writer_open(&w, schema, &sink, &o), 0);
	dl_batch *b = dl_batch_new(schema, ROWS);
	dl_builder *bl[NCOL];
	for (int c = 0; c < NCOL; c++) assert_int_equal(dl_builder_new(&bl[c], f[c].type), 0);
	for (int i = 0; i < ROWS; i++) {
		char s[32];
		dl_builder_append_int(bl[0], i);
		if (i % 5 == 1) dl_builder_append_null(bl[1]);
		else dl_builder_append_double(bl[1], i * 0.25);
		if (i % 7 == 3) dl_builder_append_null(bl[2]);
		else dl_builder_append_bytes(bl[2], s, (size_t)snprintf(s, sizeof s, "t%02d", i % 41));
		if (i % 11 == 4) dl_builder_append_null(bl[3]);
		else dl_builder_append_bytes(bl[3], s, (size_t)snprintf(s, sizeof s, "name-%d-%d", i, i * 31 % 1000));
		if (i % 3 == 2) dl_builder_append_null(bl[4]);
		else dl_builder_append_bool(bl[4], i % 4 == 0);
		dl_builder_begin_list(bl[5]);
		for (int k = 0; k < i % 3; k++) dl_builder_append_int(dl_builder_child(bl[5], 0), i + k);
		dl_builder_end_list(bl[5]);
	}
	for (int c = 0; c < NCOL; c++) {
		assert_int_equal(dl_builder_finish(&b->cols[c], bl[c]), 0);
		dl_builder_free(bl[c]);
	}
	assert_int_equal(pq_writer_write(w, b), 0);
	assert_int_equal(pq_writer_close(w), 0);
	pq_writer_free(w);
	dl_batch_free(b);
	dl_type_unref(schema);
	dl_type_unref(arr);
	dl_type_unref(lt);
	dl_type_unref(dt);
	dl_type_unref(st);
	dl_type_unref(bt);
	dl_type_unref(it);
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	dl_buf_free(&file_bytes);
	return 0;
}

static void assert_same_flat(const dl_array *a, const dl_array *b)
{
	assert_int_equal(a->length, b->length);
	for (int64_t i = 0; i < a->length; i++) {
		bool va = dl_array_is_valid(a, i), vb = dl_array_is_valid(b, i);
		assert_int_equal(va, vb);
		if (!va) continue;
		switch (a->type->id) {
		case DL_TYPE_LONG: assert_int_equal(((int64_t *)a->values)[i], ((int64_t *)b->values)[i]); break;
		case DL_TYPE_DOUBLE: assert_true(((double *)a->values)[i] == ((double *)b->values)[i]); break;
		case DL_TYPE_BOOLEAN: assert_int_equal(dl_bit_get(a->values, i), dl_bit_get(b->values, i)); break;
		default: {
			int32_t la = a->offsets[i + 1] - a->offsets[i], lb = b->offsets[i + 1] - b->offsets[i];
			assert_int_equal(la, lb);
			assert_memory_equal(a->data + a->offsets[i], b->data + b->offsets[i], (size_t)la);
		}
		}
	}
}

/* Reads the whole file with columns 1.. late, keeping the rows `keep`
 * chooses (by file row), and checks every late column against a full
 * read of the same rows; returns the pages passed over. */
static int64_t check_selection(bool (*keep)(int64_t row), int64_t batch, int64_t *kept)
{
	pq_reader *full, *late;
	assert_int_equal(pq_reader_open_memory(&full, (const uint8_t *)file_bytes.data, file_bytes.len, "late.parquet"), 0);
	assert_int_equal(pq_reader_open_memory(&late, (const uint8_t *)file_bytes.data, file_bytes.len, "late.parquet"), 0);
	assert_int_equal(pq_reader_set_batch_size(full, batch), 0);
	assert_int_equal(pq_reader_set_batch_size(late, batch), 0);
	bool lc[NCOL] = {false, true, true, true, true, true};
	assert_int_equal(pq_reader_set_late_columns(late, lc), 0);
	assert_false(pq_reader_column_is_late(late, 0));
	assert_true(pq_reader_column_is_late(late, 1));
	assert_false(pq_reader_column_is_late(late, 5)); /* a list stays early */
	uint32_t *sel = malloc(sizeof *sel * (size_t)batch);
	*kept = 0;
	for (;;) {
		dl_batch *fb, *lb;
		int64_t f1, f2;
		assert_int_equal(pq_reader_next(full, &fb, &f1), 0);
		assert_int_equal(pq_reader_next(late, &lb, &f2), 0);
		if (!fb) {
			assert_null(lb);
			break;
		}
		assert_non_null(lb);
		assert_int_equal(f1, f2);
		assert_int_equal(fb->num_rows, lb->num_rows);
		assert_non_null(lb->cols[0]);
		assert_non_null(lb->cols[5]);
		for (int c = 1; c < 5; c++) assert_null(lb->cols[c]);
		int64_t n = 0;
		for (int64_t i = 0; i < fb->num_rows; i++)
			if (keep(f1 + i)) sel[n++] = (uint32_t)i;
		*kept += n;
		dl_array *out[NCOL] = {NULL};
		if (n == 0 && *kept % 2 == 0) {
			/* nothing kept: skipping the call must work too */
		} else {
			assert_int_equal(pq_reader_read_late(late, sel, n, out), 0);
			for (int c = 1; c < 5; c++) {
				assert_non_null(out[c]);
				dl_array *want = dl_array_take(fb->cols[c], sel, n);
				assert_same_flat(want, out[c]);
				dl_array_free(want);
				dl_array_free(out[c]);
			}
			assert_null(out[0]);
			assert_null(out[5]);
		}
		dl_batch_free(fb);
		dl_batch_free(lb);
	}
	int64_t passed = pq_reader_pages_passed(late);
	free(sel);
	pq_reader_free(full);
	pq_reader_free(late);
	return passed;
}

static bool sparse(int64_t row) { return row % 97 == 3; }
static bool dense(int64_t row) { return row % 2 == 0; }
static bool clustered(int64_t row) { return (row >= 8100 && row < 8150) || row == 19999; }
static bool none(int64_t row) { (void)row; return false; }
static bool all(int64_t row) { (void)row; return true; }

static void test_sparse(void **state)
{
	(void)state;
	int64_t kept;
	check_selection(sparse, 1000, &kept);
	assert_int_equal(kept, (ROWS - 3 + 96) / 97);
	check_selection(sparse, 65536, &kept); /* batches as large as row groups */
}

static void test_dense(void **state)
{
	(void)state;
	int64_t kept;
	check_selection(dense, 1000, &kept);
	assert_int_equal(kept, ROWS / 2);
	check_selection(all, 999, &kept);
	assert_int_equal(kept, ROWS);
}

/* Pages wholly outside the selection are never decompressed. */
static void test_pages_passed(void **state)
{
	(void)state;
	int64_t kept;
	int64_t passed = check_selection(clustered, 4096, &kept);
	assert_int_equal(kept, 51);
	assert_true(passed > 20);
	passed = check_selection(none, 4096, &kept);
	assert_int_equal(kept, 0);
	assert_true(passed > 20);
}

/* Without late columns nothing changes; read_late then has nothing to do. */
static void test_no_late(void **state)
{
	(void)state;
	pq_reader *r;
	assert_int_equal(pq_reader_open_memory(&r, (const uint8_t *)file_bytes.data, file_bytes.len, "late.parquet"), 0);
	dl_batch *b;
	assert_int_equal(pq_reader_next(r, &b, NULL), 0);
	for (int c = 0; c < NCOL; c++) assert_non_null(b->cols[c]);
	dl_batch_free(b);
	uint32_t one = 0;
	dl_array *out[NCOL] = {NULL};
	assert_int_equal(pq_reader_read_late(r, &one, 1, out), DL_EINVALID);
	bool lc[NCOL] = {true};
	assert_int_equal(pq_reader_set_late_columns(r, lc), DL_EINVALID); /* reading started */
	pq_reader_free(r);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_sparse),
		cmocka_unit_test(test_dense),
		cmocka_unit_test(test_pages_passed),
		cmocka_unit_test(test_no_late),
	};
	return cmocka_run_group_tests(tests, setup, teardown);
}
