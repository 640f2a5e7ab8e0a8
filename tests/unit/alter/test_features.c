/* ALTER TABLE DROP FEATURE [TRUNCATE HISTORY] (seed 15 "Drop Delta table
 * features"): Spark's refusals, writer-only features dropped at once,
 * reader-writer features with checkpoint protection (the default) or with
 * the 24-hour history truncation, the protocol downgraded to exactly what
 * is left - so a reader that does not know the dropped feature reads the
 * table - and the rows unchanged. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include "alter_fixture.h"
#include "deltalake/maintenance.h"
#include "deltalake/parquet.h"
#include "rewrite/rewrite.h"
#include "storage/backend.h"

#define DDL "id BIGINT, name STRING"
#define ROWS "1,a;2,b;3,c;4,d"

static char *make(const char *name, const char *const *props, int nprops)
{
	char *uri = fx_table(g_dir, name);
	dx_create(uri, DDL, NULL, props, nprops);
	dx_append(uri, DDL, ROWS);
	return uri;
}

/* Every file of the log made `days` days old. */
static void age_log(const char *uri, int days)
{
	char cmd[1200];
	snprintf(cmd, sizeof cmd, "touch -d '%d days ago' '%s'/_delta_log/*", days, uri);
	assert_int_equal(system(cmd), 0);
}

/* DELETE FROM t WHERE pred through the rewrite engine (the table enables
 * deletion vectors, so the rows get a DV): the DML layer sits above ALTER. */
static void delete_with_dv(const char *uri, const char *pred)
{
	dl_store *st;
	ax_ok(dl_store_open(&st, uri, NULL));
	dl_snapshot_options so = DL_SNAPSHOT_OPTIONS_INIT;
	so.store = st;
	dl_snapshot *s;
	ax_ok(dl_snapshot_open(&s, uri, &so));
	dl_transaction *t;
	dl_txn_options to = DL_TXN_OPTIONS_INIT;
	to.operation = "DELETE";
	ax_ok(dl_txn_begin(&t, st, s, &to));
	dl_rewrite_options ro = DL_REWRITE_OPTIONS_INIT;
	ro.txn = t;
	dl_rewrite *rw;
	ax_ok(dl_rewrite_new(&rw, &ro));
	ax_ok(dl_rewrite_touch_where(rw, pred));
	ax_ok(dl_rewrite_run(rw));
	int64_t hwm = -1, v;
	ax_ok(dl_rewrite_commit(rw, &hwm));
	ax_ok(dl_txn_commit(t, &v));
	dl_rewrite_free(rw);
	dl_txn_free(t);
	dl_snapshot_free(s);
	dl_store_free(st);
}

static bool has_dv(const char *uri)
{
	dl_snapshot *s;
	if (dl_snapshot_open(&s, uri, NULL) < 0) fail_msg("%s", dl_error_last()->message);
	const dl_log_state *st = dl_snapshot_state(s);
	bool any = false;
	for (size_t i = 0; i < st->nadds; i++) any |= dl_log_state_add(st, i)->dv != NULL;
	dl_snapshot_free(s);
	return any;
}

static void test_refusals(void **state)
{
	(void)state;
	char *uri = make("refuse", NULL, 0);
	int64_t v;
	ax_fails(dl_drop_feature(&v, uri, "deletionVectors", false, NULL), DL_EINVALID,
	         "DELTA_FEATURE_DROP_FEATURE_NOT_PRESENT", "deletionVectors");
	ax_fails(dl_drop_feature(&v, uri, "appendOnly", false, NULL), DL_EUNSUPPORTED,
	         "DELTA_FEATURE_DROP_NONREMOVABLE_FEATURE", NULL);
	ax_fails(dl_drop_feature(&v, uri, "superFeature", false, NULL), DL_EUNSUPPORTED,
	         "DELTA_FEATURE_DROP_UNSUPPORTED_CLIENT_FEATURE", NULL);
	ax_fails(dl_drop_feature(&v, uri, "delta.appendOnly", false, NULL), DL_EINVALID,
	         "DELTA_FEATURE_DROP_FEATURE_IS_DELTA_PROPERTY", NULL);
	ax_ok(dl_upgrade_protocol(&v, uri, 1, 7, NULL));
	ax_ok(dl_add_feature_support(&v, uri, "inCommitTimestamp", NULL));
	ax_fails(dl_drop_feature(&v, uri, "inCommitTimestamp", true, NULL), DL_EINVALID,
	         "DELTA_FEATURE_DROP_HISTORY_TRUNCATION_NOT_ALLOWED", NULL);
	ax_ok(dl_add_feature_support(&v, uri, "checkpointProtection", NULL));
	ax_fails(dl_drop_feature(&v, uri, "checkpointProtection", false, NULL), DL_EINVALID,
	         "DELTA_FEATURE_CAN_ONLY_DROP_CHECKPOINT_PROTECTION_WITH_HISTORY_TRUNCATION", NULL);
	dl_free(uri);
}

