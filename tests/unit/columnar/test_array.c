#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <string.h>
#include "columnar/array.h"
#include "columnar/builder.h"
#include "util/error.h"
#include "columnar/bits.h"
#include "sample.h"

static void assert_rows_equal(const dl_array *a, int64_t ai, const dl_array *b, int64_t bi, int64_t n)
{
	for (int64_t k = 0; k < n; k++) {
		if (!dl_array_row_equals(a, ai + k, b, bi + k))
			fail_msg("row %lld differs from row %lld (type %s)", (long long)(ai + k), (long long)(bi + k),
			         dl_type_id_name(a->type->id));
	}
}

static void builders_fill_every_type(void **state)
{
	(void)state;
	dl_batch *b = sample_batch(37);
	assert_int_equal(b->ncols, 19);
	const int32_t *i32 = b->cols[3]->values;
	for (int r = 0; r < 37; r++) assert_int_equal(i32[r], r);
	assert_null(b->cols[3]->validity);
	assert_int_equal(dl_array_null_count(b->cols[3]), 0);
	/* column 0: null when r % 4 == 3 */
	assert_int_equal(dl_array_null_count(b->cols[0]), 9);
	assert_false(dl_array_is_valid(b->cols[0], 3));
	assert_true(dl_bit_get(b->cols[0]->values, 4));
	assert_false(dl_bit_get(b->cols[0]->values, 5));
	/* strings: "str<r>é" */
	const dl_array *s = b->cols[8];
	assert_int_equal(s->offsets[1] - s->offsets[0], 6);
	assert_memory_equal(s->data + s->offsets[1], "str1\xc3\xa9", 6);
	/* struct children follow the struct's rows, nulls included */
	const dl_array *st = b->cols[13];
	assert_int_equal(st->children[0]->length, 37);
	assert_false(dl_array_is_valid(st, 2));
	assert_false(dl_array_is_valid(st->children[0], 2));
	assert_int_equal(((int64_t *)st->children[0]->values)[4], 4);
	/* map: entries struct with key/value children of equal length */
	const dl_array *m = b->cols[15];
	assert_int_equal(m->nchildren, 1);
	assert_int_equal(m->children[0]->type->id, DL_TYPE_STRUCT);
	assert_int_equal(m->children[0]->length, m->offsets[37]);
	assert_int_equal(m->children[0]->children[0]->length, m->offsets[37]);
	/* the void column */
	assert_int_equal(dl_array_null_count(b->cols[18]), 37);
	assert_false(dl_array_is_valid(b->cols[18], 0));
	dl_batch_free(b);
}

static void slice_take_concat_preserve_values(void **state)
{
	(void)state;
	dl_batch *b = sample_batch(41);
	uint32_t sel[] = {0, 1, 2, 3, 7, 8, 9, 40, 5, 5, 13, 14, 15, 16, 17, 30};
	int64_t nsel = sizeof sel / sizeof *sel;
	for (int c = 0; c < b->ncols; c++) {
		const dl_array *a = b->cols[c];
		dl_array *sl = dl_array_slice(a, 5, 23);
		assert_non_null(sl);
		assert_int_equal(sl->length, 23);
		assert_rows_equal(sl, 0, a, 5, 23);
		dl_array *tk = dl_array_take(a, sel, nsel);
		assert_non_null(tk);
		for (int64_t k = 0; k < nsel; k++) assert_rows_equal(tk, k, a, sel[k], 1);
		dl_array *p1 = dl_array_slice(a, 0, 10), *p2 = dl_array_slice(a, 10, 0), *p3 = dl_array_slice(a, 10, 31);
		dl_array *parts[] = {p1, p2, p3};
		dl_array *cat = dl_array_concat(parts, 3);
		assert_non_null(cat);
		assert_int_equal(cat->length, 41);
		assert_rows_equal(cat, 0, a, 0, 41);
		assert_int_equal(dl_array_null_count(cat), dl_array_null_count((dl_array *)a));
		dl_array *all[] = {sl, tk, p1, p2, p3, cat};
		for (int k = 0; k < 6; k++) dl_array_free(all[k]);
	}
	dl_batch *t = dl_batch_take(b, sel, nsel);
	assert_non_null(t);
	assert_int_equal(dl_batch_validate(t), 0);
	assert_int_equal(t->num_rows, nsel);
	dl_batch_free(t);
	dl_batch_free(b);
}

