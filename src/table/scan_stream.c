/* The batches of a scan as a dl_batch_stream, decoded in parallel.
 *
 * The work is cut into units: a file, or a part of a large one (a run of
 * its row groups, see dl_scan_read_file_parts), so that one big file's row
 * groups decode on every thread. Units form a list in output order: file
 * order, and inside a file row-group order. A file starts as one unit;
 * the worker that opens it and plans its row groups links the parts
 * beyond the first in right after it (split), and any worker may take
 * them. Worker tasks on the thread pool claim the first unclaimed unit and
 * push its batches into the unit's queue; the consumer drains unit after
 * unit, so batches come out in the same order whatever the threads, the
 * same as at one thread. Memory is bounded: a worker whose unit is not
 * the one being consumed waits while max_queued batches are waiting and,
 * unless the caller set max_queued_batches, they take max_queued_bytes
 * (32 MiB) or more. The worker of the current unit never waits (the
 * consumer needs its batches to make progress), so at most the larger of
 * max_queued batches and 32 MiB, plus a batch a thread, exist at once,
 * however large the file. The allowance in bytes is for narrow batches:
 * with two columns of 64k rows a batch is ~1 MB, six of them a few
 * milliseconds of one worker's decoding, and the worker ahead of the one
 * the consumer reads (one large file: the next row group) stood idle for
 * most of its row group, helping with one leaf of the other's batches
 * (bench_scan --files 1 --case b: 38 ms -> 31 ms at 2 threads).
 *
 * A worker that waits (its unit ahead of the consumer with the queue full,
 * or no unit left to claim while others are read) helps instead: the
 * leaf columns of each batch are decoded through help_for, which offers
 * them to the waiting workers of this stream, so the worker the consumer
 * waits for is not left alone with its part while the others idle (one
 * large file: the worker ahead fills the queue in a few batches of the
 * next part). Helping makes no batch, so the bound holds; helpers only
 * decode leaves, which never wait, so helping cannot deadlock. */
#include <stdio.h>
#include <string.h>
#include <time.h>
#include "table/scan.h"
#include "util/error.h"
#include "util/mem.h"
#include "util/pool.h"

typedef struct qnode {
	dl_batch *b;
	int64_t bytes;     /* dl_batch_bytes(b), counted in queued_bytes */
	struct qnode *next;
} qnode;

/* The leaf columns of one batch being decoded, offered to waiting workers. */
typedef struct help_job {
	struct help_job *next;
	int (*fn)(void *ctx, size_t begin, size_t end);
	void *ctx;
	size_t n;
	size_t next_leaf;   /* the next leaf to take (atomic) */
	int helpers;        /* workers running its leaves (under the lock) */
	int rc;             /* the first failure (atomic) */
	char msg[512];      /* ... its message, written by whoever failed first */
} help_job;

typedef struct unit {
	struct unit *next;          /* in output order */
	size_t file;
	int part;                   /* 0: the file (its first part, once split) */
	dl_scan_file_parts *parts;  /* part > 0: the split file's shared state, until read */
	bool claimed, done;
	bool deciding;              /* a file unit not yet split (or not) */
	bool file_last;             /* consuming it finishes its file */
	qnode *head, *tail;
	int err;
	char *msg;
} unit;

typedef struct sstream {
	dl_scan *s;
	pthread_mutex_t mu;
	pthread_cond_t consumer_cv, producer_cv;
	unit *units;      /* one per file, the list's file units */
	unit *cur;        /* being consumed; NULL at the end */
	unit *claim;      /* the first unclaimed unit; NULL: none */
	int deciding;     /* file units claimed that may still add parts */
	bool split_ok;    /* more than one thread: cut large files into parts */
	int queued;
	int max_queued;
	int64_t queued_bytes;     /* of the queued batches */
	int64_t max_queued_bytes; /* more batches may queue while under it; 0: none */
	bool cancel;
	bool started;
	dl_waitgroup wg;
	int reading;      /* units claimed, not yet read to their end */
	help_job *jobs;   /* batches whose leaves may be helped with */
	pthread_cond_t help_cv; /* a job's last helper left */
	unit *unclaimed_unit;    /* the unit seen unclaimed, since when (ms) */
	int64_t unclaimed_since;
	size_t files_done;       /* files consumed to their end (progress) */
	int64_t rows_out;        /* rows handed to the consumer (progress) */
	bool end_reported;       /* the progress of the last file was reported */
	bool callback_cancelled; /* the progress callback asked to stop */
} sstream;

