/* The SQL session through the public API: connections, catalog
 * statements, SHOW / DESCRIBE, SET, errors with Spark's classes, prepared
 * statements, statement ends and interrupt. */
#include "session_test_util.h"

static void catalog_statements(void **state)
{
	session_fixture *f = *state;
	dl_sql_conn *db = f->db;
	assert_string_equal(dl_sql_current_schema(db), "default");
	expect_rows(db, "SHOW SCHEMAS", "default\n");
	expect_ok(db, "CREATE SCHEMA sales");
	expect_ok(db, "CREATE SCHEMA IF NOT EXISTS sales");
	expect_error(db, "CREATE SCHEMA sales", DL_EEXISTS, "SCHEMA_ALREADY_EXISTS");
	expect_rows(db, "SHOW SCHEMAS", "default\nsales\n");
	expect_rows(db, "SHOW SCHEMAS LIKE 'sa*'", "sales\n");
	expect_ok(db, "USE sales");
	assert_string_equal(dl_sql_current_schema(db), "sales");
	expect_error(db, "USE nope", DL_ENOTFOUND, "SCHEMA_NOT_FOUND");
	expect_ok(db, "CREATE TABLE orders (id BIGINT NOT NULL, amount DOUBLE COMMENT 'in EUR', day DATE) "
	              "USING DELTA PARTITIONED BY (day) TBLPROPERTIES ('delta.appendOnly' = 'true') COMMENT 'all orders'");
	expect_error(db, "CREATE TABLE orders (id INT)", DL_EEXISTS, "TABLE_OR_VIEW_ALREADY_EXISTS");
	expect_ok(db, "CREATE TABLE IF NOT EXISTS orders (id INT)");
	expect_ok(db, "CREATE TABLE default.other (x STRING)");
	expect_rows(db, "SHOW TABLES", "sales|orders|false\n");
	expect_rows(db, "SHOW TABLES IN default", "default|other|false\n");
	expect_rows(db, "SHOW TABLES LIKE 'ord*|zzz'", "sales|orders|false\n");
	expect_rows(db, "SHOW TABLES LIKE 'x*'", "");
	expect_rows(db, "SHOW COLUMNS IN orders", "id\namount\nday\n");
	expect_rows(db, "SHOW COLUMNS IN other IN default", "x\n");
	expect_error(db, "SHOW COLUMNS IN other", DL_ENOTFOUND, "TABLE_OR_VIEW_NOT_FOUND");
	expect_ok(db, "CREATE SCHEMA IF NOT EXISTS sales COMMENT 'c' WITH DBPROPERTIES ('a' = 'b')");
	assert_int_equal(dl_sql_execute(&(struct ArrowArrayStream){0}, db, "CREATE SCHEMA s9 LOCATION '/x'"),
	                 DL_EUNSUPPORTED);
	expect_rows(db, "DESCRIBE orders",
	            "id|bigint|NULL\namount|double|in EUR\nday|date|NULL\n# Partition Information||\n"
	            "# col_name|data_type|comment\nday|date|NULL\n");
	expect_rows(db, "SHOW TBLPROPERTIES orders ('delta.appendOnly')", "delta.appendOnly|true\n");
	expect_rows(db, "SHOW TBLPROPERTIES orders ('nope')",
	            "nope|Table spark_catalog.sales.orders does not have property: nope\n");
	char *ddl = run(db, "SHOW CREATE TABLE sales.orders");
	assert_non_null(ddl);
	assert_non_null(strstr(ddl, "CREATE TABLE spark_catalog.sales.orders (\n  id BIGINT NOT NULL,\n"));
	assert_non_null(strstr(ddl, "amount DOUBLE COMMENT 'in EUR'"));
	assert_non_null(strstr(ddl, "PARTITIONED BY (day)"));
	assert_non_null(strstr(ddl, "COMMENT 'all orders'"));
	assert_null(strstr(ddl, "LOCATION")); /* managed */
	free(ddl);
	char *hist = run(db, "DESCRIBE HISTORY orders");
	assert_non_null(hist);
	assert_true(strncmp(hist, "0|", 2) == 0);
	assert_non_null(strstr(hist, "|CREATE TABLE|"));
	assert_non_null(strstr(hist, "|{isManaged=")); /* operationParameters is a map */
	free(hist);
	char *detail = run(db, "DESCRIBE DETAIL orders");
	assert_non_null(detail);
	assert_true(strncmp(detail, "delta|", 6) == 0);
	assert_non_null(strstr(detail, "|spark_catalog.sales.orders|all orders|"));
	assert_non_null(strstr(detail, "|[day]|"));
	free(detail);
	/* LIKE: the source's columns, partitioning, properties, description */
	expect_ok(db, "CREATE TABLE copy LIKE orders TBLPROPERTIES ('my.k' = 'v')");
	expect_rows(db, "SHOW COLUMNS IN copy", "id\namount\nday\n");
	expect_rows(db, "SHOW TBLPROPERTIES copy", "delta.appendOnly|true\nmy.k|v\ndelta.minReaderVersion|1\n"
	                                          "delta.minWriterVersion|2\n");
	char *cd = run(db, "DESCRIBE DETAIL copy");
	assert_non_null(strstr(cd, "|spark_catalog.sales.copy|all orders|"));
	assert_non_null(strstr(cd, "|[day]|"));
	free(cd);
	expect_rows(db, "SELECT count(*) FROM copy", "0\n");
	expect_error(db, "CREATE TABLE copy2 LIKE nope", DL_ENOTFOUND, "TABLE_OR_VIEW_NOT_FOUND");
	/* ALTER TABLE RENAME TO / SET LOCATION on catalog tables */
	expect_rows(db, "INSERT INTO copy VALUES (1, 2.5, DATE'2024-01-01')", "1|1\n");
	expect_error(db, "ALTER TABLE copy RENAME TO orders", DL_EEXISTS, "TABLE_OR_VIEW_ALREADY_EXISTS");
	expect_error(db, "ALTER TABLE copy RENAME TO default.copy9", DL_EINVALID, "_LEGACY_ERROR_TEMP_1073");
	expect_ok(db, "ALTER TABLE copy RENAME TO copy9");
	expect_rows(db, "SELECT id FROM copy9", "1\n");
	expect_error(db, "SELECT id FROM copy", DL_ENOTFOUND, "TABLE_OR_VIEW_NOT_FOUND");
	char *cd9 = run(db, "DESCRIBE DETAIL copy9");
	assert_non_null(strstr(cd9, "|spark_catalog.sales.copy9|"));
	free(cd9);
	expect_ok(db, "ALTER TABLE copy9 RENAME TO copy");
	/* a path table of the same schema and partitioning, one of another */
	char sql[512];
	snprintf(sql, sizeof sql, "CREATE TABLE delta.`%s/moved` (id BIGINT NOT NULL, amount DOUBLE COMMENT "
	                          "'in EUR', day DATE) USING DELTA PARTITIONED BY (day)", f->dir);
	expect_ok(db, sql);
	snprintf(sql, sizeof sql, "CREATE TABLE delta.`%s/unlike` (id BIGINT) USING DELTA", f->dir);
	expect_ok(db, sql);
	snprintf(sql, sizeof sql, "ALTER TABLE copy SET LOCATION '%s/unlike'", f->dir);
	expect_error(db, sql, DL_EINVALID, "DELTA_SET_LOCATION_SCHEMA_MISMATCH");
	expect_rows(db, "SELECT count(*) FROM copy", "1\n");
	snprintf(sql, sizeof sql, "ALTER TABLE copy SET LOCATION '%s/moved'", f->dir);
	expect_ok(db, sql);
	expect_rows(db, "SELECT count(*) FROM copy", "0\n"); /* it reads the moved-to table */
	expect_error(db, "ALTER TABLE copy SET LOCATION '/nonexistent/dl_no_table'", DL_ENOTFOUND,
	             "DELTA_MISSING_DELTA_TABLE");
	expect_ok(db, "DROP TABLE copy");
	expect_error(db, "DROP SCHEMA sales", DL_EINVALID, "SCHEMA_NOT_EMPTY");
	expect_ok(db, "DROP TABLE orders");
	expect_error(db, "DROP TABLE orders", DL_ENOTFOUND, "TABLE_OR_VIEW_NOT_FOUND");
	expect_ok(db, "DROP TABLE IF EXISTS orders");
	expect_error(db, "DESCRIBE orders", DL_ENOTFOUND, "TABLE_OR_VIEW_NOT_FOUND");
	expect_ok(db, "DROP SCHEMA sales CASCADE");
	assert_string_equal(dl_sql_current_schema(db), "default");
	expect_ok(db, "DROP SCHEMA IF EXISTS sales");
}

