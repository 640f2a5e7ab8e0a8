/* The Parquet files of a checkpoint (its parts, or the sidecars of a v2
 * checkpoint) decoded ahead on the shared pool while the replaying thread
 * offers their actions.
 *
 * Offering must stay on one thread and in file order: it builds actions in
 * the replay's arena and probes the seen-set, and the snapshot's file order
 * is the checkpoint's. Decoding (reading the footer, planning each row
 * group's columns, decompressing and assembling the batches) needs nothing
 * of the replay, and is about half of a checkpoint load's work. So pool
 * workers claim files in order and decode their batches into the file's
 * queue, and this thread drains file after file: with one file, decoding
 * and offering overlap; with several, files decode side by side as well.
 *
 * Memory is bounded: a worker waits while MAX_QUEUED batches are waiting,
 * unless its file is the one being offered and its queue is empty (the
 * offering needs that batch to move on), so at most MAX_QUEUED + workers
 * batches of CP_BATCH_ROWS rows exist at once. A file no worker claimed
 * within a few milliseconds (the pool is busy elsewhere, or this thread is
 * itself the pool's only worker) is read here, so the load cannot deadlock.
 * With one pool thread (DL_THREADS=1) the files are read here one after
 * the other, as before, so one thread means one thread. */
#include <stdio.h>
#include <string.h>
#include <time.h>
#include "columnar/array.h"
#include "log/checkpoint_read.h"
#include "util/error.h"
#include "util/mem.h"
#include "util/pool.h"

#define MAX_QUEUED 4
#define UNCLAIMED_WAIT_MS 5

typedef struct anode {
	dl_batch *b;
	int64_t first;
	struct anode *next;
} anode;

typedef struct afile {
	const char *path;
	bool claimed, done;
	anode *head, *tail;
	int err;
	char *msg;
} afile;

typedef struct ahead {
	dl_store *store;
	bool meta_only, lists;
	afile *files;
	size_t n;
	size_t cur;   /* the file being offered */
	size_t claim; /* the first file no one claimed */
	int queued;
	bool cancel;
	pthread_mutex_t mu;
	pthread_cond_t consumer_cv, producer_cv;
	dl_waitgroup wg;
} ahead;

static void finish(ahead *q, afile *f, int rc)
{
	char *msg = rc < 0 ? dl_strdup(dl_error_last()->message) : NULL;
	pthread_mutex_lock(&q->mu);
	f->done = true;
	f->err = rc < 0 ? rc : 0;
	f->msg = msg;
	pthread_cond_broadcast(&q->consumer_cv);
	pthread_mutex_unlock(&q->mu);
}

/* Decodes file i into its queue (a worker). */
static void decode_file(ahead *q, size_t i)
{
	afile *f = &q->files[i];
	dl_cp_file cf;
	int rc = dl_cp_file_open(&cf, q->store, f->path, q->meta_only, q->lists);
	if (rc < 0) {
		finish(q, f, rc);
		return;
	}
	for (;;) {
		dl_batch *b;
		int64_t first;
		rc = dl_cp_file_next(&cf, &b, &first);
		if (rc < 0 || !b) break;
		anode *nd = dl_malloc(sizeof *nd);
		if (!nd) {
			dl_batch_free(b);
			rc = dl_error_set(DL_ENOMEM, "out of memory reading checkpoint %s", f->path);
			break;
		}
		nd->b = b;
		nd->first = first;
		nd->next = NULL;
		pthread_mutex_lock(&q->mu);
		while (!q->cancel && q->queued >= MAX_QUEUED && !(i == q->cur && !f->head))
			pthread_cond_wait(&q->producer_cv, &q->mu);
		bool stop = q->cancel;
		if (!stop) {
			if (f->tail) f->tail->next = nd;
			else f->head = nd;
			f->tail = nd;
			q->queued++;
			pthread_cond_broadcast(&q->consumer_cv);
		}
		pthread_mutex_unlock(&q->mu);
		if (stop) {
			dl_batch_free(b);
			dl_free(nd);
			break;
		}
	}
	dl_cp_file_close(&cf);
	finish(q, f, rc);
}

static int worker(void *arg)
{
	ahead *q = arg;
	for (;;) {
		pthread_mutex_lock(&q->mu);
		size_t i = q->claim;
		bool take = !q->cancel && i < q->n;
		if (take) {
			q->files[i].claimed = true;
			q->claim++;
		}
		pthread_mutex_unlock(&q->mu);
		if (!take) return 0;
		decode_file(q, i);
	}
}

static int64_t now_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* Waits on the consumer's condition for at most a millisecond (while the
 * file is unclaimed, so that a file no worker takes is noticed). */
