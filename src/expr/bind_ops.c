/* Binding of operators (bind_ops.c): arithmetic with Spark's decimal
 * result types, date/time and interval arithmetic, comparisons with their
 * implicit casts, boolean and bitwise operators. */
#include "expr/binder.h"
#include "util/error.h"
#include <string.h>

int ex_op_mismatch(ex_node *n, const char *sym)
{
	char t1[128], t2[128] = "";
	ex_tname(n->args[0]->type, t1, sizeof t1);
	if (n->nargs > 1) ex_tname(n->args[1]->type, t2, sizeof t2);
	return dl_error_set(DL_EINVALID, "[DATATYPE_MISMATCH] operator '%s' at position %d does not accept %s%s%s", sym,
	                    n->pos, t1, n->nargs > 1 ? " and " : "", t2);
}

static void dec_adjust(int *p, int *s)
{
	if (*p <= 38) return;
	int intd = *p - *s, mins = *s < 6 ? *s : 6;
	*s = 38 - intd > mins ? 38 - intd : mins;
	*p = 38;
}

static const dl_type *decimal_result(ex_bind *b, int op, const dl_type *x, const dl_type *y)
{
	int p1 = x->precision, s1 = x->scale, p2 = y->precision, s2 = y->scale, p, s;
	switch (op) {
	case OP_ADD:
	case OP_SUB:
		s = s1 > s2 ? s1 : s2;
		p = (p1 - s1 > p2 - s2 ? p1 - s1 : p2 - s2) + s + 1;
		break;
	case OP_MUL:
		p = p1 + p2 + 1;
		s = s1 + s2;
		break;
	case OP_DIV:
		s = 6 > s1 + p2 + 1 ? 6 : s1 + p2 + 1;
		p = p1 - s1 + s2 + s;
		break;
	default: /* OP_MOD */
		s = s1 > s2 ? s1 : s2;
		p = (p1 - s1 < p2 - s2 ? p1 - s1 : p2 - s2) + s;
		break;
	}
	dec_adjust(&p, &s);
	return ex_type_dec(b, p, s);
}


/* Date/time arithmetic: date +/- int, date/timestamp +/- interval. */
static int bind_datetime_arith(ex_bind *b, ex_node *n, bool *handled)
{
	ex_node *x = n->args[0], *y = n->args[1];
	*handled = false;
	bool yint = y->type->id == DL_TYPE_INTEGER || y->type->id == DL_TYPE_SHORT || y->type->id == DL_TYPE_BYTE;
	bool xint = x->type->id == DL_TYPE_INTEGER || x->type->id == DL_TYPE_SHORT || x->type->id == DL_TYPE_BYTE;
	if (x->type->id == DL_TYPE_DATE && yint && (n->op == OP_ADD || n->op == OP_SUB)) {
		*handled = true;
		return ex_bind_call_internal(b, n, n->op == OP_ADD ? "date_add" : "date_sub");
	}
	if (xint && y->type->id == DL_TYPE_DATE && n->op == OP_ADD) {
		n->args[0] = y;
		n->args[1] = x;
		*handled = true;
		return ex_bind_call_internal(b, n, "date_add");
	}
	if (x->type->id == DL_TYPE_DATE && y->type->id == DL_TYPE_DATE && n->op == OP_SUB) {
		return dl_error_set(DL_EUNSUPPORTED,
		                    "date - date at position %d yields an INTERVAL, which is not supported; use datediff(end, start)",
		                    n->pos);
	}
	return 0;
}

static int bind_interval_arith(ex_bind *b, ex_node *n)
{
	ex_node *x = n->args[0], *iv = n->args[1];
	if (n->op != OP_ADD && n->op != OP_SUB) return dl_error_set(DL_EINVALID, "an INTERVAL can only be added or subtracted");
	if (x->kind == EX_INTERVAL) {
		if (n->op == OP_SUB) return dl_error_set(DL_EINVALID, "cannot subtract a date/time from an INTERVAL");
		ex_node *t = x;
		x = iv;
		iv = t;
	}
	if (x->type->id == DL_TYPE_STRING) DL_TRY(ex_coerce(b, &x, ex_type(b, DL_TYPE_TIMESTAMP)));
	if (!ex_is_datetime(x->type))
		return dl_error_set(DL_EINVALID, "an INTERVAL at position %d can only be added to a DATE or TIMESTAMP", n->pos);
	int sign = n->op == OP_SUB ? -1 : 1;
	/* DATE + days-only interval stays a DATE (Spark's DateAddInterval). */
	if (x->type->id == DL_TYPE_DATE && iv->micros != 0) DL_TRY(ex_coerce(b, &x, ex_type(b, DL_TYPE_TIMESTAMP)));
	DL_TRY(ex_node_set_args(b->e, n, 4));
	n->args[0] = x;
	dl_scalar s = {.type = DL_TYPE_INTEGER};
	s.v.i64 = sign * (int64_t)iv->months;
	if (!(n->args[1] = ex_lit_node(b, &s, n->pos))) return DL_ENOMEM;
	s.v.i64 = sign * (int64_t)iv->days;
	if (!(n->args[2] = ex_lit_node(b, &s, n->pos))) return DL_ENOMEM;
	s.type = DL_TYPE_LONG;
	s.v.i64 = sign * iv->micros;
	if (!(n->args[3] = ex_lit_node(b, &s, n->pos))) return DL_ENOMEM;
	return ex_bind_call_internal(b, n, "__add_interval");
}

