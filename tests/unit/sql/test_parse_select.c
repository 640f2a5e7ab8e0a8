/* Queries: the tree shape a binder relies on (joins, set-operation
 * precedence, subqueries, windows, time travel) and canonical forms. */
#include "sql_test_util.h"

static void test_select_shape(void **state)
{
	(void)state;
	dl_sql_script *s = parse1("SELECT DISTINCT a, b AS x, t.*, count(DISTINCT c) cnt FROM s.t AS t "
	                          "WHERE a > 1 GROUP BY 1, b HAVING count(*) > 2 ORDER BY a DESC NULLS LAST, b "
	                          "LIMIT 10 OFFSET 5");
	const sql_stmt *st = STMT(s);
	assert_int_equal(st->kind, ST_QUERY);
	const sql_query *q = st->query;
	assert_int_equal(q->kind, Q_SELECT);
	const sql_select *sel = q->select;
	assert_true(sel->distinct);
	assert_int_equal(sel->nitems, 4);
	assert_null(sel->items[0].alias);
	assert_string_equal(sel->items[1].alias, "x");
	assert_true(sel->items[2].star);
	assert_string_equal(sel->items[2].qual.parts[0], "t");
	assert_string_equal(sel->items[3].alias, "cnt");
	assert_true(sel->items[3].expr->distinct);
	assert_int_equal(sel->from->kind, TREF_NAME);
	assert_int_equal(sel->from->name.nparts, 2);
	assert_string_equal(sel->from->alias, "t");
	assert_non_null(sel->where);
	assert_int_equal(sel->ngroup, 2);
	assert_int_equal(sel->group_by[0]->kind, EX_LIT);
	assert_non_null(sel->having);
	assert_int_equal(q->norder, 2);
	assert_true(q->order_by[0].desc);
	assert_int_equal(q->order_by[0].nulls, NULLS_LAST);
	assert_false(q->order_by[1].desc);
	assert_non_null(q->limit);
	assert_non_null(q->offset);
	dl_sql_script_free(s);
}

/* GROUP BY's grouping analytics become lists of sets: the cross product of
 * the elements, ROLLUP and CUBE in Spark's order; printing spells them as
 * GROUPING SETS, which parses back to the same sets. */
static void test_grouping_sets(void **state)
{
	(void)state;
	dl_sql_script *s = parse1("SELECT 1 FROM t GROUP BY a, ROLLUP(b, (c, d))");
	const sql_select *sel = STMT(s)->query->select;
	assert_int_equal(sel->ngsets, 3);
	assert_int_equal(sel->gset_len[0], 4);
	assert_int_equal(sel->gset_len[1], 2);
	assert_int_equal(sel->gset_len[2], 1);
	dl_buf b = DL_BUF_INIT;
	assert_int_equal(dl_sql_print(&b, STMT(s)), 0);
	assert_string_equal(b.data, "SELECT 1 FROM `t` GROUP BY GROUPING SETS ((a, b, c, d), (a, b), (a))");
	dl_sql_script_free(s);
	s = parse1("SELECT 1 FROM t GROUP BY CUBE(a, b)");
	dl_buf_clear(&b);
	assert_int_equal(dl_sql_print(&b, STMT(s)), 0);
	assert_string_equal(b.data, "SELECT 1 FROM `t` GROUP BY GROUPING SETS ((a, b), (a), (b), ())");
	dl_sql_script_free(s);
	s = parse1("SELECT 1 FROM t GROUP BY a, b WITH ROLLUP");
	dl_buf_clear(&b);
	assert_int_equal(dl_sql_print(&b, STMT(s)), 0);
	assert_string_equal(b.data, "SELECT 1 FROM `t` GROUP BY GROUPING SETS ((a, b), (a), ())");
	dl_sql_script_free(s);
	s = parse1("SELECT 1 FROM `t` GROUP BY GROUPING SETS ((a, b), a, ())");
	assert_int_equal(STMT(s)->query->select->ngsets, 3);
	assert_int_equal(STMT(s)->query->select->gset_len[2], 0);
	dl_sql_script_free(s);
	s = parse1("SELECT 1 FROM t GROUP BY a, b");
	assert_int_equal(STMT(s)->query->select->ngsets, 0);
	dl_sql_script_free(s);
	dl_buf_free(&b);
}

