/* Sort and top-N (exec.h). The input is buffered (charged to the budget),
 * concatenated and ordered through an index permutation: qsort with the
 * row index as the last key, which makes it stable. With a LIMIT only
 * offset+limit rows can ever be output, so whenever the buffer grows past
 * twice that the rows are sorted and cut back to it: memory stays
 * O(offset+limit) and ties still resolve by input order, because the kept
 * rows precede every later row in the buffer.
 *
 * Big buffers sort in parallel on the shared pool: runs of PAR_RUN rows are
 * sorted by separate tasks, then merged pairwise, each pass's merges in
 * parallel too. The comparator is a total order (the row index breaks
 * ties), so the result is the same for any number of threads.
 *
 * Order: ex_val_cmp's (Spark's: NaN above all numbers, -0.0 = 0.0, strings
 * by bytes). NULLs: Spark's default is NULLS FIRST for ASC and NULLS LAST
 * for DESC. */
#include <stdlib.h>
#include <string.h>
#include "exec/op.h"
#include "exec/spill.h"
#include "expr/eval.h"
#include "util/pool.h"

typedef struct sort_op {
	dl_batch_stream *in;
	dl_exec_ctx ctx;
	dl_expr **exprs;
	bool *desc, *nulls_first;
	int nkeys;
	int64_t limit, offset;
	dl_batch **buf;
	int nbuf, capbuf;
	int64_t buf_rows, charged;
	dl_batch *sorted;   /* the result, sliced into output batches */
	int64_t pos, end;
	bool done;
	/* top-N: the keys of the last row kept so far (once offset+limit rows
	 * are kept): a later row must sort strictly before it to matter */
	dl_array **thr;
	int64_t thr_row;
	/* external sort (the section "Spilling" below) */
	dl_spill_file **runs;
	int nruns, capruns;
	int64_t run_rows;    /* rows per batch written to a run */
	struct mrun *m;      /* the final merge: one cursor per run */
	int nm;
	int64_t skipped;     /* OFFSET rows dropped by the merge so far */
	bool merging;
} sort_op;

static bool can_spill(const sort_op *s);
static bool fits(const sort_op *s, int64_t bytes);
static int push_uncharged(sort_op *s, dl_batch *b);
static int buffer_or_spill(sort_op *s, dl_batch *b);
static int spill_finish(sort_op *s);
static int merge_next(sort_op *s, dl_batch **out);
static void spill_free(sort_op *s);

typedef struct cmp_ctx {
	dl_array **k;
	const sort_op *s;
} cmp_ctx;

/* Row i of keys ka against row j of keys kb, by the sort keys only. */
static int cmp_keys(const sort_op *s, dl_array *const *ka, int64_t i, dl_array *const *kb, int64_t j)
{
	for (int k = 0; k < s->nkeys; k++) {
		const dl_array *x = ka[k], *y = kb[k];
		/* the common integer keys without NULLs, without ex_val */
		if (!x->validity && !y->validity) {
			int64_t p, q;
			switch (x->type->id) {
			case DL_TYPE_INTEGER:
			case DL_TYPE_DATE:
				p = ((const int32_t *)x->values)[i];
				q = ((const int32_t *)y->values)[j];
				break;
			case DL_TYPE_LONG:
			case DL_TYPE_TIMESTAMP:
			case DL_TYPE_TIMESTAMP_NTZ:
				p = ((const int64_t *)x->values)[i];
				q = ((const int64_t *)y->values)[j];
				break;
			default: goto general;
			}
			if (p != q) return (p < q) != s->desc[k] ? -1 : 1;
			continue;
		}
	general:;
		ex_val a, b;
		ex_val_load(&a, ka[k], i);
		ex_val_load(&b, kb[k], j);
		if (a.null || b.null) {
			if (a.null && b.null) continue;
			return (a.null == s->nulls_first[k]) ? -1 : 1;
		}
		int r = ex_val_cmp(&a, &b, ka[k]->type);
		if (r) return s->desc[k] ? -r : r;
	}
	return 0;
}

