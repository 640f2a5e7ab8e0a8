/* The backend interface behind dl_store. store.c validates arguments,
 * normalizes paths and sorts listings; a backend only moves bytes. New
 * backends (S3, Azure, GCS) add one dl_store_backend and one line in
 * store.c's scheme table.
 *
 * Paths handed to a backend are already validated: relative, no empty, "."
 * or ".." segments, no leading or trailing '/'. `dir` for listings may be ""
 * (the root). */
#ifndef DL_STORAGE_BACKEND_H
#define DL_STORAGE_BACKEND_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "deltalake/store.h"

typedef struct dl_store_backend {
	const char *scheme; /* "file", "mem" */
	/* `location` is the root with the scheme removed (a local directory for
	 * file, "name[/prefix]" for mem). */
	int (*open)(void **impl, const char *location);
	void (*free)(void *impl);
	int (*get)(void *impl, const char *path, uint8_t **data, size_t *len);
	int (*get_range)(void *impl, const char *path, int64_t offset, size_t len, uint8_t *buf,
	                 size_t *got);
	int (*put)(void *impl, const char *path, const void *data, size_t len);
	int (*put_if_absent)(void *impl, const char *path, const void *data, size_t len);
	/* Appends the objects of `dir` (recursively or not) to out, in any order;
	 * paths relative to the store root. A missing dir lists nothing. */
	int (*list)(void *impl, const char *dir, bool recursive, dl_object_list *out);
	int (*del)(void *impl, const char *path);
	int (*stat)(void *impl, const char *path, dl_object_info *out);
	/* Streaming writes (see dl_store_writer in store.h): open returns the
	 * backend's writer state; commit and abort always release it. */
	int (*writer_open)(void *impl, const char *path, void **state);
	int (*writer_write)(void *state, const void *data, size_t len);
	int (*writer_commit)(void *state, bool if_absent);
	void (*writer_abort)(void *state);
	/* Random-access reads (see dl_store_reader in store.h): open fills the
	 * size and, when the backend can map the object, *data (else NULL). */
	int (*reader_open)(void *impl, const char *path, void **state, int64_t *size,
	                   const uint8_t **data);
	int (*reader_read)(void *state, int64_t offset, size_t len, uint8_t *buf, size_t *got);
	void (*reader_close)(void *state);
} dl_store_backend;

extern const dl_store_backend dl_store_backend_file;
extern const dl_store_backend dl_store_backend_mem;

/* Appends one entry (path copied) to a list. 0 or DL_ENOMEM. */
int dl_object_list_push(dl_object_list *l, size_t *cap, const char *path, int64_t size,
                        int64_t mtime_ms);

#endif
