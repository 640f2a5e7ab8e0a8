/* Geospatial columns in CREATE TABLE: GEOMETRY / GEOGRAPHY in the column
 * list become Delta's geometry(<crs>) / geography(<crs>, <algorithm>) with
 * the defaults spelled out, and the table gets the geospatial reader+writer
 * feature (reader 3, writer 7). */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <string.h>
#include "log/schema.h"
#include "ops/ddl.h"
#include "ops/protocol_choose.h"
#include "util/error.h"

static void ddl_types(void **state)
{
	(void)state;
	dl_type *t;
	assert_int_equal(dl_ddl_parse_schema(&t, "id BIGINT, g GEOMETRY, h geography( EPSG:4326 , Karney ), "
	                                          "k GEOMETRY(srid:3857) NOT NULL, l GEOGRAPHY, "
	                                          "s STRUCT<p: GEOMETRY(OGC:CRS84)>"),
	                 0);
	assert_int_equal(t->nchildren, 6);
	assert_null(t->children[0].type->geo);
	assert_string_equal(t->children[1].type->geo, "geometry(OGC:CRS84)");
	assert_string_equal(t->children[2].type->geo, "geography(EPSG:4326, karney)");
	assert_string_equal(t->children[3].type->geo, "geometry(srid:3857)");
	assert_false(t->children[3].nullable);
	assert_string_equal(t->children[4].type->geo, "geography(OGC:CRS84, spherical)");
	assert_string_equal(t->children[5].type->children[0].type->geo, "geometry(OGC:CRS84)");
	for (int i = 1; i < 5; i++) assert_int_equal(t->children[i].type->id, DL_TYPE_BINARY);
	dl_buf b = DL_BUF_INIT;
	assert_int_equal(dl_schema_to_json(&b, t), 0);
	assert_non_null(strstr(b.data, "\"type\":\"geography(EPSG:4326, karney)\""));
	dl_buf_free(&b);
	dl_type_unref(t);
	const char *bad[] = {
		"g GEOMETRY(OGC:CRS84, spherical)", "g GEOGRAPHY(OGC:CRS84, flat)", "g GEOMETRY()",
		"g GEOMETRY(CRS84)", "g GEOMETRY(OGC:CRS84", "g GEOGRAPHY(srid:x)",
	};
	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		t = NULL;
		assert_int_not_equal(dl_ddl_parse_schema(&t, bad[i]), 0);
		assert_null(t);
	}
}

static void protocol_has_geospatial(void **state)
{
	(void)state;
	dl_type *t;
	assert_int_equal(dl_ddl_parse_schema(&t, "id INT, a ARRAY<GEOGRAPHY>"), 0);
	dl_str_map m = {NULL, 0};
	dl_arena a = DL_ARENA_INIT;
	dl_protocol p;
	assert_int_equal(dl_ops_choose_protocol(&p, &a, t, &m, NULL), 0);
	assert_int_equal(p.min_reader_version, 3);
	assert_int_equal(p.min_writer_version, 7);
	assert_int_equal(p.nreader_features, 1);
	assert_string_equal(p.reader_features[0], "geospatial");
	bool in_writer = false;
	for (uint32_t i = 0; i < p.nwriter_features; i++)
		if (strcmp(p.writer_features[i], "geospatial") == 0) in_writer = true;
	assert_true(in_writer);
	dl_arena_free(&a);
	dl_type_unref(t);
	/* plain binary needs nothing */
	assert_int_equal(dl_ddl_parse_schema(&t, "b BINARY"), 0);
	assert_int_equal(dl_ops_choose_protocol(&p, &a, t, &m, NULL), 0);
	assert_int_equal(p.min_reader_version, 1);
	assert_int_equal(p.nreader_features, 0);
	dl_arena_free(&a);
	dl_type_unref(t);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(ddl_types),
		cmocka_unit_test(protocol_has_geospatial),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
