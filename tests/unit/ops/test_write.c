/* Create table and writes: modes, partitioning, stats, schema enforcement
 * and evolution, constraints, generated / identity / default columns,
 * overwrite variants and idempotent writes, each read back through the
 * snapshot and scan of this library. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include "deltalake/write.h"
#include "ops_fixture.h"


static char *table(const char *name)
{
	return fx_table(g_dir, name);
}

static void create(const char *uri, const char *ddl, const char *const *parts, int nparts,
                   const char *const *props, int nprops)
{
	dl_create_options c = DL_CREATE_OPTIONS_INIT;
	c.schema_ddl = ddl;
	c.partition_columns = parts;
	c.npartition_columns = nparts;
	const char *keys[8], *vals[8];
	for (int i = 0; i < nprops; i++) {
		keys[i] = props[2 * i];
		vals[i] = props[2 * i + 1];
	}
	c.property_keys = keys;
	c.property_values = vals;
	c.nproperties = nprops;
	int64_t v;
	int rc = dl_create_table(&v, uri, &c);
	if (rc < 0) fail_msg("create: %s", dl_error_last()->message);
	assert_int_equal(v, 0);
}

static void check_rows(const char *uri, int64_t version, const char *cols, const char *want)
{
	char *got = fx_read(uri, version, cols);
	if (!got) fail_msg("read failed: %s", dl_error_last()->message);
	assert_string_equal(got, want);
	dl_free(got);
}

#define WRITE_OK(v, uri, ddl, rows, o)                                             \
	do {                                                                           \
		int rc_ = fx_write(v, uri, ddl, rows, o);                                  \
		if (rc_ < 0) fail_msg("write: %s", dl_error_last()->message);             \
	} while (0)

static void test_create_and_append(void **state)
{
	(void)state;
	char *uri = table("basic");
	const char *parts[] = {"d"};
	create(uri, "id BIGINT NOT NULL, name STRING COMMENT 'who', d DATE", parts, 1, NULL, 0);
	char *c0 = fx_commit(uri, 0);
	assert_non_null(strstr(c0, "\"operation\":\"CREATE TABLE\""));
	assert_non_null(strstr(c0, "{\"protocol\":{\"minReaderVersion\":1,\"minWriterVersion\":2}}"));
	assert_non_null(strstr(c0, "\"partitionColumns\":[\"d\"]"));
	dl_free(c0);
	dl_write_options o = fx_opts(DL_WRITE_APPEND);
	int64_t v;
	WRITE_OK(&v, uri, "id BIGINT, name STRING, d DATE",
	         "1,a,2024-01-01;2,NULL,2024-01-02;3,c,NULL", &o);
	assert_int_equal(v, 1);
	check_rows(uri, -1, NULL, "1,a,2024-01-01;2,NULL,2024-01-02;3,c,NULL");
	char *c1 = fx_commit(uri, 1);
	assert_non_null(strstr(c1, "\"operation\":\"WRITE\""));
	assert_non_null(strstr(c1, "\"mode\":\"Append\""));
	assert_non_null(strstr(c1, "\"numOutputRows\":\"3\""));
	assert_non_null(strstr(c1, "\"numFiles\":\"3\""));
	assert_non_null(strstr(c1, "\"path\":\"d=2024-01-01/part-00"));
	assert_non_null(strstr(c1, "\"path\":\"d=__HIVE_DEFAULT_PARTITION__/part-"));
	assert_non_null(strstr(c1, "\"partitionValues\":{\"d\":null}"));
	assert_non_null(strstr(c1, ".zstd.parquet"));
	assert_non_null(strstr(c1, "\\\"numRecords\\\":1,\\\"minValues\\\":{\\\"id\\\":1,\\\"name\\\":\\\"a\\\"}"));
	assert_non_null(strstr(c1, "\\\"nullCount\\\":{\\\"id\\\":0,\\\"name\\\":1}"));
	dl_free(c1);
	/* Columns in another order and case; missing columns are null. */
	WRITE_OK(&v, uri, "D DATE, ID BIGINT", "2024-01-01,4", &o);
	assert_int_equal(v, 2);
	check_rows(uri, -1, "id,name", "1,a;2,NULL;3,c;4,NULL");
	check_rows(uri, 1, "id", "1;2;3");
	dl_free(uri);
}

