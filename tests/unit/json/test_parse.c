/* JSON parser: valid and invalid inputs, escapes, numbers, limits. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "json/json.h"
#include "util/mem.h"

static dl_json *parse_ok(dl_arena *a, const char *text)
{
	dl_json *v = NULL;
	int rc = dl_json_parse(a, text, strlen(text), "t", &v);
	if (rc != 0) fail_msg("parse of %s failed: %s", text, dl_error_last()->message);
	assert_non_null(v);
	return v;
}

/* Parses text that must fail and checks the message contains `want`. */
static void parse_bad_n(const char *text, size_t len, const char *want)
{
	dl_arena a = DL_ARENA_INIT;
	dl_json *v = NULL;
	int rc = dl_json_parse(&a, text, len, "bad.json", &v);
	if (rc != DL_ECORRUPT) fail_msg("input %.*s: expected DL_ECORRUPT, got %d", (int)len, text, rc);
	const char *msg = dl_error_last()->message;
	if (!strstr(msg, want)) fail_msg("input %.*s: message '%s' lacks '%s'", (int)len, text, msg, want);
	assert_non_null(strstr(msg, "bad.json: line "));
	dl_arena_free(&a);
}

static void parse_bad(const char *text, const char *want)
{
	parse_bad_n(text, strlen(text), want);
}

static void scalars(void **state)
{
	(void)state;
	dl_arena a = DL_ARENA_INIT;
	assert_int_equal(parse_ok(&a, "null")->kind, DL_JSON_NULL);
	assert_int_equal(parse_ok(&a, " true ")->kind, DL_JSON_TRUE);
	assert_int_equal(parse_ok(&a, "\t\r\nfalse\n")->kind, DL_JSON_FALSE);
	dl_json *s = parse_ok(&a, "\"hello\"");
	assert_int_equal(s->kind, DL_JSON_STRING);
	assert_string_equal(s->u.str.ptr, "hello");
	assert_int_equal(s->u.str.len, 5);
	s = parse_ok(&a, "\"\"");
	assert_string_equal(s->u.str.ptr, "");
	dl_json *n = parse_ok(&a, "-12.5e+3");
	assert_int_equal(n->kind, DL_JSON_NUMBER);
	assert_int_equal(n->u.num.len, 8);
	assert_memory_equal(n->u.num.ptr, "-12.5e+3", 8);
	assert_true(dl_json_is_null(parse_ok(&a, "null")));
	dl_json *out;
	assert_int_equal(dl_json_parse(NULL, "1", 1, "t", &out), DL_EINVALID);
	assert_int_equal(dl_json_parse(&a, "1", 1, "t", NULL), DL_EINVALID);
	assert_int_equal(dl_json_parse(&a, NULL, 1, "t", &out), DL_EINVALID);
	assert_false(dl_json_is_null(parse_ok(&a, "0")));
	dl_arena_free(&a);
}

static void containers_keep_order(void **state)
{
	(void)state;
	dl_arena a = DL_ARENA_INIT;
	dl_json *v = parse_ok(&a, "{\"b\":1,\"a\":[true,null,{\"x\":\"y\"},[]],\"c\":{},\"d\":\"s\"}");
	assert_int_equal(v->kind, DL_JSON_OBJECT);
	assert_int_equal(v->u.obj.n, 4);
	assert_string_equal(v->u.obj.items[0].key, "b");
	assert_string_equal(v->u.obj.items[1].key, "a");
	assert_string_equal(v->u.obj.items[2].key, "c");
	const dl_json *arr = dl_json_get(v, "a");
	assert_non_null(arr);
	assert_int_equal(arr->kind, DL_JSON_ARRAY);
	assert_int_equal(arr->u.arr.n, 4);
	assert_int_equal(arr->u.arr.items[0].kind, DL_JSON_TRUE);
	assert_int_equal(arr->u.arr.items[1].kind, DL_JSON_NULL);
	assert_string_equal(dl_json_get_str(&arr->u.arr.items[2], "x"), "y");
	assert_int_equal(arr->u.arr.items[3].kind, DL_JSON_ARRAY);
	assert_int_equal(arr->u.arr.items[3].u.arr.n, 0);
	const dl_json *c = dl_json_get(v, "c");
	assert_int_equal(c->kind, DL_JSON_OBJECT);
	assert_int_equal(c->u.obj.n, 0);
	assert_string_equal(dl_json_get_str(v, "d"), "s");
	assert_null(dl_json_get_str(v, "b")); /* a number, not a string */
	assert_null(dl_json_get(v, "zz"));
	assert_null(dl_json_get(arr, "a")); /* not an object */
	dl_arena_free(&a);
}

