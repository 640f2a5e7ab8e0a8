/* The table-feature registry: the table agrees with PROTOCOL.md and Spark,
 * and protocol checks refuse what this library does not implement (the
 * protocol chosen from it: tests/unit/ops/test_protocol_choose.c). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <string.h>
#include <strings.h>
#include "log/protocol.h"
#include "log/table_features.h"
#include "log/schema.h"
#include "util/error.h"

/* PROTOCOL.md "Valid Feature Names in Table Features" and the legacy
 * versions of "Writer/Reader Version Requirements". */
static const struct {
	const char *name;
	bool reader_writer;
	int min_reader, min_writer; /* 0: not a legacy feature */
} protocol_md[] = {
	{"appendOnly", false, 1, 2},       {"invariants", false, 1, 2},
	{"checkConstraints", false, 1, 3}, {"generatedColumns", false, 1, 4},
	{"allowColumnDefaults", false, 0, 0}, {"changeDataFeed", false, 1, 4},
	{"columnMapping", true, 2, 5},     {"identityColumns", false, 1, 6},
	{"deletionVectors", true, 0, 0},   {"rowTracking", false, 0, 0},
	{"timestampNtz", true, 0, 0},      {"domainMetadata", false, 0, 0},
	{"v2Checkpoint", true, 0, 0},      {"catalogManaged", true, 0, 0},
	{"icebergCompatV1", false, 0, 0},  {"icebergCompatV2", false, 0, 0},
	{"clustering", false, 0, 0},       {"vacuumProtocolCheck", true, 0, 0},
	{"inCommitTimestamp", false, 0, 0}, {"typeWidening", true, 0, 0},
	{"variantType", true, 0, 0},       {"variantShredding", true, 0, 0},
};

/* Every name in Spark's TableFeature.allSupportedFeaturesMap (test-only
 * features aside), with Delta 4's additions. */
static const char *const spark_names[] = {
	"allowColumnDefaults", "appendOnly", "changeDataFeed", "checkConstraints", "clustering",
	"domainMetadata", "generatedColumns", "identityColumns", "invariants", "columnMapping",
	"timestampNtz", "typeWidening-preview", "typeWidening", "icebergCompatV1", "icebergCompatV2",
	"deletionVectors", "vacuumProtocolCheck", "v2Checkpoint", "rowTracking", "inCommitTimestamp",
	"variantType-preview", "variantType", "coordinatedCommits-preview", "checkpointProtection",
	"icebergCompatV3", "icebergWriterCompatV1", "icebergWriterCompatV3",
	"materializePartitionColumns", "catalogOwned-preview", "variantShredding-preview",
};

/* Spark's RemovableFeature implementations. */
static const char *const spark_removable[] = {
	"checkConstraints", "columnMapping", "deletionVectors", "v2Checkpoint",
	"coordinatedCommits-preview", "typeWidening-preview", "typeWidening", "inCommitTimestamp",
	"vacuumProtocolCheck", "checkpointProtection", "materializePartitionColumns",
};

static bool in(const char *const *list, size_t n, const char *name)
{
	for (size_t i = 0; i < n; i++)
		if (strcmp(list[i], name) == 0) return true;
	return false;
}

/* Depth-first: a requirement chain longer than the table is a cycle. */
static int chain_depth(dl_table_feature f, int depth)
{
	if (depth > DL_FEATURE_COUNT) return depth;
	int deepest = depth;
	for (const dl_table_feature *r = dl_table_feature_get(f)->requires; *r != DL_FEATURE_NONE; r++) {
		int d = chain_depth(*r, depth + 1);
		if (d > deepest) deepest = d;
	}
	return deepest;
}

