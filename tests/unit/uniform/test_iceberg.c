/* UniForm's Iceberg pieces: the single-value serialization of bounds
 * (spec Appendix D), a manifest and manifest list written and read back
 * through avro-c with their field ids in the header schema, and the
 * metadata reader's refusals, the name mapping and the properties derived
 * from the Delta configuration. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <string.h>
#include "deltalake/store.h"
#include "log/schema.h"
#include "uniform/iceberg_properties.h"
#include "uniform/iceberg_read.h"
#include "util/error.h"
#include "util/mem.h"

static void bound(const dl_type *t, const char *json, bool upper, const char *hex)
{
	dl_arena a = DL_ARENA_INIT;
	dl_json *v;
	assert_int_equal(dl_json_parse(&a, json, strlen(json), "t", &v), 0);
	uint8_t *b;
	size_t n;
	assert_int_equal(dl_ice_bound_encode(&b, &n, &a, t, v, upper), 0);
	char got[80] = "";
	for (size_t i = 0; b && i < n; i++) sprintf(got + 2 * i, "%02x", b[i]);
	assert_string_equal(got, hex);
	dl_arena_free(&a);
}

static void bounds_follow_appendix_d(void **state)
{
	(void)state;
	dl_type *i = dl_type_new(DL_TYPE_INTEGER), *l = dl_type_new(DL_TYPE_LONG);
	dl_type *d = dl_type_new(DL_TYPE_DATE), *s = dl_type_new(DL_TYPE_STRING);
	dl_type *ts = dl_type_new(DL_TYPE_TIMESTAMP), *dec = dl_type_decimal(10, 2);
	dl_type *bo = dl_type_new(DL_TYPE_BOOLEAN), *f = dl_type_new(DL_TYPE_DOUBLE);
	bound(i, "-2", false, "feffffff");
	bound(l, "258", false, "0201000000000000");
	bound(d, "\"1970-01-02\"", false, "01000000");
	bound(s, "\"ab\"", false, "6162");
	bound(bo, "true", false, "01");
	/* 1 ms after the epoch; the max is widened by 999 us */
	bound(ts, "\"1970-01-01T00:00:00.001Z\"", false, "e803000000000000");
	bound(ts, "\"1970-01-01T00:00:00.001Z\"", true, "cf07000000000000");
	/* unscaled 12345 = 0x3039; -1.00 = -100 = 0x9c; 1.28 = 128 = 0x0080 */
	bound(dec, "123.45", false, "3039");
	bound(dec, "-1", false, "9c");
	bound(dec, "1.28", false, "0080");
	bound(f, "1.5", false, ""); /* no float bounds (NaN/-0.0 rules) */
	bound(i, "\"x\"", false, "");  /* a wrong kind is no bound, not an error */
	dl_type *all[] = {i, l, d, s, ts, dec, bo, f};
	for (size_t k = 0; k < sizeof all / sizeof *all; k++) dl_type_unref(all[k]);
}

typedef struct seen {
	int n;
	int status[4];
	char path[4][64];
} seen;

static int on_entry(const dl_ice_entry *e, avro_value_t *df, void *payload)
{
	(void)df;
	seen *s = payload;
	s->status[s->n] = e->status;
	snprintf(s->path[s->n], sizeof s->path[0], "%s", e->file_path);
	s->n++;
	return 0;
}