static int cmp_rows(const void *pa, const void *pb, void *arg)
{
	const cmp_ctx *c = arg;
	uint32_t i = *(const uint32_t *)pa, j = *(const uint32_t *)pb;
	int r = cmp_keys(c->s, c->k, i, c->k, j);
	if (r) return r;
	return i < j ? -1 : i > j;
}

#define PAR_RUN 65536

typedef struct psort {
	uint32_t *idx, *tmp;
	int64_t n, width;
	cmp_ctx *c;
} psort;

static int sort_runs(void *ctx, size_t b, size_t e)
{
	psort *p = ctx;
	for (size_t k = b; k < e; k++) {
		int64_t lo = (int64_t)k * PAR_RUN, hi = lo + PAR_RUN < p->n ? lo + PAR_RUN : p->n;
		qsort_r(p->idx + lo, (size_t)(hi - lo), sizeof *p->idx, cmp_rows, p->c);
	}
	return 0;
}

/* Merges pairs of sorted runs of p->width rows from idx into tmp; ties
 * cannot happen (indexes differ), so the merge is stable by construction. */
static int merge_pairs(void *ctx, size_t b, size_t e)
{
	psort *p = ctx;
	for (size_t k = b; k < e; k++) {
		int64_t lo = (int64_t)k * 2 * p->width;
		int64_t mid = lo + p->width < p->n ? lo + p->width : p->n;
		int64_t hi = lo + 2 * p->width < p->n ? lo + 2 * p->width : p->n;
		int64_t i = lo, j = mid, o = lo;
		while (i < mid && j < hi) p->tmp[o++] = cmp_rows(&p->idx[i], &p->idx[j], p->c) <= 0 ? p->idx[i++] : p->idx[j++];
		while (i < mid) p->tmp[o++] = p->idx[i++];
		while (j < hi) p->tmp[o++] = p->idx[j++];
	}
	return 0;
}

/* Sorts idx[0..n) by cmp_rows, in parallel when it pays. */
static int sort_index(uint32_t *idx, int64_t n, cmp_ctx *c)
{
	dl_pool *pool = NULL;
	if (n <= 2 * PAR_RUN || dl_pool_shared(&pool) < 0 || dl_pool_size(pool) < 2) {
		qsort_r(idx, (size_t)n, sizeof *idx, cmp_rows, c);
		return 0;
	}
	psort p = {idx, dl_malloc((size_t)n * sizeof *idx), n, PAR_RUN, c};
	if (!p.tmp) return dl_error_set(DL_ENOMEM, "out of memory sorting %lld rows", (long long)n);
	size_t runs = (size_t)((n + PAR_RUN - 1) / PAR_RUN);
	int rc = dl_parallel_for(pool, runs, 1, sort_runs, &p);
	for (; rc == 0 && p.width < n; p.width *= 2) {
		size_t pairs = (size_t)((n + 2 * p.width - 1) / (2 * p.width));
		rc = dl_parallel_for(pool, pairs, 1, merge_pairs, &p);
		uint32_t *t = p.idx;
		p.idx = p.tmp;
		p.tmp = t;
	}
	/* the sorted order ends in p.idx: copy it home if that is the scratch */
	if (rc == 0 && p.idx != idx) memcpy(idx, p.idx, (size_t)n * sizeof *idx);
	dl_free(p.idx == idx ? p.tmp : p.idx);
	return rc;
}

static const dl_type *s_schema(dl_batch_stream *st)
{
	sort_op *s = st->private_data;
	return dl_batch_stream_schema(s->in);
}

static void drop_buffer(sort_op *s)
{
	for (int i = 0; i < s->nbuf; i++) dl_batch_free(s->buf[i]);
	s->nbuf = 0;
	s->buf_rows = 0;
	dl_exec_mem_release(s->ctx.mem, s->charged);
	s->charged = 0;
}

