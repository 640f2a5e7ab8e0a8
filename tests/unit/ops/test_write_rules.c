/* More write rules: nested NOT NULL, nested schema evolution, type
 * widening, statistics of nested columns and of the indexed-column limits,
 * identity BY DEFAULT, protocol upgrades by new columns, row tracking,
 * field ids under column mapping, and the public dl_write over an
 * ArrowArrayStream. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include "columnar/batch_stream.h"
#include "deltalake/write.h"
#include "ops_fixture.h"
#include "parquet/reader.h"


static void create(const char *uri, const char *ddl, const char *const *props, int nprops)
{
	dl_create_options c = DL_CREATE_OPTIONS_INIT;
	c.schema_ddl = ddl;
	const char *keys[8], *vals[8];
	for (int i = 0; i < nprops; i++) {
		keys[i] = props[2 * i];
		vals[i] = props[2 * i + 1];
	}
	c.property_keys = keys;
	c.property_values = vals;
	c.nproperties = nprops;
	int64_t v;
	if (dl_create_table(&v, uri, &c) < 0) fail_msg("create: %s", dl_error_last()->message);
}

static void check_rows(const char *uri, const char *cols, const char *want)
{
	char *got = fx_read(uri, -1, cols);
	if (!got) fail_msg("read failed: %s", dl_error_last()->message);
	assert_string_equal(got, want);
	dl_free(got);
}

/* A one-row batch holding struct s {a INT, b STRING[, c BIGINT]}. */
static dl_batch *struct_batch(bool with_c, bool null_a)
{
	dl_type *t;
	assert_int_equal(dl_ddl_parse_schema(&t, with_c ? "id BIGINT, s STRUCT<a: INT, b: STRING, c: BIGINT>"
	                                                : "id BIGINT, s STRUCT<a: INT, b: STRING>"),
	                 0);
	dl_builder *bi, *bs;
	dl_builder_new(&bi, t->children[0].type);
	dl_builder_new(&bs, t->children[1].type);
	dl_builder_append_int(bi, 1);
	dl_builder_begin_struct(bs);
	if (null_a) dl_builder_append_null(dl_builder_child(bs, 0));
	else dl_builder_append_int(dl_builder_child(bs, 0), 7);
	dl_builder_append_str(dl_builder_child(bs, 1), "x");
	if (with_c) dl_builder_append_int(dl_builder_child(bs, 2), 99);
	dl_builder_end_struct(bs);
	dl_batch *b = dl_batch_new(t, 1);
	dl_builder_finish(&b->cols[0], bi);
	dl_builder_finish(&b->cols[1], bs);
	dl_builder_free(bi);
	dl_builder_free(bs);
	dl_type_unref(t);
	return b;
}

static int write_batch(const char *uri, dl_batch *b, const dl_write_options *o, int64_t *v)
{
	dl_batch_stream *s;
	dl_type *t = dl_type_ref(b->schema);
	assert_int_equal(dl_batch_stream_from_batches(&s, t, &b, 1), 0);
	dl_type_unref(t);
	int rc = dl_ops_write(v, uri, s, o, NULL, NULL);
	dl_batch_stream_free(s);
	return rc;
}

