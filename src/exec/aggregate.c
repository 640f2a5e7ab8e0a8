/* Hash aggregate (exec.h). The key table (keytab.h) maps each input row's
 * GROUP BY key to a dense group id; every aggregate keeps one slot per
 * group in a plain array, updated in a loop over the batch. Output comes
 * after the input ends, in order of the groups' first appearance.
 *
 * Result types follow Spark (sql/catalyst aggregate/Sum.scala, Average.scala):
 * sum of an integral type is BIGINT (ANSI: overflow is an error), of
 * FLOAT/DOUBLE a DOUBLE, of decimal(p,s) decimal(min(p+10,38), s); avg is
 * DOUBLE except for decimal(p,s), which gives decimal(min(p+4,38),
 * min(s+4,38)) rounded HALF_UP; count is BIGINT and never NULL; min, max,
 * first and last keep the input type; variance and standard deviation
 * (Welford's running mean and M2, as Spark's CentralMomentAgg) are DOUBLE,
 * NULL for the sample forms below two values (Spark 3+, not NaN).
 * Aggregates other than count ignore
 * NULL inputs (first/last only with ignoreNulls), and are NULL over a group
 * without values. */
#include <math.h>
#include <string.h>
#include "exec/aggregate.h"

static const dl_type *a_schema(dl_batch_stream *s)
{
	agg_op *a = s->private_data;
	return a->schema;
}

static bool is_str(const dl_type *t)
{
	return t->id == DL_TYPE_STRING || t->id == DL_TYPE_BINARY;
}

/* Stores v into the slot, copying string bytes (the batch goes away). */
static int keep(aslot *sl, const ex_val *v, const dl_type *t)
{
	if (is_str(t) && sl->set && !sl->v.null) dl_free((void *)sl->v.v.s.p);
	sl->v = *v;
	sl->set = true;
	if (is_str(t) && !v->null) {
		char *p = dl_malloc((size_t)v->v.s.n + 1);
		if (!p) {
			sl->v.null = true;
			return dl_error_set(DL_ENOMEM, "out of memory");
		}
		memcpy(p, v->v.s.p, (size_t)v->v.s.n);
		sl->v.v.s.p = p;
	}
	return 0;
}

static int grow_slots(agg_op *a, int64_t n)
{
	if (n <= a->slot_cap) return 0;
	int64_t nc = a->slot_cap ? a->slot_cap : 4;
	while (nc < n) nc *= 2;
	int64_t bytes = (nc - a->slot_cap) * ((int64_t)sizeof(aslot) * a->naggs + (a->first ? 8 : 0));
	DL_TRY(dl_exec_mem_charge(a->ctx.mem, bytes, "hash aggregate"));
	a->charged += bytes;
	for (int k = 0; k < a->naggs; k++) {
		aslot *s = dl_reallocarray(a->aggs[k].slots, (size_t)nc, sizeof *s);
		if (!s) return dl_error_set(DL_ENOMEM, "out of memory for %lld groups", (long long)n);
		memset(s + a->slot_cap, 0, (size_t)(nc - a->slot_cap) * sizeof *s);
		a->aggs[k].slots = s;
	}
	if (a->first) {
		int64_t *f = dl_reallocarray(a->first, (size_t)nc, sizeof *f);
		if (!f) return dl_error_set(DL_ENOMEM, "out of memory for %lld groups", (long long)n);
		a->first = f;
	}
	a->slot_cap = nc;
	return 0;
}

static int overflow(const char *type)
{
	return dl_error_set_class(DL_EINVALID, "ARITHMETIC_OVERFLOW",
	                          "[ARITHMETIC_OVERFLOW] sum overflowed %s; use try_sum to get NULL instead", type);
}

/* count(DISTINCT x): insert (group, x) pairs for non-null x; every new
 * pair counts one for its group. */
