/* Math functions with Spark's result types: ceil/floor give BIGINT (or
 * DECIMAL(p-s+1,0)), round/bround keep the input type (decimals get the
 * rounded scale), ln/log of non-positive values are NULL, sqrt(-1) NaN.
 * round on doubles rounds the shortest decimal text of the value, as
 * Spark's BigDecimal(double) does. */
#include "expr/fn.h"
#include "expr/ops.h"
#include "expr/parse_util.h"
#include "util/error.h"
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int ex_format_double(char *out, double d, bool is_float); /* cast.c */
int ex_bind_arith_op(ex_bind *b, ex_node *n, int op);   /* binder.c */
int ex_row_try_arith(ex_row *r, ex_val *out, const ex_val *a, int op);

ROWFN(fn_abs)
{
	const dl_type *t = r->argt[0];
	switch (t->id) {
	case DL_TYPE_FLOAT:
	case DL_TYPE_DOUBLE: out->v.d = fabs(a[0].v.d); return 0;
	case DL_TYPE_DECIMAL: out->v.dec = a[0].v.dec < 0 ? -a[0].v.dec : a[0].v.dec; return 0;
	default: {
		int64_t v = a[0].v.i;
		int64_t lo = t->id == DL_TYPE_BYTE ? INT8_MIN : t->id == DL_TYPE_SHORT ? INT16_MIN
		           : t->id == DL_TYPE_INTEGER ? INT32_MIN : INT64_MIN;
		if (v == lo) return ex_err_overflow(t->id == DL_TYPE_LONG ? "long" : "integer", "try_abs");
		out->v.i = v < 0 ? -v : v;
		return 0;
	}
	}
}

ROWFN(fn_negative)
{
	const dl_type *t = r->argt[0];
	switch (t->id) {
	case DL_TYPE_FLOAT:
	case DL_TYPE_DOUBLE: out->v.d = -a[0].v.d; return 0;
	case DL_TYPE_DECIMAL: out->v.dec = -a[0].v.dec; return 0;
	default: {
		int64_t z;
		int rc = ex_int_arith(OP_SUB, t->id, 0, a[0].v.i, &z, false);
		out->v.i = z;
		return rc;
	}
	}
}

ROWFN(fn_positive)
{
	(void)r;
	*out = a[0];
	return 0;
}

BINDFN(bind_ceil_floor)
{
	const dl_type *t = n->args[0]->type;
	if (t->id == DL_TYPE_STRING) DL_TRY(ex_coerce(b, &n->args[0], ex_type(b, DL_TYPE_DOUBLE)));
	t = n->args[0]->type;
	if (t->id == DL_TYPE_DECIMAL) {
		int p = t->precision - t->scale + 1;
		n->type = ex_type_dec(b, p > 38 ? 38 : p, 0);
	} else {
		n->type = ex_type(b, DL_TYPE_LONG);
	}
	return 0;
}

static int ceil_floor(ex_row *r, ex_val *out, const ex_val *a, bool up)
{
	const dl_type *t = r->argt[0];
	switch (t->id) {
	case DL_TYPE_FLOAT:
	case DL_TYPE_DOUBLE: {
		double d = up ? ceil(a[0].v.d) : floor(a[0].v.d);
		/* Java's Math.round-free cast: NaN -> 0, saturating */
		if (isnan(d)) out->v.i = 0;
		else if (d >= 9223372036854775807.0) out->v.i = INT64_MAX;
		else if (d <= -9223372036854775808.0) out->v.i = INT64_MIN;
		else out->v.i = (int64_t)d;
		return 0;
	}
	case DL_TYPE_DECIMAL: {
		dl_i128 m = ex_pow10(t->scale), q = a[0].v.dec / m, rem = a[0].v.dec % m;
		if (up && rem > 0) q++;
		if (!up && rem < 0) q--;
		out->v.dec = q;
		return 0;
	}
	default: out->v.i = a[0].v.i; return 0;
	}
}

ROWFN(fn_ceil) { return ceil_floor(r, out, a, true); }
ROWFN(fn_floor) { return ceil_floor(r, out, a, false); }