/* Writer-only: disabled and dropped in the same command. */
static void test_writer_only(void **state)
{
	(void)state;
	const char *props[] = {"delta.enableInCommitTimestamps", "true"};
	char *uri = make("ict", props, 1);
	ax_ok(ax_set1(uri, "delta.appendOnly", "false"));
	ax_protocol_is(uri, "(1,7) w[inCommitTimestamp,appendOnly,invariants]");
	int64_t v;
	ax_ok(dl_drop_feature(&v, uri, "inCommitTimestamp", false, NULL));
	ax_protocol_is(uri, "(1,2)");
	ax_conf_is(uri, "delta.enableInCommitTimestamps", "false");
	dx_commit_has(uri, v, "\"operation\":\"DROP FEATURE\"");
	dx_commit_has(uri, v, "\"operationParameters\":{\"featureName\":\"inCommitTimestamp\",\"truncateHistory\":\"false\"}");
	dx_commit_has(uri, v, "\"protocol\":{\"minReaderVersion\":1,\"minWriterVersion\":2}");
	dx_commit_lacks(uri, v, "\"inCommitTimestamp\":");
	dx_rows(uri, "id", "1;2;3;4");
	dl_free(uri);

	/* checkConstraints: only once no constraint is left */
	uri = make("checks", NULL, 0);
	ax_ok(dl_alter_add_constraint(&v, uri, "pos", "id > 0", NULL));
	ax_fails(dl_drop_feature(&v, uri, "checkConstraints", false, NULL), DL_EINVALID,
	         "DELTA_CANNOT_DROP_CHECK_CONSTRAINT_FEATURE", "pos");
	ax_protocol_is(uri, "(1,3)");
	ax_ok(dl_alter_drop_constraint(&v, uri, "pos", false, NULL));
	ax_ok(dl_drop_feature(&v, uri, "checkConstraints", false, NULL));
	ax_protocol_is(uri, "(1,2)");
	dl_free(uri);
}

/* deletionVectors by default: disable, purge, barrier checkpoints,
 * checkpointProtection. */
static void test_deletion_vectors_protected(void **state)
{
	(void)state;
	const char *props[] = {"delta.enableDeletionVectors", "true"};
	char *uri = make("dv", props, 1);
	delete_with_dv(uri, "id = 2");
	assert_true(has_dv(uri));
	ax_protocol_is(uri, "(3,7) r[deletionVectors] w[deletionVectors,appendOnly,invariants]");
	int64_t v;
	ax_ok(dl_drop_feature(&v, uri, "deletionVectors", false, NULL));
	assert_false(has_dv(uri));
	ax_protocol_is(uri, "(1,7) w[appendOnly,invariants,checkpointProtection]");
	ax_conf_is(uri, "delta.enableDeletionVectors", "false");
	char num[24];
	snprintf(num, sizeof num, "%lld", (long long)v);
	ax_conf_is(uri, "delta.requireCheckpointProtectionBeforeVersion", num);
	/* SET (disable), REORG (purge), three empty commits, the downgrade */
	dx_commit_has(uri, 3, "\"operation\":\"SET TBLPROPERTIES\"");
	dx_commit_has(uri, 4, "\"operation\":\"REORG\"");
	dx_commit_has(uri, 5, "\"operation\":\"Empty Commit\"");
	assert_int_equal(v, 8);
	dx_commit_has(uri, 8, "\"featureName\":\"deletionVectors\"");
	char path[1200];
	for (int64_t k = 5; k <= 8; k++) {
		snprintf(path, sizeof path, "%s/_delta_log/%020lld.checkpoint.parquet", uri, (long long)k);
		assert_int_equal(access(path, F_OK), 0);
	}
	dx_rows(uri, "id,name", "1,a;3,c;4,d");
	/* writes go on */
	dx_append(uri, DDL, "5,e");
	dx_rows(uri, "id", "1;3;4;5");
	dl_free(uri);
}

