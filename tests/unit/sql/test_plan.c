/* The planner over in-memory tables: each query's rows (as sorted sets, or
 * in order under ORDER BY), its output names, and the errors users see. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>
#include "plan_test_util.h"

static pt_env E;

static int setup(void **state)
{
	(void)state;
	pt_init(&E);
	static const char *const t[] = {"1|1|a|1.5", "2|1|b|NULL", "3|2|NULL|3", "4|NULL|d|4", "5|2|e|-1"};
	pt_add(&E, "t", "id int, g int, s string, x double", t, 5, 2);
	static const char *const u[] = {"1|one", "2|two", "2|deux", "NULL|nul", "9|nine"};
	pt_add(&E, "u", "k int, name string", u, 5, 5);
	pt_add(&E, "empty", "a int, b string", NULL, 0, 1);
	static const char *const d[] = {"1|10.50|2024-01-02", "2|NULL|2024-03-04", "3|-2.25|NULL"};
	pt_add(&E, "d", "id long, amt decimal(10,2), day date", d, 3, 3);
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	pt_free(&E);
	return 0;
}

static dl_batch_stream *q(const char *sql)
{
	dl_batch_stream *s = pt_query(&E, sql);
	if (!s) fail_msg("%s\n  -> %s", sql, dl_error_last()->message);
	return s;
}

#define ROWS(sql, ...) tu_expect(q(sql), false, __VA_ARGS__)
#define ORDERED(sql, ...) tu_expect(q(sql), true, __VA_ARGS__)

static void names(const char *sql, const char *want)
{
	dl_batch_stream *s = q(sql);
	assert_string_equal(pt_names(s), want);
	dl_batch_stream_free(s);
}

static void fails(const char *sql, const char *klass, const char *text)
{
	dl_batch_stream *s = pt_query(&E, sql);
	if (s) {
		dl_batch_stream_free(s);
		fail_msg("%s planned, but should fail with %s", sql, klass);
	}
	const dl_error *e = dl_error_last();
	if (!strstr(e->message, klass) || (text && !strstr(e->message, text)))
		fail_msg("%s\n  want %s / %s\n  got %s", sql, klass, text ? text : "", e->message);
}

/* EXPLAIN text of a query (the caller frees). */
static char *explain(const char *sql)
{
	dl_sql_script *s;
	assert_int_equal(dl_sql_parse(&s, sql), 0);
	dl_buf b = DL_BUF_INIT;
	int rc = sql_explain_query(&b, &E.env, dl_sql_script_stmt(s, 0)->query, NULL);
	if (rc < 0) fail_msg("explain %s: %s", sql, dl_error_last()->message);
	dl_sql_script_free(s);
	return b.data;
}

static void explain_has(const char *sql, const char *want)
{
	char *e = explain(sql);
	if (!strstr(e, want)) fail_msg("EXPLAIN %s\n%s\nlacks: %s", sql, e, want);
	free(e);
}

static void test_select_where(void **state)
{
	(void)state;
	ROWS("SELECT id, s FROM t WHERE g = 1", "1|a", "2|b");
	ROWS("SELECT id FROM t WHERE x > 1 AND s IS NOT NULL", "1", "4");
	ROWS("SELECT * FROM t WHERE id = 3", "3|2|NULL|3");
	ROWS("SELECT t.* FROM t WHERE NOT (g = 1)", "3|2|NULL|3", "5|2|e|-1");
	ROWS("SELECT id + 1 AS n, upper(s) FROM t WHERE id < 3", "2|A", "3|B");
	ROWS("SELECT 1 + 2, 'x'", "3|x");
	ROWS("SELECT a FROM empty", "<none>");
	ROWS("SELECT ID, T.S FROM T WHERE Id = 1", "1|a");
	ROWS("SELECT x.id FROM t AS x WHERE x.id = 5", "5");
	ROWS("SELECT a, b FROM t AS x (a, b, c, d) WHERE a = 2", "2|1");
}

