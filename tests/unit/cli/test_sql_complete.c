/* Tab completion of the SQL shell (cli/sql_complete.c) over a fixed
 * catalog: the candidates a user gets for what is typed, by context. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "../../../cli/output.c"
#include "../../../cli/sql_complete.c"
#include "../../../cli/sql_dot.c"
#include "../../../cli/sql_run.c"
#include "../../../cli/util.c"

/* The warehouse: default.{orders, order_items, customers}, sales.{facts}. */
static int fake_tables(sql_names *out, const char *schema, void *payload)
{
	(void)payload;
	static const char *const def[] = {"orders", "order_items", "customers", NULL};
	static const char *const sales[] = {"facts", NULL};
	const char *const *t = !schema || !strcmp(schema, "default") ? def : !strcmp(schema, "sales") ? sales : NULL;
	for (; t && *t; t++) sql_names_add(out, *t, strlen(*t));
	return 0;
}

static int fake_schemas(sql_names *out, void *payload)
{
	(void)payload;
	sql_names_add(out, "default", 7);
	sql_names_add(out, "sales", 5);
	return 0;
}

static int fake_columns(sql_names *out, const char *table, void *payload)
{
	(void)payload;
	const char *cols = !strcmp(table, "customers") ? "customer_id,name,country"
	                   : !strcmp(table, "sales.facts") ? "fact_id,amount"
	                   : !strcmp(table, "orders") ? "order_id,customer_id,total" : "";
	while (*cols) {
		size_t n = strcspn(cols, ",");
		sql_names_add(out, cols, n);
		cols += n + (cols[n] == ',');
	}
	return 0;
}

static const sql_catalog cat = {fake_tables, fake_schemas, fake_columns, NULL};

/* The candidates for `line` with the cursor at `cursor`, joined by spaces. */
static char *complete_at(const char *before, const char *line, size_t cursor, size_t *ws)
{
	static char buf[2048];
	sql_names c = {0};
	size_t w = 0;
	assert_int_equal(sql_complete(&c, &w, before, line, cursor, &cat), 0);
	buf[0] = 0;
	for (size_t i = 0; i < c.n; i++) {
		if (i) strcat(buf, " ");
		strcat(buf, c.v[i]);
	}
	if (ws) *ws = w;
	sql_names_free(&c);
	return buf;
}

static char *complete(const char *before, const char *line, size_t *ws)
{
	return complete_at(before, line, strlen(line), ws);
}

static void test_keywords_in_typed_case(void **state)
{
	(void)state;
	size_t ws;
	assert_string_equal(complete("", "SEL", &ws), "SELECT");
	assert_int_equal(ws, 0);
	assert_string_equal(complete("", "sel", NULL), "select");
	assert_string_equal(complete("", "SELECT * FROM orders WHER", &ws), "WHERE");
	assert_string_equal(complete("", "SELECT * FROM orders WHE", NULL), "WHEN WHERE");
	assert_int_equal(ws, 21);
	/* after DESCRIBE: a table, or the words of its other forms */
	assert_string_equal(complete("", "DESCRIBE HIST", NULL), "HISTORY");
	assert_string_equal(complete("", "describe c", NULL), "customers");
	assert_string_equal(complete("", "DESCRIBE D", NULL), "DETAIL default.");
}

static void test_tables_after_from(void **state)
{
	(void)state;
	/* a table is expected: no ORDER keyword among them */
	assert_string_equal(complete("", "SELECT * FROM ord", NULL), "order_items orders");
	assert_string_equal(complete("", "select * from cus", NULL), "customers");
	assert_string_equal(complete("", "INSERT INTO o", NULL), "order_items orders");
	assert_string_equal(complete("", "SELECT * FROM s", NULL), "sales.");
	size_t ws;
	assert_string_equal(complete("", "SELECT * FROM sales.f", &ws), "sales.facts");
	assert_int_equal(ws, 14);
	assert_string_equal(complete("", "SELECT * FROM orders JOIN c", NULL), "customers");
}

static void test_schemas(void **state)
{
	(void)state;
	assert_string_equal(complete("", "USE s", NULL), "sales");
	assert_string_equal(complete("", "SHOW TABLES IN d", NULL), "default");
	assert_string_equal(complete("", "DROP SCHEMA sa", NULL), "sales");
}

static void test_columns_of_named_tables(void **state)
{
	(void)state;
	/* columns of customers (named later on the line too), the table
	 * itself, and the keyword in the typed case */
	assert_string_equal(complete("", "SELECT cu", NULL), "current customers");
	assert_string_equal(complete_at("", "SELECT cu FROM customers", 9, NULL), "current customer_id customers");
	assert_string_equal(complete("SELECT *\nFROM customers\n", "WHERE na", NULL), "name");
	assert_string_equal(complete("", "SELECT amo", NULL), "");
	assert_string_equal(complete("SELECT * FROM sales.facts WHERE ", "amo", NULL), "amount");
}

static void test_nothing_inside_quotes_and_comments(void **state)
{
	(void)state;
	assert_string_equal(complete("", "SELECT 'SEL", NULL), "");
	assert_string_equal(complete("", "SELECT * FROM `ord", NULL), "");
	assert_string_equal(complete("", "SELECT 1 -- SEL", NULL), "");
	assert_string_equal(complete("/* unclosed\n", "SEL", NULL), "");
	assert_string_equal(complete("", "SELECT 'a' || 'b', SEL", NULL), "SELECT");
}

static void test_dot_commands(void **state)
{
	(void)state;
	assert_string_equal(complete("", ".t", NULL), ".tables .timer");
	assert_string_equal(complete("", "  .sch", NULL), ".schema");
	/* not inside a statement */
	assert_string_equal(complete("SELECT 1\n", ".t", NULL), "");
}

static void test_common_prefix(void **state)
{
	(void)state;
	sql_names c = {0};
	assert_int_equal(sql_common_prefix(&c), 0);
	sql_names_add(&c, "order_items", 11);
	sql_names_add(&c, "orders", 6);
	assert_int_equal(sql_common_prefix(&c), 5);
	sql_names_add(&c, "customers", 9);
	assert_int_equal(sql_common_prefix(&c), 0);
	sql_names_free(&c);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_keywords_in_typed_case),
		cmocka_unit_test(test_tables_after_from),
		cmocka_unit_test(test_schemas),
		cmocka_unit_test(test_columns_of_named_tables),
		cmocka_unit_test(test_nothing_inside_quotes_and_comments),
		cmocka_unit_test(test_dot_commands),
		cmocka_unit_test(test_common_prefix),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
