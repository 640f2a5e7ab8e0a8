/* dl_delete: Spark's DeleteCommand cases (data predicate by copy-on-write
 * or deletion vectors, partition-only and unconditional deletes from
 * metadata), NULL predicates, the commitInfo Spark writes, refusals, and a
 * failing store at every call leaving the table as it was. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include "dml_fixture.h"

#define DDL "id BIGINT, name STRING, p INT"
#define ROWS "1,a,1;2,b,1;3,NULL,2;4,d,2"

static char *make(const char *name, const char *part, const char *const *props, int nprops)
{
	char *uri = fx_table(g_dir, name);
	dx_create(uri, DDL, part, props, nprops);
	dx_append(uri, DDL, ROWS);
	return uri;
}

static void test_copy_on_write(void **state)
{
	(void)state;
	char *uri = make("cow", NULL, NULL, 0);
	dl_delete_metrics m;
	dl_delete_options o = DL_DELETE_OPTIONS_INIT;
	o.user_metadata = "cleanup";
	assert_int_equal(dl_delete(&m, uri, "id = 2", &o), 0);
	assert_int_equal(m.version, 2);
	assert_int_equal(m.num_affected_rows, 1);
	assert_int_equal(m.numDeletedRows, 1);
	assert_int_equal(m.numCopiedRows, 3);
	assert_int_equal(m.numRemovedFiles, 1);
	assert_int_equal(m.numAddedFiles, 1);
	assert_true(m.numAddedBytes > 0 && m.numRemovedBytes > 0);
	assert_int_equal(m.numDeletionVectorsAdded, 0);
	dx_rows(uri, "id", "1;3;4");
	dx_commit_has(uri, 2, "\"operation\":\"DELETE\"");
	dx_commit_has(uri, 2, "\"operationParameters\":{\"predicate\":\"[\\\"(id = 2)\\\"]\"}");
	dx_commit_has(uri, 2, "\"numDeletedRows\":\"1\"");
	dx_commit_has(uri, 2, "\"numCopiedRows\":\"3\"");
	dx_commit_has(uri, 2, "\"numAddedFiles\":\"1\"");
	dx_commit_has(uri, 2, "\"numRemovedFiles\":\"1\"");
	dx_commit_has(uri, 2, "\"numDeletionVectorsAdded\":\"0\"");
	dx_commit_has(uri, 2, "\"numAddedChangeFiles\":\"0\"");
	dx_commit_has(uri, 2, "\"executionTimeMs\":");
	dx_commit_has(uri, 2, "\"scanTimeMs\":");
	dx_commit_has(uri, 2, "\"rewriteTimeMs\":");
	dx_commit_has(uri, 2, "\"userMetadata\":\"cleanup\"");
	dx_commit_has(uri, 2, "\"isBlindAppend\":false");
	dl_free(uri);
}

/* A predicate that is NULL for a row keeps it; no match commits nothing. */
static void test_null_predicate_and_no_match(void **state)
{
	(void)state;
	char *uri = make("nulls", NULL, NULL, 0);
	dl_delete_metrics m;
	assert_int_equal(dl_delete(&m, uri, "name <> 'a'", NULL), 0);
	assert_int_equal(m.num_affected_rows, 2);
	dx_rows(uri, "id,name", "1,a;3,NULL");
	assert_int_equal(dl_delete(&m, uri, "id > 100 OR NULL", NULL), 0);
	assert_int_equal(m.version, -1);
	assert_int_equal(m.num_affected_rows, 0);
	assert_int_equal(fx_version(uri), 2);
	dl_free(uri);
}

/* Idempotent DELETE: recorded even when nothing matched; then skipped. */
static void test_idempotent(void **state)
{
	(void)state;
	char *uri = make("idem", NULL, NULL, 0);
	dl_delete_options o = DL_DELETE_OPTIONS_INIT;
	o.txn_app_id = "etl";
	o.txn_version = 0;
	dl_delete_metrics m;
	assert_int_equal(dl_delete(&m, uri, "id = 99", &o), 0);
	assert_int_equal(m.version, 2);
	dx_commit_has(uri, 2, "{\"txn\":{\"appId\":\"etl\",\"version\":0");
	assert_int_equal(dl_delete(&m, uri, "id = 1", &o), 0);
	assert_int_equal(m.version, -1);
	dx_rows(uri, "id", "1;2;3;4");
	o.txn_version = 1;
	assert_int_equal(dl_delete(&m, uri, "id = 1", &o), 0);
	assert_int_equal(m.num_affected_rows, 1);
	dx_rows(uri, "id", "2;3;4");
	dl_free(uri);
}

