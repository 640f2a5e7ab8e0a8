/* OPTIMIZE's candidate and bin rules (Spark's OptimizeExecutor) and the
 * curve functions of multi-dimensional clustering. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdlib.h>
#include <string.h>
#include "optimize/bins.h"
#include "optimize/curve.h"
#include "util/mem.h"

#define MB (1024 * 1024)

static dl_opt_file file(size_t index, uint32_t part, int64_t size)
{
	dl_opt_file f = {index, part, size, 1000, 0, false, false};
	return f;
}

static void candidates(void **state)
{
	(void)state;
	dl_opt_rules r = {DL_OPT_BINPACK, 100 * MB, 100 * MB, 0.05};
	dl_opt_file f = file(0, 0, 50 * MB);
	assert_true(dl_opt_is_candidate(&f, &r));
	f.size = 100 * MB; /* not below minFileSize */
	assert_false(dl_opt_is_candidate(&f, &r));
	f.force = true; /* REORG UPGRADE UNIFORM: rewritten whatever its size */
	assert_true(dl_opt_is_candidate(&f, &r));
	f.force = false;
	f.has_dv = true;
	f.dv_cardinality = 50; /* 5%: not more than the ratio */
	assert_false(dl_opt_is_candidate(&f, &r));
	f.dv_cardinality = 51;
	assert_true(dl_opt_is_candidate(&f, &r));
	/* REORG PURGE: ratio 0, any deleted row */
	r.max_deleted_rows_ratio = 0;
	r.min_file_size = 0;
	f.dv_cardinality = 1;
	assert_true(dl_opt_is_candidate(&f, &r));
	f.has_dv = false;
	f.dv_cardinality = 0;
	assert_false(dl_opt_is_candidate(&f, &r));
	/* Z-order: every file */
	r.mode = DL_OPT_MULTIDIM;
	f.size = 10LL * 1024 * MB;
	assert_true(dl_opt_is_candidate(&f, &r));
}

static void bins_per_partition_by_size(void **state)
{
	(void)state;
	dl_opt_rules r = {DL_OPT_BINPACK, 100 * MB, 100 * MB, 0.05};
	dl_opt_file f[] = {
		file(0, 0, 40 * MB), file(1, 0, 10 * MB), file(2, 0, 30 * MB), file(3, 0, 50 * MB),
		file(4, 1, 10 * MB), file(5, 1, 200 * MB), /* partition 1: one small file left alone */
		file(6, 2, 20 * MB), file(7, 2, 20 * MB),
	};
	dl_opt_plan p;
	assert_int_equal(dl_opt_plan_bins(&p, f, 8, &r), 0);
	/* partition 0 by size: 10, 30, 40 (=80) | 50 alone (dropped); partition 2: 20+20 */
	assert_int_equal(p.nbins, 2);
	assert_int_equal(p.partitions, 2);
	assert_int_equal(p.bins[0].n, 3);
	assert_int_equal(p.bins[0].bytes, 80 * MB);
	assert_int_equal(p.files[p.bins[0].first].index, 1);
	assert_int_equal(p.files[p.bins[0].first + 1].index, 2);
	assert_int_equal(p.files[p.bins[0].first + 2].index, 0);
	assert_int_equal(p.bins[1].n, 2);
	assert_int_equal(p.bins[1].partition, 2);
	assert_int_equal(p.nfiles, 5);
	dl_opt_plan_free(&p);
}

static void single_file_with_dv_is_rewritten(void **state)
{
	(void)state;
	dl_opt_rules r = {DL_OPT_BINPACK, 100 * MB, 100 * MB, 0.05};
	dl_opt_file f[] = {file(0, 0, 150 * MB), file(1, 1, 10 * MB)};
	f[0].has_dv = true;
	f[0].dv_cardinality = 500; /* half the rows deleted */
	dl_opt_plan p;
	assert_int_equal(dl_opt_plan_bins(&p, f, 2, &r), 0);
	assert_int_equal(p.nbins, 1); /* the lone small file of partition 1 is skipped */
	assert_int_equal(p.files[0].index, 0);
	dl_opt_plan_free(&p);
}

static void multidim_takes_whole_partitions(void **state)
{
	(void)state;
	dl_opt_rules r = {DL_OPT_MULTIDIM, 1 * MB, 1 * MB, 0.05};
	dl_opt_file f[] = {file(0, 0, 5 * MB), file(1, 0, 7 * MB), file(2, 1, 9 * MB)};
	dl_opt_plan p;
	assert_int_equal(dl_opt_plan_bins(&p, f, 3, &r), 0);
	assert_int_equal(p.nbins, 2);
	assert_int_equal(p.bins[0].n, 2);
	assert_int_equal(p.bins[0].bytes, 12 * MB);
	assert_int_equal(p.bins[1].n, 1); /* one file is still clustered */
	dl_opt_plan_free(&p);
	assert_int_equal(dl_opt_plan_bins(&p, f, 0, &r), 0);
	assert_int_equal(p.nbins, 0);
	dl_opt_plan_free(&p);
}

