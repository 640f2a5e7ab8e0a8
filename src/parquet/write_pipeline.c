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
 * Row groups end by size: the cut before slice t is decided from the
 * columns' buffered bytes after slice t-1-LAG, scaled to the rows queued
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
	if (w->err || w->nfree_scr == 0) return -1;
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
	pq_colw_scratch *scr = w->free_scr[--w->nfree_scr];
	wc->busy = true;
	pthread_mutex_unlock(&w->mu);
	int rc = 0;
	if (sealed) rc = pq_colw_seal(c, scr, sealed);
	if (rc == 0 && s->n > 0) rc = pq_colw_write(c, scr, s->b->cols[c->leaf->top], s->start, s->n);
	int64_t buffered = pq_colw_buffered(c), encoded = pq_colw_encoded(c);
	pthread_mutex_lock(&w->mu);
	record_error(w, rc);
	w->free_scr[w->nfree_scr++] = scr;
	if (sealed) {
		w->cut_bytes[wc->nsealed] += (int64_t)(sealed->dict_page.len + sealed->pages.len);
		wc->nsealed++;
	}
	s->buffered += buffered;
	s->encoded += encoded;
	s->pending--;
	wc->next++;
	wc->busy = false;
	pthread_cond_broadcast(&w->cv);
}

static int helper(void *arg)
{
	pq_writer *w = arg;
	pthread_mutex_lock(&w->mu);
	while (!w->stop) {
		int i = pick_column(w);
		if (i >= 0) run_column(w, i);
		else pthread_cond_wait(&w->cv, &w->mu);
	}
	pthread_mutex_unlock(&w->mu);
	return 0;
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
		if (wc->nsealed <= (int64_t)w->nrgs) break;
		pq_sealed_chunk *s = &wc->sealed[w->nrgs % PQ_WSEALED];
		pthread_mutex_unlock(&w->mu);
		int rc = emit_chunk(w, i, s);
		pthread_mutex_lock(&w->mu);
		record_error(w, rc);
		if (rc < 0) break;
		n++;
		if (++w->emit_col == w->ws.nleaves) {
			w->emit_col = 0;
			w->nrgs++;
			pthread_cond_broadcast(&w->cv); /* room for sealed chunks */
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
		int i = pick_column(w);
		if (i >= 0) run_column(w, i);
		else if (!w->err) pthread_cond_wait(&w->cv, &w->mu);
	}
	return dl_error_set(w->err, "%s", w->errmsg);
}

static bool written_through(const pq_writer *w, int64_t seq)
{
	return min_next(w) >= seq;
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
		int64_t *by = dl_reallocarray(w->cut_bytes, cap, sizeof *by);
		if (!by) return DL_ENOMEM;
		w->cut_bytes = by;
		w->cap_cut = cap;
	}
	w->cut_bytes[w->ncut] = 0;
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
	DL_TRY(wait_until(w, written_through, j + 1));
	const pq_wslice *s = slot(w, j);
	if (s->rg_rows <= 0) return 0;
	double est = (double)s->buffered * (double)w->rg_rows / (double)s->rg_rows;
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
	s->buffered = 0;
	s->encoded = 0;
	s->rg = w->ncut;
	w->rg_rows += n;
	w->rows_in += n;
	s->rg_rows = w->rg_rows;
	s->rows_through = w->rows_in;
	w->inflight_bytes += bytes;
	w->nseq++;
	pthread_cond_broadcast(&w->cv);
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
	pthread_mutex_lock(&w->mu);
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
	pthread_mutex_unlock(&w->mu);
	if (owned && !queued_last) dl_batch_free(b);
	return rc;
}

int pq_wpipe_drain(pq_writer *w)
{
	pthread_mutex_lock(&w->mu);
	int rc = 0;
	if (w->rg_rows > 0) rc = push_slice(w, NULL, false, false, 0, 0, 0, true);
	if (rc == 0) rc = wait_until(w, written_through, w->nseq);
	if (rc == 0) rc = wait_until(w, all_emitted, 0);
	pthread_mutex_unlock(&w->mu);
	return rc;
}

/* The same slice as the cut decisions look at (all of them while the file
 * has no more than LAG + 1), so the estimate needs no slice in flight but
 * the last few, and every value in it is fixed by the rows alone. */
int pq_wpipe_estimate(pq_writer *w, int64_t *bytes)
{
	pthread_mutex_lock(&w->mu);
	int rc = 0;
	*bytes = 4; /* the magic */
	int64_t j = w->nseq - 1 - LAG;
	if (j < 0) j = w->nseq - 1;
	if (j >= 0) rc = wait_until(w, written_through, j + 1);
	if (j >= 0 && rc == 0) {
		const pq_wslice *s = slot(w, j);
		int64_t through = *bytes + s->encoded;
		for (uint32_t g = 0; g < s->rg; g++) through += w->cut_bytes[g];
		*bytes = s->rows_through > 0 ? (int64_t)((double)through * (double)w->rows_in / (double)s->rows_through)
		                             : through;
	}
	pthread_mutex_unlock(&w->mu);
	return rc;
}

int pq_wpipe_start(pq_writer *w)
{
	pthread_mutex_init(&w->mu, NULL);
	pthread_cond_init(&w->cv, NULL);
	dl_waitgroup_init(&w->helpers);
	w->helpers_on = true;
	w->wc = dl_calloc((size_t)w->ws.nleaves, sizeof *w->wc);
	if (!w->wc) return DL_ENOMEM;
	/* The caller works too: threads - 1 helpers, and only when there is
	 * more than one column to share. */
	if (w->opt.threads <= 1 || w->ws.nleaves <= 1) return 0;
	DL_TRY(dl_pool_create(&w->pool, w->opt.threads - 1));
	for (int i = 0; i < w->opt.threads - 1; i++) DL_TRY(dl_pool_submit(w->pool, &w->helpers, helper, w));
	return 0;
}

void pq_wpipe_stop(pq_writer *w)
{
	if (!w->helpers_on) return;
	pthread_mutex_lock(&w->mu);
	w->stop = true;
	pthread_cond_broadcast(&w->cv);
	pthread_mutex_unlock(&w->mu);
	(void)dl_waitgroup_wait(&w->helpers);
	dl_waitgroup_destroy(&w->helpers);
	if (w->pool) dl_pool_free(w->pool);
	w->pool = NULL;
	for (int64_t q = w->retired; q < w->nseq; q++) {
		pq_wslice *s = slot(w, q);
		if (s->owned && s->last_of_batch) dl_batch_free(s->b);
	}
	for (int i = 0; w->wc && i < w->ws.nleaves; i++)
		for (int k = 0; k < PQ_WSEALED; k++) pq_sealed_chunk_free(&w->wc[i].sealed[k]);
	dl_free(w->wc);
	w->wc = NULL;
	dl_free(w->cut_rows);
	dl_free(w->cut_bytes);
	pthread_mutex_destroy(&w->mu);
	pthread_cond_destroy(&w->cv);
	w->helpers_on = false;
}

size_t pq_wpipe_memory(const pq_writer *w)
{
	size_t n = 0;
	for (int i = 0; w->wc && i < w->ws.nleaves; i++)
		for (int k = 0; k < PQ_WSEALED; k++) n += w->wc[i].sealed[k].pages.cap + w->wc[i].sealed[k].dict_page.cap;
	return n;
}