static void test_names(void **state)
{
	(void)state;
	names("SELECT id, t.s, id + 1, count(*), sum(x), CAST(id AS STRING), s IS NULL FROM t GROUP BY id, s",
	      "id,s,(id + 1),count(1),sum(x),CAST(id AS STRING),(s IS NULL)");
	names("SELECT id AS a, upper(s) u FROM t", "a,u");
	names("SELECT ID, T.S, Id AS Id FROM t", "id,s,Id");
	names("SELECT * FROM t", "id,g,s,x");
	names("SELECT * FROM t JOIN u ON t.id = u.k", "id,g,s,x,k,name");
	names("SELECT sum(x) OVER (PARTITION BY g ORDER BY id DESC) FROM t",
	      "sum(x) OVER (PARTITION BY g ORDER BY id DESC NULLS LAST RANGE BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW)");
	names("SELECT row_number() OVER (ORDER BY id), lag(id) OVER (ORDER BY id) FROM t",
	      "row_number() OVER (ORDER BY id ASC NULLS FIRST ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW),"
	      "lag(id, 1, NULL) OVER (ORDER BY id ASC NULLS FIRST ROWS BETWEEN -1 FOLLOWING AND -1 FOLLOWING)");
	names("SELECT count(*) OVER (ROWS BETWEEN 2 PRECEDING AND CURRENT ROW), -id, id <> 1, 'lit', NULL FROM t",
	      "count(1) OVER (ROWS BETWEEN 2 PRECEDING AND CURRENT ROW),(- id),(NOT (id = 1)),lit,NULL");
}

static void test_group_by(void **state)
{
	(void)state;
	ROWS("SELECT g, count(*), sum(id), max(s) FROM t GROUP BY g", "1|2|3|b", "2|2|8|e", "NULL|1|4|d");
	ROWS("SELECT g, count(x) FROM t GROUP BY 1", "1|1", "2|2", "NULL|1");
	ROWS("SELECT g AS grp, count(*) FROM t GROUP BY grp", "1|2", "2|2", "NULL|1");
	ROWS("SELECT count(*), min(id), avg(x) FROM t", "5|1|1.875");
	ROWS("SELECT count(*), sum(a) FROM empty", "0|NULL");
	ROWS("SELECT g, sum(id) + 1, CASE WHEN count(*) > 1 THEN 'many' ELSE 'one' END FROM t GROUP BY g",
	     "1|4|many", "2|9|many", "NULL|5|one");
	ROWS("SELECT g FROM t GROUP BY g HAVING count(*) > 1", "1", "2");
	ROWS("SELECT g % 2, count(*) FROM t GROUP BY g % 2", "1|2", "0|2", "NULL|1");
	ROWS("SELECT count(DISTINCT g), count(g) FROM t", "2|4");
	/* tuples with a NULL in them do not count */
	ROWS("SELECT count(DISTINCT g, s), count(DISTINCT g, id % 2) FROM t", "3|3");

	ROWS("SELECT sum(amt), avg(amt), max(day) FROM d", "8.25|4.125000|2024-03-04");
	fails("SELECT g, s FROM t GROUP BY g", "MISSING_AGGREGATION", "\"s\"");
	fails("SELECT id, count(*) FROM t", "MISSING_GROUP_BY", NULL);
	fails("SELECT id FROM t WHERE sum(id) > 1", "[INVALID_WHERE_CONDITION]", "sum(id)");
	fails("SELECT g FROM t GROUP BY 3", "GROUP_BY_POS_OUT_OF_RANGE", NULL);
}

/* GROUPING SETS, ROLLUP, CUBE as Spark: keys outside a set are NULL (and
 * a real NULL key stays apart from a rolled-up one: grouping() tells
 * them), grouping_id() is Spark's bit pattern (first key most
 * significant), and over no rows a grouping-sets aggregate has no rows,
 * not a grand total (Spark's aggregate groups by the grouping id). */
static void test_grouping_sets(void **state)
{
	(void)state;
	ROWS("SELECT g, count(*), grouping(g) FROM t GROUP BY ROLLUP(g)", "1|2|0", "2|2|0", "NULL|1|0", "NULL|5|1");
	ROWS("SELECT g, id % 2, count(*), grouping_id() FROM t GROUP BY CUBE(g, id % 2)", "1|1|1|0", "1|0|1|0",
	     "2|1|2|0", "NULL|0|1|0", "1|NULL|2|1", "2|NULL|2|1", "NULL|NULL|1|1", "NULL|1|3|2", "NULL|0|2|2",
	     "NULL|NULL|5|3");
	ROWS("SELECT g, sum(id) FROM t GROUP BY GROUPING SETS ((g), ()) HAVING grouping(g) = 1", "NULL|15");
	ROWS("SELECT g, s, count(*) FROM t WHERE g = 1 GROUP BY g, s WITH ROLLUP", "1|a|1", "1|b|1", "1|NULL|2",
	     "NULL|NULL|2");
	ROWS("SELECT g, s, count(*) FROM t WHERE g = 1 GROUP BY g, ROLLUP(s)", "1|a|1", "1|b|1", "1|NULL|2");
	ROWS("SELECT count(*) FROM empty GROUP BY ROLLUP(a)", "<none>");
	/* aggregates read the original column, not its rolled-up NULL */
	ROWS("SELECT g, sum(g) FROM t WHERE g IS NOT NULL GROUP BY ROLLUP(g)", "1|2", "2|4", "NULL|6");
	fails("SELECT grouping(g) FROM t GROUP BY g", "UNSUPPORTED_GROUPING_EXPRESSION", NULL);
	fails("SELECT grouping(s) FROM t GROUP BY ROLLUP(g)", "GROUPING_COLUMN_MISMATCH", NULL);
	fails("SELECT grouping_id(s, g) FROM t GROUP BY CUBE(g, s)", "GROUPING_ID_COLUMN_MISMATCH", NULL);
	fails("SELECT count(*) FROM t GROUP BY CUBE(id, g, s, x, id + 1, id + 2, id + 3, id + 4, id + 5, id + 6, id + 7, "
	      "id + 8, id + 9)",
	      "GROUPING_SIZE_LIMIT_EXCEEDED", NULL);
}

