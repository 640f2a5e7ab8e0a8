/* The evaluator's values and its row-at-a-time driver: fixed-width result
 * arrays recycled per thread, one value of a column (ex_val) and back, and
 * ex_eval_rows, which calls a function per row for the functions that have no
 * vectorized kernel. */
#include "expr/eval.h"
#include "columnar/bits.h"
#include "expr/thread_cache.h"
#include "util/error.h"
#include "util/mem.h"
#include <string.h>

/* Batch-sized fixed-width arrays only: at most 8 x 128K rows x 16 bytes
 * stay cached per thread. */
static bool poolable(const dl_array *a)
{
	return a->nchildren == 0 && !a->owner_release && a->values && !a->offsets && a->type->id != DL_TYPE_BOOLEAN &&
	       dl_type_fixed_width(a->type) > 0 && a->length >= 1024 && a->length <= (1 << 17);
}

dl_array *ex_alloc_fixed(const dl_type *t, int64_t n)
{
	int w = dl_type_fixed_width(t);
	ex_thread_cache *tc = ex_thread_cache_get();
	dl_array **pool = tc ? tc->pool : NULL;
	for (int i = 0; pool && i < EX_POOL_SIZE; i++) {
		dl_array *a = pool[i];
		if (!a || a->length != n || dl_type_fixed_width(a->type) != w) continue;
		pool[i] = NULL;
		if (a->type != t) {
			dl_type_unref(a->type);
			a->type = dl_type_ref((dl_type *)t);
		}
		a->null_count = 0;
		return a;
	}
	dl_array *a = dl_calloc(1, sizeof *a);
	if (!a) return NULL;
	a->values = dl_malloc((size_t)(n ? n : 1) * (size_t)w);
	if (!a->values) {
		dl_free(a);
		return NULL;
	}
	a->type = dl_type_ref((dl_type *)t);
	a->length = n;
	a->null_count = 0;
	return a;
}

void ex_vec_release(ex_vec *v)
{
	dl_array *a = v->owned;
	v->owned = NULL;
	v->a = NULL;
	if (!a) return;
	ex_thread_cache *tc = poolable(a) ? ex_thread_cache_get() : NULL;
	if (tc) {
		dl_array **pool = tc->pool;
		dl_free(a->validity);
		a->validity = NULL;
		for (int i = 0; i < EX_POOL_SIZE; i++)
			if (!pool[i]) {
				pool[i] = a;
				return;
			}
	}
	dl_array_free(a);
}

void ex_val_load(ex_val *o, const dl_array *a, int64_t i)
{
	o->null = !dl_array_is_valid(a, i);
	if (o->null) return;
	switch (a->type->id) {
	case DL_TYPE_BOOLEAN: o->v.b = dl_bit_get(a->values, i); break;
	case DL_TYPE_BYTE: o->v.i = ((const int8_t *)a->values)[i]; break;
	case DL_TYPE_SHORT: o->v.i = ((const int16_t *)a->values)[i]; break;
	case DL_TYPE_INTEGER:
	case DL_TYPE_DATE: o->v.i = ((const int32_t *)a->values)[i]; break;
	case DL_TYPE_LONG:
	case DL_TYPE_TIMESTAMP:
	case DL_TYPE_TIMESTAMP_NTZ: o->v.i = ((const int64_t *)a->values)[i]; break;
	case DL_TYPE_FLOAT: o->v.d = ((const float *)a->values)[i]; break;
	case DL_TYPE_DOUBLE: o->v.d = ((const double *)a->values)[i]; break;
	case DL_TYPE_DECIMAL: memcpy(&o->v.dec, (const char *)a->values + 16 * i, 16); break;
	case DL_TYPE_STRING:
	case DL_TYPE_BINARY:
		/* an array of empty strings may have no data buffer */
		o->v.s.p = a->data ? (const char *)a->data + a->offsets[i] : "";
		o->v.s.n = a->offsets[i + 1] - a->offsets[i];
		break;
	default:
		o->v.ref.a = a;
		o->v.ref.row = i;
	}
}

