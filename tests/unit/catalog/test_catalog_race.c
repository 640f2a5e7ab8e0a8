/* Catalog changes from racing processes (fork) on one file:// warehouse:
 * racing creates of one name have exactly one winner, the others get
 * TABLE_OR_VIEW_ALREADY_EXISTS; creates of different names all land; and
 * creates racing drops of one managed table leave the catalog consistent
 * (an entry exactly when its directory holds the Delta table it records). */
#include "catalog_fixture.h"
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/wait.h>
#include <cmocka.h>

#define NPROC 6

enum { WON = 0, LOST_EXISTS = 2, OTHER = 3 };

typedef int (*child_fn)(dl_catalog *c, int i, void *payload);

/* Runs fn in NPROC children released together; their exit codes to codes. */
static void race(const char *wh, child_fn fn, void *payload, int codes[NPROC])
{
	int go[2];
	assert_int_equal(pipe(go), 0);
	pid_t pids[NPROC];
	for (int i = 0; i < NPROC; i++) {
		pids[i] = fork();
		assert_true(pids[i] >= 0);
		if (pids[i] == 0) {
			close(go[1]);
			char b;
			(void)!read(go[0], &b, 1); /* returns at EOF: all start together */
			dl_catalog *c;
			int code = dl_catalog_open(&c, wh, NULL) < 0 ? OTHER : fn(c, i, payload);
			dl_catalog_free(c);
			_exit(code);
		}
	}
	close(go[0]);
	close(go[1]);
	for (int i = 0; i < NPROC; i++) {
		int st;
		assert_int_equal(waitpid(pids[i], &st, 0), pids[i]);
		codes[i] = WIFEXITED(st) ? WEXITSTATUS(st) : 100;
	}
}

static int create_same(dl_catalog *c, int i, void *payload)
{
	(void)i;
	(void)payload;
	int rc = cf_create(c, "S.Same", NULL, false, NULL);
	if (rc == 0) return WON;
	const dl_error *e = dl_error_last();
	if (rc == DL_EEXISTS && strcmp(e->klass, "TABLE_OR_VIEW_ALREADY_EXISTS") == 0)
		return LOST_EXISTS;
	fprintf(stderr, "child %d: %s [%s]\n", i, e->message, e->klass);
	return OTHER;
}

static int create_own(dl_catalog *c, int i, void *payload)
{
	(void)payload;
	char name[32];
	snprintf(name, sizeof name, "s.t%d", i);
	if (cf_create(c, name, NULL, false, NULL) == 0) return WON;
	fprintf(stderr, "child %d: %s\n", i, dl_error_last()->message);
	return OTHER;
}

static char *setup(void)
{
	char *dir = cf_tmpdir();
	assert_non_null(dir);
	dl_catalog *c;
	assert_int_equal(dl_catalog_open(&c, dir, NULL), 0);
	assert_int_equal(dl_catalog_create_schema(c, "s", false), 0);
	dl_catalog_free(c);
	return dir;
}

static void test_same_name(void **state)
{
	(void)state;
	char *dir = setup();
	int codes[NPROC];
	race(dir, create_same, NULL, codes);
	int won = 0, lost = 0;
	for (int i = 0; i < NPROC; i++) {
		won += codes[i] == WON;
		lost += codes[i] == LOST_EXISTS;
	}
	assert_int_equal(won, 1);
	assert_int_equal(lost, NPROC - 1);
	dl_catalog *c;
	assert_int_equal(dl_catalog_open(&c, dir, NULL), 0);
	dl_catalog_table_info info;
	assert_int_equal(dl_catalog_lookup_table(&info, c, "s.same"), 0);
	dl_snapshot *snap;
	assert_int_equal(dl_snapshot_open(&snap, info.uri, NULL), 0);
	assert_int_equal(dl_snapshot_version(snap), 0);
	assert_string_equal(dl_snapshot_table_id(snap), info.table_id);
	dl_snapshot_free(snap);
	dl_catalog_table_info_free(&info);
	/* The losers created no Delta version and left no files. */
	char tdir[600];
	snprintf(tdir, sizeof tdir, "%s/s.db/same", dir);
	dl_store *s;
	assert_int_equal(dl_store_open(&s, tdir, NULL), 0);
	dl_object_list l = {NULL, 0};
	assert_int_equal(dl_store_list_recursive(&l, s, ""), 0);
	assert_true(l.count > 0);
	for (size_t i = 0; i < l.count; i++)
		assert_non_null(strstr(l.items[i].path, "_delta_log/00000000000000000000."));
	dl_object_list_free(&l);
	dl_store_free(s);
	dl_catalog_free(c);
	cf_rmdir(dir);
	free(dir);
}

