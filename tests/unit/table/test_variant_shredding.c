/* Shredded variants (VariantShredding.md of apache/parquet-format): files
 * whose variant group holds typed_value columns, written at the physical
 * level with our writer (a struct {metadata, value, typed_value}, exactly
 * the group Spark 4 writes), read as a variant and printed as JSON. The
 * rows are the spec's own examples; the invalid rows of its tables are
 * errors naming the file and the column. Last, a Delta table with the
 * variantShredding reader feature is scanned. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include "columnar/variant_json.h"
#include "expr/parse_util.h"
#include "json/json.h"
#include "parquet/reader.h"
#include "table/scan.h"
#include "table_fixture.h"
#include "util/arena.h"

/* ---- building rows: JSON text typed by the file schema ---- */

static int hexval(char c)
{
	return c <= '9' ? c - '0' : (c | 0x20) - 'a' + 10;
}

/* Appends a JSON value to a builder of type t: binary columns are hex
 * strings, decimals their unscaled integer, dates days, timestamps
 * microseconds; a missing struct member is null. */
static void append_json(dl_builder *b, const dl_type *t, const dl_json *v)
{
	if (!v || dl_json_is_null(v)) {
		assert_int_equal(dl_builder_append_null(b), 0);
		return;
	}
	int64_t i;
	double d;
	switch (t->id) {
	case DL_TYPE_STRUCT:
		assert_int_equal(v->kind, DL_JSON_OBJECT);
		assert_int_equal(dl_builder_begin_struct(b), 0);
		for (int k = 0; k < t->nchildren; k++)
			append_json(dl_builder_child(b, k), t->children[k].type, dl_json_get(v, t->children[k].name));
		assert_int_equal(dl_builder_end_struct(b), 0);
		return;
	case DL_TYPE_ARRAY:
		assert_int_equal(v->kind, DL_JSON_ARRAY);
		assert_int_equal(dl_builder_begin_list(b), 0);
		for (size_t k = 0; k < v->u.arr.n; k++) append_json(dl_builder_child(b, 0), t->children[0].type, &v->u.arr.items[k]);
		assert_int_equal(dl_builder_end_list(b), 0);
		return;
	case DL_TYPE_BOOLEAN:
		assert_int_equal(dl_builder_append_bool(b, v->kind == DL_JSON_TRUE), 0);
		return;
	case DL_TYPE_FLOAT:
	case DL_TYPE_DOUBLE:
		assert_int_equal(dl_json_double(v, &d), 0);
		assert_int_equal(dl_builder_append_double(b, d), 0);
		return;
	case DL_TYPE_DECIMAL:
		assert_int_equal(dl_json_int64(v, &i), 0);
		assert_int_equal(dl_builder_append_decimal(b, i), 0);
		return;
	case DL_TYPE_STRING:
		assert_int_equal(dl_builder_append_bytes(b, v->u.str.ptr, v->u.str.len), 0);
		return;
	case DL_TYPE_BINARY: {
		uint8_t raw[512];
		size_t n = v->u.str.len / 2;
		assert_true(n <= sizeof raw);
		for (size_t k = 0; k < n; k++) raw[k] = (uint8_t)(hexval(v->u.str.ptr[2 * k]) << 4 | hexval(v->u.str.ptr[2 * k + 1]));
		assert_int_equal(dl_builder_append_bytes(b, raw, n), 0);
		return;
	}
	default:
		assert_int_equal(dl_json_int64(v, &i), 0);
		assert_int_equal(dl_builder_append_int(b, i), 0);
		return;
	}
}

/* The SQL type text has no NOT NULL for array elements: every array here
 * gets the required element group the spec asks for. */
static void required_elements(dl_type *t)
{
	if (t->id == DL_TYPE_ARRAY) t->children[0].nullable = false;
	for (int i = 0; i < t->nchildren; i++) required_elements(t->children[i].type);
}

/* A Parquet file of one column `v` of SQL type `type`; `rows` is a JSON
 * array of its values. With `annotate`, the group `v` gets the VARIANT
 * logical type (edited into the writer's schema: `v` is written as a
 * struct here, which our writer does not annotate). With `nanos_utc` 0 or
 * 1, the BIGINT leaf `v.typed_value` becomes TIMESTAMP(nanos_utc, NANOS):
 * the int64 values are then nanoseconds, as DuckDB and Arrow write them. */
