/* Arrays, maps and structs: subscripts (a[0] is 0-based, element_at is
 * 1-based and counts from the end when negative), size, array_contains,
 * and the constructors named_struct, struct, array and map. Values are copied
 * with the builder's range append, so any element type works. */
#include "expr/fn.h"
#include "util/error.h"
#include "util/mem.h"
#include <stdio.h>
#include <string.h>

static int finish(ex_vec *out, dl_builder *b, bool cst)
{
	dl_array *a;
	DL_TRY(dl_builder_finish(&a, b));
	out->a = out->owned = a;
	out->is_const = cst;
	return 0;
}

/* mode 0: x[i] (0-based), 1: element_at, 2: try_element_at */
static int subscript(ex_vec *out, const ex_node *n, ex_vec *args, ex_run *r, int mode)
{
	const dl_type *ct = args[0].a->type;
	bool cst = args[0].is_const && args[1].is_const;
	int64_t len = cst ? 1 : r->n;
	dl_builder *b;
	DL_TRY(dl_builder_new(&b, n->type));
	int rc = 0;
	for (int64_t i = 0; rc == 0 && i < len; i++) {
		ex_val c, k;
		ex_val_load(&c, args[0].a, ex_row_of(&args[0], i));
		ex_val_load(&k, args[1].a, ex_row_of(&args[1], i));
		if (c.null || k.null) {
			rc = dl_builder_append_null(b);
			continue;
		}
		const dl_array *a = c.v.ref.a;
		int64_t row = c.v.ref.row, start = a->offsets[row], cnt = a->offsets[row + 1] - start;
		if (ct->id == DL_TYPE_ARRAY) {
			int64_t idx = k.v.i;
			if (mode == 0) {
				if (idx < 0 || idx >= cnt)
					rc = dl_error_set_class(DL_EINVALID, "INVALID_ARRAY_INDEX",
					                        "[INVALID_ARRAY_INDEX] The index %lld is out of bounds. The array has %lld "
					                        "elements. Use `try_element_at` to tolerate accessing element at invalid "
					                        "index and return NULL instead.",
					                        (long long)idx, (long long)cnt);
			} else if (idx == 0) {
				rc = dl_error_set_class(DL_EINVALID, "INVALID_INDEX_OF_ZERO",
				                        "[INVALID_INDEX_OF_ZERO] The index 0 is invalid. An index shall be either < 0 or > 0 "
				                        "(the first element has index 1).");
			} else {
				idx = idx > 0 ? idx - 1 : cnt + idx;
				if ((idx < 0 || idx >= cnt) && mode == 1)
					rc = dl_error_set_class(DL_EINVALID, "INVALID_ARRAY_INDEX_IN_ELEMENT_AT",
					                        "[INVALID_ARRAY_INDEX_IN_ELEMENT_AT] The index %lld is out of bounds. The "
					                        "array has %lld elements. Use `try_element_at` to tolerate accessing element "
					                        "at invalid index and return NULL instead.",
					                        (long long)k.v.i, (long long)cnt);
			}
			if (rc < 0) break;
			if (idx < 0 || idx >= cnt) rc = dl_builder_append_null(b);
			else rc = dl_builder_append_range(b, a->children[0], start + idx, 1);
			continue;
		}
		/* map: linear search of the entries */
		const dl_array *keys = a->children[0]->children[0], *vals = a->children[0]->children[1];
		int64_t hit = -1;
		for (int64_t j = 0; j < cnt && hit < 0; j++) {
			ex_val kk;
			ex_val_load(&kk, keys, start + j);
			if (!kk.null && ex_val_eq(&kk, &k, ct->children[0].type)) hit = start + j;
		}
		rc = hit < 0 ? dl_builder_append_null(b) : dl_builder_append_range(b, vals, hit, 1);
	}
	if (rc == 0) rc = finish(out, b, cst);
	dl_builder_free(b);
	return rc;
}

int ex_index_eval(ex_vec *out, const ex_node *n, ex_vec *args, ex_run *r)
{
	return subscript(out, n, args, r, 0);
}

VECFN(vec_element_at) { return subscript(out, n, args, r, 1); }
VECFN(vec_try_element_at) { return subscript(out, n, args, r, 2); }

