/* The table-feature registry (see table_features.h).
 *
 * The rule the table follows: an entry says what PROTOCOL.md and Spark's
 * TableFeature.scala say about the feature (name, kind, legacy versions,
 * required features, the metadata that enables it, whether Spark can drop
 * it), and what this library honours: `readable` when readers implement
 * what the feature asks of them, `writable` when every writer path here
 * follows its writer rules. A feature that is not writable makes the table
 * read-only for us; a reader-writer feature that is not readable makes it
 * unreadable. */
#include "log/table_features.h"
#include <string.h>
#include <strings.h>
#include "log/properties.h"
#include "log/schema.h"

#define NONE_REQ {DL_FEATURE_NONE}
#define REQ1(a) {a, DL_FEATURE_NONE}
#define REQ2(a, b) {a, b, DL_FEATURE_NONE}

/* Field order: id, name, reader_writer, legacy, min_reader, min_writer,
 * requires, trigger, property, value, schema_use, twin, readable, writable,
 * removable, catalog_managed. */
static const dl_table_feature_info features[DL_FEATURE_COUNT] = {
	/* PROTOCOL.md "Append-only Tables": writer 2, delta.appendOnly=true. */
	{DL_FEATURE_APPEND_ONLY, "appendOnly", false, true, 1, 2, NONE_REQ, DL_TRIGGER_PROPERTY_TRUE,
	 "delta.appendOnly", NULL, DL_SCHEMA_USE_NONE, DL_FEATURE_NONE, true, true, false, false},
	/* "Column Invariants": writer 2, delta.invariants in field metadata. */
	{DL_FEATURE_INVARIANTS, "invariants", false, true, 1, 2, NONE_REQ, DL_TRIGGER_SCHEMA, NULL,
	 NULL, DL_SCHEMA_USE_INVARIANTS, DL_FEATURE_NONE, true, true, false, false},
	/* "CHECK Constraints": writer 3, delta.constraints.<name>. Spark drops
	 * it once no constraint is left. */
	{DL_FEATURE_CHECK_CONSTRAINTS, "checkConstraints", false, true, 1, 3, NONE_REQ,
	 DL_TRIGGER_PROPERTY_PREFIX, "delta.constraints.", NULL, DL_SCHEMA_USE_NONE, DL_FEATURE_NONE,
	 true, true, true, false},
	/* "Add CDC File": writer 4, delta.enableChangeDataFeed=true. */
	{DL_FEATURE_CHANGE_DATA_FEED, "changeDataFeed", false, true, 1, 4, NONE_REQ,
	 DL_TRIGGER_PROPERTY_TRUE, "delta.enableChangeDataFeed", NULL, DL_SCHEMA_USE_NONE,
	 DL_FEATURE_NONE, true, true, false, false},
	/* "Generated Columns": writer 4, delta.generationExpression. */
	{DL_FEATURE_GENERATED_COLUMNS, "generatedColumns", false, true, 1, 4, NONE_REQ,
	 DL_TRIGGER_SCHEMA, NULL, NULL, DL_SCHEMA_USE_GENERATED, DL_FEATURE_NONE, true, true, false,
	 false},
	/* "Column Mapping": reader 2, writer 5, delta.columnMapping.mode other
	 * than none. */
	{DL_FEATURE_COLUMN_MAPPING, "columnMapping", true, true, 2, 5, NONE_REQ,
	 DL_TRIGGER_PROPERTY_IS_NOT, "delta.columnMapping.mode", "none", DL_SCHEMA_USE_NONE,
	 DL_FEATURE_NONE, true, true, true, false},
	/* "Identity Columns": writer 6, delta.identity.* in field metadata. */
	{DL_FEATURE_IDENTITY_COLUMNS, "identityColumns", false, true, 1, 6, NONE_REQ,
	 DL_TRIGGER_SCHEMA, NULL, NULL, DL_SCHEMA_USE_IDENTITY, DL_FEATURE_NONE, true, true, false,
	 false},
	/* "Deletion Vectors": delta.enableDeletionVectors=true. */
	{DL_FEATURE_DELETION_VECTORS, "deletionVectors", true, false, 3, 7, NONE_REQ,
	 DL_TRIGGER_PROPERTY_TRUE, "delta.enableDeletionVectors", NULL, DL_SCHEMA_USE_NONE,
	 DL_FEATURE_NONE, true, true, true, false},
	/* "Timestamp without timezone": a timestamp_ntz column. */
	{DL_FEATURE_TIMESTAMP_NTZ, "timestampNtz", true, false, 3, 7, NONE_REQ, DL_TRIGGER_SCHEMA,
	 NULL, NULL, DL_SCHEMA_USE_TIMESTAMP_NTZ, DL_FEATURE_NONE, true, true, false, false},
	/* "V2 Checkpoint Table Feature": delta.checkpointPolicy=v2. */
	{DL_FEATURE_V2_CHECKPOINT, "v2Checkpoint", true, false, 3, 7, NONE_REQ, DL_TRIGGER_PROPERTY_IS,
	 "delta.checkpointPolicy", "v2", DL_SCHEMA_USE_NONE, DL_FEATURE_NONE, true, true, true, false},
	/* "VACUUM Protocol Check": only ever added explicitly. VACUUM
	 * (src/maint/vacuum.c) applies the reader and the writer checks. */
	{DL_FEATURE_VACUUM_PROTOCOL_CHECK, "vacuumProtocolCheck", true, false, 3, 7, NONE_REQ,
	 DL_TRIGGER_EXPLICIT, NULL, NULL, DL_SCHEMA_USE_NONE, DL_FEATURE_NONE, true, true, true, false},
	/* "Type Widening": delta.enableTypeWidening=true; the -preview name
	 * is the same format from Delta 3.x. */
	{DL_FEATURE_TYPE_WIDENING, "typeWidening", true, false, 3, 7, NONE_REQ,
	 DL_TRIGGER_PROPERTY_TRUE, "delta.enableTypeWidening", NULL, DL_SCHEMA_USE_NONE,
	 DL_FEATURE_TYPE_WIDENING_PREVIEW, true, true, true, false},
	{DL_FEATURE_TYPE_WIDENING_PREVIEW, "typeWidening-preview", true, false, 3, 7, NONE_REQ,
	 DL_TRIGGER_EXPLICIT, "delta.enableTypeWidening", NULL, DL_SCHEMA_USE_NONE,
	 DL_FEATURE_TYPE_WIDENING, true, true, true, false},
	/* "Variant Data Type": a variant column (Spark enables the stable name
	 * unless the preview one is already there). */
	{DL_FEATURE_VARIANT_TYPE, "variantType", true, false, 3, 7, NONE_REQ, DL_TRIGGER_SCHEMA, NULL,
	 NULL, DL_SCHEMA_USE_VARIANT, DL_FEATURE_VARIANT_TYPE_PREVIEW, true, true, false, false},
	{DL_FEATURE_VARIANT_TYPE_PREVIEW, "variantType-preview", true, false, 3, 7, NONE_REQ,
	 DL_TRIGGER_EXPLICIT, NULL, NULL, DL_SCHEMA_USE_NONE, DL_FEATURE_VARIANT_TYPE, true, true,
	 false, false},
	/* "Variant Shredding": delta.enableVariantShredding=true. Readers
	 * rebuild shredded values (src/parquet/variant_shred.c); writers may
	 * always write unshredded variants, which is all this library writes. */
	{DL_FEATURE_VARIANT_SHREDDING, "variantShredding", true, false, 3, 7, NONE_REQ,
	 DL_TRIGGER_PROPERTY_TRUE, "delta.enableVariantShredding", NULL,
	 DL_SCHEMA_USE_NONE, DL_FEATURE_VARIANT_SHREDDING_PREVIEW, true, true, false, false},
	{DL_FEATURE_VARIANT_SHREDDING_PREVIEW, "variantShredding-preview", true, false, 3, 7,
	 NONE_REQ, DL_TRIGGER_EXPLICIT, "delta.enableVariantShredding", NULL, DL_SCHEMA_USE_NONE,
	 DL_FEATURE_VARIANT_SHREDDING, true, true, false, false},
	/* Geospatial types (RFC "geospatial-types"): a geometry/geography
	 * column. */
	{DL_FEATURE_GEOSPATIAL, "geospatial", true, false, 3, 7, NONE_REQ, DL_TRIGGER_SCHEMA, NULL,
	 NULL, DL_SCHEMA_USE_GEOSPATIAL, DL_FEATURE_NONE, true, true, false, false},
	/* "Catalog-managed tables": readers and writers must go through the
	 * catalog; in-commit timestamps must be on. catalogOwned-preview is its
	 * name in Delta 4.0. */
	{DL_FEATURE_CATALOG_MANAGED, "catalogManaged", true, false, 3, 7,
	 REQ1(DL_FEATURE_IN_COMMIT_TIMESTAMP), DL_TRIGGER_EXPLICIT, NULL, NULL, DL_SCHEMA_USE_NONE,
	 DL_FEATURE_CATALOG_OWNED_PREVIEW, false, false, false, true},
	{DL_FEATURE_CATALOG_OWNED_PREVIEW, "catalogOwned-preview", true, false, 3, 7,
	 REQ1(DL_FEATURE_IN_COMMIT_TIMESTAMP), DL_TRIGGER_EXPLICIT, NULL, NULL, DL_SCHEMA_USE_NONE,
	 DL_FEATURE_CATALOG_MANAGED, false, false, false, true},
	/* "Domain Metadata": added by the features that use domains. */
	{DL_FEATURE_DOMAIN_METADATA, "domainMetadata", false, false, 1, 7, NONE_REQ,
	 DL_TRIGGER_EXPLICIT, NULL, NULL, DL_SCHEMA_USE_NONE, DL_FEATURE_NONE, true, true, false,
	 false},
	/* "Row Tracking": delta.enableRowTracking=true; its high-water mark is
	 * a domain. */
	{DL_FEATURE_ROW_TRACKING, "rowTracking", false, false, 1, 7,
	 REQ1(DL_FEATURE_DOMAIN_METADATA), DL_TRIGGER_PROPERTY_TRUE, "delta.enableRowTracking", NULL,
	 DL_SCHEMA_USE_NONE, DL_FEATURE_NONE, true, true, false, false},
	/* "In-Commit Timestamps": delta.enableInCommitTimestamps=true. */
	{DL_FEATURE_IN_COMMIT_TIMESTAMP, "inCommitTimestamp", false, false, 1, 7, NONE_REQ,
	 DL_TRIGGER_PROPERTY_TRUE, "delta.enableInCommitTimestamps", NULL, DL_SCHEMA_USE_NONE,
	 DL_FEATURE_NONE, true, true, true, false},
	/* "Default Columns": Spark asks for delta.feature.allowColumnDefaults;
	 * this library also adds it for a schema with CURRENT_DEFAULT. */
	{DL_FEATURE_ALLOW_COLUMN_DEFAULTS, "allowColumnDefaults", false, false, 1, 7, NONE_REQ,
	 DL_TRIGGER_SCHEMA, NULL, NULL, DL_SCHEMA_USE_DEFAULTS, DL_FEATURE_NONE, true, true, false,
	 false},
	/* "Clustered Table": CLUSTER BY; the clustering columns are a domain. */
	{DL_FEATURE_CLUSTERING, "clustering", false, false, 1, 7, REQ1(DL_FEATURE_DOMAIN_METADATA),
	 DL_TRIGGER_EXPLICIT, NULL, NULL, DL_SCHEMA_USE_NONE, DL_FEATURE_NONE, true, true, false,
	 false},
	/* "Iceberg Compatibility V1/V2": written under the rules of
	 * src/uniform/iceberg_compat.c (column mapping, no deletion vectors,
	 * Iceberg types; field ids in every Parquet file), with Iceberg
	 * metadata after each commit (src/uniform). The writer-compat and V3
	 * variants' rules are not followed here. */
	{DL_FEATURE_ICEBERG_COMPAT_V1, "icebergCompatV1", false, false, 1, 7,
	 REQ1(DL_FEATURE_COLUMN_MAPPING), DL_TRIGGER_PROPERTY_TRUE, "delta.enableIcebergCompatV1",
	 NULL, DL_SCHEMA_USE_NONE, DL_FEATURE_NONE, true, true, false, false},
	{DL_FEATURE_ICEBERG_COMPAT_V2, "icebergCompatV2", false, false, 1, 7,
	 REQ1(DL_FEATURE_COLUMN_MAPPING), DL_TRIGGER_PROPERTY_TRUE, "delta.enableIcebergCompatV2",
	 NULL, DL_SCHEMA_USE_NONE, DL_FEATURE_NONE, true, true, false, false},
	{DL_FEATURE_ICEBERG_COMPAT_V3, "icebergCompatV3", false, false, 1, 7,
	 REQ2(DL_FEATURE_COLUMN_MAPPING, DL_FEATURE_ROW_TRACKING), DL_TRIGGER_PROPERTY_TRUE,
	 "delta.enableIcebergCompatV3", NULL, DL_SCHEMA_USE_NONE, DL_FEATURE_NONE, true, false, false,
	 false},
	{DL_FEATURE_ICEBERG_WRITER_COMPAT_V1, "icebergWriterCompatV1", false, false, 1, 7,
	 REQ1(DL_FEATURE_ICEBERG_COMPAT_V2), DL_TRIGGER_PROPERTY_TRUE,
	 "delta.enableIcebergWriterCompatV1", NULL, DL_SCHEMA_USE_NONE, DL_FEATURE_NONE, true, false,
	 false, false},
	{DL_FEATURE_ICEBERG_WRITER_COMPAT_V3, "icebergWriterCompatV3", false, false, 1, 7,
	 REQ1(DL_FEATURE_ICEBERG_COMPAT_V3), DL_TRIGGER_PROPERTY_TRUE,
	 "delta.enableIcebergWriterCompatV3", NULL, DL_SCHEMA_USE_NONE, DL_FEATURE_NONE, true, false,
	 false, false},
	/* Partition values also written into the data files. Readers need
	 * nothing; writers here do not materialize them. */
	{DL_FEATURE_MATERIALIZE_PARTITION_COLUMNS, "materializePartitionColumns", false, false, 1, 7,
	 NONE_REQ, DL_TRIGGER_EXPLICIT, NULL, NULL, DL_SCHEMA_USE_NONE, DL_FEATURE_NONE, true, false,
	 true, false},
	/* Metadata cleanup must truncate history up to
	 * delta.requireCheckpointProtectionBeforeVersion in one go
	 * (txn/log_cleanup.c keeps it whole otherwise); checkpoints are only
	 * written at the newest version. */
	{DL_FEATURE_CHECKPOINT_PROTECTION, "checkpointProtection", false, false, 1, 7, NONE_REQ,
	 DL_TRIGGER_EXPLICIT, NULL, NULL, DL_SCHEMA_USE_NONE, DL_FEATURE_NONE, true, true, true,
	 false},
	/* Commits owned by a commit coordinator (Delta 3.3/4.0 preview). */
	{DL_FEATURE_COORDINATED_COMMITS_PREVIEW, "coordinatedCommits-preview", false, false, 1, 7,
	 REQ2(DL_FEATURE_IN_COMMIT_TIMESTAMP, DL_FEATURE_VACUUM_PROTOCOL_CHECK), DL_TRIGGER_PROPERTY_SET,
	 "delta.coordinatedCommits.commitCoordinator-preview", NULL, DL_SCHEMA_USE_NONE,
	 DL_FEATURE_NONE, true, false, true, true},
};

