/* The catalog: schemas, managed and external tables, their drop
 * semantics, name rules and Spark's error classes, on mem:// and file://
 * warehouses, and the catalog log as other handles read it. */
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

static void expect_uri(dl_catalog *c, const char *name, const char *want)
{
	char *uri;
	if (dl_catalog_table_uri(&uri, c, name) < 0)
		fail_msg("resolve %s: %s", name, dl_error_last()->message);
	assert_string_equal(uri, want);
	dl_free(uri);
}

static void test_schemas(void **state)
{
	(void)state;
	dl_catalog *c = open_cat("mem://cat_schemas");
	dl_catalog_name_list l;
	assert_int_equal(dl_catalog_list_schemas(&l, c), 0);
	assert_int_equal(l.count, 1);
	assert_string_equal(l.names[0], "default");
	dl_catalog_name_list_free(&l);

	assert_int_equal(dl_catalog_create_schema(c, "Sales", false), 0);
	assert_int_equal(dl_catalog_create_schema(c, "a_1", false), 0);
	assert_true(cf_error_is(dl_catalog_create_schema(c, "SALES", false), DL_EEXISTS,
	                        "SCHEMA_ALREADY_EXISTS"));
	assert_non_null(strstr(dl_error_last()->message, "`sales`"));
	assert_int_equal(dl_catalog_create_schema(c, "sales", true), 0);
	assert_true(cf_error_is(dl_catalog_create_schema(c, "default", false), DL_EEXISTS,
	                        "SCHEMA_ALREADY_EXISTS"));
	assert_int_equal(dl_catalog_list_schemas(&l, c), 0);
	assert_int_equal(l.count, 3);
	assert_string_equal(l.names[0], "a_1");
	assert_string_equal(l.names[1], "default");
	assert_string_equal(l.names[2], "sales");
	dl_catalog_name_list_free(&l);

	assert_true(cf_error_is(dl_catalog_create_schema(c, "a-b", false), DL_EINVALID,
	                        "INVALID_SCHEMA_OR_RELATION_NAME"));
	assert_true(cf_error_is(dl_catalog_create_schema(c, "", false), DL_EINVALID,
	                        "INVALID_SCHEMA_OR_RELATION_NAME"));
	assert_int_equal(dl_catalog_create_schema(c, "`quoted`", false), 0);

	assert_int_equal(dl_catalog_drop_schema(c, "SaLeS", false, false), 0);
	assert_true(cf_error_is(dl_catalog_drop_schema(c, "sales", false, false), DL_ENOTFOUND,
	                        "SCHEMA_NOT_FOUND"));
	assert_int_equal(dl_catalog_drop_schema(c, "sales", true, false), 0);
	assert_true(cf_error_is(dl_catalog_drop_schema(c, "default", false, true), DL_EINVALID,
	                        "UNSUPPORTED_FEATURE.DROP_DATABASE"));
	assert_int_equal(dl_catalog_list_schemas(&l, c), 0);
	assert_int_equal(l.count, 3);
	assert_string_equal(l.names[2], "quoted");
	dl_catalog_name_list_free(&l);
	dl_catalog_free(c);
}

