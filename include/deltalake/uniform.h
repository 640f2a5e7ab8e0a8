/* UniForm: Iceberg metadata beside the Delta log (docs/UNIFORM.md).
 * Tables with 'delta.enableIcebergCompatV2' = 'true' and
 * 'delta.universalFormat.enabledFormats' = 'iceberg' get their Iceberg
 * metadata after every commit; this call brings it up to date on demand
 * (after a failed conversion, or for a table whose log another writer
 * extended). Thread-safety: independent calls may run concurrently; two
 * conversions of one table race on put-if-absent and one of them fails
 * with DL_ECONFLICT, harmlessly. */
#ifndef DELTALAKE_UNIFORM_H
#define DELTALAKE_UNIFORM_H

#include <stdint.h>

#include "deltalake/common.h"
#include "deltalake/store.h"

typedef struct dl_uniform_info {
	int converted;                   /* 1: new metadata written; 0: it was up to date */
	int64_t converted_delta_version; /* the Delta version the Iceberg metadata shows */
	int64_t previous_delta_version;  /* what it showed before (-1: no metadata) */
	int64_t metadata_version;        /* N of metadata/v<N>.metadata.json */
	int64_t snapshot_id;             /* the current Iceberg snapshot */
	int64_t converted_delta_timestamp; /* epoch ms of that Delta commit (-1: none) */
} dl_uniform_info;

#define DL_UNIFORM_OPTIONS_VERSION 1
typedef struct dl_uniform_options {
	int version;                           /* DL_UNIFORM_OPTIONS_VERSION */
	dl_store *store;                       /* borrowed; NULL: opened from the uri */
	const dl_store_options *store_options;
	int force;                             /* write a new metadata version even when up to date */
} dl_uniform_options;
#define DL_UNIFORM_OPTIONS_INIT {DL_UNIFORM_OPTIONS_VERSION, NULL, NULL, 0}

/* Converts the latest version of the table at `uri` to Iceberg metadata
 * (catching up from converted_delta_version). A table without UniForm
 * Iceberg enabled is DL_EINVALID, class DELTA_UNIVERSAL_FORMAT_VIOLATION.
 * opts may be NULL. */
DL_EXTERN(int) dl_uniform_regenerate(dl_uniform_info *out, const char *uri, const dl_uniform_options *opts);

/* The state of the table's Iceberg metadata without writing any: the
 * newest metadata/v<N>.metadata.json's converted_delta_version (-1 when
 * there is no metadata), N and the current snapshot; converted is 0.
 * opts may be NULL (force is ignored). */
DL_EXTERN(int) dl_uniform_status(dl_uniform_info *out, const char *uri, const dl_uniform_options *opts);

#endif