/* Sorts the buffer into one batch of at most `keep` rows (< 0: all). */
static int sort_buffer(sort_op *s, int64_t keep, dl_batch **out)
{
	*out = NULL;
	dl_batch *all = s->nbuf == 1 ? s->buf[0] : dl_batch_concat(s->buf, s->nbuf);
	if (!all) return dl_exec_failed();
	if (s->nbuf == 1) s->nbuf = 0; /* moved into all */
	int64_t bytes = s->charged;
	drop_buffer(s);
	/* the same rows, moved into `all`: charged again as they were */
	dl_exec_mem_force(s->ctx.mem, bytes);
	int rc = 0;
	int64_t n = all->num_rows;
	dl_array **keys = dl_calloc((size_t)s->nkeys, sizeof *keys);
	uint32_t *idx = dl_malloc((size_t)(n ? n : 1) * sizeof *idx);
	if (!keys || !idx) rc = dl_error_set(DL_ENOMEM, "out of memory sorting %lld rows", (long long)n);
	if (rc == 0) rc = dl_exec_eval_all(keys, s->exprs, s->nkeys, all, &s->ctx);
	if (rc == 0) {
		for (int64_t i = 0; i < n; i++) idx[i] = (uint32_t)i;
		cmp_ctx c = {keys, s};
		rc = sort_index(idx, n, &c);
		if (rc == 0 && keep >= 0 && keep < n) n = keep;
		if (rc == 0 && !(*out = dl_batch_take(all, idx, n))) rc = dl_exec_failed();
	}
	for (int k = 0; keys && k < s->nkeys; k++) dl_array_free(keys[k]);
	dl_free(keys);
	dl_free(idx);
	dl_batch_free(all);
	dl_exec_mem_release(s->ctx.mem, bytes);
	return rc < 0 ? dl_error_prefix("sort") : 0;
}

static void drop_threshold(sort_op *s)
{
	for (int k = 0; s->thr && k < s->nkeys; k++) dl_array_free(s->thr[k]);
	dl_free(s->thr);
	s->thr = NULL;
}

/* The rows of b that sort strictly before the threshold (ties lose: they
 * come later in the input); *b is replaced, or freed and NULL when none. */
static int cut_by_threshold(sort_op *s, dl_batch **b)
{
	dl_array **k = dl_calloc((size_t)s->nkeys, sizeof *k);
	uint32_t *sel = dl_malloc((size_t)(*b)->num_rows * sizeof *sel);
	int rc = k && sel ? dl_exec_eval_all(k, s->exprs, s->nkeys, *b, &s->ctx) : dl_error_set(DL_ENOMEM, "out of memory");
	int64_t n = 0;
	for (int64_t i = 0; rc == 0 && i < (*b)->num_rows; i++)
		if (cmp_keys(s, k, i, s->thr, s->thr_row) < 0) sel[n++] = (uint32_t)i;
	if (rc == 0 && n < (*b)->num_rows) {
		dl_batch *t = n ? dl_batch_take(*b, sel, n) : NULL;
		if (n && !t) rc = dl_exec_failed();
		else {
			dl_batch_free(*b);
			*b = t;
		}
	}
	for (int j = 0; k && j < s->nkeys; j++) dl_array_free(k[j]);
	dl_free(k);
	dl_free(sel);
	return rc < 0 ? dl_error_prefix("sort") : 0;
}

static int buffer(sort_op *s, dl_batch *b)
{
	int64_t bytes = dl_batch_bytes(b);
	int rc = dl_exec_mem_charge(s->ctx.mem, bytes, "sort");
	if (rc == 0 && s->nbuf == s->capbuf) {
		int nc = s->capbuf ? s->capbuf * 2 : 16;
		dl_batch **nb = dl_reallocarray(s->buf, (size_t)nc, sizeof *nb);
		if (!nb) {
			dl_exec_mem_release(s->ctx.mem, bytes);
			rc = dl_error_set(DL_ENOMEM, "out of memory");
		} else {
			s->buf = nb;
			s->capbuf = nc;
		}
	}
	if (rc < 0) {
		dl_batch_free(b);
		return rc;
	}
	s->buf[s->nbuf++] = b;
	s->buf_rows += b->num_rows;
	s->charged += bytes;
	return 0;
}

