/* dl_transaction_write: Arrow data appended into a public transaction,
 * committed together with removes and app ids, under the same rules as
 * dl_write; failed or abandoned transactions leave no files behind. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include "columnar/batch_stream.h"
#include "deltalake/txn.h"
#include "deltalake/write.h"
#include "log/snapshot.h"
#include "ops_fixture.h"
#include "txn/txn.h"

static char *g_dir;

static void create(const char *uri, const char *ddl, const char *const *props, int nprops,
                   const char *part, const char *check)
{
	dl_create_options c = DL_CREATE_OPTIONS_INIT;
	c.schema_ddl = ddl;
	const char *keys[8], *vals[8];
	for (int i = 0; i < nprops; i++) {
		keys[i] = props[2 * i];
		vals[i] = props[2 * i + 1];
	}
	c.property_keys = keys;
	c.property_values = vals;
	c.nproperties = nprops;
	const char *parts[] = {part};
	if (part) {
		c.partition_columns = parts;
		c.npartition_columns = 1;
	}
	const char *cn[] = {"positive"}, *ce[] = {check};
	if (check) {
		c.constraint_names = cn;
		c.constraint_exprs = ce;
		c.nconstraints = 1;
	}
	int64_t v;
	if (dl_create_table(&v, uri, &c) < 0) fail_msg("create: %s", dl_error_last()->message);
}

/* dl_transaction_write of rows "v,v;v,v" with the given schema. */
static int txn_write(dl_transaction *t, const char *ddl, const char *rows,
                     const dl_transaction_write_options *o)
{
	dl_batch *b = fx_batch(ddl, rows);
	assert_non_null(b);
	dl_type *ty = dl_type_ref(b->schema);
	dl_batch_stream *s;
	assert_int_equal(dl_batch_stream_from_batches(&s, ty, &b, 1), 0);
	dl_type_unref(ty);
	struct ArrowArrayStream as;
	assert_int_equal(dl_batch_stream_export(&as, s), 0);
	int rc = dl_transaction_write(t, &as, o);
	if (as.release) as.release(&as);
	return rc;
}

static dl_transaction *begin(const char *uri, const char *operation)
{
	dl_transaction_options to = DL_TRANSACTION_OPTIONS_INIT;
	to.operation = operation;
	dl_transaction *t;
	if (dl_transaction_begin(&t, uri, &to) < 0) fail_msg("begin: %s", dl_error_last()->message);
	return t;
}

static void check_rows(const char *uri, const char *cols, const char *want)
{
	char *got = fx_read(uri, -1, cols);
	if (!got) fail_msg("read failed: %s", dl_error_last()->message);
	assert_string_equal(got, want);
	dl_free(got);
}

static void expect_in(const char *text, const char *part)
{
	if (!strstr(text, part)) fail_msg("'%s' not in:\n%s", part, text);
}

/* New data, a remove of the old file and an app id in one commit; two
 * writes in the transaction, metrics counting both. */