static void write_file_edit(dl_buf *out, const char *type, const char *rows, bool annotate, int nanos_utc)
{
	dl_type *vt;
	if (ex_parse_type_text(&vt, type) < 0) fail_msg("%s", dl_error_last()->message);
	required_elements(vt);
	dl_field f = {(char *)"v", vt, true, (char *)"{}"};
	dl_type *schema = dl_type_struct(&f, 1);
	dl_arena arena = {0};
	dl_json *root;
	if (dl_json_parse(&arena, rows, strlen(rows), "rows", &root) < 0) fail_msg("%s", dl_error_last()->message);
	dl_batch *b = dl_batch_new(schema, (int64_t)root->u.arr.n);
	dl_builder *bl;
	assert_int_equal(dl_builder_new(&bl, vt), 0);
	for (size_t r = 0; r < root->u.arr.n; r++) append_json(bl, vt, &root->u.arr.items[r]);
	assert_int_equal(dl_builder_finish(&b->cols[0], bl), 0);
	dl_builder_free(bl);
	pq_sink sink;
	pq_sink_init_buf(&sink, out);
	pq_writer *w;
	assert_int_equal(pq_writer_open(&w, schema, &sink, NULL), 0);
	if (annotate) {
		pq_wschema *ws = (pq_wschema *)pq_writer_schema(w);
		assert_string_equal(ws->elems[1].name, "v");
		ws->elems[1].logical.kind = PQ_LT_VARIANT;
	}
	if (nanos_utc >= 0) {
		pq_wschema *ws = (pq_wschema *)pq_writer_schema(w);
		assert_string_equal(ws->elems[4].name, "typed_value");
		assert_int_equal(ws->elems[4].type, PQ_INT64);
		ws->elems[4].logical = (pq_logical_type){.kind = PQ_LT_TIMESTAMP, .is_adjusted_to_utc = nanos_utc == 1,
		                                         .unit = PQ_UNIT_NANOS};
	}
	assert_int_equal(pq_writer_write(w, b), 0);
	assert_int_equal(pq_writer_close(w), 0);
	pq_writer_free(w);
	dl_batch_free(b);
	dl_arena_free(&arena);
	dl_type_unref(schema);
	dl_type_unref(vt);
}

static void write_file_as(dl_buf *out, const char *type, const char *rows, bool annotate)
{
	write_file_edit(out, type, rows, annotate, -1);
}

static void write_file(dl_buf *out, const char *type, const char *rows)
{
	write_file_as(out, type, rows, false);
}

/* Reads `v` of the file as a variant: each row's JSON (NULL for a null
 * row) on its own line, or the error. */
static int read_variant(const dl_buf *file, dl_buf *text)
{
	dl_type *var = dl_type_variant();
	dl_field f = {(char *)"v", var, true, (char *)"{}"};
	dl_type *req = dl_type_struct(&f, 1);
	pq_reader *r;
	assert_int_equal(pq_reader_open_memory(&r, (const uint8_t *)file->data, file->len, "shredded.parquet"), 0);
	int rc = pq_reader_set_projection(r, req, false);
	dl_batch *b = NULL;
	int64_t first;
	while (rc == 0 && (rc = pq_reader_next(r, &b, &first)) == 0 && b) {
		const dl_array *a = b->cols[0];
		assert_int_equal(a->type->id, DL_TYPE_VARIANT);
		assert_int_equal(a->nchildren, 2);
		const dl_array *val = a->children[0], *meta = a->children[1];
		for (int64_t i = 0; rc == 0 && i < a->length; i++) {
			if (!dl_array_is_valid(a, i)) {
				dl_buf_puts(text, "NULL\n");
				continue;
			}
			rc = dl_variant_to_json(text, val->data + val->offsets[i], (size_t)(val->offsets[i + 1] - val->offsets[i]),
			                        meta->data + meta->offsets[i], (size_t)(meta->offsets[i + 1] - meta->offsets[i]));
			dl_buf_putc(text, '\n');
		}
		dl_batch_free(b);
	}
	pq_reader_free(r);
	dl_type_unref(req);
	dl_type_unref(var);
	return rc;
}

