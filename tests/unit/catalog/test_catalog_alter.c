/* ALTER TABLE ... RENAME TO and SET LOCATION on catalog tables
 * (catalog_alter.c): the entry moves to the new name with its data, the
 * old name is free, Spark's errors for taken names, other schemas and
 * missing tables; SET LOCATION points the entry at another Delta table of
 * the same schema and refuses other locations; a second handle sees each
 * change through the catalog log, and a checkpoint carries it. */
#include "catalog_fixture.h"
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

static dl_catalog *open_cat(const char *uri)
{
	dl_catalog *c;
	if (dl_catalog_open(&c, uri, NULL) < 0) fail_msg("open %s: %s", uri, dl_error_last()->message);
	return c;
}

static char *uri_of(dl_catalog *c, const char *name)
{
	char *uri;
	if (dl_catalog_table_uri(&uri, c, name) < 0) fail_msg("resolve %s: %s", name, dl_error_last()->message);
	return uri;
}

static void test_rename(void **state)
{
	(void)state;
	dl_catalog *c = open_cat("mem://cat_rename");
	assert_int_equal(cf_create(c, "events", NULL, false, NULL), 0);
	assert_int_equal(cf_create(c, "other", NULL, false, NULL), 0);
	assert_int_equal(dl_catalog_create_schema(c, "s2", false), 0);
	char *before = uri_of(c, "events");
	dl_catalog_table_info info;
	assert_int_equal(dl_catalog_lookup_table(&info, c, "events"), 0);
	char *id = strdup(info.table_id);
	dl_catalog_table_info_free(&info);

	/* Spark's refusals; the catalog is unchanged by each */
	assert_true(cf_error_is(dl_catalog_rename_table(c, "events", "other"), DL_EEXISTS,
	                        "TABLE_OR_VIEW_ALREADY_EXISTS"));
	assert_true(cf_error_is(dl_catalog_rename_table(c, "events", "s2.events2"), DL_EINVALID,
	                        "_LEGACY_ERROR_TEMP_1073"));
	assert_non_null(strstr(dl_error_last()->message, "'default' != 's2'"));
	assert_true(cf_error_is(dl_catalog_rename_table(c, "nope", "nope2"), DL_ENOTFOUND,
	                        "TABLE_OR_VIEW_NOT_FOUND"));
	assert_true(cf_error_is(dl_catalog_rename_table(c, "events", "bad-name"), DL_EINVALID,
	                        "INVALID_SCHEMA_OR_RELATION_NAME"));

	/* the entry moves: same table (id, data), new name; the old is free */
	assert_int_equal(dl_catalog_rename_table(c, "EVENTS", "default.Events2"), 0);
	char *after = uri_of(c, "events2");
	assert_string_equal(before, after);
	assert_int_equal(dl_catalog_lookup_table(&info, c, "events2"), 0);
	assert_string_equal(info.table_id, id);
	assert_string_equal(info.name, "events2");
	dl_catalog_table_info_free(&info);
	assert_true(cf_error_is(dl_catalog_lookup_table(&info, c, "events"), DL_ENOTFOUND,
	                        "TABLE_OR_VIEW_NOT_FOUND"));
	dl_snapshot *snap;
	assert_int_equal(dl_snapshot_open(&snap, after, NULL), 0);
	dl_snapshot_free(snap);

	/* another handle replays the renameTable change */
	dl_catalog *c2 = open_cat("mem://cat_rename");
	char *seen = uri_of(c2, "events2");
	assert_string_equal(seen, before);
	dl_free(seen);
	dl_catalog_table_list l;
	assert_int_equal(dl_catalog_list_tables(&l, c2, NULL), 0);
	assert_int_equal(l.count, 2);
	assert_string_equal(l.items[0].name, "events2");
	assert_string_equal(l.items[1].name, "other");
	dl_catalog_table_list_free(&l);
	/* dropping the renamed managed table deletes its data */
	assert_int_equal(dl_catalog_drop_table(c2, "events2", false), 0);
	assert_int_equal(cf_count_objects(before, ""), 0);
	dl_catalog_free(c2);
	dl_catalog_free(c);
	free(id);
	dl_free(before);
	dl_free(after);
}

/* Enough changes for a catalog checkpoint (every 100 versions) after a
 * rename: a new handle loads the checkpoint and still has the new name. */
static void test_rename_survives_checkpoint(void **state)
{
	(void)state;
	dl_catalog *c = open_cat("mem://cat_rename_ckpt");
	assert_int_equal(cf_create(c, "t", NULL, false, NULL), 0);
	assert_int_equal(dl_catalog_rename_table(c, "t", "u"), 0);
	for (int i = 0; i < 50; i++) {
		assert_int_equal(dl_catalog_rename_table(c, "u", "v"), 0);
		assert_int_equal(dl_catalog_rename_table(c, "v", "u"), 0);
	}
	assert_true(cf_count_objects("mem://cat_rename_ckpt", "_catalog/_log") > 100);
	dl_catalog *c2 = open_cat("mem://cat_rename_ckpt");
	char *u = uri_of(c2, "u");
	dl_free(u);
	dl_catalog_table_info info;
	assert_true(cf_error_is(dl_catalog_lookup_table(&info, c2, "t"), DL_ENOTFOUND, "TABLE_OR_VIEW_NOT_FOUND"));
	dl_catalog_free(c2);
	dl_catalog_free(c);
}

