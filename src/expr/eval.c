/* The evaluator: walks a bound tree once per batch; every node produces a
 * whole column (or a one-row constant). Conditional constructs (CASE, IF,
 * COALESCE, AND, OR) first evaluate their branches over the whole batch,
 * which is fast; if that raises an ANSI error they re-evaluate the branch
 * only on the rows that need it, so `CASE WHEN b = 0 THEN NULL ELSE a / b
 * END` behaves as in Spark. */
#include "expr/eval.h"
#include "columnar/bits.h"
#include "expr/ops.h"
#include "util/error.h"
#include "util/mem.h"
#include <stdatomic.h>
#include <string.h>
#include <time.h>

/* ---- columns and fields ------------------------------------------------ */

/* A copy of `child` whose rows are also null where `parent_validity` is. */
static int with_parent_nulls(ex_vec *out, const dl_array *child, const uint8_t *pv, int64_t n)
{
	dl_array *c = dl_array_slice(child, 0, n);
	if (!c) return DL_ENOMEM;
	if (pv) {
		if (!c->validity) {
			size_t bytes = (size_t)(n + 7) / 8;
			c->validity = dl_malloc(bytes ? bytes : 1);
			if (!c->validity) {
				dl_array_free(c);
				return DL_ENOMEM;
			}
			memcpy(c->validity, pv, bytes);
		} else {
			for (int64_t i = 0; i < (n + 7) / 8; i++) c->validity[i] &= pv[i];
		}
		c->null_count = -1;
	}
	return ex_vec_set(out, c, false);
}

static int eval_column(ex_vec *out, const ex_node *n, ex_run *r)
{
	const dl_batch *b = r->batch;
	if (n->colidx[0] >= b->ncols)
		return dl_error_set(DL_EINVALID, "the batch has %d columns but the expression was bound to column %d ('%s')",
		                    b->ncols, n->colidx[0], n->path[0]);
	const dl_array *a = b->cols[n->colidx[0]];
	if (!a) return dl_error_set(DL_EINVALID, "column '%s' is missing from the batch", n->path[0]);
	if (a->length != r->n)
		return dl_error_set(DL_EINVALID, "column '%s' has %lld rows but the batch has %lld", n->path[0],
		                    (long long)a->length, (long long)r->n);
	/* the batch must have the bound schema's shape */
	const dl_array *chk = a;
	for (int i = 1; i < n->npath; i++) {
		if (n->colidx[i] >= chk->nchildren)
			return dl_error_set(DL_EINVALID, "field '%s' of column '%s' is missing from the batch", n->path[i],
			                    n->path[0]);
		chk = chk->children[n->colidx[i]];
	}
	if (chk->type->id != n->type->id)
		return dl_error_set(DL_EINVALID, "column '%s' is %s in the batch but %s in the schema the expression was bound to",
		                    n->path[n->npath - 1], dl_type_id_name(chk->type->id), dl_type_id_name(n->type->id));
	if (n->npath == 1) {
		out->a = a;
		out->owned = NULL;
		out->is_const = false;
		return 0;
	}
	/* Nested field: a null struct makes its fields null. */
	bool parent_nulls = false;
	const dl_array *cur = a;
	for (int i = 1; i < n->npath; i++) {
		parent_nulls |= cur->validity != NULL;
		cur = cur->children[n->colidx[i]];
	}
	if (!parent_nulls) {
		out->a = cur;
		out->owned = NULL;
		out->is_const = false;
		return 0;
	}
	size_t bytes = (size_t)(r->n + 7) / 8;
	uint8_t *pv = dl_malloc(bytes ? bytes : 1);
	if (!pv) return DL_ENOMEM;
	memset(pv, 0xFF, bytes);
	cur = a;
	for (int i = 1; i < n->npath; i++) {
		if (cur->validity)
			for (size_t k = 0; k < bytes; k++) pv[k] &= cur->validity[k];
		cur = cur->children[n->colidx[i]];
	}
	int rc = with_parent_nulls(out, cur, pv, r->n);
	dl_free(pv);
	return rc;
}

