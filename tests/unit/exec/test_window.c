/* The window operator: ranking functions with peers, partitions in order of
 * first appearance (NULL one partition), lag/lead with defaults and IGNORE
 * NULLS, first/last/nth_value over frames, aggregates over ROWS and RANGE
 * frames (ties, NULL order keys, descending keys, frames past the
 * partition's ends, intervals over dates, decimals), empty input, errors and
 * the memory limit. Expected values worked out by hand from Spark's rules. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>
#include "exec_test_util.h"

static dl_exec_window_fn F(dl_win_kind k, const char *arg, const char *name)
{
	dl_exec_window_fn f = {.kind = k, .arg = arg ? tu_expr(arg) : NULL, .name = name, .offset = 1};
	return f;
}

static dl_exec_window_fn AGG(dl_agg_kind k, const char *arg, const char *name)
{
	dl_exec_window_fn f = {.kind = DL_WIN_AGG, .name = name};
	f.agg.kind = k;
	f.agg.arg = arg ? tu_expr(arg) : NULL;
	f.agg.name = name;
	return f;
}

/* frame: kind, lo bound (+ offset text), hi bound (+ offset text) */
static dl_exec_window_fn framed(dl_exec_window_fn f, dl_frame_kind kind, dl_frame_bound lo, const char *lo_off,
                                dl_frame_bound hi, const char *hi_off)
{
	f.frame.kind = kind;
	f.frame.lo = lo;
	f.frame.hi = hi;
	f.frame.lo_offset = lo_off ? tu_expr(lo_off) : NULL;
	f.frame.hi_offset = hi_off ? tu_expr(hi_off) : NULL;
	return f;
}

static dl_exec_sort_key K(const char *e, bool desc)
{
	dl_exec_sort_key k = {.expr = tu_expr(e), .descending = desc};
	return k;
}

#define SPEC "g string, o int, v int, d decimal(5,2)"
static const char *const rows[] = {
	"a|2|20|2.00", "b|1|6|0.25", "a|1|10|1.00", "NULL|3|7|1.00", "a|4|40|NULL", "b|NULL|5|0.50", "a|2|NULL|3.00",
};

static void ranking_and_default_frame(void **st)
{
	(void)st;
	dl_expr *part[] = {tu_expr("g")};
	dl_exec_sort_key ord[] = {K("o", false)};
	dl_exec_window_fn fns[] = {F(DL_WIN_ROW_NUMBER, NULL, "rn"),    F(DL_WIN_RANK, NULL, "rk"),
	                           F(DL_WIN_DENSE_RANK, NULL, "dr"),    F(DL_WIN_PERCENT_RANK, NULL, "pr"),
	                           F(DL_WIN_CUME_DIST, NULL, "cd"),     F(DL_WIN_NTILE, NULL, "nt"),
	                           AGG(DL_AGG_SUM, "v", "s"),           AGG(DL_AGG_COUNT_STAR, NULL, "c"),
	                           AGG(DL_AGG_AVG, "d", "ad")};
	fns[5].offset = 3;
	dl_batch_stream *s;
	assert_int_equal(dl_exec_window(&s, tu_stream(SPEC, rows, 7, 3), part, 1, ord, 1, fns, 9, NULL), 0);
	const dl_type *t = dl_batch_stream_schema(s);
	assert_int_equal(t->nchildren, 13);
	assert_int_equal(t->children[4].type->id, DL_TYPE_INTEGER);
	assert_false(t->children[4].nullable);
	assert_int_equal(t->children[7].type->id, DL_TYPE_DOUBLE);
	assert_int_equal(t->children[9].type->id, DL_TYPE_INTEGER);
	assert_int_equal(t->children[10].type->id, DL_TYPE_LONG);
	assert_int_equal(t->children[11].type->id, DL_TYPE_LONG);
	assert_false(t->children[11].nullable);
	assert_int_equal(t->children[12].type->precision, 9); /* avg(decimal(5,2)): decimal(9,6) */
	assert_int_equal(t->children[12].type->scale, 6);
	/* partitions in order of first appearance; peers (o = 2) share rank,
	 * percent_rank, cume_dist and the default frame's sum */
	tu_expect(s, true, "a|1|10|1.00|1|1|1|0|0.25|1|10|1|1.000000",
	          "a|2|20|2.00|2|2|2|0.3333333333333333|0.75|1|30|3|2.000000",
	          "a|2|NULL|3.00|3|2|2|0.3333333333333333|0.75|2|30|3|2.000000", "a|4|40|NULL|4|4|3|1|1|3|70|4|2.000000",
	          "b|NULL|5|0.50|1|1|1|0|0.5|1|5|1|0.500000", "b|1|6|0.25|2|2|2|1|1|2|11|2|0.375000",
	          "NULL|3|7|1.00|1|1|1|0|1|1|7|1|1.000000");
}

