/* File skipping: can a file whose per-column statistics are known hold a
 * row for which the predicate is TRUE? The answer must be sound (false only
 * when certainly no row matches); unknown shapes answer true.
 *
 * NOT is pushed down first (3-valued logic keeps NOT(a < b) == a >= b, and
 * NOT(x AND y) == NOT x OR NOT y, because both sides are NULL exactly
 * together). Leaves are comparisons of a column (possibly behind an
 * order-preserving cast) with a constant. String max statistics may be
 * truncated prefixes (max_is_prefix); float/double max statistics may omit
 * NaN, which Spark orders above everything, so they never exclude >, >=
 * or <>. */
#include "expr/eval.h"
#include "expr/like.h"
#include "expr/prune_variant.h"
#include "util/error.h"
#include <string.h>

typedef struct pr_ctx {
	const dl_stats_provider *sp;
	const dl_tz *tz; /* casts of statistics (DATE to TIMESTAMP) use the bind zone */
} pr_ctx;

typedef struct colinfo {
	dl_col_stats st;
	const dl_type *coltype;  /* the column's type */
	const dl_type *cmptype;  /* the type compared (after a cast) */
	bool have_min, have_max;
	ex_val min, max;         /* in cmptype */
	bool all_null, no_nulls;
	bool no_nan;             /* the values come from a type without NaN */
	dl_buf buf;              /* cast scratch */
} colinfo;

/* Casts that never decrease: statistics of the source bound the result.
 * TIMESTAMP to DATE only in a fixed-offset zone (a daylight-saving zone
 * that moves clocks back across midnight would break it). */
static bool monotonic_cast(const dl_type *from, const dl_type *to, const dl_tz *tz)
{
	if (to->id == DL_TYPE_DATE) {
		if (from->id == DL_TYPE_TIMESTAMP_NTZ) return true;
		if (from->id == DL_TYPE_TIMESTAMP) {
			const char *z = tz ? dl_tz_name(tz) : "UTC";
			return strcmp(z, "UTC") == 0 || z[0] == '+' || z[0] == '-';
		}
		return false;
	}
	dl_type_id f = from->id, t = to->id;
	bool fnum = dl_type_is_numeric(from), tnum = dl_type_is_numeric(to);
	if (fnum && tnum) {
		/* widening only: narrowing casts can fail or wrap */
		if (t == DL_TYPE_DOUBLE || t == DL_TYPE_FLOAT) return true;
		if (t == DL_TYPE_DECIMAL) return true;
		if (f == DL_TYPE_DECIMAL) return false;
		return dl_type_fixed_width(to) >= dl_type_fixed_width(from);
	}
	if (f == DL_TYPE_DATE && (t == DL_TYPE_TIMESTAMP || t == DL_TYPE_TIMESTAMP_NTZ)) return true;
	return false;
}

/* The column under n (possibly behind monotonic casts), or NULL. */
static const ex_node *column_of(const ex_node *n, const ex_node **outer, const dl_tz *tz)
{
	*outer = n;
	while (n->kind == EX_CAST && !n->flag && monotonic_cast(n->args[0]->type, n->type, tz)) n = n->args[0];
	return n->kind == EX_COL || ex_prune_is_variant_get(n) ? n : NULL;
}

static dl_type *scalar_type(const dl_scalar *s)
{
	return s->type == DL_TYPE_DECIMAL ? dl_type_decimal(s->precision, s->scale) : dl_type_new(s->type);
}

/* Loads a stat scalar converted to the comparison type. */
static bool load_stat(colinfo *ci, const dl_scalar *s, ex_val *out, const dl_tz *tz)
{
	if (s->is_null || s->type == DL_TYPE_NULL) return false;
	ex_val v;
	ex_val_from_scalar(&v, s);
	dl_type *st = scalar_type(s);
	if (!st) return false;
	bool ok = true;
	if (!dl_type_equals(st, ci->cmptype)) {
		int rc = ex_cast_val(out, &v, st, ci->cmptype, true, tz, &ci->buf);
		ok = rc == 0 && !out->null;
		if (rc < 0) dl_error_clear();
	} else {
		*out = v;
	}
	dl_type_unref(st);
	return ok;
}