/* TRUNCATE HISTORY: the wait, then the truncation 24 hours later. */
static void test_deletion_vectors_truncate_history(void **state)
{
	(void)state;
	const char *props[] = {"delta.enableDeletionVectors", "true", "delta.deletedFileRetentionDuration",
	                       "interval 0 hours"};
	char *uri = make("dvtrunc", props, 2);
	delete_with_dv(uri, "id = 3");
	int64_t v;
	ax_fails(dl_drop_feature(&v, uri, "deletionVectors", true, NULL), DL_EINVALID,
	         "DELTA_FEATURE_DROP_WAIT_FOR_RETENTION_PERIOD", "delta.logRetentionDuration=30 days");
	assert_non_null(strstr(dl_error_last()->message, "(24 hours)"));
	assert_false(has_dv(uri));
	ax_protocol_is(uri, "(3,7) r[deletionVectors] w[deletionVectors,appendOnly,invariants]");
	/* at once again: history still has the DVs */
	ax_fails(dl_drop_feature(&v, uri, "deletionVectors", true, NULL), DL_EINVALID,
	         "DELTA_FEATURE_DROP_HISTORICAL_VERSIONS_EXIST", NULL);
	/* a day later the history before the clean checkpoint goes */
	age_log(uri, 2);
	ax_ok(dl_drop_feature(&v, uri, "deletionVectors", true, NULL));
	ax_protocol_is(uri, "(1,2)");
	dx_commit_has(uri, v, "\"truncateHistory\":\"true\"");
	char path[1200];
	snprintf(path, sizeof path, "%s/_delta_log/%020lld.json", uri, 0LL);
	assert_int_equal(access(path, F_OK), -1);
	dx_rows(uri, "id,name", "1,a;2,b;4,d");
	dl_free(uri);
}

/* v2Checkpoint: policy back to classic, a classic checkpoint. */
static void test_v2_checkpoint(void **state)
{
	(void)state;
	const char *props[] = {"delta.checkpointPolicy", "v2"};
	char *uri = make("v2", props, 1);
	dl_snapshot *s;
	ax_ok(dl_snapshot_open(&s, uri, NULL));
	dl_checkpoint_result r;
	ax_ok(dl_checkpoint(&r, s, NULL));
	dl_snapshot_free(s);
	assert_true(r.v2);
	int64_t v;
	ax_ok(dl_drop_feature(&v, uri, "v2Checkpoint", false, NULL));
	ax_protocol_is(uri, "(1,7) w[appendOnly,invariants,checkpointProtection]");
	ax_conf_is(uri, "delta.checkpointPolicy", "classic");
	dx_rows(uri, "id", "1;2;3;4");
	dl_free(uri);
}

/* checkpointProtection itself: with TRUNCATE HISTORY once the protected
 * history is gone. */
static void test_checkpoint_protection(void **state)
{
	(void)state;
	const char *props[] = {"delta.feature.vacuumProtocolCheck", "supported"};
	char *uri = make("cp", props, 1);
	int64_t v;
	ax_ok(dl_drop_feature(&v, uri, "vacuumProtocolCheck", false, NULL));
	ax_protocol_is(uri, "(1,7) w[appendOnly,invariants,checkpointProtection]");
	ax_fails(dl_drop_feature(&v, uri, "checkpointProtection", true, NULL), DL_EINVALID,
	         "DELTA_FEATURE_DROP_CHECKPOINT_PROTECTION_WAIT_FOR_RETENTION_PERIOD", NULL);
	age_log(uri, 2);
	ax_ok(dl_drop_feature(&v, uri, "checkpointProtection", true, NULL));
	ax_protocol_is(uri, "(1,2)");
	ax_conf_is(uri, "delta.requireCheckpointProtectionBeforeVersion", NULL);
	dx_rows(uri, "id", "1;2;3;4");
	dl_free(uri);
}