static void test_order_limit(void **state)
{
	(void)state;
	ORDERED("SELECT id FROM t ORDER BY id DESC", "5", "4", "3", "2", "1");
	ORDERED("SELECT id, g FROM t ORDER BY g DESC NULLS FIRST, id", "4|NULL", "3|2", "5|2", "1|1", "2|1");
	ORDERED("SELECT id AS n FROM t ORDER BY n LIMIT 2", "1", "2");
	ORDERED("SELECT id FROM t ORDER BY 1 LIMIT 2 OFFSET 1", "2", "3");
	ORDERED("SELECT s FROM t ORDER BY id DESC", "e", "d", "NULL", "b", "a");
	ORDERED("SELECT g, count(*) c FROM t GROUP BY g ORDER BY sum(id) DESC", "2|2", "NULL|1", "1|2");
	ORDERED("SELECT id FROM t ORDER BY x", "2", "5", "1", "3", "4");
	ROWS("SELECT id FROM t LIMIT 0", "<none>");
	fails("SELECT id FROM t LIMIT -1", "INVALID_LIMIT_LIKE_EXPRESSION", NULL);
	fails("SELECT DISTINCT g FROM t ORDER BY id", "SELECT DISTINCT", NULL);
}

static void test_joins(void **state)
{
	(void)state;
	ROWS("SELECT id, name FROM t JOIN u ON t.g = u.k", "1|one", "2|one", "3|two", "3|deux", "5|two", "5|deux");
	ROWS("SELECT id, name FROM t LEFT JOIN u ON t.id = u.k AND u.name <> 'deux'", "1|one", "2|two", "3|NULL",
	     "4|NULL", "5|NULL");
	ROWS("SELECT id, name FROM t RIGHT JOIN u ON t.id = u.k", "1|one", "2|two", "2|deux", "NULL|nul", "NULL|nine");
	ROWS("SELECT id, k FROM t FULL JOIN u ON t.id = u.k", "1|1", "2|2", "2|2", "3|NULL", "4|NULL", "5|NULL",
	     "NULL|NULL", "NULL|9");
	ROWS("SELECT id FROM t LEFT SEMI JOIN u ON t.g = u.k", "1", "2", "3", "5");
	ROWS("SELECT id FROM t LEFT ANTI JOIN u ON t.g = u.k", "4");
	ROWS("SELECT id FROM t LEFT ANTI JOIN u ON t.g <=> u.k", "<none>");
	ROWS("SELECT count(*) FROM t CROSS JOIN u", "25");
	ROWS("SELECT count(*) FROM t, u WHERE t.id = u.k", "3");
	/* a comma join's WHERE equalities become hash keys */
	explain_has("SELECT count(*) FROM t, u, d WHERE t.id = u.k AND d.id = t.g", "HashJoin Inner keys=[t.id = u.k]");
	explain_has("SELECT count(*) FROM t, u, d WHERE t.id = u.k AND d.id = t.g", "HashJoin Inner keys=[CAST(t.g AS BIGINT) = d.id]");
	ROWS("SELECT count(*) FROM t, u, d WHERE t.id = u.k AND d.id = t.g", "3");
	explain_has("SELECT count(*) FROM t, u WHERE EXISTS (SELECT 1 FROM d WHERE d.id = t.g) AND t.id = u.k",
	            "HashJoin Inner keys=[t.id = u.k]");
	ROWS("SELECT t.id, u.name FROM t JOIN u ON t.id < u.k AND u.k < 3", "1|two", "1|deux");
	ROWS("SELECT a.id, b.id FROM t a JOIN t b ON a.id = b.g", "1|1", "1|2", "2|3", "2|5");
	/* keys of different types meet at the common type */
	ROWS("SELECT d.id, t.s FROM d JOIN t ON d.id = t.id", "1|a", "2|b", "3|NULL");
	fails("SELECT id FROM t JOIN t ON t.id = t.id", "AMBIGUOUS_REFERENCE", NULL);
}

