/* Recycling of batch output buffers. Every batch hands its column buffers
 * to the caller, who frees them; fresh memory for the next batch would be
 * faulted in page by page (a third of the decode time on a 10M-row scan).
 * Instead, leaf arrays own their buffers through owner_release, which
 * returns them to this pool for the reader's next batches. The pool is
 * reference counted: arrays may outlive the reader, and be freed on any
 * thread. */
#ifndef DL_PARQUET_OUTPUT_POOL_H
#define DL_PARQUET_OUTPUT_POOL_H
#include <stddef.h>
#include "columnar/array.h"

typedef struct pq_pool pq_pool;

pq_pool *pq_pool_new(void);
void pq_pool_ref(pq_pool *p);
void pq_pool_unref(pq_pool *p);
/* A dl_malloc'd buffer of at least `size` bytes; *cap gets its size. */
void *pq_pool_get(pq_pool *p, size_t size, size_t *cap);
/* Gives back a dl_malloc'd buffer of `cap` bytes (freed if the pool is full). */
void pq_pool_put(pq_pool *p, void *buf, size_t cap);
/* Bytes of the free buffers the pool holds. */
size_t pq_pool_bytes(pq_pool *p);
/* Makes `a` own its four buffers through the pool: a buffer listed in
 * (bufs[i], caps[i]) returns to the pool on release, others are freed. */
int pq_pool_adopt(pq_pool *p, dl_array *a, void *const bufs[], const size_t caps[], int n);

#endif
