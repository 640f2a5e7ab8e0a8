/* The hash aggregate's newer kinds (agg_ext.h): dispatch, count_if,
 * bool_and/bool_or, any_value, and the agg(DISTINCT x) filter. Spark's
 * semantics (aggregate/CountIf.scala, boolAggregates.scala,
 * AnyValue.scala, collect.scala, HyperLogLogPlusPlus.scala,
 * ApproximatePercentile.scala):
 *
 * - count_if(p): BIGINT, never NULL, the rows where p is TRUE;
 * - bool_and / bool_or: BOOLEAN over the non-NULL values, NULL without any;
 * - any_value(x [, ignoreNulls]): first(x) (Spark's AnyValue is First),
 *   here of any type;
 * - collect_list / collect_set: ARRAY<x> without NULLs (containsNull
 *   false), never NULL: an empty group gives []. collect_set keeps each
 *   value once (NaN once, -0.0 equal to 0.0), in order of first appearance;
 *   Spark's order is its hash set's, so only the set is the contract;
 * - approx_count_distinct: agg_hll.c; percentile_approx: agg_percentile.c. */
#include <string.h>
#include "exec/agg_ext.h"
#include "expr/eval.h"

static const char *const kind_names[] = {"count(*)",    "count",       "count(DISTINCT)", "sum", "avg", "min", "max",
                                         "first",       "last",        "var_samp",        "var_pop", "stddev_samp",
                                         "stddev_pop",  "collect_list", "collect_set",    "approx_count_distinct",
                                         "percentile_approx", "count_if", "bool_and",     "bool_or", "any_value"};

const char *dl_agg_kind_name(dl_agg_kind k)
{
	return (int)k >= 0 && (size_t)k < sizeof kind_names / sizeof kind_names[0] ? kind_names[k] : "aggregate";
}

bool dl_agg_ext_kind(dl_agg_kind k, const dl_type *in)
{
	if (k >= DL_AGG_MIN && k <= DL_AGG_LAST) return in && !dl_type_is_primitive(in);
	return k >= DL_AGG_COLLECT_LIST && k <= DL_AGG_ANY_VALUE;
}

int agg_store_add(agg_store *s, const dl_array *x, const uint32_t *sel, int64_t n, dl_exec_memory *mem,
                  uint32_t *chunk)
{
	if (s->nchunks == s->cap) {
		int64_t nc = s->cap ? 2 * s->cap : 16;
		dl_array **c = dl_reallocarray(s->chunks, (size_t)nc, sizeof *c);
		if (!c) return dl_error_set(DL_ENOMEM, "out of memory");
		s->chunks = c;
		s->cap = nc;
	}
	dl_array *a = dl_array_take(x, sel, n);
	if (!a) return dl_exec_failed();
	int64_t bytes = dl_array_bytes(a);
	int rc = dl_exec_mem_charge(mem, bytes, "hash aggregate");
	if (rc < 0) {
		dl_array_free(a);
		return rc;
	}
	s->bytes += bytes;
	*chunk = (uint32_t)s->nchunks;
	s->chunks[s->nchunks++] = a;
	return 0;
}

void agg_store_free(agg_store *s, dl_exec_memory *mem)
{
	for (int64_t i = 0; i < s->nchunks; i++) dl_array_free(s->chunks[i]);
	dl_free(s->chunks);
	dl_exec_mem_release(mem, s->bytes);
	memset(s, 0, sizeof *s);
}

static int type_error(const char *nm, const dl_type *in, const char *need, int index)
{
	char t[64];
	dl_type_sql(in, t, sizeof t);
	return dl_error_set_class(DL_EINVALID, "DATATYPE_MISMATCH.UNEXPECTED_INPUT_TYPE",
	                          "hash aggregate: %s (aggregate %d) needs %s, not %s", nm, index + 1, need, t);
}

/* percentile_approx's percentage: a DOUBLE constant in [0, 1], or an
 * array of them. */
