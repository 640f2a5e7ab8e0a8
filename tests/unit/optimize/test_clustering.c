/* Liquid clustering's table state: name parsing, the delta.clustering
 * domain JSON (physical names under column mapping) and Spark's CLUSTER BY
 * checks. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <string.h>
#include "log/schema.h"
#include "optimize/clustering.h"
#include "util/buf.h"
#include "util/error.h"
#include "util/mem.h"

#define F(n, t) "{\"name\":\"" n "\",\"type\":" t ",\"nullable\":true,\"metadata\":{}}"
#define FM(n, t, phys, id)                                                                         \
	"{\"name\":\"" n "\",\"type\":" t ",\"nullable\":true,\"metadata\":{\"delta.columnMapping.id\":" id \
	",\"delta.columnMapping.physicalName\":\"" phys "\"}}"

static dl_type *schema_of(const char *json)
{
	dl_type *t = NULL;
	assert_int_equal(dl_schema_parse(&t, json, strlen(json)), 0);
	return t;
}

static void names_split_and_join(void **state)
{
	(void)state;
	char **p;
	int n;
	assert_int_equal(dl_column_name_split(&p, &n, "s.`x.y`.`a``b`"), 0);
	assert_int_equal(n, 3);
	assert_string_equal(p[0], "s");
	assert_string_equal(p[1], "x.y");
	assert_string_equal(p[2], "a`b");
	dl_buf b = DL_BUF_INIT;
	assert_int_equal(dl_column_name_join(&b, (const char *const *)p, n), 0);
	assert_string_equal(b.data, "s.`x.y`.`a``b`");
	dl_buf_free(&b);
	for (int i = 0; i < n; i++) dl_free(p[i]);
	dl_free(p);
	assert_int_equal(dl_column_name_split(&p, &n, "`open"), DL_EINVALID);
	assert_int_equal(dl_column_name_split(&p, &n, "a..b"), DL_EINVALID);
}

static void domain_round_trip_with_column_mapping(void **state)
{
	(void)state;
	dl_type *s = schema_of("{\"type\":\"struct\",\"fields\":[" FM("a", "\"integer\"", "col-1", "1") ","
	                       FM("s", "{\"type\":\"struct\",\"fields\":[" FM("b", "\"string\"", "col-3", "3") "]}",
	                          "col-2", "2") "]}");
	const char *names[] = {"A", "s.b"};
	dl_clustering c;
	assert_int_equal(dl_clustering_resolve(&c, names, 2, s, DL_CM_NAME), 0);
	assert_int_equal(c.n, 2);
	assert_string_equal(c.cols[0].name, "a"); /* the schema's spelling */
	assert_string_equal(c.cols[1].name, "s.b");
	dl_buf j = DL_BUF_INIT;
	assert_int_equal(dl_clustering_domain_json(&j, &c), 0);
	assert_string_equal(j.data, "{\"clusteringColumns\":[[\"col-1\"],[\"col-2\",\"col-3\"]]}");
	dl_clustering back;
	assert_int_equal(dl_clustering_parse(&back, j.data, s, DL_CM_NAME), 0);
	assert_int_equal(back.n, 2);
	assert_string_equal(back.cols[1].name, "s.b");
	assert_int_equal(back.cols[1].type->id, DL_TYPE_STRING);
	dl_clustering_free(&back);
	/* Without column mapping the physical names are the logical ones. */
	dl_clustering plain;
	assert_int_equal(dl_clustering_resolve(&plain, names, 2, s, DL_CM_NONE), 0);
	dl_buf_clear(&j);
	assert_int_equal(dl_clustering_domain_json(&j, &plain), 0);
	assert_string_equal(j.data, "{\"clusteringColumns\":[[\"a\"],[\"s\",\"b\"]]}");
	dl_clustering_free(&plain);
	/* A domain naming a column the schema lacks is corrupt. */
	assert_int_equal(dl_clustering_parse(&back, "{\"clusteringColumns\":[[\"zz\"]]}", s, DL_CM_NAME),
	                 DL_ECORRUPT);
	assert_int_equal(dl_clustering_parse(&back, "{\"clusteringColumns\":5}", s, DL_CM_NAME), DL_ECORRUPT);
	/* CLUSTER BY NONE: an empty list. */
	assert_int_equal(dl_clustering_parse(&back, "{\"clusteringColumns\":[]}", s, DL_CM_NAME), 0);
	assert_int_equal(back.n, 0);
	dl_clustering_free(&back);
	dl_buf_free(&j);
	dl_clustering_free(&c);
	dl_type_unref(s);
}

static void unknown_and_duplicate_columns(void **state)
{
	(void)state;
	dl_type *s = schema_of("{\"type\":\"struct\",\"fields\":[" F("a", "\"integer\"") "]}");
	dl_clustering c;
	const char *bad[] = {"nope"};
	assert_int_equal(dl_clustering_resolve(&c, bad, 1, s, DL_CM_NONE), DL_EINVALID);
	assert_string_equal(dl_error_last()->klass, "DELTA_COLUMN_NOT_FOUND_IN_SCHEMA");
	assert_non_null(strstr(dl_error_last()->message, "Couldn't find column nope in:\nroot\n |-- a: integer"));
	const char *dup[] = {"a", "A"};
	assert_int_equal(dl_clustering_resolve(&c, dup, 2, s, DL_CM_NONE), DL_EINVALID);
	assert_string_equal(dl_error_last()->klass, "DELTA_DUPLICATE_COLUMNS_FOUND");
	dl_type_unref(s);
}

