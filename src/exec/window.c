/* The window operator (exec.h, dl_exec_window): functions over a row's
 * partition and frame, as Spark's WindowExec.
 *
 * The input is buffered (charged to the budget) and sorted once by
 * (partition, ORDER BY keys, input position). Partitions are numbered by
 * the key table (keytab.h) in order of first appearance, so partition keys
 * of any type work, NULL is one partition, and rows come out grouped by
 * partition in that order; within a partition, in ORDER BY order (Spark's
 * defaults: NULLS FIRST for ASC, LAST for DESC; NaN above every number),
 * ties in input order. Then every function computes one column over the
 * sorted rows, partition by partition, and the output is the sorted input
 * with those columns appended, sliced into batches.
 *
 * Result types as Spark: row_number, rank, dense_rank and ntile INT (never
 * NULL), percent_rank and cume_dist DOUBLE, lag/lead/first_value/
 * last_value/nth_value the argument's type, aggregates as in the hash
 * aggregate (window_agg.c). Functions: window_fns.c; frames:
 * window_frame.c. */
#include <stdlib.h>
#include <string.h>
#include "exec/keytab.h"
#include "exec/window.h"
#include "expr/eval.h"

typedef struct win_op {
	dl_batch_stream *in;
	dl_exec_ctx ctx;
	dl_expr **part_keys;
	int npart;
	dl_expr **order;
	bool *desc, *nulls_first;
	int norder;
	win_fn *fns;
	int nfns;
	dl_type *schema;
	dl_batch **buf;
	int nbuf, capbuf;
	int64_t charged;
	dl_batch *result; /* sorted input plus the function columns */
	int64_t pos;
	bool done;
} win_op;

static const dl_type *w_schema(dl_batch_stream *s)
{
	return ((win_op *)s->private_data)->schema;
}

typedef struct sort_ctx {
	const uint32_t *pid;  /* partition id per input row */
	dl_array **k;         /* ORDER BY keys */
	const win_op *w;
} sort_ctx;

/* ORDER BY comparison of rows i and j of keys k (0 = peers). */
static int cmp_order(const win_op *w, dl_array *const *k, int64_t i, int64_t j)
{
	for (int c = 0; c < w->norder; c++) {
		const dl_array *x = k[c];
		/* the common integer keys without NULLs, without ex_val */
		if (!x->validity) {
			int64_t p, q;
			switch (x->type->id) {
			case DL_TYPE_INTEGER:
			case DL_TYPE_DATE:
				p = ((const int32_t *)x->values)[i];
				q = ((const int32_t *)x->values)[j];
				break;
			case DL_TYPE_LONG:
			case DL_TYPE_TIMESTAMP:
			case DL_TYPE_TIMESTAMP_NTZ:
				p = ((const int64_t *)x->values)[i];
				q = ((const int64_t *)x->values)[j];
				break;
			default: goto general;
			}
			if (p != q) return (p < q) != w->desc[c] ? -1 : 1;
			continue;
		}
	general:;
		ex_val a, b;
		ex_val_load(&a, k[c], i);
		ex_val_load(&b, k[c], j);
		if (a.null || b.null) {
			if (a.null && b.null) continue;
			return (a.null == w->nulls_first[c]) ? -1 : 1;
		}
		int r = ex_val_cmp(&a, &b, k[c]->type);
		if (r) return w->desc[c] ? -r : r;
	}
	return 0;
}

static int cmp_sort(const void *pa, const void *pb, void *arg)
{
	const sort_ctx *c = arg;
	uint32_t i = *(const uint32_t *)pa, j = *(const uint32_t *)pb;
	if (c->pid && c->pid[i] != c->pid[j]) return c->pid[i] < c->pid[j] ? -1 : 1;
	int r = cmp_order(c->w, c->k, i, j);
	if (r) return r;
	return i < j ? -1 : i > j;
}

/* The common case, no ORDER BY or one integer-like key, sorts without a
 * comparator: rows are bucketed by partition id (a counting sort, stable),
 * NULL keys go to their end of the partition in input order, and the
 * other rows' order-preserving 64-bit keys are radix-sorted (LSD, stable,
 * skipping bytes that are the same in every row), so ties keep input
 * order. skey/snull receive the sorted keys for finding peers. */