static int percentages(dl_agg_ext *x, dl_expr *param, const dl_type *schema, const dl_exec_ctx *ctx, int index)
{
	if (!param)
		return dl_error_set(DL_EINVALID, "hash aggregate: percentile_approx (aggregate %d) needs a percentage",
		                    index + 1);
	DL_TRY(dl_exec_bind(param, schema, ctx, "hash aggregate: percentile_approx"));
	/* evaluate over a one-row batch: arrays are not scalars */
	dl_type *empty = dl_exec_struct(NULL, NULL, NULL, 0);
	dl_batch *one = empty ? dl_batch_new(empty, 1) : NULL;
	dl_type_unref(empty);
	dl_array *v = NULL;
	int rc = one ? dl_expr_eval(&v, param, one, ctx ? &ctx->eval : NULL) : dl_exec_failed();
	dl_batch_free(one);
	if (rc < 0) {
		if (dl_expr_type(param)) rc = dl_error_prefix("hash aggregate: percentile_approx's percentage must be a constant");
		return rc;
	}
	const dl_array *el = v;
	int64_t lo = 0, n = 1;
	x->pct_array = v->type->id == DL_TYPE_ARRAY;
	if (x->pct_array) {
		if (!dl_array_is_valid(v, 0)) n = 0, rc = -1;
		else {
			el = v->children[0];
			lo = v->offsets[0];
			n = v->offsets[1] - v->offsets[0];
		}
	}
	if (rc == 0 && !dl_type_is_numeric(el->type)) rc = -1;
	if (rc == 0) {
		x->pct = dl_calloc((size_t)(n ? n : 1), sizeof *x->pct);
		if (!x->pct) rc = dl_error_set(DL_ENOMEM, "out of memory");
	}
	for (int64_t i = 0; rc == 0 && i < n; i++) {
		ex_val e;
		ex_val_load(&e, el, lo + i);
		double d = e.null ? -1 : el->type->id == DL_TYPE_DECIMAL ? ex_dec_to_double(e.v.dec, el->type->scale)
		           : dl_type_is_integral(el->type)                ? (double)e.v.i
		                                                          : e.v.d;
		if (!(d >= 0 && d <= 1)) rc = -1;
		else x->pct[x->npct++] = d;
	}
	dl_array_free(v);
	if (rc == -1)
		rc = dl_error_set_class(DL_EINVALID, "DATATYPE_MISMATCH.VALUE_OUT_OF_RANGE",
		                        "hash aggregate: percentile_approx's percentage must be a number between 0.0 and 1.0 "
		                        "or an array of them (aggregate %d)",
		                        index + 1);
	return rc;
}

