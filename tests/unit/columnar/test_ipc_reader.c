/* Arrow IPC reader: round trips through the writer, the file format, the
 * public FILE* entry point, and hostile input (every truncation, byte
 * flips). With --read <path> it prints a stream's rows as JSON lines for
 * tests/integration/arrow_ipc.sh (files written by arrow-js). */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "columnar/arrow_c.h"
#include "columnar/format_value.h"
#include "columnar/ipc_reader.h"
#include "columnar/ipc_writer.h"
#include "util/error.h"
#include "util/mem.h"
#include "sample.h"

static const int64_t sizes[] = {29, 0, 7};

static void write_sample(dl_buf *out)
{
	dl_type *schema = sample_schema();
	dl_ipc_writer *w;
	assert_int_equal(dl_ipc_writer_new_buf(&w, schema, out), 0);
	for (int i = 0; i < 3; i++) {
		dl_batch *b = sample_batch(sizes[i]);
		assert_int_equal(dl_ipc_writer_write(w, b), 0);
		dl_batch_free(b);
	}
	assert_int_equal(dl_ipc_writer_finish(w), 0);
	dl_ipc_writer_free(w);
	dl_type_unref(schema);
}

static void assert_batch_matches(const dl_batch *got, int64_t rows)
{
	dl_batch *expect = sample_batch(rows);
	assert_int_equal(got->num_rows, rows);
	assert_true(dl_type_equals(got->schema, expect->schema));
	for (int c = 0; c < got->ncols; c++)
		for (int64_t r = 0; r < rows; r++)
			if (!dl_array_row_equals(got->cols[c], r, expect->cols[c], r)) fail_msg("col %d row %lld", c, (long long)r);
	dl_batch_free(expect);
}

static void round_trip(void **state)
{
	(void)state;
	dl_buf buf = DL_BUF_INIT;
	write_sample(&buf);
	for (int file_format = 0; file_format < 2; file_format++) {
		dl_buf in = DL_BUF_INIT;
		if (file_format) dl_buf_append(&in, "ARROW1\0\0", 8);
		dl_buf_append(&in, buf.data, buf.len);
		dl_ipc_reader *r;
		assert_int_equal(dl_ipc_reader_open(&r, (const uint8_t *)in.data, in.len, "sample"), 0);
		const dl_type *s = dl_ipc_reader_schema(r);
		assert_string_equal(s->children[3].metadata, "{\"comment\":\"id\"}");
		assert_int_equal(s->children[17].type->id, DL_TYPE_VARIANT);
		assert_false(s->children[3].nullable);
		for (int i = 0; i < 3; i++) {
			dl_batch *b;
			assert_int_equal(dl_ipc_reader_next(r, &b), 0);
			assert_non_null(b);
			assert_batch_matches(b, sizes[i]);
			dl_batch_free(b);
		}
		dl_batch *end;
		assert_int_equal(dl_ipc_reader_next(r, &end), 0);
		assert_null(end);
		dl_ipc_reader_free(r);
		dl_buf_free(&in);
	}
	dl_buf_free(&buf);
}

static void public_file_entry_point(void **state)
{
	(void)state;
	dl_buf buf = DL_BUF_INIT;
	write_sample(&buf);
	FILE *f = fmemopen(buf.data, buf.len, "rb");
	struct ArrowArrayStream st;
	assert_int_equal(dl_arrow_ipc_read_stream(&st, f), 0);
	fclose(f);
	struct ArrowSchema sch;
	assert_int_equal(st.get_schema(&st, &sch), 0);
	for (int i = 0; i < 3; i++) {
		struct ArrowArray a;
		assert_int_equal(st.get_next(&st, &a), 0);
		assert_non_null(a.release);
		dl_batch *b;
		assert_int_equal(dl_arrow_import_batch(&b, &a, &sch), 0);
		assert_batch_matches(b, sizes[i]);
		dl_batch_free(b);
	}
	struct ArrowArray a;
	assert_int_equal(st.get_next(&st, &a), 0);
	assert_null(a.release);
	sch.release(&sch);
	st.release(&st);
	dl_buf_free(&buf);
}

