/* DELETE, UPDATE and MERGE through the SQL API (src/sql/stmt_dml.c): each
 * statement form reaches the DML layer with the target resolved (catalog
 * names and delta.`path`), target qualifiers handled, MERGE sources of
 * every kind (VALUES, subqueries, catalog tables, paths, files), Spark's
 * result columns, and errors that change nothing. The operations' own
 * semantics are tested in tests/unit/dml. */
#include "session_test_util.h"
#include "../dml/dml_fixture.h" /* dx_tree */

/* Asserts that sql fails with `code` and a message naming `needle`. */
#define expect_failure(db_, sql_, code_, needle_)                                   \
	do {                                                                        \
		struct ArrowArrayStream st_;                                            \
		int rc_ = dl_sql_execute(&st_, (db_), (sql_));                            \
		if (rc_ == 0) st_.release(&st_);                                        \
		assert_int_equal(rc_, (code_));                                          \
		assert_non_null(strstr(dl_error_last()->message, (needle_)));            \
	} while (0)

static void delete_statements(void **state)
{
	session_fixture *f = *state;
	dl_sql_conn *db = f->db;
	expect_ok(db, "CREATE TABLE t (id INT, v STRING, p STRING) PARTITIONED BY (p)");
	expect_rows(db, "INSERT INTO t VALUES (1, 'a', 'x'), (2, 'b', 'x'), (3, NULL, 'y'), (4, 'd', 'y')", "4|4\n");
	/* the alias and the table name may qualify the target's columns */
	expect_rows(db, "DELETE FROM t AS z WHERE z.id = 1", "1\n");
	expect_rows(db, "DELETE FROM t WHERE t.v = 'b'", "1\n");
	/* a predicate that is NULL deletes nothing */
	expect_rows(db, "DELETE FROM t WHERE v = NULL", "0\n");
	expect_rows(db, "SELECT id FROM t ORDER BY id", "3\n4\n");
	char *h = run(db, "DESCRIBE HISTORY t LIMIT 1");
	assert_non_null(h);
	assert_non_null(strstr(h, "|DELETE|"));
	free(h);
	/* subqueries in the condition are refused, the table unchanged */
	/* uncorrelated subqueries run first: IN, NOT IN with a NULL (deletes
	 * nothing: three-valued), EXISTS, scalar */
	expect_ok(db, "CREATE TABLE k (id INT)");
	expect_rows(db, "INSERT INTO k VALUES (4), (NULL)", "2|2\n");
	expect_rows(db, "DELETE FROM t WHERE id NOT IN (SELECT id FROM k)", "0\n");
	expect_rows(db, "DELETE FROM t WHERE EXISTS (SELECT 1 FROM k WHERE id > 100)", "0\n");
	expect_rows(db, "DELETE FROM t WHERE id = (SELECT max(id) FROM k) AND id IN (SELECT id FROM k)", "1\n");
	expect_rows(db, "INSERT INTO t VALUES (4, 'd', 'y')", "1|1\n");
	/* correlated [NOT] EXISTS: see correlated_exists below; a correlated
	 * scalar or IN subquery is refused, naming why; nothing changes */
	expect_failure(db, "DELETE FROM t WHERE id = (SELECT max(k.id) FROM k WHERE k.id = t.id)", DL_EINVALID,
	               "correlated");
	expect_failure(db, "DELETE FROM t WHERE id IN (SELECT k.id FROM k WHERE k.id = t.id)", DL_EINVALID,
	               "correlated");
	expect_error(db, "DELETE FROM t WHERE id = (SELECT id FROM k)", DL_EINVALID, "SCALAR_SUBQUERY_TOO_MANY_ROWS");
	expect_failure(db, "DELETE FROM t WHERE nope = 1", DL_EINVALID, "nope");
	expect_error(db, "DELETE FROM t VERSION AS OF 1 WHERE id = 3", DL_EUNSUPPORTED,
	             "DELTA_UNSUPPORTED_TIME_TRAVEL_VIEWS");
	expect_error(db, "DELETE FROM missing WHERE id = 3", DL_ENOTFOUND, "TABLE_OR_VIEW_NOT_FOUND");
	expect_rows(db, "SELECT count(*) FROM t", "2\n");
	/* without WHERE: every row; on a path */
	char sql[1200];
	snprintf(sql, sizeof sql, "CREATE TABLE delta.`%s/ext` (id INT) USING DELTA", f->dir);
	expect_ok(db, sql);
	snprintf(sql, sizeof sql, "INSERT INTO delta.`%s/ext` VALUES (1), (2), (3)", f->dir);
	expect_rows(db, sql, "3|3\n");
	snprintf(sql, sizeof sql, "DELETE FROM delta.`%s/ext`", f->dir);
	expect_rows(db, sql, "3\n");
	snprintf(sql, sizeof sql, "SELECT count(*) FROM delta.`%s/ext`", f->dir);
	expect_rows(db, sql, "0\n");
}

