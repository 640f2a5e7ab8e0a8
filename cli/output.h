/* Result output of the CLI in one of four formats, chosen with --format:
 *
 *   table  aligned columns under a header (for people; the default)
 *   csv    RFC 4180 quoting (fields with , " CR LF quoted, quotes doubled),
 *          a header line, LF line ends; null is an empty field, the empty
 *          string is ""
 *   jsonl  one JSON object per row and line
 *   json   one JSON array of row objects
 *   vertical  one "column  value" line per column, records separated by an
 *          empty line (for wide rows: DESCRIBE DETAIL, history)
 *
 * Rows are given as strings (NULL = null) with a kind per column that says
 * how JSON spells them. csv and jsonl stream; table keeps up to
 * DL_OUT_TABLE_WINDOW rows to size the columns, then streams with those
 * widths (wider cells simply push the line). */
#ifndef DL_CLI_OUTPUT_H
#define DL_CLI_OUTPUT_H
#include <stdint.h>
#include <stdio.h>
#include "deltalake/arrow.h"

typedef enum dl_out_format {
	DL_OUT_TABLE = 0,
	DL_OUT_CSV,
	DL_OUT_JSONL,
	DL_OUT_JSON,
	DL_OUT_VERTICAL,
} dl_out_format;

typedef enum dl_out_kind {
	DL_OUT_STRING = 0, /* JSON string */
	DL_OUT_NUMBER,     /* JSON number when the text is one, else a string */
	DL_OUT_BOOL,       /* JSON true/false for "true"/"false", else a string */
	DL_OUT_JSON_TEXT,  /* the text is JSON already (nested values): copied as is */
} dl_out_kind;

typedef struct dl_out_column {
	const char *name;
	dl_out_kind kind;
} dl_out_column;

#define DL_OUT_TABLE_WINDOW 1000

/* "table", "csv", "jsonl", "json" or "vertical" (also "ndjson" for jsonl). DL_EINVALID
 * naming the accepted values otherwise. */
int dl_out_format_parse(dl_out_format *out, const char *name);
const char *dl_out_format_name(dl_out_format f);

typedef struct dl_out dl_out;

/* Starts output of rows with these columns (names and kinds are copied). */
int dl_out_begin(dl_out **out, FILE *fp, dl_out_format format, const dl_out_column *cols, int ncols);
/* One row: ncols values, NULL for null. */
int dl_out_row(dl_out *o, const char *const *values);
/* A name/value row for two-column outputs (see dl_out_kv_columns). */
int dl_out_kv(dl_out *o, const char *name, const char *value);
/* Writes what remains (the table, json's closing bracket), checks the
 * stream for write errors and frees o. DL_EIO when writing failed. */
int dl_out_end(dl_out *o);
/* Frees o without finishing (after an error). NULL is fine. */
void dl_out_free(dl_out *o);

/* Output of Arrow record batches: the columns are the fields of `schema`
 * (a struct, borrowed: it must outlive o); cells are rendered by the
 * library's dl_arrow_formatter (deltalake/arrow.h), as text for table and
 * csv and as JSON values for jsonl and json. */
int dl_out_begin_arrow(dl_out **out, FILE *fp, dl_out_format format, const struct ArrowSchema *schema);
/* Writes the first max_rows rows of `batch` (all when < 0; the batch is
 * taken over and released) and gives how many were written. */
int dl_out_arrow_batch(int64_t *printed, dl_out *o, struct ArrowArray *batch, int64_t max_rows);
/* The whole of a stream (at most `limit` rows; < 0: all), begun and ended
 * here; the stream is released. */
int dl_out_arrow_stream(FILE *fp, dl_out_format format, struct ArrowArrayStream *st, int64_t limit);
/* The error to return after st's get_schema/get_next returned errno `err`:
 * the library's (with its message and class) when it raised one, else the
 * stream's get_last_error text. */
int dl_out_stream_error(struct ArrowArrayStream *st, int err);

/* The columns "name" and "value" (strings) for dl_out_kv. */
extern const dl_out_column dl_out_kv_columns[2];

/* Appends s as a CSV field (quoted when needed) to fp. Exposed for tests. */
int dl_out_csv_field(FILE *fp, const char *s);

#endif
