/* The hash aggregate's newer kinds: count_if, bool_and/bool_or, any_value,
 * collect_list/collect_set (NULLs skipped, [] for an empty group),
 * agg(DISTINCT x), approx_count_distinct (Spark's XXH64 and HLL++),
 * percentile_approx (Spark's GK summary; Spark's documented examples),
 * global aggregates over empty input, type errors. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>
#include "exec/agg_ext.h"
#include "exec_test_util.h"

#define SPEC "g string, i int, b boolean, d decimal(6,2), dt date"
static const char *const rows[] = {
	"a|1|true|1.10|2024-01-02", "b|2|false|2.00|2024-03-01", "NULL|3|NULL|NULL|NULL", "a|NULL|false|3.30|2023-12-31",
	"a|5|true|1.10|2024-01-05", "NULL|NULL|NULL|0.01|2020-02-29", "b|2|NULL|NULL|NULL", "a|1|NULL|NULL|2024-01-02",
};

static dl_exec_agg A(dl_agg_kind k, const char *arg, const char *name)
{
	dl_exec_agg a = {.kind = k, .arg = arg ? tu_expr(arg) : NULL, .name = name};
	return a;
}

static void boolean_and_count_if(void **st)
{
	(void)st;
	dl_expr *keys[] = {tu_expr("g")};
	const char *kn[] = {"g"};
	dl_exec_agg aggs[] = {A(DL_AGG_COUNT_IF, "b", "ci"), A(DL_AGG_BOOL_AND, "b", "ba"), A(DL_AGG_BOOL_OR, "b", "bo"),
	                      A(DL_AGG_ANY_VALUE, "i", "av"), A(DL_AGG_ANY_VALUE, "b", "avn"),
	                      A(DL_AGG_COUNT_IF, "i > 1", "ci2")};
	aggs[4].ignore_nulls = true;
	dl_batch_stream *s;
	assert_int_equal(dl_exec_aggregate(&s, tu_stream(SPEC, rows, 8, 3), keys, kn, 1, aggs, 6, NULL), 0);
	const dl_type *t = dl_batch_stream_schema(s);
	assert_int_equal(t->children[1].type->id, DL_TYPE_LONG);
	assert_false(t->children[1].nullable);
	assert_int_equal(t->children[2].type->id, DL_TYPE_BOOLEAN);
	assert_true(t->children[2].nullable);
	/* a: b = true, false, true, NULL; b: false, NULL; NULL: NULL, NULL */
	tu_expect(s, true, "a|2|false|true|1|true|1", "b|0|false|false|2|false|2", "NULL|0|NULL|NULL|3|NULL|1");
}

static void collect(void **st)
{
	(void)st;
	dl_expr *keys[] = {tu_expr("g")};
	const char *kn[] = {"g"};
	dl_exec_agg aggs[] = {A(DL_AGG_COLLECT_LIST, "i", "cl"), A(DL_AGG_COLLECT_SET, "i", "cs"),
	                      A(DL_AGG_COLLECT_SET, "d", "csd"), A(DL_AGG_COLLECT_LIST, "dt", "cdt"),
	                      A(DL_AGG_COLLECT_LIST, "g", "cg")};
	dl_batch_stream *s;
	assert_int_equal(dl_exec_aggregate(&s, tu_stream(SPEC, rows, 8, 2), keys, kn, 1, aggs, 5, NULL), 0);
	const dl_type *t = dl_batch_stream_schema(s);
	assert_int_equal(t->children[1].type->id, DL_TYPE_ARRAY);
	assert_int_equal(t->children[1].type->children[0].type->id, DL_TYPE_INTEGER);
	assert_false(t->children[1].type->children[0].nullable); /* containsNull = false */
	assert_false(t->children[1].nullable);
	/* NULLs skipped; input order; the set keeps first appearances; a group
	 * whose values are all NULL collects [] */
	tu_expect(s, true, "a|[1, 5, 1]|[1, 5]|[1.10, 3.30]|[2024-01-02, 2023-12-31, 2024-01-05, 2024-01-02]|[a, a, a, a]",
	          "b|[2, 2]|[2]|[2.00]|[2024-03-01]|[b, b]", "NULL|[3]|[3]|[0.01]|[2020-02-29]|[]");
}

