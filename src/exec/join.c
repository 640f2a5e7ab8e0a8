/* Hash join (exec.h). The right input is read whole into one build batch;
 * its key rows go into a key table (keytab.h) and the rows of each key are
 * chained (head[key] -> next[row] -> ...). Each left batch then probes:
 * key ids by lookup, then candidate (left row, build row) pairs in chunks of
 * at most a batch's rows, so a key with many matches (or a cross join)
 * never materializes more than one chunk at a time. The residual condition
 * runs over each chunk's joined rows; what survives is a match.
 *
 * Matches are recorded per left row (for left/full outer, semi and anti,
 * decided once the left batch is fully probed) and per build row (for
 * right/full outer, whose unmatched build rows come out after the left
 * input ends).
 *
 * SQL's = never matches NULL: rows with a NULL in a key compared with =
 * take part in no match (on either side) but still appear as unmatched rows
 * of an outer side and in an anti join's output. Keys compared with <=>
 * match NULL with NULL. Without keys every build row is a candidate. */
#include <string.h>
#include "exec/join.h"


static bool can_spill(const join_op *j);
static int go_grace(join_op *j, dl_batch **bs, int nb);
static int grace_next(join_op *j, dl_batch **out);


static const dl_type *j_schema(dl_batch_stream *s)
{
	join_op *j = s->private_data;
	return j->out_schema;
}

static int charge(join_op *j, int64_t bytes)
{
	DL_TRY(dl_exec_mem_charge(j->ctx.mem, bytes, "hash join build side"));
	j->charged += bytes;
	return 0;
}

/* Rows of `keys` with no NULL in a key compared with = (sel), for a side. */
int join_usable_rows(const join_op *j, dl_array *const *keys, int64_t n, dl_selection *sel)
{
	DL_TRY(dl_selection_reserve(sel, n));
	sel->count = 0;
	for (int64_t i = 0; i < n; i++) {
		bool ok = true;
		for (int k = 0; k < j->nkeys && ok; k++)
			if (!(j->null_safe && j->null_safe[k]) && !dl_array_is_valid(keys[k], i)) ok = false;
		if (ok) sel->idx[sel->count++] = (uint32_t)i;
	}
	return 0;
}