static void test_modes(void **state)
{
	(void)state;
	char *uri = table("modes");
	dl_write_options o = fx_opts(DL_WRITE_ERROR_IF_EXISTS);
	int64_t v;
	WRITE_OK(&v, uri, "id BIGINT, s STRING", "1,x;2,y", &o);
	assert_int_equal(v, 0);
	char *c0 = fx_commit(uri, 0);
	assert_non_null(strstr(c0, "\"mode\":\"ErrorIfExists\""));
	assert_non_null(strstr(c0, "\"metaData\""));
	dl_free(c0);
	assert_int_equal(fx_write(&v, uri, "id BIGINT, s STRING", "3,z", &o), DL_EEXISTS);
	o.mode = DL_WRITE_IGNORE;
	assert_int_equal(fx_write(&v, uri, "id BIGINT, s STRING", "3,z", &o), 0);
	assert_int_equal(v, -1);
	o.mode = DL_WRITE_OVERWRITE;
	WRITE_OK(&v, uri, "id BIGINT, s STRING", "5,o", &o);
	assert_int_equal(v, 1);
	check_rows(uri, -1, NULL, "5,o");
	check_rows(uri, 0, NULL, "1,x;2,y");
	char *c1 = fx_commit(uri, 1);
	assert_non_null(strstr(c1, "\"remove\""));
	assert_non_null(strstr(c1, "\"numRemovedFiles\":\"1\""));
	dl_free(c1);
	dl_free(uri);
}

static void test_schema_enforcement(void **state)
{
	(void)state;
	char *uri = table("schema");
	create(uri, "id BIGINT, name STRING", NULL, 0, NULL, 0);
	dl_write_options o = fx_opts(DL_WRITE_APPEND);
	int64_t v;
	assert_int_equal(fx_write(&v, uri, "id BIGINT, extra INT", "1,2", &o), DL_ESCHEMA);
	assert_non_null(strstr(dl_error_last()->message, "extra"));
	assert_int_equal(fx_write(&v, uri, "id INT", "1", &o), DL_ESCHEMA);
	assert_int_equal(fx_write(&v, uri, "id BIGINT, Id BIGINT", "1,2", &o), DL_ESCHEMA);
	assert_int_equal(fx_version(uri), 0);
	assert_int_equal(fx_count_parquet(uri), 0);
	/* NullType data columns fit any column. */
	WRITE_OK(&v, uri, "id BIGINT, name VOID", "7,NULL", &o);
	check_rows(uri, -1, NULL, "7,NULL");
	/* mergeSchema: new columns appended, narrower ints accepted. */
	o.merge_schema = true;
	WRITE_OK(&v, uri, "id INT, extra STRING", "8,e", &o);
	check_rows(uri, -1, NULL, "7,NULL,NULL;8,NULL,e");
	char *c = fx_commit(uri, v);
	assert_non_null(strstr(c, "\"metaData\""));
	assert_non_null(strstr(c, "\\\"name\\\":\\\"extra\\\""));
	dl_free(c);
	/* Widening the table type needs type widening. */
	assert_int_equal(fx_write(&v, uri, "id DOUBLE", "1.5", &o), DL_ESCHEMA);
	dl_free(uri);
}

static void test_overwrite_schema(void **state)
{
	(void)state;
	char *uri = table("overwrite_schema");
	create(uri, "id BIGINT, name STRING", NULL, 0, NULL, 0);
	dl_write_options o = fx_opts(DL_WRITE_OVERWRITE);
	int64_t v;
	assert_int_equal(fx_write(&v, uri, "x STRING", "a", &o), DL_ESCHEMA);
	o.overwrite_schema = true;
	const char *parts[] = {"p"};
	o.partition_by = parts;
	o.npartition_by = 1;
	WRITE_OK(&v, uri, "x STRING, p INT", "a,1;b,2", &o);
	check_rows(uri, -1, NULL, "a,1;b,2");
	char *c = fx_commit(uri, v);
	assert_non_null(strstr(c, "\"partitionColumns\":[\"p\"]"));
	dl_free(c);
	dl_free(uri);
}