typedef struct kv {
	uint64_t key;
	uint32_t idx;
} kv;

static bool packable(const win_op *w, dl_array *const *k)
{
	if (w->norder == 0) return true;
	if (w->norder > 1) return false;
	switch (k[0]->type->id) {
	case DL_TYPE_BYTE:
	case DL_TYPE_SHORT:
	case DL_TYPE_INTEGER:
	case DL_TYPE_DATE:
	case DL_TYPE_LONG:
	case DL_TYPE_TIMESTAMP:
	case DL_TYPE_TIMESTAMP_NTZ: return true;
	default: return false;
	}
}

static void radix(kv *a, kv *tmp, int64_t n)
{
	if (n < 64) { /* insertion sort: stable, cheap for small partitions */
		for (int64_t i = 1; i < n; i++) {
			kv x = a[i];
			int64_t j = i;
			for (; j > 0 && a[j - 1].key > x.key; j--) a[j] = a[j - 1];
			a[j] = x;
		}
		return;
	}
	static _Thread_local int64_t cnt[8][256];
	memset(cnt, 0, sizeof cnt);
	for (int64_t i = 0; i < n; i++)
		for (int b = 0; b < 8; b++) cnt[b][(a[i].key >> (8 * b)) & 255]++;
	kv *src = a, *dst = tmp;
	for (int b = 0; b < 8; b++) {
		if (cnt[b][(src[0].key >> (8 * b)) & 255] == n) continue; /* one value in this byte */
		int64_t pos[256], sum = 0;
		for (int v = 0; v < 256; v++) {
			pos[v] = sum;
			sum += cnt[b][v];
		}
		for (int64_t i = 0; i < n; i++) dst[pos[(src[i].key >> (8 * b)) & 255]++] = src[i];
		kv *t = src;
		src = dst;
		dst = t;
	}
	if (src != a) memcpy(a, src, (size_t)n * sizeof *a);
}

static int sort_packed(const win_op *w, const uint32_t *pid, dl_array *const *k, uint32_t *idx, int64_t n,
                       uint64_t *skey, uint8_t *snull)
{
	int64_t np = 1;
	for (int64_t i = 0; pid && i < n; i++)
		if ((int64_t)pid[i] + 1 > np) np = (int64_t)pid[i] + 1;
	/* per partition: nulls and non-nulls counted, then laid out */
	int64_t *nn = dl_calloc((size_t)np + 1, sizeof *nn), *nul = dl_calloc((size_t)np + 1, sizeof *nul);
	kv *a = dl_malloc((size_t)(n ? n : 1) * sizeof *a), *tmp = dl_malloc((size_t)(n ? n : 1) * sizeof *tmp);
	if (!nn || !nul || !a || !tmp) {
		dl_free(nn);
		dl_free(nul);
		dl_free(a);
		dl_free(tmp);
		return dl_error_set(DL_ENOMEM, "out of memory sorting %lld rows", (long long)n);
	}
	const dl_array *key = w->norder ? k[0] : NULL;
	bool nulls_first = w->norder && w->nulls_first[0], desc = w->norder && w->desc[0];
	for (int64_t i = 0; i < n; i++) {
		uint32_t p = pid ? pid[i] : 0;
		if (key && !dl_array_is_valid(key, i)) nul[p]++;
		else nn[p]++;
	}
	/* starts: [nulls first][non-nulls][nulls last] per partition */
	int64_t *ns = dl_malloc((size_t)np * 2 * sizeof *ns);
	if (!ns) {
		dl_free(nn);
		dl_free(nul);
		dl_free(a);
		dl_free(tmp);
		return dl_error_set(DL_ENOMEM, "out of memory");
	}
	int64_t *vs = ns + np, at = 0;
	for (int64_t p = 0; p < np; p++) {
		int64_t start = at;
		vs[p] = nulls_first ? start + nul[p] : start;
		ns[p] = nulls_first ? start : start + nn[p];
		at += nn[p] + nul[p];
		nn[p] = vs[p]; /* reused as the partition's non-null start */
	}
	for (int64_t i = 0; i < n; i++) {
		uint32_t p = pid ? pid[i] : 0;
		if (key && !dl_array_is_valid(key, i)) {
			a[ns[p]++] = (kv){0, (uint32_t)i};
			continue;
		}
		uint64_t u = 0;
		if (key) {
			ex_val v;
			ex_val_load(&v, key, i);
			u = (uint64_t)v.v.i ^ (UINT64_C(1) << 63);
			if (desc) u = ~u;
		}
		a[vs[p]++] = (kv){u, (uint32_t)i};
	}
	for (int64_t p = 0; p < np; p++) radix(a + nn[p], tmp, vs[p] - nn[p]);
	for (int64_t i = 0; i < n; i++) {
		idx[i] = a[i].idx;
		snull[i] = key && !dl_array_is_valid(key, a[i].idx);
		skey[i] = a[i].key;
	}
	dl_free(ns);
	dl_free(nn);
	dl_free(nul);
	dl_free(a);
	dl_free(tmp);
	return 0;
}