typedef struct emit_ctx {
	sstream *q;
	unit *u;
} emit_ctx;

/* Runs leaves of j until none is left to take; how many it ran. */
static int64_t run_job(help_job *j)
{
	for (int64_t ran = 0;; ran++) {
		size_t i = __atomic_fetch_add(&j->next_leaf, 1, __ATOMIC_RELAXED);
		if (i >= j->n) return ran;
		if (__atomic_load_n(&j->rc, __ATOMIC_RELAXED)) continue; /* failed: the rest is skipped */
		int rc = j->fn(j->ctx, i, i + 1);
		int zero = 0;
		if (rc < 0 && __atomic_compare_exchange_n(&j->rc, &zero, rc, false, __ATOMIC_ACQ_REL, __ATOMIC_RELAXED))
			snprintf(j->msg, sizeof j->msg, "%s", dl_error_last()->message);
	}
}

/* Under the lock: helps with a job that has leaves left, if any (the lock
 * is released meanwhile); false when there was none. */
static bool help_one(sstream *q)
{
	help_job *j = q->jobs;
	while (j && __atomic_load_n(&j->next_leaf, __ATOMIC_RELAXED) >= j->n) j = j->next;
	if (!j) return false;
	j->helpers++;
	pthread_mutex_unlock(&q->mu);
	int64_t ran = run_job(j);
	if (ran) __atomic_add_fetch(&q->s->leaves_helped, ran, __ATOMIC_RELAXED);
	pthread_mutex_lock(&q->mu);
	if (--j->helpers == 0) pthread_cond_broadcast(&q->help_cv);
	return true;
}

/* The readers' pq_reader_set_parallel: the n leaves of a batch, decoded
 * here and by the workers that wait meanwhile. Offered even when none
 * waits yet: a worker that starts waiting while this one decodes the
 * first leaves takes the later ones. */
static int help_for(void *payload, size_t n, int (*fn)(void *ctx, size_t begin, size_t end), void *ctx)
{
	emit_ctx *e = payload;
	sstream *q = e->q;
	if (n < 2) return fn(ctx, 0, n);
	help_job j;
	memset(&j, 0, sizeof j);
	j.fn = fn;
	j.ctx = ctx;
	j.n = n;
	pthread_mutex_lock(&q->mu);
	j.next = q->jobs;
	q->jobs = &j;
	pthread_cond_broadcast(&q->producer_cv);
	pthread_mutex_unlock(&q->mu);
	run_job(&j);
	pthread_mutex_lock(&q->mu);
	help_job **pp = &q->jobs;
	while (*pp != &j) pp = &(*pp)->next;
	*pp = j.next;
	while (j.helpers > 0) pthread_cond_wait(&q->help_cv, &q->mu);
	pthread_mutex_unlock(&q->mu);
	if (j.rc < 0) return dl_error_set(j.rc, "%s", j.msg);
	return 0;
}

static int emit(void *payload, dl_batch *b)
{
	emit_ctx *e = payload;
	sstream *q = e->q;
	qnode *n = dl_malloc(sizeof *n);
	if (!n) {
		dl_batch_free(b);
		return DL_ENOMEM;
	}
	n->b = b;
	n->bytes = dl_batch_bytes(b);
	n->next = NULL;
	pthread_mutex_lock(&q->mu);
	while (!q->cancel && q->queued >= q->max_queued && q->queued_bytes + n->bytes > q->max_queued_bytes &&
	       e->u != q->cur)
		if (!help_one(q)) pthread_cond_wait(&q->producer_cv, &q->mu);
	if (q->cancel) {
		pthread_mutex_unlock(&q->mu);
		dl_batch_free(b);
		dl_free(n);
		return DL_ECANCELLED;
	}
	unit *u = e->u;
	if (u->tail) u->tail->next = n;
	else u->head = n;
	u->tail = n;
	q->queued++;
	q->queued_bytes += n->bytes;
	pthread_cond_signal(&q->consumer_cv);
	pthread_mutex_unlock(&q->mu);
	return 0;
}