BINDFN(bind_element_at)
{
	const dl_type *t = n->args[0]->type;
	char tn[128];
	if (t->id == DL_TYPE_ARRAY) {
		DL_TRY(ex_coerce(b, &n->args[1], ex_type(b, DL_TYPE_INTEGER)));
		n->type = t->children[0].type;
		return 0;
	}
	if (t->id == DL_TYPE_MAP) {
		DL_TRY(ex_coerce(b, &n->args[1], t->children[0].type));
		n->type = t->children[1].type;
		return 0;
	}
	dl_type_sql(t, tn, sizeof tn);
	return dl_error_set(DL_EINVALID, "[DATATYPE_MISMATCH] %s() needs an ARRAY or MAP, got %s", n->fn->name, tn);
}

BINDFN(bind_size)
{
	(void)b;
	const dl_type *t = n->args[0]->type;
	if (t->id != DL_TYPE_ARRAY && t->id != DL_TYPE_MAP && t->id != DL_TYPE_NULL) {
		char tn[128];
		dl_type_sql(t, tn, sizeof tn);
		return dl_error_set(DL_EINVALID, "[DATATYPE_MISMATCH] %s() needs an ARRAY or MAP, got %s", n->fn->name, tn);
	}
	return 0;
}

ROWFN(fn_size)
{
	(void)r;
	const dl_array *arr = a[0].v.ref.a;
	int64_t row = a[0].v.ref.row;
	out->v.i = arr->offsets[row + 1] - arr->offsets[row];
	return 0;
}

BINDFN(bind_array_contains)
{
	const dl_type *t = n->args[0]->type;
	if (t->id != DL_TYPE_ARRAY) {
		char tn[128];
		dl_type_sql(t, tn, sizeof tn);
		return dl_error_set(DL_EINVALID, "[DATATYPE_MISMATCH] array_contains() needs an ARRAY, got %s", tn);
	}
	return ex_coerce(b, &n->args[1], t->children[0].type);
}

ROWFN(fn_array_contains)
{
	if (a[0].null || a[1].null) {
		out->null = true;
		return 0;
	}
	const dl_array *arr = a[0].v.ref.a;
	int64_t row = a[0].v.ref.row;
	const dl_type *et = r->argt[0]->children[0].type;
	bool sawnull = false;
	for (int32_t k = arr->offsets[row]; k < arr->offsets[row + 1]; k++) {
		ex_val e;
		ex_val_load(&e, arr->children[0], k);
		if (e.null) {
			sawnull = true;
			continue;
		}
		if (ex_val_eq(&e, &a[1], et)) {
			out->v.b = true;
			return 0;
		}
	}
	out->null = sawnull;
	out->v.b = false;
	return 0;
}

static int struct_of(ex_bind *b, ex_node *n, char **names, ex_node **vals, int nf)
{
	dl_field *f = dl_calloc((size_t)(nf ? nf : 1), sizeof *f);
	if (!f) return DL_ENOMEM;
	for (int i = 0; i < nf; i++) {
		f[i].name = names[i];
		f[i].type = vals[i]->type;
		f[i].nullable = true;
		f[i].metadata = NULL;
	}
	n->type = ex_keep_type(b->e, dl_type_struct(f, nf));
	dl_free(f);
	return n->type ? 0 : DL_ENOMEM;
}

BINDFN(bind_named_struct)
{
	if (n->nargs % 2) return dl_error_set(DL_EINVALID, "named_struct() takes name/value pairs, got %d arguments", n->nargs);
	int nf = n->nargs / 2;
	char **names = dl_arena_calloc(&b->e->arena, (size_t)nf + 1, sizeof *names);
	ex_node **vals = dl_arena_calloc(&b->e->arena, (size_t)nf + 1, sizeof *vals);
	if (!names || !vals) return DL_ENOMEM;
	for (int i = 0; i < nf; i++) {
		ex_node *k = n->args[2 * i];
		if (k->kind != EX_LIT || k->lit.type != DL_TYPE_STRING || k->lit.is_null)
			return dl_error_set(DL_EINVALID, "named_struct() field names must be string literals (argument %d)", 2 * i + 1);
		names[i] = dl_arena_strndup(&b->e->arena, k->lit.v.str.ptr, k->lit.v.str.len);
		if (!names[i]) return DL_ENOMEM;
		vals[i] = n->args[2 * i + 1];
	}
	return struct_of(b, n, names, vals, nf);
}