/* A variant_get leaf: the path's bounds converted to the requested type
 * (see prune_variant.c), all_null from the variant column's null count
 * (paths have none, so no_nulls stays unknown). */
static int get_variant(pr_ctx *c, const ex_node *call, colinfo *ci)
{
	const ex_node *col = call->args[0];
	const char *const *path = (const char *const *)col->path;
	int64_t nr = c->sp->num_records;
	if (c->sp->column) {
		dl_col_stats cs;
		DL_TRY(c->sp->column(c->sp->payload, path, col->npath, &cs));
		ci->all_null = cs.all_null || (cs.has_null_count && nr >= 0 && cs.null_count >= nr);
	}
	if (!c->sp->variant_path) return 0;
	dl_buf jp = DL_BUF_INIT;
	int rc = ex_prune_variant_jpath(call, &jp);
	dl_col_stats vs;
	memset(&vs, 0, sizeof vs);
	if (rc == 1) rc = c->sp->variant_path(c->sp->payload, path, col->npath, jp.data, &vs);
	dl_buf_free(&jp);
	DL_TRY(rc);
	if (!ex_prune_variant_cast_ok(vs.has_min ? &vs.min : NULL, vs.has_max ? &vs.max : NULL, call->type)) return 0;
	dl_type_id rec = vs.has_min ? vs.min.type : vs.max.type;
	ci->no_nan = rec != DL_TYPE_DOUBLE && rec != DL_TYPE_FLOAT;
	dl_scalar *side[2] = {&vs.min, &vs.max};
	bool *has[2] = {&vs.has_min, &vs.has_max};
	for (int k = 0; k < 2; k++) {
		if (!*has[k] || side[k]->type == call->type->id) continue;
		ex_val v, o;
		ex_val_from_scalar(&v, side[k]);
		dl_type *st = scalar_type(side[k]);
		if (!st) return DL_ENOMEM;
		dl_buf tmp = DL_BUF_INIT; /* the allowed casts give numbers and times only */
		rc = ex_cast_val(&o, &v, st, call->type, true, c->tz, &tmp);
		dl_type_unref(st);
		dl_buf_free(&tmp);
		if (rc < 0) dl_error_clear();
		if (rc < 0 || o.null) {
			*has[k] = false;
			continue;
		}
		ex_scalar_from_val(side[k], &o, call->type);
	}
	ci->st.has_min = vs.has_min;
	ci->st.has_max = vs.has_max;
	ci->st.min = vs.min;
	ci->st.max = vs.max;
	ci->st.max_is_prefix = vs.has_max && vs.max_is_prefix;
	return 0;
}

static int get_col(pr_ctx *c, const ex_node *col, const ex_node *outer, colinfo *ci)
{
	memset(ci, 0, sizeof *ci);
	if (col->kind == EX_CALL) {
		ci->coltype = col->type;
		ci->cmptype = outer->type;
		DL_TRY(get_variant(c, col, ci));
		ci->have_min = ci->st.has_min && load_stat(ci, &ci->st.min, &ci->min, c->tz);
		ci->have_max = ci->st.has_max && load_stat(ci, &ci->st.max, &ci->max, c->tz);
		if (ci->st.max_is_prefix && ci->cmptype->id != DL_TYPE_STRING) ci->have_max = false;
		return 0;
	}
	ci->coltype = col->type;
	ci->cmptype = outer->type;
	if (!c->sp->column) return 0;
	DL_TRY(c->sp->column(c->sp->payload, (const char *const *)col->path, col->npath, &ci->st));
	ci->have_min = ci->st.has_min && load_stat(ci, &ci->st.min, &ci->min, c->tz);
	ci->have_max = ci->st.has_max && load_stat(ci, &ci->st.max, &ci->max, c->tz);
	/* a cast of a truncated string max is not a bound */
	if (ci->st.max_is_prefix && ci->cmptype->id != DL_TYPE_STRING) ci->have_max = false;
	int64_t nr = c->sp->num_records;
	ci->all_null = ci->st.all_null || (ci->st.has_null_count && nr >= 0 && ci->st.null_count >= nr);
	ci->no_nulls = ci->st.has_null_count && ci->st.null_count == 0 && !ci->st.all_null;
	return 0;
}

