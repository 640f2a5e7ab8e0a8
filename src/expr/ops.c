/* Operators row by row: comparisons under Spark's total order, ANSI
 * arithmetic (overflow and division by zero raise errors), decimal
 * arithmetic at the result type the binder chose. */
#include "expr/ops.h"
#include "util/error.h"
#include <math.h>
#include <string.h>

int ex_err_overflow(const char *what, const char *try_fn)
{
	return dl_error_set_class(DL_EINVALID, "ARITHMETIC_OVERFLOW",
	                          "[ARITHMETIC_OVERFLOW] %s overflow. Use '%s' to tolerate overflow and return NULL instead.",
	                          what, try_fn);
}

int ex_err_divzero(void)
{
	return dl_error_set_class(DL_EINVALID, "DIVIDE_BY_ZERO",
	                          "[DIVIDE_BY_ZERO] Division by zero. Use `try_divide` to tolerate divisor being 0 and "
	                          "return NULL instead.");
}

static int cmp_double(double a, double b)
{
	if (a < b) return -1;
	if (a > b) return 1;
	if (a == b) return 0;
	bool na = isnan(a), nb = isnan(b);
	return na == nb ? 0 : na ? 1 : -1;
}

static int cmp_bytes(const char *a, int64_t an, const char *b, int64_t bn)
{
	int64_t m = an < bn ? an : bn;
	int c = memcmp(a, b, (size_t)m);
	if (c) return c < 0 ? -1 : 1;
	return an < bn ? -1 : an > bn;
}

static int cmp_nested(const ex_val *a, const ex_val *b, const dl_type *t)
{
	const dl_array *aa = a->v.ref.a, *ba = b->v.ref.a;
	int64_t ar = a->v.ref.row, br = b->v.ref.row;
	if (t->id == DL_TYPE_STRUCT) {
		for (int i = 0; i < t->nchildren; i++) {
			ex_val x, y;
			ex_val_load(&x, aa->children[i], ar);
			ex_val_load(&y, ba->children[i], br);
			if (x.null || y.null) {
				if (x.null != y.null) return x.null ? -1 : 1;
				continue;
			}
			int c = ex_val_cmp(&x, &y, t->children[i].type);
			if (c) return c;
		}
		return 0;
	}
	if (t->id == DL_TYPE_ARRAY) {
		int64_t an = aa->offsets[ar + 1] - aa->offsets[ar], bn = ba->offsets[br + 1] - ba->offsets[br];
		for (int64_t i = 0; i < an && i < bn; i++) {
			ex_val x, y;
			ex_val_load(&x, aa->children[0], aa->offsets[ar] + i);
			ex_val_load(&y, ba->children[0], ba->offsets[br] + i);
			if (x.null || y.null) {
				if (x.null != y.null) return x.null ? -1 : 1;
				continue;
			}
			int c = ex_val_cmp(&x, &y, t->children[0].type);
			if (c) return c;
		}
		return an < bn ? -1 : an > bn;
	}
	return 0;
}

int ex_val_cmp(const ex_val *a, const ex_val *b, const dl_type *t)
{
	switch (t->id) {
	case DL_TYPE_BOOLEAN: return (int)a->v.b - (int)b->v.b;
	case DL_TYPE_FLOAT:
	case DL_TYPE_DOUBLE: return cmp_double(a->v.d, b->v.d);
	case DL_TYPE_DECIMAL: return a->v.dec < b->v.dec ? -1 : a->v.dec > b->v.dec;
	case DL_TYPE_STRING:
	case DL_TYPE_BINARY: return cmp_bytes(a->v.s.p, a->v.s.n, b->v.s.p, b->v.s.n);
	case DL_TYPE_STRUCT:
	case DL_TYPE_ARRAY: return cmp_nested(a, b, t);
	case DL_TYPE_NULL: return 0;
	default: return a->v.i < b->v.i ? -1 : a->v.i > b->v.i;
	}
}

bool ex_val_eq(const ex_val *a, const ex_val *b, const dl_type *t)
{
	if (t->id == DL_TYPE_STRING || t->id == DL_TYPE_BINARY)
		return a->v.s.n == b->v.s.n && memcmp(a->v.s.p, b->v.s.p, (size_t)a->v.s.n) == 0;
	return ex_val_cmp(a, b, t) == 0;
}

static int row_cmp(ex_row *r, ex_val *out, const ex_val *a)
{
	int c = ex_val_cmp(&a[0], &a[1], r->argt[0]);
	bool v;
	switch (r->node->op) {
	case OP_EQ: v = c == 0; break;
	case OP_NE: v = c != 0; break;
	case OP_LT: v = c < 0; break;
	case OP_LE: v = c <= 0; break;
	case OP_GT: v = c > 0; break;
	default: v = c >= 0; break;
	}
	out->v.b = v;
	return 0;
}