/* Whether unit a comes before unit b in output order. */
static bool before(const unit *a, const unit *b)
{
	return a->file < b->file || (a->file == b->file && a->part < b->part);
}

/* Links parts 1..nparts-1 of the file of e->u in after it. */
static int split(void *payload, dl_scan_file_parts *fp, int nparts)
{
	emit_ctx *e = payload;
	sstream *q = e->q;
	unit *u = e->u, *first = NULL, *last = NULL;
	int rc = 0;
	for (int k = 1; k < nparts; k++) {
		unit *x = dl_calloc(1, sizeof *x);
		if (!x) {
			while (first) {
				unit *next = first->next;
				dl_free(first);
				first = next;
			}
			rc = DL_ENOMEM; /* the caller reads every part itself */
			break;
		}
		x->file = u->file;
		x->part = k;
		x->parts = fp;
		if (last) last->next = x;
		else first = x;
		last = x;
	}
	if (first) {
		dl_scan_file_parts_ref(fp, nparts - 1);
		__atomic_add_fetch(&q->s->parts_split, (int64_t)nparts - 1, __ATOMIC_RELAXED);
	}
	pthread_mutex_lock(&q->mu);
	if (first) {
		last->next = u->next;
		u->next = first;
		last->file_last = u->file_last;
		u->file_last = false;
		/* u is claimed, so every unit between it and the old first
		 * unclaimed one is too: the new parts are unclaimed, and first
		 * unless the first unclaimed comes before u */
		if (!q->claim || before(first, q->claim)) q->claim = first;
	}
	u->deciding = false;
	q->deciding--;
	pthread_cond_broadcast(&q->producer_cv);
	pthread_mutex_unlock(&q->mu);
	return rc;
}

/* The first unclaimed unit, now claimed (NULL: none); under the lock. */
static unit *claim_unit(sstream *q)
{
	unit *u = q->claim;
	if (!u) return NULL;
	u->claimed = true;
	if (u->part == 0) {
		u->deciding = true;
		q->deciding++;
	}
	unit *c = u->next;
	while (c && c->claimed) c = c->next;
	q->claim = c;
	q->reading++;
	return u;
}

/* Reads a claimed unit into its queue (on a worker, or on the consumer's
 * thread when no worker took it). */
static void read_unit(sstream *q, unit *u)
{
	emit_ctx e = {q, u};
	int rc;
	if (u->part > 0) {
		rc = dl_scan_read_part(u->parts, u->part, help_for, emit, &e);
	} else if (q->split_ok) {
		rc = dl_scan_read_file_parts(q->s, u->file, split, help_for, emit, &e);
	} else {
		rc = dl_scan_read_file_parts(q->s, u->file, NULL, NULL, emit, &e);
	}
	char *msg = rc < 0 && rc != DL_ECANCELLED ? dl_strdup(dl_error_last()->message) : NULL;
	/* the DV and plan of the file go with its last part read */
	dl_scan_file_parts *done_parts = u->parts;
	pthread_mutex_lock(&q->mu);
	u->parts = NULL;
	if (u->deciding) {
		u->deciding = false;
		q->deciding--;
		pthread_cond_broadcast(&q->producer_cv);
	}
	u->done = true;
	/* the last unit read: workers left waiting to help can stop */
	if (--q->reading == 0) pthread_cond_broadcast(&q->producer_cv);
	if (rc < 0 && rc != DL_ECANCELLED) {
		u->err = rc;
		u->msg = msg;
	} else {
		dl_free(msg);
	}
	pthread_cond_signal(&q->consumer_cv);
	pthread_mutex_unlock(&q->mu);
	dl_scan_file_parts_unref(done_parts);
}