/* The live file paths of a table whose footer spells id as `type` ("INT32",
 * "INT64"), joined by ';'. */
static void files_with_id_type(const char *uri, const char *type, char *out, size_t cap)
{
	out[0] = 0;
	dl_snapshot *s;
	ax_ok(dl_snapshot_open(&s, uri, NULL));
	const dl_log_state *st = dl_snapshot_state(s);
	char want[32];
	snprintf(want, sizeof want, "%s id", type);
	for (size_t i = 0; i < st->nadds; i++) {
		char path[1200];
		snprintf(path, sizeof path, "%s/%s", uri, dl_log_state_add(st, i)->path);
		dl_parquet_file *pf;
		ax_ok(dl_parquet_open(&pf, path));
		const char *text;
		ax_ok(dl_parquet_schema_text(&text, pf));
		if (strstr(text, want)) {
			if (out[0]) strncat(out, ";", cap - strlen(out) - 1);
			strncat(out, dl_log_state_add(st, i)->path, cap - strlen(out) - 1);
		}
		dl_parquet_free(pf);
	}
	dl_snapshot_free(s);
}

/* typeWidening: the files written before the widening rewritten with the
 * widened type (the footer says so), the one written after it untouched
 * (Spark's REORG ... REWRITE_TYPE_WIDENING reads footers), typeChanges
 * gone. */
static void test_type_widening(void **state)
{
	(void)state;
	char *uri = fx_table(g_dir, "tw");
	const char *props[] = {"delta.enableTypeWidening", "true"};
	dx_create(uri, "id INT, name STRING", NULL, props, 1);
	dx_append(uri, "id INT, name STRING", "1,a;2,b");
	int64_t v;
	dl_column_change ch = DL_COLUMN_CHANGE_INIT;
	ch.type = "BIGINT";
	ax_ok(dl_alter_change_column(&v, uri, "id", &ch, NULL));
	dx_append(uri, "id BIGINT, name STRING", "3000000000,c");
	char *c = fx_commit(uri, v);
	assert_non_null(strstr(c, "delta.typeChanges"));
	dl_free(c);
	char narrow[2048], wide_before[2048], wide_after[2048];
	files_with_id_type(uri, "INT32", narrow, sizeof narrow);
	files_with_id_type(uri, "INT64", wide_before, sizeof wide_before);
	assert_true(narrow[0] && wide_before[0] && !strchr(narrow, ';') && !strchr(wide_before, ';'));
	ax_ok(dl_drop_feature(&v, uri, "typeWidening", false, NULL));
	dx_commit_has(uri, 5, "\"numRemovedFiles\":\"1\"");
	dx_commit_has(uri, 5, "\"numAddedFiles\":\"1\"");
	files_with_id_type(uri, "INT32", wide_after, sizeof wide_after);
	assert_string_equal(wide_after, ""); /* no INT32 file is left */
	files_with_id_type(uri, "INT64", wide_after, sizeof wide_after);
	assert_non_null(strstr(wide_after, wide_before)); /* the later file is still live as it was */
	assert_null(strstr(wide_after, narrow));
	ax_protocol_is(uri, "(1,7) w[appendOnly,invariants,checkpointProtection]");
	ax_conf_is(uri, "delta.enableTypeWidening", "false");
	dx_commit_has(uri, 5, "\"operation\":\"REORG\"");
	dx_commit_lacks(uri, 5, "delta.typeChanges");
	dx_commit_lacks(uri, v, "delta.typeChanges");
	dx_rows(uri, "id,name", "1,a;2,b;3000000000,c");
	/* every live file has id as INT64 now: readable without the feature */
	dl_snapshot *s;
	ax_ok(dl_snapshot_open(&s, uri, NULL));
	const dl_log_state *st = dl_snapshot_state(s);
	assert_int_equal(st->nadds, 2);
	for (size_t i = 0; i < st->nadds; i++) {
		char path[1200];
		snprintf(path, sizeof path, "%s/%s", uri, dl_log_state_add(st, i)->path);
		dl_parquet_file *pf;
		ax_ok(dl_parquet_open(&pf, path));
		const char *text;
		ax_ok(dl_parquet_schema_text(&text, pf));
		if (!strstr(text, "INT64 id")) fail_msg("%s: %s", path, text);
		dl_parquet_free(pf);
	}
	dl_snapshot_free(s);
	dl_free(uri);
}

