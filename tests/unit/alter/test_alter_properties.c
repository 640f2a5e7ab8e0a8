/* ALTER TABLE SET / UNSET TBLPROPERTIES (seed 44 "Delta table properties
 * reference", 22 "row tracking", 11 "column mapping"): validation of every
 * delta.* key as Spark's DeltaConfigs, user keys kept, the protocol each
 * enabling property needs, the commitInfo Spark writes, the column mapping
 * upgrade without rewriting, the row tracking backfill, and failures that
 * leave the table as it was. After each change the rows still read right. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include "alter_fixture.h"

#define DDL "id BIGINT, name STRING"
#define ROWS "1,a;2,b;3,c"

static char *make(const char *name)
{
	char *uri = fx_table(g_dir, name);
	dx_create(uri, DDL, NULL, NULL, 0);
	dx_append(uri, DDL, ROWS);
	return uri;
}

static void test_set_and_unset(void **state)
{
	(void)state;
	char *uri = make("basic");
	int64_t v;
	const char *k[] = {"delta.appendOnly", "owner.team", "delta.logRetentionDuration"};
	const char *val[] = {"true", "Data Eng", "interval 60 days"};
	ax_ok(dl_alter_set_properties(&v, uri, k, val, 3, NULL));
	assert_int_equal(v, 2);
	ax_conf_is(uri, "delta.appendOnly", "true");
	ax_conf_is(uri, "owner.team", "Data Eng");
	ax_conf_is(uri, "delta.logRetentionDuration", "interval 60 days");
	dx_commit_has(uri, 2, "\"operation\":\"SET TBLPROPERTIES\"");
	dx_commit_has(uri, 2, "\"properties\":\"{\\\"delta.appendOnly\\\":\\\"true\\\"");
	ax_protocol_is(uri, "(1,2)");
	/* the key's case follows DeltaConfigs; a later value wins */
	const char *k2[] = {"DELTA.checkpointinterval", "delta.checkpointInterval"};
	const char *v2[] = {"5", "7"};
	ax_ok(dl_alter_set_properties(&v, uri, k2, v2, 2, NULL));
	ax_conf_is(uri, "delta.checkpointInterval", "7");
	ax_conf_is(uri, "DELTA.checkpointinterval", NULL);
	/* UNSET: missing keys refused unless IF EXISTS */
	const char *u[] = {"owner.team"};
	ax_ok(dl_alter_unset_properties(&v, uri, u, 1, false, NULL));
	ax_conf_is(uri, "owner.team", NULL);
	dx_commit_has(uri, v, "\"operation\":\"UNSET TBLPROPERTIES\"");
	dx_commit_has(uri, v, "\"ifExists\":\"false\"");
	ax_fails(dl_alter_unset_properties(&v, uri, u, 1, false, NULL), DL_ENOTFOUND,
	         "DELTA_UNSET_NON_EXISTENT_PROPERTY", "'owner.team'");
	int64_t before = fx_version(uri);
	ax_ok(dl_alter_unset_properties(&v, uri, u, 1, true, NULL));
	assert_int_equal(fx_version(uri), before + 1);
	dx_commit_has(uri, v, "\"ifExists\":\"true\"");
	/* comment is the description */
	ax_ok(ax_set1(uri, "comment", "people"));
	dx_commit_has(uri, fx_version(uri), "\"description\":\"people\"");
	dx_rows(uri, "id,name", "1,a;2,b;3,c");
	dl_free(uri);
}

/* DeltaConfigs' validation: unknown delta.* keys, bad values (the message
 * names key and value), internal and reserved keys; nothing committed. */