static void expect_rows(const char *type, const char *rows, const char *want)
{
	dl_buf file = DL_BUF_INIT, text = DL_BUF_INIT;
	write_file(&file, type, rows);
	int rc = read_variant(&file, &text);
	if (rc < 0) fail_msg("read failed: %s", dl_error_last()->message);
	assert_string_equal(text.data, want);
	dl_buf_free(&file);
	dl_buf_free(&text);
}

/* The read fails with DL_ECORRUPT naming the file, the column and `why`. */
static void expect_error(const char *type, const char *rows, const char *why)
{
	dl_buf file = DL_BUF_INIT, text = DL_BUF_INIT;
	write_file(&file, type, rows);
	assert_int_equal(read_variant(&file, &text), DL_ECORRUPT);
	const char *msg = dl_error_last()->message;
	if (!strstr(msg, "shredded.parquet") || !strstr(msg, "variant column 'v'") || !strstr(msg, why))
		fail_msg("unexpected error: %s", msg);
	dl_buf_free(&file);
	dl_buf_free(&text);
}

/* ---- variant bytes for the rows (hex) ---- */

/* Metadata v1 with the names (sorted flag when `sorted`). */
static void meta_hex(char *out, bool sorted, int n, ...)
{
	va_list ap;
	uint8_t b[256];
	size_t k = 0, total = 0;
	const char *names[16];
	va_start(ap, n);
	for (int i = 0; i < n; i++) names[i] = va_arg(ap, const char *);
	va_end(ap);
	b[k++] = (uint8_t)(0x01 | (sorted ? 0x10 : 0));
	b[k++] = (uint8_t)n;
	for (int i = 0; i < n; i++) {
		b[k++] = (uint8_t)total;
		total += strlen(names[i]);
	}
	b[k++] = (uint8_t)total;
	for (int i = 0; i < n; i++) {
		memcpy(b + k, names[i], strlen(names[i]));
		k += strlen(names[i]);
	}
	for (size_t i = 0; i < k; i++) sprintf(out + 2 * i, "%02x", b[i]);
}

/* An object of one field (dictionary id `id`) holding a short string. */
static void obj1_hex(char *out, int id, const char *s)
{
	size_t n = strlen(s);
	int k = sprintf(out, "0201%02x00%02x%02x", id, (int)n + 1, (int)(n << 2 | 1));
	for (size_t i = 0; i < n; i++) k += sprintf(out + k, "%02x", (unsigned char)s[i]);
}

/* The spec's measurement example: 34, null, "n/a", 100 as shredded int64. */
static void shredded_int64(void **state)
{
	(void)state;
	expect_rows("STRUCT<metadata: BINARY NOT NULL, value: BINARY, typed_value: BIGINT>",
	            "[{\"metadata\":\"010000\",\"typed_value\":34},{\"metadata\":\"010000\",\"value\":\"00\"},"
	            "{\"metadata\":\"010000\",\"value\":\"0d6e2f61\"},{\"metadata\":\"010000\",\"typed_value\":100},"
	            "{\"metadata\":\"010000\"},null]",
	            "34\nnull\n\"n/a\"\n100\nnull\nNULL\n");
}

/* The spec's tags example: arrays shredded as strings; a null element is
 * value 00; a row that is not an array is in value. */
static void shredded_array(void **state)
{
	(void)state;
	const char *type = "STRUCT<metadata: BINARY NOT NULL, value: BINARY, typed_value: ARRAY<STRUCT<value: BINARY, "
	                   "typed_value: STRING>>>";
	expect_rows(type,
	            "[{\"metadata\":\"010000\",\"typed_value\":[{\"typed_value\":\"comedy\"},{\"typed_value\":\"drama\"}]},"
	            "{\"metadata\":\"010000\",\"typed_value\":[{\"typed_value\":\"horror\"},{\"value\":\"00\"}]},"
	            "{\"metadata\":\"010000\",\"typed_value\":[{\"typed_value\":\"comedy\"},{\"typed_value\":\"drama\"},"
	            "{\"typed_value\":\"romance\"}]},"
	            "{\"metadata\":\"010000\",\"value\":\"00\"},"
	            "{\"metadata\":\"010000\",\"typed_value\":[]},"
	            "{\"metadata\":\"010000\",\"typed_value\":[{\"value\":\"0c07\"}]}]",
	            "[\"comedy\",\"drama\"]\n[\"horror\",null]\n[\"comedy\",\"drama\",\"romance\"]\nnull\n[]\n[7]\n");
	/* a value beside a shredded array contradicts it */
	expect_error(type, "[{\"metadata\":\"010000\",\"value\":\"00\",\"typed_value\":[]}]", "both value and typed_value");
}

