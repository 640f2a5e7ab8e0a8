/* dl_update: assignments with store-assignment casts, nested fields,
 * partition moves, generated / identity / NOT NULL / CHECK rules, Spark's
 * cases (copy-on-write, DVs, partition-only rewrites) and their metrics,
 * row tracking, change data, refusals leaving the table unchanged, and
 * conflicts with commits that land while the command runs. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include "dml_fixture.h"

#define DDL "id BIGINT, v INT, name STRING, p INT"
#define ROWS "1,10,a,1;2,20,b,1;3,30,NULL,2;4,40,d,2"

static char *make(const char *name, const char *part, const char *const *props, int nprops)
{
	char *uri = fx_table(g_dir, name);
	dx_create(uri, DDL, part, props, nprops);
	dx_append(uri, DDL, ROWS);
	return uri;
}

#define SET1(col, e) ((dl_update_assignment[]){{col, e}})

static int update1(dl_update_metrics *m, const char *uri, const char *col, const char *e,
                   const char *pred)
{
	dl_update_assignment a = {col, e};
	return dl_update(m, uri, &a, 1, pred, NULL);
}

#define UPDATE_OK(m, uri, col, e, pred)                                                         \
	do {                                                                                        \
		if (update1(m, uri, col, e, pred) < 0)                                                  \
			fail_msg("UPDATE SET %s = %s: %s", col, e, dl_error_last()->message);              \
	} while (0)

static void test_copy_on_write(void **state)
{
	(void)state;
	char *uri = make("cow", NULL, NULL, 0);
	dl_update_metrics m;
	dl_update_assignment set[] = {{"v", "v + id * 100"}, {"NAME", "upper(name)"}};
	assert_int_equal(dl_update(&m, uri, set, 2, "id % 2 = 0", NULL), 0);
	assert_int_equal(m.version, 2);
	assert_int_equal(m.num_affected_rows, 2);
	assert_int_equal(m.numUpdatedRows, 2);
	assert_int_equal(m.numCopiedRows, 2);
	assert_int_equal(m.numRemovedFiles, 1);
	assert_int_equal(m.numAddedFiles, 1);
	dx_rows(uri, NULL, "1,10,a,1;2,220,B,1;3,30,NULL,2;4,440,D,2");
	dx_commit_has(uri, 2, "\"operation\":\"UPDATE\"");
	dx_commit_has(uri, 2, "\"operationParameters\":{\"predicate\":\"[\\\"((id % 2) = 0)\\\"]\"}");
	dx_commit_has(uri, 2, "\"numUpdatedRows\":\"2\"");
	dx_commit_has(uri, 2, "\"numCopiedRows\":\"2\"");
	dx_commit_has(uri, 2, "\"numDeletionVectorsUpdated\":\"0\"");
	dx_commit_has(uri, 2, "\"numAddedBytes\":");
	dx_commit_lacks(uri, 2, "numDeletedRows");
	/* no predicate: every row, "[]"; rows where the predicate is NULL stay */
	UPDATE_OK(&m, uri, "v", "0", NULL);
	assert_int_equal(m.numUpdatedRows, 4);
	dx_commit_has(uri, 3, "\"predicate\":\"[]\"");
	UPDATE_OK(&m, uri, "v", "1", "name <> 'a'");
	assert_int_equal(m.numUpdatedRows, 2);
	dx_rows(uri, "id,v", "1,0;2,1;3,0;4,1");
	/* nothing matches: nothing committed */
	UPDATE_OK(&m, uri, "v", "2", "id > 99");
	assert_int_equal(m.version, -1);
	assert_int_equal(m.num_affected_rows, 0);
	assert_int_equal(fx_version(uri), 4);
	dl_free(uri);
}

static void expect_error(const char *uri, const dl_update_assignment *set, size_t n,
                         const char *pred, int code, const char *text)
{
	char *before = dx_tree(uri);
	dl_update_metrics m;
	int rc = dl_update(&m, uri, set, n, pred, NULL);
	const dl_error *e = dl_error_last();
	if (rc != code) fail_msg("UPDATE SET %s: %d (%s), expected %d", n ? set[0].column : "-", rc,
	                         e->message, code);
	if (!strstr(e->message, text) && !strstr(e->klass, text))
		fail_msg("UPDATE SET %s: '%s' (%s) lacks '%s'", n ? set[0].column : "-", e->message,
		         e->klass, text);
	assert_int_equal(m.version, -1);
	char *after = dx_tree(uri);
	assert_string_equal(before, after);
	free(before);
	free(after);
}

