/* NullType (VOID) inside the columns of Delta data files, as Spark's
 * SchemaUtils.dropNullTypeColumns treats them on every write: a void field
 * of a struct stays in the table schema but is left out of the Parquet
 * files (readers fill NULL for a field a file lacks), and an array or a map
 * with a NullType anywhere inside cannot be written at all. */
#ifndef DL_COLUMNAR_VOID_FIELDS_H
#define DL_COLUMNAR_VOID_FIELDS_H
#include <stdbool.h>
#include "columnar/types.h"

/* DELTA_COMPLEX_TYPE_COLUMN_CONTAINS_NULL_TYPE for the first column or
 * struct field (searched through structs) of `schema` that is an array or
 * a map holding a NullType anywhere inside it; 0 when there is none. */
int dl_void_check_complex(const dl_type *schema);

/* Whether the struct t (or a struct inside its structs) has a void field. */
bool dl_void_has_fields(const dl_type *t);

/* t without the void fields of its structs, recursively through structs
 * (arrays and maps hold none: dl_void_check_complex). A struct left with
 * no field is DELTA_CANNOT_WRITE_EMPTY_SCHEMA.STRUCT_ALL_VOID_FIELDS
 * (path: the column's name). *out is a new reference. */
int dl_void_drop_fields(dl_type **out, const dl_type *t, const char *path);

#endif
