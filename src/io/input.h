/* Input files of `deltalake write`: CSV with a header, JSON lines and
 * Parquet, read as a stream of batches. Column types come from the target
 * table when it has a column of that name (case-insensitive), else they
 * are inferred from the first rows (CSV / JSON lines: BIGINT, DOUBLE,
 * BOOLEAN, DATE, TIMESTAMP, else STRING; JSON objects and arrays of a
 * column the table lacks are kept as their JSON text). The file is mapped,
 * not loaded, and batches are parsed as they are pulled. */
#ifndef DL_CLI_INPUT_H
#define DL_CLI_INPUT_H
#include <stdint.h>
#include "columnar/batch_stream.h"
#include "deltalake/store.h"

typedef struct dl_cli_input {
	dl_store *store;           /* on the file's directory */
	dl_store_reader *reader;
	const char *data;          /* the whole file */
	size_t len;
	const char *path;          /* for messages */
} dl_cli_input;

/* Maps `path`. */
int dl_cli_input_map(dl_cli_input *in, const char *path);
void dl_cli_input_close(dl_cli_input *in);

/* Streams over the mapped input (which must outlive the stream). `table`
 * is the target table's schema or NULL. */
int dl_cli_csv_stream(dl_batch_stream **out, dl_cli_input *in, const dl_type *table);
int dl_cli_jsonl_stream(dl_batch_stream **out, dl_cli_input *in, const dl_type *table);
int dl_cli_parquet_stream(dl_batch_stream **out, dl_cli_input *in);

/* Appends the text of one value to a builder of a primitive type; used by
 * the CSV and JSON readers. DL_EINVALID names the value and the type. */
int dl_cli_append_text(void *builder, const char *s, size_t n);

/* Rows per batch. */
#define DL_CLI_INPUT_BATCH_ROWS 65536

#endif