BINDFN(bind_struct)
{
	char **names = dl_arena_calloc(&b->e->arena, (size_t)n->nargs + 1, sizeof *names);
	if (!names) return DL_ENOMEM;
	for (int i = 0; i < n->nargs; i++) {
		ex_node *a = n->args[i];
		char tmp[24];
		snprintf(tmp, sizeof tmp, "col%d", i + 1);
		names[i] = dl_arena_strdup(&b->e->arena, a->kind == EX_COL ? a->path[a->npath - 1] : tmp);
		if (!names[i]) return DL_ENOMEM;
	}
	return struct_of(b, n, names, n->args, n->nargs);
}

static int build_struct(ex_vec *out, const ex_node *n, ex_vec *args, ex_run *r, int first, int step)
{
	bool cst = true;
	for (int i = 0; i < n->nargs; i++) cst &= args[i].is_const;
	int64_t len = cst ? 1 : r->n;
	dl_builder *b;
	DL_TRY(dl_builder_new(&b, n->type));
	int rc = 0;
	for (int64_t i = 0; rc == 0 && i < len; i++) {
		rc = dl_builder_begin_struct(b);
		for (int k = first, f = 0; rc == 0 && k < n->nargs; k += step, f++)
			rc = dl_builder_append_range(dl_builder_child(b, f), args[k].a, ex_row_of(&args[k], i), 1);
		if (rc == 0) rc = dl_builder_end_struct(b);
	}
	if (rc == 0) rc = finish(out, b, cst);
	dl_builder_free(b);
	return rc;
}

VECFN(vec_named_struct) { return build_struct(out, n, args, r, 1, 2); }
VECFN(vec_struct) { return build_struct(out, n, args, r, 0, 1); }

BINDFN(bind_array)
{
	const dl_type *c = NULL;
	for (int i = 0; i < n->nargs; i++) {
		c = c ? ex_common_type(b, c, n->args[i]->type, "array", n->pos) : n->args[i]->type;
		if (!c) return DL_EINVALID;
	}
	if (!c || c->id == DL_TYPE_NULL) c = ex_type(b, DL_TYPE_STRING);
	for (int i = 0; i < n->nargs; i++) DL_TRY(ex_coerce(b, &n->args[i], c));
	n->type = ex_keep_type(b->e, dl_type_array((dl_type *)c, true));
	return n->type ? 0 : DL_ENOMEM;
}

VECFN(vec_array)
{
	bool cst = true;
	for (int i = 0; i < n->nargs; i++) cst &= args[i].is_const;
	int64_t len = cst ? 1 : r->n;
	dl_builder *b;
	DL_TRY(dl_builder_new(&b, n->type));
	int rc = 0;
	for (int64_t i = 0; rc == 0 && i < len; i++) {
		rc = dl_builder_begin_list(b);
		for (int k = 0; rc == 0 && k < n->nargs; k++)
			rc = dl_builder_append_range(dl_builder_child(b, 0), args[k].a, ex_row_of(&args[k], i), 1);
		if (rc == 0) rc = dl_builder_end_list(b);
	}
	if (rc == 0) rc = finish(out, b, cst);
	dl_builder_free(b);
	return rc;
}

/* map(k1, v1, ...): Spark's CreateMap. Keys and values are coerced to
 * their common types; a NULL key is NULL_MAP_KEY and a repeated key
 * DUPLICATED_MAP_KEY (Spark's default mapKeyDedupPolicy EXCEPTION). */
BINDFN(bind_map)
{
	if (n->nargs % 2) return dl_error_set(DL_EINVALID, "[WRONG_NUM_ARGS] map() takes key/value pairs, got %d arguments", n->nargs);
	const dl_type *k = NULL, *v = NULL;
	for (int i = 0; i + 1 < n->nargs; i += 2) {
		k = k ? ex_common_type(b, k, n->args[i]->type, "map", n->pos) : n->args[i]->type;
		v = v ? ex_common_type(b, v, n->args[i + 1]->type, "map", n->pos) : n->args[i + 1]->type;
		if (!k || !v) return DL_EINVALID;
	}
	if (!k || k->id == DL_TYPE_NULL) k = ex_type(b, DL_TYPE_STRING);
	if (!v || v->id == DL_TYPE_NULL) v = ex_type(b, DL_TYPE_STRING);
	for (int i = 0; i < n->nargs; i++) DL_TRY(ex_coerce(b, &n->args[i], i % 2 ? v : k));
	n->type = ex_keep_type(b->e, dl_type_map((dl_type *)k, (dl_type *)v, true));
	return n->type ? 0 : DL_ENOMEM;
}