static void manifest_round_trip(void **state)
{
	(void)state;
	const char *schema_json =
	    "{\"type\":\"struct\",\"fields\":[{\"name\":\"id\",\"type\":\"long\",\"nullable\":true,"
	    "\"metadata\":{\"delta.columnMapping.id\":1,\"delta.columnMapping.physicalName\":\"c1\"}},"
	    "{\"name\":\"p\",\"type\":\"string\",\"nullable\":true,\"metadata\":{"
	    "\"delta.columnMapping.id\":2,\"delta.columnMapping.physicalName\":\"c2\"}}]}";
	dl_type *schema;
	assert_int_equal(dl_schema_parse(&schema, schema_json, strlen(schema_json)), 0);
	const char *parts[] = {"p"};
	dl_metadata md;
	memset(&md, 0, sizeof md);
	md.partition_columns = parts;
	md.npartition_columns = 1;
	dl_arena a = DL_ARENA_INIT;
	dl_ice_table_schema ice;
	assert_int_equal(dl_ice_schema_build(&ice, &a, schema, &md), 0);
	assert_int_equal(ice.parts[0].field_id, 1000);
	assert_string_equal(ice.parts[0].physical, "c2");
	dl_store *st;
	assert_int_equal(dl_store_open(&st, "mem://uniform-test", NULL), 0);
	dl_ice_manifest_writer w;
	assert_int_equal(dl_ice_manifest_open(&w, st, "metadata/m.avro", "mem://uniform-test/metadata/m.avro",
	                                      &ice, "{}", 0, 7, 3), 0);
	dl_kv pv[] = {{"c2", "x"}};
	dl_str_map pm = {pv, 1};
	const char *stats = "{\"numRecords\":5,\"nullCount\":{\"c1\":1},\"minValues\":{\"c1\":1},\"maxValues\":{\"c1\":9}}";
	dl_ice_data_file f = {"mem://uniform-test/a.parquet", 100, &pm, stats, strlen(stats)};
	assert_int_equal(dl_ice_manifest_add(&w, DL_ICE_ADDED, 7, 3, 3, &f), 0);
	f.path = "mem://uniform-test/b.parquet";
	assert_int_equal(dl_ice_manifest_add(&w, DL_ICE_DELETED, 7, 2, 2, &f), 0);
	dl_ice_manifest_info m;
	assert_int_equal(dl_ice_manifest_close(&w, &m), 0);
	assert_int_equal(m.added_files, 1);
	assert_int_equal(m.deleted_files, 1);
	assert_int_equal(m.added_rows, 5);
	assert_int_equal(m.min_sequence_number, 2);
	/* the header keeps the field ids avro-c's own writer would drop */
	uint8_t *raw;
	size_t len;
	assert_int_equal(dl_store_get(&raw, &len, st, "metadata/m.avro"), 0);
	assert_non_null(memmem(raw, len, "\"field-id\":102", 14));
	assert_non_null(memmem(raw, len, "\"field-id\":1000", 15));
	dl_free(raw);
	seen s = {0};
	assert_int_equal(dl_ice_manifest_read(st, "metadata/m.avro", on_entry, &s), 0);
	assert_int_equal(s.n, 2);
	assert_int_equal(s.status[0], DL_ICE_ADDED);
	assert_int_equal(s.status[1], DL_ICE_DELETED);
	assert_string_equal(s.path[1], "mem://uniform-test/b.parquet");
	assert_int_equal(dl_ice_manifest_list_write(st, "metadata/l.avro", &m, 1, 7, -1, 3), 0);
	dl_ice_manifest_info *back;
	size_t n;
	assert_int_equal(dl_ice_manifest_list_read(&back, &n, st, "metadata/l.avro"), 0);
	assert_int_equal(n, 1);
	assert_string_equal(back[0].path, m.path);
	assert_int_equal(back[0].length, m.length);
	assert_int_equal(back[0].deleted_rows, 5);
	dl_ice_manifest_info_free(&back[0]);
	dl_free(back);
	dl_ice_manifest_info_free(&m);
	/* a stats-less file cannot be described */
	assert_int_equal(dl_ice_manifest_open(&w, st, "metadata/m2.avro", "x", &ice, "{}", 0, 7, 3), 0);
	f.stats = NULL;
	assert_int_equal(dl_ice_manifest_add(&w, DL_ICE_ADDED, 7, 3, 3, &f), DL_EUNSUPPORTED);
	dl_ice_manifest_abort(&w);
	dl_object_info oi;
	assert_int_equal(dl_store_stat(&oi, st, "metadata/m2.avro"), DL_ENOTFOUND);
	dl_error_clear();
	dl_store_free(st);
	dl_arena_free(&a);
	dl_type_unref(schema);
}

static void metadata_reader_refuses_bad_input(void **state)
{
	(void)state;
	static const char *bad[] = {
	    "[]",
	    "{\"format-version\":3,\"location\":\"x\"}",
	    "{\"format-version\":2,\"location\":\"x\",\"last-updated-ms\":1}",
	    "{\"format-version\":2,\"table-uuid\":\"u\",\"location\":\"x\",\"last-sequence-number\":1,"
	    "\"last-updated-ms\":1,\"current-schema-id\":4,\"schemas\":[{\"schema-id\":0,\"fields\":[]}]}",
	    "{\"format-version\":2,\"table-uuid\":\"u\",\"location\":\"x\",\"last-sequence-number\":1,"
	    "\"last-updated-ms\":1,\"current-schema-id\":0,\"schemas\":[{\"schema-id\":0,\"fields\":[]}],"
	    "\"current-snapshot-id\":5,\"snapshots\":[]}",
	};
	for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
		dl_arena a = DL_ARENA_INIT;
		dl_ice_metadata m;
		int rc = dl_ice_metadata_parse(&m, &a, bad[i], strlen(bad[i]), "v1.metadata.json");
		assert_true(rc == DL_ECORRUPT || rc == DL_EUNSUPPORTED);
		assert_non_null(strstr(dl_error_last()->message, "v1.metadata.json"));
		dl_error_clear();
		dl_arena_free(&a);
	}
	const char *good =
	    "{\"format-version\":2,\"table-uuid\":\"u\",\"location\":\"x\",\"last-sequence-number\":1,"
	    "\"last-updated-ms\":1,\"current-schema-id\":0,\"schemas\":[{\"schema-id\":0,\"fields\":[]}],"
	    "\"current-snapshot-id\":5,\"snapshots\":[{\"snapshot-id\":5,\"manifest-list\":\"x/l.avro\"}],"
	    "\"properties\":{\"converted_delta_version\":\"12\"}}";
	dl_arena a = DL_ARENA_INIT;
	dl_ice_metadata m;
	assert_int_equal(dl_ice_metadata_parse(&m, &a, good, strlen(good), "v1.metadata.json"), 0);
	assert_int_equal(m.converted_delta_version, 12);
	assert_string_equal(m.current_manifest_list, "x/l.avro");
	assert_string_equal(dl_ice_relative("x/l.avro", "x"), "l.avro");
	dl_arena_free(&a);
}