int dl_agg_ext_new(dl_agg_ext **out, const dl_exec_agg *spec, const dl_type *in, const dl_type *schema,
                   const dl_exec_ctx *ctx, int index, const dl_type **out_type, bool *nullable)
{
	*out = NULL;
	dl_agg_ext *x = dl_calloc(1, sizeof *x);
	if (!x) {
		dl_expr_free(spec->param);
		return dl_error_set(DL_ENOMEM, "out of memory");
	}
	x->kind = spec->kind;
	x->in = in;
	x->ignore_nulls = spec->ignore_nulls;
	x->mem = ctx ? ctx->mem : NULL;
	const char *nm = dl_agg_kind_name(x->kind);
	*nullable = true;
	int rc = 0;
	switch (x->kind) {
	case DL_AGG_COUNT_IF:
		if (in->id != DL_TYPE_BOOLEAN) rc = type_error(nm, in, "a BOOLEAN", index);
		x->out = dl_type_new(DL_TYPE_LONG);
		*nullable = false;
		break;
	case DL_AGG_BOOL_AND:
	case DL_AGG_BOOL_OR:
		if (in->id != DL_TYPE_BOOLEAN) rc = type_error(nm, in, "a BOOLEAN", index);
		x->out = dl_type_new(DL_TYPE_BOOLEAN);
		break;
	case DL_AGG_MIN:
	case DL_AGG_MAX:
		if (in->id == DL_TYPE_MAP || in->id == DL_TYPE_VARIANT)
			rc = type_error(nm, in, "an orderable type (not a map or variant)", index);
		/* fall through */
	case DL_AGG_FIRST:
	case DL_AGG_LAST:
	case DL_AGG_ANY_VALUE: x->out = dl_type_ref((dl_type *)in); break;
	case DL_AGG_COLLECT_LIST:
	case DL_AGG_COLLECT_SET:
		if (x->kind == DL_AGG_COLLECT_SET && (in->id == DL_TYPE_MAP || in->id == DL_TYPE_VARIANT))
			rc = type_error(nm, in, "a type that can be compared (not a map or variant)", index);
		x->out = dl_type_array((dl_type *)in, false);
		*nullable = false;
		if (rc == 0 && x->kind == DL_AGG_COLLECT_SET) {
			x->long_t = dl_type_new(DL_TYPE_LONG);
			dl_type *pt[2] = {x->long_t, (dl_type *)in};
			rc = x->long_t ? dl_keytab_new(&x->seen, pt, 2, x->mem, "collect_set") : dl_error_set(DL_ENOMEM, "out of memory");
		}
		break;
	case DL_AGG_APPROX_COUNT_DISTINCT:
		rc = agg_hll_precision(spec->rsd > 0 ? spec->rsd : 0.05, &x->p);
		x->out = dl_type_new(DL_TYPE_LONG);
		*nullable = false;
		break;
	default: /* percentile_approx */
		if (!dl_type_is_numeric(in) && in->id != DL_TYPE_DATE && in->id != DL_TYPE_TIMESTAMP &&
		    in->id != DL_TYPE_TIMESTAMP_NTZ)
			rc = type_error(nm, in, "a numeric, date or timestamp argument", index);
		if (rc == 0 && (spec->accuracy < 0 || spec->accuracy > INT32_MAX))
			rc = dl_error_set_class(DL_EINVALID, "DATATYPE_MISMATCH.VALUE_OUT_OF_RANGE",
			                        "hash aggregate: percentile_approx's accuracy must be between 1 and %d (got %lld)",
			                        INT32_MAX, (long long)spec->accuracy);
		x->rel_err = 1.0 / (double)(spec->accuracy > 0 ? spec->accuracy : 10000);
		if (rc == 0) rc = percentages(x, spec->param, schema, ctx, index);
		x->out = x->pct_array ? dl_type_array((dl_type *)in, false) : dl_type_ref((dl_type *)in);
	}
	dl_expr_free(spec->param);
	if (rc == 0 && !x->out) rc = dl_error_set(DL_ENOMEM, "out of memory");
	if (rc < 0) {
		dl_agg_ext_free(x);
		return rc;
	}
	*out_type = x->out;
	*out = x;
	return 0;
}

void dl_agg_ext_free(dl_agg_ext *x)
{
	if (!x) return;
	if (x->gk) agg_gk_free(x);
	dl_free(x->cnt);
	dl_free(x->aux);
	dl_free(x->ref);
	dl_free(x->tail);
	dl_free(x->elem_ref);
	dl_free(x->elem_next);
	dl_free(x->reg);
	dl_free(x->pct);
	agg_store_free(&x->store, x->mem);
	dl_keytab_free(x->seen);
	dl_type_unref(x->long_t);
	dl_type_unref(x->out);
	dl_exec_mem_release(x->mem, x->charged);
	dl_free(x);
}

int dl_agg_ext_reset(dl_agg_ext *x)
{
	if (x->gk) agg_gk_free(x);
	dl_free(x->cnt);
	dl_free(x->aux);
	dl_free(x->ref);
	dl_free(x->tail);
	dl_free(x->elem_ref);
	dl_free(x->elem_next);
	dl_free(x->reg);
	x->cnt = x->aux = NULL;
	x->ref = x->tail = x->elem_ref = x->elem_next = NULL;
	x->reg = NULL;
	x->nelem = x->elem_cap = x->cap = 0;
	agg_store_free(&x->store, x->mem);
	dl_exec_mem_release(x->mem, x->charged);
	x->charged = 0;
	if (x->seen) {
		dl_keytab_free(x->seen);
		x->seen = NULL;
		dl_type *pt[2] = {x->long_t, (dl_type *)x->in};
		return dl_keytab_new(&x->seen, pt, 2, x->mem, "collect_set");
	}
	return 0;
}