static const char *const seq[] = {"4|NULL", "1|10", "6|60", "3|30", "2|NULL", "5|50"};

static void offsets_and_rows_frames(void **st)
{
	(void)st;
	dl_exec_sort_key ord[] = {K("k", false)};
	dl_exec_window_fn fns[] = {
		F(DL_WIN_LAG, "v", "lag"),
		F(DL_WIN_LEAD, "v", "lead2"),
		F(DL_WIN_LAG, "v", "lag_nn"),
		F(DL_WIN_LEAD, "v", "lead_nn"),
		framed(F(DL_WIN_FIRST_VALUE, "v", "fv"), DL_FRAME_ROWS, DL_FRAME_PRECEDING, "1", DL_FRAME_FOLLOWING, "1"),
		framed(F(DL_WIN_LAST_VALUE, "v", "lv_nn"), DL_FRAME_ROWS, DL_FRAME_PRECEDING, "1", DL_FRAME_FOLLOWING, "1"),
		F(DL_WIN_NTH_VALUE, "v", "nth_nn"),
		framed(AGG(DL_AGG_SUM, "v", "s3"), DL_FRAME_ROWS, DL_FRAME_PRECEDING, "2", DL_FRAME_CURRENT_ROW, NULL),
		framed(AGG(DL_AGG_SUM, "v", "rest"), DL_FRAME_ROWS, DL_FRAME_FOLLOWING, "1", DL_FRAME_UNBOUNDED_FOLLOWING,
		       NULL),
		framed(AGG(DL_AGG_MIN, "v", "past_end"), DL_FRAME_ROWS, DL_FRAME_FOLLOWING, "3", DL_FRAME_FOLLOWING, "10"),
		framed(AGG(DL_AGG_COUNT, "v", "cnt"), DL_FRAME_ROWS, DL_FRAME_UNBOUNDED_PRECEDING, NULL, DL_FRAME_FOLLOWING,
		       "1"),
		framed(AGG(DL_AGG_MAX, "v", "mx"), DL_FRAME_ROWS, DL_FRAME_PRECEDING, "1", DL_FRAME_PRECEDING, "1"),
	};
	fns[1].offset = 2;
	fns[1].default_value = tu_expr("CAST(-1 AS BIGINT)"); /* a BIGINT default for an INT column: cast */
	fns[2].ignore_nulls = fns[3].ignore_nulls = fns[5].ignore_nulls = fns[6].ignore_nulls = true;
	fns[6].offset = 2;
	dl_batch_stream *s;
	assert_int_equal(dl_exec_window(&s, tu_stream("k int, v int", seq, 6, 4), NULL, 0, ord, 1, fns, 12, NULL), 0);
	tu_expect(s, true, "1|10|NULL|30|NULL|30|10|10|NULL|10|140|50|1|NULL",
	          "2|NULL|10|NULL|10|30|10|30|NULL|10|140|50|2|10",
	          "3|30|NULL|50|10|50|NULL|30|30|40|110|60|2|NULL",
	          "4|NULL|30|60|30|50|30|50|30|30|110|NULL|3|30",
	          "5|50|NULL|-1|30|60|NULL|60|30|80|60|NULL|4|NULL",
	          "6|60|50|-1|50|NULL|50|60|30|110|NULL|NULL|4|50");
}

