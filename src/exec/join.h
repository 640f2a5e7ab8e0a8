/* The hash join's state (join.c: the operator and its grace spilling;
 * join_par.c: the parallel probe). Internal to those files. */
#ifndef DL_EXEC_JOIN_H
#define DL_EXEC_JOIN_H
#include "exec/keytab.h"
#include "exec/op.h"
#include "exec/spill.h"

typedef struct join_op {
	dl_batch_stream *left, *right;
	dl_exec_ctx ctx;
	dl_join_kind kind;
	int nkeys;
	dl_expr **lk, **rk;
	bool *null_safe;
	dl_expr *residual;
	dl_type *pair_schema;    /* left + right, all nullable: the residual's */
	dl_type *out_schema;
	dl_batch *build;
	int64_t nbuild;
	dl_keytab *kt;
	int64_t *head, *next;
	uint8_t *build_matched;
	int64_t charged;
	bool built, left_done, right_emitted;
	/* the left batch being probed */
	dl_batch *cur;
	uint32_t *kid;
	uint8_t *lmatched;
	int64_t li, cursor;      /* cursor: build row next in li's chain; -2 = not started */
	dl_selection sel;
	dl_exec_queue q;
	int64_t right_pos;
	/* grace hash join (the section "Spilling" below) */
	int level;               /* 0 for the plan's operator, +1 per partition pass */
	bool borrowed;           /* a partition pair's join: expressions are the parent's */
	bool grace;              /* the build side did not fit: both sides partitioned */
	dl_spill_parts rparts, lparts;
	int next_part;
	dl_batch_stream *child;
	/* the parallel probe (join_par.c); NULL: serial */
	struct join_par *par;
} join_op;

static inline bool outer_left(const join_op *j)
{
	return j->kind == DL_JOIN_LEFT || j->kind == DL_JOIN_FULL;
}
static inline bool outer_right(const join_op *j)
{
	return j->kind == DL_JOIN_RIGHT || j->kind == DL_JOIN_FULL;
}
static inline bool left_only(const join_op *j)
{
	return j->kind == DL_JOIN_SEMI || j->kind == DL_JOIN_ANTI;
}

/* join.c */
/* Rows of `keys` with no NULL in a key compared with = (sel), for a side. */
int join_usable_rows(const join_op *j, dl_array *const *keys, int64_t n, dl_selection *sel);
/* The left rows lsel of cur (or NULLs when lsel is NULL) beside the build
 * rows rsel (or NULLs), n rows, in `schema`. */
dl_batch *join_pair_batch(join_op *j, const dl_batch *cur, const uint32_t *lsel, const uint32_t *rsel, int64_t n,
                          dl_type *schema);

/* join_par.c */
/* After the build: probes left batches in parallel when the context allows
 * more than one thread and the join qualifies; a no-op otherwise. */
int join_par_open(join_op *j);
/* Probes the next left batches at once, their output queued in order. */
int join_par_step(join_op *j);
void join_par_free(join_op *j);

#endif