static void test_managed_tables(void **state)
{
	(void)state;
	const char *w = "mem://cat_managed";
	dl_catalog *c = open_cat(w);
	int64_t v = 7;
	assert_int_equal(cf_create(c, "Events", NULL, false, &v), 0);
	assert_int_equal(v, 0);
	/* Spark's layout: `default` tables in the warehouse, others in <schema>.db. */
	expect_uri(c, "events", "mem://cat_managed/events");
	expect_uri(c, "DEFAULT.EVENTS", "mem://cat_managed/events");
	expect_uri(c, "spark_catalog.default.`events`", "mem://cat_managed/events");
	dl_snapshot *snap;
	assert_int_equal(dl_snapshot_open(&snap, "mem://cat_managed/events", NULL), 0);
	assert_int_equal(dl_snapshot_version(snap), 0);
	dl_catalog_table_info info;
	assert_int_equal(dl_catalog_lookup_table(&info, c, "events"), 0);
	assert_string_equal(info.table_id, dl_snapshot_table_id(snap));
	assert_int_equal(info.type, DL_CATALOG_MANAGED);
	assert_string_equal(info.schema, "default");
	dl_catalog_table_info_free(&info);
	dl_snapshot_free(snap);

	assert_true(cf_error_is(cf_create(c, "EVENTS", NULL, false, &v), DL_EEXISTS,
	                        "TABLE_OR_VIEW_ALREADY_EXISTS"));
	assert_non_null(strstr(dl_error_last()->message, "`default`.`events`"));
	v = 5;
	assert_int_equal(cf_create(c, "events", NULL, true, &v), 0);
	assert_int_equal(v, -1);

	assert_true(cf_error_is(cf_create(c, "nope.t", NULL, false, NULL), DL_ENOTFOUND,
	                        "SCHEMA_NOT_FOUND"));
	assert_int_equal(dl_catalog_create_schema(c, "s", false), 0);
	assert_int_equal(cf_create(c, "s.b", NULL, false, NULL), 0);
	assert_int_equal(cf_create(c, "s.a", NULL, false, NULL), 0);
	expect_uri(c, "S.B", "mem://cat_managed/s.db/b");
	assert_true(cf_error_is(dl_catalog_table_uri(&(char *){NULL}, c, "b"), DL_ENOTFOUND,
	                        "TABLE_OR_VIEW_NOT_FOUND"));

	dl_catalog_table_list tl;
	assert_int_equal(dl_catalog_list_tables(&tl, c, "S"), 0);
	assert_int_equal(tl.count, 2);
	assert_string_equal(tl.items[0].name, "a");
	assert_string_equal(tl.items[1].name, "b");
	assert_string_equal(tl.items[1].uri, "mem://cat_managed/s.db/b");
	dl_catalog_table_list_free(&tl);
	assert_int_equal(dl_catalog_list_tables(&tl, c, NULL), 0);
	assert_int_equal(tl.count, 1);
	assert_string_equal(tl.items[0].name, "events");
	dl_catalog_table_list_free(&tl);
	assert_true(cf_error_is(dl_catalog_list_tables(&tl, c, "zz"), DL_ENOTFOUND,
	                        "SCHEMA_NOT_FOUND"));

	/* DROP of a managed table deletes its data. */
	assert_true(cf_count_objects(w, "events") > 0);
	assert_int_equal(dl_catalog_drop_table(c, "Events", false), 0);
	assert_int_equal(cf_count_objects(w, "events"), 0);
	assert_true(cf_error_is(dl_catalog_drop_table(c, "events", false), DL_ENOTFOUND,
	                        "TABLE_OR_VIEW_NOT_FOUND"));
	assert_int_equal(dl_catalog_drop_table(c, "events", true), 0);
	assert_true(cf_error_is(dl_catalog_table_uri(&(char *){NULL}, c, "events"), DL_ENOTFOUND,
	                        "TABLE_OR_VIEW_NOT_FOUND"));
	/* ... and the name can be used again. */
	assert_int_equal(cf_create(c, "events", NULL, false, &v), 0);
	assert_int_equal(v, 0);

	/* A non-empty schema is dropped only with CASCADE, which drops its tables. */
	assert_true(cf_error_is(dl_catalog_drop_schema(c, "s", false, false), DL_EINVALID,
	                        "SCHEMA_NOT_EMPTY"));
	assert_true(cf_count_objects(w, "s.db") > 0);
	assert_int_equal(dl_catalog_drop_schema(c, "s", false, true), 0);
	assert_int_equal(cf_count_objects(w, "s.db"), 0);
	assert_true(cf_error_is(dl_catalog_table_uri(&(char *){NULL}, c, "s.a"), DL_ENOTFOUND,
	                        "TABLE_OR_VIEW_NOT_FOUND"));
	assert_true(cf_count_objects(w, "events") > 0);
	dl_catalog_free(c);
}