static void lists_and_sketches_over_frames(void **st)
{
	(void)st;
	dl_exec_sort_key ord[] = {K("k", false)};
	dl_exec_window_fn fns[] = {
		framed(AGG(DL_AGG_COLLECT_LIST, "v", "cl"), DL_FRAME_ROWS, DL_FRAME_PRECEDING, "1", DL_FRAME_FOLLOWING, "1"),
		AGG(DL_AGG_COLLECT_SET, "v % 20", "cs"),
		AGG(DL_AGG_APPROX_COUNT_DISTINCT, "v", "acd"),
		framed(AGG(DL_AGG_PERCENTILE_APPROX, "v", "med"), DL_FRAME_ROWS, DL_FRAME_UNBOUNDED_PRECEDING, NULL,
		       DL_FRAME_UNBOUNDED_FOLLOWING, NULL),
		AGG(DL_AGG_COUNT_IF, "v > 20", "ci"),
		framed(AGG(DL_AGG_BOOL_OR, "v > 40", "bo"), DL_FRAME_ROWS, DL_FRAME_CURRENT_ROW, NULL, DL_FRAME_FOLLOWING, "1"),
	};
	fns[3].agg.param = tu_expr("0.5");
	dl_batch_stream *s;
	assert_int_equal(dl_exec_window(&s, tu_stream("k int, v int", seq, 6, 4), NULL, 0, ord, 1, fns, 6, NULL), 0);
	const dl_type *t = dl_batch_stream_schema(s);
	assert_int_equal(t->children[2].type->id, DL_TYPE_ARRAY);
	assert_int_equal(t->children[4].type->id, DL_TYPE_LONG);
	assert_int_equal(t->children[5].type->id, DL_TYPE_INTEGER);
	tu_expect(s, true, "1|10|[10]|[10]|1|30|0|false", "2|NULL|[10, 30]|[10]|1|30|0|false", "3|30|[30]|[10]|2|30|1|false",
	          "4|NULL|[30, 50]|[10]|2|30|1|true", "5|50|[50, 60]|[10]|3|30|2|true", "6|60|[50, 60]|[10, 0]|4|30|3|true");
}

static const char *const ties[] = {"1|2", "NULL|1", "4|5", "1|3", "2|4", "NULL|7", "5|6"};

static void range_frames_with_ties_and_nulls(void **st)
{
	(void)st;
	dl_exec_sort_key ord[] = {K("k", false)};
	dl_exec_window_fn fns[] = {
		framed(AGG(DL_AGG_SUM, "v", "near"), DL_FRAME_RANGE, DL_FRAME_PRECEDING, "1", DL_FRAME_FOLLOWING, "1"),
		framed(AGG(DL_AGG_SUM, "v", "tail"), DL_FRAME_RANGE, DL_FRAME_CURRENT_ROW, NULL, DL_FRAME_UNBOUNDED_FOLLOWING,
		       NULL),
		framed(AGG(DL_AGG_COUNT_STAR, NULL, "below"), DL_FRAME_RANGE, DL_FRAME_UNBOUNDED_PRECEDING, NULL,
		       DL_FRAME_PRECEDING, "2"),
		framed(F(DL_WIN_LAST_VALUE, "v", "lv"), DL_FRAME_RANGE, DL_FRAME_UNBOUNDED_PRECEDING, NULL,
		       DL_FRAME_CURRENT_ROW, NULL),
	};
	dl_batch_stream *s;
	assert_int_equal(dl_exec_window(&s, tu_stream("k int, v int", ties, 7, 2), NULL, 0, ord, 1, fns, 4, NULL), 0);
	/* NULL keys sort first and are each other's peers; a key's offset frame
	 * never reaches them, UNBOUNDED PRECEDING does */
	tu_expect(s, true, "NULL|1|8|28|2|7", "NULL|7|8|28|2|7", "1|2|9|20|2|3", "1|3|9|20|2|3", "2|4|9|15|2|4",
	          "4|5|11|11|5|5", "5|6|11|6|5|6");
	/* descending: 1 PRECEDING means the next larger key; NULLs last */
	dl_exec_sort_key ord2[] = {K("k", true)};
	dl_exec_window_fn fns2[] = {
		framed(AGG(DL_AGG_SUM, "v", "s"), DL_FRAME_RANGE, DL_FRAME_PRECEDING, "1", DL_FRAME_CURRENT_ROW, NULL),
	};
	assert_int_equal(dl_exec_window(&s, tu_stream("k int, v int", ties, 7, 7), NULL, 0, ord2, 1, fns2, 1, NULL), 0);
	tu_expect(s, true, "5|6|6", "4|5|11", "2|4|4", "1|2|9", "1|3|9", "NULL|1|8", "NULL|7|8");
}