VECFN(vec_map)
{
	bool cst = true;
	for (int i = 0; i < n->nargs; i++) cst &= args[i].is_const;
	int64_t len = cst ? 1 : r->n;
	const dl_type *kt = n->type->children[0].type;
	dl_builder *b;
	DL_TRY(dl_builder_new(&b, n->type));
	int rc = 0;
	for (int64_t i = 0; rc == 0 && i < len; i++) {
		for (int k = 0; rc == 0 && k < n->nargs; k += 2) {
			ex_val a, c;
			ex_val_load(&a, args[k].a, ex_row_of(&args[k], i));
			if (a.null) rc = dl_error_set(DL_EINVALID, "[NULL_MAP_KEY] Cannot use null as map key.");
			for (int j = 0; rc == 0 && j < k; j += 2) {
				ex_val_load(&c, args[j].a, ex_row_of(&args[j], i));
				if (ex_val_eq(&a, &c, kt))
					rc = dl_error_set(DL_EINVALID, "[DUPLICATED_MAP_KEY] Duplicate map key was found, "
					                               "please check the input data.");
			}
		}
		if (rc == 0) rc = dl_builder_begin_list(b);
		for (int k = 0; rc == 0 && k < n->nargs; k += 2) {
			rc = dl_builder_append_range(dl_builder_child(b, 0), args[k].a, ex_row_of(&args[k], i), 1);
			if (rc == 0)
				rc = dl_builder_append_range(dl_builder_child(b, 1), args[k + 1].a, ex_row_of(&args[k + 1], i), 1);
		}
		if (rc == 0) rc = dl_builder_end_list(b);
	}
	if (rc == 0) rc = finish(out, b, cst);
	dl_builder_free(b);
	return rc;
}

/* ---- array_join, array_min/max, array_position, sort_array ------------- */

static int need_array(const ex_node *n)
{
	const dl_type *t = n->args[0]->type;
	if (t->id == DL_TYPE_ARRAY) return 0;
	char tn[128];
	dl_type_sql(t, tn, sizeof tn);
	return dl_error_set(DL_EINVALID, "[DATATYPE_MISMATCH] %s() needs an ARRAY, got %s", n->fn->name, tn);
}

BINDFN(bind_array_join)
{
	DL_TRY(need_array(n));
	for (int i = 1; i < n->nargs; i++) DL_TRY(ex_coerce(b, &n->args[i], ex_type(b, DL_TYPE_STRING)));
	n->type = ex_type(b, DL_TYPE_STRING);
	return n->type ? 0 : DL_ENOMEM;
}

/* array_join(arr, sep[, null_replacement]): NULL elements are skipped
 * unless a replacement is given; elements are cast to STRING. */
ROWFN(fn_array_join)
{
	const dl_array *arr = a[0].v.ref.a;
	int64_t row = a[0].v.ref.row;
	const dl_type *et = r->argt[0]->children[0].type;
	dl_type *st = dl_type_new(DL_TYPE_STRING);
	if (!st) return DL_ENOMEM;
	dl_buf tmp = DL_BUF_INIT;
	bool first = true;
	int rc = 0;
	for (int32_t k = arr->offsets[row]; rc == 0 && k < arr->offsets[row + 1]; k++) {
		ex_val e, s;
		ex_val_load(&e, arr->children[0], k);
		if (e.null && r->nargs < 3) continue;
		if (!first) rc = dl_buf_append(r->buf, a[1].v.s.p, (size_t)a[1].v.s.n);
		first = false;
		if (rc < 0) break;
		if (e.null) {
			rc = dl_buf_append(r->buf, a[2].v.s.p, (size_t)a[2].v.s.n);
			continue;
		}
		tmp.len = 0;
		rc = ex_cast_val(&s, &e, et, st, false, r->run->tz, &tmp);
		if (rc == 0) rc = dl_buf_append(r->buf, s.v.s.p, (size_t)s.v.s.n);
	}
	dl_buf_free(&tmp);
	dl_type_unref(st);
	if (rc < 0) return rc;
	out->v.s.p = r->buf->data ? r->buf->data : "";
	out->v.s.n = (int64_t)r->buf->len;
	return 0;
}