static void duplicate_keys_last_wins(void **state)
{
	(void)state;
	dl_arena a = DL_ARENA_INIT;
	dl_json *v = parse_ok(&a, "{\"k\":\"first\",\"k\":\"second\"}");
	assert_int_equal(v->u.obj.n, 2);
	assert_string_equal(dl_json_get_str(v, "k"), "second");
	dl_arena_free(&a);
}

/* Many members and elements spill the scratch stacks to the heap. */
static void large_containers(void **state)
{
	(void)state;
	dl_buf b = DL_BUF_INIT;
	dl_buf_puts(&b, "{");
	for (int i = 0; i < 5000; i++) dl_buf_printf(&b, "%s\"k%d\":[%d,{\"n\":%d}]", i ? "," : "", i, i, i);
	dl_buf_puts(&b, "}");
	dl_arena a = DL_ARENA_INIT;
	dl_json *v = parse_ok(&a, b.data);
	assert_int_equal(v->u.obj.n, 5000);
	const dl_json *e = dl_json_get(v, "k4321");
	assert_non_null(e);
	assert_int_equal(e->u.arr.n, 2);
	int64_t x;
	assert_int_equal(dl_json_int64(dl_json_get(&e->u.arr.items[1], "n"), &x), 0);
	assert_int_equal(x, 4321);
	dl_arena_free(&a);
	dl_buf_free(&b);
}

static void escapes(void **state)
{
	(void)state;
	dl_arena a = DL_ARENA_INIT;
	dl_json *s = parse_ok(&a, "\"a\\\"b\\\\c\\/d\\be\\ff\\ng\\rh\\ti\"");
	assert_string_equal(s->u.str.ptr, "a\"b\\c/d\be\ff\ng\rh\ti");
	s = parse_ok(&a, "\"\\u0041\\u00e9\\u20AC\"");
	assert_string_equal(s->u.str.ptr, "A\xC3\xA9\xE2\x82\xAC");
	/* U+1F600 as a surrogate pair. */
	s = parse_ok(&a, "\"x\\uD83D\\uDE00y\"");
	assert_string_equal(s->u.str.ptr, "x\xF0\x9F\x98\x80y");
	/* \u0000 is legal: the length counts it. */
	s = parse_ok(&a, "\"a\\u0000b\"");
	assert_int_equal(s->u.str.len, 3);
	assert_memory_equal(s->u.str.ptr, "a\0b", 4);
	/* Raw UTF-8 passes through. */
	s = parse_ok(&a, "\"\xE6\x97\xA5\xE6\x9C\xAC \xF0\x9F\x98\x80\"");
	assert_string_equal(s->u.str.ptr, "\xE6\x97\xA5\xE6\x9C\xAC \xF0\x9F\x98\x80");
	/* Escaped keys are unescaped too. */
	dl_json *o = parse_ok(&a, "{\"k\\u0065y\":1}");
	assert_non_null(dl_json_get(o, "key"));
	/* Long strings exercise the word-at-a-time scan on every alignment. */
	for (int len = 0; len < 40; len++) {
		char in[64], want[64];
		in[0] = '"';
		for (int i = 0; i < len; i++) in[1 + i] = want[i] = (char)('a' + i % 26);
		in[1 + len] = '"';
		in[2 + len] = 0;
		want[len] = 0;
		s = parse_ok(&a, in);
		assert_string_equal(s->u.str.ptr, want);
		in[1 + len] = '\\';
		in[2 + len] = 'n';
		in[3 + len] = '"';
		in[4 + len] = 0;
		want[len] = '\n';
		want[len + 1] = 0;
		s = parse_ok(&a, in);
		assert_string_equal(s->u.str.ptr, want);
	}
	dl_arena_free(&a);
}

