/* The Parquet writer's memory stays about one row group: writing 32 row
 * groups of 20 random BIGINT columns (values that defeat the dictionary,
 * so every column tries it, fills it and falls back to PLAIN in every row
 * group) never holds more than the row group's pages plus a few pages per
 * column. Measured by the writer's own accounting of its buffers
 * (pq_writer_memory: capacities, so allocator slack counts too), sampled
 * after every batch; no timing. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <string.h>
#include "columnar/builder.h"
#include "parquet/sink.h"
#include "parquet/writer.h"

#define NCOLS 20
#define BATCH 8192
#define BATCHES 100
#define PAGE (64u << 10)
#define ROW_GROUP (4 << 20)

static int64_t written;

static int count_bytes(pq_sink *s, const void *p, size_t n)
{
	(void)s;
	(void)p;
	written += (int64_t)n;
	return 0;
}

static uint64_t rng = 88172645463325252ULL;

static int64_t next_value(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return (int64_t)(rng >> 24); /* 40 bits, as the S3 write benchmark's */
}

static void run(int threads, size_t *peak_out, int64_t *rows_out)
{
	dl_field fs[NCOLS];
	char names[NCOLS][8];
	dl_type *t = dl_type_new(DL_TYPE_LONG);
	for (int c = 0; c < NCOLS; c++) {
		snprintf(names[c], sizeof names[c], "c%d", c);
		fs[c] = (dl_field){names[c], t, true, (char *)"{}"};
	}
	dl_type *schema = dl_type_struct(fs, NCOLS);
	assert_non_null(schema);
	pq_sink sink;
	pq_sink_init_fn(&sink, count_bytes, NULL);
	pq_writer_options o = PQ_WRITER_OPTIONS_INIT;
	o.row_group_bytes = ROW_GROUP;
	o.page_bytes = PAGE;
	o.dict_bytes = PAGE;
	o.threads = threads;
	pq_writer *w;
	assert_int_equal(pq_writer_open(&w, schema, &sink, &o), 0);
	size_t peak = 0;
	for (int k = 0; k < BATCHES; k++) {
		dl_batch *b = dl_batch_new(schema, BATCH);
		assert_non_null(b);
		for (int c = 0; c < NCOLS; c++) {
			dl_builder *bl;
			assert_int_equal(dl_builder_new(&bl, t), 0);
			for (int r = 0; r < BATCH; r++) assert_int_equal(dl_builder_append_int(bl, next_value()), 0);
			assert_int_equal(dl_builder_finish(&b->cols[c], bl), 0);
			dl_builder_free(bl);
		}
		assert_int_equal(pq_writer_write(w, b), 0);
		dl_batch_free(b);
		size_t m = pq_writer_memory(w);
		if (m > peak) peak = m;
	}
	assert_int_equal(pq_writer_close(w), 0);
	*peak_out = peak;
	*rows_out = pq_writer_num_rows(w);
	pq_writer_free(w);
	dl_type_unref(schema);
	dl_type_unref(t);
}

static void memory_is_about_one_row_group(void **state)
{
	(void)state;
	for (int threads = 1; threads <= 2; threads++) {
		size_t peak;
		int64_t rows;
		written = 0;
		run(threads, &peak, &rows);
		assert_int_equal(rows, (int64_t)BATCH * BATCHES);
		/* 8 bytes a value hardly compress: the file is most of the input */
		assert_true(written > (int64_t)BATCH * BATCHES * NCOLS * 5);
		print_message("%d thread(s): %lld bytes written, the writer held at most %zu bytes (row group %d)\n",
		              threads, (long long)written, peak, ROW_GROUP);
		/* the row group's pages (compressed, at most its uncompressed
		 * estimate; each column's buffer may be up to twice what it
		 * holds), then per column about 4 pages: the page being filled
		 * (with slack to twice), or its dictionary (data, hashes, slots)
		 * and indices while it tries one. Keeping the dictionary, the
		 * indices, the pages' capacity and a page body and compressed
		 * copy per column after they were needed went past it (16.8 MB
		 * with only the first three kept). */
		size_t bound = 2 * (size_t)ROW_GROUP + NCOLS * 4 * PAGE + 8 * PAGE;
		assert_true(peak < bound);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(memory_is_about_one_row_group),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
