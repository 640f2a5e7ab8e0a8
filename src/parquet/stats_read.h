/* Column chunk statistics decoded into typed values for pruning. */
#ifndef DL_PARQUET_STATS_READ_H
#define DL_PARQUET_STATS_READ_H
#include "parquet/reader.h"
#include "parquet/schema_read.h"

/* Decodes the statistics of chunk `cc` of `leaf`; `order` is the file's
 * ColumnOrder for the leaf (PQ_ORDER_UNKNOWN when absent). Statistics are
 * advisory: undecodable or untrustworthy min/max leave has_min_max false. */
void pq_stats_decode(const pq_rleaf *leaf, const pq_column_chunk *cc, pq_column_order order, pq_column_stats *out);

#endif