static void test_names(void **state)
{
	(void)state;
	dl_catalog *c = open_cat("mem://cat_names");
	assert_true(cf_error_is(cf_create(c, "bad-name", NULL, false, NULL), DL_EINVALID,
	                        "INVALID_SCHEMA_OR_RELATION_NAME"));
	assert_true(cf_error_is(cf_create(c, "a..b", NULL, false, NULL), DL_EINVALID,
	                        "INVALID_SCHEMA_OR_RELATION_NAME"));
	assert_true(cf_error_is(cf_create(c, "x.default.t", NULL, false, NULL), DL_EINVALID,
	                        "REQUIRES_SINGLE_PART_NAMESPACE"));
	assert_true(cf_error_is(cf_create(c, "a.b.c.d", NULL, false, NULL), DL_EINVALID,
	                        "REQUIRES_SINGLE_PART_NAMESPACE"));
	/* The catalog's own directory cannot be a table of `default`. */
	assert_true(cf_error_is(cf_create(c, "_CATALOG", NULL, false, NULL), DL_EINVALID,
	                        "INVALID_SCHEMA_OR_RELATION_NAME"));
	char long_name[200];
	memset(long_name, 'x', sizeof long_name - 1);
	long_name[sizeof long_name - 1] = 0;
	assert_true(cf_error_is(cf_create(c, long_name, NULL, false, NULL), DL_EINVALID,
	                        "INVALID_SCHEMA_OR_RELATION_NAME"));
	/* Nothing was registered by the failures. */
	dl_catalog_table_list tl;
	assert_int_equal(dl_catalog_list_tables(&tl, c, NULL), 0);
	assert_int_equal(tl.count, 0);
	dl_catalog_table_list_free(&tl);
	dl_catalog_free(c);
}

static void test_current_schema(void **state)
{
	(void)state;
	dl_catalog *c = open_cat("mem://cat_use");
	assert_string_equal(dl_catalog_current_schema(c), "default");
	assert_true(cf_error_is(dl_catalog_set_current_schema(c, "s"), DL_ENOTFOUND,
	                        "SCHEMA_NOT_FOUND"));
	assert_int_equal(dl_catalog_create_schema(c, "s", false), 0);
	assert_int_equal(dl_catalog_set_current_schema(c, "S"), 0);
	assert_string_equal(dl_catalog_current_schema(c), "s");
	assert_int_equal(cf_create(c, "t", NULL, false, NULL), 0);
	expect_uri(c, "t", "mem://cat_use/s.db/t");
	expect_uri(c, "s.t", "mem://cat_use/s.db/t");
	assert_true(cf_error_is(dl_catalog_table_uri(&(char *){NULL}, c, "default.t"), DL_ENOTFOUND,
	                        "TABLE_OR_VIEW_NOT_FOUND"));
	assert_int_equal(dl_catalog_drop_schema(c, "s", false, true), 0);
	assert_string_equal(dl_catalog_current_schema(c), "default");
	dl_catalog_free(c);
}

