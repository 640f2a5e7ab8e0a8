/* Geospatial columns through Parquet: binary annotated with a Delta geo type
 * is written with the GEOMETRY / GEOGRAPHY logical type (CRS and algorithm
 * when not the defaults), without byte-wise min/max, and read back as the
 * same annotated binary with the same WKB bytes. DuckDB reads the file. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "columnar/builder.h"
#include "columnar/geo_type.h"
#include "parquet/reader.h"
#include "parquet/stats_read.h"
#include "parquet/writer.h"

/* WKB (little endian) of POINT(1 2) and LINESTRING(0 0, 3 4). */
static const uint8_t point_wkb[] = {0x01, 0x01, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xF0, 0x3F, 0, 0, 0, 0, 0, 0, 0, 0x40};
static const uint8_t line_wkb[] = {0x01, 0x02, 0, 0, 0, 0x02, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
                                   0,    0,    0, 0, 0, 0,    0, 0, 0, 0, 0, 0x08, 0x40, 0, 0, 0, 0, 0, 0, 0x10, 0x40};

static dl_type *geo(const char *text)
{
	dl_type *t;
	assert_int_equal(dl_type_geo(&t, text), 0);
	return t;
}

/* geom geometry(OGC:CRS84), geog geography(EPSG:4326, karney), b binary;
 * rows: (POINT, LINE, POINT), (NULL, NULL, NULL), (LINE, POINT, LINE). */
static void write_file(dl_buf *out, dl_type **schema_out)
{
	dl_type *types[3] = {geo("geometry(OGC:CRS84)"), geo("geography(EPSG:4326, karney)"),
	                     dl_type_new(DL_TYPE_BINARY)};
	const char *names[3] = {"geom", "geog", "b"};
	dl_field f[3];
	for (int i = 0; i < 3; i++) f[i] = (dl_field){(char *)names[i], types[i], true, (char *)"{}"};
	dl_type *schema = dl_type_struct(f, 3);
	pq_sink sink;
	pq_sink_init_buf(&sink, out);
	pq_writer *w;
	assert_int_equal(pq_writer_open(&w, schema, &sink, NULL), 0);
	dl_batch *b = dl_batch_new(schema, 3);
	for (int i = 0; i < 3; i++) {
		dl_builder *bl;
		assert_int_equal(dl_builder_new(&bl, types[i]), 0);
		bool first_point = i != 1;
		assert_int_equal(first_point ? dl_builder_append_bytes(bl, point_wkb, sizeof point_wkb)
		                             : dl_builder_append_bytes(bl, line_wkb, sizeof line_wkb), 0);
		assert_int_equal(dl_builder_append_null(bl), 0);
		assert_int_equal(first_point ? dl_builder_append_bytes(bl, line_wkb, sizeof line_wkb)
		                             : dl_builder_append_bytes(bl, point_wkb, sizeof point_wkb), 0);
		assert_int_equal(dl_builder_finish(&b->cols[i], bl), 0);
		dl_builder_free(bl);
		dl_type_unref(types[i]);
	}
	assert_int_equal(pq_writer_write(w, b), 0);
	assert_int_equal(pq_writer_close(w), 0);
	pq_writer_free(w);
	dl_batch_free(b);
	*schema_out = schema;
}

static void expect_wkb(const dl_array *a, int64_t i, const uint8_t *want, size_t n)
{
	assert_true(dl_array_is_valid(a, i));
	assert_int_equal(a->offsets[i + 1] - a->offsets[i], (int32_t)n);
	assert_memory_equal(a->data + a->offsets[i], want, n);
}

static void check_batch(const dl_batch *b)
{
	assert_int_equal(b->num_rows, 3);
	for (int c = 0; c < 3; c++) {
		const uint8_t *first = c != 1 ? point_wkb : line_wkb, *last = c != 1 ? line_wkb : point_wkb;
		size_t fn = c != 1 ? sizeof point_wkb : sizeof line_wkb, ln = c != 1 ? sizeof line_wkb : sizeof point_wkb;
		expect_wkb(b->cols[c], 0, first, fn);
		assert_false(dl_array_is_valid(b->cols[c], 1));
		expect_wkb(b->cols[c], 2, last, ln);
	}
}

static void round_trip(void **state)
{
	(void)state;
	dl_buf out = DL_BUF_INIT;
	dl_type *schema;
	write_file(&out, &schema);
	pq_reader *r;
	assert_int_equal(pq_reader_open_memory(&r, (const uint8_t *)out.data, out.len, "geo"), 0);
	const dl_type *fs = pq_reader_schema(r);
	assert_int_equal(fs->nchildren, 3);
	/* the default CRS is not written, and reads back spelled out */
	assert_string_equal(fs->children[0].type->geo, "geometry(OGC:CRS84)");
	assert_string_equal(fs->children[1].type->geo, "geography(EPSG:4326, karney)");
	assert_null(fs->children[2].type->geo);
	assert_int_equal(fs->children[0].type->id, DL_TYPE_BINARY);
	/* footer statistics: no byte-wise bounds for WKB, null counts kept */
	for (int l = 0; l < 3; l++) {
		pq_column_stats cs;
		assert_int_equal(pq_reader_column_stats(r, 0, l, &cs), 0);
		assert_true(cs.has_null_count);
		assert_int_equal(cs.null_count, 1);
		assert_int_equal(cs.has_min_max, l == 2);
	}
	dl_batch *b;
	int64_t first;
	assert_int_equal(pq_reader_next(r, &b, &first), 0);
	assert_non_null(b);
	check_batch(b);
	assert_true(dl_type_equals(b->schema, schema));
	dl_batch_free(b);
	pq_reader_free(r);
	dl_type_unref(schema);
	dl_buf_free(&out);
}