#define EVENT_TYPE                                                                                                    \
	"STRUCT<metadata: BINARY NOT NULL, value: BINARY, typed_value: STRUCT<event_type: STRUCT<value: BINARY, "   \
	"typed_value: STRING> NOT NULL, event_ts: STRUCT<value: BINARY, typed_value: BIGINT> NOT NULL>>"

/* The spec's event table, row by row (event_ts as int64 here). */
static void shredded_object(void **state)
{
	(void)state;
	char meta[128], email[96], err[96], click[96], rows[4096], tsval[64];
	/* ids: 0 event_type, 1 event_ts, 2 email, 3 error_msg, 4 click */
	meta_hex(meta, false, 5, "event_type", "event_ts", "email", "error_msg", "click");
	obj1_hex(email, 2, "user@example.com");
	obj1_hex(err, 3, "malformed: ...");
	obj1_hex(click, 4, "_button");
	/* "2024-10-24" as a variant string */
	int k = sprintf(tsval, "%02x", 10 << 2 | 1);
	for (const char *s = "2024-10-24"; *s; s++) k += sprintf(tsval + k, "%02x", *s);
	const char *str = "\"malformed: not an object\"";
	char strhex[80];
	k = sprintf(strhex, "%02x", (int)(strlen(str) - 2) << 2 | 1);
	for (const char *s = str + 1; s[1]; s++) k += sprintf(strhex + k, "%02x", *s);
	snprintf(rows, sizeof rows,
	         "[{\"metadata\":\"%s\",\"typed_value\":{\"event_type\":{\"typed_value\":\"noop\"},\"event_ts\":{\"typed_value\":1729794114937}}},"
	         "{\"metadata\":\"%s\",\"value\":\"%s\",\"typed_value\":{\"event_type\":{\"typed_value\":\"login\"},\"event_ts\":{\"typed_value\":1729794146402}}},"
	         "{\"metadata\":\"%s\",\"value\":\"%s\",\"typed_value\":{\"event_type\":{},\"event_ts\":{}}},"
	         "{\"metadata\":\"%s\",\"value\":\"%s\"},"
	         "{\"metadata\":\"%s\",\"value\":\"%s\",\"typed_value\":{\"event_type\":{},\"event_ts\":{\"typed_value\":1729794240241}}},"
	         "{\"metadata\":\"%s\",\"typed_value\":{\"event_type\":{\"value\":\"00\"},\"event_ts\":{\"typed_value\":1729794954163}}},"
	         "{\"metadata\":\"%s\",\"typed_value\":{\"event_type\":{\"typed_value\":\"noop\"},\"event_ts\":{\"value\":\"%s\"}}},"
	         "{\"metadata\":\"%s\",\"typed_value\":{\"event_type\":{},\"event_ts\":{}}},"
	         "{\"metadata\":\"%s\",\"value\":\"00\"},"
	         "{\"metadata\":\"%s\"},null]",
	         meta, meta, email, meta, err, meta, strhex, meta, click, meta, meta, tsval, meta, meta, meta);
	expect_rows(EVENT_TYPE, rows,
	            "{\"event_ts\":1729794114937,\"event_type\":\"noop\"}\n"
	            "{\"email\":\"user@example.com\",\"event_ts\":1729794146402,\"event_type\":\"login\"}\n"
	            "{\"error_msg\":\"malformed: ...\"}\n"
	            "\"malformed: not an object\"\n"
	            "{\"click\":\"_button\",\"event_ts\":1729794240241}\n"
	            "{\"event_ts\":1729794954163,\"event_type\":null}\n"
	            "{\"event_ts\":\"2024-10-24\",\"event_type\":\"noop\"}\n"
	            "{}\n"
	            "null\n"
	            "null\n"
	            "NULL\n");
}

/* The INVALID rows of the spec's event table, and a shredded name the
 * metadata does not hold. */