static bool has_prefix(const ex_val *s, const ex_val *p)
{
	return s->v.s.n >= p->v.s.n && memcmp(s->v.s.p, p->v.s.p, (size_t)p->v.s.n) == 0;
}

static bool is_float(const dl_type *t)
{
	return t->id == DL_TYPE_FLOAT || t->id == DL_TYPE_DOUBLE;
}

/* A float max may omit NaN rows, which Spark orders above everything. */
static bool nan_possible(const colinfo *ci)
{
	return is_float(ci->cmptype) && !ci->no_nan;
}

/* c is above every value of the column (> all). NaN rows (maybe missing
 * from a float max) never equal c, so equality may still use the max. */
static bool above_all_x(const colinfo *ci, const ex_val *c, bool for_equality)
{
	if (!ci->have_max || (nan_possible(ci) && !for_equality)) return false;
	int k = ex_val_cmp(c, &ci->max, ci->cmptype);
	if (ci->st.max_is_prefix) return k > 0 && !has_prefix(c, &ci->max);
	return k > 0;
}

/* c is at or above every value (>= all). */
static bool above_all(const colinfo *ci, const ex_val *c)
{
	return above_all_x(ci, c, false);
}

static bool at_or_above_all(const colinfo *ci, const ex_val *c)
{
	if (!ci->have_max || nan_possible(ci)) return false;
	int k = ex_val_cmp(c, &ci->max, ci->cmptype);
	if (ci->st.max_is_prefix) return k >= 0 && !has_prefix(c, &ci->max);
	return k >= 0;
}

static bool below_all(const colinfo *ci, const ex_val *c)
{
	return ci->have_min && ex_val_cmp(c, &ci->min, ci->cmptype) < 0;
}

static bool at_or_below_all(const colinfo *ci, const ex_val *c)
{
	return ci->have_min && ex_val_cmp(c, &ci->min, ci->cmptype) <= 0;
}

/* May `col op c` be TRUE for some row? */
static bool cmp_may(const colinfo *ci, int op, const ex_val *c)
{
	if (ci->all_null) return false;
	switch (op) {
	case OP_EQ:
	case OP_NSEQ: return !below_all(ci, c) && !above_all_x(ci, c, true);
	case OP_LT: return !at_or_below_all(ci, c);
	case OP_LE: return !below_all(ci, c);
	case OP_GT: return !at_or_above_all(ci, c);
	case OP_GE: return !above_all(ci, c);
	case OP_NE:
		if (!ci->have_min || !ci->have_max || ci->st.max_is_prefix || nan_possible(ci)) return true;
		return !(ex_val_cmp(&ci->min, c, ci->cmptype) == 0 && ex_val_cmp(&ci->max, c, ci->cmptype) == 0);
	default: return true;
	}
}

static int flip(int op)
{
	switch (op) {
	case OP_LT: return OP_GT;
	case OP_LE: return OP_GE;
	case OP_GT: return OP_LT;
	case OP_GE: return OP_LE;
	default: return op;
	}
}

static int negate_cmp(int op)
{
	switch (op) {
	case OP_EQ: return OP_NE;
	case OP_NE: return OP_EQ;
	case OP_LT: return OP_GE;
	case OP_LE: return OP_GT;
	case OP_GT: return OP_LE;
	case OP_GE: return OP_LT;
	default: return -1;
	}
}

static int may(pr_ctx *c, const ex_node *n, bool neg, bool *out);

/* After the statistics allow `col = lit`: the provider's membership test
 * (a Bloom filter), only for a literal of exactly the column's type (a
 * cast would compare other bytes than the file holds). */