static int grow_array(void **p, int64_t old_cap, int64_t cap, size_t size, int fill)
{
	void *q = dl_reallocarray(*p, (size_t)cap, size);
	if (!q) return dl_error_set(DL_ENOMEM, "out of memory for %lld groups", (long long)cap);
	memset((char *)q + (size_t)old_cap * size, fill, (size_t)(cap - old_cap) * size);
	*p = q;
	return 0;
}

static int64_t per_group(const dl_agg_ext *x)
{
	int64_t per = 0;
	switch (x->kind) {
	case DL_AGG_COUNT_IF: per = 8; break;
	case DL_AGG_BOOL_AND:
	case DL_AGG_BOOL_OR: per = 16; break;
	case DL_AGG_MIN:
	case DL_AGG_MAX:
	case DL_AGG_FIRST:
	case DL_AGG_LAST:
	case DL_AGG_ANY_VALUE: per = 8; break;
	case DL_AGG_COLLECT_LIST:
	case DL_AGG_COLLECT_SET: per = 24; break;
	case DL_AGG_APPROX_COUNT_DISTINCT: per = (int64_t)1 << x->p; break;
	default: per = 64; break;
	}
	return per;
}

/* The first allocation holds about 4 KB of state (HLL++ registers are
 * 2^p bytes a group), so a small memory limit still admits a group. */
static int64_t first_cap(const dl_agg_ext *x)
{
	int64_t c = 4096 / per_group(x);
	return c < 1 ? 1 : c;
}

int64_t dl_agg_ext_grow_bytes(const dl_agg_ext *x, int64_t ngroups, int64_t n)
{
	int64_t est = 0;
	if (ngroups > x->cap) {
		int64_t cap = x->cap ? x->cap : first_cap(x);
		while (cap < ngroups) cap *= 2;
		est += (cap - x->cap) * per_group(x);
	}
	switch (x->kind) {
	case DL_AGG_COLLECT_LIST:
	case DL_AGG_COLLECT_SET:
		/* elements (doubling), the stored values, collect_set's pairs */
		est += 2 * n * 16 + n * 16 + (x->seen ? dl_keytab_grow_bytes(x->seen, n) + n * 24 : 0);
		break;
	case DL_AGG_PERCENTILE_APPROX: est += 2 * n * (int64_t)sizeof(double); break;
	case DL_AGG_COUNT_IF:
	case DL_AGG_BOOL_AND:
	case DL_AGG_BOOL_OR:
	case DL_AGG_APPROX_COUNT_DISTINCT: break;
	default: est += n * 16; break; /* any_value, nested min/max/first/last: stored values */
	}
	return est;
}

