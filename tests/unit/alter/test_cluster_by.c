/* ALTER TABLE t CLUSTER BY (...) | NONE (dl_alter_cluster_by) as Spark's
 * AlterTableClusterByDeltaCommand: a clustered table's columns changed, a
 * non-clustered unpartitioned table made clustered (protocol upgraded),
 * NONE keeping the table clustered by nothing, NONE on a non-clustered
 * table committing nothing, partitioned tables refused, and the
 * "CLUSTER BY" commit with old/newClusteringColumns. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include "deltalake/alter.h"
#include "deltalake/history.h"
#include "deltalake/write.h"
#include "log/protocol.h"
#include "log/snapshot.h"
#include "log/table_features.h"
#include "../ops/ops_fixture.h"

static char *table(const char *name)
{
	return fx_table(g_dir, name);
}

static void create(const char *uri, const char *ddl, const char *const *cluster, int ncluster,
                   const char *part)
{
	dl_create_options c = DL_CREATE_OPTIONS_INIT;
	c.schema_ddl = ddl;
	c.cluster_by = cluster;
	c.ncluster_by = ncluster;
	const char *parts[] = {part};
	if (part) {
		c.partition_columns = parts;
		c.npartition_columns = 1;
	}
	int64_t v;
	if (dl_create_table(&v, uri, &c) < 0) fail_msg("create: %s", dl_error_last()->message);
}

static char *detail_clustering(const char *uri)
{
	dl_snapshot *s;
	if (dl_snapshot_open(&s, uri, NULL) < 0) fail_msg("open: %s", dl_error_last()->message);
	dl_detail *d;
	const dl_table_detail *td;
	assert_int_equal(dl_detail_open(&d, &td, s), 0);
	char *out = dl_strdup(td->clustering_columns);
	dl_detail_free(d);
	dl_snapshot_free(s);
	return out;
}

static void expect_clustering(const char *uri, const char *want)
{
	char *got = detail_clustering(uri);
	assert_string_equal(got, want);
	dl_free(got);
}

static int alter(int64_t *v, const char *uri, const char *const *cols, size_t n)
{
	return dl_alter_cluster_by(v, uri, cols, n, NULL);
}

static void test_change_columns(void **state)
{
	(void)state;
	char *uri = table("t1");
	const char *a[] = {"a"};
	create(uri, "a INT, b STRING, c DATE", a, 1, NULL);
	int64_t v;
	const char *ba[] = {"b", "a"};
	if (alter(&v, uri, ba, 2) < 0) fail_msg("alter: %s", dl_error_last()->message);
	assert_int_equal(v, 1);
	char *log = fx_commit(uri, 1);
	assert_non_null(strstr(log, "\"operation\":\"CLUSTER BY\""));
	assert_non_null(strstr(log, "\"operationParameters\":{\"oldClusteringColumns\":\"a\","
	                            "\"newClusteringColumns\":\"b,a\"}"));
	assert_non_null(strstr(log, "\"configuration\":\"{\\\"clusteringColumns\\\":[[\\\"b\\\"],[\\\"a\\\"]]}\""));
	/* already clustered: no protocol or metaData action */
	assert_null(strstr(log, "\"protocol\""));
	assert_null(strstr(log, "\"metaData\""));
	dl_free(log);
	expect_clustering(uri, "[\"b\",\"a\"]");
	/* NONE: the domain stays, with no columns */
	assert_int_equal(alter(&v, uri, NULL, 0), 0);
	assert_int_equal(v, 2);
	log = fx_commit(uri, 2);
	assert_non_null(strstr(log, "\"oldClusteringColumns\":\"b,a\",\"newClusteringColumns\":\"\""));
	assert_non_null(strstr(log, "\\\"clusteringColumns\\\":[]"));
	dl_free(log);
	expect_clustering(uri, "[]");
	dl_snapshot *s;
	assert_int_equal(dl_snapshot_open(&s, uri, NULL), 0);
	assert_string_equal(dl_snapshot_domain(s, "delta.clustering"), "{\"clusteringColumns\":[]}");
	dl_snapshot_free(s);
	/* and clustered again from nothing */
	const char *c[] = {"c"};
	assert_int_equal(alter(&v, uri, c, 1), 0);
	log = fx_commit(uri, 3);
	assert_non_null(strstr(log, "\"oldClusteringColumns\":\"\",\"newClusteringColumns\":\"c\""));
	dl_free(log);
	expect_clustering(uri, "[\"c\"]");
	dl_free(uri);
}