#define run_ok(db_, sql_)                  \
	do {                                   \
		char *r_ = run((db_), (sql_));      \
		assert_non_null(r_);               \
		free(r_);                          \
	} while (0)

/* Spark's DeleteSuiteBase "exists/notexists subquery" cases (with
 * ALLOW_EXISTS_SUBQUERY_IN_DELETE), partitioned and not: each starts from
 * the same target rows and expects Spark's remaining rows. */
static void exists_case(dl_sql_conn *db, bool partitioned, const char *target, const char *source,
                        const char *source2, const char *where, const char *expect)
{
	char sql[1024];
	expect_ok(db, "DROP TABLE IF EXISTS target");
	expect_ok(db, "DROP TABLE IF EXISTS source");
	expect_ok(db, "DROP TABLE IF EXISTS source2");
	snprintf(sql, sizeof sql, "CREATE TABLE target (c INT, t1 STRING)%s", partitioned ? " PARTITIONED BY (c)" : "");
	expect_ok(db, sql);
	snprintf(sql, sizeof sql, "INSERT INTO target VALUES %s", target);
	run_ok(db, sql);
	expect_ok(db, "CREATE TABLE source (c INT, s1 STRING)");
	if (source) {
		snprintf(sql, sizeof sql, "INSERT INTO source VALUES %s", source);
		run_ok(db, sql);
	}
	expect_ok(db, "CREATE TABLE source2 (c INT, s2 STRING)");
	if (source2) {
		snprintf(sql, sizeof sql, "INSERT INTO source2 VALUES %s", source2);
		run_ok(db, sql);
	}
	snprintf(sql, sizeof sql, "DELETE FROM target t WHERE %s", where);
	run_ok(db, sql);
	expect_rows(db, "SELECT c, t1 FROM target ORDER BY c NULLS FIRST, t1", expect);
}