static void path_tables(void **state)
{
	session_fixture *f = *state;
	char sql[512], path[128];
	snprintf(path, sizeof path, "%s/t1", f->dir);
	snprintf(sql, sizeof sql,
	         "CREATE TABLE delta.`%s` (id BIGINT GENERATED ALWAYS AS IDENTITY, v STRING DEFAULT 'x', "
	         "g INT GENERATED ALWAYS AS (length(v)))",
	         path);
	expect_ok(f->db, sql);
	snprintf(sql, sizeof sql, "CREATE TABLE delta.`%s` (a INT)", path);
	expect_error(f->db, sql, DL_EEXISTS, "DELTA_TABLE_ALREADY_EXISTS");
	snprintf(sql, sizeof sql, "SHOW CREATE TABLE delta.`%s`", path);
	char *ddl = run(f->db, sql);
	assert_non_null(ddl);
	assert_non_null(strstr(ddl, "GENERATED ALWAYS AS IDENTITY (START WITH 1 INCREMENT BY 1)"));
	assert_non_null(strstr(ddl, "GENERATED ALWAYS AS (length(v))"));
	assert_non_null(strstr(ddl, "DEFAULT 'x'"));
	assert_non_null(strstr(ddl, "LOCATION '"));
	free(ddl);
	/* CREATE OR REPLACE: a new version, the history kept */
	snprintf(sql, sizeof sql, "CREATE OR REPLACE TABLE delta.`%s` (a INT, b STRING)", path);
	expect_ok(f->db, sql);
	snprintf(sql, sizeof sql, "SHOW COLUMNS IN delta.`%s`", path);
	expect_rows(f->db, sql, "a\nb\n");
	snprintf(sql, sizeof sql, "DESCRIBE HISTORY delta.`%s` LIMIT 1", path);
	char *h = run(f->db, sql);
	assert_non_null(h);
	assert_true(strncmp(h, "1|", 2) == 0);
	assert_string_equal(strchr(h, '\n'), "\n"); /* one row */
	free(h);
	/* time travel on a statement's target */
	snprintf(sql, sizeof sql, "SHOW COLUMNS IN delta.`%s` VERSION AS OF 0", path);
	expect_rows(f->db, sql, "id\nv\ng\n");
	snprintf(sql, sizeof sql, "SHOW COLUMNS IN delta.`%s@v0`", path);
	expect_rows(f->db, sql, "id\nv\ng\n");
	snprintf(sql, sizeof sql, "DESCRIBE delta.`%s` VERSION AS OF 7", path);
	expect_error(f->db, sql, DL_ENOTFOUND, "DELTA_VERSION_NOT_FOUND");
	/* missing tables */
	snprintf(sql, sizeof sql, "DESCRIBE delta.`%s/nope`", f->dir);
	expect_error(f->db, sql, DL_ENOTFOUND, "DELTA_PATH_DOES_NOT_EXIST");
	snprintf(sql, sizeof sql, "DESCRIBE delta.`%s`", f->dir);
	expect_error(f->db, sql, DL_ENOTFOUND, "DELTA_MISSING_DELTA_TABLE");
	/* external tables registered at a location keep their data on DROP */
	snprintf(sql, sizeof sql, "CREATE TABLE ext LOCATION '%s'", path);
	expect_ok(f->db, sql);
	expect_rows(f->db, "SHOW COLUMNS IN ext", "a\nb\n");
	ddl = run(f->db, "DESCRIBE EXTENDED ext");
	assert_non_null(ddl);
	assert_non_null(strstr(ddl, "Type|EXTERNAL|"));
	free(ddl);
	expect_ok(f->db, "DROP TABLE ext");
	snprintf(sql, sizeof sql, "%s/_delta_log/00000000000000000001.json", path);
	assert_int_equal(access(sql, F_OK), 0);
}

