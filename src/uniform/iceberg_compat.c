/* The IcebergCompatV1/V2 and UniversalFormat rules a table configuration
 * must satisfy (PROTOCOL.md "Iceberg Compatibility V1/V2"; Spark's
 * IcebergCompat.enforceInvariantsAndDependencies and
 * UniversalFormat.enforceInvariantsAndDependencies), checked whenever a
 * commit sets new metadata (CREATE, REPLACE, ALTER):
 *
 *   - enabledFormats naming iceberg needs IcebergCompatV1 or V2 enabled
 *     (DELTA_UNIVERSAL_FORMAT_VIOLATION);
 *   - hudi is refused: this library cannot write or verify Hudi's
 *     .hoodie timeline, and claiming it would mislead Hudi readers;
 *   - only one IcebergCompat version at a time (VERSION_MUTUAL_EXCLUSIVE);
 *   - column mapping must be on (name or id; Spark's RequireColumnMapping,
 *     WRONG_REQUIRED_TABLE_PROPERTY); CREATE and ALTER turn it on
 *     themselves when the table has none, see the callers;
 *   - deletion vectors must be disabled (DELETION_VECTORS_SHOULD_BE_DISABLED);
 *   - the schema's types must be ones Iceberg expresses (iceberg_schema.c).
 *
 * IcebergCompatV1 is accepted by the rules but metadata is generated the
 * same way (V2's layout, which V1 readers also read). */
#include <string.h>
#include <strings.h>

#include "log/properties.h"
#include "uniform/iceberg_schema.h"
#include "uniform/uniform.h"
#include "util/error.h"

static bool is_true(const dl_str_map *conf, const char *key)
{
	bool found;
	const char *v = dl_str_map_get(conf, key, &found);
	bool b = false;
	return v && dl_parse_bool_property(v, &b) == 0 && b;
}

int dl_uniform_validate(const dl_str_map *conf, const dl_type *schema)
{
	bool v1 = is_true(conf, "delta.enableIcebergCompatV1");
	bool v2 = is_true(conf, "delta.enableIcebergCompatV2");
	if (dl_uniform_format_enabled(conf, "hudi"))
		return dl_error_set_class(DL_EUNSUPPORTED, "DELTA_UNIVERSAL_FORMAT_VIOLATION",
		                          "The validation of Universal Format (hudi) has failed: this library "
		                          "does not generate Hudi metadata (.hoodie), so a table cannot claim "
		                          "it. Remove hudi from delta.universalFormat.enabledFormats.");
	if (dl_uniform_format_enabled(conf, "iceberg") && !v1 && !v2)
		return dl_error_set_class(DL_EINVALID, "DELTA_UNIVERSAL_FORMAT_VIOLATION",
		                          "The validation of Universal Format (iceberg) has failed: "
		                          "'delta.universalFormat.enabledFormats' includes iceberg, which "
		                          "requires IcebergCompatV1 or IcebergCompatV2 to be enabled (set "
		                          "'delta.enableIcebergCompatV2' = 'true').");
	if (!v1 && !v2) return 0;
	int version = v2 ? 2 : 1;
	if (v1 && v2)
		return dl_error_set_class(DL_EINVALID, "DELTA_ICEBERG_COMPAT_VIOLATION.VERSION_MUTUAL_EXCLUSIVE",
		                          "The validation of IcebergCompatV2 has failed: Only one "
		                          "IcebergCompat version can be enabled, please explicitly disable all "
		                          "other IcebergCompat versions that are not needed.");
	dl_table_properties p;
	if (dl_table_properties_parse(&p, conf, false) < 0) dl_error_clear();
	if (p.column_mapping_mode == DL_CM_NONE)
		return dl_error_set_class(DL_EINVALID, "DELTA_ICEBERG_COMPAT_VIOLATION.WRONG_REQUIRED_TABLE_PROPERTY",
		                          "The validation of IcebergCompatV%d has failed: IcebergCompatV%d "
		                          "requires table property 'delta.columnMapping.mode' to be set to "
		                          "'name'. Current value: 'none'.",
		                          version, version);
	if (p.enable_deletion_vectors)
		return dl_error_set_class(DL_EINVALID,
		                          "DELTA_ICEBERG_COMPAT_VIOLATION.DELETION_VECTORS_SHOULD_BE_DISABLED",
		                          "The validation of IcebergCompatV%d has failed: IcebergCompatV%d "
		                          "requires Deletion Vectors to be disabled on the table. Please use "
		                          "the ALTER TABLE DROP FEATURE command to disable Deletion Vectors and "
		                          "to remove the existing Deletion Vectors from the table.",
		                          version, version);
	return schema ? dl_ice_check_types(schema, version) : 0;
}

int dl_uniform_required_properties(dl_str_map *out, dl_arena *arena, const dl_str_map *in, bool *added)
{
	*out = *in;
	*added = false;
	if (!is_true(in, "delta.enableIcebergCompatV1") && !is_true(in, "delta.enableIcebergCompatV2"))
		return 0;
	bool found;
	const char *mode = dl_str_map_get(in, "delta.columnMapping.mode", &found);
	if (found && mode && strcasecmp(mode, "none") != 0) return 0;
	dl_kv *items = dl_arena_calloc(arena, (size_t)in->n + 1, sizeof *items);
	if (!items) return DL_ENOMEM;
	uint32_t n = 0;
	for (uint32_t i = 0; i < in->n; i++)
		if (strcmp(in->items[i].key, "delta.columnMapping.mode") != 0) items[n++] = in->items[i];
	/* An explicit 'none' is the user's choice: keep it, validation refuses. */
	items[n].key = "delta.columnMapping.mode";
	items[n++].value = found && mode ? mode : "name";
	out->items = items;
	out->n = n;
	*added = !found;
	return 0;
}