/* ---- the operator ------------------------------------------------------- */

static void drop_buffer(win_op *w)
{
	for (int i = 0; i < w->nbuf; i++) dl_batch_free(w->buf[i]);
	w->nbuf = 0;
}

static int buffer(win_op *w, dl_batch *b)
{
	int64_t bytes = dl_batch_bytes(b);
	int rc = dl_exec_mem_charge(w->ctx.mem, bytes, "window");
	if (rc == 0 && w->nbuf == w->capbuf) {
		int nc = w->capbuf ? w->capbuf * 2 : 16;
		dl_batch **nb = dl_reallocarray(w->buf, (size_t)nc, sizeof *nb);
		if (!nb) {
			dl_exec_mem_release(w->ctx.mem, bytes);
			rc = dl_error_set(DL_ENOMEM, "out of memory");
		} else {
			w->buf = nb;
			w->capbuf = nc;
		}
	}
	if (rc < 0) {
		dl_batch_free(b);
		return rc;
	}
	w->buf[w->nbuf++] = b;
	w->charged += bytes;
	return 0;
}

/* Sorts the buffered rows and computes every function's column. */
static int compute(win_op *w)
{
	dl_batch *all = w->nbuf == 1 ? w->buf[0] : dl_batch_concat(w->buf, w->nbuf);
	if (!all) return dl_exec_failed();
	if (w->nbuf == 1) w->nbuf = 0;
	drop_buffer(w);
	int64_t n = all->num_rows;
	dl_array **pk = dl_calloc((size_t)w->npart + 1, sizeof *pk);
	dl_array **ok = dl_calloc((size_t)w->norder + 1, sizeof *ok);
	uint32_t *pid = w->npart ? dl_malloc((size_t)(n ? n : 1) * sizeof *pid) : NULL;
	uint32_t *idx = dl_malloc((size_t)(n ? n : 1) * sizeof *idx);
	int64_t *part = dl_malloc((size_t)(n + 1) * sizeof *part);
	int64_t *plo = dl_malloc((size_t)(n ? n : 1) * sizeof *plo);
	int64_t *phi = dl_malloc((size_t)(n ? n : 1) * sizeof *phi);
	dl_array **cols = dl_calloc((size_t)w->schema->nchildren, sizeof *cols);
	dl_keytab *kt = NULL;
	dl_batch *sorted = NULL;
	bool fast = false;
	int64_t copy = 0;
	uint64_t *skey = NULL;
	uint8_t *snull = NULL;
	int rc = pk && ok && (pid || !w->npart) && idx && part && plo && phi && cols
	             ? 0
	             : dl_error_set(DL_ENOMEM, "out of memory");
	/* the sort's scratch: ids, index, bounds; the sorted copy replaces all */
	int64_t scratch = n * (int64_t)(sizeof *pid + sizeof *idx + 6 * sizeof(int64_t));
	if (rc == 0 && (rc = dl_exec_mem_charge(w->ctx.mem, scratch, "window")) < 0) scratch = 0;
	if (rc == 0 && w->npart) {
		dl_type **pt = dl_calloc((size_t)w->npart, sizeof *pt);
		rc = pt ? dl_exec_eval_all(pk, w->part_keys, w->npart, all, &w->ctx) : dl_error_set(DL_ENOMEM, "out of memory");
		for (int k = 0; rc == 0 && k < w->npart; k++) pt[k] = pk[k]->type;
		if (rc == 0) rc = dl_keytab_new(&kt, pt, w->npart, w->ctx.mem, "window: PARTITION BY");
		if (rc == 0) rc = dl_keytab_insert(kt, pk, n, pid);
		dl_free(pt);
	}
	if (rc == 0) rc = dl_exec_eval_all(ok, w->order, w->norder, all, &w->ctx);
	if (rc == 0) {
		if ((fast = packable(w, ok))) {
			skey = dl_malloc((size_t)(n ? n : 1) * sizeof *skey);
			snull = dl_malloc((size_t)(n ? n : 1));
			rc = skey && snull ? sort_packed(w, pid, ok, idx, n, skey, snull) : dl_error_set(DL_ENOMEM, "out of memory");
		} else {
			for (int64_t i = 0; i < n; i++) idx[i] = (uint32_t)i;
			sort_ctx c = {pid, ok, w};
			qsort_r(idx, (size_t)n, sizeof *idx, cmp_sort, &c);
		}
		/* the sorted copy exists next to the input until the input is freed */
		if (rc == 0 && (rc = dl_exec_mem_charge(w->ctx.mem, w->charged, "window")) == 0) copy = w->charged;
		if (rc == 0 && !(sorted = dl_batch_take(all, idx, n))) rc = dl_exec_failed();
	}
	/* partitions and peer groups over the sorted rows */
	int64_t nparts = 0;
	for (int64_t i = 0; rc == 0 && i < n; i++) {
		bool new_part = i == 0 || (pid && pid[idx[i]] != pid[idx[i - 1]]);
		if (new_part) part[nparts++] = i;
		bool peer = !new_part && (fast ? snull[i] == snull[i - 1] && (snull[i] || skey[i] == skey[i - 1])
		                               : cmp_order(w, ok, idx[i], idx[i - 1]) == 0);
		plo[i] = peer ? plo[i - 1] : i;
	}
	part[nparts] = n;
	for (int64_t i = n - 1; rc == 0 && i >= 0; i--) phi[i] = i + 1 < n && plo[i + 1] == plo[i] ? phi[i + 1] : i + 1;
	for (int k = 0; pk && k < w->npart; k++) dl_array_free(pk[k]);
	for (int k = 0; ok && k < w->norder; k++) dl_array_free(ok[k]);
	dl_keytab_free(kt);
	dl_batch_free(all);
	dl_exec_mem_release(w->ctx.mem, copy);
	win_rows rows = {sorted, n, part, nparts, plo, phi, &w->ctx};
	int nin = sorted ? sorted->ncols : 0;
	for (int f = 0; rc == 0 && f < w->nfns; f++) {
		/* the input is all read: an interrupt is seen between functions */
		if (w->ctx.interrupt && atomic_load(w->ctx.interrupt)) {
			rc = dl_error_set(DL_ECANCELLED, "window: cancelled");
			break;
		}
		rc = dl_win_fn_eval(&cols[nin + f], &w->fns[f], &rows);
		if (rc == 0) {
			int64_t bytes = dl_array_bytes(cols[nin + f]);
			rc = dl_exec_mem_charge(w->ctx.mem, bytes, "window");
			if (rc == 0) w->charged += bytes;
		}
	}
	if (rc == 0) {
		for (int c = 0; c < nin; c++) {
			cols[c] = sorted->cols[c];
			sorted->cols[c] = NULL;
		}
		w->result = dl_exec_batch(w->schema, cols, n);
		if (!w->result) rc = dl_exec_failed();
	} else {
		for (int c = 0; cols && c < w->schema->nchildren; c++) dl_array_free(cols[c]);
	}
	dl_exec_mem_release(w->ctx.mem, scratch);
	dl_batch_free(sorted);
	dl_free(pk);
	dl_free(ok);
	dl_free(pid);
	dl_free(idx);
	dl_free(part);
	dl_free(plo);
	dl_free(phi);
	dl_free(cols);
	dl_free(skey);
	dl_free(snull);
	return rc;
}

