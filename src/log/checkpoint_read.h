/* Reading checkpoints (PROTOCOL.md "Checkpoints", "Checkpoint Schema", "V2
 * Spec"): classic single and multi-part Parquet checkpoints, UUID-named v2
 * checkpoints in Parquet or JSON, and the Parquet sidecar files they point
 * to. Rows become actions offered to the replay. */
#ifndef DL_LOG_CHECKPOINT_READ_H
#define DL_LOG_CHECKPOINT_READ_H
#include "deltalake/store.h"
#include "log/log_segment.h"
#include "log/replay.h"

/* Reads one Parquet checkpoint part or sidecar file (`path` relative to the
 * table root) and offers its actions. Sidecar actions found in it are
 * collected into the replay's sidecar list (read by the caller). */
int dl_checkpoint_read_parquet(dl_replayer *r, dl_store *store, const char *path);

#endif
