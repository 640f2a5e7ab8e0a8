/* The protocol chosen for a table from the feature registry
 * (ops/protocol_choose.c): the one Spark picks for typical property sets
 * (more cases in test_ddl.c and test_write_rules.c). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <string.h>
#include "log/protocol.h"
#include "ops/ddl.h"
#include "ops/protocol_choose.h"
#include "util/buf.h"
#include "util/error.h"

static int choose_rc(dl_protocol *p, dl_arena *a, const char *ddl, const char *const *kv, int n,
                     const dl_protocol *existing)
{
	dl_type *t;
	assert_int_equal(dl_ddl_parse_schema(&t, ddl), 0);
	dl_kv items[8];
	for (int i = 0; i < n; i++) {
		items[i].key = kv[2 * i];
		items[i].value = kv[2 * i + 1];
	}
	dl_str_map m = {items, (uint32_t)n};
	int rc = dl_ops_choose_protocol(p, a, t, &m, existing);
	dl_type_unref(t);
	return rc;
}

static void expect(const char *ddl, const char *const *kv, int n, const dl_protocol *existing,
                   int r, int w, const char *features)
{
	dl_arena a = DL_ARENA_INIT;
	dl_protocol p;
	assert_int_equal(choose_rc(&p, &a, ddl, kv, n, existing), 0);
	assert_int_equal(p.min_reader_version, r);
	assert_int_equal(p.min_writer_version, w);
	dl_buf b = DL_BUF_INIT;
	dl_buf_puts(&b, "");
	for (uint32_t i = 0; i < p.nreader_features; i++) dl_buf_printf(&b, "r:%s ", p.reader_features[i]);
	for (uint32_t i = 0; i < p.nwriter_features; i++) dl_buf_printf(&b, "w:%s ", p.writer_features[i]);
	assert_string_equal(b.data, features);
	/* what is chosen can be written */
	assert_int_equal(dl_protocol_check_write(&p), 0);
	dl_buf_free(&b);
	dl_arena_free(&a);
}

static void protocol_choice_as_spark(void **state)
{
	(void)state;
	/* required features come along, first */
	const char *cl[] = {"delta.feature.clustering", "supported"};
	expect("a INT", cl, 1, NULL, 1, 7, "w:domainMetadata w:clustering w:appendOnly w:invariants ");
	/* names are case-insensitive; the protocol spells them canonically */
	const char *dv[] = {"delta.feature.DeletionVectors", "enabled"};
	expect("a INT", dv, 1, NULL, 3, 7, "r:deletionVectors w:deletionVectors w:appendOnly w:invariants ");
	/* legacy + table features: the legacy ones are listed too */
	const char *cdv[] = {"delta.enableChangeDataFeed", "true", "delta.enableDeletionVectors", "true"};
	expect("a INT", cdv, 2, NULL, 3, 7,
	       "r:deletionVectors w:deletionVectors w:appendOnly w:invariants w:changeDataFeed ");
	/* only legacy features: the lowest versions covering them */
	const char *leg[] = {"delta.appendOnly", "true", "delta.enableChangeDataFeed", "true"};
	expect("a INT, b INT GENERATED ALWAYS AS (a * 2)", leg, 2, NULL, 1, 4, "");
	const char *cm[] = {"delta.columnMapping.mode", "name", "delta.constraints.c", "a > 0"};
	expect("a BIGINT GENERATED ALWAYS AS IDENTITY", cm, 2, NULL, 2, 6, "");
	/* delta.ignoreProtocolDefaults: (1,1), no implied appendOnly/invariants */
	const char *ig[] = {"delta.ignoreProtocolDefaults", "true"};
	expect("a INT", ig, 1, NULL, 1, 1, "");
	const char *igrt[] = {"delta.ignoreProtocolDefaults", "true", "delta.enableRowTracking", "true"};
	expect("a INT", igrt, 2, NULL, 1, 7, "w:domainMetadata w:rowTracking ");
	assert_true(dl_ops_is_protocol_property("delta.ignoreProtocolDefaults"));
	assert_true(dl_ops_is_protocol_property("delta.feature.x"));
	assert_true(dl_ops_is_protocol_property("delta.minWriterVersion"));
	assert_false(dl_ops_is_protocol_property("delta.enableRowTracking"));
	/* a variant column: variantType, unless the table has the preview */
	expect("v VARIANT", NULL, 0, NULL, 3, 7, "r:variantType w:variantType w:appendOnly w:invariants ");
	const char *prev[] = {"variantType-preview"};
	dl_protocol old = {3, 7, prev, 1, prev, 1};
	expect("v VARIANT", NULL, 0, &old, 3, 7, "r:variantType-preview w:variantType-preview ");
	/* the same for type widening */
	const char *tw[] = {"delta.enableTypeWidening", "true"};
	const char *twp[] = {"typeWidening-preview"};
	dl_protocol oldtw = {3, 7, twp, 1, twp, 1};
	expect("a INT", tw, 1, &oldtw, 3, 7, "r:typeWidening-preview w:typeWidening-preview ");
	/* an existing table keeps its protocol: (1,1) is not raised to (1,2) */
	dl_protocol p11 = {1, 1, NULL, 0, NULL, 0};
	expect("a INT", NULL, 0, &p11, 1, 1, "");
	/* an upgrade keeps what the legacy versions implied */
	dl_protocol p14 = {1, 4, NULL, 0, NULL, 0};
	const char *rt[] = {"delta.enableRowTracking", "true"};
	expect("a INT", rt, 1, &p14, 1, 7,
	       "w:domainMetadata w:rowTracking w:appendOnly w:invariants w:checkConstraints "
	       "w:changeDataFeed w:generatedColumns ");

	/* features this library cannot write are refused, naming them */
	dl_arena a = DL_ARENA_INIT;
	dl_protocol p;
	const char *ice[] = {"delta.enableIcebergCompatV3", "true"};
	assert_int_equal(choose_rc(&p, &a, "a INT", ice, 1, NULL), DL_EUNSUPPORTED);
	assert_non_null(strstr(dl_error_last()->message, "icebergCompatV3"));
	const char *made[] = {"delta.feature.madeUp", "supported"};
	assert_int_equal(choose_rc(&p, &a, "a INT", made, 1, NULL), DL_EUNSUPPORTED);
	assert_non_null(strstr(dl_error_last()->message, "delta.feature.madeUp"));
	const char *bad[] = {"delta.feature.deletionVectors", "on"};
	assert_int_equal(choose_rc(&p, &a, "a INT", bad, 1, NULL), DL_EINVALID);
	const char *badig[] = {"delta.ignoreProtocolDefaults", "maybe"};
	assert_int_equal(choose_rc(&p, &a, "a INT", badig, 1, NULL), DL_EINVALID);
	dl_arena_free(&a);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(protocol_choice_as_spark),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