static void test_enable_on_plain_table(void **state)
{
	(void)state;
	char *uri = table("t2");
	create(uri, "a INT, b STRING", NULL, 0, NULL);
	int64_t v;
	/* NONE on a table that is not clustered: skipped, nothing committed */
	assert_int_equal(alter(&v, uri, NULL, 0), 0);
	assert_int_equal(v, -1);
	assert_int_equal(fx_version(uri), 0);
	const char *a[] = {"a"};
	if (alter(&v, uri, a, 1) < 0) fail_msg("alter: %s", dl_error_last()->message);
	assert_int_equal(v, 1);
	dl_snapshot *s;
	assert_int_equal(dl_snapshot_open(&s, uri, NULL), 0);
	const dl_protocol *p = dl_snapshot_state(s)->protocol;
	assert_int_equal(p->min_writer_version, 7);
	assert_true(dl_protocol_has(p, DL_FEATURE_CLUSTERING));
	assert_true(dl_protocol_has(p, DL_FEATURE_DOMAIN_METADATA));
	/* the legacy features of (1,2) stay supported */
	assert_true(dl_protocol_has(p, DL_FEATURE_APPEND_ONLY));
	assert_true(dl_protocol_has(p, DL_FEATURE_INVARIANTS));
	/* the feature property asked only for the protocol */
	assert_int_equal(dl_snapshot_property_count(s), 0);
	dl_snapshot_free(s);
	char *log = fx_commit(uri, 1);
	assert_non_null(strstr(log, "\"oldClusteringColumns\":\"\",\"newClusteringColumns\":\"a\""));
	assert_null(strstr(log, "delta.feature"));
	dl_free(log);
	expect_clustering(uri, "[\"a\"]");
	dl_free(uri);
}

static void test_refusals(void **state)
{
	(void)state;
	char *uri = table("t3");
	create(uri, "a INT, p STRING", NULL, 0, "p");
	int64_t v;
	const char *a[] = {"a"};
	assert_int_equal(alter(&v, uri, a, 1), DL_EINVALID);
	assert_string_equal(dl_error_last()->klass, "DELTA_ALTER_TABLE_CLUSTER_BY_ON_PARTITIONED_TABLE_NOT_ALLOWED");
	assert_int_equal(alter(&v, uri, NULL, 0), DL_EINVALID);
	assert_string_equal(dl_error_last()->klass, "DELTA_ALTER_TABLE_CLUSTER_BY_ON_PARTITIONED_TABLE_NOT_ALLOWED");
	assert_int_equal(fx_version(uri), 0);
	char *u2 = table("t4");
	create(u2, "a INT, b INT, c INT, d INT, e INT, f BOOLEAN", a, 1, NULL);
	const char *five[] = {"a", "b", "c", "d", "e"};
	assert_int_equal(alter(&v, u2, five, 5), DL_EINVALID);
	assert_string_equal(dl_error_last()->klass, "DELTA_CLUSTER_BY_INVALID_NUM_COLUMNS");
	const char *f[] = {"f"};
	assert_int_equal(alter(&v, u2, f, 1), DL_EINVALID);
	assert_string_equal(dl_error_last()->klass, "DELTA_CLUSTERING_COLUMN_MISSING_STATS");
	const char *nope[] = {"nope"};
	assert_int_equal(alter(&v, u2, nope, 1), DL_EINVALID);
	assert_string_equal(dl_error_last()->klass, "DELTA_COLUMN_NOT_FOUND_IN_SCHEMA");
	assert_int_equal(fx_version(u2), 0);
	expect_clustering(u2, "[\"a\"]");
	char *missing = table("absent");
	assert_int_equal(alter(&v, missing, a, 1), DL_ENOTFOUND);
	dl_free(missing);
	dl_free(u2);
	dl_free(uri);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_change_columns),
		cmocka_unit_test(test_enable_on_plain_table),
		cmocka_unit_test(test_refusals),
	};
	return cmocka_run_group_tests(tests, fx_setup_tmpdir, fx_teardown_tmpdir);
}
