/* Column statistics collected by the writer: value and null counts and the
 * min/max under the column's sort order (parquet-format's TYPE_ORDER):
 * signed for INT32/INT64 and decimals, IEEE order without NaN for floats,
 * false < true, and unsigned lexicographic bytes for strings and binary.
 *
 * The same struct serves a column chunk (for the footer) and a whole file
 * (for Delta's `stats`: merged from the chunks, with exact untruncated
 * min/max). Footer statistics truncate long byte arrays as parquet-mr's
 * BinaryTruncator does: min to a prefix, max to a prefix whose last
 * character (or byte) is incremented, flagged with is_*_value_exact=false. */
#ifndef DL_PARQUET_STATS_H
#define DL_PARQUET_STATS_H
#include <stdbool.h>
#include <stdint.h>
#include <math.h>
#include <string.h>
#include "columnar/types.h"
#include "parquet/metadata.h"
#include "util/buf.h"

typedef enum pq_stats_kind {
	PQ_SK_NONE = 0, /* no min/max (e.g. the null type) */
	PQ_SK_BOOL,
	PQ_SK_INT,      /* signed integers up to 64 bits: min.i / max.i */
	PQ_SK_FLOAT,    /* float or double, in min.d / max.d */
	PQ_SK_DECIMAL,  /* 128-bit unscaled value: min.dec / max.dec */
	PQ_SK_BYTES,    /* unsigned bytes: min_bytes / max_bytes */
} pq_stats_kind;

typedef union pq_stats_value {
	bool b;
	int64_t i;
	double d;
	dl_i128 dec;
} pq_stats_value;

typedef struct pq_stats {
	pq_stats_kind kind;
	int64_t num_values; /* leaf slots, nulls included */
	int64_t null_count;
	int64_t nan_count;  /* FLOAT/DOUBLE: NaNs (left out of min/max); counted by the caller */
	bool has_minmax;    /* false when every value was null (or NaN) */
	pq_stats_value min, max;
	dl_buf min_bytes, max_bytes;
} pq_stats;

void pq_stats_init(pq_stats *s, pq_stats_kind kind);
/* Forgets the values (keeps buffers). */
void pq_stats_reset(pq_stats *s);
void pq_stats_free(pq_stats *s);

static inline void pq_stats_int(pq_stats *s, int64_t v)
{
	if (!s->has_minmax) {
		s->min.i = s->max.i = v;
		s->has_minmax = true;
	} else if (v < s->min.i) {
		s->min.i = v;
	} else if (v > s->max.i) {
		s->max.i = v;
	}
}

static inline void pq_stats_double(pq_stats *s, double v)
{
	if (v != v) return; /* NaN is not ordered: left out, as the spec asks */
	if (!s->has_minmax) {
		s->min.d = s->max.d = v;
		s->has_minmax = true;
		return;
	}
	if (v < s->min.d || (v == 0 && s->min.d == 0 && signbit(v))) s->min.d = v;
	if (v > s->max.d || (v == 0 && s->max.d == 0 && !signbit(v))) s->max.d = v;
}

static inline void pq_stats_decimal(pq_stats *s, dl_i128 v)
{
	if (!s->has_minmax) {
		s->min.dec = s->max.dec = v;
		s->has_minmax = true;
	} else if (v < s->min.dec) {
		s->min.dec = v;
	} else if (v > s->max.dec) {
		s->max.dec = v;
	}
}

static inline void pq_stats_bool(pq_stats *s, bool v)
{
	if (!s->has_minmax) {
		s->min.b = s->max.b = v;
		s->has_minmax = true;
	} else {
		s->min.b = s->min.b && v;
		s->max.b = s->max.b || v;
	}
}

int pq_stats_bytes(pq_stats *s, const uint8_t *p, size_t n);
/* Folds src into dst (same kind). */
int pq_stats_merge(pq_stats *dst, const pq_stats *src);
/* Only the min/max of src (no counts). */
int pq_stats_merge_minmax(pq_stats *dst, const pq_stats *src);

/* Footer/page Statistics of a chunk for physical type `phys` (FLBA decimals
 * take type_length big-endian bytes). Byte arrays longer than trunc_len
 * (0 = never) are truncated; `utf8` truncates at character boundaries.
 * The encoded values are written into `scratch` (kept alive by the caller
 * until the statistics are encoded; it must not be reused meanwhile). */
int pq_stats_to_thrift(const pq_stats *s, pq_type phys, int type_length, size_t trunc_len, bool utf8,
                       dl_buf *scratch, pq_statistics *out);

/* Truncation helpers (exposed for tests). Return the new length in *len;
 * max truncation may fail to find a shorter bound and then returns false. */
size_t pq_truncate_min(const uint8_t *p, size_t n, size_t limit, bool utf8);
bool pq_truncate_max(const uint8_t *p, size_t n, size_t limit, bool utf8, uint8_t *out, size_t *len);

#endif
