/* Statements that run queries, through the public API: SELECT and VALUES
 * over the resolver, EXPLAIN, INSERT INTO / OVERWRITE / REPLACE WHERE
 * through the write path (position matching, casts, defaults, generated
 * columns, constraints, one commit), CTAS in one commit, prepared
 * statements with parameters, and interrupting a running query. */
#include "session_test_util.h"

static void queries(void **state)
{
	session_fixture *f = *state;
	dl_sql_conn *db = f->db;
	expect_rows(db, "SELECT 1 AS a, 'x' AS b", "1|x\n");
	expect_rows(db, "VALUES (1, 'p'), (2, 'q')", "1|p\n2|q\n");
	expect_ok(db, "CREATE TABLE t (id BIGINT, name STRING)");
	expect_rows(db, "SELECT count(*) FROM t", "0\n");
	expect_error(db, "SELECT * FROM nope", DL_ENOTFOUND, "TABLE_OR_VIEW_NOT_FOUND");
	/* the last statement's result; earlier ones ran */
	expect_rows(db, "INSERT INTO t VALUES (1, 'a'); INSERT INTO t VALUES (2, 'b'); SELECT name FROM t ORDER BY id",
	            "a\nb\n");
	char *plan = run(db, "EXPLAIN SELECT id FROM t WHERE id = 2");
	assert_non_null(plan);
	assert_non_null(strstr(plan, "files 1 of 2 after pruning"));
	free(plan);
	struct ArrowArrayStream st;
	assert_int_equal(dl_sql_execute(&st, db, "EXPLAIN SELECT 1"), 0);
	char *text;
	assert_int_equal(read_all(&text, &st, true), 0);
	assert_true(strncmp(text, "plan\n", 5) == 0);
	free(text);
	/* time travel in queries: each INSERT was one commit */
	expect_rows(db, "SELECT count(*) FROM t VERSION AS OF 1", "1\n");
	expect_rows(db, "SELECT count(*) FROM t@v2", "2\n");
	/* TIMESTAMP AS OF a commit's timestamp (as DESCRIBE HISTORY shows it,
	 * in the session zone): that version */
	char *h = run(db, "DESCRIBE HISTORY t");
	assert_non_null(h);
	char *line = strstr(h, "\n1|");
	assert_non_null(line);
	char ts[64];
	size_t n = strcspn(line + 3, "|");
	memcpy(ts, line + 3, n);
	ts[n] = 0;
	free(h);
	dl_sql_stmt *q;
	assert_int_equal(dl_sql_prepare(&q, NULL, db, "SELECT count(*) FROM t TIMESTAMP AS OF ?"), 0);
	assert_int_equal(dl_sql_bind_text(q, 1, ts, SIZE_MAX), 0);
	assert_int_equal(dl_sql_stmt_execute(&st, q), 0);
	assert_int_equal(read_all(&text, &st, false), 0);
	assert_string_equal(text, "1\n");
	free(text);
	dl_sql_stmt_free(q);
}

