/* Parquet files on their own: inspect, read and write them with the same
 * reader and writer the tables use.
 *
 *   dl_parquet_file *f;
 *   dl_parquet_open(&f, "part-0.parquet");
 *   const char *text;  dl_parquet_schema_text(&text, f);   // "message spark_schema {...}"
 *   dl_parquet_read_options ro = DL_PARQUET_READ_OPTIONS_INIT;
 *   struct ArrowArrayStream st;  dl_parquet_read(&st, f, &ro);
 *   ... st.get_next ... st.release(&st);
 *   dl_parquet_free(f);
 *
 *   dl_parquet_write_options wo = DL_PARQUET_WRITE_OPTIONS_INIT;
 *   wo.compression = "snappy";
 *   dl_parquet_write_stream(fp, &arrow_stream, &wo);
 *
 * The file is outside data: the footer is checked before use (sizes,
 * offsets, the schema tree) and a malformed one is DL_ECORRUPT naming the
 * file. Opening reads only the footer; reading decodes only the columns
 * asked for. Strings returned by accessors are borrowed from the handle and
 * live as long as it. A handle may be used by one thread at a time; the
 * streams it gives may be consumed on other threads. */
#ifndef DELTALAKE_PARQUET_H
#define DELTALAKE_PARQUET_H
#include "deltalake/common.h"
#include "deltalake/error.h"
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include "deltalake/arrow.h"
#include "deltalake/store.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct dl_parquet_file dl_parquet_file;

/* Opens a local file (a path or file:// URI) and decodes its footer.
 * DL_ENOTFOUND when missing, DL_ECORRUPT when it is not a Parquet file. */
DL_EXTERN(int) dl_parquet_open(dl_parquet_file **out, const char *path);
/* The same for an object of a store (borrowed: it must outlive the file). */
DL_EXTERN(int) dl_parquet_open_store(dl_parquet_file **out, dl_store *store, const char *path);
DL_EXTERN(void) dl_parquet_free(dl_parquet_file *f);

/* ---- the footer ---- */

typedef struct dl_parquet_file_info {
	int64_t num_rows;
	int num_row_groups;
	int version;              /* FileMetaData.version */
	const char *created_by;   /* or NULL */
	const char *root_name;    /* the schema's root ("spark_schema", "schema") */
	size_t nkey_values;       /* key/value metadata entries */
	int64_t size;             /* bytes */
} dl_parquet_file_info;

DL_EXTERN(void) dl_parquet_file_info_get(dl_parquet_file_info *out, const dl_parquet_file *f);
/* Key/value metadata entry i (value NULL when absent). */
DL_EXTERN(void) dl_parquet_key_value_at(const char **key, const char **value, const dl_parquet_file *f, size_t i);

/* The schema as a Parquet message, as parquet-cli prints it:
 *   message spark_schema {
 *     optional INT64 id = 1;
 *     optional group m (MAP) {
 *       repeated group key_value { ... }
 *     }
 *   }
 * (repetition, physical type with its length, name, the logical type as
 * parquet-cli spells it ("DECIMAL(10,2)", "TIMESTAMP(MICROS,true)") or else
 * the converted type, "= field id"). DL_ECORRUPT when the schema's
 * num_children do not match its elements. */
DL_EXTERN(int) dl_parquet_schema_text(const char **out, dl_parquet_file *f);

/* The schema nodes below the root, depth first. */
typedef struct dl_parquet_schema_node {
	const char *path;        /* dotted names from the root's children: "m.key_value.key" */
	const char *name;
	int depth;               /* 1 for the root's children */
	const char *repetition;  /* "required", "optional" or "repeated" */
	const char *physical;    /* "INT64", "FIXED_LEN_BYTE_ARRAY(16)", or "group" */
	const char *logical;     /* "DECIMAL(30,5)", "STRING"..., or NULL */
	const char *converted;   /* "UTF8", "DECIMAL"..., or NULL */
	bool has_field_id;
	int32_t field_id;
	bool is_group;
	int num_children;
} dl_parquet_schema_node;

DL_EXTERN(int) dl_parquet_schema_node_count(size_t *count, dl_parquet_file *f);
DL_EXTERN(int) dl_parquet_schema_node_at(dl_parquet_schema_node *out, dl_parquet_file *f, size_t i);

/* The schema of the rows as read (a struct), as an ArrowSchema: the Delta
 * types the reader maps Parquet types to (see SCANS.md); fields carry
 * {"parquet.field.id": N} in their Delta metadata when the file has ids. */