static void correlated_exists(void **state)
{
	session_fixture *f = *state;
	dl_sql_conn *db = f->db;
	for (int part = 0; part < 2; part++) {
		bool p = part == 1;
		exists_case(db, p, "(3, 'a'), (1, 'b')", "(2, 'a'), (1, 'b')", NULL,
		            "EXISTS (SELECT 1 FROM source WHERE t.c = source.c)", "3|a\n");
		exists_case(db, p, "(3, 'a'), (1, 'b')", "(2, 'a'), (1, 'b')", NULL,
		            "NOT EXISTS (SELECT 1 FROM source WHERE t.c = source.c)", "1|b\n");
		/* `=` never matches NULL: the NULL row stays under EXISTS, goes under NOT EXISTS */
		exists_case(db, p, "(3, 'a'), (1, 'b'), (NULL, 'a')", "(NULL, 'a'), (1, 'b')", NULL,
		            "EXISTS (SELECT * FROM source WHERE t.c = c)", "NULL|a\n3|a\n");
		exists_case(db, p, "(3, 'a'), (1, 'b'), (NULL, 'a')", "(NULL, 'a'), (1, 'b')", NULL,
		            "NOT EXISTS (SELECT c FROM source WHERE t.c = source.c)", "1|b\n");
		/* `<=>` does */
		exists_case(db, p, "(3, 'a'), (1, 'b'), (NULL, 'a')", "(NULL, 'a'), (1, 'b')", NULL,
		            "EXISTS (SELECT c FROM source WHERE t.c <=> source.c)", "3|a\n");
		exists_case(db, p, "(3, 'a'), (1, 'b'), (NULL, 'a')", "(NULL, 'a'), (1, 'b')", NULL,
		            "NOT EXISTS (SELECT c FROM source WHERE t.c <=> source.c)", "NULL|a\n1|b\n");
		/* no matching source rows; an empty source */
		exists_case(db, p, "(1, 'a'), (2, 'b')", "(100, 'x')", NULL,
		            "EXISTS (SELECT 1 FROM source WHERE t.c = source.c)", "1|a\n2|b\n");
		exists_case(db, p, "(1, 'a'), (2, 'b')", "(100, 'x')", NULL,
		            "NOT EXISTS (SELECT 1 FROM source WHERE t.c = source.c)", "");
		exists_case(db, p, "(1, 'a'), (2, 'b'), (3, 'c')", NULL, NULL,
		            "NOT EXISTS (SELECT 1 FROM source WHERE t.c = source.c)", "");
		/* a compound key, with a condition of the source's own */
		exists_case(db, p, "(1, 'a'), (2, 'b'), (3, 'c'), (4, 'd')", "(1, 'a'), (2, 'x'), (3, 'c')", NULL,
		            "EXISTS (SELECT 1 FROM source WHERE t.c = source.c AND t.t1 = source.s1)", "2|b\n4|d\n");
		exists_case(db, p, "(1, 'a'), (2, 'b'), (3, 'c'), (4, 'd')", "(1, 'a'), (2, 'x'), (3, 'c')", NULL,
		            "EXISTS (SELECT 1 FROM source WHERE source.s1 <> 'c' AND source.c = t.c AND t.t1 = source.s1)",
		            "2|b\n3|c\n4|d\n");
		/* uncorrelated */
		exists_case(db, p, "(1, 'a'), (2, 'b'), (3, 'c')", "(99, 'x')", NULL, "NOT EXISTS (SELECT 1 FROM source)",
		            "1|a\n2|b\n3|c\n");
		/* combined with a predicate on the target; two subqueries; nested (last: the history below) */
		exists_case(db, p, "(1, 'a'), (2, 'b'), (3, 'a'), (4, 'b')", "(1, 'x'), (3, 'y')", NULL,
		            "EXISTS (SELECT 1 FROM source WHERE t.c = source.c) AND t1 = 'a'", "2|b\n4|b\n");
		exists_case(db, p, "(1, 'a'), (2, 'b'), (3, 'c'), (4, 'd')", "(1, 'x'), (2, 'y')", "(2, 'y'), (3, 'z')",
		            "EXISTS (SELECT 1 FROM source WHERE t.c = source.c) AND "
		            "EXISTS (SELECT 1 FROM source2 WHERE t.c = source2.c)",
		            "1|a\n3|c\n4|d\n");
		exists_case(db, p, "(1, 'a'), (2, 'b'), (3, 'c')", "(1, 'a'), (2, 'b')", "(1, 'b')",
		            "EXISTS (SELECT 1 FROM source WHERE t.c = source.c AND "
		            "EXISTS (SELECT 1 FROM source2 WHERE source.c = source2.c))",
		            "2|b\n3|c\n");
	}
	/* the operation is a DELETE, and an UPDATE condition takes the same form */
	char *h = run(db, "DESCRIBE HISTORY target LIMIT 1");
	assert_non_null(h);
	assert_non_null(strstr(h, "|DELETE|"));
	free(h);
	run_ok(db, "UPDATE target t SET t1 = 'u' WHERE EXISTS (SELECT 1 FROM source WHERE source.s1 = 'b' AND t.c + 98 = "
	           "source.c + 98)");
	expect_rows(db, "SELECT c, t1 FROM target ORDER BY c", "2|u\n3|c\n");
	/* shapes with another meaning are refused by name, the table unchanged */
	expect_error(db, "DELETE FROM target t WHERE EXISTS (SELECT 1 FROM source WHERE t.c > source.c)", DL_EUNSUPPORTED,
	             "UNSUPPORTED_SUBQUERY_EXPRESSION_CATEGORY");
	expect_error(db, "DELETE FROM target t WHERE EXISTS (SELECT 1 FROM source WHERE t.c = source.c OR s1 = 'x')",
	             DL_EUNSUPPORTED, "UNSUPPORTED_SUBQUERY_EXPRESSION_CATEGORY");
	expect_error(db, "DELETE FROM target t WHERE EXISTS (SELECT count(*) FROM source WHERE t.c = source.c)",
	             DL_EUNSUPPORTED, "UNSUPPORTED_SUBQUERY_EXPRESSION_CATEGORY");
	expect_error(db, "DELETE FROM target t WHERE EXISTS (SELECT 1 FROM source WHERE t.c = source.c LIMIT 1)",
	             DL_EUNSUPPORTED, "UNSUPPORTED_SUBQUERY_EXPRESSION_CATEGORY");
	expect_rows(db, "SELECT c, t1 FROM target ORDER BY c", "2|u\n3|c\n");
}

