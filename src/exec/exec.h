/* The query engine's operators: vectorized and pull-based, over the
 * library's one batch iteration style. An operator IS a dl_batch_stream
 * (columnar/batch_stream.h): schema() is fixed once it is built, next()
 * returns the next batch or NULL at the end, release() frees it and what it
 * owns. "open" is the constructor below; "close" is dl_batch_stream_free.
 * So a scan (dl_scan_batches), an imported ArrowArrayStream
 * (dl_batch_stream_import), batches in memory (dl_batch_stream_from_batches)
 * and every operator plug into each other, and a plan exports as an
 * ArrowArrayStream with dl_batch_stream_export.
 *
 * Ownership: a constructor takes ownership of its input streams and of the
 * dl_expr pointers it is given (it binds them to its input's schema), also
 * when it fails; *out is NULL then. Expressions may arrive bound or unbound.
 *
 * Memory: operators that hold rows beyond one batch (hash aggregate, hash
 * join's build side, sort, distinct and set operations) charge what they
 * keep to a dl_exec_memory budget shared by the whole plan and release it
 * when they are freed. Over the limit hash aggregate, hash join, sort,
 * distinct and set operations spill to temporary files under temp_dir
 * (exec/spill.h); what cannot spill fails with DL_ENOMEM naming the
 * operator (see docs/EXEC.md).
 *
 * Semantics are Spark SQL's (docs/EXEC.md): NULL is not true in filters,
 * NULL keys form one group, NULL never matches under = in joins but does
 * under <=>, INTERSECT and EXCEPT are distinct unless ALL. */
#ifndef DL_EXEC_EXEC_H
#define DL_EXEC_EXEC_H
#include <stdatomic.h>
#include "columnar/batch_stream.h"
#include "deltalake/scan.h"
#include "deltalake/snapshot.h"
#include "expr/expr.h"

/* ---- memory accounting ----------------------------------------------- */

typedef struct dl_exec_memory {
	int64_t limit;          /* bytes; 0 = no limit */
	_Atomic int64_t used;   /* charged now */
	_Atomic int64_t peak;   /* the most ever charged at once */
} dl_exec_memory;
#define DL_EXEC_MEMORY_INIT(limit) {(limit), 0, 0}

/* Charges `bytes` for `what` (an operator's name, for the message). m may
 * be NULL (no accounting). DL_ENOMEM when the limit would be exceeded;
 * nothing is charged then. */
int dl_exec_mem_charge(dl_exec_memory *m, int64_t bytes, const char *what);
void dl_exec_mem_release(dl_exec_memory *m, int64_t bytes);
/* What an array or batch charges: dl_array_bytes / dl_batch_bytes
 * (columnar/array.h). */

/* What every operator is built with (copied; pointers borrowed, they must
 * outlive the plan). */
typedef struct dl_exec_ctx {
	dl_eval_ctx eval;      /* session time zone, current_timestamp */
	dl_exec_memory *mem;   /* NULL = unaccounted */
	int64_t batch_rows;    /* rows per output batch of operators that build
	                        * their output; 0 = 65536 */
	const char *temp_dir;  /* where operators spill; NULL = $TMPDIR or /tmp */
	/* Set (from any thread or a signal handler) to make every operator of
	 * the plan fail with DL_ECANCELLED at its next batch; NULL = never. */
	const _Atomic bool *interrupt;
	int threads;           /* operators' parallelism; 0 = the pool's size */
} dl_exec_ctx;
#define DL_EXEC_CTX_INIT {DL_EVAL_CTX_INIT, NULL, 0, NULL, NULL, 0}

/* ---- sources --------------------------------------------------------- */

/* A Delta table at `uri`: time travel through snap_opts (version or
 * timestamp; NULL = latest), projection and filter pushed into the scan
 * through scan_opts (NULL = every column, no filter): files are pruned by
 * partition values and statistics, the residual filter runs in the scan. */
