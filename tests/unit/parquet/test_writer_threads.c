/* The Parquet writer's pipeline (write_pipeline.c): the file is the same
 * byte for byte at 1, 2 and 3 threads, with owned and borrowed batches,
 * over row groups cut by size and by rows and ended explicitly, with
 * string, nullable and nested columns; a failure in a column while its
 * batches are owned surfaces at a later call and frees what was queued;
 * each row group's deprecated min/max are its own (they were once those
 * of the last row group: the chunks' statistics shared a buffer). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <string.h>
#include "columnar/builder.h"
#include "deltalake.h"
#include "parquet/metadata.h"
#include "parquet/reader.h"
#include "util/arena.h"
#include "parquet/sink.h"
#include "parquet/writer.h"

#define BATCH 3000
#define BATCHES 40

static dl_type *schema_of(void)
{
	dl_type *l = dl_type_new(DL_TYPE_LONG), *s = dl_type_new(DL_TYPE_STRING), *d = dl_type_new(DL_TYPE_DOUBLE);
	dl_type *arr = dl_type_array(l, true);
	dl_field f[] = {{(char *)"id", l, false, (char *)"{}"},
	                {(char *)"s", s, true, (char *)"{}"},
	                {(char *)"d", d, true, (char *)"{}"},
	                {(char *)"xs", arr, true, (char *)"{}"}};
	dl_type *t = dl_type_struct(f, 4);
	dl_type_unref(l);
	dl_type_unref(s);
	dl_type_unref(d);
	dl_type_unref(arr);
	return t;
}

/* Batch k: ids, strings of ~2k distinct values (some null), doubles, and
 * lists of 0-3 ids; `null_id_at` >= 0 puts a null into the NOT NULL id. */
static dl_batch *make_batch(dl_type *schema, int k, int64_t null_id_at)
{
	dl_builder *b[4];
	for (int c = 0; c < 4; c++) assert_int_equal(dl_builder_new(&b[c], schema->children[c].type), 0);
	uint64_t r = (uint64_t)k * 0x9E3779B97F4A7C15ULL + 7;
	for (int64_t i = 0; i < BATCH; i++) {
		int64_t id = (int64_t)k * BATCH + i;
		r ^= r << 13, r ^= r >> 7, r ^= r << 17;
		if (i == null_id_at) assert_int_equal(dl_builder_append_null(b[0]), 0);
		else assert_int_equal(dl_builder_append_int(b[0], id), 0);
		char s[32];
		int n = snprintf(s, sizeof s, "v%llu", (unsigned long long)(r % 2000));
		if (r % 17 == 0) assert_int_equal(dl_builder_append_null(b[1]), 0);
		else assert_int_equal(dl_builder_append_bytes(b[1], s, (size_t)n), 0);
		assert_int_equal(dl_builder_append_double(b[2], (double)(r >> 11) / 9007199254740992.0), 0);
		assert_int_equal(dl_builder_begin_list(b[3]), 0);
		for (uint64_t e = 0; e < r % 4; e++) assert_int_equal(dl_builder_append_int(dl_builder_child(b[3], 0), id + (int64_t)e), 0);
		assert_int_equal(dl_builder_end_list(b[3]), 0);
	}
	dl_batch *out = dl_batch_new(schema, BATCH);
	assert_non_null(out);
	for (int c = 0; c < 4; c++) {
		assert_int_equal(dl_builder_finish(&out->cols[c], b[c]), 0);
		dl_builder_free(b[c]);
	}
	return out;
}

typedef struct run_opts {
	int threads;
	bool owned;
	int64_t row_group_bytes, row_group_rows;
	int end_every; /* pq_writer_end_row_group after every Nth batch (0: never) */
} run_opts;

static void write_file(dl_buf *out, const run_opts *ro)
{
	dl_type *schema = schema_of();
	pq_sink sink;
	pq_sink_init_buf(&sink, out);
	pq_writer_options o = PQ_WRITER_OPTIONS_INIT;
	o.threads = ro->threads;
	o.page_bytes = 16 << 10;
	o.row_group_bytes = ro->row_group_bytes;
	o.row_group_rows = ro->row_group_rows;
	pq_writer *w;
	assert_int_equal(pq_writer_open(&w, schema, &sink, &o), 0);
	for (int k = 0; k < BATCHES; k++) {
		dl_batch *b = make_batch(schema, k, -1);
		if (ro->owned) {
			assert_int_equal(pq_writer_write_owned(w, b), 0);
		} else {
			assert_int_equal(pq_writer_write(w, b), 0);
			dl_batch_free(b);
		}
		if (ro->end_every && k % ro->end_every == ro->end_every - 1) assert_int_equal(pq_writer_end_row_group(w), 0);
	}
	assert_int_equal(pq_writer_close(w), 0);
	assert_int_equal(pq_writer_num_rows(w), (int64_t)BATCH * BATCHES);
	pq_writer_free(w);
	dl_type_unref(schema);
}

