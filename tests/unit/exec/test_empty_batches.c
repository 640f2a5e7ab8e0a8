/* Zero-row batches in the middle of an input (scans produce them for files
 * whose rows are all deleted or filtered) pass through every operator. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>
#include "exec_test_util.h"

#define SPEC "k int, s string"
static const char *const rows[] = {"1|a", "NULL|b", "1|c"};

/* batches of 0, 2, 0, 1, 0 rows */
static dl_batch_stream *gappy(void)
{
	dl_type *t = tu_schema(SPEC);
	dl_batch *b[5] = {tu_batch(t, rows, 0), tu_batch(t, rows, 2), tu_batch(t, rows, 0), tu_batch(t, rows + 2, 1),
	                  tu_batch(t, rows, 0)};
	dl_batch_stream *s;
	assert_int_equal(dl_batch_stream_from_batches(&s, t, b, 5), 0);
	dl_type_unref(t);
	return s;
}

static void every_operator(void **st)
{
	(void)st;
	dl_batch_stream *s;
	assert_int_equal(dl_exec_filter(&s, gappy(), tu_expr("k IS NOT NULL"), NULL), 0);
	tu_expect(s, true, "1|a", "1|c");
	dl_expr *p[] = {tu_expr("s")};
	assert_int_equal(dl_exec_project(&s, gappy(), p, NULL, 1, NULL), 0);
	tu_expect(s, true, "a", "b", "c");
	assert_int_equal(dl_exec_limit(&s, gappy(), 2, 1), 0);
	tu_expect(s, true, "NULL|b", "1|c");
	dl_expr *k[] = {tu_expr("k")};
	dl_exec_agg a[] = {{.kind = DL_AGG_COUNT_STAR, .arg = NULL, .name = "n"}, {.kind = DL_AGG_MAX, .arg = tu_expr("s"), .name = "m"}};
	assert_int_equal(dl_exec_aggregate(&s, gappy(), k, NULL, 1, a, 2, NULL), 0);
	tu_expect(s, true, "1|2|c", "NULL|1|b");
	dl_exec_sort_key sk[] = {{tu_expr("s"), true, DL_NULLS_DEFAULT}};
	assert_int_equal(dl_exec_sort(&s, gappy(), sk, 1, 2, 0, NULL), 0);
	tu_expect(s, true, "1|c", "NULL|b");
	dl_expr *lk[] = {tu_expr("k")}, *rk[] = {tu_expr("k")};
	dl_expr *pr[] = {tu_expr("k"), tu_expr("s")};
	const char *prn[] = {"k2", "s2"};
	dl_batch_stream *right;
	assert_int_equal(dl_exec_project(&right, gappy(), pr, prn, 2, NULL), 0);
	dl_expr_free(rk[0]);
	rk[0] = tu_expr("k2");
	dl_exec_join j = {DL_JOIN_FULL, 1, lk, rk, NULL, NULL};
	assert_int_equal(dl_exec_hash_join(&s, gappy(), right, &j, NULL), 0);
	tu_expect(s, false, "1|a|1|a", "1|a|1|c", "1|c|1|a", "1|c|1|c", "NULL|b|NULL|NULL", "NULL|NULL|NULL|b");
	assert_int_equal(dl_exec_distinct(&s, gappy(), NULL), 0);
	tu_expect(s, true, "1|a", "NULL|b", "1|c");
	assert_int_equal(dl_exec_setop(&s, gappy(), gappy(), DL_SETOP_EXCEPT, true, NULL), 0);
	tu_expect(s, true, "<none>");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(every_operator),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