static void test_nested_rules(void **state)
{
	(void)state;
	char *uri = fx_table(g_dir, "nested");
	create(uri, "id BIGINT, s STRUCT<a: INT NOT NULL, b: STRING>", NULL, 0);
	dl_write_options o = fx_opts(DL_WRITE_APPEND);
	int64_t v;
	assert_int_equal(write_batch(uri, struct_batch(false, true), &o, &v), DL_ECONSTRAINT);
	assert_string_equal(dl_error_last()->message, "NOT NULL constraint violated for column: s.a");
	assert_int_equal(write_batch(uri, struct_batch(false, false), &o, &v), 0);
	/* A new nested field needs mergeSchema; then old rows read it as NULL. */
	assert_int_equal(write_batch(uri, struct_batch(true, false), &o, &v), DL_ESCHEMA);
	assert_non_null(strstr(dl_error_last()->message, "s.c"));
	o.merge_schema = true;
	assert_int_equal(write_batch(uri, struct_batch(true, false), &o, &v), 0);
	check_rows(uri, "s", "{a: 7, b: x, c: 99};{a: 7, b: x, c: NULL}");
	/* Stats of nested leaves are nested objects with physical names. */
	char *c = fx_commit(uri, v);
	assert_non_null(strstr(c, "\\\"minValues\\\":{\\\"id\\\":1,\\\"s\\\":{\\\"a\\\":7,\\\"b\\\":\\\"x\\\",\\\"c\\\":99}}"));
	dl_free(c);
	dl_free(uri);
}

static void test_type_widening(void **state)
{
	(void)state;
	char *uri = fx_table(g_dir, "widening");
	const char *props[] = {"delta.enableTypeWidening", "true"};
	create(uri, "id INT, x FLOAT", props, 1);
	char *c0 = fx_commit(uri, 0);
	assert_non_null(strstr(c0, "\"readerFeatures\":[\"typeWidening\"]"));
	dl_free(c0);
	dl_write_options o = fx_opts(DL_WRITE_APPEND);
	int64_t v;
	assert_int_equal(fx_write(&v, uri, "id INT, x FLOAT", "1,1.5", &o), 0);
	assert_int_equal(fx_write(&v, uri, "id BIGINT, x DOUBLE", "5000000000,2.25", &o), DL_ESCHEMA);
	o.merge_schema = true;
	assert_int_equal(fx_write(&v, uri, "id BIGINT, x DOUBLE", "5000000000,2.25", &o), 0);
	check_rows(uri, NULL, "1,1.5;5000000000,2.25");
	char *c = fx_commit(uri, v);
	assert_non_null(strstr(c, "\\\"delta.typeChanges\\\":[{\\\"fromType\\\":\\\"integer\\\",\\\"toType\\\":\\\"long\\\"}]"));
	assert_non_null(strstr(c, "\\\"delta.typeChanges\\\":[{\\\"fromType\\\":\\\"float\\\",\\\"toType\\\":\\\"double\\\"}]"));
	dl_free(c);
	/* Integers are not widened to double automatically. */
	assert_int_equal(fx_write(&v, uri, "id DOUBLE", "1.5", &o), DL_ESCHEMA);
	/* Narrower data into the widened table is cast back up. */
	assert_int_equal(fx_write(&v, uri, "id INT", "3", &o), 0);
	check_rows(uri, "id", "1;3;5000000000");
	dl_free(uri);
}

/* dl_write_options.auto_widening (Spark's allowAutomaticWidening) with
 * merge_schema: ALWAYS, the default, widens an INT column to DOUBLE data;
 * SAME_FAMILY_TYPE and NEVER refuse it (DL_ESCHEMA) and NEVER refuses INT
 * to BIGINT too; a value outside the enum is DL_EINVALID. On a UniForm
 * Iceberg table INT to DOUBLE is refused even under ALWAYS. */