static int worker(void *arg)
{
	sstream *q = arg;
	for (;;) {
		pthread_mutex_lock(&q->mu);
		unit *u = NULL;
		/* nothing to claim yet while a file being opened may add parts;
		 * nothing left: help the workers still reading */
		while (!q->cancel && !(u = claim_unit(q)) && (q->deciding > 0 || q->reading > 0))
			if (!help_one(q)) pthread_cond_wait(&q->producer_cv, &q->mu);
		pthread_mutex_unlock(&q->mu);
		if (!u) return 0;
		read_unit(q, u);
	}
}

static int start(sstream *q)
{
	q->started = true;
	if (q->s->nfiles == 0) return 0;
	dl_pool *pool;
	DL_TRY(dl_pool_shared(&pool));
	int n = q->s->threads > 0 ? q->s->threads : dl_pool_size(pool);
	/* one thread: the file order is the only order; nothing to share */
	q->split_ok = n > 1;
	/* Fewer files than threads: the workers beyond them wait for parts.
	 * Never more workers than pool threads, though: a worker task left
	 * queued could be run by a thread helping in a nested wait (the
	 * column decoding of a batch), and block there on the queue of
	 * batches that thread's own unit must fill. */
	if ((size_t)n > q->s->nfiles) {
		int cap = q->split_ok ? dl_pool_size(pool) : (int)q->s->nfiles;
		if (cap < (int)q->s->nfiles) cap = (int)q->s->nfiles;
		if (n > cap) n = cap;
	}
	for (int i = 0; i < n; i++) {
		int rc = dl_pool_submit(pool, &q->wg, worker, q);
		if (rc < 0) {
			if (i == 0) return rc;
			break; /* fewer workers is still correct */
		}
	}
	return 0;
}

/* Waits for a batch or a finished unit, at most 20 ms (so that an
 * unclaimed unit is noticed). */
static void wait_a_little(sstream *q)
{
	struct timespec ts;
	clock_gettime(CLOCK_REALTIME, &ts);
	ts.tv_nsec += 20 * 1000000L;
	if (ts.tv_nsec >= 1000000000L) {
		ts.tv_sec++;
		ts.tv_nsec -= 1000000000L;
	}
	pthread_cond_timedwait(&q->consumer_cv, &q->mu, &ts);
}

/* True once the current unit has waited unclaimed for 100 ms. */
static bool unclaimed_too_long(sstream *q)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	int64_t now = (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
	if (q->unclaimed_unit != q->cur || q->unclaimed_since == 0) {
		q->unclaimed_unit = q->cur;
		q->unclaimed_since = now;
		return false;
	}
	return now - q->unclaimed_since >= 100;
}

static const dl_type *stream_schema(dl_batch_stream *bs)
{
	sstream *q = bs->private_data;
	return q->s->out_schema;
}

/* Tells the scan's progress callback (on the consumer's thread, outside
 * the lock) how many files are read to their end; non-zero from it stops
 * the workers and ends the stream with DL_ECANCELLED. */
static int report_progress(sstream *q, size_t files_done)
{
	dl_scan *s = q->s;
	if (!s->progress) return 0;
	dl_progress_info p = {"scan", "reading", "files", (int64_t)files_done, (int64_t)s->nfiles,
	                      q->rows_out, -1};
	if (s->progress(&p, s->progress_payload) == 0) return 0;
	pthread_mutex_lock(&q->mu);
	q->callback_cancelled = true;
	q->cancel = true;
	pthread_cond_broadcast(&q->producer_cv);
	pthread_mutex_unlock(&q->mu);
	return dl_error_set(DL_ECANCELLED, "scan cancelled by the progress callback after %zu of %zu files",
	                    files_done, s->nfiles);
}

static int stream_next_batch(sstream *q, dl_batch **out);

static int stream_next(dl_batch_stream *bs, dl_batch **out)
{
	sstream *q = bs->private_data;
	*out = NULL;
	if (q->callback_cancelled)
		return dl_error_set(DL_ECANCELLED, "scan cancelled by the progress callback");
	DL_TRY(stream_next_batch(q, out));
	if (!q->s->progress || (!*out && q->end_reported)) return 0;
	pthread_mutex_lock(&q->mu);
	size_t files_done = q->files_done;
	pthread_mutex_unlock(&q->mu);
	if (*out) q->rows_out += (*out)->num_rows;
	else q->end_reported = true;
	int rc = report_progress(q, files_done);
	if (rc < 0) {
		dl_batch_free(*out);
		*out = NULL;
	}
	return rc;
}