static int build_mem(join_op *j)
{
	const dl_type *rs = dl_batch_stream_schema(j->right);
	dl_batch **bs = NULL;
	int nb = 0, cap = 0, rc = 0;
	for (;;) {
		dl_batch *b;
		if ((rc = dl_batch_stream_next(j->right, &b)) < 0 || !b) break;
		if (nb == cap) {
			int nc = cap ? cap * 2 : 16;
			dl_batch **nbs = dl_reallocarray(bs, (size_t)nc, sizeof *nbs);
			if (!nbs) {
				/* not the budget: nothing to spill to, and no room for b */
				dl_batch_free(b);
				rc = dl_error_set(DL_ENOMEM, "out of memory");
				break;
			}
			bs = nbs;
			cap = nc;
		}
		if (rc == 0) rc = charge(j, dl_batch_bytes(b));
		if (rc == DL_ENOMEM && can_spill(j)) {
			/* over the limit: partition what was read and the rest */
			bs[nb++] = b;
			rc = go_grace(j, bs, nb);
			dl_free(bs);
			return rc;
		}
		if (rc < 0) {
			dl_batch_free(b);
			break;
		}
		bs[nb++] = b;
	}
	if (rc == 0) {
		if (nb == 1) {
			j->build = bs[0];
			nb = 0;
		} else if (nb > 1) {
			j->build = dl_batch_concat(bs, nb);
		} else if ((j->build = dl_batch_new((dl_type *)rs, 0))) {
			for (int c = 0; c < rs->nchildren; c++)
				if (!(j->build->cols[c] = dl_array_new(rs->children[c].type, 0))) break;
		}
		if (!j->build || (j->build->ncols && !j->build->cols[j->build->ncols - 1])) rc = dl_exec_failed();
	}
	for (int i = 0; i < nb; i++) dl_batch_free(bs[i]);
	dl_free(bs);
	if (rc < 0) return rc;
	int64_t n = j->nbuild = j->build->num_rows;
	if (n > UINT32_MAX - 1) return dl_error_set(DL_EUNSUPPORTED, "hash join: build side of %lld rows", (long long)n);
	DL_TRY(charge(j, n * 17 + 16));
	j->next = dl_malloc((size_t)(n ? n : 1) * sizeof *j->next);
	j->build_matched = dl_calloc((size_t)(n ? n : 1), 1);
	if (!j->next || !j->build_matched) return dl_error_set(DL_ENOMEM, "out of memory");
	if (j->nkeys == 0) {
		j->head = dl_malloc(sizeof *j->head);
		if (!j->head) return dl_error_set(DL_ENOMEM, "out of memory");
		j->head[0] = n ? 0 : -1;
		for (int64_t i = 0; i < n; i++) j->next[i] = i + 1 < n ? i + 1 : -1;
		return 0;
	}
	dl_array **keys = dl_calloc((size_t)j->nkeys, sizeof *keys), **ukeys = dl_calloc((size_t)j->nkeys, sizeof *ukeys);
	dl_selection sel = {0};
	uint32_t *ids = NULL;
	if (!keys || !ukeys) rc = dl_error_set(DL_ENOMEM, "out of memory");
	if (rc == 0) rc = dl_exec_eval_all(keys, j->rk, j->nkeys, j->build, &j->ctx);
	if (rc == 0) rc = join_usable_rows(j, keys, n, &sel);
	for (int k = 0; k < j->nkeys && rc == 0; k++)
		if (!(ukeys[k] = dl_array_take(keys[k], sel.idx, sel.count))) rc = dl_exec_failed();
	if (rc == 0 && !(ids = dl_malloc((size_t)(sel.count ? sel.count : 1) * sizeof *ids)))
		rc = dl_error_set(DL_ENOMEM, "out of memory");
	if (rc == 0) rc = dl_keytab_insert(j->kt, ukeys, sel.count, ids);
	if (rc == 0) {
		int64_t nk = dl_keytab_size(j->kt);
		rc = charge(j, nk * 8);
		if (rc == 0 && !(j->head = dl_malloc((size_t)(nk ? nk : 1) * sizeof *j->head)))
			rc = dl_error_set(DL_ENOMEM, "out of memory");
		for (int64_t k = 0; rc == 0 && k < nk; k++) j->head[k] = -1;
		/* chain backwards so each chain lists build rows in input order */
		for (int64_t s = sel.count - 1; rc == 0 && s >= 0; s--) {
			int64_t row = sel.idx[s];
			j->next[row] = j->head[ids[s]];
			j->head[ids[s]] = row;
		}
	}
	/* either array may be NULL: its allocation failed */
	for (int k = 0; k < j->nkeys; k++) {
		if (keys) dl_array_free(keys[k]);
		if (ukeys) dl_array_free(ukeys[k]);
	}
	dl_free(keys);
	dl_free(ukeys);
	dl_free(ids);
	dl_selection_free(&sel);
	return rc;
}

/* The build side in memory, or, when it does not fit, partitioned. */
static int build_side(join_op *j)
{
	int rc = build_mem(j);
	if (rc == DL_ENOMEM && !j->grace && can_spill(j) && j->build) {
		/* every batch fit but not the table over them: partition the batch */
		dl_batch *b = j->build;
		j->build = NULL;
		dl_free(j->head);
		dl_free(j->next);
		dl_free(j->build_matched);
		j->head = j->next = NULL;
		j->build_matched = NULL;
		dl_keytab_free(j->kt);
		j->kt = NULL;
		rc = go_grace(j, &b, 1);
	}
	return rc;
}

/* The left rows sel (or NULLs when left is NULL) beside the build rows
 * rsel (or NULLs), n rows, in `schema`. */
