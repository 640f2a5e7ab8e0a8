/* Parquet reader unit tests without DuckDB: schema conversion of every
 * legacy list/map layout (synthetic footers), projection by name, nested
 * field, field id and absent columns, type widening, row-group selection,
 * statistics, and hostile inputs (mutated and truncated files). */
#include <dirent.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <cmocka.h>
#include <string.h>
#include "columnar/builder.h"
#include "parquet/reader.h"
#include "parquet/schema_read.h"
#include "parquet/writer.h"
#include "util/error.h"
#include "util/mem.h"

/* ---- synthetic schemas ---- */

#define GROUP(n, rep, nc, ct) {.name = (char *)(n), .has_repetition = true, .repetition = (rep), \
	.has_num_children = true, .num_children = (nc), .converted_type = (ct)}
#define PRIM(n, rep, t, ct) {.name = (char *)(n), .has_repetition = true, .repetition = (rep), \
	.has_type = true, .type = (t), .converted_type = (ct)}
#define ROOT(nc) {.name = (char *)"schema", .has_num_children = true, .num_children = (nc), .converted_type = PQ_CT_NONE}

static void expect_schema(pq_schema_element *els, uint32_t n, const char *want)
{
	pq_file_metadata md = {0};
	md.schema = els;
	md.nschema = n;
	pq_schema s;
	int rc = pq_schema_build(&s, &md, "t.parquet");
	if (rc < 0) fail_msg("%s", dl_error_last()->message);
	char got[512];
	dl_type_sql(s.type, got, sizeof got);
	assert_string_equal(got, want);
	pq_schema_free(&s);
}

static void test_legacy_lists(void **state)
{
	(void)state;
	/* 2-level list: the repeated primitive is the element. */
	pq_schema_element a[] = {ROOT(1), GROUP("l", PQ_OPTIONAL, 1, PQ_CT_LIST), PRIM("element", PQ_REPEATED, PQ_INT32, PQ_CT_NONE)};
	expect_schema(a, 3, "STRUCT<l: ARRAY<INT>>");
	/* standard 3-level list */
	pq_schema_element b[] = {ROOT(1), GROUP("l", PQ_OPTIONAL, 1, PQ_CT_LIST), GROUP("list", PQ_REPEATED, 1, PQ_CT_NONE),
	                         PRIM("element", PQ_OPTIONAL, PQ_BYTE_ARRAY, PQ_CT_UTF8)};
	expect_schema(b, 4, "STRUCT<l: ARRAY<STRING>>");
	/* a repeated group named "array" or "<list>_tuple" is the element */
	pq_schema_element c[] = {ROOT(1), GROUP("l", PQ_OPTIONAL, 1, PQ_CT_LIST), GROUP("array", PQ_REPEATED, 1, PQ_CT_NONE),
	                         PRIM("x", PQ_REQUIRED, PQ_INT32, PQ_CT_NONE)};
	expect_schema(c, 4, "STRUCT<l: ARRAY<STRUCT<x: INT>>>");
	pq_schema_element d[] = {ROOT(1), GROUP("l", PQ_OPTIONAL, 1, PQ_CT_LIST), GROUP("l_tuple", PQ_REPEATED, 1, PQ_CT_NONE),
	                         PRIM("x", PQ_REQUIRED, PQ_INT32, PQ_CT_NONE)};
	expect_schema(d, 4, "STRUCT<l: ARRAY<STRUCT<x: INT>>>");
	/* a repeated group with several fields is the element */
	pq_schema_element e[] = {ROOT(1), GROUP("l", PQ_OPTIONAL, 1, PQ_CT_LIST), GROUP("rec", PQ_REPEATED, 2, PQ_CT_NONE),
	                         PRIM("x", PQ_REQUIRED, PQ_INT32, PQ_CT_NONE), PRIM("y", PQ_OPTIONAL, PQ_DOUBLE, PQ_CT_NONE)};
	expect_schema(e, 5, "STRUCT<l: ARRAY<STRUCT<x: INT, y: DOUBLE>>>");
	/* Hive's bag/array_element: a 3-level list */
	pq_schema_element f[] = {ROOT(1), GROUP("l", PQ_OPTIONAL, 1, PQ_CT_LIST), GROUP("bag", PQ_REPEATED, 1, PQ_CT_NONE),
	                         PRIM("array_element", PQ_OPTIONAL, PQ_INT64, PQ_CT_NONE)};
	expect_schema(f, 4, "STRUCT<l: ARRAY<BIGINT>>");
	/* bare repeated fields outside any LIST: required lists */
	pq_schema_element g[] = {ROOT(2), PRIM("nums", PQ_REPEATED, PQ_INT32, PQ_CT_NONE), GROUP("recs", PQ_REPEATED, 1, PQ_CT_NONE),
	                         PRIM("s", PQ_OPTIONAL, PQ_BYTE_ARRAY, PQ_CT_UTF8)};
	expect_schema(g, 4, "STRUCT<nums: ARRAY<INT>, recs: ARRAY<STRUCT<s: STRING>>>");
}