static void inserts(void **state)
{
	session_fixture *f = *state;
	dl_sql_conn *db = f->db;
	expect_ok(db, "CREATE TABLE t (id BIGINT NOT NULL, name STRING DEFAULT 'none', "
	              "len INT GENERATED ALWAYS AS (length(name)), p STRING) PARTITIONED BY (p)");
	/* by position, INT values cast to BIGINT; later columns default/generated */
	expect_rows(db, "INSERT INTO t VALUES (1, 'ab'), (2, 'xyz')", "2|2\n");
	expect_rows(db, "INSERT INTO TABLE t (id, p) VALUES (3, 'k')", "1|1\n");
	expect_rows(db, "INSERT INTO t (p, name, id) SELECT 'k', 'q', 4", "1|1\n");
	expect_rows(db, "SELECT id, name, len, p FROM t ORDER BY id",
	            "1|ab|2|NULL\n2|xyz|3|NULL\n3|none|4|k\n4|q|1|k\n");
	char *h = run(db, "DESCRIBE HISTORY t LIMIT 1");
	assert_non_null(h);
	assert_true(strncmp(h, "3|", 2) == 0);
	free(h);
	/* violations and mismatches change nothing */
	expect_error(db, "INSERT INTO t VALUES (NULL, 'n')", DL_ECONSTRAINT, "DELTA_NOT_NULL_CONSTRAINT_VIOLATED");
	expect_error(db, "INSERT INTO t VALUES (1, 'a', 1, 'x', 5)", DL_ESCHEMA,
	             "INSERT_COLUMN_ARITY_MISMATCH.TOO_MANY_DATA_COLUMNS");
	expect_error(db, "INSERT INTO t (nope) VALUES (1)", DL_ESCHEMA, "UNRESOLVED_COLUMN.WITH_SUGGESTION");
	expect_error(db, "INSERT INTO t VALUES ('x', 'a')", DL_EINVALID, "CAST_INVALID_INPUT");
	expect_rows(db, "SELECT count(*) FROM t", "4\n");
	char *h2 = run(db, "DESCRIBE HISTORY t LIMIT 1");
	assert_true(strncmp(h2, "3|", 2) == 0);
	free(h2);
	/* REPLACE WHERE: only the matching rows are replaced */
	expect_rows(db, "INSERT INTO t (id, name, p) REPLACE WHERE p = 'k' VALUES (5, 'new', 'k')", "1|1\n");
	expect_rows(db, "SELECT id FROM t ORDER BY id", "1\n2\n5\n");
	expect_error(db, "INSERT INTO t (id, name, p) REPLACE WHERE p = 'k' VALUES (6, 'n', 'z')", DL_ECONSTRAINT,
	             "DELTA_REPLACE_WHERE_MISMATCH");
	/* OVERWRITE: all rows */
	expect_rows(db, "INSERT OVERWRITE t (id, name, p) SELECT 7, 'seven', 'k'", "1|1\n");
	expect_rows(db, "SELECT id, len FROM t", "7|5\n");
	/* NULL values take the column's type; a table read into itself */
	expect_rows(db, "INSERT INTO t VALUES (8, NULL, NULL, NULL)", "1|1\n");
	expect_rows(db, "INSERT INTO t (id, name, p) SELECT id + 100, name, p FROM t", "2|2\n");
	expect_rows(db, "SELECT id, name, len, p FROM t ORDER BY id",
	            "7|seven|5|k\n8|NULL|NULL|NULL\n107|seven|5|k\n108|NULL|NULL|NULL\n");
	/* dynamic partition overwrite, as Spark's setting asks */
	expect_ok(db, "SET spark.sql.sources.partitionOverwriteMode = dynamic");
	expect_rows(db, "INSERT OVERWRITE t (id, name, p) VALUES (9, 'nine', 'k')", "1|1\n");
	expect_rows(db, "SELECT id, p FROM t ORDER BY id", "8|NULL\n9|k\n108|NULL\n");
	expect_ok(db, "RESET spark.sql.sources.partitionOverwriteMode");
	/* schema evolution: a new column from the query */
	expect_rows(db, "INSERT WITH SCHEMA EVOLUTION INTO t SELECT 10, 'ten', 3, 'k', 'extra' AS note", "1|1\n");
	expect_rows(db, "SELECT id, note FROM t WHERE id >= 9 ORDER BY id", "9|NULL\n10|extra\n108|NULL\n");
	/* into delta.`path` */
	char sql[256];
	snprintf(sql, sizeof sql, "CREATE TABLE delta.`%s/p` (a INT)", f->dir);
	expect_ok(db, sql);
	snprintf(sql, sizeof sql, "INSERT INTO delta.`%s/p` SELECT id FROM t WHERE id = 10", f->dir);
	expect_rows(db, sql, "1|1\n");
	snprintf(sql, sizeof sql, "SELECT a FROM delta.`%s/p`", f->dir);
	expect_rows(db, sql, "10\n");
}

