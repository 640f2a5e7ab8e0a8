/* MERGE: the target rows the clauses act on, recorded per target file
 * during the join and read back by the rewrite engine's callback
 * (merge_recs.c). */
#ifndef DL_DML_MERGE_RECS_H
#define DL_DML_MERGE_RECS_H
#include "dml/merge_internal.h"

/* Records that target row `pos` of candidate file `file` matched (or was
 * acted on by) `clause` with source row srow, captured row crow. */
int dl_mg_rec_push(mg_exec *x, int64_t file, uint64_t pos, int32_t clause, int64_t srow, int64_t crow);
/* After each joined batch: once the records spill, what the batch added
 * goes to the files' spill files. */
int dl_mg_recs_flush(mg_exec *x);
/* Sorts each file's records by position, fails on a target row matched
 * by several source rows (unless the only MATCHED clause is an
 * unconditional DELETE), keeps those a clause acts on (recs[f].n of
 * them) and counts each clause's rows. */
int dl_mg_recs_check(mg_exec *x);
/* Touches file f in the rewrite engine with its touched positions
 * (dl_rewrite_touch_rows, then _more a batch at a time). */
int dl_mg_recs_touch(mg_exec *x, size_t f, dl_rewrite *rw);
/* File f's record of row `pos`, or *found = false. The rewrite engine
 * asks for one file's rows in ascending order on one thread, which is
 * what lets a spilled file be read back one batch at a time. */
int dl_mg_recs_find(mg_exec *x, size_t f, uint64_t pos, mg_rec *out, bool *found);
void dl_mg_recs_free(mg_exec *x);

#endif
