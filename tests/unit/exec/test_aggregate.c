/* Hash aggregate: NULL as a group, string/decimal/date keys, Spark's
 * result types, count(DISTINCT), first/last, global aggregates over empty
 * input, more groups than one output batch, overflow, memory limit. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>
#include "exec_test_util.h"

#define SPEC "g string, i int, d decimal(10,2), dt date, x double"
static const char *const rows[] = {
	"a|1|1.10|2024-01-02|0.5", "b|2|2.00|2024-03-01|NULL", "NULL|3|NULL|NULL|1.5", "a|NULL|3.33|2023-12-31|2",
	"a|5|1.10|2024-01-05|-0.5", "NULL|6|0.01|2020-02-29|NULL", "b|2|NULL|NULL|NULL",
};

static dl_exec_agg A(dl_agg_kind k, const char *arg, const char *name)
{
	dl_exec_agg a = {.kind = k, .arg = arg ? tu_expr(arg) : NULL, .name = name};
	return a;
}

static void group_by_with_null_group(void **st)
{
	(void)st;
	dl_expr *keys[] = {tu_expr("g")};
	const char *kn[] = {"g"};
	dl_exec_agg aggs[] = {A(DL_AGG_COUNT_STAR, NULL, "n"), A(DL_AGG_COUNT, "i", "ni"), A(DL_AGG_SUM, "i", "si"),
	                      A(DL_AGG_SUM, "d", "sd"), A(DL_AGG_AVG, "d", "ad"), A(DL_AGG_AVG, "i", "ai"),
	                      A(DL_AGG_MIN, "dt", "lo"), A(DL_AGG_MAX, "dt", "hi"), A(DL_AGG_COUNT_DISTINCT, "d", "nd"),
	                      A(DL_AGG_SUM, "x", "sx")};
	dl_batch_stream *s;
	assert_int_equal(dl_exec_aggregate(&s, tu_stream(SPEC, rows, 7, 3), keys, kn, 1, aggs, 10, NULL), 0);
	const dl_type *t = dl_batch_stream_schema(s);
	/* Spark: sum(int) bigint, sum(decimal(10,2)) decimal(20,2), avg(decimal(10,2))
	 * decimal(14,6), avg(int) double, count bigint not null */
	assert_int_equal(t->children[2].type->id, DL_TYPE_LONG);
	assert_false(t->children[2].nullable);
	assert_int_equal(t->children[3].type->id, DL_TYPE_LONG);
	assert_int_equal(t->children[4].type->precision, 20);
	assert_int_equal(t->children[4].type->scale, 2);
	assert_int_equal(t->children[5].type->precision, 14);
	assert_int_equal(t->children[5].type->scale, 6);
	assert_int_equal(t->children[6].type->id, DL_TYPE_DOUBLE);
	assert_int_equal(t->children[7].type->id, DL_TYPE_DATE);
	assert_int_equal(t->children[10].type->id, DL_TYPE_DOUBLE);
	tu_expect(s, true, /* groups in order of first appearance */
	          "a|3|2|6|5.53|1.843333|3|2023-12-31|2024-01-05|2|2",
	          "b|2|2|4|2.00|2.000000|2|2024-03-01|2024-03-01|1|NULL",
	          "NULL|2|2|9|0.01|0.010000|4.5|2020-02-29|2020-02-29|1|1.5");
}

static void expression_keys_and_first_last(void **st)
{
	(void)st;
	dl_expr *keys[] = {tu_expr("i % 2"), tu_expr("year(dt)")};
	const char *kn[] = {"odd", "y"};
	dl_exec_agg aggs[] = {A(DL_AGG_FIRST, "g", "f"), A(DL_AGG_LAST, "g", "l"), A(DL_AGG_MIN, "g", "mn"),
	                      A(DL_AGG_MAX, "x", "mx")};
	aggs[1].ignore_nulls = true;
	dl_batch_stream *s;
	assert_int_equal(dl_exec_aggregate(&s, tu_stream(SPEC, rows, 7, 2), keys, kn, 2, aggs, 4, NULL), 0);
	tu_expect(s, false, "1|2024|a|a|a|0.5", "0|2024|b|b|b|NULL", "1|NULL|NULL|NULL|NULL|1.5", "NULL|2023|a|a|a|2",
	          "0|2020|NULL|NULL|NULL|NULL", "0|NULL|b|b|b|NULL");
}

