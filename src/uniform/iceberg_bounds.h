/* Per-file column metrics for Iceberg manifests from Delta stats (see
 * iceberg_bounds.c). */
#ifndef DL_UNIFORM_ICEBERG_BOUNDS_H
#define DL_UNIFORM_ICEBERG_BOUNDS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "uniform/iceberg_schema.h"

typedef struct dl_ice_metric {
	int32_t id;
	bool has_counts;      /* value_count and null_count known */
	int64_t value_count;  /* numRecords: nulls included (top-level columns) */
	int64_t null_count;
	uint8_t *lower, *upper; /* single-value serialization, NULL when unknown */
	size_t lower_len, upper_len;
} dl_ice_metric;

typedef struct dl_ice_metrics {
	int64_t num_records; /* -1 when the stats have none */
	dl_ice_metric *m;    /* one per top-level column */
	int n;
} dl_ice_metrics;

/* Parses a file's Delta stats (JSON text, may be NULL) into Iceberg
 * metrics for the table's top-level columns; allocations in the arena. */
int dl_ice_metrics_from_stats(dl_ice_metrics *out, dl_arena *arena, const dl_ice_table_schema *s,
                              const char *stats, size_t len, const char *file);

/* Iceberg's binary single-value serialization (spec Appendix D) of a
 * value given as Delta writes it in stats JSON (a number, a boolean, or a
 * string for dates, timestamps, strings). upper: the value is a
 * millisecond-truncated timestamp maximum, widened by 999 us so it still
 * bounds the column. 0 and *len 0 when the type has no bound here. */
int dl_ice_bound_encode(uint8_t **out, size_t *len, dl_arena *arena, const dl_type *t,
                        const dl_json *v, bool upper);

/* The serialization of a partition value (used by the manifest list's
 * partition summaries); the value is Delta's partitionValues text. */
int dl_ice_partition_bound(uint8_t **out, size_t *len, dl_arena *arena, const dl_type *t,
                           const char *value);

#endif
