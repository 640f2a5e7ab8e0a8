/* dl_shallow_clone: Spark's CloneTableCommand. A clone reads like its
 * source (latest or a version), references the source's files by absolute
 * URI, has a new table id, the source's protocol and metadata with
 * TBLPROPERTIES overrides; writes to it leave the source alone; an
 * existing target is refused, skipped (IF NOT EXISTS) or replaced. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include "restore_fixture.h"

#define DDL "id BIGINT, name STRING, p INT"

static char *source(const char *name)
{
	char *uri = fx_table(g_dir, name);
	dx_create(uri, DDL, "p", NULL, 0);
	dx_append(uri, DDL, "1,a,1;2,b,1");
	dx_append(uri, DDL, "3,c,2;4,NULL,3");
	return uri;
}

static char *table_id(const char *uri)
{
	dl_snapshot *s;
	if (dl_snapshot_open(&s, uri, NULL) < 0) fail_msg("open %s: %s", uri, dl_error_last()->message);
	char *id = dl_strdup(dl_snapshot_table_id(s));
	dl_snapshot_free(s);
	return id;
}

static void test_clone_latest(void **state)
{
	(void)state;
	char *src = source("src");
	char *dst = fx_table(g_dir, "dst");
	dl_clone_metrics m;
	assert_int_equal(dl_shallow_clone(&m, src, dst, NULL), 0);
	assert_int_equal(m.version, 0);
	assert_int_equal(m.sourceNumOfFiles, 3);
	assert_true(m.sourceTableSize > 0);
	assert_int_equal(m.numCopiedFiles, 0);
	assert_int_equal(m.copiedFilesSize, 0);
	assert_int_equal(m.numRemovedFiles, 0);
	char *a = fx_read(src, -1, NULL), *b = fx_read(dst, -1, NULL);
	assert_string_equal(a, b);
	free(a);
	free(b);
	assert_int_equal(fx_count_parquet(dst), 0); /* nothing copied */
	dx_commit_has(dst, 0, "\"operation\":\"CLONE\"");
	dx_commit_has(dst, 0, "\"sourceVersion\":2");
	dx_commit_lacks(dst, 0, "isShallow"); /* DeltaOperations.Clone has source and sourceVersion only */
	dx_commit_has(dst, 0, "\"source\":\"delta.`file:/");
	dx_commit_has(dst, 0, "\"path\":\"file:///");
	dx_commit_has(dst, 0, "\"sourceNumOfFiles\":\"3\"");
	dx_commit_has(dst, 0, "\"partitionColumns\":[\"p\"]");
	char *i1 = table_id(src), *i2 = table_id(dst);
	assert_string_not_equal(i1, i2);
	dl_free(i1);
	dl_free(i2);
	/* a write to the clone stays in the clone */
	dx_append(dst, DDL, "5,e,1");
	dx_rows(src, "id", "1;2;3;4");
	dx_rows(dst, "id", "1;2;3;4;5");
	dl_free(src);
	dl_free(dst);
}

static void test_clone_version_and_properties(void **state)
{
	(void)state;
	char *src = source("src_v");
	char *dst = fx_table(g_dir, "dst_v");
	dl_clone_options o = DL_CLONE_OPTIONS_INIT;
	o.source_version = 1;
	const char *keys[] = {"delta.appendOnly", "owner"};
	const char *vals[] = {"true", "me"};
	o.property_keys = keys;
	o.property_values = vals;
	o.nproperties = 2;
	dl_clone_metrics m;
	assert_int_equal(dl_shallow_clone(&m, src, dst, &o), 0);
	assert_int_equal(m.sourceNumOfFiles, 1);
	char *want = fx_read(src, 1, NULL), *got = fx_read(dst, -1, NULL);
	assert_string_equal(want, got);
	free(want);
	free(got);
	dl_snapshot *s;
	assert_int_equal(dl_snapshot_open(&s, dst, NULL), 0);
	assert_string_equal(dl_snapshot_property(s, "owner"), "me");
	assert_string_equal(dl_snapshot_property(s, "delta.appendOnly"), "true");
	dl_snapshot_free(s);
	dx_commit_has(dst, 0, "\"sourceVersion\":1");
	/* a version past the source's */
	char *d2 = fx_table(g_dir, "dst_v2");
	o.source_version = 9;
	o.nproperties = 0;
	mx_fails(dl_shallow_clone(&m, src, d2, &o), DL_ENOTFOUND, "DELTA_VERSION_NOT_FOUND");
	dl_free(d2);
	dl_free(src);
	dl_free(dst);
}

