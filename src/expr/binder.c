/* Binding: resolves column references (case-insensitively, nested fields
 * with dots), looks up functions, types every node and inserts Spark's
 * implicit casts (ANSI mode): integral widening, decimal precision/scale
 * rules, strings compared with dates/timestamps/numbers cast to the other
 * side. The bound tree is a rewritten copy; the parsed tree stays for
 * printing. Literal-only subtrees are folded. */
#include "expr/binder.h"
#include "expr/datetime.h"
#include "util/error.h"
#include "util/mem.h"
#include <string.h>
#include <strings.h>

static int bind_node(ex_bind *b, const ex_node *src, ex_node **out);

dl_type *ex_type(ex_bind *b, dl_type_id id)
{
	return ex_keep_type(b->e, id == DL_TYPE_VARIANT ? dl_type_variant() : dl_type_new(id));
}

dl_type *ex_type_dec(ex_bind *b, int p, int s)
{
	return ex_keep_type(b->e, dl_type_decimal(p, s));
}

dl_type *ex_decimal_of(ex_bind *b, const dl_type *t)
{
	switch (t->id) {
	case DL_TYPE_BYTE: return ex_type_dec(b, 3, 0);
	case DL_TYPE_SHORT: return ex_type_dec(b, 5, 0);
	case DL_TYPE_INTEGER: return ex_type_dec(b, 10, 0);
	case DL_TYPE_LONG: return ex_type_dec(b, 20, 0);
	case DL_TYPE_DECIMAL: return (dl_type *)t;
	default: return NULL;
	}
}

dl_type *ex_type_code(ex_bind *b, char c)
{
	switch (c) {
	case 'S': return ex_type(b, DL_TYPE_STRING);
	case 'B': return ex_type(b, DL_TYPE_BOOLEAN);
	case 'I': return ex_type(b, DL_TYPE_INTEGER);
	case 'L': return ex_type(b, DL_TYPE_LONG);
	case 'D': return ex_type(b, DL_TYPE_DOUBLE);
	case 'A': return ex_type(b, DL_TYPE_DATE);
	case 'T': return ex_type(b, DL_TYPE_TIMESTAMP);
	case 'Y': return ex_type(b, DL_TYPE_BINARY);
	default: return NULL;
	}
}

ex_node *ex_lit_node(ex_bind *b, const dl_scalar *s, int pos)
{
	ex_node *n = ex_node_new(b->e, EX_LIT, pos);
	if (!n) return NULL;
	n->lit = *s;
	if ((s->type == DL_TYPE_STRING || s->type == DL_TYPE_BINARY) && !s->is_null) {
		char *c = dl_arena_strndup(&b->e->arena, s->v.str.ptr ? s->v.str.ptr : "", s->v.str.len);
		if (!c) return NULL;
		n->lit.v.str.ptr = c;
	}
	n->type = s->type == DL_TYPE_DECIMAL ? ex_type_dec(b, s->precision, s->scale) : ex_type(b, s->type);
	return n->type ? n : NULL;
}

int ex_numeric_rank(dl_type_id id)
{
	switch (id) {
	case DL_TYPE_BYTE: return 1;
	case DL_TYPE_SHORT: return 2;
	case DL_TYPE_INTEGER: return 3;
	case DL_TYPE_LONG: return 4;
	case DL_TYPE_DECIMAL: return 5;
	case DL_TYPE_FLOAT: return 6;
	case DL_TYPE_DOUBLE: return 7;
	default: return 0;
	}
}

bool ex_is_numeric(const dl_type *t)
{
	return ex_numeric_rank(t->id) > 0;
}

const dl_type *ex_wider_decimal(ex_bind *b, const dl_type *x, const dl_type *y)
{
	const dl_type *dx = ex_decimal_of(b, x), *dy = ex_decimal_of(b, y);
	if (!dx || !dy) return NULL;
	int s = dx->scale > dy->scale ? dx->scale : dy->scale;
	int r = dx->precision - dx->scale > dy->precision - dy->scale ? dx->precision - dx->scale : dy->precision - dy->scale;
	int p = r + s > 38 ? 38 : r + s;
	if (s > p) s = p;
	return ex_type_dec(b, p, s);
}