static void wait_a_little(ahead *q)
{
	struct timespec ts;
	clock_gettime(CLOCK_REALTIME, &ts);
	ts.tv_nsec += 1000000L;
	if (ts.tv_nsec >= 1000000000L) {
		ts.tv_sec++;
		ts.tv_nsec -= 1000000000L;
	}
	pthread_cond_timedwait(&q->consumer_cv, &q->mu, &ts);
}

/* Offers the files in order as their batches arrive. */
static int consume(ahead *q, dl_replayer *r)
{
	int64_t unclaimed_since = -1;
	pthread_mutex_lock(&q->mu);
	while (q->cur < q->n) {
		afile *f = &q->files[q->cur];
		if (f->head) {
			anode *nd = f->head;
			f->head = nd->next;
			if (!f->head) f->tail = NULL;
			q->queued--;
			pthread_cond_broadcast(&q->producer_cv);
			pthread_mutex_unlock(&q->mu);
			int rc = dl_cp_offer_batch(r, f->path, nd->b, nd->first);
			dl_batch_free(nd->b);
			dl_free(nd);
			if (rc < 0) return rc;
			pthread_mutex_lock(&q->mu);
			continue;
		}
		if (f->done) {
			if (f->err) {
				int err = f->err;
				pthread_mutex_unlock(&q->mu);
				return dl_error_set(err, "%s", f->msg ? f->msg : "reading a checkpoint file failed");
			}
			q->cur++;
			unclaimed_since = -1;
			pthread_cond_broadcast(&q->producer_cv);
			continue;
		}
		if (f->claimed) {
			pthread_cond_wait(&q->consumer_cv, &q->mu);
			continue;
		}
		{
			int64_t t = now_ms();
			if (unclaimed_since < 0) unclaimed_since = t;
			else if (t - unclaimed_since >= UNCLAIMED_WAIT_MS) {
				/* no worker came: read it here, offering as it decodes */
				f->claimed = true;
				q->claim++;
				pthread_mutex_unlock(&q->mu);
				int rc = dl_checkpoint_read_parquet(r, q->store, f->path);
				pthread_mutex_lock(&q->mu);
				f->done = true;
				if (rc < 0) {
					pthread_mutex_unlock(&q->mu);
					return rc;
				}
				continue;
			}
		}
		wait_a_little(q);
	}
	pthread_mutex_unlock(&q->mu);
	return 0;
}

int dl_checkpoint_read_files(dl_replayer *r, dl_store *store, const char *const *paths, size_t n)
{
	dl_pool *pool = NULL;
	if (n == 0) return 0;
	if (dl_default_threads() < 2 || dl_pool_shared(&pool) < 0 || dl_pool_size(pool) < 2) {
		dl_error_clear();
		for (size_t i = 0; i < n; i++) DL_TRY(dl_checkpoint_read_parquet(r, store, paths[i]));
		return 0;
	}
	ahead q = {.store = store, .meta_only = dl_replay_metadata_only(r),
	           .lists = dl_replay_wants_txns_domains(r), .n = n};
	q.files = dl_calloc(n, sizeof *q.files);
	if (!q.files) return dl_error_set(DL_ENOMEM, "out of memory reading a checkpoint");
	for (size_t i = 0; i < n; i++) q.files[i].path = paths[i];
	pthread_mutex_init(&q.mu, NULL);
	pthread_cond_init(&q.consumer_cv, NULL);
	pthread_cond_init(&q.producer_cv, NULL);
	dl_waitgroup_init(&q.wg);
	/* As many workers as files, up to the pool's threads: a queued worker
	 * task left over could be run by a thread helping in a nested wait and
	 * block there. */
	size_t workers = (size_t)dl_pool_size(pool) < n ? (size_t)dl_pool_size(pool) : n;
	for (size_t i = 0; i < workers; i++)
		if (dl_pool_submit(pool, &q.wg, worker, &q) < 0) break; /* fewer is still correct */
	dl_error_clear();
	int rc = consume(&q, r);
	char msg[512] = "";
	if (rc < 0) snprintf(msg, sizeof msg, "%s", dl_error_last()->message);
	pthread_mutex_lock(&q.mu);
	q.cancel = true;
	pthread_cond_broadcast(&q.producer_cv);
	pthread_mutex_unlock(&q.mu);
	dl_waitgroup_wait(&q.wg);
	dl_waitgroup_destroy(&q.wg);
	for (size_t i = 0; i < n; i++) {
		for (anode *nd = q.files[i].head; nd;) {
			anode *next = nd->next;
			dl_batch_free(nd->b);
			dl_free(nd);
			nd = next;
		}
		dl_free(q.files[i].msg);
	}
	dl_free(q.files);
	pthread_cond_destroy(&q.consumer_cv);
	pthread_cond_destroy(&q.producer_cv);
	pthread_mutex_destroy(&q.mu);
	if (rc < 0) return dl_error_set(rc, "%s", msg);
	dl_error_clear();
	return 0;
}
