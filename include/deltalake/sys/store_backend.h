/* Store backends: how an application adds a storage scheme (after libgit2's
 * include/git2/sys/odb_backend.h).
 *
 * dl_store_open picks a backend by the URI's scheme from a registry. The
 * built-in backends `file`, `mem` and `fault` are themselves expressed
 * through this interface; an application registers its own once:
 *
 *   static const dl_store_backend s3 = {
 *       .version = DL_STORE_BACKEND_VERSION, .scheme = "s3",
 *       .open = s3_open, .free = s3_free, .get = s3_get, .put = s3_put, ...
 *   };
 *   dl_store_backend_register(&s3);
 *   dl_snapshot_open(&snap, "s3://bucket/table", NULL);   // uses it
 *
 * What dl_store does before calling a backend: it checks every argument,
 * so paths are relative to the store root, never empty, without leading or
 * trailing '/', "//", "." or ".." segments (a listing's `dir` may be "",
 * the root); it sorts and filters listings, adds the NUL after whole-object
 * reads, bounds reader reads by the object's size and keeps error context.
 * A backend only moves bytes. Its functions return 0 or a negative
 * dl_error_code, with a message set through dl_store_backend_error
 * (DL_ENOTFOUND for a missing object is what the layers above look for;
 * DL_EEXISTS when put_if_absent finds the object).
 *
 * The contract a backend keeps (the Delta protocol relies on it):
 * - put and writer_commit make an object visible whole or not at all;
 * - put_if_absent (and writer_commit with if_absent) is atomic against
 *   every other writer of the same path, in any process: exactly one wins,
 *   the others get DL_EEXISTS;
 * - a listing shows every object whose put returned, never partial ones;
 * - an error from a write means it did not happen, unless it came after
 *   the object may have become visible (say so in the message); DL_EEXISTS
 *   from put_if_absent only when the object existed before;
 * - only regular objects are objects: a backend over a file system refuses
 *   directories, FIFOs, devices and the like (DL_EINVALID "not a regular
 *   file"), so reading a table can never block or read without end.
 *
 * Memory: buffers a backend returns (get's *data) are allocated with
 * malloc() and owned by the caller afterwards. Optional functions may be
 * NULL, and dl_store then builds them from the required ones: get_range
 * from get (the whole object is read), reader_* from stat and get_range
 * when there is a get_range (a remote object read by ranges), else from
 * get (the whole object is read), writer_* from put /
 * put_if_absent (the bytes are gathered in memory), list_from from list,
 * delete_many from del.
 *
 * Thread safety: registering, unregistering and opening stores may happen
 * from any thread at once (the registry is behind a mutex). A backend's
 * functions are called from any thread and concurrently for one impl (a
 * store is shared by a scan's threads), except that a writer's or reader's
 * state is only used by one call at a time for writes, while reader_read
 * may run concurrently on one state. dl_store_open copies the backend
 * struct, so unregistering affects later opens only; the functions and the
 * payload must stay valid as long as a store opened through them lives. */
#ifndef DELTALAKE_SYS_STORE_BACKEND_H
#define DELTALAKE_SYS_STORE_BACKEND_H
#include "deltalake/common.h"
#include "deltalake/store.h"
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Receives one object of a listing: its path relative to the store root
 * (not retained), size and modification time. Returns 0 or an error that
 * stops the listing. */
typedef int (*dl_store_list_fn)(const char *path, int64_t size, int64_t mtime_ms, void *payload);

/* Version 2 added list_from and delete_many (after payload, so a version
 * 1 struct is a prefix of a version 2 one); version 3 version_at_timestamp;
 * version 4 reader_release; version 5 limits. */
#define DL_STORE_BACKEND_VERSION 5

/* The limits of version 5: what a store does not do that the log may
 * otherwise count on. */
/* Its listing of _delta_log does not show every commit of the table: a
 * shared table's store serves commits by name but lists none before its
 * snapshot, so the earliest listed commit is not the table's earliest
 * (its server knows which versions it shares). */
#define DL_STORE_LIMIT_UNLISTED_COMMITS 1u