static void test_validation(void **state)
{
	(void)state;
	char *uri = make("validate");
	char *before = dx_tree(uri);
	ax_fails(ax_set1(uri, "delta.noSuchThing", "1"), DL_EINVALID, "DELTA_UNKNOWN_CONFIGURATION",
	         "delta.noSuchThing");
	ax_fails(ax_set1(uri, "delta.checkpointInterval", "0"), DL_EINVALID, NULL,
	         "delta.checkpointInterval needs to be a positive integer");
	ax_fails(ax_set1(uri, "delta.checkpointInterval", "ten"), DL_EINVALID, NULL, "'ten'");
	ax_fails(ax_set1(uri, "delta.logRetentionDuration", "interval 1 month"), DL_EINVALID, NULL,
	         "Months and years are not accepted");
	ax_fails(ax_set1(uri, "delta.deletedFileRetentionDuration", "soon"), DL_EINVALID, NULL,
	         "delta.deletedFileRetentionDuration");
	ax_fails(ax_set1(uri, "delta.appendOnly", "yes"), DL_EINVALID, NULL, "needs to be a boolean");
	ax_fails(ax_set1(uri, "delta.isolationLevel", "SnapshotIsolation"), DL_EINVALID, NULL,
	         "must be Serializable");
	ax_fails(ax_set1(uri, "delta.checkpointPolicy", "v3"), DL_EINVALID, NULL, "classic, v2");
	ax_fails(ax_set1(uri, "delta.dataSkippingNumIndexedCols", "-2"), DL_EINVALID, NULL,
	         "larger than or equal to -1");
	ax_fails(ax_set1(uri, "delta.dataSkippingStatsColumns", "a,,b"), DL_EINVALID, NULL,
	         "dataSkippingStatsColumns");
	ax_fails(ax_set1(uri, "delta.columnMapping.maxColumnId", "9"), DL_EINVALID,
	         "DELTA_CANNOT_MODIFY_TABLE_PROPERTY", NULL);
	ax_fails(ax_set1(uri, "delta.constraints.c1", "id > 0"), DL_EINVALID, "DELTA_ADD_CONSTRAINTS", NULL);
	ax_fails(ax_set1(uri, "location", "/x"), DL_EINVALID, "DELTA_CANNOT_CHANGE_LOCATION", NULL);
	ax_fails(ax_set1(uri, "delta.columnMapping.mode", "fancy"), DL_EINVALID, "DELTA_MODE_NOT_SUPPORTED",
	         "'fancy'");
	ax_fails(ax_set1(uri, "delta.feature.noSuchFeature", "supported"), DL_EUNSUPPORTED, NULL,
	         "nosuchfeature");
	ax_fails(ax_set1(uri, "delta.parquet.bloomFilter.fpp", "1.5"), DL_EINVALID, NULL,
	         "delta.parquet.bloomFilter.fpp needs to be a probability");
	ax_fails(ax_set1(uri, "delta.parquet.bloomFilter.columns", "a,,b"), DL_EINVALID, NULL,
	         "delta.parquet.bloomFilter.columns");
	char *after = dx_tree(uri);
	assert_string_equal(before, after);
	free(before);
	free(after);
	/* valid values Spark accepts */
	ax_ok(ax_set1(uri, "delta.dataSkippingStatsColumns", "id, `name`"));
	ax_ok(ax_set1(uri, "delta.dataSkippingNumIndexedCols", "-1"));
	ax_ok(ax_set1(uri, "delta.isolationLevel", "Serializable"));
	ax_ok(ax_set1(uri, "delta.deletedFileRetentionDuration", "interval 2 weeks"));
	/* this library's Bloom filter properties (docs/WRITES.md) */
	ax_ok(ax_set1(uri, "delta.parquet.bloomFilter.columns", "id, name"));
	ax_ok(ax_set1(uri, "delta.parquet.bloomFilter.fpp", "0.05"));
	dx_rows(uri, "id", "1;2;3");
	dl_free(uri);
}

/* delta.parquet.bloomFilter.columns on the write path: the files of an
 * append carry a Bloom filter for the named column only, and a point
 * lookup of a value inside the file's min/max but absent skips the row
 * group by it while a present value is found. */
static int64_t lookup(const char *uri, const char *filter, dl_scan_metrics *m)
{
	dl_snapshot *snap;
	ax_ok(dl_snapshot_open(&snap, uri, NULL));
	dl_scan_options o = DL_SCAN_OPTIONS_INIT;
	o.filter = filter;
	dl_scan *scan;
	ax_ok(dl_scan_open(&scan, snap, &o));
	dl_batch_stream *bs;
	ax_ok(dl_scan_batches(&bs, scan));
	dl_batch *b;
	int64_t rows = 0;
	while (dl_batch_stream_next(bs, &b) == 0 && b) {
		rows += b->num_rows;
		dl_batch_free(b);
	}
	dl_scan_get_metrics(m, scan);
	dl_batch_stream_free(bs);
	dl_scan_free(scan);
	dl_snapshot_free(snap);
	return rows;
}

