/* Aggregates over window frames (window.h). Result types and NULL rules
 * are the hash aggregate's (aggregate.c, Spark's Sum/Average/...).
 *
 * Every aggregate here has a small accumulator that can add a row and merge
 * with the accumulator of the rows that follow (min/max/first/last keep a
 * row index into the argument column, not a value). The frame decides the
 * strategy, so no frame costs O(rows * frame size):
 *
 * - growing frames (start fixed at the partition's first row, end never
 *   moving back: the default frame, UNBOUNDED PRECEDING .. n FOLLOWING,
 *   whole partitions) add each row once, in order, so sums of doubles round
 *   exactly as Spark's running aggregation does;
 * - every other frame (sliding ROWS and RANGE frames, shrinking frames)
 *   queries a segment tree over the partition's rows: O(log n) merges per
 *   row. Double sums then add in tree order, which can differ from Spark's
 *   recomputation in the last bits.
 * Rows whose frame equals the previous row's (peers) reuse its value.
 *
 * collect_list, collect_set, approx_count_distinct and percentile_approx
 * keep agg_ext.h's state (the hash aggregate's), which cannot drop a row:
 * growing frames feed each row once; other frames rebuild the state per
 * distinct frame, O(frame) each. DISTINCT is rejected, as in Spark. */
#include <math.h>
#include <string.h>
#include "exec/agg_ext.h"
#include "exec/window.h"
#include "expr/eval.h"

typedef struct wacc {
	int64_t cnt;
	union {
		int64_t i;
		double d;
		dl_i128 dec;
	} s;
	double m2;   /* variance: M2 (s.d is the mean) */
	int64_t row; /* min/max/first/last/any_value: the chosen row, -1 none */
	bool ovf;    /* an integral or decimal sum overflowed */
} wacc;

struct win_agg {
	dl_agg_kind kind;
	dl_expr *arg;
	bool ignore_nulls;
	const dl_type *in;
	dl_type *out;
	dl_exec_memory *mem;
	dl_agg_ext *ext;     /* collect_*, approx_count_distinct, percentile_approx */
	/* per evaluation */
	const dl_array *x;
};

static const char *const names[] = {"count(*)", "count", "count(DISTINCT)", "sum", "avg", "min", "max", "first",
                                    "last", "var_samp", "var_pop", "stddev_samp", "stddev_pop", "collect_list",
                                    "collect_set", "approx_count_distinct", "percentile_approx", "count_if",
                                    "bool_and", "bool_or", "any_value"};

static int type_error(const char *nm, const dl_type *in, const char *need)
{
	char t[64];
	dl_type_sql(in, t, sizeof t);
	return dl_error_set_class(DL_EINVALID, "DATATYPE_MISMATCH.UNEXPECTED_INPUT_TYPE",
	                          "window: %s needs %s, not %s", nm, need, t);
}

static int result_type(win_agg *g, bool *nullable)
{
	const char *nm = names[g->kind];
	const dl_type *in = g->in;
	*nullable = true;
	switch (g->kind) {
	case DL_AGG_COUNT_STAR:
	case DL_AGG_COUNT:
	case DL_AGG_COUNT_IF:
		if (g->kind == DL_AGG_COUNT_IF && in->id != DL_TYPE_BOOLEAN) return type_error(nm, in, "a BOOLEAN");
		*nullable = false;
		g->out = dl_type_new(DL_TYPE_LONG);
		break;
	case DL_AGG_SUM:
	case DL_AGG_AVG:
		if (in->id == DL_TYPE_DECIMAL) {
			int p = in->precision + (g->kind == DL_AGG_SUM ? 10 : 4);
			int sc = in->scale + (g->kind == DL_AGG_SUM ? 0 : 4);
			g->out = dl_type_decimal(p > 38 ? 38 : p, sc > 38 ? 38 : sc);
		} else if (dl_type_is_integral(in) || in->id == DL_TYPE_FLOAT || in->id == DL_TYPE_DOUBLE) {
			g->out = dl_type_new(g->kind == DL_AGG_SUM && dl_type_is_integral(in) ? DL_TYPE_LONG : DL_TYPE_DOUBLE);
		} else {
			return type_error(nm, in, "a numeric argument");
		}
		break;
	case DL_AGG_VAR_SAMP:
	case DL_AGG_VAR_POP:
	case DL_AGG_STDDEV_SAMP:
	case DL_AGG_STDDEV_POP:
		if (!dl_type_is_numeric(in)) return type_error(nm, in, "a numeric argument");
		g->out = dl_type_new(DL_TYPE_DOUBLE);
		break;
	case DL_AGG_BOOL_AND:
	case DL_AGG_BOOL_OR:
		if (in->id != DL_TYPE_BOOLEAN) return type_error(nm, in, "a BOOLEAN");
		g->out = dl_type_new(DL_TYPE_BOOLEAN);
		break;
	case DL_AGG_MIN:
	case DL_AGG_MAX:
		if (in->id == DL_TYPE_MAP || in->id == DL_TYPE_VARIANT) return type_error(nm, in, "an orderable type");
		g->out = dl_type_ref((dl_type *)in);
		break;
	case DL_AGG_FIRST:
	case DL_AGG_LAST:
	case DL_AGG_ANY_VALUE: g->out = dl_type_ref((dl_type *)in); break;
	default:
		return dl_error_set(DL_EUNSUPPORTED, "window: %s over a window frame is not supported yet", nm);
	}
	return g->out ? 0 : dl_error_set(DL_ENOMEM, "out of memory");
}