static void shredded_object_invalid(void **state)
{
	(void)state;
	char meta[128], dup[96], rows[1024];
	meta_hex(meta, false, 2, "event_type", "event_ts");
	obj1_hex(dup, 0, "login");
	snprintf(rows, sizeof rows,
	         "[{\"metadata\":\"%s\",\"value\":\"%s\",\"typed_value\":{\"event_type\":{\"typed_value\":\"login\"},\"event_ts\":{\"typed_value\":1}}}]",
	         meta, dup);
	expect_error(EVENT_TYPE, rows, "field 'event_type' is both shredded and in value");
	snprintf(rows, sizeof rows, "[{\"metadata\":\"%s\",\"value\":\"0561\",\"typed_value\":{\"event_type\":{},\"event_ts\":{}}}]", meta);
	expect_error(EVENT_TYPE, rows, "value is not an object");
	/* an object field with both value and a primitive typed_value */
	snprintf(rows, sizeof rows, "[{\"metadata\":\"%s\",\"typed_value\":{\"event_type\":{\"value\":\"00\",\"typed_value\":\"x\"},\"event_ts\":{}}}]", meta);
	expect_error(EVENT_TYPE, rows, "both value and typed_value");
	meta_hex(meta, false, 1, "event_type");
	snprintf(rows, sizeof rows, "[{\"metadata\":\"%s\",\"typed_value\":{\"event_type\":{},\"event_ts\":{\"typed_value\":1}}}]", meta);
	expect_error(EVENT_TYPE, rows, "shredded field 'event_ts' is not in the variant metadata");
	/* a top-level primitive with both */
	expect_error("STRUCT<metadata: BINARY NOT NULL, value: BINARY, typed_value: BIGINT>",
	             "[{\"metadata\":\"010000\",\"value\":\"00\",\"typed_value\":1}]", "both value and typed_value");
	/* a typed_value that is no shredded type: the projection is refused */
	expect_error("STRUCT<metadata: BINARY NOT NULL, value: BINARY, typed_value: MAP<STRING, INT>>",
	             "[{\"metadata\":\"010000\",\"value\":\"00\"}]", "neither a primitive, a LIST nor a group");
	expect_error("STRUCT<value: BINARY, typed_value: BIGINT>", "[{\"value\":\"00\"}]", "no binary metadata");
}

/* The spec's nesting example: an object inside an object, an array of
 * strings inside an object, with a sorted dictionary (binary search). */
static void shredded_nested(void **state)
{
	(void)state;
	const char *type =
	    "STRUCT<metadata: BINARY NOT NULL, value: BINARY, typed_value: STRUCT<"
	    "location: STRUCT<value: BINARY, typed_value: STRUCT<latitude: STRUCT<value: BINARY, typed_value: DOUBLE> NOT NULL, "
	    "longitude: STRUCT<value: BINARY, typed_value: DOUBLE> NOT NULL>> NOT NULL, "
	    "tags: STRUCT<value: BINARY, typed_value: ARRAY<STRUCT<value: BINARY, typed_value: STRING>>> NOT NULL>>";
	char meta[160], alt[96], rows[2048];
	/* sorted: 0 alt, 1 latitude, 2 location, 3 longitude, 4 tags */
	meta_hex(meta, true, 5, "alt", "latitude", "location", "longitude", "tags");
	obj1_hex(alt, 0, "high");
	snprintf(rows, sizeof rows,
	         "[{\"metadata\":\"%s\",\"typed_value\":{\"location\":{\"typed_value\":{\"latitude\":{\"typed_value\":1.5},"
	         "\"longitude\":{\"typed_value\":-2.25}}},\"tags\":{\"typed_value\":[{\"typed_value\":\"a\"},{\"value\":\"0c01\"}]}}},"
	         "{\"metadata\":\"%s\",\"typed_value\":{\"location\":{\"value\":\"%s\",\"typed_value\":{\"latitude\":{},"
	         "\"longitude\":{\"typed_value\":0}}},\"tags\":{}}},"
	         "{\"metadata\":\"%s\",\"typed_value\":{\"location\":{\"value\":\"00\"},\"tags\":{\"value\":\"0c05\"}}}]",
	         meta, meta, alt, meta);
	expect_rows(type, rows,
	            "{\"location\":{\"latitude\":1.5,\"longitude\":-2.25},\"tags\":[\"a\",1]}\n"
	            "{\"location\":{\"alt\":\"high\",\"longitude\":0.0}}\n"
	            "{\"location\":null,\"tags\":5}\n");
}

