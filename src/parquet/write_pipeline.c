/* The Parquet writer's pipeline (see writer_internal.h).
 *
 * Batches are cut into slices of rows, queued for every leaf column. A
 * column writes its slices in order, one thread at a time, but different
 * columns go to different threads and run ahead of each other by up to
 * PQ_WSLICES slices, so no thread waits for the slowest column of each
 * slice; with owned batches the caller reads the next batches meanwhile.
 * Whoever waits (the caller for queue room, a helper for work) writes the
 * column furthest behind.
 *
 * Pages: a column encodes each page on its own thread, but its compression
 * (about half of a string column's time) is queued for any thread, so the
 * slowest column's chain is only its encoding. A free thread runs the
 * column holding back the input first, then queued pages, then the other
 * columns; the pages wait in their chunk, and a chunk goes to the file once
 * all of them are compressed. The pages queued are bounded (PQ_WPENDING
 * per thread; beyond it a column compresses its page at once).
 *
 * Row groups end by size: the cut before slice t is decided from the
 * columns' buffered bytes after slice t-1-LAG (their pages through it
 * compressed, so the pages' headers are known), scaled to the rows queued
 * since, so the decision never needs the slices still in flight and does
 * not depend on timing: the file is the same byte for byte whatever the
 * thread count. A cut makes each column seal its chunk before its next
 * slice; sealed chunks are emitted to the sink in file order by the
 * caller's thread only (sinks need not be thread-safe). */
#include "parquet/writer_internal.h"
#include "util/error.h"
#include "util/mem.h"
#include <stdio.h>
#include <string.h>

/* Slices between a cut's decision and the slice it looks at. */
#define LAG 3

static pq_wslice *slot(pq_writer *w, int64_t seq)
{
	return &w->ring[seq % PQ_WSLICES];
}

/* Slices [0, result) are written by every column. */
static int64_t min_next(const pq_writer *w)
{
	int64_t m = w->nseq;
	for (int i = 0; i < w->ws.nleaves; i++)
		if (w->wc[i].next < m) m = w->wc[i].next;
	return m;
}

static void record_error(pq_writer *w, int rc)
{
	if (rc < 0 && !w->err) {
		w->err = rc;
		snprintf(w->errmsg, sizeof w->errmsg, "%s", dl_error_last()->message);
	}
}

/* Under mu: the runnable column furthest behind, or -1. */
static int pick_column(const pq_writer *w)
{
	if (w->err || w->g->nfree_scr == 0) return -1;
	int best = -1;
	for (int i = 0; i < w->ws.nleaves; i++) {
		const pq_wcol *c = &w->wc[i];
		if (c->busy || c->next >= w->nseq) continue;
		/* a chunk to seal needs a free place among the waiting ones */
		if (w->ring[c->next % PQ_WSLICES].seal_before && c->nsealed - (int64_t)w->nrgs >= PQ_WSEALED) continue;
		if (best < 0 || c->next < w->wc[best].next) best = i;
	}
	return best;
}

/* Under mu (released meanwhile): column i writes its next slice, sealing
 * its chunk first when the row group ended before it. */
static void run_column(pq_writer *w, int i)
{
	pq_wcol *wc = &w->wc[i];
	pq_colw *c = &w->cols[i];
	pq_wslice *s = slot(w, wc->next);
	pq_sealed_chunk *sealed = s->seal_before ? &wc->sealed[wc->nsealed % PQ_WSEALED] : NULL;
	pq_colw_scratch *scr = w->g->free_scr[--w->g->nfree_scr];
	scr->put_ctx = w;
	wc->busy = true;
	pthread_mutex_unlock(&w->g->mu);
	int rc = 0;
	int64_t first = wc->chunk_first; /* npages is this thread's to write while busy */
	if (sealed) {
		rc = pq_colw_seal(c, scr, sealed);
		first = wc->npages;
	}
	if (rc == 0 && s->n > 0) rc = pq_colw_write(c, scr, s->b->cols[c->leaf->top], s->start, s->n);
	int64_t unpaged = pq_colw_unpaged(c);
	pthread_mutex_lock(&w->g->mu);
	record_error(w, rc);
	w->g->free_scr[w->g->nfree_scr++] = scr;
	if (sealed) {
		wc->sealed_end[wc->nsealed % PQ_WSEALED] = first;
		wc->chunk_first = first;
		wc->nsealed++;
	}
	wc->rec[wc->next % PQ_WSLICES] = (pq_wrec){wc->npages, first, unpaged};
	s->pending--;
	wc->next++;
	wc->busy = false;
	pthread_cond_broadcast(&w->g->cv);
}

