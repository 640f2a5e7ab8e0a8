/* Syntax errors name Spark's error class and the place: line (from 1),
 * column (from 0, Spark's "pos"), the line itself and a caret under the
 * offending token; script splitting respects quotes and comments. */
#include "sql_test_util.h"

static void expect_error(const char *sql, const char *want)
{
	dl_sql_script *s = NULL;
	int rc = dl_sql_parse(&s, sql);
	if (rc == 0 || strcmp(dl_error_last()->message, want) != 0)
		fprintf(stderr, "input: %s\n  want: %s\n  got (%d): %s\n", sql, want, rc, rc ? dl_error_last()->message : "");
	assert_int_equal(rc, DL_EINVALID);
	assert_null(s);
	assert_string_equal(dl_error_last()->message, want);
}

static void test_positions(void **state)
{
	(void)state;
	expect_error("SELECT * FORM t", "[PARSE_SYNTAX_ERROR] Syntax error at or near 'FORM': line 1, column 9\n"
	                                "SELECT * FORM t\n"
	                                "         ^");
	/* the line of the error in a multi-line script, after other statements */
	expect_error("SELECT 1;\nSELECT a\n  FROM t WHERE a >;",
	             "[PARSE_SYNTAX_ERROR] Syntax error at or near end of input: line 3, column 18\n"
	             "  FROM t WHERE a >;\n"
	             "                  ^");
	/* errors inside expressions are placed the same way */
	expect_error("SELECT a +* 2 FROM t", "[PARSE_SYNTAX_ERROR] Syntax error at or near '*': line 1, column 10\n"
	                                     "SELECT a +* 2 FROM t\n"
	                                     "          ^");
	/* inside a subquery inside an expression */
	expect_error("SELECT * FROM t WHERE x IN (SELECT y FROM u WHERE)",
	             "[PARSE_SYNTAX_ERROR] Syntax error at or near ')': line 1, column 49\n"
	             "SELECT * FROM t WHERE x IN (SELECT y FROM u WHERE)\n"
	             "                                                 ^");
	expect_error("MERGE INTO t USING s ON t.a = s.a WHEN MATCHED THEN INSERT *",
	             "[PARSE_SYNTAX_ERROR] Syntax error at or near 'INSERT': line 1, column 52\n"
	             "MERGE INTO t USING s ON t.a = s.a WHEN MATCHED THEN INSERT *\n"
	             "                                                    ^");
	expect_error("CREATE TABLE t (a INTEGR)", "[PARSE_SYNTAX_ERROR] Syntax error at or near 'INTEGR': line 1, column 18\n"
	                                          "CREATE TABLE t (a INTEGR)\n"
	                                          "                  ^");
	expect_error("VACUUM t RETAIN 1 DAYS", "[PARSE_SYNTAX_ERROR] Syntax error at or near 'DAYS': line 1, column 18\n"
	                                       "VACUUM t RETAIN 1 DAYS\n"
	                                       "                  ^");
	expect_error("SELECT 1 garbage garbage", "[PARSE_SYNTAX_ERROR] Syntax error at or near 'garbage': line 1, column 17\n"
	                                         "SELECT 1 garbage garbage\n"
	                                         "                 ^");
	expect_error("FROBNICATE t", "[PARSE_SYNTAX_ERROR] Syntax error at or near 'FROBNICATE': line 1, column 0\n"
	                             "FROBNICATE t\n"
	                             "^");
}

static void test_lexical_errors(void **state)
{
	(void)state;
	dl_sql_script *s = NULL;
	assert_int_equal(dl_sql_parse(&s, "SELECT 'abc"), DL_EINVALID);
	assert_non_null(strstr(dl_error_last()->message, "[PARSE_SYNTAX_ERROR]"));
	assert_non_null(strstr(dl_error_last()->message, "unterminated string"));
	assert_int_equal(dl_sql_parse(&s, "SELECT 1 /* open"), DL_EINVALID);
	assert_non_null(strstr(dl_error_last()->message, "unterminated comment"));
	assert_int_equal(dl_sql_parse(&s, "SELECT `a FROM t"), DL_EINVALID);
	assert_int_equal(dl_sql_parse(&s, "SELECT DECIMAL(50, 2) '1'"), DL_EINVALID);
	assert_int_equal(dl_sql_parse(&s, "SELECT CAST(a AS DECIMAL(50, 2))"), DL_EINVALID);
	assert_non_null(strstr(dl_error_last()->message, "DECIMAL(50,2)"));
	assert_non_null(strstr(dl_error_last()->message, "line 1"));
}

static void test_depth_limit(void **state)
{
	(void)state;
	/* nesting of queries in expressions in queries is bounded, not a crash */
	size_t n = 3000;
	char *q = malloc(n * 16 + 64);
	assert_non_null(q);
	strcpy(q, "SELECT ");
	for (size_t i = 0; i < n; i++) strcat(q, "(SELECT ");
	strcat(q, "1");
	for (size_t i = 0; i < n; i++) strcat(q, ")");
	dl_sql_script *s = NULL;
	assert_int_equal(dl_sql_parse(&s, q), DL_EINVALID);
	assert_non_null(strstr(dl_error_last()->message, "nested too deeply"));
	strcpy(q, "SELECT * FROM ");
	for (size_t i = 0; i < n; i++) strcat(q, "(");
	strcat(q, "t");
	assert_int_equal(dl_sql_parse(&s, q), DL_EINVALID);
	free(q);
}

static void test_split(void **state)
{
	(void)state;
	const char *text = "SELECT 'a;b', \"c;\\\"d\" FROM `x;y`; -- c;d\n"
	                   "/* e;f */ SELECT 2;;  ;\nSELECT 3";
	dl_sql_span *sp;
	size_t n;
	assert_int_equal(dl_sql_split(&sp, &n, text, strlen(text)), 0);
	assert_int_equal(n, 5);
	assert_memory_equal(text + sp[0].start, "SELECT 'a;b', \"c;\\\"d\" FROM `x;y`", sp[0].end - sp[0].start);
	free(sp);
	dl_sql_script *s;
	assert_int_equal(dl_sql_parse(&s, text), 0);
	assert_int_equal(dl_sql_script_count(s), 3);
	const sql_stmt *st = dl_sql_script_stmt(s, 1);
	assert_memory_equal(text + st->pos, "SELECT 2", 8);
	assert_string_equal(STMT(s)->query->select->from->name.parts[0], "x;y");
	dl_sql_script_free(s);
	/* nothing but comments and separators is an empty script */
	assert_int_equal(dl_sql_parse(&s, " ; -- x\n ;"), 0);
	assert_int_equal(dl_sql_script_count(s), 0);
	dl_sql_script_free(s);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_positions),
	    cmocka_unit_test(test_lexical_errors),
	    cmocka_unit_test(test_depth_limit),
	    cmocka_unit_test(test_split),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