static void test_external_tables(void **state)
{
	(void)state;
	char *dir = cf_tmpdir();
	assert_non_null(dir);
	char wh[512], ext[512], ext2[512], junk[512], none[512];
	snprintf(wh, sizeof wh, "file://%s/warehouse", dir);
	snprintf(ext, sizeof ext, "%s/ext", dir);
	snprintf(ext2, sizeof ext2, "%s/ext2", dir);
	snprintf(junk, sizeof junk, "%s/junk", dir);
	snprintf(none, sizeof none, "%s/none", dir);
	dl_create_options co = DL_CREATE_OPTIONS_INIT;
	co.schema_ddl = "x INT";
	int64_t v;
	assert_int_equal(dl_create_table(&v, ext, &co), 0);

	dl_catalog *c = open_cat(wh);
	/* Register the existing table: no schema given. */
	dl_catalog_table_options o = DL_CATALOG_TABLE_OPTIONS_INIT;
	o.location = ext;
	v = 3;
	assert_int_equal(dl_catalog_create_table(&v, c, "ext", &o), 0);
	assert_int_equal(v, -1);
	expect_uri(c, "ext", ext);
	dl_catalog_table_info info;
	assert_int_equal(dl_catalog_lookup_table(&info, c, "EXT"), 0);
	assert_int_equal(info.type, DL_CATALOG_EXTERNAL);
	dl_catalog_table_info_free(&info);
	/* A second name for the same location is allowed, as in Spark. */
	assert_int_equal(dl_catalog_create_table(&v, c, "ext_again", &o), 0);
	/* Columns for a location that holds a table: not supported yet. */
	o.create = &co;
	assert_int_equal(dl_catalog_create_table(&v, c, "ext3", &o), DL_EUNSUPPORTED);
	assert_int_equal(dl_catalog_table_uri(&(char *){NULL}, c, "ext3"), DL_ENOTFOUND);

	/* Create a new external table at an empty location. */
	o.location = ext2;
	assert_int_equal(dl_catalog_create_table(&v, c, "ext2", &o), 0);
	assert_int_equal(v, 0);
	expect_uri(c, "ext2", ext2);

	/* A location with files that are not a Delta table. */
	dl_store *s;
	assert_int_equal(dl_store_open(&s, junk, NULL), 0);
	assert_int_equal(dl_store_put(s, "data.csv", "a\n", 2), 0);
	dl_store_free(s);
	o.location = junk;
	assert_true(cf_error_is(dl_catalog_create_table(&v, c, "junk", &o), DL_EEXISTS,
	                        "DELTA_CREATE_TABLE_WITH_NON_EMPTY_LOCATION"));
	o.create = NULL;
	assert_true(cf_error_is(dl_catalog_create_table(&v, c, "junk", &o), DL_EEXISTS,
	                        "DELTA_CREATE_TABLE_WITH_NON_EMPTY_LOCATION"));
	assert_int_equal(cf_count_objects(junk, ""), 1);
	/* No table and no schema. */
	o.location = none;
	assert_true(cf_error_is(dl_catalog_create_table(&v, c, "none", &o), DL_EINVALID,
	                        "DELTA_SCHEMA_NOT_PROVIDED"));
	assert_int_equal(dl_catalog_table_uri(&(char *){NULL}, c, "junk"), DL_ENOTFOUND);
	assert_int_equal(dl_catalog_table_uri(&(char *){NULL}, c, "none"), DL_ENOTFOUND);

	/* DROP of an external table keeps its data. */
	assert_int_equal(dl_catalog_drop_table(c, "ext2", false), 0);
	dl_snapshot *snap;
	assert_int_equal(dl_snapshot_open(&snap, ext2, NULL), 0);
	dl_snapshot_free(snap);
	assert_int_equal(dl_catalog_drop_table(c, "ext", false), 0);
	assert_int_equal(dl_snapshot_open(&snap, ext, NULL), 0);
	dl_snapshot_free(snap);
	expect_uri(c, "ext_again", ext);

	/* Another handle (another process) sees the same catalog. */
	dl_catalog *c2 = open_cat(wh);
	dl_catalog_table_list tl;
	assert_int_equal(dl_catalog_list_tables(&tl, c2, NULL), 0);
	assert_int_equal(tl.count, 1);
	assert_string_equal(tl.items[0].name, "ext_again");
	assert_int_equal(tl.items[0].type, DL_CATALOG_EXTERNAL);
	dl_catalog_table_list_free(&tl);
	/* ... and its changes are seen by the first. */
	assert_int_equal(cf_create(c2, "m", NULL, false, NULL), 0);
	char want[600];
	snprintf(want, sizeof want, "%s/m", wh);
	expect_uri(c, "m", want);
	assert_true(cf_error_is(cf_create(c, "m", NULL, false, NULL), DL_EEXISTS,
	                        "TABLE_OR_VIEW_ALREADY_EXISTS"));
	dl_catalog_free(c2);
	dl_catalog_free(c);
	cf_rmdir(dir);
	free(dir);
}

/* Spark refuses a managed table whose directory already exists. */
static void test_managed_location_taken(void **state)
{
	(void)state;
	const char *w = "mem://cat_taken";
	dl_catalog *c = open_cat(w);
	dl_store *s;
	assert_int_equal(dl_store_open(&s, w, NULL), 0);
	assert_int_equal(dl_store_put(s, "t/part-0.parquet", "x", 1), 0);
	assert_true(cf_error_is(cf_create(c, "t", NULL, false, NULL), DL_EEXISTS,
	                        "LOCATION_ALREADY_EXISTS"));
	assert_non_null(strstr(dl_error_last()->message, "mem://cat_taken/t"));
	/* The name was given back and the stray file left alone. */
	assert_true(cf_error_is(dl_catalog_table_uri(&(char *){NULL}, c, "t"), DL_ENOTFOUND,
	                        "TABLE_OR_VIEW_NOT_FOUND"));
	assert_true(cf_error_is(dl_catalog_drop_table(c, "t", false), DL_ENOTFOUND,
	                        "TABLE_OR_VIEW_NOT_FOUND"));
	assert_int_equal(cf_count_objects(w, "t"), 1);
	assert_int_equal(dl_store_delete(s, "t/part-0.parquet"), 0);
	assert_int_equal(cf_create(c, "t", NULL, false, NULL), 0);
	/* A managed table without columns. */
	dl_catalog_table_options o = DL_CATALOG_TABLE_OPTIONS_INIT;
	int64_t v;
	assert_true(cf_error_is(dl_catalog_create_table(&v, c, "u", &o), DL_EINVALID,
	                        "DELTA_SCHEMA_NOT_PROVIDED"));
	dl_store_free(s);
	dl_catalog_free(c);
}

