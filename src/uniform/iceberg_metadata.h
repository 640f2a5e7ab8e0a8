/* Writing Iceberg table metadata JSON (see iceberg_metadata.c). */
#ifndef DL_UNIFORM_ICEBERG_METADATA_H
#define DL_UNIFORM_ICEBERG_METADATA_H

#include "uniform/iceberg_expire.h"
#include "uniform/iceberg_read.h"

/* What the new metadata version adds to the previous one (prev NULL or
 * fresh: a new history). */
typedef struct dl_ice_new_version {
	const dl_ice_metadata *prev;      /* NULL: first version */
	bool fresh;                       /* drop prev's snapshots (a new partition spec) */
	const char *table_uuid;           /* used when there is no prev */
	const char *location;
	const dl_type *schema;            /* Delta logical schema, with column mapping ids */
	const dl_ice_table_schema *ice;
	int64_t snapshot_id;
	int64_t sequence_number;
	int64_t timestamp_ms;
	const char *manifest_list;        /* absolute */
	const char *operation;            /* append, overwrite, delete */
	int64_t added_files, deleted_files, added_records, deleted_records, total_files, total_records;
	int64_t delta_version;
	int64_t delta_timestamp_ms;
	const char *prev_metadata_file;   /* absolute path of prev's file, for metadata-log */
	const dl_ice_expiry *expired;     /* prev's snapshots this version drops, or NULL */
	const dl_str_map *properties;     /* all of them (iceberg_properties.c) */
} dl_ice_new_version;

/* The metadata JSON text of the new version. */
int dl_ice_metadata_write(dl_buf *out, const dl_ice_new_version *v);

#endif