const dl_type *ex_common_type(ex_bind *b, const dl_type *x, const dl_type *y, const char *what, int pos)
{
	char t1[128], t2[128];
	if (dl_type_equals(x, y)) return x;
	if (x->id == DL_TYPE_NULL) return y;
	if (y->id == DL_TYPE_NULL) return x;
	int px = ex_numeric_rank(x->id), py = ex_numeric_rank(y->id);
	if (px && py) {
		if (x->id == DL_TYPE_DECIMAL || y->id == DL_TYPE_DECIMAL) {
			if (px > 5 || py > 5) return ex_type(b, DL_TYPE_DOUBLE);
			return ex_wider_decimal(b, x, y);
		}
		return px > py ? x : y;
	}
	/* Strings meet other atomic types on the other side's ground. */
	if (x->id == DL_TYPE_STRING || y->id == DL_TYPE_STRING) {
		const dl_type *o = x->id == DL_TYPE_STRING ? y : x;
		switch (o->id) {
		case DL_TYPE_BYTE:
		case DL_TYPE_SHORT:
		case DL_TYPE_INTEGER:
		case DL_TYPE_LONG: return ex_type(b, DL_TYPE_LONG);
		case DL_TYPE_FLOAT:
		case DL_TYPE_DOUBLE:
		case DL_TYPE_DECIMAL: return ex_type(b, DL_TYPE_DOUBLE);
		case DL_TYPE_BOOLEAN:
		case DL_TYPE_DATE:
		case DL_TYPE_TIMESTAMP:
		case DL_TYPE_TIMESTAMP_NTZ:
		case DL_TYPE_BINARY: return o;
		default: break;
		}
	}
	bool xd = x->id == DL_TYPE_DATE || x->id == DL_TYPE_TIMESTAMP || x->id == DL_TYPE_TIMESTAMP_NTZ;
	bool yd = y->id == DL_TYPE_DATE || y->id == DL_TYPE_TIMESTAMP || y->id == DL_TYPE_TIMESTAMP_NTZ;
	if (xd && yd) {
		if (x->id == DL_TYPE_TIMESTAMP || y->id == DL_TYPE_TIMESTAMP) return ex_type(b, DL_TYPE_TIMESTAMP);
		return ex_type(b, DL_TYPE_TIMESTAMP_NTZ);
	}
	if (x->id == DL_TYPE_ARRAY && y->id == DL_TYPE_ARRAY) {
		const dl_type *el = ex_common_type(b, x->children[0].type, y->children[0].type, what, pos);
		if (!el) return NULL;
		return ex_keep_type(b->e, dl_type_array((dl_type *)el, true));
	}
	dl_error_set(DL_EINVALID,
	             "[DATATYPE_MISMATCH] %s at position %d: cannot use %s and %s together; add an explicit CAST", what,
	             pos, ex_tname(x, t1, sizeof t1), ex_tname(y, t2, sizeof t2));
	return NULL;
}

/* ---- folding and coercion ---------------------------------------------- */

int ex_fold(ex_bind *b, ex_node **slot)
{
	ex_node *n = *slot;
	if (n->kind == EX_LIT) return 0;
	if (n->kind == EX_CALL && n->fn && !(n->fn->flags & FN_DET)) return 0;
	for (int i = 0; i < n->nargs; i++)
		if (n->args[i]->kind != EX_LIT) return 0;
	if (n->type->id == DL_TYPE_STRUCT || n->type->id == DL_TYPE_ARRAY || n->type->id == DL_TYPE_MAP ||
	    n->type->id == DL_TYPE_VARIANT)
		return 0;
	/* Evaluate over a one-row, zero-column batch. */
	dl_type *empty = dl_type_struct(NULL, 0);
	if (!empty) return DL_ENOMEM;
	dl_batch batch = {empty, 1, 0, NULL};
	ex_run r;
	int rc = ex_run_init(&r, b->e, &batch, b->ctx);
	ex_vec v = {0};
	if (rc == 0) rc = ex_eval_node(&v, n, &r);
	if (rc < 0) {
		/* Leave it to run time: Spark raises such errors when the row is
		 * evaluated, so a CHECK on an empty table still binds. */
		dl_type_unref(empty);
		dl_error_clear();
		return 0;
	}
	ex_val val;
	ex_val_load(&val, v.a, 0);
	dl_scalar s;
	ex_scalar_from_val(&s, &val, n->type);
	ex_node *lit = ex_lit_node(b, &s, n->pos);
	if (lit && n->type->id != DL_TYPE_DECIMAL && !lit->type) lit = NULL;
	if (lit) {
		lit->type = ex_keep_type(b->e, dl_type_ref(n->type));
		if (!lit->type) lit = NULL;
	}
	ex_vec_release(&v);
	dl_type_unref(empty);
	if (!lit) return DL_ENOMEM;
	*slot = lit;
	return 0;
}

