/* Iceberg snapshot expiry after an OPTIMIZE (see iceberg_expire.c). */
#ifndef DL_UNIFORM_ICEBERG_EXPIRE_H
#define DL_UNIFORM_ICEBERG_EXPIRE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "uniform/iceberg_read.h"

/* The snapshots of the previous metadata that the new version drops. */
typedef struct dl_ice_expiry {
	int64_t *ids;        /* expired snapshot ids */
	const char **lists;  /* their manifest-list paths (as the metadata names them) */
	size_t n;
	int64_t *kept;       /* the previous snapshots that stay */
	const char **kept_lists;
	size_t nkept;
} dl_ice_expiry;

#define DL_ICE_MAX_SNAPSHOT_AGE_MS_DEFAULT 432000000LL /* 5 days */

/* Whether a Delta commit in (from, to] is an OPTIMIZE (Spark's
 * IcebergConverter expires Iceberg snapshots only then). Commits whose
 * file is gone count as not. */
int dl_ice_commits_have_optimize(bool *out, dl_store *store, int64_t from, int64_t to);

/* Iceberg's ExpireSnapshots with the table's defaults
 * (history.expire.max-snapshot-age-ms, history.expire.min-snapshots-to-keep)
 * of the new version's properties `props`, over `prev`'s snapshots and a
 * new head whose parent is `head_parent`,
 * at time now_ms. Arrays malloc'd (dl_ice_expiry_free); strings borrowed
 * from prev. */
int dl_ice_expiry_plan(dl_ice_expiry *out, const dl_ice_metadata *prev, const dl_str_map *props,
                       int64_t head_parent, int64_t now_ms);

bool dl_ice_expiry_has(const dl_ice_expiry *e, int64_t snapshot_id);

/* After the new metadata is published: deletes the expired snapshots'
 * manifest lists and the manifests no kept snapshot (nor the new one,
 * whose manifests are `current`) references, only under the table's
 * metadata/ directory, as Spark's expireIcebergSnapshot restricts
 * deleteWith to the metadata location. Failures are ignored (Iceberg's
 * cleanup only logs them). `rel` maps a metadata path to a store path. */
typedef const char *(*dl_ice_rel_fn)(const char *path, void *payload);
void dl_ice_expiry_clean(dl_store *store, const dl_ice_expiry *e, const dl_ice_manifest_info *current,
                         size_t ncurrent, dl_ice_rel_fn rel, void *payload);

void dl_ice_expiry_free(dl_ice_expiry *e);

#endif