/* A process that died after reserving a name leaves an entry being
 * created: invisible to lookups and listings, holding the name, removed by
 * DROP TABLE without touching files. */
static void test_interrupted_create(void **state)
{
	(void)state;
	const char *w = "mem://cat_interrupted";
	dl_store *s;
	assert_int_equal(dl_store_open(&s, w, NULL), 0);
	const char *entry = "{\"op\":\"createTable\",\"schema\":\"default\",\"table\":\"t\","
	                    "\"entryId\":\"e1\",\"type\":\"MANAGED\",\"location\":\"t\"}\n";
	assert_int_equal(dl_store_put(s, "_catalog/_log/00000000000000000000.json", entry,
	                              strlen(entry)), 0);
	assert_int_equal(dl_store_put(s, "t/_delta_log/00000000000000000000.json", "{}", 2), 0);
	dl_catalog *c = open_cat(w);
	assert_true(cf_error_is(dl_catalog_table_uri(&(char *){NULL}, c, "t"), DL_ENOTFOUND,
	                        "TABLE_OR_VIEW_NOT_FOUND"));
	assert_non_null(strstr(dl_error_last()->message, "being created"));
	dl_catalog_table_list tl;
	assert_int_equal(dl_catalog_list_tables(&tl, c, NULL), 0);
	assert_int_equal(tl.count, 0);
	dl_catalog_table_list_free(&tl);
	assert_true(cf_error_is(cf_create(c, "t", NULL, false, NULL), DL_EEXISTS,
	                        "TABLE_OR_VIEW_ALREADY_EXISTS"));
	assert_int_equal(dl_catalog_drop_table(c, "t", false), 0);
	assert_int_equal(cf_count_objects(w, "t"), 1);
	dl_store_free(s);
	dl_catalog_free(c);
}

static void test_corrupt_log(void **state)
{
	(void)state;
	const char *w = "mem://cat_corrupt";
	dl_store *s;
	assert_int_equal(dl_store_open(&s, w, NULL), 0);
	dl_catalog *c;
	/* A gap in the versions. */
	assert_int_equal(dl_store_put(s, "_catalog/_log/00000000000000000001.json", "{}", 2), 0);
	assert_int_equal(dl_catalog_open(&c, w, NULL), DL_ECORRUPT);
	assert_non_null(strstr(dl_error_last()->message, "missing"));
	/* Not a change. */
	assert_int_equal(dl_store_put(s, "_catalog/_log/00000000000000000000.json", "{\"op\":1}", 8),
	                 0);
	assert_int_equal(dl_catalog_open(&c, w, NULL), DL_ECORRUPT);
	assert_non_null(strstr(dl_error_last()->message, "00000000000000000000.json"));
	/* A change that does not apply: a table in a schema that does not exist. */
	const char *bad = "{\"op\":\"createTable\",\"schema\":\"nope\",\"table\":\"t\","
	                  "\"entryId\":\"e\",\"location\":\"nope.db/t\"}";
	assert_int_equal(dl_store_delete(s, "_catalog/_log/00000000000000000001.json"), 0);
	assert_int_equal(dl_store_put(s, "_catalog/_log/00000000000000000000.json", bad, strlen(bad)),
	                 0);
	assert_int_equal(dl_catalog_open(&c, w, NULL), DL_ECORRUPT);
	assert_non_null(strstr(dl_error_last()->message, "does not apply"));
	dl_store_free(s);
}

