/* Arrow IPC streaming format writer: one Schema message, one RecordBatch
 * message per batch, then the end-of-stream marker, each message
 * encapsulated as <0xFFFFFFFF><int32 metadata size><Message flatbuffer,
 * padded to 8><body>. Readable by every Arrow implementation (pyarrow,
 * arrow-js tableFromIPC, DuckDB's arrow extension...). Every dl_type is
 * written, nested arbitrarily: timestamps as Timestamp(MICROSECOND, "UTC"),
 * timestamp_ntz without a zone, dates as Date(DAY), decimals as 128-bit
 * Decimal, variants as struct<value, metadata> marked with the
 * arrow.parquet.variant extension name, Delta field metadata under
 * "delta.metadata". */
#ifndef DL_COLUMNAR_IPC_WRITER_H
#define DL_COLUMNAR_IPC_WRITER_H
#include <stdio.h>
#include "columnar/array.h"
#include "util/buf.h"

typedef struct dl_ipc_writer dl_ipc_writer;

/* Where the bytes go: returns 0 or a dl_error_code. */
typedef int (*dl_ipc_sink_fn)(const void *p, size_t n, void *payload);

/* Starts a stream of batches of `schema` (a struct type) and writes the
 * schema message. */
int dl_ipc_writer_new(dl_ipc_writer **out, const dl_type *schema, dl_ipc_sink_fn sink, void *payload);
int dl_ipc_writer_new_file(dl_ipc_writer **out, const dl_type *schema, FILE *f);
int dl_ipc_writer_new_buf(dl_ipc_writer **out, const dl_type *schema, dl_buf *buf);
/* Writes one record batch (its schema must equal the writer's). */
int dl_ipc_writer_write(dl_ipc_writer *w, const dl_batch *b);
/* Writes the end-of-stream marker. */
int dl_ipc_writer_finish(dl_ipc_writer *w);
void dl_ipc_writer_free(dl_ipc_writer *w);

#endif