static int eval_field(ex_vec *out, const ex_node *n, ex_run *r)
{
	ex_vec s = {0};
	DL_TRY(ex_eval_node(&s, n->args[0], r));
	int64_t len = s.a->length;
	int rc = with_parent_nulls(out, s.a->children[n->colidx[0]], s.a->validity, len);
	out->is_const = s.is_const;
	ex_vec_release(&s);
	return rc;
}

/* ---- predicates -------------------------------------------------------- */

static int bool_array(dl_array **out, ex_run *r, int64_t n)
{
	(void)r;
	dl_type *t = dl_type_new(DL_TYPE_BOOLEAN);
	if (!t) return DL_ENOMEM;
	*out = dl_array_new(t, n);
	dl_type_unref(t);
	return *out ? 0 : DL_ENOMEM;
}

static int eval_is(ex_vec *out, const ex_node *n, ex_run *r)
{
	ex_vec a = {0};
	DL_TRY(ex_eval_node(&a, n->args[0], r));
	int64_t len = a.is_const ? 1 : r->n;
	dl_array *res;
	int rc = bool_array(&res, r, len);
	if (rc == 0) {
		uint8_t *vals = res->values;
		for (int64_t i = 0; i < len; i++) {
			bool valid = dl_array_is_valid(a.a, i), v;
			if (n->op == IS_NULL) v = !valid;
			else if (n->op == IS_TRUE) v = valid && dl_bit_get(a.a->values, i);
			else v = valid && !dl_bit_get(a.a->values, i);
			if (v != n->negated) dl_bit_set(vals, i);
		}
		ex_vec_set(out, res, a.is_const);
	}
	ex_vec_release(&a);
	return rc;
}

/* Evaluates `n` only where mask bit is set (after a whole-batch attempt
 * failed): a sub-batch of those rows, scattered back with nulls. */
static int eval_masked(ex_vec *out, const ex_node *n, ex_run *r, const uint8_t *mask)
{
	int64_t cnt = 0;
	uint32_t *sel = dl_malloc((size_t)(r->n ? r->n : 1) * sizeof *sel);
	if (!sel) return DL_ENOMEM;
	for (int64_t i = 0; i < r->n; i++)
		if (dl_bit_get(mask, i)) sel[cnt++] = (uint32_t)i;
	if (cnt == 0) {
		/* no row needs the value: all NULL, nothing evaluated */
		dl_free(sel);
		dl_error_clear();
		dl_array *a = dl_array_new_null(n->type, r->n);
		return a ? ex_vec_set(out, a, false) : DL_ENOMEM;
	}
	dl_batch *sub = dl_batch_take(r->batch, sel, cnt);
	if (!sub) {
		dl_free(sel);
		return DL_ENOMEM;
	}
	ex_run sr = *r;
	sr.batch = sub;
	sr.n = cnt;
	ex_vec v = {0};
	int rc = ex_eval_node(&v, n, &sr);
	dl_builder *b = NULL;
	if (rc == 0) rc = dl_builder_new(&b, n->type);
	int64_t j = 0;
	for (int64_t i = 0; rc == 0 && i < r->n; i++) {
		if (dl_bit_get(mask, i)) {
			rc = dl_builder_append_range(b, v.a, ex_row_of(&v, j), 1);
			j++;
		} else {
			rc = dl_builder_append_null(b);
		}
	}
	dl_array *a = NULL;
	if (rc == 0) rc = dl_builder_finish(&a, b);
	if (rc == 0) ex_vec_set(out, a, false);
	dl_builder_free(b);
	ex_vec_release(&v);
	dl_batch_free(sub);
	dl_free(sel);
	return rc;
}

int ex_eval_lazy(ex_vec *out, const ex_node *n, ex_run *r, const uint8_t *mask)
{
	int rc = ex_eval_node(out, n, r);
	if (rc == 0 || !mask || rc == DL_ENOMEM || n->kind == EX_LIT) return rc;
	/* Keep the error if a needed row raises it too. */
	return eval_masked(out, n, r, mask);
}