static void test_one_commit(void **state)
{
	(void)state;
	char *uri = fx_table(g_dir, "combined");
	create(uri, "id BIGINT NOT NULL, name STRING", NULL, 0, NULL, NULL);
	int64_t v;
	dl_write_options wo = fx_opts(DL_WRITE_APPEND);
	assert_int_equal(fx_write(&v, uri, "id BIGINT, name STRING", "1,a;2,b", &wo), 0);
	assert_int_equal(v, 1);

	dl_transaction *t = begin(uri, "STREAMING UPDATE");
	int64_t done;
	assert_int_equal(dl_transaction_app_version(&done, t, "stream-1"), DL_ENOTFOUND);
	/* The data's columns match case-insensitively; name is left NULL. */
	assert_int_equal(txn_write(t, "ID BIGINT, NAME STRING", "3,c;4,d", NULL), 0);
	assert_int_equal(txn_write(t, "id BIGINT", "5", NULL), 0);
	const dl_log_state *st = dl_snapshot_state(dl_txn_snapshot(t));
	assert_int_equal(st->nadds, 1);
	char *old = dl_strdup(dl_log_state_add(st, 0)->path);
	assert_int_equal(dl_transaction_remove_file(t, old, true), 0);
	assert_int_equal(dl_transaction_set_app_version(t, "stream-1", 7), 0);
	assert_int_equal(fx_count_parquet(uri), 3);
	if (dl_transaction_commit(&v, t) < 0) fail_msg("commit: %s", dl_error_last()->message);
	dl_transaction_free(t);
	assert_int_equal(v, 2);
	assert_int_equal(fx_count_parquet(uri), 3); /* committed: kept */

	check_rows(uri, NULL, "3,c;4,d;5,NULL");
	char *c = fx_commit(uri, 2);
	expect_in(c, "\"operation\":\"STREAMING UPDATE\"");
	expect_in(c, "\"numAddedFiles\":\"2\"");
	expect_in(c, "\"numOutputRows\":\"3\"");
	expect_in(c, "{\"txn\":{\"appId\":\"stream-1\",\"version\":7");
	expect_in(c, "{\"remove\":{\"path\":\"");
	expect_in(c, old);
	expect_in(c, "\"stats\":\"{\\\"numRecords\\\":2,");
	dl_free(c);
	dl_free(old);

	/* The same batch again: the app id says it is done, the caller skips. */
	t = begin(uri, "STREAMING UPDATE");
	assert_int_equal(dl_transaction_app_version(&done, t, "stream-1"), 0);
	assert_int_equal(done, 7);
	dl_transaction_free(t);
	assert_int_equal(fx_version(uri), 2);
	dl_free(uri);
}

/* A constraint violation fails the write and deletes its files, leaving
 * the transaction as it was (it still commits its other writes); a
 * transaction freed without committing deletes its writes' files. */
static void test_failure_cleans_up(void **state)
{
	(void)state;
	char *uri = fx_table(g_dir, "violation");
	create(uri, "id BIGINT NOT NULL, name STRING", NULL, 0, NULL, "id > 0");
	dl_transaction *t = begin(uri, "WRITE");
	dl_transaction_write_options o = DL_TRANSACTION_WRITE_OPTIONS_INIT;
	o.max_records_per_file = 1;
	assert_int_equal(txn_write(t, "id BIGINT, name STRING", "9,q;8,p", &o), 0);
	assert_int_equal(fx_count_parquet(uri), 2);
	assert_int_equal(txn_write(t, "id BIGINT, name STRING", "3,c;-1,z", &o), DL_ECONSTRAINT);
	expect_in(dl_error_last()->message, "positive");
	assert_int_equal(fx_count_parquet(uri), 2);
	/* NOT NULL through a missing column, unknown columns, bad types. */
	assert_int_equal(txn_write(t, "name STRING", "x", NULL), DL_ECONSTRAINT);
	assert_int_equal(txn_write(t, "id BIGINT, other STRING", "1,x", NULL), DL_ESCHEMA);
	assert_int_equal(txn_write(t, "id BOOLEAN", "true", NULL), DL_ESCHEMA);
	dl_transaction_write_options bad = DL_TRANSACTION_WRITE_OPTIONS_INIT;
	bad.version = 99;
	assert_int_equal(txn_write(t, "id BIGINT", "1", &bad), DL_EINVALID);
	assert_int_equal(fx_count_parquet(uri), 2);
	/* Never committed: the table is unchanged and the files are gone. */
	dl_transaction_free(t);
	assert_int_equal(fx_count_parquet(uri), 0);
	assert_int_equal(fx_version(uri), 0);
	check_rows(uri, NULL, "");

	/* After a failed write the others still commit, alone. */
	t = begin(uri, "WRITE");
	assert_int_equal(txn_write(t, "id BIGINT, name STRING", "1,a;2,b", &o), 0);
	assert_int_equal(txn_write(t, "id BIGINT, name STRING", "0,z", &o), DL_ECONSTRAINT);
	int64_t v;
	if (dl_transaction_commit(&v, t) < 0) fail_msg("commit: %s", dl_error_last()->message);
	dl_transaction_free(t);
	assert_int_equal(v, 1);
	assert_int_equal(fx_count_parquet(uri), 2);
	check_rows(uri, NULL, "1,a;2,b");
	char *c = fx_commit(uri, 1);
	expect_in(c, "\"numOutputRows\":\"2\"");
	dl_free(c);
	dl_free(uri);
}

