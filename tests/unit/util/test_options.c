/* Versioned option structs (util/options.h): every version from 1 to the
 * current one is accepted and read only as far as it reaches; 0 and future
 * versions are refused naming the struct. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdbool.h>
#include <stdint.h>
#include <cmocka.h>
#include <string.h>
#include "util/error.h"
#include "util/options.h"

/* Version 1 of an options struct, as an old caller compiled it. */
typedef struct opts_v1 {
	int version;
	int a;
	int b;
} opts_v1;

/* Version 2 added a more aligned field, which lands past sizeof(opts_v1). */
typedef struct opts_v2 {
	int version;
	int a;
	int b;
	void *p;
	int64_t c;
} opts_v2;

static const size_t ends[] = {DL_OPTIONS_END(opts_v2, b), DL_OPTIONS_END(opts_v2, c)};
DL_OPTIONS_ENDS_CHECK(ends, 2);

static void end_of_a_version_is_its_last_field(void **state)
{
	(void)state;
	assert_int_equal(ends[0], sizeof(opts_v1));
	assert_true(offsetof(opts_v2, p) > sizeof(opts_v1));
	assert_int_equal(ends[1], sizeof(opts_v2));
}

static void older_version_reads_only_its_fields(void **state)
{
	(void)state;
	/* The old struct sits at the end of a page-like buffer: reading past it
	 * would read the guard bytes (and ASan would catch it on the heap). */
	struct {
		opts_v1 v1;
		unsigned char guard[16];
	} mem;
	memset(mem.guard, 0xAB, sizeof mem.guard);
	mem.v1 = (opts_v1){1, 10, 20};
	opts_v2 dst = {2, 0, 0, (void *)&mem, 77};
	assert_int_equal(dl_options_load(&dst, &mem.v1, ends, 2, "opts", "OPTS_INIT"), 0);
	assert_int_equal(dst.version, 2);
	assert_int_equal(dst.a, 10);
	assert_int_equal(dst.b, 20);
	assert_ptr_equal(dst.p, (void *)&mem); /* defaults of the newer fields kept */
	assert_int_equal(dst.c, 77);
}

static void current_version_is_copied_whole(void **state)
{
	(void)state;
	opts_v2 src = {2, 1, 2, (void *)&src, 3};
	opts_v2 dst = {2, 0, 0, NULL, 0};
	assert_int_equal(dl_options_load(&dst, &src, ends, 2, "opts", "OPTS_INIT"), 0);
	assert_memory_equal(&dst, &src, sizeof dst);
	/* NULL options: the defaults stay. */
	opts_v2 def = {2, 5, 6, NULL, 7};
	assert_int_equal(dl_options_load(&def, NULL, ends, 2, "opts", "OPTS_INIT"), 0);
	assert_int_equal(def.a, 5);
	assert_int_equal(def.c, 7);
}

static void unknown_versions_are_refused(void **state)
{
	(void)state;
	opts_v2 dst = {2, 0, 0, NULL, 0};
	opts_v2 bad = {0, 9, 9, NULL, 9};
	assert_int_equal(dl_options_load(&dst, &bad, ends, 2, "dl_x_options", "DL_X_OPTIONS_INIT"),
	                 DL_EINVALID);
	assert_string_equal(dl_error_last()->message,
	                    "dl_x_options.version is 0; this library knows versions 1 to 2: "
	                    "initialize the options with DL_X_OPTIONS_INIT");
	assert_int_equal(dst.a, 0); /* nothing copied */
	bad.version = 3;
	assert_int_equal(dl_options_load(&dst, &bad, ends, 2, "dl_x_options", "DL_X_OPTIONS_INIT"),
	                 DL_EINVALID);
	assert_non_null(strstr(dl_error_last()->message, "version is 3"));
	assert_int_equal(dl_options_check(-1, 1, "dl_y_options", "DL_Y_OPTIONS_INIT"), DL_EINVALID);
	assert_string_equal(dl_error_last()->message,
	                    "dl_y_options.version is -1; this library knows version 1 only: "
	                    "initialize the options with DL_Y_OPTIONS_INIT");
	assert_int_equal(dl_options_check(1, 1, "dl_y_options", "DL_Y_OPTIONS_INIT"), 0);
	assert_int_equal(dl_options_check(2, 3, "dl_y_options", "DL_Y_OPTIONS_INIT"), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(end_of_a_version_is_its_last_field),
		cmocka_unit_test(older_version_reads_only_its_fields),
		cmocka_unit_test(current_version_is_copied_whole),
		cmocka_unit_test(unknown_versions_are_refused),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
