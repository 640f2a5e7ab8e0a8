/* The Parquet schema of checkpoint files (checkpoint_schema.c). */
#ifndef DL_TXN_CHECKPOINT_SCHEMA_H
#define DL_TXN_CHECKPOINT_SCHEMA_H
#include <stdbool.h>
#include "columnar/types.h"

typedef struct dl_ckpt_schema_options {
	bool v2;                           /* checkpointMetadata and sidecar columns */
	bool sidecar_file;                 /* only add and remove (a V2 sidecar) */
	bool stats_json;                   /* add.stats */
	bool clustering_provider;          /* add.clusteringProvider */
	const char *partition_parsed_json; /* add.partitionValues_parsed type, or NULL */
	const char *stats_parsed_json;     /* add.stats_parsed type, or NULL */
} dl_ckpt_schema_options;

/* The top-level struct type of one checkpoint file. */
int dl_ckpt_schema(dl_type **out, const dl_ckpt_schema_options *o);

#endif