static void global_aggregate(void **st)
{
	(void)st;
	dl_exec_agg aggs[] = {A(DL_AGG_COUNT_STAR, NULL, "n"), A(DL_AGG_SUM, "i", "s"), A(DL_AGG_MAX, "g", "m"),
	                      A(DL_AGG_AVG, "x", "a"), A(DL_AGG_COUNT_DISTINCT, "g", "dg")};
	dl_batch_stream *s;
	/* empty input: one row, count 0, the rest NULL */
	assert_int_equal(dl_exec_aggregate(&s, tu_stream(SPEC, rows, 0, 3), NULL, NULL, 0, aggs, 5, NULL), 0);
	tu_expect(s, true, "0|NULL|NULL|NULL|0");
	dl_exec_agg aggs2[] = {A(DL_AGG_COUNT_STAR, NULL, "n"), A(DL_AGG_SUM, "i", "s"), A(DL_AGG_MAX, "g", "m"),
	                       A(DL_AGG_AVG, "x", "a"), A(DL_AGG_COUNT_DISTINCT, "g", "dg")};
	assert_int_equal(dl_exec_aggregate(&s, tu_stream(SPEC, rows, 7, 3), NULL, NULL, 0, aggs2, 5, NULL), 0);
	tu_expect(s, true, "7|19|b|0.875|2");
	/* grouped, empty input: no rows */
	dl_expr *keys[] = {tu_expr("g")};
	dl_exec_agg aggs3[] = {A(DL_AGG_COUNT_STAR, NULL, "n")};
	assert_int_equal(dl_exec_aggregate(&s, tu_stream(SPEC, rows, 0, 3), keys, NULL, 1, aggs3, 1, NULL), 0);
	tu_expect(s, true, "<none>");
}

static void many_groups(void **st)
{
	(void)st;
	enum { N = 30000 };
	static char buf[N][24];
	static const char *r[N];
	for (int i = 0; i < N; i++) {
		snprintf(buf[i], sizeof buf[i], "k%d|%d", i % 10007, i);
		r[i] = buf[i];
	}
	dl_expr *keys[] = {tu_expr("k")};
	dl_exec_agg aggs[] = {A(DL_AGG_COUNT_STAR, NULL, "n"), A(DL_AGG_SUM, "v", "s"), A(DL_AGG_MIN, "v", "lo")};
	dl_exec_ctx ctx = DL_EXEC_CTX_INIT;
	ctx.batch_rows = 1000; /* 11 output batches */
	dl_batch_stream *s;
	assert_int_equal(dl_exec_aggregate(&s, tu_stream("k string, v int", r, N, 4096), keys, NULL, 1, aggs, 3, &ctx), 0);
	char **lines;
	int n = tu_collect(s, &lines);
	assert_int_equal(n, 10007);
	for (int i = 0; i < n; i++) {
		int k, cnt;
		long long sum, lo;
		assert_int_equal(sscanf(lines[i], "k%d|%d|%lld|%lld", &k, &cnt, &sum, &lo), 4);
		assert_int_equal(k, i); /* first-appearance order */
		long long want = 0;
		int wc = 0;
		for (int v = k; v < N; v += 10007) want += v, wc++;
		assert_int_equal(cnt, wc);
		assert_int_equal(sum, want);
		assert_int_equal(lo, k);
	}
	tu_free_lines(lines, n);
}

static void variance(void **st)
{
	(void)st;
	dl_expr *keys[] = {tu_expr("g")};
	dl_exec_agg aggs[] = {A(DL_AGG_VAR_SAMP, "i", "vs"), A(DL_AGG_VAR_POP, "i", "vp"), A(DL_AGG_STDDEV_SAMP, "d", "ss"),
	                      A(DL_AGG_STDDEV_POP, "x", "sp")};
	dl_batch_stream *s;
	assert_int_equal(dl_exec_aggregate(&s, tu_stream(SPEC, rows, 7, 3), keys, NULL, 1, aggs, 4, NULL), 0);
	assert_int_equal(dl_batch_stream_schema(s)->children[1].type->id, DL_TYPE_DOUBLE);
	/* a: i = 1, 5 -> var_samp 8, var_pop 4; d = 1.10, 3.33, 1.10 -> stddev_samp
	 * sqrt(((1.1-1.8433)^2*2 + (3.33-1.8433)^2)/2); x = 0.5, 2, -0.5 -> stddev_pop
	 * b: one i value twice (2, 2) -> 0; one d value -> NULL sample stddev */
	char **l;
	int n = tu_collect(s, &l);
	assert_int_equal(n, 3);
	double vs, vp, ss, sp;
	assert_int_equal(sscanf(l[0], "a|%lf|%lf|%lf|%lf", &vs, &vp, &ss, &sp), 4);
	assert_true(fabs(vs - 8) < 1e-12 && fabs(vp - 4) < 1e-12);
	double m = (1.1 + 3.33 + 1.1) / 3;
	assert_true(fabs(ss - sqrt((2 * (1.1 - m) * (1.1 - m) + (3.33 - m) * (3.33 - m)) / 2)) < 1e-9);
	assert_true(fabs(sp - sqrt(((0.5 - 2.0 / 3) * (0.5 - 2.0 / 3) + (2 - 2.0 / 3) * (2 - 2.0 / 3) +
	                             (-0.5 - 2.0 / 3) * (-0.5 - 2.0 / 3)) / 3)) < 1e-9);
	assert_string_equal(l[1], "b|0|0|NULL|NULL");
	tu_free_lines(l, n);
}