int dl_win_agg_new(win_agg **out, const dl_exec_agg *spec, const dl_type *schema, const dl_exec_ctx *ctx,
                   dl_type **out_type, bool *nullable)
{
	*out = NULL;
	*out_type = NULL;
	win_agg *g = dl_calloc(1, sizeof *g);
	dl_expr *param = spec->param;
	if (!g) {
		dl_expr_free(spec->arg);
		dl_expr_free(param);
		return dl_error_set(DL_ENOMEM, "out of memory");
	}
	g->kind = spec->kind;
	g->arg = spec->arg;
	g->ignore_nulls = spec->ignore_nulls;
	g->mem = ctx ? ctx->mem : NULL;
	int rc = 0;
	if ((int)g->kind < 0 || g->kind > DL_AGG_ANY_VALUE) rc = dl_error_set(DL_EINVALID, "window: unknown aggregate kind %d", (int)g->kind);
	else if ((g->kind == DL_AGG_COUNT_STAR) != (g->arg == NULL))
		rc = dl_error_set(DL_EINVALID, "window: %s %s an argument", names[g->kind], g->arg ? "takes no" : "needs");
	else if (spec->distinct || g->kind == DL_AGG_COUNT_DISTINCT)
		rc = dl_error_set(DL_EUNSUPPORTED, "window: DISTINCT aggregates over a window are not supported (as in Spark)");
	if (rc == 0 && g->arg) {
		rc = dl_exec_bind(g->arg, schema, ctx, "window");
		if (rc == 0) g->in = dl_expr_type(g->arg);
	}
	bool ext = g->kind == DL_AGG_COLLECT_LIST || g->kind == DL_AGG_COLLECT_SET ||
	           g->kind == DL_AGG_APPROX_COUNT_DISTINCT || g->kind == DL_AGG_PERCENTILE_APPROX;
	if (rc == 0 && ext) {
		const dl_type *ot;
		dl_exec_agg sp = *spec;
		sp.param = param;
		param = NULL; /* taken */
		rc = dl_agg_ext_new(&g->ext, &sp, g->in, schema, ctx, 0, &ot, nullable);
		if (rc == 0 && !(g->out = dl_type_ref((dl_type *)ot))) rc = dl_error_set(DL_ENOMEM, "out of memory");
	} else if (rc == 0) {
		rc = result_type(g, nullable);
	}
	dl_expr_free(param);
	if (rc < 0) {
		dl_win_agg_free(g);
		return rc;
	}
	*out_type = dl_type_ref(g->out);
	*out = g;
	return 0;
}

void dl_win_agg_free(win_agg *g)
{
	if (!g) return;
	dl_expr_free(g->arg);
	dl_type_unref(g->out);
	dl_agg_ext_free(g->ext);
	dl_free(g);
}

static void acc_init(wacc *a)
{
	memset(a, 0, sizeof *a);
	a->row = -1;
}

static int cmp_rows(const win_agg *g, int64_t i, int64_t j)
{
	ex_val a, b;
	ex_val_load(&a, g->x, i);
	ex_val_load(&b, g->x, j);
	return ex_val_cmp(&a, &b, g->in);
}