/* ---- pages ------------------------------------------------------------- */

/* Under mu: page p is compressed; the column's sums advance over the pages
 * done in order. */
static void page_done(pq_writer *w, pq_wpage *p)
{
	pq_wcol *wc = &w->wc[p->col];
	p->done = true;
	w->page_mem += (int64_t)p->len;
	while (wc->ord_head && wc->ord_head->done) {
		const pq_wpage *q = wc->ord_head;
		const pq_wsum *a = &wc->sum[wc->ndone];
		wc->sum[wc->ndone + 1] = (pq_wsum){a->stored + (int64_t)q->len, a->uncompressed + q->uncompressed,
		                                   a->body + q->body_len, a->comp + q->comp_len};
		wc->ndone++;
		wc->ord_head = q->next_ordered;
		if (!wc->ord_head) wc->ord_tail = NULL;
	}
}

int pq_wpipe_put_page(void *ctx, pq_colw *c, pq_colw_scratch *scr, pq_wpage *p)
{
	pq_writer *w = ctx;
	pq_wcol *wc = &w->wc[c - w->cols];
	p->col = (int)(c - w->cols);
	pthread_mutex_lock(&w->g->mu);
	/* room for the sums through this page: page_done cannot fail */
	if ((size_t)wc->npages + 2 > wc->cap_sum) {
		size_t cap = wc->cap_sum * 2;
		pq_wsum *sum = dl_reallocarray(wc->sum, cap, sizeof *sum);
		if (!sum) {
			pthread_mutex_unlock(&w->g->mu);
			return DL_ENOMEM;
		}
		wc->sum = sum;
		wc->cap_sum = cap;
	}
	p->next_ordered = NULL;
	if (wc->ord_tail) wc->ord_tail->next_ordered = p;
	else wc->ord_head = p;
	wc->ord_tail = p;
	wc->npages++;
	if (w->g->pool && w->g->npending < w->g->max_pending) {
		p->body = scr->body;
		scr->body = w->g->nspare ? w->g->spare[--w->g->nspare] : (dl_buf)DL_BUF_INIT;
		w->page_mem += (int64_t)p->body.cap;
		p->next_queued = NULL;
		if (w->qtail) w->qtail->next_queued = p;
		else w->qhead = p;
		w->qtail = p;
		w->nqueued++;
		w->g->npending++;
		pthread_cond_broadcast(&w->g->cv);
		pthread_mutex_unlock(&w->g->mu);
		return 0;
	}
	pthread_mutex_unlock(&w->g->mu);
	p->body = scr->body;
	int rc = pq_colw_compress_page(c, p, scr);
	scr->body = p->body;
	p->body = (dl_buf)DL_BUF_INIT;
	if (rc < 0) return rc;
	pthread_mutex_lock(&w->g->mu);
	page_done(w, p);
	pthread_cond_broadcast(&w->g->cv);
	pthread_mutex_unlock(&w->g->mu);
	return 0;
}

