/* JSON writers: the streaming dl_jw_* API and dl_json_write round trips. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <float.h>
#include <locale.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "json/json.h"
#include "util/mem.h"

static void writer_builds_an_add_action(void **state)
{
	(void)state;
	dl_buf b = DL_BUF_INIT;
	dl_json_writer w;
	dl_jw_init(&w, &b);
	dl_jw_object_begin(&w);
	dl_jw_key(&w, "add");
	dl_jw_object_begin(&w);
	dl_jw_key(&w, "path");
	dl_jw_string(&w, "a b/\"q\"\n.parquet");
	dl_jw_key(&w, "partitionValues");
	dl_jw_object_begin(&w);
	dl_jw_key(&w, "p");
	dl_jw_null(&w);
	dl_jw_object_end(&w);
	dl_jw_key(&w, "size");
	dl_jw_int(&w, INT64_MIN);
	dl_jw_key(&w, "big");
	dl_jw_int(&w, INT64_MAX);
	dl_jw_key(&w, "dataChange");
	dl_jw_bool(&w, true);
	dl_jw_key(&w, "tags");
	dl_jw_array_begin(&w);
	dl_jw_double(&w, 0.1);
	dl_jw_bool(&w, false);
	dl_jw_array_begin(&w);
	dl_jw_array_end(&w);
	dl_jw_raw(&w, "{\"x\":1}");
	dl_jw_string_n(&w, "ab\0c", 4);
	dl_jw_array_end(&w);
	dl_jw_object_end(&w);
	dl_jw_object_end(&w);
	assert_int_equal(dl_jw_finish(&w), 0);
	assert_string_equal(b.data,
	                    "{\"add\":{\"path\":\"a b/\\\"q\\\"\\n.parquet\",\"partitionValues\":{\"p\":null},"
	                    "\"size\":-9223372036854775808,\"big\":9223372036854775807,\"dataChange\":true,"
	                    "\"tags\":[0.1,false,[],{\"x\":1},\"ab\\u0000c\"]}}");
	/* The output parses back. */
	dl_arena a = DL_ARENA_INIT;
	dl_json *v;
	assert_int_equal(dl_json_parse(&a, b.data, b.len, "w", &v), 0);
	int64_t x;
	assert_int_equal(dl_json_int64(dl_json_get(dl_json_get(v, "add"), "size"), &x), 0);
	assert_true(x == INT64_MIN);
	dl_arena_free(&a);
	dl_buf_free(&b);
}

static int misuse(void (*script)(dl_json_writer *))
{
	dl_buf b = DL_BUF_INIT;
	dl_json_writer w;
	dl_jw_init(&w, &b);
	script(&w);
	int rc = dl_jw_finish(&w);
	dl_buf_free(&b);
	return rc;
}

static void value_without_key(dl_json_writer *w) { dl_jw_object_begin(w); dl_jw_int(w, 1); dl_jw_object_end(w); }
static void key_in_array(dl_json_writer *w) { dl_jw_array_begin(w); dl_jw_key(w, "k"); dl_jw_array_end(w); }
static void two_keys(dl_json_writer *w) { dl_jw_object_begin(w); dl_jw_key(w, "a"); dl_jw_key(w, "b"); }
static void unbalanced(dl_json_writer *w) { dl_jw_array_begin(w); dl_jw_object_end(w); }
static void unclosed(dl_json_writer *w) { dl_jw_array_begin(w); dl_jw_int(w, 1); }
static void dangling_key(dl_json_writer *w) { dl_jw_object_begin(w); dl_jw_key(w, "a"); dl_jw_object_end(w); }
static void two_top_values(dl_json_writer *w) { dl_jw_int(w, 1); dl_jw_int(w, 2); }
static void nothing(dl_json_writer *w) { (void)w; }
static void nan_value(dl_json_writer *w) { dl_jw_array_begin(w); dl_jw_double(w, NAN); dl_jw_array_end(w); }
static void inf_value(dl_json_writer *w) { dl_jw_double(w, -INFINITY); }
static void null_string(dl_json_writer *w) { dl_jw_string(w, NULL); }
static void too_deep(dl_json_writer *w)
{
	for (int i = 0; i < 64; i++) dl_jw_array_begin(w);
	for (int i = 0; i < 64; i++) dl_jw_array_end(w);
}
static void deep_ok(dl_json_writer *w)
{
	for (int i = 0; i < 63; i++) dl_jw_array_begin(w);
	for (int i = 0; i < 63; i++) dl_jw_array_end(w);
}

static void writer_rejects_misuse(void **state)
{
	(void)state;
	assert_int_equal(misuse(value_without_key), DL_EINVALID);
	assert_non_null(strstr(dl_error_last()->message, "needs a key"));
	assert_int_equal(misuse(key_in_array), DL_EINVALID);
	assert_int_equal(misuse(two_keys), DL_EINVALID);
	assert_int_equal(misuse(unbalanced), DL_EINVALID);
	assert_int_equal(misuse(unclosed), DL_EINVALID);
	assert_int_equal(misuse(dangling_key), DL_EINVALID);
	assert_int_equal(misuse(two_top_values), DL_EINVALID);
	assert_int_equal(misuse(nothing), DL_EINVALID);
	assert_int_equal(misuse(nan_value), DL_EINVALID);
	assert_non_null(strstr(dl_error_last()->message, "NaN or infinity"));
	assert_int_equal(misuse(inf_value), DL_EINVALID);
	assert_int_equal(misuse(null_string), DL_EINVALID);
	assert_int_equal(misuse(too_deep), DL_EINVALID);
	assert_int_equal(misuse(deep_ok), 0);
}