int ex_coerce(ex_bind *b, ex_node **slot, const dl_type *to)
{
	ex_node *n = *slot;
	if (dl_type_equals(n->type, to)) return 0;
	ex_node *c = ex_node_new(b->e, EX_CAST, n->pos);
	if (!c || ex_node_set_args(b->e, c, 1) < 0) return DL_ENOMEM;
	c->args[0] = n;
	c->to = ex_keep_type(b->e, dl_type_ref((dl_type *)to));
	c->type = c->to;
	if (!c->to) return DL_ENOMEM;
	*slot = c;
	if (n->kind == EX_LIT) {
		/* A literal that cannot be cast is an error now (ANSI). */
		dl_type *empty = dl_type_struct(NULL, 0);
		if (!empty) return DL_ENOMEM;
		dl_batch batch = {empty, 1, 0, NULL};
		ex_run r;
		ex_vec v = {0};
		int rc = ex_run_init(&r, b->e, &batch, b->ctx);
		if (rc == 0) rc = ex_eval_node(&v, c, &r);
		ex_vec_release(&v);
		dl_type_unref(empty);
		DL_TRY(rc);
		return ex_fold(b, slot);
	}
	return 0;
}

/* ---- columns ----------------------------------------------------------- */

static int unknown_column(const ex_node *src, const dl_type *st, int depth)
{
	dl_buf avail = DL_BUF_INIT;
	for (int i = 0; i < st->nchildren && i < 50; i++) {
		if (i) dl_buf_puts(&avail, ", ");
		dl_buf_puts(&avail, st->children[i].name);
	}
	dl_buf name = DL_BUF_INIT;
	for (int i = 0; i <= depth && i < src->npath; i++) {
		if (i) dl_buf_putc(&name, '.');
		dl_buf_puts(&name, src->path[i]);
	}
	int rc = dl_error_set(DL_EINVALID, "[UNRESOLVED_COLUMN] column '%s' does not exist; available: %s",
	                      name.data ? name.data : "", avail.data ? avail.data : "(none)");
	dl_buf_free(&avail);
	dl_buf_free(&name);
	return rc;
}

static int resolve_path(ex_bind *b, const ex_node *src, int skip, ex_node *n)
{
	const dl_type *t = b->schema;
	n->npath = src->npath - skip;
	n->path = dl_arena_calloc(&b->e->arena, (size_t)n->npath, sizeof *n->path);
	n->colidx = dl_arena_calloc(&b->e->arena, (size_t)n->npath, sizeof *n->colidx);
	if (!n->path || !n->colidx) return DL_ENOMEM;
	for (int i = 0; i < n->npath; i++) {
		if (t->id != DL_TYPE_STRUCT) {
			char tn[128];
			return dl_error_set(DL_EINVALID, "cannot access field '%s' of %s '%s' (not a struct)", src->path[skip + i],
			                    ex_tname(t, tn, sizeof tn), src->path[skip + i - 1]);
		}
		int k = dl_type_field_index(t, src->path[skip + i]);
		if (k < 0) return unknown_column(src, t, skip + i);
		n->colidx[i] = k;
		n->path[i] = t->children[k].name;
		t = t->children[k].type;
	}
	n->type = ex_keep_type(b->e, dl_type_ref((dl_type *)t));
	return n->type ? 0 : DL_ENOMEM;
}

static int bind_column(ex_bind *b, const ex_node *src, ex_node *n)
{
	if (!b->schema) return dl_error_set(DL_EINVALID, "column '%s' used where no columns are available", src->path[0]);
	if (dl_type_field_index(b->schema, src->path[0]) < 0 && src->npath > 1 &&
	    dl_type_field_index(b->schema, src->path[1]) >= 0)
		return resolve_path(b, src, 1, n); /* t.c: a table qualifier */
	return resolve_path(b, src, 0, n);
}

int ex_regex_prepare(dl_expr *e, ex_node *n); /* fn_string.c */