static int may_contain(pr_ctx *c, const ex_node *col, const ex_node *outer, const dl_scalar *lit, bool *out)
{
	*out = true;
	if (!c->sp->may_contain || outer != col || lit->is_null || lit->type != col->type->id) return 0;
	if (lit->type == DL_TYPE_DECIMAL && (lit->precision != col->type->precision || lit->scale != col->type->scale))
		return 0;
	return c->sp->may_contain(c->sp->payload, (const char *const *)col->path, col->npath, lit, out);
}

static int cmp_node(pr_ctx *c, const ex_node *n, bool neg, bool *out)
{
	int op = n->op;
	const ex_node *a = n->args[0], *b = n->args[1], *outer;
	*out = true;
	if (a->kind == EX_LIT && b->kind != EX_LIT) {
		const ex_node *t = a;
		a = b;
		b = t;
		op = flip(op);
	}
	if (b->kind != EX_LIT) return 0;
	const ex_node *col = column_of(a, &outer, c->tz);
	if (!col) return 0;
	colinfo ci;
	DL_TRY(get_col(c, col, outer, &ci));
	ex_val v;
	ex_val_from_scalar(&v, &b->lit);
	if (op == OP_NSEQ) {
		if (v.null) { /* x <=> NULL is x IS NULL */
			if (neg) *out = !ci.all_null;
			else *out = !ci.no_nulls;
		} else if (!neg) {
			*out = cmp_may(&ci, OP_EQ, &v);
		}
		dl_buf_free(&ci.buf);
		if (*out && !neg && !v.null) return may_contain(c, col, outer, &b->lit, out);
		return 0;
	}
	if (v.null) {
		*out = false; /* comparison with NULL is never TRUE */
	} else {
		if (neg) op = negate_cmp(op);
		*out = op < 0 || cmp_may(&ci, op, &v);
	}
	dl_buf_free(&ci.buf);
	if (*out && op == OP_EQ && !v.null) return may_contain(c, col, outer, &b->lit, out);
	return 0;
}

static int in_node(pr_ctx *c, const ex_node *n, bool neg, bool *out)
{
	const ex_node *outer, *col = column_of(n->args[0], &outer, c->tz);
	*out = true;
	if (!col) return 0;
	for (int i = 1; i < n->nargs; i++)
		if (n->args[i]->kind != EX_LIT) return 0;
	colinfo ci;
	DL_TRY(get_col(c, col, outer, &ci));
	if (neg != n->negated) {
		/* NOT IN is never TRUE with a NULL in the list, on NULL rows, or
		 * when every row holds one of the listed values */
		bool single = ci.have_min && ci.have_max && !ci.st.max_is_prefix && !nan_possible(&ci) &&
		              ex_val_cmp(&ci.min, &ci.max, ci.cmptype) == 0;
		bool hit = false;
		for (int i = 1; i < n->nargs; i++) {
			ex_val v;
			ex_val_from_scalar(&v, &n->args[i]->lit);
			if (v.null) {
				*out = false;
				dl_buf_free(&ci.buf);
				return 0;
			}
			hit |= single && ex_val_cmp(&v, &ci.min, ci.cmptype) == 0;
		}
		*out = !ci.all_null && !hit;
		dl_buf_free(&ci.buf);
		return 0;
	}
	bool any = false;
	int rc = 0;
	for (int i = 1; i < n->nargs && !any && rc == 0; i++) {
		ex_val v;
		ex_val_from_scalar(&v, &n->args[i]->lit);
		if (!v.null) any = cmp_may(&ci, OP_EQ, &v);
		if (any) rc = may_contain(c, col, outer, &n->args[i]->lit, &any);
	}
	*out = any || rc < 0;
	dl_buf_free(&ci.buf);
	return rc;
}