static void range_over_dates_and_decimals(void **st)
{
	(void)st;
	static const char *const r[] = {"2024-01-01|1|1.00", "2024-01-02|2|1.50", "2024-01-05|3|2.10", "2024-01-06|4|2.50"};
	dl_exec_sort_key ord[] = {K("dt", false)};
	dl_exec_window_fn fns[] = {
		framed(AGG(DL_AGG_SUM, "v", "s"), DL_FRAME_RANGE, DL_FRAME_PRECEDING, "INTERVAL 1 DAY", DL_FRAME_CURRENT_ROW,
		       NULL),
	};
	dl_batch_stream *s;
	assert_int_equal(dl_exec_window(&s, tu_stream("dt date, v int, d decimal(4,2)", r, 4, 3), NULL, 0, ord, 1, fns, 1,
	                                NULL),
	                 0);
	tu_expect(s, true, "2024-01-01|1|1.00|1", "2024-01-02|2|1.50|3", "2024-01-05|3|2.10|3", "2024-01-06|4|2.50|7");
	dl_exec_sort_key ord2[] = {K("d", false)};
	dl_exec_window_fn fns2[] = {
		framed(AGG(DL_AGG_SUM, "d", "s"), DL_FRAME_RANGE, DL_FRAME_PRECEDING, "0.5", DL_FRAME_FOLLOWING, "0.4"),
	};
	assert_int_equal(dl_exec_window(&s, tu_stream("dt date, v int, d decimal(4,2)", r, 4, 3), NULL, 0, ord2, 1, fns2,
	                                1, NULL),
	                 0);
	const dl_type *t = dl_batch_stream_schema(s);
	assert_int_equal(t->children[3].type->precision, 14);
	/* 1.00: [0.50, 1.40] -> 1.00; 1.50: [1.00, 1.90] -> 2.50; 2.10: [1.60,
	 * 2.50] -> 4.60; 2.50: [2.00, 2.90] -> 4.60 */
	tu_expect(s, true, "2024-01-01|1|1.00|1.00", "2024-01-02|2|1.50|2.50", "2024-01-05|3|2.10|4.60",
	          "2024-01-06|4|2.50|4.60");
	/* timestamps with an hour interval; the frame's end a day later */
	static const char *const ts[] = {"2024-01-01 10:00:00|1", "2024-01-01 11:30:00|2", "2024-01-01 12:00:00|3",
	                                 "2024-01-02 09:00:00|4"};
	dl_exec_sort_key ord3[] = {K("t", false)};
	dl_exec_window_fn fns3[] = {
		framed(AGG(DL_AGG_SUM, "v", "h"), DL_FRAME_RANGE, DL_FRAME_PRECEDING, "INTERVAL 1 HOUR", DL_FRAME_CURRENT_ROW,
		       NULL),
		framed(AGG(DL_AGG_COUNT_STAR, NULL, "d"), DL_FRAME_RANGE, DL_FRAME_CURRENT_ROW, NULL, DL_FRAME_FOLLOWING,
		       "INTERVAL 1 DAY"),
	};
	assert_int_equal(dl_exec_window(&s, tu_stream("t timestamp_ntz, v int", ts, 4, 3), NULL, 0, ord3, 1, fns3, 2, NULL),
	                 0);
	tu_expect(s, true, "2024-01-01 10:00:00|1|1|4", "2024-01-01 11:30:00|2|2|3", "2024-01-01 12:00:00|3|5|2",
	          "2024-01-02 09:00:00|4|4|1");
}