/* Every shredded primitive type of the spec's table our writer can make. */
static void shredded_scalars(void **state)
{
	(void)state;
	static const struct {
		const char *type, *json, *want;
	} cases[] = {
	    {"BOOLEAN", "true", "true"},
	    {"BOOLEAN", "false", "false"},
	    {"TINYINT", "-7", "-7"},
	    {"SMALLINT", "-300", "-300"},
	    {"INT", "70000", "70000"},
	    {"BIGINT", "-5000000000", "-5000000000"},
	    {"FLOAT", "1.5", "1.5"},
	    {"DOUBLE", "-0.125", "-0.125"},
	    {"DECIMAL(9,2)", "-12345", "-123.45"},
	    {"DECIMAL(18,3)", "123456789012345", "123456789012.345"},
	    {"DECIMAL(38,10)", "-98765432109876543", "-9876543.2109876543"},
	    {"DATE", "19000", "\"2022-01-08\""},
	    {"TIMESTAMP", "1729794114937000", "\"2024-10-24 18:21:54.937+00:00\""},
	    {"TIMESTAMP_NTZ", "0", "\"1970-01-01 00:00:00\""},
	    {"BINARY", "\"00ff10\"", "\"AP8Q\""},
	    {"STRING", "\"h\\u00e9\"", "\"h\xc3\xa9\""},
	    {"STRING", "\"0123456789012345678901234567890123456789012345678901234567890123456789\"",
	     "\"0123456789012345678901234567890123456789012345678901234567890123456789\""},
	};
	for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
		char type[160], rows[256], want[160];
		snprintf(type, sizeof type, "STRUCT<metadata: BINARY NOT NULL, value: BINARY, typed_value: %s>", cases[i].type);
		snprintf(rows, sizeof rows, "[{\"metadata\":\"010000\",\"typed_value\":%s}]", cases[i].json);
		snprintf(want, sizeof want, "%s\n", cases[i].want);
		expect_rows(type, rows, want);
	}
}

/* The rebuilt bytes are the unshredded encoding: an int8 is 0C xx, a short
 * string its one-byte header, decimal4 08 scale + 4 bytes. */
static void rebuilt_bytes(void **state)
{
	(void)state;
	dl_buf file = DL_BUF_INIT;
	write_file(&file, "STRUCT<metadata: BINARY NOT NULL, value: BINARY, typed_value: STRUCT<a: STRUCT<value: BINARY, typed_value: DECIMAL(9,2)> NOT NULL, b: STRUCT<value: BINARY, typed_value: STRING> NOT NULL>>",
	           "[{\"metadata\":\"01020001026162\",\"typed_value\":{\"a\":{\"typed_value\":-2},\"b\":{\"typed_value\":\"x\"}}}]");
	dl_type *var = dl_type_variant();
	dl_field f = {(char *)"v", var, true, (char *)"{}"};
	dl_type *req = dl_type_struct(&f, 1);
	pq_reader *r;
	assert_int_equal(pq_reader_open_memory(&r, (const uint8_t *)file.data, file.len, "shredded.parquet"), 0);
	assert_int_equal(pq_reader_set_projection(r, req, false), 0);
	dl_batch *b;
	int64_t first;
	assert_int_equal(pq_reader_next(r, &b, &first), 0);
	const dl_array *val = b->cols[0]->children[0];
	/* object, 2 fields, ids 0 1, offsets 0 6 8; decimal4 scale 2 -2; "x" */
	static const uint8_t want[] = {0x02, 0x02, 0x00, 0x01, 0x00, 0x06, 0x08, 0x20, 0x02, 0xFE, 0xFF, 0xFF, 0xFF, 0x05, 'x'};
	assert_int_equal(val->offsets[1] - val->offsets[0], (int32_t)sizeof want);
	assert_memory_equal(val->data + val->offsets[0], want, sizeof want);
	dl_batch_free(b);
	pq_reader_free(r);
	dl_type_unref(req);
	dl_type_unref(var);
	dl_buf_free(&file);
}

/* TIMESTAMP(NANOS) typed values rebuild as timestamp_ntz_nanos (19) and
 * timestamp_nanos (18) with every nanosecond (VariantEncoding.md's
 * primitive types 18 and 19): the bytes are the file's int64. */
