/* The public Parquet API (deltalake/parquet.h): write a stream with
 * options, then open the file and check its footer, schema (text and
 * nodes), column chunks and rows; hostile files fail with DL_ECORRUPT. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "columnar/batch_stream.h"
#include "columnar/builder.h"
#include "deltalake/parquet.h"

/* id BIGINT (0..4), name STRING ("n0".. with a null at 2), price DECIMAL(6,2). */
static void sample_stream(struct ArrowArrayStream *out)
{
	dl_type *lng = dl_type_new(DL_TYPE_LONG), *str = dl_type_new(DL_TYPE_STRING), *dec = dl_type_decimal(6, 2);
	dl_field f[] = {{"id", lng, false, "{\"parquet.field.id\":7}"}, {"name", str, true, NULL}, {"price", dec, true, NULL}};
	dl_type *schema = dl_type_struct(f, 3);
	dl_batch *b = dl_batch_new(schema, 5);
	dl_builder *bl[3];
	for (int i = 0; i < 3; i++) assert_int_equal(dl_builder_new(&bl[i], f[i].type), 0);
	for (int r = 0; r < 5; r++) {
		char s[8];
		snprintf(s, sizeof s, "n%d", r);
		assert_int_equal(dl_builder_append_int(bl[0], r), 0);
		assert_int_equal(r == 2 ? dl_builder_append_null(bl[1]) : dl_builder_append_str(bl[1], s), 0);
		assert_int_equal(dl_builder_append_decimal(bl[2], r * 125 - 250), 0);
	}
	for (int i = 0; i < 3; i++) {
		assert_int_equal(dl_builder_finish(&b->cols[i], bl[i]), 0);
		dl_builder_free(bl[i]);
	}
	dl_batch_stream *bs;
	assert_int_equal(dl_batch_stream_from_batches(&bs, schema, &b, 1), 0);
	assert_int_equal(dl_batch_stream_export(out, bs), 0);
	dl_type_unref(schema);
	dl_type_unref(lng);
	dl_type_unref(str);
	dl_type_unref(dec);
}

static char path[64];

static void write_then_inspect(void **state)
{
	(void)state;
	struct ArrowArrayStream st;
	sample_stream(&st);
	const char *keys[] = {"k1"}, *vals[] = {"v1"};
	dl_parquet_write_options wo = DL_PARQUET_WRITE_OPTIONS_INIT;
	wo.compression = "snappy";
	wo.row_group_rows = 2;
	wo.root_name = "spark_schema";
	wo.metadata_keys = keys;
	wo.metadata_values = vals;
	wo.nmetadata = 1;
	FILE *fp = fopen(path, "wb");
	assert_non_null(fp);
	assert_int_equal(dl_parquet_write_stream(fp, &st, &wo), 0);
	assert_null(st.release); /* consumed */
	fclose(fp);

	dl_parquet_file *f;
	assert_int_equal(dl_parquet_open(&f, path), 0);
	dl_parquet_file_info info;
	dl_parquet_file_info_get(&info, f);
	assert_int_equal(info.num_rows, 5);
	assert_int_equal(info.num_row_groups, 3); /* 2 + 2 + 1 rows */
	assert_string_equal(info.root_name, "spark_schema");
	assert_int_equal(info.nkey_values, 1);
	const char *k, *v;
	dl_parquet_key_value_at(&k, &v, f, 0);
	assert_string_equal(k, "k1");
	assert_string_equal(v, "v1");

	const char *text;
	assert_int_equal(dl_parquet_schema_text(&text, f), 0);
	assert_string_equal(text, "message spark_schema {\n"
	                          "  required INT64 id = 7;\n"
	                          "  optional BYTE_ARRAY name (STRING);\n"
	                          "  optional INT32 price (DECIMAL(6,2));\n"
	                          "}\n");
	size_t n;
	assert_int_equal(dl_parquet_schema_node_count(&n, f), 0);
	assert_int_equal(n, 3);
	dl_parquet_schema_node nd;
	assert_int_equal(dl_parquet_schema_node_at(&nd, f, 0), 0);
	assert_string_equal(nd.path, "id");
	assert_true(nd.has_field_id);
	assert_int_equal(nd.field_id, 7);
	assert_string_equal(nd.repetition, "required");
	assert_int_equal(dl_parquet_schema_node_at(&nd, f, 1), 0);
	assert_string_equal(nd.logical, "STRING");
	assert_string_equal(nd.converted, "UTF8");
	assert_int_equal(dl_parquet_schema_node_at(&nd, f, 3), DL_EINVALID);

	int ncols;
	assert_int_equal(dl_parquet_column_count(&ncols, f), 0);
	assert_int_equal(ncols, 3);
	dl_parquet_column_chunk c;
	assert_int_equal(dl_parquet_column_chunk_at(&c, f, 1, 1), 0); /* rows 2, 3: null and "n3" */
	assert_string_equal(c.path, "name");
	assert_string_equal(c.codec, "SNAPPY");
	assert_int_equal(c.num_values, 2);
	assert_int_equal(c.null_count, 1);
	assert_string_equal(c.min, "n3");
	assert_string_equal(c.max, "n3");
	assert_int_equal(dl_parquet_column_chunk_at(&c, f, 0, 2), 0); /* -2.50, -1.25 */
	assert_string_equal(c.min, "-2.50");
	assert_string_equal(c.max, "-1.25");
	assert_string_equal(c.logical_type, "DECIMAL(6,2)");
	assert_int_equal(dl_parquet_column_chunk_at(&c, f, 3, 0), DL_EINVALID);

	struct ArrowSchema as;
	assert_int_equal(dl_parquet_arrow_schema(&as, f), 0);
	assert_int_equal(as.n_children, 3);
	assert_string_equal(as.children[2]->format, "d:6,2");
	dl_arrow_schema_release(&as);

	/* Projection, in the order asked, case-insensitive. */
	const char *cols[] = {"PRICE", "id"};
	dl_parquet_read_options ro = DL_PARQUET_READ_OPTIONS_INIT;
	ro.columns = cols;
	ro.ncolumns = 2;
	assert_int_equal(dl_parquet_read(&st, f, &ro), 0);
	assert_int_equal(st.get_schema(&st, &as), 0);
	assert_string_equal(as.children[0]->name, "price");
	dl_arrow_formatter *fm;
	assert_int_equal(dl_arrow_formatter_new(&fm, &as), 0);
	int64_t total = 0;
	for (;;) {
		struct ArrowArray a;
		assert_int_equal(st.get_next(&st, &a), 0);
		if (!a.release) break;
		int64_t rows;
		assert_int_equal(dl_arrow_formatter_set_batch(&rows, fm, &a), 0);
		const char *t;
		size_t len;
		assert_int_equal(dl_arrow_formatter_cell(&t, &len, fm, 0, 0, DL_FORMAT_TEXT), 0);
		char want[16];
		snprintf(want, sizeof want, "%.2f", (total * 125 - 250) / 100.0);
		assert_string_equal(t, want);
		total += rows;
	}
	assert_int_equal(total, 5);
	dl_arrow_formatter_free(fm);
	dl_arrow_schema_release(&as);
	st.release(&st);
	const char *bad[] = {"nope"};
	ro.columns = bad;
	ro.ncolumns = 1;
	assert_int_equal(dl_parquet_read(&st, f, &ro), DL_ENOTFOUND);
	dl_parquet_free(f);
}

