/* Readers of outside data files (CSV, JSON lines) into batch streams, the
 * layer behind deltalake/input.h. Column types come from a target schema
 * when it has a column of that name (case-insensitive), else they are
 * inferred from the first rows (BIGINT, DOUBLE, BOOLEAN, DATE, TIMESTAMP,
 * else STRING; in JSON lines, objects and arrays infer structs and
 * arrays). The file is mapped, not loaded, batches
 * are parsed as they are pulled, and the pages behind them are given back. Input is hostile: malformed rows are
 * DL_EINVALID naming the file, the line and the column. */
#ifndef DL_IO_INPUT_H
#define DL_IO_INPUT_H
#include <stdbool.h>
#include <stdint.h>
#include "columnar/batch_stream.h"
#include "deltalake/store.h"

typedef struct dl_io_input {
	dl_store *store;           /* on the file's directory */
	dl_store_reader *reader;
	const char *data;          /* the whole file */
	size_t len;
	char *path;                /* as given, for messages */
	size_t released;           /* [0, released) handed to dl_io_input_release last */
} dl_io_input;

/* Maps `path` (a path or file:// URI). */
int dl_io_input_open(dl_io_input **out, const char *path);
void dl_io_input_free(dl_io_input *in);
/* The parser is done with data[0, upto) for now: it copied every value it
 * took from there and keeps no pointer into it. The mapped pages are given
 * back (in steps of DL_IO_RELEASE_STEP), so a large file parsed front to
 * back does not stay resident whole. Only a hint: data stays valid, and a
 * second pass over released bytes reads them again from the file. */
void dl_io_input_release(dl_io_input *in, size_t upto);
#define DL_IO_RELEASE_STEP (4u << 20)

typedef struct dl_io_csv_format {
	char delimiter;            /* ',' */
	char quote;                /* '"' */
	const char *null_string;   /* an unquoted field equal to it is NULL (NULL: none);
	                              an empty unquoted field always is */
	bool header;               /* the first line names the columns; else _c0, _c1... */
} dl_io_csv_format;
#define DL_IO_CSV_FORMAT_INIT {',', '"', NULL, true}

/* Streams over `in`, which they own from then on (freed with them, or
 * here on failure). `table` is the schema to type by, or NULL;
 * batch_rows 0 means DL_IO_BATCH_ROWS, or fewer rows as DL_IO_BATCH_TEXT
 * bytes of input. widen: a table column's type is
 * widened as dl_io_widen_for_text says wherever a value needs it (one more
 * pass over the whole file before the first batch); the write then widens
 * the table column, when type widening and schema merging allow it. */
int dl_io_csv_stream(dl_batch_stream **out, dl_io_input *in, const dl_type *table, const dl_io_csv_format *fmt,
                     int64_t batch_rows, bool widen);
int dl_io_jsonl_stream(dl_batch_stream **out, dl_io_input *in, const dl_type *table, int64_t batch_rows,
                       bool widen);

/* Replaces *t (a reference, given up) by the narrowest type an automatic
 * type widening (text_widen.c) takes it to that holds the value s, when
 * *t does not hold it and such a widening does; else leaves it. 0 or
 * DL_ENOMEM. */
int dl_io_widen_for_text(dl_type **t, const char *s, size_t n);
/* Whether a text value can need dl_io_widen_for_text to widen t. */
bool dl_io_widenable(const dl_type *t);

/* Appends the text of one value to a builder of a primitive type; used by
 * the CSV and JSON readers. DL_EINVALID names the value and the type. */
int dl_io_append_text(void *builder, const char *s, size_t n);

/* Rows per batch by default, and the input text a default batch stops at
 * before that: 65536 rows of 50 numbers are 37 MB of text and 26 MB of
 * columns, held twice while the next batch is built; 8 MiB bounds it for
 * wide rows without making narrow batches small. */
#define DL_IO_BATCH_ROWS 65536
#define DL_IO_BATCH_TEXT (8u << 20)

#endif