static int update_distinct(agg_state *g, const uint32_t *ids, dl_array *x, int64_t n)
{
	dl_selection sel = {0};
	int rc = dl_selection_reserve(&sel, n);
	for (int64_t i = 0; rc == 0 && i < n; i++)
		if (dl_array_is_valid(x, i)) sel.idx[sel.count++] = (uint32_t)i;
	dl_array *pair[2] = {NULL, NULL};
	uint32_t *pid = NULL;
	if (rc == 0 && sel.count > 0) {
		pair[0] = dl_array_new(g->long_t, sel.count);
		pair[1] = dl_array_take(x, sel.idx, sel.count);
		pid = dl_malloc((size_t)sel.count * sizeof *pid);
		if (!pair[0] || !pair[1] || !pid) rc = dl_exec_failed();
	}
	if (rc == 0 && sel.count > 0) {
		for (int64_t j = 0; j < sel.count; j++) ((int64_t *)pair[0]->values)[j] = ids[sel.idx[j]];
		int64_t before = dl_keytab_size(g->distinct);
		rc = dl_keytab_insert(g->distinct, pair, sel.count, pid);
		for (int64_t j = 0; rc == 0 && j < sel.count; j++)
			if (pid[j] == before) {
				g->slots[ids[sel.idx[j]]].cnt++;
				before++;
			}
	}
	dl_array_free(pair[0]);
	dl_array_free(pair[1]);
	dl_free(pid);
	dl_selection_free(&sel);
	return rc;
}

/* Tight loops for count, sum and avg over INT, BIGINT and DOUBLE columns;
 * false when the general loop must run instead. */
#define FAST_LOOP(T, BODY)                                                     \
	do {                                                                       \
		const T *v = x->values;                                                \
		for (int64_t i = 0; i < n; i++) {                                      \
			if (x->validity && !dl_bit_get(x->validity, i)) continue;          \
			aslot *sl = &g->slots[ids[i]];                                     \
			BODY;                                                              \
		}                                                                      \
	} while (0)
static bool update_fast(agg_state *g, const uint32_t *ids, const dl_array *x, int64_t n, bool *overflowed_out)
{
	dl_type_id t = x->type->id;
	bool overflowed = false;
	if (g->kind == DL_AGG_COUNT && x->type->id != DL_TYPE_NULL) {
		for (int64_t i = 0; i < n; i++)
			if (!x->validity || dl_bit_get(x->validity, i)) g->slots[ids[i]].cnt++;
		return true;
	}
	if (g->kind != DL_AGG_SUM && g->kind != DL_AGG_AVG) return false;
	bool as_double = g->kind == DL_AGG_AVG;
	if (t == DL_TYPE_DOUBLE) {
		FAST_LOOP(double, (sl->cnt++, sl->s.d += v[i], sl->set = true));
	} else if (t == DL_TYPE_INTEGER && as_double) {
		FAST_LOOP(int32_t, (sl->cnt++, sl->s.d += (double)v[i], sl->set = true));
	} else if (t == DL_TYPE_LONG && as_double) {
		FAST_LOOP(int64_t, (sl->cnt++, sl->s.d += (double)v[i], sl->set = true));
	} else if (t == DL_TYPE_INTEGER) {
		FAST_LOOP(int32_t, (sl->cnt++, overflowed |= __builtin_add_overflow(sl->s.i, (int64_t)v[i], &sl->s.i),
		                    sl->set = true));
	} else if (t == DL_TYPE_LONG) {
		FAST_LOOP(int64_t, (sl->cnt++, overflowed |= __builtin_add_overflow(sl->s.i, v[i], &sl->s.i), sl->set = true));
	} else {
		return false;
	}
	*overflowed_out = overflowed;
	return true;
}