static void update_statements(void **state)
{
	session_fixture *f = *state;
	dl_sql_conn *db = f->db;
	expect_ok(db, "CREATE TABLE t (id INT, v STRING, n BIGINT, p STRING) PARTITIONED BY (p) "
	              "TBLPROPERTIES ('delta.enableDeletionVectors' = 'true')");
	expect_rows(db, "INSERT INTO t VALUES (1, 'a', 10, 'x'), (2, 'b', 20, 'x'), (3, 'c', 30, 'y')", "3|3\n");
	/* qualified SET targets and values; INT + 1 stored into BIGINT */
	expect_rows(db, "UPDATE t AS q SET q.v = upper(q.v), n = q.id + 1 WHERE q.id >= 2", "2\n");
	/* a partition column moves the row */
	expect_rows(db, "UPDATE t SET p = 'z' WHERE id = 1", "1\n");
	expect_rows(db, "SELECT id, v, n, p FROM t ORDER BY id", "1|a|10|z\n2|B|3|x\n3|C|4|y\n");
	/* no WHERE: every row */
	expect_rows(db, "UPDATE t SET n = 0", "3\n");
	expect_rows(db, "SELECT sum(n) FROM t", "0\n");
	expect_error(db, "UPDATE t SET nope = 1", DL_EINVALID, "DELTA_MISSING_SET_COLUMN");
	expect_rows(db, "UPDATE t SET n = (SELECT count(*) FROM t) WHERE id IN (SELECT 1 UNION ALL SELECT 3)", "2\n");
	expect_rows(db, "SELECT sum(n) FROM t", "6\n");
}

