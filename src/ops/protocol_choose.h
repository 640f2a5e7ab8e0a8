/* The protocol a table needs for what it uses (PROTOCOL.md "Table
 * Features", "Reader/Writer Version Requirements"), chosen as Spark does:
 * the lowest legacy version pair that covers every feature in use when
 * only legacy features are used ((1,2) by default, (1,3) CHECK constraints,
 * (1,4) change data feed / generated columns, (2,5) column mapping, (1,6)
 * identity columns), else table features (writer 7, reader 3 when a
 * reader-writer feature is used) listing every feature, including the
 * legacy ones the default (1,2) implies (appendOnly, invariants). Which
 * features the schema and properties enable, their versions and what they
 * require come from the feature registry (log/table_features.h). */
#ifndef DL_OPS_PROTOCOL_CHOOSE_H
#define DL_OPS_PROTOCOL_CHOOSE_H
#include "columnar/types.h"
#include "log/actions.h"
#include "util/arena.h"

/* What a table with `schema` and `configuration` requires, never below
 * `existing` (NULL for a new table: an upgrade keeps what was there).
 * `configuration` may hold delta.feature.<name> = enabled|supported and
 * delta.minReaderVersion / delta.minWriterVersion, which ask for more, and
 * delta.ignoreProtocolDefaults = true, which starts a new table from (1,1)
 * instead of Spark's default (1,2). A feature this library cannot write is
 * DL_EUNSUPPORTED naming it; *out lives in `arena`. */
int dl_ops_choose_protocol(dl_protocol *out, dl_arena *arena, const dl_type *schema,
                           const dl_str_map *configuration, const dl_protocol *existing);

/* True for configuration keys that only ask for protocol changes and are not
 * stored in metaData.configuration (delta.feature.*, delta.min*Version,
 * delta.ignoreProtocolDefaults), as Spark's isTableProtocolProperty. */
bool dl_ops_is_protocol_property(const char *key);

/* Whether two protocols are the same (versions and feature sets):
 * dl_protocol_equal. */
bool dl_ops_protocol_equal(const dl_protocol *a, const dl_protocol *b);

#endif
