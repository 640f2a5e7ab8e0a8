/* percentile_approx (agg_ext.h): Spark's ApproximatePercentile over its
 * QuantileSummaries (the Greenwald-Khanna summary with a head buffer),
 * step for step, so one stream of values gives Spark's answer:
 *
 * - relative error = 1 / accuracy (default accuracy 10000);
 * - values (as doubles) collect in a head buffer; at 50000 the buffer is
 *   sorted and merged into the samples (value, g, delta), new samples
 *   getting delta = floor(2 * err * count) except the first and the last;
 *   when there are then at least 10000 samples they are compressed;
 * - at the end: merge the head, compress (merge neighbours while g + g' +
 *   delta' < 2 * err * count, keeping the first and last), and for each
 *   percentage q: the first sample if q <= err, the last if q >= 1 - err,
 *   else the first sample whose rank range [minRank, minRank + delta]
 *   is within max(g + delta) / 2 of ceil(q * count);
 * - the double goes back to the input type: integral types truncate, dates
 *   and timestamps too, decimals round HALF_UP at their scale; with an
 *   array of percentages the result is an array; no values: NULL.
 *
 * Spark merges one summary per task; here one stream is one summary, which
 * is Spark's result over a single partition. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "exec/agg_ext.h"
#include "expr/eval.h"

#define HEAD_SIZE 50000
#define COMPRESS_THRESHOLD 10000

typedef struct gk_stat {
	double v;
	int64_t g, delta;
} gk_stat;

struct agg_gk {
	double *head;
	int64_t nhead, caphead;
	gk_stat *s;
	int64_t ns, caps;
	int64_t count; /* values merged into s (not the head) */
	int64_t bytes;
};

/* java.lang.Double.compare: -0.0 below 0.0, NaN above everything. */
static int dcmp(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	if (x < y) return -1;
	if (x > y) return 1;
	int64_t bx, by;
	if (isnan(x)) x = NAN;
	if (isnan(y)) y = NAN;
	memcpy(&bx, &x, 8);
	memcpy(&by, &y, 8);
	return bx < by ? -1 : bx > by;
}

static int charge(dl_agg_ext *x, agg_gk *q, int64_t bytes)
{
	DL_TRY(dl_exec_mem_charge(x->mem, bytes, "hash aggregate: percentile_approx"));
	q->bytes += bytes;
	return 0;
}

static int reserve_samples(dl_agg_ext *x, agg_gk *q, int64_t n)
{
	if (n <= q->caps) return 0;
	int64_t cap = q->caps ? q->caps : 64;
	while (cap < n) cap *= 2;
	DL_TRY(charge(x, q, (cap - q->caps) * (int64_t)sizeof(gk_stat)));
	gk_stat *s = dl_reallocarray(q->s, (size_t)cap, sizeof *s);
	if (!s) return dl_error_set(DL_ENOMEM, "out of memory");
	q->s = s;
	q->caps = cap;
	return 0;
}

/* Spark's withHeadBufferInserted. */
static int insert_head(dl_agg_ext *x, agg_gk *q)
{
	if (q->nhead == 0) return 0;
	qsort(q->head, (size_t)q->nhead, sizeof *q->head, dcmp);
	int64_t n = q->ns + q->nhead;
	DL_TRY(charge(x, q, n * (int64_t)sizeof(gk_stat)));
	gk_stat *out = dl_malloc((size_t)n * sizeof *out);
	if (!out) return dl_error_set(DL_ENOMEM, "out of memory");
	int64_t k = 0, si = 0, count = q->count;
	for (int64_t oi = 0; oi < q->nhead; oi++) {
		double cur = q->head[oi];
		while (si < q->ns && q->s[si].v <= cur) out[k++] = q->s[si++];
		count++;
		int64_t delta = k == 0 || (si == q->ns && oi == q->nhead - 1) ? 0 : (int64_t)floor(2 * x->rel_err * (double)count);
		out[k++] = (gk_stat){cur, 1, delta};
	}
	while (si < q->ns) out[k++] = q->s[si++];
	dl_free(q->s);
	dl_exec_mem_release(x->mem, q->caps * (int64_t)sizeof(gk_stat));
	q->bytes -= q->caps * (int64_t)sizeof(gk_stat);
	q->s = out;
	q->ns = q->caps = n;
	q->count = count;
	q->nhead = 0;
	return 0;
}

/* Spark's compress(): the head merged, then compressImmut. */
static int compress(dl_agg_ext *x, agg_gk *q)
{
	DL_TRY(insert_head(x, q));
	if (q->ns == 0) return 0;
	double threshold = 2 * x->rel_err * (double)q->count;
	/* built from the back into the same array: the kept samples never
	 * overtake the one being read */
	gk_stat *s = q->s;
	int64_t n = q->ns, w = n; /* res = s[w..n) */
	gk_stat head = s[n - 1];
	for (int64_t i = n - 2; i >= 1; i--) {
		gk_stat s1 = s[i];
		if ((double)(s1.g + head.g + head.delta) < threshold) {
			head.g += s1.g;
		} else {
			s[--w] = head;
			head = s1;
		}
	}
	s[--w] = head;
	gk_stat first = s[0];
	/* s[0] is intact: w > 0 unless n == 1 */
	if (n > 1 && first.v <= head.v) s[--w] = first;
	if (w > 0) memmove(s, s + w, (size_t)(n - w) * sizeof *s);
	q->ns = n - w;
	return 0;
}

