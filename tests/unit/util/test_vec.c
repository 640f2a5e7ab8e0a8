#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include "util/error.h"
#include "util/vec.h"

typedef struct pair {
	int a;
	double b;
} pair;

static void push_pop_reserve(void **state)
{
	(void)state;
	dl_vec_i64 v = DL_VEC_INIT;
	for (int64_t i = 0; i < 100000; i++) assert_int_equal(dl_vec_push(&v, i * 3), 0);
	assert_int_equal(v.len, 100000);
	assert_true(v.cap >= v.len);
	for (int64_t i = 0; i < 100000; i++) assert_int_equal(v.data[i], i * 3);
	assert_int_equal(dl_vec_last(&v), 299997);
	assert_int_equal(dl_vec_pop(&v), 299997);
	assert_int_equal(v.len, 99999);
	dl_vec_clear(&v);
	assert_int_equal(v.len, 0);
	dl_vec_free(&v);
	assert_null(v.data);

	DL_VEC(pair) p = DL_VEC_INIT;
	assert_int_equal(dl_vec_reserve(&p, 10), 0);
	size_t cap = p.cap;
	for (int i = 0; i < 10; i++) assert_int_equal(dl_vec_push(&p, ((pair){i, i / 2.0})), 0);
	assert_int_equal(p.cap, cap);
	assert_true(p.data[9].b == 4.5);
	/* An impossible size fails cleanly and leaves the vector as it was. */
	assert_int_equal(dl_vec_reserve(&p, SIZE_MAX), DL_ENOMEM);
	assert_int_equal(p.len, 10);
	assert_int_equal(p.data[3].a, 3);
	dl_vec_free(&p);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(push_pop_reserve),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