static void settings(void **state)
{
	session_fixture *f = *state;
	dl_sql_conn *db = f->db;
	expect_ok(db, "SET memory_limit = '256MB'");
	expect_rows(db, "SET memory_limit", "memory_limit|268435456\n");
	expect_ok(db, "SET memory_limit = 1g");
	expect_rows(db, "SET memory_limit", "memory_limit|1073741824\n");
	expect_error(db, "SET memory_limit = 'lots'", DL_EINVALID, "INVALID_CONF_VALUE");
	expect_ok(db, "SET spark.sql.session.timeZone = America/Los_Angeles");
	expect_rows(db, "SET spark.sql.session.timeZone", "spark.sql.session.timeZone|America/Los_Angeles\n");
	expect_error(db, "SET spark.sql.session.timeZone = 'Mars/Olympus'", DL_EINVALID, "INVALID_CONF_VALUE.TIME_ZONE");
	expect_ok(db, "SET my.key = 'v 1'");
	expect_rows(db, "SET my.key", "my.key|v 1\n");
	expect_rows(db, "SET other.key", "other.key|<undefined>\n");
	char *all = run(db, "SET");
	assert_non_null(all);
	assert_non_null(strstr(all, "memory_limit|1073741824\n"));
	assert_non_null(strstr(all, "my.key|v 1\n"));
	free(all);
	expect_ok(db, "RESET my.key");
	expect_rows(db, "SET my.key", "my.key|<undefined>\n");
	expect_ok(db, "RESET");
	expect_rows(db, "SET spark.sql.session.timeZone", "spark.sql.session.timeZone|UTC\n");
}