static double as_double(const win_agg *g, int64_t j)
{
	ex_val v;
	ex_val_load(&v, g->x, j);
	if (g->in->id == DL_TYPE_DECIMAL) return ex_dec_to_double(v.v.dec, g->in->scale);
	return dl_type_is_integral(g->in) ? (double)v.v.i : v.v.d;
}

static void acc_add(const win_agg *g, wacc *a, int64_t j)
{
	bool valid = g->kind == DL_AGG_COUNT_STAR || dl_array_is_valid(g->x, j);
	switch (g->kind) {
	case DL_AGG_COUNT_STAR:
	case DL_AGG_COUNT:
		if (valid) a->cnt++;
		break;
	case DL_AGG_COUNT_IF:
		if (valid && dl_bit_get(g->x->values, j)) a->cnt++;
		break;
	case DL_AGG_BOOL_AND:
	case DL_AGG_BOOL_OR:
		/* s.i counts the values that decide: FALSE for AND, TRUE for OR */
		if (valid) {
			a->cnt++;
			if (dl_bit_get(g->x->values, j) == (g->kind == DL_AGG_BOOL_OR)) a->s.i++;
		}
		break;
	case DL_AGG_SUM:
	case DL_AGG_AVG: {
		if (!valid) break;
		a->cnt++;
		ex_val v;
		ex_val_load(&v, g->x, j);
		if (g->in->id == DL_TYPE_DECIMAL) a->ovf |= __builtin_add_overflow(a->s.dec, v.v.dec, &a->s.dec);
		else if (g->out->id == DL_TYPE_DOUBLE) a->s.d += dl_type_is_integral(g->in) ? (double)v.v.i : v.v.d;
		else a->ovf |= __builtin_add_overflow(a->s.i, v.v.i, &a->s.i);
		break;
	}
	case DL_AGG_MIN:
	case DL_AGG_MAX:
		if (valid && (a->row < 0 || (g->kind == DL_AGG_MIN ? cmp_rows(g, j, a->row) < 0 : cmp_rows(g, j, a->row) > 0)))
			a->row = j;
		break;
	case DL_AGG_FIRST:
	case DL_AGG_ANY_VALUE:
		if (a->row < 0 && (valid || !g->ignore_nulls)) a->row = j;
		break;
	case DL_AGG_LAST:
		if (valid || !g->ignore_nulls) a->row = j;
		break;
	default: { /* variance family: Welford */
		if (!valid) break;
		double x = as_double(g, j);
		a->cnt++;
		double delta = x - a->s.d;
		a->s.d += delta / (double)a->cnt;
		a->m2 += delta * (x - a->s.d);
	}
	}
}

/* a = a then b (b's rows follow a's). */
static void acc_merge(const win_agg *g, wacc *a, const wacc *b)
{
	switch (g->kind) {
	case DL_AGG_SUM:
	case DL_AGG_AVG:
		if (g->in->id == DL_TYPE_DECIMAL) a->ovf |= __builtin_add_overflow(a->s.dec, b->s.dec, &a->s.dec);
		else if (g->out->id == DL_TYPE_DOUBLE) a->s.d += b->s.d;
		else a->ovf |= __builtin_add_overflow(a->s.i, b->s.i, &a->s.i);
		a->ovf |= b->ovf;
		a->cnt += b->cnt;
		break;
	case DL_AGG_BOOL_AND:
	case DL_AGG_BOOL_OR: a->s.i += b->s.i; /* fall through */
	case DL_AGG_COUNT_STAR:
	case DL_AGG_COUNT:
	case DL_AGG_COUNT_IF: a->cnt += b->cnt; break;
	case DL_AGG_MIN:
	case DL_AGG_MAX:
		if (b->row >= 0 &&
		    (a->row < 0 || (g->kind == DL_AGG_MIN ? cmp_rows(g, b->row, a->row) < 0 : cmp_rows(g, b->row, a->row) > 0)))
			a->row = b->row;
		break;
	case DL_AGG_FIRST:
	case DL_AGG_ANY_VALUE:
		if (a->row < 0) a->row = b->row;
		break;
	case DL_AGG_LAST:
		if (b->row >= 0) a->row = b->row;
		break;
	default: { /* variance family: Chan et al.'s pairwise combination */
		if (b->cnt == 0) break;
		if (a->cnt == 0) {
			*a = *b;
			break;
		}
		double n = (double)(a->cnt + b->cnt), delta = b->s.d - a->s.d;
		a->m2 += b->m2 + delta * delta * (double)a->cnt * (double)b->cnt / n;
		a->s.d += delta * (double)b->cnt / n;
		a->cnt += b->cnt;
	}
	}
}