static void test_not_null_and_check(void **state)
{
	(void)state;
	char *uri = table("constraints");
	dl_create_options c = DL_CREATE_OPTIONS_INIT;
	c.schema_ddl = "id BIGINT NOT NULL, age INT, s STRUCT<a: INT NOT NULL, b: INT>";
	const char *cn[] = {"AdultsOnly"}, *ce[] = {"age >= 18"};
	c.constraint_names = cn;
	c.constraint_exprs = ce;
	c.nconstraints = 1;
	int64_t v;
	assert_int_equal(dl_create_table(&v, uri, &c), 0);
	char *c0 = fx_commit(uri, 0);
	assert_non_null(strstr(c0, "\"delta.constraints.adultsonly\":\"age >= 18\""));
	assert_non_null(strstr(c0, "\"minWriterVersion\":3"));
	dl_free(c0);
	dl_write_options o = fx_opts(DL_WRITE_APPEND);
	assert_int_equal(fx_write(&v, uri, "id BIGINT, age INT", "1,20;NULL,30", &o), DL_ECONSTRAINT);
	assert_string_equal(dl_error_last()->message, "NOT NULL constraint violated for column: id");
	assert_int_equal(fx_write(&v, uri, "id BIGINT, age INT", "1,20;2,12", &o), DL_ECONSTRAINT);
	assert_non_null(strstr(dl_error_last()->message, "CHECK constraint adultsonly age >= 18 violated"));
	assert_non_null(strstr(dl_error_last()->message, "age : 12"));
	/* NULL is a violation too (Delta's rule). */
	assert_int_equal(fx_write(&v, uri, "id BIGINT, age INT", "3,NULL", &o), DL_ECONSTRAINT);
	assert_int_equal(fx_version(uri), 0);
	assert_int_equal(fx_count_parquet(uri), 0);
	WRITE_OK(&v, uri, "id BIGINT, age INT", "1,20;2,40", &o);
	check_rows(uri, -1, "id,age", "1,20;2,40");
	dl_free(uri);
}

static void test_generated_columns(void **state)
{
	(void)state;
	char *uri = table("generated");
	const char *parts[] = {"d"};
	create(uri, "ts TIMESTAMP, v INT, d DATE GENERATED ALWAYS AS (CAST(ts AS DATE)), "
	            "w INT GENERATED ALWAYS AS (v * 2)",
	       parts, 1, NULL, 0);
	char *c0 = fx_commit(uri, 0);
	assert_non_null(strstr(c0, "\"minWriterVersion\":4"));
	dl_free(c0);
	dl_write_options o = fx_opts(DL_WRITE_APPEND);
	int64_t v;
	WRITE_OK(&v, uri, "ts TIMESTAMP, v INT", "2024-03-01 10:00:00,1;2024-03-02 23:59:59,NULL", &o);
	check_rows(uri, -1, "d,w", "2024-03-01,2;2024-03-02,NULL");
	/* Provided values must equal the expression. */
	WRITE_OK(&v, uri, "ts TIMESTAMP, v INT, w INT", "2024-03-05 01:00:00,3,6", &o);
	assert_int_equal(fx_write(&v, uri, "ts TIMESTAMP, v INT, w INT", "2024-03-05 01:00:00,3,7", &o),
	                 DL_ECONSTRAINT);
	assert_non_null(strstr(dl_error_last()->message, "Generated Column"));
	assert_non_null(strstr(dl_error_last()->message, "w : 7"));
	dl_free(uri);
}

