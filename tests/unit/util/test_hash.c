/* Hash maps: 1M string keys and 1M integer keys against a reference, removal
 * (backward shift keeps every other key findable), iteration, upsert. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "util/hash.h"

#define N 1000000

static void strmap_million_keys(void **state)
{
	(void)state;
	dl_strmap m;
	dl_strmap_init(&m, true);
	char key[32];
	for (uintptr_t i = 0; i < N; i++) {
		int n = snprintf(key, sizeof key, "part-%05lu.parquet", (unsigned long)i);
		assert_int_equal(dl_strmap_put(&m, key, (size_t)n, (void *)(i + 1), NULL), 0);
	}
	assert_int_equal(m.count, N);
	for (uintptr_t i = 0; i < N; i++) {
		int n = snprintf(key, sizeof key, "part-%05lu.parquet", (unsigned long)i);
		assert_ptr_equal(dl_strmap_get(&m, key, (size_t)n), (void *)(i + 1));
	}
	assert_null(dl_strmap_get(&m, "part-x", 6));
	/* Replacing returns the old value and keeps the count. */
	void *old = NULL;
	assert_int_equal(dl_strmap_put(&m, "part-00007.parquet", 18, (void *)99, &old), 0);
	assert_ptr_equal(old, (void *)8);
	assert_int_equal(m.count, N);
	/* Remove every third key; the rest must stay reachable. */
	for (uintptr_t i = 0; i < N; i += 3) {
		int n = snprintf(key, sizeof key, "part-%05lu.parquet", (unsigned long)i);
		assert_true(dl_strmap_remove(&m, key, (size_t)n, NULL));
		assert_false(dl_strmap_remove(&m, key, (size_t)n, NULL));
	}
	for (uintptr_t i = 0; i < N; i++) {
		int n = snprintf(key, sizeof key, "part-%05lu.parquet", (unsigned long)i);
		void *v;
		bool found = dl_strmap_find(&m, key, (size_t)n, &v);
		assert_int_equal(found, i % 3 != 0);
		if (found && i != 7) assert_ptr_equal(v, (void *)(i + 1));
	}
	size_t it = 0, seen = 0;
	const dl_strmap_slot *s;
	while (dl_strmap_next(&m, &it, &s)) seen++;
	assert_int_equal(seen, m.count);
	assert_int_equal(m.count, N - (N + 2) / 3);
	dl_strmap_free(&m);
}

static void strmap_borrowed_keys_and_upsert(void **state)
{
	(void)state;
	dl_strmap m;
	dl_strmap_init(&m, false);
	const char *k = "a\0b"; /* keys are bytes, NULs included */
	void **slot;
	bool inserted;
	assert_int_equal(dl_strmap_upsert(&m, k, 3, &slot, &inserted), 0);
	assert_true(inserted);
	assert_null(*slot);
	*slot = (void *)1;
	assert_int_equal(dl_strmap_upsert(&m, k, 3, &slot, &inserted), 0);
	assert_false(inserted);
	assert_ptr_equal(*slot, (void *)1);
	assert_null(dl_strmap_get(&m, "a", 1));
	assert_int_equal(dl_strmap_put(&m, "", 0, (void *)2, NULL), 0);
	assert_ptr_equal(dl_strmap_get(&m, "", 0), (void *)2);
	/* Borrowed: the map points at our bytes. */
	{
		size_t it = 0;
		const dl_strmap_slot *s;
		bool found = false;
		while (dl_strmap_next(&m, &it, &s)) found |= s->key == k;
		assert_true(found);
	}
	dl_strmap_free(&m);
	dl_strmap_free(&m); /* freeing twice is harmless */
}

static void u64map_million_keys(void **state)
{
	(void)state;
	dl_u64map m = DL_U64MAP_INIT;
	assert_int_equal(dl_u64map_reserve(&m, N), 0);
	size_t cap = m.cap;
	for (uint64_t i = 0; i < N; i++) {
		/* Keys with structure (multiples of 4096, and 0) must still spread. */
		assert_int_equal(dl_u64map_put(&m, i * 4096, (void *)(uintptr_t)(i + 1), NULL), 0);
	}
	assert_int_equal(m.cap, cap); /* reserve was enough */
	assert_int_equal(m.count, N);
	for (uint64_t i = 0; i < N; i++) assert_ptr_equal(dl_u64map_get(&m, i * 4096), (void *)(uintptr_t)(i + 1));
	assert_false(dl_u64map_find(&m, 1, NULL));
	for (uint64_t i = 0; i < N; i += 2) assert_true(dl_u64map_remove(&m, i * 4096, NULL));
	for (uint64_t i = 0; i < N; i++) assert_int_equal(dl_u64map_find(&m, i * 4096, NULL), i % 2 == 1);
	void **slot;
	bool inserted;
	assert_int_equal(dl_u64map_upsert(&m, 0, &slot, &inserted), 0);
	assert_true(inserted);
	size_t it = 0, seen = 0;
	const dl_u64map_slot *s;
	while (dl_u64map_next(&m, &it, &s)) seen++;
	assert_int_equal(seen, N / 2 + 1);
	dl_u64map_free(&m);
}

static void hash_spreads_bits(void **state)
{
	(void)state;
	/* Keys differing in one byte land in different low bits most of the time. */
	int same = 0;
	for (int i = 0; i < 1000; i++) {
		char a[16], b[16];
		memset(a, 'x', sizeof a);
		memcpy(b, a, sizeof b);
		b[i % 16] ^= (char)(1 << (i % 8));
		if ((dl_hash_bytes(a, sizeof a, 0) & 0xffff) == (dl_hash_bytes(b, sizeof b, 0) & 0xffff)) same++;
	}
	assert_true(same < 5);
	assert_int_not_equal(dl_hash_bytes("abc", 3, 0), dl_hash_bytes("abc", 3, 1));
	assert_int_not_equal(dl_hash_bytes("", 0, 0), dl_hash_bytes("\0", 1, 0));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(strmap_million_keys),
		cmocka_unit_test(strmap_borrowed_keys_and_upsert),
		cmocka_unit_test(u64map_million_keys),
		cmocka_unit_test(hash_spreads_bits),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