static void distinct_flag(void **st)
{
	(void)st;
	dl_expr *keys[] = {tu_expr("g")};
	const char *kn[] = {"g"};
	dl_exec_agg aggs[] = {A(DL_AGG_SUM, "i", "s"),         A(DL_AGG_AVG, "d", "a"),   A(DL_AGG_COLLECT_LIST, "i", "l"),
	                      A(DL_AGG_COUNT, "i", "c"),       A(DL_AGG_SUM, "i", "all"), A(DL_AGG_VAR_POP, "i", "v"),
	                      A(DL_AGG_APPROX_COUNT_DISTINCT, "i", "acd")};
	for (int k = 0; k < 7; k++) aggs[k].distinct = k != 4;
	dl_batch_stream *s;
	assert_int_equal(dl_exec_aggregate(&s, tu_stream(SPEC, rows, 8, 3), keys, kn, 1, aggs, 7, NULL), 0);
	/* a: i = 1, NULL, 5, 1 -> distinct {1, 5}; d = 1.10, 3.30, 1.10 -> {1.10, 3.30} */
	tu_expect(s, true, "a|6|2.200000|[1, 5]|2|7|4|2", "b|2|2.000000|[2]|1|4|0|1", "NULL|3|0.010000|[3]|1|3|0|1");
}

static void global_over_empty_input(void **st)
{
	(void)st;
	dl_exec_agg aggs[] = {A(DL_AGG_COUNT_IF, "b", "ci"),       A(DL_AGG_BOOL_AND, "b", "ba"),
	                      A(DL_AGG_ANY_VALUE, "g", "av"),      A(DL_AGG_COLLECT_LIST, "i", "cl"),
	                      A(DL_AGG_COLLECT_SET, "g", "cs"),    A(DL_AGG_APPROX_COUNT_DISTINCT, "i", "acd"),
	                      A(DL_AGG_PERCENTILE_APPROX, "i", "p")};
	aggs[6].param = tu_expr("0.5");
	dl_batch_stream *s;
	assert_int_equal(dl_exec_aggregate(&s, tu_stream(SPEC, rows, 0, 3), NULL, NULL, 0, aggs, 7, NULL), 0);
	tu_expect(s, true, "0|NULL|NULL|[]|[]|0|NULL");
}

static void xxhash_and_hll(void **st)
{
	(void)st;
	/* XXH64's reference value for no bytes, seed 0 */
	assert_true(agg_xxh64("", 0, 0) == 0xEF46DB3751D8E999ULL);
	/* Spark's documented xxhash64('Spark', array(123), 2) = 5602566077635097486:
	 * the string, then the array's element, then the int, each hash the seed
	 * of the next, starting at 42 */
	uint64_t h = agg_xxh64("Spark", 5, 42);
	uint8_t le123[4] = {123, 0, 0, 0}, le2[4] = {2, 0, 0, 0};
	h = agg_xxh64(le123, 4, h);
	h = agg_xxh64(le2, 4, h);
	assert_true((int64_t)h == 5602566077635097486LL);
	/* long strings go through the 32-byte stripes */
	const char *big = "The quick brown fox jumps over the lazy dog, twice: the quick brown fox";
	assert_true(agg_xxh64(big, strlen(big), 42) != agg_xxh64(big, strlen(big) - 1, 42));
	/* Spark's documented approx_count_distinct over (1), (1), (2), (2), (3) = 3 */
	static const char *const r[] = {"1", "1", "2", "2", "3"};
	dl_exec_agg aggs[] = {A(DL_AGG_APPROX_COUNT_DISTINCT, "v", "n")};
	dl_batch_stream *s;
	assert_int_equal(dl_exec_aggregate(&s, tu_stream("v int", r, 5, 2), NULL, NULL, 0, aggs, 1, NULL), 0);
	tu_expect(s, true, "3");
	/* large sets: within a few rsd (0.05 here, 0.01 with rsd 0.01) */
	enum { N = 100000 };
	char **rr = malloc(N * sizeof *rr);
	for (int i = 0; i < N; i++) {
		rr[i] = malloc(16);
		snprintf(rr[i], 16, "%d", i % 20000);
	}
	dl_exec_agg aggs2[] = {A(DL_AGG_APPROX_COUNT_DISTINCT, "v", "n"), A(DL_AGG_APPROX_COUNT_DISTINCT, "v", "m"),
	                       A(DL_AGG_APPROX_COUNT_DISTINCT, "cast(v as string)", "s")};
	aggs2[1].rsd = 0.01;
	assert_int_equal(dl_exec_aggregate(&s, tu_stream("v long", (const char *const *)rr, N, 4096), NULL, NULL, 0, aggs2,
	                                   3, NULL),
	                 0);
	char **l;
	assert_int_equal(tu_collect(s, &l), 1);
	long long n, m, sn;
	assert_int_equal(sscanf(l[0], "%lld|%lld|%lld", &n, &m, &sn), 3);
	assert_true(llabs(n - 20000) < 20000 * 0.15);
	assert_true(llabs(m - 20000) < 20000 * 0.03);
	assert_true(llabs(sn - 20000) < 20000 * 0.15);
	assert_true(n != sn); /* strings hash differently from longs */
	tu_free_lines(l, 1);
	for (int i = 0; i < N; i++) free(rr[i]);
	free(rr);
	/* rsd out of range */
	dl_exec_agg bad[] = {A(DL_AGG_APPROX_COUNT_DISTINCT, "v", "n")};
	bad[0].rsd = 0.5;
	assert_int_equal(dl_exec_aggregate(&s, tu_stream("v int", r, 5, 2), NULL, NULL, 0, bad, 1, NULL), DL_EINVALID);
}