static void test_identity_and_defaults(void **state)
{
	(void)state;
	char *uri = table("identity");
	const char *props[] = {"delta.feature.allowColumnDefaults", "enabled"};
	create(uri, "id BIGINT GENERATED ALWAYS AS IDENTITY (START WITH 10 INCREMENT BY 5), "
	            "name STRING, status STRING DEFAULT 'new'",
	       NULL, 0, props, 1);
	dl_write_options o = fx_opts(DL_WRITE_APPEND);
	int64_t v;
	WRITE_OK(&v, uri, "name STRING", "a;b", &o);
	WRITE_OK(&v, uri, "name STRING, status STRING", "c,old", &o);
	check_rows(uri, -1, NULL, "10,a,new;15,b,new;20,c,old");
	char *c = fx_commit(uri, v);
	assert_non_null(strstr(c, "delta.identity.highWaterMark\\\":20"));
	dl_free(c);
	assert_int_equal(fx_write(&v, uri, "id BIGINT, name STRING", "1,x", &o), DL_ECONSTRAINT);
	assert_non_null(strstr(dl_error_last()->message, "GENERATED ALWAYS AS IDENTITY"));
	dl_free(uri);
	/* an identity column cannot partition a table (Spark refuses it) */
	uri = table("identity_part");
	dl_create_options co = DL_CREATE_OPTIONS_INIT;
	co.schema_ddl = "id BIGINT GENERATED ALWAYS AS IDENTITY, v INT";
	const char *parts[] = {"id"};
	co.partition_columns = parts;
	co.npartition_columns = 1;
	assert_int_equal(dl_create_table(&v, uri, &co), DL_ESCHEMA);
	assert_string_equal(dl_error_last()->klass, "DELTA_IDENTITY_COLUMNS_PARTITION_NOT_SUPPORTED");
	assert_int_not_equal(access(uri, F_OK), 0);
	dl_free(uri);
}

static void test_replace_where(void **state)
{
	(void)state;
	char *uri = table("replace_where");
	const char *parts[] = {"p"};
	create(uri, "id BIGINT, p INT", parts, 1, NULL, 0);
	dl_write_options o = fx_opts(DL_WRITE_APPEND);
	int64_t v;
	WRITE_OK(&v, uri, "id BIGINT, p INT", "1,1;2,1;3,2;4,2;5,3", &o);
	o = fx_opts(DL_WRITE_OVERWRITE);
	o.replace_where = "p = 2";
	assert_int_equal(fx_write(&v, uri, "id BIGINT, p INT", "40,2;50,3", &o), DL_ECONSTRAINT);
	assert_non_null(strstr(dl_error_last()->message, "p = 2"));
	WRITE_OK(&v, uri, "id BIGINT, p INT", "40,2", &o);
	check_rows(uri, -1, NULL, "1,1;2,1;40,2;5,3");
	/* On a data column: matching rows replaced, the others copied. */
	o.replace_where = "id >= 2 AND id < 40";
	WRITE_OK(&v, uri, "id BIGINT, p INT", "20,1", &o);
	check_rows(uri, -1, NULL, "1,1;20,1;40,2");
	char *c = fx_commit(uri, v);
	assert_non_null(strstr(c, "\"numDeletedRows\":\"2\""));
	assert_non_null(strstr(c, "\"numCopiedRows\":\"1\""));
	assert_non_null(strstr(c, "\"predicate\":\"[\\\"id >= 2 AND id < 40\\\"]\""));
	dl_free(c);
	/* The check can be turned off: rows outside the predicate are written. */
	o.replace_where = "p = 3";
	o.replace_where_check = false;
	WRITE_OK(&v, uri, "id BIGINT, p INT", "6,3;7,4", &o);
	check_rows(uri, -1, NULL, "1,1;20,1;40,2;6,3;7,4");
	check_rows(uri, v - 1, NULL, "1,1;20,1;40,2");
	dl_free(uri);
}

/* replaceWhere runs a DELETE of the predicate (Spark's WriteIntoDelta): on a
 * table with deletion vectors the matched rows get a DV instead of a copy,
 * and the metrics are exactly Spark's WRITE_REPLACE_WHERE set. */