static int bind_arith(ex_bind *b, ex_node *n)
{
	static const char *const sym[] = {[OP_ADD] = "+", [OP_SUB] = "-", [OP_MUL] = "*", [OP_DIV] = "/",
	                                  [OP_MOD] = "%", [OP_IDIV] = "div"};
	ex_node **x = &n->args[0], **y = &n->args[1];
	if ((*x)->kind == EX_INTERVAL || (*y)->kind == EX_INTERVAL) return bind_interval_arith(b, n);
	bool handled;
	DL_TRY(bind_datetime_arith(b, n, &handled));
	if (handled) return 0;
	/* Strings in arithmetic: cast to the numeric side's type (ANSI). */
	if ((*x)->type->id == DL_TYPE_STRING && ex_is_numeric((*y)->type))
		DL_TRY(ex_coerce(b, x, ex_type(b, (*y)->type->id == DL_TYPE_DECIMAL ? DL_TYPE_DOUBLE : DL_TYPE_LONG)));
	if ((*y)->type->id == DL_TYPE_STRING && ex_is_numeric((*x)->type))
		DL_TRY(ex_coerce(b, y, ex_type(b, (*x)->type->id == DL_TYPE_DECIMAL ? DL_TYPE_DOUBLE : DL_TYPE_LONG)));
	if ((*x)->type->id == DL_TYPE_STRING && (*y)->type->id == DL_TYPE_STRING) {
		DL_TRY(ex_coerce(b, x, ex_type(b, DL_TYPE_DOUBLE)));
		DL_TRY(ex_coerce(b, y, ex_type(b, DL_TYPE_DOUBLE)));
	}
	if ((*x)->type->id == DL_TYPE_NULL) DL_TRY(ex_coerce(b, x, (*y)->type->id == DL_TYPE_NULL ? ex_type(b, DL_TYPE_DOUBLE) : (*y)->type));
	if ((*y)->type->id == DL_TYPE_NULL) DL_TRY(ex_coerce(b, y, (*x)->type));
	const dl_type *tx = (*x)->type, *ty = (*y)->type;
	if (!ex_is_numeric(tx) || !ex_is_numeric(ty)) return ex_op_mismatch(n, sym[n->op]);
	bool dec = (tx->id == DL_TYPE_DECIMAL || ty->id == DL_TYPE_DECIMAL) && ex_numeric_rank(tx->id) <= 5 &&
	           ex_numeric_rank(ty->id) <= 5;
	if (n->op == OP_IDIV) {
		const dl_type *c = dec ? ex_wider_decimal(b, tx, ty) : ex_common_type(b, tx, ty, "div", n->pos);
		if (!c) return DL_ENOMEM;
		if (c->id == DL_TYPE_FLOAT || c->id == DL_TYPE_DOUBLE) return ex_op_mismatch(n, "div");
		if (!dec) c = ex_type(b, DL_TYPE_LONG);
		DL_TRY(ex_coerce(b, x, c));
		DL_TRY(ex_coerce(b, y, c));
		n->type = ex_type(b, DL_TYPE_LONG);
		return 0;
	}
	if (dec) {
		const dl_type *dx = ex_decimal_of(b, tx), *dy = ex_decimal_of(b, ty);
		DL_TRY(ex_coerce(b, x, dx));
		DL_TRY(ex_coerce(b, y, dy));
		n->type = (dl_type *)decimal_result(b, n->op, dx, dy);
		return n->type ? 0 : DL_ENOMEM;
	}
	if (n->op == OP_DIV) {
		const dl_type *d = ex_type(b, DL_TYPE_DOUBLE);
		DL_TRY(ex_coerce(b, x, d));
		DL_TRY(ex_coerce(b, y, d));
		n->type = (dl_type *)d;
		return 0;
	}
	const dl_type *c = ex_common_type(b, tx, ty, sym[n->op], n->pos);
	if (!c) return DL_EINVALID;
	DL_TRY(ex_coerce(b, x, c));
	DL_TRY(ex_coerce(b, y, c));
	n->type = (dl_type *)c;
	return 0;
}