static void merge_statements(void **state)
{
	session_fixture *f = *state;
	dl_sql_conn *db = f->db;
	expect_ok(db, "CREATE TABLE t (id INT, v STRING)");
	expect_rows(db, "INSERT INTO t VALUES (1, 'a'), (2, 'b'), (3, 'c')", "3|3\n");
	/* a VALUES source with column aliases; the target named by its table */
	expect_rows(db,
	            "MERGE INTO t USING (VALUES (1, 'one'), (4, 'four')) AS s(id, v) ON t.id = s.id "
	            "WHEN MATCHED THEN UPDATE SET v = s.v WHEN NOT MATCHED THEN INSERT *",
	            "2|1|0|1\n");
	expect_rows(db, "SELECT id, v FROM t ORDER BY id", "1|one\n2|b\n3|c\n4|four\n");
	/* a subquery source, target alias, conditional clauses, BY SOURCE */
	expect_rows(db,
	            "MERGE INTO t AS tg USING (SELECT id, v FROM t WHERE id > 2) src ON tg.id = src.id + 1 "
	            "WHEN MATCHED AND src.v = 'c' THEN DELETE "
	            "WHEN NOT MATCHED THEN INSERT (id, v) VALUES (src.id + 1, concat(src.v, '+')) "
	            "WHEN NOT MATCHED BY SOURCE AND tg.id = 1 THEN UPDATE SET tg.v = 'first'",
	            "3|1|1|1\n");
	expect_rows(db, "SELECT id, v FROM t ORDER BY id", "1|first\n2|b\n3|c\n5|four+\n");
	/* a catalog table as the source, and UPDATE SET * */
	expect_ok(db, "CREATE TABLE s AS SELECT id, concat(v, '!') AS v FROM t WHERE id <= 2");
	expect_rows(db, "MERGE INTO t USING s ON t.id = s.id WHEN MATCHED THEN UPDATE SET *", "2|2|0|0\n");
	expect_rows(db, "SELECT id, v FROM t ORDER BY id", "1|first!\n2|b!\n3|c\n5|four+\n");
	/* a path source at a version */
	char sql[1400];
	snprintf(sql, sizeof sql, "CREATE TABLE delta.`%s/src` (id INT, v STRING) USING DELTA", f->dir);
	expect_ok(db, sql);
	snprintf(sql, sizeof sql, "INSERT INTO delta.`%s/src` VALUES (9, 'nine')", f->dir);
	expect_rows(db, sql, "1|1\n");
	snprintf(sql, sizeof sql, "INSERT INTO delta.`%s/src` VALUES (10, 'ten')", f->dir);
	expect_rows(db, sql, "1|1\n");
	snprintf(sql, sizeof sql,
	         "MERGE INTO t USING delta.`%s/src` VERSION AS OF 1 AS x ON t.id = x.id "
	         "WHEN NOT MATCHED THEN INSERT *",
	         f->dir);
	expect_rows(db, sql, "1|0|0|1\n");
	expect_rows(db, "SELECT count(*), max(id) FROM t", "5|9\n");
	/* two source rows for one target row: Spark's error, nothing changed */
	expect_error(db,
	             "MERGE INTO t USING (VALUES (1, 'x'), (1, 'y')) AS s(id, v) ON t.id = s.id "
	             "WHEN MATCHED THEN UPDATE SET v = s.v",
	             DL_EINVALID, "DELTA_MULTIPLE_SOURCE_ROW_MATCHING_TARGET_ROW_IN_MERGE");
	expect_error(db, "MERGE INTO t USING s ON t.id = s.nope WHEN MATCHED THEN DELETE", DL_EINVALID,
	             "DELTA_MERGE_UNRESOLVED_EXPRESSION");
	expect_rows(db, "SELECT count(*), max(id) FROM t", "5|9\n");
	char *h = run(db, "DESCRIBE HISTORY t LIMIT 1");
	assert_non_null(h);
	assert_non_null(strstr(h, "|MERGE|"));
	free(h);
}

/* sql fails with klass, its message has `needle`, and the table's files
 * are as they were. */
static void expect_store_error(session_fixture *f, const char *sql, const char *klass, const char *needle)
{
	char dir[600];
	snprintf(dir, sizeof dir, "%s/default.db/w", f->warehouse);
	char *before = dx_tree(dir);
	expect_error(f->db, sql, DL_EINVALID, klass);
	if (!strstr(dl_error_last()->message, needle)) fail_msg("%s: '%s' lacks '%s'", sql, dl_error_last()->message, needle);
	char *after = dx_tree(dir);
	assert_string_equal(before, after);
	dl_free(before);
	dl_free(after);
}

/* ANSI store assignment (Spark's CheckOverflowInTableWrite for UPDATE and
 * MERGE, CheckOverflowInTableInsert for INSERT): an overflowing value
 * names its type, the column's and the column (a struct field's own name
 * inside a struct), and nothing is written; a CAST the user wrote keeps
 * CAST_OVERFLOW with the value; malformed text stays CAST_INVALID_INPUT. */