BINDFN(bind_array_extreme)
{
	(void)b;
	DL_TRY(need_array(n));
	n->type = n->args[0]->type->children[0].type;
	return 0;
}

static int array_extreme(ex_row *r, ex_val *out, const ex_val *a, int sign)
{
	const dl_array *arr = a[0].v.ref.a;
	int64_t row = a[0].v.ref.row;
	const dl_type *et = r->argt[0]->children[0].type;
	out->null = true;
	for (int32_t k = arr->offsets[row]; k < arr->offsets[row + 1]; k++) {
		ex_val e;
		ex_val_load(&e, arr->children[0], k);
		if (e.null) continue;
		if (out->null || ex_val_cmp(&e, out, et) * sign > 0) *out = e;
	}
	return 0;
}

ROWFN(fn_array_min) { return array_extreme(r, out, a, -1); }
ROWFN(fn_array_max) { return array_extreme(r, out, a, 1); }

BINDFN(bind_array_position)
{
	DL_TRY(need_array(n));
	DL_TRY(ex_coerce(b, &n->args[1], n->args[0]->type->children[0].type));
	n->type = ex_type(b, DL_TYPE_LONG);
	return n->type ? 0 : DL_ENOMEM;
}

/* 1-based position of the first element equal to v, 0 when absent. */
ROWFN(fn_array_position)
{
	const dl_array *arr = a[0].v.ref.a;
	int64_t row = a[0].v.ref.row, start = arr->offsets[row];
	const dl_type *et = r->argt[0]->children[0].type;
	out->v.i = 0;
	for (int64_t k = start; k < arr->offsets[row + 1]; k++) {
		ex_val e;
		ex_val_load(&e, arr->children[0], k);
		if (!e.null && ex_val_eq(&e, &a[1], et)) {
			out->v.i = k - start + 1;
			break;
		}
	}
	return 0;
}

BINDFN(bind_sort_array)
{
	DL_TRY(need_array(n));
	if (n->nargs == 2) DL_TRY(ex_coerce(b, &n->args[1], ex_type(b, DL_TYPE_BOOLEAN)));
	n->type = n->args[0]->type;
	return 0;
}

typedef struct sort_ctx {
	const dl_array *el;
	const dl_type *et;
	bool asc;
} sort_ctx;

/* Insertion sort of element indexes (arrays are short; stable, NULLs
 * first when ascending and last when descending, as Spark). */
static void sort_idx(int64_t *idx, int64_t n, const sort_ctx *c)
{
	for (int64_t i = 1; i < n; i++) {
		int64_t v = idx[i], j = i;
		ex_val x;
		ex_val_load(&x, c->el, v);
		while (j > 0) {
			ex_val y;
			ex_val_load(&y, c->el, idx[j - 1]);
			int cmp;
			if (x.null || y.null) cmp = x.null == y.null ? 0 : x.null ? -1 : 1;
			else cmp = ex_val_cmp(&x, &y, c->et);
			if (!c->asc) cmp = -cmp;
			if (cmp >= 0) break;
			idx[j] = idx[j - 1];
			j--;
		}
		idx[j] = v;
	}
}

VECFN(vec_sort_array)
{
	bool cst = true;
	for (int i = 0; i < n->nargs; i++) cst &= args[i].is_const;
	int64_t len = cst ? 1 : r->n;
	dl_builder *b;
	DL_TRY(dl_builder_new(&b, n->type));
	int64_t *idx = NULL, cap = 0;
	int rc = 0;
	for (int64_t i = 0; rc == 0 && i < len; i++) {
		ex_val v, asc = {.v.b = true};
		ex_val_load(&v, args[0].a, ex_row_of(&args[0], i));
		if (n->nargs == 2) ex_val_load(&asc, args[1].a, ex_row_of(&args[1], i));
		if (v.null || asc.null) {
			rc = dl_builder_append_null(b);
			continue;
		}
		const dl_array *arr = v.v.ref.a;
		int64_t st = arr->offsets[v.v.ref.row], cnt = arr->offsets[v.v.ref.row + 1] - st;
		if (cnt > cap) {
			int64_t *g = dl_reallocarray(idx, (size_t)cnt, sizeof *idx);
			if (!g) {
				rc = DL_ENOMEM;
				break;
			}
			idx = g;
			cap = cnt;
		}
		for (int64_t k = 0; k < cnt; k++) idx[k] = st + k;
		sort_ctx sc = {arr->children[0], n->type->children[0].type, asc.v.b};
		sort_idx(idx, cnt, &sc);
		rc = dl_builder_begin_list(b);
		for (int64_t k = 0; rc == 0 && k < cnt; k++)
			rc = dl_builder_append_range(dl_builder_child(b, 0), arr->children[0], idx[k], 1);
		if (rc == 0) rc = dl_builder_end_list(b);
	}
	dl_free(idx);
	if (rc == 0) rc = finish(out, b, cst);
	dl_builder_free(b);
	return rc;
}

