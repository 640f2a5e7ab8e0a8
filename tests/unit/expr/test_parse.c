/* Parser and printer: precedence, every syntax form, errors with
 * positions, and the property that print(parse(x)) is a fixpoint. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>
#include <stdlib.h>
#include <string.h>
#include "expr/ast.h"
#include "expr_test_util.h"
#include "util/error.h"

static char *sql_of(const char *text)
{
	dl_expr *e;
	if (dl_expr_parse(&e, text) < 0) return NULL;
	dl_buf b = DL_BUF_INIT;
	dl_expr_sql(e, &b);
	dl_expr_free(e);
	return dl_buf_detach(&b, NULL);
}

/* text -> canonical text */
static const char *const canon[][2] = {
    {"a > 5 AND b < 10.0", "(a > 5) AND (b < 10.0)"},
    {"a OR b AND c", "a OR (b AND c)"},
    {"NOT a = 1", "NOT (a = 1)"},
    {"1 + 2 * 3", "1 + (2 * 3)"},
    {"(1 + 2) * 3", "(1 + 2) * 3"},
    {"1 - 2 - 3", "1 - 2 - 3"},
    {"1 - (2 - 3)", "1 - (2 - 3)"},
    {"a * b / c % d div e", "a * b / c % d div e"},
    {"a * (b / c)", "a * (b / c)"},
    {"a = b = c", "a = b = c"},
    {"a | b ^ c & d", "a | (b ^ (c & d))"},
    {"a || b + c", "a || b + c"},
    {"a = b IS NULL", "(a = b) IS NULL"},
    {"x BETWEEN 1 AND 2 AND y", "(x BETWEEN 1 AND 2) AND y"},
    {"x NOT IN (1, 2, 3)", "x NOT IN (1, 2, 3)"},
    {"s NOT LIKE 'a%' ESCAPE '!'", "s NOT LIKE 'a%' ESCAPE '!'"},
    {"s ilike 'A_'", "s ILIKE 'A_'"},
    {"s regexp '^a'", "s RLIKE '^a'"},
    {"x IS NOT TRUE", "x IS NOT TRUE"},
    {"x is unknown", "x IS NULL"},
    {"CASE x WHEN 1 THEN 'a' ELSE 'b' END", "CASE x WHEN 1 THEN 'a' ELSE 'b' END"},
    {"case when a then 1 end", "CASE WHEN a THEN 1 END"},
    {"cast(a as decimal(10, 2))", "CAST(a AS DECIMAL(10,2))"},
    {"try_cast(a AS bigint)", "TRY_CAST(a AS BIGINT)"},
    {"a::int", "CAST(a AS INT)"},
    {"CAST(a AS ARRAY<STRUCT<x: INT, y: STRING>>)", "CAST(a AS ARRAY<STRUCT<x: INT, y: STRING>>)"},
    {"t.c", "t.c"},
    {"`a b`.`c``d`", "`a b`.`c``d`"},
    {"m['k']", "m['k']"},
    {"a[0].f", "a[0].f"},
    {"f(a)[1]", "f(a)[1]"},
    {"UPPER(s)", "upper(s)"},
    {"count(*)", "count(*)"},
    {"5L + 5S + 5Y + 1.5D + 1.5F + 1.5BD + 7BD", "5L + 5S + 5Y + 1.5D + 1.5F + 1.5 + 7BD"},
    {"1e10", "1.0E10D"},
    {"-5", "-5"},
    {"- a", "-a"},
    {"-(-5)", "-(-5)"},
    {"-2147483648", "-2147483648"},
    {"-9223372036854775808", "-9223372036854775808"},
    {"~~a", "~~a"},
    {"NOT NOT a", "NOT NOT a"},
    {"- -a", "-(-a)"},
    {"~(NOT a)", "~(NOT a)"},
    {"(2).a", "(2).a"},
    {"'\\u0000'", "'\\u0000'"},
    {"'it''s'", NULL},
    {"'it\\'s'", "'it\\'s'"},
    {"\"dq\"", "'dq'"},
    {"'a\\nb'", "'a\\nb'"},
    {"X'0aff'", "X'0AFF'"},
    {"DATE '2020-01-01'", "DATE '2020-01-01'"},
    {"TIMESTAMP '2020-01-01 10:00:00'", "TIMESTAMP '2020-01-01 10:00:00'"},
    {"TIMESTAMP '2020-01-01 10:00:00+02:00'", "TIMESTAMP '2020-01-01 08:00:00Z'"},
    {"TIMESTAMP_NTZ '2020-01-01 10:00:00.5'", "TIMESTAMP_NTZ '2020-01-01 10:00:00.5'"},
    {"INTERVAL 7 DAYS", "INTERVAL '7' DAY"},
    {"INTERVAL '1' YEAR '2' MONTH", "INTERVAL '14' MONTH"},
    {"INTERVAL 90 MINUTES", "INTERVAL '5400000000' MICROSECOND"},
    {"a <=> b", "a <=> b"},
    {"a == b", "a = b"},
    {"a <> b", "a != b"},
    {"! a", "NOT a"},
    {"a div b", "a div b"},
    {"a is distinct from b", "NOT (a <=> b)"},
    {"NULL", "NULL"},
    {"true and false", "true AND false"},
    {"`select`", "`select`"},
    {"rlike(s, 'x')", "rlike(s, 'x')"},
    {"a -- comment\n + 1", "a + 1"},
    {"a /* c */ + 1", "a + 1"},
    {"EXTRACT(YEAR FROM ts)", "year(ts)"},
    {"extract(dow from ts)", "dayofweek(ts)"},
    {"date_part('MONTH', ts)", "month(ts)"},
    {"SUBSTRING(s FROM 2 FOR 3)", "substring(s, 2, 3)"},
    {"substr(s FROM 2)", "substring(s, 2)"},
    {"SUBSTRING(s, 1, 2)", "substring(s, 1, 2)"},
    {"POSITION('a' IN s)", "locate('a', s)"},
    {"TRIM(BOTH 'x' FROM s)", "trim('x', s)"},
    {"TRIM(LEADING FROM s)", "ltrim(s)"},
    {"trim(TRAILING 'ab' FROM s)", "rtrim('ab', s)"},
    {"TRIM('x' FROM s)", "trim('x', s)"},
    {"trim(s)", "trim(s)"},
    {"CURRENT_DATE", "current_date()"},
    {"current_timestamp + INTERVAL 1 DAY", "current_timestamp() + INTERVAL '1' DAY"},
    {"`current_date`", "`current_date`"},
};

