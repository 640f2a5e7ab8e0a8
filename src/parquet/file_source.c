/* Range reads of a Parquet file from a dl_store or from memory. */
#include "parquet/file_source.h"
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "storage/backend.h"
#include "util/error.h"
#include "util/mem.h"

static void drop_blocks(pq_source *s)
{
	for (int i = 0; i < s->nblocks; i++) dl_free(s->blocks[i].data);
	dl_free(s->blocks);
	s->blocks = NULL;
	s->nblocks = 0;
}

int pq_source_open_store(pq_source *s, dl_store *store, const char *path, int64_t size)
{
	memset(s, 0, sizeof *s);
	if (!store || !path) return dl_error_set(DL_EINVALID, "parquet: a store and a path are required");
	if (size < 0) {
		dl_object_info info;
		DL_TRY(dl_store_stat(&info, store, path));
		size = info.size;
		dl_object_info_free(&info);
	}
	s->store = store;
	s->size = size;
	s->path = dl_strdup(path);
	s->name = dl_strdup(path);
	if (!s->path || !s->name) {
		pq_source_close(s);
		return DL_ENOMEM;
	}
	return 0;
}

int pq_source_open_memory(pq_source *s, const uint8_t *data, size_t len, const char *name)
{
	memset(s, 0, sizeof *s);
	if (!data && len) return dl_error_set(DL_EINVALID, "parquet: NULL memory image");
	s->mem = data;
	s->size = (int64_t)len;
	s->name = dl_strdup(name ? name : "<memory>");
	return s->name ? 0 : DL_ENOMEM;
}

void pq_source_close(pq_source *s)
{
	drop_blocks(s);
	dl_free(s->whole);
	dl_free(s->path);
	dl_free(s->name);
	memset(s, 0, sizeof *s);
}

static int check_range(pq_source *s, int64_t off, size_t len)
{
	if (off < 0 || off > s->size || (uint64_t)len > (uint64_t)(s->size - off))
		return dl_error_set(DL_ECORRUPT, "%s: byte range [%lld, +%zu) lies outside the file of %lld bytes",
		                    s->name, (long long)off, len, (long long)s->size);
	return 0;
}

static int read_exact(pq_source *s, int64_t off, size_t len, uint8_t *buf)
{
	size_t got = 0;
	DL_TRY(dl_store_get_range(buf, &got, s->store, s->path, off, len));
	if (got != len)
		return dl_error_set(DL_EIO, "%s: short read (%zu of %zu bytes at %lld); the file changed or was truncated",
		                    s->name, got, len, (long long)off);
	return 0;
}

/* The prefetched block holding [off, off+len), or NULL. Blocks are sorted
 * and disjoint. */
static const pq_block *find_block(const pq_source *s, int64_t off, size_t len)
{
	int lo = 0, hi = s->nblocks;
	while (lo < hi) {
		int mid = lo + (hi - lo) / 2;
		if (s->blocks[mid].off + (int64_t)s->blocks[mid].len <= off) lo = mid + 1;
		else hi = mid;
	}
	if (lo < s->nblocks && s->blocks[lo].off <= off &&
	    (uint64_t)(off - s->blocks[lo].off) + len <= s->blocks[lo].len)
		return &s->blocks[lo];
	return NULL;
}

static int cmp_range(const void *a, const void *b)
{
	const pq_range *x = a, *y = b;
	return x->off < y->off ? -1 : x->off > y->off;
}

int pq_coalesce_ranges(pq_range **out, int *nout, pq_range *ranges, int n, int64_t gap)
{
	*out = NULL;
	*nout = 0;
	if (n <= 0) return 0;
	qsort(ranges, (size_t)n, sizeof *ranges, cmp_range);
	pq_range *m = dl_malloc((size_t)n * sizeof *m);
	if (!m) return DL_ENOMEM;
	int k = 0;
	for (int i = 0; i < n; i++) {
		if (!ranges[i].len) continue;
		int64_t end = ranges[i].off + (int64_t)ranges[i].len;
		if (k) {
			pq_range *last = &m[k - 1];
			int64_t last_end = last->off + (int64_t)last->len;
			/* Overlapping, touching or close enough, and the merge stays under the
			 * cap (a range inside the last one never grows it). */
			if ((ranges[i].off <= last_end || ranges[i].off - last_end < gap) &&
			    (end <= last_end || end - last->off <= PQ_COALESCE_MAX)) {
				if (end > last_end) last->len = (size_t)(end - last->off);
				continue;
			}
		}
		m[k++] = ranges[i];
	}
	*out = m;
	*nout = k;
	return 0;
}

typedef struct fetch_job {
	pq_source *s;
	pq_block *blocks;
	int n;
	int next;               /* the next block to fetch, under mu */
	int rc;                 /* first failure */
	char msg[512];
	pthread_mutex_t mu;
} fetch_job;

static int fetch_block(pq_source *s, pq_block *b)
{
	b->data = dl_malloc(b->len);
	if (!b->data) return DL_ENOMEM;
	size_t got = 0;
	DL_TRY(dl_store_get_range(b->data, &got, s->store, s->path, b->off, b->len));
	/* A short read means the object changed; the read that needs these
	 * bytes reports it (read_exact). Keep only what came. */
	b->len = got;
	return 0;
}