/* Per-group state for groups [0, ngroups). */
static int grow(dl_agg_ext *x, int64_t ngroups)
{
	if (ngroups <= x->cap) return 0;
	int64_t cap = x->cap ? x->cap : first_cap(x);
	while (cap < ngroups) cap *= 2;
	int64_t bytes = (cap - x->cap) * per_group(x);
	DL_TRY(dl_exec_mem_charge(x->mem, bytes, "hash aggregate"));
	x->charged += bytes;
	int rc = 0;
	switch (x->kind) {
	case DL_AGG_COUNT_IF: rc = grow_array((void **)&x->cnt, x->cap, cap, sizeof *x->cnt, 0); break;
	case DL_AGG_BOOL_AND:
	case DL_AGG_BOOL_OR:
		rc = grow_array((void **)&x->cnt, x->cap, cap, sizeof *x->cnt, 0);
		if (rc == 0) rc = grow_array((void **)&x->aux, x->cap, cap, sizeof *x->aux, 0);
		break;
	case DL_AGG_MIN:
	case DL_AGG_MAX:
	case DL_AGG_FIRST:
	case DL_AGG_LAST:
	case DL_AGG_ANY_VALUE: rc = grow_array((void **)&x->ref, x->cap, cap, sizeof *x->ref, 0xff); break;
	case DL_AGG_COLLECT_LIST:
	case DL_AGG_COLLECT_SET:
		rc = grow_array((void **)&x->cnt, x->cap, cap, sizeof *x->cnt, 0);
		if (rc == 0) rc = grow_array((void **)&x->ref, x->cap, cap, sizeof *x->ref, 0xff);
		if (rc == 0) rc = grow_array((void **)&x->tail, x->cap, cap, sizeof *x->tail, 0xff);
		break;
	case DL_AGG_APPROX_COUNT_DISTINCT:
		rc = grow_array((void **)&x->reg, x->cap << x->p, cap << x->p, 1, 0);
		break;
	default: rc = agg_gk_grow(x, x->cap, cap); break;
	}
	if (rc == 0) x->cap = cap;
	return rc;
}

#define REF_NONE UINT64_MAX
#define BATCH_ROW (UINT64_C(1) << 63) /* ref marks a row of the batch being added */

static int cmp_ref(const dl_agg_ext *x, const dl_array *arg, int64_t i, uint64_t ref)
{
	ex_val a, b;
	ex_val_load(&a, arg, i);
	if (ref & BATCH_ROW) ex_val_load(&b, arg, (int64_t)(ref & ~BATCH_ROW));
	else ex_val_load(&b, x->store.chunks[ref >> 32], (int64_t)(ref & 0xffffffffu));
	return ex_val_cmp(&a, &b, x->in);
}

/* any_value, and first/last/min/max of nested values: each group's chosen
 * row of the batch (first: the first row, or the first non-null with
 * ignoreNulls, once; last: the batch's last such row; min/max: the
 * batch's best non-null row if it beats the kept one) is copied into the
 * store, one chunk per batch. A replaced value stays in its chunk until the
 * operator ends: at most one value per group and batch. */
static int update_any(dl_agg_ext *x, const uint32_t *ids, const dl_array *arg, int64_t n)
{
	bool first = x->kind == DL_AGG_FIRST || x->kind == DL_AGG_ANY_VALUE;
	bool minmax = x->kind == DL_AGG_MIN || x->kind == DL_AGG_MAX;
	for (int64_t i = 0; i < n; i++) {
		uint64_t *r = &x->ref[ids[i]];
		bool valid = dl_array_is_valid(arg, i);
		if ((x->ignore_nulls || minmax) && !valid) continue;
		if (first && *r != REF_NONE) continue;
		if (minmax && *r != REF_NONE) {
			int c = cmp_ref(x, arg, i, *r);
			if (x->kind == DL_AGG_MIN ? c >= 0 : c <= 0) continue;
		}
		*r = BATCH_ROW | (uint64_t)i;
	}
	/* the rows chosen in this batch, in row order, become one chunk */
	dl_selection sel = {0};
	int rc = dl_selection_reserve(&sel, n);
	uint32_t *pos = rc == 0 ? dl_malloc((size_t)(n ? n : 1) * sizeof *pos) : NULL;
	if (rc == 0 && !pos) rc = dl_error_set(DL_ENOMEM, "out of memory");
	for (int64_t i = 0; rc == 0 && i < n; i++) {
		uint64_t r = x->ref[ids[i]];
		if (r == (BATCH_ROW | (uint64_t)i)) {
			pos[i] = (uint32_t)sel.count;
			sel.idx[sel.count++] = (uint32_t)i;
		}
	}
	uint32_t chunk = 0;
	if (rc == 0 && sel.count > 0) rc = agg_store_add(&x->store, arg, sel.idx, sel.count, x->mem, &chunk);
	for (int64_t j = 0; j < sel.count; j++) {
		uint32_t i = sel.idx[j];
		x->ref[ids[i]] = rc == 0 ? (uint64_t)chunk << 32 | (uint64_t)pos[i] : REF_NONE;
	}
	dl_free(pos);
	dl_selection_free(&sel);
	return rc;
}