static void test_joins(void **state)
{
	(void)state;
	dl_sql_script *s = parse1("SELECT * FROM a JOIN b ON a.id = b.id LEFT OUTER JOIN c USING (id) "
	                          "LEFT SEMI JOIN d ON true LEFT ANTI JOIN e ON true RIGHT JOIN f ON true "
	                          "FULL OUTER JOIN g ON true CROSS JOIN h, i");
	const sql_table_ref *t = STMT(s)->query->select->from;
	sql_join_kind want[] = {JOIN_COMMA, JOIN_CROSS, JOIN_FULL, JOIN_RIGHT, JOIN_LEFT_ANTI, JOIN_LEFT_SEMI, JOIN_LEFT,
	                        JOIN_INNER};
	for (size_t i = 0; i < sizeof want / sizeof want[0]; i++) {
		assert_int_equal(t->kind, TREF_JOIN);
		assert_int_equal(t->join, want[i]);
		assert_int_equal(t->right->kind, TREF_NAME);
		t = t->left; /* left-deep */
	}
	assert_int_equal(t->kind, TREF_NAME);
	assert_string_equal(t->name.parts[0], "a");
	dl_sql_script_free(s);
	/* a parenthesized join on the right stays grouped */
	assert_canon("SELECT * FROM a JOIN (b JOIN c ON b.x = c.x) ON a.y = b.y",
	             "SELECT * FROM `a` JOIN (`b` JOIN `c` ON b.x = c.x) ON a.y = b.y");
}

static void test_set_operations(void **state)
{
	(void)state;
	/* INTERSECT binds tighter; UNION and EXCEPT associate left */
	dl_sql_script *s = parse1("SELECT 1 UNION ALL SELECT 2 INTERSECT SELECT 3 EXCEPT SELECT 4 ORDER BY 1 LIMIT 2");
	const sql_query *q = STMT(s)->query;
	assert_int_equal(q->kind, Q_EXCEPT);
	assert_non_null(q->limit);
	assert_int_equal(q->norder, 1);
	assert_int_equal(q->left->kind, Q_UNION);
	assert_true(q->left->all);
	assert_int_equal(q->left->right->kind, Q_INTERSECT);
	dl_sql_script_free(s);
	assert_canon("(SELECT 1 LIMIT 1) UNION SELECT 2", "(SELECT 1 LIMIT 1) UNION SELECT 2");
	assert_canon("SELECT 1 UNION (SELECT 2 UNION SELECT 3)", "SELECT 1 UNION (SELECT 2 UNION SELECT 3)");
	assert_canon("(SELECT a FROM t LIMIT 3) ORDER BY a", "SELECT * FROM (SELECT a FROM `t` LIMIT 3) ORDER BY a");
}

static void test_subqueries_and_ctes(void **state)
{
	(void)state;
	dl_sql_script *s = parse1("WITH c (x) AS (SELECT 1), d AS (SELECT 2) SELECT * FROM c WHERE x IN (SELECT x FROM d) "
	                          "AND NOT EXISTS (SELECT 1 FROM d) AND x = (SELECT max(x) FROM d)");
	const sql_query *q = STMT(s)->query;
	assert_int_equal(q->nctes, 2);
	assert_string_equal(q->ctes[0].name, "c");
	assert_int_equal(q->ctes[0].ncols, 1);
	const ex_node *w = q->select->where; /* ((IN AND NOT EXISTS) AND x = (scalar)) */
	assert_int_equal(w->kind, EX_OP);
	const ex_node *in = w->args[0]->args[0];
	assert_int_equal(in->kind, EX_SUBQUERY);
	assert_int_equal(in->op, SQ_IN);
	assert_int_equal(in->nargs, 1);
	const sql_query *sub = in->query;
	assert_int_equal(sub->kind, Q_SELECT);
	const ex_node *ex = w->args[0]->args[1]->args[0];
	assert_int_equal(ex->kind, EX_SUBQUERY);
	assert_int_equal(ex->op, SQ_EXISTS);
	assert_int_equal(w->args[1]->args[1]->op, SQ_SCALAR);
	dl_sql_script_free(s);
	assert_canon("SELECT * FROM (SELECT a FROM t) s(x)", "SELECT * FROM (SELECT a FROM `t`) AS `s`(`x`)");
	assert_canon("SELECT a NOT IN (SELECT b FROM u) FROM t", "SELECT a NOT IN (SELECT b FROM `u`) FROM `t`");
	/* WITH RECURSIVE is refused, with its place */
	assert_null(canon("WITH RECURSIVE r AS (SELECT 1) SELECT * FROM r"));
	assert_non_null(strstr(dl_error_last()->message, "recursive"));
}

static void test_windows(void **state)
{
	(void)state;
	dl_sql_script *s = parse1("SELECT sum(x) OVER (PARTITION BY a, b ORDER BY c DESC ROWS BETWEEN 2 PRECEDING AND "
	                          "UNBOUNDED FOLLOWING) FROM t");
	const ex_node *f = STMT(s)->query->select->items[0].expr;
	assert_int_equal(f->kind, EX_CALL);
	const ex_window *w = f->over;
	assert_non_null(w);
	assert_int_equal(w->npartition, 2);
	assert_int_equal(w->norder, 1);
	assert_true(w->order[0].desc);
	assert_int_equal(w->frame, FRAME_ROWS);
	assert_int_equal(w->lo.kind, BOUND_PRECEDING);
	assert_non_null(w->lo.offset);
	assert_int_equal(w->hi.kind, BOUND_UNBOUNDED_FOLLOWING);
	dl_sql_script_free(s);
	/* a single bound means BETWEEN bound AND CURRENT ROW */
	assert_canon("SELECT rank() OVER (ORDER BY x RANGE UNBOUNDED PRECEDING) FROM t",
	             "SELECT rank() OVER (ORDER BY x RANGE BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW) FROM `t`");
	assert_canon("SELECT row_number() OVER () r FROM t", "SELECT row_number() OVER () AS `r` FROM `t`");
}

