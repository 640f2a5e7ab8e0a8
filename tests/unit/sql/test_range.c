/* The range() table-valued function (src/sql/resolve_range.c): Spark's
 * forms, negative steps, an end near INT64_MAX without overflow, batches
 * past one output batch, and its errors. */
#include "session_test_util.h"

static void range_forms(void **state)
{
	session_fixture *f = *state;
	dl_sql_conn *db = f->db;
	expect_rows(db, "SELECT * FROM range(3)", "0\n1\n2\n");
	expect_rows(db, "SELECT id FROM range(2, 5)", "2\n3\n4\n");
	expect_rows(db, "SELECT * FROM range(5, 0, -2)", "5\n3\n1\n");
	expect_rows(db, "SELECT * FROM range(0, 10, 4, 8)", "0\n4\n8\n");
	expect_rows(db, "SELECT count(*) FROM range(5, 5)", "0\n");
	expect_rows(db, "SELECT count(*) FROM range(5, 1)", "0\n");
	/* more than one batch of 65536, exact sum */
	expect_rows(db, "SELECT count(*), sum(id), max(id) FROM range(10, 1000000, 3)", "333330|166666166655|999997\n");
	/* no overflow next to INT64_MAX, in either direction */
	expect_rows(db, "SELECT count(*), max(id) FROM range(9223372036854775800, 9223372036854775807, 3)",
	            "3|9223372036854775806\n");
	expect_rows(db, "SELECT count(*), min(id) FROM range(-9223372036854775800, -9223372036854775808, -5)",
	            "2|-9223372036854775805\n");
	/* joins and CTAS from it */
	expect_ok(db, "CREATE TABLE t AS SELECT id, id % 3 AS g FROM range(100)");
	expect_rows(db, "SELECT g, count(*) FROM t GROUP BY g ORDER BY g", "0|34\n1|33\n2|33\n");
	expect_rows(db, "SELECT count(*) FROM range(10) a JOIN t ON a.id = t.id", "10\n");
	expect_error(db, "SELECT * FROM range(1, 2, 0)", DL_EINVALID, "");
	expect_error(db, "SELECT * FROM range()", DL_EINVALID, "WRONG_NUM_ARGS.WITHOUT_SUGGESTION");
	expect_error(db, "SELECT * FROM nosuch(1)", DL_ENOTFOUND, "UNRESOLVABLE_TABLE_VALUED_FUNCTION");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test_setup_teardown(range_forms, fixture_setup, fixture_teardown),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
