/* ALTER TABLE ADD / DROP CONSTRAINT (seed 12 "Constraints"): existing rows
 * checked first (Spark's DELTA_NEW_CHECK_CONSTRAINT_VIOLATION with the
 * count, NULL results counting as violations), the property
 * delta.constraints.<lower-cased name>, the checkConstraints feature, later
 * writes enforcing it, duplicates and missing names refused with Spark's
 * classes, the commitInfo Spark writes. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include "alter_fixture.h"

#define DDL "id INT, firstName STRING, birthDate DATE"
#define ROWS "1,Ann,1950-03-01;2,Bob,1899-12-31;3,NULL,NULL;4,Dee,1990-01-01"

static char *make(const char *name)
{
	char *uri = fx_table(g_dir, name);
	dx_create(uri, DDL, NULL, NULL, 0);
	dx_append(uri, DDL, ROWS);
	return uri;
}

static void test_seed_example(void **state)
{
	(void)state;
	char *uri = make("people");
	int64_t v;
	char *before = dx_tree(uri);
	/* row 2 is before 1900 and row 3's date is NULL: two violations */
	ax_fails(dl_alter_add_constraint(&v, uri, "dateWithinRange", "birthDate > '1900-01-01'", NULL),
	         DL_ECONSTRAINT, "DELTA_NEW_CHECK_CONSTRAINT_VIOLATION",
	         "2 rows in");
	assert_non_null(strstr(dl_error_last()->message, "violate the new CHECK constraint (birthDate > "
	                                                "'1900-01-01')"));
	assert_non_null(strstr(dl_error_last()->message, "violated by row with values"));
	char *after = dx_tree(uri);
	assert_string_equal(before, after);
	free(before);
	free(after);
	assert_int_equal(v, -1);

	ax_ok(dl_alter_add_constraint(&v, uri, "validIds", "id > 0 and id < 99999999", NULL));
	assert_int_equal(v, 2);
	ax_conf_is(uri, "delta.constraints.validids", "id > 0 and id < 99999999");
	ax_protocol_is(uri, "(1,3)");
	dx_commit_has(uri, 2, "\"operation\":\"ADD CONSTRAINT\"");
	dx_commit_has(uri, 2, "\"operationParameters\":{\"name\":\"validIds\",\"expr\":\"id > 0 and id < 99999999\"}");
	/* writes now enforce it */
	dl_write_options o = fx_opts(DL_WRITE_APPEND);
	assert_int_equal(fx_write(&v, uri, DDL, "0,Zed,2000-01-01", &o), DL_ECONSTRAINT);
	dx_append(uri, DDL, "5,Eve,2001-01-01");
	/* the same name in another case exists already */
	ax_fails(dl_alter_add_constraint(&v, uri, "VALIDIDS", "id > 1", NULL), DL_EEXISTS,
	         "DELTA_CONSTRAINT_ALREADY_EXISTS", "Old constraint:\nid > 0 and id < 99999999");
	ax_fails(dl_alter_add_constraint(&v, uri, "name", "firstName", NULL), DL_EINVALID,
	         "DELTA_NON_BOOLEAN_CHECK_CONSTRAINT", NULL);
	ax_fails(dl_alter_add_constraint(&v, uri, "bad", "nosuch > 1", NULL), DL_EINVALID, NULL, "nosuch");
	dx_rows(uri, "id", "1;2;3;4;5");

	/* DROP */
	ax_ok(dl_alter_drop_constraint(&v, uri, "ValidIds", false, NULL));
	ax_conf_is(uri, "delta.constraints.validids", NULL);
	dx_commit_has(uri, v, "\"operation\":\"DROP CONSTRAINT\"");
	dx_commit_has(uri, v, "\"operationParameters\":{\"name\":\"ValidIds\",\"expr\":\"id > 0 and id < "
	                      "99999999\",\"existed\":\"true\"}");
	ax_fails(dl_alter_drop_constraint(&v, uri, "validIds", false, NULL), DL_ENOTFOUND,
	         "DELTA_CONSTRAINT_DOES_NOT_EXIST", "nonexistent constraint validIds");
	int64_t last = fx_version(uri);
	ax_ok(dl_alter_drop_constraint(&v, uri, "validIds", true, NULL));
	assert_int_equal(v, -1);
	assert_int_equal(fx_version(uri), last);
	assert_int_equal(fx_write(&v, uri, DDL, "0,Zed,2000-01-01", &o), 0);
	dx_rows(uri, "id", "0;1;2;3;4;5");
	dl_free(uri);
}

/* A constraint on an empty table and one whose expression is NULL for no
 * row; constraints over partitioned tables see the partition values. */
static void test_partitioned_and_empty(void **state)
{
	(void)state;
	char *uri = fx_table(g_dir, "parts");
	dx_create(uri, "id BIGINT, p INT", "p", NULL, 0);
	int64_t v;
	ax_ok(dl_alter_add_constraint(&v, uri, "pPositive", "p > 0", NULL));
	dx_append(uri, "id BIGINT, p INT", "1,1;2,2");
	ax_fails(dl_alter_add_constraint(&v, uri, "pSmall", "p < 2", NULL), DL_ECONSTRAINT,
	         "DELTA_NEW_CHECK_CONSTRAINT_VIOLATION", "1 rows in");
	ax_ok(dl_alter_add_constraint(&v, uri, "both", "p > 0 AND id > 0", NULL));
	dx_rows(uri, "id,p", "1,1;2,2");
	dl_free(uri);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_seed_example),
		cmocka_unit_test(test_partitioned_and_empty),
	};
	return cmocka_run_group_tests(tests, fx_setup_tmpdir, fx_teardown_tmpdir);
}