static int w_next(dl_batch_stream *s, dl_batch **out)
{
	win_op *w = s->private_data;
	*out = NULL;
	if (w->ctx.interrupt && atomic_load(w->ctx.interrupt))
		return dl_error_set(DL_ECANCELLED, "window: cancelled");
	while (!w->done) {
		dl_batch *b;
		DL_TRY(dl_batch_stream_next(w->in, &b));
		if (!b) {
			w->done = true;
			break;
		}
		if (b->num_rows == 0) {
			dl_batch_free(b);
			continue;
		}
		DL_TRY(buffer(w, b));
	}
	if (!w->result) {
		if (w->nbuf == 0) return 0;
		int rc = compute(w);
		if (rc < 0) return dl_error_prefix("window");
	}
	int64_t n = w->result->num_rows - w->pos, max = dl_exec_batch_rows(&w->ctx);
	if (n <= 0) return 0;
	if (n > max) n = max;
	*out = w->pos == 0 && n == w->result->num_rows ? w->result : dl_batch_slice(w->result, w->pos, n);
	if (!*out) return dl_exec_failed();
	if (*out == w->result) w->result = NULL; /* handed over whole */
	w->pos += n;
	return 0;
}

static void fn_free(win_fn *f)
{
	dl_expr_free(f->arg);
	dl_expr_free(f->dflt);
	dl_expr_free(f->frame.lo_offset);
	dl_expr_free(f->frame.hi_offset);
	dl_win_range_free(&f->range);
	dl_win_agg_free(f->agg);
	dl_type_unref(f->out);
}