static void test_maps_and_logical_types(void **state)
{
	(void)state;
	pq_schema_element m[] = {ROOT(2), GROUP("m", PQ_OPTIONAL, 1, PQ_CT_MAP), GROUP("key_value", PQ_REPEATED, 2, PQ_CT_NONE),
	                         PRIM("key", PQ_REQUIRED, PQ_BYTE_ARRAY, PQ_CT_UTF8), PRIM("value", PQ_OPTIONAL, PQ_INT32, PQ_CT_NONE),
	                         /* legacy: MAP_KEY_VALUE on the outer group */
	                         GROUP("old", PQ_OPTIONAL, 1, PQ_CT_MAP_KEY_VALUE), GROUP("map", PQ_REPEATED, 2, PQ_CT_NONE),
	                         PRIM("key", PQ_REQUIRED, PQ_INT64, PQ_CT_NONE), PRIM("value", PQ_REQUIRED, PQ_BOOLEAN, PQ_CT_NONE)};
	expect_schema(m, 9, "STRUCT<m: MAP<STRING, INT>, old: MAP<BIGINT, BOOLEAN>>");

	pq_schema_element t[] = {ROOT(8), PRIM("ts96", PQ_OPTIONAL, PQ_INT96, PQ_CT_NONE),
	                         PRIM("tsm", PQ_OPTIONAL, PQ_INT64, PQ_CT_TIMESTAMP_MILLIS),
	                         PRIM("ntz", PQ_OPTIONAL, PQ_INT64, PQ_CT_NONE), PRIM("u64", PQ_OPTIONAL, PQ_INT64, PQ_CT_UINT_64),
	                         PRIM("d", PQ_OPTIONAL, PQ_INT32, PQ_CT_DECIMAL), PRIM("i8", PQ_OPTIONAL, PQ_INT32, PQ_CT_INT_8),
	                         PRIM("u8", PQ_OPTIONAL, PQ_INT32, PQ_CT_UINT_8), PRIM("j", PQ_OPTIONAL, PQ_BYTE_ARRAY, PQ_CT_JSON)};
	t[3].logical = (pq_logical_type){.kind = PQ_LT_TIMESTAMP, .is_adjusted_to_utc = false, .unit = PQ_UNIT_NANOS};
	t[5].has_precision = t[5].has_scale = true;
	t[5].precision = 9;
	t[5].scale = 2;
	expect_schema(t, 9, "STRUCT<ts96: TIMESTAMP, tsm: TIMESTAMP, ntz: TIMESTAMP_NTZ, u64: DECIMAL(20,0), d: DECIMAL(9,2), "
	                    "i8: TINYINT, u8: SMALLINT, j: STRING>");
}