static void zorder_interleaves_like_spark(void **state)
{
	(void)state;
	/* Spark's interleave_bits(x, y): bit 31 of x, bit 31 of y, ... */
	uint32_t a[] = {1, 0};
	assert_int_equal(dl_zorder_key(a, 2, 10), 2); /* ...x0 y0 = 10b */
	uint32_t b[] = {0, 1};
	assert_int_equal(dl_zorder_key(b, 2, 10), 1);
	uint32_t c[] = {3, 0};
	assert_int_equal(dl_zorder_key(c, 2, 10), 10); /* x1 y1 x0 y0 = 1010b */
	uint32_t d[] = {5, 6, 7};
	/* bits of 5=101, 6=110, 7=111: planes 2,1,0 -> 111 011 101 */
	assert_int_equal(dl_zorder_key(d, 3, 3), 0x1DD);
	/* more bits than the ids use change no order */
	assert_true(dl_zorder_key(c, 2, 10) > dl_zorder_key(a, 2, 10));
	assert_int_equal(dl_curve_bits(4, 1000), 10);
	assert_int_equal(dl_curve_bits(8, 1000), 7);
	assert_int_equal(dl_curve_bits(1, 2), 1);
}

/* A Hilbert curve visits every cell once and each step moves to a
 * neighbour (one coordinate changes by one). */
static void hilbert_is_a_curve(void **state)
{
	(void)state;
	for (int n = 2; n <= 4; n++) {
		int bits = n == 2 ? 4 : 2;
		int side = 1 << bits;
		int cells = 1;
		for (int i = 0; i < n; i++) cells *= side;
		uint32_t(*at)[4] = calloc((size_t)cells, sizeof *at);
		uint8_t *seen = calloc((size_t)cells, 1);
		for (int cell = 0; cell < cells; cell++) {
			uint32_t p[4];
			int rest = cell;
			for (int i = 0; i < n; i++) {
				p[i] = (uint32_t)(rest % side);
				rest /= side;
			}
			uint64_t h = dl_hilbert_key(p, n, bits);
			assert_true(h < (uint64_t)cells);
			assert_false(seen[h]);
			seen[h] = 1;
			memcpy(at[h], p, sizeof p);
		}
		for (int h = 1; h < cells; h++) {
			int dist = 0;
			for (int i = 0; i < n; i++) dist += abs((int)at[h][i] - (int)at[h - 1][i]);
			assert_int_equal(dist, 1);
		}
		free(at);
		free(seen);
	}
	uint32_t one[] = {7};
	assert_int_equal(dl_hilbert_key(one, 1, 10), 7);
}

static void range_ids(void **state)
{
	(void)state;
	uint64_t s[1000];
	for (int i = 0; i < 1000; i++) s[i] = (uint64_t)(999 - i) * 10;
	dl_curve_ranges r;
	assert_int_equal(dl_curve_ranges_from_sample(&r, s, 1000, 10), 0);
	assert_int_equal(r.n, 9);
	assert_int_equal(r.bounds[0], 1000);
	assert_int_equal(dl_curve_range_id(&r, 0, 0), 0);
	assert_int_equal(dl_curve_range_id(&r, 1000, 0), 0); /* a key equal to a bound takes its range */
	assert_int_equal(dl_curve_range_id(&r, 1001, 0), 1);
	assert_int_equal(dl_curve_range_id(&r, 99990, 0), 9);
	assert_int_equal(dl_curve_range_id(&r, 99990, 1), 0); /* null first */
	dl_curve_ranges_free(&r);
	/* few distinct values: fewer, distinct bounds */
	uint64_t few[100];
	for (int i = 0; i < 100; i++) few[i] = (uint64_t)(i % 3);
	assert_int_equal(dl_curve_ranges_from_sample(&r, few, 100, 1000), 0);
	assert_true(r.n <= 3);
	for (size_t i = 1; i < r.n; i++) assert_true(r.bounds[i] > r.bounds[i - 1]);
	dl_curve_ranges_free(&r);
}

static void value_keys_keep_order(void **state)
{
	(void)state;
	dl_type *lt = dl_type_new(DL_TYPE_LONG), *dt = dl_type_new(DL_TYPE_DOUBLE);
	dl_array *l = dl_array_new(lt, 3), *d = dl_array_new(dt, 4);
	int64_t lv[] = {-5, 0, 7};
	double dv[] = {-1.5, -0.0, 0.0, 2.25};
	memcpy(l->values, lv, sizeof lv);
	memcpy(d->values, dv, sizeof dv);
	int null;
	assert_true(dl_curve_value_key(l, 0, &null) < dl_curve_value_key(l, 1, &null));
	assert_true(dl_curve_value_key(l, 1, &null) < dl_curve_value_key(l, 2, &null));
	assert_true(dl_curve_value_key(d, 0, &null) < dl_curve_value_key(d, 1, &null));
	assert_true(dl_curve_value_key(d, 1, &null) == dl_curve_value_key(d, 2, &null)); /* -0.0 = 0.0 */
	assert_true(dl_curve_value_key(d, 2, &null) < dl_curve_value_key(d, 3, &null));
	assert_int_equal(null, 0);
	dl_array_free(l);
	dl_array_free(d);
	dl_type_unref(lt);
	dl_type_unref(dt);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(candidates),
		cmocka_unit_test(bins_per_partition_by_size),
		cmocka_unit_test(single_file_with_dv_is_rewritten),
		cmocka_unit_test(multidim_takes_whole_partitions),
		cmocka_unit_test(zorder_interleaves_like_spark),
		cmocka_unit_test(hilbert_is_a_curve),
		cmocka_unit_test(range_ids),
		cmocka_unit_test(value_keys_keep_order),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
