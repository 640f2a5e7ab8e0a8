/* Parquet's footer and page headers (parquet.thrift) as plain C structs.
 *
 * The reader decodes into these; the writer fills them and encodes them, so
 * they carry every field that Delta-relevant writers emit. Optional thrift
 * fields have a has_<name> flag. Strings are NUL-terminated; binary values
 * are (ptr, len). In decoded metadata everything lives in the arena passed
 * to the decoder; decoded page headers point into the header bytes. */
#ifndef DL_PARQUET_METADATA_H
#define DL_PARQUET_METADATA_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "parquet/format.h"
#include "util/arena.h"

typedef struct pq_bytes {
	const uint8_t *ptr;
	uint32_t len;
} pq_bytes;

typedef struct pq_statistics {
	bool has_max, has_min, has_null_count, has_distinct_count;
	bool has_max_value, has_min_value, has_is_max_value_exact, has_is_min_value_exact;
	bool has_nan_count;
	pq_bytes max, min;             /* deprecated: signed order only */
	int64_t null_count;
	int64_t distinct_count;
	pq_bytes max_value, min_value; /* plain encoded; byte arrays without length */
	bool is_max_value_exact, is_min_value_exact;
	int64_t nan_count;
} pq_statistics;

typedef struct pq_key_value {
	char *key;
	char *value; /* NULL when absent */
} pq_key_value;

typedef struct pq_logical_type {
	pq_logical_kind kind;    /* PQ_LT_NONE when absent */
	int32_t scale, precision;   /* DECIMAL */
	bool is_adjusted_to_utc;    /* TIME, TIMESTAMP */
	pq_time_unit unit;          /* TIME, TIMESTAMP */
	int8_t bit_width;           /* INTEGER */
	bool is_signed;             /* INTEGER */
	char *crs;                  /* GEOMETRY, GEOGRAPHY: NULL when absent (OGC:CRS84) */
	bool has_algorithm;         /* GEOGRAPHY: absent means SPHERICAL */
	int32_t algorithm;          /* GEOGRAPHY: EdgeInterpolationAlgorithm */
	bool has_spec_version;      /* VARIANT: specification_version present */
	int8_t spec_version;        /* VARIANT: the Variant spec version (1) */
} pq_logical_type;

typedef struct pq_schema_element {
	char *name;
	bool has_type, has_type_length, has_repetition, has_num_children;
	bool has_scale, has_precision, has_field_id;
	pq_type type;
	int32_t type_length;
	pq_repetition repetition;
	int32_t num_children;
	pq_converted_type converted_type; /* PQ_CT_NONE when absent */
	int32_t scale, precision;
	int32_t field_id;
	pq_logical_type logical;
} pq_schema_element;

typedef struct pq_page_encoding_stats {
	pq_page_type page_type;
	pq_encoding encoding;
	int32_t count;
} pq_page_encoding_stats;

typedef struct pq_column_meta {
	pq_type type;
	pq_encoding *encodings;
	uint32_t nencodings;
	char **path_in_schema;
	uint32_t npath;
	pq_codec codec;
	int64_t num_values;
	int64_t total_uncompressed_size;
	int64_t total_compressed_size;
	pq_key_value *key_value_metadata;
	uint32_t nkey_value_metadata;
	int64_t data_page_offset;
	bool has_index_page_offset, has_dictionary_page_offset, has_statistics;
	bool has_bloom_filter_offset, has_bloom_filter_length;
	int64_t index_page_offset;
	int64_t dictionary_page_offset;
	pq_statistics statistics;
	pq_page_encoding_stats *encoding_stats;
	uint32_t nencoding_stats;
	int64_t bloom_filter_offset;
	int32_t bloom_filter_length;
} pq_column_meta;

typedef struct pq_column_chunk {
	char *file_path; /* NULL when absent (the usual case) */
	int64_t file_offset;
	bool has_meta_data;
	bool has_offset_index_offset, has_offset_index_length;
	bool has_column_index_offset, has_column_index_length;
	bool encrypted; /* crypto_metadata or encrypted_column_metadata present */
	pq_column_meta meta_data;
	int64_t offset_index_offset;
	int32_t offset_index_length;
	int64_t column_index_offset;
	int32_t column_index_length;
} pq_column_chunk;

typedef struct pq_sorting_column {
	int32_t column_idx;
	bool descending;
	bool nulls_first;
} pq_sorting_column;

