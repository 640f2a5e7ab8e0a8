/* Delta schema to Iceberg schema (see iceberg_schema.c). */
#ifndef DL_UNIFORM_ICEBERG_SCHEMA_H
#define DL_UNIFORM_ICEBERG_SCHEMA_H

#include <stdbool.h>
#include <stdint.h>

#include "columnar/types.h"
#include "json/json.h"
#include "log/actions.h"
#include "util/arena.h"
#include "util/buf.h"

/* One top-level column as Iceberg sees it. */
typedef struct dl_ice_column {
	const char *name;     /* logical (Iceberg) name */
	const char *physical; /* name in data files and Delta stats */
	int32_t id;           /* Iceberg field id = delta.columnMapping.id */
	const dl_type *type;
	bool nullable;
} dl_ice_column;

/* One identity partition field (Delta partition column). */
typedef struct dl_ice_part_field {
	const char *name;     /* the column's logical name */
	const char *physical; /* its key in Delta's partitionValues (column mapping) */
	const char *avro_name;/* the name made Avro-compatible */
	int32_t source_id;
	int32_t field_id;     /* 1000 + position */
	const dl_type *type;
} dl_ice_part_field;

typedef struct dl_ice_table_schema {
	dl_ice_column *cols;
	int ncols;
	dl_ice_part_field *parts;
	int nparts;
	int32_t last_column_id;
} dl_ice_table_schema;

/* The columns, ids and partition fields of a Delta schema with column
 * mapping; types Iceberg cannot express under IcebergCompatV2 are
 * DELTA_ICEBERG_COMPAT_VIOLATION.UNSUPPORTED_DATA_TYPE. Strings borrow
 * from `schema`/`md` or the arena. */
int dl_ice_schema_build(dl_ice_table_schema *out, dl_arena *arena, const dl_type *schema,
                        const dl_metadata *md);
/* The Iceberg type check alone (for CREATE/ALTER validation). */
int dl_ice_check_types(const dl_type *schema, int compat_version);

/* {"type":"struct","schema-id":id,"fields":[...]} */
void dl_ice_write_schema(dl_json_writer *w, const dl_type *schema, int schema_id);
/* {"spec-id":0,"fields":[...]} and the bare fields array. */
void dl_ice_write_spec(dl_json_writer *w, const dl_ice_table_schema *s, bool fields_only);

/* The Avro schemas of the spec's manifest_entry (with this partition
 * struct) and manifest_file, with every field-id. */
int dl_ice_manifest_avro_schema(dl_buf *out, const dl_ice_table_schema *s);
const char *dl_ice_manifest_list_avro_schema(void);

#endif