int dl_exec_scan(dl_batch_stream **out, const char *uri, const dl_snapshot_options *snap_opts,
                 const dl_scan_options *scan_opts);
/* The same over a snapshot the caller already holds (borrowed: it must
 * outlive the stream), e.g. the read snapshot of a transaction, so a DML
 * command reads exactly the version it will commit against. */
int dl_exec_scan_snapshot(dl_batch_stream **out, dl_snapshot *snap, const dl_scan_options *scan_opts);

/* ---- row-at-a-time shape --------------------------------------------- */

/* Rows where `pred` (BOOLEAN) is TRUE: FALSE and NULL drop the row. */
int dl_exec_filter(dl_batch_stream **out, dl_batch_stream *in, dl_expr *pred, const dl_exec_ctx *ctx);
/* One output column per expression, named names[i] (NULL: the
 * expression's SQL text). */
int dl_exec_project(dl_batch_stream **out, dl_batch_stream *in, dl_expr *const *exprs, const char *const *names,
                    int n, const dl_exec_ctx *ctx);
/* Skips `offset` rows, then passes at most `limit` (< 0: all). */
int dl_exec_limit(dl_batch_stream **out, dl_batch_stream *in, int64_t limit, int64_t offset);

/* ---- hash aggregate -------------------------------------------------- */

typedef enum dl_agg_kind {
	DL_AGG_COUNT_STAR = 0, /* count(*): rows */
	DL_AGG_COUNT,          /* count(x): non-null x */
	DL_AGG_COUNT_DISTINCT, /* count(DISTINCT x) */
	DL_AGG_SUM,            /* integral -> bigint, float/double -> double,
	                        * decimal(p,s) -> decimal(min(p+10,38), s) */
	DL_AGG_AVG,            /* numeric -> double, decimal(p,s) ->
	                        * decimal(min(p+4,38), min(s+4,38)) */
	DL_AGG_MIN,
	DL_AGG_MAX,
	DL_AGG_FIRST,          /* first(x [, ignoreNulls]) in input order */
	DL_AGG_LAST,
	DL_AGG_VAR_SAMP,       /* numeric -> double; NULL below 2 values */
	DL_AGG_VAR_POP,        /* numeric -> double; NULL without values */
	DL_AGG_STDDEV_SAMP,
	DL_AGG_STDDEV_POP,
	DL_AGG_COLLECT_LIST,   /* ARRAY<input> of non-null values, input order */
	DL_AGG_COLLECT_SET,    /* ARRAY<input> of distinct non-null values */
	DL_AGG_APPROX_COUNT_DISTINCT, /* BIGINT: HyperLogLog++ as Spark (rsd) */
	DL_AGG_PERCENTILE_APPROX,     /* input type (or ARRAY of it): Spark's
	                               * percentile_approx(x, pct [, accuracy]) */
	DL_AGG_COUNT_IF,       /* count_if(pred): BIGINT */
	DL_AGG_BOOL_AND,       /* bool_and / every */
	DL_AGG_BOOL_OR,        /* bool_or / any / some */
	DL_AGG_ANY_VALUE,      /* any_value(x [, ignoreNulls]) */
} dl_agg_kind;

typedef struct dl_exec_agg {
	dl_agg_kind kind;
	dl_expr *arg;          /* NULL for count(*); owned by the operator */
	const char *name;      /* output column name */
	bool ignore_nulls;     /* first/last/any_value only */
	bool distinct;         /* agg(DISTINCT x): each distinct non-null value
	                        * of a group counts once (count, sum, avg,
	                        * collect_list...) */
	dl_expr *param;        /* percentile_approx: the percentage (DOUBLE or
	                        * ARRAY<DOUBLE>), a constant; owned; else NULL */
	int64_t accuracy;      /* percentile_approx; 0 = 10000 */
	double rsd;            /* approx_count_distinct; 0 = 0.05 */
} dl_exec_agg;