static void w_free(win_op *w)
{
	dl_batch_stream_free(w->in);
	drop_buffer(w);
	dl_free(w->buf);
	dl_batch_free(w->result);
	dl_exec_mem_release(w->ctx.mem, w->charged);
	for (int k = 0; k < w->npart; k++) dl_expr_free(w->part_keys[k]);
	for (int k = 0; k < w->norder; k++) dl_expr_free(w->order[k]);
	for (int k = 0; k < w->nfns; k++) fn_free(&w->fns[k]);
	dl_free(w->part_keys);
	dl_free(w->order);
	dl_free(w->desc);
	dl_free(w->nulls_first);
	dl_free(w->fns);
	dl_type_unref(w->schema);
	dl_free(w);
}

static void w_release(dl_batch_stream *s)
{
	w_free(s->private_data);
	dl_free(s);
}

static const char *const fn_names[] = {"row_number", "rank", "dense_rank", "percent_rank", "cume_dist", "ntile",
                                       "lag", "lead", "first_value", "last_value", "nth_value", "aggregate"};

/* lag/lead's default in the argument's type, as Spark casts it (lag(x,
 * 1, 0) over a DOUBLE x): the default's text re-parsed under a CAST. */
static int cast_default(win_fn *f, const dl_type *sch, const dl_exec_ctx *ctx, const char *nm)
{
	char tn[256];
	dl_type_sql(dl_expr_type(f->arg), tn, sizeof tn);
	dl_buf t = DL_BUF_INIT;
	dl_buf_puts(&t, "CAST((");
	int rc = dl_expr_sql(f->dflt, &t);
	dl_buf_printf(&t, ") AS %s)", tn);
	dl_expr *e = NULL;
	if (rc == 0) rc = t.data ? dl_expr_parse(&e, t.data) : dl_error_set(DL_ENOMEM, "out of memory");
	dl_buf_free(&t);
	if (rc == 0) rc = dl_exec_bind(e, sch, ctx, "window");
	if (rc < 0) {
		dl_expr_free(e);
		return dl_error_prefix("window: %s's default", nm);
	}
	dl_expr_free(f->dflt);
	f->dflt = e;
	return 0;
}