static void store_overflow(void **state)
{
	session_fixture *f = *state;
	dl_sql_conn *db = f->db;
	expect_ok(db, "CREATE TABLE w (id BIGINT, v INT, b TINYINT, d DECIMAL(4,1), s STRUCT<x: INT>)");
	expect_rows(db, "INSERT INTO w VALUES (1, 1, 1, 1.5, named_struct('x', 1))", "1|1\n");
	const char *tw = "DELTA_CAST_OVERFLOW_IN_TABLE_WRITE", *ti = "CAST_OVERFLOW_IN_TABLE_INSERT";
	expect_store_error(f, "UPDATE w SET v = id * 10000000000", tw,
	                   "[DELTA_CAST_OVERFLOW_IN_TABLE_WRITE] Failed to write a value of \"BIGINT\" type into "
	                   "the \"INT\" type column `v` due to an overflow.\nUse `try_cast` on the input value to "
	                   "tolerate overflow and return NULL instead.\nIf necessary, set "
	                   "spark.sql.storeAssignmentPolicy to \"LEGACY\" to bypass this error or set "
	                   "spark.databricks.delta.updateAndMergeCastingFollowsAnsiEnabledFlag to true to revert to "
	                   "the old behaviour and follow spark.sql.ansi.enabled in UPDATE and MERGE.");
	expect_store_error(f, "UPDATE w SET b = 300", tw, "\"INT\" type into the \"TINYINT\" type column `b`");
	expect_store_error(f, "UPDATE w SET d = 12345", tw, "\"INT\" type into the \"DECIMAL(4,1)\" type column `d`");
	expect_store_error(f, "UPDATE w SET s.x = id * 10000000000", tw, "\"BIGINT\" type into the \"INT\" type column `x`");
	expect_store_error(f, "UPDATE w SET s = named_struct('x', id * 10000000000)", tw, "column `x`");
	expect_store_error(f, "UPDATE w SET v = CAST(id * 10000000000 AS INT)", "CAST_OVERFLOW",
	                   "The value 10000000000L of the type \"BIGINT\" cannot be cast to \"INT\"");
	expect_store_error(f, "UPDATE w SET v = 'abc'", "CAST_INVALID_INPUT", "'abc'");
	expect_store_error(f,
	                   "MERGE INTO w USING (SELECT 1L AS id, 5000000000L AS v) AS s ON w.id = s.id "
	                   "WHEN MATCHED THEN UPDATE SET v = s.v",
	                   tw, "\"BIGINT\" type into the \"INT\" type column `v`");
	expect_store_error(f,
	                   "MERGE INTO w USING (SELECT 7L AS id, 5000000000L AS v) AS s ON w.id = s.id "
	                   "WHEN NOT MATCHED THEN INSERT (id, v) VALUES (s.id, s.v)",
	                   tw, "\"BIGINT\" type into the \"INT\" type column `v`");
	expect_store_error(f,
	                   "MERGE INTO w USING (SELECT 7L AS id, 5000000000L AS v) AS s ON w.id = s.id "
	                   "WHEN NOT MATCHED THEN INSERT (id, v) VALUES (s.id, CAST(s.v AS INT))",
	                   "CAST_OVERFLOW", "5000000000L");
	expect_store_error(f, "INSERT INTO w VALUES (2, 3000000000, 1, 1.0, NULL)", ti,
	                   "[CAST_OVERFLOW_IN_TABLE_INSERT] Fail to assign a value of \"BIGINT\" type to the "
	                   "\"INT\" type column or variable `v` due to an overflow. Use `try_cast` on the input "
	                   "value to tolerate overflow and return NULL instead.");
	expect_store_error(f, "INSERT INTO w (id, b) SELECT 2, 1000", ti,
	                   "\"INT\" type to the \"TINYINT\" type column or variable `b`");
	expect_store_error(f, "INSERT INTO w (id, v) SELECT 2, CAST(3000000000 AS INT)", "CAST_OVERFLOW",
	                   "3000000000L");
	expect_rows(db, "SELECT id, v, b, d, s.x FROM w", "1|1|1|1.5|1\n");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test_setup_teardown(correlated_exists, fixture_setup, fixture_teardown),
	    cmocka_unit_test_setup_teardown(delete_statements, fixture_setup, fixture_teardown),
	    cmocka_unit_test_setup_teardown(update_statements, fixture_setup, fixture_teardown),
	    cmocka_unit_test_setup_teardown(merge_statements, fixture_setup, fixture_teardown),
	    cmocka_unit_test_setup_teardown(store_overflow, fixture_setup, fixture_teardown),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
