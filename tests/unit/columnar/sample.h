/* Test helper: a batch with every type, nested arbitrarily, and nulls at
 * varied places, built through the builders. */
#ifndef TEST_COLUMNAR_SAMPLE_H
#define TEST_COLUMNAR_SAMPLE_H
#include <stdio.h>
#include "columnar/builder.h"

static dl_type *sample_t(dl_type_id id)
{
	dl_type *t = dl_type_new(id);
	assert_non_null(t);
	return t;
}

/* The schema: one column per primitive type plus nested columns. */
static dl_type *sample_schema(void)
{
	dl_type *p[DL_TYPE_TIMESTAMP_NTZ + 1];
	for (int i = 0; i <= DL_TYPE_TIMESTAMP_NTZ; i++)
		p[i] = i == DL_TYPE_DECIMAL ? dl_type_decimal(10, 2) : sample_t((dl_type_id)i);
	dl_field sf[] = {{"x", p[DL_TYPE_LONG], true, NULL}, {"y", p[DL_TYPE_STRING], true, NULL}};
	dl_type *st = dl_type_struct(sf, 2);
	dl_type *arr = dl_type_array(p[DL_TYPE_INTEGER], true);
	dl_type *darr = dl_type_array(p[DL_TYPE_DOUBLE], true);
	dl_type *m = dl_type_map(p[DL_TYPE_STRING], darr, true);
	dl_type *im = dl_type_map(p[DL_TYPE_INTEGER], p[DL_TYPE_STRING], true);
	dl_field kf[] = {{"k", p[DL_TYPE_STRING], true, NULL}, {"v", im, true, NULL}};
	dl_type *kst = dl_type_struct(kf, 2);
	dl_type *deep = dl_type_array(kst, true);
	dl_type *var = dl_type_variant();
	dl_field f[] = {
		{"b", p[DL_TYPE_BOOLEAN], true, NULL}, {"i8", p[DL_TYPE_BYTE], true, NULL},
		{"i16", p[DL_TYPE_SHORT], true, NULL}, {"i32", p[DL_TYPE_INTEGER], false, "{\"comment\":\"id\"}"},
		{"i64", p[DL_TYPE_LONG], true, NULL}, {"f32", p[DL_TYPE_FLOAT], true, NULL},
		{"f64", p[DL_TYPE_DOUBLE], true, NULL}, {"dec", p[DL_TYPE_DECIMAL], true, NULL},
		{"s", p[DL_TYPE_STRING], true, NULL}, {"bin", p[DL_TYPE_BINARY], true, NULL},
		{"dt", p[DL_TYPE_DATE], true, NULL}, {"ts", p[DL_TYPE_TIMESTAMP], true, NULL},
		{"tsn", p[DL_TYPE_TIMESTAMP_NTZ], true, NULL}, {"st", st, true, NULL},
		{"arr", arr, true, NULL}, {"m", m, true, NULL}, {"deep", deep, true, NULL},
		{"v", var, true, NULL}, {"n", p[DL_TYPE_NULL], true, NULL},
	};
	dl_type *schema = dl_type_struct(f, (int)(sizeof f / sizeof *f));
	assert_non_null(schema);
	for (int i = 0; i <= DL_TYPE_TIMESTAMP_NTZ; i++) dl_type_unref(p[i]);
	dl_type *tmp[] = {st, arr, darr, m, im, kst, deep, var};
	for (size_t i = 0; i < sizeof tmp / sizeof *tmp; i++) dl_type_unref(tmp[i]);
	return schema;
}

static int sample_is_null(int col, int64_t r)
{
	return col != 3 && (r + col) % 4 == 3;
}