/* Under mu (released meanwhile): compresses the first queued page. */
static void run_page(pq_writer *w)
{
	pq_wpage *p = w->qhead;
	w->qhead = p->next_queued;
	if (!w->qhead) w->qtail = NULL;
	w->nqueued--;
	pq_colw_scratch *scr = w->g->free_scr[--w->g->nfree_scr];
	pthread_mutex_unlock(&w->g->mu);
	int rc = pq_colw_compress_page(&w->cols[p->col], p, scr);
	pthread_mutex_lock(&w->g->mu);
	record_error(w, rc);
	w->g->free_scr[w->g->nfree_scr++] = scr;
	w->page_mem -= (int64_t)p->body.cap;
	dl_buf_clear(&p->body);
	if (w->g->nspare < w->g->max_pending) w->g->spare[w->g->nspare++] = p->body;
	else dl_buf_free(&p->body);
	p->body = (dl_buf)DL_BUF_INIT;
	w->g->npending--;
	if (rc == 0) page_done(w, p);
	pthread_cond_broadcast(&w->g->cv);
}

/* Under mu: does one piece of work if there is one a thread may take: the
 * column the input waits for, else a queued page, else another column. */
static bool run_work(pq_writer *w)
{
	int i = pick_column(w);
	if (i >= 0 && w->wc[i].next == min_next(w)) {
		run_column(w, i);
		return true;
	}
	if (w->qhead && !w->err && w->g->nfree_scr > 0) {
		run_page(w);
		return true;
	}
	if (i < 0) return false;
	run_column(w, i);
	return true;
}

/* A helper of the group: work from whichever writer has some. */
static int helper(void *arg)
{
	pq_writer_group *g = arg;
	pthread_mutex_lock(&g->mu);
	while (!g->stop) {
		bool did = false;
		/* run_work unlocks only when it works, and then the loop starts
		 * over: a writer may have left meanwhile */
		for (pq_writer *w = g->writers; w && !did; w = w->gnext) {
			w->active++;
			did = run_work(w);
			w->active--;
		}
		if (did) pthread_cond_broadcast(&g->cv); /* a writer leaving waits for active == 0 */
		else pthread_cond_wait(&g->cv, &g->mu);
	}
	pthread_mutex_unlock(&g->mu);
	return 0;
}

static int group_start(pq_writer_group *g, int threads)
{
	g->threads = threads > 1 ? threads : 1;
	g->scr = dl_calloc((size_t)g->threads, sizeof *g->scr);
	g->free_scr = dl_calloc((size_t)g->threads, sizeof *g->free_scr);
	if (!g->scr || !g->free_scr) return DL_ENOMEM;
	for (int i = 0; i < g->threads; i++) {
		g->scr[i].put = pq_wpipe_put_page;
		g->free_scr[g->nfree_scr++] = &g->scr[i];
	}
	if (g->threads == 1) return 0;
	g->max_pending = PQ_WPENDING * g->threads;
	g->spare = dl_calloc((size_t)g->max_pending, sizeof *g->spare);
	if (!g->spare) return DL_ENOMEM;
	DL_TRY(dl_pool_create(&g->pool, g->threads - 1));
	for (int i = 0; i < g->threads - 1; i++) DL_TRY(dl_pool_submit(g->pool, &g->helpers, helper, g));
	return 0;
}

int pq_writer_group_new(pq_writer_group **out, int threads)
{
	*out = NULL;
	pq_writer_group *g = dl_calloc(1, sizeof *g);
	if (!g) return DL_ENOMEM;
	pthread_mutex_init(&g->mu, NULL);
	pthread_cond_init(&g->cv, NULL);
	dl_waitgroup_init(&g->helpers);
	int rc = group_start(g, threads);
	if (rc < 0) {
		pq_writer_group_free(g);
		return rc;
	}
	*out = g;
	return 0;
}

void pq_writer_group_free(pq_writer_group *g)
{
	if (!g) return;
	pthread_mutex_lock(&g->mu);
	g->stop = true;
	pthread_cond_broadcast(&g->cv);
	pthread_mutex_unlock(&g->mu);
	(void)dl_waitgroup_wait(&g->helpers);
	dl_waitgroup_destroy(&g->helpers);
	if (g->pool) dl_pool_free(g->pool);
	for (int i = 0; g->scr && i < g->threads; i++) pq_colw_scratch_free(&g->scr[i]);
	dl_free(g->scr);
	dl_free(g->free_scr);
	for (int k = 0; k < g->nspare; k++) dl_buf_free(&g->spare[k]);
	dl_free(g->spare);
	pthread_mutex_destroy(&g->mu);
	pthread_cond_destroy(&g->cv);
	dl_free(g);
}

