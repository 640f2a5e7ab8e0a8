/* Object storage behind every table: dl_store.
 *
 * A store is opened on a root URI and addresses objects by paths relative
 * to it ("_delta_log/00000000000000000000.json"). The URI's scheme picks
 * the backend from a registry (deltalake/sys/store_backend.h): built in are
 *   file://  local files: "file:///path", "file:/path" or a plain path
 *   mem://   process-global memory, for tests: "mem://name[/prefix]"
 *   fault:// a wrapper that injects failures, for tests: "fault://<uri>"
 * and an application registers its own (S3, Azure, ...). put_if_absent is
 * the commit primitive of the Delta protocol: it is atomic across
 * processes and a visible object is always complete.
 *
 * Thread safety: a dl_store may be used from several threads at once (every
 * call, including opening readers and writers on it); it must outlive the
 * readers, writers and snapshots that use it. A dl_store_writer belongs to
 * one thread at a time. A dl_store_reader's read may be called from several
 * threads at once; open and close are the owner's. */
#ifndef DELTALAKE_STORE_H
#define DELTALAKE_STORE_H
#include "deltalake/common.h"
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct dl_store dl_store;

typedef struct dl_object_info {
	char *path;          /* relative to the store root */
	int64_t size;
	int64_t mtime_ms;    /* modification time, epoch milliseconds */
} dl_object_info;

typedef struct dl_object_list {
	dl_object_info *items;
	size_t count;
} dl_object_list;

/* ---- store options ----
 *
 * Settings of a backend as key/value pairs (the same options also open the
 * stores of absolute data and deletion-vector paths of other schemes, so
 * they may hold keys for several backends). Keys without a '.' are the
 * well-known ones below, shared by every backend that has the setting;
 * others are namespaced by scheme ("fault.fail_nth", "s3.addressing") and
 * only that backend reads them. An unknown key without a '.', a
 * non-numeric value of a numeric key, or an unknown key in the namespace of
 * the backend being opened is DL_EINVALID naming the key. The store copies
 * the options: they need not outlive dl_store_open. */
#define DL_STORE_OPT_ENDPOINT "endpoint"                  /* https://host:port of the service */
#define DL_STORE_OPT_REGION "region"
#define DL_STORE_OPT_ACCESS_KEY_ID "access_key_id"        /* static credentials */
#define DL_STORE_OPT_SECRET_ACCESS_KEY "secret_access_key"
#define DL_STORE_OPT_SESSION_TOKEN "session_token"
#define DL_STORE_OPT_TIMEOUT_MS "timeout_ms"              /* per request, milliseconds */
#define DL_STORE_OPT_CONNECT_TIMEOUT_MS "connect_timeout_ms"
#define DL_STORE_OPT_RETRY_MAX_ATTEMPTS "retry.max_attempts" /* attempts per request */
#define DL_STORE_OPT_RETRY_BACKOFF_MS "retry.backoff_ms"  /* first backoff, doubled per retry */
#define DL_STORE_OPT_RETRY_MAX_BACKOFF_MS "retry.max_backoff_ms"

/* Credentials a backend asks for (through dl_store_backend_credentials in
 * sys/store_backend.h). Strings are borrowed from whoever filled them (the
 * options, or the callback's payload) and must stay valid until the store
 * is freed or the callback is called again for it. */
#define DL_STORE_CREDENTIALS_VERSION 1
typedef struct dl_store_credentials {
	int version;                 /* DL_STORE_CREDENTIALS_VERSION (set by the library) */
	const char *access_key_id;
	const char *secret_access_key;
	const char *session_token;   /* NULL when none */
	int64_t expires_at_ms;       /* epoch ms; INT64_MAX: does not expire */
} dl_store_credentials;

/* Fills *out for the store at `uri`; called whenever a backend needs
 * credentials (at open and when they expire), from any thread. Returns 0 or
 * a negative dl_error_code, which fails the store call. */
typedef int (*dl_store_credentials_fn)(dl_store_credentials *out, const char *uri, void *payload);

#define DL_STORE_OPTIONS_VERSION 1
typedef struct dl_store_options {
	int version;                        /* DL_STORE_OPTIONS_VERSION */
	const char *const *keys;            /* noptions keys and values; a later */
	const char *const *values;          /* duplicate key wins */
	int noptions;
	dl_store_credentials_fn credentials; /* NULL: the static keys above */
	void *payload;                      /* for credentials */
} dl_store_options;
#define DL_STORE_OPTIONS_INIT {DL_STORE_OPTIONS_VERSION, NULL, NULL, 0, NULL, NULL}

/* Opens a store on a root URI; opts may be NULL (defaults). Errors:
 * DL_EINVALID for a scheme no backend is registered for (the message lists
 * the registered ones), a malformed URI, bad options or an options version
 * this library does not know. */
DL_EXTERN(int) dl_store_open(dl_store **out, const char *uri, const dl_store_options *opts);
DL_EXTERN(void) dl_store_free(dl_store *s);
/* The root as given (normalized: no trailing slash). Borrowed. */
DL_EXTERN(const char *) dl_store_root(const dl_store *s);

/* Whole object into a buffer the caller frees with dl_free (NUL-terminated
 * for convenience; the terminator is not counted in *len). DL_ENOTFOUND
 * when missing. */
DL_EXTERN(int) dl_store_get(uint8_t **data, size_t *len, dl_store *s, const char *path);
/* Bytes [offset, offset+len) into buf; *got may be short at end of object. */
DL_EXTERN(int) dl_store_get_range(uint8_t *buf, size_t *got, dl_store *s,
                                  const char *path, int64_t offset, size_t len);