/* __store_by_name(v, CAST(NULL AS t)[, 'col']): v stored into type t by name, as
 * UPDATE and MERGE store a value whose structs (inside arrays and maps
 * too) differ from the column's (struct_store.c writes these calls; Spark
 * writes a transform() over the elements with a lambda). */
BINDFN(bind_store_by_name)
{
	(void)b;
	const dl_type *from = n->args[0]->type, *to = n->args[1]->type;
	if (!ex_storable(from, to)) {
		char a[1024], c[1024];
		dl_type_sql(from, a, sizeof a);
		dl_type_sql(to, c, sizeof c);
		return dl_error_set_class(DL_EINVALID, "DELTA_UPDATE_SCHEMA_MISMATCH_EXPRESSION",
		                          "[DELTA_UPDATE_SCHEMA_MISMATCH_EXPRESSION] Cannot cast %s to %s. All "
		                          "nested columns must match.",
		                          a, c);
	}
	n->type = (dl_type *)to;
	return 0;
}

/* The column name of a store (the optional string literal args[k]). */
static void store_col(char *out, size_t cap, const ex_node *n, ex_vec *args, int k)
{
	out[0] = 0;
	if (n->nargs <= k || args[k].a->type->id != DL_TYPE_STRING) return;
	ex_val v;
	ex_val_load(&v, args[k].a, 0);
	if (v.null) return;
	size_t m = (size_t)v.v.s.n < cap - 1 ? (size_t)v.v.s.n : cap - 1;
	memcpy(out, v.v.s.p, m);
	out[m] = 0;
}

VECFN(vec_store_by_name)
{
	int64_t len = args[0].is_const ? 1 : r->n;
	dl_builder *b;
	dl_buf buf = DL_BUF_INIT;
	char col[512];
	store_col(col, sizeof col, n, args, 2);
	DL_TRY(dl_builder_new(&b, n->type));
	int rc = 0;
	for (int64_t i = 0; rc == 0 && i < len; i++) {
		ex_val v;
		ex_val_load(&v, args[0].a, i);
		rc = ex_store_into(b, &v, args[0].a->type, n->type, r->tz, &buf, col);
	}
	if (rc == 0) rc = finish(out, b, args[0].is_const);
	dl_builder_free(b);
	dl_buf_free(&buf);
	return rc;
}

/* __check_overflow_in_table_write(v, CAST(NULL AS t), 'col') and
 * __check_overflow_in_table_insert(...): CAST(v AS t) as the store
 * assignment of UPDATE and MERGE (struct_store.c, merge_resolve.c) or of
 * INSERT (stmt_insert.c) writes it, Spark's CheckOverflowInTableWrite /
 * CheckOverflowInTableInsert around its ANSI cast: an overflow of this
 * cast names the column (ex_store_overflow); the errors of v itself, a
 * CAST the user wrote inside it included, are v's own. */
BINDFN(bind_check_overflow)
{
	(void)b;
	DL_TRY(ex_cast_check(n->args[0]->type, n->args[1]->type));
	n->type = n->args[1]->type;
	return 0;
}

VECFN(vec_check_overflow)
{
	const dl_type *from = args[0].a->type;
	char col[512];
	store_col(col, sizeof col, n, args, 2);
	int rc = ex_cast_vec(out, n, &args[0], r);
	return ex_store_overflow(rc, from, n->type, col, strcmp(n->fn->name, "__check_overflow_in_table_insert") == 0);
}