static void test_options_and_warehouse(void **state)
{
	(void)state;
	dl_catalog *c;
	dl_catalog_options o = DL_CATALOG_OPTIONS_INIT;
	o.version = 0;
	assert_int_equal(dl_catalog_open(&c, "mem://cat_opts", &o), DL_EINVALID);
	assert_non_null(strstr(dl_error_last()->message, "dl_catalog_options"));
	assert_int_equal(dl_catalog_open(&c, NULL, NULL), DL_EINVALID);
	/* A caller's store: the catalog goes through it. */
	dl_store *s;
	assert_int_equal(dl_store_open(&s, "mem://cat_opts", NULL), 0);
	o.version = DL_CATALOG_OPTIONS_VERSION;
	o.store = s;
	assert_int_equal(dl_catalog_open(&c, NULL, &o), 0);
	assert_string_equal(dl_catalog_warehouse(c), "mem://cat_opts");
	assert_int_equal(cf_create(c, "t", NULL, false, NULL), 0);
	dl_catalog_free(c);
	assert_true(cf_count_objects("mem://cat_opts", "_catalog/_log") == 2);
	dl_store_free(s);
	/* Store options reach the stores the catalog opens: a fault:// warehouse
	 * whose first put-if-absent fails cannot reserve a name. */
	const char *keys[] = {"fault.fail_kind", "fault.fail_nth", "fault.error"};
	const char *vals[] = {"put_if_absent", "1", "eio"};
	dl_store_options so = DL_STORE_OPTIONS_INIT;
	so.keys = keys;
	so.values = vals;
	so.noptions = 3;
	dl_catalog_options fo = DL_CATALOG_OPTIONS_INIT;
	fo.store_options = &so;
	assert_int_equal(dl_catalog_open(&c, "fault://mem://cat_storeopts", &fo), 0);
	assert_int_equal(cf_create(c, "t", NULL, false, NULL), DL_EIO);
	dl_catalog_free(c);
	assert_int_equal(dl_catalog_open(&c, "fault://mem://cat_storeopts", NULL), 0);
	assert_int_equal(cf_create(c, "t", NULL, false, NULL), 0);
	dl_catalog_free(c);

	char cwd[4096];
	assert_non_null(getcwd(cwd, sizeof cwd));
	char want[4200];
	char *w;
	unsetenv("DELTALAKE_WAREHOUSE");
	assert_int_equal(dl_catalog_warehouse_resolve(&w, NULL), 0);
	snprintf(want, sizeof want, "%s/warehouse", cwd);
	assert_string_equal(w, want);
	dl_free(w);
	setenv("DELTALAKE_WAREHOUSE", "/data/wh", 1);
	assert_int_equal(dl_catalog_warehouse_resolve(&w, ""), 0);
	assert_string_equal(w, "/data/wh");
	dl_free(w);
	assert_int_equal(dl_catalog_warehouse_resolve(&w, "./mine"), 0);
	snprintf(want, sizeof want, "%s/mine", cwd);
	assert_string_equal(w, want);
	dl_free(w);
	assert_int_equal(dl_catalog_warehouse_resolve(&w, "s3://bucket/wh"), 0);
	assert_string_equal(w, "s3://bucket/wh");
	dl_free(w);
	unsetenv("DELTALAKE_WAREHOUSE");
}

/* DROP deletes only the Delta table the entry recorded: a different table
 * put at the directory behind the catalog's back is left alone. */
static void test_drop_checks_table_id(void **state)
{
	(void)state;
	const char *w = "mem://cat_dropid";
	dl_catalog *c = open_cat(w);
	assert_int_equal(cf_create(c, "t", NULL, false, NULL), 0);
	dl_store *s;
	assert_int_equal(dl_store_open(&s, "mem://cat_dropid/t", NULL), 0);
	dl_object_list l = {NULL, 0};
	assert_int_equal(dl_store_list_recursive(&l, s, ""), 0);
	for (size_t i = 0; i < l.count; i++) assert_int_equal(dl_store_delete(s, l.items[i].path), 0);
	dl_object_list_free(&l);
	dl_store_free(s);
	dl_create_options co = DL_CREATE_OPTIONS_INIT;
	co.schema_ddl = "other INT";
	int64_t v;
	assert_int_equal(dl_create_table(&v, "mem://cat_dropid/t", &co), 0);
	long n = cf_count_objects(w, "t");
	assert_true(n > 0);
	assert_int_equal(dl_catalog_drop_table(c, "t", false), 0);
	assert_int_equal(cf_count_objects(w, "t"), n);
	dl_catalog_free(c);
}