/* Identity columns: values after the high-water mark, which the commit's
 * metaData carries; a second write in the transaction is refused before
 * it joins, and the first still commits. */
static void test_identity(void **state)
{
	(void)state;
	char *uri = fx_table(g_dir, "identity");
	create(uri, "id BIGINT GENERATED ALWAYS AS IDENTITY, name STRING", NULL, 0, NULL, NULL);
	dl_transaction *t = begin(uri, "WRITE");
	assert_int_equal(txn_write(t, "name STRING", "a;b", NULL), 0);
	assert_int_equal(txn_write(t, "name STRING", "c", NULL), DL_EINVALID);
	expect_in(dl_error_last()->message, "one dl_transaction_write per transaction");
	assert_int_equal(txn_write(t, "id BIGINT, name STRING", "5,c", NULL), DL_ECONSTRAINT);
	int64_t v;
	if (dl_transaction_commit(&v, t) < 0) fail_msg("commit: %s", dl_error_last()->message);
	dl_transaction_free(t);
	assert_int_equal(fx_count_parquet(uri), 1);
	check_rows(uri, NULL, "1,a;2,b");
	char *c = fx_commit(uri, v);
	expect_in(c, "delta.identity.highWaterMark");
	dl_free(c);
	dl_free(uri);
}

/* The table's partitioning: directories and partitionValues. */
static void test_partitioned(void **state)
{
	(void)state;
	char *uri = fx_table(g_dir, "partitioned");
	create(uri, "id BIGINT, d STRING", NULL, 0, "d", NULL);
	dl_transaction *t = begin(uri, "WRITE");
	assert_int_equal(txn_write(t, "id BIGINT, d STRING", "1,x;2,y;3,x", NULL), 0);
	int64_t v;
	assert_int_equal(dl_transaction_commit(&v, t), 0);
	dl_transaction_free(t);
	check_rows(uri, NULL, "1,x;2,y;3,x");
	char *c = fx_commit(uri, v);
	expect_in(c, "\"partitionValues\":{\"d\":\"x\"}");
	expect_in(c, "\"partitionValues\":{\"d\":\"y\"}");
	expect_in(c, "\"path\":\"d=x/");
	dl_free(c);
	char *dir = fx_table(uri, "d=y");
	assert_int_equal(fx_count_parquet(dir), 1);
	dl_free(dir);

	/* A rearranging write: dataChange false, files rolled at 1 row. */
	t = begin(uri, "OPTIMIZE");
	dl_transaction_write_options o = DL_TRANSACTION_WRITE_OPTIONS_INIT;
	o.data_change = false;
	o.max_records_per_file = 1;
	assert_int_equal(txn_write(t, "d STRING, id BIGINT", "z,4;z,5", &o), 0);
	assert_int_equal(dl_transaction_commit(&v, t), 0);
	dl_transaction_free(t);
	c = fx_commit(uri, v);
	expect_in(c, "\"partitionValues\":{\"d\":\"z\"}");
	expect_in(c, "\"dataChange\":false");
	assert_null(strstr(c, "\"dataChange\":true"));
	expect_in(c, "\"numFiles\":\"2\"");
	dl_free(c);
	check_rows(uri, NULL, "1,x;2,y;3,x;4,z;5,z");
	dl_free(uri);
}

/* Column mapping: physical names in partition values and stats. */
static void test_column_mapping(void **state)
{
	(void)state;
	char *uri = fx_table(g_dir, "mapped");
	const char *props[] = {"delta.columnMapping.mode", "name"};
	create(uri, "id BIGINT, d STRING", props, 1, "d", NULL);
	dl_transaction *t = begin(uri, "WRITE");
	assert_int_equal(txn_write(t, "id BIGINT, d STRING", "1,x;2,x", NULL), 0);
	int64_t v;
	assert_int_equal(dl_transaction_commit(&v, t), 0);
	dl_transaction_free(t);
	check_rows(uri, "d,id", "x,1;x,2");
	char *c = fx_commit(uri, v);
	expect_in(c, "\"partitionValues\":{\"col-");
	expect_in(c, "\\\"minValues\\\":{\\\"col-");
	assert_null(strstr(c, "\"partitionValues\":{\"d\""));
	dl_free(c);
	dl_free(uri);
}