static void errors_are_reported(void **state)
{
	(void)state;
	dl_batch *b = sample_batch(4);
	uint32_t bad = 4;
	assert_null(dl_array_take(b->cols[8], &bad, 1));
	assert_int_equal(dl_error_last()->code, DL_EINVALID);
	assert_null(dl_array_slice(b->cols[8], 3, 2));
	dl_array *mixed[] = {b->cols[0], b->cols[1]};
	assert_null(dl_array_concat(mixed, 2));
	dl_batch_free(b);

	dl_type *i8 = dl_type_new(DL_TYPE_BYTE);
	dl_builder *bb;
	assert_int_equal(dl_builder_new(&bb, i8), 0);
	assert_int_equal(dl_builder_append_int(bb, 200), DL_EINVALID);
	assert_int_equal(dl_builder_append_str(bb, "x"), DL_EINVALID);
	assert_int_equal(dl_builder_append_int(bb, -128), 0);
	dl_builder_free(bb);
	dl_field f[] = {{"a", i8, true, NULL}, {"b", i8, true, NULL}};
	dl_type *st = dl_type_struct(f, 2);
	assert_int_equal(dl_builder_new(&bb, st), 0);
	assert_int_equal(dl_builder_begin_struct(bb), 0);
	assert_int_equal(dl_builder_append_int(dl_builder_child(bb, 0), 1), 0);
	assert_int_equal(dl_builder_end_struct(bb), DL_EINVALID);
	assert_non_null(strstr(dl_error_last()->message, "'b'"));
	dl_array *out;
	assert_int_equal(dl_builder_finish(&out, bb), DL_EINVALID);
	dl_builder_free(bb);
	dl_type *d = dl_type_decimal(3, 1);
	assert_int_equal(dl_builder_new(&bb, d), 0);
	assert_int_equal(dl_builder_append_decimal(bb, 999), 0);
	assert_int_equal(dl_builder_append_decimal(bb, -1000), DL_EINVALID);
	dl_builder_free(bb);
	dl_type_unref(d);
	dl_type_unref(st);
	dl_type_unref(i8);
}

static void bulk_fixed_and_reuse(void **state)
{
	(void)state;
	dl_type *i64 = dl_type_new(DL_TYPE_LONG);
	dl_builder *b;
	assert_int_equal(dl_builder_new(&b, i64), 0);
	int64_t vals[100];
	uint8_t valid[13];
	memset(valid, 0xff, sizeof valid);
	for (int i = 0; i < 100; i++) vals[i] = i * 3;
	valid[1] = 0xfe; /* row 8 null, with offset 3 => output row 5 */
	for (int round = 0; round < 2; round++) {
		assert_int_equal(dl_builder_append_int(b, -1), 0);
		assert_int_equal(dl_builder_append_fixed(b, vals, 90, valid, 3), 0);
		assert_int_equal(dl_builder_length(b), 91);
		dl_array *a;
		assert_int_equal(dl_builder_finish(&a, b), 0);
		assert_int_equal(a->length, 91);
		assert_int_equal(dl_array_null_count(a), 1);
		assert_false(dl_array_is_valid(a, 6));
		assert_true(dl_array_is_valid(a, 7));
		assert_int_equal(((int64_t *)a->values)[90], 89 * 3);
		assert_int_equal(dl_builder_length(b), 0);
		dl_array_free(a);
	}
	dl_builder_free(b);
	dl_type *bt = dl_type_new(DL_TYPE_BOOLEAN);
	assert_int_equal(dl_builder_new(&b, bt), 0);
	uint8_t bools[20] = {1, 0, 1, 1};
	assert_int_equal(dl_builder_append_fixed(b, bools, 20, NULL, 0), 0);
	dl_array *a;
	assert_int_equal(dl_builder_finish(&a, b), 0);
	assert_true(dl_bit_get(a->values, 3));
	assert_false(dl_bit_get(a->values, 1));
	assert_int_equal(dl_array_null_count(a), 0);
	dl_array_free(a);
	dl_builder_free(b);
	dl_type_unref(bt);
	dl_type_unref(i64);
}

static void new_null_and_empty_arrays(void **state)
{
	(void)state;
	dl_type *schema = sample_schema();
	for (int c = 0; c < schema->nchildren; c++) {
		dl_array *a = dl_array_new_null(schema->children[c].type, 5);
		assert_non_null(a);
		assert_int_equal(dl_array_null_count(a), 5);
		for (int r = 0; r < 5; r++) assert_false(dl_array_is_valid(a, r));
		dl_array *s = dl_array_slice(a, 1, 3);
		assert_int_equal(dl_array_null_count(s), 3);
		dl_array_free(s);
		dl_array_free(a);
		dl_array *e = dl_array_new(schema->children[c].type, 0);
		assert_non_null(e);
		dl_array *arr[] = {e, e};
		dl_array *cat = dl_array_concat(arr, 2);
		assert_int_equal(cat->length, 0);
		dl_array_free(cat);
		dl_array_free(e);
	}
	dl_type_unref(schema);
	dl_selection sel = {0};
	assert_int_equal(dl_selection_reserve(&sel, 3000), 0);
	assert_true(sel.cap >= 3000);
	dl_selection_free(&sel);
}