static int update(agg_state *g, const uint32_t *ids, dl_array *x, int64_t n)
{
	if (g->kind == DL_AGG_COUNT_STAR) {
		for (int64_t i = 0; i < n; i++) g->slots[ids[i]].cnt++;
		return 0;
	}
	if (g->kind == DL_AGG_COUNT_DISTINCT) return update_distinct(g, ids, x, n);
	const dl_type *t = x->type;
	bool ovf = false;
	if (update_fast(g, ids, x, n, &ovf)) return ovf ? overflow("BIGINT") : 0;
	ex_val v;
	for (int64_t i = 0; i < n; i++) {
		aslot *sl = &g->slots[ids[i]];
		ex_val_load(&v, x, i);
		if (v.null && !((g->kind == DL_AGG_FIRST || g->kind == DL_AGG_LAST) && !g->ignore_nulls)) continue;
		switch (g->kind) {
		case DL_AGG_COUNT: sl->cnt++; break;
		case DL_AGG_SUM:
		case DL_AGG_AVG:
			sl->cnt++;
			if (t->id == DL_TYPE_DECIMAL) {
				if (__builtin_add_overflow(sl->s.dec, v.v.dec, &sl->s.dec)) return overflow("DECIMAL");
			} else if (g->kind == DL_AGG_AVG || t->id == DL_TYPE_FLOAT || t->id == DL_TYPE_DOUBLE) {
				sl->s.d += dl_type_is_integral(t) ? (double)v.v.i : v.v.d;
			} else if (__builtin_add_overflow(sl->s.i, v.v.i, &sl->s.i)) {
				return overflow("BIGINT");
			}
			sl->set = true;
			break;
		case DL_AGG_MIN:
		case DL_AGG_MAX: {
			int c = sl->set ? ex_val_cmp(&v, &sl->v, t) : 0;
			if (!sl->set || (g->kind == DL_AGG_MIN ? c < 0 : c > 0)) DL_TRY(keep(sl, &v, t));
			break;
		}
		case DL_AGG_FIRST:
			if (!sl->set) DL_TRY(keep(sl, &v, t));
			break;
		case DL_AGG_LAST: DL_TRY(keep(sl, &v, t)); break;
		case DL_AGG_VAR_SAMP:
		case DL_AGG_VAR_POP:
		case DL_AGG_STDDEV_SAMP:
		case DL_AGG_STDDEV_POP: {
			double xv = t->id == DL_TYPE_DECIMAL ? ex_dec_to_double(v.v.dec, t->scale)
			            : dl_type_is_integral(t) ? (double)v.v.i : v.v.d;
			sl->cnt++;
			double delta = xv - sl->s.d;
			sl->s.d += delta / (double)sl->cnt;
			sl->m2 += delta * (xv - sl->s.d);
			break;
		}
		default: break;
		}
	}
	return 0;
}

/* Through agg(DISTINCT x)'s filter first, then agg_ext.h's kinds or update. */
static int update_any(agg_op *a, agg_state *g, dl_array *x, int64_t n)
{
	const uint32_t *ids = a->ids;
	uint32_t *fids = NULL;
	dl_array *fx = NULL;
	if (g->dfilter) {
		DL_TRY(dl_agg_distinct_filter(g->dfilter, a->ids, x, n, &fids, &fx, &n));
		ids = fids;
		x = fx;
	}
	int rc = g->ext ? dl_agg_ext_update(g->ext, ids, a->ngroups, x, n) : update(g, ids, x, n);
	dl_free(fids);
	dl_array_free(fx);
	return rc;
}

/* e over b: a bare column is borrowed from b (valid while b is; nothing
 * here keeps an argument or key array past the batch: the key table and
 * the states copy what they keep), anything else evaluated (*owned). */
int agg_eval_borrow(dl_array **out, bool *owned, const dl_expr *e, dl_batch *b, const dl_exec_ctx *ctx)
{
	int c = dl_exec_column_ref(e, b);
	if (c >= 0) {
		*out = b->cols[c];
		*owned = false;
		return 0;
	}
	*owned = true;
	return dl_expr_eval(out, e, b, &ctx->eval);
}

/* Aggregates batch b whose GROUP BY keys are kc (NULL without keys). */
int agg_consume_mem(agg_op *a, dl_batch *b, dl_array *const *kc)
{
	int64_t n = b->num_rows;
	if (n > a->ids_cap) {
		uint32_t *ids = dl_reallocarray(a->ids, (size_t)n, sizeof *ids);
		if (!ids) return dl_error_set(DL_ENOMEM, "out of memory");
		a->ids = ids;
		a->ids_cap = n;
	}
	int rc = 0;
	int64_t before = a->ngroups;
	if (a->groups) {
		rc = a->rowhash ? dl_keytab_insert_hashed(a->groups, kc, n, a->ids, a->rowhash)
		                : dl_keytab_insert(a->groups, kc, n, a->ids);
		if (rc == 0) a->ngroups = dl_keytab_size(a->groups);
	} else {
		memset(a->ids, 0, (size_t)n * sizeof *a->ids);
	}
	if (rc == 0) rc = grow_slots(a, a->ngroups);
	/* a shard: new ids come in order, each at its group's first row */
	if (rc == 0 && a->first && a->rowpos)
		for (int64_t i = 0, next = before; i < n && next < a->ngroups; i++)
			if (a->ids[i] == (uint32_t)next) a->first[next++] = a->rowpos[i];
	for (int k = 0; rc == 0 && k < a->naggs; k++) {
		agg_state *g = &a->aggs[k];
		dl_array *x = NULL;
		bool owned = false;
		if (g->arg) rc = agg_eval_borrow(&x, &owned, g->arg, b, &a->ctx);
		if (rc == 0) rc = g->ext || g->dfilter ? update_any(a, g, x, n) : update(g, a->ids, x, n);
		if (owned) dl_array_free(x);
	}
	return rc;
}