/* ---- emitting (the caller's thread) ------------------------------------ */

static int begin_row_group(pq_writer *w)
{
	if (w->nrgs == INT16_MAX) return dl_error_set(DL_ENOMEM, "more than 32767 row groups; raise the row group size");
	if (w->nrgs == w->cap_rgs) {
		uint32_t cap = w->cap_rgs ? w->cap_rgs * 2 : 8;
		pq_row_group *r = dl_reallocarray(w->rgs, cap, sizeof *r);
		if (!r) return DL_ENOMEM;
		w->rgs = r;
		w->cap_rgs = cap;
	}
	pq_row_group *rg = &w->rgs[w->nrgs];
	memset(rg, 0, sizeof *rg);
	rg->columns = dl_arena_calloc(&w->arena, (size_t)w->ws.nleaves, sizeof *rg->columns);
	if (!rg->columns) return DL_ENOMEM;
	rg->ncolumns = (uint32_t)w->ws.nleaves;
	rg->has_file_offset = rg->has_total_compressed_size = rg->has_ordinal = true;
	rg->file_offset = w->sink->pos;
	return 0;
}

static int emit_chunk(pq_writer *w, int i, pq_sealed_chunk *s)
{
	if (i == 0) {
		int rc = begin_row_group(w);
		if (rc < 0) {
			pq_sealed_chunk_free(s);
			return rc;
		}
	}
	pq_row_group *rg = &w->rgs[w->nrgs];
	DL_TRY(pq_colw_emit(&w->cols[i], s, w->sink, &w->arena, &w->emit_scratch, &rg->columns[i], &w->ci, &w->oi,
	                    &w->bf));
	rg->total_byte_size += rg->columns[i].meta_data.total_uncompressed_size;
	rg->total_compressed_size += rg->columns[i].meta_data.total_compressed_size;
	if (i == w->ws.nleaves - 1) {
		rg->num_rows = w->cut_rows[w->nrgs];
		rg->ordinal = (int16_t)w->nrgs;
		w->num_rows += rg->num_rows;
	}
	return 0;
}

/* Under mu: writes the sealed chunks that are next in the file; returns
 * how many (or a failure). */
static int emit_ready(pq_writer *w)
{
	int n = 0;
	while (!w->err && w->nrgs < w->ncut) {
		int i = w->emit_col;
		pq_wcol *wc = &w->wc[i];
		if (wc->nsealed <= (int64_t)w->nrgs || wc->ndone < wc->sealed_end[w->nrgs % PQ_WSEALED]) break;
		pq_sealed_chunk *s = &wc->sealed[w->nrgs % PQ_WSEALED];
		int64_t bytes = s->dict_page ? (int64_t)s->dict_page->len : 0;
		for (size_t k = 0; k < s->npages; k++) bytes += (int64_t)s->pagev[k]->len;
		pthread_mutex_unlock(&w->g->mu);
		int rc = emit_chunk(w, i, s);
		pthread_mutex_lock(&w->g->mu);
		w->page_mem -= bytes;
		record_error(w, rc);
		if (rc < 0) break;
		n++;
		if (++w->emit_col == w->ws.nleaves) {
			w->emit_col = 0;
			w->nrgs++;
			pthread_cond_broadcast(&w->g->cv); /* room for sealed chunks */
		}
	}
	return n;
}

/* Under mu: releases the batches of slices every column has written. */
static void retire(pq_writer *w)
{
	int64_t m = min_next(w);
	for (; w->retired < m; w->retired++) {
		pq_wslice *s = slot(w, w->retired);
		if (s->owned && s->last_of_batch) dl_batch_free(s->b);
		w->inflight_bytes -= s->bytes;
		s->b = NULL;
		s->owned = false;
	}
}

typedef bool (*cond_fn)(const pq_writer *w, int64_t arg);

