/* Actions: parsing every kind from JSON, path decoding, serialization. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <string.h>
#include "log/actions.h"
#include "log/path.h"
#include "util/error.h"

static int parse(dl_arena *a, const char *text, dl_action *out)
{
	dl_json *v;
	int rc = dl_json_parse(a, text, strlen(text), "test", &v);
	if (rc < 0) return rc;
	return dl_action_from_json(out, a, v, "test line");
}

static void add_with_everything(void **state)
{
	(void)state;
	dl_arena a = DL_ARENA_INIT;
	dl_action act;
	const char *line =
		"{\"add\":{\"path\":\"x=1/part%20one.parquet\",\"partitionValues\":{\"x\":\"1\",\"y\":null},"
		"\"size\":841,\"modificationTime\":1512909768000,\"dataChange\":false,"
		"\"stats\":\"{\\\"numRecords\\\":3}\",\"tags\":{\"k\":\"v\"},"
		"\"deletionVector\":{\"storageType\":\"u\",\"pathOrInlineDv\":\"ab^-aqEH.-t@S}K{vb[*k^\","
		"\"offset\":4,\"sizeInBytes\":40,\"cardinality\":6},\"baseRowId\":4071,"
		"\"defaultRowCommitVersion\":41,\"clusteringProvider\":\"liquid\"}}";
	assert_int_equal(parse(&a, line, &act), 0);
	assert_int_equal(act.kind, DL_ACTION_ADD);
	const dl_add *ad = &act.u.add;
	assert_string_equal(ad->path, "x=1/part one.parquet");
	assert_int_equal(ad->partition_values.n, 2);
	bool found;
	assert_string_equal(dl_str_map_get(&ad->partition_values, "x", &found), "1");
	assert_null(dl_str_map_get(&ad->partition_values, "y", &found));
	assert_true(found);
	assert_int_equal(ad->size, 841);
	assert_int_equal(ad->modification_time, 1512909768000LL);
	assert_false(ad->data_change);
	assert_string_equal(ad->stats, "{\"numRecords\":3}");
	assert_int_equal(ad->stats_len, 16);
	assert_string_equal(dl_str_map_get(&ad->tags, "k", NULL), "v");
	assert_non_null(ad->dv);
	assert_int_equal(ad->dv->storage_type, 'u');
	assert_int_equal(ad->dv->offset, 4);
	assert_int_equal(ad->dv->size_in_bytes, 40);
	assert_int_equal(ad->dv->cardinality, 6);
	assert_int_equal(ad->dv->max_row_index, -1);
	assert_int_equal(ad->base_row_id, 4071);
	assert_int_equal(ad->default_row_commit_version, 41);
	assert_string_equal(ad->clustering_provider, "liquid");

	/* round trip: serialize, parse again, same fields */
	dl_buf b = DL_BUF_INIT;
	assert_int_equal(dl_action_to_json(&b, &act), 0);
	assert_non_null(strstr(b.data, "\"path\":\"x=1/part%20one.parquet\""));
	dl_action again;
	assert_int_equal(parse(&a, b.data, &again), 0);
	assert_string_equal(again.u.add.path, ad->path);
	assert_string_equal(again.u.add.stats, ad->stats);
	assert_int_equal(again.u.add.dv->offset, 4);
	assert_int_equal(again.u.add.base_row_id, 4071);
	assert_null(dl_str_map_get(&again.u.add.partition_values, "y", &found));
	assert_true(found);
	dl_buf_free(&b);
	dl_arena_free(&a);
}