static void test_using_natural(void **state)
{
	(void)state;
	names("SELECT * FROM t JOIN d USING (id)", "id,g,s,x,amt,day");
	ROWS("SELECT id, t.id, d.id, amt FROM t JOIN d USING (id)", "1|1|1|10.50", "2|2|2|NULL", "3|3|3|-2.25");
	ROWS("SELECT id, amt FROM t FULL JOIN (SELECT id + 3 AS id, amt FROM d) x USING (id)", "1|NULL", "2|NULL",
	     "3|NULL", "4|10.50", "5|NULL", "6|-2.25");
	ROWS("SELECT id, s FROM t NATURAL JOIN d", "1|a", "2|b", "3|NULL");
	ROWS("SELECT id, g FROM t RIGHT JOIN (SELECT 9 AS id) z USING (id)", "9|NULL");
}

static void test_nested_and_qualified(void **state)
{
	(void)state;
	const char *v = "WITH v AS (SELECT id, named_struct('a', id, 'b', named_struct('c', id * 10)) AS st FROM t) ";
	char sql[512];
	snprintf(sql, sizeof sql, "%sSELECT st.a, st.b.c, v.st.b.c FROM v WHERE st.b.c > 30", v);
	ROWS(sql, "4|40|40", "5|50|50");
	snprintf(sql, sizeof sql, "%sSELECT st.b FROM v WHERE id = 1", v);
	ROWS(sql, "{c: 10}");
	snprintf(sql, sizeof sql, "%sSELECT st.nope FROM v", v);
	fails(sql, "UNRESOLVED_COLUMN", "st.nope");
	/* schema.table.column and table.column both name a catalog table's column */
	ROWS("SELECT db.t.id, t.id, id FROM db.t WHERE db.t.id = 2", "2|2|2");
	fails("SELECT a FROM (SELECT 1 AS a, 2 AS a) x", "AMBIGUOUS_REFERENCE", NULL);
	ROWS("SELECT * FROM (SELECT 1 AS a, 2 AS a) x", "1|2");
}

static void test_resolution_errors(void **state)
{
	(void)state;
	fails("SELECT idd FROM t", "[UNRESOLVED_COLUMN.WITH_SUGGESTION]",
	      "A column, variable, or function parameter with name `idd` cannot be resolved. Did you mean one of the "
	      "following? [`t`.`id`");
	fails("SELECT t.nope FROM t", "UNRESOLVED_COLUMN.WITH_SUGGESTION", "`t`.`nope`");
	fails("SELECT k FROM u a JOIN u b ON a.k = b.k", "[AMBIGUOUS_REFERENCE] Reference `k` is ambiguous", NULL);
	fails("SELECT * FROM nosuch", "TABLE_OR_VIEW_NOT_FOUND", NULL);
	fails("SELECT q.* FROM t", "CANNOT_RESOLVE_STAR_EXPAND", NULL);
	fails("SELECT nosuch(id) FROM t", "UNRESOLVED_ROUTINE", NULL);
	fails("SELECT s + date_add(s, 1) FROM t", "", "s");
}

static void test_set_ops_values(void **state)
{
	(void)state;
	ROWS("SELECT g FROM t UNION SELECT k FROM u", "1", "2", "9", "NULL");
	ROWS("SELECT g FROM t UNION ALL SELECT k FROM u WHERE k > 1", "1", "1", "2", "2", "NULL", "2", "2", "9");
	ROWS("SELECT g FROM t INTERSECT SELECT k FROM u", "1", "2", "NULL");
	ROWS("SELECT g FROM t EXCEPT SELECT k FROM u WHERE k = 1", "2", "NULL");
	ROWS("SELECT k FROM u EXCEPT ALL SELECT g FROM t", "9");
	ORDERED("SELECT id FROM t UNION SELECT k FROM u ORDER BY id DESC NULLS LAST LIMIT 3", "9", "5", "4");
	names("SELECT id AS a FROM t UNION SELECT k FROM u", "a");
	/* widening: INT with DECIMAL and DOUBLE */
	ROWS("SELECT id FROM t WHERE id = 1 UNION ALL SELECT amt FROM d WHERE id = 1", "1.00", "10.50");
	ROWS("VALUES (1, 'a'), (2, NULL), (3.5, 'c')", "1.0|a", "2.0|NULL", "3.5|c");
	names("VALUES (1, 'a')", "col1,col2");
	ROWS("SELECT v.b FROM (VALUES (1, 'x'), (2, 'y')) AS v(a, b) WHERE a = 2", "y");
	fails("SELECT id, g FROM t UNION SELECT k FROM u", "NUM_COLUMNS_MISMATCH", NULL);
}

