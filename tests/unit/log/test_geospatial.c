/* Geospatial types (protocol RFC geospatial-types): geometry(<crs>) and
 * geography(<crs>, <algorithm>) in the schema JSON, the annotated binary
 * type they become, and the errors for malformed spellings. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <string.h>
#include "columnar/geo_type.h"
#include "expr/expr.h"
#include "log/schema.h"
#include "log/stats.h"
#include "util/error.h"

static char *schema_with(const char *type)
{
	static char buf[512];
	snprintf(buf, sizeof buf,
	         "{\"type\":\"struct\",\"fields\":[{\"name\":\"g\",\"type\":\"%s\",\"nullable\":true,"
	         "\"metadata\":{}},{\"name\":\"b\",\"type\":\"binary\",\"nullable\":true,\"metadata\":{}}]}",
	         type);
	return buf;
}

/* Every accepted spelling serializes back byte for byte. */
static void round_trip(void **state)
{
	(void)state;
	const char *types[] = {
		"geometry(OGC:CRS84)", "geography(OGC:CRS84, spherical)", "geometry(EPSG:3857)",
		"geometry(srid:4326)", "geography(projjson:myCrsProperty, karney)", "geometry",
		"geography", "geography(OGC:CRS84)", "geography(EPSG:4326,vincenty)",
		"geography(OGC:CRS84, THOMAS)", "geography(OGC:CRS84, andoyer)",
	};
	for (size_t i = 0; i < sizeof types / sizeof types[0]; i++) {
		const char *js = schema_with(types[i]);
		dl_type *t;
		assert_int_equal(dl_schema_parse(&t, js, strlen(js)), 0);
		dl_type *g = t->children[0].type;
		assert_int_equal(g->id, DL_TYPE_BINARY);
		assert_string_equal(g->geo, types[i]);
		assert_null(t->children[1].type->geo); /* plain binary stays plain */
		dl_buf b = DL_BUF_INIT;
		assert_int_equal(dl_schema_to_json(&b, t), 0);
		assert_string_equal(b.data, js);
		dl_buf_free(&b);
		dl_type_unref(t);
	}
}

static void parts_and_defaults(void **state)
{
	(void)state;
	dl_geo_info g;
	assert_int_equal(dl_geo_parse(&g, "geometry"), 0);
	assert_int_equal(g.kind, DL_GEO_GEOMETRY);
	assert_false(g.has_crs);
	assert_int_equal((int)g.crs_len, 9);
	assert_memory_equal(g.crs, "OGC:CRS84", 9);
	assert_int_equal(dl_geo_parse(&g, "geography(EPSG:4326, Karney)"), 0);
	assert_int_equal(g.kind, DL_GEO_GEOGRAPHY);
	assert_true(g.has_crs && g.has_algorithm);
	assert_int_equal((int)g.crs_len, 9);
	assert_memory_equal(g.crs, "EPSG:4326", 9);
	assert_int_equal(g.algorithm, DL_GEO_KARNEY);
	assert_int_equal(dl_geo_parse(&g, "geography(OGC:CRS84)"), 0);
	assert_false(g.has_algorithm);
	assert_int_equal(g.algorithm, DL_GEO_SPHERICAL);
	assert_true(dl_geo_is_geo_name("geometry(x"));
	assert_false(dl_geo_is_geo_name("geometryx"));
	assert_false(dl_geo_is_geo_name("binary"));
}

static void malformed(void **state)
{
	(void)state;
	const char *bad[] = {
		"geometry()", "geometry(OGC:CRS84", "geometry(OGC:CRS84) ", "geometry(CRS84)",
		"geometry(:CRS84)", "geometry(OGC:)", "geometry(OGC:CRS84, spherical)",
		"geography(OGC:CRS84, flat)", "geography(OGC:CRS84, spherical, karney)",
		"geography(srid:abc)", "geography(srid:)", "geometry(O G C:CRS84)", "geography(,spherical)",
		"geometry(OGC:CRS84)x", "geometry(OGC:CR\\u00e9)", "geometry(OGC:CRS\\t84)",
		"geometry(OGC:\\\"x)",
	};
	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		const char *js = schema_with(bad[i]);
		dl_type *t = NULL;
		assert_int_equal(dl_schema_parse(&t, js, strlen(js)), DL_ECORRUPT);
		assert_null(t);
		/* the message names the column and the bad type */
		assert_non_null(strstr(dl_error_last()->message, "'g'"));
		assert_non_null(strstr(dl_error_last()->message, "geo"));
	}
	/* "geometryx" is not a geo name: an unknown type as before */
	const char *js = schema_with("geometryx");
	dl_type *t = NULL;
	assert_int_equal(dl_schema_parse(&t, js, strlen(js)), DL_EUNSUPPORTED);
}