static void table_is_consistent(void **state)
{
	(void)state;
	size_t n = 0;
	for (const dl_table_feature_info *f; (f = dl_table_feature_at(n)); n++) {
		assert_int_equal(f->id, (int)n);
		assert_ptr_equal(dl_table_feature_get(f->id), f);
		/* names unique, even ignoring case (Spark looks them up that way) */
		assert_ptr_equal(dl_table_feature_lookup(f->name), f);
		for (const char *c = f->name; *c; c++)
			assert_true((*c >= 'a' && *c <= 'z') || (*c >= 'A' && *c <= 'Z') ||
			            (*c >= '0' && *c <= '9') || *c == '-' || *c == '_');
		/* versions: legacy ones at their first versions, the others at
		 * table features */
		if (f->legacy) {
			assert_true(f->min_writer >= 2 && f->min_writer <= 6);
			assert_int_equal(f->min_reader, f->reader_writer ? 2 : 1);
		} else {
			assert_int_equal(f->min_writer, 7);
			assert_int_equal(f->min_reader, f->reader_writer ? 3 : 1);
		}
		/* requirements exist, are not the feature, and have no cycle */
		for (const dl_table_feature *r = f->requires; *r != DL_FEATURE_NONE; r++) {
			assert_non_null(dl_table_feature_get(*r));
			assert_int_not_equal(*r, f->id);
			/* we can only write a feature whose requirements we can write */
			if (f->writable) assert_true(dl_table_feature_get(*r)->writable);
			assert_true(dl_table_feature_dependents(*r) & (1ull << f->id));
		}
		assert_true(chain_depth(f->id, 0) <= DL_FEATURE_COUNT);
		/* what enables it is described */
		if (f->trigger >= DL_TRIGGER_PROPERTY_TRUE && f->trigger <= DL_TRIGGER_PROPERTY_PREFIX)
			assert_non_null(f->property);
		if (f->trigger == DL_TRIGGER_PROPERTY_IS || f->trigger == DL_TRIGGER_PROPERTY_IS_NOT)
			assert_non_null(f->value);
		assert_int_equal(f->trigger == DL_TRIGGER_SCHEMA, f->schema_use != DL_SCHEMA_USE_NONE);
		/* twins point at each other and have the same shape */
		if (f->twin != DL_FEATURE_NONE) {
			const dl_table_feature_info *t = dl_table_feature_get(f->twin);
			assert_int_equal(t->twin, f->id);
			assert_int_equal(t->reader_writer, f->reader_writer);
			assert_int_equal(t->readable, f->readable);
		}
		/* writing needs reading; catalog-managed tables are neither */
		if (f->writable) assert_true(f->readable);
		if (f->catalog_managed) assert_false(f->writable);
		assert_int_equal(f->removable, in(spark_removable, sizeof spark_removable /
		                                                       sizeof spark_removable[0], f->name));
	}
	assert_int_equal(n, DL_FEATURE_COUNT);
	assert_null(dl_table_feature_at(DL_FEATURE_COUNT));
	assert_null(dl_table_feature_get(DL_FEATURE_NONE));
	assert_null(dl_table_feature_get(DL_FEATURE_COUNT));

	for (size_t i = 0; i < sizeof protocol_md / sizeof protocol_md[0]; i++) {
		const dl_table_feature_info *f = dl_table_feature_lookup(protocol_md[i].name);
		if (!f) fail_msg("PROTOCOL.md names %s, the registry does not", protocol_md[i].name);
		assert_string_equal(f->name, protocol_md[i].name);
		assert_int_equal(f->reader_writer, protocol_md[i].reader_writer);
		assert_int_equal(f->legacy, protocol_md[i].min_writer != 0);
		if (f->legacy) {
			assert_int_equal(f->min_reader, protocol_md[i].min_reader);
			assert_int_equal(f->min_writer, protocol_md[i].min_writer);
		}
	}
	for (size_t i = 0; i < sizeof spark_names / sizeof spark_names[0]; i++) {
		const dl_table_feature_info *f = dl_table_feature_lookup(spark_names[i]);
		if (!f) fail_msg("Spark knows %s, the registry does not", spark_names[i]);
		assert_string_equal(f->name, spark_names[i]);
	}
	/* Spark's requiredFeatures */
	assert_true(dl_table_feature_dependents(DL_FEATURE_DOMAIN_METADATA) &
	            (1ull << DL_FEATURE_ROW_TRACKING));
	assert_true(dl_table_feature_dependents(DL_FEATURE_DOMAIN_METADATA) &
	            (1ull << DL_FEATURE_CLUSTERING));
	assert_true(dl_table_feature_dependents(DL_FEATURE_COLUMN_MAPPING) &
	            (1ull << DL_FEATURE_ICEBERG_COMPAT_V2));
	assert_true(dl_table_feature_dependents(DL_FEATURE_ICEBERG_COMPAT_V2) &
	            (1ull << DL_FEATURE_ICEBERG_WRITER_COMPAT_V1));
	assert_int_equal(dl_table_feature_dependents(DL_FEATURE_DELETION_VECTORS), 0);
}