static void test_field_ids_in_metadata(void **state)
{
	(void)state;
	pq_schema_element a[] = {ROOT(1), PRIM("a", PQ_OPTIONAL, PQ_INT32, PQ_CT_NONE)};
	a[1].has_field_id = true;
	a[1].field_id = 42;
	pq_file_metadata md = {.schema = a, .nschema = 2};
	pq_schema s;
	assert_int_equal(pq_schema_build(&s, &md, "t.parquet"), 0);
	assert_string_equal(s.type->children[0].metadata, "{\"parquet.field.id\":42}");
	pq_schema_free(&s);
}

static void test_hostile_schemas(void **state)
{
	(void)state;
	pq_file_metadata md = {0};
	pq_schema s;
	/* more children than elements */
	pq_schema_element a[] = {ROOT(5), PRIM("a", PQ_OPTIONAL, PQ_INT32, PQ_CT_NONE)};
	md.schema = a;
	md.nschema = 2;
	assert_int_equal(pq_schema_build(&s, &md, "t.parquet"), DL_ECORRUPT);
	/* FIXED_LEN_BYTE_ARRAY without a length */
	pq_schema_element b[] = {ROOT(1), PRIM("f", PQ_OPTIONAL, PQ_FIXED_LEN_BYTE_ARRAY, PQ_CT_NONE)};
	md.schema = b;
	assert_int_equal(pq_schema_build(&s, &md, "t.parquet"), DL_ECORRUPT);
	/* nesting deeper than the limit */
	enum { DEPTH = 100 };
	pq_schema_element deep[DEPTH + 1];
	deep[0] = (pq_schema_element)ROOT(1);
	for (int i = 1; i < DEPTH; i++) deep[i] = (pq_schema_element)GROUP("g", PQ_OPTIONAL, 1, PQ_CT_NONE);
	deep[DEPTH] = (pq_schema_element)PRIM("x", PQ_OPTIONAL, PQ_INT32, PQ_CT_NONE);
	md.schema = deep;
	md.nschema = DEPTH + 1;
	assert_int_equal(pq_schema_build(&s, &md, "t.parquet"), DL_ECORRUPT);
	assert_non_null(strstr(dl_error_last()->message, "t.parquet"));
	/* decimal precision beyond 38 */
	pq_schema_element c[] = {ROOT(1), PRIM("d", PQ_OPTIONAL, PQ_BYTE_ARRAY, PQ_CT_DECIMAL)};
	c[1].has_precision = true;
	c[1].precision = 40;
	md.schema = c;
	md.nschema = 2;
	assert_int_equal(pq_schema_build(&s, &md, "t.parquet"), DL_EUNSUPPORTED);
}

/* ---- a file written by our writer ---- */

static dl_type *t_long, *t_str, *t_dbl, *t_int, *t_arr, *t_st, *g_schema;
static dl_buf g_file = DL_BUF_INIT;

