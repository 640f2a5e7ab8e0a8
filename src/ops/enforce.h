/* Per-row rules of every write (PROTOCOL.md "Column Invariants", "CHECK
 * Constraints", "Generated Columns", "Identity Columns", "Default
 * Columns"), on batches already conformed to the table schema:
 *   fill   - columns the data did not provide: generated columns computed
 *            from their expression, identity columns numbered from the
 *            high-water mark, defaults from CURRENT_DEFAULT, else NULL;
 *   check  - NOT NULL (nested fields under non-null parents too), every
 *            CHECK constraint (NULL counts as a violation, as in Delta),
 *            provided values of generated columns equal to the expression,
 *            no explicit values for GENERATED ALWAYS identity columns.
 * A violation is DL_ECONSTRAINT naming the constraint and the offending
 * row's values. */
#ifndef DL_OPS_ENFORCE_H
#define DL_OPS_ENFORCE_H
#include <stdbool.h>
#include "columnar/array.h"
#include "log/actions.h"

typedef struct dl_enforcer dl_enforcer;

/* `schema` is the table schema the batches have (borrowed, must outlive the
 * enforcer); `configuration` holds delta.constraints.*. */
int dl_enforcer_new(dl_enforcer **out, const dl_type *schema, const dl_str_map *configuration);
void dl_enforcer_free(dl_enforcer *e);

/* Replaces the columns with provided[i] false (all-null placeholders) by
 * their generated / identity / default values. */
int dl_enforcer_fill(dl_enforcer *e, dl_batch *b, const bool *provided);
/* Checks every rule; `provided` as for fill. */
int dl_enforcer_check(dl_enforcer *e, const dl_batch *b, const bool *provided);

/* Whether identity values were handed out; then the schema with the new
 * high-water marks (new reference) must be committed. */
bool dl_enforcer_identity_used(const dl_enforcer *e);
int dl_enforcer_schema_with_hwm(const dl_enforcer *e, dl_type **out);

/* True when the schema has identity columns. */
bool dl_schema_has_identity(const dl_type *schema);

#endif
