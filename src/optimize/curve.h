/* The space-filling curves of multi-dimensional clustering (Spark's
 * MultiDimClustering): each column's values become range ids (Spark's
 * range_partition_id over spark.databricks.io.skipping.mdc.rangeId.max =
 * 1000 ranges, bounds from a sample as RangePartitioner takes them), and the
 * ids of a row become one sort key:
 *   - Z-order (ZOrderClustering, OPTIMIZE ... ZORDER BY): Spark's
 *     interleave_bits, the bits of the ids interleaved from the most
 *     significant down, column by column;
 *   - Hilbert (HilbertClustering, liquid clustering): Spark's hilbert_index
 *     (HilbertLongIndex over numBits = 10 for 1000 ranges): the same state
 *     tables, so the same index for every point.
 * Keys are unsigned 63-bit integers: ids below 2^b take b bits each, and
 * interleaving only those bits orders rows exactly as Spark's 32-bit
 * interleaving does (the higher bits are zero for every row). */
#ifndef DL_OPTIMIZE_CURVE_H
#define DL_OPTIMIZE_CURVE_H
#include <stddef.h>
#include <stdint.h>
#include "columnar/array.h"

#define DL_CURVE_RANGE_IDS 1000 /* spark.databricks.io.skipping.mdc.rangeId.max */
#define DL_CURVE_MAX_SAMPLE 100000

/* Bits per column for n columns and ids below `ranges`: ceil(log2(ranges)),
 * reduced so that n * bits <= 63. */
int dl_curve_bits(int n, int64_t ranges);

/* Spark's interleave_bits over the low `bits` bits of ids[0..n). */
uint64_t dl_zorder_key(const uint32_t *ids, int n, int bits);
/* Spark's InterleaveBits of n ints: n * 4 bytes, the bits taken from the
 * most significant down, one of each input in turn (nulls are 0). */
void dl_interleave_bits(uint8_t *out, const int32_t *in, int n);

/* Spark's Hilbert state list for n dimensions (HilbertStates.getStateList,
 * 2 <= n <= 9), built once and shared; DL_EINVALID with Spark's message
 * outside 2..9, DL_ENOMEM. */
#define DL_HILBERT_MAX_DIMS 9
typedef struct dl_hilbert_table dl_hilbert_table;
int dl_hilbert_table_get(const dl_hilbert_table **out, int n);
/* translateNPointToDKey: the index of point[0..n) with k bits per
 * coordinate (k * n < 64). */
uint64_t dl_hilbert_index(const dl_hilbert_table *t, const uint32_t *point, int k);
/* The clustering key of ids[0..n): the id itself for one column (t unused,
 * may be NULL), else dl_hilbert_index. */
uint64_t dl_hilbert_key(const dl_hilbert_table *t, const uint32_t *ids, int n, int bits);

/* A value as an unsigned key that sorts as Spark orders the column (nulls
 * first): integers, dates and timestamps exactly, floating point and
 * decimals through the double's order, strings and binaries by their first
 * 8 bytes. `*null` tells a null apart. */
uint64_t dl_curve_value_key(const dl_array *a, int64_t row, int *null);

/* The range bounds of one column: up to ranges-1 ascending distinct keys
 * taken at even quantiles of a sample. */
typedef struct dl_curve_ranges {
	uint64_t *bounds;
	size_t n;
} dl_curve_ranges;

/* From sample keys (sorted in place); nulls are not part of the sample. */
int dl_curve_ranges_from_sample(dl_curve_ranges *out, uint64_t *sample, size_t n, int64_t ranges);
/* Spark's RangePartitioner.getPartition: the number of bounds below the
 * key (a key equal to a bound takes that bound's range); nulls: 0. */
uint32_t dl_curve_range_id(const dl_curve_ranges *r, uint64_t key, int null);
void dl_curve_ranges_free(dl_curve_ranges *r);

#endif