static void percentile(void **st)
{
	(void)st;
	/* Spark's documented example: percentile_approx(col, array(0.5, 0.4,
	 * 0.1), 100) over 0, 1, 2, 10 = [1,  1,  0]; and 0.5 of the same = 1 */
	static const char *const r[] = {"0", "1", "2", "10"};
	dl_exec_agg aggs[] = {A(DL_AGG_PERCENTILE_APPROX, "v", "p"), A(DL_AGG_PERCENTILE_APPROX, "v", "q")};
	aggs[0].param = tu_expr("array(0.5, 0.4, 0.1)");
	aggs[0].accuracy = 100;
	aggs[1].param = tu_expr("0.5");
	dl_batch_stream *s;
	assert_int_equal(dl_exec_aggregate(&s, tu_stream("v int", r, 4, 3), NULL, NULL, 0, aggs, 2, NULL), 0);
	const dl_type *t = dl_batch_stream_schema(s);
	assert_int_equal(t->children[0].type->id, DL_TYPE_ARRAY);
	assert_int_equal(t->children[1].type->id, DL_TYPE_INTEGER);
	tu_expect(s, true, "[1, 1, 0]|1");
	/* decimals and dates keep their type; per group */
	dl_expr *keys[] = {tu_expr("g")};
	dl_exec_agg aggs2[] = {A(DL_AGG_PERCENTILE_APPROX, "d", "pd"), A(DL_AGG_PERCENTILE_APPROX, "dt", "pdt")};
	aggs2[0].param = tu_expr("0.5");
	aggs2[1].param = tu_expr("1.0");
	assert_int_equal(dl_exec_aggregate(&s, tu_stream(SPEC, rows, 8, 3), keys, NULL, 1, aggs2, 2, NULL), 0);
	tu_expect(s, true, "a|1.10|2024-01-05", "b|2.00|2024-03-01", "NULL|0.01|2020-02-29");
	/* a big shuffled input goes through the head buffer and compression:
	 * the answer's rank is within accuracy's bound */
	enum { N = 120000 };
	char **rr = malloc(N * sizeof *rr);
	for (int i = 0; i < N; i++) {
		rr[i] = malloc(16);
		snprintf(rr[i], 16, "%d", (int)(((int64_t)i * 7919) % N) + 1);
	}
	dl_exec_agg aggs3[] = {A(DL_AGG_PERCENTILE_APPROX, "v", "p"), A(DL_AGG_PERCENTILE_APPROX, "v", "q")};
	aggs3[0].param = tu_expr("array(0.25, 0.5, 0.99)");
	aggs3[1].param = tu_expr("0.5");
	aggs3[1].accuracy = 100;
	assert_int_equal(dl_exec_aggregate(&s, tu_stream("v int", (const char *const *)rr, N, 8192), NULL, NULL, 0, aggs3,
	                                   2, NULL),
	                 0);
	char **l;
	assert_int_equal(tu_collect(s, &l), 1);
	int a, b, c, q;
	assert_int_equal(sscanf(l[0], "[%d, %d, %d]|%d", &a, &b, &c, &q), 4);
	assert_true(abs(a - N / 4) <= N / 10000 + 1);
	assert_true(abs(b - N / 2) <= N / 10000 + 1);
	assert_true(abs(c - N * 99 / 100) <= N / 10000 + 1);
	assert_true(abs(q - N / 2) <= N / 100 + 1);
	tu_free_lines(l, 1);
	for (int i = 0; i < N; i++) free(rr[i]);
	free(rr);
	/* the percentage must be a constant in [0,  1] */
	dl_exec_agg bad[] = {A(DL_AGG_PERCENTILE_APPROX, "v", "p")};
	bad[0].param = tu_expr("1.5");
	assert_int_equal(dl_exec_aggregate(&s, tu_stream("v int", r, 4, 3), NULL, NULL, 0, bad, 1, NULL), DL_EINVALID);
	dl_exec_agg bad2[] = {A(DL_AGG_PERCENTILE_APPROX, "v", "p")};
	bad2[0].param = tu_expr("v / 10");
	assert_true(dl_exec_aggregate(&s, tu_stream("v int", r, 4, 3), NULL, NULL, 0, bad2, 1, NULL) < 0);
}

