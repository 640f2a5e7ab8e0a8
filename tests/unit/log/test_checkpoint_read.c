/* Checkpoints written by the test with the Parquet writer: protocol,
 * metaData, txn, remove and add rows; stats only as stats_parsed (with a
 * NaN bound) and partition values only as partitionValues_parsed must come
 * back as the stats JSON and the partition value strings. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <math.h>
#include <string.h>
#include "columnar/builder.h"
#include "deltalake/snapshot.h"
#include "log/schema.h"
#include "log/snapshot.h"
#include "parquet/writer.h"
#include "util/error.h"

#define F(n, t) "{\"name\":\"" n "\",\"type\":" t ",\"nullable\":true,\"metadata\":{}}"
#define S(...) "{\"type\":\"struct\",\"fields\":[" __VA_ARGS__ "]}"
#define MAP_SS "{\"type\":\"map\",\"keyType\":\"string\",\"valueType\":\"string\",\"valueContainsNull\":true}"

static const char *cp_schema = S(
	F("protocol", S(F("minReaderVersion", "\"integer\"") "," F("minWriterVersion", "\"integer\""))) ","
	F("metaData", S(F("id", "\"string\"") "," F("schemaString", "\"string\"") ","
	                F("partitionColumns", "{\"type\":\"array\",\"elementType\":\"string\",\"containsNull\":true}") ","
	                F("configuration", MAP_SS))) ","
	F("txn", S(F("appId", "\"string\"") "," F("version", "\"long\""))) ","
	F("remove", S(F("path", "\"string\"") "," F("deletionTimestamp", "\"long\"") "," F("dataChange", "\"boolean\""))) ","
	F("add", S(F("path", "\"string\"") "," F("partitionValues", MAP_SS) "," F("size", "\"long\"") ","
	           F("modificationTime", "\"long\"") "," F("dataChange", "\"boolean\"") "," F("stats", "\"string\"") ","
	           F("stats_parsed", S(F("numRecords", "\"long\"") "," F("minValues", S(F("x", "\"double\"") "," F("t", "\"timestamp\"")))
	                               "," F("maxValues", S(F("x", "\"double\"") "," F("t", "\"timestamp\""))) ","
	                               F("nullCount", S(F("x", "\"long\"")))) ) ","
	           F("partitionValues_parsed", S(F("p", "\"date\""))))));

static const char *table_schema =
	"{\"type\":\"struct\",\"fields\":[{\"name\":\"x\",\"type\":\"double\",\"nullable\":true,\"metadata\":{}},"
	"{\"name\":\"t\",\"type\":\"timestamp\",\"nullable\":true,\"metadata\":{}},"
	"{\"name\":\"p\",\"type\":\"date\",\"nullable\":true,\"metadata\":{}}]}";

enum { C_PROTOCOL, C_METADATA, C_TXN, C_REMOVE, C_ADD, NCOLS };

static void null_except(dl_builder **b, int keep)
{
	for (int c = 0; c < NCOLS; c++)
		if (c != keep) assert_int_equal(dl_builder_append_null(b[c]), 0);
}

static void add_row(dl_builder *a, const char *path, int64_t size, bool parsed_only)
{
	assert_int_equal(dl_builder_begin_struct(a), 0);
	assert_int_equal(dl_builder_append_str(dl_builder_child(a, 0), path), 0);
	dl_builder *pv = dl_builder_child(a, 1);
	if (parsed_only) {
		assert_int_equal(dl_builder_append_null(pv), 0);
	} else {
		assert_int_equal(dl_builder_begin_list(pv), 0);
		assert_int_equal(dl_builder_append_str(dl_builder_child(pv, 0), "p"), 0);
		assert_int_equal(dl_builder_append_null(dl_builder_child(pv, 1)), 0);
		assert_int_equal(dl_builder_end_list(pv), 0);
	}
	assert_int_equal(dl_builder_append_int(dl_builder_child(a, 2), size), 0);
	assert_int_equal(dl_builder_append_int(dl_builder_child(a, 3), 5), 0);
	assert_int_equal(dl_builder_append_bool(dl_builder_child(a, 4), false), 0);
	dl_builder *sp = dl_builder_child(a, 6);
	if (parsed_only) {
		assert_int_equal(dl_builder_append_null(dl_builder_child(a, 5)), 0);
		assert_int_equal(dl_builder_begin_struct(sp), 0);
		assert_int_equal(dl_builder_append_int(dl_builder_child(sp, 0), 3), 0);
		dl_builder *mn = dl_builder_child(sp, 1), *mx = dl_builder_child(sp, 2);
		assert_int_equal(dl_builder_begin_struct(mn), 0);
		assert_int_equal(dl_builder_append_double(dl_builder_child(mn, 0), NAN), 0);
		assert_int_equal(dl_builder_append_int(dl_builder_child(mn, 1), 1631099471123000LL), 0);
		assert_int_equal(dl_builder_end_struct(mn), 0);
		assert_int_equal(dl_builder_begin_struct(mx), 0);
		assert_int_equal(dl_builder_append_double(dl_builder_child(mx, 0), 2.5), 0);
		assert_int_equal(dl_builder_append_int(dl_builder_child(mx, 1), 1631099471123000LL), 0);
		assert_int_equal(dl_builder_end_struct(mx), 0);
		dl_builder *nc = dl_builder_child(sp, 3);
		assert_int_equal(dl_builder_begin_struct(nc), 0);
		assert_int_equal(dl_builder_append_int(dl_builder_child(nc, 0), 0), 0);
		assert_int_equal(dl_builder_end_struct(nc), 0);
		assert_int_equal(dl_builder_end_struct(sp), 0);
		dl_builder *pp = dl_builder_child(a, 7);
		assert_int_equal(dl_builder_begin_struct(pp), 0);
		assert_int_equal(dl_builder_append_int(dl_builder_child(pp, 0), 18628), 0);
		assert_int_equal(dl_builder_end_struct(pp), 0);
	} else {
		assert_int_equal(dl_builder_append_str(dl_builder_child(a, 5), "{\"numRecords\":1}"), 0);
		assert_int_equal(dl_builder_append_null(sp), 0);
		assert_int_equal(dl_builder_append_null(dl_builder_child(a, 7)), 0);
	}
	assert_int_equal(dl_builder_end_struct(a), 0);
}

static void build_checkpoint(dl_buf *out)
{
	dl_type *schema;
	assert_int_equal(dl_schema_parse(&schema, cp_schema, strlen(cp_schema)), 0);
	dl_builder *b[NCOLS];
	for (int c = 0; c < NCOLS; c++) assert_int_equal(dl_builder_new(&b[c], schema->children[c].type), 0);
	/* protocol */
	assert_int_equal(dl_builder_begin_struct(b[C_PROTOCOL]), 0);
	assert_int_equal(dl_builder_append_int(dl_builder_child(b[C_PROTOCOL], 0), 1), 0);
	assert_int_equal(dl_builder_append_int(dl_builder_child(b[C_PROTOCOL], 1), 2), 0);
	assert_int_equal(dl_builder_end_struct(b[C_PROTOCOL]), 0);
	null_except(b, C_PROTOCOL);
	/* metaData */
	dl_builder *m = b[C_METADATA];
	assert_int_equal(dl_builder_begin_struct(m), 0);
	assert_int_equal(dl_builder_append_str(dl_builder_child(m, 0), "cp-table"), 0);
	assert_int_equal(dl_builder_append_str(dl_builder_child(m, 1), table_schema), 0);
	assert_int_equal(dl_builder_begin_list(dl_builder_child(m, 2)), 0);
	assert_int_equal(dl_builder_append_str(dl_builder_child(dl_builder_child(m, 2), 0), "p"), 0);
	assert_int_equal(dl_builder_end_list(dl_builder_child(m, 2)), 0);
	assert_int_equal(dl_builder_begin_list(dl_builder_child(m, 3)), 0);
	assert_int_equal(dl_builder_end_list(dl_builder_child(m, 3)), 0);
	assert_int_equal(dl_builder_end_struct(m), 0);
	null_except(b, C_METADATA);
	/* txn */
	assert_int_equal(dl_builder_begin_struct(b[C_TXN]), 0);
	assert_int_equal(dl_builder_append_str(dl_builder_child(b[C_TXN], 0), "app"), 0);
	assert_int_equal(dl_builder_append_int(dl_builder_child(b[C_TXN], 1), 4), 0);
	assert_int_equal(dl_builder_end_struct(b[C_TXN]), 0);
	null_except(b, C_TXN);
	/* a tombstone */
	assert_int_equal(dl_builder_begin_struct(b[C_REMOVE]), 0);
	assert_int_equal(dl_builder_append_str(dl_builder_child(b[C_REMOVE], 0), "old.parquet"), 0);
	assert_int_equal(dl_builder_append_int(dl_builder_child(b[C_REMOVE], 1), 7), 0);
	assert_int_equal(dl_builder_append_bool(dl_builder_child(b[C_REMOVE], 2), true), 0);
	assert_int_equal(dl_builder_end_struct(b[C_REMOVE]), 0);
	null_except(b, C_REMOVE);
	/* two adds: typed-only stats and partition values, and the JSON forms */
	add_row(b[C_ADD], "p=2021-01-01/a%20b.parquet", 10, true);
	null_except(b, C_ADD);
	add_row(b[C_ADD], "p=__HIVE_DEFAULT_PARTITION__/c.parquet", 20, false);
	null_except(b, C_ADD);
	dl_batch *batch = dl_batch_new(schema, 6);
	assert_non_null(batch);
	for (int c = 0; c < NCOLS; c++) assert_int_equal(dl_builder_finish(&batch->cols[c], b[c]), 0);
	pq_sink sink;
	pq_sink_init_buf(&sink, out);
	pq_writer *w;
	pq_writer_options o = PQ_WRITER_OPTIONS_INIT;
	assert_int_equal(pq_writer_open(&w, schema, &sink, &o), 0);
	assert_int_equal(pq_writer_write(w, batch), 0);
	assert_int_equal(pq_writer_close(w), 0);
	pq_writer_free(w);
	dl_batch_free(batch);
	for (int c = 0; c < NCOLS; c++) dl_builder_free(b[c]);
	dl_type_unref(schema);
}