static int make_file(void **state)
{
	(void)state;
	t_long = dl_type_new(DL_TYPE_LONG);
	t_str = dl_type_new(DL_TYPE_STRING);
	t_dbl = dl_type_new(DL_TYPE_DOUBLE);
	t_int = dl_type_new(DL_TYPE_INTEGER);
	t_arr = dl_type_array(t_str, true);
	dl_field sf[] = {{(char *)"a", t_int, true, (char *)"{}"}, {(char *)"b", t_str, true, (char *)"{}"}};
	t_st = dl_type_struct(sf, 2);
	dl_field f[] = {{(char *)"id", t_long, false, (char *)"{}"}, {(char *)"Name", t_str, true, (char *)"{}"},
	                {(char *)"score", t_dbl, true, (char *)"{}"}, {(char *)"tags", t_arr, true, (char *)"{}"},
	                {(char *)"st", t_st, true, (char *)"{}"}};
	g_schema = dl_type_struct(f, 5);
	dl_builder *b[5];
	for (int i = 0; i < 5; i++)
		if (dl_builder_new(&b[i], g_schema->children[i].type)) return -1;
	enum { N = 3000 };
	for (int i = 0; i < N; i++) {
		char s[32];
		snprintf(s, sizeof s, "name%d", i % 50);
		if (dl_builder_append_int(b[0], i)) return -1;
		if ((i % 10 == 3 ? dl_builder_append_null(b[1]) : dl_builder_append_str(b[1], s))) return -1;
		if (dl_builder_append_double(b[2], i * 0.25)) return -1;
		/* tags: i % 3 strings; st: {a: i, b: name or null}; both null every 7th row */
		if (i % 7 == 0) {
			if (dl_builder_append_null(b[3]) || dl_builder_append_null(b[4])) return -1;
			continue;
		}
		if (dl_builder_begin_list(b[3])) return -1;
		for (int k = 0; k < i % 3; k++)
			if (dl_builder_append_str(dl_builder_child(b[3], 0), k ? "t1" : "t0")) return -1;
		if (dl_builder_end_list(b[3]) || dl_builder_begin_struct(b[4]) || dl_builder_append_int(dl_builder_child(b[4], 0), i))
			return -1;
		if ((i % 2 ? dl_builder_append_str(dl_builder_child(b[4], 1), s) : dl_builder_append_null(dl_builder_child(b[4], 1))))
			return -1;
		if (dl_builder_end_struct(b[4])) return -1;
	}
	dl_batch *batch = dl_batch_new(g_schema, N);
	for (int i = 0; i < 5; i++)
		if (!batch || dl_builder_finish(&batch->cols[i], b[i])) return -1;
	for (int i = 0; i < 5; i++) dl_builder_free(b[i]);
	pq_sink sink;
	pq_sink_init_buf(&sink, &g_file);
	pq_writer_options o = PQ_WRITER_OPTIONS_INIT;
	o.row_group_rows = 1000;
	pq_writer *w;
	if (pq_writer_open(&w, g_schema, &sink, &o) || pq_writer_write(w, batch) || pq_writer_close(w)) {
		fprintf(stderr, "writer: %s\n", dl_error_last()->message);
		return -1;
	}
	pq_writer_free(w);
	dl_batch_free(batch);
	return 0;
}

static int free_file(void **state)
{
	(void)state;
	dl_buf_free(&g_file);
	dl_type_unref(g_schema);
	dl_type_unref(t_st);
	dl_type_unref(t_arr);
	dl_type_unref(t_long);
	dl_type_unref(t_str);
	dl_type_unref(t_dbl);
	dl_type_unref(t_int);
	return 0;
}

static pq_reader *open_file(void)
{
	pq_reader *r;
	if (pq_reader_open_memory(&r, (const uint8_t *)g_file.data, g_file.len, "w.parquet") < 0)
		fail_msg("%s", dl_error_last()->message);
	return r;
}

static void test_projection_by_name_and_row_groups(void **state)
{
	(void)state;
	pq_reader *r = open_file();
	assert_int_equal(pq_reader_num_rows(r), 3000);
	assert_int_equal(pq_reader_num_row_groups(r), 3);
	const char *names[] = {"NAME", "Id"};
	assert_int_equal(pq_reader_select_columns(r, names, 2), 0);
	const char *missing[] = {"nope"};
	int groups[] = {2, 0};
	assert_int_equal(pq_reader_set_row_groups(r, groups, 2), 0);
	assert_int_equal(pq_reader_set_batch_size(r, 400), 0);
	const int64_t firsts[] = {2000, 2400, 2800, 0, 400, 800};
	for (int k = 0; k < 6; k++) {
		dl_batch *b;
		int64_t first;
		assert_int_equal(pq_reader_next(r, &b, &first), 0);
		assert_non_null(b);
		assert_int_equal(first, firsts[k]);
		assert_int_equal(b->ncols, 2);
		assert_string_equal(b->schema->children[0].name, "Name");
		const dl_array *name = b->cols[0], *id = b->cols[1];
		for (int64_t i = 0; i < b->num_rows; i++) {
			int64_t row = first + i;
			assert_int_equal(((const int64_t *)id->values)[i], row);
			assert_int_equal(dl_array_is_valid(name, i), row % 10 != 3);
			if (row % 10 != 3) {
				char want[32];
				snprintf(want, sizeof want, "name%d", (int)(row % 50));
				assert_int_equal(name->offsets[i + 1] - name->offsets[i], (int)strlen(want));
				assert_memory_equal(name->data + name->offsets[i], want, strlen(want));
			}
		}
		dl_batch_free(b);
	}
	dl_batch *b;
	int64_t first;
	assert_int_equal(pq_reader_next(r, &b, &first), 0);
	assert_null(b);
	/* settings are fixed once reading started */
	assert_int_equal(pq_reader_select_columns(r, names, 1), DL_EINVALID);
	pq_reader_free(r);

	r = open_file();
	assert_int_equal(pq_reader_select_columns(r, missing, 1), DL_ENOTFOUND);
	int bad[] = {3};
	assert_int_equal(pq_reader_set_row_groups(r, bad, 1), DL_EINVALID);
	pq_reader_free(r);
}