/* ---- functions --------------------------------------------------------- */

/* Argument spec codes: X any; S string; B boolean; I int; L long; D double;
 * A date; T timestamp; Y binary; N numeric (strings become DOUBLE); Z date
 * or timestamp (strings become TIMESTAMP); C all C arguments share their
 * common type. Result codes: the same letters, '0' = type of argument 0,
 * 'C' = the common type. */
static int apply_spec(ex_bind *b, ex_node *n, const ex_func *f)
{
	const char *spec = f->argspec ? f->argspec : "";
	size_t sl = strlen(spec);
	const dl_type *common = NULL;
	for (int i = 0; i < n->nargs; i++) {
		char c = sl == 0 ? 'X' : spec[(size_t)i < sl ? (size_t)i : sl - 1];
		if (c != 'C') continue;
		const dl_type *t = n->args[i]->type;
		common = common ? ex_common_type(b, common, t, f->name, n->pos) : t;
		if (!common) return DL_EINVALID;
	}
	if (common && common->id == DL_TYPE_NULL) common = ex_type(b, DL_TYPE_STRING);
	for (int i = 0; i < n->nargs; i++) {
		char c = sl == 0 ? 'X' : spec[(size_t)i < sl ? (size_t)i : sl - 1];
		ex_node **a = &n->args[i];
		const dl_type *t = (*a)->type;
		char tn[128];
		switch (c) {
		case 'X': break;
		case 'C': DL_TRY(ex_coerce(b, a, common)); break;
		case 'N':
			if (t->id == DL_TYPE_STRING || t->id == DL_TYPE_NULL) DL_TRY(ex_coerce(b, a, ex_type(b, DL_TYPE_DOUBLE)));
			else if (!ex_is_numeric(t))
				return dl_error_set(DL_EINVALID,
				                    "[DATATYPE_MISMATCH] argument %d of %s() must be numeric, got %s", i + 1, f->name,
				                    ex_tname(t, tn, sizeof tn));
			break;
		case 'Z':
			if (t->id == DL_TYPE_STRING || t->id == DL_TYPE_NULL) DL_TRY(ex_coerce(b, a, ex_type(b, DL_TYPE_TIMESTAMP)));
			else if (!ex_is_datetime(t))
				return dl_error_set(DL_EINVALID, "[DATATYPE_MISMATCH] argument %d of %s() must be a DATE or TIMESTAMP, got %s",
				                    i + 1, f->name, ex_tname(t, tn, sizeof tn));
			break;
		default: {
			dl_type *want = ex_type_code(b, c);
			if (!want) return DL_ENOMEM;
			if (want->id == DL_TYPE_BOOLEAN && t->id != DL_TYPE_BOOLEAN && t->id != DL_TYPE_NULL &&
			    t->id != DL_TYPE_STRING)
				return dl_error_set(DL_EINVALID, "[DATATYPE_MISMATCH] argument %d of %s() must be BOOLEAN, got %s", i + 1,
				                    f->name, ex_tname(t, tn, sizeof tn));
			if ((t->id == DL_TYPE_STRUCT || t->id == DL_TYPE_ARRAY || t->id == DL_TYPE_MAP) && !dl_type_equals(t, want))
				return dl_error_set(DL_EINVALID, "[DATATYPE_MISMATCH] argument %d of %s() cannot be %s", i + 1, f->name,
				                    ex_tname(t, tn, sizeof tn));
			DL_TRY(ex_coerce(b, a, want));
		}
		}
	}
	if (f->result == '0') n->type = n->args[0]->type;
	else if (f->result == 'C') n->type = (dl_type *)(common ? common : ex_type(b, DL_TYPE_STRING));
	else if (f->result) n->type = ex_type_code(b, f->result);
	return 0;
}

