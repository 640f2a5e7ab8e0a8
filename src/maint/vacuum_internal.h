/* What the parts of VACUUM share (vacuum.c drives; vacuum_list.c finds the
 * candidates by listing the table, vacuum_inventory.c from an inventory
 * stream, vacuum_lite.c from the log; vacuum_delete.c deletes them). The
 * rule they implement is Spark's VacuumCommand.gc:
 *
 *   valid     = every path the snapshot's adds reference, the paths of
 *               tombstones not older than the cut-off, the DV files of both
 *               (relative 'u' DVs only), and every parent directory of those;
 *   candidate = a listed file older than the cut-off (modification time) or
 *               a listed directory, not valid, outside hidden paths;
 *   delete    = candidates that are files, and directories holding no file.
 *
 * Paths are relative to the table root and decoded (as the store names
 * objects); a log path outside the root (shallow clones) is never valid
 * and never a candidate: only listed objects are deleted, and listings are
 * of the table root. */
#ifndef DL_MAINT_VACUUM_INTERNAL_H
#define DL_MAINT_VACUUM_INTERNAL_H
#include <stdbool.h>
#include <stdint.h>
#include "deltalake/maintenance.h"
#include "log/snapshot.h"
#include "util/arena.h"
#include "util/hash.h"
#include "util/vec.h"

typedef struct dl_vacuum_entry {
	char *path;          /* relative, decoded; in the context's arena */
	int64_t size;
	int64_t mtime_ms;
	bool is_dir;
} dl_vacuum_entry;

typedef DL_VEC(dl_vacuum_entry) dl_vacuum_entries;

typedef struct dl_vacuum_ctx {
	dl_store *store;
	dl_snapshot *snap;
	const dl_vacuum_options *o;
	char *root_canon;            /* canonical table root (storage/resolve.h) */
	char *local_root;            /* the root's local path on a file store, else NULL
	                                (object stores have no directories) */
	const char *const *partition_columns;
	uint32_t npartition_columns;
	int64_t cutoff_ms;           /* deleteBeforeTimestamp */
	dl_strmap valid;             /* valid paths and their directories (keys copied) */
	dl_arena arena;
	dl_vacuum_entries listed;    /* files and directories seen */
	int64_t dirs_present;        /* directories listed, for numVacuumedDirectories */
	bool inventory_taken;        /* the inventory stream was handed to its reader */
	int64_t lite_end_version;    /* LITE: latestCommitVersionOutsideOfRetentionWindow, -1 none */
} dl_vacuum_ctx;

/* Spark's DeltaTableUtils.isHiddenDirectory for one path segment: starts
 * with '_' or '.', except _delta_index, _change_data and partition
 * directories "col=...". */
bool dl_vacuum_hidden_name(const dl_vacuum_ctx *c, const char *name, size_t n);
/* True when any segment of the relative path is hidden. */
bool dl_vacuum_hidden_path(const dl_vacuum_ctx *c, const char *path);

/* A path of the log (relative or absolute URI, decoded) relative to the
 * table root in *rel (arena), or NULL when it lies outside the root. */
int dl_vacuum_relativize(dl_vacuum_ctx *c, const char *log_path, const char **rel);

/* Appends one listed object or directory (path copied). */
int dl_vacuum_push(dl_vacuum_ctx *c, const char *path, size_t n, int64_t size, int64_t mtime,
                   bool is_dir);

/* FULL: lists the table root (and, on a local file store, its
 * directories). */
int dl_vacuum_list_table(dl_vacuum_ctx *c);
/* USING INVENTORY: the rows of the stream (consumed and released). */
int dl_vacuum_list_inventory(dl_vacuum_ctx *c, struct ArrowArrayStream *inv);
/* LITE: the removes and cdc files of the commits since the last VACUUM up
 * to the newest one outside the window (DELTA_CANNOT_VACUUM_LITE when the
 * log no longer has them). */
int dl_vacuum_list_lite(dl_vacuum_ctx *c);
/* After a successful non-dry run: _delta_log/_last_vacuum_info. */
int dl_vacuum_write_last_info(dl_vacuum_ctx *c);

/* Deletes `paths` (files first, then directories deepest first) on
 * `threads` workers; *deleted counts the successes (a file already gone
 * is not one, as Hadoop's delete returning false). */
int dl_vacuum_delete(int64_t *deleted, dl_vacuum_ctx *c, dl_vacuum_entry **paths, size_t n,
                     int threads);

#endif