static void equality_names_and_sql(void **state)
{
	(void)state;
	dl_type *a, *b, *c;
	assert_int_equal(dl_type_geo(&a, "geometry(OGC:CRS84)"), 0);
	assert_int_equal(dl_type_geo(&b, "geometry(OGC:CRS84)"), 0);
	assert_int_equal(dl_type_geo_from_parts(&c, DL_GEO_GEOGRAPHY, NULL, -1), 0);
	dl_type *bin = dl_type_new(DL_TYPE_BINARY);
	assert_true(dl_type_equals(a, b));
	assert_false(dl_type_equals(a, c));
	assert_false(dl_type_equals(a, bin));
	assert_false(dl_type_equals(bin, a));
	char s[128];
	dl_type_sql(a, s, sizeof s);
	assert_string_equal(s, "GEOMETRY(OGC:CRS84)");
	dl_type_sql(c, s, sizeof s);
	assert_string_equal(s, "GEOGRAPHY(OGC:CRS84, spherical)");
	dl_type_name(c, s, sizeof s);
	assert_string_equal(s, "geography(OGC:CRS84, spherical)");
	dl_type_sql(bin, s, sizeof s);
	assert_string_equal(s, "BINARY");
	dl_type *d;
	assert_int_equal(dl_type_geo(&d, "geography"), 0); /* defaults spelled out in SQL */
	dl_type_sql(d, s, sizeof s);
	assert_string_equal(s, "GEOGRAPHY(OGC:CRS84, spherical)");
	dl_type *e;
	assert_int_equal(dl_type_geo_from_parts(&e, DL_GEO_GEOMETRY, "EPSG:3857", -1), 0);
	assert_string_equal(e->geo, "geometry(EPSG:3857)");
	dl_type *f = NULL;
	assert_int_equal(dl_type_geo_from_parts(&f, DL_GEO_GEOGRAPHY, NULL, 9), DL_ECORRUPT);
	assert_null(f);
	/* a struct holding a geo column equals only a struct with the same one */
	dl_field fa = {.name = "g", .type = a, .nullable = true}, fb = {.name = "g", .type = bin, .nullable = true};
	dl_type *sa = dl_type_struct(&fa, 1), *sb = dl_type_struct(&fb, 1);
	assert_false(dl_type_equals(sa, sb));
	dl_type_unref(sa);
	dl_type_unref(sb);
	dl_type_unref(a);
	dl_type_unref(b);
	dl_type_unref(c);
	dl_type_unref(d);
	dl_type_unref(e);
	dl_type_unref(bin);
}

static bool may_match(const char *sql, const dl_type *schema, const dl_stats_provider *p)
{
	dl_expr *e;
	bool m = false;
	assert_int_equal(dl_expr_parse(&e, sql), 0);
	if (dl_expr_bind(e, schema) < 0) fail_msg("%s: %s", sql, dl_error_last()->message);
	assert_int_equal(dl_expr_may_match(&m, e, p), 0);
	dl_expr_free(e);
	return m;
}

/* The RFC's stats: min/max of a geo column are WKT bounding-box corners.
 * They are never used as byte bounds; the null count still prunes. */
static void stats_never_bound_geo_columns(void **state)
{
	(void)state;
	const char *js = schema_with("geometry(OGC:CRS84)");
	dl_type *schema;
	assert_int_equal(dl_schema_parse(&schema, js, strlen(js)), 0);
	dl_add add = {0};
	add.path = "f.parquet";
	add.stats = "{\"numRecords\":23,\"minValues\":{\"g\":\"POINT(-122.419 37.774)\"},"
	            "\"maxValues\":{\"g\":\"POINT(-120.503 38.021)\"},\"nullCount\":{\"g\":0}}";
	add.stats_len = (uint32_t)strlen(add.stats);
	dl_file_skipping fs = {0};
	dl_stats_provider p;
	assert_int_equal(dl_file_skipping_init(&fs, &p, schema, DL_CM_NONE, NULL, 0, &add), 0);
	dl_col_stats c;
	const char *pg[] = {"g"};
	assert_int_equal(p.column(p.payload, pg, 1, &c), 0);
	assert_false(c.has_min);
	assert_false(c.has_max);
	assert_true(c.has_null_count);
	assert_int_equal(c.null_count, 0);
	/* geo values do not compare with bytes (as in Spark: ST_ functions do
	 * that), so only null tests reach the stats */
	dl_expr *e;
	assert_int_equal(dl_expr_parse(&e, "g = X'0101000000000000000000F03F0000000000000040'"), 0);
	assert_int_not_equal(dl_expr_bind(e, schema), 0);
	dl_expr_free(e);
	assert_true(may_match("g IS NOT NULL", schema, &p));
	assert_false(may_match("g IS NULL", schema, &p)); /* nullCount 0 */
	dl_file_skipping_free(&fs);
	dl_type_unref(schema);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(round_trip),
		cmocka_unit_test(parts_and_defaults),
		cmocka_unit_test(malformed),
		cmocka_unit_test(equality_names_and_sql),
		cmocka_unit_test(stats_never_bound_geo_columns),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