static void invalid_strings(void **state)
{
	(void)state;
	parse_bad("\"abc", "unterminated string");
	parse_bad("\"abc\\", "unterminated string");
	parse_bad("\"a\\x\"", "invalid escape");
	parse_bad("\"a\\u12\"", "bad \\u escape");
	parse_bad("\"a\\u12G4\"", "bad \\u escape");
	parse_bad("\"\\uDC00\"", "lone low surrogate");
	parse_bad("\"\\uD800\"", "unpaired high surrogate");
	parse_bad("\"\\uD800\\u0041\"", "unpaired high surrogate");
	parse_bad("\"\\uD800x\"", "unpaired high surrogate");
	parse_bad("\"a\nb\"", "control character U+000A");
	parse_bad("\"a\tb\"", "control character U+0009");
	parse_bad("\"\xC0\x80\"", "invalid UTF-8");          /* overlong NUL */
	parse_bad("\"\xED\xA0\x80\"", "invalid UTF-8");      /* encoded surrogate */
	parse_bad("\"\xF4\x90\x80\x80\"", "invalid UTF-8");  /* above U+10FFFF */
	parse_bad("\"\xE2\x82\"", "invalid UTF-8");          /* truncated */
	parse_bad("\"\x80\"", "invalid UTF-8");              /* stray continuation */
	parse_bad("\"\xFF\"", "invalid UTF-8");
	parse_bad_n("\"a\0b\"", 5, "control character U+0000");
}

static void invalid_documents(void **state)
{
	(void)state;
	parse_bad("", "unexpected end of input: expected a value");
	parse_bad("   ", "unexpected end of input: expected a value");
	parse_bad("{", "expected a member name");
	parse_bad("{\"a\"", "expected ':'");
	parse_bad("{\"a\":", "unexpected end of input: expected a value");
	parse_bad("{\"a\":1", "expected ',' or '}'");
	parse_bad("{\"a\":1,}", "expected a member name");
	parse_bad("{a:1}", "expected a member name");
	parse_bad("{'a':1}", "expected a member name");
	parse_bad("[1,2", "expected ',' or ']'");
	parse_bad("[1,]", "unexpected ']': expected a value");
	parse_bad("[1 2]", "unexpected '2': expected ',' or ']'");
	parse_bad("[", "unexpected end of input");
	parse_bad("]", "unexpected ']'");
	parse_bad("tru", "expected 'true'");
	parse_bad("nul", "expected 'null'");
	parse_bad("True", "unexpected 'T'");
	parse_bad("falsey", "unexpected data after the value");
	parse_bad("1 2", "unexpected data after the value");
	parse_bad("{} {}", "unexpected data after the value");
	parse_bad("NaN", "unexpected 'N'");
	parse_bad("Infinity", "unexpected 'I'");
	parse_bad("\x01", "unexpected byte 0x01");
	parse_bad("/* comment */ 1", "unexpected '/'");
	/* Truncating a valid document anywhere must fail cleanly. */
	const char *doc = "{\"add\":{\"path\":\"a\\u00e9.parquet\",\"size\":-1.5e3,\"x\":[true,false,null]}}";
	for (size_t n = 0; n < strlen(doc); n++) {
		dl_arena a = DL_ARENA_INIT;
		dl_json *v;
		assert_int_equal(dl_json_parse(&a, doc, n, "trunc", &v), DL_ECORRUPT);
		dl_arena_free(&a);
	}
}

