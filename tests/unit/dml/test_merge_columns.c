/* MERGE's join phase reads only the target columns it evaluates something
 * over (merge_join.c join_columns): the ON keys and residual, the clause
 * conditions, the insert values; the others are all-NULL stand-ins there
 * and the rewrite engine re-reads them. Each case names a target column
 * only where the join must read it (a clause condition, the residual) or
 * only where the rewrite computes (an assigned value), with the rows
 * checked: a column the join missed would turn its condition NULL. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>
#include "deltalake/merge.h"
#include "deltalake/error.h"
#include "dml/merge.h"
#include "log/snapshot.h"
#include "unit/ops/ops_fixture.h"

static const char *DDL = "id BIGINT, v BIGINT, g STRING";
static const char *ROWS = "1,1,a;2,10,b;3,20,x;4,30,x;5,40,c";

static char *mk_table(const char *name)
{
	char *t = fx_table(g_dir, name);
	dl_write_options o = fx_opts(DL_WRITE_ERROR_IF_EXISTS);
	int64_t v;
	assert_int_equal(fx_write(&v, t, DDL, ROWS, &o), 0);
	return t;
}

static dl_merge *merge(const char *table, const char *sddl, const char *srows, const char *on)
{
	dl_merge *m;
	assert_int_equal(dl_merge_new(&m, table, NULL), 0);
	dl_batch_stream *s = fx_stream(sddl, srows);
	assert_non_null(s);
	assert_int_equal(dl_merge_source_batches(m, s), 0);
	assert_int_equal(dl_merge_alias(m, "t", "s"), 0);
	assert_int_equal(dl_merge_on(m, on), 0);
	return m;
}

static void run_expect(dl_merge *m, const char *table, const char *want)
{
	dl_merge_metrics r;
	int rc = dl_merge_execute(&r, m);
	if (rc < 0) fail_msg("merge: %s", dl_error_last()->message);
	dl_merge_free(m);
	char *rows = fx_read(table, -1, NULL);
	assert_non_null(rows);
	assert_string_equal(rows, want);
	dl_free(rows);
}

/* MATCHED AND t.v > 15, NOT MATCHED BY SOURCE AND t.g = 'x': v and g are
 * named by conditions only (ON has id); SET v = t.v + s.v is the rewrite's */
static void test_clause_conditions(void **state)
{
	(void)state;
	char *t = mk_table("conds");
	dl_merge *m = merge(t, DDL, "2,100,s;3,200,s;5,300,s;9,900,n", "t.id = s.id");
	const char *c1[] = {"v"}, *v1[] = {"t.v + s.v"};
	assert_int_equal(dl_merge_when_matched_update(m, "t.v > 15", c1, v1, 1), 0);
	const char *c2[] = {"g"}, *v2[] = {"s.g"};
	assert_int_equal(dl_merge_when_matched_update(m, NULL, c2, v2, 1), 0);
	assert_int_equal(dl_merge_when_not_matched_by_source_delete(m, "t.g = 'x'"), 0);
	assert_int_equal(dl_merge_when_not_matched_insert_all(m, NULL), 0);
	run_expect(m, t, "1,1,a;2,10,s;3,220,x;5,340,c;9,900,n");
	dl_free(t);
}

/* t.v only in the residual of ON, t.g only in a second key; unmatched
 * source rows are inserted */
static void test_residual_and_keys(void **state)
{
	(void)state;
	char *t = mk_table("residual");
	dl_merge *m = merge(t, DDL, "2,50,b;3,6,q", "t.id = s.id AND t.v < s.v");
	assert_int_equal(dl_merge_when_matched_update_all(m, NULL), 0);
	assert_int_equal(dl_merge_when_not_matched_insert_all(m, NULL), 0);
	run_expect(m, t, "1,1,a;2,50,b;3,20,x;3,6,q;4,30,x;5,40,c");
	dl_free(t);

	t = mk_table("second_key");
	m = merge(t, DDL, "2,5,b;3,6,q", "t.id = s.id AND t.g = s.g");
	assert_int_equal(dl_merge_when_matched_update_all(m, NULL), 0);
	assert_int_equal(dl_merge_when_not_matched_insert_all(m, NULL), 0);
	run_expect(m, t, "1,1,a;2,5,b;3,20,x;3,6,q;4,30,x;5,40,c");
	dl_free(t);
}

/* ON names no target column (a cross join with the one source row, or a
 * join nothing matches): the join still counts the target's rows, and the
 * conditions' columns are read */
static void test_on_without_target(void **state)
{
	(void)state;
	char *t = mk_table("cross");
	dl_merge *m = merge(t, DDL, "7,100,z", "s.id = 7");
	const char *c[] = {"g"}, *v[] = {"s.g"};
	assert_int_equal(dl_merge_when_matched_update(m, "t.v >= 30", c, v, 1), 0);
	run_expect(m, t, "1,1,a;2,10,b;3,20,x;4,30,z;5,40,z");
	dl_free(t);

	t = mk_table("by_source_only");
	m = merge(t, DDL, "7,100,z", "s.v > 1000");
	const char *c2[] = {"v"}, *v2[] = {"-t.v"};
	assert_int_equal(dl_merge_when_not_matched_by_source_update(m, "t.g = 'x'", c2, v2, 1), 0);
	run_expect(m, t, "1,1,a;2,10,b;3,-20,x;4,-30,x;5,40,c");
	dl_free(t);

	/* no clause names the target: every row deleted */
	t = mk_table("delete_all");
	m = merge(t, DDL, "7,100,z", "s.v > 0");
	assert_int_equal(dl_merge_when_matched_delete(m, NULL), 0);
	run_expect(m, t, "");
	dl_free(t);
}

/* schema evolution: the source's new column w is added; conditions name
 * target columns the ON condition does not */
static void test_schema_evolution(void **state)
{
	(void)state;
	char *t = mk_table("evolve");
	dl_merge *m = merge(t, "id BIGINT, v BIGINT, g STRING, w STRING", "2,7,u,new;3,8,u,skip;6,9,i,ins", "t.id = s.id");
	assert_int_equal(dl_merge_when_matched_update_all(m, "t.g = 'b'"), 0);
	assert_int_equal(dl_merge_when_not_matched_insert_all(m, NULL), 0);
	const char *c[] = {"v"}, *v[] = {"t.v * 2"};
	assert_int_equal(dl_merge_when_not_matched_by_source_update(m, "t.v > 35", c, v, 1), 0);
	assert_int_equal(dl_merge_with_schema_evolution(m), 0);
	run_expect(m, t, "1,1,a,NULL;2,7,u,new;3,20,x,NULL;4,30,x,NULL;5,80,c,NULL;6,9,i,ins");
	dl_free(t);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_clause_conditions),
		cmocka_unit_test(test_residual_and_keys),
		cmocka_unit_test(test_on_without_target),
		cmocka_unit_test(test_schema_evolution),
	};
	return cmocka_run_group_tests(tests, fx_setup_tmpdir, fx_teardown_tmpdir);
}
