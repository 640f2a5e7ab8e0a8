/* The parallel hash aggregate (aggregate.h): the groups are split over
 * shards by a mix of the key hash, each shard a serial aggregate of its
 * own (key table, slots, spilling under the shared memory limit). Every
 * input batch is scattered: the rows of each shard are taken into a batch
 * of the raw keys and arguments, and the shards consume their batches at
 * once, one on the calling thread and the others on a pool of the
 * operator's own (the shared pool's workers decode the scan's files, and
 * a task queued behind them would wait for a whole file).
 *
 * Why shards and not per-thread partial tables merged at the end: a group
 * lives in exactly one shard and sees its rows in input order, so every
 * aggregate is computed exactly as the serial operator computes it -
 * DOUBLE sums add in the same order, first/last stay exact, no state is
 * ever merged - and the result does not depend on the thread count. Each
 * shard records the input position of its groups' first rows, so the
 * output merges the shards back into the order of first appearance the
 * serial operator has; spilled groups follow, shard by shard.
 *
 * Cancellation: the operator checks the interrupt before every batch and
 * each shard's task again before it starts, and every batch's tasks are
 * waited for before the call returns, so a cancelled statement leaves no
 * task running and the pool idle. */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include "exec/aggregate.h"
#include "util/hash.h"
#include "util/pool.h"

#define PAR_MAX_SHARDS 8
/* Batches below this many rows are consumed shard after shard on the
 * calling thread: waking a worker costs more. */
#define PAR_MIN_ROWS 4096
#define PAR_MIN_LIMIT (64 * 1024)
#define PAR_MIN_GROUPS 1024

typedef struct agg_par agg_par;

typedef struct shard_task {
	agg_par *p;
	int s;
	dl_array **cols; /* the batch's keys, then arguments (borrowed) */
	/* its failure, kept whole (the class too) for the calling thread */
	int rc;
	char klass[64];
	char message[512];
} shard_task;

struct agg_par {
	int n;
	dl_batch_stream **st; /* each shard's operator (owned) */
	agg_op **sh;
	dl_type *raw;         /* a shard's input: __k0.., then __a0.. */
	int nraw;
	dl_pool *pool;        /* n - 1 workers, created on the first big batch */
	int64_t rows;         /* input rows so far: the next row's position */
	/* the batch being scattered */
	uint64_t *h;
	uint32_t *idx;        /* row numbers grouped by shard */
	int64_t *pos;         /* their input positions */
	uint64_t *hs;         /* their key hashes */
	bool decided;         /* sharded or serial, chosen at the first batch */
	int64_t cap;
	int64_t cnt[PAR_MAX_SHARDS], off[PAR_MAX_SHARDS];
	shard_task task[PAR_MAX_SHARDS];
	/* output */
	bool merged;
	uint8_t *ord;         /* the shard of each output group, in output order */
	int64_t nord, emitted;
	int64_t next_id[PAR_MAX_SHARDS];
	int spill_shard;
};

static const dl_type *nil_schema(dl_batch_stream *s)
{
	return s->private_data;
}

static int nil_next(dl_batch_stream *s, dl_batch **out)
{
	(void)s;
	*out = NULL;
	return 0;
}

static void nil_release(dl_batch_stream *s)
{
	dl_free(s);
}

static int raw_schema(agg_op *a, agg_par *p)
{
	int n = a->nkeys;
	for (int k = 0; k < a->naggs; k++) n += a->aggs[k].arg != NULL;
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
	if (rc == 0 && !(p->raw = dl_exec_struct(np, types, NULL, n))) rc = dl_exec_failed();
	p->nraw = n;
	dl_free(names);
	dl_free(np);
	dl_free(types);
	return rc;
}

/* Shard s: the same aggregates over the raw columns, on one thread. */
static int open_shard(agg_op *a, agg_par *p, int s)
{
	dl_batch_stream *nil = dl_exec_stream_new(p->raw, nil_schema, nil_next, nil_release);
	if (!nil) return dl_exec_failed();
	dl_exec_ctx ctx = a->ctx;
	ctx.threads = 1; /* a shard never splits again */
	DL_TRY(agg_open_raw(&p->st[s], a, nil, &ctx, a->level));
	p->sh[s] = p->st[s]->private_data;
	if (!(p->sh[s]->first = dl_calloc(1, sizeof *p->sh[s]->first))) return dl_exec_failed();
	return 0;
}