static int is_node(pr_ctx *c, const ex_node *n, bool neg, bool *out)
{
	const ex_node *outer, *col = column_of(n->args[0], &outer, c->tz);
	*out = true;
	if (!col) return 0;
	colinfo ci;
	DL_TRY(get_col(c, col, outer, &ci));
	bool isnot = n->negated != neg;
	if (n->op == IS_NULL) {
		*out = isnot ? !ci.all_null : !ci.no_nulls;
	} else if (!isnot) {
		/* IS TRUE / IS FALSE on a boolean column */
		ex_val t = {.v.b = n->op == IS_TRUE};
		*out = cmp_may(&ci, OP_EQ, &t);
	}
	dl_buf_free(&ci.buf);
	return 0;
}

static int like_node(pr_ctx *c, const ex_node *n, bool neg, bool *out)
{
	*out = true;
	const char *pre;
	size_t plen;
	bool exact;
	if (neg != n->negated || !ex_like_prefix(n, &pre, &plen, &exact)) return 0;
	const ex_node *outer, *col = column_of(n->args[0], &outer, c->tz);
	if (!col || col->type->id != DL_TYPE_STRING) return 0;
	colinfo ci;
	DL_TRY(get_col(c, col, outer, &ci));
	ex_val p = {.v.s = {pre, (int64_t)plen}};
	if (ci.all_null) {
		*out = false;
	} else if (exact) {
		*out = cmp_may(&ci, OP_EQ, &p);
	} else {
		/* every value below the prefix, or every value above all strings
		 * starting with it */
		bool below = ci.have_max && ex_val_cmp(&ci.max, &p, ci.cmptype) < 0 &&
		             !(ci.st.max_is_prefix && has_prefix(&p, &ci.max));
		bool above = ci.have_min && ex_val_cmp(&ci.min, &p, ci.cmptype) > 0 && !has_prefix(&ci.min, &p);
		*out = !below && !above;
	}
	dl_buf_free(&ci.buf);
	return 0;
}

static int may(pr_ctx *c, const ex_node *n, bool neg, bool *out)
{
	*out = true;
	switch (n->kind) {
	case EX_LIT:
		if (n->lit.is_null || n->lit.type == DL_TYPE_NULL) *out = false;
		else if (n->lit.type == DL_TYPE_BOOLEAN) *out = n->lit.v.b != neg;
		return 0;
	case EX_COL:
		if (n->type->id == DL_TYPE_BOOLEAN) {
			colinfo ci;
			DL_TRY(get_col(c, n, n, &ci));
			ex_val t = {.v.b = !neg};
			*out = cmp_may(&ci, OP_EQ, &t);
			dl_buf_free(&ci.buf);
		}
		return 0;
	case EX_OP:
		switch (n->op) {
		case OP_NOT: return may(c, n->args[0], !neg, out);
		case OP_AND:
		case OP_OR: {
			bool x, y;
			DL_TRY(may(c, n->args[0], neg, &x));
			/* AND (or OR under NOT) needs both sides possible */
			bool conj = (n->op == OP_AND) != neg;
			if (conj && !x) return *out = false, 0;
			if (!conj && x) return *out = true, 0;
			DL_TRY(may(c, n->args[1], neg, &y));
			*out = y;
			return 0;
		}
		case OP_EQ:
		case OP_NE:
		case OP_LT:
		case OP_LE:
		case OP_GT:
		case OP_GE:
		case OP_NSEQ: return cmp_node(c, n, neg, out);
		default: return 0;
		}
	case EX_IN: return in_node(c, n, neg, out);
	case EX_IS: return is_node(c, n, neg, out);
	case EX_LIKE: return like_node(c, n, neg, out);
	default: return 0;
	}
}

int dl_expr_may_match(bool *out, const dl_expr *e, const dl_stats_provider *stats)
{
	*out = true;
	if (!e->bound) return dl_error_set(DL_EINVALID, "the expression must be bound before pruning");
	if (!stats) return 0;
	pr_ctx c = {stats, e->bind_tz ? e->bind_tz : dl_tz_utc()};
	return may(&c, e->bound, false, out);
}
