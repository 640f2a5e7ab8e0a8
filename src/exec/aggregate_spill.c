/* Spilling of the hash aggregate (aggregate.h) under a memory limit. */
#include <stdio.h>
#include <string.h>
#include "exec/aggregate.h"

/* ---- Spilling -------------------------------------------------------
 *
 * Under a memory limit, before a batch goes into the key table the most it
 * could add (every row a new group: entries, slots, key copies, aggregate
 * slots; dl_keytab_grow_bytes) is checked against what is left. When it
 * does not fit (after halving the batch down to small slices) the operator
 * starts spilling: from then on rows of groups already in memory are
 * aggregated as before, and rows of any other group are written raw - the
 * evaluated keys and arguments - to one of DL_SPILL_PARTS files by key
 * hash. A group is thus either wholly in memory or wholly in one
 * partition, with its rows in input order (first/last stay exact), and no
 * aggregate state is ever serialized, so every aggregate kind spills the
 * same way. At the end the in-memory groups are emitted and freed, then
 * each partition is aggregated in turn by an operator of the same
 * aggregates over the raw columns, one level deeper, which partitions again
 * with another hash mix if its groups still do not fit. */

/* Remembers what the partitions' operators need: the aggregates without
 * their (owned) expressions; the percentile parameter as SQL text. */
int agg_keep_spec(agg_op *a, const dl_exec_agg *aggs)
{
	a->spec = dl_calloc((size_t)(a->naggs ? a->naggs : 1), sizeof *a->spec);
	a->param_sql = dl_calloc((size_t)(a->naggs ? a->naggs : 1), sizeof *a->param_sql);
	if (!a->spec || !a->param_sql) return dl_error_set(DL_ENOMEM, "out of memory");
	for (int k = 0; k < a->naggs; k++) {
		a->spec[k] = aggs[k];
		a->spec[k].arg = NULL;
		a->spec[k].param = NULL;
		a->spec[k].name = NULL;
		if (aggs[k].param) {
			dl_buf sql = DL_BUF_INIT;
			int rc = dl_expr_sql(aggs[k].param, &sql);
			if (rc < 0) {
				dl_buf_free(&sql);
				return rc;
			}
			a->param_sql[k] = dl_buf_detach(&sql, NULL);
			if (!a->param_sql[k]) return dl_error_set(DL_ENOMEM, "out of memory");
		}
	}
	return 0;
}

static int64_t agg_growth(const agg_op *a, dl_array *const *kc, int64_t n)
{
	int64_t est = dl_keytab_grow_bytes(a->groups, n);
	for (int k = 0; k < a->nkeys; k++) est += dl_array_bytes(kc[k]);
	int64_t need = a->ngroups + n;
	if (need > a->slot_cap) {
		int64_t nc = a->slot_cap ? a->slot_cap : 4;
		while (nc < need) nc *= 2;
		est += (nc - a->slot_cap) * ((int64_t)sizeof(aslot) * a->naggs + (a->first ? 8 : 0));
	}
	/* count(DISTINCT): every row may add a (group, value) pair */
	for (int k = 0; k < a->naggs; k++)
		if (a->aggs[k].distinct) est += dl_keytab_grow_bytes(a->aggs[k].distinct, n) + n * 24;
	/* agg_ext.h's kinds and agg(DISTINCT x)'s pairs */
	for (int k = 0; k < a->naggs; k++) {
		if (a->aggs[k].ext) est += dl_agg_ext_grow_bytes(a->aggs[k].ext, need, n);
		if (a->aggs[k].dfilter) est += dl_agg_distinct_grow_bytes(a->aggs[k].dfilter, n);
	}
	/* and whatever the states charge that the above does not see
	 * (percentile_approx's summaries...): twice what a group has cost so
	 * far, on average, per row */
	if (a->based && a->ngroups > 0) {
		int64_t per = (atomic_load(&a->ctx.mem->used) - a->mem_base) / a->ngroups;
		if (2 * n * per > est) est = 2 * n * per;
	}
	return est;
}

/* Part of the limit stays free for what grows with the groups already in
 * memory once spilling has begun (count(DISTINCT) pairs, agg(DISTINCT x)
 * filters, agg_ext's lists and summaries: half; else an eighth, for
 * strings of min/max and other operators). */
static bool fits(const agg_op *a, int64_t bytes)
{
	const dl_exec_memory *m = a->ctx.mem;
	int64_t reserve = m->limit / 8;
	for (int k = 0; k < a->naggs; k++)
		if (a->aggs[k].distinct || a->aggs[k].dfilter ||
		    (a->aggs[k].ext && a->aggs[k].kind != DL_AGG_COUNT_IF && a->aggs[k].kind != DL_AGG_BOOL_AND &&
		     a->aggs[k].kind != DL_AGG_BOOL_OR && a->aggs[k].kind != DL_AGG_APPROX_COUNT_DISTINCT))
			reserve = m->limit / 2; /* grows with the groups in memory */
	return atomic_load(&m->used) + bytes <= m->limit - reserve;
}