static int s_next(dl_batch_stream *st, dl_batch **out)
{
	sort_op *s = st->private_data;
	*out = NULL;
	int64_t keep = s->limit < 0 ? -1 : s->offset + s->limit;
	while (!s->done) {
		dl_batch *b;
		DL_TRY(dl_exec_check_interrupt(&s->ctx, "sort"));
		DL_TRY(dl_batch_stream_next(s->in, &b));
		if (!b) {
			s->done = true;
			break;
		}
		if (b->num_rows == 0) {
			dl_batch_free(b);
			continue;
		}
		if (keep == 0) {
			dl_batch_free(b);
			continue;
		}
		if (s->thr) {
			DL_TRY(cut_by_threshold(s, &b));
			if (!b) continue;
		}
		bool cut = false;
		if (keep < 0 && can_spill(s)) {
			DL_TRY(buffer_or_spill(s, b));
		} else if (keep >= 0 && can_spill(s) && !fits(s, dl_batch_bytes(b))) {
			/* top-N under the limit: hold this batch anyway and cut back now */
			DL_TRY(push_uncharged(s, b));
			cut = true;
		} else {
			DL_TRY(buffer(s, b));
		}
		if (keep >= 0 && (cut || s->buf_rows > 2 * keep + 1024)) {
			/* top-N: cut back to the rows that can still be output */
			dl_batch *top;
			DL_TRY(sort_buffer(s, keep, &top));
			drop_threshold(s);
			if (top->num_rows == keep) {
				s->thr = dl_calloc((size_t)s->nkeys, sizeof *s->thr);
				int rc = s->thr ? dl_exec_eval_all(s->thr, s->exprs, s->nkeys, top, &s->ctx)
				                : dl_error_set(DL_ENOMEM, "out of memory");
				if (rc < 0) {
					dl_free(s->thr);
					s->thr = NULL;
					dl_batch_free(top);
					return rc;
				}
				s->thr_row = keep - 1;
			}
			DL_TRY(can_spill(s) ? push_uncharged(s, top) : buffer(s, top));
		}
	}
	if (s->nruns > 0 && !s->merging) DL_TRY(spill_finish(s));
	if (s->merging) return merge_next(s, out);
	if (!s->sorted) {
		if (s->nbuf == 0) return 0;
		DL_TRY(sort_buffer(s, keep, &s->sorted));
		s->pos = s->offset < s->sorted->num_rows ? s->offset : s->sorted->num_rows;
		s->end = s->sorted->num_rows;
	}
	if (s->pos >= s->end) return 0;
	int64_t n = s->end - s->pos, max = dl_exec_batch_rows(&s->ctx);
	if (n > max) n = max;
	*out = dl_batch_slice(s->sorted, s->pos, n);
	if (!*out) return dl_exec_failed();
	s->pos += n;
	return 0;
}

static void s_free(sort_op *s)
{
	dl_batch_stream_free(s->in);
	drop_buffer(s);
	spill_free(s);
	dl_free(s->buf);
	dl_batch_free(s->sorted);
	drop_threshold(s);
	for (int k = 0; k < s->nkeys; k++) dl_expr_free(s->exprs[k]);
	dl_free(s->exprs);
	dl_free(s->desc);
	dl_free(s->nulls_first);
	dl_free(s);
}

static void s_release(dl_batch_stream *st)
{
	s_free(st->private_data);
	dl_free(st);
}

