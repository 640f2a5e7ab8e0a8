/* Liquid clustering's table definition (CREATE TABLE ... CLUSTER BY through
 * dl_create_table and dl_write): the delta.clustering domain with physical
 * names, the clustering and domainMetadata writer features, operation
 * parameter clusterBy, Spark's refusals (which leave no table behind), a
 * replace without CLUSTER BY removing the domain, and appends naming the
 * clustering columns. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include "deltalake/history.h"
#include "deltalake/write.h"
#include "log/protocol.h"
#include "log/schema.h"
#include "log/snapshot.h"
#include "log/table_features.h"
#include "ops_fixture.h"

static char *table(const char *name)
{
	return fx_table(g_dir, name);
}

static int create(const char *uri, const char *ddl, const char *const *cluster, int ncluster,
                  const char *const *kv, int nkv)
{
	dl_create_options c = DL_CREATE_OPTIONS_INIT;
	c.schema_ddl = ddl;
	c.cluster_by = cluster;
	c.ncluster_by = ncluster;
	const char *keys[8], *vals[8];
	for (int i = 0; i < nkv; i++) {
		keys[i] = kv[2 * i];
		vals[i] = kv[2 * i + 1];
	}
	c.property_keys = keys;
	c.property_values = vals;
	c.nproperties = nkv;
	int64_t v;
	return dl_create_table(&v, uri, &c);
}

static dl_snapshot *open_snap(const char *uri)
{
	dl_snapshot *s;
	if (dl_snapshot_open(&s, uri, NULL) < 0) fail_msg("open %s: %s", uri, dl_error_last()->message);
	return s;
}

static void assert_clustering(const char *uri, const char *want_json)
{
	dl_snapshot *s = open_snap(uri);
	dl_detail *d;
	const dl_table_detail *td;
	assert_int_equal(dl_detail_open(&d, &td, s), 0);
	assert_string_equal(td->clustering_columns, want_json);
	dl_detail_free(d);
	dl_snapshot_free(s);
}

static void expect_class(int rc, int code, const char *klass)
{
	assert_int_equal(rc, code);
	assert_string_equal(dl_error_last()->klass, klass);
}

static bool dir_exists(const char *p)
{
	struct stat st;
	return stat(p, &st) == 0;
}

static void test_create_clustered(void **state)
{
	(void)state;
	char *uri = table("c1");
	const char *cols[] = {"id", "s.a"};
	if (create(uri, "id BIGINT, s STRUCT<a: INT, b: STRING>, flag BOOLEAN", cols, 2, NULL, 0) < 0)
		fail_msg("create: %s", dl_error_last()->message);
	char *log = fx_commit(uri, 0);
	assert_non_null(log);
	/* exactly the domain Spark writes: one array of name parts per column */
	assert_non_null(strstr(log, "{\"domainMetadata\":{\"domain\":\"delta.clustering\",\"configuration\":"
	                            "\"{\\\"clusteringColumns\\\":[[\\\"id\\\"],[\\\"s\\\",\\\"a\\\"]]}\","
	                            "\"removed\":false}}"));
	assert_non_null(strstr(log, "\"clusterBy\":\"[\\\"id\\\",\\\"s.a\\\"]\""));
	/* the feature property only asked for the protocol */
	assert_null(strstr(log, "delta.feature.clustering"));
	dl_free(log);
	dl_snapshot *s = open_snap(uri);
	const dl_protocol *p = dl_snapshot_state(s)->protocol;
	assert_int_equal(p->min_writer_version, 7);
	assert_int_equal(p->min_reader_version, 1);
	assert_true(dl_protocol_has(p, DL_FEATURE_CLUSTERING));
	assert_true(dl_protocol_has(p, DL_FEATURE_DOMAIN_METADATA));
	assert_string_equal(dl_snapshot_domain(s, "delta.clustering"), "{\"clusteringColumns\":[[\"id\"],[\"s\",\"a\"]]}");
	dl_snapshot_free(s);
	assert_clustering(uri, "[\"id\",\"s.a\"]");
	/* an unclustered table says clusterBy [] (DeltaOperations.CreateTable) */
	char *plain = table("c1plain");
	assert_int_equal(create(plain, "id BIGINT", NULL, 0, NULL, 0), 0);
	log = fx_commit(plain, 0);
	assert_non_null(strstr(log, "\"clusterBy\":\"[]\""));
	assert_null(strstr(log, "domainMetadata"));
	dl_free(log);
	assert_clustering(plain, "[]");
	dl_free(plain);
	dl_free(uri);
}