/* ANSI store assignment: values cast to the column type; overflow and bad
 * text fail the command. */
static void test_casts(void **state)
{
	(void)state;
	char *uri = make("casts", NULL, NULL, 0);
	dl_update_metrics m;
	UPDATE_OK(&m, uri, "v", "id * 2.6", "id = 1");       /* DECIMAL -> INT */
	UPDATE_OK(&m, uri, "name", "id + 0.5", "id = 2");     /* DECIMAL -> STRING */
	UPDATE_OK(&m, uri, "v", "'77'", "id = 3");            /* STRING -> INT */
	dx_rows(uri, "id,v,name", "1,2,a;2,20,2.5;3,77,NULL;4,40,d");
	/* an overflowing store is Spark's CheckOverflowInTableWrite error,
	 * naming the value's type, the column's and the column; a CAST the
	 * user wrote keeps its own CAST_OVERFLOW */
	expect_error(uri, SET1("v", "id * 10000000000"), 1, "id = 4", DL_EINVALID, "DELTA_CAST_OVERFLOW_IN_TABLE_WRITE");
	assert_non_null(strstr(dl_error_last()->message, "Failed to write a value of \"BIGINT\" type into the "
	                                                 "\"INT\" type column `v` due to an overflow."));
	expect_error(uri, SET1("v", "CAST(id * 10000000000 AS INT)"), 1, "id = 4", DL_EINVALID, "CAST_OVERFLOW");
	assert_string_equal(dl_error_last()->klass, "CAST_OVERFLOW");
	assert_non_null(strstr(dl_error_last()->message, "The value 40000000000L of the type \"BIGINT\""));
	expect_error(uri, SET1("v", "1e30"), 1, NULL, DL_EINVALID, "DELTA_CAST_OVERFLOW_IN_TABLE_WRITE");
	assert_non_null(strstr(dl_error_last()->message, "\"DOUBLE\" type into the \"INT\" type column `v`"));
	expect_error(uri, SET1("v", "'x7'"), 1, NULL, DL_EINVALID, "x7");
	assert_string_equal(dl_error_last()->klass, "CAST_INVALID_INPUT");
	dl_free(uri);
}

static void test_refusals(void **state)
{
	(void)state;
	char *uri = make("refuse", NULL, NULL, 0);
	expect_error(uri, SET1("nope", "1"), 1, NULL, DL_EINVALID, "DELTA_MISSING_SET_COLUMN");
	expect_error(uri, SET1("v.x", "1"), 1, NULL, DL_EINVALID,
	             "DELTA_UNSUPPORTED_FIELD_UPDATE_NON_STRUCT");
	dl_update_assignment twice[] = {{"v", "1"}, {"V", "2"}};
	expect_error(uri, twice, 2, NULL, DL_EINVALID, "DELTA_CONFLICT_SET_COLUMN");
	expect_error(uri, SET1("v", "nope + 1"), 1, NULL, DL_EINVALID, "nope");
	expect_error(uri, SET1("name", "uuid()"), 1, NULL, DL_EINVALID,
	             "DELTA_NON_DETERMINISTIC_FUNCTION_NOT_SUPPORTED");
	expect_error(uri, SET1("v", "1"), 1, "uuid() = name", DL_EINVALID, "not deterministic");
	expect_error(uri, SET1("v", "1"), 1, "nope = 1", DL_EINVALID, "nope");
	expect_error(uri, NULL, 0, NULL, DL_EINVALID, "at least one");
	dl_free(uri);
	const char *props[] = {"delta.appendOnly", "true"};
	uri = make("append_only", NULL, props, 1);
	expect_error(uri, SET1("v", "1"), 1, NULL, DL_ECONSTRAINT, "DELTA_CANNOT_MODIFY_APPEND_ONLY");
	dl_free(uri);
}