int dl_exec_sort(dl_batch_stream **out, dl_batch_stream *in, const dl_exec_sort_key *keys, int nkeys,
                 int64_t limit, int64_t offset, const dl_exec_ctx *ctx)
{
	*out = NULL;
	sort_op *s = dl_calloc(1, sizeof *s);
	size_t nk = (size_t)(nkeys ? nkeys : 1);
	if (s) {
		s->exprs = dl_calloc(nk, sizeof *s->exprs);
		s->desc = dl_calloc(nk, sizeof *s->desc);
		s->nulls_first = dl_calloc(nk, sizeof *s->nulls_first);
	}
	if (!s || !s->exprs || !s->desc || !s->nulls_first) {
		if (s) {
			dl_free(s->exprs);
			dl_free(s->desc);
			dl_free(s->nulls_first);
		}
		dl_free(s);
		dl_batch_stream_free(in);
		for (int k = 0; k < nkeys; k++) dl_expr_free(keys[k].expr);
		return dl_error_set(DL_ENOMEM, "out of memory");
	}
	s->in = in;
	if (ctx) s->ctx = *ctx;
	s->nkeys = nkeys;
	s->limit = limit;
	s->offset = offset;
	int rc = offset < 0 ? dl_error_set(DL_EINVALID, "OFFSET must not be negative (got %lld)", (long long)offset) : 0;
	for (int k = 0; k < nkeys; k++) {
		s->exprs[k] = keys[k].expr;
		s->desc[k] = keys[k].descending;
		s->nulls_first[k] = keys[k].nulls == DL_NULLS_FIRST || (keys[k].nulls == DL_NULLS_DEFAULT && !keys[k].descending);
	}
	for (int k = 0; k < nkeys && rc == 0; k++) {
		rc = dl_exec_bind(s->exprs[k], dl_batch_stream_schema(in), ctx, "sort");
		if (rc == 0 && (dl_expr_type(s->exprs[k])->id == DL_TYPE_MAP || dl_expr_type(s->exprs[k])->id == DL_TYPE_VARIANT))
			rc = dl_error_set(DL_EINVALID, "sort: key %d has a type that cannot be ordered (map or variant)", k + 1);
	}
	if (rc == 0 && !(*out = dl_exec_stream_new(s, s_schema, s_next, s_release))) rc = dl_exec_failed();
	if (rc < 0) s_free(s);
	return rc;
}

/* ---- Spilling: external merge sort --------------------------------------
 *
 * Without a LIMIT (top-N keeps only offset+limit rows and needs no disk),
 * a batch that would pass the memory limit first sends the buffer to disk
 * as a sorted run: sorted as above, written in batches of run_rows rows.
 * At the end the last buffer becomes a run too, and the runs are merged:
 * while there are more than MERGE_FANIN, consecutive groups of them merge
 * into longer runs, then the last merge streams out. The merge takes the
 * smallest head among the runs, ties going to the earlier run: runs hold
 * consecutive stretches of the input, in order, and each run is stable, so
 * the whole sort stays stable. The merge holds one batch per run, sized so
 * that MERGE_FANIN of them take about half the limit. */

#define MERGE_FANIN 16

typedef struct mrun {
	dl_spill_file *f;    /* NULL once drained */
	dl_batch *b;         /* the current batch, NULL at the end */
	dl_array **k;        /* its sort keys */
	int64_t pos, charged;
} mrun;

static bool can_spill(const sort_op *s)
{
	return s->ctx.mem && s->ctx.mem->limit > 0;
}

static bool fits(const sort_op *s, int64_t bytes)
{
	return atomic_load(&s->ctx.mem->used) + bytes <= s->ctx.mem->limit;
}

static int add_run(sort_op *s, dl_spill_file *f)
{
	if (s->nruns == s->capruns) {
		int nc = s->capruns ? s->capruns * 2 : 16;
		dl_spill_file **r = dl_reallocarray(s->runs, (size_t)nc, sizeof *r);
		if (!r) {
			dl_spill_free(f);
			return dl_error_set(DL_ENOMEM, "out of memory");
		}
		s->runs = r;
		s->capruns = nc;
	}
	s->runs[s->nruns++] = f;
	return 0;
}

