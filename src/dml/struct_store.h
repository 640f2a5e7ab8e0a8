/* Storing a struct value into a struct column of another type, as Spark's
 * UpdateExpressionsSupport.castIfNeeded does for UPDATE and MERGE
 * (struct_store.c): shared by update.c and merge_nested.c. */
#ifndef DL_DML_STRUCT_STORE_H
#define DL_DML_STRUCT_STORE_H
#include <stdbool.h>
#include "columnar/types.h"
#include "util/buf.h"

/* Whether a and b are the same type up to the case of field names and
 * nullability (Spark's equalsIgnoreCaseAndNullability). */
bool dl_dml_same_type(const dl_type *a, const dl_type *b);

/* Whether t is a struct or has one inside its arrays and maps. */
bool dl_dml_has_struct(const dl_type *t);

/* Appends to b the SQL of the value `e` (SQL text of type `from`; NULL: a
 * NULL) stored into type `to`: unchanged when the types agree, structs
 * matched by field name at every level (inside arrays and maps too),
 * anything else a store-assignment cast (dl_dml_cast_sql). Every field
 * of a struct value must exist in the column, and unless `evolve` they
 * must be as many (DELTA_UPDATE_SCHEMA_MISMATCH_EXPRESSION, naming `col`);
 * fields the value lacks are NULL, or the fields of `orig` (SQL of the
 * target's old value, of type otype) when given. A NULL struct stays NULL
 * (with orig: when orig is NULL too). */
int dl_dml_store_sql(dl_buf *b, const char *e, const dl_type *from, const dl_type *to,
                     const char *orig, const dl_type *otype, bool evolve, const char *col);

/* Appends to b the SQL of CAST(e AS to) as UPDATE and MERGE store it
 * (ANSI store assignment): an overflow of the cast is
 * DELTA_CAST_OVERFLOW_IN_TABLE_WRITE naming column `col`
 * (__check_overflow_in_table_write, expr/fn_nested.c). */
int dl_dml_cast_sql(dl_buf *b, const char *e, const dl_type *to, const char *col);

/* Appends name as a SQL identifier (`name`, backquotes doubled) and s as a
 * SQL string literal ('s', quotes and backslashes escaped): the SQL text
 * UPDATE and MERGE build for their stored values. */
void dl_dml_sql_ident(dl_buf *b, const char *name);
void dl_dml_sql_string(dl_buf *b, const char *s);

#endif
