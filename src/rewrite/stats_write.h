/* The `stats` JSON of an add action (PROTOCOL.md "Per-file Statistics")
 * from the statistics the Parquet writer collected: numRecords, and for
 * the indexed leaf columns minValues, maxValues and nullCount, nested as
 * the schema is, keyed by physical names. Strings are cut to 32 characters
 * as Spark does (a cut max gets U+FFFD appended so it stays an upper
 * bound); timestamps are written to the millisecond; booleans and binaries
 * get only nullCount; leaves inside arrays and maps get no statistics. */
#ifndef DL_REWRITE_STATS_WRITE_H
#define DL_REWRITE_STATS_WRITE_H
#include "columnar/types.h"
#include "log/properties.h"
#include "parquet/writer.h"
#include "json/json.h"
#include "util/buf.h"

/* Which leaves are indexed: the first props->data_skipping_num_indexed_cols
 * leaves (-1: all) or those named by delta.dataSkippingStatsColumns
 * (logical names, nested with '.'). `logical` is the data schema with
 * logical names (same shape as the writer's physical schema, without the
 * last `nhidden` top-level primitive columns, which get no statistics). */
int dl_stats_json(dl_buf *out, const pq_writer *w, const dl_type *logical,
                  const dl_table_properties *props, int nhidden);

/* One min or max bound of a leaf of type t as the stats JSON writes it:
 * numbers as numbers (decimals exact), dates as text, timestamps to the
 * millisecond (TIMESTAMP in UTC with 'Z'), strings cut to 32 characters (a
 * cut max gets U+FFFD). The value is i (integers, dates, timestamps), d
 * (float, double), dec (decimals) or (str, len) (strings); tmp is scratch.
 * CONVERT TO DELTA writes the bounds it takes from footers with it. */
void dl_stats_put_bound(dl_json_writer *w, const dl_type *t, int64_t i, double d, dl_i128 dec, const char *str,
                        size_t len, bool is_max, dl_buf *tmp);

#endif
