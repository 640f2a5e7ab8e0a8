/* Protocol versions, table features and table properties. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <string.h>
#include "log/properties.h"
#include "log/protocol.h"
#include "util/error.h"

static void reader_versions(void **state)
{
	(void)state;
	dl_protocol p = {1, 2, NULL, 0, NULL, 0};
	assert_int_equal(dl_protocol_check_read(&p), 0);
	p.min_reader_version = 99;
	assert_int_equal(dl_protocol_check_read(&p), DL_EUNSUPPORTED);
	assert_non_null(strstr(dl_error_last()->message,
	                       "the table needs reader version 99, which is not supported"));
	p.min_reader_version = 2;
	assert_int_equal(dl_protocol_check_read(&p), 0);
	assert_true(dl_protocol_supports(&p, "columnMapping"));
	assert_true(dl_protocol_supports(&p, "invariants"));
	assert_false(dl_protocol_supports(&p, "deletionVectors"));
}

static void reader_features(void **state)
{
	(void)state;
	const char *rf[] = {"deletionVectors", "v2Checkpoint", "typeWidening-preview"};
	const char *wf[] = {"deletionVectors", "v2Checkpoint", "appendOnly", "rowTracking"};
	dl_protocol p = {3, 7, rf, 3, wf, 4};
	assert_int_equal(dl_protocol_check_read(&p), 0);
	assert_int_equal(dl_protocol_check_write(&p), 0);
	assert_true(dl_protocol_supports(&p, "rowTracking"));
	assert_false(dl_protocol_supports(&p, "invariants")); /* v7: only listed features */
	const char *geo[] = {"geospatial"};
	dl_protocol g = {3, 7, geo, 1, geo, 1};
	assert_int_equal(dl_protocol_check_read(&g), 0);
	assert_int_equal(dl_protocol_check_write(&g), 0);
	const char *unk[] = {"noSuchFeature"};
	dl_protocol u = {3, 7, unk, 1, unk, 1};
	assert_int_equal(dl_protocol_check_read(&u), DL_EUNSUPPORTED);
	assert_non_null(strstr(dl_error_last()->message, "'noSuchFeature'"));
	const char *cm[] = {"catalogManaged"};
	dl_protocol c = {3, 7, cm, 1, cm, 1};
	assert_int_equal(dl_protocol_check_read(&c), DL_EUNSUPPORTED);
	assert_non_null(strstr(dl_error_last()->message, "catalog"));
	/* writer-only unknown features do not block reads, but block writes */
	const char *none[] = {NULL};
	const char *wx[] = {"someFutureWriterFeature"};
	dl_protocol w = {1, 7, none, 0, wx, 1};
	assert_int_equal(dl_protocol_check_read(&w), 0);
	assert_int_equal(dl_protocol_check_write(&w), DL_EUNSUPPORTED);
	dl_protocol w8 = {1, 8, NULL, 0, NULL, 0};
	assert_int_equal(dl_protocol_check_write(&w8), DL_EUNSUPPORTED);
}