static int start_spilling(agg_op *a)
{
	int nargs = 0;
	for (int k = 0; k < a->naggs; k++) nargs += a->aggs[k].arg != NULL;
	int n = a->nkeys + nargs;
	char(*names)[16] = dl_calloc((size_t)n, sizeof *names);
	const char **np = dl_calloc((size_t)n, sizeof *np);
	dl_type **types = dl_calloc((size_t)n, sizeof *types);
	int rc = names && np && types ? 0 : dl_error_set(DL_ENOMEM, "out of memory");
	for (int k = 0, c = 0; rc == 0 && k < a->nkeys + a->naggs; k++) {
		if (k < a->nkeys) {
			snprintf(names[c], sizeof names[c], "__k%d", k);
			types[c] = (dl_type *)dl_expr_type(a->keys[k]);
		} else if (a->aggs[k - a->nkeys].arg) {
			snprintf(names[c], sizeof names[c], "__a%d", k - a->nkeys);
			types[c] = (dl_type *)a->aggs[k - a->nkeys].in;
		} else {
			continue;
		}
		np[c] = names[c];
		c++;
	}
	if (rc == 0 && !(a->raw_schema = dl_exec_struct(np, types, NULL, n))) rc = dl_exec_failed();
	if (rc == 0) rc = dl_spill_parts_open(&a->parts, &a->ctx, a->raw_schema, a->level, "hash aggregate");
	dl_free(names);
	dl_free(np);
	dl_free(types);
	if (rc == 0) a->spilling = true;
	return rc;
}

/* Rows of b (keys kc) whose group is in memory are aggregated; the others
 * are written raw to their partition. */
static int spill_rows(agg_op *a, dl_batch *b, dl_array *const *kc)
{
	int64_t n = b->num_rows;
	if (n > a->ids_cap) {
		uint32_t *ids = dl_reallocarray(a->ids, (size_t)n, sizeof *ids);
		if (!ids) return dl_error_set(DL_ENOMEM, "out of memory");
		a->ids = ids;
		a->ids_cap = n;
	}
	DL_TRY(dl_keytab_find(a->groups, kc, n, a->ids));
	dl_selection in = {0}, out = {0};
	int rc = dl_selection_reserve(&in, n);
	if (rc == 0) rc = dl_selection_reserve(&out, n);
	for (int64_t i = 0; rc == 0 && i < n; i++) {
		if (a->ids[i] != DL_KEYTAB_NONE) in.idx[in.count++] = (uint32_t)i;
		else out.idx[out.count++] = (uint32_t)i;
	}
	int ncols = a->raw_schema->nchildren;
	dl_array **cols = rc == 0 ? dl_calloc((size_t)(ncols > a->nkeys ? ncols : a->nkeys), sizeof *cols) : NULL;
	if (rc == 0 && !cols) rc = dl_error_set(DL_ENOMEM, "out of memory");
	if (rc == 0 && out.count > 0) {
		/* the raw rows first: agg_consume_mem below reuses a->ids */
		int c = 0;
		for (int k = 0; rc == 0 && k < a->nkeys; k++, c++)
			if (!(cols[c] = dl_array_take(kc[k], out.idx, out.count))) rc = dl_exec_failed();
		for (int k = 0; rc == 0 && k < a->naggs; k++) {
			if (!a->aggs[k].arg) continue;
			dl_array *x = NULL;
			rc = dl_expr_eval(&x, a->aggs[k].arg, b, &a->ctx.eval);
			if (rc == 0 && !(cols[c] = dl_array_take(x, out.idx, out.count))) rc = dl_exec_failed();
			dl_array_free(x);
			c++;
		}
		dl_batch *raw = NULL;
		if (rc == 0) {
			raw = dl_exec_batch(a->raw_schema, cols, out.count);
			memset(cols, 0, (size_t)ncols * sizeof *cols);
			if (!raw) rc = dl_exec_failed();
		}
		if (rc == 0) rc = dl_spill_parts_write(&a->parts, raw, raw->cols, a->nkeys);
		dl_batch_free(raw);
	}
	for (int k = 0; k < ncols; k++) dl_array_free(cols ? cols[k] : NULL);
	if (rc == 0 && in.count == n) {
		rc = agg_consume_mem(a, b, kc);
	} else if (rc == 0 && in.count > 0) {
		dl_batch *kb = dl_batch_take(b, in.idx, in.count);
		if (!kb) rc = dl_exec_failed();
		for (int k = 0; rc == 0 && k < a->nkeys; k++)
			if (!(cols[k] = dl_array_take(kc[k], in.idx, in.count))) rc = dl_exec_failed();
		/* a shard's per-row positions and hashes do not follow the take
		 * (no group is new here: none is needed) */
		const int64_t *pos = a->rowpos;
		const uint64_t *hs = a->rowhash;
		a->rowpos = NULL;
		a->rowhash = NULL;
		if (rc == 0) rc = agg_consume_mem(a, kb, cols);
		a->rowpos = pos;
		a->rowhash = hs;
		for (int k = 0; k < a->nkeys; k++) dl_array_free(cols[k]);
		dl_batch_free(kb);
	}
	dl_free(cols);
	dl_selection_free(&in);
	dl_selection_free(&out);
	return rc;
}