/* columnMapping: every file rewritten with the logical names (the footer
 * says so), the mode, ids and physical names gone from the metaData, the
 * partition values keyed by the logical name, the rows as before; a name
 * that needs column mapping is refused first. */
static void test_column_mapping(void **state)
{
	(void)state;
	char *uri = fx_table(g_dir, "cm");
	const char *props[] = {"delta.columnMapping.mode", "name"};
	dx_create(uri, "id INT, name STRING, part STRING", "part", props, 1);
	dx_append(uri, "id INT, name STRING, part STRING", "1,a,x;2,b,y");
	int64_t v;
	ax_ok(dl_alter_rename_column(&v, uri, "name", "label", NULL));
	dx_append(uri, "id INT, label STRING, part STRING", "3,c,x");
	ax_ok(dl_alter_rename_column(&v, uri, "label", "a b", NULL));
	char *before = dx_tree(uri);
	ax_fails(dl_drop_feature(&v, uri, "columnMapping", false, NULL), DL_EINVALID,
	         "DELTA_INVALID_COLUMN_NAMES_WHEN_REMOVING_COLUMN_MAPPING", "a b");
	char *after = dx_tree(uri);
	assert_string_equal(before, after);
	free(before);
	free(after);
	ax_ok(dl_alter_rename_column(&v, uri, "a b", "label", NULL));
	int64_t renamed = v;
	ax_ok(dl_drop_feature(&v, uri, "columnMapping", false, NULL));
	dx_commit_has(uri, renamed + 1, "\"operation\":\"REMOVE COLUMN MAPPING\"");
	char *proto = ax_protocol(uri);
	if (strstr(proto, "columnMapping")) fail_msg("protocol still has columnMapping: %s", proto);
	dl_free(proto);
	ax_conf_is(uri, "delta.columnMapping.mode", NULL);
	ax_conf_is(uri, "delta.columnMapping.maxColumnId", NULL);
	dx_rows(uri, "id,label,part", "1,a,x;2,b,y;3,c,x");
	dl_snapshot *s;
	ax_ok(dl_snapshot_open(&s, uri, NULL));
	const dl_log_state *st = dl_snapshot_state(s);
	if (strstr(st->metadata->schema_string, "columnMapping")) fail_msg("schema: %s", st->metadata->schema_string);
	assert_int_equal(st->nadds, 3);
	for (size_t i = 0; i < st->nadds; i++) {
		const dl_add *a = dl_log_state_add(st, i);
		assert_non_null(dl_str_map_get(&a->partition_values, "part", NULL));
		char path[1200];
		snprintf(path, sizeof path, "%s/%s", uri, a->path);
		dl_parquet_file *pf;
		ax_ok(dl_parquet_open(&pf, path));
		const char *text;
		ax_ok(dl_parquet_schema_text(&text, pf));
		if (!strstr(text, " id") || !strstr(text, " label") || strstr(text, "col-"))
			fail_msg("%s: %s", path, text);
		dl_parquet_free(pf);
	}
	dl_snapshot_free(s);
	/* a table whose feature is gone takes appends under the plain names */
	dx_append(uri, "id INT, label STRING, part STRING", "4,d,y");
	dx_rows(uri, "id,label,part", "1,a,x;2,b,y;3,c,x;4,d,y");
	dl_free(uri);
}

/* SET TBLPROPERTIES ('delta.columnMapping.mode' = 'none'): Spark's
 * RemoveColumnMappingCommand - the files rewritten with the logical names,
 * the mode kept as none, the feature still in the protocol. */