static void test_table_references(void **state)
{
	(void)state;
	struct {
		const char *sql;
		sql_tref_kind kind;
		sql_tt_kind tt;
		const char *canon;
	} cases[] = {
	    {"SELECT * FROM delta.`/data/t`", TREF_PATH, TT_NONE, "SELECT * FROM delta.`/data/t`"},
	    {"SELECT * FROM parquet.`s3://b/p/*.parquet`", TREF_PATH, TT_NONE, "SELECT * FROM parquet.`s3://b/p/*.parquet`"},
	    {"SELECT * FROM csv.`/f.csv`", TREF_PATH, TT_NONE, "SELECT * FROM csv.`/f.csv`"},
	    {"SELECT * FROM JSON.`/f.json`", TREF_PATH, TT_NONE, "SELECT * FROM json.`/f.json`"},
	    {"SELECT * FROM `delta`.`t`", TREF_NAME, TT_NONE, "SELECT * FROM `delta`.`t`"},
	    {"SELECT * FROM t VERSION AS OF 3", TREF_NAME, TT_VERSION, "SELECT * FROM `t` VERSION AS OF 3"},
	    {"SELECT * FROM t FOR SYSTEM_VERSION AS OF 3", TREF_NAME, TT_VERSION, "SELECT * FROM `t` VERSION AS OF 3"},
	    {"SELECT * FROM t TIMESTAMP AS OF '2024-01-01'", TREF_NAME, TT_TIMESTAMP,
	     "SELECT * FROM `t` TIMESTAMP AS OF '2024-01-01'"},
	    {"SELECT * FROM t@v12", TREF_NAME, TT_VERSION, "SELECT * FROM `t` VERSION AS OF 12"},
	    {"SELECT * FROM t@20240102030405678", TREF_NAME, TT_TIMESTAMP,
	     "SELECT * FROM `t` TIMESTAMP AS OF '2024-01-02 03:04:05.678'"},
	    {"SELECT * FROM delta.`/d/t@v3`", TREF_PATH, TT_VERSION, "SELECT * FROM delta.`/d/t` VERSION AS OF 3"},
	    /* an '@' that is not a time travel suffix is part of the path */
	    {"SELECT * FROM delta.`s3://u@h/t`", TREF_PATH, TT_NONE, "SELECT * FROM delta.`s3://u@h/t`"},
	    {"SELECT * FROM delta.`/t@x`", TREF_PATH, TT_NONE, "SELECT * FROM delta.`/t@x`"},
	    {"SELECT * FROM table_changes('t', 0, 5)", TREF_FUNCTION, TT_NONE, "SELECT * FROM table_changes('t', 0, 5)"},
	    {"SELECT * FROM table_changes('/p', '2024-01-01')", TREF_FUNCTION, TT_NONE,
	     "SELECT * FROM table_changes('/p', '2024-01-01')"},
	    {"SELECT * FROM VALUES (1, 2) AS v(a, b)", TREF_QUERY, TT_NONE,
	     "SELECT * FROM (VALUES (1, 2)) AS `v`(`a`, `b`)"},
	};
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		dl_sql_script *s = parse1(cases[i].sql);
		const sql_table_ref *t = STMT(s)->query->select->from;
		assert_int_equal(t->kind, cases[i].kind);
		assert_int_equal(t->tt.kind, cases[i].tt);
		dl_sql_script_free(s);
		assert_canon(cases[i].sql, cases[i].canon);
	}
	dl_sql_script *s = parse1("SELECT * FROM delta.`/d/t@v3`");
	assert_string_equal(STMT(s)->query->select->from->path, "/d/t");
	assert_string_equal(STMT(s)->query->select->from->format, "delta");
	dl_sql_script_free(s);
	assert_null(canon("SELECT * FROM t@x5"));
	assert_non_null(strstr(dl_error_last()->message, "@v<version>"));
}

static void test_values(void **state)
{
	(void)state;
	dl_sql_script *s = parse1("VALUES (1, 'a'), (2, 'b')");
	const sql_query *q = STMT(s)->query;
	assert_int_equal(q->kind, Q_VALUES);
	assert_int_equal(q->nrows, 2);
	assert_int_equal(q->rowlen[1], 2);
	dl_sql_script_free(s);
	assert_canon("VALUES 1, 2", "VALUES (1), (2)");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_select_shape),        cmocka_unit_test(test_joins),
	    cmocka_unit_test(test_set_operations),      cmocka_unit_test(test_subqueries_and_ctes),
	    cmocka_unit_test(test_windows),             cmocka_unit_test(test_table_references),
	    cmocka_unit_test(test_values),              cmocka_unit_test(test_grouping_sets),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
