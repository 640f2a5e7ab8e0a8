/* dl_name_index answers exactly as the loops it replaces (exact match
 * first, then the first case-insensitive one; the duplicate pair a loop
 * over i of j < i finds), for few fields (scanned) and many (hashed). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>
#include "columnar/name_index.h"
#include "util/mem.h"

static unsigned seed = 7;
static unsigned rnd(unsigned n)
{
	seed = seed * 1103515245u + 12345u;
	return (seed >> 8) % n;
}

static int loop_find_ci(const dl_type *t, const char *name)
{
	for (int i = 0; i < t->nchildren; i++)
		if (strcasecmp(t->children[i].name, name) == 0) return i;
	return -1;
}

static int loop_find(const dl_type *t, const char *name)
{
	for (int i = 0; i < t->nchildren; i++)
		if (strcmp(t->children[i].name, name) == 0) return i;
	return loop_find_ci(t, name);
}

static void random_name(char *out, size_t cap)
{
	static const char alpha[] = "abAB_c";
	int len = 1 + (int)rnd(3);
	for (int i = 0; i < len && (size_t)i + 1 < cap; i++) out[i] = alpha[rnd(sizeof alpha - 1)];
	out[len] = 0;
}

static void check_width(int n, bool distinct)
{
	dl_field *fs = dl_calloc((size_t)n, sizeof *fs);
	char (*names)[16] = dl_calloc((size_t)n, sizeof *names);
	dl_type *it = dl_type_new(DL_TYPE_INTEGER);
	for (int i = 0; i < n; i++) {
		if (distinct) snprintf(names[i], sizeof names[i], "col%d", i);
		else random_name(names[i], sizeof names[i]);
		fs[i] = (dl_field){names[i], it, true, (char *)"{}"};
	}
	if (distinct && n > 2) snprintf(names[n - 1], sizeof names[n - 1], "COL%d", n / 2); /* one dup, last */
	dl_type *t = dl_type_struct(fs, n);
	assert_non_null(t);
	dl_name_index ix;
	assert_int_equal(dl_name_index_init(&ix, t), 0);
	for (int q = 0; q < 2000; q++) {
		char name[16];
		if (distinct) snprintf(name, sizeof name, rnd(2) ? "col%u" : "CoL%u", rnd((unsigned)n + 10));
		else random_name(name, sizeof name);
		assert_int_equal(dl_name_index_find_ci(&ix, name), loop_find_ci(t, name));
		assert_int_equal(dl_name_index_find(&ix, name), loop_find(t, name));
	}
	int a = -1, b = -1, wa = -1, wb = -1;
	for (int i = 1; i < n && wb < 0; i++)
		for (int j = 0; j < i; j++)
			if (strcasecmp(t->children[i].name, t->children[j].name) == 0) {
				wa = j;
				wb = i;
				break;
			}
	assert_int_equal(dl_name_index_duplicate(&ix, &a, &b), wb >= 0);
	assert_int_equal(a, wa);
	assert_int_equal(b, wb);
	dl_name_index_free(&ix);
	dl_type_unref(t);
	dl_type_unref(it);
	dl_free(names);
	dl_free(fs);
}

static void matches_the_loops(void **state)
{
	(void)state;
	int widths[] = {1, 5, 31, 32, 40, 500, 5000};
	for (size_t w = 0; w < sizeof widths / sizeof widths[0]; w++) {
		check_width(widths[w], true);
		check_width(widths[w], false);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {cmocka_unit_test(matches_the_loops)};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