/* Idempotent UPDATE: the second run of the same app version does nothing. */
static void test_idempotent(void **state)
{
	(void)state;
	char *uri = make("idem", NULL, NULL, 0);
	dl_update_options o = DL_UPDATE_OPTIONS_INIT;
	o.txn_app_id = "etl";
	o.txn_version = 3;
	dl_update_assignment a = {"v", "v + 1"};
	dl_update_metrics m;
	assert_int_equal(dl_update(&m, uri, &a, 1, "id = 1", &o), 0);
	assert_int_equal(m.version, 2);
	dx_commit_has(uri, 2, "{\"txn\":{\"appId\":\"etl\",\"version\":3");
	assert_int_equal(dl_update(&m, uri, &a, 1, "id = 1", &o), 0);
	assert_int_equal(m.version, -1);
	assert_int_equal(m.num_affected_rows, 0);
	dx_rows(uri, "id,v", "1,11;2,20;3,30;4,40");
	/* a version 1 struct (before txn ids) is still accepted */
	dl_update_options v1 = DL_UPDATE_OPTIONS_INIT;
	v1.version = 1;
	assert_int_equal(dl_update(&m, uri, &a, 1, "id = 2", &v1), 0);
	assert_int_equal(m.num_affected_rows, 1);
	o.txn_version = -1;
	assert_int_equal(dl_update(&m, uri, &a, 1, "id = 1", &o), DL_EINVALID);
	dl_free(uri);
}

/* A changed partition value moves the row to its partition. */
static void test_partition_move(void **state)
{
	(void)state;
	char *uri = make("move", "p", NULL, 0);
	dl_update_metrics m;
	UPDATE_OK(&m, uri, "p", "p + 5", "v >= 20 AND v <= 30");
	assert_int_equal(m.numUpdatedRows, 2);
	dx_rows(uri, "id,p", "1,1;2,6;3,7;4,2");
	char dir[1200];
	snprintf(dir, sizeof dir, "%s/p=6", uri);
	assert_true(fx_count_parquet(dir) == 1);
	/* a partition-only condition rewrites its files whole */
	UPDATE_OK(&m, uri, "v", "-v", "p = 1");
	assert_int_equal(m.numUpdatedRows, 1);
	assert_int_equal(m.numCopiedRows, 0);
	dx_rows(uri, "id,v", "1,-10;2,20;3,30;4,40");
	dl_free(uri);
}

/* Spark's case 2 (partition-only) is copy-on-write even with DVs; case 3.1
 * deletes the old rows by DV and writes only the updated ones. */
static void test_deletion_vectors(void **state)
{
	(void)state;
	const char *props[] = {"delta.enableDeletionVectors", "true"};
	char *uri = make("dv", "p", props, 1);
	dl_update_metrics m;
	UPDATE_OK(&m, uri, "v", "v + 1", "id = 1");
	assert_int_equal(m.numUpdatedRows, 1);
	assert_int_equal(m.numDeletionVectorsAdded, 1);
	assert_int_equal(m.numCopiedRows, 0);
	/* as Spark's case 3.1: the files of the updated rows are not counted */
	assert_int_equal(m.numAddedFiles, 0);
	assert_int_equal(m.numRemovedFiles, 0);
	assert_int_equal(dx_count_dv_files(uri), 1);
	dx_commit_has(uri, 2, "\"deletionVector\":{");
	dx_rows(uri, "id,v", "1,11;2,20;3,30;4,40");
	UPDATE_OK(&m, uri, "v", "0", "p = 2");
	assert_int_equal(m.numUpdatedRows, 2);
	assert_int_equal(m.numDeletionVectorsAdded, 0);
	assert_int_equal(m.numRemovedFiles, 1);
	assert_int_equal(m.numAddedFiles, 1);
	assert_true(m.numRemovedBytes > 0);
	dx_rows(uri, "id,v", "1,11;2,20;3,0;4,0");
	dl_free(uri);
}

/* With DVs, a file where nothing matches is neither rewritten nor given a
 * DV (found through the predicate's columns alone). */
