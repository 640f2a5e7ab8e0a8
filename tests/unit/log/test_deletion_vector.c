/* Deletion vectors: ids and paths, inline and on-disk bitmaps, checksums. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "log/deletion_vector.h"
#include "util/error.h"
#include "util/mem.h"
#include "util/z85.h"
#include <roaring/roaring.h>

static const char *shared_dir(void)
{
	const char *d = getenv("DL_SHARED_DIR");
	return d && *d ? d : DL_SHARED_DIR;
}

static void ids_and_paths(void **state)
{
	(void)state;
	/* PROTOCOL.md "JSON Example 1" */
	dl_dv_descriptor dv = {'u', "ab^-aqEH.-t@S}K{vb[*k^", 4, 40, 6, -1};
	dl_buf b = DL_BUF_INIT;
	assert_int_equal(dl_dv_file_path(&dv, &b), 0);
	assert_string_equal(b.data, "ab/deletion_vector_d2c639aa-8816-431a-aaf6-d3fe2512ff61.bin");
	dl_buf_clear(&b);
	assert_int_equal(dl_dv_unique_id(&dv, &b), 0);
	assert_string_equal(b.data, "uab^-aqEH.-t@S}K{vb[*k^@4");
	dl_buf_clear(&b);
	dl_dv_descriptor in = {'i', "wi5b=000010000siXQKl0rr91000f55c8Xg0@@D72lkbi5=-{L", -1, 40, 6, -1};
	assert_int_equal(dl_dv_unique_id(&in, &b), 0);
	assert_string_equal(b.data, "iwi5b=000010000siXQKl0rr91000f55c8Xg0@@D72lkbi5=-{L");
	dl_buf_clear(&b);
	assert_int_equal(dl_dv_file_path(&in, &b), DL_EINVALID);
	dl_dv_descriptor shortid = {'u', "abc", 1, 1, 1, -1};
	assert_int_equal(dl_dv_file_path(&shortid, &b), DL_ECORRUPT);
	dl_buf_free(&b);
}

static void inline_dvs(void **state)
{
	(void)state;
	/* inline DVs written by Spark (kernel-data/cdf-table-with-dv) */
	dl_dv_descriptor one = {'i', "^Bg9^0rr910000000000iXQKl0rr91000005c8Xg##093", -1, 34, 1, -1};
	dl_dv_descriptor two = {'i', "^Bg9^0rr910000000000iXQKl0rr91000315c8Xg000f5", -1, 36, 2, -1};
	dl_dv_rows rows;
	assert_int_equal(dl_dv_load(&rows, NULL, &one), 0);
	assert_int_equal(rows.cardinality, 1);
	dl_dv_rows_free(&rows);
	assert_int_equal(dl_dv_load(&rows, NULL, &two), 0);
	assert_int_equal(rows.cardinality, 2);
	dl_dv_rows_free(&rows);
	two.cardinality = 7; /* the log disagrees with the bitmap */
	assert_int_equal(dl_dv_load(&rows, NULL, &two), DL_ECORRUPT);
	two.size_in_bytes = 400; /* more bytes than the text holds */
	assert_int_equal(dl_dv_load(&rows, NULL, &two), DL_ECORRUPT);

	/* our own: serialize, Z85-encode, load back */
	uint64_t want[] = {3, 4, 7, 11, 18, 29};
	dl_dv_rows mine;
	assert_int_equal(dl_dv_rows_from_array(&mine, want, 6), 0);
	dl_buf bin = DL_BUF_INIT, text = DL_BUF_INIT;
	assert_int_equal(dl_dv_rows_serialize(&mine, &bin), 0);
	assert_int_equal(dl_z85_encode(&text, bin.data, bin.len), 0);
	dl_dv_descriptor in = {'i', text.data, -1, (int32_t)bin.len, 6, -1};
	assert_int_equal(dl_dv_load(&rows, NULL, &in), 0);
	uint64_t *a;
	size_t n;
	assert_int_equal(dl_dv_rows_to_array(&rows, &a, &n), 0);
	assert_int_equal(n, 6);
	assert_memory_equal(a, want, sizeof want);
	assert_true(dl_dv_rows_contains(&rows, 18));
	assert_false(dl_dv_rows_contains(&rows, 5));
	dl_free(a);
	dl_dv_rows_free(&rows);
	dl_dv_rows_free(&mine);
	dl_buf_free(&bin);
	dl_buf_free(&text);
}