const dl_table_feature_info *dl_table_feature_get(dl_table_feature f)
{
	if ((int)f < 0 || f >= DL_FEATURE_COUNT) return NULL;
	return &features[f];
}

const dl_table_feature_info *dl_table_feature_at(size_t i)
{
	return i < DL_FEATURE_COUNT ? &features[i] : NULL;
}

const dl_table_feature_info *dl_table_feature_lookup(const char *name)
{
	if (!name) return NULL;
	for (size_t i = 0; i < DL_FEATURE_COUNT; i++)
		if (strcasecmp(features[i].name, name) == 0) return &features[i];
	return NULL;
}

_Static_assert(DL_FEATURE_COUNT <= 64, "dependents are a 64-bit set over the enum");

unsigned long long dl_table_feature_dependents(dl_table_feature f)
{
	unsigned long long out = 0;
	for (size_t i = 0; i < DL_FEATURE_COUNT; i++)
		for (const dl_table_feature *r = features[i].requires; *r != DL_FEATURE_NONE; r++)
			if (*r == f) out |= 1ull << i;
	return out;
}

/* ---- what enables a feature ---- */

static bool type_uses(const dl_type *t, dl_feature_schema_use use)
{
	if (use == DL_SCHEMA_USE_TIMESTAMP_NTZ && t->id == DL_TYPE_TIMESTAMP_NTZ) return true;
	if (use == DL_SCHEMA_USE_VARIANT && t->id == DL_TYPE_VARIANT) return true;
	if (use == DL_SCHEMA_USE_GEOSPATIAL && t->geo) return true;
	/* A variant's children are its physical encoding, not columns. */
	if (t->id == DL_TYPE_VARIANT) return false;
	static const char *const keys[] = {
		[DL_SCHEMA_USE_INVARIANTS] = DL_INVARIANTS_KEY,
		[DL_SCHEMA_USE_GENERATED] = DL_GENERATION_EXPRESSION_KEY,
		[DL_SCHEMA_USE_IDENTITY] = DL_IDENTITY_START_KEY,
		[DL_SCHEMA_USE_DEFAULTS] = "\"" DL_DEFAULT_KEY "\"",
	};
	const char *key = (size_t)use < sizeof keys / sizeof keys[0] ? keys[use] : NULL;
	for (int i = 0; i < t->nchildren; i++) {
		const dl_field *f = &t->children[i];
		/* Field metadata lives on struct fields; the key text is specific
		 * enough that a substring test of the JSON finds exactly it. */
		if (key && t->id == DL_TYPE_STRUCT && f->metadata && strstr(f->metadata, key)) return true;
		if (type_uses(f->type, use)) return true;
	}
	return false;
}

