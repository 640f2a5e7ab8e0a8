/* Column mapping on the write side (PROTOCOL.md "Column Mapping"): every
 * field of a table in mode name or id gets a unique
 * delta.columnMapping.id and a delta.columnMapping.physicalName
 * ("col-<uuid>", as Spark names them); delta.columnMapping.maxColumnId
 * tracks the largest id handed out. */
#ifndef DL_OPS_COLUMN_MAPPING_H
#define DL_OPS_COLUMN_MAPPING_H
#include <stdint.h>
#include "columnar/types.h"

/* A copy of `schema` where every struct field (at any depth, through
 * arrays and maps) lacking an id gets id ++*max_id and a physical name.
 * Fields that already have both keep them. New reference. */
int dl_cm_assign(dl_type **out, const dl_type *schema, int64_t *max_id);

/* The same with physical name = the logical name, as Spark upgrades an
 * existing table from mode none to name (its files already use those
 * names, so nothing is rewritten). */
int dl_cm_assign_logical(dl_type **out, const dl_type *schema, int64_t *max_id);

/* The largest delta.columnMapping.id in the schema (0 when none). */
int64_t dl_cm_max_id(const dl_type *schema);

/* A copy of field metadata JSON text `meta` ("{...}") with `members`
 * (already-encoded "\"k\":v" text) added in front. malloc'd. */
char *dl_meta_prepend(const char *meta, const char *members);

#endif