/* Sorts the buffer and writes it as a run. */
static int spill_run(sort_op *s)
{
	if (s->nbuf == 0) return 0;
	dl_batch *sorted;
	DL_TRY(sort_buffer(s, -1, &sorted));
	int64_t n = sorted->num_rows;
	if (s->run_rows == 0) {
		/* MERGE_FANIN batches of a run in half the limit */
		int64_t per_row = n ? dl_batch_bytes(sorted) / n + 1 : 1;
		int64_t r = s->ctx.mem->limit / 2 / MERGE_FANIN / per_row;
		int64_t max = dl_exec_batch_rows(&s->ctx);
		s->run_rows = r < 16 ? 16 : r > max ? max : r;
	}
	dl_spill_file *f;
	int rc = dl_spill_open(&f, &s->ctx, sorted->schema, "sort");
	for (int64_t at = 0; rc == 0 && at < n; at += s->run_rows) {
		int64_t m = n - at < s->run_rows ? n - at : s->run_rows;
		dl_batch *piece = dl_batch_slice(sorted, at, m);
		rc = piece ? dl_spill_write(f, piece) : dl_exec_failed();
		dl_batch_free(piece);
	}
	dl_batch_free(sorted);
	if (rc == 0) return add_run(s, f);
	if (f) dl_spill_free(f);
	return rc;
}

static int push_uncharged(sort_op *s, dl_batch *b)
{
	if (s->nbuf == s->capbuf) {
		int nc = s->capbuf ? s->capbuf * 2 : 16;
		dl_batch **nb = dl_reallocarray(s->buf, (size_t)nc, sizeof *nb);
		if (!nb) {
			dl_batch_free(b);
			return dl_error_set(DL_ENOMEM, "out of memory");
		}
		s->buf = nb;
		s->capbuf = nc;
	}
	int64_t bytes = dl_batch_bytes(b);
	dl_exec_mem_force(s->ctx.mem, bytes);
	s->charged += bytes;
	s->buf[s->nbuf++] = b;
	s->buf_rows += b->num_rows;
	return 0;
}

/* Sorting the buffer copies it (concatenated, then permuted): a run is
 * cut when the buffer and that copy would no longer fit together. */
static int buffer_or_spill(sort_op *s, dl_batch *b)
{
	int64_t bytes = dl_batch_bytes(b);
	if (fits(s, 2 * bytes + s->charged)) return buffer(s, b);
	int rc = spill_run(s);
	if (rc < 0) {
		dl_batch_free(b);
		return rc;
	}
	if (fits(s, 2 * bytes)) return buffer(s, b);
	/* one batch alone is over the limit: it is a run of its own */
	DL_TRY(push_uncharged(s, b));
	return spill_run(s);
}

static void drop_cursor(sort_op *s, mrun *r)
{
	for (int k = 0; r->k && k < s->nkeys; k++) dl_array_free(r->k[k]);
	dl_free(r->k);
	r->k = NULL;
	dl_batch_free(r->b);
	r->b = NULL;
	dl_exec_mem_release(s->ctx.mem, r->charged);
	r->charged = 0;
}

/* Loads the run's next batch (and its keys); b is NULL at the end. */
static int advance_batch(sort_op *s, mrun *r)
{
	drop_cursor(s, r);
	r->pos = 0;
	if (!r->f) return 0;
	DL_TRY(dl_exec_check_interrupt(&s->ctx, "sort"));
	DL_TRY(dl_spill_read(r->f, &r->b));
	if (!r->b) {
		dl_spill_free(r->f);
		r->f = NULL;
		return 0;
	}
	r->charged = dl_batch_bytes(r->b);
	dl_exec_mem_force(s->ctx.mem, r->charged);
	r->k = dl_calloc((size_t)(s->nkeys ? s->nkeys : 1), sizeof *r->k);
	if (!r->k) return dl_error_set(DL_ENOMEM, "out of memory");
	return dl_exec_eval_all(r->k, s->exprs, s->nkeys, r->b, &s->ctx);
}