static void test_bloom_filter_columns(void **state)
{
	(void)state;
	char *uri = fx_table(g_dir, "bloom");
	const char *props[] = {"delta.parquet.bloomFilter.columns", "name"};
	dx_create(uri, DDL, NULL, props, 1);
	dx_append(uri, DDL, ROWS);
	dl_scan_metrics m;
	assert_int_equal(lookup(uri, "name = 'b2'", &m), 0);
	assert_int_equal(m.files_pruned_stats, 0);
	assert_int_equal(m.row_groups_pruned_bloom, 1);
	assert_int_equal(lookup(uri, "name = 'b'", &m), 1);
	assert_int_equal(m.row_groups_pruned_bloom, 0);
	/* id has none: nothing to skip by */
	assert_int_equal(lookup(uri, "id = 2 AND name <> 'q'", &m), 1);
	assert_int_equal(lookup(uri, "id IN (2) OR id = 3", &m), 2);
	assert_int_equal(m.row_groups_pruned_bloom, 0);
	dl_free(uri);
}

/* Each enabling property adds its feature, as Spark's protocol upgrade. */
/* CREATE TABLE validates its TBLPROPERTIES as SET TBLPROPERTIES does (the
 * one DeltaConfigs table, log/delta_configs.c): an unknown delta.* key or a
 * bad value is refused before anything is written; a known key in another
 * case is stored under its canonical spelling; user keys are kept. */
static int create_with(const char *uri, const char *k, const char *v)
{
	dl_create_options c = DL_CREATE_OPTIONS_INIT;
	c.schema_ddl = DDL;
	const char *keys[] = {k, "owner.Team"}, *vals[] = {v, "x"};
	c.property_keys = keys;
	c.property_values = vals;
	c.nproperties = 2;
	int64_t ver;
	return dl_create_table(&ver, uri, &c);
}

static void test_create_validation(void **state)
{
	(void)state;
	char *uri = fx_table(g_dir, "create_validate");
	ax_fails(create_with(uri, "delta.noSuchThing", "1"), DL_EINVALID, "DELTA_UNKNOWN_CONFIGURATION",
	         "Unknown configuration was specified: delta.noSuchThing");
	ax_fails(create_with(uri, "delta.checkpointInterval", "0"), DL_EINVALID, NULL,
	         "requirement failed: delta.checkpointInterval needs to be a positive integer");
	ax_fails(create_with(uri, "delta.columnMapping.maxColumnId", "3"), DL_EINVALID,
	         "DELTA_CANNOT_MODIFY_TABLE_PROPERTY", NULL);
	ax_fails(create_with(uri, "delta.columnMapping.mode", "fancy"), DL_EINVALID, "DELTA_MODE_NOT_SUPPORTED",
	         NULL);
	dl_snapshot *snap = NULL;
	assert_true(dl_snapshot_open(&snap, uri, NULL) < 0); /* nothing was created */
	dl_error_clear();
	ax_ok(create_with(uri, "DELTA.APPENDONLY", "true"));
	ax_conf_is(uri, "delta.appendOnly", "true");
	ax_conf_is(uri, "owner.Team", "x");
	ax_conf_is(uri, "DELTA.APPENDONLY", NULL);
	dl_free(uri);
}