static void test_deletion_vectors_untouched_file(void **state)
{
	(void)state;
	const char *props[] = {"delta.enableDeletionVectors", "true"};
	char *uri = make("dv_two", NULL, props, 1);
	dx_append(uri, DDL, "5,50,e,1;6,60,f,1");
	dl_update_metrics m;
	UPDATE_OK(&m, uri, "name", "'z'", "v % 50 = 0 AND v > 0");
	assert_int_equal(m.numUpdatedRows, 1);
	assert_int_equal(m.numDeletionVectorsAdded, 1);
	dx_rows(uri, "id,name", "1,a;2,b;3,NULL;4,d;5,z;6,f");
	/* one remove (the file of id 5 getting its DV), not two */
	char *c = fx_commit(uri, 3);
	int removes = 0;
	for (const char *p = c; (p = strstr(p, "{\"remove\"")); p++) removes++;
	assert_int_equal(removes, 1);
	dl_free(c);
	dl_free(uri);
}

/* With DVs only the matching rows are read (the scan filters them, the
 * columns the condition does not read are decoded for them alone): a file
 * with a DV already gets the union, a file whose every live row matches is
 * removed, unmatched rows keep their row ids and versions, updated ones
 * keep their ids, and the change data has both images of each row. */
static void test_deletion_vectors_matched_rows(void **state)
{
	(void)state;
	const char *props[] = {"delta.enableDeletionVectors", "true", "delta.enableRowTracking", "true",
	                       "delta.enableChangeDataFeed", "true"};
	char *uri = make("dv_matched", NULL, props, 3);          /* v1: ids 1-4, row ids 0-3 */
	dx_append(uri, DDL, "5,50,e,1;6,60,NULL,1;7,NULL,g,2"); /* v2: ids 5-7, row ids 4-6 */
	dl_delete_metrics dm;
	assert_int_equal(dl_delete(&dm, uri, "id = 2 OR id = 7", NULL), 0); /* v3: a DV on each */
	dl_update_metrics m;
	UPDATE_OK(&m, uri, "name", "coalesce(name, 'x') || '!'", "name IS NULL OR id >= 4");
	assert_int_equal(m.version, 4);
	assert_int_equal(m.numUpdatedRows, 4);
	assert_int_equal(m.numDeletionVectorsUpdated, 1); /* the first file's */
	assert_int_equal(m.numDeletionVectorsRemoved, 2); /* ... and the removed one's */
	assert_int_equal(m.numAddedChangeFiles, 2); /* one per file touched */
	dx_rows(uri, "id,v,name", "1,10,a;3,30,x!;4,40,d!;5,50,e!;6,60,x!");
	dx_rows(uri, "id," DL_SCAN_ROW_ID "," DL_SCAN_ROW_COMMIT_VERSION, "1,0,1;3,2,4;4,3,4;5,4,4;6,5,4");
	/* the first file's DV: row 1 (id 2) from before, rows 2 and 3 now */
	dx_commit_has(uri, 4, "\"cardinality\":3");
	char *c = fx_commit(uri, 4);
	int removes = 0;
	for (const char *q = c; (q = strstr(q, "{\"remove\"")); q++) removes++;
	assert_int_equal(removes, 2); /* the first file (its old DV) and the second, gone */
	dl_free(c);
	dl_free(uri);
}

static void test_nested_fields(void **state)
{
	(void)state;
	char *uri = fx_table(g_dir, "nested");
	dx_create(uri, "id BIGINT, s STRUCT<a: INT, b: STRUCT<x: STRING, y: INT>>", NULL, NULL, 0);
	dx_append(uri, "id BIGINT", "1;2");
	dl_update_metrics m;
	dl_update_assignment set[] = {{"s.a", "id * 10"}, {"s.`b`.y", "id"}};
	assert_int_equal(dl_update(&m, uri, set, 2, "id = 1", NULL), 0);
	UPDATE_OK(&m, uri, "s.b.x", "'q'", "id = 2");
	char *got = fx_read(uri, -1, "id,s");
	if (!got) fail_msg("%s", dl_error_last()->message);
	assert_string_equal(got, "1,{a: 10, b: {x: NULL, y: 1}};2,{a: NULL, b: {x: q, y: NULL}}");
	dl_free(got);
	dl_update_assignment clash[] = {{"s.b", "s.b"}, {"s.b.x", "'z'"}};
	expect_error(uri, clash, 2, NULL, DL_EINVALID, "DELTA_CONFLICT_SET_COLUMN");
	/* a struct value is stored by field name (Spark's castIfNeeded), a NULL
	 * one stays NULL; other fields are refused */
	UPDATE_OK(&m, uri, "s", "named_struct('b', named_struct('y', id, 'x', 'k'), 'a', 7)", "id = 1");
	UPDATE_OK(&m, uri, "s.b", "IF(id = 2, NULL, named_struct('y', 1, 'x', 'k'))", "id = 2");
	dx_rows(uri, "id,s", "1,{a: 7, b: {x: k, y: 1}};2,{a: NULL, b: NULL}");
	dl_update_assignment other[] = {{"s", "named_struct('a', 1, 'z', named_struct('x', 'k', 'y', 1))"}};
	expect_error(uri, other, 1, NULL, DL_EINVALID, "DELTA_UPDATE_SCHEMA_MISMATCH_EXPRESSION");
	dl_update_assignment fewer[] = {{"s.b", "named_struct('x', 'k')"}};
	expect_error(uri, fewer, 1, NULL, DL_EINVALID, "DELTA_UPDATE_SCHEMA_MISMATCH_EXPRESSION");
	dl_free(uri);
}