static void checkpoint_rows(void **state)
{
	(void)state;
	dl_buf file = DL_BUF_INIT;
	build_checkpoint(&file);
	dl_store *s;
	assert_int_equal(dl_store_open(&s, "mem://log-checkpoint-read", NULL), 0);
	assert_int_equal(dl_store_put(s, "_delta_log/00000000000000000003.checkpoint.parquet", file.data, file.len), 0);
	const char *c4 = "{\"add\":{\"path\":\"d.parquet\",\"partitionValues\":{\"p\":\"2021-01-02\"},\"size\":1,"
	                 "\"modificationTime\":1,\"dataChange\":true}}\n"
	                 "{\"remove\":{\"path\":\"p=__HIVE_DEFAULT_PARTITION__/c.parquet\",\"deletionTimestamp\":9,"
	                 "\"dataChange\":true}}\n";
	assert_int_equal(dl_store_put(s, "_delta_log/00000000000000000004.json", c4, strlen(c4)), 0);
	assert_int_equal(dl_store_put(s, "_delta_log/_last_checkpoint", "{\"version\":3,\"size\":6}", 22), 0);
	dl_snapshot_options o = DL_SNAPSHOT_OPTIONS_INIT;
	o.store = s;
	dl_snapshot *snap;
	assert_int_equal(dl_snapshot_open(&snap, NULL, &o), 0);
	assert_int_equal(dl_snapshot_version(snap), 4);
	assert_string_equal(dl_snapshot_table_id(snap), "cp-table");
	assert_int_equal(dl_snapshot_partition_column_count(snap), 1);
	assert_int_equal(dl_snapshot_file_count(snap), 2); /* a b.parquet and d.parquet */
	assert_int_equal(dl_snapshot_tombstone_count(snap), 2);
	int64_t v;
	assert_int_equal(dl_snapshot_app_version(&v, snap, "app"), 0);
	assert_int_equal(v, 4);
	int found = 0;
	for (size_t i = 0; i < dl_snapshot_file_count(snap); i++) {
		dl_file_info fi;
		assert_int_equal(dl_snapshot_file_at(&fi, snap, i), 0);
		if (strcmp(fi.path, "p=2021-01-01/a b.parquet") != 0) continue;
		found = 1;
		assert_int_equal(fi.size, 10);
		assert_false(fi.data_change);
		/* stats_parsed as JSON: NaN dropped, timestamps in ISO form */
		assert_non_null(fi.stats);
		assert_non_null(strstr(fi.stats, "\"numRecords\":3"));
		assert_non_null(strstr(fi.stats, "\"maxValues\":{\"x\":2.5,\"t\":\"2021-09-08T11:11:11.123Z\"}"));
		assert_non_null(strstr(fi.stats, "\"minValues\":{\"x\":null"));
		const char *k, *val;
		assert_int_equal(dl_snapshot_file_partition_value(&k, &val, snap, i, 0), 0);
		assert_string_equal(k, "p");
		assert_string_equal(val, "2021-01-01");
	}
	assert_true(found);
	dl_snapshot_free(snap);
	/* metadata-only reads just protocol and metaData from the checkpoint */
	o.metadata_only = true;
	o.as_of_version = 3;
	assert_int_equal(dl_snapshot_open(&snap, NULL, &o), 0);
	assert_string_equal(dl_snapshot_table_id(snap), "cp-table");
	assert_int_equal(dl_snapshot_file_count(snap), 0);
	dl_snapshot_free(snap);
	/* a corrupt checkpoint names the file */
	file.data[file.len / 2] ^= 0x5a;
	file.data[file.len / 2 + 1] ^= 0x5a;
	assert_int_equal(dl_store_put(s, "_delta_log/00000000000000000003.checkpoint.parquet", file.data, file.len), 0);
	o.metadata_only = false;
	o.as_of_version = -1;
	int rc = dl_snapshot_open(&snap, NULL, &o);
	if (rc == 0) dl_snapshot_free(snap); /* the flip may hit a byte that does not matter */
	else assert_non_null(strstr(dl_error_last()->message, "checkpoint"));
	dl_buf_free(&file);
	dl_store_free(s);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(checkpoint_rows),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
