/* Arrow IPC stream writer. Metadata follows format/Schema.fbs and
 * format/Message.fbs of the Arrow repository; the body holds the arrays'
 * buffers as they are in memory (our layout is Arrow's), each padded to 8
 * bytes. */
#include "columnar/ipc_writer.h"
#include <errno.h>
#include <string.h>
#include "columnar/batch_stream.h"
#include "columnar/flatbuf.h"
#include "columnar/ipc_format.h"
#include "deltalake/arrow.h"
#include "util/error.h"
#include "util/mem.h"
#include "util/vec.h"


typedef struct ipc_node {
	int64_t length, null_count;
} ipc_node;

typedef struct ipc_buffer {
	int64_t offset, length;
} ipc_buffer;

struct dl_ipc_writer {
	dl_type *schema;
	dl_ipc_sink_fn sink;
	void *payload;
	dl_fb fb;
	ipc_node *nodes;
	size_t nnodes, nodes_cap;
	ipc_buffer *bufs;
	const void **buf_ptrs;
	size_t nbufs, bufs_cap;
	int64_t body_len;
	bool finished;
};

static const uint8_t zeros[8];

static int64_t pad8(int64_t n)
{
	return (n + 7) & ~(int64_t)7;
}

/* ---- schema ---- */

static dl_fb_ref field_ref(dl_fb *fb, const char *name, const dl_type *t, bool nullable, const char *metadata);

static dl_fb_ref type_table(dl_fb *fb, const dl_type *t, uint8_t *tag)
{
	dl_fb_ref tz = t->id == DL_TYPE_TIMESTAMP ? dl_fb_string(fb, "UTC", 3) : 0;
	dl_fb_table_start(fb);
	switch (t->id) {
	case DL_TYPE_NULL: *tag = TYPE_NULL; break;
	case DL_TYPE_BOOLEAN: *tag = TYPE_BOOL; break;
	case DL_TYPE_BYTE:
	case DL_TYPE_SHORT:
	case DL_TYPE_INTEGER:
	case DL_TYPE_LONG:
		*tag = TYPE_INT;
		dl_fb_add_i32(fb, 0, dl_type_fixed_width(t) * 8); /* bitWidth */
		dl_fb_add_u8(fb, 1, 1);                           /* is_signed */
		break;
	case DL_TYPE_FLOAT:
	case DL_TYPE_DOUBLE:
		*tag = TYPE_FLOAT;
		dl_fb_add_i16(fb, 0, t->id == DL_TYPE_FLOAT ? PRECISION_SINGLE : PRECISION_DOUBLE);
		break;
	case DL_TYPE_DECIMAL:
		*tag = TYPE_DECIMAL;
		dl_fb_add_i32(fb, 0, t->precision);
		dl_fb_add_i32(fb, 1, t->scale);
		dl_fb_add_i32(fb, 2, 128);
		break;
	case DL_TYPE_STRING: *tag = TYPE_UTF8; break;
	case DL_TYPE_BINARY: *tag = TYPE_BINARY; break;
	case DL_TYPE_DATE:
		*tag = TYPE_DATE;
		dl_fb_add_i16(fb, 0, DATE_DAY); /* the default is MILLISECOND: write it */
		break;
	case DL_TYPE_TIMESTAMP:
	case DL_TYPE_TIMESTAMP_NTZ:
		*tag = TYPE_TIMESTAMP;
		dl_fb_add_i16(fb, 0, UNIT_MICROSECOND);
		if (tz) dl_fb_add_ref(fb, 1, tz);
		break;
	case DL_TYPE_STRUCT:
	case DL_TYPE_VARIANT: *tag = TYPE_STRUCT; break;
	case DL_TYPE_ARRAY: *tag = TYPE_LIST; break;
	case DL_TYPE_MAP:
		*tag = TYPE_MAP;
		dl_fb_add_u8(fb, 0, 0); /* keysSorted */
		break;
	}
	return dl_fb_table_end(fb);
}

static dl_fb_ref key_value(dl_fb *fb, const char *k, const char *v)
{
	dl_fb_ref kr = dl_fb_string(fb, k, strlen(k)), vr = dl_fb_string(fb, v, strlen(v));
	dl_fb_table_start(fb);
	dl_fb_add_ref(fb, 0, kr);
	dl_fb_add_ref(fb, 1, vr);
	return dl_fb_table_end(fb);
}