static int row_nseq(ex_row *r, ex_val *out, const ex_val *a)
{
	if (a[0].null || a[1].null) out->v.b = a[0].null && a[1].null;
	else out->v.b = ex_val_cmp(&a[0], &a[1], r->argt[0]) == 0;
	return 0;
}

static const char *type_word(dl_type_id t)
{
	switch (t) {
	case DL_TYPE_BYTE: return "tinyint";
	case DL_TYPE_SHORT: return "smallint";
	case DL_TYPE_INTEGER: return "integer";
	default: return "long";
	}
}

static const char *try_name(int op)
{
	switch (op) {
	case OP_ADD: return "try_add";
	case OP_SUB: return "try_subtract";
	case OP_MUL: return "try_multiply";
	case OP_DIV:
	case OP_IDIV: return "try_divide";
	default: return "try_mod";
	}
}

static bool fits(dl_type_id t, int64_t v)
{
	switch (t) {
	case DL_TYPE_BYTE: return v >= INT8_MIN && v <= INT8_MAX;
	case DL_TYPE_SHORT: return v >= INT16_MIN && v <= INT16_MAX;
	case DL_TYPE_INTEGER: return v >= INT32_MIN && v <= INT32_MAX;
	default: return true;
	}
}

/* Returns 1 when the result is NULL (try mode), 0 ok, <0 error. */
int ex_int_arith(int op, dl_type_id t, int64_t a, int64_t b, int64_t *out, bool try_mode)
{
	int64_t r = 0;
	bool ovf = false;
	switch (op) {
	case OP_ADD: ovf = __builtin_add_overflow(a, b, &r); break;
	case OP_SUB: ovf = __builtin_sub_overflow(a, b, &r); break;
	case OP_MUL: ovf = __builtin_mul_overflow(a, b, &r); break;
	case OP_IDIV:
	case OP_MOD:
		if (b == 0) return try_mode ? 1 : ex_err_divzero();
		if (a == INT64_MIN && b == -1) {
			if (op == OP_MOD) r = 0;
			else ovf = true;
		} else {
			r = op == OP_MOD ? a % b : a / b;
		}
		break;
	case OP_BITAND: r = a & b; break;
	case OP_BITOR: r = a | b; break;
	case OP_BITXOR: r = a ^ b; break;
	}
	if (!ovf && !fits(t, r)) ovf = op != OP_IDIV || t != DL_TYPE_LONG;
	if (op == OP_IDIV && t != DL_TYPE_LONG) ovf = false; /* div returns BIGINT */
	if (ovf) return try_mode ? 1 : ex_err_overflow(type_word(t), try_name(op));
	*out = r;
	return 0;
}

static int dec_out_of_range(const dl_type *t, bool try_mode)
{
	if (try_mode) return 1;
	return dl_error_set_class(DL_EINVALID, "NUMERIC_VALUE_OUT_OF_RANGE",
	                          "[NUMERIC_VALUE_OUT_OF_RANGE] the result cannot be represented as DECIMAL(%d,%d). Use "
	                          "try_ functions to return NULL instead.",
	                          t->precision, t->scale);
}

int ex_dec_arith(int op, const dl_type *ta, dl_i128 a, const dl_type *tb, dl_i128 b, const dl_type *tr, dl_i128 *out,
                 bool try_mode, bool *is_null)
{
	*is_null = false;
	dl_i128 r;
	int s = ta->scale > tb->scale ? ta->scale : tb->scale;
	int rc;
	switch (op) {
	case OP_ADD:
	case OP_SUB:
	case OP_MOD: {
		dl_i128 x, y;
		if (!ex_dec_rescale(a, ta->scale, s, 39, &x) || !ex_dec_rescale(b, tb->scale, s, 39, &y))
			return (rc = dec_out_of_range(tr, try_mode)) > 0 ? (*is_null = true, 0) : rc;
		if (op == OP_MOD) {
			if (y == 0) return try_mode ? (*is_null = true, 0) : ex_err_divzero();
			r = x % y;
		} else if (op == OP_ADD ? __builtin_add_overflow(x, y, &r) : __builtin_sub_overflow(x, y, &r)) {
			return (rc = dec_out_of_range(tr, try_mode)) > 0 ? (*is_null = true, 0) : rc;
		}
		break;
	}
	case OP_MUL:
		s = ta->scale + tb->scale;
		if (__builtin_mul_overflow(a, b, &r)) {
			/* the exact product needs more than 128 bits: round it there */
			if (!ex_dec_mul_wide(a, b, s - tr->scale, tr->precision, out))
				return (rc = dec_out_of_range(tr, try_mode)) > 0 ? (*is_null = true, 0) : rc;
			return 0;
		}
		break;
	case OP_DIV: {
		if (b == 0) return try_mode ? (*is_null = true, 0) : ex_err_divzero();
		/* a/10^sa / (b/10^sb) at scale sr: a * 10^(sr - sa + sb + 1) / b, then round */
		int shift = tr->scale - ta->scale + tb->scale + 1;
		dl_i128 num;
		if (shift >= 0 && shift <= 38 && !__builtin_mul_overflow(a, ex_pow10(shift), &num)) r = num / b;
		else if (!ex_dec_div_wide(a, shift, b, &r))
			return (rc = dec_out_of_range(tr, try_mode)) > 0 ? (*is_null = true, 0) : rc;
		s = tr->scale + 1;
		break;
	}
	case OP_IDIV: {
		dl_i128 x, y;
		if (!ex_dec_rescale(a, ta->scale, s, 39, &x) || !ex_dec_rescale(b, tb->scale, s, 39, &y))
			return (rc = dec_out_of_range(tr, try_mode)) > 0 ? (*is_null = true, 0) : rc;
		if (y == 0) return try_mode ? (*is_null = true, 0) : ex_err_divzero();
		r = x / y;
		if (r > INT64_MAX || r < INT64_MIN) return try_mode ? (*is_null = true, 0) : ex_err_overflow("long", "try_divide");
		*out = r;
		return 0;
	}
	default: return dl_error_set(DL_ERROR, "bad decimal operator");
	}
	if (!ex_dec_rescale(r, s, tr->scale, tr->precision, out))
		return (rc = dec_out_of_range(tr, try_mode)) > 0 ? (*is_null = true, 0) : rc;
	return 0;
}