static void test_column_mapping_mode_none(void **state)
{
	(void)state;
	char *uri = fx_table(g_dir, "cm_none");
	const char *props[] = {"delta.columnMapping.mode", "name"};
	dx_create(uri, "id INT, name STRING", NULL, props, 1);
	dx_append(uri, "id INT, name STRING", "1,a;2,b");
	int64_t v;
	ax_ok(dl_alter_rename_column(&v, uri, "name", "label", NULL));
	int64_t renamed = v;
	ax_ok(ax_set1(uri, "delta.columnMapping.mode", "none"));
	dx_commit_has(uri, renamed + 1, "\"operation\":\"REMOVE COLUMN MAPPING\"");
	ax_conf_is(uri, "delta.columnMapping.mode", "none");
	ax_conf_is(uri, "delta.columnMapping.maxColumnId", NULL);
	ax_protocol_is(uri, "(2,5)"); /* the feature stays */
	dx_rows(uri, "id,label", "1,a;2,b");
	char *c = fx_commit(uri, renamed + 1);
	if (strstr(c, "physicalName")) fail_msg("physical names left: %s", c);
	dl_free(c);
	dl_free(uri);
}

/* A transaction begun before an ALTER commits loses as Spark's
 * ConflictChecker says: a metaData winner is DELTA_METADATA_CHANGED for
 * any transaction, a protocol winner DELTA_PROTOCOL_CHANGED for one that
 * changes the protocol too. */
static void test_conflicts(void **state)
{
	(void)state;
	char *uri = make("conflicts", NULL, 0);
	dl_store *st;
	ax_ok(dl_store_open(&st, uri, NULL));
	dl_snapshot_options so = DL_SNAPSHOT_OPTIONS_INIT;
	so.store = st;
	dl_snapshot *s;
	ax_ok(dl_snapshot_open(&s, uri, &so));
	dl_txn_options to = DL_TXN_OPTIONS_INIT;
	to.operation = "WRITE";
	dl_transaction *append;
	ax_ok(dl_txn_begin(&append, st, s, &to));
	dl_add a;
	memset(&a, 0, sizeof a);
	a.path = "part-never-written.parquet";
	a.size = 1;
	a.data_change = true;
	a.base_row_id = a.default_row_commit_version = DL_NONE;
	ax_ok(dl_txn_add_file(append, &a));
	to.operation = "UPGRADE PROTOCOL";
	dl_transaction *upgrade;
	ax_ok(dl_txn_begin(&upgrade, st, s, &to));
	dl_protocol p13 = {1, 3, NULL, 0, NULL, 0};
	ax_ok(dl_txn_set_protocol(upgrade, &p13));

	int64_t v;
	ax_ok(ax_set1(uri, "delta.appendOnly", "false")); /* metaData winner */
	ax_fails(dl_txn_commit(append, &v), DL_ECONFLICT, "DELTA_METADATA_CHANGED", NULL);
	dl_txn_free(append);
	dl_txn_free(upgrade);
	dl_snapshot_free(s);

	ax_ok(dl_snapshot_open(&s, uri, &so));
	to.operation = "UPGRADE PROTOCOL";
	ax_ok(dl_txn_begin(&upgrade, st, s, &to));
	ax_ok(dl_txn_set_protocol(upgrade, &p13));
	ax_ok(dl_upgrade_protocol(&v, uri, 1, 4, NULL)); /* protocol-only winner */
	ax_fails(dl_txn_commit(upgrade, &v), DL_ECONFLICT, "DELTA_PROTOCOL_CHANGED", NULL);
	dl_txn_free(upgrade);
	dl_snapshot_free(s);
	dl_store_free(st);
	ax_protocol_is(uri, "(1,4)");
	dx_rows(uri, "id", "1;2;3;4");
	dl_free(uri);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_refusals),
		cmocka_unit_test(test_writer_only),
		cmocka_unit_test(test_deletion_vectors_protected),
		cmocka_unit_test(test_deletion_vectors_truncate_history),
		cmocka_unit_test(test_v2_checkpoint),
		cmocka_unit_test(test_checkpoint_protection),
		cmocka_unit_test(test_type_widening),
		cmocka_unit_test(test_column_mapping),
		cmocka_unit_test(test_column_mapping_mode_none),
		cmocka_unit_test(test_conflicts),
	};
	return cmocka_run_group_tests(tests, fx_setup_tmpdir, fx_teardown_tmpdir);
}
