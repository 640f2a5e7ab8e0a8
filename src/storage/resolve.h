/* Where the files a log names live, and whether they may be read.
 *
 * Data and deletion-vector paths of the log are relative to the table root
 * or absolute (shallow clones, some writers): "/data/src/part-0.parquet",
 * "s3://bucket/src/part-0.parquet". A resolver gives the store and
 * relative path of each, opening the stores of absolute paths by URI
 * scheme through the registry (with the table store's options) and keeping
 * them for the resolver's life, so a scan opens each only once.
 *
 * The path policy (dl_snapshot_options.allowed_roots): with no roots every
 * path is allowed, as the protocol permits; with roots, a path must lie
 * inside the table root or one of them, after lexical normalization (see
 * dl_path_canonical), else DL_EPERM naming the path and the table. */
#ifndef DL_STORAGE_RESOLVE_H
#define DL_STORAGE_RESOLVE_H
#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include "deltalake/store.h"

/* Normalized allowed roots (canonical forms); n == 0: no policy. */
typedef struct dl_path_roots {
	char **items;
	int n;
} dl_path_roots;

/* Normalizes and copies roots; `what` names the options for messages.
 * DL_EINVALID for a NULL array with n > 0, an empty root or one that
 * climbs above "/". */
int dl_path_roots_copy(dl_path_roots *out, const char *const *roots, int n, const char *what);
void dl_path_roots_free(dl_path_roots *r);

/* The canonical form of a URI or local path, for containment checks:
 * "file:///a/b" for local paths (plain, relative to the working directory,
 * or file: URIs, %-decoded), "scheme://authority/a/b" otherwise (scheme in
 * lower case), "fault://X" as X; "." and empty segments dropped, ".."
 * applied. DL_EPERM when ".." climbs above the root. */
int dl_path_canonical(char **out, const char *uri);

typedef struct dl_resolved_store dl_resolved_store;

typedef struct dl_store_resolver {
	dl_store *table_store;  /* borrowed */
	char *table_canon;      /* canonical table root; NULL when unconfined */
	dl_path_roots roots;    /* copy; n == 0: unconfined */
	pthread_mutex_t mu;
	dl_resolved_store *opened; /* stores of absolute paths, by directory */
	size_t nopened, capopened;
} dl_store_resolver;

/* roots may be NULL or empty (no policy). */
int dl_store_resolver_init(dl_store_resolver *r, dl_store *table_store, const dl_path_roots *roots);
void dl_store_resolver_free(dl_store_resolver *r);
/* Whether the policy allows a log path; `what` ("data file", "deletion
 * vector file") starts the DL_EPERM message. */
int dl_store_resolver_check(dl_store_resolver *r, const char *path, const char *what);
/* The store and path within it of a log path (relative to the table root,
 * or absolute), after the policy check. *rel points into `path` or into
 * memory the resolver keeps. Safe from several threads at once. */
int dl_store_resolve(dl_store **store, const char **rel, dl_store_resolver *r, const char *path,
                     const char *what);

#endif