int agg_par_open(agg_op *a)
{
	if (a->level != 0 || a->nkeys == 0) return 0;
	int n = a->ctx.threads > 0 ? a->ctx.threads : dl_default_threads();
	if (n > PAR_MAX_SHARDS) n = PAR_MAX_SHARDS;
	/* every shard needs room for its key table and at least one group
	 * (the serial operator's "one group always fits"): under a limit too
	 * small for that, one operator spills alone */
	if (a->ctx.mem && a->ctx.mem->limit > 0 && a->ctx.mem->limit < PAR_MIN_LIMIT * n) return 0;
	if (n < 2) return 0;
	agg_par *p = dl_calloc(1, sizeof *p);
	if (!p) return dl_error_set(DL_ENOMEM, "out of memory");
	a->par = p;
	p->n = n;
	p->st = dl_calloc((size_t)n, sizeof *p->st);
	p->sh = dl_calloc((size_t)n, sizeof *p->sh);
	if (!p->st || !p->sh) return dl_error_set(DL_ENOMEM, "out of memory");
	DL_TRY(raw_schema(a, p));
	for (int s = 0; s < n; s++) DL_TRY(open_shard(a, p, s));
	return 0;
}

/* Whether the first batch (hashes h) has many distinct keys - at least
 * PAR_MIN_GROUPS and an eighth of its rows, by linear counting over 2^16
 * bits. With few groups the table stays in cache and a row costs less
 * than scattering it; the gain is for big tables, whose probes miss. The
 * choice changes speed only: both ways give the same bits. */
static bool many_groups(const uint64_t *h, int64_t n)
{
	enum { BITS = 1 << 16 };
	static _Thread_local uint64_t seen[BITS / 64];
	memset(seen, 0, sizeof seen);
	for (int64_t i = 0; i < n; i++) {
		uint32_t b = (uint32_t)(dl_hash_mix64(h[i]) >> 48);
		seen[b >> 6] |= 1ull << (b & 63);
	}
	int64_t set = 0;
	for (int i = 0; i < BITS / 64; i++) set += __builtin_popcountll(seen[i]);
	if (set >= BITS) return true;
	double est = -(double)BITS * log(1.0 - (double)set / BITS);
	return est >= PAR_MIN_GROUPS && est * 8 >= (double)n;
}

void agg_par_free(agg_op *a)
{
	agg_par *p = a->par;
	if (!p) return;
	/* every batch's tasks were waited for: the pool is idle */
	dl_pool_free(p->pool);
	for (int s = 0; p->st && s < p->n; s++) dl_batch_stream_free(p->st[s]);
	dl_free(p->st);
	dl_free(p->sh);
	dl_type_unref(p->raw);
	dl_free(p->h);
	dl_free(p->idx);
	dl_free(p->pos);
	dl_free(p->hs);
	dl_free(p->ord);
	dl_free(p);
	a->par = NULL;
}

/* The shard of a key hash: bits independent of the key table's (low and
 * top 32) and of the spill partitions' (dl_spill_part_of's mixes). */
static inline int shard_of(uint64_t h, int n)
{
	uint64_t m = dl_hash_mix64(h ^ 0x6a09e667f3bcc909ull);
	return (int)(((m >> 32) * (uint64_t)n) >> 32);
}

static int shard_batch(shard_task *t);
static bool many_groups(const uint64_t *h, int64_t n);

/* On any thread: the failure is kept in the task. */
static int run_shard(void *arg)
{
	shard_task *t = arg;
	t->rc = shard_batch(t);
	if (t->rc < 0) {
		const dl_error *e = dl_error_last();
		snprintf(t->klass, sizeof t->klass, "%s", e->klass ? e->klass : "");
		snprintf(t->message, sizeof t->message, "%s", e->message ? e->message : "");
	}
	return 0;
}

static int shard_batch(shard_task *t)
{
	agg_par *p = t->p;
	agg_op *sh = p->sh[t->s];
	int64_t c = p->cnt[t->s];
	if (c == 0) return 0;
	DL_TRY(dl_exec_check_interrupt(&sh->ctx, "hash aggregate"));
	const uint32_t *sel = p->idx + p->off[t->s];
	dl_array **cols = dl_calloc((size_t)p->nraw, sizeof *cols);
	if (!cols) return dl_error_set(DL_ENOMEM, "out of memory");
	int rc = 0;
	for (int j = 0; j < p->nraw && rc == 0; j++)
		if (!(cols[j] = dl_array_take(t->cols[j], sel, c))) rc = dl_exec_failed();
	dl_batch *b = NULL;
	if (rc == 0) {
		b = dl_exec_batch(p->raw, cols, c); /* takes the columns */
		if (!b) rc = dl_exec_failed();
	} else {
		for (int j = 0; j < p->nraw; j++) dl_array_free(cols[j]);
	}
	dl_free(cols);
	if (rc == 0) {
		sh->rowpos = p->pos + p->off[t->s];
		sh->rowhash = p->hs + p->off[t->s];
		rc = agg_consume(sh, b);
		sh->rowpos = NULL;
		sh->rowhash = NULL;
	}
	dl_batch_free(b);
	return rc;
}