static void nested_min_max_first_last(void **st)
{
	(void)st;
	dl_expr *keys[] = {tu_expr("g")};
	const char *kn[] = {"g"};
	dl_exec_agg aggs[] = {A(DL_AGG_MIN, "array(coalesce(i, 0), 7)", "mn"),
	                      A(DL_AGG_MAX, "array(coalesce(i, 0), 7)", "mx"),
	                      A(DL_AGG_FIRST, "array(coalesce(i, 0), 7)", "f"),
	                      A(DL_AGG_LAST, "named_struct('i', i, 'g', g)", "l"),
	                      A(DL_AGG_MIN, "CASE WHEN i > 1 THEN array(i) END", "mnn"),
	                      A(DL_AGG_LAST, "CASE WHEN i > 1 THEN array(i) END", "ln"),
	                      A(DL_AGG_LAST, "CASE WHEN i > 1 THEN array(i) END", "lnn")};
	aggs[6].ignore_nulls = true;
	dl_batch_stream *s;
	/* one row per batch: values replaced across batches stay right */
	assert_int_equal(dl_exec_aggregate(&s, tu_stream(SPEC, rows, 8, 1), keys, kn, 1, aggs, 7, NULL), 0);
	assert_int_equal(dl_batch_stream_schema(s)->children[4].type->id, DL_TYPE_STRUCT);
	tu_expect(s, true, "a|[0, 7]|[5, 7]|[1, 7]|{i: 1, g: a}|[5]|NULL|[5]", "b|[2, 7]|[2, 7]|[2, 7]|{i: 2, g: b}|[2]|[2]|[2]",
	          "NULL|[0, 7]|[3, 7]|[3, 7]|{i: NULL, g: NULL}|[3]|NULL|[3]");
	dl_exec_agg bad[] = {A(DL_AGG_MAX, "map(g, i)", "m")};
	assert_int_equal(dl_exec_aggregate(&s, tu_stream(SPEC, rows, 8, 3), NULL, NULL, 0, bad, 1, NULL), DL_EINVALID);
}

/* The same answers when the aggregate spills: 3000 groups need about
 * 1.8 MB here (HLL++ registers alone 1.5 MB), the limit is 1 MB. */
