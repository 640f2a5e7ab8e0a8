/* Sort and top-N: several keys, ASC/DESC, Spark's NULL placement by
 * default and explicit NULLS FIRST/LAST, stability, NaN, top-N with OFFSET
 * over many batches (checked against a full sort). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>
#include "exec_test_util.h"

#define SPEC "id int, a int, s string, x double"
static const char *const rows[] = {
	"1|2|b|1.5", "2|NULL|a|NaN", "3|1|NULL|-1", "4|2|a|NULL", "5|1|c|0", "6|NULL|NULL|2", "7|2|b|NaN",
};

static dl_exec_sort_key K(const char *e, bool desc, dl_nulls_order n)
{
	dl_exec_sort_key k = {tu_expr(e), desc, n};
	return k;
}

static void keys_and_nulls(void **st)
{
	(void)st;
	dl_batch_stream *s;
	/* a ASC (NULLS FIRST by default), then s DESC (NULLS LAST by default), ties by input order */
	dl_exec_sort_key k1[] = {K("a", false, DL_NULLS_DEFAULT), K("s", true, DL_NULLS_DEFAULT)};
	assert_int_equal(dl_exec_sort(&s, tu_stream(SPEC, rows, 7, 3), k1, 2, -1, 0, NULL), 0);
	tu_expect(s, true, "2|NULL|a|NaN", "6|NULL|NULL|2", "5|1|c|0", "3|1|NULL|-1", "1|2|b|1.5", "7|2|b|NaN",
	          "4|2|a|NULL");
	dl_exec_sort_key k2[] = {K("a", true, DL_NULLS_FIRST), K("id", true, DL_NULLS_DEFAULT)};
	assert_int_equal(dl_exec_sort(&s, tu_stream(SPEC, rows, 7, 2), k2, 2, -1, 0, NULL), 0);
	tu_expect(s, true, "6|NULL|NULL|2", "2|NULL|a|NaN", "7|2|b|NaN", "4|2|a|NULL", "1|2|b|1.5", "5|1|c|0",
	          "3|1|NULL|-1");
	/* NaN above every number; NULLS LAST ascending */
	dl_exec_sort_key k3[] = {K("x", false, DL_NULLS_LAST)};
	assert_int_equal(dl_exec_sort(&s, tu_stream(SPEC, rows, 7, 7), k3, 1, -1, 0, NULL), 0);
	tu_expect(s, true, "3|1|NULL|-1", "5|1|c|0", "1|2|b|1.5", "6|NULL|NULL|2", "2|NULL|a|NaN", "7|2|b|NaN",
	          "4|2|a|NULL");
	/* an expression key */
	dl_exec_sort_key k4[] = {K("-id % 3", false, DL_NULLS_DEFAULT)};
	assert_int_equal(dl_exec_sort(&s, tu_stream(SPEC, rows, 7, 7), k4, 1, 3, 1, NULL), 0);
	tu_expect(s, true, "5|1|c|0", "1|2|b|1.5", "4|2|a|NULL"); /* keys -2,-1,0: ids 2,5 | 1,4,7 | 3,6 */
	dl_exec_sort_key k5[] = {K("a", false, DL_NULLS_DEFAULT)};
	assert_int_equal(dl_exec_sort(&s, tu_stream(SPEC, rows, 0, 7), k5, 1, -1, 0, NULL), 0);
	tu_expect(s, true, "<none>");
}