int agg_consume(agg_op *a, dl_batch *b)
{
	if (a->nkeys == 0) {
		int rc = agg_consume_mem(a, b, NULL);
		return rc < 0 ? dl_error_prefix("hash aggregate") : 0;
	}
	dl_array **kc = dl_calloc((size_t)a->nkeys, sizeof *kc);
	bool *owned = dl_calloc((size_t)a->nkeys, sizeof *owned);
	int rc = kc && owned ? 0 : dl_error_set(DL_ENOMEM, "out of memory");
	for (int k = 0; k < a->nkeys && rc == 0; k++) rc = agg_eval_borrow(&kc[k], &owned[k], a->keys[k], b, &a->ctx);
	if (rc == 0) rc = a->par ? agg_par_consume(a, b, kc)
	                  : a->level < DL_SPILL_MAX_LEVEL && a->ctx.mem && a->ctx.mem->limit > 0
	                      ? agg_spill_consume(a, b, kc)
	                      : agg_consume_mem(a, b, kc);
	for (int k = 0; kc && k < a->nkeys; k++)
		if (owned[k]) dl_array_free(kc[k]);
	dl_free(kc);
	dl_free(owned);
	/* the shards' errors are prefixed already */
	return rc < 0 && !a->par ? dl_error_prefix("hash aggregate") : rc < 0 ? rc : 0;
}

static int finish_value(dl_builder *bl, const agg_state *g, const aslot *sl)
{
	switch (g->kind) {
	case DL_AGG_COUNT_STAR:
	case DL_AGG_COUNT:
	case DL_AGG_COUNT_DISTINCT: return dl_builder_append_int(bl, sl->cnt);
	case DL_AGG_SUM:
		if (!sl->set) return dl_builder_append_null(bl);
		if (g->out->id == DL_TYPE_DECIMAL) {
			if (!ex_dec_fits(sl->s.dec, g->out->precision)) return overflow("DECIMAL");
			return dl_builder_append_decimal(bl, sl->s.dec);
		}
		if (g->out->id == DL_TYPE_DOUBLE) return dl_builder_append_double(bl, sl->s.d);
		return dl_builder_append_int(bl, sl->s.i);
	case DL_AGG_AVG: {
		if (sl->cnt == 0) return dl_builder_append_null(bl);
		if (g->out->id != DL_TYPE_DECIMAL) return dl_builder_append_double(bl, sl->s.d / (double)sl->cnt);
		/* |sum| * 10^(shift+1) / count, then HALF_UP on the last digit */
		int shift = g->out->scale - g->in->scale;
		bool neg = sl->s.dec < 0;
		dl_i128 q;
		if (!ex_dec_div_wide(neg ? -sl->s.dec : sl->s.dec, shift + 1, (dl_i128)sl->cnt, &q))
			return overflow("DECIMAL");
		q = (q + 5) / 10;
		if (neg) q = -q;
		if (!ex_dec_fits(q, g->out->precision)) return overflow("DECIMAL");
		return dl_builder_append_decimal(bl, q);
	}
	case DL_AGG_VAR_SAMP:
	case DL_AGG_VAR_POP:
	case DL_AGG_STDDEV_SAMP:
	case DL_AGG_STDDEV_POP: {
		bool samp = g->kind == DL_AGG_VAR_SAMP || g->kind == DL_AGG_STDDEV_SAMP;
		if (sl->cnt < (samp ? 2 : 1)) return dl_builder_append_null(bl);
		double var = sl->m2 / (double)(samp ? sl->cnt - 1 : sl->cnt);
		return dl_builder_append_double(bl, g->kind >= DL_AGG_STDDEV_SAMP ? sqrt(var) : var);
	}
	default:
		if (!sl->set) return dl_builder_append_null(bl);
		return ex_builder_put(bl, &sl->v);
	}
}

