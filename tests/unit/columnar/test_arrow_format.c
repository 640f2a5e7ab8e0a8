/* dl_arrow_formatter and dl_arrow_stream_limit over Arrow C data. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <string.h>
#include "columnar/arrow_c.h"
#include "columnar/batch_stream.h"
#include "util/error.h"
#include "sample.h"

static void cells_in_each_style(void **state)
{
	(void)state;
	dl_batch *b = sample_batch(8);
	struct ArrowSchema schema;
	assert_int_equal(dl_arrow_export_schema(&schema, b->schema), 0);
	dl_arrow_formatter *f;
	assert_int_equal(dl_arrow_formatter_new(&f, &schema), 0);
	const char *t;
	size_t len;
	assert_int_equal(dl_arrow_formatter_cell(&t, &len, f, 0, 0, DL_FORMAT_TEXT), DL_EINVALID); /* no batch yet */
	struct ArrowArray arr;
	assert_int_equal(dl_arrow_export_batch(&arr, b), 0);
	int64_t rows;
	assert_int_equal(dl_arrow_formatter_set_batch(&rows, f, &arr), 0);
	assert_null(arr.release); /* taken over */
	assert_int_equal(rows, 8);
	/* column 8 "s": "str0é"; column 7 decimal(10,2): 12345 - 99 at row 1 */
	assert_int_equal(dl_arrow_formatter_cell(&t, &len, f, 8, 0, DL_FORMAT_TEXT), 0);
	assert_string_equal(t, "str0\xc3\xa9");
	assert_int_equal(len, strlen(t));
	assert_int_equal(dl_arrow_formatter_cell(&t, &len, f, 8, 0, DL_FORMAT_JSON), 0);
	assert_string_equal(t, "\"str0\xc3\xa9\"");
	assert_int_equal(dl_arrow_formatter_cell(&t, &len, f, 7, 1, DL_FORMAT_TEXT), 0);
	assert_string_equal(t, "122.46");
	assert_int_equal(dl_arrow_formatter_cell(&t, &len, f, 0, 0, DL_FORMAT_JSON), 0);
	assert_string_equal(t, "true");
	/* a struct in CSV is quoted: it holds ", " */
	assert_int_equal(dl_arrow_formatter_cell(&t, &len, f, 13, 0, DL_FORMAT_CSV), 0);
	assert_true(t[0] == '"');
	/* nulls: (r + col) % 4 == 3 */
	assert_int_equal(dl_arrow_formatter_cell(&t, &len, f, 0, 3, DL_FORMAT_TEXT), 0);
	assert_null(t);
	assert_int_equal(dl_arrow_formatter_cell(&t, &len, f, 99, 0, DL_FORMAT_TEXT), DL_EINVALID);
	assert_int_equal(dl_arrow_formatter_cell(&t, &len, f, 0, 8, DL_FORMAT_TEXT), DL_EINVALID);
	dl_arrow_formatter_free(f);
	struct ArrowSchema notstruct = {.format = "l"};
	assert_int_equal(dl_arrow_formatter_new(&f, &notstruct), DL_EINVALID);
	dl_arrow_schema_release(&schema);
}

/* Three batches of 5 rows cut at `limit`: the row counts that come out. */
static void limited(int64_t limit, const int64_t *want, int nwant)
{
	dl_batch *bs[3] = {sample_batch(5), sample_batch(5), sample_batch(5)};
	dl_batch_stream *s;
	assert_int_equal(dl_batch_stream_from_batches(&s, bs[0]->schema, bs, 3), 0);
	struct ArrowArrayStream in, out;
	assert_int_equal(dl_batch_stream_export(&in, s), 0);
	assert_int_equal(dl_arrow_stream_limit(&out, &in, limit), 0);
	assert_null(in.release);
	struct ArrowSchema schema;
	assert_int_equal(out.get_schema(&out, &schema), 0);
	dl_arrow_schema_release(&schema);
	int got = 0;
	for (;;) {
		struct ArrowArray a;
		assert_int_equal(out.get_next(&out, &a), 0);
		if (!a.release) break;
		assert_true(got < nwant);
		assert_int_equal(a.length, want[got++]);
		a.release(&a);
	}
	assert_int_equal(got, nwant);
	out.release(&out);
}

static void stream_limit(void **state)
{
	(void)state;
	const int64_t seven[] = {5, 2}, all[] = {5, 5, 5}, five[] = {5};
	limited(7, seven, 2);
	limited(-1, all, 3);
	limited(5, five, 1);
	limited(0, NULL, 0);
	limited(100, all, 3);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(cells_in_each_style),
		cmocka_unit_test(stream_limit),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