static void top_n_matches_full_sort(void **st)
{
	(void)st;
	enum { N = 20000 };
	static char buf[N][32];
	static const char *r[N];
	unsigned seed = 7;
	for (int i = 0; i < N; i++) {
		seed = seed * 1103515245u + 12345u;
		int v = (int)((seed >> 8) % 500);
		if (v < 10) snprintf(buf[i], sizeof buf[i], "%d|NULL", i);
		else snprintf(buf[i], sizeof buf[i], "%d|%d", i, v);
		r[i] = buf[i];
	}
	dl_exec_ctx ctx = DL_EXEC_CTX_INIT;
	ctx.batch_rows = 333;
	char **full, **top;
	dl_batch_stream *s;
	dl_exec_sort_key k1[] = {K("v", true, DL_NULLS_DEFAULT)};
	assert_int_equal(dl_exec_sort(&s, tu_stream("id int, v int", r, N, 1000), k1, 1, -1, 0, &ctx), 0);
	assert_int_equal(tu_collect(s, &full), N);
	/* stable: equal v keep ascending ids; NULLs last for DESC */
	for (int i = 1; i < N; i++) {
		int ia, va, ib, vb;
		bool na = sscanf(full[i - 1], "%d|%d", &ia, &va) < 2, nb = sscanf(full[i], "%d|%d", &ib, &vb) < 2;
		assert_true(na ? nb : (nb || va > vb || (va == vb && ia < ib)));
		if (na && nb) assert_true(ia < ib);
	}
	dl_exec_sort_key k2[] = {K("v", true, DL_NULLS_DEFAULT)};
	assert_int_equal(dl_exec_sort(&s, tu_stream("id int, v int", r, N, 1000), k2, 1, 700, 150, &ctx), 0);
	assert_int_equal(tu_collect(s, &top), 700);
	for (int i = 0; i < 700; i++) assert_string_equal(top[i], full[150 + i]);
	tu_free_lines(top, 700);
	dl_exec_sort_key k3[] = {K("v", true, DL_NULLS_DEFAULT)};
	assert_int_equal(dl_exec_sort(&s, tu_stream("id int, v int", r, N, 1000), k3, 1, 50, N - 20, &ctx), 0);
	assert_int_equal(tu_collect(s, &top), 20);
	for (int i = 0; i < 20; i++) assert_string_equal(top[i], full[N - 20 + i]);
	tu_free_lines(top, 20);
	tu_free_lines(full, N);
}

/* More rows than one run of the parallel sort: the result must be the
 * stable order, the same as top-N's (which sorts small buffers serially). */
static void parallel_sort_is_stable(void **st)
{
	(void)st;
	enum { N = 300000 };
	static char buf[N][24];
	static const char *r[N];
	unsigned seed = 11;
	for (int i = 0; i < N; i++) {
		seed = seed * 1103515245u + 12345u;
		int v = (int)((seed >> 8) % 1000);
		snprintf(buf[i], sizeof buf[i], "%d|%d|%c", i, v, 'a' + (int)((seed >> 4) % 3));
		r[i] = buf[i];
	}
	char **full, **top;
	dl_batch_stream *s;
	dl_exec_sort_key k1[] = {K("s", false, DL_NULLS_DEFAULT), K("v", true, DL_NULLS_DEFAULT)};
	assert_int_equal(dl_exec_sort(&s, tu_stream("id int, v int, s string", r, N, 50000), k1, 2, -1, 0, NULL), 0);
	assert_int_equal(tu_collect(s, &full), N);
	for (int i = 1; i < N; i++) {
		int ia, va, ib, vb;
		char ca, cb;
		assert_int_equal(sscanf(full[i - 1], "%d|%d|%c", &ia, &va, &ca), 3);
		assert_int_equal(sscanf(full[i], "%d|%d|%c", &ib, &vb, &cb), 3);
		assert_true(ca < cb || (ca == cb && (va > vb || (va == vb && ia < ib))));
	}
	dl_exec_sort_key k2[] = {K("s", false, DL_NULLS_DEFAULT), K("v", true, DL_NULLS_DEFAULT)};
	assert_int_equal(dl_exec_sort(&s, tu_stream("id int, v int, s string", r, N, 50000), k2, 2, 1000, 0, NULL), 0);
	assert_int_equal(tu_collect(s, &top), 1000);
	for (int i = 0; i < 1000; i++) assert_string_equal(top[i], full[i]);
	tu_free_lines(top, 1000);
	tu_free_lines(full, N);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(keys_and_nulls),
		cmocka_unit_test(top_n_matches_full_sort),
		cmocka_unit_test(parallel_sort_is_stable),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