static int bind_call_fn(ex_bind *b, ex_node *n, const ex_func *f)
{
	if (n->nargs < f->min_args || (f->max_args >= 0 && n->nargs > f->max_args)) {
		if (f->max_args == f->min_args)
			return dl_error_set(DL_EINVALID, "[WRONG_NUM_ARGS] %s() takes %d argument%s, got %d (position %d)", f->name,
			                    f->min_args, f->min_args == 1 ? "" : "s", n->nargs, n->pos);
		return dl_error_set(DL_EINVALID, "[WRONG_NUM_ARGS] %s() takes %d to %s arguments, got %d (position %d)", f->name,
		                    f->min_args, f->max_args < 0 ? "any number of" : "", n->nargs, n->pos);
	}
	n->fn = f;
	n->kind = EX_CALL;
	if (f->bind) DL_TRY(f->bind(b, n));
	/* a bind hook with no result code has done all the typing */
	if (!f->bind || f->result != 0) DL_TRY(apply_spec(b, n, f));
	if (!n->type) return DL_ENOMEM;
	static const char *const regex_fns[] = {"rlike", "regexp_like", "regexp_replace", "regexp_extract", "split"};
	for (size_t i = 0; i < sizeof regex_fns / sizeof regex_fns[0]; i++)
		if (strcmp(f->name, regex_fns[i]) == 0) return ex_regex_prepare(b->e, n);
	return 0;
}

int ex_bind_call_internal(ex_bind *b, ex_node *n, const char *fname)
{
	const ex_func *f = ex_func_lookup(fname);
	if (!f) return dl_error_set(DL_ERROR, "internal function %s missing", fname);
	n->name = f->name;
	return bind_call_fn(b, n, f);
}

static int bind_call(ex_bind *b, ex_node *n)
{
	const ex_func *f = ex_func_lookup(n->name);
	if (!f)
		return dl_error_set(DL_EINVALID,
		                    "[UNRESOLVED_ROUTINE] function '%s' at position %d does not exist or is not supported in expressions",
		                    n->name, n->pos);
	if (n->flag) return dl_error_set(DL_EINVALID, "%s(*) is not supported in expressions", n->name);
	return bind_call_fn(b, n, f);
}

/* ---- other nodes ------------------------------------------------------- */

static int common_of_args(ex_bind *b, ex_node *n, int from, int step, const char *what, const dl_type **out)
{
	const dl_type *c = NULL;
	for (int i = from; i < n->nargs; i += step) {
		c = c ? ex_common_type(b, c, n->args[i]->type, what, n->pos) : n->args[i]->type;
		if (!c) return DL_EINVALID;
	}
	*out = c;
	return 0;
}

static int bind_case(ex_bind *b, ex_node *n)
{
	int first = 0;
	if (n->flag) {
		/* CASE x WHEN v THEN ... -> CASE WHEN x = v THEN ... */
		ex_node *x = n->args[0];
		int nb = n->nargs - 1;
		ex_node **old = n->args;
		DL_TRY(ex_node_set_args(b->e, n, nb));
		for (int i = 0; i < nb; i++) n->args[i] = old[i + 1];
		int nc = (nb - (n->has_else ? 1 : 0)) / 2;
		for (int i = 0; i < nc; i++) {
			ex_node *eq = ex_node_new(b->e, EX_OP, n->args[2 * i]->pos);
			if (!eq || ex_node_set_args(b->e, eq, 2) < 0) return DL_ENOMEM;
			eq->op = OP_EQ;
			eq->args[0] = x;
			eq->args[1] = n->args[2 * i];
			DL_TRY(ex_bind_compare(b, eq));
			n->args[2 * i] = eq;
		}
		n->flag = false;
	}
	int nconds = (n->nargs - (n->has_else ? 1 : 0)) / 2;
	for (int i = 0; i < nconds; i++) DL_TRY(ex_to_boolean(b, &n->args[2 * i], "CASE WHEN", n->pos));
	const dl_type *c = NULL;
	for (int i = 0; i < nconds; i++) {
		const dl_type *t = n->args[2 * i + 1]->type;
		c = c ? ex_common_type(b, c, t, "CASE", n->pos) : t;
		if (!c) return DL_EINVALID;
	}
	if (n->has_else) {
		c = ex_common_type(b, c, n->args[n->nargs - 1]->type, "CASE", n->pos);
		if (!c) return DL_EINVALID;
	}
	for (int i = 0; i < nconds; i++) DL_TRY(ex_coerce(b, &n->args[2 * i + 1], c));
	if (n->has_else) DL_TRY(ex_coerce(b, &n->args[n->nargs - 1], c));
	(void)first;
	n->type = (dl_type *)c;
	return 0;
}