/* Reads everything; returns 0 or the error code. */
static int read_all(const uint8_t *p, size_t n, int64_t *rows)
{
	dl_ipc_reader *r;
	*rows = 0;
	int rc = dl_ipc_reader_open(&r, p, n, "hostile");
	if (rc < 0) return rc;
	for (;;) {
		dl_batch *b;
		rc = dl_ipc_reader_next(r, &b);
		if (rc < 0 || !b) break;
		*rows += b->num_rows;
		/* whatever was accepted is well-formed enough to render */
		dl_buf out = DL_BUF_INIT;
		for (int c = 0; c < b->ncols; c++)
			for (int64_t i = 0; i < b->num_rows; i++) (void)dl_format_value_json(&out, b->cols[c], i);
		dl_buf_free(&out);
		dl_batch_free(b);
	}
	dl_ipc_reader_free(r);
	return rc;
}

static void hostile_input(void **state)
{
	(void)state;
	dl_buf buf = DL_BUF_INIT;
	write_sample(&buf);
	int64_t rows;
	assert_int_equal(read_all((const uint8_t *)buf.data, buf.len, &rows), 0);
	assert_int_equal(rows, 36);
	/* Every truncation: an error or a clean end at a message boundary.
	 * Copies of the exact size let ASan see any overread. */
	int errors = 0;
	for (size_t n = 0; n < buf.len; n += (n < 2000 ? 1 : 7)) {
		uint8_t *p = dl_malloc(n ? n : 1);
		memcpy(p, buf.data, n);
		int rc = read_all(p, n, &rows);
		if (rc < 0) {
			assert_true(rc == DL_ECORRUPT);
			errors++;
		}
		dl_free(p);
	}
	assert_true(errors > 0);
	/* Byte flips: never a crash; errors are ECORRUPT or EUNSUPPORTED. */
	uint32_t x = 7;
	for (int k = 0; k < 3000; k++) {
		uint8_t *p = dl_malloc(buf.len);
		memcpy(p, buf.data, buf.len);
		for (int j = 0; j < 3; j++) {
			x = x * 1103515245u + 12345u;
			size_t at = (x >> 8) % buf.len;
			x = x * 1103515245u + 12345u;
			p[at] ^= (uint8_t)(1u << ((x >> 16) & 7));
		}
		int rc = read_all(p, buf.len, &rows);
		if (rc < 0 && rc != DL_ECORRUPT && rc != DL_EUNSUPPORTED)
			fail_msg("flip round %d: unexpected error %d: %s", k, rc, dl_error_last()->message);
		dl_free(p);
	}
	dl_buf_free(&buf);
}

/* --read: one JSON object per row, columns by name. */
static int print_rows(const char *path)
{
	FILE *f = fopen(path, "rb");
	if (!f) return 1;
	dl_buf in = DL_BUF_INIT;
	char chunk[4096];
	size_t n;
	while ((n = fread(chunk, 1, sizeof chunk, f)) > 0) dl_buf_append(&in, chunk, n);
	fclose(f);
	dl_ipc_reader *r;
	if (dl_ipc_reader_open(&r, (const uint8_t *)in.data, in.len, path) < 0) {
		fprintf(stderr, "%s\n", dl_error_last()->message);
		return 1;
	}
	const dl_type *s = dl_ipc_reader_schema(r);
	char sql[512];
	dl_type_sql(s, sql, sizeof sql);
	printf("%s\n", sql);
	dl_batch *b;
	int rc;
	while ((rc = dl_ipc_reader_next(r, &b)) == 0 && b) {
		for (int64_t i = 0; i < b->num_rows; i++) {
			dl_buf line = DL_BUF_INIT;
			dl_buf_putc(&line, '{');
			for (int c = 0; c < b->ncols; c++) {
				dl_buf_printf(&line, "%s\"%s\":", c ? "," : "", s->children[c].name);
				dl_format_value_json(&line, b->cols[c], i);
			}
			dl_buf_putc(&line, '}');
			printf("%s\n", line.data);
			dl_buf_free(&line);
		}
		dl_batch_free(b);
	}
	if (rc < 0) fprintf(stderr, "%s\n", dl_error_last()->message);
	dl_ipc_reader_free(r);
	dl_buf_free(&in);
	return rc < 0;
}

int main(int argc, char **argv)
{
	if (argc == 3 && strcmp(argv[1], "--read") == 0) return print_rows(argv[2]);
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(round_trip),
		cmocka_unit_test(public_file_entry_point),
		cmocka_unit_test(hostile_input),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