int agg_emit(agg_op *a, int64_t start, int64_t n, dl_array **cols)
{
	int rc = 0;
	for (int k = 0; k < a->nkeys && rc == 0; k++) rc = dl_keytab_keys(&cols[k], a->groups, k, start, n);
	for (int k = 0; k < a->naggs && rc == 0; k++) {
		agg_state *g = &a->aggs[k];
		if (g->ext) {
			rc = dl_agg_ext_finish(g->ext, &cols[a->nkeys + k], start, n);
			continue;
		}
		dl_builder *bl;
		rc = dl_builder_new(&bl, g->out);
		if (rc == 0) rc = dl_builder_reserve(bl, n, 0);
		for (int64_t i = 0; i < n && rc == 0; i++) rc = finish_value(bl, g, &g->slots[start + i]);
		if (rc == 0) rc = dl_builder_finish(&cols[a->nkeys + k], bl);
		dl_builder_free(bl);
	}
	if (rc < 0)
		for (int k = 0; k < a->nkeys + a->naggs; k++) {
			dl_array_free(cols[k]);
			cols[k] = NULL;
		}
	return rc;
}

static int a_next(dl_batch_stream *s, dl_batch **out)
{
	agg_op *a = s->private_data;
	*out = NULL;
	while (!a->done) {
		dl_batch *b;
		DL_TRY(dl_batch_stream_next(a->in, &b));
		if (!b) {
			a->done = true;
			break;
		}
		int rc = dl_exec_check_interrupt(&a->ctx, "hash aggregate");
		if (rc == 0) rc = agg_consume(a, b);
		dl_batch_free(b);
		DL_TRY(rc);
	}
	if (a->par) return agg_par_next(a, out);
	if (a->emitted >= a->ngroups) return a->parts.n ? agg_spill_next(a, out) : 0;
	int64_t n = a->ngroups - a->emitted, max = dl_exec_batch_rows(&a->ctx);
	if (n > max) n = max;
	int ncols = a->nkeys + a->naggs;
	dl_array **cols = dl_calloc((size_t)ncols, sizeof *cols);
	if (!cols) return dl_error_set(DL_ENOMEM, "out of memory");
	if (agg_emit(a, a->emitted, n, cols) < 0) {
		dl_free(cols);
		return dl_error_prefix("hash aggregate");
	}
	*out = dl_exec_batch(a->schema, cols, n);
	dl_free(cols);
	if (!*out) return dl_exec_failed();
	a->emitted += n;
	return 0;
}

/* Frees the groups and their states (after they are emitted, or at the
 * end). */
void agg_free_groups(agg_op *a)
{
	for (int k = 0; k < a->naggs; k++) {
		agg_state *g = &a->aggs[k];
		if (g->slots && g->in && is_str(g->in))
			for (int64_t i = 0; i < a->slot_cap; i++)
				if (g->slots[i].set && !g->slots[i].v.null) dl_free((void *)g->slots[i].v.v.s.p);
		dl_free(g->slots);
		g->slots = NULL;
		dl_keytab_free(g->distinct);
		g->distinct = NULL;
		/* agg_ext's states and DISTINCT filters: emitted with the groups */
		dl_agg_ext_free(g->ext);
		g->ext = NULL;
		dl_agg_distinct_free(g->dfilter);
		g->dfilter = NULL;
	}
	a->slot_cap = 0;
	dl_keytab_free(a->groups);
	a->groups = NULL;
	dl_exec_mem_release(a->ctx.mem, a->charged);
	a->charged = 0;
}

static void a_free(agg_op *a)
{
	agg_par_free(a);
	dl_batch_stream_free(a->in);
	dl_batch_stream_free(a->child);
	dl_spill_parts_free(&a->parts);
	agg_free_groups(a);
	for (int k = 0; k < a->nkeys; k++) dl_expr_free(a->keys[k]);
	for (int k = 0; k < a->naggs; k++) {
		agg_state *g = &a->aggs[k];
		dl_expr_free(g->arg);
		dl_type_unref(g->out);
		dl_type_unref(g->long_t);
		dl_agg_ext_free(g->ext);
		dl_agg_distinct_free(g->dfilter);
		dl_expr_free(g->param);
		if (a->param_sql) dl_free(a->param_sql[k]);
	}
	dl_free(a->param_sql);
	dl_free(a->spec);
	dl_type_unref(a->raw_schema);
	dl_free(a->aggs);
	dl_free(a->keys);
	dl_type_unref(a->schema);
	dl_free(a->ids);
	dl_free(a->first);
	dl_free(a);
}

static void a_release(dl_batch_stream *s)
{
	a_free(s->private_data);
	dl_free(s);
}

static const char *const agg_names[] = {"count(*)", "count", "count(DISTINCT)", "sum", "avg", "min", "max", "first",
                                        "last", "var_samp", "var_pop", "stddev_samp", "stddev_pop"};