dl_batch *join_pair_batch(join_op *j, const dl_batch *cur, const uint32_t *lsel, const uint32_t *rsel, int64_t n,
                         dl_type *schema)
{
	const dl_type *ls = dl_batch_stream_schema(j->left);
	int nl = ls->nchildren, nc = schema->nchildren;
	dl_array **cols = dl_calloc((size_t)(nc ? nc : 1), sizeof *cols);
	if (!cols) {
		dl_error_set(DL_ENOMEM, "out of memory");
		return NULL;
	}
	for (int c = 0; c < nc; c++) {
		if (c < nl)
			cols[c] = lsel ? dl_array_take(cur->cols[c], lsel, n) : dl_array_new_null(ls->children[c].type, n);
		else
			cols[c] = rsel ? dl_array_take(j->build->cols[c - nl], rsel, n)
			               : dl_array_new_null(j->build->schema->children[c - nl].type, n);
		if (!cols[c]) {
			for (int d = 0; d < c; d++) dl_array_free(cols[d]);
			dl_free(cols);
			return NULL;
		}
	}
	dl_batch *b = dl_exec_batch(schema, cols, n);
	dl_free(cols);
	return b;
}

/* Candidate pairs of the current left batch, a chunk at a time. */
static int probe_chunk(join_op *j)
{
	int64_t max = dl_exec_batch_rows(&j->ctx), n = j->cur->num_rows, np = 0;
	uint32_t *ls = dl_malloc((size_t)max * sizeof *ls), *rs = dl_malloc((size_t)max * sizeof *rs);
	if (!ls || !rs) {
		dl_free(ls);
		dl_free(rs);
		return dl_error_set(DL_ENOMEM, "out of memory");
	}
	while (j->li < n && np < max) {
		if (j->cursor == -2) j->cursor = j->kid[j->li] == DL_KEYTAB_NONE ? -1 : j->head[j->kid[j->li]];
		/* semi/anti without a residual: one match decides the row */
		if (left_only(j) && !j->residual && j->cursor >= 0) {
			j->lmatched[j->li] = 1;
			j->cursor = -1;
		}
		while (j->cursor >= 0 && np < max) {
			ls[np] = (uint32_t)j->li;
			rs[np++] = (uint32_t)j->cursor;
			j->cursor = j->next[j->cursor];
		}
		if (j->cursor < 0) {
			j->li++;
			j->cursor = -2;
		}
	}
	int rc = 0;
	dl_batch *pb = np ? join_pair_batch(j, j->cur, ls, rs, np, j->pair_schema) : NULL;
	if (np && !pb) rc = dl_exec_failed();
	int64_t nm = np;
	const uint32_t *keep = NULL;
	if (pb && j->residual) {
		rc = dl_expr_filter(&j->sel, j->residual, pb, &j->ctx.eval);
		if (rc < 0) rc = dl_error_prefix("hash join: residual condition");
		nm = j->sel.count;
		keep = j->sel.idx;
	}
	for (int64_t m = 0; rc == 0 && m < nm; m++) {
		int64_t p = keep ? keep[m] : m;
		j->lmatched[ls[p]] = 1;
		j->build_matched[rs[p]] = 1;
	}
	if (rc == 0 && pb && nm > 0 && !left_only(j)) {
		dl_batch *ob = nm == np ? pb : dl_batch_take(pb, keep, nm);
		if (ob == pb) pb = NULL;
		if (!ob) rc = dl_exec_failed();
		else if ((rc = dl_batch_set_schema(ob, j->out_schema)) < 0) dl_batch_free(ob);
		else rc = dl_exec_queue_push(&j->q, ob);
	}
	dl_batch_free(pb);
	dl_free(ls);
	dl_free(rs);
	return rc;
}

/* Once a left batch is probed: its unmatched rows (outer), matched ones
 * (semi) or unmatched ones (anti). */
static int finish_left(join_op *j)
{
	int rc = 0;
	if (outer_left(j) || left_only(j)) {
		bool want = j->kind == DL_JOIN_SEMI;
		DL_TRY(dl_selection_reserve(&j->sel, j->cur->num_rows));
		j->sel.count = 0;
		for (int64_t i = 0; i < j->cur->num_rows; i++)
			if ((j->lmatched[i] != 0) == want) j->sel.idx[j->sel.count++] = (uint32_t)i;
		if (j->sel.count > 0) {
			dl_batch *b = join_pair_batch(j, j->cur, j->sel.idx, NULL, j->sel.count, j->out_schema);
			rc = b ? dl_exec_queue_push(&j->q, b) : dl_exec_failed();
		}
	}
	dl_batch_free(j->cur);
	j->cur = NULL;
	return rc;
}

