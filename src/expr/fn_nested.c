/* Arrays, maps and structs: subscripts (a[0] is 0-based, element_at is
 * 1-based and counts from the end when negative), size, array_contains,
 * and the constructors named_struct, struct and array. Values are copied
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
