/* The expression language of Delta: Spark SQL expressions as they appear in
 * CHECK constraints, generated columns, replaceWhere, DELETE/UPDATE/MERGE
 * conditions and scan filters.
 *
 * Life of an expression:
 *   dl_expr_parse   text -> tree (syntax only; canonical text via dl_expr_sql)
 *   dl_expr_bind    resolve columns against a struct schema, insert Spark's
 *                   implicit casts, type every node, fold constants
 *   dl_expr_eval    vectorized evaluation over a dl_batch (ANSI semantics)
 *   dl_expr_filter  rows where the predicate is TRUE, as a selection
 *   dl_expr_may_match  file skipping from per-file statistics
 * A dl_expr owns all of its memory (one arena); free it with dl_expr_free.
 * Semantics choices are documented in docs/EXPRESSIONS.md. */
#ifndef DL_EXPR_EXPR_H
#define DL_EXPR_EXPR_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "columnar/array.h"
#include "columnar/types.h"
#include "util/buf.h"

typedef struct dl_expr dl_expr;

/* A typed constant: literals, statistics, partition values. Integral types,
 * DATE and TIMESTAMP(_NTZ) use i64; FLOAT and DOUBLE use f64; DECIMAL uses
 * dec (unscaled) with precision/scale; STRING and BINARY use str (borrowed,
 * not NUL-terminated). */
typedef struct dl_scalar {
	dl_type_id type;
	int precision, scale; /* DECIMAL only */
	bool is_null;
	union {
		bool b;
		int64_t i64;
		double f64;
		dl_i128 dec;
		struct {
			const char *ptr;
			size_t len;
		} str;
	} v;
} dl_scalar;

/* Parses Spark SQL expression text. DL_EINVALID with the position and what
 * was expected on a syntax error. */
int dl_expr_parse(dl_expr **out, const char *sql);
void dl_expr_free(dl_expr *e);

/* Appends canonical SQL text that parses back to the same expression. */
int dl_expr_sql(const dl_expr *e, dl_buf *out);

/* Resolves the expression against `schema` (a DL_TYPE_STRUCT; column names
 * match case-insensitively, nested fields with a.b). May be called again
 * with another schema. DL_EINVALID for unknown columns/functions and type
 * mismatches. */
int dl_expr_bind(dl_expr *e, const dl_type *schema);
/* The same with the session settings: constants are folded (and zone-less
 * TIMESTAMP literals resolved) in ctx's time zone, which evaluation should
 * then use too. dl_expr_bind uses UTC. */
struct dl_eval_ctx;
int dl_expr_bind_ctx(dl_expr *e, const dl_type *schema, const struct dl_eval_ctx *ctx);
/* The result type of a bound expression (borrowed), NULL before binding. */
const dl_type *dl_expr_type(const dl_expr *e);
/* False when any function in the expression is non-deterministic
 * (current_date, now, rand...): generated columns and CHECK constraints
 * must reject such expressions. Works before or after binding. */
bool dl_expr_is_deterministic(const dl_expr *e);
/* Calls fn for each distinct column path the expression references (after
 * binding: as spelled in the schema). */
typedef int (*dl_expr_column_fn)(const char *const *path, int depth, void *payload);
int dl_expr_columns(const dl_expr *e, dl_expr_column_fn fn, void *payload);

/* Evaluation context. Zero-initialize, or use DL_EVAL_CTX_INIT. */
typedef struct dl_eval_ctx {
	const char *time_zone; /* session time zone; NULL means "UTC" */
	int64_t now_us;        /* current_timestamp(); 0 = the clock when the
	                        * expression is first evaluated (then fixed) */
} dl_eval_ctx;
#define DL_EVAL_CTX_INIT {NULL, 0}

/* Evaluates a bound expression over a batch (whose schema must be the one
 * bound against). *out is a new array of batch->num_rows rows. ANSI errors
 * (overflow, invalid cast, division by zero) fail with DL_EINVALID. */
int dl_expr_eval(dl_array **out, const dl_expr *e, const dl_batch *batch, const dl_eval_ctx *ctx);
/* Rows where a bound BOOLEAN expression is TRUE (NULL and FALSE rows are
 * dropped), ascending, replacing out's contents. */
int dl_expr_filter(dl_selection *out, const dl_expr *e, const dl_batch *batch, const dl_eval_ctx *ctx);
/* Evaluates a bound expression with no column references to one scalar.
 * Strings point into `e` and live as long as it (until the next call). */
int dl_expr_eval_scalar(dl_scalar *out, dl_expr *e, const dl_eval_ctx *ctx);

/* ---- File skipping ----------------------------------------------------- */

/* What is known about one column in one file. Every piece may be missing.
 * String max statistics may be truncated by the writer: set max_is_prefix
 * when they might be (Delta truncates; treat max as "every value is <=
 * max followed by anything"). Partition values are exact: set min = max =
 * the value (or all_null for a null partition value). */
typedef struct dl_col_stats {
	bool has_min, has_max, has_null_count;
	dl_scalar min, max;
	bool max_is_prefix;
	int64_t null_count;
	bool all_null; /* every row is null (a null partition value) */
} dl_col_stats;

/* Provides statistics for one file. `column` fills *out for a column path
 * (as spelled in the bound schema) and returns 0; leave out zeroed when
 * nothing is known. num_records < 0 when unknown. */
typedef struct dl_stats_provider {
	int64_t num_records;
	int (*column)(void *payload, const char *const *path, int depth, dl_col_stats *out);
	void *payload;
	/* Optional: bounds of one path inside the variant column `path`
	 * (PROTOCOL.md "Statistics for Variant Columns"). `jpath` is the
	 * normalized JSON path ($['a']['b']); min and max come in the type the
	 * file records (LONG for every integer width, DOUBLE, FLOAT, DECIMAL,
	 * STRING, DATE, TIMESTAMP, TIMESTAMP_NTZ), the same for both. Null
	 * counts do not exist for paths. */
	int (*variant_path)(void *payload, const char *const *path, int depth, const char *jpath, dl_col_stats *out);
	/* Optional (NULL: unknown): may the column hold a value equal to v, a
	 * non-null constant of exactly the column's type? *out = false only
	 * when certainly not (a Parquet Bloom filter). Asked for = and IN on
	 * an uncast column, after the statistics said the value may be there. */
	int (*may_contain)(void *payload, const char *const *path, int depth, const dl_scalar *v, bool *out);
} dl_stats_provider;

/* Decides whether a file may contain rows for which the bound predicate is
 * TRUE. Sound: *out is false only when no row can match. Unknown constructs
 * answer true. */
int dl_expr_may_match(bool *out, const dl_expr *e, const dl_stats_provider *stats);

/* Generated partition columns: from a bound filter over the base columns,
 * derives a filter over generated partition columns (e.g. for eventDate
 * GENERATED AS CAST(eventTime AS DATE), eventTime >= '2020-10-01 10:00' gives
 * eventDate >= DATE'2020-10-01'). `schema` is the table schema whose fields
 * carry "delta.generationExpression" metadata; partition_cols names the
 * partition columns. *out is a new bound expression over `schema`, or NULL
 * when nothing can be derived. */
int dl_expr_derive_partition_filter(dl_expr **out, const dl_expr *filter, const dl_type *schema,
                                    const char *const *partition_cols, int npartition_cols);

/* ---- Building expressions programmatically ----------------------------- */

/* Conjunction of two expressions (either may be NULL); the inputs are
 * copied. Unbound result. */
int dl_expr_and(dl_expr **out, const dl_expr *a, const dl_expr *b);

#endif