/* Type widening in INSERT with schema evolution (Spark's
 * TypeWideningInsertSchemaEvolutionBasicSuite): without evolution the
 * values are cast to the column's type; with it (the autoMerge setting or
 * WITH SCHEMA EVOLUTION) a table with delta.enableTypeWidening takes the
 * automatic widenings, nested ones too, and records delta.typeChanges;
 * other pairs keep the table's type. */
static void insert_type_widening(void **state)
{
	session_fixture *f = *state;
	dl_sql_conn *db = f->db;
	expect_ok(db, "CREATE TABLE w (a SHORT, s STRUCT<x: BYTE, y: STRING>, l ARRAY<INT>, d DOUBLE) "
	              "TBLPROPERTIES ('delta.enableTypeWidening' = 'true')");
	expect_rows(db, "INSERT INTO w VALUES (1, named_struct('x', 1, 'y', 'a'), array(1), 1.5)", "1|1\n");
	/* no evolution: cast, and a value that does not fit fails */
	expect_rows(db, "INSERT INTO w VALUES (2, named_struct('x', 2, 'y', 'b'), array(2), 2)", "1|1\n");
	expect_error(db, "INSERT INTO w VALUES (70000, named_struct('x', 2, 'y', 'b'), array(2), 2)", DL_EINVALID,
	             "CAST_OVERFLOW_IN_TABLE_INSERT");
	expect_rows(db, "DESCRIBE w", "a|smallint|NULL\ns|struct<x:tinyint,y:string>|NULL\nl|array<int>|NULL\n"
	                              "d|double|NULL\n");
	/* with evolution: int into short, int into the byte field, bigint
	 * elements widen; a string into the double stays double (not automatic) */
	expect_rows(db, "INSERT WITH SCHEMA EVOLUTION INTO w VALUES (70000, named_struct('x', 300, 'y', 'c'), "
	                "array(5000000000), '3.25')",
	            "1|1\n");
	expect_rows(db, "DESCRIBE w", "a|int|NULL\ns|struct<x:int,y:string>|NULL\nl|array<bigint>|NULL\nd|double|NULL\n");
	expect_rows(db, "SELECT a, s.x, l[0], d FROM w ORDER BY a", "1|1|1|1.5\n2|2|2|2.0\n70000|300|5000000000|3.25\n");
	char *h = run(db, "SELECT count(*) FROM w VERSION AS OF 2");
	assert_string_equal(h, "2\n");
	free(h);
	/* the session setting evolves too */
	expect_ok(db, "SET spark.databricks.delta.schema.autoMerge.enabled = true");
	expect_rows(db, "INSERT INTO w VALUES (3, named_struct('x', 3, 'y', 'd'), array(3), 4)", "1|1\n");
	expect_ok(db, "CREATE TABLE nw (a SHORT)");
	expect_error(db, "INSERT INTO nw VALUES (70000)", DL_EINVALID, "CAST_OVERFLOW_IN_TABLE_INSERT");
	expect_rows(db, "DESCRIBE nw", "a|smallint|NULL\n");
	expect_ok(db, "RESET spark.databricks.delta.schema.autoMerge.enabled");
}

/* spark.databricks.delta.typeWidening.allowAutomaticWidening in INSERT
 * with schema evolution (Spark's TypeEvolution mode: ALWAYS by default
 * widens integers to double and decimal too, SAME_FAMILY_TYPE only within
 * a family, NEVER nothing, any case), and a UniForm Iceberg table taking
 * only Iceberg's promotions (uniformIcebergCompatibleOnly). */
