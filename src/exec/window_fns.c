/* The window operator's functions (window.h): ranking (row_number, rank,
 * dense_rank, percent_rank, cume_dist, ntile), offsets (lag, lead) and
 * frame values (first_value, last_value, nth_value), each one column over
 * the sorted rows; aggregates go to window_agg.c. */
#include <string.h>
#include "exec/window.h"
#include "expr/eval.h"

static int put_ints(dl_array **out, const int32_t *v, int64_t n)
{
	dl_type *t = dl_type_new(DL_TYPE_INTEGER);
	*out = t ? dl_array_new(t, n) : NULL;
	dl_type_unref(t);
	if (!*out) return dl_exec_failed();
	if (n) memcpy((*out)->values, v, (size_t)n * sizeof *v);
	return 0;
}

static int ranking(dl_array **out, const win_fn *f, const win_rows *w)
{
	int64_t n = w->n;
	bool dbl = f->kind == DL_WIN_PERCENT_RANK || f->kind == DL_WIN_CUME_DIST;
	void *v = dl_malloc((size_t)(n ? n : 1) * (dbl ? sizeof(double) : sizeof(int32_t)));
	if (!v) return dl_error_set(DL_ENOMEM, "out of memory");
	int32_t *iv = v;
	double *dv = v;
	for (int64_t p = 0; p < w->nparts; p++) {
		int64_t ps = w->part[p], pe = w->part[p + 1], len = pe - ps;
		int64_t dense = 0;
		for (int64_t i = ps; i < pe; i++) {
			int64_t r = i - ps; /* 0-based position */
			if (w->peer_lo[i] == i) dense++;
			switch (f->kind) {
			case DL_WIN_ROW_NUMBER: iv[i] = (int32_t)(r + 1); break;
			case DL_WIN_RANK: iv[i] = (int32_t)(w->peer_lo[i] - ps + 1); break;
			case DL_WIN_DENSE_RANK: iv[i] = (int32_t)dense; break;
			case DL_WIN_PERCENT_RANK:
				dv[i] = len > 1 ? (double)(w->peer_lo[i] - ps) / (double)(len - 1) : 0.0;
				break;
			case DL_WIN_CUME_DIST: dv[i] = (double)(w->peer_hi[i] - ps) / (double)len; break;
			default: { /* ntile: the first len % k buckets hold one row more */
				int64_t k = f->offset, q = len / k, rem = len % k;
				iv[i] = (int32_t)(r < rem * (q + 1) ? r / (q + 1) + 1 : (r - rem * (q + 1)) / q + rem + 1);
			}
			}
		}
	}
	int rc;
	if (dbl) {
		dl_type *t = dl_type_new(DL_TYPE_DOUBLE);
		*out = t ? dl_array_new(t, n) : NULL;
		dl_type_unref(t);
		rc = *out ? 0 : dl_exec_failed();
		if (rc == 0 && n) memcpy((*out)->values, dv, (size_t)n * sizeof *dv);
	} else {
		rc = put_ints(out, iv, n);
	}
	dl_free(v);
	return rc;
}

/* Row sel[i] of src for each row (-1: NULL, -2: row i of dflt). */
static int gather(dl_array **out, const dl_type *t, const dl_array *src, const int64_t *sel, int64_t n,
                  const dl_array *dflt)
{
	dl_builder *bl;
	DL_TRY(dl_builder_new(&bl, (dl_type *)t));
	int rc = dl_builder_reserve(bl, n, 0);
	for (int64_t i = 0; rc == 0 && i < n; i++) {
		if (sel[i] >= 0) rc = dl_builder_append_range(bl, src, sel[i], 1);
		else if (sel[i] == -2 && dflt && dflt->type->id != DL_TYPE_NULL) rc = dl_builder_append_range(bl, dflt, i, 1);
		else rc = dl_builder_append_null(bl);
	}
	if (rc == 0) rc = dl_builder_finish(out, bl);
	dl_builder_free(bl);
	return rc;
}

/* lag, lead, first_value, last_value, nth_value. With IGNORE NULLS rows
 * are counted among the non-null values only: nn[] lists the partition's
 * non-null rows, before[i] how many of them precede row i. */