static bool property_enables(const dl_table_feature_info *f, const dl_str_map *c)
{
	if (!c || !f->property) return false;
	if (f->trigger == DL_TRIGGER_PROPERTY_PREFIX) {
		size_t n = strlen(f->property);
		for (uint32_t i = 0; i < c->n; i++)
			if (c->items[i].key && strncmp(c->items[i].key, f->property, n) == 0) return true;
		return false;
	}
	bool found;
	const char *v = dl_str_map_get(c, f->property, &found);
	if (!v) return false;
	bool b = false;
	switch (f->trigger) {
	case DL_TRIGGER_PROPERTY_TRUE: return dl_parse_bool_property(v, &b) == 0 && b;
	case DL_TRIGGER_PROPERTY_IS: return strcasecmp(v, f->value) == 0;
	case DL_TRIGGER_PROPERTY_IS_NOT: return strcasecmp(v, f->value) != 0;
	case DL_TRIGGER_PROPERTY_SET: return v[0] != '\0';
	default: return false;
	}
}

bool dl_table_feature_enabled_by(const dl_table_feature_info *f, const dl_type *schema,
                                 const dl_str_map *configuration)
{
	if (!f) return false;
	if (f->trigger == DL_TRIGGER_SCHEMA) return schema && type_uses(schema, f->schema_use);
	if (f->trigger == DL_TRIGGER_EXPLICIT) return false;
	return property_enables(f, configuration);
}

/* ---- protocols ---- */

static bool listed(const char **a, uint32_t n, const char *name)
{
	for (uint32_t i = 0; i < n; i++)
		if (a && a[i] && strcasecmp(a[i], name) == 0) return true;
	return false;
}

bool dl_protocol_has(const dl_protocol *p, dl_table_feature id)
{
	const dl_table_feature_info *f = dl_table_feature_get(id);
	if (!f) return false;
	int r = p->min_reader_version, w = p->min_writer_version;
	if (r >= DL_TABLE_FEATURES_READER_VERSION &&
	    listed(p->reader_features, p->nreader_features, f->name))
		return true;
	if (w >= DL_TABLE_FEATURES_WRITER_VERSION &&
	    listed(p->writer_features, p->nwriter_features, f->name))
		return true;
	if (!f->legacy) return false;
	/* Reader 2 means column mapping for readers whatever the writer side. */
	if (f->reader_writer && f->min_reader > 1 && r >= f->min_reader &&
	    r < DL_TABLE_FEATURES_READER_VERSION)
		return true;
	return w < DL_TABLE_FEATURES_WRITER_VERSION && w >= f->min_writer;
}
