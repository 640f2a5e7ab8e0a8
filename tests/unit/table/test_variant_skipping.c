/* Data skipping on shredded variant paths: a Delta table whose files hold
 * `v` shredded as {a: BIGINT} (the group Spark 4 writes: metadata, value,
 * typed_value.a.{value, typed_value}) and whose add actions carry the
 * variant statistics PROTOCOL.md defines (minValues.v / maxValues.v: z85
 * of metadata || value of an object keyed by $['a']). Filters with
 * variant_get are scanned: the rows equal an unfiltered scan filtered
 * afterwards, and files outside the bounds are skipped (scan metrics),
 * only when the cast of the recorded type is exact. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include "expr/parse_util.h"
#include "expr/variant_encode.h"
#include "table/scan.h"
#include "table_fixture.h"
#include "util/z85.h"

static const uint8_t META_A[] = {0x01, 0x01, 0x00, 0x01, 'a'}; /* dictionary ["a"] */

/* A file of `n` rows: a = vals[i]; INT64_MIN leaves `a` out of the
 * object, INT64_MAX makes the row's v NULL. */
static void write_file(fixture *f, const char *path, const int64_t *vals, int n, int64_t *size)
{
	dl_type *vt;
	if (ex_parse_type_text(&vt, "STRUCT<metadata: BINARY NOT NULL, value: BINARY, "
	                            "typed_value: STRUCT<a: STRUCT<value: BINARY, typed_value: BIGINT> NOT NULL>>") < 0)
		fail_msg("%s", dl_error_last()->message);
	dl_field fld = {(char *)"v", vt, true, (char *)"{}"};
	dl_type *schema = dl_type_struct(&fld, 1);
	dl_batch *b = dl_batch_new(schema, n);
	dl_builder *bl;
	assert_int_equal(dl_builder_new(&bl, vt), 0);
	for (int i = 0; i < n; i++) {
		if (vals[i] == INT64_MAX) {
			assert_int_equal(dl_builder_append_null(bl), 0);
			continue;
		}
		assert_int_equal(dl_builder_begin_struct(bl), 0);
		assert_int_equal(dl_builder_append_bytes(dl_builder_child(bl, 0), META_A, sizeof META_A), 0);
		assert_int_equal(dl_builder_append_null(dl_builder_child(bl, 1)), 0);
		dl_builder *tv = dl_builder_child(bl, 2), *a = dl_builder_child(tv, 0);
		assert_int_equal(dl_builder_begin_struct(tv), 0);
		assert_int_equal(dl_builder_begin_struct(a), 0);
		assert_int_equal(dl_builder_append_null(dl_builder_child(a, 0)), 0);
		dl_builder *x = dl_builder_child(a, 1);
		assert_int_equal(vals[i] == INT64_MIN ? dl_builder_append_null(x) : dl_builder_append_int(x, vals[i]), 0);
		assert_int_equal(dl_builder_end_struct(a), 0);
		assert_int_equal(dl_builder_end_struct(tv), 0);
		assert_int_equal(dl_builder_end_struct(bl), 0);
	}
	assert_int_equal(dl_builder_finish(&b->cols[0], bl), 0);
	dl_builder_free(bl);
	assert_int_equal(fixture_parquet(f, path, b, size), 0); /* frees b */
	dl_type_unref(schema);
	dl_type_unref(vt);
}

/* z85 of the stats variant {"$['a']": bound} as Delta writes it. */
static void stat_z85(dl_buf *out, int64_t bound)
{
	char json[64];
	snprintf(json, sizeof json, "{\"$['a']\": %lld}", (long long)bound);
	dl_buf val = DL_BUF_INIT, meta = DL_BUF_INIT, both = DL_BUF_INIT;
	assert_int_equal(ex_variant_from_json(&val, &meta, json, strlen(json)), 0);
	dl_buf_append(&both, meta.data, meta.len);
	dl_buf_append(&both, val.data, val.len);
	assert_int_equal(dl_z85_encode(out, both.data, both.len), 0);
	dl_buf_free(&val);
	dl_buf_free(&meta);
	dl_buf_free(&both);
}

