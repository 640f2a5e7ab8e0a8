/* Batch streams: an in-memory source, and both directions of the Arrow C
 * Stream Interface. */
#include "columnar/batch_stream.h"
#include <errno.h>
#include <string.h>
#include "columnar/arrow_c.h"
#include "util/error.h"
#include "util/mem.h"

/* ---- in-memory batches ---- */

typedef struct mem_stream {
	dl_type *schema;
	dl_batch **batches;
	int n, next;
} mem_stream;

static const dl_type *mem_schema(dl_batch_stream *s)
{
	return ((mem_stream *)s->private_data)->schema;
}

static int mem_next(dl_batch_stream *s, dl_batch **out)
{
	mem_stream *m = s->private_data;
	*out = m->next < m->n ? m->batches[m->next] : NULL;
	if (*out) m->batches[m->next++] = NULL;
	return 0;
}

static void mem_release(dl_batch_stream *s)
{
	mem_stream *m = s->private_data;
	for (int i = 0; i < m->n; i++) dl_batch_free(m->batches[i]);
	dl_free(m->batches);
	dl_type_unref(m->schema);
	dl_free(m);
	dl_free(s);
}

int dl_batch_stream_from_batches(dl_batch_stream **out, dl_type *schema, dl_batch **batches, int n)
{
	*out = NULL;
	int rc = 0;
	for (int i = 0; i < n && rc == 0; i++)
		if (!dl_type_equals(batches[i]->schema, schema))
			rc = dl_error_set(DL_ESCHEMA, "batch %d does not have the stream's schema", i);
	dl_batch_stream *s = rc ? NULL : dl_calloc(1, sizeof(*s));
	mem_stream *m = s ? dl_calloc(1, sizeof(*m)) : NULL;
	dl_batch **copy = m ? dl_calloc((size_t)(n > 0 ? n : 1), sizeof(dl_batch *)) : NULL;
	if (!copy) {
		for (int i = 0; i < n; i++) dl_batch_free(batches[i]);
		dl_free(m);
		dl_free(s);
		return rc ? rc : DL_ENOMEM;
	}
	if (n > 0) memcpy(copy, batches, (size_t)n * sizeof(dl_batch *)); /* batches may be NULL when n is 0 */
	m->schema = dl_type_ref(schema);
	m->batches = copy;
	m->n = n;
	s->private_data = m;
	s->schema = mem_schema;
	s->next = mem_next;
	s->release = mem_release;
	*out = s;
	return 0;
}

/* ---- export: dl_batch_stream -> ArrowArrayStream ---- */

typedef struct export_stream {
	dl_batch_stream *src;
	char *last_error;
} export_stream;

/* The C Stream Interface returns errno codes. */
static int to_errno(int code)
{
	switch (code) {
	case DL_ENOMEM: return ENOMEM;
	case DL_EINVALID:
	case DL_ESCHEMA: return EINVAL;
	case DL_EUNSUPPORTED: return ENOSYS;
	case DL_ENOTFOUND: return ENOENT;
	default: return EIO;
	}
}

static int remember_error(export_stream *e, int code)
{
	dl_free(e->last_error);
	e->last_error = dl_strdup(dl_error_last()->message);
	return to_errno(code);
}

static int es_get_schema(struct ArrowArrayStream *st, struct ArrowSchema *out)
{
	export_stream *e = st->private_data;
	int rc = dl_arrow_export_schema(out, e->src->schema(e->src));
	return rc < 0 ? remember_error(e, rc) : 0;
}

static int es_get_next(struct ArrowArrayStream *st, struct ArrowArray *out)
{
	export_stream *e = st->private_data;
	dl_batch *b = NULL;
	int rc = e->src->next(e->src, &b);
	if (rc < 0) return remember_error(e, rc);
	if (!b) {
		memset(out, 0, sizeof(*out)); /* release == NULL: end of stream */
		return 0;
	}
	rc = dl_arrow_export_batch(out, b);
	return rc < 0 ? remember_error(e, rc) : 0;
}

static const char *es_get_last_error(struct ArrowArrayStream *st)
{
	return ((export_stream *)st->private_data)->last_error;
}

