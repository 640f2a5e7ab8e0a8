/* A small mutex-protected free list of large buffers (output_pool.h). */
#include "parquet/output_pool.h"
#include <pthread.h>
#include "util/error.h"
#include "util/mem.h"

#define POOL_SLOTS 64
#define POOL_MAX_BYTES ((size_t)512 << 20)
/* Smaller buffers are freed, not kept: malloc serves them from memory it
 * already holds, and kept they filled the slots (a column chunk of 144
 * bytes, a dictionary page's 1 KiB of levels), so that the page buffers
 * of the next file, the ones worth keeping, were freed and allocated
 * afresh (bench_dml.sh's UPDATE with DVs: 57 of the 64 slots held buffers
 * under 16 KiB). */
#define POOL_MIN_BYTES ((size_t)16 << 10)

struct pq_pool {
	pthread_mutex_t mu;
	int refs;
	int nfree;
	size_t bytes;
	void *buf[POOL_SLOTS];
	size_t cap[POOL_SLOTS];
};

typedef struct holder {
	pq_pool *pool;
	void *buf[4];
	size_t cap[4];
} holder;

pq_pool *pq_pool_new(void)
{
	pq_pool *p = dl_calloc(1, sizeof *p);
	if (!p) return NULL;
	if (pthread_mutex_init(&p->mu, NULL) != 0) {
		dl_free(p);
		dl_error_set(DL_ENOMEM, "cannot create a mutex");
		return NULL;
	}
	p->refs = 1;
	return p;
}

static void pool_destroy(pq_pool *p)
{
	for (int i = 0; i < p->nfree; i++) dl_free(p->buf[i]);
	pthread_mutex_destroy(&p->mu);
	dl_free(p);
}

void pq_pool_ref(pq_pool *p)
{
	pthread_mutex_lock(&p->mu);
	p->refs++;
	pthread_mutex_unlock(&p->mu);
}

void pq_pool_unref(pq_pool *p)
{
	if (!p) return;
	pthread_mutex_lock(&p->mu);
	int left = --p->refs;
	pthread_mutex_unlock(&p->mu);
	if (left == 0) pool_destroy(p);
}

void *pq_pool_get(pq_pool *p, size_t size, size_t *cap)
{
	if (size == 0) size = 1;
	pthread_mutex_lock(&p->mu);
	/* The smallest free buffer that fits without wasting more than half. */
	int best = -1;
	for (int i = 0; i < p->nfree; i++)
		if (p->cap[i] >= size && p->cap[i] / 2 <= size && (best < 0 || p->cap[i] < p->cap[best])) best = i;
	if (best >= 0) {
		void *b = p->buf[best];
		*cap = p->cap[best];
		p->bytes -= *cap;
		p->nfree--;
		p->buf[best] = p->buf[p->nfree];
		p->cap[best] = p->cap[p->nfree];
		pthread_mutex_unlock(&p->mu);
		return b;
	}
	pthread_mutex_unlock(&p->mu);
	void *b = dl_malloc(size);
	*cap = b ? size : 0;
	return b;
}

void pq_pool_put(pq_pool *p, void *buf, size_t cap)
{
	if (!buf) return;
	if (cap < POOL_MIN_BYTES) {
		dl_free(buf);
		return;
	}
	pthread_mutex_lock(&p->mu);
	if (p->nfree < POOL_SLOTS && p->bytes + cap <= POOL_MAX_BYTES) {
		p->buf[p->nfree] = buf;
		p->cap[p->nfree] = cap;
		p->nfree++;
		p->bytes += cap;
		buf = NULL;
	}
	pthread_mutex_unlock(&p->mu);
	dl_free(buf);
}

size_t pq_pool_bytes(pq_pool *p)
{
	pthread_mutex_lock(&p->mu);
	size_t n = p->bytes;
	pthread_mutex_unlock(&p->mu);
	return n;
}

static void holder_release(void *owner)
{
	holder *h = owner;
	for (int i = 0; i < 4; i++) {
		if (h->cap[i]) pq_pool_put(h->pool, h->buf[i], h->cap[i]);
		else dl_free(h->buf[i]);
	}
	pq_pool_unref(h->pool);
	dl_free(h);
}

int pq_pool_adopt(pq_pool *p, dl_array *a, void *const bufs[], const size_t caps[], int n)
{
	holder *h = dl_calloc(1, sizeof *h);
	if (!h) return DL_ENOMEM;
	h->pool = p;
	h->buf[0] = a->validity;
	h->buf[1] = a->values;
	h->buf[2] = a->offsets;
	h->buf[3] = a->data;
	for (int i = 0; i < 4; i++)
		for (int k = 0; k < n; k++)
			if (h->buf[i] && h->buf[i] == bufs[k]) h->cap[i] = caps[k];
	pthread_mutex_lock(&p->mu);
	p->refs++;
	pthread_mutex_unlock(&p->mu);
	a->owner = h;
	a->owner_release = holder_release;
	return 0;
}