/* Spark's Expand under GROUPING SETS / ROLLUP / CUBE (expand.c): every
 * input row once per grouping set. Output columns: the input's, then
 * keys[0..nkeys) named key_names[i] (nullable), then id_name, a BIGINT
 * holding ids[set]: Spark's grouping id, bit (nkeys-1-i) set when key i is
 * not in the set, which is then NULL. The keys are taken (also on failure).
 * At most 64 keys. */
int dl_exec_expand(dl_batch_stream **out, dl_batch_stream *in, dl_expr *const *keys, const char *const *key_names,
                   int nkeys, const uint64_t *ids, int nsets, const char *id_name, const dl_exec_ctx *ctx);

/* GROUP BY keys[0..nkeys) (expressions; named key_names[i]) computing
 * aggs[0..naggs). Output columns: the keys, then the aggregates; one row
 * per group in order of first appearance. Without keys: exactly one row,
 * also for empty input (count 0, other aggregates NULL). HAVING is a
 * dl_exec_filter over this output. */
int dl_exec_aggregate(dl_batch_stream **out, dl_batch_stream *in, dl_expr *const *keys,
                      const char *const *key_names, int nkeys, const dl_exec_agg *aggs, int naggs,
                      const dl_exec_ctx *ctx);

/* ---- sort, top-N ----------------------------------------------------- */

typedef enum dl_nulls_order {
	DL_NULLS_DEFAULT = 0, /* Spark: FIRST for ascending, LAST for descending */
	DL_NULLS_FIRST,
	DL_NULLS_LAST,
} dl_nulls_order;

typedef struct dl_exec_sort_key {
	dl_expr *expr;        /* owned by the operator */
	bool descending;
	dl_nulls_order nulls;
} dl_exec_sort_key;

/* ORDER BY keys, stable (ties keep input order; NaN sorts above every
 * number, as in Spark), then OFFSET `offset`, LIMIT `limit` (< 0: all).
 * With a limit only offset+limit rows are kept while reading (top-N). */
int dl_exec_sort(dl_batch_stream **out, dl_batch_stream *in, const dl_exec_sort_key *keys, int nkeys,
                 int64_t limit, int64_t offset, const dl_exec_ctx *ctx);

/* ---- hash join ------------------------------------------------------- */

typedef enum dl_join_kind {
	DL_JOIN_INNER = 0,
	DL_JOIN_LEFT,       /* left outer */
	DL_JOIN_RIGHT,      /* right outer */
	DL_JOIN_FULL,       /* full outer */
	DL_JOIN_SEMI,       /* left semi: left rows with a match, once */
	DL_JOIN_ANTI,       /* left anti: left rows without a match */
	DL_JOIN_CROSS,      /* every pair (nkeys must be 0); residual allowed */
} dl_join_kind;

typedef struct dl_exec_join {
	dl_join_kind kind;
	int nkeys;
	dl_expr **left_keys;   /* bound to the left input; owned */
	dl_expr **right_keys;  /* bound to the right input; owned */
	const bool *null_safe; /* per key: <=> instead of = (NULL = all =) */
	dl_expr *residual;     /* over the joined row (left columns then right
	                        * columns); NULL = none; owned */
} dl_exec_join;

/* Joins left with right; the right side is the build side (held in
 * memory), the left side streams. Output: the left columns then the right
 * columns (nullable on an outer side); semi and anti output the left
 * columns only. Key pairs must have the same type (the planner casts). The
 * residual names columns of the joined schema, so column names should be
 * distinct across the two sides. */
int dl_exec_hash_join(dl_batch_stream **out, dl_batch_stream *left, dl_batch_stream *right,
                      const dl_exec_join *spec, const dl_exec_ctx *ctx);

/* ---- window functions ------------------------------------------------ */

