/* Where the Parquet writer's bytes go: an in-memory dl_buf, a file
 * descriptor, a stdio FILE* or a callback. Writes are sequential; `pos` is
 * the offset of the next byte (Parquet's footer needs absolute offsets). */
#ifndef DL_PARQUET_SINK_H
#define DL_PARQUET_SINK_H
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include "deltalake/store.h"
#include "util/buf.h"

typedef struct pq_sink pq_sink;
struct pq_sink {
	int (*write)(pq_sink *s, const void *p, size_t n); /* 0 or a dl_error_code */
	void *ctx;  /* for custom write functions */
	dl_buf *buf;
	int fd;
	FILE *file;
	int64_t pos;
};

/* Appends to buf (owned by the caller). */
void pq_sink_init_buf(pq_sink *s, dl_buf *buf);
/* Writes to an open descriptor or stream (the caller closes it). */
void pq_sink_init_fd(pq_sink *s, int fd);
void pq_sink_init_file(pq_sink *s, FILE *f);
/* Streams into an object of a store (dl_store_writer, which the caller
 * opens, then commits or aborts after the writer closed). */
void pq_sink_init_store(pq_sink *s, dl_store_writer *w);
/* A custom sink. */
void pq_sink_init_fn(pq_sink *s, int (*write)(pq_sink *s, const void *p, size_t n), void *ctx);
int pq_sink_write(pq_sink *s, const void *p, size_t n);

#endif