static void under_memory_limit(void **st)
{
	(void)st;
	enum { N = 20000 };
	char **r = malloc(N * sizeof *r);
	for (int i = 0; i < N; i++) {
		r[i] = malloc(48);
		snprintf(r[i], 48, "%d|%d|%s", i % 3000, (i * 7) % 11, i % 5 ? "true" : "false");
	}
	char **res[2];
	int nres[2];
	for (int run = 0; run < 2; run++) {
		dl_exec_memory mem = DL_EXEC_MEMORY_INIT(run ? 1024 * 1024 : 0);
		dl_exec_ctx ctx = DL_EXEC_CTX_INIT;
		ctx.mem = &mem;
		dl_expr *keys[] = {tu_expr("k")};
		dl_exec_agg aggs[] = {A(DL_AGG_COLLECT_SET, "v", "cs"), A(DL_AGG_COUNT_IF, "b", "ci"),
		                      A(DL_AGG_APPROX_COUNT_DISTINCT, "v", "acd"), A(DL_AGG_PERCENTILE_APPROX, "v", "p"),
		                      A(DL_AGG_SUM, "v", "sd"), A(DL_AGG_BOOL_AND, "b", "ba"),
		                      A(DL_AGG_MAX, "array(v, k)", "mx")};
		aggs[3].param = tu_expr("0.5");
		aggs[4].distinct = true;
		dl_batch_stream *s;
		assert_int_equal(dl_exec_aggregate(&s, tu_stream("k int, v int, b boolean", (const char *const *)r, N, 1024),
		                                   keys, NULL, 1, aggs, 7, &ctx),
		                 0);
		dl_expr *sorted[] = {tu_expr("key"), tu_expr("sort_array(cs)"), tu_expr("ci"), tu_expr("acd"), tu_expr("p"),
		                     tu_expr("sd"), tu_expr("ba"), tu_expr("mx")};
		dl_batch_stream *p;
		assert_int_equal(dl_exec_project(&p, s, sorted, NULL, 8, &ctx), 0);
		nres[run] = tu_collect(p, &res[run]);
		if (nres[run] < 0) fail_msg("run %d: %s", run, dl_error_last()->message);
		assert_int_equal(atomic_load(&mem.used), 0);
		qsort(res[run], (size_t)nres[run], sizeof *res[run], tu_strcmp);
	}
	assert_int_equal(nres[0], 3000);
	assert_int_equal(nres[1], 3000);
	for (int i = 0; i < 3000; i++) assert_string_equal(res[0][i], res[1][i]);
	for (int run = 0; run < 2; run++) tu_free_lines(res[run], nres[run]);
	for (int i = 0; i < N; i++) free(r[i]);
	free(r);
}

static void type_errors(void **st)
{
	(void)st;
	dl_batch_stream *s;
	dl_exec_agg a1[] = {A(DL_AGG_COUNT_IF, "i", "x")};
	assert_int_equal(dl_exec_aggregate(&s, tu_stream(SPEC, rows, 8, 3), NULL, NULL, 0, a1, 1, NULL), DL_EINVALID);
	assert_non_null(strstr(dl_error_last()->message, "count_if"));
	dl_exec_agg a2[] = {A(DL_AGG_BOOL_OR, "g", "x")};
	assert_int_equal(dl_exec_aggregate(&s, tu_stream(SPEC, rows, 8, 3), NULL, NULL, 0, a2, 1, NULL), DL_EINVALID);
	dl_exec_agg a3[] = {A(DL_AGG_PERCENTILE_APPROX, "g", "x")};
	a3[0].param = tu_expr("0.5");
	assert_int_equal(dl_exec_aggregate(&s, tu_stream(SPEC, rows, 8, 3), NULL, NULL, 0, a3, 1, NULL), DL_EINVALID);
	dl_exec_agg a4[] = {A(DL_AGG_PERCENTILE_APPROX, "i", "x")};
	assert_int_equal(dl_exec_aggregate(&s, tu_stream(SPEC, rows, 8, 3), NULL, NULL, 0, a4, 1, NULL), DL_EINVALID);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(boolean_and_count_if),
		cmocka_unit_test(collect),
		cmocka_unit_test(distinct_flag),
		cmocka_unit_test(global_over_empty_input),
		cmocka_unit_test(xxhash_and_hll),
		cmocka_unit_test(percentile),
		cmocka_unit_test(nested_min_max_first_last),
		cmocka_unit_test(under_memory_limit),
		cmocka_unit_test(type_errors),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