BINDFN(bind_round)
{
	const dl_type *t = n->args[0]->type;
	if (n->nargs == 2 && n->args[1]->kind != EX_LIT)
		return dl_error_set(DL_EINVALID, "the scale argument of %s() must be a constant", n->fn->name);
	int d = 0;
	if (n->nargs == 2) {
		DL_TRY(ex_coerce(b, &n->args[1], ex_type(b, DL_TYPE_INTEGER)));
		d = n->args[1]->lit.is_null ? 0 : (int)n->args[1]->lit.v.i64;
	}
	if (t->id == DL_TYPE_STRING) {
		DL_TRY(ex_coerce(b, &n->args[0], ex_type(b, DL_TYPE_DOUBLE)));
		t = n->args[0]->type;
	}
	if (t->id == DL_TYPE_DECIMAL) {
		int s = d < t->scale ? (d < 0 ? 0 : d) : t->scale;
		int p = t->precision - t->scale + s + 1;
		n->type = ex_type_dec(b, p > 38 ? 38 : p, s);
	} else {
		n->type = (dl_type *)t;
	}
	return 0;
}

/* Rounds the unscaled v at `scale` to `digits` after the point. */
static dl_i128 round_dec(dl_i128 v, int scale, int digits, bool even)
{
	if (digits >= scale) return v;
	int k = scale - digits;
	if (k > 38) return 0;
	dl_i128 m = ex_pow10(k), q = v / m, rem = v % m;
	dl_i128 ar = rem < 0 ? -rem : rem;
	bool up = ar * 2 > m || (ar * 2 == m && (!even || (q % 2 != 0)));
	if (up) q += v < 0 ? -1 : 1;
	return q;
}

static double round_double(double d, int digits, bool even)
{
	if (!isfinite(d) || d == 0) return d;
	double ad = fabs(d);
	int intd = ad >= 1 ? (int)floor(log10(ad)) + 1 : 0;
	int scale = 37 - intd;
	if (scale > 30) scale = 30;
	if (scale < 0 || digits >= scale) return d;
	/* Spark rounds BigDecimal(d.toString): the shortest decimal text. */
	char txt[64];
	ex_format_double(txt, d, false);
	dl_i128 v;
	if (ex_decimal_from_text(txt, strlen(txt), 38, scale, &v, false) < 0) {
		dl_error_clear();
		return d;
	}
	dl_i128 q = round_dec(v, scale, digits, even);
	if (digits >= 0) return ex_dec_to_double(q, digits);
	if (-digits > 37) return 0.0 * d;
	dl_i128 m;
	if (__builtin_mul_overflow(q, ex_pow10(-digits), &m)) return d;
	return ex_dec_to_double(m, 0);
}

static int do_round(ex_row *r, ex_val *out, const ex_val *a, bool even)
{
	const dl_type *t = r->argt[0];
	int d = r->nargs == 2 ? (int)a[1].v.i : 0;
	switch (t->id) {
	case DL_TYPE_FLOAT:
	case DL_TYPE_DOUBLE: out->v.d = round_double(a[0].v.d, d, even); return 0;
	case DL_TYPE_DECIMAL: {
		const dl_type *rt = r->node->type;
		dl_i128 q = round_dec(a[0].v.dec, t->scale, d, even);
		if (d < 0) q *= ex_pow10(-d);
		if (d < 0 || d < t->scale) {
			/* q is at scale max(d,0) (times 10^-d when d < 0) */
			int qs = d < 0 ? 0 : d;
			if (!ex_dec_rescale(q, qs, rt->scale, rt->precision, &out->v.dec))
				return ex_err_overflow("decimal", "try_round");
		} else {
			out->v.dec = a[0].v.dec;
		}
		return 0;
	}
	default: {
		if (d >= 0) {
			out->v.i = a[0].v.i;
			return 0;
		}
		dl_i128 q = round_dec(a[0].v.i, 0, d, even);
		if (d < -18) q = 0;
		else q *= ex_pow10(-d);
		int64_t lo = t->id == DL_TYPE_BYTE ? INT8_MIN : t->id == DL_TYPE_SHORT ? INT16_MIN
		           : t->id == DL_TYPE_INTEGER ? INT32_MIN : INT64_MIN;
		int64_t hi = -(lo + 1);
		if (q < lo || q > hi) return ex_err_overflow("integer", "try_round");
		out->v.i = (int64_t)q;
		return 0;
	}
	}
}

ROWFN(fn_round) { return do_round(r, out, a, false); }
ROWFN(fn_bround) { return do_round(r, out, a, true); }

BINDFN(bind_mod)
{
	return ex_bind_arith_op(b, n, OP_MOD);
}

ROWFN(fn_mod)
{
	ex_node fake = *r->node;
	fake.op = OP_MOD;
	ex_row rr = *r;
	rr.node = &fake;
	return ex_op_row_fn(&fake)(&rr, out, a);
}