static void test_auto_widening(void **state)
{
	(void)state;
	char *uri = fx_table(g_dir, "auto_widening");
	const char *props[] = {"delta.enableTypeWidening", "true"};
	create(uri, "a INT, b INT", props, 1);
	dl_write_options o = fx_opts(DL_WRITE_APPEND);
	o.merge_schema = true;
	int64_t v;
	o.auto_widening = DL_AUTO_WIDENING_NEVER;
	assert_int_equal(fx_write(&v, uri, "a BIGINT", "5000000000", &o), DL_ESCHEMA);
	o.auto_widening = DL_AUTO_WIDENING_SAME_FAMILY_TYPE;
	assert_int_equal(fx_write(&v, uri, "b DOUBLE", "1.5", &o), DL_ESCHEMA);
	assert_int_equal(fx_write(&v, uri, "a BIGINT", "5000000000", &o), 0);
	o.auto_widening = (dl_auto_widening)7;
	assert_int_equal(fx_write(&v, uri, "b DOUBLE", "1.5", &o), DL_EINVALID);
	o.auto_widening = DL_AUTO_WIDENING_ALWAYS;
	assert_int_equal(fx_write(&v, uri, "b DOUBLE", "1.5", &o), 0);
	char *c = fx_commit(uri, v);
	assert_non_null(strstr(c, "{\\\"fromType\\\":\\\"integer\\\",\\\"toType\\\":\\\"double\\\"}"));
	dl_free(c);
	check_rows(uri, "a,b", "5000000000,NULL;NULL,1.5");
	dl_free(uri);
	uri = fx_table(g_dir, "auto_widening_uniform");
	const char *uprops[] = {"delta.enableTypeWidening", "true", "delta.enableIcebergCompatV2", "true",
	                        "delta.universalFormat.enabledFormats", "iceberg"};
	create(uri, "a INT, b INT", uprops, 3);
	assert_int_equal(fx_write(&v, uri, "b DOUBLE", "1.5", &o), DL_ESCHEMA);
	assert_int_equal(fx_write(&v, uri, "a BIGINT", "5000000000", &o), 0);
	dl_free(uri);
}

static void test_stats_limits(void **state)
{
	(void)state;
	char *uri = fx_table(g_dir, "stats_limits");
	const char *props[] = {"delta.dataSkippingNumIndexedCols", "2"};
	create(uri, "a BIGINT, b STRING, c DOUBLE", props, 1);
	dl_write_options o = fx_opts(DL_WRITE_APPEND);
	int64_t v;
	assert_int_equal(fx_write(&v, uri, "a BIGINT, b STRING, c DOUBLE", "1,x,2.5", &o), 0);
	char *c = fx_commit(uri, 1);
	assert_non_null(strstr(c, "\\\"minValues\\\":{\\\"a\\\":1,\\\"b\\\":\\\"x\\\"}"));
	assert_non_null(strstr(c, "\\\"nullCount\\\":{\\\"a\\\":0,\\\"b\\\":0}"));
	dl_free(c);
	char *u2 = fx_table(g_dir, "stats_columns");
	const char *props2[] = {"delta.dataSkippingStatsColumns", "c, b"};
	create(u2, "a BIGINT, b STRING, c DOUBLE", props2, 1);
	assert_int_equal(fx_write(&v, u2, "a BIGINT, b STRING, c DOUBLE", "1,x,2.5", &o), 0);
	c = fx_commit(u2, 1);
	assert_non_null(strstr(c, "\\\"minValues\\\":{\\\"b\\\":\\\"x\\\",\\\"c\\\":2.5}"));
	dl_free(c);
	dl_free(u2);
	dl_free(uri);
}

static void test_identity_by_default(void **state)
{
	(void)state;
	char *uri = fx_table(g_dir, "identity_default");
	create(uri, "id BIGINT GENERATED BY DEFAULT AS IDENTITY (START WITH -1 INCREMENT BY -2), v STRING", NULL, 0);
	char *c0 = fx_commit(uri, 0);
	assert_non_null(strstr(c0, "\"minWriterVersion\":6"));
	dl_free(c0);
	dl_write_options o = fx_opts(DL_WRITE_APPEND);
	int64_t v;
	assert_int_equal(fx_write(&v, uri, "v STRING", "a;b", &o), 0);
	assert_int_equal(fx_write(&v, uri, "id BIGINT, v STRING", "100,c", &o), 0);
	assert_int_equal(fx_write(&v, uri, "v STRING", "d", &o), 0);
	check_rows(uri, NULL, "-1,a;-3,b;-5,d;100,c");
	dl_free(uri);
}

