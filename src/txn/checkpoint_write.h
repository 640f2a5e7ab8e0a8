/* Writing checkpoints (PROTOCOL.md "Checkpoints", "Checkpoint Specs",
 * "Checkpoint Naming Scheme", "Checkpoint Schema", "Last Checkpoint File
 * Schema"): the state of one version as Parquet rows, one action per row -
 * protocol, metaData, txn, domainMetadata (live ones), add, and the remove
 * tombstones not yet expired (delta.deletedFileRetentionDuration).
 *
 * Kinds: classic V1 (N.checkpoint.parquet); multi-part when the actions
 * exceed part_actions (N.checkpoint.P.K.parquet, rows spread by Spark's
 * hash partitioning of the path so racing writers produce equal parts);
 * V2 when the table's delta.checkpointPolicy is v2 (N.checkpoint.<uuid>.
 * parquet with a checkpointMetadata row, the non-file actions and one
 * sidecar row per _delta_log/_sidecars/<uuid>.parquet holding the file
 * actions). add.stats is written per delta.checkpoint.writeStatsAsJson and
 * add.partitionValues_parsed per delta.checkpoint.writeStatsAsStruct.
 *
 * Every file is published atomically (written aside, then renamed), and
 * _last_checkpoint - with its MD5 checksum - only after all of them. Rows
 * are built and flushed in small batches, so memory beyond the snapshot
 * stays bounded. */
#ifndef DL_TXN_CHECKPOINT_WRITE_H
#define DL_TXN_CHECKPOINT_WRITE_H
#include <stdbool.h>
#include <stdint.h>
#include "deltalake/maintenance.h"
#include "deltalake/snapshot.h"
#include "deltalake/store.h"
#include "json/json.h"

typedef enum dl_checkpoint_kind {
	DL_CHECKPOINT_AUTO = 0,  /* V2 when the table's policy says so, else classic */
	DL_CHECKPOINT_KIND_CLASSIC,
	DL_CHECKPOINT_KIND_V2,
} dl_checkpoint_kind;

/* dl_checkpoint_options (deltalake/maintenance.h) plus what only the
 * library and its tests choose. */
typedef struct dl_ckpt_write_options {
	int64_t part_actions;    /* actions per part / sidecar; 0: 5,000,000 */
	dl_checkpoint_kind kind;
	int64_t now_ms;          /* INT64_MIN: the clock (tombstone expiry) */
	dl_progress_fn progress; /* NULL: none */
	void *progress_payload;
} dl_ckpt_write_options;
#define DL_CKPT_WRITE_OPTIONS_INIT {0, DL_CHECKPOINT_AUTO, INT64_MIN, NULL, NULL}

/* Checkpoints the state of `snap` (opened with tombstones, not
 * metadata-only); see dl_checkpoint. */
int dl_checkpoint_write(dl_checkpoint_result *out, dl_store *store, dl_snapshot *snap,
                        const dl_ckpt_write_options *opts);
/* Opens the snapshot of `version` (-1: latest) and checkpoints it. */
int dl_checkpoint_write_version(dl_checkpoint_result *out, dl_store *store, int64_t version,
                                const dl_ckpt_write_options *opts);

/* The JSON checksum of PROTOCOL.md "JSON checksum": MD5 (32 lowercase hex
 * digits) of the canonical form of `v`, ignoring a top-level "checksum". */
int dl_json_checksum(char out[33], const dl_json *v);

#endif