static int arith(ex_row *r, ex_val *out, const ex_val *a, int op, bool try_mode)
{
	const dl_type *t = r->node->type;
	const dl_type *ta = r->argt[0];
	switch (ta->id) {
	case DL_TYPE_FLOAT:
	case DL_TYPE_DOUBLE: {
		double x = a[0].v.d, y = a[1].v.d, v;
		switch (op) {
		case OP_ADD: v = x + y; break;
		case OP_SUB: v = x - y; break;
		case OP_MUL: v = x * y; break;
		case OP_DIV:
			if (y == 0) {
				if (try_mode) return out->null = true, 0;
				return ex_err_divzero();
			}
			v = x / y;
			break;
		default:
			if (y == 0) {
				if (try_mode) return out->null = true, 0;
				return ex_err_divzero();
			}
			v = fmod(x, y);
		}
		out->v.d = ta->id == DL_TYPE_FLOAT ? (double)(float)v : v;
		return 0;
	}
	case DL_TYPE_DECIMAL: {
		bool isnull;
		int rc = ex_dec_arith(op, ta, a[0].v.dec, r->argt[1], a[1].v.dec, t, &out->v.dec, try_mode, &isnull);
		if (op == OP_IDIV && rc == 0) out->v.i = (int64_t)out->v.dec;
		out->null = isnull;
		return rc;
	}
	default: {
		int rc = ex_int_arith(op, ta->id, a[0].v.i, a[1].v.i, &out->v.i, try_mode);
		if (rc > 0) out->null = true;
		return rc < 0 ? rc : 0;
	}
	}
}

static int row_arith(ex_row *r, ex_val *out, const ex_val *a)
{
	return arith(r, out, a, r->node->op, false);
}

int ex_row_try_arith(ex_row *r, ex_val *out, const ex_val *a, int op)
{
	return arith(r, out, a, op, true);
}

static int row_neg(ex_row *r, ex_val *out, const ex_val *a)
{
	const dl_type *t = r->argt[0];
	if (r->node->op == OP_POS) {
		*out = a[0];
		return 0;
	}
	switch (t->id) {
	case DL_TYPE_FLOAT:
	case DL_TYPE_DOUBLE: out->v.d = -a[0].v.d; return 0;
	case DL_TYPE_DECIMAL: out->v.dec = -a[0].v.dec; return 0;
	default:
		if (a[0].v.i == INT64_MIN || !fits(t->id, -a[0].v.i)) return ex_err_overflow(type_word(t->id), "try_subtract");
		out->v.i = -a[0].v.i;
		return 0;
	}
}

static int row_bitnot(ex_row *r, ex_val *out, const ex_val *a)
{
	(void)r;
	out->v.i = ~a[0].v.i;
	return 0;
}

ex_row_fn ex_op_row_fn(const ex_node *n)
{
	switch (n->op) {
	case OP_EQ:
	case OP_NE:
	case OP_LT:
	case OP_LE:
	case OP_GT:
	case OP_GE: return row_cmp;
	case OP_NSEQ: return row_nseq;
	case OP_NEG:
	case OP_POS: return row_neg;
	case OP_BITNOT: return row_bitnot;
	default: return row_arith;
	}
}