static void add_line(dl_buf *out, const char *path, int64_t size, int n, int nulls, int64_t min, int64_t max)
{
	dl_buf lo = DL_BUF_INIT, hi = DL_BUF_INIT;
	stat_z85(&lo, min);
	stat_z85(&hi, max);
	dl_buf_printf(out,
	              "{\"add\":{\"path\":\"%s\",\"partitionValues\":{},\"size\":%lld,\"modificationTime\":1,"
	              "\"dataChange\":true,\"stats\":\"{\\\"numRecords\\\":%d,\\\"minValues\\\":{\\\"v\\\":\\\"%s\\\"},"
	              "\\\"maxValues\\\":{\\\"v\\\":\\\"%s\\\"},\\\"nullCount\\\":{\\\"v\\\":%d}}\"}}",
	              path, (long long)size, n, lo.data, hi.data, nulls);
	dl_buf_free(&lo);
	dl_buf_free(&hi);
}

static fixture F;

static int setup(void **state)
{
	(void)state;
	assert_int_equal(fixture_open(&F), 0);
	const int64_t f0[] = {1, 5, 3}, f1[] = {20, 25, INT64_MAX}, f2[] = {8, INT64_MIN, 12, 10};
	const int64_t nulls[] = {INT64_MAX, INT64_MAX};
	int64_t s0, s1, s2, s3;
	write_file(&F, "part-0.parquet", f0, 3, &s0);
	write_file(&F, "part-1.parquet", f1, 3, &s1);
	write_file(&F, "part-2.parquet", f2, 4, &s2);
	write_file(&F, "part-3.parquet", nulls, 2, &s3);
	dl_buf a0 = DL_BUF_INIT, a1 = DL_BUF_INIT, a2 = DL_BUF_INIT, a3 = DL_BUF_INIT;
	add_line(&a0, "part-0.parquet", s0, 3, 0, 1, 5);
	add_line(&a1, "part-1.parquet", s1, 3, 1, 20, 25);
	add_line(&a2, "part-2.parquet", s2, 4, 0, 8, 12);
	/* every v NULL: no bounds, only the null count */
	dl_buf_printf(&a3,
	              "{\"add\":{\"path\":\"part-3.parquet\",\"partitionValues\":{},\"size\":%lld,\"modificationTime\":1,"
	              "\"dataChange\":true,\"stats\":\"{\\\"numRecords\\\":2,\\\"nullCount\\\":{\\\"v\\\":2}}\"}}",
	              (long long)s3);
	const char *lines[] = {
	    "{\"protocol\":{\"minReaderVersion\":3,\"minWriterVersion\":7,\"readerFeatures\":[\"variantType\",\"variantShredding\"],"
	    "\"writerFeatures\":[\"variantType\",\"variantShredding\"]}}",
	    "{\"metaData\":{\"id\":\"a\",\"format\":{\"provider\":\"parquet\",\"options\":{}},\"schemaString\":"
	    "\"{\\\"type\\\":\\\"struct\\\",\\\"fields\\\":[{\\\"name\\\":\\\"v\\\",\\\"type\\\":\\\"variant\\\",\\\"nullable\\\":true,"
	    "\\\"metadata\\\":{}}]}\",\"partitionColumns\":[],\"configuration\":{\"delta.enableVariantShredding\":\"true\"},"
	    "\"createdTime\":1}}",
	    a0.data, a1.data, a2.data, a3.data};
	assert_int_equal(fixture_commit(&F, 0, lines, 6), 0);
	dl_buf_free(&a0);
	dl_buf_free(&a1);
	dl_buf_free(&a2);
	dl_buf_free(&a3);
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	fixture_close(&F);
	return 0;
}

