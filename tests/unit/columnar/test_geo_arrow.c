/* Geospatial columns in the Arrow C data interface: binary ("z") tagged
 * with GeoArrow's geoarrow.wkb extension and its CRS / edges metadata. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <string.h>
#include "columnar/arrow_c.h"
#include "columnar/geo_type.h"
#include "util/mem.h"

/* The value of key in Arrow's binary metadata encoding, or NULL. */
static char *meta(const char *md, const char *key)
{
	if (!md) return NULL;
	int32_t n, kl, vl;
	memcpy(&n, md, 4);
	const char *p = md + 4;
	for (int32_t i = 0; i < n; i++) {
		memcpy(&kl, p, 4);
		const char *k = p + 4;
		p = k + kl;
		memcpy(&vl, p, 4);
		const char *v = p + 4;
		p = v + vl;
		if ((size_t)kl == strlen(key) && memcmp(k, key, (size_t)kl) == 0) return dl_strndup(v, (size_t)vl);
	}
	return NULL;
}

static void expect_ext(const struct ArrowSchema *s, const char *name, const char *md)
{
	char *n = meta(s->metadata, "ARROW:extension:name"), *m = meta(s->metadata, "ARROW:extension:metadata");
	if (!name) {
		assert_null(n);
	} else {
		assert_string_equal(n, name);
		assert_string_equal(m, md);
	}
	dl_free(n);
	dl_free(m);
}

static void geoarrow_tags(void **state)
{
	(void)state;
	const char *texts[] = {"geometry(OGC:CRS84)", "geography(EPSG:4326, karney)", "geometry(srid:3857)",
	                       "geography(projjson:crsProp)", "geography"};
	dl_field f[6];
	for (int i = 0; i < 5; i++) {
		f[i] = (dl_field){(char *)"g", NULL, true, (char *)"{}"};
		assert_int_equal(dl_type_geo(&f[i].type, texts[i]), 0);
	}
	f[5] = (dl_field){(char *)"b", dl_type_new(DL_TYPE_BINARY), true, (char *)"{}"};
	dl_type *st = dl_type_struct(f, 6);
	struct ArrowSchema s;
	assert_int_equal(dl_arrow_export_schema(&s, st), 0);
	for (int i = 0; i < 6; i++) assert_string_equal(s.children[i]->format, "z");
	expect_ext(s.children[0], "geoarrow.wkb", "{\"crs\":\"OGC:CRS84\",\"crs_type\":\"authority_code\"}");
	expect_ext(s.children[1], "geoarrow.wkb",
	           "{\"crs\":\"EPSG:4326\",\"crs_type\":\"authority_code\",\"edges\":\"karney\"}");
	expect_ext(s.children[2], "geoarrow.wkb", "{\"crs\":\"3857\",\"crs_type\":\"srid\"}");
	expect_ext(s.children[3], "geoarrow.wkb", "{\"edges\":\"spherical\"}");
	expect_ext(s.children[4], "geoarrow.wkb",
	           "{\"crs\":\"OGC:CRS84\",\"crs_type\":\"authority_code\",\"edges\":\"spherical\"}");
	expect_ext(s.children[5], NULL, NULL);
	s.release(&s);
	for (int i = 0; i < 6; i++) dl_type_unref(f[i].type);
	dl_type_unref(st);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(geoarrow_tags),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