static void test_replace_where_deletion_vectors(void **state)
{
	(void)state;
	char *uri = table("replace_where_dv");
	const char *parts[] = {"p"};
	const char *props[] = {"delta.enableDeletionVectors", "true"};
	create(uri, "id BIGINT, p INT", parts, 1, props, 1);
	dl_write_options o = fx_opts(DL_WRITE_APPEND);
	int64_t v;
	WRITE_OK(&v, uri, "id BIGINT, p INT", "1,1;2,1;3,1;4,2;5,3", &o);
	o = fx_opts(DL_WRITE_OVERWRITE);
	o.replace_where = "id = 2";
	o.replace_where_check = false;
	WRITE_OK(&v, uri, "id BIGINT, p INT", "20,1", &o);
	o.replace_where_check = true;
	check_rows(uri, -1, NULL, "1,1;20,1;3,1;4,2;5,3");
	char *c = fx_commit(uri, v);
	assert_non_null(strstr(c, "\"deletionVector\":{\"storageType\":\"u\""));
	assert_non_null(strstr(c, "tightBounds\\\":false"));
	assert_non_null(strstr(c, "\"operationMetrics\":{\"numFiles\":\"1\",\"numOutputBytes\":"));
	assert_non_null(strstr(c, "\"numRemovedFiles\":\"0\",\"numRemovedBytes\":\"0\","
	                          "\"numAddedChangeFiles\":\"0\",\"numOutputRows\":\"1\","
	                          "\"numDeletedRows\":\"1\",\"numCopiedRows\":\"0\"}"));
	assert_null(strstr(c, "numAddedFiles"));
	dl_free(c);
	/* a partition predicate removes whole files; rows counted from the stats */
	o.replace_where = "p = 1";
	WRITE_OK(&v, uri, "id BIGINT, p INT", "10,1", &o);
	check_rows(uri, -1, NULL, "10,1;4,2;5,3");
	c = fx_commit(uri, v);
	assert_non_null(strstr(c, "\"numRemovedFiles\":\"2\""));
	assert_non_null(strstr(c, "\"numDeletedRows\":\"3\""));
	dl_free(c);
	dl_free(uri);
}

static void test_dynamic_partition_overwrite(void **state)
{
	(void)state;
	char *uri = table("dynamic");
	const char *parts[] = {"p"};
	create(uri, "id BIGINT, p STRING", parts, 1, NULL, 0);
	dl_write_options o = fx_opts(DL_WRITE_APPEND);
	int64_t v;
	WRITE_OK(&v, uri, "id BIGINT, p STRING", "1,a;2,b;3,NULL;4,c", &o);
	o = fx_opts(DL_WRITE_OVERWRITE);
	o.dynamic_partition_overwrite = true;
	WRITE_OK(&v, uri, "id BIGINT, p STRING", "10,b;11,NULL", &o);
	check_rows(uri, -1, NULL, "1,a;10,b;11,NULL;4,c");
	dl_free(uri);
}

static void test_idempotent(void **state)
{
	(void)state;
	char *uri = table("idempotent");
	dl_write_options o = fx_opts(DL_WRITE_APPEND);
	o.txn_app_id = "job-1";
	o.txn_version = 5;
	int64_t v;
	WRITE_OK(&v, uri, "id BIGINT", "1", &o);
	assert_int_equal(v, 0);
	char *c = fx_commit(uri, 0);
	assert_non_null(strstr(c, "{\"txn\":{\"appId\":\"job-1\",\"version\":5"));
	dl_free(c);
	WRITE_OK(&v, uri, "id BIGINT", "1", &o);
	assert_int_equal(v, -1);
	o.txn_version = 4;
	WRITE_OK(&v, uri, "id BIGINT", "1", &o);
	assert_int_equal(v, -1);
	o.txn_version = 6;
	WRITE_OK(&v, uri, "id BIGINT", "2", &o);
	assert_int_equal(v, 1);
	check_rows(uri, -1, NULL, "1;2");
	dl_free(uri);
}

