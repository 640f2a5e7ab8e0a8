/* The type widening history of a field (PROTOCOL.md "Type Change
 * Metadata"): delta.typeChanges in the metadata of the nearest struct
 * field, one entry per widening, read back by readers of files written
 * before it. Written by schema evolution of writes (schema_align.c) and by
 * ALTER TABLE ... CHANGE COLUMN / REPLACE COLUMNS (src/alter). */
#ifndef DL_OPS_TYPE_CHANGE_META_H
#define DL_OPS_TYPE_CHANGE_META_H
#include <stdbool.h>
#include "columnar/types.h"
#include "deltalake/write.h" /* dl_auto_widening */
#include "log/actions.h" /* dl_str_map */

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

/* The type changes schema evolution applies by itself to a table with
 * type widening: Spark's TypeWideningMode.TypeEvolution(
 * uniformIcebergCompatibleOnly, allowAutomaticWidening). */
typedef struct dl_widening {
	dl_auto_widening mode; /* spark.databricks.delta.typeWidening.allowAutomaticWidening */
	bool iceberg_only;     /* a UniForm Iceberg table: only what Iceberg promotes */
} dl_widening;

/* The widening of a table of configuration `conf` (UniForm Iceberg when
 * delta.universalFormat.enabledFormats names iceberg) under `mode`. */
void dl_widening_of(dl_widening *out, const dl_str_map *conf, dl_auto_widening mode);

/* Whether schema evolution under `w` changes a column of type `from` to
 * `to` (primitives; false for equal types). ALWAYS: any typeWidening
 * change (TypeWidening.isTypeChangeSupported, dl_type_widens_to);
 * SAME_FAMILY_TYPE: isTypeChangeSupportedForSchemaEvolution, byte ->
 * short -> int -> long, float -> double, a decimal to one at least as wide
 * in both integral digits and scale, date -> timestamp_ntz, not integers to
 * double or decimal; NEVER: none. With iceberg_only, also one of Iceberg's
 * promotions (isTypeChangeSupportedByIceberg: integers to wider integers,
 * float -> double, a decimal's precision at the same scale). */
bool dl_widening_allows(const dl_widening *w, const dl_type *from, const dl_type *to);

/* `evolved` (a schema: a struct type) with the delta.typeChanges history of
 * every widening from `old` recorded, as Spark's
 * TypeWideningMetadata.addTypeWideningMetadata: for each field also in
 * `old` (by name, case-insensitively) one entry per primitive type that
 * changed at the field itself or inside its arrays and maps (fieldPath
 * "element", "key", "value", "value.element"...), recursively in nested
 * structs, where entries go to the nearest struct field. *out is a new
 * reference. */
int dl_type_changes_record(dl_type **out, const dl_type *old, const dl_type *evolved);

#endif