typedef enum dl_win_kind {
	DL_WIN_ROW_NUMBER = 0,
	DL_WIN_RANK,
	DL_WIN_DENSE_RANK,
	DL_WIN_PERCENT_RANK,
	DL_WIN_CUME_DIST,
	DL_WIN_NTILE,          /* ntile(offset) */
	DL_WIN_LAG,            /* lag(arg, offset, default) */
	DL_WIN_LEAD,
	DL_WIN_FIRST_VALUE,    /* over the frame */
	DL_WIN_LAST_VALUE,
	DL_WIN_NTH_VALUE,      /* nth_value(arg, offset) */
	DL_WIN_AGG,            /* `agg` over the frame */
} dl_win_kind;

typedef enum dl_frame_bound {
	DL_FRAME_UNBOUNDED_PRECEDING = 0,
	DL_FRAME_PRECEDING,    /* offset PRECEDING */
	DL_FRAME_CURRENT_ROW,
	DL_FRAME_FOLLOWING,    /* offset FOLLOWING */
	DL_FRAME_UNBOUNDED_FOLLOWING,
} dl_frame_bound;

/* A frame. kind DEFAULT is Spark's: with ORDER BY, RANGE BETWEEN UNBOUNDED
 * PRECEDING AND CURRENT ROW; without, the whole partition. ROWS offsets
 * count rows; RANGE offsets are added to the (single) ORDER BY key's
 * value (numbers, or intervals over dates and timestamps). */
typedef enum dl_frame_kind { DL_FRAME_DEFAULT = 0, DL_FRAME_ROWS, DL_FRAME_RANGE } dl_frame_kind;
typedef struct dl_exec_frame {
	dl_frame_kind kind;
	dl_frame_bound lo, hi;
	dl_expr *lo_offset, *hi_offset; /* constants for PRECEDING/FOLLOWING; owned */
} dl_exec_frame;

typedef struct dl_exec_window_fn {
	dl_win_kind kind;
	dl_exec_agg agg;       /* DL_WIN_AGG: the aggregate (its arg owned) */
	dl_expr *arg;          /* lag/lead/first/last/nth_value argument; owned */
	int64_t offset;        /* lag/lead (default 1), ntile buckets, nth_value n */
	dl_expr *default_value; /* lag/lead default; owned; NULL = NULL */
	bool ignore_nulls;     /* first_value/last_value/nth_value/lag/lead */
	dl_exec_frame frame;
	const char *name;      /* output column name */
} dl_exec_window_fn;

/* Window functions sharing one PARTITION BY / ORDER BY: the input's columns
 * then one column per function. Rows come out grouped by partition, in
 * ORDER BY order within one (ties keep input order). Different window
 * specifications are different operators, chained. */
int dl_exec_window(dl_batch_stream **out, dl_batch_stream *in, dl_expr *const *partition, int npartition,
                   const dl_exec_sort_key *order, int norder, const dl_exec_window_fn *fns, int nfns,
                   const dl_exec_ctx *ctx);

/* ---- distinct and set operations ------------------------------------- */

/* Rows with duplicates removed (first occurrence kept, NULLs equal). */
int dl_exec_distinct(dl_batch_stream **out, dl_batch_stream *in, const dl_exec_ctx *ctx);

typedef enum dl_setop_kind {
	DL_SETOP_UNION = 0,
	DL_SETOP_INTERSECT,
	DL_SETOP_EXCEPT,
} dl_setop_kind;

/* a UNION / INTERSECT / EXCEPT b, by position: column counts and types
 * must agree (DL_ESCHEMA otherwise); the output has a's names, nullable
 * where either side is. Without `all` the result is distinct (Spark);
 * INTERSECT ALL keeps min(m, n) copies of a row, EXCEPT ALL max(m - n, 0). */
int dl_exec_setop(dl_batch_stream **out, dl_batch_stream *a, dl_batch_stream *b, dl_setop_kind kind, bool all,
                  const dl_exec_ctx *ctx);

#endif