static void empty_and_single_rows(void **st)
{
	(void)st;
	dl_expr *part[] = {tu_expr("g")};
	dl_exec_window_fn fns[] = {F(DL_WIN_ROW_NUMBER, NULL, "rn"), AGG(DL_AGG_SUM, "v", "s")};
	dl_batch_stream *s;
	assert_int_equal(dl_exec_window(&s, tu_stream(SPEC, rows, 0, 3), part, 1, NULL, 0, fns, 2, NULL), 0);
	assert_int_equal(dl_batch_stream_schema(s)->nchildren, 6);
	tu_expect(s, true, "<none>");
	/* every row its own partition; no ORDER BY: the frame is the partition */
	dl_expr *part2[] = {tu_expr("d"), tu_expr("o")};
	dl_exec_window_fn fns2[] = {F(DL_WIN_ROW_NUMBER, NULL, "rn"), AGG(DL_AGG_SUM, "v", "s"),
	                            F(DL_WIN_LAG, "v", "l"), F(DL_WIN_CUME_DIST, NULL, "cd")};
	assert_int_equal(dl_exec_window(&s, tu_stream(SPEC, rows, 7, 2), part2, 2, NULL, 0, fns2, 4, NULL), 0);
	tu_expect(s, true, "a|2|20|2.00|1|20|NULL|1", "b|1|6|0.25|1|6|NULL|1", "a|1|10|1.00|1|10|NULL|1",
	          "NULL|3|7|1.00|1|7|NULL|1", "a|4|40|NULL|1|40|NULL|1", "b|NULL|5|0.50|1|5|NULL|1",
	          "a|2|NULL|3.00|1|NULL|NULL|1");
}

static void many_rows_sliding(void **st)
{
	(void)st;
	/* 3000 rows in 3 partitions, sliding sums checked against the formula */
	enum { N = 3000 };
	char **r = malloc(N * sizeof *r);
	for (int i = 0; i < N; i++) {
		r[i] = malloc(32);
		snprintf(r[i], 32, "%d|%d", i % 3, i);
	}
	dl_expr *part[] = {tu_expr("p")};
	dl_exec_sort_key ord[] = {K("i", true)};
	dl_exec_window_fn fns[] = {
		framed(AGG(DL_AGG_SUM, "i", "s"), DL_FRAME_ROWS, DL_FRAME_PRECEDING, "100", DL_FRAME_FOLLOWING, "5"),
		framed(AGG(DL_AGG_MIN, "i", "m"), DL_FRAME_ROWS, DL_FRAME_PRECEDING, "100", DL_FRAME_FOLLOWING, "5"),
		framed(AGG(DL_AGG_STDDEV_POP, "i", "sd"), DL_FRAME_ROWS, DL_FRAME_PRECEDING, "1", DL_FRAME_FOLLOWING, "1"),
	};
	dl_exec_ctx ctx = DL_EXEC_CTX_INIT;
	ctx.batch_rows = 700;
	dl_batch_stream *s;
	assert_int_equal(dl_exec_window(&s, tu_stream("p int, i int", (const char *const *)r, N, 512), part, 1, ord, 1,
	                                fns, 3, &ctx),
	                 0);
	char **l;
	assert_int_equal(tu_collect(s, &l), N);
	for (int k = 0; k < N; k++) {
		int p, i;
		long long sum, mn;
		char sd[64];
		assert_int_equal(sscanf(l[k], "%d|%d|%lld|%lld|%63s", &p, &i, &sum, &mn, sd), 5);
		/* partition p holds i = p, p+3, ...; descending, so row j (0-based) is
		 * the j-th largest; the frame is j-100..j+5 */
		int len = N / 3, j = (N - 3 + p - i) / 3;
		assert_int_equal(p, k / len);
		long long want = 0, wmin = 1LL << 40;
		for (int q = j - 100; q <= j + 5; q++)
			if (q >= 0 && q < len) {
				long long v = N - 3 + p - 3LL * q;
				want += v;
				if (v < wmin) wmin = v;
			}
		assert_int_equal(sum, want);
		assert_int_equal(mn, wmin);
		/* neighbours 3 apart: stddev_pop of {x-3, x, x+3} is sqrt(6), at the
		 * ends of {x, x+-3} 1.5 */
		double d = atof(sd);
		if (j == 0 || j == len - 1) assert_true(fabs(d - 1.5) < 1e-9);
		else assert_true(fabs(d - sqrt(6.0)) < 1e-9);
	}
	tu_free_lines(l, N);
	for (int i = 0; i < N; i++) free(r[i]);
	free(r);
}