/* Bytes of a boolean vec's validity/value for rows [8k, 8k+8). */
static inline uint8_t vbyte(const ex_vec *v, int64_t k)
{
	if (v->is_const) return dl_array_is_valid(v->a, 0) ? 0xFF : 0;
	return v->a->validity ? v->a->validity[k] : 0xFF;
}
static inline uint8_t dbyte(const ex_vec *v, int64_t k)
{
	if (v->is_const) return dl_array_is_valid(v->a, 0) && dl_bit_get(v->a->values, 0) ? 0xFF : 0;
	return ((const uint8_t *)v->a->values)[k];
}

static int eval_and_or(ex_vec *out, const ex_node *n, ex_run *r)
{
	bool is_and = n->op == OP_AND;
	ex_vec a = {0}, b = {0};
	DL_TRY(ex_eval_node(&a, n->args[0], r));
	int64_t nb = (r->n + 7) / 8;
	/* The right side matters only where the left is not decisive. */
	uint8_t *need = dl_malloc((size_t)(nb ? nb : 1));
	if (!need) {
		ex_vec_release(&a);
		return DL_ENOMEM;
	}
	for (int64_t k = 0; k < nb; k++) {
		uint8_t av = vbyte(&a, k), ad = dbyte(&a, k);
		need[k] = is_and ? (uint8_t)~(av & ~ad) : (uint8_t) ~(av & ad);
	}
	int rc = ex_eval_lazy(&b, n->args[1], r, need);
	dl_free(need);
	if (rc < 0) {
		ex_vec_release(&a);
		return rc;
	}
	bool cst = a.is_const && b.is_const;
	int64_t len = cst ? 1 : r->n;
	dl_array *res;
	rc = bool_array(&res, r, len);
	if (rc == 0) {
		int64_t bytes = (len + 7) / 8;
		uint8_t *val = res->values, *vld = dl_malloc((size_t)(bytes ? bytes : 1));
		bool any_null = false;
		if (!vld) rc = DL_ENOMEM;
		for (int64_t k = 0; rc == 0 && k < bytes; k++) {
			uint8_t av = vbyte(&a, k), ad = dbyte(&a, k) & av, bv = vbyte(&b, k), bd = dbyte(&b, k) & bv;
			uint8_t v, d;
			if (is_and) {
				uint8_t fa = av & ~ad, fb = bv & ~bd;
				v = (av & bv) | fa | fb;
				d = ad & bd;
			} else {
				uint8_t ta = ad, tb = bd;
				v = (av & bv) | ta | tb;
				d = ta | tb;
			}
			val[k] = d & v;
			vld[k] = v;
			any_null |= v != 0xFF;
		}
		if (rc == 0 && any_null) res->validity = vld;
		else dl_free(vld);
		res->null_count = -1;
		if (rc == 0) ex_vec_set(out, res, cst);
		else dl_array_free(res);
	}
	ex_vec_release(&a);
	ex_vec_release(&b);
	return rc;
}

static int eval_not(ex_vec *out, const ex_node *n, ex_run *r)
{
	ex_vec a = {0};
	DL_TRY(ex_eval_node(&a, n->args[0], r));
	int64_t len = a.is_const ? 1 : r->n;
	dl_array *res;
	int rc = bool_array(&res, r, len);
	if (rc == 0) {
		int64_t bytes = (len + 7) / 8;
		for (int64_t k = 0; k < bytes; k++) ((uint8_t *)res->values)[k] = (uint8_t)~dbyte(&a, k) & vbyte(&a, k);
		if (a.a->validity || (a.is_const && !dl_array_is_valid(a.a, 0))) {
			res->validity = dl_malloc((size_t)(bytes ? bytes : 1));
			if (!res->validity) rc = DL_ENOMEM;
			for (int64_t k = 0; rc == 0 && k < bytes; k++) res->validity[k] = vbyte(&a, k);
			res->null_count = -1;
		}
		if (rc == 0) ex_vec_set(out, res, a.is_const);
		else dl_array_free(res);
	}
	ex_vec_release(&a);
	return rc;
}