DL_EXTERN(int) dl_parquet_arrow_schema(struct ArrowSchema *out, dl_parquet_file *f);

/* A column chunk of a row group, from the footer. Statistics values are
 * decoded by physical and logical type (integers, decimals with their
 * scale, floats, booleans, strings; other bytes as hex). */
typedef struct dl_parquet_column_chunk {
	const char *path;            /* dotted path_in_schema */
	const char *physical_type;   /* "INT64", "BYTE_ARRAY"... */
	const char *logical_type;    /* the logical or else converted type, or NULL */
	const char *codec;           /* "ZSTD", "SNAPPY", "UNCOMPRESSED"... */
	const char *encodings;       /* "PLAIN,RLE,RLE_DICTIONARY" */
	int64_t num_values;          /* values including nulls */
	int64_t null_count;          /* -1 when the statistics lack it */
	int64_t compressed_size;     /* bytes */
	int64_t uncompressed_size;
	const char *min;             /* statistics as text, or NULL */
	const char *max;
} dl_parquet_column_chunk;

/* Columns in each row group (the schema's leaves). DL_ECORRUPT when a row
 * group's column count differs. */
DL_EXTERN(int) dl_parquet_column_count(int *count, dl_parquet_file *f);
DL_EXTERN(int) dl_parquet_column_chunk_at(dl_parquet_column_chunk *out, dl_parquet_file *f, int row_group,
                                          int column);

/* ---- reading ---- */

#define DL_PARQUET_READ_OPTIONS_VERSION 1
typedef struct dl_parquet_read_options {
	int version;                 /* DL_PARQUET_READ_OPTIONS_VERSION */
	const char *const *columns;  /* top-level names (case-insensitive) in this order, NULL = all */
	int ncolumns;
	int64_t batch_rows;          /* rows per batch at most; 0 = 65536 */
} dl_parquet_read_options;
#define DL_PARQUET_READ_OPTIONS_INIT {DL_PARQUET_READ_OPTIONS_VERSION, NULL, 0, 0}

/* The rows as an ArrowArrayStream (f must outlive it; several streams may
 * be open at once). Batches never span row groups. DL_ENOTFOUND names an
 * unknown column. opts NULL: everything. */
DL_EXTERN(int) dl_parquet_read(struct ArrowArrayStream *out, dl_parquet_file *f, const dl_parquet_read_options *opts);

/* ---- writing ---- */

/* Whether `name` is a compression codec the writer supports: "zstd",
 * "snappy", "gzip", "lz4_raw", "brotli", "none" / "uncompressed"
 * (case-insensitive). */
DL_EXTERN(bool) dl_parquet_codec_supported(const char *name);

#define DL_PARQUET_WRITE_OPTIONS_VERSION 1
typedef struct dl_parquet_write_options {
	int version;                    /* DL_PARQUET_WRITE_OPTIONS_VERSION */
	const char *compression;        /* NULL: "zstd" */
	int level;                      /* codec level; 0 = the codec's default */
	int64_t row_group_rows;         /* rows per row group; 0 = by size only */
	int64_t row_group_bytes;        /* uncompressed estimate per row group; 0 = 128 MiB */
	int64_t page_bytes;             /* data page target; 0 = 1 MiB */
	bool dictionary;                /* dictionary encoding (default true) */
	int64_t statistics_truncate;    /* footer min/max bytes of byte arrays; 0 = 64, < 0 = untruncated */
	int threads;                    /* leaf columns encoded in parallel; 0 = DL_THREADS or the
	                                   CPU count, 1 = the calling thread only */
	const char *root_name;          /* the schema's root; NULL = "schema" */
	const char *const *metadata_keys;   /* key/value metadata for the footer */
	const char *const *metadata_values;
	int nmetadata;
} dl_parquet_write_options;
#define DL_PARQUET_WRITE_OPTIONS_INIT \
	{DL_PARQUET_WRITE_OPTIONS_VERSION, NULL, 0, 0, 0, 0, true, 0, 0, NULL, NULL, NULL, 0}

/* Writes every batch of `data` (consumed and released) as one Parquet file
 * to `out` (not closed; flushed). Columns keep their names; field ids come
 * from "parquet.field.id" (or "delta.columnMapping.id") in each field's
 * Delta metadata. DL_EINVALID for an unsupported codec; on any failure the
 * bytes written so far are not a valid file: discard them. */
DL_EXTERN(int) dl_parquet_write_stream(FILE *out, struct ArrowArrayStream *data, const dl_parquet_write_options *opts);

#ifdef __cplusplus
}
#endif

#endif