static void test_protocol_upgrade(void **state)
{
	(void)state;
	char *uri = fx_table(g_dir, "upgrade");
	create(uri, "id BIGINT", NULL, 0);
	dl_write_options o = fx_opts(DL_WRITE_APPEND);
	o.merge_schema = true;
	int64_t v;
	dl_batch *b = fx_batch("id BIGINT", "1");
	assert_non_null(b);
	dl_batch_free(b);
	/* A TIMESTAMP_NTZ column needs the timestampNtz feature: (3,7). */
	dl_type *t;
	assert_int_equal(dl_ddl_parse_schema(&t, "id BIGINT, n TIMESTAMP_NTZ"), 0);
	b = dl_batch_new(t, 1);
	dl_builder *bi, *bn;
	dl_builder_new(&bi, t->children[0].type);
	dl_builder_new(&bn, t->children[1].type);
	dl_builder_append_int(bi, 1);
	dl_builder_append_int(bn, 86400000000);
	dl_builder_finish(&b->cols[0], bi);
	dl_builder_finish(&b->cols[1], bn);
	dl_builder_free(bi);
	dl_builder_free(bn);
	dl_type_unref(t);
	assert_int_equal(write_batch(uri, b, &o, &v), 0);
	char *c = fx_commit(uri, v);
	assert_non_null(strstr(c, "{\"protocol\":{\"minReaderVersion\":3,\"minWriterVersion\":7,"
	                          "\"readerFeatures\":[\"timestampNtz\"],"
	                          "\"writerFeatures\":[\"timestampNtz\",\"appendOnly\",\"invariants\"]}}"));
	dl_free(c);
	check_rows(uri, NULL, "1,1970-01-02 00:00:00");
	dl_free(uri);
}

static void test_row_tracking(void **state)
{
	(void)state;
	char *uri = fx_table(g_dir, "row_tracking");
	const char *props[] = {"delta.enableRowTracking", "true"};
	create(uri, "id BIGINT", props, 1);
	dl_write_options o = fx_opts(DL_WRITE_APPEND);
	o.max_records_per_file = 2;
	int64_t v;
	assert_int_equal(fx_write(&v, uri, "id BIGINT", "1;2;3", &o), 0);
	assert_int_equal(fx_write(&v, uri, "id BIGINT", "4", &o), 0);
	char *c1 = fx_commit(uri, 1), *c2 = fx_commit(uri, 2);
	assert_non_null(strstr(c1, "\"baseRowId\":0,\"defaultRowCommitVersion\":1"));
	assert_non_null(strstr(c1, "\"baseRowId\":2,\"defaultRowCommitVersion\":1"));
	assert_non_null(strstr(c1, "{\"domainMetadata\":{\"domain\":\"delta.rowTracking\","
	                           "\"configuration\":\"{\\\"rowIdHighWaterMark\\\":2}\""));
	assert_non_null(strstr(c2, "\"baseRowId\":3,\"defaultRowCommitVersion\":2"));
	dl_free(c1);
	dl_free(c2);
	check_rows(uri, "id," DL_SCAN_ROW_ID, "1,0;2,1;3,2;4,3");
	dl_free(uri);
}