int dl_agg_ext_update(dl_agg_ext *x, const uint32_t *ids, int64_t ngroups, const dl_array *arg, int64_t n)
{
	DL_TRY(grow(x, ngroups));
	switch (x->kind) {
	case DL_AGG_COUNT_IF:
		for (int64_t i = 0; i < n; i++)
			if (dl_array_is_valid(arg, i) && dl_bit_get(arg->values, i)) x->cnt[ids[i]]++;
		return 0;
	case DL_AGG_BOOL_AND:
	case DL_AGG_BOOL_OR: {
		bool decides = x->kind == DL_AGG_BOOL_OR;
		for (int64_t i = 0; i < n; i++)
			if (dl_array_is_valid(arg, i)) {
				x->cnt[ids[i]]++;
				if (dl_bit_get(arg->values, i) == decides) x->aux[ids[i]]++;
			}
		return 0;
	}
	case DL_AGG_MIN:
	case DL_AGG_MAX:
	case DL_AGG_FIRST:
	case DL_AGG_LAST:
	case DL_AGG_ANY_VALUE: return update_any(x, ids, arg, n);
	case DL_AGG_COLLECT_LIST:
	case DL_AGG_COLLECT_SET: return agg_collect_update(x, ids, arg, n);
	case DL_AGG_APPROX_COUNT_DISTINCT: return agg_hll_update(x, ids, arg, n);
	default: return agg_gk_update(x, ids, arg, n);
	}
}

int dl_agg_ext_finish(dl_agg_ext *x, dl_array **out, int64_t start, int64_t n)
{
	*out = NULL;
	dl_builder *b;
	DL_TRY(dl_builder_new(&b, x->out));
	int rc = dl_builder_reserve(b, n, 0);
	switch (x->kind) {
	case DL_AGG_COLLECT_LIST:
	case DL_AGG_COLLECT_SET:
		if (rc == 0) rc = agg_collect_finish(x, b, start, n);
		break;
	case DL_AGG_PERCENTILE_APPROX:
		if (rc == 0) rc = agg_gk_finish(x, b, start, n);
		break;
	default:
		for (int64_t i = start; rc == 0 && i < start + n; i++) {
			bool has = i < x->cap;
			switch (x->kind) {
			case DL_AGG_COUNT_IF: rc = dl_builder_append_int(b, has ? x->cnt[i] : 0); break;
			case DL_AGG_BOOL_AND:
			case DL_AGG_BOOL_OR:
				if (!has || x->cnt[i] == 0) rc = dl_builder_append_null(b);
				else rc = dl_builder_append_bool(b, x->kind == DL_AGG_BOOL_AND ? x->aux[i] == 0 : x->aux[i] > 0);
				break;
			case DL_AGG_MIN:
			case DL_AGG_MAX:
			case DL_AGG_FIRST:
			case DL_AGG_LAST:
			case DL_AGG_ANY_VALUE:
				if (!has || x->ref[i] == UINT64_MAX) rc = dl_builder_append_null(b);
				else rc = dl_builder_append_range(b, x->store.chunks[x->ref[i] >> 32], (int64_t)(x->ref[i] & 0xffffffffu), 1);
				break;
			default: rc = dl_builder_append_int(b, has ? agg_hll_estimate(x, i) : 0); break;
			}
		}
	}
	if (rc == 0) rc = dl_builder_finish(out, b);
	dl_builder_free(b);
	return rc;
}

/* ---- agg(DISTINCT x) --------------------------------------------------- */

struct dl_agg_distinct {
	dl_keytab *pairs;
	dl_type *long_t;
};