/* Spark's result type of an aggregate over `in`, or an error. */
static int result_type(agg_state *g, int k)
{
	const char *nm = agg_names[g->kind];
	const dl_type *in = g->in;
	switch (g->kind) {
	case DL_AGG_COUNT_STAR:
	case DL_AGG_COUNT:
	case DL_AGG_COUNT_DISTINCT: g->out = dl_type_new(DL_TYPE_LONG); break;
	case DL_AGG_SUM:
	case DL_AGG_AVG:
		if (in->id == DL_TYPE_DECIMAL) {
			int p = in->precision + (g->kind == DL_AGG_SUM ? 10 : 4);
			int sc = in->scale + (g->kind == DL_AGG_SUM ? 0 : 4);
			g->out = dl_type_decimal(p > 38 ? 38 : p, sc > 38 ? 38 : sc);
		} else if (dl_type_is_integral(in) || in->id == DL_TYPE_FLOAT || in->id == DL_TYPE_DOUBLE) {
			g->out = dl_type_new(g->kind == DL_AGG_SUM && dl_type_is_integral(in) ? DL_TYPE_LONG : DL_TYPE_DOUBLE);
		} else {
			char t[64];
			dl_type_sql(in, t, sizeof t);
			return dl_error_set(DL_EINVALID, "hash aggregate: %s of aggregate %d needs a numeric argument, not %s", nm,
			                    k + 1, t);
		}
		break;
	case DL_AGG_VAR_SAMP:
	case DL_AGG_VAR_POP:
	case DL_AGG_STDDEV_SAMP:
	case DL_AGG_STDDEV_POP:
		if (!dl_type_is_numeric(in)) {
			char t[64];
			dl_type_sql(in, t, sizeof t);
			return dl_error_set(DL_EINVALID, "hash aggregate: %s of aggregate %d needs a numeric argument, not %s", nm,
			                    k + 1, t);
		}
		g->out = dl_type_new(DL_TYPE_DOUBLE);
		break;
	default:
		if (!dl_type_is_primitive(in)) {
			char t[64];
			dl_type_sql(in, t, sizeof t);
			return dl_error_set(DL_EUNSUPPORTED, "hash aggregate: %s of %s (aggregate %d) is not supported yet", nm, t,
			                    k + 1);
		}
		g->out = dl_type_ref((dl_type *)in);
	}
	return g->out ? 0 : dl_error_set(DL_ENOMEM, "out of memory");
}

