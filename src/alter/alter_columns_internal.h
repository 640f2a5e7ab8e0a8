/* What the column forms of ALTER TABLE share (alter_columns.c,
 * alter_change.c): Spark's checks and errors, and the operationParameters
 * text DeltaOperations writes for a column. */
#ifndef DL_ALTER_COLUMNS_INTERNAL_H
#define DL_ALTER_COLUMNS_INTERNAL_H
#include <stdbool.h>
#include "alter/alter_txn.h"
#include "alter/schema_edit.h"
#include "log/properties.h"
#include "util/buf.h"

/* The table's column mapping mode. */
dl_column_mapping_mode ac_mapping_mode(const dl_alter_txn *a);

/* Column names Parquet cannot hold need column mapping
 * (DELTA_INVALID_CHARACTERS_IN_COLUMN_NAMES), as checkSchemaFieldNames. */
int ac_check_name(const dl_alter_txn *a, const char *name);

/* Refuses the change of column `parts` when a CHECK constraint or a
 * generated column's expression references it (or a field below it, or a
 * struct above it): DELTA_CONSTRAINT_DEPENDENT_COLUMN_CHANGE /
 * DELTA_GENERATED_COLUMNS_DEPENDENT_COLUMN_CHANGE, listing them as Spark
 * ("delta.constraints.n -> expr"). `what` says why: "dropping",
 * "renaming", "changing its type". */
int ac_check_dependents(dl_alter_txn *a, const char *const *parts, int n, const char *what);

/* Spark's structFieldToMap(path, field) as JSON: name (the display path),
 * type (typeName), nullable, metadata. */
void ac_field_json(dl_buf *out, const char *const *parent, int nparent, const dl_field *f);

/* Assigns column mapping ids / physical names to the fields of `schema`
 * lacking them (new columns) and records delta.columnMapping.maxColumnId;
 * a table without column mapping keeps its schema. Consumes *schema. */
int ac_assign_ids(dl_alter_txn *a, dl_type **schema);

/* Index of top-level partition column `name` (case-insensitive), or -1. */
int ac_partition_index(const dl_alter_txn *a, const char *name);

/* The type a column gets: Spark SQL type text parsed. */
int ac_parse_type(dl_type **out, const char *text, const char *column);

/* DELTA_COLUMN_NOT_FOUND_IN_SCHEMA for parts. */
int ac_not_found(const dl_alter_txn *a, const char *const *parts, int n);

/* The allowColumnDefaults check of a DEFAULT in `command` ("ALTER TABLE"). */
int ac_check_defaults_allowed(const dl_alter_txn *a, const char *command);
/* Checks a DEFAULT expression: it parses and references no column. */
int ac_check_default_expr(const char *sql, const char *column);

/* Same type ignoring field metadata (names exact, nullability equal). */
bool ac_same_shape(const dl_type *x, const dl_type *y);

/* Whether the typeWidening feature allows changing `from` to `to`. */
bool ac_widening_allowed(const dl_type *from, const dl_type *to);

#endif