static void file_from_spark(void **state)
{
	(void)state;
	char root[1024];
	snprintf(root, sizeof root, "%s/conformance/golden/log-replay-dv-key-cases/delta", shared_dir());
	dl_store *st;
	assert_int_equal(dl_store_open(&st, root, NULL), 0);
	dl_dv_descriptor dv = {'u', "^jP?.<zvDfIGb{C.FPij", 1, 38, 3, -1};
	dl_dv_rows rows;
	assert_int_equal(dl_dv_load(&rows, st, &dv), 0);
	assert_int_equal(rows.cardinality, 3);
	uint64_t *a;
	size_t n;
	assert_int_equal(dl_dv_rows_to_array(&rows, &a, &n), 0);
	assert_int_equal(n, 3);
	assert_true(a[0] < a[1] && a[1] < a[2]);
	dl_free(a);
	dl_dv_rows_free(&rows);
	/* the same DV through an absolute 'p' path (URI-encoded, file: scheme) */
	char abs[2048];
	snprintf(abs, sizeof abs, "file:%s/deletion_vector_%s.bin", root, "d12e7d16-e46d-48c9-8a71-b222c26dfc3b");
	dl_dv_descriptor p = {'p', abs, 1, 38, 3, -1}; /* a 47-byte file: 38 bytes of DV */
	dl_dv_rows prow;
	assert_int_equal(dl_dv_load(&prow, st, &p), 0);
	assert_int_equal(prow.cardinality, 3);
	dl_dv_rows_free(&prow);
	dl_dv_descriptor wrong = dv;
	wrong.size_in_bytes = 37;
	assert_int_equal(dl_dv_load(&rows, st, &wrong), DL_ECORRUPT);
	assert_non_null(strstr(dl_error_last()->message, "deletion_vector_"));
	dl_store_free(st);
}

static void write_read_and_corruption(void **state)
{
	(void)state;
	uint64_t in[] = {0, 9, 70000, (1ULL << 32) + 5, 3ULL << 33};
	dl_dv_rows rows, back;
	assert_int_equal(dl_dv_rows_from_array(&rows, in, 5), 0);
	assert_int_equal(rows.nbuckets, 3);
	dl_buf file = DL_BUF_INIT;
	int64_t off;
	int32_t size;
	assert_int_equal(dl_dv_write_file(&rows, &file, &off, &size), 0);
	assert_int_equal(off, 1);
	assert_int_equal(dl_dv_parse_file(&back, (uint8_t *)file.data, file.len, off, size, "f"), 0);
	uint64_t *a;
	size_t n;
	assert_int_equal(dl_dv_rows_to_array(&back, &a, &n), 0);
	assert_int_equal(n, 5);
	assert_memory_equal(a, in, sizeof in);
	dl_free(a);
	dl_dv_rows_free(&back);
	/* a flipped bit fails the CRC; truncation and bad offsets are caught */
	file.data[20] ^= 1;
	assert_int_equal(dl_dv_parse_file(&back, (uint8_t *)file.data, file.len, off, size, "f"), DL_ECORRUPT);
	assert_non_null(strstr(dl_error_last()->message, "CRC"));
	file.data[20] ^= 1;
	assert_int_equal(dl_dv_parse_file(&back, (uint8_t *)file.data, file.len - 1, off, size, "f"), DL_ECORRUPT);
	assert_int_equal(dl_dv_parse_file(&back, (uint8_t *)file.data, file.len, 1000, size, "f"), DL_ECORRUPT);
	assert_int_equal(dl_dv_parse_file(&back, (uint8_t *)file.data, file.len, -3, size, "f"), DL_ECORRUPT);
	file.data[0] = 2;
	assert_int_equal(dl_dv_parse_file(&back, (uint8_t *)file.data, file.len, off, size, "f"), DL_ECORRUPT);
	/* bad magic, absurd bucket counts */
	uint8_t junk[16] = {1, 2, 3, 4, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff};
	assert_int_equal(dl_dv_rows_deserialize(&back, junk, sizeof junk, "j"), DL_ECORRUPT);
	junk[0] = 0xd1, junk[1] = 0xd3, junk[2] = 0x33, junk[3] = 0x64;
	assert_int_equal(dl_dv_rows_deserialize(&back, junk, sizeof junk, "j"), DL_ECORRUPT);
	dl_buf_free(&file);
	dl_dv_rows_free(&rows);

	/* a tiny bitmap claiming 2^32 rows: contains works, listing is refused */
	uint64_t full[] = {0};
	assert_int_equal(dl_dv_rows_from_array(&rows, full, 1), 0);
	roaring_bitmap_add_range(rows.buckets[0].bitmap, 0, (uint64_t)1 << 32);
	rows.cardinality = (uint64_t)1 << 32;
	uint64_t *arr;
	size_t cnt;
	assert_int_equal(dl_dv_rows_to_array(&rows, &arr, &cnt), DL_ENOMEM);
	assert_true(dl_dv_rows_contains(&rows, 4000000000ull));
	dl_dv_rows_free(&rows);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(ids_and_paths),
		cmocka_unit_test(inline_dvs),
		cmocka_unit_test(file_from_spark),
		cmocka_unit_test(write_read_and_corruption),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
