/* The parallel probe of the hash join (join.h). Once the build side is in
 * memory it is only read, so left batches can probe it at once: the
 * operator reads one left batch per thread, each is probed whole by a task
 * (one on the calling thread, the others on a pool of the operator's own,
 * as the aggregate: the shared pool's workers decode the scan and may wait
 * for this very thread), and their outputs are queued in left-batch order.
 * Each task produces exactly the batches the serial probe produces for its
 * left batch - pairs in chunks of at most a batch's rows, in left-row and
 * chain order, then the batch's unmatched (left outer), matched (semi) or
 * unmatched (anti) rows - so the output is the serial output.
 *
 * Joins without a residual condition go parallel (a residual would
 * evaluate arbitrary expressions on the workers). A right or full outer
 * join also marks the build rows each task matches: those are the one
 * shared write, a byte set to 1 with a relaxed atomic store (tasks may
 * mark the same row; only ever 0 -> 1), read by the calling thread for
 * the unmatched build rows once every task of the last step was waited
 * for. The key table is probed through dl_keytab_find_with, which changes
 * nothing in it.
 *
 * Cancellation: the interrupt is checked before every left batch is read
 * and again in every task, and the tasks of a step are all waited for, so
 * a cancelled statement leaves the pool idle. */
#include <stdio.h>
#include <string.h>
#include "exec/join.h"
#include "util/pool.h"

#define JPAR_MAX 8
/* Steps with fewer rows run task after task on the calling thread. */
#define JPAR_MIN_ROWS 4096

typedef struct probe_task {
	join_op *j;
	dl_batch *b;       /* the left batch */
	dl_exec_queue q;   /* its output, in the serial order */
	int rc;            /* its failure, kept whole for the calling thread */
	char klass[64];
	char message[512];
} probe_task;

typedef struct join_par {
	int n;
	dl_pool *pool;     /* n - 1 workers, created on the first big step */
	probe_task t[JPAR_MAX];
} join_par;

int join_par_open(join_op *j)
{
	if (j->level != 0 || j->nkeys == 0 || j->residual || j->kind == DL_JOIN_CROSS) return 0;
	int n = j->ctx.threads > 0 ? j->ctx.threads : dl_default_threads();
	if (n > JPAR_MAX) n = JPAR_MAX;
	if (n < 2) return 0;
	join_par *p = dl_calloc(1, sizeof *p);
	if (!p) return dl_error_set(DL_ENOMEM, "out of memory");
	p->n = n;
	j->par = p;
	return 0;
}

static void task_clear(probe_task *t)
{
	dl_batch_free(t->b);
	t->b = NULL;
	dl_exec_queue_free(&t->q);
	memset(&t->q, 0, sizeof t->q);
}

void join_par_free(join_op *j)
{
	join_par *p = j->par;
	if (!p) return;
	dl_pool_free(p->pool); /* idle: every step waited for its tasks */
	for (int s = 0; s < p->n; s++) task_clear(&p->t[s]);
	dl_free(p);
	j->par = NULL;
}

/* Pairs ls/rs (np of them) of left batch b as an output batch. */
static int push_pairs(join_op *j, probe_task *t, const uint32_t *ls, const uint32_t *rs, int64_t np)
{
	dl_batch *pb = join_pair_batch(j, t->b, ls, rs, np, j->pair_schema);
	if (!pb) return dl_exec_failed();
	int rc = dl_batch_set_schema(pb, j->out_schema);
	if (rc < 0) {
		dl_batch_free(pb);
		return rc;
	}
	return dl_exec_queue_push(&t->q, pb);
}