static int reserve(agg_par *p, int64_t n)
{
	if (n <= p->cap) return 0;
	uint64_t *h = dl_reallocarray(p->h, (size_t)n, sizeof *h);
	if (h) p->h = h;
	uint32_t *idx = h ? dl_reallocarray(p->idx, (size_t)n, sizeof *idx) : NULL;
	if (idx) p->idx = idx;
	int64_t *pos = idx ? dl_reallocarray(p->pos, (size_t)n, sizeof *pos) : NULL;
	if (pos) p->pos = pos;
	uint64_t *hs = pos ? dl_reallocarray(p->hs, (size_t)n, sizeof *hs) : NULL;
	if (!hs) return dl_error_set(DL_ENOMEM, "out of memory");
	p->hs = hs;
	p->cap = n;
	return 0;
}

int agg_par_consume(agg_op *a, dl_batch *b, dl_array *const *kc)
{
	agg_par *p = a->par;
	int64_t n = b->num_rows;
	if (n == 0) return 0;
	DL_TRY(reserve(p, n));
	dl_array **cols = dl_calloc((size_t)p->nraw, sizeof *cols);
	bool *owned = dl_calloc((size_t)p->nraw, sizeof *owned);
	int rc = cols && owned ? 0 : dl_error_set(DL_ENOMEM, "out of memory");
	int c = 0;
	for (; rc == 0 && c < a->nkeys; c++) cols[c] = kc[c];
	for (int k = 0; rc == 0 && k < a->naggs; k++)
		if (a->aggs[k].arg) {
			rc = agg_eval_borrow(&cols[c], &owned[c], a->aggs[k].arg, b, &a->ctx);
			c++;
		}
	if (rc == 0) dl_keys_hash(p->h, kc, a->nkeys, n);
	if (rc == 0 && !p->decided) {
		p->decided = true;
		if (!many_groups(p->h, n)) {
			/* few groups: the serial operator is faster than scattering */
			for (int j = 0; j < p->nraw; j++)
				if (owned[j]) dl_array_free(cols[j]);
			dl_free(cols);
			dl_free(owned);
			agg_par_free(a);
			return a->ctx.mem && a->ctx.mem->limit > 0 ? agg_spill_consume(a, b, kc) : agg_consume_mem(a, b, kc);
		}
		/* the shards hold the groups: the operator's own table and states go */
		agg_free_groups(a);
	}
	if (rc == 0) {
		/* a counting sort of the rows by shard, input order kept within */
		int64_t cnt[PAR_MAX_SHARDS] = {0};
		for (int64_t i = 0; i < n; i++) cnt[shard_of(p->h[i], p->n)]++;
		int64_t at[PAR_MAX_SHARDS];
		for (int64_t s = 0, o = 0; s < p->n; o += cnt[s], s++) {
			p->cnt[s] = cnt[s];
			p->off[s] = at[s] = o;
		}
		for (int64_t i = 0; i < n; i++) {
			int64_t j = at[shard_of(p->h[i], p->n)]++;
			p->idx[j] = (uint32_t)i;
			p->pos[j] = p->rows + i;
			p->hs[j] = p->h[i];
		}
		for (int s = 0; s < p->n; s++) p->task[s] = (shard_task){.p = p, .s = s, .cols = cols};
		if (n >= PAR_MIN_ROWS && !p->pool) rc = dl_pool_create(&p->pool, p->n - 1);
	}
	if (rc == 0) {
		int ran = p->n;
		if (n >= PAR_MIN_ROWS) {
			dl_waitgroup wg;
			dl_waitgroup_init(&wg);
			for (int s = 1; s < p->n && rc == 0; s++) {
				rc = dl_pool_submit(p->pool, &wg, run_shard, &p->task[s]);
				if (rc < 0) ran = s;
			}
			if (rc == 0) run_shard(&p->task[0]);
			/* always wait: the tasks borrow this batch's columns */
			dl_waitgroup_wait(&wg);
			dl_waitgroup_destroy(&wg);
		} else {
			for (int s = 0; s < p->n; s++) run_shard(&p->task[s]);
		}
		/* the first failing shard's error, whichever thread ran it */
		for (int s = 0; rc == 0 && s < ran; s++)
			if (p->task[s].rc < 0)
				rc = dl_error_set_class(p->task[s].rc, p->task[s].klass[0] ? p->task[s].klass : NULL, "%s",
				                        p->task[s].message);
	}
	for (int j = 0; cols && j < p->nraw; j++)
		if (owned[j]) dl_array_free(cols[j]);
	dl_free(cols);
	dl_free(owned);
	if (rc == 0) p->rows += n;
	return rc;
}

/* The output order: the shards' groups by the position of their first
 * row (within a shard ids already are in that order). */