static void es_release(struct ArrowArrayStream *st)
{
	if (!st->release) return;
	export_stream *e = st->private_data;
	dl_batch_stream_free(e->src);
	dl_free(e->last_error);
	dl_free(e);
	st->release = NULL;
}

int dl_batch_stream_export(struct ArrowArrayStream *out, dl_batch_stream *s)
{
	memset(out, 0, sizeof(*out));
	export_stream *e = dl_calloc(1, sizeof(*e));
	if (!e) {
		dl_batch_stream_free(s);
		return DL_ENOMEM;
	}
	e->src = s;
	out->get_schema = es_get_schema;
	out->get_next = es_get_next;
	out->get_last_error = es_get_last_error;
	out->release = es_release;
	out->private_data = e;
	return 0;
}

/* ---- import: ArrowArrayStream -> dl_batch_stream ---- */

typedef struct import_stream {
	struct ArrowArrayStream in;
	struct ArrowSchema schema;
	dl_type *type;
} import_stream;

static int producer_error(import_stream *im, int err, const char *what)
{
	const char *msg = im->in.get_last_error ? im->in.get_last_error(&im->in) : NULL;
	return dl_error_set(DL_EIO, "Arrow stream %s failed (errno %d): %s", what, err, msg ? msg : "no message");
}

static const dl_type *is_schema(dl_batch_stream *s)
{
	return ((import_stream *)s->private_data)->type;
}

static int is_next(dl_batch_stream *s, dl_batch **out)
{
	import_stream *im = s->private_data;
	struct ArrowArray arr;
	memset(&arr, 0, sizeof(arr));
	*out = NULL;
	/* A producer that is itself libdeltalake (a reader wrapped by a caller's
	 * stream, e.g. one counting rows) raises its error on this thread: keep
	 * that message and class rather than wrapping it as a foreign one. */
	dl_error_clear();
	int err = im->in.get_next(&im->in, &arr);
	if (err && dl_error_last()->code != DL_OK) return dl_error_last()->code;
	if (err) return producer_error(im, err, "get_next");
	if (!arr.release) return 0; /* end of stream */
	return dl_arrow_import_batch(out, &arr, &im->schema);
}

static void is_release(dl_batch_stream *s)
{
	import_stream *im = s->private_data;
	dl_arrow_schema_release(&im->schema);
	dl_arrow_stream_release(&im->in);
	dl_type_unref(im->type);
	dl_free(im);
	dl_free(s);
}

int dl_batch_stream_import(dl_batch_stream **out, struct ArrowArrayStream *in)
{
	*out = NULL;
	if (!in || !in->release) return dl_error_set(DL_EINVALID, "Arrow stream is NULL or already released");
	if (in->release == es_release) {
		/* One of our own exports (a scan handed to dl_write, the Parquet
		 * writer, the IPC writer): take its batch stream back as it is, so
		 * batches are not converted twice and errors keep their message
		 * and class. */
		export_stream *e = in->private_data;
		*out = e->src;
		dl_free(e->last_error);
		dl_free(e);
		in->release = NULL;
		return 0;
	}
	dl_batch_stream *s = dl_calloc(1, sizeof(*s));
	import_stream *im = s ? dl_calloc(1, sizeof(*im)) : NULL;
	if (!im) {
		dl_free(s);
		in->release(in);
		return DL_ENOMEM;
	}
	im->in = *in;
	in->release = NULL;
	s->private_data = im;
	s->schema = is_schema;
	s->next = is_next;
	s->release = is_release;
	int rc = 0, err = im->in.get_schema(&im->in, &im->schema);
	if (err) rc = producer_error(im, err, "get_schema");
	else if (!im->schema.format || strcmp(im->schema.format, "+s") != 0)
		rc = dl_error_set(DL_EINVALID, "Arrow stream schema must be a struct (format \"+s\"), not \"%s\"",
		                  im->schema.format ? im->schema.format : "");
	else rc = dl_arrow_import_type(&im->type, &im->schema);
	if (rc < 0) {
		is_release(s);
		return rc;
	}
	*out = s;
	return 0;
}