static int start_left(join_op *j, dl_batch *b)
{
	int64_t n = b->num_rows;
	j->cur = b;
	j->li = 0;
	j->cursor = -2;
	dl_free(j->kid);
	dl_free(j->lmatched);
	j->kid = dl_malloc((size_t)(n ? n : 1) * sizeof *j->kid);
	j->lmatched = dl_calloc((size_t)(n ? n : 1), 1);
	if (!j->kid || !j->lmatched) return dl_error_set(DL_ENOMEM, "out of memory");
	if (j->nkeys == 0) {
		memset(j->kid, 0, (size_t)n * sizeof *j->kid);
		return 0;
	}
	dl_array **keys = dl_calloc((size_t)j->nkeys, sizeof *keys);
	if (!keys) return dl_error_set(DL_ENOMEM, "out of memory");
	int rc = dl_exec_eval_all(keys, j->lk, j->nkeys, b, &j->ctx);
	if (rc == 0) rc = dl_keytab_find(j->kt, keys, n, j->kid);
	if (rc == 0 && (rc = join_usable_rows(j, keys, n, &j->sel)) == 0) {
		/* a NULL under = matches nothing: mark the usable rows, drop the rest */
		uint8_t *ok = j->lmatched; /* borrowed as scratch, cleared below */
		for (int64_t s = 0; s < j->sel.count; s++) ok[j->sel.idx[s]] = 1;
		for (int64_t i = 0; i < n; i++) {
			if (!ok[i]) j->kid[i] = DL_KEYTAB_NONE;
			ok[i] = 0;
		}
	}
	for (int k = 0; k < j->nkeys; k++) dl_array_free(keys[k]);
	dl_free(keys);
	return rc;
}

static int emit_right(join_op *j)
{
	int64_t max = dl_exec_batch_rows(&j->ctx);
	DL_TRY(dl_selection_reserve(&j->sel, max));
	while (j->right_pos < j->nbuild) {
		j->sel.count = 0;
		while (j->right_pos < j->nbuild && j->sel.count < max) {
			if (!j->build_matched[j->right_pos]) j->sel.idx[j->sel.count++] = (uint32_t)j->right_pos;
			j->right_pos++;
		}
		if (j->sel.count > 0) {
			dl_batch *b = join_pair_batch(j, NULL, NULL, j->sel.idx, j->sel.count, j->out_schema);
			return b ? dl_exec_queue_push(&j->q, b) : dl_exec_failed();
		}
	}
	return 0;
}

static int j_next(dl_batch_stream *s, dl_batch **out)
{
	join_op *j = s->private_data;
	*out = NULL;
	if (!j->built) {
		DL_TRY(build_side(j));
		j->built = true;
		if (!j->grace) DL_TRY(join_par_open(j));
	}
	if (j->grace) return grace_next(j, out);
	while (!(*out = dl_exec_queue_pop(&j->q))) {
		if (j->cur) {
			if (j->li < j->cur->num_rows) DL_TRY(probe_chunk(j));
			else DL_TRY(finish_left(j));
		} else if (!j->left_done && j->par) {
			DL_TRY(join_par_step(j));
		} else if (!j->left_done) {
			dl_batch *b;
			DL_TRY(dl_exec_check_interrupt(&j->ctx, "hash join"));
			DL_TRY(dl_batch_stream_next(j->left, &b));
			if (!b) j->left_done = true;
			else DL_TRY(start_left(j, b));
		} else if (outer_right(j) && j->right_pos < j->nbuild) {
			DL_TRY(emit_right(j));
		} else {
			return 0;
		}
	}
	return 0;
}

