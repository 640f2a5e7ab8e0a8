/* The write operation (DataFrameWriter.save of Delta): the internal entry
 * point behind dl_write, taking the library's batch stream, so the CLI can
 * feed CSV / JSON lines / Parquet input and show progress. */
#ifndef DL_OPS_WRITE_H
#define DL_OPS_WRITE_H
#include "columnar/batch_stream.h"
#include "deltalake/write.h"

/* Called after each input batch with the rows taken so far. */
typedef void (*dl_write_progress_fn)(void *payload, int64_t rows);

/* Writes the rows of `data` (borrowed; the caller frees it) to the table at
 * `uri` (see dl_write). */
int dl_ops_write(int64_t *version, const char *uri, dl_batch_stream *data,
                 const dl_write_options *opts, dl_write_progress_fn progress, void *payload);

#endif
