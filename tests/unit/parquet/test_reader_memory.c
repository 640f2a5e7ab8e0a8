/* The reader's recycled batch buffers (output_pool.h) stay about one
 * batch, however many row groups are read: a file of 40 row groups of one
 * string column (64 random hex characters a value, no dictionary), read
 * whole and read a row group at a time with a rewind between (as
 * checkpoint_read.c reads a checkpoint), keeps no more than a few row
 * groups' values in the pool after any batch. Measured by the pool's own
 * accounting (pq_reader_pooled_bytes), sampled after every batch is freed;
 * no timing. Each row group used to start from a 4 KiB request no big
 * pooled buffer could serve, so the pool kept one more buffer per row
 * group: 40 of them here. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <string.h>
#include "columnar/builder.h"
#include "parquet/reader.h"
#include "parquet/sink.h"
#include "parquet/writer.h"
#include "util/buf.h"

#define ROWS_PER_RG 8192
#define RGS 40
#define VALUE_LEN 64
/* one row group's values and offsets, with a buffer's doubling slack */
#define RG_BYTES ((size_t)2 * ROWS_PER_RG * (VALUE_LEN + 4))

static uint64_t rng = 88172645463325252ULL;

static void random_hex(char *out)
{
	for (int i = 0; i < VALUE_LEN; i++) {
		rng ^= rng << 13;
		rng ^= rng >> 7;
		rng ^= rng << 17;
		out[i] = "0123456789abcdef"[rng >> 60];
	}
	out[VALUE_LEN] = 0;
}

static void write_file(dl_buf *out)
{
	dl_type *st = dl_type_new(DL_TYPE_STRING);
	dl_field f = {(char *)"s", st, true, (char *)"{}"};
	dl_type *schema = dl_type_struct(&f, 1);
	assert_non_null(schema);
	pq_sink sink;
	pq_sink_init_buf(&sink, out);
	pq_writer_options o = PQ_WRITER_OPTIONS_INIT;
	o.codec = PQ_CODEC_UNCOMPRESSED;
	o.dictionary = false;
	o.row_group_rows = ROWS_PER_RG;
	pq_writer *w;
	assert_int_equal(pq_writer_open(&w, schema, &sink, &o), 0);
	char v[VALUE_LEN + 1];
	for (int g = 0; g < RGS; g++) {
		dl_batch *b = dl_batch_new(schema, ROWS_PER_RG);
		assert_non_null(b);
		dl_builder *bl;
		assert_int_equal(dl_builder_new(&bl, st), 0);
		for (int r = 0; r < ROWS_PER_RG; r++) {
			random_hex(v);
			assert_int_equal(dl_builder_append_str(bl, v), 0);
		}
		assert_int_equal(dl_builder_finish(&b->cols[0], bl), 0);
		dl_builder_free(bl);
		assert_int_equal(pq_writer_write(w, b), 0);
		dl_batch_free(b);
	}
	assert_int_equal(pq_writer_close(w), 0);
	pq_writer_free(w);
	dl_type_unref(schema);
	dl_type_unref(st);
}

/* Reads the batches left to read; returns the rows and raises *peak to the
 * pool's largest size after a batch was freed. */
static int64_t drain(pq_reader *r, size_t *peak)
{
	int64_t rows = 0;
	for (;;) {
		dl_batch *b;
		int64_t first;
		assert_int_equal(pq_reader_next(r, &b, &first), 0);
		if (!b) return rows;
		assert_int_equal(b->cols[0]->data_len, (int64_t)b->num_rows * VALUE_LEN);
		rows += b->num_rows;
		dl_batch_free(b);
		size_t m = pq_reader_pooled_bytes(r);
		if (m > *peak) *peak = m;
	}
}

static void pool_stays_about_one_batch(void **state)
{
	(void)state;
	dl_buf file = DL_BUF_INIT;
	write_file(&file);
	pq_reader *r;
	assert_int_equal(pq_reader_open_memory(&r, (const uint8_t *)file.data, file.len, "strings.parquet"), 0);
	assert_int_equal(pq_reader_num_row_groups(r), RGS);

	size_t whole = 0;
	assert_int_equal(drain(r, &whole), (int64_t)RGS * ROWS_PER_RG);

	size_t one_by_one = 0;
	for (int g = 0; g < RGS; g++) {
		assert_int_equal(pq_reader_rewind(r), 0);
		assert_int_equal(pq_reader_set_row_groups(r, &g, 1), 0);
		assert_int_equal(drain(r, &one_by_one), ROWS_PER_RG);
	}
	print_message("pooled at most %zu bytes read whole, %zu a row group at a time (%d row groups of %zu "
	              "bytes with slack)\n",
	              whole, one_by_one, RGS, RG_BYTES);
	assert_true(whole < 3 * RG_BYTES);
	assert_true(one_by_one < 3 * RG_BYTES);
	pq_reader_free(r);
	dl_buf_free(&file);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(pool_stays_about_one_batch),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