/* Column mapping: the Parquet files carry physical names and field ids. */
static void test_field_ids(void **state)
{
	(void)state;
	char *uri = fx_table(g_dir, "field_ids");
	const char *props[] = {"delta.columnMapping.mode", "id"};
	create(uri, "a BIGINT, s STRUCT<x: INT>", props, 1);
	dl_write_options o = fx_opts(DL_WRITE_APPEND);
	int64_t v;
	assert_int_equal(fx_write(&v, uri, "a BIGINT", "5", &o), 0);
	dl_snapshot *snap;
	assert_int_equal(dl_snapshot_open(&snap, uri, NULL), 0);
	dl_file_info fi;
	assert_int_equal(dl_snapshot_file_at(&fi, snap, 0), 0);
	dl_store *st;
	assert_int_equal(dl_store_open(&st, uri, NULL), 0);
	pq_reader *r;
	assert_int_equal(pq_reader_open_store(&r, st, fi.path, -1), 0);
	const dl_type *fs = pq_reader_schema(r);
	assert_int_equal(fs->nchildren, 2);
	assert_memory_equal(fs->children[0].name, "col-", 4);
	assert_non_null(strstr(fs->children[0].metadata, "\"parquet.field.id\":1"));
	assert_non_null(strstr(fs->children[1].type->children[0].metadata, "\"parquet.field.id\":3"));
	pq_reader_free(r);
	dl_store_free(st);
	dl_snapshot_free(snap);
	check_rows(uri, "a", "5");
	dl_free(uri);
}

/* The public entry point: an ArrowArrayStream in, a table out. */
static void test_dl_write_arrow(void **state)
{
	(void)state;
	char *uri = fx_table(g_dir, "arrow");
	dl_batch *b = fx_batch("id BIGINT, name STRING, d DATE", "1,a,2024-01-01;2,b,2024-01-02");
	dl_type *t = dl_type_ref(b->schema);
	dl_batch_stream *s;
	assert_int_equal(dl_batch_stream_from_batches(&s, t, &b, 1), 0);
	dl_type_unref(t);
	struct ArrowArrayStream as;
	assert_int_equal(dl_batch_stream_export(&as, s), 0);
	dl_write_options o = DL_WRITE_OPTIONS_INIT;
	const char *parts[] = {"d"};
	o.partition_by = parts;
	o.npartition_by = 1;
	int64_t v;
	if (dl_write(&v, uri, &as, &o) < 0) fail_msg("dl_write: %s", dl_error_last()->message);
	assert_int_equal(v, 0);
	if (as.release) as.release(&as);
	check_rows(uri, NULL, "1,a,2024-01-01;2,b,2024-01-02");
	dl_write_options bad = DL_WRITE_OPTIONS_INIT;
	bad.version = 99;
	struct ArrowArrayStream none = {0};
	assert_int_equal(dl_write(&v, uri, &none, &bad), DL_EINVALID);
	dl_free(uri);
}

static void test_target_file_size(void **state)
{
	(void)state;
	char *uri = fx_table(g_dir, "target_size");
	dl_buf rows = DL_BUF_INIT;
	for (int i = 0; i < 20000; i++) dl_buf_printf(&rows, "%s%d,row-%d-%d", i ? ";" : "", i, i, i * 7919);
	dl_write_options o = fx_opts(DL_WRITE_APPEND);
	o.target_file_size = 1;
	int64_t v;
	dl_batch *b = fx_batch("id BIGINT, s STRING", rows.data);
	/* Split into 10 batches so the size is checked between them. */
	dl_batch *parts[10];
	for (int i = 0; i < 10; i++) parts[i] = dl_batch_slice(b, i * 2000, 2000);
	dl_type *t = dl_type_ref(b->schema);
	dl_batch_free(b);
	dl_batch_stream *s;
	assert_int_equal(dl_batch_stream_from_batches(&s, t, parts, 10), 0);
	dl_type_unref(t);
	assert_int_equal(dl_ops_write(&v, uri, s, &o, NULL, NULL), 0);
	dl_batch_stream_free(s);
	assert_int_equal(fx_count_parquet(uri), 10);
	char *got = fx_read(uri, -1, "id");
	assert_int_equal(strlen(got) > 0, 1);
	int n = 1;
	for (char *p = got; *p; p++) n += *p == ';';
	assert_int_equal(n, 20000);
	dl_free(got);
	dl_buf_free(&rows);
	dl_free(uri);
}

/* NullType columns: kept in the schema, left out of the files, and typed
 * by a later write that merges the schema. */