static void insert_widening_modes(void **state)
{
	session_fixture *f = *state;
	dl_sql_conn *db = f->db;
	const char *props = "TBLPROPERTIES ('delta.enableTypeWidening' = 'true')";
	char sql[600];
	snprintf(sql, sizeof sql, "CREATE TABLE m (i INT, s SMALLINT) %s", props);
	expect_ok(db, sql);
	expect_ok(db, "SET spark.databricks.delta.typeWidening.allowAutomaticWidening = never");
	expect_rows(db, "INSERT WITH SCHEMA EVOLUTION INTO m VALUES (1.5D, 7)", "1|1\n");
	expect_rows(db, "DESCRIBE m", "i|int|NULL\ns|smallint|NULL\n");
	expect_ok(db, "SET spark.databricks.delta.typeWidening.allowAutomaticWidening = SAME_FAMILY_TYPE");
	expect_rows(db, "INSERT WITH SCHEMA EVOLUTION INTO m VALUES (2.5D, 70000)", "1|1\n");
	expect_rows(db, "DESCRIBE m", "i|int|NULL\ns|int|NULL\n");
	expect_ok(db, "RESET spark.databricks.delta.typeWidening.allowAutomaticWidening");
	expect_rows(db, "INSERT WITH SCHEMA EVOLUTION INTO m VALUES (3.5D, 8)", "1|1\n");
	expect_rows(db, "DESCRIBE m", "i|double|NULL\ns|int|NULL\n");
	expect_rows(db, "SELECT i, s FROM m ORDER BY i", "1.0|7\n2.0|70000\n3.5|8\n");
	expect_error(db, "SET spark.databricks.delta.typeWidening.allowAutomaticWidening = sometimes", DL_EINVALID,
	             "INVALID_CONF_VALUE.OUT_OF_RANGE_OF_OPTIONS");
	/* UniForm: int -> bigint and a decimal's precision widen; int ->
	 * double, date -> timestamp_ntz and a decimal's scale keep the type */
	expect_ok(db, "CREATE TABLE u (a INT, b INT, c DATE, d DECIMAL(5,2), e DECIMAL(5,2)) TBLPROPERTIES "
	              "('delta.enableTypeWidening' = 'true', 'delta.enableIcebergCompatV2' = 'true', "
	              "'delta.universalFormat.enabledFormats' = 'iceberg', 'delta.enableDeletionVectors' = 'false')");
	expect_rows(db, "INSERT WITH SCHEMA EVOLUTION INTO u VALUES (5000000000, 2.0D, TIMESTAMP_NTZ'2020-01-01 00:00:00', "
	                "CAST(1.5 AS DECIMAL(7,3)), CAST(2.5 AS DECIMAL(9,2)))",
	            "1|1\n");
	expect_rows(db, "DESCRIBE u", "a|bigint|NULL\nb|int|NULL\nc|date|NULL\nd|decimal(5,2)|NULL\ne|decimal(9,2)|NULL\n");
}