/* Two handles, one stale: of two renames of one table one lands, the
 * other is decided again on the newer catalog and finds the name gone. */
static void test_rename_race(void **state)
{
	(void)state;
	dl_catalog *a = open_cat("mem://cat_rename_race");
	dl_catalog *b = open_cat("mem://cat_rename_race");
	assert_int_equal(cf_create(a, "t", NULL, false, NULL), 0);
	char *u = uri_of(b, "t"); /* b has seen t */
	dl_free(u);
	assert_int_equal(dl_catalog_rename_table(a, "t", "u"), 0);
	assert_true(cf_error_is(dl_catalog_rename_table(b, "t", "v"), DL_ENOTFOUND, "TABLE_OR_VIEW_NOT_FOUND"));
	assert_true(cf_error_is(dl_catalog_rename_table(b, "u", "u"), DL_EEXISTS, "TABLE_OR_VIEW_ALREADY_EXISTS"));
	/* a new managed t finds the directory u still uses: LOCATION_ALREADY_EXISTS */
	assert_true(cf_error_is(cf_create(b, "t", NULL, false, NULL), DL_EEXISTS, "LOCATION_ALREADY_EXISTS"));
	dl_catalog_table_list l;
	assert_int_equal(dl_catalog_list_tables(&l, b, NULL), 0);
	assert_int_equal(l.count, 1);
	assert_string_equal(l.items[0].name, "u");
	dl_catalog_table_list_free(&l);
	dl_catalog_free(a);
	dl_catalog_free(b);
}

static void test_set_location(void **state)
{
	(void)state;
	char *dir = cf_tmpdir();
	assert_non_null(dir);
	char wh[512], ext[512], copy[512], other[512], empty[512];
	snprintf(wh, sizeof wh, "file://%s/warehouse", dir);
	snprintf(ext, sizeof ext, "%s/ext", dir);
	snprintf(copy, sizeof copy, "%s/copy", dir);
	snprintf(other, sizeof other, "%s/other", dir);
	snprintf(empty, sizeof empty, "%s/empty", dir);
	dl_create_options co = DL_CREATE_OPTIONS_INIT;
	co.schema_ddl = "id BIGINT NOT NULL, name STRING";
	int64_t v;
	assert_int_equal(dl_create_table(&v, ext, &co), 0);
	assert_int_equal(dl_create_table(&v, copy, &co), 0);
	co.schema_ddl = "id BIGINT NOT NULL, name STRING, extra INT";
	assert_int_equal(dl_create_table(&v, other, &co), 0);

	dl_catalog *c = open_cat(wh);
	dl_catalog_table_options o = DL_CATALOG_TABLE_OPTIONS_INIT;
	o.location = ext;
	assert_int_equal(dl_catalog_create_table(&v, c, "t", &o), 0);
	assert_int_equal(cf_create(c, "m", NULL, false, NULL), 0);

	/* refusals leave the entry as it was */
	assert_true(cf_error_is(dl_catalog_set_table_location(c, "t", other), DL_EINVALID,
	                        "DELTA_SET_LOCATION_SCHEMA_MISMATCH"));
	assert_true(cf_error_is(dl_catalog_set_table_location(c, "t", empty), DL_ENOTFOUND,
	                        "DELTA_MISSING_DELTA_TABLE"));
	assert_true(cf_error_is(dl_catalog_set_table_location(c, "nope", copy), DL_ENOTFOUND,
	                        "TABLE_OR_VIEW_NOT_FOUND"));
	char *u = uri_of(c, "t");
	assert_string_equal(u, ext);
	dl_free(u);

	/* an external table points at the copy: its id is the copy's */
	assert_int_equal(dl_catalog_set_table_location(c, "t", copy), 0);
	dl_catalog *c2 = open_cat(wh);
	u = uri_of(c2, "t");
	assert_string_equal(u, copy);
	dl_free(u);
	dl_snapshot *s;
	assert_int_equal(dl_snapshot_open(&s, copy, NULL), 0);
	dl_catalog_table_info info;
	assert_int_equal(dl_catalog_lookup_table(&info, c2, "t"), 0);
	assert_string_equal(info.table_id, dl_snapshot_table_id(s));
	assert_int_equal(info.type, DL_CATALOG_EXTERNAL);
	dl_catalog_table_info_free(&info);
	dl_snapshot_free(s);
	/* dropping an external table keeps both locations' files */
	assert_int_equal(dl_catalog_drop_table(c2, "t", false), 0);
	assert_true(cf_count_objects(copy, "_delta_log") > 0);
	assert_true(cf_count_objects(ext, "_delta_log") > 0);

	/* a managed table moved elsewhere reads from there and stays managed */
	char *m_old = uri_of(c, "m");
	assert_int_equal(dl_catalog_set_table_location(c, "m", copy), 0);
	u = uri_of(c2, "m");
	assert_string_equal(u, copy);
	dl_free(u);
	assert_int_equal(dl_catalog_lookup_table(&info, c2, "m"), 0);
	assert_int_equal(info.type, DL_CATALOG_MANAGED);
	dl_catalog_table_info_free(&info);
	dl_free(m_old);
	dl_catalog_free(c2);
	dl_catalog_free(c);
	cf_rmdir(dir);
	free(dir);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_rename),
	    cmocka_unit_test(test_rename_survives_checkpoint),
	    cmocka_unit_test(test_rename_race),
	    cmocka_unit_test(test_set_location),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