/* One fetching thread: takes blocks until none is left or one failed. */
static void *fetch_worker(void *arg)
{
	fetch_job *j = arg;
	for (;;) {
		pthread_mutex_lock(&j->mu);
		int i = j->rc < 0 ? j->n : j->next++;
		pthread_mutex_unlock(&j->mu);
		if (i >= j->n) return NULL;
		int rc = fetch_block(j->s, &j->blocks[i]);
		if (rc < 0) {
			pthread_mutex_lock(&j->mu);
			if (j->rc == 0) {
				j->rc = rc;
				snprintf(j->msg, sizeof j->msg, "%s", dl_error_last()->message);
			}
			pthread_mutex_unlock(&j->mu);
		}
	}
}

/* Fetches every block, up to PQ_FETCH_PARALLEL at once (the calling thread
 * is one of them). The store's functions may run concurrently (the backend
 * contract, src/storage/backend.h). */
static int fetch_blocks(pq_source *s, pq_block *blocks, int n, int parallel)
{
	fetch_job j = {.s = s, .blocks = blocks, .n = n};
	pthread_mutex_init(&j.mu, NULL);
	pthread_t th[PQ_FETCH_PARALLEL];
	int nth = 0;
	for (int i = 1; i < parallel && i < n; i++) {
		if (pthread_create(&th[nth], NULL, fetch_worker, &j) != 0) break; /* fewer in flight */
		nth++;
	}
	fetch_worker(&j);
	for (int i = 0; i < nth; i++) pthread_join(th[i], NULL);
	pthread_mutex_destroy(&j.mu);
	if (j.rc < 0) return dl_error_set(j.rc, "%s", j.msg);
	return 0;
}

int pq_source_prefetch(pq_source *s, pq_range *ranges, int n)
{
	drop_blocks(s);
	/* A local read costs a system call, not a request: nothing to save by
	 * merging, and holding a row group's chunks at once would raise the
	 * memory of every local scan (MERGE's spill test measures it). */
	if (s->mem || s->whole || n <= 0 || dl_store_is_local(s->store)) return 0;
	/* Only ranges inside the file; the read of a bad one reports it. */
	int k = 0;
	for (int i = 0; i < n; i++)
		if (ranges[i].off >= 0 && ranges[i].off <= s->size &&
		    (uint64_t)ranges[i].len <= (uint64_t)(s->size - ranges[i].off))
			ranges[k++] = ranges[i];
	pq_range *m;
	int nm;
	DL_TRY(pq_coalesce_ranges(&m, &nm, ranges, k, PQ_COALESCE_GAP));
	if (!nm) {
		dl_free(m);
		return 0;
	}
	pq_block *b = dl_calloc((size_t)nm, sizeof *b);
	if (!b) {
		dl_free(m);
		return DL_ENOMEM;
	}
	for (int i = 0; i < nm; i++) {
		b[i].off = m[i].off;
		b[i].len = m[i].len;
	}
	dl_free(m);
	int rc = fetch_blocks(s, b, nm, PQ_FETCH_PARALLEL);
	s->blocks = b;
	s->nblocks = nm;
	if (rc < 0) drop_blocks(s);
	return rc;
}

int pq_source_read(pq_source *s, int64_t off, size_t len, const uint8_t **ptr, uint8_t **owned)
{
	*owned = NULL;
	*ptr = NULL;
	DL_TRY(check_range(s, off, len));
	if (s->mem || s->whole) {
		*ptr = (s->mem ? s->mem : s->whole) + off;
		return 0;
	}
	const pq_block *b = find_block(s, off, len);
	if (b) {
		*ptr = b->data + (off - b->off);
		return 0;
	}
	uint8_t *buf = dl_malloc(len ? len : 1);
	if (!buf) return DL_ENOMEM;
	int rc = read_exact(s, off, len, buf);
	if (rc < 0) {
		dl_free(buf);
		return rc;
	}
	*ptr = buf;
	if (off == 0 && (int64_t)len == s->size) s->whole = buf; /* kept: see file_source.h */
	else *owned = buf;
	return 0;
}

int pq_source_read_into(pq_source *s, int64_t off, size_t len, const uint8_t **ptr, uint8_t **buf, size_t *cap)
{
	*ptr = NULL;
	DL_TRY(check_range(s, off, len));
	if (s->mem || s->whole) {
		*ptr = (s->mem ? s->mem : s->whole) + off;
		return 0;
	}
	const pq_block *b = find_block(s, off, len);
	if (b) {
		*ptr = b->data + (off - b->off);
		return 0;
	}
	if (len > *cap || !*buf) {
		uint8_t *b = dl_realloc(*buf, len ? len : 1);
		if (!b) return DL_ENOMEM;
		*buf = b;
		*cap = len;
	}
	DL_TRY(read_exact(s, off, len, *buf));
	*ptr = *buf;
	return 0;
}