static void test_cte_subquery_from(void **state)
{
	(void)state;
	ROWS("WITH a AS (SELECT id, g FROM t WHERE id > 2), b AS (SELECT g, count(*) c FROM a GROUP BY g) "
	     "SELECT * FROM b",
	     "2|2", "NULL|1");
	ROWS("WITH a (x) AS (SELECT id FROM t) SELECT max(x) FROM a", "5");
	ROWS("WITH a AS (SELECT 1 AS v) SELECT l.v, r.v FROM a l JOIN a r ON l.v = r.v", "1|1");
	ROWS("SELECT s.n FROM (SELECT id * 10 AS n FROM t) s WHERE s.n > 30", "40", "50");
	ROWS("SELECT DISTINCT g FROM t", "1", "2", "NULL");
}

static void test_subqueries(void **state)
{
	(void)state;
	ROWS("SELECT id FROM t WHERE id = (SELECT max(k) FROM u WHERE k < 9)", "2");
	ROWS("SELECT id, (SELECT count(*) FROM u) FROM t WHERE id < 2", "1|5");
	ROWS("SELECT id FROM t WHERE g IN (SELECT k FROM u)", "1", "2", "3", "5");
	ROWS("SELECT id FROM t WHERE g NOT IN (SELECT k FROM u WHERE k = 1)", "3", "5");
	/* a NULL in the subquery makes NOT IN NULL for everyone */
	ROWS("SELECT id FROM t WHERE g NOT IN (SELECT k FROM u)", "<none>");
	ROWS("SELECT id FROM t WHERE EXISTS (SELECT 1 FROM u WHERE k = 9)", "1", "2", "3", "4", "5");
	ROWS("SELECT id FROM t WHERE NOT EXISTS (SELECT 1 FROM empty)", "1", "2", "3", "4", "5");
	ROWS("SELECT id FROM t WHERE EXISTS (SELECT 1 FROM u WHERE u.k = t.id)", "1", "2");
	ROWS("SELECT id FROM t WHERE NOT EXISTS (SELECT 1 FROM u WHERE u.k = t.id)", "3", "4", "5");
	ROWS("SELECT id FROM t WHERE s IN (SELECT substr(name, 1, 1) FROM u WHERE u.k = t.g)", "<none>");
	ROWS("SELECT id, (SELECT count(*) FROM u WHERE u.k = t.g) AS c FROM t", "1|1", "2|1", "3|2", "4|0", "5|2");
	ROWS("SELECT id FROM t WHERE id > (SELECT min(k) FROM u WHERE u.k = t.g)", "2", "3", "5");
	ROWS("SELECT id FROM t WHERE g IN (SELECT k FROM u) AND id > 2", "3", "5");
	fails("SELECT id FROM t WHERE id = (SELECT k FROM u)", "SCALAR_SUBQUERY_TOO_MANY_ROWS", NULL);
	/* EXPLAIN runs no subquery: it shows them after the plan */
	char *e = explain("SELECT id FROM t WHERE id = (SELECT max(k) FROM u) AND g IN (SELECT k FROM u WHERE k > 1)");
	if (!strstr(e, "Filter t.id = scalar_subquery_1") || !strstr(e, "\nscalar_subquery_1:\n") ||
	    strstr(e, "filter: id = scalar_subquery_1") || !strstr(e, "HashJoin LeftSemi keys=[t.g = k]") ||
	    !strstr(e, "  Scan mem.u [k] filter: k > 1"))
		fail_msg("%s", e);
	free(e);
	fails("SELECT (SELECT k, name FROM u LIMIT 1)", "INVALID_SUBQUERY_EXPRESSION", NULL);
}