static const char *write_double(dl_buf *b, double d)
{
	dl_json_writer w;
	dl_buf_clear(b);
	dl_jw_init(&w, b);
	dl_jw_double(&w, d);
	assert_int_equal(dl_jw_finish(&w), 0);
	return b->data;
}

static void doubles_shortest_round_trip(void **state)
{
	(void)state;
	dl_buf b = DL_BUF_INIT;
	assert_string_equal(write_double(&b, 0.1), "0.1");
	assert_string_equal(write_double(&b, 1.0), "1");
	assert_string_equal(write_double(&b, -0.0), "-0");
	assert_string_equal(write_double(&b, 0.0), "0");
	assert_string_equal(write_double(&b, -42.0), "-42");
	assert_string_equal(write_double(&b, 999999999999999.0), "999999999999999");
	assert_string_equal(write_double(&b, 1e15), "1e+15"); /* as %.15g prints it */
	assert_string_equal(write_double(&b, 9007199254740992.0), "9007199254740992");
	assert_string_equal(write_double(&b, 2.5e-7), "2.5e-07");
	assert_string_equal(write_double(&b, 0.1 + 0.2), "0.30000000000000004");
	assert_string_equal(write_double(&b, 1e300), "1e+300");
	assert_string_equal(write_double(&b, 123456.789), "123456.789");
	assert_string_equal(write_double(&b, DBL_MAX), "1.7976931348623157e+308");
	/* Every output reads back to the same bits, through the parser too. */
	dl_arena a = DL_ARENA_INIT;
	uint64_t seed = 42;
	for (int i = 0; i < 20000; i++) {
		seed = seed * 6364136223846793005ULL + 1442695040888963407ULL;
		uint64_t bits = seed ^ (seed >> 29);
		double d;
		memcpy(&d, &bits, sizeof d);
		if (!isfinite(d)) continue;
		const char *s = write_double(&b, d);
		dl_json *v;
		assert_int_equal(dl_json_parse(&a, s, strlen(s), "d", &v), 0);
		double back;
		assert_int_equal(dl_json_double(v, &back), 0);
		if (memcmp(&back, &d, sizeof d) != 0) fail_msg("%s does not round-trip (%a)", s, d);
	}
	dl_arena_free(&a);
	dl_buf_free(&b);
}

/* A decimal-comma locale must not leak into JSON numbers. */
static void doubles_ignore_locale(void **state)
{
	(void)state;
	const char *names[] = {"de_DE.UTF-8", "de_DE.utf8", "fr_FR.UTF-8", "fr_FR.utf8"};
	const char *ok = NULL;
	for (size_t i = 0; i < 4 && !ok; i++) ok = setlocale(LC_NUMERIC, names[i]);
	if (!ok) skip();
	dl_buf b = DL_BUF_INIT;
	assert_string_equal(write_double(&b, 2.5), "2.5");
	dl_arena a = DL_ARENA_INIT;
	dl_json *v;
	const char *text = "3.14159265358979323846264";
	assert_int_equal(dl_json_parse(&a, text, strlen(text), "d", &v), 0);
	double d;
	assert_int_equal(dl_json_double(v, &d), 0);
	assert_true(d > 3.14 && d < 3.15);
	setlocale(LC_NUMERIC, "C");
	dl_arena_free(&a);
	dl_buf_free(&b);
}

static void write_round_trip(void **state)
{
	(void)state;
	static const char *docs[] = {
		"null", "true", "false", "0", "-1.5e-7", "\"\"", "[]", "{}",
		"{\"a\":[1,2,{\"b\":null}],\"c\":\"x\\ny\\u0001\\\"\\\\\",\"d\":{\"e\":[[],[{}]]}}",
		"\"\xE6\x97\xA5\xF0\x9F\x98\x80\"",
		"12345678901234567890123456789.123456789e-12",
	};
	dl_arena a = DL_ARENA_INIT;
	dl_buf b1 = DL_BUF_INIT, b2 = DL_BUF_INIT;
	for (size_t i = 0; i < sizeof docs / sizeof *docs; i++) {
		dl_json *v, *v2;
		assert_int_equal(dl_json_parse(&a, docs[i], strlen(docs[i]), "doc", &v), 0);
		dl_buf_clear(&b1);
		assert_int_equal(dl_json_write(&b1, v), 0);
		assert_string_equal(b1.data, docs[i]); /* already compact and canonical */
		assert_int_equal(dl_json_parse(&a, b1.data, b1.len, "again", &v2), 0);
		dl_buf_clear(&b2);
		assert_int_equal(dl_json_write(&b2, v2), 0);
		assert_string_equal(b1.data, b2.data);
	}
	/* Whitespace and escapes are normalized. */
	const char *loose = " { \"k\\u0041\" : [ 1 , \"\\/\\u00e9\" ] } ";
	dl_json *v;
	assert_int_equal(dl_json_parse(&a, loose, strlen(loose), "doc", &v), 0);
	dl_buf_clear(&b1);
	assert_int_equal(dl_json_write(&b1, v), 0);
	assert_string_equal(b1.data, "{\"kA\":[1,\"/\xC3\xA9\"]}");
	assert_int_equal(dl_json_write(&b1, NULL), DL_EINVALID);
	dl_arena_free(&a);
	dl_buf_free(&b1);
	dl_buf_free(&b2);
}

