/* dl_restore: Spark's RestoreTableCommand. The rows after RESTORE are the
 * old version's; files are compared by path and DV id; metadata restored,
 * protocol merged (never downgraded); Spark's operation, parameters,
 * metrics and errors; missing files refused unless ignore_missing_files;
 * a failure or a cancel leaves the table as it was. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include "maint/restore_clone.h"
#include "log/table_features.h"
#include "deltalake/timestamp.h"
#include "restore_fixture.h"

#define DDL "id BIGINT, name STRING, p INT"

/* v0 create, v1 rows 1,2, v2 rows 3 (p=2), v3 overwrite with 9 */
static char *history(const char *name, const char *part)
{
	char *uri = fx_table(g_dir, name);
	dx_create(uri, DDL, part, NULL, 0);
	dx_append(uri, DDL, "1,a,1;2,b,1");
	dx_append(uri, DDL, "3,c,2");
	mx_overwrite(uri, DDL, "9,z,3", false);
	return uri;
}

static void test_restore_version(void **state)
{
	(void)state;
	char *uri = history("byversion", "p");
	char *want = fx_read(uri, 1, NULL);
	dl_restore_options o = DL_RESTORE_OPTIONS_INIT;
	o.to_version = 1;
	o.user_metadata = "rollback";
	dl_restore_metrics m;
	assert_int_equal(dl_restore(&m, uri, &o), 0);
	assert_int_equal(m.version, 4);
	char *got = fx_read(uri, -1, NULL);
	assert_string_equal(got, want);
	assert_string_equal(got, "1,a,1;2,b,1");
	assert_int_equal(m.numRestoredFiles, 1); /* the one file of v1 (p=1) */
	assert_int_equal(m.numRemovedFiles, 1);  /* the file of the overwrite */
	assert_int_equal(m.numOfFilesAfterRestore, 1);
	assert_true(m.restoredFilesSize > 0 && m.removedFilesSize > 0);
	assert_int_equal(m.tableSizeAfterRestore, m.restoredFilesSize);
	dx_commit_has(uri, 4, "\"operation\":\"RESTORE\"");
	dx_commit_has(uri, 4, "\"operationParameters\":{\"version\":1,\"timestamp\":null}");
	dx_commit_has(uri, 4, "\"numRestoredFiles\":\"1\"");
	dx_commit_has(uri, 4, "\"numRemovedFiles\":\"1\"");
	dx_commit_has(uri, 4, "\"numOfFilesAfterRestore\":\"1\"");
	dx_commit_has(uri, 4, "\"tableSizeAfterRestore\":");
	dx_commit_has(uri, 4, "\"userMetadata\":\"rollback\"");
	dx_commit_has(uri, 4, "\"dataChange\":true");
	dx_commit_has(uri, 4, "\"extendedFileMetadata\":true");
	dx_commit_lacks(uri, 4, "\"dataChange\":false");
	/* restoring again to v2 adds only the file v2 added */
	o.to_version = 2;
	o.user_metadata = NULL;
	assert_int_equal(dl_restore(&m, uri, &o), 0);
	assert_int_equal(m.numRestoredFiles, 1);
	assert_int_equal(m.numRemovedFiles, 0);
	got = (free(got), fx_read(uri, -1, "id"));
	assert_string_equal(got, "1;2;3");
	free(got);
	free(want);
	dl_free(uri);
}

/* The old version's metaData comes back (schema and properties). */
static void test_restore_metadata(void **state)
{
	(void)state;
	char *uri = fx_table(g_dir, "meta");
	dx_create(uri, DDL, NULL, NULL, 0);
	dx_append(uri, DDL, "1,a,1");
	mx_overwrite(uri, "k STRING", "x", true);
	dl_restore_options o = DL_RESTORE_OPTIONS_INIT;
	o.to_version = 1;
	dl_restore_metrics m;
	assert_int_equal(dl_restore(&m, uri, &o), 0);
	dl_snapshot *s;
	assert_int_equal(dl_snapshot_open(&s, uri, NULL), 0);
	assert_non_null(strstr(dl_snapshot_schema_json(s), "\"name\":\"id\""));
	assert_null(strstr(dl_snapshot_schema_json(s), "\"name\":\"k\""));
	dl_snapshot_free(s);
	dx_rows(uri, "id,name,p", "1,a,1");
	dl_free(uri);
}