/* Under mu, on the caller's thread: emits, writes columns or sleeps until
 * ok(w, arg) or a failure (returned with its message). */
static int wait_until(pq_writer *w, cond_fn ok, int64_t arg)
{
	while (!w->err) {
		retire(w);
		if (ok(w, arg)) return 0;
		if (emit_ready(w) > 0) continue;
		if (!run_work(w) && !w->err) pthread_cond_wait(&w->g->cv, &w->g->mu);
	}
	return dl_error_set(w->err, "%s", w->errmsg);
}

static bool written_through(const pq_writer *w, int64_t seq)
{
	return min_next(w) >= seq;
}

/* Written, and the pages every column had after slice seq - 1 compressed. */
static bool complete_through(const pq_writer *w, int64_t seq)
{
	if (min_next(w) < seq) return false;
	for (int i = 0; i < w->ws.nleaves; i++)
		if (w->wc[i].ndone < w->wc[i].rec[(seq - 1) % PQ_WSLICES].pages) return false;
	return true;
}

static bool room_for(const pq_writer *w, int64_t bytes)
{
	if (w->nseq - w->retired >= PQ_WSLICES) return false;
	/* input held for the columns: a quarter of a row group, or one slice */
	return w->retired == w->nseq || w->inflight_bytes + bytes <= w->opt.row_group_bytes / 4;
}

static bool all_emitted(const pq_writer *w, int64_t unused)
{
	(void)unused;
	return w->nrgs == w->ncut;
}

/* ---- queueing (the caller's thread) ------------------------------------ */

static int end_row_group(pq_writer *w)
{
	if (w->ncut == w->cap_cut) {
		uint32_t cap = w->cap_cut ? w->cap_cut * 2 : 8;
		int64_t *r = dl_reallocarray(w->cut_rows, cap, sizeof *r);
		if (!r) return DL_ENOMEM;
		w->cut_rows = r;
		w->cap_cut = cap;
	}
	w->cut_rows[w->ncut++] = w->rg_rows;
	w->rg_rows = 0;
	w->rg_first = w->nseq;
	return 0;
}

/* Under mu: does the open row group end before the next slice? */
static int cut_due(pq_writer *w, bool *cut)
{
	*cut = false;
	if (w->rg_rows == 0) return 0;
	if (w->opt.row_group_rows > 0 && w->rg_rows >= w->opt.row_group_rows) {
		*cut = true;
		return 0;
	}
	int64_t j = w->nseq - 1 - LAG;
	if (j < w->rg_first) return 0;
	DL_TRY(wait_until(w, complete_through, j + 1));
	const pq_wslice *s = slot(w, j);
	if (s->rg_rows <= 0) return 0;
	/* the open chunks' pages, uncompressed, and what is not in a page yet */
	int64_t buffered = 0;
	for (int i = 0; i < w->ws.nleaves; i++) {
		const pq_wcol *wc = &w->wc[i];
		const pq_wrec *r = &wc->rec[j % PQ_WSLICES];
		buffered += wc->sum[r->pages].uncompressed - wc->sum[r->first].uncompressed + r->unpaged;
	}
	double est = (double)buffered * (double)w->rg_rows / (double)s->rg_rows;
	*cut = est >= (double)w->opt.row_group_bytes;
	return 0;
}

/* Under mu: queues rows [start, start+n) of b (n = 0, b = NULL: only
 * ends the row group). */
static int push_slice(pq_writer *w, dl_batch *b, bool owned, bool last, int64_t start, int64_t n, int64_t bytes,
                      bool cut)
{
	DL_TRY(wait_until(w, room_for, bytes));
	if (cut) DL_TRY(end_row_group(w));
	pq_wslice *s = slot(w, w->nseq);
	s->b = b;
	s->owned = owned;
	s->last_of_batch = last;
	s->seal_before = cut;
	s->start = start;
	s->n = n;
	s->bytes = bytes;
	s->pending = w->ws.nleaves;
	w->rg_rows += n;
	w->rows_in += n;
	s->rg_rows = w->rg_rows;
	s->rows_through = w->rows_in;
	w->inflight_bytes += bytes;
	w->nseq++;
	pthread_cond_broadcast(&w->g->cv);
	return 0;
}

