/* IN with a list of constants: the list is sorted once when binding and
 * each row does a binary search (integral, date/time and string types),
 * instead of comparing with every element. */
#include <stdlib.h>
#include <string.h>
#include "expr/eval.h"
#include "util/error.h"
#include "util/mem.h"

typedef struct in_str {
	const char *p;
	int64_t n;
} in_str;

typedef struct in_set {
	bool strings;
	bool has_null;
	int64_t count;
	int64_t *ints;
	in_str *strs;
} in_set;

static void in_set_free(void *p)
{
	in_set *s = p;
	dl_free(s->ints);
	dl_free(s->strs);
	dl_free(s);
}

static int cmp_i64(const void *a, const void *b)
{
	int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
	return x < y ? -1 : x > y;
}

static int cmp_str(const in_str *a, const char *p, int64_t n)
{
	int64_t m = a->n < n ? a->n : n;
	int c = m ? memcmp(a->p, p, (size_t)m) : 0;
	if (c) return c;
	return a->n < n ? -1 : a->n > n;
}

static int qcmp_str(const void *a, const void *b)
{
	const in_str *y = b;
	return cmp_str(a, y->p, y->n);
}

static bool keyed(dl_type_id t)
{
	switch (t) {
	case DL_TYPE_BYTE:
	case DL_TYPE_SHORT:
	case DL_TYPE_INTEGER:
	case DL_TYPE_LONG:
	case DL_TYPE_DATE:
	case DL_TYPE_TIMESTAMP:
	case DL_TYPE_TIMESTAMP_NTZ:
	case DL_TYPE_STRING:
	case DL_TYPE_BINARY: return true;
	default: return false;
	}
}

int ex_in_prepare(dl_expr *e, ex_node *n)
{
	dl_type_id t = n->args[0]->type->id;
	if (n->nargs < 6 || !keyed(t)) return 0;
	for (int i = 1; i < n->nargs; i++)
		if (n->args[i]->kind != EX_LIT) return 0;
	in_set *s = dl_calloc(1, sizeof *s);
	if (!s) return DL_ENOMEM;
	s->strings = t == DL_TYPE_STRING || t == DL_TYPE_BINARY;
	size_t k = (size_t)n->nargs - 1;
	if (s->strings) s->strs = dl_calloc(k, sizeof *s->strs);
	else s->ints = dl_calloc(k, sizeof *s->ints);
	if (!s->strs && !s->ints) {
		dl_free(s);
		return DL_ENOMEM;
	}
	for (int i = 1; i < n->nargs; i++) {
		const dl_scalar *l = &n->args[i]->lit;
		if (l->is_null || l->type == DL_TYPE_NULL) {
			s->has_null = true;
			continue;
		}
		if (s->strings) s->strs[s->count++] = (in_str){l->v.str.ptr, (int64_t)l->v.str.len};
		else s->ints[s->count++] = l->v.i64;
	}
	if (s->strings) qsort(s->strs, (size_t)s->count, sizeof *s->strs, qcmp_str);
	else qsort(s->ints, (size_t)s->count, sizeof *s->ints, cmp_i64);
	DL_TRY(ex_keep_aux(e, s, in_set_free));
	n->aux = s;
	return 0;
}

static bool find(const in_set *s, const ex_val *x)
{
	int64_t lo = 0, hi = s->count - 1;
	while (lo <= hi) {
		int64_t mid = lo + (hi - lo) / 2;
		int c = s->strings ? cmp_str(&s->strs[mid], x->v.s.p, x->v.s.n)
		                   : (s->ints[mid] < x->v.i ? -1 : s->ints[mid] > x->v.i);
		if (c == 0) return true;
		if (c < 0) lo = mid + 1;
		else hi = mid - 1;
	}
	return false;
}

/* Returns 1 when handled. */
int ex_in_eval_set(ex_vec *out, const ex_node *n, ex_run *r)
{
	const in_set *s = n->aux;
	if (!s) return 0;
	ex_vec x = {0};
	DL_TRY(ex_eval_node(&x, n->args[0], r));
	int64_t len = x.is_const ? 1 : r->n;
	dl_type *bt = dl_type_new(DL_TYPE_BOOLEAN);
	dl_array *res = bt ? dl_array_new(bt, len) : NULL;
	if (bt) dl_type_unref(bt);
	if (res) res->validity = dl_calloc((size_t)(len + 7) / 8 + 1, 1);
	if (!res || !res->validity) {
		dl_array_free(res);
		ex_vec_release(&x);
		return DL_ENOMEM;
	}
	for (int64_t i = 0; i < len; i++) {
		ex_val v;
		ex_val_load(&v, x.a, i);
		if (v.null) continue;
		bool f = find(s, &v);
		if (!f && s->has_null) continue; /* NULL */
		dl_bit_set(res->validity, i);
		if (f != n->negated) dl_bit_set(res->values, i);
	}
	res->null_count = -1;
	bool cst = x.is_const;
	ex_vec_release(&x);
	out->a = out->owned = res;
	out->is_const = cst;
	return 1;
}
