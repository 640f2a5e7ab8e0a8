/* The table-feature registry (PROTOCOL.md "Table Features", "Valid Feature
 * Names in Table Features", "Writer/Reader Version Requirements"; Spark's
 * TableFeature.scala): one table that says, for every feature Delta
 * defines, what it is and what this library does with it.
 *
 * Every other layer asks the registry instead of keeping its own list of
 * feature names: the protocol checks (log/protocol.c), the protocol chosen
 * when a table is created or upgraded (ops/protocol_choose.c), and the
 * coming ALTER TABLE ADD/DROP FEATURE (the dependencies, the removable flag
 * and "what enables it" are here for them).
 *
 * Terms, as in Spark:
 *  - A *legacy* feature was released before table features (reader 3 /
 *    writer 7); a protocol below those versions implies it when its
 *    versions are at least the feature's minimum versions.
 *  - A *reader-writer* feature is listed in readerFeatures and
 *    writerFeatures; a writer-only feature only in writerFeatures.
 *  - A feature is *enabled by metadata* when a table property or the schema
 *    requires it (delta.enableDeletionVectors=true, a generated column...);
 *    writers then add it to the protocol (Spark's
 *    FeatureAutomaticallyEnabledByMetadata). Others need
 *    delta.feature.<name>=supported (or ALTER TABLE ADD FEATURE). */
#ifndef DL_LOG_TABLE_FEATURES_H
#define DL_LOG_TABLE_FEATURES_H
#include <stdbool.h>
#include <stddef.h>
#include "columnar/types.h"
#include "log/actions.h"

/* Versions from which the protocol lists features explicitly. */
#define DL_TABLE_FEATURES_READER_VERSION 3
#define DL_TABLE_FEATURES_WRITER_VERSION 7

typedef enum dl_table_feature {
	/* legacy writer features */
	DL_FEATURE_APPEND_ONLY = 0,
	DL_FEATURE_INVARIANTS,
	DL_FEATURE_CHECK_CONSTRAINTS,
	DL_FEATURE_CHANGE_DATA_FEED,
	DL_FEATURE_GENERATED_COLUMNS,
	/* legacy reader-writer feature */
	DL_FEATURE_COLUMN_MAPPING,
	DL_FEATURE_IDENTITY_COLUMNS,
	/* reader-writer table features */
	DL_FEATURE_DELETION_VECTORS,
	DL_FEATURE_TIMESTAMP_NTZ,
	DL_FEATURE_V2_CHECKPOINT,
	DL_FEATURE_VACUUM_PROTOCOL_CHECK,
	DL_FEATURE_TYPE_WIDENING,
	DL_FEATURE_TYPE_WIDENING_PREVIEW,
	DL_FEATURE_VARIANT_TYPE,
	DL_FEATURE_VARIANT_TYPE_PREVIEW,
	DL_FEATURE_VARIANT_SHREDDING,
	DL_FEATURE_VARIANT_SHREDDING_PREVIEW,
	DL_FEATURE_GEOSPATIAL,
	DL_FEATURE_CATALOG_MANAGED,
	DL_FEATURE_CATALOG_OWNED_PREVIEW,
	/* writer-only table features */
	DL_FEATURE_DOMAIN_METADATA,
	DL_FEATURE_ROW_TRACKING,
	DL_FEATURE_IN_COMMIT_TIMESTAMP,
	DL_FEATURE_ALLOW_COLUMN_DEFAULTS,
	DL_FEATURE_CLUSTERING,
	DL_FEATURE_ICEBERG_COMPAT_V1,
	DL_FEATURE_ICEBERG_COMPAT_V2,
	DL_FEATURE_ICEBERG_COMPAT_V3,
	DL_FEATURE_ICEBERG_WRITER_COMPAT_V1,
	DL_FEATURE_ICEBERG_WRITER_COMPAT_V3,
	DL_FEATURE_MATERIALIZE_PARTITION_COLUMNS,
	DL_FEATURE_CHECKPOINT_PROTECTION,
	DL_FEATURE_COORDINATED_COMMITS_PREVIEW,
	DL_FEATURE_COUNT,
	DL_FEATURE_NONE = -1
} dl_table_feature;