static int offset_fn(dl_array **out, const win_fn *f, const win_rows *w)
{
	int64_t n = w->n;
	const dl_eval_ctx *ec = w->ctx ? &w->ctx->eval : NULL;
	dl_array *x = NULL, *d = NULL;
	int64_t *sel = dl_malloc((size_t)(n ? n : 1) * sizeof *sel);
	int64_t *nn = dl_malloc((size_t)(n ? n : 1) * sizeof *nn);
	int64_t *before = dl_malloc((size_t)(n + 1) * sizeof *before);
	int64_t *lo = NULL, *hi = NULL;
	int rc = sel && nn && before ? 0 : dl_error_set(DL_ENOMEM, "out of memory");
	bool framed = f->kind == DL_WIN_FIRST_VALUE || f->kind == DL_WIN_LAST_VALUE || f->kind == DL_WIN_NTH_VALUE;
	if (rc == 0 && framed) {
		lo = dl_malloc((size_t)(n ? n : 1) * sizeof *lo);
		hi = dl_malloc((size_t)(n ? n : 1) * sizeof *hi);
		rc = lo && hi ? dl_win_frame_bounds(lo, hi, &f->frame, &f->range, w)
		              : dl_error_set(DL_ENOMEM, "out of memory");
	}
	if (rc == 0) rc = dl_expr_eval(&x, f->arg, w->sorted, ec);
	if (rc == 0 && f->dflt) rc = dl_expr_eval(&d, f->dflt, w->sorted, ec);
	for (int64_t p = 0; rc == 0 && p < w->nparts; p++) {
		int64_t ps = w->part[p], pe = w->part[p + 1], m = 0;
		/* nn is indexed from 0 per partition; before[i] counts from ps */
		for (int64_t i = ps; i < pe; i++) {
			before[i] = m;
			if (!f->ignore_nulls || dl_array_is_valid(x, i)) nn[m++] = i;
		}
		before[pe] = m;
		for (int64_t i = ps; i < pe; i++) {
			/* offsets past the partition act alike; clamping keeps the
			 * arithmetic below from overflowing */
			int64_t k = f->offset < -(n + 1) ? -(n + 1) : f->offset > n + 1 ? n + 1 : f->offset, j = -1;
			switch (f->kind) {
			case DL_WIN_LAG:
			case DL_WIN_LEAD: {
				if (k == 0) {
					j = i;
					break;
				}
				if (f->kind == DL_WIN_LEAD) k = -k;
				/* lag k: the k-th counted row before i; lead: after i */
				int64_t c = k > 0 ? before[i] - k : before[i + 1] - k - 1;
				j = c >= 0 && c < m ? nn[c] : -2;
				break;
			}
			case DL_WIN_FIRST_VALUE:
				if (before[lo[i]] < before[hi[i]]) j = nn[before[lo[i]]];
				break;
			case DL_WIN_LAST_VALUE:
				if (before[lo[i]] < before[hi[i]]) j = nn[before[hi[i]] - 1];
				break;
			default: /* nth_value */
				if (before[lo[i]] + k - 1 < before[hi[i]]) j = nn[before[lo[i]] + k - 1];
				break;
			}
			sel[i] = j;
		}
	}
	if (rc == 0) rc = gather(out, f->out, x, sel, n, d);
	dl_array_free(x);
	dl_array_free(d);
	dl_free(sel);
	dl_free(nn);
	dl_free(before);
	dl_free(lo);
	dl_free(hi);
	return rc;
}

int dl_win_fn_eval(dl_array **out, win_fn *f, const win_rows *w)
{
	switch (f->kind) {
	case DL_WIN_ROW_NUMBER:
	case DL_WIN_RANK:
	case DL_WIN_DENSE_RANK:
	case DL_WIN_PERCENT_RANK:
	case DL_WIN_CUME_DIST:
	case DL_WIN_NTILE: return ranking(out, f, w);
	case DL_WIN_AGG: {
		int64_t *lo = dl_malloc((size_t)(w->n ? w->n : 1) * sizeof *lo);
		int64_t *hi = dl_malloc((size_t)(w->n ? w->n : 1) * sizeof *hi);
		int rc = lo && hi ? dl_win_frame_bounds(lo, hi, &f->frame, &f->range, w)
		                  : dl_error_set(DL_ENOMEM, "out of memory");
		if (rc == 0) rc = dl_win_agg_eval(out, f->agg, w, lo, hi);
		dl_free(lo);
		dl_free(hi);
		return rc;
	}
	default: return offset_fn(out, f, w);
	}
}