static void test_null_type(void **state)
{
	(void)state;
	char *uri = fx_table(g_dir, "null_type");
	dl_write_options o = fx_opts(DL_WRITE_ERROR_IF_EXISTS);
	int64_t v;
	assert_int_equal(fx_write(&v, uri, "a BIGINT, n VOID", "1,NULL;2,NULL", &o), 0);
	char *c0 = fx_commit(uri, 0);
	assert_non_null(strstr(c0, "\\\"name\\\":\\\"n\\\",\\\"type\\\":\\\"void\\\""));
	dl_free(c0);
	check_rows(uri, NULL, "1,NULL;2,NULL");
	o.mode = DL_WRITE_APPEND;
	assert_int_equal(fx_write(&v, uri, "a BIGINT, n STRING", "3,x", &o), DL_ESCHEMA);
	assert_non_null(strstr(dl_error_last()->message, "NullType"));
	o.merge_schema = true;
	assert_int_equal(fx_write(&v, uri, "a BIGINT, n STRING", "3,x", &o), 0);
	check_rows(uri, NULL, "1,NULL;2,NULL;3,x");
	dl_free(uri);
}

/* Legacy invariants in field metadata are enforced like CHECK constraints. */
static void test_invariants(void **state)
{
	(void)state;
	char *uri = fx_table(g_dir, "invariants");
	dl_create_options c = DL_CREATE_OPTIONS_INIT;
	c.schema_json = "{\"type\":\"struct\",\"fields\":[{\"name\":\"v\",\"type\":\"integer\","
	                "\"nullable\":true,\"metadata\":{\"delta.invariants\":"
	                "\"{\\\"expression\\\":{\\\"expression\\\":\\\"v < 10\\\"}}\"}}]}";
	int64_t v;
	if (dl_create_table(&v, uri, &c) < 0) fail_msg("create: %s", dl_error_last()->message);
	char *c0 = fx_commit(uri, 0);
	assert_non_null(strstr(c0, "\"minWriterVersion\":2"));
	dl_free(c0);
	dl_write_options o = fx_opts(DL_WRITE_APPEND);
	assert_int_equal(fx_write(&v, uri, "v INT", "3", &o), 0);
	assert_int_equal(fx_write(&v, uri, "v INT", "30", &o), DL_ECONSTRAINT);
	assert_non_null(strstr(dl_error_last()->message, "Invariant on column v"));
	check_rows(uri, NULL, "3");
	dl_free(uri);
}

/* Partition directories: Hive escaping, the null directory, timestamps. */
static void test_partition_paths(void **state)
{
	(void)state;
	char *uri = fx_table(g_dir, "partition_paths");
	dl_write_options o = fx_opts(DL_WRITE_ERROR_IF_EXISTS);
	const char *parts[] = {"p", "ts"};
	o.partition_by = parts;
	o.npartition_by = 2;
	int64_t v;
	assert_int_equal(fx_write(&v, uri, "id BIGINT, p STRING, ts TIMESTAMP",
	                          "1,a b/c=d%e,2024-01-01 10:00:00;2,NULL,NULL", &o), 0);
	char *c = fx_commit(uri, 0);
	assert_non_null(strstr(c, "\"path\":\"p=a%20b%252Fc%253Dd%2525e/ts=2024-01-01T10%253A00%253A00.000000Z/part-"));
	assert_non_null(strstr(c, "\"partitionValues\":{\"p\":\"a b/c=d%e\",\"ts\":\"2024-01-01T10:00:00.000000Z\"}"));
	assert_non_null(strstr(c, "\"path\":\"p=__HIVE_DEFAULT_PARTITION__/ts=__HIVE_DEFAULT_PARTITION__/part-"));
	assert_non_null(strstr(c, "\"partitionValues\":{\"p\":null,\"ts\":null}"));
	dl_free(c);
	char dir[1024];
	snprintf(dir, sizeof dir, "%s/p=a b%%2Fc%%3Dd%%25e", uri);
	struct stat st;
	assert_int_equal(stat(dir, &st), 0);
	check_rows(uri, NULL, "1,a b/c=d%e,2024-01-01 10:00:00;2,NULL,NULL");
	dl_free(uri);
}