int agg_open(dl_batch_stream **out, dl_batch_stream *in, dl_expr *const *keys,
                          const char *const *key_names, int nkeys, const dl_exec_agg *aggs, int naggs,
                          const dl_exec_ctx *ctx, int level)
{
	*out = NULL;
	agg_op *a = dl_calloc(1, sizeof *a);
	if (a) {
		a->keys = dl_calloc((size_t)(nkeys ? nkeys : 1), sizeof *a->keys);
		a->aggs = dl_calloc((size_t)(naggs ? naggs : 1), sizeof *a->aggs);
	}
	if (!a || !a->keys || !a->aggs) {
		if (a) {
			dl_free(a->keys);
			dl_free(a->aggs);
		}
		dl_free(a);
		dl_batch_stream_free(in);
		for (int k = 0; k < nkeys; k++) dl_expr_free(keys[k]);
		for (int k = 0; k < naggs; k++) {
			dl_expr_free(aggs[k].arg);
			dl_expr_free(aggs[k].param);
		}
		return dl_error_set(DL_ENOMEM, "out of memory");
	}
	a->in = in;
	if (ctx) a->ctx = *ctx;
	a->level = level;
	a->nkeys = nkeys;
	a->naggs = naggs;
	for (int k = 0; k < nkeys; k++) a->keys[k] = keys[k];
	for (int k = 0; k < naggs; k++) {
		a->aggs[k].kind = aggs[k].kind;
		a->aggs[k].arg = aggs[k].arg;
		a->aggs[k].ignore_nulls = aggs[k].ignore_nulls;
		a->aggs[k].param = aggs[k].param;
	}
	const dl_type *sch = dl_batch_stream_schema(in);
	int rc = 0, ncols = nkeys + naggs;
	/* before agg_ext takes the percentile parameters below */
	if (nkeys > 0) rc = agg_keep_spec(a, aggs);
	const char **names = dl_calloc((size_t)(ncols ? ncols : 1), sizeof *names);
	dl_type **types = dl_calloc((size_t)(ncols ? ncols : 1), sizeof *types);
	bool *nullable = dl_calloc((size_t)(ncols ? ncols : 1), sizeof *nullable);
	if (rc == 0 && (!names || !types || !nullable)) rc = dl_error_set(DL_ENOMEM, "out of memory");
	for (int k = 0; k < nkeys && rc == 0; k++) {
		rc = dl_exec_bind(a->keys[k], sch, ctx, "hash aggregate: GROUP BY");
		if (rc == 0) {
			types[k] = (dl_type *)dl_expr_type(a->keys[k]);
			names[k] = key_names && key_names[k] ? key_names[k] : "key";
			nullable[k] = true;
		}
	}
	for (int k = 0; k < naggs && rc == 0; k++) {
		agg_state *g = &a->aggs[k];
		if ((int)g->kind < 0 || g->kind > DL_AGG_ANY_VALUE) {
			rc = dl_error_set(DL_EINVALID, "hash aggregate: unknown aggregate kind %d", (int)g->kind);
			break;
		}
		if ((g->kind == DL_AGG_COUNT_STAR) != (g->arg == NULL)) {
			rc = dl_error_set(DL_EINVALID, "hash aggregate: %s %s an argument", dl_agg_kind_name(g->kind),
			                  g->arg ? "takes no" : "needs");
			break;
		}
		if (g->arg) {
			rc = dl_exec_bind(g->arg, sch, ctx, "hash aggregate");
			if (rc < 0) break;
			g->in = dl_expr_type(g->arg);
		}
		bool ext_nullable = true;
		if (dl_agg_ext_kind(g->kind, g->in)) {
			const dl_type *ot;
			dl_exec_agg spec = aggs[k];
			spec.param = g->param;
			g->param = NULL; /* taken, also on failure */
			rc = dl_agg_ext_new(&g->ext, &spec, g->in, sch, ctx, k, &ot, &ext_nullable);
			if (rc == 0) g->out = dl_type_ref((dl_type *)ot);
		} else {
			rc = result_type(g, k);
		}
		/* count(DISTINCT x) is its own kind; every other agg(DISTINCT x)
		 * sees each (group, value) once */
		if (rc == 0 && aggs[k].distinct && g->arg && g->kind != DL_AGG_COUNT_DISTINCT)
			rc = dl_agg_distinct_new(&g->dfilter, g->in, a->ctx.mem);
		if (rc == 0 && g->kind == DL_AGG_COUNT_DISTINCT) {
			g->long_t = dl_type_new(DL_TYPE_LONG);
			dl_type *pt[2] = {g->long_t, (dl_type *)g->in};
			rc = g->long_t ? dl_keytab_new(&g->distinct, pt, 2, a->ctx.mem, "count(DISTINCT)")
			               : dl_error_set(DL_ENOMEM, "out of memory");
		}
		if (rc == 0) {
			types[nkeys + k] = g->out;
			names[nkeys + k] = aggs[k].name ? aggs[k].name : dl_agg_kind_name(g->kind);
			nullable[nkeys + k] = g->ext ? ext_nullable : g->kind > DL_AGG_COUNT_DISTINCT;
		}
	}
	if (rc == 0 && !(a->schema = dl_exec_struct(names, types, nullable, ncols))) rc = dl_exec_failed();
	if (rc == 0 && nkeys > 0) rc = dl_keytab_new(&a->groups, types, nkeys, a->ctx.mem, "hash aggregate");
	if (rc == 0 && nkeys == 0) {
		a->ngroups = 1; /* a global aggregate has its one row even over no input */
		rc = grow_slots(a, 1);
	}
	dl_free(names);
	dl_free(types);
	dl_free(nullable);
	if (rc == 0) rc = agg_par_open(a);
	if (rc == 0 && !(*out = dl_exec_stream_new(a, a_schema, a_next, a_release))) rc = dl_exec_failed();
	if (rc < 0) a_free(a);
	return rc;
}

int dl_exec_aggregate(dl_batch_stream **out, dl_batch_stream *in, dl_expr *const *keys,
                      const char *const *key_names, int nkeys, const dl_exec_agg *aggs, int naggs,
                      const dl_exec_ctx *ctx)
{
	return agg_open(out, in, keys, key_names, nkeys, aggs, naggs, ctx, 0);
}
