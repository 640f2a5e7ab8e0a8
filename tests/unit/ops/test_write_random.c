/* Property test: random schemas (every primitive type, structs, arrays and
 * maps nested, NOT NULL fields, a NullType column now and then), random
 * rows with nulls, written with random column mapping modes and file
 * limits, must read back row for row - through this library's snapshot and
 * scan - exactly as written. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include "ops_fixture.h"

static uint64_t g_rng;

static uint32_t rnd(uint32_t n)
{
	g_rng ^= g_rng << 13;
	g_rng ^= g_rng >> 7;
	g_rng ^= g_rng << 17;
	return n ? (uint32_t)(g_rng % n) : 0;
}

static dl_type *rand_primitive(void)
{
	static const dl_type_id ids[] = {DL_TYPE_BOOLEAN, DL_TYPE_BYTE, DL_TYPE_SHORT, DL_TYPE_INTEGER,
	                                 DL_TYPE_LONG, DL_TYPE_FLOAT, DL_TYPE_DOUBLE, DL_TYPE_DECIMAL,
	                                 DL_TYPE_STRING, DL_TYPE_BINARY, DL_TYPE_DATE, DL_TYPE_TIMESTAMP,
	                                 DL_TYPE_TIMESTAMP_NTZ};
	dl_type_id id = ids[rnd(sizeof ids / sizeof ids[0])];
	if (id == DL_TYPE_DECIMAL) {
		int p = 1 + (int)rnd(38);
		return dl_type_decimal(p, (int)rnd((uint32_t)p + 1));
	}
	return dl_type_new(id);
}

static dl_type *rand_type(int depth)
{
	uint32_t k = depth >= 3 ? 0 : rnd(8);
	if (k < 4) return rand_primitive();
	if (k < 6) {
		int n = 1 + (int)rnd(3);
		dl_field f[3];
		char names[3][8];
		for (int i = 0; i < n; i++) {
			snprintf(names[i], sizeof names[i], "n%d", i);
			f[i] = (dl_field){names[i], rand_type(depth + 1), rnd(4) != 0, NULL};
		}
		dl_type *t = dl_type_struct(f, n);
		for (int i = 0; i < n; i++) dl_type_unref(f[i].type);
		return t;
	}
	if (k < 7) {
		dl_type *e = rand_type(depth + 1), *t = dl_type_array(e, rnd(3) != 0);
		dl_type_unref(e);
		return t;
	}
	dl_type *key = rand_primitive(), *val = rand_type(depth + 1);
	dl_type *t = dl_type_map(key, val, rnd(3) != 0);
	dl_type_unref(key);
	dl_type_unref(val);
	return t;
}

static void rand_value(dl_builder *b, const dl_type *t, bool nullable)
{
	if (t->id == DL_TYPE_NULL || (nullable && rnd(6) == 0)) {
		assert_int_equal(dl_builder_append_null(b), 0);
		return;
	}
	char s[24];
	switch (t->id) {
	case DL_TYPE_BOOLEAN: assert_int_equal(dl_builder_append_bool(b, rnd(2)), 0); break;
	case DL_TYPE_BYTE: assert_int_equal(dl_builder_append_int(b, (int64_t)rnd(256) - 128), 0); break;
	case DL_TYPE_SHORT: assert_int_equal(dl_builder_append_int(b, (int64_t)rnd(65536) - 32768), 0); break;
	case DL_TYPE_INTEGER: assert_int_equal(dl_builder_append_int(b, (int64_t)rnd(UINT32_MAX) - INT32_MAX), 0); break;
	case DL_TYPE_DATE: assert_int_equal(dl_builder_append_int(b, (int64_t)rnd(200000) - 100000), 0); break;
	case DL_TYPE_LONG: case DL_TYPE_TIMESTAMP: case DL_TYPE_TIMESTAMP_NTZ:
		assert_int_equal(dl_builder_append_int(b, ((int64_t)rnd(1u << 30) << 21) - ((int64_t)1 << 50)), 0);
		break;
	case DL_TYPE_FLOAT: case DL_TYPE_DOUBLE:
		assert_int_equal(dl_builder_append_double(b, (double)rnd(1000000) / 128.0 - 3000), 0);
		break;
	case DL_TYPE_DECIMAL: {
		dl_i128 lim = 1;
		for (int i = 0; i < t->precision && i < 18; i++) lim *= 10;
		dl_i128 v = (dl_i128)(((uint64_t)rnd(UINT32_MAX) << 32 | rnd(UINT32_MAX)) % (uint64_t)lim);
		assert_int_equal(dl_builder_append_decimal(b, rnd(2) ? v : -v), 0);
		break;
	}
	case DL_TYPE_STRING: case DL_TYPE_BINARY: {
		/* Some long strings, so stats truncation is exercised. */
		size_t n = rnd(4) == 0 ? 20 + rnd(4) : rnd(8);
		for (size_t i = 0; i < n; i++) s[i] = (char)('a' + rnd(26));
		dl_buf long_s = DL_BUF_INIT;
		if (n >= 20)
			for (int r = 0; r < 3; r++) dl_buf_append(&long_s, s, n);
		assert_int_equal(n >= 20 ? dl_builder_append_bytes(b, long_s.data, long_s.len)
		                         : dl_builder_append_bytes(b, s, n), 0);
		dl_buf_free(&long_s);
		break;
	}
	case DL_TYPE_STRUCT:
		assert_int_equal(dl_builder_begin_struct(b), 0);
		for (int i = 0; i < t->nchildren; i++)
			rand_value(dl_builder_child(b, i), t->children[i].type, t->children[i].nullable);
		assert_int_equal(dl_builder_end_struct(b), 0);
		break;
	case DL_TYPE_ARRAY: {
		assert_int_equal(dl_builder_begin_list(b), 0);
		for (uint32_t i = 0, n = rnd(4); i < n; i++)
			rand_value(dl_builder_child(b, 0), t->children[0].type, t->children[0].nullable);
		assert_int_equal(dl_builder_end_list(b), 0);
		break;
	}
	case DL_TYPE_MAP: {
		assert_int_equal(dl_builder_begin_list(b), 0);
		for (uint32_t i = 0, n = rnd(3); i < n; i++) {
			rand_value(dl_builder_child(b, 0), t->children[0].type, false);
			rand_value(dl_builder_child(b, 1), t->children[1].type, t->children[1].nullable);
		}
		assert_int_equal(dl_builder_end_list(b), 0);
		break;
	}
	default: fail();
	}
}