static void j_free(join_op *j)
{
	join_par_free(j);
	dl_batch_stream_free(j->left);
	dl_batch_stream_free(j->right);
	dl_batch_stream_free(j->child);
	dl_spill_parts_free(&j->rparts);
	dl_spill_parts_free(&j->lparts);
	for (int k = 0; k < j->nkeys && !j->borrowed; k++) {
		if (j->lk) dl_expr_free(j->lk[k]);
		if (j->rk) dl_expr_free(j->rk[k]);
	}
	dl_free(j->lk);
	dl_free(j->rk);
	dl_free(j->null_safe);
	if (!j->borrowed) dl_expr_free(j->residual);
	dl_type_unref(j->pair_schema);
	dl_type_unref(j->out_schema);
	dl_batch_free(j->build);
	dl_keytab_free(j->kt);
	dl_free(j->head);
	dl_free(j->next);
	dl_free(j->build_matched);
	dl_batch_free(j->cur);
	dl_free(j->kid);
	dl_free(j->lmatched);
	dl_selection_free(&j->sel);
	dl_exec_queue_free(&j->q);
	dl_exec_mem_release(j->ctx.mem, j->charged);
	dl_free(j);
}

static void j_release(dl_batch_stream *s)
{
	j_free(s->private_data);
	dl_free(s);
}

/* left fields then right fields; nullable where `*_null` or declared. */
static dl_type *joined(const dl_type *l, const dl_type *r, bool l_null, bool r_null, bool with_right)
{
	int n = l->nchildren + (with_right ? r->nchildren : 0);
	dl_field *f = dl_calloc((size_t)(n ? n : 1), sizeof *f);
	if (!f) return NULL;
	for (int i = 0; i < n; i++) {
		bool isl = i < l->nchildren;
		f[i] = isl ? l->children[i] : r->children[i - l->nchildren];
		f[i].nullable = f[i].nullable || (isl ? l_null : r_null);
	}
	dl_type *t = dl_type_struct(f, n);
	dl_free(f);
	return t;
}

static const char *const kind_names[] = {"inner", "left", "right", "full", "semi", "anti", "cross"};