/* mergeSchema adds a field to structs inside an array. */
static void test_nested_array_evolution(void **state)
{
	(void)state;
	char *uri = fx_table(g_dir, "array_evolution");
	create(uri, "id BIGINT, l ARRAY<STRUCT<a: INT>>", NULL, 0);
	dl_type *t;
	assert_int_equal(dl_ddl_parse_schema(&t, "id BIGINT, l ARRAY<STRUCT<a: INT, b: STRING>>"), 0);
	dl_builder *bi, *bl;
	dl_builder_new(&bi, t->children[0].type);
	dl_builder_new(&bl, t->children[1].type);
	dl_builder_append_int(bi, 1);
	dl_builder_begin_list(bl);
	dl_builder *e = dl_builder_child(bl, 0);
	for (int k = 0; k < 2; k++) {
		dl_builder_begin_struct(e);
		dl_builder_append_int(dl_builder_child(e, 0), k);
		dl_builder_append_str(dl_builder_child(e, 1), k ? "y" : "x");
		dl_builder_end_struct(e);
	}
	dl_builder_end_list(bl);
	dl_batch *b = dl_batch_new(t, 1);
	dl_builder_finish(&b->cols[0], bi);
	dl_builder_finish(&b->cols[1], bl);
	dl_builder_free(bi);
	dl_builder_free(bl);
	dl_type_unref(t);
	dl_write_options o = fx_opts(DL_WRITE_APPEND);
	o.merge_schema = true;
	int64_t v;
	if (write_batch(uri, b, &o, &v) < 0) fail_msg("write: %s", dl_error_last()->message);
	check_rows(uri, "l", "[{a: 0, b: x}, {a: 1, b: y}]");
	/* Data without the new field: its elements get b = NULL. */
	assert_int_equal(dl_ddl_parse_schema(&t, "id BIGINT, l ARRAY<STRUCT<a: INT>>"), 0);
	dl_builder_new(&bi, t->children[0].type);
	dl_builder_new(&bl, t->children[1].type);
	dl_builder_append_int(bi, 2);
	dl_builder_begin_list(bl);
	e = dl_builder_child(bl, 0);
	dl_builder_begin_struct(e);
	dl_builder_append_int(dl_builder_child(e, 0), 7);
	dl_builder_end_struct(e);
	dl_builder_end_list(bl);
	b = dl_batch_new(t, 1);
	dl_builder_finish(&b->cols[0], bi);
	dl_builder_finish(&b->cols[1], bl);
	dl_builder_free(bi);
	dl_builder_free(bl);
	dl_type_unref(t);
	o.merge_schema = false;
	if (write_batch(uri, b, &o, &v) < 0) fail_msg("write: %s", dl_error_last()->message);
	check_rows(uri, "l", "[{a: 0, b: x}, {a: 1, b: y}];[{a: 7, b: NULL}]");
	dl_free(uri);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_nested_rules),
		cmocka_unit_test(test_type_widening),
		cmocka_unit_test(test_auto_widening),
		cmocka_unit_test(test_stats_limits),
		cmocka_unit_test(test_identity_by_default),
		cmocka_unit_test(test_protocol_upgrade),
		cmocka_unit_test(test_row_tracking),
		cmocka_unit_test(test_field_ids),
		cmocka_unit_test(test_dl_write_arrow),
		cmocka_unit_test(test_target_file_size),
		cmocka_unit_test(test_null_type),
		cmocka_unit_test(test_invariants),
		cmocka_unit_test(test_partition_paths),
		cmocka_unit_test(test_nested_array_evolution),
	};
	return cmocka_run_group_tests(tests, fx_setup_tmpdir, fx_teardown_tmpdir);
}