static int overflow(const char *type)
{
	return dl_error_set_class(DL_EINVALID, "ARITHMETIC_OVERFLOW",
	                          "[ARITHMETIC_OVERFLOW] sum overflowed %s; use try_sum to get NULL instead", type);
}

static int acc_put(const win_agg *g, dl_builder *bl, const wacc *a)
{
	switch (g->kind) {
	case DL_AGG_COUNT_STAR:
	case DL_AGG_COUNT:
	case DL_AGG_COUNT_IF: return dl_builder_append_int(bl, a->cnt);
	case DL_AGG_BOOL_AND:
	case DL_AGG_BOOL_OR:
		if (a->cnt == 0) return dl_builder_append_null(bl);
		return dl_builder_append_bool(bl, g->kind == DL_AGG_BOOL_AND ? a->s.i == 0 : a->s.i > 0);
	case DL_AGG_SUM:
		if (a->cnt == 0) return dl_builder_append_null(bl);
		if (a->ovf) return overflow(g->out->id == DL_TYPE_DECIMAL ? "DECIMAL" : "BIGINT");
		if (g->out->id == DL_TYPE_DECIMAL) {
			if (!ex_dec_fits(a->s.dec, g->out->precision)) return overflow("DECIMAL");
			return dl_builder_append_decimal(bl, a->s.dec);
		}
		if (g->out->id == DL_TYPE_DOUBLE) return dl_builder_append_double(bl, a->s.d);
		return dl_builder_append_int(bl, a->s.i);
	case DL_AGG_AVG: {
		if (a->cnt == 0) return dl_builder_append_null(bl);
		if (g->out->id != DL_TYPE_DECIMAL) return dl_builder_append_double(bl, a->s.d / (double)a->cnt);
		if (a->ovf) return overflow("DECIMAL");
		/* |sum| * 10^(shift+1) / count, then HALF_UP on the last digit */
		int shift = g->out->scale - g->in->scale;
		bool neg = a->s.dec < 0;
		dl_i128 q;
		if (!ex_dec_div_wide(neg ? -a->s.dec : a->s.dec, shift + 1, (dl_i128)a->cnt, &q)) return overflow("DECIMAL");
		q = (q + 5) / 10;
		if (neg) q = -q;
		if (!ex_dec_fits(q, g->out->precision)) return overflow("DECIMAL");
		return dl_builder_append_decimal(bl, q);
	}
	case DL_AGG_MIN:
	case DL_AGG_MAX:
	case DL_AGG_FIRST:
	case DL_AGG_LAST:
	case DL_AGG_ANY_VALUE:
		if (a->row < 0) return dl_builder_append_null(bl);
		return dl_builder_append_range(bl, g->x, a->row, 1);
	default: {
		bool samp = g->kind == DL_AGG_VAR_SAMP || g->kind == DL_AGG_STDDEV_SAMP;
		if (a->cnt < (samp ? 2 : 1)) return dl_builder_append_null(bl);
		double var = a->m2 / (double)(samp ? a->cnt - 1 : a->cnt);
		if (var < 0) var = 0;
		return dl_builder_append_double(bl, g->kind >= DL_AGG_STDDEV_SAMP ? sqrt(var) : var);
	}
	}
}

/* Growing frames: lo fixed at the partition start, hi never decreasing. */
static bool growing(const int64_t *lo, const int64_t *hi, int64_t ps, int64_t pe)
{
	for (int64_t i = ps; i < pe; i++)
		if (lo[i] != ps || (i > ps && hi[i] < hi[i - 1])) return false;
	return true;
}

static int eval_growing(const win_agg *g, dl_builder *bl, int64_t ps, int64_t pe, const int64_t *hi)
{
	wacc a;
	acc_init(&a);
	int64_t c = ps;
	for (int64_t i = ps; i < pe; i++) {
		while (c < hi[i]) acc_add(g, &a, c++);
		DL_TRY(acc_put(g, bl, &a));
	}
	return 0;
}

/* A segment tree over the partition's rows: leaves m..m+len, node k merges
 * 2k and 2k+1 (left rows first). */