static void test_projection_by_type_absent_and_widening(void **state)
{
	(void)state;
	pq_reader *r = open_file();
	/* st.b only (nested projection) plus st.zz absent, id widened to
	 * double, and a top-level column the file does not have. */
	dl_field stf[] = {{(char *)"B", t_str, true, (char *)"{}"}, {(char *)"zz", t_int, true, (char *)"{}"}};
	dl_type *st = dl_type_struct(stf, 2);
	dl_field f[] = {{(char *)"st", st, true, (char *)"{}"}, {(char *)"id", t_dbl, true, (char *)"{}"},
	                {(char *)"extra", t_int, true, (char *)"{}"}};
	dl_type *req = dl_type_struct(f, 3);
	assert_int_equal(pq_reader_set_projection(r, req, false), 0);
	assert_true(dl_type_equals(pq_reader_output_schema(r), req));
	dl_batch *b;
	int64_t first;
	assert_int_equal(pq_reader_next(r, &b, &first), 0);
	assert_int_equal(b->num_rows, 1000);
	assert_int_equal(b->cols[0]->nchildren, 2);
	assert_int_equal(b->cols[0]->children[0]->length, 1000);
	assert_false(dl_array_is_valid(b->cols[0], 7)); /* st is null every 7th row */
	const dl_array *stb = b->cols[0]->children[0];
	assert_true(dl_array_is_valid(stb, 5));
	assert_memory_equal(stb->data + stb->offsets[5], "name5", 5);
	assert_false(dl_array_is_valid(stb, 4)); /* b null for even rows */
	assert_false(dl_array_is_valid(b->cols[0]->children[1], 5)); /* zz is absent */
	assert_true(((const double *)b->cols[1]->values)[7] == 7.0);
	assert_int_equal(b->cols[2]->length, 1000);
	assert_false(dl_array_is_valid(b->cols[2], 0));
	dl_batch_free(b);
	pq_reader_free(r);
	/* an incompatible request is a schema error naming the column */
	r = open_file();
	dl_field g[] = {{(char *)"Name", t_long, true, (char *)"{}"}};
	dl_type *bad = dl_type_struct(g, 1);
	assert_int_equal(pq_reader_set_projection(r, bad, false), DL_ESCHEMA);
	assert_non_null(strstr(dl_error_last()->message, "Name"));
	pq_reader_free(r);
	dl_type_unref(bad);
	dl_type_unref(req);
	dl_type_unref(st);
}

