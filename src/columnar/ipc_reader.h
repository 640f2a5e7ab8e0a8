/* Arrow IPC reader: the streaming format (and the file format, whose stream
 * part follows the "ARROW1" magic) held in memory, into dl_batches.
 *
 * The bytes come from outside, so every flatbuffer offset, node, buffer and
 * array offset is checked before use (DL_ECORRUPT naming the source and the
 * message); buffers are copied out, so batches do not refer to the input.
 * Types: those of ipc_writer.h, plus timestamps in any unit and date64
 * (converted to microseconds and days). Dictionaries, compression, unsigned
 * integers, half floats, times, intervals, durations, unions, fixed-size,
 * large and view layouts give DL_EUNSUPPORTED. */
#ifndef DL_COLUMNAR_IPC_READER_H
#define DL_COLUMNAR_IPC_READER_H
#include "columnar/array.h"
#include "columnar/batch_stream.h"

typedef struct dl_ipc_reader dl_ipc_reader;

/* Reads the schema message of data[0..len) (borrowed: it must outlive the
 * reader). `what` names the source in messages. */
int dl_ipc_reader_open(dl_ipc_reader **out, const uint8_t *data, size_t len, const char *what);
/* The stream's schema (a struct), borrowed from the reader. */
const dl_type *dl_ipc_reader_schema(const dl_ipc_reader *r);
/* The next record batch, or *out = NULL at the end of the stream. */
int dl_ipc_reader_next(dl_ipc_reader *r, dl_batch **out);
void dl_ipc_reader_free(dl_ipc_reader *r);

/* A batch stream over an IPC stream in memory; takes ownership of `data`
 * (freed with dl_free when the stream is released, also on failure). */
int dl_ipc_reader_stream(dl_batch_stream **out, uint8_t *data, size_t len, const char *what);

#endif