static void errors_and_unsupported(void **state)
{
	session_fixture *f = *state;
	struct ArrowArrayStream st;
	assert_int_equal(dl_sql_execute(&st, f->db, "SELECT * FORM t"), DL_EINVALID);
	assert_null(st.release);
	assert_string_equal(dl_error_last()->klass, "PARSE_SYNTAX_ERROR");
	assert_non_null(strstr(dl_error_last()->message, "line 1, column 9\nSELECT * FORM t\n         ^"));
	/* carets count in the caller's text, also after earlier statements */
	assert_int_equal(dl_sql_execute(&st, f->db, "SHOW SCHEMAS;\nSELECT * FORM t"), DL_EINVALID);
	assert_non_null(strstr(dl_error_last()->message, "line 2"));
	/* ALTER TABLE's column forms run (docs/ALTER.md): here on a missing table */
	assert_int_equal(dl_sql_execute(&st, f->db, "ALTER TABLE t ADD COLUMNS (x INT)"), DL_ENOTFOUND);
	/* the first error stops a script: the table after it is not created */
	assert_int_equal(dl_sql_execute(&st, f->db, "CREATE SCHEMA s1; USE nope; CREATE SCHEMA s2"), DL_ENOTFOUND);
	expect_rows(f->db, "SHOW SCHEMAS", "default\ns1\n");
	expect_error(f->db, "CREATE TABLE t1 (a INT) USING parquet", DL_EUNSUPPORTED, "UNSUPPORTED_DATASOURCE");
	expect_error(f->db, "CREATE TABLE t1", DL_EINVALID, "DELTA_SCHEMA_NOT_PROVIDED");
	expect_error(f->db, "REPLACE TABLE t1 (a INT)", DL_ENOTFOUND, "DELTA_CANNOT_REPLACE_MISSING_TABLE");
}