static bool json_nonempty(const char *json)
{
	if (!json) return false;
	for (const char *p = json; *p; p++)
		if (!strchr("{} \t\r\n", *p)) return true;
	return false;
}

static int child_refs(dl_fb *fb, const dl_type *t, dl_fb_ref *refs, int *n)
{
	*n = 0;
	if (t->id == DL_TYPE_ARRAY) {
		refs[(*n)++] = field_ref(fb, "element", t->children[0].type, t->children[0].nullable, NULL);
	} else if (t->id == DL_TYPE_MAP) {
		dl_type *entries = dl_type_map_entries(t);
		if (!entries) return DL_ENOMEM;
		refs[(*n)++] = field_ref(fb, "entries", entries, false, NULL);
		dl_type_unref(entries);
	} else if (t->id == DL_TYPE_STRUCT || t->id == DL_TYPE_VARIANT) {
		for (int i = 0; i < t->nchildren; i++) {
			const dl_field *f = &t->children[i];
			refs[(*n)++] = field_ref(fb, f->name, f->type, f->nullable, f->metadata);
		}
	}
	return 0;
}

static dl_fb_ref field_ref(dl_fb *fb, const char *name, const dl_type *t, bool nullable, const char *metadata)
{
	int nch = t->id == DL_TYPE_MAP ? 1 : t->nchildren;
	dl_fb_ref *refs = dl_calloc((size_t)(nch ? nch : 1), sizeof(dl_fb_ref));
	if (!refs) {
		fb->err = DL_ENOMEM;
		return 0;
	}
	int n = 0;
	if (child_refs(fb, t, refs, &n) < 0) fb->err = DL_ENOMEM;
	dl_fb_ref children = dl_fb_vector_refs(fb, refs, (size_t)n);
	dl_free(refs);
	uint8_t tag = 0;
	dl_fb_ref type = type_table(fb, t, &tag);
	dl_fb_ref kv[3];
	size_t nkv = 0;
	if (json_nonempty(metadata)) kv[nkv++] = key_value(fb, DL_ARROW_DELTA_METADATA_KEY, metadata);
	if (t->id == DL_TYPE_VARIANT) {
		kv[nkv++] = key_value(fb, "ARROW:extension:name", DL_ARROW_VARIANT_EXTENSION);
		kv[nkv++] = key_value(fb, "ARROW:extension:metadata", "");
	}
	dl_fb_ref md = nkv ? dl_fb_vector_refs(fb, kv, nkv) : 0;
	dl_fb_ref nm = dl_fb_string(fb, name, strlen(name));
	dl_fb_table_start(fb);
	dl_fb_add_ref(fb, FIELD_NAME, nm);
	dl_fb_add_u8(fb, FIELD_NULLABLE, nullable ? 1 : 0);
	dl_fb_add_u8(fb, FIELD_TYPE_TYPE, tag);
	dl_fb_add_ref(fb, FIELD_TYPE, type);
	dl_fb_add_ref(fb, FIELD_CHILDREN, children);
	if (md) dl_fb_add_ref(fb, FIELD_METADATA, md);
	return dl_fb_table_end(fb);
}

/* ---- framing ---- */

static int emit(dl_ipc_writer *w, const void *p, size_t n)
{
	return n ? w->sink(p, n, w->payload) : 0;
}

/* <continuation><size><flatbuffer + padding to 8>; the body follows. */
static int emit_metadata(dl_ipc_writer *w, const uint8_t *meta, size_t len)
{
	int64_t padded = pad8(8 + (int64_t)len) - 8;
	uint32_t prefix[2] = {0xFFFFFFFFu, (uint32_t)padded};
	DL_TRY(emit(w, prefix, 8));
	DL_TRY(emit(w, meta, len));
	return emit(w, zeros, (size_t)padded - len);
}

static dl_fb_ref message(dl_fb *fb, uint8_t header_type, dl_fb_ref header, int64_t body_len)
{
	dl_fb_table_start(fb);
	dl_fb_add_i64(fb, MSG_BODY_LENGTH, body_len);
	dl_fb_add_ref(fb, MSG_HEADER, header);
	dl_fb_add_i16(fb, MSG_VERSION, METADATA_V5);
	dl_fb_add_u8(fb, MSG_HEADER_TYPE, header_type);
	return dl_fb_table_end(fb);
}