static void test_pushdown(void **state)
{
	(void)state;
	pt_table *t = &E.t[0];
	ROWS("SELECT s FROM t WHERE id > 3", "d", "e");
	assert_string_equal(t->opened_cols, "id,s");
	assert_string_equal(t->opened_filter, "id > 3");
	ROWS("SELECT count(*) FROM t", "5");
	assert_string_equal(t->opened_cols, "");
	/* not into the null-supplying side of an outer join */
	ROWS("SELECT u.k, t.id FROM u LEFT JOIN t ON t.id = u.k WHERE t.id IS NULL", "NULL|NULL", "9|NULL");
	assert_string_equal(t->opened_filter, "");
	ROWS("SELECT u.k, t.id FROM u JOIN t ON t.id = u.k WHERE t.s = 'a'", "1|1");
	assert_string_equal(t->opened_filter, "s = 'a'");
	/* through renaming projections (derived tables, CTEs), not computed ones or LIMIT */
	ROWS("SELECT * FROM (SELECT id, s AS z FROM t) x WHERE x.id > 3 AND z = 'e'", "5|e");
	assert_string_equal(t->opened_filter, "(id > 3) AND (s = 'e')");
	ROWS("WITH c AS (SELECT id + 1 AS n FROM t) SELECT n FROM c WHERE n > 5", "6");
	assert_string_equal(t->opened_filter, "");
	ROWS("SELECT id FROM (SELECT id FROM t ORDER BY id LIMIT 2) x WHERE id > 1", "2");
	assert_string_equal(t->opened_filter, "");
	/* ON conjuncts over the side a join does not preserve */
	pt_table *u = &E.t[1];
	ROWS("SELECT t.id, u.name FROM t LEFT JOIN u ON t.g = u.k AND u.name = 'two'", "1|NULL", "2|NULL", "3|two",
	     "4|NULL", "5|two");
	assert_string_equal(u->opened_filter, "name = 'two'");
	assert_string_equal(t->opened_filter, "");
	ROWS("SELECT t.id, u.name FROM t LEFT JOIN u ON t.g = u.k AND t.id > 4", "1|NULL", "2|NULL", "3|NULL", "4|NULL",
	     "5|two", "5|deux");
	assert_string_equal(t->opened_filter, "");
	ROWS("SELECT t.id FROM t LEFT ANTI JOIN u ON t.g = u.k AND t.id > 2", "1", "2", "4");
	assert_string_equal(t->opened_filter, "");
	ROWS("SELECT t.id, u.name FROM t JOIN u ON t.g = u.k AND t.id > 4 AND u.name > 'e'", "5|two");
	assert_string_equal(t->opened_filter, "id > 4");
	assert_string_equal(u->opened_filter, "name > 'e'");
}

static void test_explain_schema(void **state)
{
	(void)state;
	dl_sql_script *s;
	assert_int_equal(dl_sql_parse(&s, "SELECT g, count(*) FROM t JOIN u ON t.g = u.k WHERE t.id > 1 GROUP BY g "
	                                  "ORDER BY g LIMIT 3"),
	                 0);
	dl_buf b = DL_BUF_INIT;
	int opens = E.t[0].opens;
	assert_int_equal(sql_explain_query(&b, &E.env, dl_sql_script_stmt(s, 0)->query, NULL), 0);
	assert_int_equal(E.t[0].opens, opens); /* nothing opened */
	assert_non_null(strstr(b.data, "TopN [g ASC] limit=3"));
	assert_non_null(strstr(b.data, "Aggregate keys=[t.g] functions=[count(*)]"));
	assert_non_null(strstr(b.data, "\n      HashJoin Inner keys=[t.g = u.k]"));
	/* Projects that only pass their input's columns through (the naming
	 * ones over the output) are not printed (issue 10: a doubled Project) */
	assert_int_equal(strncmp(b.data, "TopN [g ASC]", 12), 0);
	assert_non_null(strstr(b.data, "Scan mem.t [id, g] filter: id > 1 (memory table of 3 batches)"));
	dl_buf_free(&b);
	dl_type *ty;
	assert_int_equal(sql_query_schema(&ty, &E.env, dl_sql_script_stmt(s, 0)->query), 0);
	assert_int_equal(ty->nchildren, 2);
	assert_string_equal(ty->children[1].name, "count(1)");
	assert_int_equal(ty->children[1].type->id, DL_TYPE_LONG);
	dl_type_unref(ty);
	dl_sql_script_free(s);
}

