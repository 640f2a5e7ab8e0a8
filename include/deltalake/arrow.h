/* The Arrow C Data Interface and C Stream Interface, through which data
 * crosses the library boundary (scans produce ArrowArrayStreams; writes
 * consume them), so DuckDB, Polars, pyarrow, arrow-rs and others exchange
 * batches with libdeltalake without copies.
 *
 * The struct definitions follow the Arrow specification
 * (https://arrow.apache.org/docs/format/CDataInterface.html and
 * CStreamInterface.html) and are guarded by the standard macros, so this
 * header coexists with any other definition of the same ABI. */
#ifndef DELTALAKE_ARROW_H
#define DELTALAKE_ARROW_H
#include "deltalake/common.h"
#include <stdint.h>
#include <stdio.h>

#ifdef __cplusplus
extern "C" {
#endif

#ifndef ARROW_C_DATA_INTERFACE
#define ARROW_C_DATA_INTERFACE

#define ARROW_FLAG_DICTIONARY_ORDERED 1
#define ARROW_FLAG_NULLABLE 2
#define ARROW_FLAG_MAP_KEYS_SORTED 4

struct ArrowSchema {
	/* Array type description */
	const char *format;
	const char *name;
	const char *metadata;
	int64_t flags;
	int64_t n_children;
	struct ArrowSchema **children;
	struct ArrowSchema *dictionary;
	/* Release callback */
	void (*release)(struct ArrowSchema *);
	/* Opaque producer-specific data */
	void *private_data;
};

struct ArrowArray {
	/* Array data description */
	int64_t length;
	int64_t null_count;
	int64_t offset;
	int64_t n_buffers;
	int64_t n_children;
	const void **buffers;
	struct ArrowArray **children;
	struct ArrowArray *dictionary;
	/* Release callback */
	void (*release)(struct ArrowArray *);
	/* Opaque producer-specific data */
	void *private_data;
};

#endif /* ARROW_C_DATA_INTERFACE */

#ifndef ARROW_C_STREAM_INTERFACE
#define ARROW_C_STREAM_INTERFACE

struct ArrowArrayStream {
	/* Callbacks providing stream functionality */
	int (*get_schema)(struct ArrowArrayStream *, struct ArrowSchema *out);
	int (*get_next)(struct ArrowArrayStream *, struct ArrowArray *out);
	const char *(*get_last_error)(struct ArrowArrayStream *);
	/* Release callback */
	void (*release)(struct ArrowArrayStream *);
	/* Opaque producer-specific data */
	void *private_data;
};

#endif /* ARROW_C_STREAM_INTERFACE */

/* Key of the Arrow field metadata entry that carries a column's Delta field
 * metadata (the JSON object of the Delta schema: comments, column mapping,
 * generation expressions...), present when that object is not empty. */
#define DL_ARROW_DELTA_METADATA_KEY "delta.metadata"
/* Variant columns are exported as struct<value: binary, metadata: binary>
 * marked with Arrow's canonical extension name for Parquet variants. */
#define DL_ARROW_VARIANT_EXTENSION "arrow.parquet.variant"

/* Release helpers: call the release callback if the struct is not released
 * yet (release != NULL). Safe on NULL. */
DL_EXTERN(void) dl_arrow_schema_release(struct ArrowSchema *schema);
DL_EXTERN(void) dl_arrow_array_release(struct ArrowArray *array);
DL_EXTERN(void) dl_arrow_stream_release(struct ArrowArrayStream *stream);

/* Writes every batch of `stream` to `out` in the Arrow IPC streaming format
 * (schema message, record batches, end-of-stream marker), readable by any
 * Arrow implementation (pyarrow.ipc.open_stream, arrow-js tableFromIPC...).
 * Consumes and releases the stream. Columns must have a Delta equivalent:
 * timestamps in other units, date64, 64-bit offsets, views and dictionaries
 * are converted; unsigned integers, durations, unions... give
 * DL_EUNSUPPORTED. */
DL_EXTERN(int) dl_arrow_ipc_write_stream(FILE *out, struct ArrowArrayStream *stream);

/* Reads an Arrow IPC stream (or file) from `in` to its end and returns its
 * record batches as an ArrowArrayStream (owned by the caller, who releases
 * it). The input is checked as untrusted: malformed data gives DL_ECORRUPT
 * (from get_next, with the message in get_last_error, or here for the
 * schema); dictionaries, compression and types without a Delta equivalent
 * give DL_EUNSUPPORTED. */
DL_EXTERN(int) dl_arrow_ipc_read_stream(struct ArrowArrayStream *out, FILE *in);

#ifdef __cplusplus
}
#endif
#endif