/* Generated columns follow their base columns; identity columns cannot be
 * set; NOT NULL and CHECK hold on every updated row. */
static void test_column_rules(void **state)
{
	(void)state;
	char *uri = fx_table(g_dir, "rules");
	dl_create_options c = DL_CREATE_OPTIONS_INIT;
	c.schema_ddl = "id BIGINT GENERATED ALWAYS AS IDENTITY, v INT, name STRING NOT NULL, "
	               "g INT GENERATED ALWAYS AS (v * 2)";
	const char *cn[] = {"small"}, *ce[] = {"v < 100"};
	c.constraint_names = cn;
	c.constraint_exprs = ce;
	c.nconstraints = 1;
	int64_t ver;
	assert_int_equal(dl_create_table(&ver, uri, &c), 0);
	dx_append(uri, "v INT, name STRING", "1,a;2,b");
	dx_rows(uri, NULL, "1,1,a,2;2,2,b,4");
	dl_update_metrics m;
	UPDATE_OK(&m, uri, "v", "v + 10", "name = 'b'");
	dx_rows(uri, NULL, "1,1,a,2;2,12,b,24");
	UPDATE_OK(&m, uri, "g", "v * 2", "name = 'a'"); /* equal to the expression: allowed */
	expect_error(uri, SET1("g", "5"), 1, NULL, DL_ECONSTRAINT, "Generated Column");
	expect_error(uri, SET1("id", "7"), 1, NULL, DL_EINVALID,
	             "DELTA_IDENTITY_COLUMNS_UPDATE_NOT_SUPPORTED");
	expect_error(uri, SET1("name", "NULL"), 1, "v = 1", DL_ECONSTRAINT, "NOT NULL");
	expect_error(uri, SET1("v", "v * 50"), 1, NULL, DL_ECONSTRAINT, "small");
	dx_rows(uri, NULL, "1,1,a,2;2,12,b,24");
	dl_free(uri);
}

/* Updated rows keep their row ids and get the commit's version; copied rows
 * keep both. */
static void test_row_tracking_and_cdf(void **state)
{
	(void)state;
	const char *props[] = {"delta.enableRowTracking", "true", "delta.enableChangeDataFeed",
	                       "true"};
	char *uri = make("tracked", NULL, props, 2);
	char *before = fx_read(uri, -1, "id," DL_SCAN_ROW_ID "," DL_SCAN_ROW_COMMIT_VERSION);
	assert_non_null(before);
	assert_string_equal(before, "1,0,1;2,1,1;3,2,1;4,3,1");
	dl_free(before);
	dl_update_metrics m;
	UPDATE_OK(&m, uri, "v", "v + 1", "id = 2");
	assert_int_equal(m.numAddedChangeFiles, 1);
	dx_rows(uri, "id," DL_SCAN_ROW_ID "," DL_SCAN_ROW_COMMIT_VERSION, "1,0,1;2,1,2;3,2,1;4,3,1");
	dx_commit_has(uri, 2, "{\"cdc\":{");
	dl_free(uri);
}

/* ---- concurrent commits landing while the command runs ---- */

typedef struct racer {
	const char *uri;
	int kind; /* 0: delete partition p = 1 (removes only), 1: append into p = 1,
	             2: append into p = 9, 3: delete id = 1 (rewrites p = 1's file) */
	bool done;
} racer;