static void test_refusals(void **state)
{
	(void)state;
	char *uri = table("bad");
	const char *five[] = {"a", "b", "c", "d", "e"};
	expect_class(create(uri, "a INT, b INT, c INT, d INT, e INT", five, 5, NULL, 0), DL_EINVALID,
	             "DELTA_CLUSTER_BY_INVALID_NUM_COLUMNS");
	assert_non_null(strstr(dl_error_last()->message, "up to 4"));
	const char *flag[] = {"flag"};
	expect_class(create(uri, "id BIGINT, flag BOOLEAN", flag, 1, NULL, 0), DL_EINVALID,
	             "DELTA_CLUSTERING_COLUMN_MISSING_STATS");
	const char *nope[] = {"nope"};
	expect_class(create(uri, "id BIGINT", nope, 1, NULL, 0), DL_EINVALID, "DELTA_COLUMN_NOT_FOUND_IN_SCHEMA");
	/* beyond delta.dataSkippingNumIndexedCols: no stats */
	const char *b[] = {"b"};
	const char *one[] = {"delta.dataSkippingNumIndexedCols", "1"};
	expect_class(create(uri, "a INT, b INT", b, 1, one, 1), DL_EINVALID, "DELTA_CLUSTERING_COLUMN_MISSING_STATS");
	/* the feature cannot be asked for through properties, clustered or not */
	const char *feat[] = {"delta.feature.clustering", "supported"};
	expect_class(create(uri, "a INT", NULL, 0, feat, 1), DL_EINVALID,
	             "DELTA_CREATE_TABLE_SET_CLUSTERING_TABLE_FEATURE_NOT_ALLOWED");
	const char *a[] = {"a"};
	expect_class(create(uri, "a INT", a, 1, feat, 1), DL_EINVALID,
	             "DELTA_CREATE_TABLE_SET_CLUSTERING_TABLE_FEATURE_NOT_ALLOWED");
	dl_create_options c = DL_CREATE_OPTIONS_INIT;
	c.schema_ddl = "a INT, p STRING";
	const char *parts[] = {"p"};
	c.partition_columns = parts;
	c.npartition_columns = 1;
	c.cluster_by = a;
	c.ncluster_by = 1;
	int64_t v;
	expect_class(dl_create_table(&v, uri, &c), DL_EINVALID, "DELTA_CLUSTER_BY_WITH_PARTITIONED_BY");
	/* nothing was committed by any of them */
	char logdir[1024];
	snprintf(logdir, sizeof logdir, "%s/_delta_log/00000000000000000000.json", uri);
	assert_false(dir_exists(logdir));
	dl_free(uri);
}

static void test_column_mapping(void **state)
{
	(void)state;
	char *uri = table("cm");
	const char *cols[] = {"s.a", "id"};
	const char *cm[] = {"delta.columnMapping.mode", "name"};
	if (create(uri, "id BIGINT, s STRUCT<a: INT>", cols, 2, cm, 1) < 0)
		fail_msg("create: %s", dl_error_last()->message);
	dl_snapshot *s = open_snap(uri);
	/* the domain names the physical names of the schema */
	const dl_type *schema = dl_snapshot_schema(s);
	dl_arena a = DL_ARENA_INIT;
	const char *pid, *ps, *pa;
	assert_int_equal(dl_field_physical_name(&schema->children[0], DL_CM_NAME, &a, &pid), 0);
	assert_int_equal(dl_field_physical_name(&schema->children[1], DL_CM_NAME, &a, &ps), 0);
	assert_int_equal(dl_field_physical_name(&schema->children[1].type->children[0], DL_CM_NAME, &a, &pa), 0);
	assert_int_equal(strncmp(pid, "col-", 4), 0);
	char want[512];
	snprintf(want, sizeof want, "{\"clusteringColumns\":[[\"%s\",\"%s\"],[\"%s\"]]}", ps, pa, pid);
	assert_string_equal(dl_snapshot_domain(s, "delta.clustering"), want);
	dl_arena_free(&a);
	dl_snapshot_free(s);
	/* detail shows logical names */
	assert_clustering(uri, "[\"s.a\",\"id\"]");
	dl_free(uri);
}