typedef struct pq_row_group {
	pq_column_chunk *columns;
	uint32_t ncolumns;
	int64_t total_byte_size;
	int64_t num_rows;
	pq_sorting_column *sorting_columns;
	uint32_t nsorting_columns;
	bool has_file_offset, has_total_compressed_size, has_ordinal;
	int64_t file_offset;
	int64_t total_compressed_size;
	int16_t ordinal;
} pq_row_group;

/* ColumnOrder union member per leaf column. */
typedef enum pq_column_order {
	PQ_ORDER_UNKNOWN = 0, PQ_ORDER_TYPE_DEFINED = 1, PQ_ORDER_IEEE754_TOTAL = 2,
	PQ_ORDER_INT96_TIMESTAMP = 3,
} pq_column_order;

typedef struct pq_file_metadata {
	int32_t version;
	pq_schema_element *schema;
	uint32_t nschema;
	int64_t num_rows;
	pq_row_group *row_groups;
	uint32_t nrow_groups;
	pq_key_value *key_value_metadata;
	uint32_t nkey_value_metadata;
	char *created_by; /* NULL when absent */
	pq_column_order *column_orders;
	uint32_t ncolumn_orders;
	bool encrypted; /* encryption_algorithm present */
} pq_file_metadata;

typedef struct pq_data_page_header {
	int32_t num_values;
	pq_encoding encoding;
	pq_encoding definition_level_encoding;
	pq_encoding repetition_level_encoding;
	bool has_statistics;
	pq_statistics statistics;
} pq_data_page_header;

typedef struct pq_dictionary_page_header {
	int32_t num_values;
	pq_encoding encoding;
	bool has_is_sorted;
	bool is_sorted;
} pq_dictionary_page_header;

typedef struct pq_data_page_header_v2 {
	int32_t num_values;
	int32_t num_nulls;
	int32_t num_rows;
	pq_encoding encoding;
	int32_t definition_levels_byte_length;
	int32_t repetition_levels_byte_length;
	bool is_compressed; /* defaults to true */
	bool has_statistics;
	pq_statistics statistics;
} pq_data_page_header_v2;

typedef struct pq_page_header {
	pq_page_type type;
	int32_t uncompressed_page_size;
	int32_t compressed_page_size;
	bool has_crc;
	int32_t crc;
	bool has_data_page_header, has_dictionary_page_header, has_data_page_header_v2;
	pq_data_page_header data_page_header;
	pq_dictionary_page_header dictionary_page_header;
	pq_data_page_header_v2 data_page_header_v2;
} pq_page_header;

/* Decodes FileMetaData from the footer bytes; all memory in `arena`. `what`
 * names the file in error messages. */
int pq_file_metadata_decode(pq_file_metadata *out, dl_arena *arena, const uint8_t *p, size_t len,
                            const char *what);
/* Decodes one PageHeader from p; *header_len gets its encoded size. */
int pq_page_header_decode(pq_page_header *out, const uint8_t *p, size_t len, size_t *header_len,
                          const char *what);

/* ---- page index (parquet-format PageIndex.md) ---- */

typedef struct pq_page_loc {
	int64_t offset;     /* file offset of the page header */
	int32_t size;       /* header + compressed data */
	int64_t first_row;  /* within the row group */
} pq_page_loc;

typedef struct pq_offset_index {
	pq_page_loc *pages; /* data pages in row order */
	int n;
} pq_offset_index;

typedef struct pq_column_index {
	int n;
	bool *null_pages;
	pq_bytes *min, *max;  /* plain encoded, as Statistics.min_value/max_value */
	int32_t boundary_order; /* 0 unordered, 1 ascending, 2 descending */
	bool has_null_counts;
	int64_t *null_counts;
} pq_column_index;

/* Decode an OffsetIndex / ColumnIndex (arrays in `arena`); page locations
 * are checked to be in row and file order. */
int pq_offset_index_decode(pq_offset_index *out, dl_arena *arena, const uint8_t *p, size_t len, const char *what);
int pq_column_index_decode(pq_column_index *out, dl_arena *arena, const uint8_t *p, size_t len, const char *what);

/* ---- Bloom filter header (parquet-format BloomFilter.md) ---- */

typedef struct pq_bloom_header {
	int32_t num_bytes;
	int algorithm;   /* 1: SPLIT_BLOCK; 0: unknown */
	int hash;        /* 1: XXHASH */
	int compression; /* 1: UNCOMPRESSED */
} pq_bloom_header;

int pq_bloom_header_decode(pq_bloom_header *out, const uint8_t *p, size_t len, size_t *header_len, const char *what);

#endif