/* Failed writes: an error from put, put_if_absent, delete or
 * dl_store_writer_commit normally means nothing changed, but a failure
 * reported after the bytes were handed over (syncing the directory after
 * the rename, a lost reply from a network store) may come with the change
 * made. DL_EEXISTS from put_if_absent always means the object was there
 * before. Callers that must know read the object back (the commit path
 * does). */
/* Creates or replaces an object atomically (readers see old or new whole). */
DL_EXTERN(int) dl_store_put(dl_store *s, const char *path, const void *data, size_t len);
/* Creates an object only if absent; DL_EEXISTS when it exists. Atomic
 * across processes; parents are created as needed. */
DL_EXTERN(int) dl_store_put_if_absent(dl_store *s, const char *path, const void *data, size_t len);
/* Objects whose path is in directory `dir` ("" for the root) and whose name
 * sorts >= `start_name` (NULL for all), sorted by name (strcmp). Not
 * recursive: subdirectories are not listed. A missing `dir` lists nothing
 * (object stores have no directories), so "no _delta_log" shows as an empty
 * list rather than an error. Hidden temp files of writes in flight start with
 * '.', so they sort before version numbers. */
DL_EXTERN(int) dl_store_list_from(dl_object_list *out, dl_store *s, const char *dir, const char *start_name);
/* All objects under `dir` ("" for everything), recursively, sorted by path. */
DL_EXTERN(int) dl_store_list_recursive(dl_object_list *out, dl_store *s, const char *dir);
DL_EXTERN(void) dl_object_list_free(dl_object_list *l);
/* DL_ENOTFOUND when missing (deleting a missing object is not an error for
 * callers who pass ignore_missing). */
DL_EXTERN(int) dl_store_delete(dl_store *s, const char *path);
/* Deletes paths[0..n) (in batches: one DeleteObjects request per 1000 on
 * S3, one delete each elsewhere); an object already gone is not an error.
 * *deleted counts the objects removed (on S3 every path, since its batch
 * delete does not tell a missing object apart). On an error some objects
 * may already be gone. */
DL_EXTERN(int) dl_store_delete_many(size_t *deleted, dl_store *s, const char *const *paths, size_t n);
DL_EXTERN(int) dl_store_stat(dl_object_info *out, dl_store *s, const char *path);
DL_EXTERN(void) dl_object_info_free(dl_object_info *i);

/* Streaming writes, for objects too big to build in memory (data files):
 *
 *   dl_store_writer *w;
 *   DL_TRY(dl_store_writer_open(&w, store, "part-0.parquet"));
 *   ... dl_store_writer_write(w, bytes, n) as often as needed ...
 *   rc = dl_store_writer_commit(w, false);   // or dl_store_writer_abort(w)
 *
 * Bytes go to a hidden temporary object; nothing is visible under `path`
 * until commit, which publishes the whole object atomically (replacing an
 * existing one, or with if_absent = true failing with DL_EEXISTS like
 * dl_store_put_if_absent). Commit and abort free the writer, whatever the
 * outcome. After a failed write, only abort is allowed. */
typedef struct dl_store_writer dl_store_writer;
DL_EXTERN(int) dl_store_writer_open(dl_store_writer **out, dl_store *s, const char *path);
DL_EXTERN(int) dl_store_writer_write(dl_store_writer *w, const void *data, size_t len);
/* Bytes written so far. */
DL_EXTERN(int64_t) dl_store_writer_size(const dl_store_writer *w);
DL_EXTERN(int) dl_store_writer_commit(dl_store_writer *w, int if_absent);
DL_EXTERN(void) dl_store_writer_abort(dl_store_writer *w);

/* Random-access reads of one object (Parquet footers, column chunks, DV
 * files) without reopening it for every range:
 *
 *   dl_store_reader *r;
 *   DL_TRY(dl_store_reader_open(&r, store, "part-0.parquet"));
 *   int64_t size = dl_store_reader_size(r);
 *   const uint8_t *all = dl_store_reader_data(r); // whole object, or NULL
 *   ... dl_store_reader_read(buf, &got, r, offset, len) ...
 *   dl_store_reader_close(r);
 *
 * The reader sees the object as it was when opened (Delta data files are
 * never rewritten in place). dl_store_reader_data gives the whole object as
 * read-only memory when the backend can (file: mmap; mem: a snapshot), so
 * callers can decode in place with no copy; it stays valid until close.
 * read is safe from several threads at once. */
typedef struct dl_store_reader dl_store_reader;
DL_EXTERN(int) dl_store_reader_open(dl_store_reader **out, dl_store *s, const char *path);
DL_EXTERN(int64_t) dl_store_reader_size(const dl_store_reader *r);
DL_EXTERN(const uint8_t *) dl_store_reader_data(const dl_store_reader *r);
/* A hint that the caller, streaming once through dl_store_reader_data,
 * will not need its bytes [0, upto) again soon: a file mapping gives those
 * pages back, so they stop counting in the process's resident memory. The
 * data stays valid and unchanged (pages touched again are read again from
 * the file). A no-op for backends that cannot. */
DL_EXTERN(void) dl_store_reader_release(dl_store_reader *r, int64_t upto);
/* Like dl_store_get_range: *got may be short at the end of the object. */
DL_EXTERN(int) dl_store_reader_read(uint8_t *buf, size_t *got, dl_store_reader *r, int64_t offset, size_t len);
DL_EXTERN(void) dl_store_reader_close(dl_store_reader *r);

#ifdef __cplusplus
}
#endif
#endif
