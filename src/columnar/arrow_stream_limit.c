/* dl_arrow_stream_limit (deltalake/arrow.h): the first N rows of a stream.
 * Cutting the last batch needs our array layout (a slice), so the input is
 * imported (our own exports are taken back as they are) and the result
 * exported again; buffers are not copied. The source is released as soon
 * as the limit is reached, so a scan stops decoding files nobody reads. */
#include "columnar/batch_stream.h"
#include "util/error.h"
#include "util/mem.h"

typedef struct limit_stream {
	dl_batch_stream *src; /* NULL once the limit is reached */
	dl_type *schema;      /* kept: the source may be gone */
	int64_t left;         /* < 0: no limit */
} limit_stream;

static const dl_type *ls_schema(dl_batch_stream *s)
{
	return ((limit_stream *)s->private_data)->schema;
}

static int ls_next(dl_batch_stream *s, dl_batch **out)
{
	limit_stream *l = s->private_data;
	*out = NULL;
	if (!l->src) return 0;
	dl_batch *b = NULL;
	if (l->left != 0) DL_TRY(dl_batch_stream_next(l->src, &b));
	if (b && l->left >= 0 && b->num_rows >= l->left) {
		if (b->num_rows > l->left) {
			dl_batch *h = dl_batch_slice(b, 0, l->left);
			dl_batch_free(b);
			if (!h) return DL_ENOMEM;
			b = h;
		}
		l->left = 0;
	} else if (b && l->left > 0) {
		l->left -= b->num_rows;
	}
	if (!b || l->left == 0) {
		dl_batch_stream_free(l->src);
		l->src = NULL;
	}
	*out = b;
	return 0;
}

static void ls_release(dl_batch_stream *s)
{
	limit_stream *l = s->private_data;
	dl_batch_stream_free(l->src);
	dl_type_unref(l->schema);
	dl_free(l);
	dl_free(s);
}

int dl_arrow_stream_limit(struct ArrowArrayStream *out, struct ArrowArrayStream *in, int64_t max_rows)
{
	dl_batch_stream *src;
	DL_TRY(dl_batch_stream_import(&src, in));
	dl_batch_stream *s = dl_calloc(1, sizeof *s);
	limit_stream *l = s ? dl_calloc(1, sizeof *l) : NULL;
	if (!l) {
		dl_free(s);
		dl_batch_stream_free(src);
		return DL_ENOMEM;
	}
	l->src = src;
	l->schema = dl_type_ref((dl_type *)dl_batch_stream_schema(src));
	l->left = max_rows < 0 ? -1 : max_rows;
	s->private_data = l;
	s->schema = ls_schema;
	s->next = ls_next;
	s->release = ls_release;
	return dl_batch_stream_export(out, s);
}