/* The values of `expr` (an int) over the rows of a scan, sorted, as text. */
static void values(char *out, size_t cap, const dl_batch *b, const char *expr)
{
	out[0] = 0;
	if (!b) return;
	dl_expr *e;
	assert_int_equal(dl_expr_parse(&e, expr), 0);
	assert_int_equal(dl_expr_bind(e, b->schema), 0);
	dl_array *a;
	assert_int_equal(dl_expr_eval(&a, e, b, NULL), 0);
	int64_t v[64];
	int n = 0;
	for (int64_t i = 0; i < a->length && n < 64; i++)
		v[n++] = dl_array_is_valid(a, i) ? ((const int64_t *)a->values)[i] : INT64_MIN;
	for (int i = 1; i < n; i++)
		for (int j = i; j > 0 && v[j - 1] > v[j]; j--) {
			int64_t t = v[j];
			v[j] = v[j - 1];
			v[j - 1] = t;
		}
	size_t o = 0;
	for (int i = 0; i < n; i++)
		o += (size_t)snprintf(out + o, cap - o, v[i] == INT64_MIN ? "%sNULL" : "%s%lld", i ? " " : "", (long long)v[i]);
	dl_array_free(a);
	dl_expr_free(e);
}

/* Scans with `filter`; checks the rows against the unfiltered scan filtered
 * afterwards, and the number of files skipped by statistics. */
static void check(const char *filter, size_t skipped, const char *want)
{
	dl_scan_options o = DL_SCAN_OPTIONS_INIT;
	o.filter = filter;
	dl_scan_metrics m;
	dl_batch *got = NULL, *all = NULL;
	if (fixture_scan(&got, F.dir, &o, &m) < 0) fail_msg("%s: %s", filter, dl_error_last()->message);
	assert_int_equal(fixture_scan(&all, F.dir, NULL, NULL), 0);
	char a[512], b[512];
	values(a, sizeof a, got, "try_variant_get(v, '$.a', 'bigint')");
	/* the reference: every row, the filter evaluated by the expression layer */
	dl_expr *e;
	assert_int_equal(dl_expr_parse(&e, filter), 0);
	assert_int_equal(dl_expr_bind(e, all->schema), 0);
	dl_selection sel = {0};
	assert_int_equal(dl_expr_filter(&sel, e, all, NULL), 0);
	dl_batch *ref = dl_batch_take(all, sel.idx, sel.count);
	values(b, sizeof b, ref, "try_variant_get(v, '$.a', 'bigint')");
	if (strcmp(a, b) != 0 || strcmp(a, want) != 0) fail_msg("%s: scan gave [%s], reference [%s], want [%s]", filter, a, b, want);
	if (m.files_pruned_stats != skipped)
		fail_msg("%s: %zu files skipped, want %zu", filter, m.files_pruned_stats, skipped);
	assert_int_equal(m.files_total, 4);
	dl_selection_free(&sel);
	dl_batch_free(ref);
	dl_expr_free(e);
	dl_batch_free(got);
	dl_batch_free(all);
}

static void skipping(void **state)
{
	(void)state;
	/* file 0 (1..5) and the all-null file 3 cannot match */
	check("variant_get(v, '$.a', 'int') > 10", 2, "12 20 25");
	check("variant_get(v, '$.a', 'int') = 3", 3, "3");
	check("variant_get(v, '$[\\'a\\']', 'bigint') BETWEEN 6 AND 9", 3, "8");
	check("try_variant_get(v, '$.a', 'int') < 2 OR variant_get(v, '$.a', 'int') >= 25", 2, "1 25");
	check("variant_get(v, '$.a', 'decimal(10,2)') > 12.5", 3, "20 25");
	check("variant_get(v, '$.a', 'double') > 10.5", 2, "12 20 25");
	check("variant_get(v, '$.a', 'int') IN (5, 21)", 2, "5");
	check("variant_get(v, '$.a', 'int') IS NOT NULL", 1, "1 3 5 8 10 12 20 25");
	/* no pruning: no bounds for the path, or a cast that is not exact and
	 * order-preserving (a number read as a string orders differently) */
	check("variant_get(v, '$.b', 'int') > 10", 1, "");
	check("try_variant_get(v, '$.a', 'string') = '3'", 1, "3");
	check("variant_get(v, '$.a', 'string') > '9'", 1, "");
	check("variant_get(v, '$.a[0]', 'int') > 10", 1, "");
	check("variant_get(v, '$.a', 'int') IS NULL", 0, "NULL NULL NULL NULL");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(skipping),
	};
	return cmocka_run_group_tests(tests, setup, teardown);
}