static void test_build_side(void **state)
{
	(void)state;
	/* the smaller side is built: a LEFT join with a small left becomes RIGHT */
	E.t[0].est = 5;
	E.t[1].est = 1000;
	dl_sql_script *s;
	assert_int_equal(dl_sql_parse(&s, "SELECT id, name FROM t LEFT JOIN u ON t.id = u.k"), 0);
	dl_buf b = DL_BUF_INIT;
	assert_int_equal(sql_explain_query(&b, &E.env, dl_sql_script_stmt(s, 0)->query, NULL), 0);
	assert_non_null(strstr(b.data, "HashJoin RightOuter keys=[u.k = t.id]"));
	dl_buf_free(&b);
	dl_sql_script_free(s);
	ROWS("SELECT id, name FROM t LEFT JOIN u ON t.id = u.k", "1|one", "2|two", "2|deux", "3|NULL", "4|NULL", "5|NULL");
	E.t[0].est = E.t[1].est = -1;
}

static void test_more_shapes(void **state)
{
	(void)state;
	ORDERED("SELECT count(*) FROM t GROUP BY g ORDER BY g NULLS LAST", "2", "2", "1");
	ROWS("SELECT count(*) FROM t HAVING count(*) > 10", "<none>");
	ROWS("SELECT count(*) FROM t HAVING count(*) > 1", "5");
	ROWS("SELECT (SELECT k FROM u WHERE k = 100)", "NULL");
	ROWS("SELECT id FROM t WHERE g NOT IN (SELECT k FROM u WHERE u.name = t.s OR u.k IS NULL)", "<none>");
	ROWS("SELECT id FROM t WHERE g NOT IN (SELECT k FROM u WHERE u.name = t.s OR u.k = 9)", "1", "2", "3", "5");
	ROWS("SELECT k FROM u INTERSECT ALL SELECT k FROM u WHERE k = 2", "2", "2");
	ROWS("SELECT g + 1 AS h, count(*) FROM t GROUP BY h", "2|2", "3|2", "NULL|1");
	ROWS("SELECT max(id) FILTER_ALIAS FROM t", "5");
	/* the output schema without running the subquery or opening a table */
	dl_sql_script *s;
	assert_int_equal(dl_sql_parse(&s, "SELECT (SELECT max(k) FROM u) AS m, sum(amt) FROM d"), 0);
	int opens = E.t[1].opens;
	dl_type *ty;
	assert_int_equal(sql_query_schema(&ty, &E.env, dl_sql_script_stmt(s, 0)->query), 0);
	assert_int_equal(E.t[1].opens, opens);
	assert_string_equal(ty->children[0].name, "m");
	assert_int_equal(ty->children[0].type->id, DL_TYPE_INTEGER);
	assert_int_equal(ty->children[1].type->id, DL_TYPE_DECIMAL);
	assert_int_equal(ty->children[1].type->precision, 20);
	dl_type_unref(ty);
	dl_sql_script_free(s);
}

static void test_more_errors(void **state)
{
	(void)state;
	fails("SELECT * FROM t JOIN u USING (nosuch)", "UNRESOLVED_USING_COLUMN_FOR_JOIN", NULL);
	fails("SELECT (SELECT id FROM t WHERE t.id = u.k) FROM u", "MUST_AGGREGATE_CORRELATED_SCALAR_SUBQUERY", NULL);
	fails("SELECT id FROM t WHERE EXISTS (SELECT 1 FROM u WHERE u.k > t.id) OR id = 1",
	      "UNSUPPORTED_SUBQUERY_EXPRESSION_CATEGORY", NULL);
	fails("SELECT (SELECT max(k) FROM u WHERE u.k = t.id GROUP BY u.name) FROM t", "NON_CORRELATED_COLUMNS_IN_GROUP_BY",
	      NULL);
	ROWS("SELECT id, (SELECT count(*) FROM u WHERE u.k = t.id GROUP BY u.k) FROM t WHERE id < 4", "1|1", "2|2", "3|NULL");
	fails("SELECT sum(id) OVER (PARTITION BY nosuch) FROM t", "UNRESOLVED_COLUMN", "`nosuch`");
	fails("WITH a AS (SELECT 1), A AS (SELECT 2) SELECT * FROM a", "DUPLICATED_CTE_NAMES", NULL);
	fails("VALUES (1), (1, 2)", "INVALID_INLINE_TABLE", NULL);
	fails("SELECT * FROM (SELECT 1 AS a) x (a, b)", "ASSIGNMENT_ARITY_MISMATCH", NULL);
	fails("SELECT id FROM t ORDER BY 9", "ORDER_BY_POS_OUT_OF_RANGE", NULL);
	fails("SELECT count(*) FROM t GROUP BY 1", "GROUP_BY_POS_AGGREGATE", NULL);
}

