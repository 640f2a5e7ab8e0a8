/* Property test: random nested schemas and random data (with nulls at every
 * level) built with the builders must survive Arrow export/import, slicing,
 * taking, concatenation and repetition unchanged, and every cell must
 * render; Arrow IPC written and read back gives the same values. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <string.h>
#include "columnar/arrow_c.h"
#include "columnar/builder.h"
#include "columnar/format_value.h"
#include "columnar/ipc_reader.h"
#include "columnar/ipc_writer.h"
#include "util/buf.h"

static uint64_t rng_state;

static uint32_t rnd(uint32_t n)
{
	rng_state = rng_state * 6364136223846793005ULL + 1442695040888963407ULL;
	return n ? (uint32_t)(rng_state >> 33) % n : 0;
}

static dl_type *random_primitive(bool allow_null)
{
	static const dl_type_id ids[] = {DL_TYPE_BOOLEAN, DL_TYPE_BYTE, DL_TYPE_SHORT, DL_TYPE_INTEGER, DL_TYPE_LONG,
	                                 DL_TYPE_FLOAT, DL_TYPE_DOUBLE, DL_TYPE_DECIMAL, DL_TYPE_STRING, DL_TYPE_BINARY,
	                                 DL_TYPE_DATE, DL_TYPE_TIMESTAMP, DL_TYPE_TIMESTAMP_NTZ, DL_TYPE_NULL};
	dl_type_id id = ids[rnd(allow_null ? 14 : 13)];
	if (id == DL_TYPE_DECIMAL) {
		int p = 1 + (int)rnd(38);
		return dl_type_decimal(p, (int)rnd((uint32_t)p + 1));
	}
	return dl_type_new(id);
}

static dl_type *random_type(int depth)
{
	uint32_t k = depth >= 3 ? 0 : rnd(9);
	if (k < 4) return random_primitive(true);
	if (k < 6) {
		int n = 1 + (int)rnd(3);
		dl_field f[3];
		char names[3][8];
		for (int i = 0; i < n; i++) {
			snprintf(names[i], sizeof names[i], "f%d", i);
			f[i] = (dl_field){names[i], random_type(depth + 1), rnd(4) != 0, NULL};
		}
		dl_type *t = dl_type_struct(f, n);
		for (int i = 0; i < n; i++) dl_type_unref(f[i].type);
		return t;
	}
	if (k < 7) {
		dl_type *el = random_type(depth + 1), *t = dl_type_array(el, rnd(4) != 0);
		dl_type_unref(el);
		return t;
	}
	if (k < 8) {
		dl_type *key = random_primitive(false), *val = random_type(depth + 1);
		dl_type *t = dl_type_map(key, val, rnd(4) != 0);
		dl_type_unref(key);
		dl_type_unref(val);
		return t;
	}
	return dl_type_variant();
}

static void append_random(dl_builder *b, const dl_type *t, bool nullable)
{
	if (t->id == DL_TYPE_NULL || (nullable && rnd(5) == 0)) {
		assert_int_equal(dl_builder_append_null(b), 0);
		return;
	}
	char s[16];
	switch (t->id) {
	case DL_TYPE_BOOLEAN: assert_int_equal(dl_builder_append_bool(b, rnd(2)), 0); break;
	case DL_TYPE_BYTE: assert_int_equal(dl_builder_append_int(b, (int64_t)rnd(256) - 128), 0); break;
	case DL_TYPE_SHORT: assert_int_equal(dl_builder_append_int(b, (int64_t)rnd(65536) - 32768), 0); break;
	case DL_TYPE_INTEGER:
	case DL_TYPE_DATE: assert_int_equal(dl_builder_append_int(b, (int32_t)(rnd(UINT32_MAX) - INT32_MAX)), 0); break;
	case DL_TYPE_LONG:
	case DL_TYPE_TIMESTAMP:
	case DL_TYPE_TIMESTAMP_NTZ:
		assert_int_equal(dl_builder_append_int(b, ((int64_t)rnd(UINT32_MAX) << 20) - ((int64_t)1 << 50)), 0);
		break;
	case DL_TYPE_FLOAT:
	case DL_TYPE_DOUBLE: assert_int_equal(dl_builder_append_double(b, (double)rnd(100000) / 64.0 - 500), 0); break;
	case DL_TYPE_DECIMAL: {
		dl_i128 lim = 1;
		for (int i = 0; i < t->precision && i < 18; i++) lim *= 10;
		dl_i128 v = (dl_i128)(((int64_t)rnd(UINT32_MAX) << 31 | rnd(UINT32_MAX)) % (int64_t)lim);
		assert_int_equal(dl_builder_append_decimal(b, rnd(2) ? v : -v), 0);
		break;
	}
	case DL_TYPE_STRING:
	case DL_TYPE_BINARY: {
		size_t n = rnd(12);
		for (size_t i = 0; i < n; i++) s[i] = (char)('a' + rnd(26));
		assert_int_equal(dl_builder_append_bytes(b, s, n), 0);
		break;
	}
	case DL_TYPE_STRUCT:
		assert_int_equal(dl_builder_begin_struct(b), 0);
		for (int i = 0; i < t->nchildren; i++)
			append_random(dl_builder_child(b, i), t->children[i].type, t->children[i].nullable);
		assert_int_equal(dl_builder_end_struct(b), 0);
		break;
	case DL_TYPE_ARRAY: {
		assert_int_equal(dl_builder_begin_list(b), 0);
		uint32_t n = rnd(4);
		for (uint32_t i = 0; i < n; i++)
			append_random(dl_builder_child(b, 0), t->children[0].type, t->children[0].nullable);
		assert_int_equal(dl_builder_end_list(b), 0);
		break;
	}
	case DL_TYPE_MAP: {
		assert_int_equal(dl_builder_begin_list(b), 0);
		uint32_t n = rnd(3);
		for (uint32_t i = 0; i < n; i++) {
			append_random(dl_builder_child(b, 0), t->children[0].type, false);
			append_random(dl_builder_child(b, 1), t->children[1].type, t->children[1].nullable);
		}
		assert_int_equal(dl_builder_end_list(b), 0);
		break;
	}
	case DL_TYPE_VARIANT: {
		uint8_t value[2] = {3 << 2, (uint8_t)rnd(256)}, meta[3] = {1, 0, 0};
		assert_int_equal(dl_builder_begin_struct(b), 0);
		assert_int_equal(dl_builder_append_bytes(dl_builder_child(b, 0), value, 2), 0);
		assert_int_equal(dl_builder_append_bytes(dl_builder_child(b, 1), meta, 3), 0);
		assert_int_equal(dl_builder_end_struct(b), 0);
		break;
	}
	default: fail();
	}
}

static void assert_same(const dl_array *a, int64_t ai, const dl_array *b, int64_t bi, int64_t n, uint64_t seed)
{
	for (int64_t k = 0; k < n; k++)
		if (!dl_array_row_equals(a, ai + k, b, bi + k))
			fail_msg("seed %llu: row %lld differs from %lld", (unsigned long long)seed, (long long)(ai + k),
			         (long long)(bi + k));
}

static void random_round_trips(void **state)
{
	(void)state;
	for (uint64_t seed = 1; seed <= 300; seed++) {
		rng_state = seed;
		dl_type *t = random_type(0);
		assert_non_null(t);
		dl_builder *b;
		assert_int_equal(dl_builder_new(&b, t), 0);
		int64_t n = rnd(40);
		for (int64_t r = 0; r < n; r++) append_random(b, t, true);
		dl_array *a;
		assert_int_equal(dl_builder_finish(&a, b), 0);
		dl_builder_free(b);
		assert_int_equal(a->length, n);

		/* export -> import */
		dl_array *copy = dl_array_slice(a, 0, n);
		struct ArrowSchema sch;
		struct ArrowArray arr;
		assert_int_equal(dl_arrow_export_field(&sch, t, "c", true, NULL), 0);
		assert_int_equal(dl_arrow_export_array(&arr, copy), 0);
		dl_array *back;
		assert_int_equal(dl_arrow_import_array(&back, &arr, &sch), 0);
		assert_true(dl_type_equals(back->type, t));
		assert_same(back, 0, a, 0, n, seed);
		dl_array_free(back);
		sch.release(&sch);

		/* import of an exported array seen at an offset (the copy path) */
		if (n > 0) {
			int64_t k = rnd((uint32_t)n);
			assert_int_equal(dl_arrow_export_field(&sch, t, "c", true, NULL), 0);
			assert_int_equal(dl_arrow_export_array(&arr, dl_array_slice(a, 0, n)), 0);
			arr.offset = k;
			arr.length = n - k;
			arr.null_count = -1;
			assert_int_equal(dl_arrow_import_array(&back, &arr, &sch), 0);
			assert_int_equal(back->length, n - k);
			assert_same(back, 0, a, k, n - k, seed);
			dl_array_free(back);
			sch.release(&sch);
		}

		/* Arrow IPC: writer -> reader */
		{
			dl_field f = {"c", t, true, NULL};
			dl_type *schema = dl_type_struct(&f, 1);
			dl_batch *bt = dl_batch_new(schema, n);
			bt->cols[0] = dl_array_slice(a, 0, n);
			dl_buf ipc = DL_BUF_INIT;
			dl_ipc_writer *w;
			assert_int_equal(dl_ipc_writer_new_buf(&w, schema, &ipc), 0);
			assert_int_equal(dl_ipc_writer_write(w, bt), 0);
			assert_int_equal(dl_ipc_writer_finish(w), 0);
			dl_ipc_writer_free(w);
			dl_ipc_reader *r;
			assert_int_equal(dl_ipc_reader_open(&r, (const uint8_t *)ipc.data, ipc.len, "random"), 0);
			assert_true(dl_type_equals(dl_ipc_reader_schema(r), schema));
			dl_batch *rb;
			assert_int_equal(dl_ipc_reader_next(r, &rb), 0);
			assert_non_null(rb);
			assert_same(rb->cols[0], 0, a, 0, n, seed);
			dl_batch_free(rb);
			dl_ipc_reader_free(r);
			dl_buf_free(&ipc);
			dl_batch_free(bt);
			dl_type_unref(schema);
		}

		/* slices, take, concat, repeat */
		int64_t cut = n ? rnd((uint32_t)n + 1) : 0;
		dl_array *p1 = dl_array_slice(a, 0, cut), *p2 = dl_array_slice(a, cut, n - cut);
		dl_array *parts[] = {p2, p1};
		dl_array *cat = dl_array_concat(parts, 2);
		assert_same(cat, 0, a, cut, n - cut, seed);
		assert_same(cat, n - cut, a, 0, cut, seed);
		uint32_t sel[64];
		int64_t ns = n ? rnd(64) : 0;
		for (int64_t i = 0; i < ns; i++) sel[i] = rnd((uint32_t)n);
		dl_array *tk = dl_array_take(a, sel, ns);
		for (int64_t i = 0; i < ns; i++) assert_same(tk, i, a, sel[i], 1, seed);
		if (n) {
			int64_t row = rnd((uint32_t)n);
			dl_array *rep = dl_array_repeat(a, row, 5);
			for (int64_t i = 0; i < 5; i++) assert_same(rep, i, a, row, 1, seed);
			dl_array_free(rep);
		}
		/* every cell renders in every form */
		dl_buf out = DL_BUF_INIT;
		for (int64_t r = 0; r < n; r++) {
			assert_int_equal(dl_format_value(&out, a, r), 0);
			assert_int_equal(dl_format_value_json(&out, a, r), 0);
			assert_int_equal(dl_format_value_csv(&out, a, r, ','), 0);
		}
		dl_buf_free(&out);
		dl_array *all[] = {p1, p2, cat, tk, a};
		for (int i = 0; i < 5; i++) dl_array_free(all[i]);
		dl_type_unref(t);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(random_round_trips),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
