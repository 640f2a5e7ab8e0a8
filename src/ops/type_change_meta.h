/* The type widening history of a field (PROTOCOL.md "Type Change
 * Metadata"): delta.typeChanges in the metadata of the nearest struct
 * field, one entry per widening, read back by readers of files written
 * before it. Written by schema evolution of writes (schema_align.c) and by
 * ALTER TABLE ... CHANGE COLUMN / REPLACE COLUMNS (src/alter). */
#ifndef DL_OPS_TYPE_CHANGE_META_H
#define DL_OPS_TYPE_CHANGE_META_H
#include "columnar/types.h"

#define DL_TYPE_CHANGES_KEY "delta.typeChanges"

/* Field metadata `meta` (NULL or "" as {}) with one more entry appended to
 * delta.typeChanges: {"fromType", "toType"[, "fieldPath"]} as Spark's
 * TypeChange.toMetadata writes it, the type names as Spark's typeName
 * ("integer", "decimal(7,2)"); field_path (NULL: none) names the element,
 * key or value changed inside a map or array ("element", "key.value").
 * The other keys keep their place, delta.typeChanges too when present
 * (else it goes last). *out is malloc'd. DL_ECORRUPT when `meta` is not a
 * JSON object. */
int dl_type_change_meta(char **out, const char *meta, const dl_type *from, const dl_type *to,
                        const char *field_path);

#endif