static void overflow_and_errors(void **st)
{
	(void)st;
	const char *big[] = {"9223372036854775807", "1"};
	dl_exec_agg a1[] = {A(DL_AGG_SUM, "v", "s")};
	dl_batch_stream *s;
	assert_int_equal(dl_exec_aggregate(&s, tu_stream("v long", big, 2, 2), NULL, NULL, 0, a1, 1, NULL), 0);
	char **l;
	assert_int_equal(tu_collect(s, &l), DL_EINVALID);
	assert_non_null(strstr(dl_error_last()->message, "ARITHMETIC_OVERFLOW"));
	dl_exec_agg a2[] = {A(DL_AGG_SUM, "g", "s")};
	assert_int_equal(dl_exec_aggregate(&s, tu_stream(SPEC, rows, 7, 2), NULL, NULL, 0, a2, 1, NULL), DL_EINVALID);
	assert_non_null(strstr(dl_error_last()->message, "numeric"));
	dl_exec_agg a3[] = {{.kind = DL_AGG_COUNT, .arg = NULL, .name = "c"}};
	assert_int_equal(dl_exec_aggregate(&s, tu_stream(SPEC, rows, 7, 2), NULL, NULL, 0, a3, 1, NULL), DL_EINVALID);
}

static void memory_limit(void **st)
{
	(void)st;
	enum { N = 20000 };
	static char buf[N][16];
	static const char *r[N];
	for (int i = 0; i < N; i++) {
		snprintf(buf[i], sizeof buf[i], "%d", i);
		r[i] = buf[i];
	}
	dl_exec_memory mem = DL_EXEC_MEMORY_INIT(64 * 1024);
	dl_exec_ctx ctx = DL_EXEC_CTX_INIT;
	ctx.mem = &mem;
	dl_expr *keys[] = {tu_expr("v")};
	dl_exec_agg aggs[] = {A(DL_AGG_COUNT_STAR, NULL, "n")};
	dl_batch_stream *s;
	assert_int_equal(dl_exec_aggregate(&s, tu_stream("v int", r, N, 1000), keys, NULL, 1, aggs, 1, &ctx), 0);
	char **l;
	/* over the limit the groups spill to temporary files (test_spill.c) */
	assert_int_equal(tu_collect(s, &l), N);
	tu_free_lines(l, N);
	assert_true(atomic_load(&mem.peak) <= 64 * 1024);
	assert_int_equal(atomic_load(&mem.used), 0); /* all released with the operator */
	/* the same under a big enough limit, and the peak is recorded */
	dl_exec_memory big = DL_EXEC_MEMORY_INIT(64 << 20);
	ctx.mem = &big;
	dl_expr *keys2[] = {tu_expr("v")};
	dl_exec_agg aggs2[] = {A(DL_AGG_COUNT_STAR, NULL, "n")};
	assert_int_equal(dl_exec_aggregate(&s, tu_stream("v int", r, N, 1000), keys2, NULL, 1, aggs2, 1, &ctx), 0);
	assert_int_equal(tu_collect(s, &l), N);
	tu_free_lines(l, N);
	assert_true(atomic_load(&big.peak) > 64 * 1024);
	assert_int_equal(atomic_load(&big.used), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(group_by_with_null_group),
		cmocka_unit_test(expression_keys_and_first_last),
		cmocka_unit_test(global_aggregate),
		cmocka_unit_test(many_groups),
		cmocka_unit_test(variance),
		cmocka_unit_test(overflow_and_errors),
		cmocka_unit_test(memory_limit),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