static void ctas(void **state)
{
	session_fixture *f = *state;
	dl_sql_conn *db = f->db;
	expect_ok(db, "CREATE TABLE src (id BIGINT, name STRING)");
	char *h0 = run(db, "DESCRIBE HISTORY src");
	assert_non_null(strstr(h0, "|CREATE TABLE|{isManaged=true, "));
	free(h0);
	expect_rows(db, "INSERT INTO src VALUES (1, 'a'), (2, 'b'), (3, 'c')", "3|3\n");
	expect_ok(db, "CREATE TABLE c PARTITIONED BY (odd) TBLPROPERTIES ('delta.appendOnly' = 'true') "
	              "AS SELECT id, upper(name) AS n, id % 2 = 1 AS odd FROM src");
	expect_rows(db, "SELECT * FROM c ORDER BY id", "1|A|true\n2|B|false\n3|C|true\n");
	/* one commit, version 0, partitioned, with its properties */
	expect_rows(db, "SELECT count(*) FROM c VERSION AS OF 0", "3\n");
	char *h = run(db, "DESCRIBE HISTORY c");
	assert_non_null(h);
	assert_true(strncmp(h, "0|", 2) == 0);
	assert_string_equal(strchr(h, '\n'), "\n");
	/* recorded as Spark's CreateTable, managed (no LOCATION); clusterBy
	 * always, [] without clustering */
	assert_non_null(strstr(h, "|CREATE TABLE AS SELECT|{isManaged=true, description=NULL, partitionBy=[\"odd\"], "
	                          "clusterBy=[], properties={\"delta.appendOnly\":\"true\"}}|"));
	assert_non_null(strstr(h, "{numFiles=2, numOutputRows=3, numOutputBytes="));
	free(h);
	expect_rows(db, "SHOW TBLPROPERTIES c ('delta.appendOnly')", "delta.appendOnly|true\n");
	char *d = run(db, "DESCRIBE DETAIL c");
	assert_non_null(strstr(d, "|[odd]|"));
	free(d);
	expect_error(db, "CREATE TABLE c AS SELECT 1 AS x", DL_EEXISTS, "TABLE_OR_VIEW_ALREADY_EXISTS");
	expect_ok(db, "CREATE TABLE IF NOT EXISTS c AS SELECT 1 AS x");
	expect_rows(db, "SELECT count(*) FROM c", "3\n");
	expect_ok(db, "CREATE OR REPLACE TABLE src COMMENT 'letters' AS SELECT 'z' AS s");
	expect_rows(db, "SELECT * FROM src", "z\n");
	h = run(db, "DESCRIBE HISTORY src LIMIT 1");
	assert_non_null(strstr(h, "|CREATE OR REPLACE TABLE AS SELECT|{isManaged=true, description=letters, "));
	free(h);
	d = run(db, "DESCRIBE DETAIL src");
	assert_non_null(strstr(d, "|letters|"));
	free(d);
	expect_rows(db, "SELECT count(*) FROM src VERSION AS OF 1", "3\n");
	/* a failing query leaves no table and the name free */
	expect_error(db, "CREATE TABLE bad AS SELECT CAST('x' AS INT) AS v", DL_EINVALID, "CAST_INVALID_INPUT");
	expect_error(db, "DESCRIBE bad", DL_ENOTFOUND, "TABLE_OR_VIEW_NOT_FOUND");
	char path[160];
	snprintf(path, sizeof path, "%s/bad", f->warehouse);
	assert_int_not_equal(access(path, F_OK), 0);
	expect_ok(db, "CREATE TABLE bad AS SELECT 1 AS v");
	/* by path */
	char sql[256];
	snprintf(sql, sizeof sql, "CREATE TABLE delta.`%s/p` AS SELECT id FROM c WHERE id > 1", f->dir);
	expect_ok(db, sql);
	snprintf(sql, sizeof sql, "SELECT sum(id) FROM delta.`%s/p`", f->dir);
	expect_rows(db, sql, "5\n");
	snprintf(sql, sizeof sql, "DESCRIBE HISTORY delta.`%s/p`", f->dir);
	h = run(db, sql);
	assert_non_null(strstr(h, "|CREATE TABLE AS SELECT|{isManaged=false, "));
	free(h);
	expect_error(db, "CREATE TABLE x (a INT) AS SELECT 1", DL_EINVALID, "_LEGACY_ERROR_TEMP_0035");
}