/* ---- CASE -------------------------------------------------------------- */

static int eval_case(ex_vec *out, const ex_node *n, ex_run *r)
{
	int nconds = (n->nargs - (n->has_else ? 1 : 0)) / 2;
	int64_t nb = (r->n + 7) / 8;
	/* pending: rows not yet decided by an earlier WHEN */
	uint8_t *pending = dl_malloc((size_t)(nb ? nb : 1)), *take = dl_malloc((size_t)(nb ? nb : 1));
	int8_t *which = dl_malloc((size_t)(r->n ? r->n : 1) * sizeof(int16_t));
	ex_vec *vals = dl_calloc((size_t)nconds + 1, sizeof *vals);
	int rc = (!pending || !take || !which || !vals) ? DL_ENOMEM : 0;
	int16_t *branch = (int16_t *)which;
	if (rc == 0) {
		memset(pending, 0xFF, (size_t)nb);
		for (int64_t i = 0; i < r->n; i++) branch[i] = -1;
	}
	for (int c = 0; rc == 0 && c < nconds; c++) {
		ex_vec cond = {0};
		rc = ex_eval_lazy(&cond, n->args[2 * c], r, pending);
		if (rc < 0) break;
		memset(take, 0, (size_t)nb);
		for (int64_t i = 0; i < r->n; i++) {
			if (!dl_bit_get(pending, i)) continue;
			int64_t j = ex_row_of(&cond, i);
			if (dl_array_is_valid(cond.a, j) && dl_bit_get(cond.a->values, j)) {
				dl_bit_clear(pending, i);
				dl_bit_set(take, i);
				branch[i] = (int16_t)c;
			}
		}
		ex_vec_release(&cond);
		rc = ex_eval_lazy(&vals[c], n->args[2 * c + 1], r, take);
	}
	if (rc == 0 && n->has_else) rc = ex_eval_lazy(&vals[nconds], n->args[n->nargs - 1], r, pending);
	dl_builder *b = NULL;
	if (rc == 0) rc = dl_builder_new(&b, n->type);
	for (int64_t i = 0; rc == 0 && i < r->n; i++) {
		int c = branch[i] >= 0 ? branch[i] : (n->has_else ? nconds : -1);
		if (c < 0) rc = dl_builder_append_null(b);
		else rc = dl_builder_append_range(b, vals[c].a, ex_row_of(&vals[c], i), 1);
	}
	dl_array *a = NULL;
	if (rc == 0) rc = dl_builder_finish(&a, b);
	if (rc == 0) ex_vec_set(out, a, false);
	dl_builder_free(b);
	for (int c = 0; vals && c <= nconds; c++) ex_vec_release(&vals[c]);
	dl_free(vals);
	dl_free(pending);
	dl_free(take);
	dl_free(which);
	return rc;
}

/* ---- IN ---------------------------------------------------------------- */

int ex_in_eval_set(ex_vec *out, const ex_node *n, ex_run *r); /* eval_in.c */

static int eval_in(ex_vec *out, const ex_node *n, ex_run *r)
{
	int rcs = ex_in_eval_set(out, n, r);
	if (rcs != 0) return rcs < 0 ? rcs : 0;
	int na = n->nargs;
	ex_vec *v = dl_calloc((size_t)na, sizeof *v);
	if (!v) return DL_ENOMEM;
	int rc = 0;
	bool cst = true;
	for (int i = 0; rc == 0 && i < na; i++) {
		rc = ex_eval_node(&v[i], n->args[i], r);
		cst &= rc == 0 && v[i].is_const;
	}
	int64_t len = cst ? 1 : r->n;
	dl_array *res = NULL;
	if (rc == 0) rc = bool_array(&res, r, len);
	if (rc == 0) {
		res->validity = dl_calloc((size_t)(len + 7) / 8 + 1, 1);
		if (!res->validity) rc = DL_ENOMEM;
	}
	const dl_type *t = n->args[0]->type;
	for (int64_t i = 0; rc == 0 && i < len; i++) {
		ex_val x, y;
		ex_val_load(&x, v[0].a, ex_row_of(&v[0], i));
		if (x.null) continue;
		bool found = false, sawnull = false;
		for (int k = 1; k < na && !found; k++) {
			ex_val_load(&y, v[k].a, ex_row_of(&v[k], i));
			if (y.null) sawnull = true;
			else found = ex_val_eq(&x, &y, t);
		}
		if (found || !sawnull) dl_bit_set(res->validity, i);
		if (found != n->negated && (found || !sawnull)) dl_bit_set(res->values, i);
	}
	res ? res->null_count = -1 : 0;
	for (int i = 0; i < na; i++) ex_vec_release(&v[i]);
	dl_free(v);
	if (rc < 0) {
		dl_array_free(res);
		return rc;
	}
	return ex_vec_set(out, res, cst);
}