/* Binds a function's expressions and decides its type. */
static int prepare_fn(win_op *w, win_fn *f, const dl_exec_window_fn *spec, const dl_exec_sort_key *order,
                      const dl_type *sch, bool *nullable)
{
	const char *nm = fn_names[f->kind];
	*nullable = true;
	switch (f->kind) {
	case DL_WIN_ROW_NUMBER:
	case DL_WIN_RANK:
	case DL_WIN_DENSE_RANK:
	case DL_WIN_NTILE:
		if (f->kind == DL_WIN_NTILE && f->offset <= 0)
			return dl_error_set_class(DL_EINVALID, "DATATYPE_MISMATCH.VALUE_OUT_OF_RANGE",
			                          "window: ntile needs a positive number of buckets (got %lld)",
			                          (long long)f->offset);
		*nullable = false;
		f->out = dl_type_new(DL_TYPE_INTEGER);
		break;
	case DL_WIN_PERCENT_RANK:
	case DL_WIN_CUME_DIST:
		*nullable = false;
		f->out = dl_type_new(DL_TYPE_DOUBLE);
		break;
	case DL_WIN_AGG: {
		int rc = dl_win_frame_prepare(&f->range, &f->frame, order, w->norder, sch, &w->ctx, nm);
		if (rc < 0) {
			dl_expr_free(spec->agg.arg);
			dl_expr_free(spec->agg.param);
			return rc;
		}
		return dl_win_agg_new(&f->agg, &spec->agg, sch, &w->ctx, &f->out, nullable);
	}
	default:
		if (!f->arg) return dl_error_set(DL_EINVALID, "window: %s needs an argument", nm);
		DL_TRY(dl_exec_bind(f->arg, sch, &w->ctx, "window"));
		if (f->kind == DL_WIN_NTH_VALUE && f->offset <= 0)
			return dl_error_set_class(DL_EINVALID, "DATATYPE_MISMATCH.VALUE_OUT_OF_RANGE",
			                          "window: nth_value needs a positive n (got %lld)", (long long)f->offset);
		if (f->kind == DL_WIN_LAG || f->kind == DL_WIN_LEAD) {
			if (f->dflt) {
				DL_TRY(dl_exec_bind(f->dflt, sch, &w->ctx, "window"));
				const dl_type *dt = dl_expr_type(f->dflt);
				if (dt->id != DL_TYPE_NULL && !dl_type_equals(dt, dl_expr_type(f->arg)))
					DL_TRY(cast_default(f, sch, &w->ctx, nm));
			}
		} else {
			DL_TRY(dl_win_frame_prepare(&f->range, &f->frame, order, w->norder, sch, &w->ctx, nm));
		}
		f->out = dl_type_ref((dl_type *)dl_expr_type(f->arg));
	}
	return f->out ? 0 : dl_error_set(DL_ENOMEM, "out of memory");
}