static int row_groups(const dl_buf *file)
{
	pq_reader *r;
	assert_int_equal(pq_reader_open_memory(&r, (const uint8_t *)file->data, file->len, "t"), 0);
	int n = pq_reader_num_row_groups(r);
	int64_t rows = 0;
	dl_batch *b;
	int64_t first;
	while (pq_reader_next(r, &b, &first) == 0 && b) {
		rows += b->num_rows;
		dl_batch_free(b);
	}
	assert_int_equal(rows, (int64_t)BATCH * BATCHES);
	pq_reader_free(r);
	return n;
}

static void same_bytes_at_every_thread_count(const run_opts *base, int min_groups)
{
	dl_buf ref = DL_BUF_INIT;
	run_opts ro = *base;
	ro.threads = 1;
	ro.owned = false;
	write_file(&ref, &ro);
	assert_true(row_groups(&ref) >= min_groups);
	for (int threads = 1; threads <= 3; threads++) {
		for (int owned = 0; owned < 2; owned++) {
			ro.threads = threads;
			ro.owned = owned;
			dl_buf got = DL_BUF_INIT;
			write_file(&got, &ro);
			assert_int_equal(got.len, ref.len);
			assert_memory_equal(got.data, ref.data, ref.len);
			dl_buf_free(&got);
		}
	}
	dl_buf_free(&ref);
}

static void test_cut_by_size(void **state)
{
	(void)state;
	run_opts ro = {1, false, 256 << 10, 0, 0};
	same_bytes_at_every_thread_count(&ro, 4);
}

/* The footer's deprecated min/max (signed types) equal min_value/max_value
 * in every row group. */
static void test_deprecated_minmax_per_row_group(void **state)
{
	(void)state;
	dl_buf file = DL_BUF_INIT;
	run_opts ro = {2, true, 128 << 20, 20000, 0};
	write_file(&file, &ro);
	const uint8_t *p = (const uint8_t *)file.data;
	uint32_t flen = (uint32_t)p[file.len - 8] | (uint32_t)p[file.len - 7] << 8 | (uint32_t)p[file.len - 6] << 16 |
	                (uint32_t)p[file.len - 5] << 24;
	dl_arena arena = DL_ARENA_INIT;
	pq_file_metadata md;
	assert_int_equal(pq_file_metadata_decode(&md, &arena, p + file.len - 8 - flen, flen, "t"), 0);
	assert_true(md.nrow_groups >= 5);
	for (uint32_t g = 0; g < md.nrow_groups; g++) {
		const pq_statistics *st = &md.row_groups[g].columns[0].meta_data.statistics; /* id */
		assert_true(st->has_min && st->has_min_value);
		assert_int_equal(st->min.len, 8);
		assert_memory_equal(st->min.ptr, st->min_value.ptr, 8);
		assert_memory_equal(st->max.ptr, st->max_value.ptr, 8);
		int64_t mn;
		memcpy(&mn, st->min.ptr, 8);
		assert_int_equal(mn, (int64_t)g * 20000);
	}
	dl_arena_free(&arena);
	dl_buf_free(&file);
}

static void test_cut_by_rows(void **state)
{
	(void)state;
	run_opts ro = {1, false, 128 << 20, 7000, 0};
	same_bytes_at_every_thread_count(&ro, BATCH * BATCHES / 7000);
}

static void test_ended_explicitly(void **state)
{
	(void)state;
	run_opts ro = {1, false, 128 << 20, 0, 3};
	same_bytes_at_every_thread_count(&ro, BATCHES / 3);
}

/* A null in the NOT NULL id of batch 5, written owned: the error is the
 * column's (DL_ECONSTRAINT) at a later call, and the writer refuses more. */
static void test_owned_failure_surfaces(void **state)
{
	(void)state;
	for (int threads = 1; threads <= 2; threads++) {
		dl_type *schema = schema_of();
		dl_buf out = DL_BUF_INIT;
		pq_sink sink;
		pq_sink_init_buf(&sink, &out);
		pq_writer_options o = PQ_WRITER_OPTIONS_INIT;
		o.threads = threads;
		pq_writer *w;
		assert_int_equal(pq_writer_open(&w, schema, &sink, &o), 0);
		int rc = 0;
		for (int k = 0; k < 12 && rc == 0; k++) rc = pq_writer_write_owned(w, make_batch(schema, k, k == 5 ? 10 : -1));
		if (rc == 0) rc = pq_writer_close(w);
		assert_int_equal(rc, DL_ECONSTRAINT);
		assert_non_null(strstr(dl_error_last()->message, "NOT NULL"));
		assert_int_not_equal(pq_writer_write_owned(w, make_batch(schema, 99, -1)), 0);
		pq_writer_free(w);
		dl_buf_free(&out);
		dl_type_unref(schema);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_cut_by_size),
		cmocka_unit_test(test_cut_by_rows),
		cmocka_unit_test(test_deprecated_minmax_per_row_group),
		cmocka_unit_test(test_ended_explicitly),
		cmocka_unit_test(test_owned_failure_surfaces),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
