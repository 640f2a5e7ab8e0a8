/* Sidecar files referenced by V2 checkpoints (sidecar_refs.c). */
#ifndef DL_TXN_SIDECAR_REFS_H
#define DL_TXN_SIDECAR_REFS_H
#include "deltalake/store.h"
#include "util/hash.h"

/* Adds the file names (under _delta_log/_sidecars) of the sidecars a V2
 * checkpoint (Parquet or JSON, path relative to the table) references to
 * `refs` (a map with copied keys). */
int dl_sidecar_refs_add(dl_strmap *refs, dl_store *store, const char *checkpoint_path);

#endif