static int join_open(dl_batch_stream **out, dl_batch_stream *left, dl_batch_stream *right,
                     const dl_exec_join *spec, const dl_exec_ctx *ctx, int level, bool borrowed)
{
	*out = NULL;
	join_op *j = dl_calloc(1, sizeof *j);
	int nk = spec->nkeys, rc = 0;
	size_t nka = (size_t)(nk > 0 ? nk : 1);
	if (j) {
		j->lk = dl_calloc(nka, sizeof *j->lk);
		j->rk = dl_calloc(nka, sizeof *j->rk);
		j->null_safe = dl_calloc(nka, sizeof *j->null_safe);
	}
	if (!j || !j->lk || !j->rk || !j->null_safe) {
		if (j) {
			dl_free(j->lk);
			dl_free(j->rk);
			dl_free(j->null_safe);
		}
		dl_free(j);
		dl_batch_stream_free(left);
		dl_batch_stream_free(right);
		for (int k = 0; k < nk && !borrowed; k++) {
			dl_expr_free(spec->left_keys[k]);
			dl_expr_free(spec->right_keys[k]);
		}
		if (!borrowed) dl_expr_free(spec->residual);
		return dl_error_set(DL_ENOMEM, "out of memory");
	}
	j->left = left;
	j->right = right;
	if (ctx) j->ctx = *ctx;
	j->level = level;
	j->borrowed = borrowed;
	j->kind = spec->kind;
	j->nkeys = nk;
	j->residual = spec->residual;
	for (int k = 0; k < nk; k++) {
		j->lk[k] = spec->left_keys[k];
		j->rk[k] = spec->right_keys[k];
		j->null_safe[k] = spec->null_safe && spec->null_safe[k];
	}
	if ((int)j->kind < 0 || j->kind > DL_JOIN_CROSS) rc = dl_error_set(DL_EINVALID, "hash join: unknown join kind %d", (int)j->kind);
	else if (j->kind == DL_JOIN_CROSS && nk > 0) rc = dl_error_set(DL_EINVALID, "hash join: a cross join has no keys");
	const dl_type *ls = dl_batch_stream_schema(left), *rs = dl_batch_stream_schema(right);
	dl_type **kt = rc == 0 ? dl_calloc(nka, sizeof *kt) : NULL;
	if (rc == 0 && !kt) rc = dl_error_set(DL_ENOMEM, "out of memory");
	for (int k = 0; k < nk && rc == 0; k++) {
		rc = dl_exec_bind(j->lk[k], ls, ctx, "hash join: left key");
		if (rc == 0) rc = dl_exec_bind(j->rk[k], rs, ctx, "hash join: right key");
		if (rc == 0 && !dl_type_equals(dl_expr_type(j->lk[k]), dl_expr_type(j->rk[k]))) {
			char a[64], b[64];
			dl_type_sql(dl_expr_type(j->lk[k]), a, sizeof a);
			dl_type_sql(dl_expr_type(j->rk[k]), b, sizeof b);
			rc = dl_error_set(DL_EINVALID, "hash join: key %d compares %s with %s; cast one side first", k + 1, a, b);
		}
		if (rc == 0) kt[k] = (dl_type *)dl_expr_type(j->lk[k]);
	}
	if (rc == 0 && nk > 0) rc = dl_keytab_new(&j->kt, kt, nk, j->ctx.mem, "hash join build side");
	dl_free(kt);
	if (rc == 0) {
		j->pair_schema = joined(ls, rs, true, true, true);
		j->out_schema = joined(ls, rs, outer_right(j), outer_left(j), !left_only(j));
		if (!j->pair_schema || !j->out_schema) rc = dl_error_set(DL_ENOMEM, "out of memory");
	}
	if (rc == 0 && j->residual) {
		rc = dl_exec_bind(j->residual, j->pair_schema, ctx, "hash join: condition");
		if (rc == 0 && dl_expr_type(j->residual)->id != DL_TYPE_BOOLEAN && dl_expr_type(j->residual)->id != DL_TYPE_NULL)
			rc = dl_error_set(DL_EINVALID, "hash join (%s): the condition must be BOOLEAN", kind_names[j->kind]);
	}
	if (rc == 0 && !(*out = dl_exec_stream_new(j, j_schema, j_next, j_release))) rc = dl_exec_failed();
	if (rc < 0) j_free(j);
	return rc;
}

int dl_exec_hash_join(dl_batch_stream **out, dl_batch_stream *left, dl_batch_stream *right,
                      const dl_exec_join *spec, const dl_exec_ctx *ctx)
{
	return join_open(out, left, right, spec, ctx, 0, false);
}

/* ---- Spilling: grace hash join -----------------------------------------
 *
 * When the build side does not fit the memory limit (a batch cannot be
 * charged, or the table over the batches cannot), what was read of it and
 * the rest are written to DL_SPILL_PARTS files by key hash, then the whole
 * left side likewise, and each pair of partitions is joined by a join of
 * the same kind, keys and residual, one level deeper (so a partition whose
 * build side still does not fit splits again, with another hash mix).
 * Rows of equal keys land in the same pair, so every match is found in
 * exactly one pair, and every row is in exactly one pair, so each kind's
 * unmatched rows (outer sides, anti) come out exactly once: a NULL key
 * under = goes to some partition, matches nothing there and is emitted as
 * unmatched there; under <=> NULL hashes the same on both sides. Without
 * keys (a cross join) there is nothing to partition by: the build side
 * must fit. */

static bool can_spill(const join_op *j)
{
	return j->nkeys > 0 && j->level < DL_SPILL_MAX_LEVEL && j->ctx.mem && j->ctx.mem->limit > 0;
}

static int part_write(join_op *j, dl_spill_parts *p, dl_expr **keys, dl_batch *b)
{
	dl_array **kc = dl_calloc((size_t)j->nkeys, sizeof *kc);
	if (!kc) return dl_error_set(DL_ENOMEM, "out of memory");
	int rc = dl_exec_eval_all(kc, keys, j->nkeys, b, &j->ctx);
	if (rc == 0) rc = dl_spill_parts_write(p, b, kc, j->nkeys);
	for (int k = 0; k < j->nkeys; k++) dl_array_free(kc[k]);
	dl_free(kc);
	return rc;
}

