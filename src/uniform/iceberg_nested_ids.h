/* IcebergCompatV2 nested field ids (see iceberg_nested_ids.c). */
#ifndef DL_UNIFORM_ICEBERG_NESTED_IDS_H
#define DL_UNIFORM_ICEBERG_NESTED_IDS_H

#include <stdbool.h>
#include <stdint.h>

#include "columnar/types.h"
#include "json/json.h"
#include "log/actions.h"
#include "util/arena.h"

#define DL_CM_NESTED_IDS_KEY "delta.columnMapping.nested.ids"

/* Whether the configuration enables IcebergCompatV2. */
bool dl_ice_compat_v2_enabled(const dl_str_map *conf);

/* A copy of `schema` (a column-mapped struct) where every array element
 * and map key/value without an id in its nearest struct field's
 * delta.columnMapping.nested.ids gets ++*max_id, in Spark's order
 * (pre-order, fields in order, key before value). *changed says whether
 * any id was added (when not, *out is a new reference to `schema`). */
int dl_ice_assign_nested_ids(dl_type **out, const dl_type *schema, int64_t *max_id, bool *changed);

/* The largest nested id anywhere in the schema (0 when none). */
int64_t dl_ice_max_nested_id(const dl_type *schema);

/* The nested-ids object of a struct field (NULL when it has none), parsed
 * into the arena. */
int dl_ice_nested_ids_of(const dl_field *f, dl_arena *arena, const dl_json **out);

/* The id of `path` ("<physical>.element", "<physical>.key", ...) in a
 * nested-ids object; false when absent. */
bool dl_ice_nested_id(const dl_json *ids, const char *path, int32_t *out);

/* Every array and map of the schema has its ids (an error naming the first
 * column that lacks them otherwise). */
int dl_ice_check_nested_ids(const dl_type *schema);

/* The metaData a commit under IcebergCompatV2 records: `in` with the
 * nested ids assigned and maxColumnId raised past them. *out = *in when
 * nothing changes; otherwise its strings live in the arena. */
int dl_ice_metadata_with_nested_ids(dl_metadata *out, dl_arena *arena, const dl_metadata *in);

#endif