/* A relative LOCATION is recorded as an absolute path. */
static void test_relative_location(void **state)
{
	(void)state;
	char *dir = cf_tmpdir();
	assert_non_null(dir);
	char cwd[4096];
	assert_non_null(getcwd(cwd, sizeof cwd));
	assert_int_equal(chdir(dir), 0);
	dl_catalog *c = open_cat("mem://cat_relative");
	assert_int_equal(cf_create(c, "r", "./rel/tbl", false, NULL), 0);
	char want[600];
	snprintf(want, sizeof want, "%s/rel/tbl", dir);
	assert_int_equal(chdir(cwd), 0);
	expect_uri(c, "r", want);
	dl_snapshot *snap;
	assert_int_equal(dl_snapshot_open(&snap, want, NULL), 0);
	dl_snapshot_free(snap);
	dl_catalog_free(c);
	cf_rmdir(dir);
	free(dir);
}

/* Every 100th version writes a checkpoint; a new handle starts from it. */
static void test_checkpoint(void **state)
{
	(void)state;
	const char *w = "mem://cat_checkpoint";
	dl_catalog *c = open_cat(w);
	char name[32];
	for (int i = 0; i < 100; i++) { /* versions 0..99 */
		snprintf(name, sizeof name, "s%03d", i);
		assert_int_equal(dl_catalog_create_schema(c, name, false), 0);
	}
	assert_int_equal(cf_count_objects(w, "_catalog/_log"), 100);
	assert_int_equal(cf_create(c, "s007.t", NULL, false, NULL), 0); /* 100, 101 */
	assert_int_equal(dl_catalog_drop_schema(c, "s003", false, false), 0); /* 102 */
	assert_int_equal(cf_count_objects(w, "_catalog/_log"), 104);
	dl_store *s;
	assert_int_equal(dl_store_open(&s, w, NULL), 0);
	uint8_t *data;
	size_t len;
	assert_int_equal(dl_store_get(&data, &len, s, "_catalog/_log/00000000000000000100.checkpoint.json"), 0);
	assert_non_null(strstr((char *)data, "\"version\":100"));
	dl_free(data);
	/* Versions before the checkpoint are no longer read by a new handle. */
	assert_int_equal(dl_store_put(s, "_catalog/_log/00000000000000000005.json", "junk", 4), 0);
	dl_catalog *c2 = open_cat(w);
	dl_catalog_name_list l;
	assert_int_equal(dl_catalog_list_schemas(&l, c2), 0);
	assert_int_equal(l.count, 100); /* 99 left and default */
	dl_catalog_name_list_free(&l);
	/* The table reserved at 100 was activated at 101, after the checkpoint. */
	expect_uri(c2, "s007.t", "mem://cat_checkpoint/s007.db/t");
	dl_catalog_free(c2);
	/* A damaged checkpoint is reported. */
	assert_int_equal(dl_store_put(s, "_catalog/_log/00000000000000000100.checkpoint.json", "{}", 2), 0);
	dl_catalog *c3;
	assert_int_equal(dl_catalog_open(&c3, w, NULL), DL_ECORRUPT);
	assert_non_null(strstr(dl_error_last()->message, "checkpoint"));
	dl_store_free(s);
	dl_catalog_free(c);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_schemas),
		cmocka_unit_test(test_managed_tables),
		cmocka_unit_test(test_names),
		cmocka_unit_test(test_current_schema),
		cmocka_unit_test(test_external_tables),
		cmocka_unit_test(test_managed_location_taken),
		cmocka_unit_test(test_interrupted_create),
		cmocka_unit_test(test_corrupt_log),
		cmocka_unit_test(test_options_and_warehouse),
		cmocka_unit_test(test_drop_checks_table_id),
		cmocka_unit_test(test_relative_location),
		cmocka_unit_test(test_checkpoint),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