static void free_cursors(sort_op *s, mrun *m, int n)
{
	for (int i = 0; m && i < n; i++) {
		drop_cursor(s, &m[i]);
		dl_spill_free(m[i].f);
	}
	dl_free(m);
}

/* Cursors over runs [0, n) (taken from `files`). */
static int open_cursors(sort_op *s, dl_spill_file **files, int n, mrun **out)
{
	mrun *m = dl_calloc((size_t)n, sizeof *m);
	if (!m) {
		for (int i = 0; i < n; i++) dl_spill_free(files[i]);
		return dl_error_set(DL_ENOMEM, "out of memory");
	}
	int rc = 0;
	for (int i = 0; i < n; i++) {
		m[i].f = files[i];
		if (rc == 0 && (rc = dl_spill_rewind(m[i].f)) == 0) rc = advance_batch(s, &m[i]);
	}
	if (rc < 0) {
		free_cursors(s, m, n);
		return rc;
	}
	*out = m;
	return 0;
}

/* Up to `max` rows of the merge of cursors m[0..n) into *out (NULL when
 * all are drained); the first `skip` rows are dropped. */
static int merge_batch(sort_op *s, mrun *m, int n, int64_t max, int64_t *skip, dl_batch **out)
{
	*out = NULL;
	const dl_type *schema = dl_batch_stream_schema(s->in);
	int nc = schema->nchildren, rc = 0;
	/* segments: runs of consecutive rows from one batch */
	typedef struct seg {
		dl_batch *b;
		int64_t start, len;
	} seg;
	seg *sg = NULL;
	int64_t nseg = 0, capseg = 0, rows = 0;
	dl_batch **hold = NULL; /* drained batches the segments still point into */
	int nhold = 0, caphold = 0;
	while (rows < max && rc == 0) {
		int best = -1;
		for (int i = 0; i < n; i++) {
			if (!m[i].b) continue;
			if (best < 0 || cmp_keys(s, m[i].k, m[i].pos, m[best].k, m[best].pos) < 0) best = i;
		}
		if (best < 0) break;
		mrun *r = &m[best];
		if (*skip > 0) {
			(*skip)--;
		} else {
			if (nseg > 0 && sg[nseg - 1].b == r->b && sg[nseg - 1].start + sg[nseg - 1].len == r->pos) {
				sg[nseg - 1].len++;
			} else {
				if (nseg == capseg) {
					int64_t c = capseg ? capseg * 2 : 64;
					seg *t = dl_reallocarray(sg, (size_t)c, sizeof *t);
					if (!t) {
						rc = dl_error_set(DL_ENOMEM, "out of memory");
						break;
					}
					sg = t;
					capseg = c;
				}
				sg[nseg++] = (seg){r->b, r->pos, 1};
			}
			rows++;
		}
		if (++r->pos >= r->b->num_rows) {
			/* keep the drained batch for the segments; the cursor moves on */
			if (nhold == caphold) {
				int c = caphold ? caphold * 2 : 16;
				dl_batch **t = dl_reallocarray(hold, (size_t)c, sizeof *t);
				if (!t) {
					rc = dl_error_set(DL_ENOMEM, "out of memory");
					break;
				}
				hold = t;
				caphold = c;
			}
			hold[nhold++] = r->b;
			r->b = NULL;
			rc = advance_batch(s, r);
		}
	}
	if (rc == 0 && rows > 0) {
		dl_array **cols = dl_calloc((size_t)(nc ? nc : 1), sizeof *cols);
		dl_array **parts = dl_calloc((size_t)(nseg ? nseg : 1), sizeof *parts);
		if (!cols || !parts) rc = dl_error_set(DL_ENOMEM, "out of memory");
		for (int c = 0; rc == 0 && c < nc; c++) {
			int64_t np = 0;
			for (int64_t g = 0; rc == 0 && g < nseg; g++, np++)
				if (!(parts[g] = dl_array_slice(sg[g].b->cols[c], sg[g].start, sg[g].len))) rc = dl_exec_failed();
			if (rc == 0) {
				if (nseg == 1) {
					cols[c] = parts[0];
					parts[0] = NULL;
				} else if (!(cols[c] = dl_array_concat(parts, (int)nseg))) {
					rc = dl_exec_failed();
				}
			}
			for (int64_t g = 0; g < np; g++) {
				dl_array_free(parts[g]);
				parts[g] = NULL;
			}
		}
		if (rc == 0) {
			*out = dl_exec_batch((dl_type *)schema, cols, rows);
			if (!*out) rc = dl_exec_failed();
		} else {
			for (int c = 0; cols && c < nc; c++) dl_array_free(cols[c]);
		}
		dl_free(cols);
		dl_free(parts);
	}
	/* drained batches were charged by their cursors: advance_batch released
	 * the charge when the cursor moved on */
	for (int i = 0; i < nhold; i++) dl_batch_free(hold[i]);
	dl_free(hold);
	dl_free(sg);
	return rc;
}

