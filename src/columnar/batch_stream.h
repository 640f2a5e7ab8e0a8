/* dl_batch_stream: a pull iterator of batches sharing one schema, the
 * library's internal counterpart of ArrowArrayStream. Scans produce one;
 * the write path consumes one (possibly wrapping a caller's
 * ArrowArrayStream). */
#ifndef DL_COLUMNAR_BATCH_STREAM_H
#define DL_COLUMNAR_BATCH_STREAM_H
#include "columnar/array.h"
#include "deltalake/arrow.h"

typedef struct dl_batch_stream dl_batch_stream;
struct dl_batch_stream {
	/* The schema of every batch (a struct type), borrowed from the stream. */
	const dl_type *(*schema)(dl_batch_stream *s);
	/* The next batch through *out (owned by the caller), or *out = NULL at
	 * the end. On failure returns a dl_error_code with dl_error_set done. */
	int (*next)(dl_batch_stream *s, dl_batch **out);
	/* Frees the stream (and what it owns). */
	void (*release)(dl_batch_stream *s);
	void *private_data;
};

static inline int dl_batch_stream_next(dl_batch_stream *s, dl_batch **out)
{
	return s->next(s, out);
}
static inline const dl_type *dl_batch_stream_schema(dl_batch_stream *s)
{
	return s->schema(s);
}
static inline void dl_batch_stream_free(dl_batch_stream *s)
{
	if (s) s->release(s);
}

/* A stream over batches already in memory: takes ownership of the n batches
 * (all of schema `schema`; the array itself is copied). */
int dl_batch_stream_from_batches(dl_batch_stream **out, dl_type *schema, dl_batch **batches, int n);

/* Exports `s` as an ArrowArrayStream (s is owned by *out from then on, and
 * released with it; on failure s is released). Errors of next() are
 * reported through get_last_error with the library's message. */
int dl_batch_stream_export(struct ArrowArrayStream *out, dl_batch_stream *s);

/* Wraps a caller's ArrowArrayStream (moved: in->release becomes NULL) as a
 * dl_batch_stream; its schema is imported once, here. */
int dl_batch_stream_import(dl_batch_stream **out, struct ArrowArrayStream *in);

#endif