static int race(const dl_progress_info *p, void *payload)
{
	racer *r = payload;
	if (strcmp(p->phase, "committing") != 0 || r->done) return 0;
	r->done = true;
	if (r->kind == 0 || r->kind == 3) {
		dl_delete_metrics m;
		if (dl_delete(&m, r->uri, r->kind == 0 ? "p = 1" : "id = 1", NULL) < 0)
			fail_msg("%s", dl_error_last()->message);
	} else {
		dx_append(r->uri, DDL, r->kind == 1 ? "9,90,z,1" : "9,90,z,9");
	}
	return 0;
}

static int raced_update(const char *uri, int kind, const char *pred)
{
	racer r = {uri, kind, false};
	dl_update_options o = DL_UPDATE_OPTIONS_INIT;
	o.progress = race;
	o.progress_payload = &r;
	dl_update_metrics m;
	dl_update_assignment a = {"v", "v + 1"};
	int rc = dl_update(&m, uri, &a, 1, pred, &o);
	assert_true(r.done);
	return rc;
}

static void test_conflicts(void **state)
{
	(void)state;
	char *uri = make("race_delete", "p", NULL, 0);
	assert_int_equal(raced_update(uri, 0, "id = 1"), DL_ECONFLICT);
	assert_string_equal(dl_error_last()->klass, "DELTA_CONCURRENT_DELETE_READ");
	dx_rows(uri, "id,v", "3,30;4,40");
	dl_free(uri);
	/* a rewrite of the file read adds a file the condition may match: Spark
	 * checks added files first (DELTA_CONCURRENT_APPEND) */
	uri = make("race_rewrite", "p", NULL, 0);
	assert_int_equal(raced_update(uri, 3, "id = 1"), DL_ECONFLICT);
	assert_string_equal(dl_error_last()->klass, "DELTA_CONCURRENT_APPEND");
	dx_rows(uri, "id,v", "2,20;3,30;4,40");
	dl_free(uri);
	/* a blind append into the partition read: no conflict under
	 * WriteSerializable (the append serializes after the update) ... */
	uri = make("race_blind", "p", NULL, 0);
	assert_int_equal(raced_update(uri, 1, "p = 1"), 0);
	dx_rows(uri, "id,v", "1,11;2,21;3,30;4,40;9,90");
	dl_free(uri);
	/* ... a conflict under Serializable ... */
	const char *ser[] = {"delta.isolationLevel", "Serializable"};
	uri = make("race_append", "p", ser, 1);
	assert_int_equal(raced_update(uri, 1, "p = 1"), DL_ECONFLICT);
	assert_string_equal(dl_error_last()->klass, "DELTA_CONCURRENT_APPEND");
	dl_free(uri);
	/* ... and none there for an append into another partition */
	uri = make("race_other", "p", NULL, 0);
	int rc = raced_update(uri, 2, "p = 1");
	if (rc < 0) fail_msg("%s: %s", dl_error_last()->klass, dl_error_last()->message);
	dx_rows(uri, "id,v", "1,11;2,21;3,30;4,40;9,90");
	dl_free(uri);
	uri = make("race_other_ser", "p", ser, 1);
	rc = raced_update(uri, 2, "p = 1");
	if (rc < 0) fail_msg("%s: %s", dl_error_last()->klass, dl_error_last()->message);
	dx_rows(uri, "id,v", "1,11;2,21;3,30;4,40;9,90");
	dl_free(uri);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_copy_on_write),
		cmocka_unit_test(test_casts),
		cmocka_unit_test(test_refusals),
		cmocka_unit_test(test_idempotent),
		cmocka_unit_test(test_partition_move),
		cmocka_unit_test(test_deletion_vectors),
		cmocka_unit_test(test_deletion_vectors_untouched_file),
		cmocka_unit_test(test_deletion_vectors_matched_rows),
		cmocka_unit_test(test_nested_fields),
		cmocka_unit_test(test_column_rules),
		cmocka_unit_test(test_row_tracking_and_cdf),
		cmocka_unit_test(test_conflicts),
	};
	return cmocka_run_group_tests(tests, fx_setup_tmpdir, fx_teardown_tmpdir);
}
