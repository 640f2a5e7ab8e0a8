#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <string.h>
#include "util/error.h"
#include "util/buf.h"
#include "util/arena.h"

static void error_set_returns_code_and_message(void **state)
{
	(void)state;
	assert_int_equal(dl_error_set(DL_ENOTFOUND, "table %s has no _delta_log", "/t"), DL_ENOTFOUND);
	const dl_error *e = dl_error_last();
	assert_int_equal(e->code, DL_ENOTFOUND);
	assert_string_equal(e->message, "table /t has no _delta_log");
	dl_error_prefix("opening %s", "/t");
	assert_string_equal(dl_error_last()->message, "opening /t: table /t has no _delta_log");
	dl_error_set_class(DL_ECONFLICT, "ConcurrentAppendException", "x");
	assert_string_equal(dl_error_last()->klass, "ConcurrentAppendException");
	dl_error_clear();
	assert_int_equal(dl_error_last()->code, DL_OK);
}

static void buf_json_string_escapes(void **state)
{
	(void)state;
	dl_buf b = DL_BUF_INIT;
	const char s[] = "a\"b\\c\n\x01";
	assert_int_equal(dl_buf_put_json_string(&b, s, sizeof s - 1), 0);
	assert_string_equal(b.data, "\"a\\\"b\\\\c\\n\\u0001\"");
	dl_buf_clear(&b);
	assert_int_equal(dl_buf_printf(&b, "%d-%s", 42, "x"), 0);
	assert_string_equal(b.data, "42-x");
	dl_buf_free(&b);
}

static void arena_allocates_aligned_and_large(void **state)
{
	(void)state;
	dl_arena a = DL_ARENA_INIT;
	for (int i = 0; i < 10000; i++) {
		char *p = dl_arena_alloc(&a, (size_t)(i % 100) + 1);
		assert_non_null(p);
		assert_int_equal((uintptr_t)p % 16, 0);
		memset(p, 1, (size_t)(i % 100) + 1);
	}
	char *big = dl_arena_alloc(&a, 1 << 20);
	assert_non_null(big);
	memset(big, 2, 1 << 20);
	assert_string_equal(dl_arena_strdup(&a, "hello"), "hello");
	dl_arena_reset(&a);
	assert_non_null(dl_arena_alloc(&a, 10));
	dl_arena_free(&a);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(error_set_returns_code_and_message),
		cmocka_unit_test(buf_json_string_escapes),
		cmocka_unit_test(arena_allocates_aligned_and_large),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
