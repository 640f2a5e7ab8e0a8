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

/* ---- rendering cells as text ------------------------------------------
 *
 * A formatter renders the cells of record batches (struct arrays of the
 * schema given) one at a time, the way `deltalake cat` prints them:
 *
 *   dl_arrow_formatter *f;  dl_arrow_formatter_new(&f, &schema);
 *   while (stream.get_next(&stream, &batch) == 0 && batch.release) {
 *       int64_t rows;  dl_arrow_formatter_set_batch(&rows, f, &batch);
 *       for (row...) for (col...) {
 *           const char *text; size_t len;
 *           dl_arrow_formatter_cell(&text, &len, f, col, row, DL_FORMAT_JSON);
 *           ... text == NULL for a null ...
 *       }
 *   }
 *   dl_arrow_formatter_free(f);
 *
 * DL_FORMAT_TEXT is how Spark's show() and DuckDB print cells: true/false;
 * integers; doubles in the shortest form that reads back the same ("1.0",
 * "1e+20", "NaN", "Infinity"); decimals with all scale digits ("-0.50");
 * dates "2024-01-31"; timestamps (UTC) and timestamp_ntz "2024-01-31
 * 12:00:00[.fraction]"; binary X'0AFF'; structs {a: 1, b: [1, 2]}; maps
 * {k=v, ...}; variants as their JSON.
 * DL_FORMAT_JSON is one JSON value: numbers (decimals exact), escaped
 * strings, binary as base64, dates and timestamps as strings in the text
 * form, structs and maps as objects, arrays as arrays, non-finite doubles
 * as "NaN", "Infinity", "-Infinity".
 * DL_FORMAT_CSV is the text form quoted as RFC 4180 says when it holds a
 * comma, a quote or a line break (and the empty string as "").
 * Not thread-safe: one formatter per thread. */
typedef enum dl_format_style {
	DL_FORMAT_TEXT = 0,
	DL_FORMAT_JSON,
	DL_FORMAT_CSV,
} dl_format_style;

typedef struct dl_arrow_formatter dl_arrow_formatter;

/* A formatter for batches of `schema` (a struct, "+s"), which is borrowed
 * and must outlive the formatter. DL_EUNSUPPORTED for types without a
 * Delta equivalent (as dl_arrow_ipc_write_stream). */
DL_EXTERN(int) dl_arrow_formatter_new(dl_arrow_formatter **out, const struct ArrowSchema *schema);
/* Takes over `batch` (its release becomes NULL; the previous batch is
 * released) and gives its row count. Buffers are borrowed, not copied. */
DL_EXTERN(int) dl_arrow_formatter_set_batch(int64_t *rows, dl_arrow_formatter *f, struct ArrowArray *batch);
/* Cell (column, row) of the current batch: *text is NUL-terminated and
 * valid until the next call for the same column, or NULL for a null. */
DL_EXTERN(int) dl_arrow_formatter_cell(const char **text, size_t *len, dl_arrow_formatter *f, int column,
                                       int64_t row, dl_format_style style);
DL_EXTERN(void) dl_arrow_formatter_free(dl_arrow_formatter *f);

/* Wraps `in` (moved: in->release becomes NULL) as a stream of its first
 * `max_rows` rows (the last batch cut); once they are out, `in` is released
 * at once, which stops a scan's decoding. max_rows < 0: no limit. */
DL_EXTERN(int) dl_arrow_stream_limit(struct ArrowArrayStream *out, struct ArrowArrayStream *in, int64_t max_rows);

#ifdef __cplusplus
}
#endif
#endif