static void test_restore_timestamp(void **state)
{
	(void)state;
	char *uri = history("bytime", NULL);
	dl_snapshot *s;
	assert_int_equal(dl_snapshot_open(&s, uri, NULL), 0);
	int64_t ms;
	assert_int_equal(dl_snapshot_commit_timestamp(&ms, s, 2), 0);
	dl_snapshot_free(s);
	char ts[64];
	dl_timestamp_format(ts, sizeof ts, ms * 1000);
	dl_restore_options o = DL_RESTORE_OPTIONS_INIT;
	o.to_timestamp = ts;
	dl_restore_metrics m;
	assert_int_equal(dl_restore(&m, uri, &o), 0);
	dx_rows(uri, "id", "1;2;3");
	dx_commit_has(uri, 4, "\"version\":null,\"timestamp\":\"");
	dl_free(uri);
}

static void test_errors(void **state)
{
	(void)state;
	char *uri = history("errors", NULL);
	char *before = dx_tree(uri);
	dl_restore_options o = DL_RESTORE_OPTIONS_INIT;
	dl_restore_metrics m;
	/* Spark: require(versionToRestore < latestVersion) */
	o.to_version = 3;
	mx_fails(dl_restore(&m, uri, &o), DL_EINVALID, NULL);
	assert_non_null(strstr(dl_error_last()->message, "Version to restore (3)should be less then last available version (3)"));
	o.to_version = 7;
	mx_fails(dl_restore(&m, uri, &o), DL_EINVALID, NULL);
	assert_int_equal(m.version, -1);
	/* neither, or both */
	o.to_version = -1;
	mx_fails(dl_restore(&m, uri, &o), DL_EINVALID, NULL);
	o.to_version = 1;
	o.to_timestamp = "2020-01-01";
	mx_fails(dl_restore(&m, uri, &o), DL_EINVALID, NULL);
	o.to_version = -1;
	mx_fails(dl_restore(&m, uri, &o), DL_ENOTFOUND, "DELTA_TIMESTAMP_EARLIER_THAN_COMMIT_RETENTION");
	o.to_timestamp = "not a time";
	mx_fails(dl_restore(&m, uri, &o), DL_EINVALID, "DELTA_TIMESTAMP_INVALID");
	/* after the last commit: the last version, which is not < latest */
	o.to_timestamp = "2999-01-01";
	mx_fails(dl_restore(&m, uri, &o), DL_EINVALID, NULL);
	char *nt = fx_table(g_dir, "nothing_here");
	o.to_version = 0;
	o.to_timestamp = NULL;
	mx_fails(dl_restore(&m, nt, &o), DL_ENOTFOUND, "DELTA_MISSING_DELTA_TABLE");
	dl_free(nt);
	char *after = dx_tree(uri);
	assert_string_equal(before, after);
	free(before);
	free(after);
	dl_free(uri);
}

/* A file of the old version deleted (VACUUM, by hand): Spark's error
 * naming it; with ignore_missing_files the restore goes on. */
static void test_missing_files(void **state)
{
	(void)state;
	char *uri = history("missing", "p");
	mx_sh("rm -rf '%s/p=2'%s", uri, "");
	char *before = dx_tree(uri);
	dl_restore_options o = DL_RESTORE_OPTIONS_INIT;
	o.to_version = 2;
	dl_restore_metrics m;
	mx_fails(dl_restore(&m, uri, &o), DL_ENOTFOUND, NULL);
	const char *msg = dl_error_last()->message;
	assert_non_null(strstr(msg, "Not all files from version 2 are available in file system"));
	assert_non_null(strstr(msg, "p=2/"));
	assert_non_null(strstr(msg, "spark.sql.files.ignoreMissingFiles"));
	char *after = dx_tree(uri);
	assert_string_equal(before, after);
	o.ignore_missing_files = true;
	assert_int_equal(dl_restore(&m, uri, &o), 0);
	assert_int_equal(m.numRestoredFiles, 2);
	free(before);
	free(after);
	dl_free(uri);
}

static int cancel(const dl_progress_info *p, void *payload)
{
	(void)p;
	(*(int *)payload)++;
	return 1;
}

static void test_cancel(void **state)
{
	(void)state;
	char *uri = history("cancel", NULL);
	char *before = dx_tree(uri);
	int calls = 0;
	dl_restore_options o = DL_RESTORE_OPTIONS_INIT;
	o.to_version = 1;
	o.progress = cancel;
	o.progress_payload = &calls;
	dl_restore_metrics m;
	mx_fails(dl_restore(&m, uri, &o), DL_ECANCELLED, NULL);
	assert_int_equal(calls, 1);
	char *after = dx_tree(uri);
	assert_string_equal(before, after);
	free(before);
	free(after);
	dl_free(uri);
}