static void test_projection_by_paths(void **state)
{
	(void)state;
	pq_reader *r = open_file();
	const char *paths[] = {"ST.b", "id", "st.A", "tags"};
	assert_int_equal(pq_reader_select_paths(r, paths, 4), 0);
	char sql[256];
	dl_type_sql(pq_reader_output_schema(r), sql, sizeof sql);
	assert_string_equal(sql, "STRUCT<st: STRUCT<b: STRING, a: INT>, id: BIGINT, tags: ARRAY<STRING>>");
	dl_batch *b;
	int64_t first;
	assert_int_equal(pq_reader_next(r, &b, &first), 0);
	assert_int_equal(b->ncols, 3);
	assert_int_equal(((const int64_t *)b->cols[1]->values)[999], 999);
	/* tags of row 5: ["t0", "t1"]; row 7: null */
	const dl_array *tags = b->cols[2];
	assert_int_equal(tags->offsets[6] - tags->offsets[5], 2);
	assert_false(dl_array_is_valid(tags, 7));
	const dl_array *sta = b->cols[0]->children[1];
	assert_int_equal(((const int32_t *)sta->values)[5], 5);
	dl_batch_free(b);
	pq_reader_free(r);
	r = open_file();
	const char *bad[] = {"st.nope"};
	assert_int_equal(pq_reader_select_paths(r, bad, 1), DL_ENOTFOUND);
	assert_non_null(strstr(dl_error_last()->message, "nope"));
	pq_reader_free(r);
}

static void test_statistics(void **state)
{
	(void)state;
	pq_reader *r = open_file();
	int id = pq_reader_find_leaf(r, "ID"), name = pq_reader_find_leaf(r, "name"), score = pq_reader_find_leaf(r, "score");
	assert_true(id >= 0 && name >= 0 && score >= 0);
	assert_int_equal(pq_reader_find_leaf(r, "nope"), -1);
	pq_column_stats st;
	assert_int_equal(pq_reader_column_stats(r, 1, id, &st), 0);
	assert_true(st.has_min_max);
	assert_int_equal(st.min.i, 1000);
	assert_int_equal(st.max.i, 1999);
	assert_true(st.has_null_count);
	assert_int_equal(st.null_count, 0);
	assert_int_equal(pq_reader_column_stats(r, 0, name, &st), 0);
	assert_true(st.has_min_max);
	assert_int_equal(st.null_count, 100);
	assert_memory_equal(st.min.s, "name0", 5);
	assert_int_equal(pq_reader_column_stats(r, 2, score, &st), 0);
	assert_true(st.min.d == 500.0 && st.max.d == 2999 * 0.25);
	assert_int_equal(pq_reader_column_stats(r, 3, id, &st), DL_EINVALID);
	pq_reader_free(r);
}

/* ---- hostile files ---- */

static int g_located; /* errors that named row group, column and page */

static void decode_all(const uint8_t *p, size_t n)
{
	pq_reader *r;
	if (pq_reader_open_memory(&r, p, n, "m.parquet") < 0) {
		assert_int_not_equal(dl_error_last()->code, DL_OK);
		assert_non_null(strstr(dl_error_last()->message, "m.parquet"));
		return;
	}
	/* statistics of every chunk (hostile bounds must not overflow) */
	for (int g = 0; g < pq_reader_num_row_groups(r); g++)
		for (int c = 0; c < pq_reader_num_leaves(r); c++) {
			pq_column_stats st;
			assert_int_equal(pq_reader_column_stats(r, g, c, &st), 0);
		}
	pq_reader_set_batch_size(r, 7);
	for (;;) {
		dl_batch *b;
		int64_t first;
		int rc = pq_reader_next(r, &b, &first);
		if (rc < 0) {
			const char *m = dl_error_last()->message;
			if (!strstr(m, "m.parquet")) fail_msg("error without the file name: %s", m);
			if (strstr(m, "m.parquet: row group ") && strstr(m, ", column '") && strstr(m, "', page ")) g_located++;
		}
		if (rc < 0 || !b) break;
		dl_batch_free(b);
	}
	pq_reader_free(r);
}

static void mutate_file(const uint8_t *orig, size_t n)
{
	uint8_t *m = malloc(n);
	for (size_t i = 0; i < n; i++) {
		static const uint8_t vals[] = {0x00, 0xff, 0x7f, 0x80};
		for (size_t k = 0; k < sizeof vals; k++) {
			memcpy(m, orig, n);
			m[i] = (uint8_t)(k == 1 ? ~orig[i] : vals[k]);
			decode_all(m, n);
		}
	}
	for (size_t len = 0; len < n; len++) decode_all(orig, len);
	free(m);
}

