/* MERGE: the source columns of updated target rows, captured per target
 * file during the join (merge_capture.c). */
#ifndef DL_DML_MERGE_CAPTURE_H
#define DL_DML_MERGE_CAPTURE_H
#include "dml/merge_internal.h"

/* Captures the source columns (__s0.., __srow) of V's rows[0..n), grouped
 * by their target file (V's __file); crow[k] gets row k's index in its
 * file's capture. */
int dl_mg_capture(mg_exec *x, const dl_batch *V, const uint32_t *rows, int64_t n, int64_t *crow);
/* File f's captured rows as one batch (borrowed; NULL when none), loaded
 * from its spill file on first use; `consumed` rows of it are used by this
 * call. dl_mg_capture_done after, which frees them once all are used. */
int dl_mg_capture_get(mg_exec *x, size_t f, int64_t consumed, dl_batch **all);
void dl_mg_capture_done(mg_exec *x, size_t f);
void dl_mg_capture_free(mg_exec *x);

#endif
