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
#include "util/error.h"
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
 * neighbour (one coordinate changes by one): HilbertIndexSuite's
 * "continuous" and "1 to 1" for its n-k pairs. */
static void hilbert_is_a_curve(void **state)
{
	(void)state;
	static const int cases[][2] = {{2, 10}, {3, 6}, {4, 5}, {5, 4}, {6, 3}};
	for (size_t c = 0; c < sizeof cases / sizeof *cases; c++) {
		int n = cases[c][0], bits = cases[c][1];
		const dl_hilbert_table *t;
		assert_int_equal(dl_hilbert_table_get(&t, n), 0);
		int side = 1 << bits;
		int cells = 1 << (n * bits);
		uint32_t(*at)[6] = calloc((size_t)cells, sizeof *at);
		uint8_t *seen = calloc((size_t)cells, 1);
		for (int cell = 0; cell < cells; cell++) {
			uint32_t p[6];
			int rest = cell;
			for (int i = 0; i < n; i++) {
				p[i] = (uint32_t)(rest % side);
				rest /= side;
			}
			uint64_t h = dl_hilbert_key(t, p, n, bits);
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
	assert_int_equal(dl_hilbert_key(NULL, one, 1, 10), 7);
	const dl_hilbert_table *t;
	assert_int_equal(dl_hilbert_table_get(&t, 1), DL_EINVALID);
	assert_int_equal(dl_hilbert_table_get(&t, 10), DL_EINVALID);
	assert_int_equal(dl_hilbert_table_get(&t, 9), 0);
}

/* The indexes Spark's HilbertLongIndex(10, ...) gives (its HilbertIndex
 * generator run as written, for 10 bits as HilbertClustering uses over
 * 1000 range ids): the same construction, so the same numbers, not only
 * the same locality. */
static void hilbert_matches_spark(void **state)
{
	(void)state;
	const dl_hilbert_table *t2, *t3, *t4;
	assert_int_equal(dl_hilbert_table_get(&t2, 2), 0);
	assert_int_equal(dl_hilbert_table_get(&t3, 3), 0);
	assert_int_equal(dl_hilbert_table_get(&t4, 4), 0);
	/* the order-2 curve of 2 dimensions, point (x, y) at [x * 4 + y] */
	static const uint64_t grid[16] = {0, 3, 4, 5, 1, 2, 7, 6, 14, 13, 8, 9, 15, 12, 11, 10};
	for (uint32_t x = 0; x < 4; x++)
		for (uint32_t y = 0; y < 4; y++) {
			uint32_t p[] = {x, y};
			assert_int_equal(dl_hilbert_index(t2, p, 2), grid[x * 4 + y]);
		}
	uint32_t a[] = {331, 970}, b[] = {666, 49};
	assert_int_equal(dl_hilbert_index(t2, a, 10), 417929);
	assert_int_equal(dl_hilbert_index(t2, b, 10), 969927);
	uint32_t c[] = {548, 96, 374}, d[] = {88, 444, 428};
	assert_int_equal(dl_hilbert_index(t3, c, 10), 1004180924);
	assert_int_equal(dl_hilbert_index(t3, d, 10), 109973396);
	uint32_t e[] = {71, 246, 92, 564}, f[] = {642, 596, 970, 63};
	assert_int_equal(dl_hilbert_index(t4, e, 10), 72803268265);
	assert_int_equal(dl_hilbert_index(t4, f, 10), 811796448283);
}

/* InterleaveBitsSuite's cases, byte for byte. */
static void interleave_bits_as_spark(void **state)
{
	(void)state;
	uint8_t out[36];
	int32_t two[] = {0x000ff0ff, (int32_t)0xfff00f00};
	static const uint8_t two_x[] = {0x55, 0x55, 0x55, 0xaa, 0xaa, 0x55, 0xaa, 0xaa};
	dl_interleave_bits(out, two, 2);
	assert_memory_equal(out, two_x, sizeof two_x);
	int32_t three[] = {0xff00, 0x00ff, 0x0000};
	static const uint8_t three_x[] = {0, 0, 0, 0, 0, 0, 0x92, 0x49, 0x24, 0x49, 0x24, 0x92};
	dl_interleave_bits(out, three, 3);
	assert_memory_equal(out, three_x, sizeof three_x);
	int32_t nine[] = {0xff00, 0x00ff, 0, 0xff00, 0x00ff, 0, 0xff00, 0x00ff, 0};
	static const uint8_t nine_x[36] = {[18] = 0x92, 0x49, 0x24, 0x92, 0x49, 0x24, 0x92, 0x49, 0x24,
	                                   0x49, 0x24, 0x92, 0x49, 0x24, 0x92, 0x49, 0x24, 0x92};
	dl_interleave_bits(out, nine, 9);
	assert_memory_equal(out, nine_x, sizeof nine_x);
	/* nulls are 0 */
	int32_t ones_null[] = {-1, 0}, null_ones[] = {0, -1};
	dl_interleave_bits(out, ones_null, 2);
	for (int i = 0; i < 8; i++) assert_int_equal(out[i], 0xaa);
	dl_interleave_bits(out, null_ones, 2);
	for (int i = 0; i < 8; i++) assert_int_equal(out[i], 0x55);
	/* one input: its big-endian bytes */
	int32_t r[] = {0x12345678};
	dl_interleave_bits(out, r, 1);
	assert_int_equal(out[0], 0x12);
	assert_int_equal(out[3], 0x78);
	/* the compact key orders ids as Spark's bytes do */
	uint32_t ids[][2] = {{3, 0}, {1, 2}, {999, 998}, {512, 7}, {0, 1}};
	for (int i = 0; i < 5; i++)
		for (int j = 0; j < 5; j++) {
			uint8_t bi[8], bj[8];
			int32_t si[] = {(int32_t)ids[i][0], (int32_t)ids[i][1]}, sj[] = {(int32_t)ids[j][0], (int32_t)ids[j][1]};
			dl_interleave_bits(bi, si, 2);
			dl_interleave_bits(bj, sj, 2);
			int m = memcmp(bi, bj, 8);
			uint64_t ki = dl_zorder_key(ids[i], 2, 10), kj = dl_zorder_key(ids[j], 2, 10);
			assert_int_equal(m < 0, ki < kj);
			assert_int_equal(m == 0, ki == kj);
		}
}

static void range_ids(void **state)
{
	(void)state;
	uint64_t s[1000];
	for (int i = 0; i < 1000; i++) s[i] = (uint64_t)(999 - i) * 10;
	dl_curve_ranges r;
	assert_int_equal(dl_curve_ranges_from_sample(&r, s, 1000, 10), 0);
	assert_int_equal(r.n, 9);
	assert_int_equal(r.bounds[0], 990); /* the 100th key: cumulative weight 100 reaches n/10 */
	assert_int_equal(dl_curve_range_id(&r, 0, 0), 0);
	assert_int_equal(dl_curve_range_id(&r, 990, 0), 0); /* a key equal to a bound takes its range */
	assert_int_equal(dl_curve_range_id(&r, 991, 0), 1);
	assert_int_equal(dl_curve_range_id(&r, 99990, 0), 9);
	assert_int_equal(dl_curve_range_id(&r, 99990, 1), 0); /* null first */
	dl_curve_ranges_free(&r);
	/* RangePartitionIdSuite "test basic": 0..11 into 2, 3, 4, 6 ranges gives
	 * i / (12 / ranges) */
	static const int parts[] = {2, 3, 4, 6};
	for (int p = 0; p < 4; p++) {
		uint64_t d[12];
		for (int i = 0; i < 12; i++) d[i] = (uint64_t)(11 - i);
		assert_int_equal(dl_curve_ranges_from_sample(&r, d, 12, parts[p]), 0);
		for (int i = 0; i < 12; i++)
			assert_int_equal(dl_curve_range_id(&r, (uint64_t)i, 0), (uint32_t)(i / (12 / parts[p])));
		dl_curve_ranges_free(&r);
	}
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
		cmocka_unit_test(hilbert_matches_spark),
		cmocka_unit_test(interleave_bits_as_spark),
		cmocka_unit_test(range_ids),
		cmocka_unit_test(value_keys_keep_order),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