static int bind_between(ex_bind *b, ex_node *n)
{
	/* x BETWEEN lo AND hi -> x >= lo AND x <= hi (NOT: negated) */
	ex_node *ge = ex_node_new(b->e, EX_OP, n->pos), *le = ex_node_new(b->e, EX_OP, n->pos);
	if (!ge || !le || ex_node_set_args(b->e, ge, 2) < 0 || ex_node_set_args(b->e, le, 2) < 0) return DL_ENOMEM;
	ge->op = OP_GE;
	ge->args[0] = n->args[0];
	ge->args[1] = n->args[1];
	le->op = OP_LE;
	le->args[0] = n->args[0];
	le->args[1] = n->args[2];
	DL_TRY(ex_bind_compare(b, ge));
	DL_TRY(ex_bind_compare(b, le));
	bool neg = n->negated;
	n->kind = EX_OP;
	n->op = OP_AND;
	n->negated = false;
	DL_TRY(ex_node_set_args(b->e, n, 2));
	n->args[0] = ge;
	n->args[1] = le;
	n->type = ex_type(b, DL_TYPE_BOOLEAN);
	if (neg) {
		ex_node *inner = ex_node_new(b->e, EX_OP, n->pos);
		if (!inner) return DL_ENOMEM;
		*inner = *n;
		n->op = OP_NOT;
		DL_TRY(ex_node_set_args(b->e, n, 1));
		n->args[0] = inner;
	}
	return 0;
}

int ex_in_prepare(dl_expr *e, ex_node *n); /* eval_in.c */

static int bind_in(ex_bind *b, ex_node *n)
{
	const dl_type *c;
	DL_TRY(common_of_args(b, n, 0, 1, "IN", &c));
	for (int i = 0; i < n->nargs; i++) DL_TRY(ex_coerce(b, &n->args[i], c));
	n->type = ex_type(b, DL_TYPE_BOOLEAN);
	return n->type ? ex_in_prepare(b->e, n) : DL_ENOMEM;
}

int ex_like_prepare(dl_expr *e, ex_node *n); /* like.c */

static int bind_like(ex_bind *b, ex_node *n)
{
	for (int i = 0; i < 2; i++) {
		const dl_type *t = n->args[i]->type;
		if (t->id != DL_TYPE_STRING) {
			if (t->id == DL_TYPE_STRUCT || t->id == DL_TYPE_ARRAY || t->id == DL_TYPE_MAP || t->id == DL_TYPE_BINARY)
				return ex_op_mismatch(n, "LIKE");
			DL_TRY(ex_coerce(b, &n->args[i], ex_type(b, DL_TYPE_STRING)));
		}
	}
	n->type = ex_type(b, DL_TYPE_BOOLEAN);
	return ex_like_prepare(b->e, n);
}

static int bind_index(ex_bind *b, ex_node *n)
{
	const dl_type *t = n->args[0]->type;
	char tn[128];
	if (t->id == DL_TYPE_ARRAY) {
		if (!dl_type_is_integral(n->args[1]->type)) DL_TRY(ex_coerce(b, &n->args[1], ex_type(b, DL_TYPE_INTEGER)));
		else DL_TRY(ex_coerce(b, &n->args[1], ex_type(b, DL_TYPE_INTEGER)));
		n->type = t->children[0].type;
		return 0;
	}
	if (t->id == DL_TYPE_MAP) {
		DL_TRY(ex_coerce(b, &n->args[1], t->children[0].type));
		n->type = t->children[1].type;
		return 0;
	}
	if (t->id == DL_TYPE_STRUCT && n->args[1]->kind == EX_LIT && n->args[1]->lit.type == DL_TYPE_STRING) {
		char *name = dl_arena_strndup(&b->e->arena, n->args[1]->lit.v.str.ptr, n->args[1]->lit.v.str.len);
		if (!name) return DL_ENOMEM;
		int k = dl_type_field_index(t, name);
		if (k < 0) return dl_error_set(DL_EINVALID, "struct has no field '%s' (position %d)", name, n->pos);
		n->kind = EX_FIELD;
		n->nargs = 1;
		n->colidx = dl_arena_calloc(&b->e->arena, 1, sizeof(int));
		if (!n->colidx) return DL_ENOMEM;
		n->colidx[0] = k;
		n->type = t->children[k].type;
		return 0;
	}
	return dl_error_set(DL_EINVALID, "[DATATYPE_MISMATCH] cannot subscript %s at position %d", ex_tname(t, tn, sizeof tn),
	                    n->pos);
}