/* ---- CAST -------------------------------------------------------------- */

static int row_cast(ex_row *r, ex_val *out, const ex_val *args)
{
	return ex_cast_val(out, &args[0], r->argt[0], r->node->type, r->node->flag, r->run->tz, r->buf);
}

int ex_kernel_cast(ex_vec *out, const ex_node *n, ex_vec *arg, ex_run *r);

int ex_cast_vec(ex_vec *out, const ex_node *n, ex_vec *arg, ex_run *r)
{
	ex_vec a = *arg;
	arg->a = arg->owned = NULL; /* taken */
	int rc;
	if (dl_type_equals(a.a->type, n->type)) {
		*out = a;
		return 0;
	}
	dl_type_id t = n->type->id;
	if (t == DL_TYPE_ARRAY || t == DL_TYPE_MAP || t == DL_TYPE_STRUCT) {
		/* nested targets: element by element into a builder */
		int64_t len = a.is_const ? 1 : r->n;
		dl_builder *b;
		dl_buf buf = DL_BUF_INIT;
		rc = dl_builder_new(&b, n->type);
		for (int64_t i = 0; rc == 0 && i < len; i++) {
			ex_val v;
			ex_val_load(&v, a.a, i);
			rc = ex_cast_into(b, &v, a.a->type, n->type, n->flag, r->tz, &buf);
		}
		dl_array *res = NULL;
		if (rc == 0) rc = dl_builder_finish(&res, b);
		if (rc == 0) ex_vec_set(out, res, a.is_const);
		if (b) dl_builder_free(b);
		dl_buf_free(&buf);
		ex_vec_release(&a);
		return rc;
	}
	rc = ex_kernel_cast(out, n, &a, r);
	if (rc == 0) rc = ex_eval_rows(out, n, &a, 1, r, row_cast, true);
	else if (rc > 0) rc = 0;
	ex_vec_release(&a);
	return rc;
}

static int eval_cast(ex_vec *out, const ex_node *n, ex_run *r)
{
	ex_vec a = {0};
	DL_TRY(ex_eval_node(&a, n->args[0], r));
	return ex_cast_vec(out, n, &a, r);
}

/* ---- generic argument evaluation -------------------------------------- */

static int eval_args_then(ex_vec *out, const ex_node *n, ex_run *r, int (*then)(ex_vec *, const ex_node *, ex_vec *, ex_run *))
{
	ex_vec small[8];
	ex_vec *v = n->nargs <= 8 ? small : dl_calloc((size_t)n->nargs, sizeof *v);
	if (!v) return DL_ENOMEM;
	memset(v, 0, sizeof(ex_vec) * (size_t)(n->nargs <= 8 ? 8 : n->nargs));
	int rc = 0;
	for (int i = 0; rc == 0 && i < n->nargs; i++) rc = ex_eval_node(&v[i], n->args[i], r);
	if (rc == 0) rc = then(out, n, v, r);
	for (int i = 0; i < n->nargs; i++) ex_vec_release(&v[i]);
	if (v != small) dl_free(v);
	return rc;
}

static int call_then(ex_vec *out, const ex_node *n, ex_vec *v, ex_run *r)
{
	if (n->fn->vec) return n->fn->vec(out, n, v, r);
	return ex_eval_rows(out, n, v, n->nargs, r, n->fn->row, (n->fn->flags & FN_NULLX) != 0);
}