static void test_canonical(void **state)
{
	(void)state;
	for (size_t i = 0; i < sizeof canon / sizeof canon[0]; i++) {
		char *got = sql_of(canon[i][0]);
		if (!canon[i][1]) {
			/* doubled quotes are not Spark syntax: two adjacent strings */
			assert_non_null(got);
			free(got);
			continue;
		}
		if (!got || strcmp(got, canon[i][1]) != 0)
			print_message("input: %s\n  want: %s\n  got:  %s (%s)\n", canon[i][0], canon[i][1], got ? got : "(error)",
			              dl_error_last()->message);
		assert_non_null(got);
		assert_string_equal(got, canon[i][1]);
		free(got);
	}
}

static const char *const errors[][2] = {
    {"1 +", "syntax error at position 3 near end of input: expected an expression"},
    {"a FROM b", "syntax error at position 2 near 'FROM': expected end of input or an operator"},
    {"(a", "position 2"},
    {"'abc", "unterminated string literal"},
    {"`abc", "unterminated quoted identifier"},
    {"a ; b", "unexpected character ';'"},
    {"CAST(a AS foo)", "expected a data type"},
    {"CAST(a AS DECIMAL(50, 2))", "DECIMAL(50,2) is invalid"},
    {"a IN (SELECT 1)", "subqueries are not supported"},
    {"CASE END", "expected WHEN"},
    {"a NOT b", "expected end of input or an operator"},
    {"x LIKE 'a' ESCAPE 'ab'", "one character"},
    {"X'abc'", "even number"},
    {"DATE '2020-13-01'", "cannot parse '2020-13-01' as a DATE literal"},
    {"INTERVAL 1 FORTNIGHT", "invalid interval unit"},
    {"128Y", "out of range"},
    {"1.5L", "integer suffix"},
    {"", "expected an expression"},
    {"a b", "near 'b'"},
};