static int bind_field(ex_bind *b, ex_node *n, const char *name)
{
	const dl_type *t = n->args[0]->type;
	char tn[128];
	if (t->id != DL_TYPE_STRUCT)
		return dl_error_set(DL_EINVALID, "cannot access field '%s' of %s at position %d", name, ex_tname(t, tn, sizeof tn),
		                    n->pos);
	int k = dl_type_field_index(t, name);
	if (k < 0) return dl_error_set(DL_EINVALID, "struct has no field '%s' (position %d)", name, n->pos);
	n->colidx = dl_arena_calloc(&b->e->arena, 1, sizeof(int));
	if (!n->colidx) return DL_ENOMEM;
	n->colidx[0] = k;
	n->type = t->children[k].type;
	return 0;
}


static int bind_node(ex_bind *b, const ex_node *src, ex_node **out)
{
	ex_node *n = ex_node_new(b->e, src->kind, src->pos);
	if (!n) return DL_ENOMEM;
	*n = *src;
	n->type = NULL;
	if (ex_node_set_args(b->e, n, src->nargs) < 0) return DL_ENOMEM;
	for (int i = 0; i < src->nargs; i++) DL_TRY(bind_node(b, src->args[i], &n->args[i]));
	*out = n;
	switch (src->kind) {
	case EX_LIT:
		if (src->lit.type == DL_TYPE_TIMESTAMP && src->flag) {
			n->lit.v.i64 = ex_local_to_ts(src->lit.v.i64, b->tz);
			n->flag = false;
		}
		n->type = src->lit.type == DL_TYPE_DECIMAL ? ex_type_dec(b, src->lit.precision, src->lit.scale)
		                                           : ex_type(b, src->lit.type);
		return n->type ? 0 : DL_ENOMEM;
	case EX_INTERVAL:
		n->type = ex_type(b, DL_TYPE_NULL); /* only valid inside +/- */
		return n->type ? 0 : DL_ENOMEM;
	case EX_COL: return bind_column(b, src, n);
	case EX_OP: DL_TRY(ex_bind_op(b, n)); break;
	case EX_CALL:
		if (src->over || src->distinct)
			return dl_error_set(DL_EUNSUPPORTED, "%s at position %d is an aggregate or window function, "
			                    "which a row expression cannot evaluate", src->name, src->pos);
		DL_TRY(bind_call(b, n));
		break;
	case EX_SUBQUERY:
		return dl_error_set(DL_EUNSUPPORTED, "a subquery at position %d cannot be evaluated in a row expression",
		                    src->pos);
	case EX_PARAM:
		return dl_error_set(DL_EINVALID, "the parameter ? at position %d has no value (the SQL session binds it)",
		                    src->pos);
	case EX_CAST:
		DL_TRY(ex_cast_check(n->args[0]->type, n->to));
		n->type = n->to;
		break;
	case EX_CASE: DL_TRY(bind_case(b, n)); break;
	case EX_IN: DL_TRY(bind_in(b, n)); break;
	case EX_BETWEEN: DL_TRY(bind_between(b, n)); break;
	case EX_LIKE: DL_TRY(bind_like(b, n)); break;
	case EX_IS:
		if (n->op != IS_NULL) DL_TRY(ex_to_boolean(b, &n->args[0], "IS TRUE/FALSE", n->pos));
		n->type = ex_type(b, DL_TYPE_BOOLEAN);
		break;
	case EX_INDEX: DL_TRY(bind_index(b, n)); break;
	case EX_FIELD: DL_TRY(bind_field(b, n, src->path[0])); break;
	}
	if (!n->type) return DL_ENOMEM;
	for (int i = 0; i < n->nargs; i++)
		if (n->args[i]->kind == EX_INTERVAL)
			return dl_error_set(DL_EINVALID, "an INTERVAL at position %d can only be added to or subtracted from a date/time",
			                    n->args[i]->pos);
	return ex_fold(b, out);
}

int dl_expr_bind(dl_expr *e, const dl_type *schema)
{
	return dl_expr_bind_ctx(e, schema, NULL);
}