static int op_then(ex_vec *out, const ex_node *n, ex_vec *v, ex_run *r)
{
	int rc = ex_kernel_op(out, n, v, r);
	if (rc != 0) return rc < 0 ? rc : 0;
	return ex_eval_rows(out, n, v, n->nargs, r, ex_op_row_fn(n), n->op != OP_NSEQ);
}

int ex_eval_lazy_call(ex_vec *out, const ex_node *n, ex_run *r); /* functions with lazy args */
int ex_like_eval(ex_vec *out, const ex_node *n, ex_vec *args, ex_run *r);
int ex_index_eval(ex_vec *out, const ex_node *n, ex_vec *args, ex_run *r);

int ex_eval_node(ex_vec *out, const ex_node *n, ex_run *r)
{
	memset(out, 0, sizeof *out);
	switch (n->kind) {
	case EX_LIT: {
		ex_val v;
		ex_val_from_scalar(&v, &n->lit);
		dl_array *a;
		DL_TRY(ex_const_array(&a, n->type, &v));
		return ex_vec_set(out, a, true);
	}
	case EX_COL: return eval_column(out, n, r);
	case EX_FIELD: return eval_field(out, n, r);
	case EX_OP:
		if (n->op == OP_AND || n->op == OP_OR) return eval_and_or(out, n, r);
		if (n->op == OP_NOT) return eval_not(out, n, r);
		return eval_args_then(out, n, r, op_then);
	case EX_CALL:
		if (n->fn->flags & FN_LAZY) return ex_eval_lazy_call(out, n, r);
		return eval_args_then(out, n, r, call_then);
	case EX_CAST: return eval_cast(out, n, r);
	case EX_CASE: return eval_case(out, n, r);
	case EX_IN: return eval_in(out, n, r);
	case EX_IS: return eval_is(out, n, r);
	case EX_LIKE: return eval_args_then(out, n, r, ex_like_eval);
	case EX_INDEX: return eval_args_then(out, n, r, ex_index_eval);
	default: return dl_error_set(DL_ERROR, "cannot evaluate node kind %d", (int)n->kind);
	}
}

/* ---- public entry points ----------------------------------------------- */

int ex_run_init(ex_run *r, dl_expr *e, const dl_batch *b, const dl_eval_ctx *ctx)
{
	memset(r, 0, sizeof *r);
	r->batch = b;
	r->n = b->num_rows;
	r->e = e;
	r->tz = dl_tz_utc();
	if (ctx && ctx->time_zone) DL_TRY(dl_tz_get(&r->tz, ctx->time_zone, strlen(ctx->time_zone)));
	if (ctx && ctx->now_us) {
		r->now_us = ctx->now_us;
	} else {
		/* one instant per expression, like Spark's per-query
		 * current_timestamp(), even across batches and threads */
		int64_t now = e ? e->now_us : 0;
		if (!now) {
			struct timespec ts;
			clock_gettime(CLOCK_REALTIME, &ts);
			int64_t mine = (int64_t)ts.tv_sec * 1000000 + ts.tv_nsec / 1000, zero = 0;
			if (!e || atomic_compare_exchange_strong(&e->now_us, &zero, mine)) now = mine;
			else now = zero;
		}
		r->now_us = now;
	}
	return 0;
}

static int check_bound(const dl_expr *e, const dl_batch *b)
{
	if (!e->bound) return dl_error_set(DL_EINVALID, "the expression must be bound (dl_expr_bind) before evaluation");
	if (!b) return dl_error_set(DL_EINVALID, "no batch given");
	return 0;
}