int agg_spill_consume(agg_op *a, dl_batch *b, dl_array *const *kc)
{
	int64_t n = b->num_rows;
	if (!a->based) {
		a->mem_base = atomic_load(&a->ctx.mem->used);
		a->based = true;
	}
	if (a->spilling) return spill_rows(a, b, kc);
	if (fits(a, agg_growth(a, kc, n))) return agg_consume_mem(a, b, kc);
	if (n > 1024 || (a->ngroups == 0 && n > 1)) {
		/* halve: a slice may still fit where the whole batch does not */
		int64_t h = n / 2;
		dl_array **kk = dl_calloc((size_t)a->nkeys, sizeof *kk);
		if (!kk) return dl_error_set(DL_ENOMEM, "out of memory");
		int rc = 0;
		for (int part = 0; part < 2 && rc == 0; part++) {
			int64_t lo = part ? h : 0, m = part ? n - h : h;
			dl_batch *sb = dl_batch_slice(b, lo, m);
			if (!sb) rc = dl_exec_failed();
			for (int k = 0; rc == 0 && k < a->nkeys; k++)
				if (!(kk[k] = dl_array_slice(kc[k], lo, m))) rc = dl_exec_failed();
			/* a shard's row positions follow the slice */
			const int64_t *pos = a->rowpos;
			const uint64_t *hs = a->rowhash;
			if (pos) a->rowpos = pos + lo;
			if (hs) a->rowhash = hs + lo;
			if (rc == 0) rc = agg_spill_consume(a, sb, kk);
			a->rowpos = pos;
			a->rowhash = hs;
			for (int k = 0; k < a->nkeys; k++) {
				dl_array_free(kk[k]);
				kk[k] = NULL;
			}
			dl_batch_free(sb);
		}
		dl_free(kk);
		return rc;
	}
	/* one group always fits, or no pass would ever make progress */
	if (a->ngroups == 0) return agg_consume_mem(a, b, kc);
	DL_TRY(start_spilling(a));
	return spill_rows(a, b, kc);
}

int agg_open_raw(dl_batch_stream **out, const agg_op *a, dl_batch_stream *src, const dl_exec_ctx *ctx, int level)
{
	int nk = a->nkeys, na = a->naggs, rc = 0;
	dl_expr **keys = dl_calloc((size_t)nk, sizeof *keys);
	const char **names = dl_calloc((size_t)nk, sizeof *names);
	dl_exec_agg *ag = dl_calloc((size_t)(na ? na : 1), sizeof *ag);
	if (!keys || !names || !ag) rc = dl_error_set(DL_ENOMEM, "out of memory");
	char col[32];
	for (int k = 0; rc == 0 && k < nk; k++) {
		snprintf(col, sizeof col, "`__k%d`", k);
		rc = dl_expr_parse(&keys[k], col);
		names[k] = a->schema->children[k].name;
	}
	for (int k = 0; rc == 0 && k < na; k++) {
		ag[k] = a->spec[k];
		ag[k].name = a->schema->children[nk + k].name;
		if (a->aggs[k].arg) {
			snprintf(col, sizeof col, "`__a%d`", k);
			rc = dl_expr_parse(&ag[k].arg, col);
		}
		if (rc == 0 && a->param_sql[k]) rc = dl_expr_parse(&ag[k].param, a->param_sql[k]);
	}
	if (rc == 0) {
		rc = agg_open(out, src, keys, names, nk, ag, na, ctx, level);
	} else {
		dl_batch_stream_free(src);
		for (int k = 0; keys && k < nk; k++) dl_expr_free(keys[k]);
		for (int k = 0; ag && k < na; k++) {
			dl_expr_free(ag[k].arg);
			dl_expr_free(ag[k].param);
		}
	}
	dl_free(keys);
	dl_free(names);
	dl_free(ag);
	return rc;
}

/* The operator over partition f, one level deeper. */
static int open_child(agg_op *a, dl_spill_file *f)
{
	dl_batch_stream *src;
	DL_TRY(dl_spill_stream(&src, f, &a->ctx));
	return agg_open_raw(&a->child, a, src, &a->ctx, a->level + 1);
}

/* After the in-memory groups: each partition's groups. */
int agg_spill_next(agg_op *a, dl_batch **out)
{
	*out = NULL;
	if (!a->released) {
		agg_free_groups(a);
		a->released = true;
	}
	for (;;) {
		if (a->child) {
			DL_TRY(dl_batch_stream_next(a->child, out));
			if (*out) {
				int rc = dl_batch_set_schema(*out, a->schema);
				if (rc < 0) {
					dl_batch_free(*out);
					*out = NULL;
				}
				return rc;
			}
			dl_batch_stream_free(a->child);
			a->child = NULL;
		}
		if (a->next_part >= a->parts.n) return 0;
		dl_spill_file *f;
		DL_TRY(dl_spill_parts_take(&f, &a->parts, a->next_part++));
		if (f) DL_TRY(open_child(a, f));
	}
}
