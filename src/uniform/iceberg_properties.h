/* The Iceberg table properties a UniForm conversion writes (see
 * iceberg_properties.c). */
#ifndef DL_UNIFORM_ICEBERG_PROPERTIES_H
#define DL_UNIFORM_ICEBERG_PROPERTIES_H

#include "log/actions.h"
#include "uniform/iceberg_read.h"
#include "util/arena.h"
#include "util/buf.h"

/* Spark's DeltaConfigs.DELTA_UNIVERSAL_FORMAT_ICEBERG_CONFIG_PREFIX (keys
 * are stored lower-cased, see log/delta_configs.c). */
#define DL_UNIFORM_ICEBERG_CONFIG_PREFIX "delta.universalformat.config.iceberg."

/* Spark's DeltaToIcebergConvert.TableProperties(configuration): the Delta
 * properties with the prefix, stripped, and the computed
 * history.expire.max-snapshot-age-ms; Iceberg's reserved keys
 * (format-version, uuid, ...) left out, as Iceberg does not persist them.
 * A provided max-snapshot-age-ms above Delta's retention is an error. */
int dl_ice_properties_from_delta(dl_str_map *out, dl_arena *arena, const dl_str_map *conf);

/* Iceberg's NameMappingParser.toJson(MappingUtil.create(schema)) of an
 * Iceberg schema JSON ({"type":"struct","fields":[...]}): field ids to
 * names, nested through structs, list elements and map keys/values. */
int dl_ice_name_mapping(dl_buf *out, const char *schema_json);

/* The properties of the new metadata version: prev's (NULL: none, a new
 * table, which gets Iceberg's write.format.default), less the keys the
 * previous Delta configuration passed and the current one no longer does,
 * plus the current pass-through, converted_delta_version,
 * converted_delta_timestamp and schema.name-mapping.default, as Spark's
 * IcebergConversionTransaction updates them. prev_conf NULL: not known
 * (nothing removed). */
typedef struct dl_ice_properties_in {
	const dl_ice_metadata *prev;
	const dl_str_map *prev_conf;
	const dl_str_map *conf;
	int64_t delta_version;
	int64_t delta_timestamp_ms;
	const char *schema_json;
} dl_ice_properties_in;
int dl_ice_properties_build(dl_str_map *out, dl_arena *arena, const dl_ice_properties_in *in);

#endif