static void hostile_files_and_options(void **state)
{
	(void)state;
	FILE *fp = fopen(path, "wb");
	fputs("PAR1 this is not a parquet file at all", fp);
	fclose(fp);
	dl_parquet_file *f;
	assert_int_equal(dl_parquet_open(&f, path), DL_ECORRUPT);
	assert_non_null(strstr(dl_error_last()->message, "not a Parquet file"));
	fp = fopen(path, "wb");
	fputs("PAR1", fp);
	fclose(fp);
	assert_int_equal(dl_parquet_open(&f, path), DL_ECORRUPT);
	assert_non_null(strstr(dl_error_last()->message, "too small"));
	/* A footer length past the file's start. */
	fp = fopen(path, "wb");
	fwrite("PAR1\0\0\0\0\xff\xff\x00\x00PAR1", 1, 16, fp);
	fclose(fp);
	assert_int_equal(dl_parquet_open(&f, path), DL_ECORRUPT);
	assert_non_null(strstr(dl_error_last()->message, "exceeds the file size"));
	assert_int_equal(dl_parquet_open(&f, "/nonexistent/dir/x.parquet"), DL_ENOTFOUND);

	assert_true(dl_parquet_codec_supported("ZSTD"));
	assert_true(dl_parquet_codec_supported("none"));
	assert_false(dl_parquet_codec_supported("lz4"));
	assert_false(dl_parquet_codec_supported("lzo"));
	assert_false(dl_parquet_codec_supported("xz"));
	struct ArrowArrayStream st;
	sample_stream(&st);
	dl_parquet_write_options wo = DL_PARQUET_WRITE_OPTIONS_INIT;
	wo.compression = "xz";
	fp = fopen(path, "wb");
	assert_int_equal(dl_parquet_write_stream(fp, &st, &wo), DL_EINVALID);
	assert_null(st.release); /* released even on failure */
	fclose(fp);
}

static int setup(void **state)
{
	(void)state;
	snprintf(path, sizeof path, "/tmp/dl_pq_api_%ld.parquet", (long)getpid());
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	unlink(path);
	return 0;
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(write_then_inspect),
		cmocka_unit_test(hostile_files_and_options),
	};
	return cmocka_run_group_tests(tests, setup, teardown);
}