ROWFN(fn_pmod)
{
	DL_TRY(fn_mod(r, out, a));
	if (out->null) return 0;
	/* pmod: ((a % n) + n) % n */
	const dl_type *t = r->node->type;
	switch (t->id) {
	case DL_TYPE_FLOAT:
	case DL_TYPE_DOUBLE:
		if (out->v.d < 0) out->v.d = fmod(out->v.d + a[1].v.d, a[1].v.d);
		return 0;
	case DL_TYPE_DECIMAL: {
		if (out->v.dec < 0) {
			dl_i128 m;
			int s = r->argt[1]->scale;
			if (!ex_dec_rescale(a[1].v.dec, s, t->scale, 38, &m)) return ex_err_overflow("decimal", "try_mod");
			out->v.dec = (out->v.dec + m) % m;
		}
		return 0;
	}
	default:
		if (out->v.i < 0) out->v.i = (out->v.i + a[1].v.i) % a[1].v.i;
		return 0;
	}
}

ROWFN(fn_sqrt) { (void)r; out->v.d = sqrt(a[0].v.d); return 0; }
ROWFN(fn_pow) { (void)r; out->v.d = pow(a[0].v.d, a[1].v.d); return 0; }
ROWFN(fn_exp) { (void)r; out->v.d = exp(a[0].v.d); return 0; }

static int logf_(ex_val *out, double x, double (*f)(double))
{
	if (x <= 0) out->null = true;
	else out->v.d = f(x);
	return 0;
}

ROWFN(fn_ln) { (void)r; return logf_(out, a[0].v.d, log); }
ROWFN(fn_log10) { (void)r; return logf_(out, a[0].v.d, log10); }
ROWFN(fn_log2) { (void)r; return logf_(out, a[0].v.d, log2); }

ROWFN(fn_log)
{
	if (r->nargs == 1) return logf_(out, a[0].v.d, log);
	double base = a[0].v.d, x = a[1].v.d;
	if (base <= 0 || x <= 0) out->null = true;
	else out->v.d = log(x) / log(base);
	return 0;
}

static int extreme(ex_row *r, ex_val *out, const ex_val *a, int sign)
{
	out->null = true;
	for (int i = 0; i < r->nargs; i++) {
		if (a[i].null) continue;
		if (out->null || ex_val_cmp(&a[i], out, r->node->type) * sign > 0) *out = a[i];
	}
	return 0;
}

ROWFN(fn_greatest) { return extreme(r, out, a, 1); }
ROWFN(fn_least) { return extreme(r, out, a, -1); }

ROWFN(fn_isnan)
{
	(void)r;
	out->null = false;
	out->v.b = !a[0].null && isnan(a[0].v.d);
	return 0;
}

ROWFN(fn_nanvl)
{
	(void)r;
	out->v.d = isnan(a[0].v.d) ? a[1].v.d : a[0].v.d;
	return 0;
}

ROWFN(fn_sign)
{
	(void)r;
	double d = a[0].v.d;
	out->v.d = isnan(d) ? d : d > 0 ? 1.0 : d < 0 ? -1.0 : 0.0;
	return 0;
}

static const int try_ops[] = {OP_ADD, OP_SUB, OP_MUL, OP_DIV, OP_MOD};

static int try_op_of(const ex_node *n)
{
	const char *nm = n->fn->name;
	if (strcmp(nm, "try_add") == 0) return try_ops[0];
	if (strcmp(nm, "try_subtract") == 0) return try_ops[1];
	if (strcmp(nm, "try_multiply") == 0) return try_ops[2];
	if (strcmp(nm, "try_divide") == 0) return try_ops[3];
	return try_ops[4];
}

BINDFN(bind_try_arith)
{
	return ex_bind_arith_op(b, n, try_op_of(n));
}

static int try_arith(ex_row *r, ex_val *out, const ex_val *a)
{
	return ex_row_try_arith(r, out, a, try_op_of(r->node));
}

ROWFN(fn_try_add) { return try_arith(r, out, a); }
ROWFN(fn_try_sub) { return try_arith(r, out, a); }
ROWFN(fn_try_mul) { return try_arith(r, out, a); }
ROWFN(fn_try_div) { return try_arith(r, out, a); }
ROWFN(fn_try_mod) { return try_arith(r, out, a); }

/* ---- trigonometry and friends (DOUBLE -> DOUBLE, as java.lang.Math) ---- */

#define D1(name, expr)                  \
	ROWFN(name)                         \
	{                                   \
		(void)r;                        \
		double x = a[0].v.d;            \
		out->v.d = (expr);              \
		return 0;                       \
	}

