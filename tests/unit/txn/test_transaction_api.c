/* The public transaction API (deltalake/txn.h) on a local table: adding
 * files the application wrote, idempotent streaming progress through app
 * ids, removing live files (unknown ones refused), conflicts reported with
 * their class. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "deltalake.h"
#include "txn/txn.h"
#include "util/error.h"

static char dir[64];

static int setup(void **state)
{
	(void)state;
	strcpy(dir, "/tmp/dl-txn-api-XXXXXX");
	if (!mkdtemp(dir)) return -1;
	dl_store *s;
	if (dl_store_open(&s, dir, NULL) < 0) return -1;
	dl_transaction *t;
	if (dl_txn_begin(&t, s, NULL, NULL) < 0) return -1;
	dl_protocol p = {1, 2, NULL, 0, NULL, 0};
	const char *parts[] = {"d"};
	dl_metadata m = {.id = "a91f0000-0000-4000-8000-000000000000",
	                 .schema_string = "{\"type\":\"struct\",\"fields\":[{\"name\":\"x\",\"type\":"
	                                  "\"long\",\"nullable\":true,\"metadata\":{}},{\"name\":\"d\","
	                                  "\"type\":\"string\",\"nullable\":true,\"metadata\":{}}]}",
	                 .partition_columns = parts, .npartition_columns = 1, .created_time = DL_NONE};
	int64_t v;
	int rc = dl_txn_set_protocol(t, &p);
	if (rc == 0) rc = dl_txn_set_metadata(t, &m);
	if (rc == 0) rc = dl_txn_commit(t, &v);
	dl_txn_free(t);
	dl_store_free(s);
	return rc;
}

static int teardown(void **state)
{
	(void)state;
	char cmd[128];
	snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
	return system(cmd) == 0 ? 0 : -1;
}

static int64_t add(const char *path, const char *d, const char *app, int64_t batch)
{
	dl_transaction *t;
	dl_transaction_options o = DL_TRANSACTION_OPTIONS_INIT;
	o.operation = "STREAMING UPDATE";
	assert_int_equal(dl_transaction_begin(&t, dir, &o), 0);
	int64_t done = -1, v = -1;
	if (app && dl_transaction_app_version(&done, t, app) == 0 && done >= batch) {
		dl_transaction_free(t);
		return -1; /* already committed */
	}
	dl_error_clear();
	const char *keys[] = {"d"}, *vals[] = {d};
	dl_transaction_file f = {.path = path, .partition_keys = keys, .partition_values = vals,
	                         .npartitions = 1, .size = 321, .stats_json = "{\"numRecords\":7}",
	                         .data_change = true};
	assert_int_equal(dl_transaction_add_file(t, &f), 0);
	if (app) assert_int_equal(dl_transaction_set_app_version(t, app, batch), 0);
	assert_int_equal(dl_transaction_set_metric(t, "numOutputRows", 7), 0);
	assert_int_equal(dl_transaction_commit(&v, t), 0);
	dl_transaction_free(t);
	return v;
}

static void test_add_and_app_ids(void **state)
{
	(void)state;
	assert_int_equal(add("d=a/f1.parquet", "a", "stream", 1), 1);
	assert_int_equal(add("d=a/f2.parquet", "a", "stream", 1), -1); /* replayed batch skipped */
	assert_int_equal(add("d=b/f2.parquet", "b", "stream", 2), 2);
	dl_snapshot *s;
	assert_int_equal(dl_snapshot_open(&s, dir, NULL), 0);
	assert_int_equal(dl_snapshot_file_count(s), 2);
	int64_t v;
	assert_int_equal(dl_snapshot_app_version(&v, s, "stream"), 0);
	assert_int_equal(v, 2);
	assert_non_null(strstr(dl_snapshot_commit_info(s), "\"operation\":\"STREAMING UPDATE\""));
	dl_snapshot_free(s);
}

static void test_remove_and_conflict(void **state)
{
	(void)state;
	dl_transaction *a, *b;
	assert_int_equal(dl_transaction_begin(&a, dir, NULL), 0);
	assert_int_equal(dl_transaction_begin(&b, dir, NULL), 0);
	assert_int_equal(dl_transaction_remove_file(a, "nope.parquet", true), DL_ENOTFOUND);
	assert_int_equal(dl_transaction_remove_file(a, "d=a/f1.parquet", true), 0);
	assert_int_equal(dl_transaction_remove_file(b, "d=a/f1.parquet", true), 0);
	int64_t v;
	assert_int_equal(dl_transaction_commit(&v, a), 0);
	assert_int_equal(v, 3);
	assert_int_equal(dl_transaction_commit(&v, b), DL_ECONFLICT);
	assert_string_equal(dl_error_last()->klass, "DELTA_CONCURRENT_DELETE_READ");
	dl_transaction_free(a);
	dl_transaction_free(b);
	dl_snapshot *s;
	assert_int_equal(dl_snapshot_open(&s, dir, NULL), 0);
	assert_int_equal(dl_snapshot_version(s), 3);
	assert_int_equal(dl_snapshot_file_count(s), 1);
	dl_snapshot_free(s);
	/* options are versioned */
	dl_transaction_options bad = DL_TRANSACTION_OPTIONS_INIT;
	bad.version = 99;
	assert_int_equal(dl_transaction_begin(&a, dir, &bad), DL_EINVALID);
	assert_int_equal(dl_transaction_begin(&a, "/nonexistent/table", NULL), DL_ENOTFOUND);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_add_and_app_ids),
		cmocka_unit_test(test_remove_and_conflict),
	};
	return cmocka_run_group_tests(tests, setup, teardown);
}