/* The JSON Iceberg's NameMappingParser.toJson(MappingUtil.create(schema))
 * prints for this schema (compact; field-id, names, fields in that order;
 * no "fields" on primitives). */
static void name_mapping_is_icebergs(void **state)
{
	(void)state;
	const char *schema =
	    "{\"type\":\"struct\",\"schema-id\":0,\"fields\":["
	    "{\"id\":1,\"name\":\"id\",\"required\":false,\"type\":\"long\"},"
	    "{\"id\":2,\"name\":\"s\",\"required\":false,\"type\":{\"type\":\"struct\",\"fields\":["
	    "{\"id\":3,\"name\":\"l\",\"required\":false,\"type\":{\"type\":\"list\",\"element-id\":5,"
	    "\"element-required\":false,\"element\":\"int\"}}]}},"
	    "{\"id\":4,\"name\":\"m\",\"required\":false,\"type\":{\"type\":\"map\",\"key-id\":6,"
	    "\"key\":\"string\",\"value-id\":7,\"value-required\":false,\"value\":{\"type\":\"struct\","
	    "\"fields\":[]}}}]}";
	dl_buf b = DL_BUF_INIT;
	assert_int_equal(dl_ice_name_mapping(&b, schema), 0);
	assert_string_equal(b.data,
	                    "[{\"field-id\":1,\"names\":[\"id\"]},"
	                    "{\"field-id\":2,\"names\":[\"s\"],\"fields\":[{\"field-id\":3,\"names\":[\"l\"],"
	                    "\"fields\":[{\"field-id\":5,\"names\":[\"element\"]}]}]},"
	                    "{\"field-id\":4,\"names\":[\"m\"],\"fields\":[{\"field-id\":6,\"names\":[\"key\"]},"
	                    "{\"field-id\":7,\"names\":[\"value\"],\"fields\":[]}]}]");
	dl_buf_free(&b);
}

static const char *get(const dl_str_map *m, const char *k)
{
	bool found;
	const char *v = dl_str_map_get(m, k, &found);
	return found ? v : NULL;
}

/* DeltaToIcebergConvert.TableProperties: the prefix stripped (case
 * sensitive: keys are stored lower-cased), reserved keys out, the retention
 * computed below 5 days only and checked against Delta's. */
static void properties_from_delta(void **state)
{
	(void)state;
	dl_kv kv[] = {
	    {"delta.universalformat.config.iceberg.write.metadata.compression-codec", "gzip"},
	    {"delta.universalformat.config.iceberg.format-version", "1"},
	    {"delta.universalFormat.config.iceberg.mixed", "no"},
	    {"delta.universalformat.config.hudi.x", "no"},
	    {"write.format.default", "no"},
	    {"delta.deletedFileRetentionDuration", "interval 6 days"},
	};
	dl_str_map conf = {kv, 6};
	dl_arena a = DL_ARENA_INIT;
	dl_str_map out;
	assert_int_equal(dl_ice_properties_from_delta(&out, &a, &conf), 0);
	assert_int_equal(out.n, 1); /* 6 days is not below the 5-day default */
	assert_string_equal(get(&out, "write.metadata.compression-codec"), "gzip");
	kv[5].value = "interval 36 hours";
	assert_int_equal(dl_ice_properties_from_delta(&out, &a, &conf), 0);
	assert_int_equal(out.n, 2);
	assert_string_equal(get(&out, "history.expire.max-snapshot-age-ms"), "129600000");
	kv[1].key = "delta.universalformat.config.iceberg.history.expire.max-snapshot-age-ms";
	kv[1].value = "129600001";
	assert_int_equal(dl_ice_properties_from_delta(&out, &a, &conf), DL_EINVALID);
	assert_non_null(strstr(dl_error_last()->message, "Current delta retention min in MS: 129600000"));
	dl_error_clear();
	kv[1].value = "1000"; /* within the retention: accepted, then the computed value wins */
	assert_int_equal(dl_ice_properties_from_delta(&out, &a, &conf), 0);
	assert_string_equal(get(&out, "history.expire.max-snapshot-age-ms"), "129600000");
	dl_arena_free(&a);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(bounds_follow_appendix_d),
	    cmocka_unit_test(manifest_round_trip),
	    cmocka_unit_test(metadata_reader_refuses_bad_input),
	    cmocka_unit_test(name_mapping_is_icebergs),
	    cmocka_unit_test(properties_from_delta),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