int dl_agg_distinct_new(dl_agg_distinct **out, const dl_type *in, dl_exec_memory *mem)
{
	*out = NULL;
	dl_agg_distinct *d = dl_calloc(1, sizeof *d);
	if (!d || !(d->long_t = dl_type_new(DL_TYPE_LONG))) {
		dl_free(d);
		return dl_error_set(DL_ENOMEM, "out of memory");
	}
	dl_type *pt[2] = {d->long_t, (dl_type *)in};
	int rc = dl_keytab_new(&d->pairs, pt, 2, mem, "aggregate(DISTINCT)");
	if (rc < 0) {
		dl_agg_distinct_free(d);
		return rc;
	}
	*out = d;
	return 0;
}

int64_t dl_agg_distinct_grow_bytes(const dl_agg_distinct *d, int64_t n)
{
	return dl_keytab_grow_bytes(d->pairs, n) + n * 24;
}

void dl_agg_distinct_free(dl_agg_distinct *d)
{
	if (!d) return;
	dl_keytab_free(d->pairs);
	dl_type_unref(d->long_t);
	dl_free(d);
}

/* The non-null rows whose (group, value) pair is new; also what
 * collect_set runs before collecting. */
static int new_pairs(dl_keytab *pairs, dl_type *long_t, const uint32_t *ids, const dl_array *x, int64_t n,
                     dl_selection *out)
{
	dl_selection sel = {0};
	int rc = dl_selection_reserve(&sel, n);
	if (rc == 0) rc = dl_selection_reserve(out, n);
	for (int64_t i = 0; rc == 0 && i < n; i++)
		if (dl_array_is_valid(x, i)) sel.idx[sel.count++] = (uint32_t)i;
	out->count = 0;
	dl_array *pair[2] = {NULL, NULL};
	uint32_t *pid = NULL;
	if (rc == 0 && sel.count > 0) {
		pair[0] = dl_array_new(long_t, sel.count);
		pair[1] = dl_array_take(x, sel.idx, sel.count);
		pid = dl_malloc((size_t)sel.count * sizeof *pid);
		if (!pair[0] || !pair[1] || !pid) rc = dl_exec_failed();
	}
	if (rc == 0 && sel.count > 0) {
		for (int64_t j = 0; j < sel.count; j++) ((int64_t *)pair[0]->values)[j] = ids[sel.idx[j]];
		int64_t before = dl_keytab_size(pairs);
		rc = dl_keytab_insert(pairs, pair, sel.count, pid);
		for (int64_t j = 0; rc == 0 && j < sel.count; j++)
			if (pid[j] == before) {
				out->idx[out->count++] = sel.idx[j];
				before++;
			}
	}
	dl_array_free(pair[0]);
	dl_array_free(pair[1]);
	dl_free(pid);
	dl_selection_free(&sel);
	return rc;
}

int agg_new_pairs(dl_agg_ext *x, const uint32_t *ids, const dl_array *arg, int64_t n, dl_selection *out)
{
	return new_pairs(x->seen, x->long_t, ids, arg, n, out);
}

int dl_agg_distinct_filter(dl_agg_distinct *d, const uint32_t *ids, const dl_array *x, int64_t n, uint32_t **ids_out,
                           dl_array **x_out, int64_t *n_out)
{
	*ids_out = NULL;
	*x_out = NULL;
	*n_out = 0;
	dl_selection sel = {0};
	int rc = new_pairs(d->pairs, d->long_t, ids, x, n, &sel);
	uint32_t *ni = rc == 0 ? dl_malloc((size_t)(sel.count ? sel.count : 1) * sizeof *ni) : NULL;
	dl_array *nx = rc == 0 ? dl_array_take(x, sel.idx, sel.count) : NULL;
	if (rc == 0 && (!ni || !nx)) rc = dl_exec_failed();
	if (rc == 0) {
		for (int64_t j = 0; j < sel.count; j++) ni[j] = ids[sel.idx[j]];
		*ids_out = ni;
		*x_out = nx;
		*n_out = sel.count;
	} else {
		dl_free(ni);
		dl_array_free(nx);
	}
	dl_selection_free(&sel);
	return rc;
}
