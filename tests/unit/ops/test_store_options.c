/* Every public entry point that takes a table URI also takes the caller's
 * store or store options, and never opens another store behind it; option
 * structs of version 1 are still accepted, unknown versions refused. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include "ops_fixture.h"
#include "deltalake.h"
#include "storage/store_fault.h"
#include "storage/store_mem.h"
#include "util/error.h"

/* Through a fault:// store: each entry point's calls show up in its counts,
 * so they went through the caller's store. */
static void entry_points_use_the_callers_store(void **state)
{
	(void)state;
	dl_store *st;
	assert_int_equal(dl_store_open(&st, "fault://mem://opts-a/t", NULL), 0);
	dl_store_fault_counts c0, c;

	dl_create_options co = DL_CREATE_OPTIONS_INIT;
	co.schema_ddl = "id BIGINT";
	co.store = st;
	int64_t v;
	assert_int_equal(dl_create_table(&v, NULL, &co), 0);
	assert_int_equal(dl_store_fault_counts_get(&c, st), 0);
	assert_true(c.calls[DL_FAULT_PUT_IF_ABSENT] >= 1);

	dl_write_options wo = fx_opts(DL_WRITE_APPEND);
	wo.store = st;
	c0 = c;
	assert_int_equal(fx_write(&v, NULL, "id BIGINT", "1;2", &wo), 0);
	assert_int_equal(v, 1);
	assert_int_equal(dl_store_fault_counts_get(&c, st), 0);
	assert_true(c.calls[DL_FAULT_PUT_IF_ABSENT] > c0.calls[DL_FAULT_PUT_IF_ABSENT]);

	dl_transaction_options to = DL_TRANSACTION_OPTIONS_INIT;
	to.store = st;
	dl_transaction *t;
	c0 = c;
	assert_int_equal(dl_transaction_begin(&t, NULL, &to), 0);
	assert_int_equal(dl_transaction_set_app_version(t, "app", 1), 0);
	assert_int_equal(dl_transaction_commit(&v, t), 0);
	assert_int_equal(v, 2);
	dl_transaction_free(t);
	assert_int_equal(dl_store_fault_counts_get(&c, st), 0);
	assert_true(c.total > c0.total);

	dl_snapshot_options so = DL_SNAPSHOT_OPTIONS_INIT;
	so.store = st;
	dl_snapshot *snap;
	assert_int_equal(dl_snapshot_open(&snap, NULL, &so), 0);
	assert_int_equal(dl_snapshot_version(snap), 2);
	dl_snapshot_free(snap);
	dl_store_free(st);

	/* the same table through store options: a failing store fails them */
	const char *keys[] = {"fault.fail_kind", "fault.fail_nth"}, *values[] = {"list", "1"};
	dl_store_options sto = DL_STORE_OPTIONS_INIT;
	sto.keys = keys, sto.values = values, sto.noptions = 2;
	so = (dl_snapshot_options)DL_SNAPSHOT_OPTIONS_INIT;
	so.store_options = &sto;
	assert_int_equal(dl_snapshot_open(&snap, "fault://mem://opts-a/t", &so), DL_EIO);
	assert_non_null(strstr(dl_error_last()->message, "fault injected"));
	dl_changes_options cho = DL_CHANGES_OPTIONS_INIT;
	cho.store_options = &sto;
	struct ArrowArrayStream as;
	assert_int_equal(dl_table_changes(&as, "fault://mem://opts-a/t", &cho), DL_EIO);
	wo = fx_opts(DL_WRITE_APPEND);
	wo.store_options = &sto;
	assert_int_equal(fx_write(&v, "fault://mem://opts-a/t", "id BIGINT", "3", &wo), DL_EIO);
	to = (dl_transaction_options)DL_TRANSACTION_OPTIONS_INIT;
	to.store_options = &sto;
	assert_int_equal(dl_transaction_begin(&t, "fault://mem://opts-a/t", &to), DL_EIO);
	co = (dl_create_options)DL_CREATE_OPTIONS_INIT;
	co.schema_ddl = "id BIGINT";
	co.mode = DL_CREATE_IF_NOT_EXISTS;
	co.store_options = &sto;
	assert_int_equal(dl_create_table(&v, "fault://mem://opts-a/t", &co), DL_EIO);
	/* and without the fault, the options reach a working store */
	so.store_options = NULL;
	assert_int_equal(dl_snapshot_open(&snap, "fault://mem://opts-a/t", &so), 0);
	dl_snapshot_free(snap);
	dl_store_mem_drop("opts-a");
}

static void option_versions(void **state)
{
	(void)state;
	/* version 1 callers: the fields added in version 2 are not read (the
	 * garbage store pointer below would crash if they were) */
	dl_create_options co = DL_CREATE_OPTIONS_INIT;
	co.version = 1;
	co.schema_ddl = "id BIGINT";
	co.store = (dl_store *)(uintptr_t)1;
	int64_t v;
	assert_int_equal(dl_create_table(&v, "mem://opts-b/t", &co), 0);
	dl_write_options wo = fx_opts(DL_WRITE_APPEND);
	wo.version = 1;
	wo.store = (dl_store *)(uintptr_t)1;
	assert_int_equal(fx_write(&v, "mem://opts-b/t", "id BIGINT", "1", &wo), 0);
	dl_snapshot_options so = DL_SNAPSHOT_OPTIONS_INIT;
	so.version = 1;
	so.store_options = (const dl_store_options *)(uintptr_t)1;
	so.nallowed_roots = 5;
	dl_snapshot *snap;
	assert_int_equal(dl_snapshot_open(&snap, "mem://opts-b/t", &so), 0);
	dl_snapshot_free(snap);
	dl_transaction_options to = DL_TRANSACTION_OPTIONS_INIT;
	to.version = 1;
	to.store = (dl_store *)(uintptr_t)1;
	dl_transaction *t;
	assert_int_equal(dl_transaction_begin(&t, "mem://opts-b/t", &to), 0);
	dl_transaction_free(t);

	/* 0 and future versions are refused, naming the struct */
	struct {
		int *version;
		const char *name;
	} cases[] = {{&co.version, "dl_create_options"}, {&wo.version, "dl_write_options"},
	             {&so.version, "dl_snapshot_options"}, {&to.version, "dl_transaction_options"}};
	for (int bad = 0; bad < 2; bad++) {
		for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) *cases[i].version = bad ? 99 : 0;
		assert_int_equal(dl_create_table(&v, "mem://opts-b/t", &co), DL_EINVALID);
		assert_non_null(strstr(dl_error_last()->message, cases[0].name));
		assert_int_equal(fx_write(&v, "mem://opts-b/t", "id BIGINT", "1", &wo), DL_EINVALID);
		assert_non_null(strstr(dl_error_last()->message, cases[1].name));
		assert_int_equal(dl_snapshot_open(&snap, "mem://opts-b/t", &so), DL_EINVALID);
		assert_non_null(strstr(dl_error_last()->message, cases[2].name));
		assert_int_equal(dl_transaction_begin(&t, "mem://opts-b/t", &to), DL_EINVALID);
		assert_non_null(strstr(dl_error_last()->message, cases[3].name));
	}
	dl_changes_options cho = DL_CHANGES_OPTIONS_INIT;
	cho.version = 0;
	struct ArrowArrayStream as;
	assert_int_equal(dl_table_changes(&as, "mem://opts-b/t", &cho), DL_EINVALID);
	assert_non_null(strstr(dl_error_last()->message, "dl_changes_options"));
	dl_store_mem_drop("opts-b");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(entry_points_use_the_callers_store),
		cmocka_unit_test(option_versions),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