static void test_file_limits_and_user_metadata(void **state)
{
	(void)state;
	char *uri = table("limits");
	dl_write_options o = fx_opts(DL_WRITE_APPEND);
	o.max_records_per_file = 2;
	o.user_metadata = "nightly load";
	o.data_change = false;
	int64_t v;
	WRITE_OK(&v, uri, "id BIGINT, s STRING", "1,a;2,b;3,c;4,d;5,e", &o);
	assert_int_equal(fx_count_parquet(uri), 3);
	char *c = fx_commit(uri, 0);
	assert_non_null(strstr(c, "\"userMetadata\":\"nightly load\""));
	assert_non_null(strstr(c, "\"dataChange\":false"));
	dl_free(c);
	check_rows(uri, -1, NULL, "1,a;2,b;3,c;4,d;5,e");
	dl_free(uri);
}

static void test_long_string_stats(void **state)
{
	(void)state;
	char *uri = table("stats");
	dl_write_options o = fx_opts(DL_WRITE_APPEND);
	int64_t v;
	WRITE_OK(&v, uri, "s STRING, ts TIMESTAMP, d DOUBLE",
	         "abcdefghijklmnopqrstuvwxyz0123456789,2024-01-01 00:00:00.123456,1.5;"
	         "b,NULL,-2;zzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzz,NULL,0", &o);
	char *c = fx_commit(uri, 0);
	assert_non_null(strstr(c, "\\\"minValues\\\":{\\\"s\\\":\\\"abcdefghijklmnopqrstuvwxyz012345\\\","
	                          "\\\"ts\\\":\\\"2024-01-01T00:00:00.123Z\\\",\\\"d\\\":-2}"));
	/* A cut max gets U+FFFD so it still bounds the value. */
	assert_non_null(strstr(c, "\\\"maxValues\\\":{\\\"s\\\":\\\"zzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzz\xEF\xBF\xBD\\\""));
	dl_free(c);
	dl_free(uri);
}

static void test_create_modes(void **state)
{
	(void)state;
	char *uri = table("create_modes");
	create(uri, "id BIGINT", NULL, 0, NULL, 0);
	dl_write_options o = fx_opts(DL_WRITE_APPEND);
	int64_t v;
	WRITE_OK(&v, uri, "id BIGINT", "1;2", &o);
	dl_create_options c = DL_CREATE_OPTIONS_INIT;
	c.schema_ddl = "x STRING";
	assert_int_equal(dl_create_table(&v, uri, &c), DL_EEXISTS);
	c.mode = DL_CREATE_IF_NOT_EXISTS;
	assert_int_equal(dl_create_table(&v, uri, &c), 0);
	assert_int_equal(v, -1);
	c.mode = DL_CREATE_OR_REPLACE;
	assert_int_equal(dl_create_table(&v, uri, &c), 0);
	assert_int_equal(v, 2);
	check_rows(uri, -1, NULL, "");
	check_rows(uri, 1, NULL, "1;2");
	char *c0 = fx_commit(uri, 0), *c2 = fx_commit(uri, 2);
	const char *id0 = strstr(c0, "\"metaData\":{\"id\":\""), *id2 = strstr(c2, "\"metaData\":{\"id\":\"");
	assert_non_null(id0);
	assert_non_null(id2);
	assert_memory_equal(id0, id2, 60); /* a replaced table keeps its id */
	dl_free(c0);
	dl_free(c2);
	/* Bad definitions. */
	char *bad = table("bad");
	c.mode = DL_CREATE_ERROR_IF_EXISTS;
	c.schema_ddl = "a INT, A STRING";
	assert_int_equal(dl_create_table(&v, bad, &c), DL_ESCHEMA);
	c.schema_ddl = "a INT";
	const char *parts[] = {"a"};
	c.partition_columns = parts;
	c.npartition_columns = 1;
	assert_int_equal(dl_create_table(&v, bad, &c), DL_ESCHEMA);
	c.npartition_columns = 0;
	const char *cn[] = {"c"}, *ce[] = {"nope > 1"};
	c.constraint_names = cn;
	c.constraint_exprs = ce;
	c.nconstraints = 1;
	assert_int_equal(dl_create_table(&v, bad, &c), DL_EINVALID);
	c.nconstraints = 0;
	c.schema_ddl = "a INT, b INT GENERATED ALWAYS AS (rand())";
	assert_int_equal(dl_create_table(&v, bad, &c), DL_EINVALID);
	c.schema_ddl = "`a b` INT";
	assert_int_equal(dl_create_table(&v, bad, &c), DL_ESCHEMA);
	assert_int_equal(fx_version(bad), -1);
	dl_free(bad);
	dl_free(uri);
}