static void test_enabling_properties(void **state)
{
	(void)state;
	char *uri = make("cdf");
	ax_ok(ax_set1(uri, "delta.enableChangeDataFeed", "true"));
	ax_protocol_is(uri, "(1,4)");
	ax_ok(ax_set1(uri, "delta.enableDeletionVectors", "true"));
	/* (1,4) implies checkConstraints and generatedColumns too: listed */
	ax_protocol_is(uri, "(3,7) r[deletionVectors] "
	                    "w[deletionVectors,changeDataFeed,appendOnly,invariants,checkConstraints,generatedColumns]");
	ax_ok(ax_set1(uri, "delta.checkpointPolicy", "v2"));
	ax_protocol_is(uri, "(3,7) r[deletionVectors,v2Checkpoint] "
	                    "w[deletionVectors,v2Checkpoint,changeDataFeed,appendOnly,invariants,checkConstraints,"
	                    "generatedColumns]");
	ax_ok(ax_set1(uri, "delta.feature.vacuumProtocolCheck", "supported"));
	char *p = ax_protocol(uri);
	assert_non_null(strstr(p, "r[deletionVectors,v2Checkpoint,vacuumProtocolCheck]"));
	dl_free(p);
	ax_conf_is(uri, "delta.feature.vacuumprotocolcheck", NULL); /* not stored */
	dx_rows(uri, "id,name", "1,a;2,b;3,c");
	dl_free(uri);

	/* in-commit timestamps: the enablement version and timestamp */
	uri = make("ict");
	int64_t v;
	const char *k[] = {"delta.enableInCommitTimestamps"}, *val[] = {"true"};
	ax_ok(dl_alter_set_properties(&v, uri, k, val, 1, NULL));
	ax_protocol_is(uri, "(1,7) w[inCommitTimestamp,appendOnly,invariants]");
	ax_conf_is(uri, "delta.inCommitTimestampEnablementVersion", "2");
	char *ts = ax_conf(uri, "delta.inCommitTimestampEnablementTimestamp");
	assert_non_null(ts);
	char want[64];
	snprintf(want, sizeof want, "\"inCommitTimestamp\":%s", ts);
	dx_commit_has(uri, 2, want);
	dl_free(ts);
	ax_fails(ax_set1(uri, "delta.inCommitTimestampEnablementVersion", "1"), DL_EINVALID,
	         "DELTA_CANNOT_MODIFY_TABLE_PROPERTY", NULL);
	dl_free(uri);

	/* type widening */
	uri = make("tw");
	ax_ok(ax_set1(uri, "delta.enableTypeWidening", "true"));
	ax_protocol_is(uri, "(3,7) r[typeWidening] w[typeWidening,appendOnly,invariants]");
	dl_free(uri);
}

/* none -> name: ids and physical names = logical names, nothing rewritten;
 * other mode changes refused. */
static void test_column_mapping_upgrade(void **state)
{
	(void)state;
	char *uri = make("cm");
	int files = fx_count_parquet(uri);
	ax_fails(ax_set1(uri, "delta.columnMapping.mode", "id"), DL_EINVALID,
	         "DELTA_UNSUPPORTED_COLUMN_MAPPING_MODE_CHANGE", "from 'none' to 'id'");
	ax_ok(ax_set1(uri, "delta.columnMapping.mode", "name"));
	ax_protocol_is(uri, "(2,5)");
	ax_conf_is(uri, "delta.columnMapping.maxColumnId", "2");
	int64_t v = fx_version(uri);
	dx_commit_has(uri, v, "\\\"delta.columnMapping.id\\\":1,\\\"delta.columnMapping.physicalName\\\":\\\"id\\\"");
	dx_commit_has(uri, v, "\\\"delta.columnMapping.id\\\":2,\\\"delta.columnMapping.physicalName\\\":\\\"name\\\"");
	dx_commit_lacks(uri, v, "\"add\"");
	assert_int_equal(fx_count_parquet(uri), files);
	dx_rows(uri, "id,name", "1,a;2,b;3,c");
	/* writes after the upgrade land and read back */
	dx_append(uri, DDL, "4,d");
	dx_rows(uri, "id,name", "1,a;2,b;3,c;4,d");
	/* and back to none: the files rewritten (test_features.c has the rest) */
	ax_ok(ax_set1(uri, "delta.columnMapping.mode", "none"));
	ax_conf_is(uri, "delta.columnMapping.mode", "none");
	dx_rows(uri, "id,name", "1,a;2,b;3,c;4,d");
	/* name again, then UNSET of the mode: the same removal, the key gone */
	ax_ok(ax_set1(uri, "delta.columnMapping.mode", "name"));
	const char *cmk[] = {"delta.columnMapping.mode"};
	ax_ok(dl_alter_unset_properties(&v, uri, cmk, 1, false, NULL));
	dx_commit_has(uri, v, "\"operation\":\"REMOVE COLUMN MAPPING\"");
	ax_conf_is(uri, "delta.columnMapping.mode", NULL);
	dx_rows(uri, "id,name", "1,a;2,b;3,c;4,d");
	dl_free(uri);
}