/* The serial probe (start_left, probe_chunk, finish_left) of one batch. */
static int probe_batch(probe_task *t)
{
	join_op *j = t->j;
	dl_batch *b = t->b;
	int64_t n = b->num_rows, max = dl_exec_batch_rows(&j->ctx);
	DL_TRY(dl_exec_check_interrupt(&j->ctx, "hash join"));
	dl_array **keys = dl_calloc((size_t)j->nkeys, sizeof *keys);
	bool *owned = dl_calloc((size_t)j->nkeys, sizeof *owned);
	uint32_t *kid = dl_malloc((size_t)(n ? n : 1) * sizeof *kid);
	uint64_t *h = dl_malloc((size_t)(n ? n : 1) * sizeof *h);
	uint8_t *matched = dl_calloc((size_t)(n ? n : 1), 1);
	uint32_t *ls = dl_malloc((size_t)max * sizeof *ls), *rs = dl_malloc((size_t)max * sizeof *rs);
	dl_selection sel = {0};
	int rc = keys && owned && kid && h && matched && ls && rs ? 0 : dl_error_set(DL_ENOMEM, "out of memory");
	for (int k = 0; rc == 0 && k < j->nkeys; k++) {
		int c = dl_exec_column_ref(j->lk[k], b);
		if (c >= 0) {
			keys[k] = b->cols[c];
		} else {
			owned[k] = true;
			rc = dl_expr_eval(&keys[k], j->lk[k], b, &j->ctx.eval);
		}
	}
	if (rc == 0) dl_keytab_find_with(j->kt, keys, n, kid, h);
	if (rc == 0 && (rc = join_usable_rows(j, keys, n, &sel)) == 0) {
		/* a NULL under = matches nothing */
		for (int64_t s = 0; s < sel.count; s++) matched[sel.idx[s]] = 1;
		for (int64_t i = 0; i < n; i++) {
			if (!matched[i]) kid[i] = DL_KEYTAB_NONE;
			matched[i] = 0;
		}
	}
	int64_t li = 0, cursor = -2;
	while (rc == 0 && li < n) {
		int64_t np = 0;
		while (li < n && np < max) {
			if (cursor == -2) cursor = kid[li] == DL_KEYTAB_NONE ? -1 : j->head[kid[li]];
			/* semi/anti: one match decides the row */
			if (left_only(j) && cursor >= 0) {
				matched[li] = 1;
				cursor = -1;
			}
			while (cursor >= 0 && np < max) {
				ls[np] = (uint32_t)li;
				rs[np++] = (uint32_t)cursor;
				cursor = j->next[cursor];
			}
			if (cursor < 0) {
				li++;
				cursor = -2;
			}
		}
		for (int64_t m = 0; m < np; m++) matched[ls[m]] = 1;
		if (outer_right(j))
			for (int64_t m = 0; m < np; m++) __atomic_store_n(&j->build_matched[rs[m]], 1, __ATOMIC_RELAXED);
		if (np > 0 && !left_only(j)) rc = push_pairs(j, t, ls, rs, np);
	}
	if (rc == 0 && (outer_left(j) || left_only(j))) {
		bool want = j->kind == DL_JOIN_SEMI;
		rc = dl_selection_reserve(&sel, n);
		sel.count = 0;
		for (int64_t i = 0; rc == 0 && i < n; i++)
			if ((matched[i] != 0) == want) sel.idx[sel.count++] = (uint32_t)i;
		if (rc == 0 && sel.count > 0) {
			dl_batch *ob = join_pair_batch(j, b, sel.idx, NULL, sel.count, j->out_schema);
			rc = ob ? dl_exec_queue_push(&t->q, ob) : dl_exec_failed();
		}
	}
	for (int k = 0; keys && k < j->nkeys; k++)
		if (owned[k]) dl_array_free(keys[k]);
	dl_free(keys);
	dl_free(owned);
	dl_free(kid);
	dl_free(h);
	dl_free(matched);
	dl_free(ls);
	dl_free(rs);
	dl_selection_free(&sel);
	return rc;
}

/* On any thread: the failure is kept in the task. */
static int run_probe(void *arg)
{
	probe_task *t = arg;
	t->rc = probe_batch(t);
	if (t->rc < 0) {
		const dl_error *e = dl_error_last();
		snprintf(t->klass, sizeof t->klass, "%s", e->klass ? e->klass : "");
		snprintf(t->message, sizeof t->message, "%s", e->message ? e->message : "");
	}
	return 0;
}

int join_par_step(join_op *j)
{
	join_par *p = j->par;
	int m = 0, rc = 0;
	int64_t rows = 0;
	while (m < p->n && rc == 0) {
		dl_batch *b;
		if ((rc = dl_exec_check_interrupt(&j->ctx, "hash join")) < 0) break;
		if ((rc = dl_batch_stream_next(j->left, &b)) < 0) break;
		if (!b) {
			j->left_done = true;
			break;
		}
		p->t[m] = (probe_task){.j = j, .b = b};
		rows += b->num_rows;
		m++;
	}
	int ran = m;
	if (rc == 0 && m > 1 && rows >= JPAR_MIN_ROWS && !p->pool) rc = dl_pool_create(&p->pool, p->n - 1);
	if (rc == 0 && m > 1 && rows >= JPAR_MIN_ROWS) {
		dl_waitgroup wg;
		dl_waitgroup_init(&wg);
		for (int s = 1; s < m && rc == 0; s++) {
			rc = dl_pool_submit(p->pool, &wg, run_probe, &p->t[s]);
			if (rc < 0) ran = s;
		}
		if (rc == 0) run_probe(&p->t[0]);
		dl_waitgroup_wait(&wg); /* always: the tasks use the build side */
		dl_waitgroup_destroy(&wg);
	} else if (rc == 0) {
		for (int s = 0; s < m; s++) run_probe(&p->t[s]);
	}
	/* the first failing batch's error, whichever thread ran it */
	for (int s = 0; rc == 0 && s < ran; s++)
		if (p->t[s].rc < 0)
			rc = dl_error_set_class(p->t[s].rc, p->t[s].klass[0] ? p->t[s].klass : NULL, "%s", p->t[s].message);
	for (int s = 0; s < m; s++) {
		dl_batch *ob;
		while (rc == 0 && (ob = dl_exec_queue_pop(&p->t[s].q))) rc = dl_exec_queue_push(&j->q, ob);
		task_clear(&p->t[s]);
	}
	return rc;
}