int ex_builder_put(dl_builder *b, const ex_val *v)
{
	if (v->null) return dl_builder_append_null(b);
	switch (dl_builder_type(b)->id) {
	case DL_TYPE_NULL: return dl_builder_append_null(b);
	case DL_TYPE_BOOLEAN: return dl_builder_append_bool(b, v->v.b);
	case DL_TYPE_BYTE:
	case DL_TYPE_SHORT:
	case DL_TYPE_INTEGER:
	case DL_TYPE_LONG:
	case DL_TYPE_DATE:
	case DL_TYPE_TIMESTAMP:
	case DL_TYPE_TIMESTAMP_NTZ: return dl_builder_append_int(b, v->v.i);
	case DL_TYPE_FLOAT:
	case DL_TYPE_DOUBLE: return dl_builder_append_double(b, v->v.d);
	case DL_TYPE_DECIMAL: return dl_builder_append_decimal(b, v->v.dec);
	case DL_TYPE_STRING:
	case DL_TYPE_BINARY: return dl_builder_append_bytes(b, v->v.s.p, (size_t)v->v.s.n);
	default: return dl_builder_append_range(b, v->v.ref.a, v->v.ref.row, 1);
	}
}

void ex_val_from_scalar(ex_val *o, const dl_scalar *s)
{
	memset(o, 0, sizeof *o);
	o->null = s->is_null || s->type == DL_TYPE_NULL;
	if (o->null) return;
	switch (s->type) {
	case DL_TYPE_BOOLEAN: o->v.b = s->v.b; break;
	case DL_TYPE_FLOAT:
	case DL_TYPE_DOUBLE: o->v.d = s->v.f64; break;
	case DL_TYPE_DECIMAL: o->v.dec = s->v.dec; break;
	case DL_TYPE_STRING:
	case DL_TYPE_BINARY:
		o->v.s.p = s->v.str.ptr;
		o->v.s.n = (int64_t)s->v.str.len;
		break;
	default: o->v.i = s->v.i64;
	}
}

void ex_scalar_from_val(dl_scalar *s, const ex_val *v, const dl_type *t)
{
	memset(s, 0, sizeof *s);
	s->type = t->id;
	s->precision = t->precision;
	s->scale = t->scale;
	s->is_null = v->null || t->id == DL_TYPE_NULL;
	if (s->is_null) return;
	switch (t->id) {
	case DL_TYPE_BOOLEAN: s->v.b = v->v.b; break;
	case DL_TYPE_FLOAT:
	case DL_TYPE_DOUBLE: s->v.f64 = v->v.d; break;
	case DL_TYPE_DECIMAL: s->v.dec = v->v.dec; break;
	case DL_TYPE_STRING:
	case DL_TYPE_BINARY:
		s->v.str.ptr = v->v.s.p;
		s->v.str.len = (size_t)v->v.s.n;
		break;
	default: s->v.i64 = v->v.i;
	}
}

int ex_const_array(dl_array **out, const dl_type *t, const ex_val *v)
{
	dl_builder *b;
	DL_TRY(dl_builder_new(&b, (dl_type *)t));
	int rc = ex_builder_put(b, v);
	if (rc == 0) rc = dl_builder_finish(out, b);
	dl_builder_free(b);
	return rc;
}

/* Stores a value into row i of a fixed-width or boolean array (no range
 * checks: the binder typed the function's result). */
static void put_fixed(dl_array *a, int64_t i, const ex_val *v)
{
	void *p = a->values;
	switch (a->type->id) {
	case DL_TYPE_BOOLEAN:
		if (v->v.b) dl_bit_set(p, i);
		else dl_bit_clear(p, i);
		break;
	case DL_TYPE_BYTE: ((int8_t *)p)[i] = (int8_t)v->v.i; break;
	case DL_TYPE_SHORT: ((int16_t *)p)[i] = (int16_t)v->v.i; break;
	case DL_TYPE_INTEGER:
	case DL_TYPE_DATE: ((int32_t *)p)[i] = (int32_t)v->v.i; break;
	case DL_TYPE_FLOAT: ((float *)p)[i] = (float)v->v.d; break;
	case DL_TYPE_DOUBLE: ((double *)p)[i] = v->v.d; break;
	case DL_TYPE_DECIMAL: memcpy((char *)p + 16 * i, &v->v.dec, 16); break;
	default: ((int64_t *)p)[i] = v->v.i; break;
	}
}

static bool direct_type(const dl_type *t)
{
	return t->id == DL_TYPE_BOOLEAN || (dl_type_fixed_width(t) > 0 && t->id != DL_TYPE_NULL);
}

/* The row driver for fixed-width results: values go straight into the
 * output array (the builder's per-value checks cost more than most
 * functions). */