static const char *const big9[] = {"1|5", "2|6"};

static void errors(void **st)
{
	(void)st;
	dl_batch_stream *s;
	dl_exec_window_fn f1[] = {F(DL_WIN_NTILE, NULL, "n")};
	f1[0].offset = 0;
	assert_int_equal(dl_exec_window(&s, tu_stream(SPEC, rows, 7, 3), NULL, 0, NULL, 0, f1, 1, NULL), DL_EINVALID);
	assert_null(s);
	/* RANGE offsets need exactly one ORDER BY key */
	dl_exec_sort_key ord[] = {K("o", false), K("v", false)};
	dl_exec_window_fn f2[] = {
		framed(AGG(DL_AGG_SUM, "v", "s"), DL_FRAME_RANGE, DL_FRAME_PRECEDING, "1", DL_FRAME_CURRENT_ROW, NULL)};
	assert_int_equal(dl_exec_window(&s, tu_stream(SPEC, rows, 7, 3), NULL, 0, ord, 2, f2, 1, NULL), DL_EINVALID);
	assert_non_null(strstr(dl_error_last()->message, "exactly one ORDER BY"));
	/* RANGE offsets over a string key */
	dl_exec_sort_key ord2[] = {K("g", false)};
	dl_exec_window_fn f3[] = {
		framed(AGG(DL_AGG_SUM, "v", "s"), DL_FRAME_RANGE, DL_FRAME_PRECEDING, "1", DL_FRAME_CURRENT_ROW, NULL)};
	assert_true(dl_exec_window(&s, tu_stream(SPEC, rows, 7, 3), NULL, 0, ord2, 1, f3, 1, NULL) < 0);
	/* sum of a string; DISTINCT over a window (Spark rejects it too) */
	dl_exec_window_fn f4[] = {AGG(DL_AGG_SUM, "g", "s")};
	assert_int_equal(dl_exec_window(&s, tu_stream(SPEC, rows, 7, 3), NULL, 0, NULL, 0, f4, 1, NULL), DL_EINVALID);
	dl_exec_window_fn f5[] = {AGG(DL_AGG_SUM, "v", "s")};
	f5[0].agg.distinct = true;
	assert_int_equal(dl_exec_window(&s, tu_stream(SPEC, rows, 7, 3), NULL, 0, NULL, 0, f5, 1, NULL), DL_EUNSUPPORTED);
	/* a frame ending at UNBOUNDED PRECEDING */
	dl_exec_window_fn f6[] = {framed(AGG(DL_AGG_SUM, "v", "s"), DL_FRAME_ROWS, DL_FRAME_UNBOUNDED_PRECEDING, NULL,
	                                 DL_FRAME_UNBOUNDED_PRECEDING, NULL)};
	assert_int_equal(dl_exec_window(&s, tu_stream(SPEC, rows, 7, 3), NULL, 0, NULL, 0, f6, 1, NULL), DL_EINVALID);
	/* ROWS BETWEEN 1 FOLLOWING AND CURRENT ROW: start after end */
	dl_exec_window_fn f8[] = {framed(AGG(DL_AGG_SUM, "v", "s"), DL_FRAME_ROWS, DL_FRAME_FOLLOWING, "1",
	                                 DL_FRAME_CURRENT_ROW, NULL)};
	assert_int_equal(dl_exec_window(&s, tu_stream(SPEC, rows, 7, 3), NULL, 0, NULL, 0, f8, 1, NULL), DL_EINVALID);
	assert_non_null(strstr(dl_error_last()->message, "lower bound"));
	/* offsets far past the partition: defaults and NULLs, no overflow */
	dl_exec_window_fn f9[] = {F(DL_WIN_LAG, "v", "a"), F(DL_WIN_LEAD, "v", "b"), F(DL_WIN_NTH_VALUE, "v", "c")};
	f9[0].offset = INT64_MIN;
	f9[1].offset = INT64_MAX;
	f9[2].offset = INT64_MAX;
	f9[0].default_value = tu_expr("0");
	dl_exec_sort_key ord9[] = {K("v", false)};
	assert_int_equal(dl_exec_window(&s, tu_stream("k int, v int", big9, 2, 2), NULL, 0, ord9, 1, f9, 3, NULL), 0);
	tu_expect(s, true, "1|5|0|NULL|NULL", "2|6|0|NULL|NULL");
	/* integral sum overflow is ANSI's error */
	static const char *const big[] = {"1|9223372036854775807", "2|1"};
	dl_exec_window_fn f7[] = {AGG(DL_AGG_SUM, "v", "s")};
	assert_int_equal(dl_exec_window(&s, tu_stream("k int, v long", big, 2, 2), NULL, 0, NULL, 0, f7, 1, NULL), 0);
	char **l;
	assert_int_equal(tu_collect(s, &l), DL_EINVALID);
	assert_non_null(strstr(dl_error_last()->message, "ARITHMETIC_OVERFLOW"));
}

