/* Object storage behind every table: dl_store.
 *
 * A store is opened on a root URI (`file:///path`, a plain path, or
 * `mem://name` for tests) and addresses objects by paths relative to it
 * ("_delta_log/00000000000000000000.json"). put_if_absent is the commit
 * primitive of the Delta protocol: it is atomic across processes and a
 * visible object is always complete. */
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

/* Opens a store on a root URI. DL_EINVALID for unknown schemes. */
DL_EXTERN(int) dl_store_open(dl_store **out, const char *uri);
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
/* Like dl_store_get_range: *got may be short at the end of the object. */
DL_EXTERN(int) dl_store_reader_read(uint8_t *buf, size_t *got, dl_store_reader *r, int64_t offset, size_t len);
DL_EXTERN(void) dl_store_reader_close(dl_store_reader *r);

#ifdef __cplusplus
}
#endif
#endif