static void test_lateral_alias(void **state)
{
	(void)state;
	ROWS("SELECT id * 2 AS a, a + 1 AS b, b * 10 FROM t WHERE id < 3", "2|3|30", "4|5|50");
	/* an input column wins over an alias of the same name */
	ROWS("SELECT id + 100 AS g, g FROM t WHERE id = 1", "101|1");
	ROWS("SELECT g, count(*) AS c, c * 2 FROM t GROUP BY g HAVING c > 1", "1|2|4", "2|2|4");
	ORDERED("SELECT id, x * 2 AS dbl FROM t WHERE x IS NOT NULL ORDER BY dbl DESC", "4|8", "3|6", "1|3", "5|-2");
}

static void test_windows(void **state)
{
	(void)state;
	ROWS("SELECT id, row_number() OVER (PARTITION BY g ORDER BY id) FROM t", "1|1", "2|2", "3|1", "5|2", "4|1");
	ROWS("SELECT id, sum(id) OVER (PARTITION BY g) FROM t", "1|3", "2|3", "3|8", "5|8", "4|4");
	ORDERED("SELECT id, sum(id) OVER (ORDER BY id ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW) FROM t ORDER BY id",
	        "1|1", "2|3", "3|6", "4|10", "5|15");
	ORDERED("SELECT id, lag(id) OVER (ORDER BY id), lead(id, 1, 0) OVER (ORDER BY id) FROM t ORDER BY id", "1|NULL|2",
	        "2|1|3", "3|2|4", "4|3|5", "5|4|0");
	ROWS("SELECT g, count(*), rank() OVER (ORDER BY count(*) DESC) FROM t GROUP BY g", "1|2|1", "2|2|1", "NULL|1|3");
	ORDERED("SELECT id FROM t ORDER BY row_number() OVER (ORDER BY id DESC)", "5", "4", "3", "2", "1");
	/* two specifications: two chained operators; equal calls computed once */
	ROWS("SELECT id, count(*) OVER (PARTITION BY g), max(id) OVER (ORDER BY id), count(*) OVER (PARTITION BY g) "
	     "FROM t WHERE id < 4",
	     "1|2|1|2", "2|2|2|2", "3|1|3|1");
	ROWS("SELECT id, sum(sum(x)) OVER () FROM t GROUP BY id", "1|7.5", "2|7.5", "3|7.5", "4|7.5", "5|7.5");
	fails("SELECT id FROM t WHERE row_number() OVER (ORDER BY id) = 1", "[INVALID_WHERE_CONDITION]", NULL);
	fails("SELECT sum(id) FROM t GROUP BY sum(id)", "[GROUP_BY_AGGREGATE]", NULL);
	fails("SELECT upper(s) OVER (ORDER BY id) FROM t", "UNSUPPORTED_EXPR_FOR_WINDOW", NULL);
}

static void test_new_aggregates(void **state)
{
	(void)state;
	ROWS("SELECT g, sum(DISTINCT g), count_if(id > 1), bool_and(id > 1), bool_or(id > 4) FROM t GROUP BY g",
	     "1|1|1|false|false", "2|2|2|true|true", "NULL|NULL|1|true|false");
	ROWS("SELECT sort_array(collect_list(g)), sort_array(collect_set(g)), approx_count_distinct(g), any_value(9) FROM t",
	     "[1, 1, 2, 2]|[1, 2]|2|9");
	ROWS("SELECT mean(id), std(id), every(id > 0), some(id > 4) FROM t", "3|1.5811388300841898|true|true");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_select_where),   cmocka_unit_test(test_names),
		cmocka_unit_test(test_group_by),       cmocka_unit_test(test_order_limit),
		cmocka_unit_test(test_joins),          cmocka_unit_test(test_using_natural),
		cmocka_unit_test(test_resolution_errors), cmocka_unit_test(test_nested_and_qualified), cmocka_unit_test(test_set_ops_values),
		cmocka_unit_test(test_cte_subquery_from), cmocka_unit_test(test_subqueries),
		cmocka_unit_test(test_pushdown),       cmocka_unit_test(test_explain_schema),
		cmocka_unit_test(test_build_side),     cmocka_unit_test(test_windows),
		cmocka_unit_test(test_new_aggregates), cmocka_unit_test(test_more_shapes),
		cmocka_unit_test(test_lateral_alias),  cmocka_unit_test(test_grouping_sets),  cmocka_unit_test(test_more_errors),
	};
	return cmocka_run_group_tests(tests, setup, teardown);
}