int dl_expr_bind_ctx(dl_expr *e, const dl_type *schema, const dl_eval_ctx *ctx)
{
	if (schema && schema->id != DL_TYPE_STRUCT) return dl_error_set(DL_EINVALID, "dl_expr_bind needs a STRUCT schema");
	ex_bind b = {e, schema, ctx, dl_tz_utc()};
	if (ctx && ctx->time_zone) DL_TRY(dl_tz_get(&b.tz, ctx->time_zone, strlen(ctx->time_zone)));
	e->bind_tz = b.tz;
	e->bound = NULL;
	if (e->schema) dl_type_unref(e->schema);
	e->schema = schema ? dl_type_ref((dl_type *)schema) : NULL;
	ex_node *root;
	int rc = bind_node(&b, e->root, &root);
	if (rc < 0) return rc;
	if (root->kind == EX_INTERVAL)
		return dl_error_set(DL_EUNSUPPORTED, "an INTERVAL value on its own is not supported; add it to a date/time");
	e->bound = root;
	return 0;
}

const dl_type *dl_expr_type(const dl_expr *e)
{
	return e->bound ? e->bound->type : NULL;
}

static bool det_walk(const ex_node *n)
{
	if (n->kind == EX_CALL) {
		const ex_func *f = n->fn ? n->fn : ex_func_lookup(n->name);
		if (!f || !(f->flags & FN_DET)) return false;
		if (strcmp(f->name, "unix_timestamp") == 0 && n->nargs == 0) return false;
	}
	for (int i = 0; i < n->nargs; i++)
		if (!det_walk(n->args[i])) return false;
	return true;
}

bool dl_expr_is_deterministic(const dl_expr *e)
{
	return det_walk(e->root);
}

typedef struct col_seen {
	const ex_node **items;
	size_t n, cap;
} col_seen;

static bool same_path(const ex_node *a, const ex_node *b)
{
	if (a->npath != b->npath) return false;
	for (int i = 0; i < a->npath; i++)
		if (strcmp(a->path[i], b->path[i]) != 0) return false;
	return true;
}

/* Reports each distinct path once, in order of first appearance. */
static int col_walk(const ex_node *n, dl_expr_column_fn fn, void *payload, col_seen *seen)
{
	if (n->kind == EX_COL) {
		bool dup = false;
		for (size_t i = 0; i < seen->n && !dup; i++) dup = same_path(seen->items[i], n);
		if (!dup) {
			if (seen->n == seen->cap) {
				size_t cap = seen->cap ? seen->cap * 2 : 16;
				const ex_node **g = dl_reallocarray(seen->items, cap, sizeof *g);
				if (!g) return DL_ENOMEM;
				seen->items = g;
				seen->cap = cap;
			}
			seen->items[seen->n++] = n;
			DL_TRY(fn((const char *const *)n->path, n->npath, payload));
		}
	}
	for (int i = 0; i < n->nargs; i++) DL_TRY(col_walk(n->args[i], fn, payload, seen));
	return 0;
}

int dl_expr_columns(const dl_expr *e, dl_expr_column_fn fn, void *payload)
{
	col_seen seen = {NULL, 0, 0};
	int rc = col_walk(e->bound ? e->bound : e->root, fn, payload, &seen);
	dl_free(seen.items);
	return rc;
}

int dl_expr_and(dl_expr **out, const dl_expr *a, const dl_expr *b2)
{
	*out = NULL;
	dl_expr *e = ex_expr_new();
	if (!e) return DL_ENOMEM;
	ex_node *x = a ? ex_copy_tree(e, a->root) : NULL;
	ex_node *y = b2 ? ex_copy_tree(e, b2->root) : NULL;
	if ((a && !x) || (b2 && !y)) {
		dl_expr_free(e);
		return DL_ENOMEM;
	}
	if (x && y) {
		ex_node *n = ex_node_new(e, EX_OP, 0);
		if (!n || ex_node_set_args(e, n, 2) < 0) {
			dl_expr_free(e);
			return DL_ENOMEM;
		}
		n->op = OP_AND;
		n->args[0] = x;
		n->args[1] = y;
		e->root = n;
	} else {
		e->root = x ? x : y;
	}
	if (!e->root) {
		dl_scalar t = {.type = DL_TYPE_BOOLEAN, .v.b = true};
		e->root = ex_node_new(e, EX_LIT, 0);
		if (!e->root) {
			dl_expr_free(e);
			return DL_ENOMEM;
		}
		e->root->lit = t;
	}
	*out = e;
	return 0;
}
