/* The batches of a scan as a dl_batch_stream, decoded in parallel.
 *
 * Worker tasks on the thread pool claim files in order and push their
 * batches into that file's slot; the consumer drains slot after slot, so
 * batches come out in file order whatever the decoding order. Memory is
 * bounded: a worker whose file is not the one being consumed waits while
 * max_queued batches are waiting. The worker of the current file never
 * waits (the consumer needs its batches to make progress), so at most
 * max_queued + threads batches exist at once. */
#include <string.h>
#include <time.h>
#include "table/scan.h"
#include "util/error.h"
#include "util/mem.h"
#include "util/pool.h"

typedef struct qnode {
	dl_batch *b;
	struct qnode *next;
} qnode;

typedef struct slot {
	qnode *head, *tail;
	bool done;
	int err;
	char *msg;
} slot;

typedef struct sstream {
	dl_scan *s;
	pthread_mutex_t mu;
	pthread_cond_t consumer_cv, producer_cv;
	slot *slots;
	size_t next_file; /* next file a worker claims */
	size_t cur;       /* file being consumed */
	int queued;
	int max_queued;
	bool cancel;
	bool started;
	dl_waitgroup wg;
	size_t unclaimed_file;   /* the file seen unclaimed, since when (ms) */
	int64_t unclaimed_since;
	int64_t rows_out;        /* rows handed to the consumer (progress) */
	bool end_reported;       /* the progress of the last file was reported */
	bool callback_cancelled; /* the progress callback asked to stop */
} sstream;

typedef struct emit_ctx {
	sstream *q;
	size_t file;
} emit_ctx;

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
	n->next = NULL;
	pthread_mutex_lock(&q->mu);
	while (!q->cancel && q->queued >= q->max_queued && e->file != q->cur)
		pthread_cond_wait(&q->producer_cv, &q->mu);
	if (q->cancel) {
		pthread_mutex_unlock(&q->mu);
		dl_batch_free(b);
		dl_free(n);
		return DL_ECANCELLED;
	}
	slot *sl = &q->slots[e->file];
	if (sl->tail) sl->tail->next = n;
	else sl->head = n;
	sl->tail = n;
	q->queued++;
	pthread_cond_signal(&q->consumer_cv);
	pthread_mutex_unlock(&q->mu);
	return 0;
}

static int worker(void *arg)
{
	sstream *q = arg;
	for (;;) {
		pthread_mutex_lock(&q->mu);
		if (q->cancel || q->next_file >= q->s->nfiles) {
			pthread_mutex_unlock(&q->mu);
			return 0;
		}
		size_t f = q->next_file++;
		pthread_mutex_unlock(&q->mu);
		emit_ctx e = {q, f};
		int rc = dl_scan_read_file(q->s, f, emit, &e);
		char *msg = rc < 0 && rc != DL_ECANCELLED ? dl_strdup(dl_error_last()->message) : NULL;
		pthread_mutex_lock(&q->mu);
		q->slots[f].done = true;
		if (rc < 0 && rc != DL_ECANCELLED) {
			q->slots[f].err = rc;
			q->slots[f].msg = msg;
		}
		pthread_cond_signal(&q->consumer_cv);
		pthread_mutex_unlock(&q->mu);
	}
}

static int start(sstream *q)
{
	q->started = true;
	if (q->s->nfiles == 0) return 0;
	dl_pool *pool;
	DL_TRY(dl_pool_shared(&pool));
	int n = q->s->threads > 0 ? q->s->threads : dl_pool_size(pool);
	if ((size_t)n > q->s->nfiles) n = (int)q->s->nfiles;
	for (int i = 0; i < n; i++) {
		int rc = dl_pool_submit(pool, &q->wg, worker, q);
		if (rc < 0) {
			if (i == 0) return rc;
			break; /* fewer workers is still correct */
		}
	}
	return 0;
}

/* Waits for a batch or a finished file, at most 20 ms (so that an
 * unclaimed file is noticed). */
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

/* True once the current file has waited unclaimed for 100 ms. */
static bool unclaimed_too_long(sstream *q)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	int64_t now = (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
	if (q->unclaimed_file != q->cur || q->unclaimed_since == 0) {
		q->unclaimed_file = q->cur;
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
	size_t files_done = q->cur;
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
		if (q->cur >= q->s->nfiles) break;
		slot *sl = &q->slots[q->cur];
		if (sl->head) {
			qnode *n = sl->head;
			sl->head = n->next;
			if (!sl->head) sl->tail = NULL;
			q->queued--;
			*out = n->b;
			dl_free(n);
			pthread_cond_broadcast(&q->producer_cv);
			break;
		}
		if (sl->done) {
			if (sl->err) {
				int err = sl->err;
				pthread_mutex_unlock(&q->mu);
				return dl_error_set(err, "%s", sl->msg ? sl->msg : "reading a data file failed");
			}
			q->cur++;
			pthread_cond_broadcast(&q->producer_cv);
			continue;
		}
		if (q->next_file == q->cur && unclaimed_too_long(q)) {
			/* No pool thread took the file we need (the pool is busy, or
			 * this thread is itself the pool's only worker): read it here
			 * so the scan cannot deadlock. Its batches then wait in the
			 * slot until this call returns, which costs memory but only
			 * in this fallback. */
			size_t f = q->next_file++;
			pthread_mutex_unlock(&q->mu);
			emit_ctx e = {q, f};
			int rc = dl_scan_read_file(q->s, f, emit, &e);
			pthread_mutex_lock(&q->mu);
			q->slots[f].done = true;
			if (rc < 0) {
				q->slots[f].err = rc;
				q->slots[f].msg = dl_strdup(dl_error_last()->message);
			}
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
	for (size_t i = 0; i < q->s->nfiles; i++) {
		for (qnode *n = q->slots[i].head; n;) {
			qnode *next = n->next;
			dl_batch_free(n->b);
			dl_free(n);
			n = next;
		}
		dl_free(q->slots[i].msg);
	}
	dl_free(q->slots);
	pthread_cond_destroy(&q->consumer_cv);
	pthread_cond_destroy(&q->producer_cv);
	pthread_mutex_destroy(&q->mu);
	dl_free(q);
	dl_free(bs);
}

int dl_scan_batches(dl_batch_stream **out, dl_scan *s)
{
	*out = NULL;
	dl_batch_stream *bs = dl_calloc(1, sizeof *bs);
	sstream *q = dl_calloc(1, sizeof *q);
	slot *slots = dl_calloc(s->nfiles ? s->nfiles : 1, sizeof *slots);
	if (!bs || !q || !slots) {
		dl_free(bs);
		dl_free(q);
		dl_free(slots);
		return DL_ENOMEM;
	}
	q->s = s;
	q->slots = slots;
	q->max_queued = s->max_queued;
	pthread_mutex_init(&q->mu, NULL);
	pthread_cond_init(&q->consumer_cv, NULL);
	pthread_cond_init(&q->producer_cv, NULL);
	dl_waitgroup_init(&q->wg);
	bs->schema = stream_schema;
	bs->next = stream_next;
	bs->release = stream_release;
	bs->private_data = q;
	*out = bs;
	return 0;
}
