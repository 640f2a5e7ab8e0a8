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
} sort_op;

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
	int rc = dl_exec_mem_charge(s->ctx.mem, bytes, "sort");
	if (rc < 0) {
		dl_batch_free(all);
		return rc;
	}
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
	int64_t bytes = dl_exec_batch_bytes(b);
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
		DL_TRY(buffer(s, b));
		if (keep >= 0 && s->buf_rows > 2 * keep + 1024) {
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
			DL_TRY(buffer(s, top));
		}
	}
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