/* A Delta geo column over a file that has plain binary (or the other way
 * round) projects without a cast: the bytes are the same. */
static void projection_between_plain_and_geo(void **state)
{
	(void)state;
	dl_buf out = DL_BUF_INIT;
	dl_type *schema;
	write_file(&out, &schema);
	dl_type *types[3] = {dl_type_new(DL_TYPE_BINARY), geo("geography"), geo("geometry(srid:3857)")};
	dl_field f[3] = {{(char *)"geom", types[0], true, (char *)"{}"},
	                 {(char *)"geog", types[1], true, (char *)"{}"},
	                 {(char *)"b", types[2], true, (char *)"{}"}};
	dl_type *req = dl_type_struct(f, 3);
	pq_reader *r;
	assert_int_equal(pq_reader_open_memory(&r, (const uint8_t *)out.data, out.len, "geo"), 0);
	assert_int_equal(pq_reader_set_projection(r, req, false), 0);
	dl_batch *b;
	int64_t first;
	assert_int_equal(pq_reader_next(r, &b, &first), 0);
	assert_non_null(b);
	check_batch(b);
	assert_null(b->cols[0]->type->geo);
	assert_string_equal(b->cols[2]->type->geo, "geometry(srid:3857)");
	dl_batch_free(b);
	pq_reader_free(r);
	for (int i = 0; i < 3; i++) dl_type_unref(types[i]);
	dl_type_unref(req);
	dl_type_unref(schema);
	dl_buf_free(&out);
}

/* DuckDB reads the GEOMETRY/GEOGRAPHY columns and gets our WKB back. */
static void duckdb_reads_it(void **state)
{
	(void)state;
	dl_buf out = DL_BUF_INIT;
	dl_type *schema;
	write_file(&out, &schema);
	char path[512], cmd[2048];
	snprintf(path, sizeof path, "%s/geo_duckdb_%d.parquet", DL_BINARY_DIR, (int)getpid());
	FILE *f = fopen(path, "wb");
	assert_non_null(f);
	assert_int_equal(fwrite(out.data, 1, out.len, f), out.len);
	fclose(f);
	snprintf(cmd, sizeof cmd, "cd '%s/tools/oracle' && node '%s/tests/integration/geo_duckdb_check.mjs' '%s'",
	         DL_SOURCE_DIR, DL_SOURCE_DIR, path);
	int rc = system(cmd);
	if (getenv("GEO_KEEP")) printf("kept %s\n", path);
	else remove(path);
	assert_int_equal(rc, 0);
	dl_type_unref(schema);
	dl_buf_free(&out);
}

/* Byte-wise bounds another writer left on a GEOMETRY chunk are not used for
 * pruning; the same bounds on plain binary are. */
static void foreign_geo_bounds_ignored(void **state)
{
	(void)state;
	pq_schema_element el = {.name = (char *)"g", .has_type = true, .type = PQ_BYTE_ARRAY,
	                        .converted_type = PQ_CT_NONE};
	el.logical.kind = PQ_LT_GEOMETRY;
	pq_rleaf lf = {.el = &el, .type = geo("geometry(OGC:CRS84)")};
	pq_column_chunk cc = {.has_meta_data = true};
	cc.meta_data.num_values = 3;
	cc.meta_data.has_statistics = true;
	pq_statistics *st = &cc.meta_data.statistics;
	st->has_null_count = true;
	st->null_count = 1;
	st->has_min_value = st->has_max_value = true;
	st->min_value = (pq_bytes){line_wkb, sizeof line_wkb};
	st->max_value = (pq_bytes){point_wkb, sizeof point_wkb};
	pq_column_stats cs;
	pq_stats_decode(&lf, &cc, PQ_ORDER_TYPE_DEFINED, &cs);
	assert_false(cs.has_min_max);
	assert_true(cs.has_null_count);
	assert_int_equal(cs.null_count, 1);
	/* a geo Delta column over an unannotated file: still no bounds */
	el.logical.kind = PQ_LT_NONE;
	pq_stats_decode(&lf, &cc, PQ_ORDER_TYPE_DEFINED, &cs);
	assert_false(cs.has_min_max);
	dl_type_unref(lf.type);
	lf.type = dl_type_new(DL_TYPE_BINARY);
	pq_stats_decode(&lf, &cc, PQ_ORDER_TYPE_DEFINED, &cs);
	assert_true(cs.has_min_max);
	assert_int_equal(cs.min.len, sizeof line_wkb);
	dl_type_unref(lf.type);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(round_trip),
		cmocka_unit_test(projection_between_plain_and_geo),
		cmocka_unit_test(foreign_geo_bounds_ignored),
		cmocka_unit_test(duckdb_reads_it),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
