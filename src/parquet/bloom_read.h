/* Reading a column chunk's Bloom filter and probing it with a value given
 * as the reader gives statistics (pq_stat_value in the leaf's output type). */
#ifndef DL_PARQUET_BLOOM_READ_H
#define DL_PARQUET_BLOOM_READ_H
#include "parquet/bloom_filter.h"
#include "parquet/file_source.h"
#include "parquet/reader.h"
#include "parquet/schema_read.h"

/* The plain encoding of v as the leaf stores it (into tmp, or pointing at
 * v's bytes); false when the value has no single stored form the filter
 * would have hashed (timestamps rescaled from millis/nanos, INT96,
 * variable-width decimals, floating zero or NaN, booleans): then the
 * filter must not be used. */
bool pq_bloom_plain_value(const pq_rleaf *lf, const pq_stat_value *v, uint8_t tmp[16], const uint8_t **p,
                          size_t *n);

/* Reads the filter of column chunk cc: 0 with *out filled, 1 when it has
 * none or one this reader does not use (unknown algorithm, undecodable:
 * advisory data, the rows are then just read), < 0 out of memory. */
int pq_bloom_read(pq_source *src, const pq_column_chunk *cc, const char *what, pq_bloom *out);

#endif
