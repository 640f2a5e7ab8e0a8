/* Reading checkpoints (PROTOCOL.md "Checkpoints", "Checkpoint Schema", "V2
 * Spec"): classic single and multi-part Parquet checkpoints, UUID-named v2
 * checkpoints in Parquet or JSON, and the Parquet sidecar files they point
 * to. Rows become actions offered to the replay. */
#ifndef DL_LOG_CHECKPOINT_READ_H
#define DL_LOG_CHECKPOINT_READ_H
#include "deltalake/store.h"
#include "log/log_segment.h"
#include "log/replay.h"
#include "util/buf.h"

typedef struct pq_reader pq_reader;
typedef struct dl_batch dl_batch;

/* Reads one Parquet checkpoint part or sidecar file (`path` relative to the
 * table root) and offers its actions. Sidecar actions found in it are
 * collected into the replay's sidecar list (read by the caller). */
int dl_checkpoint_read_parquet(dl_replayer *r, dl_store *store, const char *path);

/* The same in two halves, so that decoding (dl_cp_file_*, any thread, one
 * at a time per file) can run ahead of offering (dl_cp_offer_batch, the
 * replaying thread): checkpoint_ahead.c. */
#define DL_CP_KINDS 8
typedef struct dl_cp_file {
	const char *path;
	pq_reader *pr;
	int kinds[DL_CP_KINDS]; /* the action columns read */
	int nkinds;
	int rg;                 /* the row group being read; -1 before the first */
	dl_buf text;            /* its planned column paths */
} dl_cp_file;
/* meta_only, lists: dl_replay_metadata_only, dl_replay_wants_txns_domains */
int dl_cp_file_open(dl_cp_file *f, dl_store *store, const char *path, bool meta_only, bool lists);
/* The next batch (rows from *first on), *out NULL at the end. */
int dl_cp_file_next(dl_cp_file *f, dl_batch **out, int64_t *first);
void dl_cp_file_close(dl_cp_file *f);
int dl_cp_offer_batch(dl_replayer *r, const char *path, const dl_batch *b, int64_t first);

/* Reads the Parquet files paths[0..n) (checkpoint parts, or sidecars) in
 * order, as dl_checkpoint_read_parquet each, with the decoding of files
 * and batches ahead on the shared pool while this thread offers. */
int dl_checkpoint_read_files(dl_replayer *r, dl_store *store, const char *const *paths, size_t n);

#endif