static void invalid_numbers(void **state)
{
	(void)state;
	parse_bad("01", "leading zero");
	parse_bad("-", "expected a digit");
	parse_bad("-a", "expected a digit");
	parse_bad("+1", "unexpected '+'");
	parse_bad("1.", "expected a digit after the decimal point");
	parse_bad(".5", "unexpected '.'");
	parse_bad("1e", "expected a digit in the exponent");
	parse_bad("1e+", "expected a digit in the exponent");
	parse_bad("0x10", "unexpected data after the value");
	parse_bad("[-01]", "leading zero");
}

static void error_positions(void **state)
{
	(void)state;
	dl_arena a = DL_ARENA_INIT;
	dl_json *v;
	const char *text = "{\n  \"a\": 1,\n  \"b\": tru\n}";
	assert_int_equal(dl_json_parse(&a, text, strlen(text), "pos.json", &v), DL_ECORRUPT);
	assert_string_equal(dl_error_last()->message,
	                    "pos.json: line 3 col 8 (byte 19): invalid literal: expected 'true'");
	assert_int_equal(dl_json_parse(&a, "[1,", 3, NULL, &v), DL_ECORRUPT);
	assert_string_equal(dl_error_last()->message,
	                    "JSON: line 1 col 4 (byte 3): unexpected end of input: expected a value");
	dl_arena_free(&a);
}

static void nest(dl_buf *b, int depth, const char *open, const char *close)
{
	for (int i = 0; i < depth; i++) dl_buf_puts(b, open);
	dl_buf_puts(b, "1");
	for (int i = 0; i < depth; i++) dl_buf_puts(b, close);
}

static void depth_limit(void **state)
{
	(void)state;
	dl_arena a = DL_ARENA_INIT;
	dl_buf b = DL_BUF_INIT;
	nest(&b, 512, "[", "]");
	dl_json *v = parse_ok(&a, b.data);
	for (int i = 0; i < 512; i++) v = &v->u.arr.items[0];
	assert_int_equal(v->kind, DL_JSON_NUMBER);
	dl_buf_clear(&b);
	nest(&b, 513, "[", "]");
	parse_bad(b.data, "nesting deeper than 512");
	dl_buf_clear(&b);
	nest(&b, 256, "{\"k\":[", "]}"); /* 512 levels, objects and arrays */
	v = parse_ok(&a, b.data);
	assert_int_equal(v->kind, DL_JSON_OBJECT);
	dl_buf_clear(&b);
	nest(&b, 10000, "[", "]");
	parse_bad(b.data, "nesting deeper than 512");
	dl_buf_clear(&b);
	nest(&b, 10000, "{\"a\":", "}");
	parse_bad(b.data, "nesting deeper than 512");
	/* Unclosed deep nesting: still a clean error. */
	dl_buf_clear(&b);
	for (int i = 0; i < 100000; i++) dl_buf_puts(&b, "[");
	parse_bad(b.data, "nesting deeper than 512");
	dl_buf_free(&b);
	dl_arena_free(&a);
}

static void bom_is_skipped(void **state)
{
	(void)state;
	dl_arena a = DL_ARENA_INIT;
	dl_json *v = parse_ok(&a, "\xEF\xBB\xBF{\"a\":1}");
	assert_int_equal(v->kind, DL_JSON_OBJECT);
	parse_bad("\xEF\xBB\xBF", "expected a value");
	parse_bad(" \xEF\xBB\xBF{}", "unexpected byte 0xEF"); /* only at the very start */
	dl_arena_free(&a);
}

static int64_t to_i64(dl_arena *a, const char *text, int *rc)
{
	int64_t x = 0;
	*rc = dl_json_int64(parse_ok(a, text), &x);
	return x;
}