static void test_deletion_vectors(void **state)
{
	(void)state;
	const char *props[] = {"delta.enableDeletionVectors", "true"};
	char *uri = make("dv", NULL, props, 1);
	int before = fx_count_parquet(uri);
	dl_delete_metrics m;
	assert_int_equal(dl_delete(&m, uri, "id = 3", NULL), 0);
	assert_int_equal(m.num_affected_rows, 1);
	assert_int_equal(m.numDeletionVectorsAdded, 1);
	assert_int_equal(m.numDeletionVectorsRemoved, 0);
	assert_int_equal(m.numRemovedFiles, 0);
	assert_int_equal(m.numAddedFiles, 0);
	assert_int_equal(m.numCopiedRows, 0);
	assert_int_equal(m.numRemovedBytes, 0);
	/* no data file written: a DV file of a few bytes */
	assert_int_equal(fx_count_parquet(uri), before);
	assert_int_equal(dx_count_dv_files(uri), 1);
	dx_rows(uri, "id", "1;2;4");
	dx_commit_has(uri, 2, "\"deletionVector\":{");
	dx_commit_has(uri, 2, "tightBounds\\\":false");
	/* a second delete in the same file updates its DV: Spark counts it in
	 * Added and Removed too */
	assert_int_equal(dl_delete(&m, uri, "id = 1", NULL), 0);
	assert_int_equal(m.numDeletionVectorsUpdated, 1);
	assert_int_equal(m.numDeletionVectorsAdded, 1);
	assert_int_equal(m.numDeletionVectorsRemoved, 1);
	dx_rows(uri, "id", "2;4");
	/* copy_on_write overrides the table */
	dl_delete_options o = DL_DELETE_OPTIONS_INIT;
	o.copy_on_write = true;
	assert_int_equal(dl_delete(&m, uri, "id = 2", &o), 0);
	assert_int_equal(m.numDeletionVectorsRemoved, 1);
	assert_int_equal(m.numAddedFiles, 1);
	assert_int_equal(m.numCopiedRows, 1);
	dx_rows(uri, "id", "4");
	dl_free(uri);
}

/* Partition-only predicates and no predicate remove whole files, counting
 * rows from the stats. */
static void test_metadata_only(void **state)
{
	(void)state;
	char *uri = make("parts", "p", NULL, 0);
	dl_delete_metrics m;
	assert_int_equal(dl_delete(&m, uri, "p = 2", NULL), 0);
	assert_int_equal(m.num_affected_rows, 2);
	assert_int_equal(m.numRemovedFiles, 1);
	assert_int_equal(m.numAddedFiles, 0);
	assert_int_equal(m.rewriteTimeMs, 0);
	dx_rows(uri, "id", "1;2");
	dx_commit_has(uri, 2, "\"predicate\":\"[\\\"(p = 2)\\\"]\"");
	assert_int_equal(dl_delete(&m, uri, NULL, NULL), 0);
	assert_int_equal(m.num_affected_rows, 2);
	dx_rows(uri, "id", "");
	dx_commit_has(uri, 3, "\"operationParameters\":{\"predicate\":\"[]\"}");
	dx_commit_has(uri, 3, "\"numDeletedRows\":\"2\"");
	dl_free(uri);
}

static void expect_error(const char *uri, const char *pred, int code, const char *text)
{
	char *before = dx_tree(uri);
	dl_delete_metrics m;
	int rc = dl_delete(&m, uri, pred, NULL);
	if (rc != code) fail_msg("DELETE WHERE %s: %d (%s), expected %d", pred ? pred : "-", rc,
	                         dl_error_last()->message, code);
	const dl_error *e = dl_error_last();
	if (!strstr(e->message, text) && !strstr(e->klass, text))
		fail_msg("DELETE WHERE %s: '%s' (%s) lacks '%s'", pred ? pred : "-", e->message,
		         e->klass, text);
	assert_int_equal(m.version, -1);
	char *after = dx_tree(uri);
	assert_string_equal(before, after);
	free(before);
	free(after);
}

static void test_refusals(void **state)
{
	(void)state;
	char *uri = make("refuse", NULL, NULL, 0);
	expect_error(uri, "nope = 1", DL_EINVALID, "nope");
	expect_error(uri, "uuid() = name", DL_EINVALID, "DELTA_NON_DETERMINISTIC_FUNCTION_NOT_SUPPORTED");
	expect_error(uri, "id + 1", DL_EINVALID, "not a boolean");
	expect_error(uri, "id = = 1", DL_EINVALID, "DELETE condition");
	dl_free(uri);
	const char *props[] = {"delta.appendOnly", "true"};
	uri = make("append_only", NULL, props, 1);
	expect_error(uri, "id = 1", DL_ECONSTRAINT, "DELTA_CANNOT_MODIFY_APPEND_ONLY");
	dl_free(uri);
	char *missing = fx_table(g_dir, "missing");
	dl_delete_metrics m;
	assert_int_equal(dl_delete(&m, missing, "id = 1", NULL), DL_ENOTFOUND);
	dl_free(missing);
	dl_delete_options o = DL_DELETE_OPTIONS_INIT;
	o.version = 99;
	assert_int_equal(dl_delete(&m, "/nowhere", NULL, &o), DL_EINVALID);
	assert_non_null(strstr(dl_error_last()->message, "DL_DELETE_OPTIONS_INIT"));
}