static double query(const dl_agg_ext *x, const agg_gk *q, double pct)
{
	const gk_stat *s = q->s;
	if (pct <= x->rel_err) return s[0].v;
	if (pct >= 1 - x->rel_err) return s[q->ns - 1].v;
	int64_t rank = (int64_t)ceil(pct * (double)q->count), target = INT64_MIN;
	for (int64_t i = 0; i < q->ns; i++)
		if (s[i].delta + s[i].g > target) target = s[i].delta + s[i].g;
	target /= 2;
	int64_t min_rank = 0;
	for (int64_t i = 0; i < q->ns - 1; i++) {
		min_rank += s[i].g;
		int64_t max_rank = min_rank + s[i].delta;
		if (max_rank - target <= rank && rank <= min_rank + target) return s[i].v;
	}
	return s[q->ns - 1].v;
}

int agg_gk_grow(dl_agg_ext *x, int64_t old_cap, int64_t cap)
{
	agg_gk *g = dl_reallocarray(x->gk, (size_t)cap, sizeof *g);
	if (!g) return dl_error_set(DL_ENOMEM, "out of memory");
	memset(g + old_cap, 0, (size_t)(cap - old_cap) * sizeof *g);
	x->gk = g;
	return 0;
}

void agg_gk_free(dl_agg_ext *x)
{
	for (int64_t i = 0; i < x->cap; i++) {
		dl_free(x->gk[i].head);
		dl_free(x->gk[i].s);
		dl_exec_mem_release(x->mem, x->gk[i].bytes);
	}
	dl_free(x->gk);
	x->gk = NULL;
}

static double to_double(const dl_type *t, const ex_val *v)
{
	if (t->id == DL_TYPE_DECIMAL) return ex_dec_to_double(v->v.dec, t->scale);
	if (t->id == DL_TYPE_FLOAT || t->id == DL_TYPE_DOUBLE) return v->v.d;
	return (double)v->v.i;
}

int agg_gk_update(dl_agg_ext *x, const uint32_t *ids, const dl_array *arg, int64_t n)
{
	for (int64_t i = 0; i < n; i++) {
		if (!dl_array_is_valid(arg, i)) continue;
		agg_gk *q = &x->gk[ids[i]];
		if (q->nhead == q->caphead) {
			int64_t cap = q->caphead ? 2 * q->caphead : 16;
			if (cap > HEAD_SIZE) cap = HEAD_SIZE;
			DL_TRY(charge(x, q, (cap - q->caphead) * (int64_t)sizeof(double)));
			double *h = dl_reallocarray(q->head, (size_t)cap, sizeof *h);
			if (!h) return dl_error_set(DL_ENOMEM, "out of memory");
			q->head = h;
			q->caphead = cap;
		}
		ex_val v;
		ex_val_load(&v, arg, i);
		q->head[q->nhead++] = to_double(x->in, &v);
		if (q->nhead >= HEAD_SIZE) {
			DL_TRY(insert_head(x, q));
			if (q->ns >= COMPRESS_THRESHOLD) DL_TRY(compress(x, q));
			DL_TRY(reserve_samples(x, q, q->ns));
		}
	}
	return 0;
}

/* The double back in the input type (Spark: toInt/toLong truncate,
 * Decimal(d) rounds HALF_UP at the type's scale). */
static int put(dl_builder *b, const dl_type *t, double d)
{
	switch (t->id) {
	case DL_TYPE_FLOAT:
	case DL_TYPE_DOUBLE: return dl_builder_append_double(b, t->id == DL_TYPE_FLOAT ? (double)(float)d : d);
	case DL_TYPE_DECIMAL: {
		double u = fabs(d) * pow(10, t->scale), r = floor(u + 0.5);
		if (!(r < 1e38)) return dl_builder_append_null(b);
		dl_i128 v = (dl_i128)r;
		return dl_builder_append_decimal(b, d < 0 ? -v : v);
	}
	default: {
		/* the JVM's saturating double -> long, then the narrowing cast */
		int64_t v = isnan(d) ? 0 : d >= 9.2233720368547758e18 ? INT64_MAX : d <= -9.2233720368547758e18 ? INT64_MIN : (int64_t)d;
		switch (t->id) {
		case DL_TYPE_BYTE: v = (int8_t)(int32_t)v; break;
		case DL_TYPE_SHORT: v = (int16_t)(int32_t)v; break;
		case DL_TYPE_INTEGER:
		case DL_TYPE_DATE: v = (int32_t)v; break;
		default: break;
		}
		return dl_builder_append_int(b, v);
	}
	}
}

int agg_gk_finish(dl_agg_ext *x, dl_builder *b, int64_t start, int64_t n)
{
	for (int64_t g = start; g < start + n; g++) {
		agg_gk *q = g < x->cap ? &x->gk[g] : NULL;
		if (q) DL_TRY(compress(x, q));
		if (!q || q->ns == 0) {
			DL_TRY(dl_builder_append_null(b));
			continue;
		}
		if (!x->pct_array) {
			DL_TRY(put(b, x->in, query(x, q, x->pct[0])));
			continue;
		}
		DL_TRY(dl_builder_begin_list(b));
		for (int k = 0; k < x->npct; k++) DL_TRY(put(dl_builder_child(b, 0), x->in, query(x, q, x->pct[k])));
		DL_TRY(dl_builder_end_list(b));
	}
	return 0;
}
