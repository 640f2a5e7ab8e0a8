/* Reading outside data files (CSV, JSON lines) as Arrow streams, typed by
 * a table's schema or inferred, e.g. to append them with dl_write:
 *
 *   dl_csv_options o = DL_CSV_OPTIONS_INIT;
 *   o.schema_json = dl_snapshot_schema_json(snap);   // or NULL to infer
 *   struct ArrowArrayStream st;
 *   dl_read_csv(&st, "day1.csv", &o);
 *   dl_write(&version, "/data/events", &st, &w);
 *
 * Columns are named by the file (CSV header, JSON members). A column the
 * schema has (case-insensitive) takes its type; the others are inferred
 * from the first 1000 rows: BIGINT, DOUBLE, BOOLEAN, DATE, TIMESTAMP, else
 * STRING (JSON lines: objects and arrays infer structs and arrays).
 * Values are parsed by their text as Spark does: decimals by their
 * digits, dates "2024-01-31", timestamps in Spark's forms (UTC unless a
 * zone is given). The file is mapped, not loaded; batches are parsed as
 * they are pulled. The input is hostile: a malformed row fails get_next
 * with DL_EINVALID naming the file, the line and the column (the message
 * is in dl_error_last() on the consuming thread and in get_last_error);
 * nothing is silently changed or dropped. The functions are thread-safe;
 * each stream is consumed by one thread at a time. */
#ifndef DELTALAKE_INPUT_H
#define DELTALAKE_INPUT_H
#include "deltalake/common.h"
#include "deltalake/error.h"
#include <stdbool.h>
#include <stdint.h>
#include "deltalake/arrow.h"

#ifdef __cplusplus
extern "C" {
#endif

#define DL_CSV_OPTIONS_VERSION 2
typedef struct dl_csv_options {
	int version;               /* DL_CSV_OPTIONS_VERSION */
	bool header;               /* the first line names the columns (default true);
	                              false: columns _c0, _c1... as Spark names them */
	char delimiter;            /* ',' */
	char quote;                /* '"' (a doubled quote inside quotes is one); 0: no quoting */
	const char *null_string;   /* an unquoted field equal to it is NULL (NULL: none);
	                              an empty unquoted field is always NULL, "" quoted never */
	const char *schema_json;   /* Delta schema JSON to type columns by, or NULL */
	int64_t batch_rows;        /* rows per batch; 0 = 65536, or fewer as 8 MiB of input text */
	/* version 2: type widening, for a table with delta.enableTypeWidening
	 * written with merge_schema. A schema_json column whose type does not
	 * hold a value of the file is read with the narrowest type the
	 * automatic widenings reach that does (BYTE -> SHORT -> INT -> BIGINT,
	 * FLOAT -> DOUBLE, DECIMAL(p,s) -> DECIMAL(p+k,s), DATE ->
	 * TIMESTAMP_NTZ), and dl_write widens the table column. The whole file
	 * is read once more before the first batch. A value no such widening
	 * holds is still an error naming its line and column. */
	bool widen_types;
} dl_csv_options;
#define DL_CSV_OPTIONS_INIT {DL_CSV_OPTIONS_VERSION, true, ',', '"', NULL, NULL, 0, false}

/* The rows of a CSV file (a path or file:// URI) as an ArrowArrayStream
 * owned by the caller. Errors here: DL_ENOTFOUND for a missing file,
 * DL_EINVALID for no header line or bad options, DL_ECORRUPT for a
 * schema_json that is not a Delta schema. opts NULL: the defaults. */
DL_EXTERN(int) dl_read_csv(struct ArrowArrayStream *out, const char *path_or_uri, const dl_csv_options *opts);

#define DL_JSONL_OPTIONS_VERSION 2
typedef struct dl_jsonl_options {
	int version;               /* DL_JSONL_OPTIONS_VERSION */
	const char *schema_json;   /* Delta schema JSON to type columns by, or NULL; nested
	                              objects and arrays fill its struct, array and map columns */
	int64_t batch_rows;        /* rows per batch; 0 = 65536, or fewer as 8 MiB of input text */
	/* version 2: as dl_csv_options' widen_types, for columns and the fields
	 * of struct columns (not inside arrays or maps) */
	bool widen_types;
} dl_jsonl_options;
#define DL_JSONL_OPTIONS_INIT {DL_JSONL_OPTIONS_VERSION, NULL, 0, false}

/* The rows of a JSON lines file (one object per line; blank lines skipped;
 * members matched to columns case-insensitively). Errors here as
 * dl_read_csv, and DL_EINVALID when no line of the first ones is an
 * object with members. */
DL_EXTERN(int) dl_read_jsonl(struct ArrowArrayStream *out, const char *path_or_uri, const dl_jsonl_options *opts);

#ifdef __cplusplus
}
#endif

#endif
