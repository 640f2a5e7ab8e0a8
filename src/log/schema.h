/* The Delta schema (PROTOCOL.md "Schema Serialization Format") as a dl_type
 * tree, and the column metadata keys Delta defines on fields: column
 * mapping (physical names and ids), generated columns, identity columns,
 * defaults, invariants and type changes. Field metadata is kept as the JSON
 * text of the "metadata" object so unknown keys survive a round trip. */
#ifndef DL_LOG_SCHEMA_H
#define DL_LOG_SCHEMA_H
#include <stdbool.h>
#include <stdint.h>
#include "columnar/types.h"
#include "json/json.h"
#include "log/properties.h"
#include "util/arena.h"
#include "util/buf.h"

/* Parses a schemaString (a "struct" type). DL_ECORRUPT naming the place for
 * malformed JSON or unknown type names. *out is a new reference. */
int dl_schema_parse(dl_type **out, const char *json, size_t len);
/* Parses one Delta type from its JSON value ("long", {"type":"array"...}). */
int dl_schema_type_from_json(dl_type **out, const dl_json *v, const char *where);
/* Serializes a struct type as a Delta schemaString (compact JSON). */
int dl_schema_to_json(dl_buf *out, const dl_type *schema);
void dl_schema_write_type(dl_json_writer *w, const dl_type *t);

/* Parses "decimal(10,2)", "long", "timestamp_ntz"... into a type id and
 * decimal precision/scale. DL_EUNSUPPORTED for unknown names. */
int dl_schema_primitive_from_name(const char *name, dl_type_id *id, int *precision, int *scale);

/* A key of a field's metadata, looked up in its JSON text; the value is
 * parsed into `arena`. NULL when absent. */
int dl_field_metadata_get(const dl_field *f, const char *key, dl_arena *arena, const dl_json **out);
/* String-valued key; *out NULL when absent. */
int dl_field_metadata_string(const dl_field *f, const char *key, dl_arena *arena, const char **out);
/* Integer-valued key (number or numeric string); false when absent. */
int dl_field_metadata_long(const dl_field *f, const char *key, int64_t *out, bool *present);

#define DL_CM_PHYSICAL_NAME_KEY "delta.columnMapping.physicalName"
#define DL_CM_ID_KEY "delta.columnMapping.id"
#define DL_GENERATION_EXPRESSION_KEY "delta.generationExpression"
#define DL_DEFAULT_KEY "CURRENT_DEFAULT"
#define DL_INVARIANTS_KEY "delta.invariants"
#define DL_IDENTITY_START_KEY "delta.identity.start"
#define DL_IDENTITY_STEP_KEY "delta.identity.step"
#define DL_IDENTITY_HWM_KEY "delta.identity.highWaterMark"
#define DL_IDENTITY_EXPLICIT_KEY "delta.identity.allowExplicitInsert"

/* The name of a field in data files and stats under `mode`: the display name
 * for none, the physicalName metadata for id and name (DL_ECORRUPT if a
 * mapped table lacks it). Borrowed from the field or the arena. */
int dl_field_physical_name(const dl_field *f, dl_column_mapping_mode mode, dl_arena *arena,
                           const char **out);
/* delta.columnMapping.id; DL_ENOTFOUND when absent. */
int dl_field_column_id(const dl_field *f, int32_t *out);
/* The schema with every field renamed to its physical name (recursively);
 * field metadata is kept, so ids remain available. New reference. */
int dl_schema_to_physical(dl_type **out, const dl_type *logical, dl_column_mapping_mode mode);

/* The generation expression, default expression and invariant of a field
 * (NULL when it has none). The invariant is the SQL text inside
 * {"expression":{"expression":"..."}}. */
int dl_field_generation_expression(const dl_field *f, dl_arena *arena, const char **out);
int dl_field_default_expression(const dl_field *f, dl_arena *arena, const char **out);
int dl_field_invariant(const dl_field *f, dl_arena *arena, const char **out);

typedef struct dl_identity_info {
	bool is_identity;
	int64_t start;
	int64_t step;
	bool has_high_water_mark;
	int64_t high_water_mark;
	bool allow_explicit_insert;
} dl_identity_info;
int dl_field_identity(const dl_field *f, dl_identity_info *out);

/* Index of a top-level column by exact name, then case-insensitively. */
int dl_schema_find(const dl_type *schema, const char *name);
/* Spark's prettyFieldName: the parts of a column path joined by '.', a
 * part holding '.', '`' or ' ' backquoted (its '`' doubled); out's data is
 * never NULL after the call. */
void dl_field_path_text(dl_buf *out, const char *const *parts, int n);

#endif