static void bit_copy_matches_reference(void **state)
{
	(void)state;
	uint8_t src[40], dst[48], ref[48];
	uint32_t x = 12345;
	for (size_t i = 0; i < sizeof src; i++) {
		x = x * 1103515245u + 12345u;
		src[i] = (uint8_t)(x >> 16);
	}
	for (int soff = 0; soff < 9; soff++) {
		for (int doff = 0; doff < 9; doff++) {
			for (int n = 0; n < 200; n += 7) {
				memset(dst, 0xA5, sizeof dst);
				memcpy(ref, dst, sizeof ref);
				dl_bits_copy(dst, doff, src, soff, n);
				for (int i = 0; i < n; i++) {
					if (dl_bit_get(src, soff + i)) dl_bit_set(ref, doff + i);
					else dl_bit_clear(ref, doff + i);
				}
				assert_memory_equal(dst, ref, sizeof dst);
				int c = 0;
				for (int i = 0; i < n; i++) c += dl_bit_get(src, soff + i);
				assert_int_equal(dl_bits_count(src, soff, n), c);
			}
		}
	}
}

static void repeat_and_batch_slice_concat(void **state)
{
	(void)state;
	dl_batch *b = sample_batch(9);
	for (int c = 0; c < b->ncols; c++) {
		for (int64_t row = 0; row < 4; row++) {
			dl_array *r = dl_array_repeat(b->cols[c], row, 13);
			assert_non_null(r);
			assert_int_equal(r->length, 13);
			for (int64_t k = 0; k < 13; k++) assert_rows_equal(r, k, b->cols[c], row, 1);
			assert_int_equal(dl_array_null_count(r), dl_array_is_valid(b->cols[c], row) ? 0 : 13);
			dl_array_free(r);
		}
		dl_array *z = dl_array_repeat(b->cols[c], 1, 0);
		assert_int_equal(z->length, 0);
		dl_array_free(z);
	}
	assert_null(dl_array_repeat(b->cols[0], 9, 1));
	dl_batch *p1 = dl_batch_slice(b, 0, 4), *p2 = dl_batch_slice(b, 4, 5);
	assert_non_null(p1);
	assert_non_null(p2);
	dl_batch *parts[] = {p1, p2};
	dl_batch *all = dl_batch_concat(parts, 2);
	assert_non_null(all);
	assert_int_equal(dl_batch_validate(all), 0);
	for (int c = 0; c < b->ncols; c++) assert_rows_equal(all->cols[c], 0, b->cols[c], 0, 9);
	dl_batch_free(all);
	dl_batch_free(p1);
	dl_batch_free(p2);
	dl_batch_free(b);
}

static void relabel_with_same_layout(void **state)
{
	(void)state;
	dl_batch *b = sample_batch(6);
	/* Rename every field at every level (as column mapping does). */
	dl_type *renamed = dl_type_ref(b->schema);
	dl_type *old = b->schema;
	dl_field f[19];
	char names[19][16];
	for (int i = 0; i < old->nchildren; i++) {
		f[i] = old->children[i];
		snprintf(names[i], sizeof names[i], "col-%d", i);
		f[i].name = names[i];
	}
	dl_type *cst = f[13].type; /* struct<x, y> -> struct<X1, Y1> */
	dl_field sf[2] = {cst->children[0], cst->children[1]};
	sf[0].name = "X1";
	sf[1].name = "Y1";
	f[13].type = dl_type_struct(sf, 2);
	dl_type *logical = dl_type_struct(f, 19);
	dl_type_unref(f[13].type);
	dl_batch *expect = sample_batch(6);
	assert_int_equal(dl_batch_set_schema(b, logical), 0);
	assert_ptr_equal(b->schema, logical);
	assert_string_equal(b->cols[13]->type->children[0].name, "X1");
	assert_int_equal(dl_batch_validate(b), 0);
	for (int c = 0; c < b->ncols; c++) assert_rows_equal(b->cols[c], 0, expect->cols[c], 0, 6);
	/* A different layout is refused and nothing changes. */
	dl_field bad[19];
	memcpy(bad, f, sizeof bad);
	bad[3].type = f[4].type; /* int -> long */
	dl_type *wrong = dl_type_struct(bad, 19);
	assert_int_equal(dl_batch_set_schema(b, wrong), DL_ESCHEMA);
	assert_ptr_equal(b->schema, logical);
	dl_type *d = dl_type_decimal(11, 2);
	assert_int_equal(dl_array_set_type(b->cols[7], d), DL_ESCHEMA);
	dl_type_unref(d);
	dl_type_unref(wrong);
	dl_type_unref(logical);
	dl_type_unref(renamed);
	dl_batch_free(expect);
	dl_batch_free(b);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(builders_fill_every_type),
		cmocka_unit_test(slice_take_concat_preserve_values),
		cmocka_unit_test(errors_are_reported),
		cmocka_unit_test(bulk_fixed_and_reuse),
		cmocka_unit_test(new_null_and_empty_arrays),
		cmocka_unit_test(bit_copy_matches_reference),
		cmocka_unit_test(repeat_and_batch_slice_concat),
		cmocka_unit_test(relabel_with_same_layout),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
