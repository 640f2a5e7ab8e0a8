/* The internal side of store backends. The contract itself is public:
 * include/deltalake/sys/store_backend.h (what dl_store checks before a
 * backend is called, what a backend guarantees). This header adds what the
 * built-in backends and the registry share inside the library. */
#ifndef DL_STORAGE_BACKEND_H
#define DL_STORAGE_BACKEND_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "deltalake/store.h"
#include "deltalake/sys/store_backend.h"

/* The built-in backends (registry.c registers them first). */
extern const dl_store_backend dl_store_backend_file;
extern const dl_store_backend dl_store_backend_mem;
extern const dl_store_backend dl_store_backend_fault;

/* A copy of the backend registered for `scheme` (case-insensitive).
 * DL_EINVALID naming the scheme, `uri` and the registered schemes when
 * there is none. */
int dl_store_registry_find(dl_store_backend *out, const char *scheme, size_t scheme_len,
                           const char *uri);

/* The options a store was opened with (a private copy; never NULL). */
const dl_store_options *dl_store_options_of(const dl_store *s);
/* The backend state of `s` when it was opened by `be` (compared by its open
 * function), else NULL: lets a backend's own helpers (store_fault.h) reach
 * their state from a dl_store. */
void *dl_store_impl_of(const dl_store *s, const dl_store_backend *be);

/* The backend's version_at_timestamp (store_backend.h): 1 with *version
 * set when the store resolves times itself, 0 when it does not (the log's
 * commit times decide), or an error. */
int dl_store_version_at_timestamp(int64_t *version, dl_store *s, int64_t ts_ms, int mode,
                                  bool after_latest_ok);

/* True when `s` is served by the built-in file or mem backend: a read
 * there costs a system call, not a network request, so callers that
 * batch requests (the Parquet reader's range coalescing) batch less. */
bool dl_store_is_local(const dl_store *s);

/* The scheme of the backend serving `s` ("file", "s3", "delta-sharing"...). */
const char *dl_store_scheme(const dl_store *s);

/* Whether a listing of `s`'s _delta_log shows every commit the table has,
 * so that its earliest listed commit is the earliest there is: false for
 * a backend declaring DL_STORE_LIMIT_UNLISTED_COMMITS (a shared table). */
bool dl_store_lists_commits(const dl_store *s);

/* Checks the options a backend of namespace `ns` ("fault") reads: every
 * key "ns.*" must be one of `known` (NULL-terminated, without the
 * prefix). DL_EINVALID naming an unknown key. */
int dl_store_options_check_namespace(const dl_store_options *o, const char *ns,
                                     const char *const *known);

/* dl_store_list_from with the entries that are not objects (size -1; the
 * backend contract, sys/store_backend.h): a directory in _delta_log named
 * like a commit is an error for the log, not nothing. */
int dl_store_list_entries_from(dl_object_list *out, dl_store *s, const char *dir, const char *start_name);

/* Appends one entry (path copied) to a list. 0 or DL_ENOMEM. */
int dl_object_list_push(dl_object_list *l, size_t *cap, const char *path, int64_t size,
                        int64_t mtime_ms);

#endif