/* Bytes of an array's buffers (an estimate of its encoded size). */
static int64_t array_bytes(const dl_array *a)
{
	int64_t n = a->data_len + a->length * (dl_type_fixed_width(a->type) + (a->offsets ? 4 : 0) + 1);
	for (int i = 0; i < a->nchildren; i++) n += array_bytes(a->children[i]);
	return n;
}

static int queue_rows(pq_writer *w, dl_batch *b, bool owned, bool *queued_last, int *pushed)
{
	int64_t bytes = 0;
	for (int i = 0; i < b->ncols; i++) bytes += array_bytes(b->cols[i]);
	/* Rows per slice: at most 64Ki, and about 1/8 of a row group, so wide
	 * rows (long strings, big lists) cannot overshoot the row group size
	 * much. */
	int64_t per_row = b->num_rows ? bytes / b->num_rows + 1 : 1;
	int64_t slice = w->opt.row_group_bytes / 8 / per_row;
	slice = slice < 1 ? 1 : slice > 65536 ? 65536 : slice;
	int64_t start = 0;
	while (start < b->num_rows) {
		bool cut;
		DL_TRY(cut_due(w, &cut));
		int64_t left = cut ? 0 : w->rg_rows, n = b->num_rows - start;
		if (n > slice) n = slice;
		if (w->opt.row_group_rows > 0 && n > w->opt.row_group_rows - left) n = w->opt.row_group_rows - left;
		bool last = start + n == b->num_rows;
		DL_TRY(push_slice(w, b, owned, last, start, n, per_row * n, cut));
		if (last) *queued_last = true;
		(*pushed)++;
		start += n;
	}
	return 0;
}

int pq_wpipe_write(pq_writer *w, dl_batch *b, bool owned)
{
	pthread_mutex_lock(&w->g->mu);
	bool queued_last = false;
	int pushed = 0;
	int rc = b->num_rows > 0 ? queue_rows(w, b, owned, &queued_last, &pushed) : 0;
	/* a failure part way: the slices queued may still be read by a helper,
	 * so the last of them frees the batch */
	if (owned && !queued_last && pushed > 0) {
		slot(w, w->nseq - 1)->last_of_batch = true;
		queued_last = true;
	}
	if (rc == 0 && !owned) {
		/* the caller keeps b: every column must be done with it, and the
		 * row groups ended meanwhile go to the file (its size after a
		 * write is then the same whatever the thread count) */
		rc = wait_until(w, written_through, w->nseq);
		if (rc == 0) rc = wait_until(w, all_emitted, 0);
	} else if (rc == 0) {
		emit_ready(w);
		if (w->err) rc = dl_error_set(w->err, "%s", w->errmsg);
	}
	pthread_mutex_unlock(&w->g->mu);
	if (owned && !queued_last) dl_batch_free(b);
	return rc;
}

int pq_wpipe_drain(pq_writer *w)
{
	pthread_mutex_lock(&w->g->mu);
	int rc = 0;
	if (w->rg_rows > 0) rc = push_slice(w, NULL, false, false, 0, 0, 0, true);
	if (rc == 0) rc = wait_until(w, written_through, w->nseq);
	if (rc == 0) rc = wait_until(w, all_emitted, 0);
	pthread_mutex_unlock(&w->g->mu);
	return rc;
}

/* The same slice as the cut decisions look at (all of them while the file
 * has no more than LAG + 1), so the estimate needs no slice in flight but
 * the last few, and every value in it is fixed by the rows alone. */