static void prepared_statements(void **state)
{
	session_fixture *f = *state;
	const char *script = "  -- a comment\n SHOW SCHEMAS ;\n\nSET k = ? ; /* end */ ";
	dl_sql_stmt *st;
	const char *tail;
	assert_int_equal(dl_sql_prepare(&st, &tail, f->db, script), 0);
	assert_non_null(st);
	assert_string_equal(dl_sql_stmt_kind(st), "SHOW SCHEMAS");
	assert_string_equal(dl_sql_stmt_text(st), "SHOW SCHEMAS");
	assert_int_equal(dl_sql_stmt_param_count(st), 0);
	assert_int_equal(dl_sql_bind_int64(st, 1, 5), DL_EINVALID);
	dl_sql_stmt_free(st);
	assert_int_equal(dl_sql_prepare(&st, &tail, f->db, tail), 0);
	assert_non_null(st);
	assert_string_equal(dl_sql_stmt_kind(st), "SET");
	dl_sql_stmt_free(st);
	assert_int_equal(dl_sql_prepare(&st, &tail, f->db, tail), 0);
	assert_null(st);
	assert_string_equal(tail, "");
	/* parameters: numbered in order, unbound ones NULL, rebound between runs */
	char path[128], sql[256];
	snprintf(path, sizeof path, "%s/p", f->dir);
	snprintf(sql, sizeof sql, "CREATE TABLE delta.`%s` (a INT) ", path);
	expect_ok(f->db, sql);
	snprintf(sql, sizeof sql, "SHOW COLUMNS IN delta.`%s` VERSION AS OF ?", path);
	assert_int_equal(dl_sql_prepare(&st, NULL, f->db, sql), 0);
	assert_int_equal(dl_sql_stmt_param_count(st), 1);
	struct ArrowArrayStream rs;
	assert_int_equal(dl_sql_stmt_execute(&rs, st), DL_EINVALID); /* NULL version */
	assert_int_equal(dl_sql_bind_int64(st, 1, 0), 0);
	assert_int_equal(dl_sql_stmt_execute(&rs, st), 0);
	char *text;
	assert_int_equal(read_all(&text, &rs, false), 0);
	assert_string_equal(text, "a\n");
	free(text);
	assert_int_equal(dl_sql_bind_text(st, 1, "1", SIZE_MAX), 0); /* '1' casts to version 1: none */
	assert_int_equal(dl_sql_stmt_execute(&rs, st), DL_ENOTFOUND);
	assert_int_equal(dl_sql_bind_int64(st, 2, 0), DL_EINVALID);
	dl_sql_stmt_free(st);
	assert_int_equal(dl_sql_prepare(&st, NULL, f->db, "  "), 0);
	assert_null(st);
}

static void statement_ends(void **state)
{
	(void)state;
	assert_true(dl_sql_complete("SELECT 1;"));
	assert_true(dl_sql_complete("SELECT 1; -- done\n"));
	assert_true(dl_sql_complete("SELECT 1; SELECT 2 ;  "));
	assert_false(dl_sql_complete("SELECT 1"));
	assert_false(dl_sql_complete("SELECT ';"));
	assert_false(dl_sql_complete("SELECT `a;"));
	assert_false(dl_sql_complete("SELECT 1 /* ; */"));
	assert_false(dl_sql_complete("SELECT 1; SELECT 2"));
	assert_false(dl_sql_complete("SELECT 1 -- ;"));
	assert_false(dl_sql_complete(""));
}

static void interrupt(void **state)
{
	session_fixture *f = *state;
	struct ArrowArrayStream st;
	assert_int_equal(dl_sql_execute(&st, f->db, "SHOW SCHEMAS"), 0);
	dl_sql_interrupt(f->db);
	struct ArrowArrayStream *s = &st;
	struct ArrowArray b;
	memset(&b, 0, sizeof b);
	assert_int_not_equal(s->get_next(s, &b), 0);
	assert_null(b.release);
	assert_non_null(strstr(s->get_last_error(s), "interrupted"));
	s->release(s);
	/* the next statement starts afresh */
	expect_rows(f->db, "SHOW SCHEMAS", "default\n");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test_setup_teardown(catalog_statements, fixture_setup, fixture_teardown),
	    cmocka_unit_test_setup_teardown(path_tables, fixture_setup, fixture_teardown),
	    cmocka_unit_test_setup_teardown(settings, fixture_setup, fixture_teardown),
	    cmocka_unit_test_setup_teardown(errors_and_unsupported, fixture_setup, fixture_teardown),
	    cmocka_unit_test_setup_teardown(prepared_statements, fixture_setup, fixture_teardown),
	    cmocka_unit_test_setup_teardown(statement_ends, fixture_setup, fixture_teardown),
	    cmocka_unit_test_setup_teardown(interrupt, fixture_setup, fixture_teardown),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