/* The modes of version_at_timestamp. */
#define DL_STORE_TS_AS_OF 0    /* the latest version committed at or before */
#define DL_STORE_TS_STARTING 1 /* the earliest version committed at or after */
typedef struct dl_store_backend {
	int version; /* DL_STORE_BACKEND_VERSION */
	/* The URI scheme, lower case ("s3" serves "s3://..."; matched without
	 * regard to case). Plain paths without a scheme are "file". */
	const char *scheme;

	/* Opens a store on `uri` (the whole URI as the caller gave it, with its
	 * scheme; trailing '/' included if given) with the caller's options
	 * (never NULL; see dl_store_options_get). *impl is passed to every other
	 * call and released by free. Required. */
	int (*open)(void **impl, const char *uri, const dl_store_options *opts, void *payload);
	void (*free)(void *impl); /* required */

	/* The whole object, malloc'd with room for one more byte (dl_store adds
	 * a NUL after it). DL_ENOTFOUND when missing. Required. */
	int (*get)(uint8_t **data, size_t *len, void *impl, const char *path);
	/* Bytes [offset, offset + len) into buf; *got is short at the end of
	 * the object (0 past it). Optional. */
	int (*get_range)(uint8_t *buf, size_t *got, void *impl, const char *path, int64_t offset,
	                 size_t len);
	/* Creates or replaces an object atomically. Required. */
	int (*put)(void *impl, const char *path, const void *data, size_t len);
	/* Creates an object only if absent, atomically; DL_EEXISTS when it
	 * exists. Parents (for stores with directories) are created. Required. */
	int (*put_if_absent)(void *impl, const char *path, const void *data, size_t len);
	/* Calls emit for each object of `dir` ("" the root), recursively or
	 * only its direct objects, in any order; paths relative to the store
	 * root. A missing dir lists nothing. In a listing that is not
	 * recursive, a store with directories may also emit each entry that
	 * is not an object (a directory, a FIFO...) with size -1: listings
	 * leave it out, but the log refuses a directory named like one of its
	 * files instead of skipping it. Required. */
	int (*list)(void *impl, const char *dir, int recursive, dl_store_list_fn emit, void *emit_payload);
	/* DL_ENOTFOUND when missing. Required. */
	int (*del)(void *impl, const char *path);
	/* Size and modification time (epoch ms) of an object. Required. */
	int (*stat)(int64_t *size, int64_t *mtime_ms, void *impl, const char *path);

	/* Streaming writes (see dl_store_writer in store.h): open returns the
	 * writer's state; bytes stay invisible until commit publishes them
	 * whole (if_absent: as put_if_absent); commit and abort always release
	 * the state. Optional, all four or none. */
	int (*writer_open)(void **state, void *impl, const char *path);
	int (*writer_write)(void *state, const void *data, size_t len);
	int (*writer_commit)(void *state, int if_absent);
	void (*writer_abort)(void *state);

	/* Random-access reads (see dl_store_reader in store.h): open fills the
	 * object's size and, when the backend can map it, *data (read-only, valid
	 * until close; else NULL, and reads go through reader_read). Optional,
	 * all three or none. */
	int (*reader_open)(void **state, int64_t *size, const uint8_t **data, void *impl,
	                   const char *path);
	int (*reader_read)(uint8_t *buf, size_t *got, void *state, int64_t offset, size_t len);
	void (*reader_close)(void *state);

	void *payload; /* passed to open */

	/* ---- version 2 ---- */

	/* The direct objects of `dir` whose names sort at or after
	 * `start_name` (never NULL or empty here): an object store's listing
	 * that starts in the middle (S3's start-after), so a log of 100,000
	 * commits with a checkpoint near its end lists only the end. It may
	 * emit names before start_name too (dl_store filters them). Optional:
	 * dl_store lists the whole directory and filters. */
	int (*list_from)(void *impl, const char *dir, const char *start_name, dl_store_list_fn emit,
	                 void *emit_payload);
	/* Deletes paths[0..n) (n at most 1000, S3's DeleteObjects limit);
	 * an object already gone is not an error. *deleted counts the objects
	 * removed (or every path when the service cannot tell a missing one
	 * apart). On an error some objects may be gone: the message names one
	 * that is not. Optional: dl_store calls del for each path. */
	int (*delete_many)(size_t *deleted, void *impl, const char *const *paths, size_t n);

	/* ---- version 3 ---- */

	/* For a store that knows its table's history better than its listing
	 * (a shared table lists no commit files; its server resolves times):
	 * the table version at `ts_ms` (epoch ms) in `mode` (DL_STORE_TS_*;
	 * AS_OF with after_latest_ok gives the latest version for a time after
	 * it instead of an error). An error says why (a time before the first
	 * commit or after the last one: DL_ENOTFOUND or DL_EINVALID with the
	 * reason). Optional: NULL lets the log's commit times decide. */
	int (*version_at_timestamp)(int64_t *version, void *impl, int64_t ts_ms, int mode,
	                            int after_latest_ok);

	/* ---- version 4 ---- */

	/* A hint from a caller streaming once through the *data of
	 * reader_open (dl_store_reader_release): it will not need bytes
	 * [0, upto) again soon. A backend whose image is a file mapping may
	 * give those pages back so a 2 GB input parsed front to back does not
	 * stay resident; the image must stay valid and unchanged (touched
	 * again, it is read again). Optional. */
	void (*reader_release)(void *state, int64_t upto);

	/* ---- version 5 ---- */

	/* DL_STORE_LIMIT_* flags; 0 (and every earlier version): none, the
	 * store lists every object it holds. */
	unsigned limits;
} dl_store_backend;

/* Adds a backend for its scheme (the struct is copied; the scheme string
 * too). DL_EEXISTS when the scheme is registered already (built-ins
 * included); DL_EINVALID for a version outside 1..DL_STORE_BACKEND_VERSION,
 * a malformed scheme or a missing required function. */
DL_EXTERN(int) dl_store_backend_register(const dl_store_backend *backend);
/* Removes the backend of a scheme; stores already open keep working.
 * DL_ENOTFOUND when none is registered; DL_EINVALID for the built-ins. */
DL_EXTERN(int) dl_store_backend_unregister(const char *scheme);

/* The value of an option (the last one given for the key), or NULL. */
DL_EXTERN(const char *) dl_store_options_get(const dl_store_options *opts, const char *key);
/* The credentials for `uri`: from the options' callback when set, else from
 * the static keys access_key_id, secret_access_key and session_token
 * (DL_ENOTFOUND when neither gives any). */
DL_EXTERN(int) dl_store_backend_credentials(dl_store_credentials *out, const dl_store_options *opts,
                                            const char *uri);
/* Sets the calling thread's error (dl_error_last) and returns `code`, for
 * backends: `return dl_store_backend_error(DL_ENOTFOUND, "s3://%s/%s: no such
 * object", bucket, key);`. */
DL_EXTERN(int) dl_store_backend_error(int code, const char *fmt, ...)
#if defined(__GNUC__) || defined(__clang__)
	__attribute__((format(printf, 2, 3)))
#endif
	;

#ifdef __cplusplus
}
#endif
#endif