static int write_schema(dl_ipc_writer *w)
{
	dl_fb *fb = &w->fb;
	dl_fb_reset(fb);
	const dl_type *s = w->schema;
	dl_fb_ref *refs = dl_calloc((size_t)(s->nchildren ? s->nchildren : 1), sizeof(dl_fb_ref));
	if (!refs) return DL_ENOMEM;
	int n = 0;
	int rc = child_refs(fb, s, refs, &n);
	dl_fb_ref fields = dl_fb_vector_refs(fb, refs, (size_t)n);
	dl_free(refs);
	DL_TRY(rc);
	dl_fb_table_start(fb);
	dl_fb_add_ref(fb, SCHEMA_FIELDS, fields);
	dl_fb_ref schema = dl_fb_table_end(fb);
	dl_fb_ref msg = message(fb, HEADER_SCHEMA, schema, 0);
	const uint8_t *data;
	size_t len;
	DL_TRY(dl_fb_finish(fb, msg, &data, &len));
	return emit_metadata(w, data, len);
}

/* ---- record batches ---- */

static int add_node(dl_ipc_writer *w, int64_t length, int64_t nulls)
{
	if (w->nnodes == w->nodes_cap)
		DL_TRY(dl_vec_grow_(&w->nodes, &w->nodes_cap, w->nnodes, 1, sizeof *w->nodes));
	w->nodes[w->nnodes++] = (ipc_node){length, nulls};
	return 0;
}

static int add_buffer(dl_ipc_writer *w, const void *p, int64_t len)
{
	if (w->nbufs == w->bufs_cap) {
		size_t cap = w->bufs_cap ? w->bufs_cap * 2 : 64;
		ipc_buffer *b = dl_reallocarray(w->bufs, cap, sizeof(*b));
		if (!b) return DL_ENOMEM;
		w->bufs = b;
		const void **q = dl_reallocarray(w->buf_ptrs, cap, sizeof(*q));
		if (!q) return DL_ENOMEM;
		w->buf_ptrs = q;
		w->bufs_cap = cap;
	}
	if (len > 0 && !p) return dl_error_set(DL_EINVALID, "array buffer of %lld bytes is missing", (long long)len);
	w->bufs[w->nbufs] = (ipc_buffer){w->body_len, len};
	w->buf_ptrs[w->nbufs++] = p;
	w->body_len += pad8(len);
	return 0;
}

/* Offsets, with the single 0 of an empty array built without a buffer. */
static const int32_t *offsets_of(const dl_array *a)
{
	static const int32_t zero[1];
	return a->offsets || a->length ? a->offsets : zero;
}

/* Nodes and buffers of one array, depth first, as RecordBatch lists them. */
static int collect(dl_ipc_writer *w, dl_array *a)
{
	int64_t nulls = dl_array_null_count(a), len = a->length;
	DL_TRY(add_node(w, len, nulls));
	dl_type_id id = a->type->id;
	if (id == DL_TYPE_NULL) return 0;
	DL_TRY(add_buffer(w, a->validity, nulls > 0 ? (len + 7) / 8 : 0));
	switch (id) {
	case DL_TYPE_BOOLEAN:
		return add_buffer(w, a->values, (len + 7) / 8);
	case DL_TYPE_STRING:
	case DL_TYPE_BINARY:
		DL_TRY(add_buffer(w, offsets_of(a), (len + 1) * 4));
		return add_buffer(w, a->data, a->offsets ? a->offsets[len] : 0);
	case DL_TYPE_ARRAY:
	case DL_TYPE_MAP:
		DL_TRY(add_buffer(w, offsets_of(a), (len + 1) * 4));
		return collect(w, a->children[0]);
	case DL_TYPE_STRUCT:
	case DL_TYPE_VARIANT:
		for (int i = 0; i < a->nchildren; i++) DL_TRY(collect(w, a->children[i]));
		return 0;
	default:
		return add_buffer(w, a->values, len * dl_type_fixed_width(a->type));
	}
}