static void test_change_data(void **state)
{
	(void)state;
	const char *props[] = {"delta.enableChangeDataFeed", "true"};
	char *uri = make("cdf", NULL, props, 1);
	dl_delete_metrics m;
	assert_int_equal(dl_delete(&m, uri, "id >= 3", NULL), 0);
	assert_int_equal(m.numAddedChangeFiles, 1);
	dx_commit_has(uri, 2, "{\"cdc\":{");
	dx_commit_has(uri, 2, "\"numAddedChangeFiles\":\"1\"");
	dl_free(uri);
}

/* Copy-on-write keeps the row ids and commit versions of the copied rows. */
static void test_row_tracking(void **state)
{
	(void)state;
	const char *props[] = {"delta.enableRowTracking", "true"};
	char *uri = make("tracked", NULL, props, 1);
	dl_delete_metrics m;
	assert_int_equal(dl_delete(&m, uri, "id = 2", NULL), 0);
	assert_int_equal(m.numCopiedRows, 3);
	dx_rows(uri, "id," DL_SCAN_ROW_ID "," DL_SCAN_ROW_COMMIT_VERSION, "1,0,1;3,2,1;4,3,1");
	dl_free(uri);
}

static void test_progress_cancel(void **state);

/* A store failing at each of the command's calls in turn: either the
 * delete committed (and reads right) or the table is byte-identical. */
static void fault_run(bool dv)
{
	const char *props[] = {"delta.enableDeletionVectors", dv ? "true" : "false"};
	char *base = make(dv ? "fault_base_dv" : "fault_base", NULL, props, 1);
	char *before = dx_tree(base);
	char work[1024], uri[1100], cmd[2400];
	snprintf(work, sizeof work, "%s/fault_work", g_dir);
	int committed = 0, refused = 0;
	for (int n = 1; n <= 80; n++) {
		snprintf(cmd, sizeof cmd, "rm -rf '%s' && cp -a '%s' '%s'", work, base, work);
		assert_int_equal(system(cmd), 0);
		snprintf(uri, sizeof uri, "fault://file://%s", work);
		char nth[16];
		snprintf(nth, sizeof nth, "%d", n);
		const char *keys[] = {"fault.fail_nth", "fault.error"};
		const char *vals[] = {nth, "eio"};
		dl_store_options so = DL_STORE_OPTIONS_INIT;
		so.keys = keys, so.values = vals, so.noptions = 2;
		dl_delete_options o = DL_DELETE_OPTIONS_INIT;
		o.store_options = &so;
		dl_delete_metrics m;
		int rc = dl_delete(&m, uri, "id = 2", &o);
		int64_t v = fx_version(work);
		if (v == 2) {
			dx_rows(work, "id", "1;3;4");
			committed++;
		} else {
			assert_int_equal(v, 1);
			assert_true(rc < 0);
			char *after = dx_tree(work);
			if (strcmp(before, after) != 0)
				fail_msg("call %d failing left the table changed:\n%s\nvs\n%s", n, before, after);
			free(after);
			refused++;
		}
		if (rc == 0 && n > 20) break; /* past the last call */
	}
	assert_true(committed > 0);
	assert_true(refused > 0);
	free(before);
	dl_free(base);
}

static void test_failing_store(void **state)
{
	(void)state;
	fault_run(false);
	fault_run(true);
}

static int cancel(const dl_progress_info *p, void *payload)
{
	(*(int *)payload)++;
	assert_string_equal(p->operation, "delete");
	return strcmp(p->phase, "committing") == 0;
}

static void test_progress_cancel(void **state)
{
	(void)state;
	char *uri = make("cancel", NULL, NULL, 0);
	char *before = dx_tree(uri);
	int calls = 0;
	dl_delete_options o = DL_DELETE_OPTIONS_INIT;
	o.progress = cancel;
	o.progress_payload = &calls;
	dl_delete_metrics m;
	assert_int_equal(dl_delete(&m, uri, "id = 1", &o), DL_ECANCELLED);
	assert_int_equal(calls, 2);
	char *after = dx_tree(uri);
	assert_string_equal(before, after);
	free(before);
	free(after);
	dl_free(uri);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_copy_on_write),
		cmocka_unit_test(test_null_predicate_and_no_match),
		cmocka_unit_test(test_idempotent),
		cmocka_unit_test(test_deletion_vectors),
		cmocka_unit_test(test_metadata_only),
		cmocka_unit_test(test_refusals),
		cmocka_unit_test(test_change_data),
		cmocka_unit_test(test_row_tracking),
		cmocka_unit_test(test_progress_cancel),
		cmocka_unit_test(test_failing_store),
	};
	return cmocka_run_group_tests(tests, fx_setup_tmpdir, fx_teardown_tmpdir);
}