static void spark_checks(void **state)
{
	(void)state;
	dl_type *s = schema_of("{\"type\":\"struct\",\"fields\":[" F("a", "\"integer\"") "," F("b", "\"long\"") ","
	                       F("c", "\"string\"") "," F("d", "\"date\"") "," F("e", "\"double\"") ","
	                       F("f", "\"boolean\"") "," F("g", "{\"type\":\"map\",\"keyType\":\"integer\","
	                                                "\"valueType\":\"integer\",\"valueContainsNull\":true}") "]}");
	dl_table_properties props;
	dl_table_properties_defaults(&props);
	dl_clustering c;

	const char *five[] = {"a", "b", "c", "d", "e"};
	assert_int_equal(dl_clustering_resolve(&c, five, 5, s, DL_CM_NONE), 0);
	assert_int_equal(dl_clustering_validate(&c, s, &props, NULL, 0), DL_EINVALID);
	assert_string_equal(dl_error_last()->klass, "DELTA_CLUSTER_BY_INVALID_NUM_COLUMNS");
	assert_non_null(strstr(dl_error_last()->message, "up to 4 clustering columns, but the table has 5"));
	dl_clustering_free(&c);

	const char *four[] = {"a", "b", "c", "d"};
	assert_int_equal(dl_clustering_resolve(&c, four, 4, s, DL_CM_NONE), 0);
	assert_int_equal(dl_clustering_validate(&c, s, &props, NULL, 0), 0);
	const char *pc[] = {"e"};
	assert_int_equal(dl_clustering_validate(&c, s, &props, pc, 1), DL_EINVALID);
	assert_string_equal(dl_error_last()->klass, "DELTA_CLUSTER_BY_WITH_PARTITIONED_BY");
	/* Outside the first N indexed columns: no stats. */
	props.data_skipping_num_indexed_cols = 2;
	assert_int_equal(dl_clustering_validate(&c, s, &props, NULL, 0), DL_EINVALID);
	assert_string_equal(dl_error_last()->klass, "DELTA_CLUSTERING_COLUMN_MISSING_STATS");
	assert_non_null(strstr(dl_error_last()->message, "'c, d'"));
	/* dataSkippingStatsColumns overrides the count. */
	props.data_skipping_stats_columns = "c, d,a,b";
	assert_int_equal(dl_clustering_validate(&c, s, &props, NULL, 0), 0);
	props.data_skipping_stats_columns = "c";
	assert_int_equal(dl_clustering_validate(&c, s, &props, NULL, 0), DL_EINVALID);
	dl_clustering_free(&c);
	dl_table_properties_defaults(&props);

	/* Types without min/max stats. */
	const char *boolean[] = {"f"};
	assert_int_equal(dl_clustering_resolve(&c, boolean, 1, s, DL_CM_NONE), 0);
	assert_int_equal(dl_clustering_validate(&c, s, &props, NULL, 0), DL_EINVALID);
	assert_string_equal(dl_error_last()->klass, "DELTA_CLUSTERING_COLUMN_MISSING_STATS");
	dl_clustering_free(&c);
	const char *map[] = {"g"};
	assert_int_equal(dl_clustering_resolve(&c, map, 1, s, DL_CM_NONE), 0);
	assert_int_equal(dl_clustering_validate(&c, s, &props, NULL, 0), DL_EINVALID);
	assert_non_null(strstr(dl_error_last()->message, " |-- g: map (nullable = true)\n |    |-- key: integer\n"));
	dl_clustering_free(&c);
	dl_type_unref(s);
}

static void nested_leaves_count_toward_indexed_cols(void **state)
{
	(void)state;
	dl_type *s = schema_of("{\"type\":\"struct\",\"fields\":[" F("p", "\"string\"") ","
	                       F("s", "{\"type\":\"struct\",\"fields\":[" F("x", "\"integer\"") "," F("y", "\"integer\"") "]}")
	                       "," F("z", "\"integer\"") "]}");
	dl_table_properties props;
	dl_table_properties_defaults(&props);
	props.data_skipping_num_indexed_cols = 2;
	const char *pc[] = {"p"};
	const char *sx[] = {"s", "x"}, *sy[] = {"s", "y"}, *z[] = {"z"}, *p[] = {"p"};
	/* p is a partition column: not counted, and without stats. */
	assert_true(dl_column_has_stats(s, &props, pc, 1, sx, 2));
	assert_true(dl_column_has_stats(s, &props, pc, 1, sy, 2));
	assert_false(dl_column_has_stats(s, &props, pc, 1, z, 1));
	assert_false(dl_column_has_stats(s, &props, pc, 1, p, 1));
	props.data_skipping_num_indexed_cols = -1;
	assert_true(dl_column_has_stats(s, &props, pc, 1, z, 1));
	/* Naming a struct in dataSkippingStatsColumns indexes its leaves. */
	props.data_skipping_stats_columns = "s";
	assert_true(dl_column_has_stats(s, &props, pc, 1, sy, 2));
	assert_false(dl_column_has_stats(s, &props, pc, 1, z, 1));
	dl_type_unref(s);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(names_split_and_join),
		cmocka_unit_test(domain_round_trip_with_column_mapping),
		cmocka_unit_test(unknown_and_duplicate_columns),
		cmocka_unit_test(spark_checks),
		cmocka_unit_test(nested_leaves_count_toward_indexed_cols),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