static void test_errors(void **state)
{
	(void)state;
	for (size_t i = 0; i < sizeof errors / sizeof errors[0]; i++) {
		dl_expr *e = NULL;
		int rc = dl_expr_parse(&e, errors[i][0]);
		if (rc != DL_EINVALID || !strstr(dl_error_last()->message, errors[i][1]))
			print_message("input: %s\n  want error containing: %s\n  got: %d %s\n", errors[i][0], errors[i][1], rc,
			              dl_error_last()->message);
		assert_int_equal(rc, DL_EINVALID);
		assert_non_null(strstr(dl_error_last()->message, errors[i][1]));
		assert_null(e);
	}
}

static void test_deep_nesting(void **state)
{
	(void)state;
	/* hostile depth must fail cleanly, not overflow the stack */
	size_t n = 100000;
	char *s = malloc(2 * n + 2);
	memset(s, '(', n);
	s[n] = '1';
	memset(s + n + 1, ')', n);
	s[2 * n + 1] = 0;
	dl_expr *e = NULL;
	assert_int_equal(dl_expr_parse(&e, s), DL_EINVALID);
	assert_non_null(strstr(dl_error_last()->message, "nested too deeply"));
	memset(s, '-', n);
	s[n] = '1';
	s[n + 1] = 0;
	assert_int_equal(dl_expr_parse(&e, s), DL_EINVALID);
	free(s);
}

/* n terms joined by op: "t0 op t1 op ..." with t_i = term(i). */
static char *chain_text(int n, const char *op, const char *fmt)
{
	dl_buf b = DL_BUF_INIT;
	for (int i = 0; i < n; i++) {
		if (i) dl_buf_puts(&b, op);
		dl_buf_printf(&b, fmt, i);
	}
	return dl_buf_detach(&b, NULL);
}

static void test_long_chains(void **state)
{
	(void)state;
	/* an operator chain adds a tree level a term without nesting: 1000
	 * levels are allowed (a leaf and 999 operators), one more is an
	 * error, not a stack overflow in a later walk of the tree */
	char *s = chain_text(1000, " + ", "%d");
	char *p = sql_of(s);
	assert_non_null(p);
	assert_string_equal(p, s); /* printed flat: it reads back */
	char out[256];
	tu_eval_row(out, sizeof out, s, NULL, 0, NULL);
	assert_string_equal(out, "499500");
	free(p);
	free(s);
	dl_expr *e = NULL;
	s = chain_text(1001, " + ", "%d");
	assert_int_equal(dl_expr_parse(&e, s), DL_EINVALID);
	assert_non_null(strstr(dl_error_last()->message, "nested too deeply: more than 1000 levels"));
	free(s);
	/* levels inside calls and casts count */
	s = chain_text(999, " * ", "%d");
	dl_buf b = DL_BUF_INIT;
	dl_buf_printf(&b, "abs(CAST(%s AS INT))", s);
	assert_int_equal(dl_expr_parse(&e, (const char *)b.data), DL_EINVALID);
	dl_buf_free(&b);
	free(s);

	/* AND and OR chains are balanced, as Spark builds them, keeping the
	 * operands' order: any length parses, and prints the same tree back */
	p = sql_of("a = 0 OR a = 1 OR a = 2 OR a = 3 OR a = 4");
	assert_string_equal(p, "(((a = 0) OR (a = 1)) OR (a = 2)) OR ((a = 3) OR (a = 4))");
	free(p);
	p = sql_of("x AND y AND z");
	assert_string_equal(p, "(x AND y) AND z");
	free(p);
	s = chain_text(20000, " OR ", "3 = %d");
	p = sql_of(s);
	assert_non_null(p);
	char *p2 = sql_of(p);
	assert_non_null(p2);
	assert_string_equal(p, p2);
	tu_eval_row(out, sizeof out, s, NULL, 0, NULL);
	assert_string_equal(out, "true");
	free(p);
	free(p2);
	free(s);
	s = chain_text(20000, " AND ", "%d < 20000");
	tu_eval_row(out, sizeof out, s, NULL, 0, NULL);
	assert_string_equal(out, "true");
	free(s);
}

/* A random expression generator for the fixpoint property. */
static unsigned rng_state = 12345;
static unsigned rnd(unsigned n)
{
	rng_state = rng_state * 1103515245u + 12345u;
	return (rng_state >> 8) % n;
}

