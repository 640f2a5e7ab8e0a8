/* UniForm: Iceberg metadata generated beside the Delta log (see
 * uniform_commit.c, docs/UNIFORM.md). */
#ifndef DL_UNIFORM_UNIFORM_H
#define DL_UNIFORM_UNIFORM_H

#include <stdbool.h>
#include <stdint.h>

#include "columnar/types.h"
#include "deltalake/store.h"
#include "log/actions.h"
#include "util/arena.h"

#define DL_UNIFORM_FORMATS_KEY "delta.universalFormat.enabledFormats"

/* Whether delta.universalFormat.enabledFormats names `format` ("iceberg"). */
bool dl_uniform_format_enabled(const dl_str_map *conf, const char *format);

typedef struct dl_uniform_result {
	bool converted;          /* false: already up to date (or UniForm off) */
	int64_t delta_version;   /* the Delta version the Iceberg metadata now shows */
	int64_t from_version;    /* the one it showed before (-1: none) */
	int64_t metadata_version;/* N of metadata/v<N>.metadata.json */
	int64_t snapshot_id;
	int64_t expired_snapshots; /* dropped by the expiry an OPTIMIZE triggers */
} dl_uniform_result;

/* Brings the table's Iceberg metadata up to Delta version `version` (-1:
 * the latest) from the last converted one (its converted_delta_version),
 * as one Iceberg snapshot. When UniForm Iceberg is not enabled at that
 * version: nothing, or an error with `required`. `always`: a new version
 * even when the metadata is up to date. */
int dl_uniform_convert(dl_uniform_result *out, dl_store *store, int64_t version, bool required,
                       bool always);

/* CREATE/ALTER validation of a new configuration and schema (Spark's
 * IcebergCompat and UniversalFormat checks). protocol_has_dv: the
 * protocol supports deletion vectors. */
int dl_uniform_validate(const dl_str_map *conf, const dl_type *schema);

/* Spark's RequireColumnMapping: a configuration enabling IcebergCompatV1
 * or V2 without a column mapping mode gets delta.columnMapping.mode =
 * 'name' (*out = in otherwise; items in the arena). */
int dl_uniform_required_properties(dl_str_map *out, dl_arena *arena, const dl_str_map *in, bool *added);

#endif