static void shredded_nanos(void **state)
{
	(void)state;
	static const struct {
		int utc;
		const char *rows, *want;
		int64_t ns;
	} cases[] = {
	    {0, "[{\"metadata\":\"010000\",\"typed_value\":1729740123123456789}]", "\"2024-10-24 03:22:03.123456789\"",
	     1729740123123456789},
	    {1, "[{\"metadata\":\"010000\",\"typed_value\":-1}]", "\"1969-12-31 23:59:59.999999999+00:00\"", -1},
	    {0, "[{\"metadata\":\"010000\",\"typed_value\":1000}]", "\"1970-01-01 00:00:00.000001\"", 1000},
	};
	for (size_t k = 0; k < sizeof cases / sizeof *cases; k++) {
		dl_buf file = DL_BUF_INIT, text = DL_BUF_INIT;
		write_file_edit(&file, "STRUCT<metadata: BINARY NOT NULL, value: BINARY, typed_value: BIGINT>", cases[k].rows,
		                false, cases[k].utc);
		if (read_variant(&file, &text) < 0) fail_msg("%s", dl_error_last()->message);
		char want[96];
		snprintf(want, sizeof want, "%s\n", cases[k].want);
		assert_string_equal(text.data, want);
		/* the exact bytes: primitive header 18/19, then the int64 */
		dl_type *var = dl_type_variant();
		dl_field f = {(char *)"v", var, true, (char *)"{}"};
		dl_type *req = dl_type_struct(&f, 1);
		pq_reader *r;
		assert_int_equal(pq_reader_open_memory(&r, (const uint8_t *)file.data, file.len, "shredded.parquet"), 0);
		assert_int_equal(pq_reader_set_projection(r, req, false), 0);
		dl_batch *b;
		int64_t first;
		assert_int_equal(pq_reader_next(r, &b, &first), 0);
		const dl_array *val = b->cols[0]->children[0];
		uint8_t bytes[9] = {(uint8_t)((cases[k].utc ? 18 : 19) << 2)};
		memcpy(bytes + 1, &cases[k].ns, 8); /* little-endian host, as the encoding */
		assert_int_equal(val->offsets[1] - val->offsets[0], 9);
		assert_memory_equal(val->data + val->offsets[0], bytes, 9);
		dl_batch_free(b);
		pq_reader_free(r);
		dl_type_unref(req);
		dl_type_unref(var);
		dl_buf_free(&text);
		dl_buf_free(&file);
	}
}

/* A VARIANT-annotated group with typed_value is a variant in the file's
 * own schema (no projection: `parquet cat`, CONVERT TO DELTA); a malformed
 * one stays a plain group, and only reading it as a variant fails. */
static void annotated_group(void **state)
{
	(void)state;
	dl_buf file = DL_BUF_INIT;
	write_file_as(&file, "STRUCT<metadata: BINARY NOT NULL, value: BINARY, typed_value: BIGINT>",
	              "[{\"metadata\":\"010000\",\"typed_value\":34},{\"metadata\":\"010000\",\"value\":\"0d6e2f61\"}]", true);
	pq_reader *r;
	assert_int_equal(pq_reader_open_memory(&r, (const uint8_t *)file.data, file.len, "annotated.parquet"), 0);
	assert_int_equal(pq_reader_schema(r)->children[0].type->id, DL_TYPE_VARIANT);
	dl_batch *b;
	int64_t first;
	assert_int_equal(pq_reader_next(r, &b, &first), 0);
	const dl_array *a = b->cols[0];
	assert_int_equal(a->type->id, DL_TYPE_VARIANT);
	dl_buf text = DL_BUF_INIT;
	for (int64_t i = 0; i < 2; i++) {
		const dl_array *val = a->children[0], *meta = a->children[1];
		assert_int_equal(dl_variant_to_json(&text, val->data + val->offsets[i], (size_t)(val->offsets[i + 1] - val->offsets[i]),
		                                    meta->data + meta->offsets[i], (size_t)(meta->offsets[i + 1] - meta->offsets[i])), 0);
		dl_buf_putc(&text, ' ');
	}
	assert_string_equal(text.data, "34 \"n/a\" ");
	dl_buf_free(&text);
	dl_batch_free(b);
	pq_reader_free(r);
	dl_buf_free(&file);

	write_file_as(&file, "STRUCT<metadata: BINARY NOT NULL, value: BINARY, typed_value: MAP<STRING, INT>>",
	              "[{\"metadata\":\"010000\",\"value\":\"00\"}]", true);
	assert_int_equal(pq_reader_open_memory(&r, (const uint8_t *)file.data, file.len, "annotated.parquet"), 0);
	assert_int_equal(pq_reader_schema(r)->children[0].type->id, DL_TYPE_STRUCT);
	pq_reader_free(r);
	assert_int_equal(read_variant(&file, &text), DL_ECORRUPT);
	assert_non_null(strstr(dl_error_last()->message, "neither a primitive, a LIST nor a group"));
	dl_buf_free(&text);
	dl_buf_free(&file);
}