/* Broadcasts a constant vec into a full-length array. */
static int materialize(dl_array **out, ex_vec *v, int64_t n)
{
	if (!v->is_const || v->a->length == n) {
		if (v->owned) {
			*out = v->owned;
			v->owned = NULL;
			return 0;
		}
		*out = dl_array_slice(v->a, 0, n);
		return *out ? 0 : DL_ENOMEM;
	}
	dl_builder *b;
	DL_TRY(dl_builder_new(&b, v->a->type));
	int rc = dl_builder_reserve(b, n, 0);
	for (int64_t i = 0; rc == 0 && i < n; i++) rc = dl_builder_append_range(b, v->a, 0, 1);
	if (rc == 0) rc = dl_builder_finish(out, b);
	dl_builder_free(b);
	return rc;
}

int dl_expr_eval(dl_array **out, const dl_expr *e, const dl_batch *batch, const dl_eval_ctx *ctx)
{
	*out = NULL;
	DL_TRY(check_bound(e, batch));
	ex_run r;
	DL_TRY(ex_run_init(&r, (dl_expr *)e, batch, ctx));
	ex_vec v;
	DL_TRY(ex_eval_node(&v, e->bound, &r));
	int rc = materialize(out, &v, batch->num_rows);
	ex_vec_release(&v);
	return rc;
}

int dl_expr_filter(dl_selection *out, const dl_expr *e, const dl_batch *batch, const dl_eval_ctx *ctx)
{
	DL_TRY(check_bound(e, batch));
	if (e->bound->type->id != DL_TYPE_BOOLEAN && e->bound->type->id != DL_TYPE_NULL)
		return dl_error_set(DL_EINVALID, "a filter must be a BOOLEAN expression");
	ex_run r;
	DL_TRY(ex_run_init(&r, (dl_expr *)e, batch, ctx));
	ex_vec v;
	DL_TRY(ex_eval_node(&v, e->bound, &r));
	int64_t n = batch->num_rows;
	int rc = dl_selection_reserve(out, n);
	out->count = 0;
	if (rc == 0) {
		if (v.is_const) {
			if (dl_array_is_valid(v.a, 0) && v.a->type->id == DL_TYPE_BOOLEAN && dl_bit_get(v.a->values, 0))
				for (int64_t i = 0; i < n; i++) out->idx[i] = (uint32_t)i;
			out->count = dl_array_is_valid(v.a, 0) && v.a->type->id == DL_TYPE_BOOLEAN && dl_bit_get(v.a->values, 0) ? n : 0;
		} else {
			const uint8_t *val = v.a->values, *vld = v.a->validity;
			uint32_t *idx = out->idx;
			int64_t c = 0;
			for (int64_t k = 0; k < (n + 7) / 8; k++) {
				uint32_t bits = val[k] & (vld ? vld[k] : 0xFF);
				if (k == (n - 1) / 8 && n % 8) bits &= (1u << (n % 8)) - 1;
				while (bits) {
					int t = __builtin_ctz(bits);
					idx[c++] = (uint32_t)(k * 8 + t);
					bits &= bits - 1;
				}
			}
			out->count = c;
		}
	}
	ex_vec_release(&v);
	return rc;
}

int dl_expr_eval_scalar(dl_scalar *out, dl_expr *e, const dl_eval_ctx *ctx)
{
	if (!e->bound) return dl_error_set(DL_EINVALID, "the expression must be bound (dl_expr_bind) before evaluation");
	dl_type *empty = dl_type_struct(NULL, 0);
	if (!empty) return DL_ENOMEM;
	dl_batch batch = {empty, 1, 0, NULL};
	ex_run r;
	int rc = ex_run_init(&r, e, &batch, ctx);
	ex_vec v = {0};
	if (rc == 0) rc = ex_eval_node(&v, e->bound, &r);
	if (rc == 0) {
		ex_val x;
		ex_val_load(&x, v.a, 0);
		if (!x.null && (v.a->type->id == DL_TYPE_STRING || v.a->type->id == DL_TYPE_BINARY)) {
			dl_buf_clear(&e->scratch);
			rc = dl_buf_append(&e->scratch, x.v.s.p, (size_t)x.v.s.n);
			x.v.s.p = e->scratch.data;
		}
		ex_scalar_from_val(out, &x, v.a->type);
	}
	ex_vec_release(&v);
	dl_type_unref(empty);
	return rc;
}