/* delta.enableRowTracking on a table with files: one commit with the
 * feature, the re-added files with row ids, the high-water mark. */
static void test_row_tracking_backfill(void **state)
{
	(void)state;
	char *uri = make("rt");
	dx_append(uri, DDL, "4,d;5,e");
	ax_ok(ax_set1(uri, "delta.enableRowTracking", "true"));
	int64_t v = fx_version(uri);
	assert_int_equal(v, 3);
	ax_protocol_is(uri, "(1,7) w[domainMetadata,rowTracking,appendOnly,invariants]");
	dx_commit_has(uri, v, "\"baseRowId\":0");
	/* the other file starts where the first one's rows end (3 or 2 rows) */
	char *cj = fx_commit(uri, v);
	assert_true(strstr(cj, "\"baseRowId\":3") || strstr(cj, "\"baseRowId\":2"));
	dl_free(cj);
	dx_commit_has(uri, v, "\"defaultRowCommitVersion\":3");
	dx_commit_has(uri, v, "\"dataChange\":false");
	dx_commit_has(uri, v, "{\"domainMetadata\":{\"domain\":\"delta.rowTracking\",\"configuration\":"
	                      "\"{\\\"rowIdHighWaterMark\\\":4}\"");
	dx_commit_lacks(uri, v, "\"remove\"");
	char *name = ax_conf(uri, "delta.rowTracking.materializedRowIdColumnName");
	assert_non_null(name);
	dl_free(name);
	dx_rows(uri, "id,name", "1,a;2,b;3,c;4,d;5,e");
	/* new files continue after the mark */
	dx_append(uri, DDL, "6,f");
	dx_commit_has(uri, v + 1, "\"baseRowId\":5");
	dl_free(uri);
}

/* DeltaTable.upgradeTableProtocol and addFeatureSupport. */
static void test_upgrade_protocol(void **state)
{
	(void)state;
	char *uri = make("upgrade");
	int64_t v;
	ax_ok(dl_upgrade_protocol(&v, uri, 1, 4, NULL));
	assert_int_equal(v, 2);
	ax_protocol_is(uri, "(1,4)");
	dx_commit_has(uri, 2, "\"operation\":\"UPGRADE PROTOCOL\"");
	dx_commit_has(uri, 2, "\"newProtocol\":\"{\\\"minReaderVersion\\\":1,\\\"minWriterVersion\\\":4}\"");
	dx_commit_lacks(uri, 2, "\"metaData\"");
	ax_ok(dl_upgrade_protocol(&v, uri, 1, 4, NULL));
	assert_int_equal(v, -1);
	ax_fails(dl_upgrade_protocol(&v, uri, 1, 3, NULL), DL_EINVALID, "DELTA_INVALID_PROTOCOL_DOWNGRADE",
	         "from (1,4) to (1,3)");
	ax_fails(dl_upgrade_protocol(&v, uri, 1, 9, NULL), DL_EINVALID, NULL, NULL);
	ax_ok(dl_upgrade_protocol(&v, uri, 1, 7, NULL));
	ax_protocol_is(uri, "(1,7) w[appendOnly,invariants,checkConstraints,changeDataFeed,generatedColumns]");
	ax_ok(dl_add_feature_support(&v, uri, "deletionVectors", NULL));
	ax_protocol_is(uri, "(3,7) r[deletionVectors] "
	                    "w[deletionVectors,appendOnly,invariants,checkConstraints,changeDataFeed,generatedColumns]");
	ax_ok(dl_add_feature_support(&v, uri, "deletionVectors", NULL));
	assert_int_equal(v, -1);
	ax_ok(dl_upgrade_protocol(&v, uri, 3, 7, NULL));
	assert_int_equal(v, -1);
	dx_rows(uri, "id", "1;2;3");
	dl_free(uri);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_set_and_unset),
		cmocka_unit_test(test_validation),
		cmocka_unit_test(test_bloom_filter_columns),
		cmocka_unit_test(test_create_validation),
		cmocka_unit_test(test_enabling_properties),
		cmocka_unit_test(test_column_mapping_upgrade),
		cmocka_unit_test(test_row_tracking_backfill),
		cmocka_unit_test(test_upgrade_protocol),
	};
	return cmocka_run_group_tests(tests, fx_setup_tmpdir, fx_teardown_tmpdir);
}
