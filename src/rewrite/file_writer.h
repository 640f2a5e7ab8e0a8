/* Data files of a write: rows of the table's logical schema in, Parquet
 * files out, one or more per partition, and the add actions describing
 * them. Partition columns are not stored in the files but in Hive-style
 * directories (col=value/, __HIVE_DEFAULT_PARTITION__ for null, escaped as
 * Spark does) and in add.partitionValues; under column mapping the files
 * use physical names and field ids. Files are named
 * part-NNNNN-<uuid>-c000.<codec>.parquet and published atomically; a file
 * is closed when it reaches max_records_per_file rows or about
 * target_file_size bytes (by the Parquet writer's estimate, which depends on
 * the rows alone: the files are the same at any thread count). */
#ifndef DL_REWRITE_FILE_WRITER_H
#define DL_REWRITE_FILE_WRITER_H
#include <stdbool.h>
#include <stdint.h>
#include "columnar/array.h"
#include "expr/expr.h"
#include "deltalake/store.h"
#include "log/actions.h"
#include "log/properties.h"

typedef struct dl_files_writer dl_files_writer;

typedef struct dl_files_writer_options {
	dl_store *store;                      /* the table's store (borrowed) */
	const dl_type *schema;                /* logical table schema (borrowed) */
	const char *const *partition_columns; /* logical names, as in the schema */
	int npartition_columns;
	const dl_table_properties *props;     /* stats columns, codec, column mapping */
	int64_t max_records_per_file;         /* 0: none */
	int64_t target_file_size;             /* 0: 128 MiB */
	bool data_change;
	int threads;                          /* Parquet encoding threads (<= 1: one), shared
	                                       * by the open files of every partition */
	/* Change data files: under _change_data/, named cdc-NNNNN-<uuid>.c000...
	 * (the schema then ends with the _change_type column). */
	bool change_data;
	/* Hidden columns stored after the data columns but outside the table
	 * schema and without statistics (the materialized row-tracking columns,
	 * PROTOCOL.md "Row Tracking"): physical fields; the batches given to
	 * dl_files_writer_write then end with these columns. */
	const dl_field *hidden;
	int nhidden;
} dl_files_writer_options;

int dl_files_writer_open(dl_files_writer **out, const dl_files_writer_options *o);
/* Writes the rows of a batch of the table schema (borrowed), followed by
 * the hidden columns when there are any. */
int dl_files_writer_write(dl_files_writer *w, const dl_batch *b);
/* The same for a batch the writer takes over (and frees, also on
 * failure): it returns once the rows are queued, so the columns encode
 * while the caller makes the next batch; a failure may surface at a later
 * call or at finish. Files roll at the same rows either way. */
int dl_files_writer_write_owned(dl_files_writer *w, dl_batch *b);
/* Closes every open file; the adds are then complete. */
int dl_files_writer_finish(dl_files_writer *w);
size_t dl_files_writer_count(const dl_files_writer *w);
const dl_add *dl_files_writer_add(const dl_files_writer *w, size_t i);
int64_t dl_files_writer_rows(const dl_files_writer *w);
/* Rows in the file of add i. */
int64_t dl_files_writer_file_rows(const dl_files_writer *w, size_t i);
int64_t dl_files_writer_bytes(const dl_files_writer *w);
/* Deletes the files written so far (a failed write leaves no garbage). */
void dl_files_writer_discard(dl_files_writer *w);
void dl_files_writer_free(dl_files_writer *w);

/* Row `row` of a primitive array as a scalar (strings borrow the array). */
int dl_array_scalar(dl_scalar *out, const dl_array *a, int64_t row);

#endif
