/* variant_get / try_variant_get / is_variant_null / parse_json: paths,
 * arrays, missing values, casts and their errors. Expected values are
 * Spark 4's (ANSI, UTC), many of them the examples of Spark's own function
 * documentation. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>
#include "expr_test_util.h"

typedef struct tcase {
	const char *sql;
	const char *want; /* "ERR:" prefix: an error containing the rest */
} tcase;

#define J(x) "parse_json('" x "')"

static const tcase cases[] = {
    /* Spark's documented examples */
    {"variant_get(" J("{\"a\": 1}") ", '$.a', 'int')", "1"},
    {"variant_get(" J("{\"a\": 1}") ", '$.b', 'int')", "NULL"},
    {"variant_get(" J("[1, \"2\"]") ", '$[1]', 'string')", "2"},
    {"variant_get(" J("[1, \"2\"]") ", '$[2]', 'string')", "NULL"},
    {"variant_get(variant_get(" J("[1, \"hello\"]") ", '$[1]'), '$', 'string')", "hello"},
    {"try_variant_get(" J("[1, \"hello\"]") ", '$[1]', 'int')", "NULL"},
    {"variant_get(" J("[1, \"hello\"]") ", '$[1]', 'int')", "ERR:INVALID_VARIANT_CAST"},
    {"variant_get(" J("[1, \"hello\"]") ", '$[1]', 'int')", "ERR:The variant value `\"hello\"` cannot be cast into \"INT\""},
    {"is_variant_null(" J("null") ")", "true"},
    {"is_variant_null(" J("\"null\"") ")", "false"},
    {"is_variant_null(" J("13") ")", "false"},
    {"is_variant_null(parse_json(NULL))", "false"},
    {"is_variant_null(variant_get(" J("{\"a\":null, \"b\":\"spark\"}") ", '$.c'))", "false"},
    {"is_variant_null(variant_get(" J("{\"a\":null, \"b\":\"spark\"}") ", '$.a'))", "true"},
    /* paths */
    {"variant_get(" J("{\"a\":{\"b\":[10,20,{\"c\":true}]}}") ", '$.a.b[2].c', 'boolean')", "true"},
    {"variant_get(" J("{\"a\":{\"b\":[10,20,{\"c\":true}]}}") ", '$[\\'a\\'][\\'b\\'][0]', 'int')", "10"},
    {"variant_get(" J("{\"a\":{\"b\":[10,20,{\"c\":true}]}}") ", '$[\"a\"].b[1]', 'int')", "20"},
    {"variant_get(" J("{\"a.b\":5}") ", '$[\\'a.b\\']', 'int')", "5"},
    {"variant_get(" J("{\"a.b\":5}") ", '$.a.b', 'int')", "NULL"},
    {"variant_get(" J("{\"a b\":5}") ", '$.a b', 'int')", "5"},
    {"variant_get(" J("7") ", '$', 'int')", "7"},
    {"variant_get(" J("7") ", '$.a', 'int')", "NULL"},
    {"variant_get(" J("7") ", '$[0]', 'int')", "NULL"},
    {"variant_get(" J("[7]") ", '$.a', 'int')", "NULL"},
    {"variant_get(" J("{\"a\":1}") ", '$[0]', 'int')", "NULL"},
    {"variant_get(" J("{\"a\":1}") ", 'a', 'int')", "ERR:INVALID_VARIANT_GET_PATH"},
    {"try_variant_get(" J("{\"a\":1}") ", '$.', 'int')", "ERR:INVALID_VARIANT_GET_PATH"},
    {"variant_get(" J("{\"a\":1}") ", '$[x]', 'int')", "ERR:INVALID_VARIANT_GET_PATH"},
    {"variant_get(" J("{\"a\":1}") ", '$[-1]', 'int')", "ERR:INVALID_VARIANT_GET_PATH"},
    {"variant_get(" J("{\"a\":1}") ", '$[\\'a]', 'int')", "ERR:INVALID_VARIANT_GET_PATH"},
    {"variant_get(" J("{\"a\":1}") ", '$[99999999999]', 'int')", "ERR:INVALID_VARIANT_GET_PATH"},
    {"variant_get(" J("{\"a\":1}") ", NULL, 'int')", "NULL"},
    {"variant_get(NULL, '$.a', 'int')", "NULL"},
    /* casts */
    {"variant_get(" J("{\"a\":\"123\"}") ", '$.a', 'int')", "123"},
    {"variant_get(" J("{\"a\":3000000000}") ", '$.a', 'int')", "ERR:INVALID_VARIANT_CAST"},
    {"try_variant_get(" J("{\"a\":3000000000}") ", '$.a', 'int')", "NULL"},
    {"variant_get(" J("{\"a\":3000000000}") ", '$.a', 'bigint')", "3000000000"},
    {"variant_get(" J("{\"a\":300}") ", '$.a', 'tinyint')", "ERR:INVALID_VARIANT_CAST"},
    {"variant_get(" J("{\"a\":1.50}") ", '$.a', 'string')", "1.5"},
    {"variant_get(" J("{\"a\":1.50}") ", '$.a', 'decimal(5,2)')", "1.50"},
    {"variant_get(" J("{\"a\":123.45}") ", '$.a', 'decimal(4,2)')", "ERR:INVALID_VARIANT_CAST"},
    {"variant_get(" J("{\"a\":1.50}") ", '$.a', 'double')", "1.5"},
    {"variant_get(" J("{\"a\":1.99}") ", '$.a', 'int')", "1"},
    {"variant_get(" J("1e3") ", '$', 'string')", "1000.0"},
    {"variant_get(" J("1e3") ", '$', 'int')", "1000"},
    {"variant_get(" J("12345678901234567890") ", '$', 'string')", "12345678901234567890"},
    {"variant_get(" J("true") ", '$', 'int')", "1"},
    {"variant_get(" J("\"true\"") ", '$', 'boolean')", "true"},
    {"variant_get(" J("\"x\"") ", '$', 'boolean')", "ERR:INVALID_VARIANT_CAST"},
    {"variant_get(" J("{\"t\":100}") ", '$.t', 'timestamp')", "1970-01-01 00:01:40"},
    {"variant_get(" J("{\"t\":1.5}") ", '$.t', 'timestamp')", "1970-01-01 00:00:01.5"},
    {"variant_get(" J("9223372036854775807") ", '$', 'timestamp')", "ERR:INVALID_VARIANT_CAST"},
    {"variant_get(" J("{\"d\":\"2024-02-29\"}") ", '$.d', 'date')", "2024-02-29"},
    {"variant_get(" J("{\"d\":\"2024-02-30\"}") ", '$.d', 'date')", "ERR:INVALID_VARIANT_CAST"},
    {"variant_get(" J("{\"a\":{\"b\":1,\"c\":[1,2]}}") ", '$.a', 'string')", "{\"b\":1,\"c\":[1,2]}"},
    {"variant_get(" J("{\"a\":{\"b\":1}}") ", '$.a', 'int')", "ERR:INVALID_VARIANT_CAST"},
    {"variant_get(" J("{\"a\":null}") ", '$.a', 'int')", "NULL"},
    {"variant_get(" J("{\"a\":null}") ", '$.a', 'string')", "NULL"},
    {"variant_get(" J("\"é\"") ", '$', 'binary')", "é"},
    /* nested targets */
    {"variant_get(" J("[1,2,3]") ", '$', 'array<int>')", "[1, 2, 3]"},
    {"try_variant_get(" J("[1,\"x\",3]") ", '$', 'array<int>')", "[1, null, 3]"},
    {"variant_get(" J("[1,\"x\",3]") ", '$', 'array<int>')", "ERR:INVALID_VARIANT_CAST"},
    {"variant_get(" J("{\"b\":\"x\",\"a\":1,\"z\":0}") ", '$', 'struct<a:int,b:string,c:int>')", "{1, x, null}"},
    {"variant_get(" J("{\"a\":1,\"b\":2}") ", '$', 'map<string,int>')", "{a -> 1, b -> 2}"},
    {"variant_get(" J("[1]") ", '$', 'struct<a:int>')", "ERR:INVALID_VARIANT_CAST"},
    {"variant_get(" J("{\"a\":[{\"b\":1},{\"b\":2}]}") ", '$.a', 'array<struct<b:bigint>>')", "[{1}, {2}]"},
    /* binding errors */
    {"variant_get(" J("1") ", '$', 'map<int,int>')", "ERR:DATATYPE_MISMATCH"},
    {"variant_get(" J("1") ", '$', 'nosuchtype')", "ERR:INVALID_SCHEMA"},
    {"variant_get(1, '$', 'int')", "ERR:DATATYPE_MISMATCH"},
    {"variant_get(" J("1") ")", "ERR:WRONG_NUM_ARGS"},
    /* parse_json */
    {"parse_json('{\"a\":1,\"a\":2}') IS NULL", "ERR:VARIANT_DUPLICATE_KEY"},
    {"parse_json('{') IS NULL", "ERR:MALFORMED_RECORD_IN_PARSING"},
    {"try_parse_json('{') IS NULL", "true"},
    {"variant_get(" J("{\"k\":\"a string of sixty-four bytes or more, so the long string form\"}") ", '$.k', 'string')",
     "a string of sixty-four bytes or more, so the long string form"},
    {"variant_get(" J("[-1, -129, 40000, -2147483649, 0.000001, -12.5]") ", '$', 'string')",
     "[-1,-129,40000,-2147483649,0.000001,-12.5]"},
};