/* Binds a function call with operator semantics (mod, try_add...). */
int ex_bind_arith_op(ex_bind *b, ex_node *n, int op)
{
	const ex_func *f = n->fn;
	n->kind = EX_OP;
	n->op = op;
	DL_TRY(bind_arith(b, n));
	if (n->kind == EX_OP) {
		n->kind = EX_CALL;
		n->fn = f;
	}
	return 0;
}

int ex_bind_compare(ex_bind *b, ex_node *n)
{
	static const char *const sym[] = {[OP_EQ] = "=", [OP_NE] = "!=", [OP_LT] = "<", [OP_LE] = "<=",
	                                  [OP_GT] = ">", [OP_GE] = ">=", [OP_NSEQ] = "<=>"};
	const dl_type *c = ex_common_type(b, n->args[0]->type, n->args[1]->type, sym[n->op], n->pos);
	if (!c) return DL_EINVALID;
	if (c->id == DL_TYPE_MAP || c->id == DL_TYPE_VARIANT) return ex_op_mismatch(n, sym[n->op]);
	DL_TRY(ex_coerce(b, &n->args[0], c));
	DL_TRY(ex_coerce(b, &n->args[1], c));
	n->type = ex_type(b, DL_TYPE_BOOLEAN);
	return n->type ? 0 : DL_ENOMEM;
}

int ex_to_boolean(ex_bind *b, ex_node **slot, const char *what, int pos)
{
	const dl_type *t = (*slot)->type;
	if (t->id == DL_TYPE_BOOLEAN) return 0;
	if (t->id == DL_TYPE_NULL || t->id == DL_TYPE_STRING) return ex_coerce(b, slot, ex_type(b, DL_TYPE_BOOLEAN));
	char tn[128];
	return dl_error_set(DL_EINVALID, "[DATATYPE_MISMATCH] %s at position %d needs a BOOLEAN operand, got %s", what, pos,
	                    ex_tname(t, tn, sizeof tn));
}

static int bind_integral_bits(ex_bind *b, ex_node *n, const char *sym)
{
	for (int i = 0; i < n->nargs; i++) {
		if (n->args[i]->type->id == DL_TYPE_NULL) DL_TRY(ex_coerce(b, &n->args[i], ex_type(b, DL_TYPE_INTEGER)));
		if (!dl_type_is_integral(n->args[i]->type)) return ex_op_mismatch(n, sym);
	}
	const dl_type *c = n->args[0]->type;
	if (n->nargs == 2) {
		c = ex_common_type(b, c, n->args[1]->type, sym, n->pos);
		if (!c) return DL_EINVALID;
		DL_TRY(ex_coerce(b, &n->args[0], c));
		DL_TRY(ex_coerce(b, &n->args[1], c));
	}
	n->type = (dl_type *)c;
	return 0;
}

int ex_bind_op(ex_bind *b, ex_node *n)
{
	switch (n->op) {
	case OP_NEG:
	case OP_POS:
		if (n->args[0]->type->id == DL_TYPE_STRING) DL_TRY(ex_coerce(b, &n->args[0], ex_type(b, DL_TYPE_DOUBLE)));
		if (n->args[0]->type->id == DL_TYPE_NULL) DL_TRY(ex_coerce(b, &n->args[0], ex_type(b, DL_TYPE_INTEGER)));
		if (!ex_is_numeric(n->args[0]->type)) return ex_op_mismatch(n, n->op == OP_NEG ? "-" : "+");
		n->type = n->args[0]->type;
		return 0;
	case OP_NOT:
		DL_TRY(ex_to_boolean(b, &n->args[0], "NOT", n->pos));
		n->type = ex_type(b, DL_TYPE_BOOLEAN);
		return 0;
	case OP_BITNOT: return bind_integral_bits(b, n, "~");
	case OP_BITAND: return bind_integral_bits(b, n, "&");
	case OP_BITOR: return bind_integral_bits(b, n, "|");
	case OP_BITXOR: return bind_integral_bits(b, n, "^");
	case OP_AND:
	case OP_OR:
		DL_TRY(ex_to_boolean(b, &n->args[0], n->op == OP_AND ? "AND" : "OR", n->pos));
		DL_TRY(ex_to_boolean(b, &n->args[1], n->op == OP_AND ? "AND" : "OR", n->pos));
		n->type = ex_type(b, DL_TYPE_BOOLEAN);
		return 0;
	case OP_CONCAT:
		return ex_bind_call_internal(b, n, "concat");
	case OP_EQ:
	case OP_NE:
	case OP_LT:
	case OP_LE:
	case OP_GT:
	case OP_GE:
	case OP_NSEQ: return ex_bind_compare(b, n);
	default: return bind_arith(b, n);
	}
}

