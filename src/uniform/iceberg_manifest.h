/* Iceberg manifests and manifest lists in Avro (see iceberg_manifest.c). */
#ifndef DL_UNIFORM_ICEBERG_MANIFEST_H
#define DL_UNIFORM_ICEBERG_MANIFEST_H

#include "uniform/iceberg_avro.h"
#include "uniform/iceberg_bounds.h"
#include "uniform/iceberg_schema.h"

/* Iceberg's manifest entry status. */
enum { DL_ICE_EXISTING = 0, DL_ICE_ADDED = 1, DL_ICE_DELETED = 2 };

/* One partition field's field_summary in a manifest list: over every
 * entry of the manifest (as Iceberg's ManifestWriter counts them). */
typedef struct dl_ice_part_summary {
	bool contains_null, contains_nan;
	uint8_t *lower, *upper; /* single-value serialization; malloc'd, NULL if none */
	size_t lower_len, upper_len;
} dl_ice_part_summary;

/* One manifest_file row of a manifest list. */
typedef struct dl_ice_manifest_info {
	dl_ice_part_summary *parts; /* one per partition field; malloc'd */
	int nparts;
	char *path; /* absolute (as written in the list); malloc'd */
	int64_t length;
	int32_t spec_id;
	int32_t content;
	int64_t sequence_number, min_sequence_number;
	int64_t added_snapshot_id;
	int32_t added_files, existing_files, deleted_files;
	int64_t added_rows, existing_rows, deleted_rows;
} dl_ice_manifest_info;

/* A data file as a manifest entry describes it. */
typedef struct dl_ice_data_file {
	const char *path;               /* absolute */
	int64_t size;
	const dl_str_map *partition;    /* Delta partitionValues (by logical column name) */
	const char *stats;              /* Delta stats JSON or NULL */
	size_t stats_len;
} dl_ice_data_file;

typedef struct dl_ice_manifest_writer {
	dl_ice_avro_writer av;
	const dl_ice_table_schema *s;
	dl_ice_manifest_info info;
	dl_arena tmp;
	bool any_seq;
	char **lo, **hi; /* per partition field: bound values as text (malloc'd) */
} dl_ice_manifest_writer;

/* rel_path: the object in the table's store; abs_path what the manifest
 * list will name. schema_json: the Iceberg schema (file metadata). */
int dl_ice_manifest_open(dl_ice_manifest_writer *w, dl_store *store, const char *rel_path,
                         const char *abs_path, const dl_ice_table_schema *s, const char *schema_json,
                         int32_t schema_id, int64_t snapshot_id, int64_t sequence_number);
int dl_ice_manifest_add(dl_ice_manifest_writer *w, int status, int64_t snapshot_id,
                        int64_t sequence_number, int64_t file_sequence_number,
                        const dl_ice_data_file *f);
/* Publishes the manifest; *out is its manifest-list row (out->path
 * malloc'd). Abort on failure is done here. */
int dl_ice_manifest_close(dl_ice_manifest_writer *w, dl_ice_manifest_info *out);
void dl_ice_manifest_abort(dl_ice_manifest_writer *w);

/* Writes a manifest list with these rows (meta: snapshot-id,
 * parent-snapshot-id, sequence-number, format-version). */
int dl_ice_manifest_list_write(dl_store *store, const char *rel_path, const dl_ice_manifest_info *m,
                               size_t n, int64_t snapshot_id, int64_t parent_id,
                               int64_t sequence_number);

void dl_ice_manifest_info_free(dl_ice_manifest_info *m);

#endif