static void every_other_kind(void **state)
{
	(void)state;
	dl_arena a = DL_ARENA_INIT;
	dl_action act;
	assert_int_equal(parse(&a, "{\"remove\":{\"path\":\"f\",\"deletionTimestamp\":200,"
	                           "\"dataChange\":true,\"extendedFileMetadata\":true,"
	                           "\"partitionValues\":{},\"size\":1}}", &act), 0);
	assert_int_equal(act.kind, DL_ACTION_REMOVE);
	assert_int_equal(act.u.remove.deletion_timestamp, 200);
	assert_true(act.u.remove.extended_file_metadata);
	assert_int_equal(act.u.remove.size, 1);

	assert_int_equal(parse(&a, "{\"metaData\":{\"id\":\"i\",\"name\":\"n\",\"format\":{\"provider\":"
	                           "\"parquet\",\"options\":{}},\"schemaString\":\"{}\","
	                           "\"partitionColumns\":[\"p\",\"q\"],\"configuration\":"
	                           "{\"delta.appendOnly\":\"true\"},\"createdTime\":5}}", &act), 0);
	assert_int_equal(act.kind, DL_ACTION_METADATA);
	assert_string_equal(act.u.metadata.id, "i");
	assert_string_equal(act.u.metadata.name, "n");
	assert_null(act.u.metadata.description);
	assert_int_equal(act.u.metadata.npartition_columns, 2);
	assert_string_equal(act.u.metadata.partition_columns[1], "q");
	assert_int_equal(act.u.metadata.created_time, 5);

	assert_int_equal(parse(&a, "{\"protocol\":{\"minReaderVersion\":3,\"minWriterVersion\":7,"
	                           "\"readerFeatures\":[\"deletionVectors\"],\"writerFeatures\":[]}}", &act), 0);
	assert_int_equal(act.u.protocol.min_reader_version, 3);
	assert_int_equal(act.u.protocol.nreader_features, 1);
	assert_non_null(act.u.protocol.writer_features);
	assert_int_equal(act.u.protocol.nwriter_features, 0);

	assert_int_equal(parse(&a, "{\"txn\":{\"appId\":\"app\",\"version\":364475,\"lastUpdated\":9}}", &act), 0);
	assert_int_equal(act.u.txn.version, 364475);
	assert_int_equal(act.u.txn.last_updated, 9);

	assert_int_equal(parse(&a, "{\"commitInfo\":{\"timestamp\":15,\"operation\":\"WRITE\","
	                           "\"inCommitTimestamp\":16,\"x\":[1,2]}}", &act), 0);
	assert_int_equal(act.kind, DL_ACTION_COMMIT_INFO);
	assert_int_equal(act.u.commit_info.in_commit_timestamp, 16);
	assert_string_equal(act.u.commit_info.operation, "WRITE");
	assert_non_null(strstr(act.u.commit_info.json, "\"x\":[1,2]"));

	assert_int_equal(parse(&a, "{\"cdc\":{\"path\":\"_change_data/c.parquet\",\"partitionValues\":{},"
	                           "\"size\":1213,\"dataChange\":false}}", &act), 0);
	assert_int_equal(act.u.cdc.size, 1213);

	assert_int_equal(parse(&a, "{\"domainMetadata\":{\"domain\":\"delta.x\",\"configuration\":\"{}\","
	                           "\"removed\":true}}", &act), 0);
	assert_true(act.u.domain_metadata.removed);

	assert_int_equal(parse(&a, "{\"checkpointMetadata\":{\"version\":1,\"tags\":{}}}", &act), 0);
	assert_int_equal(act.u.checkpoint_metadata.version, 1);

	assert_int_equal(parse(&a, "{\"sidecar\":{\"path\":\"016a.parquet\",\"sizeInBytes\":2304522,"
	                           "\"modificationTime\":1512909768000,\"tags\":{}}}", &act), 0);
	assert_int_equal(act.u.sidecar.size_in_bytes, 2304522);

	/* unknown actions are ignored, as the protocol requires */
	assert_int_equal(parse(&a, "{\"futureAction\":{\"x\":1}}", &act), 0);
	assert_int_equal(act.kind, DL_ACTION_UNKNOWN);
	dl_arena_free(&a);
}

static void malformed_actions_are_corrupt(void **state)
{
	(void)state;
	dl_arena a = DL_ARENA_INIT;
	dl_action act;
	assert_int_equal(parse(&a, "{\"add\":{\"size\":1}}", &act), DL_ECORRUPT);
	assert_non_null(strstr(dl_error_last()->message, "add.path is missing"));
	assert_int_equal(parse(&a, "{\"add\":{\"path\":\"a\",\"size\":\"big\"}}", &act), DL_ECORRUPT);
	assert_int_equal(parse(&a, "{\"add\":{\"path\":\"a%zz\",\"size\":1}}", &act), DL_ECORRUPT);
	assert_non_null(strstr(dl_error_last()->message, "escape"));
	assert_int_equal(parse(&a, "{\"protocol\":{\"minReaderVersion\":1}}", &act), DL_ECORRUPT);
	assert_int_equal(parse(&a, "{\"add\":{\"path\":\"a\",\"size\":1,\"deletionVector\":"
	                           "{\"storageType\":\"x\",\"pathOrInlineDv\":\"\",\"sizeInBytes\":1,"
	                           "\"cardinality\":1}}}", &act), DL_ECORRUPT);
	assert_int_equal(parse(&a, "[1]", &act), DL_ECORRUPT);
	dl_arena_free(&a);
}

static void paths_decode_and_canonicalize(void **state)
{
	(void)state;
	dl_arena a = DL_ARENA_INIT;
	const char *out;
	const char *cases[][2] = {
		{"/some/unqualified/absolute/path", "/some/unqualified/absolute/path"},
		{"file:/some/unqualified/absolute/path", "/some/unqualified/absolute/path"},
		{"file:///some/unqualified/with%20space/p@%23h", "/some/unqualified/with space/p@#h"},
		{"file:/some/unqualified/with%20space/p@%23h", "/some/unqualified/with space/p@#h"},
		{"bar%2Dbar.snappy.parquet", "bar-bar.snappy.parquet"},
		{"s3://bucket/a%3Ab", "s3://bucket/a:b"},
		{"file://host/p", "file://host/p"},
	};
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		assert_int_equal(dl_log_path_decode(&a, cases[i][0], strlen(cases[i][0]), "t", &out), 0);
		assert_string_equal(out, cases[i][1]);
	}
	assert_int_equal(dl_log_path_decode(&a, "x%2", 3, "t", &out), DL_ECORRUPT);
	dl_buf b = DL_BUF_INIT;
	assert_int_equal(dl_log_path_encode(&b, "a b/c%d#e?f=g:h"), 0);
	assert_string_equal(b.data, "a%20b/c%25d%23e%3Ff=g:h");
	dl_buf_free(&b);
	assert_true(dl_log_path_is_absolute("/x"));
	assert_true(dl_log_path_is_absolute("s3://b/x"));
	assert_false(dl_log_path_is_absolute("x=1/part.parquet"));
	dl_arena_free(&a);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(add_with_everything),
		cmocka_unit_test(every_other_kind),
		cmocka_unit_test(malformed_actions_are_corrupt),
		cmocka_unit_test(paths_decode_and_canonicalize),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
