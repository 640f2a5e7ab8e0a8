/* The Parquet writer's state, shared by writer.c (the API, the footer) and
 * write_pipeline.c (slices of rows scheduled over the leaf columns and the
 * threads, pages compressed by any thread, row group cuts, chunks emitted
 * in file order). Internal. */
#ifndef DL_PARQUET_WRITER_INTERNAL_H
#define DL_PARQUET_WRITER_INTERNAL_H
#include "parquet/writer.h"
#include "util/arena.h"
#include "util/pool.h"
#include <pthread.h>

/* Slices queued at most (their batches stay alive until every column has
 * written them), and sealed chunks a column may keep waiting for the file. */
#define PQ_WSLICES 8
#define PQ_WSEALED (PQ_WSLICES + 2)
/* Pages waiting for compression, per thread (each holds its body: about a
 * page size). */
#define PQ_WPENDING 4

/* Rows [start, start+n) of a batch, for every leaf column. */
typedef struct pq_wslice {
	dl_batch *b;         /* NULL: a slice that only ends the row group */
	bool owned;          /* free b once every column wrote its last slice */
	bool last_of_batch;
	bool seal_before;    /* the row group ends before this slice */
	int64_t start, n;
	int64_t rg_rows;     /* rows of its row group up to and including it */
	int64_t bytes;       /* estimate of its input bytes (the in-flight bound) */
	int pending;         /* columns that have not written it yet */
	int64_t rows_through; /* rows queued up to and including it */
} pq_wslice;

/* Sums over a column's pages [0, k), every chunk and dictionary page
 * included: header + compressed data, header + uncompressed body, the body
 * before and after compression. */
typedef struct pq_wsum {
	int64_t stored, uncompressed, body, comp;
} pq_wsum;

/* A column's state after a slice, for the size estimates: its pages so far
 * (all of them compressed makes the estimate exact), the first page of its
 * open chunk and the bytes not in a page yet (pq_colw_unpaged). */
typedef struct pq_wrec {
	int64_t pages, first, unpaged;
} pq_wrec;

/* One leaf column's place in the queue. */
typedef struct pq_wcol {
	int64_t next;        /* sequence number of the next slice to write */
	bool busy;           /* a thread is writing it */
	int64_t nsealed;     /* chunks sealed (row groups ended) so far */
	pq_sealed_chunk sealed[PQ_WSEALED]; /* by row group, mod PQ_WSEALED */
	int64_t sealed_end[PQ_WSEALED]; /* pages of the column through each */
	int64_t npages;      /* pages put, every chunk (written by its thread only) */
	int64_t ndone;       /* pages [0, ndone) compressed */
	pq_wpage *ord_head, *ord_tail; /* pages [ndone, npages), in order */
	pq_wsum *sum;        /* sum[k] for k <= ndone */
	size_t cap_sum;
	int64_t chunk_first; /* npages when its open chunk began */
	pq_wrec rec[PQ_WSLICES]; /* after slice seq at rec[seq % PQ_WSLICES] */
} pq_wcol;

/* The lock, the helpers and the bound on queued pages of the writers that
 * share them (one writer's own, or a pq_writer_group). */
struct pq_writer_group {
	pthread_mutex_t mu;
	pthread_cond_t cv;   /* a slice queued or written, a page queued or compressed,
	                      * a chunk sealed or emitted, a writer leaving */
	int threads;
	/* the page buffers the columns of every writer share: one set per
	 * thread at work, handed out under mu */
	pq_colw_scratch *scr;
	pq_colw_scratch **free_scr;
	int nfree_scr;
	dl_pool *pool;       /* threads - 1 helpers when threads > 1 */
	dl_waitgroup helpers;
	bool stop;
	pq_writer *writers;  /* the writers helpers take work from */
	int npending, max_pending; /* pages queued or being compressed, and the bound */
	dl_buf *spare;       /* page bodies to lend a scratch in place of a queued one */
	int nspare;
};

struct pq_writer {
	dl_type *schema;
	pq_wschema ws;
	pq_colw *cols;
	pq_sink *sink;
	pq_writer_options opt;
	dl_arena arena;      /* footer metadata */
	pq_row_group *rgs;   /* row groups in the file */
	uint32_t nrgs, cap_rgs;
	pq_key_value *kvs;
	uint32_t nkvs, cap_kvs;
	int64_t num_rows;    /* rows of the row groups in the file */
	int64_t rows_in;     /* rows queued */
	dl_buf ci, oi;       /* page indexes of every chunk, written at close */
	dl_buf bf;           /* Bloom filters of every chunk, written at close */
	dl_buf emit_scratch; /* statistics encoding of the chunk being emitted */
	bool closed;
	int failed; /* first error: after it the file is unusable, so refuse more */

	/* the pipeline (write_pipeline.c); fields below g are guarded by g->mu */
	pq_writer_group *g;
	bool own_group, joined;
	pq_writer *gnext;    /* in g->writers */
	int active;          /* helpers at work on this writer */
	pq_wcol *wc;
	pq_wslice ring[PQ_WSLICES]; /* slice seq at ring[seq % PQ_WSLICES] */
	int64_t nseq;        /* slices queued */
	int64_t retired;     /* slices [0, retired) written by all and released */
	int64_t inflight_bytes;
	int64_t rg_first;    /* sequence number of the open row group's first slice */
	int64_t rg_rows;     /* rows queued into the open row group */
	int64_t *cut_rows;   /* rows of each ended row group */
	uint32_t ncut, cap_cut;
	int emit_col;        /* next column of row group nrgs to emit */
	/* pages waiting for a thread to compress them (helpers only) */
	pq_wpage *qhead, *qtail;
	int nqueued;         /* in the queue (counted in g->npending) */
	int64_t page_mem;    /* bytes of pages held: queued bodies, compressed data */
	int err;             /* first failure of a column (its message below) */
	char errmsg[512];
};

/* Joins opt.group, or starts the writer's own helpers (opt.threads > 1). */
int pq_wpipe_start(pq_writer *w);
/* Leaves the group (its helpers done with the writer) and frees what is
 * still queued. */
void pq_wpipe_stop(pq_writer *w);
/* Queues the rows of b. Owned: the writer frees b (also on failure) and
 * returns before the columns wrote it. Borrowed: returns once they have,
 * with every row group ended by then in the file. */
int pq_wpipe_write(pq_writer *w, dl_batch *b, bool owned);
/* Ends the open row group (if it has rows) and waits until every queued
 * row and ended row group is in the file. */
int pq_wpipe_drain(pq_writer *w);
/* The file's size estimate of pq_writer_size_estimate. */
int pq_wpipe_estimate(pq_writer *w, int64_t *bytes);
/* Bytes of the pages held (compressed, or queued with their bodies). */
size_t pq_wpipe_memory(pq_writer *w);
/* The columns' pq_put_page_fn (ctx: the writer): compresses the page at
 * once at one thread or when PQ_WPENDING pages per thread already wait,
 * else queues it for whichever thread is free. */
int pq_wpipe_put_page(void *ctx, pq_colw *c, pq_colw_scratch *scr, pq_wpage *p);

#endif