static void properties_with_defaults(void **state)
{
	(void)state;
	dl_table_properties p;
	dl_str_map empty = {NULL, 0};
	assert_int_equal(dl_table_properties_parse(&p, &empty, true), 0);
	assert_int_equal(p.checkpoint_interval, 10);
	assert_int_equal(p.log_retention_ms, 30LL * 86400000);
	assert_int_equal(p.deleted_file_retention_ms, 7LL * 86400000);
	assert_int_equal(p.data_skipping_num_indexed_cols, 32);
	assert_true(p.checkpoint_write_stats_as_json);
	assert_false(p.checkpoint_write_stats_as_struct);
	assert_int_equal(p.column_mapping_mode, DL_CM_NONE);

	dl_kv kv[] = {
		{"delta.checkpointInterval", "5"},
		{"delta.logRetentionDuration", "interval 2 weeks"},
		{"delta.deletedFileRetentionDuration", "interval 1 day 12 hours"},
		{"delta.dataSkippingNumIndexedCols", "-1"},
		{"delta.dataSkippingStatsColumns", "a,b.c"},
		{"delta.enableChangeDataFeed", "TRUE"},
		{"delta.columnMapping.mode", "name"},
		{"delta.enableDeletionVectors", "true"},
		{"delta.appendOnly", "false"},
		{"delta.isolationLevel", "Serializable"},
		{"delta.checkpointPolicy", "v2"},
		{"delta.enableInCommitTimestamps", "true"},
		{"delta.inCommitTimestampEnablementVersion", "3"},
		{"delta.enableRowTracking", "true"},
		{"delta.checkpoint.writeStatsAsStruct", "true"},
		{"delta.constraints.positive", "x > 0"},
		{"delta.setTransactionRetentionDuration", "interval 1 days"},
		{"other", "ignored"},
	};
	dl_str_map m = {kv, sizeof kv / sizeof kv[0]};
	assert_int_equal(dl_table_properties_parse(&p, &m, true), 0);
	assert_int_equal(p.checkpoint_interval, 5);
	assert_int_equal(p.log_retention_ms, 14LL * 86400000);
	assert_int_equal(p.deleted_file_retention_ms, 36LL * 3600000);
	assert_int_equal(p.data_skipping_num_indexed_cols, -1);
	assert_string_equal(p.data_skipping_stats_columns, "a,b.c");
	assert_true(p.enable_change_data_feed);
	assert_int_equal(p.column_mapping_mode, DL_CM_NAME);
	assert_true(p.enable_deletion_vectors);
	assert_int_equal(p.isolation_level, DL_ISOLATION_SERIALIZABLE);
	assert_int_equal(p.checkpoint_policy, DL_CHECKPOINT_V2);
	assert_true(p.enable_in_commit_timestamps);
	assert_int_equal(p.ict_enablement_version, 3);
	assert_true(p.enable_row_tracking);
	assert_true(p.checkpoint_write_stats_as_struct);
	assert_int_equal(p.set_transaction_retention_ms, 86400000);

	dl_kv badkv[] = {{"delta.checkpointInterval", "often"}};
	dl_str_map bad = {badkv, 1};
	assert_int_equal(dl_table_properties_parse(&p, &bad, true), DL_EINVALID);
	assert_non_null(strstr(dl_error_last()->message, "delta.checkpointInterval"));
	assert_int_equal(dl_table_properties_parse(&p, &bad, false), 0);
	assert_int_equal(p.checkpoint_interval, 10);
}

static int count_constraint(const char *name, const char *expr, void *payload)
{
	assert_string_equal(name, "positive");
	assert_string_equal(expr, "x > 0");
	(*(int *)payload)++;
	return 0;
}

static void intervals_and_constraints(void **state)
{
	(void)state;
	int64_t ms;
	assert_int_equal(dl_parse_interval_ms("interval 7 days", &ms), 0);
	assert_int_equal(ms, 7LL * 86400000);
	assert_int_equal(dl_parse_interval_ms("30 days", &ms), 0);
	assert_int_equal(dl_parse_interval_ms("INTERVAL 1 hour 30 minutes", &ms), 0);
	assert_int_equal(ms, 5400000);
	assert_int_equal(dl_parse_interval_ms("interval 500 milliseconds", &ms), 0);
	assert_int_equal(ms, 500);
	assert_int_equal(dl_parse_interval_ms("interval 1 month", &ms), DL_EINVALID);
	assert_int_equal(dl_parse_interval_ms("interval", &ms), DL_EINVALID);
	assert_int_equal(dl_parse_interval_ms("7", &ms), DL_EINVALID);
	dl_kv kv[] = {{"delta.constraints.positive", "x > 0"}, {"delta.appendOnly", "true"}};
	dl_str_map m = {kv, 2};
	int n = 0;
	assert_int_equal(dl_table_constraints_each(&m, count_constraint, &n), 0);
	assert_int_equal(n, 1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(reader_versions),
		cmocka_unit_test(reader_features),
		cmocka_unit_test(properties_with_defaults),
		cmocka_unit_test(intervals_and_constraints),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