/* Merges runs in groups of MERGE_FANIN until at most that many are left,
 * then opens the final merge. */
static int spill_finish(sort_op *s)
{
	DL_TRY(spill_run(s));
	while (s->nruns > MERGE_FANIN) {
		int groups = (s->nruns + MERGE_FANIN - 1) / MERGE_FANIN, rc = 0;
		dl_spill_file **next = dl_calloc((size_t)groups, sizeof *next);
		if (!next) return dl_error_set(DL_ENOMEM, "out of memory");
		for (int g = 0; g < groups; g++) {
			int lo = g * MERGE_FANIN, n = s->nruns - lo < MERGE_FANIN ? s->nruns - lo : MERGE_FANIN;
			mrun *m = NULL;
			if (rc == 0) {
				rc = open_cursors(s, s->runs + lo, n, &m);
			} else {
				for (int i = 0; i < n; i++) dl_spill_free(s->runs[lo + i]);
			}
			for (int i = 0; i < n; i++) s->runs[lo + i] = NULL;
			if (rc == 0) rc = dl_spill_open(&next[g], &s->ctx, dl_batch_stream_schema(s->in), "sort");
			int64_t noskip = 0;
			while (rc == 0) {
				dl_batch *b;
				if ((rc = merge_batch(s, m, n, s->run_rows, &noskip, &b)) < 0 || !b) break;
				rc = dl_spill_write(next[g], b);
				dl_batch_free(b);
			}
			free_cursors(s, m, n);
		}
		if (rc < 0) {
			for (int g = 0; g < groups; g++) dl_spill_free(next[g]);
			dl_free(next);
			s->nruns = 0;
			return rc;
		}
		dl_free(s->runs);
		s->runs = next;
		s->nruns = s->capruns = groups;
	}
	int n = s->nruns;
	s->nruns = 0;
	DL_TRY(open_cursors(s, s->runs, n, &s->m));
	s->nm = n;
	s->merging = true;
	return 0;
}

static int merge_next(sort_op *s, dl_batch **out)
{
	int64_t skip = s->offset - s->skipped, before = skip;
	int rc = merge_batch(s, s->m, s->nm, dl_exec_batch_rows(&s->ctx), &skip, out);
	s->skipped += before - skip;
	return rc < 0 ? dl_error_prefix("sort") : 0;
}

static void spill_free(sort_op *s)
{
	for (int i = 0; i < s->nruns; i++) dl_spill_free(s->runs[i]);
	dl_free(s->runs);
	s->runs = NULL;
	s->nruns = 0;
	free_cursors(s, s->m, s->nm);
	s->m = NULL;
	s->nm = 0;
}