static void gen(dl_buf *b, int depth)
{
	static const char *const leaves[] = {"a", "b.c", "`x y`", "1", "-2", "3L", "1.25", "2.5D", "'s''t'", "'q\\'x'",
	                                     "NULL", "true", "DATE '2020-01-02'", "TIMESTAMP '2020-01-02 03:04:05'",
	                                     "X'00ff'", "m['k']", "arr[1]", "1e5", "7Y", "0.001"};
	static const char *const binops[] = {"+", "-", "*", "/", "%", "div", "||", "=", "<>", "<", "<=", ">", ">=",
	                                     "<=>", "AND", "OR", "&", "|", "^"};
	if (depth <= 0 || rnd(4) == 0) {
		dl_buf_puts(b, leaves[rnd(sizeof leaves / sizeof leaves[0])]);
		return;
	}
	dl_buf_putc(b, '('); /* predicates do not chain without grouping */
	switch (rnd(11)) {
	case 0:
		dl_buf_puts(b, "NOT ");
		gen(b, depth - 1);
		break;
	case 1:
		dl_buf_puts(b, "-(");
		gen(b, depth - 1);
		dl_buf_puts(b, ")");
		break;
	case 2:
		dl_buf_puts(b, "f(");
		gen(b, depth - 1);
		dl_buf_puts(b, ", ");
		gen(b, depth - 1);
		dl_buf_puts(b, ")");
		break;
	case 3:
		dl_buf_puts(b, "CAST(");
		gen(b, depth - 1);
		dl_buf_puts(b, rnd(2) ? " AS DECIMAL(12,3))" : " AS STRING)");
		break;
	case 4:
		dl_buf_puts(b, "CASE WHEN ");
		gen(b, depth - 1);
		dl_buf_puts(b, " THEN ");
		gen(b, depth - 1);
		dl_buf_puts(b, " ELSE ");
		gen(b, depth - 1);
		dl_buf_puts(b, " END");
		break;
	case 5:
		gen(b, depth - 1);
		dl_buf_puts(b, rnd(2) ? " IN (1, " : " NOT IN (1, ");
		gen(b, depth - 1);
		dl_buf_puts(b, ")");
		break;
	case 6:
		gen(b, depth - 1);
		dl_buf_puts(b, " BETWEEN ");
		gen(b, depth - 1);
		dl_buf_puts(b, " AND ");
		gen(b, depth - 1);
		break;
	case 7:
		dl_buf_puts(b, "(");
		gen(b, depth - 1);
		dl_buf_puts(b, rnd(2) ? ") IS NOT NULL" : ") LIKE 'a%'");
		break;
	default:
		dl_buf_puts(b, "(");
		gen(b, depth - 1);
		dl_buf_printf(b, " %s ", binops[rnd(sizeof binops / sizeof binops[0])]);
		gen(b, depth - 1);
		dl_buf_puts(b, ")");
	}
	dl_buf_putc(b, ')');
}

static void test_fixpoint(void **state)
{
	(void)state;
	int parsed = 0;
	for (int i = 0; i < 3000; i++) {
		dl_buf b = DL_BUF_INIT;
		gen(&b, 5);
		char *p1 = sql_of(b.data);
		if (!p1) {
			if (i < 5) print_message("unparsed: %s: %s\n", b.data, dl_error_last()->message);
			dl_buf_free(&b);
			continue;
		}
		parsed++;
		char *p2 = sql_of(p1);
		if (!p2 || strcmp(p1, p2) != 0)
			print_message("source: %s\n first: %s\nsecond: %s (%s)\n", b.data, p1, p2 ? p2 : "(error)",
			              dl_error_last()->message);
		assert_non_null(p2);
		assert_string_equal(p1, p2);
		free(p1);
		free(p2);
		dl_buf_free(&b);
	}
	assert_true(parsed > 2500);
	/* the canonical forms are fixpoints too */
	for (size_t i = 0; i < sizeof canon / sizeof canon[0]; i++) {
		if (!canon[i][1]) continue;
		char *p = sql_of(canon[i][1]);
		assert_non_null(p);
		assert_string_equal(p, canon[i][1]);
		free(p);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_canonical),
	    cmocka_unit_test(test_errors),
	    cmocka_unit_test(test_deep_nesting),
	    cmocka_unit_test(test_long_chains),
	    cmocka_unit_test(test_fixpoint),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
