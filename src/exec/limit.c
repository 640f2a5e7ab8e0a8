/* LIMIT / OFFSET (exec.h), streaming: it stops pulling its input once the
 * limit is reached, so a LIMIT over a scan reads only what it needs. */
#include "exec/op.h"

typedef struct limit_op {
	dl_batch_stream *in;
	int64_t skip, left; /* left < 0: no limit */
} limit_op;

static const dl_type *l_schema(dl_batch_stream *s)
{
	limit_op *l = s->private_data;
	return dl_batch_stream_schema(l->in);
}

static int l_next(dl_batch_stream *s, dl_batch **out)
{
	limit_op *l = s->private_data;
	*out = NULL;
	while (l->left != 0) {
		dl_batch *b;
		DL_TRY(dl_batch_stream_next(l->in, &b));
		if (!b) return 0;
		int64_t start = 0, n = b->num_rows;
		if (l->skip >= n) {
			l->skip -= n;
			dl_batch_free(b);
			continue;
		}
		start = l->skip;
		l->skip = 0;
		n -= start;
		if (l->left >= 0 && n > l->left) n = l->left;
		if (l->left > 0) l->left -= n;
		if (start == 0 && n == b->num_rows) {
			*out = b;
			return 0;
		}
		*out = dl_batch_slice(b, start, n);
		dl_batch_free(b);
		return *out ? 0 : dl_exec_failed();
	}
	return 0;
}

static void l_release(dl_batch_stream *s)
{
	limit_op *l = s->private_data;
	dl_batch_stream_free(l->in);
	dl_free(l);
	dl_free(s);
}

int dl_exec_limit(dl_batch_stream **out, dl_batch_stream *in, int64_t limit, int64_t offset)
{
	*out = NULL;
	limit_op *l = dl_calloc(1, sizeof *l);
	if (!l) {
		dl_batch_stream_free(in);
		return dl_error_set(DL_ENOMEM, "out of memory");
	}
	if (offset < 0) {
		dl_batch_stream_free(in);
		dl_free(l);
		return dl_error_set(DL_EINVALID, "OFFSET must not be negative (got %lld)", (long long)offset);
	}
	l->in = in;
	l->skip = offset;
	l->left = limit < 0 ? -1 : limit;
	if (!(*out = dl_exec_stream_new(l, l_schema, l_next, l_release))) {
		dl_batch_stream_free(in);
		dl_free(l);
		return dl_exec_failed();
	}
	return 0;
}
