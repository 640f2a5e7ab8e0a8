/* Schema evolution may not widen a column that a CHECK constraint or a
 * generated column's expression reads (Spark's
 * ImplicitMetadataOperation.checkDependentExpressions): their meaning
 * could change with the type. */
#ifndef DL_OPS_TYPE_CHANGE_DEPS_H
#define DL_OPS_TYPE_CHANGE_DEPS_H
#include "columnar/types.h"
#include "log/actions.h" /* dl_str_map */
#include "util/buf.h"

/* For each column or struct field (through structs) whose type differs
 * between `old` and `evolved` (schemas; fields matched by name), a CHECK
 * constraint of `configuration` referencing it (or a struct above it) is
 * DELTA_CONSTRAINT_DATA_TYPE_MISMATCH, a generated column of `old` doing
 * so DELTA_GENERATED_COLUMNS_DATA_TYPE_MISMATCH, listing them as Spark
 * does; 0 when none is. */
int dl_type_changes_check_dependents(const dl_type *old, const dl_type *evolved, const dl_str_map *configuration);

/* The expressions that read column parts[0..n) (a field under it or a
 * struct above it counts): the CHECK constraints of `configuration` into
 * `constraints` ("delta.constraints.<name> -> <expression>" a line) and
 * the generated columns of `schema` into `generated` ("<column> ->
 * <expression>" a line), as Spark's checkDependentExpressions lists them
 * for ALTER and for type widening. Unparsable text counts as not
 * referencing: it was checked when stored. */
int dl_column_dependents(const dl_type *schema, const dl_str_map *configuration, const char *const *parts, int n,
                         dl_buf *constraints, dl_buf *generated);

#endif