static void test_existing_target(void **state)
{
	(void)state;
	char *src = source("src_e");
	char *dst = fx_table(g_dir, "dst_e");
	dx_create(dst, "k STRING", NULL, NULL, 0);
	dx_append(dst, "k STRING", "x;y");
	char *before = dx_tree(dst);
	dl_clone_metrics m;
	mx_fails(dl_shallow_clone(&m, src, dst, NULL), DL_EEXISTS, "DELTA_TABLE_ALREADY_EXISTS");
	dl_clone_options o = DL_CLONE_OPTIONS_INIT;
	o.if_not_exists = true;
	assert_int_equal(dl_shallow_clone(&m, src, dst, &o), 0);
	assert_int_equal(m.version, -1);
	char *after = dx_tree(dst);
	assert_string_equal(before, after);
	char *id = table_id(dst);
	o.if_not_exists = false;
	o.replace = true;
	assert_int_equal(dl_shallow_clone(&m, src, dst, &o), 0);
	assert_int_equal(m.version, 2);
	assert_int_equal(m.numRemovedFiles, 1);
	assert_true(m.removedFilesSize > 0);
	dx_rows(dst, "id", "1;2;3;4");
	char *id2 = table_id(dst);
	assert_string_equal(id, id2); /* REPLACE keeps the target's id */
	/* re-cloning a clone: its files are the source's again, none removed */
	char *d3 = fx_table(g_dir, "dst_e3");
	dl_clone_options o1 = DL_CLONE_OPTIONS_INIT;
	o1.source_version = 1;
	assert_int_equal(dl_shallow_clone(&m, src, d3, &o1), 0);
	assert_int_equal(dl_shallow_clone(&m, src, d3, &o), 0);
	assert_int_equal(m.numRemovedFiles, 0);
	dx_rows(d3, "id", "1;2;3;4");
	dl_free(d3);
	/* replacing a table with itself */
	mx_fails(dl_shallow_clone(&m, src, src, &o), DL_EINVALID, "DELTA_UNSUPPORTED_CLONE_REPLACE_SAME_TABLE");
	/* no source */
	char *none = fx_table(g_dir, "none_e");
	char *x = fx_table(g_dir, "x_e");
	mx_fails(dl_shallow_clone(&m, none, x, NULL), DL_ENOTFOUND, "DELTA_MISSING_DELTA_TABLE");
	dl_free(none);
	dl_free(x);
	dl_free(id);
	dl_free(id2);
	free(before);
	free(after);
	dl_free(src);
	dl_free(dst);
}

static void test_column_mapping_mode_change(void **state)
{
	(void)state;
	char *src = source("src_cm");
	char *dst = fx_table(g_dir, "dst_cm");
	dl_clone_options o = DL_CLONE_OPTIONS_INIT;
	const char *keys[] = {"delta.columnMapping.mode"};
	const char *vals[] = {"name"};
	o.property_keys = keys;
	o.property_values = vals;
	o.nproperties = 1;
	dl_clone_metrics m;
	mx_fails(dl_shallow_clone(&m, src, dst, &o), DL_EUNSUPPORTED, "DELTA_UNSUPPORTED_COLUMN_MAPPING_MODE_CHANGE");
	assert_int_equal(fx_version(dst), -1);
	dl_free(src);
	dl_free(dst);
}

/* Row tracking: CLONE drops the source's ids; the clone's adds get fresh
 * ones from 0 and the delta.rowTracking domain their mark. */
static void test_row_tracking(void **state)
{
	(void)state;
	char *src = fx_table(g_dir, "src_rt");
	const char *props[] = {"delta.enableRowTracking", "true"};
	dx_create(src, DDL, NULL, props, 1);
	dx_append(src, DDL, "1,a,1;2,b,1");
	dx_append(src, DDL, "3,c,2");
	char *dst = fx_table(g_dir, "dst_rt");
	dl_clone_metrics m;
	assert_int_equal(dl_shallow_clone(&m, src, dst, NULL), 0);
	dx_commit_has(dst, 0, "\"baseRowId\":0");
	dx_commit_has(dst, 0, "\"defaultRowCommitVersion\":0");
	dx_commit_has(dst, 0, "rowIdHighWaterMark\\\":2");
	dx_rows(dst, "id", "1;2;3");
	dl_free(src);
	dl_free(dst);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_clone_latest),
		cmocka_unit_test(test_clone_version_and_properties),
		cmocka_unit_test(test_existing_target),
		cmocka_unit_test(test_column_mapping_mode_change),
		cmocka_unit_test(test_row_tracking),
	};
	return cmocka_run_group_tests(tests, fx_setup_tmpdir, fx_teardown_tmpdir);
}
