/* What the window operator's files share (window.c: the operator, its
 * sort; window_fns.c: ranking and offset functions; window_frame.c: frame
 * bounds; window_agg.c: aggregates over frames).
 *
 * The operator buffers its input, sorts it by (partition, ORDER BY keys,
 * input position) and then works on the sorted rows: partition p is rows
 * [part[p], part[p+1]), the peers of row i (equal ORDER BY keys, or the
 * whole partition without ORDER BY) are rows [peer_lo[i], peer_hi[i]). A
 * frame is a pair of arrays lo[i], hi[i]: row i's frame is rows [lo[i],
 * hi[i]) of the sorted input, always inside its partition (empty when
 * lo == hi). */
#ifndef DL_EXEC_WINDOW_H
#define DL_EXEC_WINDOW_H
#include "exec/op.h"

typedef struct win_rows {
	const dl_batch *sorted;  /* the input, sorted */
	int64_t n;
	const int64_t *part;     /* partition starts, nparts + 1 entries */
	int64_t nparts;
	const int64_t *peer_lo, *peer_hi;
	const dl_exec_ctx *ctx;
} win_rows;

/* A frame's RANGE offsets prepared at construction: bound value
 * expressions over the input (the ORDER BY key plus or minus the offset)
 * and the key cast to the bound's type for comparing. */
typedef struct win_range {
	dl_expr *lo, *hi;    /* NULL unless that side is an offset */
	dl_expr *key_lo, *key_hi; /* the ORDER BY key cast to lo's / hi's type */
	bool desc;
	int64_t lo_rows, hi_rows; /* ROWS offsets, signed: -n for n PRECEDING */
} win_range;

/* Checks a frame and prepares its RANGE offsets (order: the ORDER BY keys,
 * still owned by the caller). `what` names the function for errors. */
int dl_win_frame_prepare(win_range *r, dl_exec_frame *f, const dl_exec_sort_key *order, int norder,
                         const dl_type *schema, const dl_exec_ctx *ctx, const char *what);
void dl_win_range_free(win_range *r);
/* Fills lo[0..n), hi[0..n) for frame f over the sorted rows. */
int dl_win_frame_bounds(int64_t *lo, int64_t *hi, const dl_exec_frame *f, const win_range *r, const win_rows *w);

/* An aggregate over frames. */
typedef struct win_agg win_agg;

/* One function of the operator, prepared. */
typedef struct win_fn {
	dl_win_kind kind;
	dl_expr *arg, *dflt;
	int64_t offset;
	bool ignore_nulls;
	dl_exec_frame frame;
	win_range range;
	win_agg *agg;
	dl_type *out;
} win_fn;

/* Function f's column over the sorted rows (window_fns.c). */
int dl_win_fn_eval(dl_array **out, win_fn *f, const win_rows *w);
/* Binds the aggregate's argument to `schema` and decides its result type
 * (*out_type, a reference the caller drops). Takes the arg and param. */
int dl_win_agg_new(win_agg **out, const dl_exec_agg *spec, const dl_type *schema, const dl_exec_ctx *ctx,
                   dl_type **out_type, bool *nullable);
void dl_win_agg_free(win_agg *g);
/* The aggregate's value for every row's frame, as one array of n rows. */
int dl_win_agg_eval(dl_array **out, win_agg *g, const win_rows *w, const int64_t *lo, const int64_t *hi);

#endif