static void test_cases(void **state)
{
	(void)state;
	int failed = 0;
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		char got[1024];
		tu_eval_row(got, sizeof got, cases[i].sql, NULL, 0, NULL);
		const char *w = cases[i].want;
		bool ok = strncmp(w, "ERR:", 4) == 0 ? strncmp(got, "ERR:", 4) == 0 && strstr(got, w + 4) != NULL
		                                      : strcmp(got, w) == 0;
		if (!ok) {
			print_message("%s\n  want %s\n  got  %s\n", cases[i].sql, w, got);
			failed++;
		}
	}
	assert_int_equal(failed, 0);
}

/* A column of variants and a column of paths: the path varies by row (no
 * constant path to parse once) and the variant column holds SQL NULLs. */
static void test_columns(void **state)
{
	(void)state;
	dl_type *s = dl_type_new(DL_TYPE_STRING);
	dl_field f[] = {{"j", s, true, NULL}, {"p", s, true, NULL}};
	dl_type *schema = dl_type_struct(f, 2);
	dl_batch *b = dl_batch_new(schema, 4);
	const char *js[] = {"{\"a\":{\"b\":2}}", NULL, "[5,6]", "{\"a\":\"x\"}"};
	const char *ps[] = {"$.a.b", "$.a", "$[1]", "$.a"};
	for (int c = 0; c < 2; c++) {
		dl_builder *bl;
		assert_int_equal(dl_builder_new(&bl, s), 0);
		for (int i = 0; i < 4; i++) {
			const char *t = c == 0 ? js[i] : ps[i];
			assert_int_equal(t ? dl_builder_append_str(bl, t) : dl_builder_append_null(bl), 0);
		}
		assert_int_equal(dl_builder_finish(&b->cols[c], bl), 0);
		dl_builder_free(bl);
	}
	const char *want[] = {"2", "NULL", "6", "NULL"};
	for (int i = 0; i < 4; i++) {
		char got[256];
		tu_eval_row(got, sizeof got, "try_variant_get(parse_json(j), p, 'int')", b, i, NULL);
		assert_string_equal(got, want[i]);
	}
	char got[256];
	tu_eval_row(got, sizeof got, "variant_get(parse_json(j), p, 'int')", b, 0, NULL);
	assert_true(strstr(got, "INVALID_VARIANT_CAST") != NULL); /* row 3: "x" */
	tu_eval_row(got, sizeof got, "variant_get(parse_json(j), p || '.q', 'string')", b, 0, NULL);
	assert_string_equal(got, "NULL");
	dl_batch_free(b);
	dl_type_unref(schema);
	dl_type_unref(s);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_cases),
	    cmocka_unit_test(test_columns),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