static void test_different_names(void **state)
{
	(void)state;
	char *dir = setup();
	int codes[NPROC];
	race(dir, create_own, NULL, codes);
	for (int i = 0; i < NPROC; i++) assert_int_equal(codes[i], WON);
	dl_catalog *c;
	assert_int_equal(dl_catalog_open(&c, dir, NULL), 0);
	dl_catalog_table_list tl;
	assert_int_equal(dl_catalog_list_tables(&tl, c, "s"), 0);
	assert_int_equal(tl.count, NPROC);
	for (size_t i = 0; i < tl.count; i++) {
		char want[32];
		snprintf(want, sizeof want, "t%zu", i);
		assert_string_equal(tl.items[i].name, want);
	}
	dl_catalog_table_list_free(&tl);
	dl_catalog_free(c);
	/* One schema change, then a reservation and an activation per table. */
	assert_int_equal(cf_count_objects(dir, "_catalog/_log"), 1 + 2 * NPROC);
	cf_rmdir(dir);
	free(dir);
}

#define ROUNDS 12

/* Even children create, odd ones drop, the same managed table. Any outcome
 * of one call is allowed except an unexpected error; what is checked is
 * the state at the end. */
static int create_or_drop(dl_catalog *c, int i, void *payload)
{
	(void)payload;
	for (int r = 0; r < ROUNDS; r++) {
		int rc = (i + r) % 2 ? dl_catalog_drop_table(c, "s.flip", true)
		                     : cf_create(c, "s.flip", NULL, true, NULL);
		if (rc == 0) continue;
		const dl_error *e = dl_error_last();
		/* Possible losses: the directory still being deleted by a drop
		 * (LOCATION_ALREADY_EXISTS), a racing create's Delta commit
		 * (EEXISTS / a conflict), the entry dropped while being created. */
		if (rc == DL_EEXISTS || rc == DL_ECONFLICT) continue;
		fprintf(stderr, "child %d round %d: rc %d %s [%s]\n", i, r, rc, e->message, e->klass);
		return OTHER;
	}
	return WON;
}

static void test_create_drop(void **state)
{
	(void)state;
	char *dir = setup();
	int codes[NPROC];
	race(dir, create_or_drop, NULL, codes);
	for (int i = 0; i < NPROC; i++) assert_int_equal(codes[i], WON);
	dl_catalog *c;
	assert_int_equal(dl_catalog_open(&c, dir, NULL), 0);
	char tdir[600];
	snprintf(tdir, sizeof tdir, "%s/s.db/flip", dir);
	dl_catalog_table_info info;
	int rc = dl_catalog_lookup_table(&info, c, "s.flip");
	if (rc == 0) {
		dl_snapshot *snap;
		assert_int_equal(dl_snapshot_open(&snap, info.uri, NULL), 0);
		assert_string_equal(dl_snapshot_table_id(snap), info.table_id);
		dl_snapshot_free(snap);
		dl_catalog_table_info_free(&info);
		assert_int_equal(dl_catalog_drop_table(c, "s.flip", false), 0);
	} else {
		assert_int_equal(rc, DL_ENOTFOUND);
		/* No entry: nothing being created, no files left. */
		assert_int_equal(cf_count_objects(tdir, ""), 0);
		assert_true(cf_error_is(dl_catalog_drop_table(c, "s.flip", false), DL_ENOTFOUND,
		                        "TABLE_OR_VIEW_NOT_FOUND"));
	}
	assert_int_equal(cf_count_objects(tdir, ""), 0);
	/* The name is free and usable. */
	assert_int_equal(cf_create(c, "s.flip", NULL, false, NULL), 0);
	dl_catalog_free(c);
	cf_rmdir(dir);
	free(dir);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_same_name),
		cmocka_unit_test(test_different_names),
		cmocka_unit_test(test_create_drop),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