/* Partitions bs[0..nb) (taken) and the rest of the right input. */
static int go_grace(join_op *j, dl_batch **bs, int nb)
{
	j->grace = true;
	int rc = dl_spill_parts_open(&j->rparts, &j->ctx, dl_batch_stream_schema(j->right), j->level, "hash join");
	if (rc == 0) rc = dl_spill_parts_open(&j->lparts, &j->ctx, dl_batch_stream_schema(j->left), j->level, "hash join");
	for (int i = 0; i < nb; i++) {
		if (rc == 0) rc = part_write(j, &j->rparts, j->rk, bs[i]);
		dl_batch_free(bs[i]);
	}
	dl_exec_mem_release(j->ctx.mem, j->charged);
	j->charged = 0;
	while (rc == 0) {
		dl_batch *b;
		if ((rc = dl_exec_check_interrupt(&j->ctx, "hash join")) < 0) break;
		if ((rc = dl_batch_stream_next(j->right, &b)) < 0 || !b) break;
		rc = part_write(j, &j->rparts, j->rk, b);
		dl_batch_free(b);
	}
	return rc < 0 ? dl_error_prefix("hash join") : 0;
}

static int side_stream(dl_batch_stream **out, dl_spill_file *f, const dl_type *schema, const dl_exec_ctx *ctx)
{
	if (f) return dl_spill_stream(out, f, ctx);
	return dl_batch_stream_from_batches(out, (dl_type *)schema, NULL, 0);
}

static int grace_next(join_op *j, dl_batch **out)
{
	*out = NULL;
	while (!j->left_done) {
		dl_batch *b;
		DL_TRY(dl_exec_check_interrupt(&j->ctx, "hash join"));
		DL_TRY(dl_batch_stream_next(j->left, &b));
		if (!b) {
			j->left_done = true;
			break;
		}
		int rc = part_write(j, &j->lparts, j->lk, b);
		dl_batch_free(b);
		if (rc < 0) return dl_error_prefix("hash join");
	}
	for (;;) {
		if (j->child) {
			DL_TRY(dl_batch_stream_next(j->child, out));
			if (*out) {
				int rc = dl_batch_set_schema(*out, j->out_schema);
				if (rc < 0) {
					dl_batch_free(*out);
					*out = NULL;
				}
				return rc;
			}
			dl_batch_stream_free(j->child);
			j->child = NULL;
		}
		if (j->next_part >= DL_SPILL_PARTS) return 0;
		int p = j->next_part++;
		dl_spill_file *lf, *rf;
		DL_TRY(dl_spill_parts_take(&lf, &j->lparts, p));
		int rc = dl_spill_parts_take(&rf, &j->rparts, p);
		if (rc < 0) {
			dl_spill_free(lf);
			return rc;
		}
		/* a pair with an empty side produces nothing unless that side's
		 * partner is an outer (or anti) side */
		bool skip = (!lf && !rf) || (!rf && (j->kind == DL_JOIN_INNER || j->kind == DL_JOIN_RIGHT ||
		                                     j->kind == DL_JOIN_SEMI)) ||
		            (!lf && (j->kind == DL_JOIN_INNER || j->kind == DL_JOIN_LEFT || j->kind == DL_JOIN_SEMI ||
		                     j->kind == DL_JOIN_ANTI));
		if (skip) {
			dl_spill_free(lf);
			dl_spill_free(rf);
			continue;
		}
		dl_batch_stream *ls = NULL, *rs = NULL;
		rc = side_stream(&ls, lf, dl_batch_stream_schema(j->left), &j->ctx);
		if (rc == 0) rc = side_stream(&rs, rf, dl_batch_stream_schema(j->right), &j->ctx);
		else dl_spill_free(rf);
		if (rc < 0) {
			dl_batch_stream_free(ls);
			return rc;
		}
		dl_exec_join spec = {j->kind, j->nkeys, j->lk, j->rk, j->null_safe, j->residual};
		DL_TRY(join_open(&j->child, ls, rs, &spec, &j->ctx, j->level + 1, true));
	}
}