/* Row tracking: the second write of a transaction continues the ids of
 * the first; one domain with the final mark. */
static void test_row_tracking(void **state)
{
	(void)state;
	char *uri = fx_table(g_dir, "rows");
	const char *props[] = {"delta.enableRowTracking", "true"};
	create(uri, "id BIGINT", props, 1, NULL, NULL);
	int64_t v;
	dl_write_options wo = fx_opts(DL_WRITE_APPEND);
	assert_int_equal(fx_write(&v, uri, "id BIGINT", "1;2", &wo), 0);
	dl_transaction *t = begin(uri, "WRITE");
	assert_int_equal(txn_write(t, "id BIGINT", "3;4", NULL), 0);
	assert_int_equal(txn_write(t, "id BIGINT", "5", NULL), 0);
	assert_int_equal(dl_transaction_commit(&v, t), 0);
	dl_transaction_free(t);
	char *c = fx_commit(uri, v);
	expect_in(c, "\"baseRowId\":2,\"defaultRowCommitVersion\":2");
	expect_in(c, "\"baseRowId\":4,\"defaultRowCommitVersion\":2");
	expect_in(c, "\"configuration\":\"{\\\"rowIdHighWaterMark\\\":4}\"");
	dl_free(c);
	check_rows(uri, "id," DL_SCAN_ROW_ID, "1,0;2,1;3,2;4,3;5,4");

	/* Another writer commits first: the retry moves the ids past its mark. */
	t = begin(uri, "WRITE");
	assert_int_equal(txn_write(t, "id BIGINT", "6", NULL), 0);
	assert_int_equal(fx_write(&v, uri, "id BIGINT", "7;8", &wo), 0);
	assert_int_equal(v, 3);
	if (dl_transaction_commit(&v, t) < 0) fail_msg("commit: %s", dl_error_last()->message);
	dl_transaction_free(t);
	assert_int_equal(v, 4);
	c = fx_commit(uri, v);
	expect_in(c, "\"baseRowId\":7,\"defaultRowCommitVersion\":4");
	expect_in(c, "\"configuration\":\"{\\\"rowIdHighWaterMark\\\":7}\"");
	dl_free(c);
	check_rows(uri, "id," DL_SCAN_ROW_ID, "1,0;2,1;3,2;4,3;5,4;6,7;7,5;8,6");
	dl_free(uri);
}

/* Generated and default values are filled in as by dl_write. */
static void test_generated(void **state)
{
	(void)state;
	char *uri = fx_table(g_dir, "generated");
	create(uri, "id BIGINT, twice BIGINT GENERATED ALWAYS AS (id * 2)", NULL, 0, NULL, NULL);
	dl_transaction *t = begin(uri, "WRITE");
	assert_int_equal(txn_write(t, "id BIGINT", "1;2", NULL), 0);
	int64_t v;
	assert_int_equal(dl_transaction_commit(&v, t), 0);
	dl_transaction_free(t);
	check_rows(uri, NULL, "1,2;2,4");
	t = begin(uri, "WRITE");
	assert_int_equal(txn_write(t, "id BIGINT, twice BIGINT", "3,7", NULL), DL_ECONSTRAINT);
	dl_transaction_free(t);
	check_rows(uri, NULL, "1,2;2,4");
	dl_free(uri);
}

static int setup(void **state)
{
	(void)state;
	g_dir = fx_tmpdir();
	return g_dir ? 0 : -1;
}

static int teardown(void **state)
{
	(void)state;
	char cmd[1100];
	snprintf(cmd, sizeof cmd, "rm -rf '%s'", g_dir);
	if (system(cmd) != 0) return -1;
	dl_free(g_dir);
	return 0;
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_one_commit),     cmocka_unit_test(test_failure_cleans_up),
		cmocka_unit_test(test_partitioned),    cmocka_unit_test(test_column_mapping),
		cmocka_unit_test(test_row_tracking),   cmocka_unit_test(test_generated),
		cmocka_unit_test(test_identity),
	};
	return cmocka_run_group_tests(tests, setup, teardown);
}