static void test_column_mapping(void **state)
{
	(void)state;
	char *uri = table("column_mapping");
	const char *props[] = {"delta.columnMapping.mode", "name"};
	const char *parts[] = {"p q"};
	create(uri, "`the id` BIGINT, s STRUCT<`a b`: INT>, `p q` STRING", parts, 1, props, 1);
	char *c0 = fx_commit(uri, 0);
	assert_non_null(strstr(c0, "\"minReaderVersion\":2,\"minWriterVersion\":5"));
	assert_non_null(strstr(c0, "\"delta.columnMapping.maxColumnId\":\"4\""));
	assert_non_null(strstr(c0, "delta.columnMapping.physicalName\\\":\\\"col-"));
	dl_free(c0);
	dl_write_options o = fx_opts(DL_WRITE_APPEND);
	int64_t v;
	WRITE_OK(&v, uri, "`the id` BIGINT, `p q` STRING", "1,x;2,NULL", &o);
	check_rows(uri, -1, "the id,p q", "1,x;2,NULL");
	char *c1 = fx_commit(uri, 1);
	assert_null(strstr(c1, "the id")); /* stats and partition values use physical names */
	assert_non_null(strstr(c1, "\"partitionValues\":{\"col-"));
	dl_free(c1);
	/* A new column gets the next id. */
	o.merge_schema = true;
	WRITE_OK(&v, uri, "`the id` BIGINT, extra INT", "3,9", &o);
	char *c2 = fx_commit(uri, 2);
	assert_non_null(strstr(c2, "\"delta.columnMapping.maxColumnId\":\"5\""));
	dl_free(c2);
	check_rows(uri, -1, "the id,extra", "1,NULL;2,NULL;3,9");
	dl_free(uri);
}

static void test_append_only(void **state)
{
	(void)state;
	char *uri = table("append_only");
	const char *props[] = {"delta.appendOnly", "true"};
	create(uri, "id BIGINT", NULL, 0, props, 1);
	dl_write_options o = fx_opts(DL_WRITE_APPEND);
	int64_t v;
	WRITE_OK(&v, uri, "id BIGINT", "1", &o);
	o.mode = DL_WRITE_OVERWRITE;
	assert_int_equal(fx_write(&v, uri, "id BIGINT", "2", &o) < 0, 1);
	assert_non_null(strstr(dl_error_last()->message, "appendOnly"));
	assert_int_equal(fx_version(uri), 1);
	assert_int_equal(fx_count_parquet(uri), 1);
	dl_free(uri);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_create_and_append),
		cmocka_unit_test(test_modes),
		cmocka_unit_test(test_schema_enforcement),
		cmocka_unit_test(test_overwrite_schema),
		cmocka_unit_test(test_not_null_and_check),
		cmocka_unit_test(test_generated_columns),
		cmocka_unit_test(test_identity_and_defaults),
		cmocka_unit_test(test_replace_where),
		cmocka_unit_test(test_replace_where_deletion_vectors),
		cmocka_unit_test(test_dynamic_partition_overwrite),
		cmocka_unit_test(test_idempotent),
		cmocka_unit_test(test_file_limits_and_user_metadata),
		cmocka_unit_test(test_long_string_stats),
		cmocka_unit_test(test_create_modes),
		cmocka_unit_test(test_column_mapping),
		cmocka_unit_test(test_append_only),
	};
	return cmocka_run_group_tests(tests, fx_setup_tmpdir, fx_teardown_tmpdir);
}