int dl_exec_window(dl_batch_stream **out, dl_batch_stream *in, dl_expr *const *partition, int npartition,
                   const dl_exec_sort_key *order, int norder, const dl_exec_window_fn *fns, int nfns,
                   const dl_exec_ctx *ctx)
{
	*out = NULL;
	win_op *w = dl_calloc(1, sizeof *w);
	if (w) {
		w->part_keys = dl_calloc((size_t)npartition + 1, sizeof *w->part_keys);
		w->order = dl_calloc((size_t)norder + 1, sizeof *w->order);
		w->desc = dl_calloc((size_t)norder + 1, sizeof *w->desc);
		w->nulls_first = dl_calloc((size_t)norder + 1, sizeof *w->nulls_first);
		w->fns = dl_calloc((size_t)nfns + 1, sizeof *w->fns);
	}
	if (!w || !w->part_keys || !w->order || !w->desc || !w->nulls_first || !w->fns) {
		if (w) {
			dl_free(w->part_keys);
			dl_free(w->order);
			dl_free(w->desc);
			dl_free(w->nulls_first);
			dl_free(w->fns);
			dl_free(w);
		}
		dl_batch_stream_free(in);
		for (int k = 0; k < npartition; k++) dl_expr_free(partition[k]);
		for (int k = 0; k < norder; k++) dl_expr_free(order[k].expr);
		for (int k = 0; k < nfns; k++) {
			dl_expr_free(fns[k].agg.arg);
			dl_expr_free(fns[k].agg.param);
			dl_expr_free(fns[k].arg);
			dl_expr_free(fns[k].default_value);
			dl_expr_free(fns[k].frame.lo_offset);
			dl_expr_free(fns[k].frame.hi_offset);
		}
		return dl_error_set(DL_ENOMEM, "out of memory");
	}
	w->in = in;
	if (ctx) w->ctx = *ctx;
	w->npart = npartition;
	w->norder = norder;
	w->nfns = nfns;
	for (int k = 0; k < npartition; k++) w->part_keys[k] = partition[k];
	for (int k = 0; k < norder; k++) {
		w->order[k] = order[k].expr;
		w->desc[k] = order[k].descending;
		w->nulls_first[k] = order[k].nulls == DL_NULLS_FIRST || (order[k].nulls == DL_NULLS_DEFAULT && !order[k].descending);
	}
	/* take every function's expressions first, so a failure frees them all */
	bool *agg_taken = dl_calloc((size_t)nfns + 1, sizeof *agg_taken);
	for (int k = 0; k < nfns; k++) {
		win_fn *f = &w->fns[k];
		f->kind = fns[k].kind;
		f->arg = fns[k].arg;
		f->dflt = fns[k].default_value;
		f->offset = fns[k].offset;
		f->ignore_nulls = fns[k].ignore_nulls;
		f->frame = fns[k].frame;
	}
	const dl_type *sch = dl_batch_stream_schema(in);
	int nin = sch->nchildren, ncols = nin + nfns, rc = agg_taken ? 0 : dl_error_set(DL_ENOMEM, "out of memory");
	const char **names = dl_calloc((size_t)ncols + 1, sizeof *names);
	dl_type **types = dl_calloc((size_t)ncols + 1, sizeof *types);
	bool *nullable = dl_calloc((size_t)ncols + 1, sizeof *nullable);
	if (!names || !types || !nullable) rc = dl_error_set(DL_ENOMEM, "out of memory");
	for (int c = 0; rc == 0 && c < nin; c++) {
		names[c] = sch->children[c].name;
		types[c] = sch->children[c].type;
		nullable[c] = sch->children[c].nullable;
	}
	for (int k = 0; k < npartition && rc == 0; k++) rc = dl_exec_bind(w->part_keys[k], sch, ctx, "window: PARTITION BY");
	for (int k = 0; k < norder && rc == 0; k++) {
		rc = dl_exec_bind(w->order[k], sch, ctx, "window: ORDER BY");
		dl_type_id t = rc == 0 ? dl_expr_type(w->order[k])->id : DL_TYPE_NULL;
		if (rc == 0 && (t == DL_TYPE_MAP || t == DL_TYPE_VARIANT))
			rc = dl_error_set(DL_EINVALID, "window: ORDER BY key %d has a type that cannot be ordered", k + 1);
	}
	for (int k = 0; k < nfns; k++) {
		win_fn *f = &w->fns[k];
		if (rc == 0 && ((int)f->kind < 0 || f->kind > DL_WIN_AGG))
			rc = dl_error_set(DL_EINVALID, "window: unknown function kind %d", (int)f->kind);
		if (rc == 0) {
			if (f->kind == DL_WIN_AGG) agg_taken[k] = true;
			rc = prepare_fn(w, f, &fns[k], order, sch, &nullable[nin + k]);
			if (rc == 0) {
				types[nin + k] = f->out;
				names[nin + k] = fns[k].name ? fns[k].name : fn_names[f->kind];
			}
		}
		if (!agg_taken || !agg_taken[k]) {
			/* never handed to the aggregate: free its expressions here */
			dl_expr_free(fns[k].agg.arg);
			dl_expr_free(fns[k].agg.param);
		}
	}
	if (rc == 0 && !(w->schema = dl_exec_struct(names, types, nullable, ncols))) rc = dl_exec_failed();
	dl_free(names);
	dl_free(types);
	dl_free(nullable);
	dl_free(agg_taken);
	if (rc == 0 && !(*out = dl_exec_stream_new(w, w_schema, w_next, w_release))) rc = dl_exec_failed();
	if (rc < 0) w_free(w);
	return rc;
}
