/* Per-file statistics (PROTOCOL.md "Per-file Statistics"): the stats JSON of
 * an add action, parsed lazily, as typed values for file skipping; and the
 * adapter that serves a file's stats and partition values to the
 * expression layer's dl_expr_may_match (src/expr/expr.h). Stats and
 * partition values are keyed by physical names under column mapping. */
#ifndef DL_LOG_STATS_H
#define DL_LOG_STATS_H
#include <stdbool.h>
#include <stdint.h>
#include "columnar/types.h"
#include "expr/expr.h"
#include "json/json.h"
#include "log/actions.h"
#include "log/properties.h"
#include "util/arena.h"

/* Strings longer than this many characters may have been truncated by the
 * writer (Delta's default prefix length). */
#define DL_STATS_STRING_PREFIX 32

typedef struct dl_file_stats {
	int64_t num_records;     /* -1 when absent */
	bool tight_bounds;       /* true when absent */
	const dl_json *min_values;
	const dl_json *max_values;
	const dl_json *null_count;
} dl_file_stats;

/* Parses a stats JSON text into `arena`. NULL or empty text gives empty
 * stats (num_records -1). DL_ECORRUPT for malformed JSON. */
int dl_file_stats_parse(dl_file_stats *out, dl_arena *arena, const char *json, size_t len);

/* The statistics of one column, at a path of physical names, converted to
 * the column's type. Missing pieces stay unset. Timestamp maxima are
 * widened by 999 us (writers truncate them to milliseconds); long strings
 * get max_is_prefix; nullCount is dropped for wide bounds unless it is 0
 * or equals numRecords (the only values that then carry information). */
int dl_file_stats_column(const dl_file_stats *s, const char *const *path, int depth,
                         const dl_type *type, dl_col_stats *out);

/* The bounds of one path inside a variant column (stats_variant.c):
 * minValues.<col> / maxValues.<col> are z85 text of a variant's metadata
 * followed by its value, an object keyed by normalized JSON paths
 * ($['a']['b']) whose values are primitive bounds (PROTOCOL.md "Statistics
 * for Variant Columns"). Fills out->min / max in the recorded type (see
 * dl_stats_provider.variant_path); decoded bytes live in `arena`.
 * Undecodable statistics are treated as absent. */
int dl_file_stats_variant_path(const dl_file_stats *s, dl_arena *arena, const char *const *path, int depth,
                               const char *jpath, dl_col_stats *out);

/* Serves one file to dl_expr_may_match: `schema` is the logical table
 * schema the predicate was bound to; partition columns answer from the
 * file's partition values (exact), other columns from its stats. */
typedef struct dl_file_skipping {
	const dl_type *schema;
	dl_column_mapping_mode mode;
	const char *const *partition_columns; /* logical names */
	int npartition_columns;
	const dl_add *add;
	dl_file_stats stats;
	dl_arena arena; /* parsed stats and physical names */
} dl_file_skipping;

/* Prepares the provider for one file (parses its stats). Free with
 * dl_file_skipping_free (or reuse: init frees the previous file's data). */
int dl_file_skipping_init(dl_file_skipping *fs, dl_stats_provider *out, const dl_type *schema,
                          dl_column_mapping_mode mode, const char *const *partition_columns,
                          int npartition_columns, const dl_add *add);
void dl_file_skipping_free(dl_file_skipping *fs);

#endif