int dl_ipc_writer_write(dl_ipc_writer *w, const dl_batch *b)
{
	if (w->finished) return dl_error_set(DL_EINVALID, "Arrow IPC stream already finished");
	if (!dl_type_equals(b->schema, w->schema))
		return dl_error_set(DL_ESCHEMA, "batch schema differs from the Arrow IPC stream's schema");
	DL_TRY(dl_batch_validate(b));
	w->nnodes = w->nbufs = 0;
	w->body_len = 0;
	for (int i = 0; i < b->ncols; i++) DL_TRY(collect(w, b->cols[i]));
	dl_fb *fb = &w->fb;
	dl_fb_reset(fb);
	dl_fb_ref nodes = dl_fb_vector_structs(fb, w->nodes, sizeof(ipc_node), w->nnodes, 8);
	dl_fb_ref bufs = dl_fb_vector_structs(fb, w->bufs, sizeof(ipc_buffer), w->nbufs, 8);
	dl_fb_table_start(fb);
	dl_fb_add_i64(fb, RB_LENGTH, b->num_rows);
	dl_fb_add_ref(fb, RB_NODES, nodes);
	dl_fb_add_ref(fb, RB_BUFFERS, bufs);
	dl_fb_ref rb = dl_fb_table_end(fb);
	dl_fb_ref msg = message(fb, HEADER_RECORD_BATCH, rb, w->body_len);
	const uint8_t *data;
	size_t len;
	DL_TRY(dl_fb_finish(fb, msg, &data, &len));
	DL_TRY(emit_metadata(w, data, len));
	for (size_t i = 0; i < w->nbufs; i++) {
		int64_t n = w->bufs[i].length;
		DL_TRY(emit(w, w->buf_ptrs[i], (size_t)n));
		DL_TRY(emit(w, zeros, (size_t)(pad8(n) - n)));
	}
	return 0;
}

int dl_ipc_writer_finish(dl_ipc_writer *w)
{
	if (w->finished) return 0;
	w->finished = true;
	static const uint32_t eos[2] = {0xFFFFFFFFu, 0};
	return emit(w, eos, 8);
}

int dl_ipc_writer_new(dl_ipc_writer **out, const dl_type *schema, dl_ipc_sink_fn sink, void *payload)
{
	*out = NULL;
	if (!schema || schema->id != DL_TYPE_STRUCT)
		return dl_error_set(DL_EINVALID, "an Arrow IPC stream's schema must be a struct type");
	dl_ipc_writer *w = dl_calloc(1, sizeof(*w));
	if (!w) return DL_ENOMEM;
	w->schema = dl_type_ref((dl_type *)schema);
	w->sink = sink;
	w->payload = payload;
	dl_fb_init(&w->fb);
	int rc = write_schema(w);
	if (rc < 0) {
		dl_ipc_writer_free(w);
		return rc;
	}
	*out = w;
	return 0;
}

static int file_sink(const void *p, size_t n, void *payload)
{
	if (fwrite(p, 1, n, payload) != n)
		return dl_error_set(DL_EIO, "writing the Arrow IPC stream failed: %s", strerror(errno));
	return 0;
}

static int buf_sink(const void *p, size_t n, void *payload)
{
	return dl_buf_append(payload, p, n);
}

int dl_ipc_writer_new_file(dl_ipc_writer **out, const dl_type *schema, FILE *f)
{
	return dl_ipc_writer_new(out, schema, file_sink, f);
}

int dl_ipc_writer_new_buf(dl_ipc_writer **out, const dl_type *schema, dl_buf *buf)
{
	return dl_ipc_writer_new(out, schema, buf_sink, buf);
}

void dl_ipc_writer_free(dl_ipc_writer *w)
{
	if (!w) return;
	dl_fb_free(&w->fb);
	dl_free(w->nodes);
	dl_free(w->bufs);
	dl_free(w->buf_ptrs);
	dl_type_unref(w->schema);
	dl_free(w);
}

int dl_arrow_ipc_write_stream(FILE *out, struct ArrowArrayStream *stream)
{
	dl_batch_stream *s;
	DL_TRY(dl_batch_stream_import(&s, stream));
	dl_ipc_writer *w;
	int rc = dl_ipc_writer_new_file(&w, dl_batch_stream_schema(s), out);
	while (rc == 0) {
		dl_batch *b;
		rc = dl_batch_stream_next(s, &b);
		if (rc < 0 || !b) break;
		rc = dl_ipc_writer_write(w, b);
		dl_batch_free(b);
	}
	if (rc == 0) rc = dl_ipc_writer_finish(w);
	if (rc == 0 && fflush(out) != 0) rc = dl_error_set(DL_EIO, "flushing the Arrow IPC stream failed: %s", strerror(errno));
	if (w) dl_ipc_writer_free(w);
	dl_batch_stream_free(s);
	return rc;
}
