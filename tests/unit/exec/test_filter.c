/* Filter, project and limit: three-valued filtering, aliases, computed
 * columns, LIMIT/OFFSET across batch boundaries, errors at construction. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>
#include "exec_test_util.h"

static const char *const rows[] = {"1|a|10", "2|NULL|20", "NULL|c|30", "4|d|NULL", "5|e|50"};
#define SPEC "x int, s string, y long"

static void filter_null_is_not_true(void **st)
{
	(void)st;
	dl_batch_stream *f;
	/* x > 1 is NULL for row 3: dropped, as is FALSE */
	assert_int_equal(dl_exec_filter(&f, tu_stream(SPEC, rows, 5, 2), tu_expr("x > 1"), NULL), 0);
	tu_expect(f, true, "2|NULL|20", "4|d|NULL", "5|e|50");
	/* NOT (x > 1) drops NULL too: not the complement */
	assert_int_equal(dl_exec_filter(&f, tu_stream(SPEC, rows, 5, 2), tu_expr("NOT (x > 1)"), NULL), 0);
	tu_expect(f, true, "1|a|10");
	assert_int_equal(dl_exec_filter(&f, tu_stream(SPEC, rows, 5, 5), tu_expr("s IS NULL OR y IS NULL"), NULL), 0);
	tu_expect(f, true, "2|NULL|20", "4|d|NULL");
	assert_int_equal(dl_exec_filter(&f, tu_stream(SPEC, rows, 5, 1), tu_expr("false"), NULL), 0);
	tu_expect(f, true, "<none>");
	assert_int_equal(dl_exec_filter(&f, tu_stream(SPEC, rows, 0, 1), tu_expr("x = 1"), NULL), 0);
	tu_expect(f, true, "<none>");
}

static void filter_errors(void **st)
{
	(void)st;
	dl_batch_stream *f = (dl_batch_stream *)1;
	assert_int_equal(dl_exec_filter(&f, tu_stream(SPEC, rows, 5, 2), tu_expr("x + 1"), NULL), DL_EINVALID);
	assert_null(f);
	assert_non_null(strstr(dl_error_last()->message, "BOOLEAN"));
	assert_int_equal(dl_exec_filter(&f, tu_stream(SPEC, rows, 5, 2), tu_expr("nope = 1"), NULL), DL_EINVALID);
	assert_non_null(strstr(dl_error_last()->message, "filter"));
	/* an ANSI error while running surfaces from next() */
	assert_int_equal(dl_exec_filter(&f, tu_stream(SPEC, rows, 5, 2), tu_expr("y / (x - 2) > 0"), NULL), 0);
	char **l;
	assert_true(tu_collect(f, &l) < 0);
	assert_non_null(strstr(dl_error_last()->message, "DIVIDE_BY_ZERO"));
}

static void project_aliases(void **st)
{
	(void)st;
	dl_expr *e[] = {tu_expr("x * 2"), tu_expr("upper(s)"), tu_expr("coalesce(y, -1)"), tu_expr("'k'")};
	const char *names[] = {"x2", "S", NULL, "k"};
	dl_batch_stream *p;
	assert_int_equal(dl_exec_project(&p, tu_stream(SPEC, rows, 5, 3), e, names, 4, NULL), 0);
	const dl_type *t = dl_batch_stream_schema(p);
	assert_int_equal(t->nchildren, 4);
	assert_string_equal(t->children[0].name, "x2");
	assert_string_equal(t->children[1].name, "S");
	assert_int_equal(t->children[0].type->id, DL_TYPE_INTEGER);
	assert_int_equal(t->children[2].type->id, DL_TYPE_LONG);
	assert_non_null(strstr(t->children[2].name, "coalesce"));
	tu_expect(p, true, "2|A|10|k", "4|NULL|20|k", "NULL|C|30|k", "8|D|-1|k", "10|E|50|k");
}

static void limit_offset(void **st)
{
	(void)st;
	const char *r[100];
	char buf[100][8];
	for (int i = 0; i < 100; i++) {
		snprintf(buf[i], sizeof buf[i], "%d", i);
		r[i] = buf[i];
	}
	dl_batch_stream *l;
	assert_int_equal(dl_exec_limit(&l, tu_stream("i int", r, 100, 7), 5, 12), 0);
	tu_expect(l, true, "12", "13", "14", "15", "16");
	assert_int_equal(dl_exec_limit(&l, tu_stream("i int", r, 100, 7), 0, 0), 0);
	tu_expect(l, true, "<none>");
	assert_int_equal(dl_exec_limit(&l, tu_stream("i int", r, 100, 7), -1, 97), 0);
	tu_expect(l, true, "97", "98", "99");
	assert_int_equal(dl_exec_limit(&l, tu_stream("i int", r, 100, 7), 10, 200), 0);
	tu_expect(l, true, "<none>");
	assert_int_equal(dl_exec_limit(&l, tu_stream("i int", r, 100, 7), 1, -1), DL_EINVALID);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(filter_null_is_not_true),
		cmocka_unit_test(filter_errors),
		cmocka_unit_test(project_aliases),
		cmocka_unit_test(limit_offset),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