static void int64_conversion(void **state)
{
	(void)state;
	dl_arena a = DL_ARENA_INIT;
	int rc;
	assert_int_equal(to_i64(&a, "0", &rc), 0);
	assert_int_equal(rc, 0);
	assert_int_equal(to_i64(&a, "-0", &rc), 0);
	assert_int_equal(to_i64(&a, "1234567890123", &rc), 1234567890123LL);
	assert_true(to_i64(&a, "9223372036854775807", &rc) == INT64_MAX);
	assert_int_equal(rc, 0);
	assert_true(to_i64(&a, "-9223372036854775808", &rc) == INT64_MIN);
	assert_int_equal(rc, 0);
	to_i64(&a, "9223372036854775808", &rc);
	assert_int_equal(rc, DL_EINVALID);
	assert_non_null(strstr(dl_error_last()->message, "out of the int64 range"));
	to_i64(&a, "-9223372036854775809", &rc);
	assert_int_equal(rc, DL_EINVALID);
	to_i64(&a, "123456789012345678901234567890", &rc);
	assert_int_equal(rc, DL_EINVALID);
	assert_true(to_i64(&a, "999999999999999999", &rc) == 999999999999999999LL); /* 18 digits */
	assert_true(to_i64(&a, "-1000000000000000000", &rc) == -1000000000000000000LL); /* 19 */
	assert_int_equal(rc, 0);
	dl_json zeros = {.kind = DL_JSON_NUMBER, .u.num = {"0000000000000000000000012", 25}};
	int64_t z;
	assert_int_equal(dl_json_int64(&zeros, &z), 0); /* hand-built text, 25 digits */
	assert_int_equal(z, 12);
	to_i64(&a, "18446744073709551615", &rc);
	assert_int_equal(rc, DL_EINVALID);
	to_i64(&a, "18446744073709551616", &rc);
	assert_int_equal(rc, DL_EINVALID);
	to_i64(&a, "1.0", &rc);
	assert_int_equal(rc, DL_EINVALID);
	assert_non_null(strstr(dl_error_last()->message, "not an integer"));
	to_i64(&a, "1e3", &rc);
	assert_int_equal(rc, DL_EINVALID);
	int64_t x;
	assert_int_equal(dl_json_int64(parse_ok(&a, "\"1\""), &x), DL_EINVALID);
	assert_int_equal(dl_json_int64(NULL, &x), DL_EINVALID);
	dl_arena_free(&a);
}

static void double_conversion(void **state)
{
	(void)state;
	dl_arena a = DL_ARENA_INIT;
	static const char *texts[] = {
		"0", "-0", "1", "0.1", "-2.5", "1e10", "1E-10", "123456789012345", "1.7976931348623157e308",
		"4.9e-324", "2.2250738585072014e-308", "0.30000000000000004", "9007199254740993",
		"123456789012345678901234567890", "1e22", "1e23", "3.14159265358979323846", "0.000001",
		"1234567.125e-3", "100000000000000000000000e-5",
	};
	for (size_t i = 0; i < sizeof texts / sizeof *texts; i++) {
		double d = 0, want = strtod(texts[i], NULL);
		assert_int_equal(dl_json_double(parse_ok(&a, texts[i]), &d), 0);
		if (memcmp(&d, &want, sizeof d) != 0) fail_msg("%s: got %.17g want %.17g", texts[i], d, want);
	}
	double d;
	assert_int_equal(dl_json_double(parse_ok(&a, "1e400"), &d), DL_EINVALID);
	assert_non_null(strstr(dl_error_last()->message, "out of the double range"));
	assert_int_equal(dl_json_double(parse_ok(&a, "-1e400"), &d), DL_EINVALID);
	assert_int_equal(dl_json_double(parse_ok(&a, "1e-400"), &d), 0); /* underflow is 0 */
	assert_true(d == 0.0);
	assert_int_equal(dl_json_double(parse_ok(&a, "true"), &d), DL_EINVALID);
	/* A hand-built number with bad text is refused, not misread. */
	dl_json bad = {.kind = DL_JSON_NUMBER, .u.num = {"nan", 3}};
	assert_int_equal(dl_json_double(&bad, &d), DL_EINVALID);
	dl_json bad2 = {.kind = DL_JSON_NUMBER, .u.num = {"1x5", 3}};
	assert_int_equal(dl_json_double(&bad2, &d), DL_EINVALID);
	dl_arena_free(&a);
}

