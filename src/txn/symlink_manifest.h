/* Symlink-format manifests (Spark's GenerateSymlinkManifest), the files
 * Presto, Trino and Athena read instead of the log:
 * _symlink_format_manifest/[<partition dir>/]manifest, one per partition,
 * listing the absolute paths of its data files, one a line. Written by
 * GENERATE (src/maint/generate.c) and, with
 * delta.compatibility.symlinkFormatManifest.enabled=true, after every
 * commit (post_commit.c). Here every manifest of the version is rewritten
 * (Spark's full mode) and the manifests of partitions that no longer exist
 * are deleted; each manifest is published atomically, so a reader sees an
 * old or a new one, never half of one. */
#ifndef DL_TXN_SYMLINK_MANIFEST_H
#define DL_TXN_SYMLINK_MANIFEST_H
#include <stdbool.h>
#include <stdint.h>
#include "deltalake/snapshot.h"
#include "deltalake/store.h"

#define DL_SYMLINK_MANIFEST_DIR "_symlink_format_manifest"
#define DL_SYMLINK_MANIFEST_PROPERTY "delta.compatibility.symlinkFormatManifest.enabled"

/* Writes the manifests of `snap` (opened with its files) on `store` (the
 * table's). Refuses tables whose files have deletion vectors
 * (DELTA_UNSUPPORTED_GENERATE_WITH_DELETION_VECTORS) and column mapping
 * (DELTA_UNSUPPORTED_MANIFEST_GENERATION_WITH_COLUMN_MAPPING), as Spark.
 * *files (may be NULL): data files listed. */
int dl_symlink_manifest_write(int64_t *files, dl_store *store, dl_snapshot *snap);

/* True when the configuration of `snap` enables the post-commit manifest. */
bool dl_symlink_manifest_enabled(const dl_snapshot *snap);

#endif