/* Row tracking: restored files keep their baseRowId. */
static void test_row_tracking(void **state)
{
	(void)state;
	char *uri = fx_table(g_dir, "rowids");
	const char *props[] = {"delta.enableRowTracking", "true"};
	dx_create(uri, DDL, NULL, props, 1);
	dx_append(uri, DDL, "1,a,1;2,b,1");
	dx_append(uri, DDL, "3,c,2");
	mx_overwrite(uri, DDL, "9,z,3", false);
	char *v1 = fx_commit(uri, 1);
	const char *b = strstr(v1, "\"baseRowId\":");
	assert_non_null(b);
	char want[64];
	snprintf(want, sizeof want, "%.*s", (int)(strcspn(b, ",}")), b);
	dl_free(v1);
	dl_restore_options o = DL_RESTORE_OPTIONS_INIT;
	o.to_version = 1;
	dl_restore_metrics m;
	assert_int_equal(dl_restore(&m, uri, &o), 0);
	dx_commit_has(uri, 4, want);
	dx_rows(uri, "id", "1;2");
	dl_free(uri);
}

/* Identity columns: the restored schema keeps the latest high-water mark
 * (copySchemaWithMergedHighWaterMarks), so no id is handed out twice. */
static void test_identity_high_water_mark(void **state)
{
	(void)state;
	char *uri = fx_table(g_dir, "identity");
	dx_create(uri, "id BIGINT GENERATED ALWAYS AS IDENTITY, x INT", NULL, NULL, 0);
	dx_append(uri, "x INT", "1;2");
	dx_append(uri, "x INT", "3;4");
	dl_restore_options o = DL_RESTORE_OPTIONS_INIT;
	o.to_version = 1;
	dl_restore_metrics m;
	assert_int_equal(dl_restore(&m, uri, &o), 0);
	dx_commit_has(uri, 3, "delta.identity.highWaterMark\\\":4");
	dx_append(uri, "x INT", "5");
	dx_rows(uri, "id,x", "1,1;2,2;5,5");
	dl_free(uri);
}

/* Protocol.merge: the highest versions, the union of features, the
 * weakest legacy form that says the same. */
static void test_protocol_merge(void **state)
{
	(void)state;
	dl_arena a = DL_ARENA_INIT;
	dl_protocol out;
	dl_protocol p12 = {1, 2, NULL, 0, NULL, 0}, p14 = {1, 4, NULL, 0, NULL, 0};
	assert_int_equal(dl_maint_protocol_merge(&out, &a, &p14, &p12), 0);
	assert_int_equal(out.min_reader_version, 1);
	assert_int_equal(out.min_writer_version, 4);
	const char *dv[] = {"deletionVectors"};
	const char *dvw[] = {"deletionVectors", "appendOnly", "invariants"};
	dl_protocol p37 = {3, 7, dv, 1, dvw, 3};
	assert_int_equal(dl_maint_protocol_merge(&out, &a, &p12, &p37), 0);
	assert_int_equal(out.min_reader_version, 3);
	assert_int_equal(out.min_writer_version, 7);
	assert_true(dl_protocol_has(&out, DL_FEATURE_DELETION_VECTORS));
	assert_true(dl_protocol_has(&out, DL_FEATURE_APPEND_ONLY));
	assert_false(dl_protocol_has(&out, DL_FEATURE_CHANGE_DATA_FEED));
	/* the restored (1,4) on a (3,7) table keeps both */
	assert_int_equal(dl_maint_protocol_merge(&out, &a, &p14, &p37), 0);
	assert_int_equal(out.min_writer_version, 7);
	assert_true(dl_protocol_has(&out, DL_FEATURE_CHANGE_DATA_FEED));
	assert_true(dl_protocol_has(&out, DL_FEATURE_GENERATED_COLUMNS));
	assert_true(dl_protocol_has(&out, DL_FEATURE_DELETION_VECTORS));
	/* (1,7) listing only what (1,2) implies normalizes to (1,2) */
	const char *leg[] = {"appendOnly", "invariants"};
	dl_protocol p17 = {1, 7, NULL, 0, leg, 2};
	assert_int_equal(dl_maint_protocol_merge(&out, &a, &p17, &p12), 0);
	assert_int_equal(out.min_reader_version, 1);
	assert_int_equal(out.min_writer_version, 2);
	assert_int_equal(out.nwriter_features, 0);
	dl_arena_free(&a);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_restore_version),
		cmocka_unit_test(test_restore_metadata),
		cmocka_unit_test(test_restore_timestamp),
		cmocka_unit_test(test_errors),
		cmocka_unit_test(test_missing_files),
		cmocka_unit_test(test_cancel),
		cmocka_unit_test(test_row_tracking),
		cmocka_unit_test(test_identity_high_water_mark),
		cmocka_unit_test(test_protocol_merge),
	};
	return cmocka_run_group_tests(tests, fx_setup_tmpdir, fx_teardown_tmpdir);
}