static void test_replace(void **state)
{
	(void)state;
	char *uri = table("rep");
	const char *cols[] = {"a"};
	assert_int_equal(create(uri, "a INT, b STRING", cols, 1, NULL, 0), 0);
	/* replaced by a table without CLUSTER BY: the domain stays, with no
	 * columns (ClusteredTableUtils.getDomainMetadataFromTransaction; the
	 * replace removes only domains the new table does not define); the
	 * protocol is never downgraded */
	dl_create_options c = DL_CREATE_OPTIONS_INIT;
	c.schema_ddl = "a INT, b STRING";
	c.mode = DL_CREATE_OR_REPLACE;
	int64_t v;
	assert_int_equal(dl_create_table(&v, uri, &c), 0);
	assert_int_equal(v, 1);
	char *log = fx_commit(uri, 1);
	assert_non_null(strstr(log, "\"domain\":\"delta.clustering\""));
	assert_non_null(strstr(log, "\"configuration\":\"{\\\"clusteringColumns\\\":[]}\",\"removed\":false"));
	assert_non_null(strstr(log, "\"clusterBy\":\"[]\""));
	dl_free(log);
	dl_snapshot *s = open_snap(uri);
	assert_string_equal(dl_snapshot_domain(s, "delta.clustering"), "{\"clusteringColumns\":[]}");
	assert_true(dl_protocol_has(dl_snapshot_state(s)->protocol, DL_FEATURE_CLUSTERING));
	dl_snapshot_free(s);
	assert_clustering(uri, "[]");
	/* and clustered again by b */
	const char *b[] = {"b"};
	c.cluster_by = b;
	c.ncluster_by = 1;
	assert_int_equal(dl_create_table(&v, uri, &c), 0);
	assert_clustering(uri, "[\"b\"]");
	dl_free(uri);
}

static void test_write_creates_clustered(void **state)
{
	(void)state;
	char *uri = table("ctas");
	const char *cols[] = {"id"};
	dl_write_options o = fx_opts(DL_WRITE_ERROR_IF_EXISTS);
	o.cluster_by = cols;
	o.ncluster_by = 1;
	int64_t v;
	if (fx_write(&v, uri, "id BIGINT, name STRING", "1,a;2,b;3,c", &o) < 0)
		fail_msg("write: %s", dl_error_last()->message);
	assert_int_equal(v, 0);
	assert_clustering(uri, "[\"id\"]");
	char *rows = fx_read(uri, -1, NULL);
	assert_string_equal(rows, "1,a;2,b;3,c");
	dl_free(rows);
	/* an append naming other clustering columns is refused
	 * (validateClusteringColumnsInSnapshot); the same ones are fine */
	dl_write_options ap = fx_opts(DL_WRITE_APPEND);
	const char *other[] = {"name"};
	ap.cluster_by = other;
	ap.ncluster_by = 1;
	expect_class(fx_write(&v, uri, "id BIGINT, name STRING", "4,d", &ap), DL_EINVALID,
	             "DELTA_CLUSTERING_COLUMNS_MISMATCH");
	assert_int_equal(fx_version(uri), 0);
	ap.cluster_by = cols;
	assert_int_equal(fx_write(&v, uri, "id BIGINT, name STRING", "4,d", &ap), 0);
	assert_int_equal(v, 1);
	rows = fx_read(uri, -1, NULL);
	assert_string_equal(rows, "1,a;2,b;3,c;4,d");
	dl_free(rows);
	/* a write creating a table refuses what CREATE refuses */
	char *bad = table("ctas_bad");
	const char *flag[] = {"flag"};
	o.cluster_by = flag;
	expect_class(fx_write(&v, bad, "id BIGINT, flag BOOLEAN", "1,true", &o), DL_EINVALID,
	             "DELTA_CLUSTERING_COLUMN_MISSING_STATS");
	assert_int_equal(fx_count_parquet(bad), 0);
	dl_free(bad);
	dl_free(uri);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_create_clustered),
		cmocka_unit_test(test_refusals),
		cmocka_unit_test(test_column_mapping),
		cmocka_unit_test(test_replace),
		cmocka_unit_test(test_write_creates_clustered),
	};
	return cmocka_run_group_tests(tests, fx_setup_tmpdir, fx_teardown_tmpdir);
}