static int merge(agg_par *p)
{
	int64_t total = 0, at[PAR_MAX_SHARDS] = {0};
	for (int s = 0; s < p->n; s++) total += p->sh[s]->ngroups;
	p->ord = dl_malloc((size_t)(total ? total : 1));
	if (!p->ord) return dl_error_set(DL_ENOMEM, "out of memory");
	const int64_t *f[PAR_MAX_SHARDS];
	int64_t ng[PAR_MAX_SHARDS];
	for (int s = 0; s < p->n; s++) {
		f[s] = p->sh[s]->first;
		ng[s] = p->sh[s]->ngroups;
	}
	for (int64_t r = 0; r < total; r++) {
		int best = -1;
		int64_t bp = INT64_MAX;
		for (int s = 0; s < p->n; s++)
			if (at[s] < ng[s] && f[s][at[s]] < bp) {
				best = s;
				bp = f[s][at[s]];
			}
		p->ord[r] = (uint8_t)best;
		at[best]++;
	}
	p->nord = total;
	p->merged = true;
	return 0;
}

/* Output groups [emitted, emitted+m): each shard's share, interleaved. */
static int emit(agg_op *a, agg_par *p, int64_t m, dl_batch **out)
{
	int ncols = a->nkeys + a->naggs, rc = 0;
	int64_t cnt[PAR_MAX_SHARDS] = {0};
	for (int64_t r = 0; r < m; r++) cnt[p->ord[p->emitted + r]]++;
	dl_array **part[PAR_MAX_SHARDS] = {0};
	dl_array **cols = dl_calloc((size_t)ncols, sizeof *cols);
	uint32_t *perm = dl_malloc((size_t)m * sizeof *perm);
	if (!cols || !perm) rc = dl_error_set(DL_ENOMEM, "out of memory");
	int used = 0, only = -1;
	for (int s = 0; s < p->n && rc == 0; s++) {
		if (!cnt[s]) continue;
		used++;
		only = s;
		if (!(part[s] = dl_calloc((size_t)ncols, sizeof *part[s]))) rc = dl_error_set(DL_ENOMEM, "out of memory");
		if (rc == 0) rc = agg_emit(p->sh[s], p->next_id[s], cnt[s], part[s]);
	}
	if (rc == 0 && used == 1) {
		memcpy(cols, part[only], (size_t)ncols * sizeof *cols);
		memset(part[only], 0, (size_t)ncols * sizeof *cols);
	} else if (rc == 0) {
		int64_t base[PAR_MAX_SHARDS], o = 0;
		for (int s = 0; s < p->n; s++) {
			base[s] = o;
			o += cnt[s];
		}
		for (int64_t r = 0; r < m; r++) perm[r] = (uint32_t)base[p->ord[p->emitted + r]]++;
		dl_array *pieces[PAR_MAX_SHARDS];
		for (int k = 0; k < ncols && rc == 0; k++) {
			int np = 0;
			for (int s = 0; s < p->n; s++)
				if (cnt[s]) pieces[np++] = part[s][k];
			dl_array *cat = dl_array_concat(pieces, np);
			if (cat && !(cols[k] = dl_array_take(cat, perm, m))) rc = dl_exec_failed();
			if (!cat) rc = dl_exec_failed();
			dl_array_free(cat);
		}
	}
	for (int s = 0; s < p->n; s++) {
		for (int k = 0; part[s] && k < ncols; k++) dl_array_free(part[s][k]);
		dl_free(part[s]);
	}
	dl_free(perm);
	if (rc == 0) {
		*out = dl_exec_batch(a->schema, cols, m);
		if (!*out) rc = dl_exec_failed();
	} else {
		for (int k = 0; cols && k < ncols; k++) dl_array_free(cols[k]);
	}
	dl_free(cols);
	if (rc < 0) return dl_error_prefix("hash aggregate");
	for (int s = 0; s < p->n; s++) p->next_id[s] += cnt[s];
	p->emitted += m;
	return 0;
}

int agg_par_next(agg_op *a, dl_batch **out)
{
	agg_par *p = a->par;
	*out = NULL;
	if (!p->merged) DL_TRY(merge(p));
	if (p->emitted < p->nord) {
		int64_t m = p->nord - p->emitted, max = dl_exec_batch_rows(&a->ctx);
		return emit(a, p, m < max ? m : max, out);
	}
	/* the in-memory groups are out: free them, then each shard's spilled
	 * partitions */
	for (; p->spill_shard < p->n; p->spill_shard++) {
		agg_op *sh = p->sh[p->spill_shard];
		if (!sh->parts.n) {
			agg_free_groups(sh);
			continue;
		}
		DL_TRY(agg_spill_next(sh, out));
		if (*out) {
			int rc = dl_batch_set_schema(*out, a->schema);
			if (rc < 0) {
				dl_batch_free(*out);
				*out = NULL;
			}
			return rc;
		}
	}
	return 0;
}
