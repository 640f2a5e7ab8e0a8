/* Reading Iceberg table metadata, manifest lists and manifests (see
 * iceberg_read.c). */
#ifndef DL_UNIFORM_ICEBERG_READ_H
#define DL_UNIFORM_ICEBERG_READ_H

#include "uniform/iceberg_manifest.h"

/* The parts of a v2 metadata JSON file the converter needs. The DOM and
 * strings live in the arena given to dl_ice_metadata_parse. */
typedef struct dl_ice_metadata {
	int64_t file_version;          /* N of metadata/v<N>.metadata.json (-1: not from a file) */
	const dl_json *root;
	const char *table_uuid;
	const char *location;
	int64_t last_sequence_number;
	int64_t last_updated_ms;
	int64_t current_snapshot_id;   /* -1 when none */
	int32_t current_schema_id;
	const dl_json *schemas;        /* array */
	const dl_json *current_schema; /* the schemas element with current-schema-id */
	const dl_json *specs;          /* partition-specs array */
	int32_t default_spec_id;
	const dl_json *snapshots;      /* array, may be NULL */
	const dl_json *snapshot_log;   /* array, may be NULL */
	const dl_json *metadata_log;   /* array, may be NULL */
	const dl_json *properties;     /* object, may be NULL */
	const char *current_manifest_list; /* of the current snapshot, NULL if none */
	int64_t converted_delta_version;   /* properties' converted_delta_version, -1 if absent */
} dl_ice_metadata;

/* Parses and checks a metadata JSON text (format-version 1 or 2; fields
 * the spec requires; the current snapshot among the snapshots). Errors are
 * DL_ECORRUPT naming `what`. */
int dl_ice_metadata_parse(dl_ice_metadata *out, dl_arena *arena, const char *text, size_t len,
                          const char *what);

/* The newest metadata/v<N>.metadata.json of the table (by listing; the
 * version hint is only a hint). DL_ENOTFOUND when there is none. */
int dl_ice_metadata_load_latest(dl_ice_metadata *out, dl_arena *arena, dl_store *store);

/* A path the metadata names, relative to the store when it is under
 * `location` (the table root), else as given. */
const char *dl_ice_relative(const char *path, const char *location);

/* The rows of a manifest list. *out malloc'd; free each with
 * dl_ice_manifest_info_free, then dl_free. */
int dl_ice_manifest_list_read(dl_ice_manifest_info **out, size_t *n, dl_store *store,
                              const char *rel_path);

/* One manifest entry as read back. path and partition texts live in the
 * callback's call only. */
typedef struct dl_ice_entry {
	int status;
	int64_t snapshot_id;          /* -1 when null */
	int64_t sequence_number;      /* -1 when null */
	int64_t file_sequence_number; /* -1 when null */
	int32_t content;
	const char *file_path;
	const char *file_format;
	int64_t record_count;
	int64_t file_size;
} dl_ice_entry;
typedef int (*dl_ice_entry_fn)(const dl_ice_entry *e, avro_value_t *data_file, void *payload);
int dl_ice_manifest_read(dl_store *store, const char *rel_path, dl_ice_entry_fn fn, void *payload);

#endif