int pq_wpipe_estimate(pq_writer *w, int64_t *bytes)
{
	pthread_mutex_lock(&w->g->mu);
	int rc = 0;
	*bytes = 4; /* the magic */
	int64_t j = w->nseq - 1 - LAG;
	if (j < 0) j = w->nseq - 1;
	if (j >= 0) rc = wait_until(w, complete_through, j + 1);
	if (j >= 0 && rc == 0) {
		const pq_wslice *s = slot(w, j);
		/* every column's pages, as stored, and what is not compressed yet
		 * shrunk as its pages so far did */
		int64_t through = *bytes;
		for (int i = 0; i < w->ws.nleaves; i++) {
			const pq_wrec *r = &w->wc[i].rec[j % PQ_WSLICES];
			const pq_wsum *sm = &w->wc[i].sum[r->pages];
			double ratio = sm->body > 0 ? (double)sm->comp / (double)sm->body : 1.0;
			through += sm->stored + (int64_t)((double)r->unpaged * ratio);
		}
		*bytes = s->rows_through > 0 ? (int64_t)((double)through * (double)w->rows_in / (double)s->rows_through)
		                             : through;
	}
	pthread_mutex_unlock(&w->g->mu);
	return rc;
}

int pq_wpipe_start(pq_writer *w)
{
	if (w->opt.group) {
		w->g = w->opt.group;
	} else {
		DL_TRY(pq_writer_group_new(&w->g, w->opt.threads));
		w->own_group = true;
	}
	w->opt.threads = w->g->threads;
	w->wc = dl_calloc((size_t)w->ws.nleaves, sizeof *w->wc);
	if (!w->wc) return DL_ENOMEM;
	for (int i = 0; i < w->ws.nleaves; i++) {
		w->wc[i].cap_sum = 64;
		w->wc[i].sum = dl_calloc(w->wc[i].cap_sum, sizeof *w->wc[i].sum);
		if (!w->wc[i].sum) return DL_ENOMEM;
	}
	pthread_mutex_lock(&w->g->mu);
	w->gnext = w->g->writers;
	w->g->writers = w;
	w->joined = true;
	pthread_cond_broadcast(&w->g->cv);
	pthread_mutex_unlock(&w->g->mu);
	return 0;
}

void pq_wpipe_stop(pq_writer *w)
{
	if (!w->g) return;
	pq_writer_group *g = w->g;
	pthread_mutex_lock(&g->mu);
	if (w->joined) {
		pq_writer **pp = &g->writers;
		while (*pp != w) pp = &(*pp)->gnext;
		*pp = w->gnext;
		w->joined = false;
	}
	while (w->active > 0) pthread_cond_wait(&g->cv, &g->mu);
	g->npending -= w->nqueued; /* pages left behind by a failure */
	w->qhead = w->qtail = NULL;
	w->nqueued = 0;
	pthread_mutex_unlock(&g->mu);
	for (int64_t q = w->retired; q < w->nseq; q++) {
		pq_wslice *s = slot(w, q);
		if (s->owned && s->last_of_batch) dl_batch_free(s->b);
	}
	/* queued pages belong to their chunks: freed with them */
	for (int i = 0; w->wc && i < w->ws.nleaves; i++) {
		for (int k = 0; k < PQ_WSEALED; k++) pq_sealed_chunk_free(&w->wc[i].sealed[k]);
		dl_free(w->wc[i].sum);
	}
	dl_free(w->wc);
	w->wc = NULL;
	dl_free(w->cut_rows);
	if (w->own_group) pq_writer_group_free(g);
	w->g = NULL;
}

size_t pq_wpipe_memory(pq_writer *w)
{
	if (!w->g) return 0;
	pthread_mutex_lock(&w->g->mu);
	size_t n = (size_t)w->page_mem;
	for (int k = 0; w->own_group && k < w->g->nspare; k++) n += w->g->spare[k].cap;
	for (int k = 0; w->own_group && k < w->g->threads; k++)
		n += w->g->scr[k].body.cap + w->g->scr[k].comp.cap + w->g->scr[k].head.cap;
	for (int i = 0; w->wc && i < w->ws.nleaves; i++) n += w->wc[i].cap_sum * sizeof *w->wc[i].sum;
	pthread_mutex_unlock(&w->g->mu);
	return n;
}