static void sample_append(dl_builder *b, int col, int64_t r)
{
	char s[64];
	if (col == 18 || sample_is_null(col, r)) {
		assert_int_equal(dl_builder_append_null(b), 0);
		return;
	}
	switch (col) {
	case 0: assert_int_equal(dl_builder_append_bool(b, r % 2 == 0), 0); break;
	case 1: assert_int_equal(dl_builder_append_int(b, (int64_t)(r % 200) - 100), 0); break;
	case 2: assert_int_equal(dl_builder_append_int(b, -700 * r), 0); break;
	case 3: assert_int_equal(dl_builder_append_int(b, r), 0); break;
	case 4: assert_int_equal(dl_builder_append_int(b, r * 10000000000LL - 5), 0); break;
	case 5: assert_int_equal(dl_builder_append_double(b, (double)r + 0.5), 0); break;
	case 6: assert_int_equal(dl_builder_append_double(b, (double)r * -0.25), 0); break;
	case 7: assert_int_equal(dl_builder_append_decimal(b, ((dl_i128)r * 12345 - 99) * (r % 3 == 0 ? -1 : 1)), 0); break;
	case 8:
		snprintf(s, sizeof s, "str%lld\xc3\xa9", (long long)r);
		assert_int_equal(dl_builder_append_str(b, s), 0);
		break;
	case 9: {
		uint8_t bin[3] = {(uint8_t)r, 0xff, 0};
		assert_int_equal(dl_builder_append_bytes(b, bin, (size_t)(r % 4)), 0);
		break;
	}
	case 10: assert_int_equal(dl_builder_append_int(b, 18000 + r), 0); break;
	case 11: assert_int_equal(dl_builder_append_int(b, 1600000000000000LL + r * 1000001), 0); break;
	case 12: assert_int_equal(dl_builder_append_int(b, -86400000000LL + r), 0); break;
	case 13:
		assert_int_equal(dl_builder_begin_struct(b), 0);
		assert_int_equal(dl_builder_append_int(dl_builder_child(b, 0), r), 0);
		if (r % 3 == 0) assert_int_equal(dl_builder_append_null(dl_builder_child(b, 1)), 0);
		else assert_int_equal(dl_builder_append_str(dl_builder_child(b, 1), "yy"), 0);
		assert_int_equal(dl_builder_end_struct(b), 0);
		break;
	case 14:
		assert_int_equal(dl_builder_begin_list(b), 0);
		for (int64_t k = 0; k < r % 4; k++) {
			if (k == 1) assert_int_equal(dl_builder_append_null(dl_builder_child(b, 0)), 0);
			else assert_int_equal(dl_builder_append_int(dl_builder_child(b, 0), r + k), 0);
		}
		assert_int_equal(dl_builder_end_list(b), 0);
		break;
	case 15:
		assert_int_equal(dl_builder_begin_list(b), 0);
		for (int64_t k = 0; k < r % 3; k++) {
			snprintf(s, sizeof s, "k%lld", (long long)k);
			assert_int_equal(dl_builder_append_str(dl_builder_child(b, 0), s), 0);
			dl_builder *vb = dl_builder_child(b, 1);
			if (k == 1) {
				assert_int_equal(dl_builder_append_null(vb), 0);
				continue;
			}
			assert_int_equal(dl_builder_begin_list(vb), 0);
			assert_int_equal(dl_builder_append_double(dl_builder_child(vb, 0), 1.5 * (double)r), 0);
			assert_int_equal(dl_builder_end_list(vb), 0);
		}
		assert_int_equal(dl_builder_end_list(b), 0);
		break;
	case 16:
		assert_int_equal(dl_builder_begin_list(b), 0);
		for (int64_t k = 0; k < 2; k++) {
			dl_builder *sb = dl_builder_child(b, 0);
			assert_int_equal(dl_builder_begin_struct(sb), 0);
			assert_int_equal(dl_builder_append_str(dl_builder_child(sb, 0), k ? "b" : "a"), 0);
			dl_builder *mb = dl_builder_child(sb, 1);
			assert_int_equal(dl_builder_begin_list(mb), 0);
			assert_int_equal(dl_builder_append_int(dl_builder_child(mb, 0), (int64_t)k), 0);
			assert_int_equal(dl_builder_append_str(dl_builder_child(mb, 1), "v"), 0);
			assert_int_equal(dl_builder_end_list(mb), 0);
			assert_int_equal(dl_builder_end_struct(sb), 0);
		}
		assert_int_equal(dl_builder_end_list(b), 0);
		break;
	case 17: {
		/* variant: the primitive int8 value r with an empty metadata dictionary */
		uint8_t value[2] = {3 << 2, (uint8_t)r}, meta[3] = {1, 0, 0};
		assert_int_equal(dl_builder_begin_struct(b), 0);
		assert_int_equal(dl_builder_append_bytes(dl_builder_child(b, 0), value, 2), 0);
		assert_int_equal(dl_builder_append_bytes(dl_builder_child(b, 1), meta, 3), 0);
		assert_int_equal(dl_builder_end_struct(b), 0);
		break;
	}
	default: fail();
	}
}

static dl_batch *sample_batch(int64_t nrows)
{
	dl_type *schema = sample_schema();
	dl_batch *batch = dl_batch_new(schema, nrows);
	assert_non_null(batch);
	for (int c = 0; c < batch->ncols; c++) {
		dl_builder *b;
		assert_int_equal(dl_builder_new(&b, schema->children[c].type), 0);
		for (int64_t r = 0; r < nrows; r++) sample_append(b, c, r);
		assert_int_equal(dl_builder_finish(&batch->cols[c], b), 0);
		dl_builder_free(b);
	}
	dl_type_unref(schema);
	assert_int_equal(dl_batch_validate(batch), 0);
	return batch;
}

#endif