/* Newline-delimited output: one writer per line, re-initialized. */
static void writer_ndjson(void **state)
{
	(void)state;
	dl_buf b = DL_BUF_INIT;
	dl_json_writer w;
	for (int i = 0; i < 3; i++) {
		dl_jw_init(&w, &b);
		dl_jw_object_begin(&w);
		dl_jw_key(&w, "n");
		dl_jw_int(&w, i);
		dl_jw_object_end(&w);
		assert_int_equal(dl_jw_finish(&w), 0);
		dl_buf_putc(&b, '\n');
	}
	assert_string_equal(b.data, "{\"n\":0}\n{\"n\":1}\n{\"n\":2}\n");
	dl_buf_free(&b);
}

static void strings_must_be_utf8(void **state)
{
	(void)state;
	dl_buf b = DL_BUF_INIT;
	dl_json_writer w;
	dl_jw_init(&w, &b);
	dl_jw_array_begin(&w);
	dl_jw_string(&w, "caf\xC3\xA9 \xF0\x9F\x98\x80 \x7F");
	dl_jw_array_end(&w);
	assert_int_equal(dl_jw_finish(&w), 0);
	assert_string_equal(b.data, "[\"caf\xC3\xA9 \xF0\x9F\x98\x80 \x7F\"]");
	static const char *bad[] = {"\xC3", "a\xFF\x62", "\xED\xA0\x80", "\xC0\xAF"};
	for (size_t i = 0; i < 4; i++) {
		dl_buf_clear(&b);
		dl_jw_init(&w, &b);
		dl_jw_string(&w, bad[i]);
		assert_int_equal(dl_jw_finish(&w), DL_EINVALID);
		assert_non_null(strstr(dl_error_last()->message, "not valid UTF-8"));
	}
	dl_buf_clear(&b);
	dl_jw_init(&w, &b);
	dl_jw_object_begin(&w);
	dl_jw_key(&w, "k\xFF");
	dl_jw_null(&w);
	dl_jw_object_end(&w);
	assert_int_equal(dl_jw_finish(&w), DL_EINVALID);
	dl_json hand = {.kind = DL_JSON_STRING, .u.str = {"\x80", 1}};
	dl_buf_clear(&b);
	assert_int_equal(dl_json_write(&b, &hand), DL_EINVALID);
	dl_buf_free(&b);
}

/* The writer's escaper against util's dl_buf_put_json_string on strings
 * of every length with escapes, UTF-8 and plain runs in all positions (word
 * boundaries of the 8-byte scan, growth for escapes). */
static void escaping_matches_reference(void **state)
{
	(void)state;
	static const char *pieces[] = {"a", "\"", "\\", "\n", "\x01", "\x1f", "\xC3\xA9", "\xE2\x82\xAC",
	                               "\xF0\x9F\x98\x80", "abcdefgh", "/", "\x7f"};
	uint64_t seed = 7;
	dl_buf in = DL_BUF_INIT, want = DL_BUF_INIT, got = DL_BUF_INIT;
	for (int round = 0; round < 3000; round++) {
		dl_buf_clear(&in);
		int count = round % 40;
		for (int k = 0; k < count; k++) {
			seed = seed * 6364136223846793005ULL + 1442695040888963407ULL;
			dl_buf_puts(&in, pieces[(seed >> 33) % 12]);
		}
		dl_buf_clear(&want);
		dl_buf_clear(&got);
		dl_buf_puts(&got, "x"); /* appends after existing content */
		dl_buf_puts(&want, "x");
		assert_int_equal(dl_buf_put_json_string(&want, in.data ? in.data : "", in.len), 0);
		dl_json_writer w;
		dl_jw_init(&w, &got);
		dl_jw_string_n(&w, in.data ? in.data : "", in.len);
		assert_int_equal(dl_jw_finish(&w), 0);
		assert_int_equal(got.len, want.len);
		assert_memory_equal(got.data, want.data, want.len);
	}
	dl_buf_free(&in);
	dl_buf_free(&want);
	dl_buf_free(&got);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(writer_builds_an_add_action),
		cmocka_unit_test(writer_rejects_misuse),
		cmocka_unit_test(doubles_shortest_round_trip),
		cmocka_unit_test(doubles_ignore_locale),
		cmocka_unit_test(write_round_trip),
		cmocka_unit_test(writer_ndjson),
		cmocka_unit_test(strings_must_be_utf8),
		cmocka_unit_test(escaping_matches_reference),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