static void memory_limit(void **st)
{
	(void)st;
	enum { N = 20000 };
	char **r = malloc(N * sizeof *r);
	for (int i = 0; i < N; i++) {
		r[i] = malloc(16);
		snprintf(r[i], 16, "%d", i);
	}
	dl_exec_memory mem = DL_EXEC_MEMORY_INIT(32 * 1024);
	dl_exec_ctx ctx = DL_EXEC_CTX_INIT;
	ctx.mem = &mem;
	dl_exec_sort_key ord[] = {K("v", true)};
	dl_exec_window_fn fns[] = {F(DL_WIN_ROW_NUMBER, NULL, "rn")};
	dl_batch_stream *s;
	assert_int_equal(dl_exec_window(&s, tu_stream("v int", (const char *const *)r, N, 1000), NULL, 0, ord, 1, fns, 1,
	                                &ctx),
	                 0);
	char **l;
	assert_int_equal(tu_collect(s, &l), DL_ENOMEM);
	assert_non_null(strstr(dl_error_last()->message, "window"));
	assert_int_equal(atomic_load(&mem.used), 0);
	dl_exec_memory big = DL_EXEC_MEMORY_INIT(64 << 20);
	ctx.mem = &big;
	dl_exec_sort_key ord2[] = {K("v", true)};
	dl_exec_window_fn fns2[] = {F(DL_WIN_ROW_NUMBER, NULL, "rn")};
	assert_int_equal(dl_exec_window(&s, tu_stream("v int", (const char *const *)r, N, 1000), NULL, 0, ord2, 1, fns2, 1,
	                                &ctx),
	                 0);
	assert_int_equal(tu_collect(s, &l), N);
	assert_string_equal(l[0], "19999|1");
	assert_string_equal(l[N - 1], "0|20000");
	tu_free_lines(l, N);
	assert_true(atomic_load(&big.peak) > 80000);
	assert_int_equal(atomic_load(&big.used), 0);
	for (int i = 0; i < N; i++) free(r[i]);
	free(r);
}

static void interrupt(void **st)
{
	(void)st;
	_Atomic bool stop = true;
	dl_exec_ctx ctx = DL_EXEC_CTX_INIT;
	ctx.interrupt = &stop;
	dl_exec_window_fn fns[] = {F(DL_WIN_ROW_NUMBER, NULL, "rn")};
	dl_batch_stream *s;
	assert_int_equal(dl_exec_window(&s, tu_stream(SPEC, rows, 7, 3), NULL, 0, NULL, 0, fns, 1, &ctx), 0);
	char **l;
	assert_int_equal(tu_collect(s, &l), DL_ECANCELLED);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(ranking_and_default_frame),
		cmocka_unit_test(offsets_and_rows_frames),
		cmocka_unit_test(lists_and_sketches_over_frames),
		cmocka_unit_test(range_frames_with_ties_and_nulls),
		cmocka_unit_test(range_over_dates_and_decimals),
		cmocka_unit_test(empty_and_single_rows),
		cmocka_unit_test(many_rows_sliding),
		cmocka_unit_test(errors),
		cmocka_unit_test(memory_limit),
		cmocka_unit_test(interrupt),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