static int eval_rows_fixed(ex_vec *out, const ex_node *n, ex_vec *args, int nargs, ex_run *r, ex_row_fn fn,
                           bool null_intolerant, int64_t rows, bool all_const, ex_val *av, const dl_type **at)
{
	dl_array *res = n->type->id == DL_TYPE_BOOLEAN ? dl_array_new(n->type, rows) : ex_alloc_fixed(n->type, rows);
	if (!res) return DL_ENOMEM;
	size_t bytes = (size_t)(rows + 7) / 8;
	uint8_t *vld = dl_calloc(bytes ? bytes : 1, 1);
	dl_buf buf = DL_BUF_INIT;
	int rc = vld ? 0 : DL_ENOMEM;
	bool anynull_out = false;
	ex_row row = {r, n, &buf, nargs, at};
	for (int64_t i = 0; rc == 0 && i < rows; i++) {
		bool anynull = false;
		for (int k = 0; k < nargs; k++) {
			ex_val_load(&av[k], args[k].a, ex_row_of(&args[k], i));
			anynull |= av[k].null;
		}
		ex_val o;
		memset(&o, 0, sizeof o);
		if (null_intolerant && anynull) {
			o.null = true;
		} else {
			buf.len = 0;
			rc = fn(&row, &o, av);
		}
		if (o.null) {
			anynull_out = true;
			if (res->type->id != DL_TYPE_BOOLEAN) memset(&o.v, 0, sizeof o.v);
		} else {
			dl_bit_set(vld, i);
		}
		put_fixed(res, i, &o);
	}
	dl_buf_free(&buf);
	if (rc < 0) {
		dl_free(vld);
		dl_array_free(res);
		return rc;
	}
	if (anynull_out) {
		res->validity = vld;
		res->null_count = -1;
	} else {
		dl_free(vld);
		res->null_count = 0;
	}
	out->a = out->owned = res;
	out->is_const = all_const;
	return 0;
}

int ex_eval_rows(ex_vec *out, const ex_node *n, ex_vec *args, int nargs, ex_run *r, ex_row_fn fn,
                 bool null_intolerant)
{
	bool all_const = r->n > 0 && !(n->kind == EX_CALL && n->fn && (n->fn->flags & FN_PER_ROW));
	for (int i = 0; i < nargs; i++) all_const &= args[i].is_const;
	int64_t rows = all_const ? 1 : r->n; /* an empty batch evaluates nothing */
	ex_val small[16];
	const dl_type *smallt[16];
	ex_val *av = nargs <= 16 ? small : dl_calloc((size_t)nargs, sizeof *av);
	const dl_type **at = nargs <= 16 ? smallt : dl_calloc((size_t)nargs, sizeof *at);
	if (av && at && direct_type(n->type) && rows > 0) {
		for (int k = 0; k < nargs; k++) at[k] = args[k].a->type;
		int rc = eval_rows_fixed(out, n, args, nargs, r, fn, null_intolerant, rows, all_const, av, at);
		if (av != small) dl_free(av);
		if (at != smallt) dl_free((void *)at);
		return rc;
	}
	dl_builder *b = NULL;
	dl_buf buf = DL_BUF_INIT;
	int rc = (!av || !at) ? DL_ENOMEM : dl_builder_new(&b, n->type);
	if (rc == 0) rc = dl_builder_reserve(b, rows, 0);
	for (int k = 0; rc == 0 && k < nargs; k++) at[k] = args[k].a->type;
	ex_row row = {r, n, &buf, nargs, at};
	for (int64_t i = 0; rc == 0 && i < rows; i++) {
		bool anynull = false;
		for (int k = 0; k < nargs; k++) {
			ex_val_load(&av[k], args[k].a, ex_row_of(&args[k], i));
			anynull |= av[k].null;
		}
		if (null_intolerant && anynull) {
			rc = dl_builder_append_null(b);
			continue;
		}
		ex_val o;
		memset(&o, 0, sizeof o);
		buf.len = 0;
		rc = fn(&row, &o, av);
		if (rc == 0) rc = ex_builder_put(b, &o);
	}
	dl_array *a = NULL;
	if (rc == 0) rc = dl_builder_finish(&a, b);
	dl_builder_free(b);
	dl_buf_free(&buf);
	if (av != small) dl_free(av);
	if (at != smallt) dl_free((void *)at);
	if (rc < 0) return rc;
	return ex_vec_set(out, a, all_const);
}
