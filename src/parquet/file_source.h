/* Where a Parquet file's bytes come from: a dl_store object read with range
 * reads (one per footer, one per column chunk), or a caller's memory. */
#ifndef DL_PARQUET_FILE_SOURCE_H
#define DL_PARQUET_FILE_SOURCE_H
#include <stddef.h>
#include <stdint.h>
#include "deltalake/store.h"

typedef struct pq_source {
	dl_store *store;    /* borrowed; NULL for memory */
	char *path;         /* object path in the store */
	const uint8_t *mem; /* borrowed memory image */
	int64_t size;
	char *name;         /* for messages */
} pq_source;

/* size < 0: stat the object. */
int pq_source_open_store(pq_source *s, dl_store *store, const char *path, int64_t size);
int pq_source_open_memory(pq_source *s, const uint8_t *data, size_t len, const char *name);
void pq_source_close(pq_source *s);
/* Bytes [off, off+len): *ptr points at them; for store sources they are
 * read into a new buffer returned in *owned (free with dl_free), for memory
 * sources *owned is NULL. DL_ECORRUPT when the range is outside the file. */
int pq_source_read(pq_source *s, int64_t off, size_t len, const uint8_t **ptr, uint8_t **owned);
/* The same, reading store bytes into *buf (grown as needed, reused across
 * calls so repeated chunk reads do not fault in fresh memory). */
int pq_source_read_into(pq_source *s, int64_t off, size_t len, const uint8_t **ptr, uint8_t **buf, size_t *cap);

#endif