/* What in a table's metadata enables a feature. */
typedef enum dl_feature_trigger {
	DL_TRIGGER_EXPLICIT = 0, /* only delta.feature.<name> / ADD FEATURE */
	DL_TRIGGER_PROPERTY_TRUE,   /* `property` is the boolean true */
	DL_TRIGGER_PROPERTY_IS,     /* `property` equals `value` (case-insensitive) */
	DL_TRIGGER_PROPERTY_IS_NOT, /* `property` is set to something other than `value` */
	DL_TRIGGER_PROPERTY_SET,    /* `property` is set to a non-empty value */
	DL_TRIGGER_PROPERTY_PREFIX, /* some property starts with `property` */
	DL_TRIGGER_SCHEMA,          /* the schema uses it (see dl_feature_schema_use) */
} dl_feature_trigger;

/* The schema constructs that enable a feature. */
typedef enum dl_feature_schema_use {
	DL_SCHEMA_USE_NONE = 0,
	DL_SCHEMA_USE_INVARIANTS,   /* a field with delta.invariants */
	DL_SCHEMA_USE_GENERATED,    /* a field with delta.generationExpression */
	DL_SCHEMA_USE_IDENTITY,     /* a field with delta.identity.start */
	DL_SCHEMA_USE_DEFAULTS,     /* a field with CURRENT_DEFAULT */
	DL_SCHEMA_USE_TIMESTAMP_NTZ,/* a timestamp_ntz anywhere */
	DL_SCHEMA_USE_VARIANT,      /* a variant anywhere */
	DL_SCHEMA_USE_GEOSPATIAL,   /* a geometry/geography anywhere */
} dl_feature_schema_use;

#define DL_FEATURE_MAX_REQUIRES 3

typedef struct dl_table_feature_info {
	dl_table_feature id;
	const char *name;       /* the protocol name, as PROTOCOL.md/Spark spell it */
	bool reader_writer;     /* listed in readerFeatures as well */
	bool legacy;            /* implied by protocol versions below 3/7 */
	/* Versions a protocol needs for this feature: legacy features their
	 * first versions ((1,2) appendOnly ... (2,5) columnMapping), the others
	 * (3,7) reader-writer or (1,7) writer-only. */
	int min_reader, min_writer;
	/* Features that must be supported with it (Spark's requiredFeatures),
	 * DL_FEATURE_NONE-terminated. */
	dl_table_feature requires[DL_FEATURE_MAX_REQUIRES + 1];
	/* What enables it, when metadata does (DL_TRIGGER_EXPLICIT: nothing). */
	dl_feature_trigger trigger;
	/* The table property of a PROPERTY_* trigger; for the -preview twins
	 * (DL_TRIGGER_EXPLICIT) the property their behaviour follows, which
	 * enables the stable name instead. */
	const char *property;
	const char *value;      /* the value PROPERTY_IS / PROPERTY_IS_NOT compare with */
	dl_feature_schema_use schema_use; /* for DL_TRIGGER_SCHEMA */
	/* The same format under another name (the -preview twins): when the
	 * twin is supported, metadata does not enable this one. */
	dl_table_feature twin;
	bool readable;          /* this library reads tables that use it */
	bool writable;          /* this library writes tables that use it */
	bool removable;         /* Spark can drop it (RemovableFeature) */
	bool catalog_managed;   /* commits go through a catalog, not the path */
} dl_table_feature_info;

/* The entry of `f`; NULL for DL_FEATURE_NONE or out-of-range values. */
const dl_table_feature_info *dl_table_feature_get(dl_table_feature f);
/* The entry named `name` (case-insensitive, as Spark looks names up);
 * NULL when Delta defines no such feature. */
const dl_table_feature_info *dl_table_feature_lookup(const char *name);
/* The i-th entry, 0 <= i < DL_FEATURE_COUNT, in enum order; NULL past it. */
const dl_table_feature_info *dl_table_feature_at(size_t i);

/* Whether the table's metadata (schema and configuration, either may be
 * NULL) enables the feature (Spark's metadataRequiresFeatureToBeEnabled,
 * without the twin rule, which needs the protocol). */
bool dl_table_feature_enabled_by(const dl_table_feature_info *f, const dl_type *schema,
                                 const dl_str_map *configuration);

/* Whether the protocol supports the feature: listed (reader-writer features
 * in readerFeatures at reader 3, the others in writerFeatures at writer 7),
 * or, below those versions, implied by the legacy versions. */
bool dl_protocol_has(const dl_protocol *p, dl_table_feature f);

/* The features that require `f` (directly), as a bit set over the enum:
 * what DROP FEATURE must refuse while they are supported. */
unsigned long long dl_table_feature_dependents(dl_table_feature f);

#endif