static void arena_is_reusable(void **state)
{
	(void)state;
	dl_arena a = DL_ARENA_INIT;
	for (int round = 0; round < 3; round++) {
		for (int i = 0; i < 2000; i++) {
			dl_json *v = parse_ok(&a, "{\"stats\":\"{\\\"numRecords\\\":10}\",\"n\":[1,2,3]}");
			dl_json *stats;
			const char *s = dl_json_get_str(v, "stats");
			assert_int_equal(dl_json_parse(&a, s, strlen(s), "stats", &stats), 0);
			int64_t n;
			assert_int_equal(dl_json_int64(dl_json_get(stats, "numRecords"), &n), 0);
			assert_int_equal(n, 10);
		}
		dl_arena_reset(&a);
	}
	dl_arena_free(&a);
}

/* Input without a terminating NUL in an exact-size heap block: with ASan
 * any read past `len` is caught. */
static void no_read_past_end(void **state)
{
	(void)state;
	static const char *docs[] = {
		"{\"add\":{\"path\":\"x\",\"size\":12}}", "\"abcdefghijklmnopqrstuvwxyz\"", "\"\\u00e9\"",
		"123", "-0.5e-7", "true", "[1,[2,[3]]]", "\"\xE2\x82\xAC\"", "\"abc", "\"ab\\", "12e", "[tr",
	};
	for (size_t i = 0; i < sizeof docs / sizeof *docs; i++) {
		size_t len = strlen(docs[i]);
		for (size_t n = 0; n <= len; n++) {
			char *exact = dl_malloc(n ? n : 1);
			memcpy(exact, docs[i], n);
			dl_arena a = DL_ARENA_INIT;
			dl_json *v;
			int rc = dl_json_parse(&a, exact, n, "exact", &v);
			assert_true(rc == 0 || rc == DL_ECORRUPT);
			dl_arena_free(&a);
			dl_free(exact);
		}
	}
}

static void huge_numbers(void **state)
{
	(void)state;
	dl_arena a = DL_ARENA_INIT;
	dl_buf b = DL_BUF_INIT;
	dl_buf_puts(&b, "[-");
	for (int i = 0; i < 10000; i++) dl_buf_putc(&b, (char)('1' + i % 9));
	dl_buf_puts(&b, ".5e-99999,1");
	for (int i = 0; i < 400; i++) dl_buf_putc(&b, '0');
	dl_buf_puts(&b, "]");
	dl_json *v = parse_ok(&a, b.data);
	assert_int_equal(v->u.arr.n, 2);
	const dl_json *big = &v->u.arr.items[0];
	assert_int_equal(big->u.num.len, 10000 + 10); /* text kept exactly */
	int64_t x;
	double d;
	assert_int_equal(dl_json_int64(big, &x), DL_EINVALID);
	assert_int_equal(dl_json_double(big, &d), 0); /* underflows to -0 */
	assert_true(d == 0.0 && signbit(d));
	assert_int_equal(dl_json_double(&v->u.arr.items[1], &d), DL_EINVALID); /* 1e400 */
	assert_int_equal(dl_json_int64(&v->u.arr.items[1], &x), DL_EINVALID);
	dl_buf_free(&b);
	dl_arena_free(&a);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(scalars),
		cmocka_unit_test(containers_keep_order),
		cmocka_unit_test(duplicate_keys_last_wins),
		cmocka_unit_test(large_containers),
		cmocka_unit_test(escapes),
		cmocka_unit_test(invalid_strings),
		cmocka_unit_test(invalid_documents),
		cmocka_unit_test(invalid_numbers),
		cmocka_unit_test(error_positions),
		cmocka_unit_test(depth_limit),
		cmocka_unit_test(bom_is_skipped),
		cmocka_unit_test(int64_conversion),
		cmocka_unit_test(double_conversion),
		cmocka_unit_test(arena_is_reusable),
		cmocka_unit_test(no_read_past_end),
		cmocka_unit_test(huge_numbers),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