/* Column 0 is the row number, so rows can be matched whatever the file order. */
static dl_batch *rand_batch(int64_t rows)
{
	int n = 2 + (int)rnd(5);
	dl_field f[8];
	char names[8][8];
	for (int i = 0; i < n; i++) {
		snprintf(names[i], sizeof names[i], i ? "c%d" : "rn", i);
		dl_type *t = i == 0 ? dl_type_new(DL_TYPE_LONG)
		             : rnd(12) == 0 ? dl_type_new(DL_TYPE_NULL) : rand_type(0);
		f[i] = (dl_field){names[i], t, i == 0 || t->id == DL_TYPE_NULL || rnd(4) != 0, NULL};
	}
	dl_type *schema = dl_type_struct(f, n);
	dl_batch *b = dl_batch_new(schema, rows);
	for (int i = 0; i < n; i++) {
		dl_builder *bb;
		assert_int_equal(dl_builder_new(&bb, f[i].type), 0);
		for (int64_t r = 0; r < rows; r++) {
			if (i == 0) assert_int_equal(dl_builder_append_int(bb, r), 0);
			else rand_value(bb, f[i].type, f[i].nullable);
		}
		assert_int_equal(dl_builder_finish(&b->cols[i], bb), 0);
		dl_builder_free(bb);
		dl_type_unref(f[i].type);
	}
	dl_type_unref(schema);
	return b;
}

static void check_round_trip(const char *uri, const dl_batch *want, uint64_t seed)
{
	dl_snapshot *snap;
	assert_int_equal(dl_snapshot_open(&snap, uri, NULL), 0);
	dl_scan *scan;
	assert_int_equal(dl_scan_open(&scan, snap, NULL), 0);
	dl_batch_stream *st;
	assert_int_equal(dl_scan_batches(&st, scan), 0);
	int64_t seen = 0;
	dl_batch *b;
	while (dl_batch_stream_next(st, &b) == 0 && b) {
		assert_int_equal(b->ncols, want->ncols);
		for (int64_t r = 0; r < b->num_rows; r++) {
			int64_t rn = ((const int64_t *)b->cols[0]->values)[r];
			assert_in_range(rn, 0, want->num_rows - 1);
			for (int c = 1; c < b->ncols; c++) {
				bool same = want->cols[c]->type->id == DL_TYPE_NULL
				                ? !dl_array_is_valid(b->cols[c], r)
				                : dl_array_row_equals(want->cols[c], rn, b->cols[c], r);
				if (!same) fail_msg("seed %llu: row %lld column %s differs", (unsigned long long)seed,
				                    (long long)rn, want->schema->children[c].name);
			}
		}
		seen += b->num_rows;
		dl_batch_free(b);
	}
	assert_int_equal(seen, want->num_rows);
	dl_batch_stream_free(st);
	dl_scan_free(scan);
	dl_snapshot_free(snap);
}

static void test_random_round_trips(void **state)
{
	(void)state;
	for (int iter = 0; iter < 40; iter++) {
		uint64_t seed = 0x9E3779B97F4A7C15ULL * (uint64_t)(iter + 1);
		g_rng = seed;
		char name[32];
		snprintf(name, sizeof name, "t%d", iter);
		char *uri = fx_table(g_dir, name);
		dl_batch *b = rand_batch((int64_t)rnd(300));
		dl_batch *copy = dl_batch_slice(b, 0, b->num_rows);
		static const char *modes[] = {"none", "name", "id"};
		const char *keys[] = {"delta.columnMapping.mode"}, *vals[] = {modes[rnd(3)]};
		dl_write_options o = fx_opts(DL_WRITE_ERROR_IF_EXISTS);
		o.property_keys = keys;
		o.property_values = vals;
		o.nproperties = 1;
		o.max_records_per_file = rnd(2) ? 0 : 1 + rnd(100);
		dl_batch_stream *s;
		dl_type *t = dl_type_ref(b->schema);
		assert_int_equal(dl_batch_stream_from_batches(&s, t, &b, 1), 0);
		dl_type_unref(t);
		int64_t v;
		int rc = dl_ops_write(&v, uri, s, &o, NULL, NULL);
		dl_batch_stream_free(s);
		if (rc < 0) fail_msg("seed %llu: write failed: %s", (unsigned long long)seed, dl_error_last()->message);
		check_round_trip(uri, copy, seed);
		dl_batch_free(copy);
		dl_free(uri);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_random_round_trips),
	};
	return cmocka_run_group_tests(tests, fx_setup_tmpdir, fx_teardown_tmpdir);
}