static void test_mutated_and_truncated_files_fail_cleanly(void **state)
{
	(void)state;
	/* our writer's file, every byte changed */
	mutate_file((const uint8_t *)g_file.data, g_file.len > 6000 ? 6000 : g_file.len);
	/* and the fuzz seeds written by DuckDB (nested types, v1/v2 pages) */
	DIR *d = opendir(DL_SOURCE_DIR "/fuzz/corpus/parquet");
	assert_non_null(d);
	int files = 0;
	for (struct dirent *e; (e = readdir(d));) {
		if (!strstr(e->d_name, ".parquet")) continue;
		char path[1024];
		snprintf(path, sizeof path, "%s/fuzz/corpus/parquet/%s", DL_SOURCE_DIR, e->d_name);
		FILE *f = fopen(path, "rb");
		assert_non_null(f);
		uint8_t buf[65536];
		size_t n = fread(buf, 1, sizeof buf, f);
		fclose(f);
		decode_all(buf, n);
		mutate_file(buf, n);
		files++;
	}
	closedir(d);
	assert_true(files >= 3);
	/* data errors say where: "file: row group R, column 'c', page P: ..." */
	assert_true(g_located > 0);
}

/* Thrift: deep nesting, huge lists and truncation fail as corrupt. */
static void test_hostile_thrift_footers(void **state)
{
	(void)state;
	dl_arena arena = DL_ARENA_INIT;
	pq_file_metadata md;
	/* field 20 (unknown) of type struct, nested 200 deep */
	uint8_t deep[402];
	for (int i = 0; i < 200; i++) {
		deep[2 * i] = 0x0C; /* delta 0, type struct: id as zigzag varint follows */
		deep[2 * i + 1] = 40;
	}
	deep[400] = 0;
	deep[401] = 0;
	assert_int_equal(pq_file_metadata_decode(&md, &arena, deep, sizeof deep, "d.parquet"), DL_ECORRUPT);
	assert_non_null(strstr(dl_error_last()->message, "d.parquet"));
	/* schema: a list claiming 2^31 elements in a few bytes */
	const uint8_t huge[] = {0x29, 0xFC, 0xFF, 0xFF, 0xFF, 0x0F, 0x00};
	assert_int_equal(pq_file_metadata_decode(&md, &arena, huge, sizeof huge, "h.parquet"), DL_ECORRUPT);
	/* a string longer than the bytes left */
	const uint8_t str[] = {0x68, 0x7F, 'a'};
	assert_int_equal(pq_file_metadata_decode(&md, &arena, str, sizeof str, "s.parquet"), DL_ECORRUPT);
	/* every prefix of a real footer */
	const uint8_t *end = (const uint8_t *)g_file.data + g_file.len;
	uint32_t flen;
	memcpy(&flen, end - 8, 4);
	const uint8_t *footer = end - 8 - flen;
	for (uint32_t n = 0; n < flen; n++) {
		dl_arena_reset(&arena);
		assert_int_not_equal(pq_file_metadata_decode(&md, &arena, footer, n, "p.parquet"), 0);
	}
	dl_arena_reset(&arena);
	assert_int_equal(pq_file_metadata_decode(&md, &arena, footer, flen, "p.parquet"), 0);
	assert_int_equal(md.num_rows, 3000);
	dl_arena_free(&arena);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_legacy_lists),
		cmocka_unit_test(test_maps_and_logical_types),
		cmocka_unit_test(test_field_ids_in_metadata),
		cmocka_unit_test(test_hostile_schemas),
		cmocka_unit_test(test_projection_by_name_and_row_groups),
		cmocka_unit_test(test_projection_by_type_absent_and_widening),
		cmocka_unit_test(test_projection_by_paths),
		cmocka_unit_test(test_statistics),
		cmocka_unit_test(test_mutated_and_truncated_files_fail_cleanly),
		cmocka_unit_test(test_hostile_thrift_footers),
	};
	return cmocka_run_group_tests(tests, make_file, free_file);
}