D1(fn_sin, sin(x))
D1(fn_cos, cos(x))
D1(fn_tan, tan(x))
D1(fn_cot, 1.0 / tan(x))
D1(fn_asin, asin(x))
D1(fn_acos, acos(x))
D1(fn_atan, atan(x))
D1(fn_sinh, sinh(x))
D1(fn_cosh, cosh(x))
D1(fn_tanh, tanh(x))
/* libm's cbrt may be 1 ulp off (cbrt(27) = 3.0000000000000004); pick the
 * neighbour whose cube is closest, as Java's correctly rounded result. */
ROWFN(fn_cbrt)
{
	(void)r;
	double x = a[0].v.d, y = cbrt(x);
	if (isfinite(y) && y != 0) {
		double best = y;
		long double err = fabsl((long double)y * y * y - x);
		double c[2] = {nextafter(y, -INFINITY), nextafter(y, INFINITY)};
		for (int i = 0; i < 2; i++) {
			long double e = fabsl((long double)c[i] * c[i] * c[i] - x);
			if (e < err) {
				err = e;
				best = c[i];
			}
		}
		y = best;
	}
	out->v.d = y;
	return 0;
}
D1(fn_degrees, x * (180.0 / M_PI))
D1(fn_radians, x / 180.0 * M_PI)
D1(fn_rint, rint(x))
D1(fn_expm1, expm1(x))

ROWFN(fn_log1p)
{
	(void)r;
	if (a[0].v.d <= -1.0) out->null = true;
	else out->v.d = log1p(a[0].v.d);
	return 0;
}

ROWFN(fn_atan2) { (void)r; out->v.d = atan2(a[0].v.d, a[1].v.d); return 0; }
ROWFN(fn_hypot) { (void)r; out->v.d = hypot(a[0].v.d, a[1].v.d); return 0; }
ROWFN(fn_pi) { (void)r; (void)a; out->v.d = M_PI; return 0; }
ROWFN(fn_e) { (void)r; (void)a; out->v.d = M_E; return 0; }

/* shiftleft/shiftright/shiftrightunsigned on INT or BIGINT: the shift
 * count is taken modulo the width, as Java. */
BINDFN(bind_shift)
{
	if (n->args[0]->type->id != DL_TYPE_LONG) DL_TRY(ex_coerce(b, &n->args[0], ex_type(b, DL_TYPE_INTEGER)));
	DL_TRY(ex_coerce(b, &n->args[1], ex_type(b, DL_TYPE_INTEGER)));
	n->type = n->args[0]->type;
	return 0;
}

static int shift(ex_row *r, ex_val *out, const ex_val *a, int kind)
{
	bool wide = r->argt[0]->id == DL_TYPE_LONG;
	int s = (int)(a[1].v.i & (wide ? 63 : 31));
	if (wide) {
		uint64_t u = (uint64_t)a[0].v.i;
		out->v.i = kind == 0 ? (int64_t)(u << s) : kind == 1 ? a[0].v.i >> s : (int64_t)(u >> s);
	} else {
		uint32_t u = (uint32_t)(int32_t)a[0].v.i;
		int32_t v = (int32_t)a[0].v.i;
		out->v.i = kind == 0 ? (int32_t)(u << s) : kind == 1 ? v >> s : (int32_t)(u >> s);
	}
	return 0;
}

ROWFN(fn_shiftleft) { return shift(r, out, a, 0); }
ROWFN(fn_shiftright) { return shift(r, out, a, 1); }
ROWFN(fn_shiftrightunsigned) { return shift(r, out, a, 2); }

ROWFN(fn_bit_count)
{
	bool wide = r->argt[0]->id == DL_TYPE_LONG;
	out->v.i = wide ? __builtin_popcountll((unsigned long long)a[0].v.i)
	                : __builtin_popcount((unsigned)(uint32_t)(int32_t)a[0].v.i);
	return 0;
}

BINDFN(bind_bit_count)
{
	if (n->args[0]->type->id != DL_TYPE_LONG) DL_TRY(ex_coerce(b, &n->args[0], ex_type(b, DL_TYPE_INTEGER)));
	n->type = ex_type(b, DL_TYPE_INTEGER);
	return n->type ? 0 : DL_ENOMEM;
}

/* factorial(n): NULL outside 0..20, as Spark. */
ROWFN(fn_factorial)
{
	(void)r;
	int64_t n = a[0].v.i;
	if (n < 0 || n > 20) {
		out->null = true;
		return 0;
	}
	int64_t f = 1;
	for (int64_t k = 2; k <= n; k++) f *= k;
	out->v.i = f;
	return 0;
}
