/* Delta schemas (metaData.schemaString) as a walkable tree, for programs
 * that show or check a table's columns:
 *
 *   dl_schema *s;
 *   dl_schema_parse_json(&s, dl_snapshot_schema_json(snap));
 *   for (size_t i = 0; i < dl_schema_field_count(s); i++) {
 *       dl_schema_field f;  dl_schema_field_at(&f, s, i);
 *       printf("%s %s\n", f.name, f.type_sql);    // "id BIGINT", "tags ARRAY<STRING>"
 *   }
 *   dl_schema_free(s);
 *
 * Fields are numbered so that the top-level columns come first (0..n-1)
 * and the children of a field are consecutive (first_child, nchildren):
 * the fields of its struct type, or of the struct its array elements or
 * map values are (arrays of arrays of structs included). Strings are
 * borrowed from the schema and live as long as it. Immutable after parse:
 * safe to read from several threads. */
#ifndef DELTALAKE_SCHEMA_H
#define DELTALAKE_SCHEMA_H
#include "deltalake/common.h"
#include "deltalake/error.h"
#include <stdbool.h>
#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct dl_schema dl_schema;

typedef struct dl_schema_field {
	const char *name;
	const char *type_sql;   /* Spark SQL: "BIGINT", "DECIMAL(10,2)", "STRUCT<a: INT>"... */
	bool nullable;
	const char *metadata;   /* the field's metadata JSON object ("{}" when empty) */
	size_t parent;          /* index of the enclosing field, or DL_SCHEMA_NO_PARENT */
	size_t first_child;     /* index of the first child (children are consecutive) */
	size_t nchildren;
	int depth;              /* 0 for top-level columns */
} dl_schema_field;

#define DL_SCHEMA_NO_PARENT ((size_t)-1)

/* Parses a Delta schema JSON ({"type":"struct","fields":[...]}).
 * DL_ECORRUPT naming the problem when it is not one. */
DL_EXTERN(int) dl_schema_parse_json(dl_schema **out, const char *json);
DL_EXTERN(void) dl_schema_free(dl_schema *s);

/* Top-level columns: fields 0..dl_schema_column_count()-1. */
DL_EXTERN(size_t) dl_schema_column_count(const dl_schema *s);

/* All fields, nested ones included. */
DL_EXTERN(size_t) dl_schema_field_count(const dl_schema *s);
DL_EXTERN(int) dl_schema_field_at(dl_schema_field *out, const dl_schema *s, size_t i);

#ifdef __cplusplus
}
#endif

#endif
