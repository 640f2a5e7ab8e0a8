/* DISTINCT and set operations: NULLs equal to each other, first
 * occurrence kept, distinct INTERSECT/EXCEPT vs the ALL forms' multiset
 * counts, schema checks. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>
#include "exec_test_util.h"

#define SPEC "a int, s string"
static const char *const A[] = {"1|x", "1|x", "2|NULL", "NULL|NULL", "2|NULL", "1|x", "3|y"};
static const char *const B[] = {"1|x", "NULL|NULL", "4|z", "1|x", "NULL|NULL"};

static dl_batch_stream *op(dl_setop_kind k, bool all)
{
	dl_batch_stream *s;
	if (dl_exec_setop(&s, tu_stream(SPEC, A, 7, 2), tu_stream(SPEC, B, 5, 3), k, all, NULL) < 0)
		fail_msg("setop: %s", dl_error_last()->message);
	return s;
}

static void distinct(void **st)
{
	(void)st;
	dl_batch_stream *s;
	assert_int_equal(dl_exec_distinct(&s, tu_stream(SPEC, A, 7, 3), NULL), 0);
	tu_expect(s, true, "1|x", "2|NULL", "NULL|NULL", "3|y");
	assert_int_equal(dl_exec_distinct(&s, tu_stream(SPEC, A, 0, 3), NULL), 0);
	tu_expect(s, true, "<none>");
}

static void unions(void **st)
{
	(void)st;
	tu_expect(op(DL_SETOP_UNION, true), true, "1|x", "1|x", "2|NULL", "NULL|NULL", "2|NULL", "1|x", "3|y", "1|x",
	          "NULL|NULL", "4|z", "1|x", "NULL|NULL");
	tu_expect(op(DL_SETOP_UNION, false), true, "1|x", "2|NULL", "NULL|NULL", "3|y", "4|z");
}

static void intersect_except(void **st)
{
	(void)st;
	tu_expect(op(DL_SETOP_INTERSECT, false), false, "1|x", "NULL|NULL");
	/* min(3, 2) copies of 1|x, min(1, 2) of NULL|NULL */
	tu_expect(op(DL_SETOP_INTERSECT, true), false, "1|x", "1|x", "NULL|NULL");
	tu_expect(op(DL_SETOP_EXCEPT, false), false, "2|NULL", "3|y");
	/* max(3 - 2, 0) copies of 1|x, 2 of 2|NULL, none of NULL|NULL */
	tu_expect(op(DL_SETOP_EXCEPT, true), false, "1|x", "2|NULL", "2|NULL", "3|y");
}

static void schema_checks(void **st)
{
	(void)st;
	dl_batch_stream *s;
	assert_int_equal(dl_exec_setop(&s, tu_stream(SPEC, A, 7, 2), tu_stream("a int", B, 0, 3), DL_SETOP_UNION, true, NULL),
	                 DL_ESCHEMA);
	assert_null(s);
	assert_int_equal(dl_exec_setop(&s, tu_stream(SPEC, A, 7, 2), tu_stream("a long, s string", B, 0, 3),
	                               DL_SETOP_EXCEPT, false, NULL),
	                 DL_ESCHEMA);
	assert_non_null(strstr(dl_error_last()->message, "column 1"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(distinct),
		cmocka_unit_test(unions),
		cmocka_unit_test(intersect_except),
		cmocka_unit_test(schema_checks),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