/* A Delta table with the variantShredding reader feature whose file is
 * shredded: opened and scanned, the variant rebuilt. */
static void delta_table_with_shredding(void **state)
{
	(void)state;
	fixture f;
	assert_int_equal(fixture_open(&f), 0);
	dl_buf file = DL_BUF_INIT;
	write_file(&file, "STRUCT<metadata: BINARY NOT NULL, value: BINARY, typed_value: BIGINT>",
	           "[{\"metadata\":\"010000\",\"typed_value\":34},{\"metadata\":\"010000\",\"value\":\"0d6e2f61\"},null]");
	assert_int_equal(dl_store_put(f.store, "part-0.parquet", file.data, file.len), 0);
	char add[512];
	snprintf(add, sizeof add,
	         "{\"add\":{\"path\":\"part-0.parquet\",\"partitionValues\":{},\"size\":%zu,\"modificationTime\":1,\"dataChange\":true}}",
	         file.len);
	const char *lines[] = {
	    "{\"protocol\":{\"minReaderVersion\":3,\"minWriterVersion\":7,\"readerFeatures\":[\"variantType\",\"variantShredding\"],"
	    "\"writerFeatures\":[\"variantType\",\"variantShredding\"]}}",
	    "{\"metaData\":{\"id\":\"a\",\"format\":{\"provider\":\"parquet\",\"options\":{}},\"schemaString\":"
	    "\"{\\\"type\\\":\\\"struct\\\",\\\"fields\\\":[{\\\"name\\\":\\\"v\\\",\\\"type\\\":\\\"variant\\\",\\\"nullable\\\":true,"
	    "\\\"metadata\\\":{}}]}\",\"partitionColumns\":[],\"configuration\":{\"delta.enableVariantShredding\":\"true\"},"
	    "\"createdTime\":1}}",
	    add};
	assert_int_equal(fixture_commit(&f, 0, lines, 3), 0);
	dl_batch *b = NULL;
	int rc = fixture_scan(&b, f.dir, NULL, NULL);
	if (rc < 0) fail_msg("scan failed: %s", dl_error_last()->message);
	assert_non_null(b);
	assert_int_equal(b->num_rows, 3);
	const dl_array *a = b->cols[0];
	assert_int_equal(a->type->id, DL_TYPE_VARIANT);
	dl_buf text = DL_BUF_INIT;
	for (int64_t i = 0; i < 2; i++) {
		const dl_array *val = a->children[0], *meta = a->children[1];
		assert_int_equal(dl_variant_to_json(&text, val->data + val->offsets[i], (size_t)(val->offsets[i + 1] - val->offsets[i]),
		                                    meta->data + meta->offsets[i], (size_t)(meta->offsets[i + 1] - meta->offsets[i])), 0);
		dl_buf_putc(&text, ' ');
	}
	assert_string_equal(text.data, "34 \"n/a\" ");
	assert_false(dl_array_is_valid(a, 2));
	dl_buf_free(&text);
	dl_batch_free(b);
	dl_buf_free(&file);
	fixture_close(&f);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(shredded_int64),  cmocka_unit_test(shredded_array),
	    cmocka_unit_test(shredded_object), cmocka_unit_test(shredded_object_invalid),
	    cmocka_unit_test(shredded_nested), cmocka_unit_test(shredded_scalars),
	    cmocka_unit_test(rebuilt_bytes),   cmocka_unit_test(annotated_group),
	    cmocka_unit_test(shredded_nanos),
	    cmocka_unit_test(delta_table_with_shredding),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
