/* The rows of a planned micro-batch's files (stream_source.c plans them):
 * each add read through the stream's scan (its projection and filter), the
 * batches handed out one at a time as an Arrow stream, the plan freed with
 * the stream. */
#include <inttypes.h>
#include "stream/stream_internal.h"
#include "util/error.h"
#include "util/mem.h"

typedef struct file_batches {
	dl_stream *s;
	st_plan *plan;
	size_t next;
	dl_batch **q;
	size_t nq, head, cap;
} file_batches;

static int fb_emit(void *payload, dl_batch *b)
{
	file_batches *f = payload;
	if (b->num_rows == 0) {
		dl_batch_free(b);
		return 0;
	}
	if (f->nq == f->cap) {
		size_t cap = f->cap ? f->cap * 2 : 8;
		dl_batch **q = dl_reallocarray(f->q, cap, sizeof *q);
		if (!q) {
			dl_batch_free(b);
			return DL_ENOMEM;
		}
		f->q = q;
		f->cap = cap;
	}
	f->q[f->nq++] = b;
	return 0;
}

static const dl_type *fb_schema(dl_batch_stream *bs)
{
	return ((file_batches *)bs->private_data)->s->scan->out_schema;
}

static int fb_next(dl_batch_stream *bs, dl_batch **out)
{
	file_batches *f = bs->private_data;
	*out = NULL;
	while (f->head == f->nq) {
		f->head = f->nq = 0;
		if (f->next == f->plan->n) return 0;
		const st_unit *u = &f->plan->units[f->next++];
		int rc = dl_scan_read_add(f->s->scan, u->add, NULL, 0, false, fb_emit, f);
		if (rc < 0) return dl_error_prefix("%s: version %" PRId64 ", file %s", f->s->table, u->version, u->add->path);
	}
	*out = f->q[f->head++];
	return 0;
}

static void fb_release(dl_batch_stream *bs)
{
	file_batches *f = bs->private_data;
	for (size_t i = f->head; i < f->nq; i++) dl_batch_free(f->q[i]);
	dl_free(f->q);
	dl_stream_plan_free(f->plan);
	dl_free(f);
	dl_free(bs);
}

int dl_stream_file_batches(dl_batch_stream **out, dl_stream *s, st_plan *plan)
{
	*out = NULL;
	file_batches *f = dl_calloc(1, sizeof *f);
	dl_batch_stream *bs = dl_calloc(1, sizeof *bs);
	if (!f || !bs) {
		dl_free(f);
		dl_free(bs);
		dl_stream_plan_free(plan);
		return DL_ENOMEM;
	}
	f->s = s;
	f->plan = plan;
	bs->schema = fb_schema;
	bs->next = fb_next;
	bs->release = fb_release;
	bs->private_data = f;
	*out = bs;
	return 0;
}