static void lookup_and_triggers(void **state)
{
	(void)state;
	assert_int_equal(dl_table_feature_lookup("deletionVectors")->id, DL_FEATURE_DELETION_VECTORS);
	assert_int_equal(dl_table_feature_lookup("DELETIONVECTORS")->id, DL_FEATURE_DELETION_VECTORS);
	assert_null(dl_table_feature_lookup("noSuchFeature"));
	assert_null(dl_table_feature_lookup(NULL));
	assert_string_equal(dl_table_feature_get(DL_FEATURE_ROW_TRACKING)->property,
	                    "delta.enableRowTracking");

	dl_kv kv[] = {
		{"delta.enableDeletionVectors", " TRUE "}, {"delta.columnMapping.mode", "None"},
		{"delta.checkpointPolicy", "V2"},         {"delta.constraints.pos", "a > 0"},
		{"delta.enableChangeDataFeed", "false"},  {"delta.enableRowTracking", "yes"},
	};
	dl_str_map c = {kv, sizeof kv / sizeof kv[0]};
#define ON(f) dl_table_feature_enabled_by(dl_table_feature_get(f), NULL, &c)
	assert_true(ON(DL_FEATURE_DELETION_VECTORS));
	assert_false(ON(DL_FEATURE_COLUMN_MAPPING)); /* mode none */
	assert_true(ON(DL_FEATURE_V2_CHECKPOINT));
	assert_true(ON(DL_FEATURE_CHECK_CONSTRAINTS));
	assert_false(ON(DL_FEATURE_CHANGE_DATA_FEED));
	assert_false(ON(DL_FEATURE_ROW_TRACKING)); /* not a boolean */
	assert_false(ON(DL_FEATURE_DOMAIN_METADATA)); /* never by metadata */
	assert_false(ON(DL_FEATURE_TIMESTAMP_NTZ)); /* no schema */
	kv[1].value = "name";
	assert_true(ON(DL_FEATURE_COLUMN_MAPPING));
#undef ON
	dl_type *t;
	const char *js = "{\"type\":\"struct\",\"fields\":[{\"name\":\"a\",\"type\":\"integer\","
	                 "\"nullable\":true,\"metadata\":{}},{\"name\":\"s\",\"type\":{\"type\":"
	                 "\"struct\",\"fields\":[{\"name\":\"n\",\"type\":\"timestamp_ntz\","
	                 "\"nullable\":true,\"metadata\":{}}]},\"nullable\":true,\"metadata\":{}},"
	                 "{\"name\":\"g\",\"type\":\"integer\",\"nullable\":true,\"metadata\":"
	                 "{\"delta.generationExpression\":\"a + 1\"}}]}";
	assert_int_equal(dl_schema_parse(&t, js, strlen(js)), 0);
	assert_true(dl_table_feature_enabled_by(dl_table_feature_get(DL_FEATURE_TIMESTAMP_NTZ), t, NULL));
	assert_true(dl_table_feature_enabled_by(dl_table_feature_get(DL_FEATURE_GENERATED_COLUMNS), t, NULL));
	assert_false(dl_table_feature_enabled_by(dl_table_feature_get(DL_FEATURE_IDENTITY_COLUMNS), t, NULL));
	assert_false(dl_table_feature_enabled_by(dl_table_feature_get(DL_FEATURE_VARIANT_TYPE), t, NULL));
	dl_type_unref(t);
}