static void parameters(void **state)
{
	session_fixture *f = *state;
	dl_sql_conn *db = f->db;
	expect_ok(db, "CREATE TABLE t (id BIGINT, name STRING)");
	dl_sql_stmt *ins;
	assert_int_equal(dl_sql_prepare(&ins, NULL, db, "INSERT INTO t VALUES (?, ?)"), 0);
	assert_int_equal(dl_sql_stmt_param_count(ins), 2);
	assert_string_equal(dl_sql_stmt_kind(ins), "INSERT");
	struct ArrowArrayStream st;
	char *text;
	for (int i = 1; i <= 3; i++) {
		char name[8];
		snprintf(name, sizeof name, "n%d", i);
		assert_int_equal(dl_sql_bind_int64(ins, 1, i), 0);
		assert_int_equal(dl_sql_bind_text(ins, 2, name, SIZE_MAX), 0);
		assert_int_equal(dl_sql_stmt_execute(&st, ins), 0);
		assert_int_equal(read_all(&text, &st, false), 0);
		assert_string_equal(text, "1|1\n");
		free(text);
	}
	assert_int_equal(dl_sql_bind_null(ins, 2), 0);
	assert_int_equal(dl_sql_bind_int64(ins, 1, 4), 0);
	assert_int_equal(dl_sql_stmt_execute(&st, ins), 0);
	st.release(&st);
	dl_sql_stmt_free(ins);
	dl_sql_stmt *q;
	assert_int_equal(dl_sql_prepare(&q, NULL, db, "SELECT name, ? AS flag FROM t WHERE id >= ? AND id < ? ORDER BY id"),
	                 0);
	assert_int_equal(dl_sql_stmt_param_count(q), 3);
	assert_string_equal(dl_sql_stmt_kind(q), "SELECT");
	assert_int_equal(dl_sql_bind_bool(q, 1, true), 0);
	assert_int_equal(dl_sql_bind_int64(q, 2, 2), 0);
	assert_int_equal(dl_sql_bind_double(q, 3, 3.5), 0);
	assert_int_equal(dl_sql_stmt_execute(&st, q), 0);
	assert_int_equal(read_all(&text, &st, false), 0);
	assert_string_equal(text, "n2|true\nn3|true\n");
	free(text);
	/* unbound: NULL, no rows match */
	dl_sql_stmt_free(q);
	assert_int_equal(dl_sql_prepare(&q, NULL, db, "SELECT count(*) FROM t WHERE name = ?"), 0);
	assert_int_equal(dl_sql_stmt_execute(&st, q), 0);
	assert_int_equal(read_all(&text, &st, false), 0);
	assert_string_equal(text, "0\n");
	free(text);
	assert_int_equal(dl_sql_bind_text(q, 1, "n1xx", 2), 0);
	assert_int_equal(dl_sql_stmt_execute(&st, q), 0);
	/* the stream outlives the statement */
	dl_sql_stmt_free(q);
	assert_int_equal(read_all(&text, &st, false), 0);
	assert_string_equal(text, "1\n");
	free(text);
	expect_rows(db, "SELECT ?", "NULL\n"); /* unbound: NULL */
}

static void interrupt_query(void **state)
{
	session_fixture *f = *state;
	dl_sql_conn *db = f->db;
	expect_ok(db, "CREATE TABLE t (id BIGINT)");
	expect_rows(db, "INSERT INTO t SELECT 1 UNION ALL SELECT 2", "2|2\n");
	expect_rows(db, "INSERT INTO t SELECT 3", "1|1\n");
	struct ArrowArrayStream st;
	assert_int_equal(dl_sql_execute(&st, db, "SELECT id FROM t"), 0);
	struct ArrowArray b;
	memset(&b, 0, sizeof b);
	assert_int_equal(st.get_next(&st, &b), 0);
	assert_non_null(b.release);
	b.release(&b);
	dl_sql_interrupt(db);
	memset(&b, 0, sizeof b);
	assert_int_not_equal(st.get_next(&st, &b), 0);
	assert_null(b.release);
	assert_non_null(strstr(st.get_last_error(&st), "interrupted"));
	st.release(&st);
	/* the next statement starts with the flag cleared */
	dl_sql_stmt *ins;
	assert_int_equal(dl_sql_prepare(&ins, NULL, db, "INSERT INTO t SELECT id + 10 FROM t"), 0);
	assert_int_equal(dl_sql_stmt_execute(&st, ins), 0);
	st.release(&st);
	dl_sql_stmt_free(ins);
	expect_rows(db, "SELECT count(*) FROM t", "6\n");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test_setup_teardown(queries, fixture_setup, fixture_teardown),
	    cmocka_unit_test_setup_teardown(inserts, fixture_setup, fixture_teardown),
	    cmocka_unit_test_setup_teardown(insert_type_widening, fixture_setup, fixture_teardown),
	    cmocka_unit_test_setup_teardown(insert_widening_modes, fixture_setup, fixture_teardown),
	    cmocka_unit_test_setup_teardown(ctas, fixture_setup, fixture_teardown),
	    cmocka_unit_test_setup_teardown(parameters, fixture_setup, fixture_teardown),
	    cmocka_unit_test_setup_teardown(interrupt_query, fixture_setup, fixture_teardown),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