static int stream_next_batch(sstream *q, dl_batch **out)
{
	if (!q->started) DL_TRY(start(q));
	pthread_mutex_lock(&q->mu);
	for (;;) {
		unit *u = q->cur;
		if (!u) break;
		if (u->head) {
			qnode *n = u->head;
			u->head = n->next;
			if (!u->head) u->tail = NULL;
			q->queued--;
			q->queued_bytes -= n->bytes;
			*out = n->b;
			dl_free(n);
			pthread_cond_broadcast(&q->producer_cv);
			break;
		}
		if (u->done) {
			if (u->err) {
				int err = u->err;
				pthread_mutex_unlock(&q->mu);
				return dl_error_set(err, "%s", u->msg ? u->msg : "reading a data file failed");
			}
			if (u->file_last) q->files_done++;
			q->cur = u->next;
			pthread_cond_broadcast(&q->producer_cv);
			continue;
		}
		if (q->claim == u && unclaimed_too_long(q)) {
			/* No pool thread took the unit we need (the pool is busy, or
			 * this thread is itself the pool's only worker): read it here
			 * so the scan cannot deadlock. Its batches then wait in the
			 * unit until this call returns, which costs memory but only
			 * in this fallback. */
			claim_unit(q);
			pthread_mutex_unlock(&q->mu);
			read_unit(q, u);
			pthread_mutex_lock(&q->mu);
			continue;
		}
		wait_a_little(q);
	}
	pthread_mutex_unlock(&q->mu);
	return 0;
}

static void stream_release(dl_batch_stream *bs)
{
	if (!bs) return;
	sstream *q = bs->private_data;
	pthread_mutex_lock(&q->mu);
	q->cancel = true;
	pthread_cond_broadcast(&q->producer_cv);
	pthread_mutex_unlock(&q->mu);
	dl_waitgroup_wait(&q->wg);
	dl_waitgroup_destroy(&q->wg);
	for (unit *u = q->s->nfiles ? &q->units[0] : NULL; u;) {
		unit *next = u->next;
		for (qnode *n = u->head; n;) {
			qnode *nn = n->next;
			dl_batch_free(n->b);
			dl_free(n);
			n = nn;
		}
		dl_free(u->msg);
		dl_scan_file_parts_unref(u->parts); /* a part never read */
		if (u->part > 0) dl_free(u);
		u = next;
	}
	dl_free(q->units);
	pthread_cond_destroy(&q->consumer_cv);
	pthread_cond_destroy(&q->producer_cv);
	pthread_cond_destroy(&q->help_cv);
	pthread_mutex_destroy(&q->mu);
	dl_free(q);
	dl_free(bs);
}

int dl_scan_batches(dl_batch_stream **out, dl_scan *s)
{
	*out = NULL;
	dl_batch_stream *bs = dl_calloc(1, sizeof *bs);
	sstream *q = dl_calloc(1, sizeof *q);
	unit *units = dl_calloc(s->nfiles ? s->nfiles : 1, sizeof *units);
	if (!bs || !q || !units) {
		dl_free(bs);
		dl_free(q);
		dl_free(units);
		return DL_ENOMEM;
	}
	for (size_t i = 0; i < s->nfiles; i++) {
		units[i].file = i;
		units[i].file_last = true;
		units[i].next = i + 1 < s->nfiles ? &units[i + 1] : NULL;
	}
	q->s = s;
	q->units = units;
	q->cur = q->claim = s->nfiles ? &units[0] : NULL;
	q->max_queued = s->max_queued;
	q->max_queued_bytes = s->max_queued_bytes;
	pthread_mutex_init(&q->mu, NULL);
	pthread_cond_init(&q->consumer_cv, NULL);
	pthread_cond_init(&q->producer_cv, NULL);
	pthread_cond_init(&q->help_cv, NULL);
	dl_waitgroup_init(&q->wg);
	bs->schema = stream_schema;
	bs->next = stream_next;
	bs->release = stream_release;
	bs->private_data = q;
	*out = bs;
	return 0;
}