static void legacy_versions_imply_features(void **state)
{
	(void)state;
	dl_protocol p = {1, 4, NULL, 0, NULL, 0};
	assert_true(dl_protocol_has(&p, DL_FEATURE_APPEND_ONLY));
	assert_true(dl_protocol_has(&p, DL_FEATURE_CHECK_CONSTRAINTS));
	assert_true(dl_protocol_has(&p, DL_FEATURE_GENERATED_COLUMNS));
	assert_false(dl_protocol_has(&p, DL_FEATURE_COLUMN_MAPPING));
	assert_false(dl_protocol_has(&p, DL_FEATURE_DELETION_VECTORS));
	p.min_writer_version = 6;
	assert_true(dl_protocol_has(&p, DL_FEATURE_COLUMN_MAPPING));
	assert_true(dl_protocol_has(&p, DL_FEATURE_IDENTITY_COLUMNS));
	const char *wf[] = {"rowTracking", "domainMetadata"};
	dl_protocol t = {2, 7, NULL, 0, wf, 2};
	assert_true(dl_protocol_has(&t, DL_FEATURE_ROW_TRACKING));
	assert_false(dl_protocol_has(&t, DL_FEATURE_APPEND_ONLY)); /* writer 7 lists them */
	assert_true(dl_protocol_has(&t, DL_FEATURE_COLUMN_MAPPING)); /* reader 2 */
	assert_true(dl_protocol_supports(&t, "ROWTRACKING"));
}

static void reads_and_writes_refused(void **state)
{
	(void)state;
	/* unknown reader features: neither read nor written */
	const char *unk[] = {"deletionVectors", "someFutureReaderFeature"};
	dl_protocol u = {3, 7, unk, 2, unk, 2};
	assert_int_equal(dl_protocol_check_read(&u), DL_EUNSUPPORTED);
	assert_non_null(strstr(dl_error_last()->message, "'someFutureReaderFeature'"));
	assert_int_equal(dl_protocol_check_write(&u), DL_EUNSUPPORTED);
	/* variant shredding: shredded files are read, unshredded ones written
	 * (tests/unit/table/test_variant_shredding.c) */
	const char *vs[] = {"variantType", "variantShredding"};
	dl_protocol s = {3, 7, vs, 2, vs, 2};
	assert_int_equal(dl_protocol_check_read(&s), 0);
	assert_int_equal(dl_protocol_check_write(&s), 0);
	const char *vsp[] = {"variantType-preview", "variantShredding-preview"};
	dl_protocol sp = {3, 7, vsp, 2, vsp, 2};
	assert_int_equal(dl_protocol_check_read(&sp), 0);
	/* unknown and read-only writer features: read, not written */
	const char *none[] = {NULL};
	const char *wx[] = {"someFutureWriterFeature"};
	dl_protocol w = {1, 7, none, 0, wx, 1};
	assert_int_equal(dl_protocol_check_read(&w), 0);
	assert_int_equal(dl_protocol_check_write(&w), DL_EUNSUPPORTED);
	assert_non_null(strstr(dl_error_last()->message, "'someFutureWriterFeature'"));
	/* icebergCompatV2 is written (src/uniform); V3's rules are not followed */
	const char *ice2[] = {"columnMapping", "icebergCompatV2"};
	const char *cmr[] = {"columnMapping"};
	dl_protocol i2 = {3, 7, cmr, 1, ice2, 2};
	assert_int_equal(dl_protocol_check_write(&i2), 0);
	const char *ice[] = {"columnMapping", "domainMetadata", "rowTracking", "icebergCompatV3"};
	dl_protocol i = {3, 7, cmr, 1, ice, 4};
	assert_int_equal(dl_protocol_check_read(&i), 0);
	assert_int_equal(dl_protocol_check_write(&i), DL_EUNSUPPORTED);
	assert_non_null(strstr(dl_error_last()->message, "'icebergCompatV3'"));
	/* catalog-managed tables: through the catalog only */
	const char *co[] = {"catalogOwned-preview"};
	dl_protocol c = {3, 7, co, 1, co, 1};
	assert_int_equal(dl_protocol_check_read(&c), DL_EUNSUPPORTED);
	assert_non_null(strstr(dl_error_last()->message, "catalog"));
	/* every readable reader-writer feature passes the read check */
	for (size_t k = 0; k < DL_FEATURE_COUNT; k++) {
		const dl_table_feature_info *f = dl_table_feature_at(k);
		const char *one[] = {f->name};
		dl_protocol p = {3, 7, one, 1, one, 1};
		assert_int_equal(dl_protocol_check_read(&p) == 0, f->readable);
		assert_int_equal(dl_protocol_check_write(&p) == 0, f->readable && f->writable);
		dl_error_clear();
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(table_is_consistent),
		cmocka_unit_test(lookup_and_triggers),
		cmocka_unit_test(legacy_versions_imply_features),
		cmocka_unit_test(reads_and_writes_refused),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