static int eval_tree(const win_agg *g, dl_builder *bl, int64_t ps, int64_t pe, const int64_t *lo, const int64_t *hi)
{
	int64_t len = pe - ps, m = 1;
	while (m < len) m *= 2;
	int64_t bytes = 2 * m * (int64_t)sizeof(wacc);
	DL_TRY(dl_exec_mem_charge(g->mem, bytes, "window"));
	wacc *t = dl_malloc((size_t)bytes);
	if (!t) {
		dl_exec_mem_release(g->mem, bytes);
		return dl_error_set(DL_ENOMEM, "out of memory for a window partition of %lld rows", (long long)len);
	}
	for (int64_t k = 0; k < 2 * m; k++) acc_init(&t[k]);
	for (int64_t k = 0; k < len; k++) acc_add(g, &t[m + k], ps + k);
	for (int64_t k = m - 1; k >= 1; k--) {
		t[k] = t[2 * k];
		acc_merge(g, &t[k], &t[2 * k + 1]);
	}
	int rc = 0;
	wacc prev;
	for (int64_t i = ps; i < pe && rc == 0; i++) {
		if (i == ps || lo[i] != lo[i - 1] || hi[i] != hi[i - 1]) {
			wacc l, r;
			acc_init(&l);
			acc_init(&r);
			for (int64_t a = lo[i] - ps + m, b = hi[i] - ps + m; a < b; a /= 2, b /= 2) {
				if (a & 1) acc_merge(g, &l, &t[a++]);
				if (b & 1) {
					wacc x = t[--b];
					acc_merge(g, &x, &r);
					r = x;
				}
			}
			acc_merge(g, &l, &r);
			prev = l;
		}
		rc = acc_put(g, bl, &prev);
	}
	dl_free(t);
	dl_exec_mem_release(g->mem, bytes);
	return rc;
}

/* The kinds kept in agg_ext.h's state (lists, sketches): growing frames
 * feed each row once and read the state after every row; other frames
 * rebuild it per distinct frame, O(frame) each (these kinds cannot drop a
 * row from their state). */
static int eval_ext(win_agg *g, dl_builder *bl, int64_t ps, int64_t pe, const int64_t *lo, const int64_t *hi)
{
	bool grow = growing(lo, hi, ps, pe);
	uint32_t *zero = dl_calloc((size_t)(pe - ps), sizeof *zero);
	if (!zero) return dl_error_set(DL_ENOMEM, "out of memory");
	dl_array *last = NULL;
	int64_t fed = ps;
	int rc = 0;
	for (int64_t i = ps; i < pe && rc == 0; i++) {
		if (i > ps && lo[i] == lo[i - 1] && hi[i] == hi[i - 1]) {
			rc = dl_builder_append_range(bl, last, 0, 1);
			continue;
		}
		if (!grow || i == ps) {
			rc = dl_agg_ext_reset(g->ext);
			fed = lo[i];
		}
		if (rc == 0 && hi[i] > fed) {
			dl_array *part = dl_array_slice(g->x, fed, hi[i] - fed);
			rc = part ? dl_agg_ext_update(g->ext, zero, 1, part, hi[i] - fed) : dl_exec_failed();
			dl_array_free(part);
			fed = hi[i];
		}
		dl_array_free(last);
		last = NULL;
		if (rc == 0) rc = dl_agg_ext_finish(g->ext, &last, 0, 1);
		if (rc == 0) rc = dl_builder_append_range(bl, last, 0, 1);
	}
	dl_array_free(last);
	dl_free(zero);
	return rc;
}

int dl_win_agg_eval(dl_array **out, win_agg *g, const win_rows *w, const int64_t *lo, const int64_t *hi)
{
	*out = NULL;
	dl_array *x = NULL;
	int rc = g->arg ? dl_expr_eval(&x, g->arg, w->sorted, w->ctx ? &w->ctx->eval : NULL) : 0;
	g->x = x;
	dl_builder *bl = NULL;
	if (rc == 0) rc = dl_builder_new(&bl, g->out);
	if (rc == 0) rc = dl_builder_reserve(bl, w->n, 0);
	for (int64_t p = 0; rc == 0 && p < w->nparts; p++) {
		int64_t ps = w->part[p], pe = w->part[p + 1];
		if (g->ext) rc = eval_ext(g, bl, ps, pe, lo, hi);
		else rc = growing(lo, hi, ps, pe) ? eval_growing(g, bl, ps, pe, hi) : eval_tree(g, bl, ps, pe, lo, hi);
	}
	if (rc == 0) rc = dl_builder_finish(out, bl);
	dl_builder_free(bl);
	dl_array_free(x);
	g->x = NULL;
	return rc;
}
