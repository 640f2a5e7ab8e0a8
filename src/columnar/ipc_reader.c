/* Arrow IPC reader (see ipc_reader.h). Messages are
 * <0xFFFFFFFF><int32 size><Message flatbuffer><body> (or, before Arrow 0.15,
 * <int32 size><Message>...); a size of 0 ends the stream. */
#include "columnar/ipc_reader.h"
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include "columnar/bits.h"
#include "columnar/flatbuf.h"
#include "columnar/ipc_format.h"
#include "deltalake/arrow.h"
#include "util/buf.h"
#include "util/error.h"
#include "util/mem.h"

#define IPC_MAX_DEPTH 64

/* How values of a field are stored, when not as in our layout. */
typedef enum ipc_conv {
	IPC_AS_IS,
	IPC_TS_SECOND,
	IPC_TS_MILLI,
	IPC_TS_NANO,
	IPC_DATE_MILLI,
} ipc_conv;

/* What decoding needs beyond our type, per schema node (the types come
 * from the reader's schema tree, walked alongside). */
typedef struct ipc_field {
	ipc_conv conv;
	int nchildren;
	struct ipc_field *children;
} ipc_field;

struct dl_ipc_reader {
	const uint8_t *data;
	size_t len, pos;
	char *what;
	dl_type *schema;
	ipc_field root;
	bool done;
	int64_t batches;
	bool file;             /* the file format: batches found by footer blocks */
	const uint8_t *blocks; /* the footer's recordBatches Blocks */
	size_t nblocks, next_block;
};

static int corrupt(const dl_ipc_reader *r, const char *what)
{
	return dl_error_set(DL_ECORRUPT, "%s: malformed Arrow IPC data at byte %zu: %s", r->what, r->pos, what);
}

/* ---- schema ---- */

static void field_free(ipc_field *f)
{
	for (int i = 0; i < f->nchildren; i++) field_free(&f->children[i]);
	dl_free(f->children);
	f->children = NULL;
	f->nchildren = 0;
}

/* The value of `key` in a field's custom_metadata, malloc'd, or NULL. */
static char *metadata_value(const dl_fbr *fb, size_t field, const char *key, bool *bad)
{
	size_t vec = dl_fbr_ref(fb, field, FIELD_METADATA, bad);
	size_t n = dl_fbr_vector_len(fb, vec, 4, bad);
	for (size_t i = 0; i < n && !*bad; i++) {
		size_t kv = dl_fbr_vector_ref(fb, vec, i, bad), klen, vlen;
		const char *k = dl_fbr_string(fb, kv, 0, &klen, bad);
		const char *v = dl_fbr_string(fb, kv, 1, &vlen, bad);
		if (k && v && klen == strlen(key) && memcmp(k, key, klen) == 0) return dl_strndup(v, vlen);
	}
	return NULL;
}

static int unsupported(const char *name, const char *what)
{
	return dl_error_set(DL_EUNSUPPORTED, "Arrow IPC field '%s' has type %s, which has no Delta equivalent", name,
	                    what);
}

static int parse_field(const dl_ipc_reader *r, const dl_fbr *fb, size_t pos, dl_field *out, ipc_field *node,
                       int depth);

/* The fields of vector `vec_field` of a table (a nested field's children,
 * a schema's fields) as dl_fields: names, types, flags. */
static int parse_children(const dl_ipc_reader *r, const dl_fbr *fb, size_t pos, int vec_field, ipc_field *node,
                          dl_field **fields, int *n, int depth)
{
	bool bad = false;
	size_t vec = dl_fbr_ref(fb, pos, vec_field, &bad);
	size_t count = dl_fbr_vector_len(fb, vec, 4, &bad);
	if (bad || count > 10000) return corrupt(r, "bad field children");
	*n = (int)count;
	*fields = dl_calloc(count ? count : 1, sizeof(dl_field));
	node->children = dl_calloc(count ? count : 1, sizeof(ipc_field));
	if (!*fields || !node->children) return DL_ENOMEM;
	node->nchildren = (int)count;
	for (size_t i = 0; i < count; i++) {
		size_t child = dl_fbr_vector_ref(fb, vec, i, &bad);
		if (bad) return corrupt(r, "bad child field reference");
		DL_TRY(parse_field(r, fb, child, &(*fields)[i], &node->children[i], depth + 1));
	}
	return 0;
}

static void fields_free(dl_field *f, int n)
{
	if (!f) return;
	for (int i = 0; i < n; i++) {
		dl_free(f[i].name);
		dl_free(f[i].metadata);
		dl_type_unref(f[i].type);
	}
	dl_free(f);
}

/* A nested type from its children (struct, list, map). */
static int nested_type(const dl_ipc_reader *r, uint8_t tag, dl_field *c, int n, const char *name, dl_type **out)
{
	if (tag == TYPE_STRUCT) {
		*out = dl_type_struct(c, n);
	} else if (tag == TYPE_LIST) {
		if (n != 1) return corrupt(r, "list field without exactly one child");
		*out = dl_type_array(c[0].type, c[0].nullable);
	} else {
		if (n != 1 || c[0].type->id != DL_TYPE_STRUCT || c[0].type->nchildren != 2)
			return corrupt(r, "map field without a two-field entries struct");
		const dl_field *kv = c[0].type->children;
		*out = dl_type_map(kv[0].type, kv[1].type, kv[1].nullable);
	}
	(void)name;
	return *out ? 0 : DL_ENOMEM;
}

static int primitive_type(const dl_ipc_reader *r, const dl_fbr *fb, uint8_t tag, size_t t, const char *name,
                          ipc_field *node, dl_type **out)
{
	bool bad = false;
	dl_type_id id;
	switch (tag) {
	case TYPE_NULL: id = DL_TYPE_NULL; break;
	case TYPE_BOOL: id = DL_TYPE_BOOLEAN; break;
	case TYPE_UTF8: id = DL_TYPE_STRING; break;
	case TYPE_BINARY: id = DL_TYPE_BINARY; break;
	case TYPE_INT: {
		int32_t bits = dl_fbr_i32(fb, t, 0, 0, &bad);
		bool sg = dl_fbr_u8(fb, t, 1, 0, &bad) != 0;
		if (!sg) return unsupported(name, "unsigned integer");
		if (bits == 8) id = DL_TYPE_BYTE;
		else if (bits == 16) id = DL_TYPE_SHORT;
		else if (bits == 32) id = DL_TYPE_INTEGER;
		else if (bits == 64) id = DL_TYPE_LONG;
		else return corrupt(r, "integer bit width not 8, 16, 32 or 64");
		break;
	}
	case TYPE_FLOAT: {
		int16_t p = dl_fbr_i16(fb, t, 0, PRECISION_HALF, &bad);
		if (p == PRECISION_SINGLE) id = DL_TYPE_FLOAT;
		else if (p == PRECISION_DOUBLE) id = DL_TYPE_DOUBLE;
		else return unsupported(name, "half float");
		break;
	}
	case TYPE_DECIMAL: {
		int32_t p = dl_fbr_i32(fb, t, 0, 0, &bad), s = dl_fbr_i32(fb, t, 1, 0, &bad);
		if (dl_fbr_i32(fb, t, 2, 128, &bad) != 128) return unsupported(name, "256-bit decimal");
		if (bad || p < 1 || p > 38 || s < 0 || s > p) return corrupt(r, "bad decimal precision or scale");
		*out = dl_type_decimal(p, s);
		return *out ? 0 : DL_ENOMEM;
	}
	case TYPE_DATE:
		id = DL_TYPE_DATE;
		if (dl_fbr_i16(fb, t, 0, DATE_MILLISECOND, &bad) != DATE_DAY) node->conv = IPC_DATE_MILLI;
		break;
	case TYPE_TIMESTAMP: {
		static const ipc_conv units[] = {IPC_TS_SECOND, IPC_TS_MILLI, IPC_AS_IS, IPC_TS_NANO};
		int16_t unit = dl_fbr_i16(fb, t, 0, UNIT_SECOND, &bad);
		size_t tzlen;
		const char *tz = dl_fbr_string(fb, t, 1, &tzlen, &bad);
		if (unit < 0 || unit > 3) return corrupt(r, "bad timestamp unit");
		node->conv = units[unit];
		/* A zone, any zone, means an instant; none means wall-clock time. */
		id = tz && tzlen ? DL_TYPE_TIMESTAMP : DL_TYPE_TIMESTAMP_NTZ;
		break;
	}
	default: {
		char what[32];
		snprintf(what, sizeof what, "#%d", tag);
		return unsupported(name, what);
	}
	}
	if (bad) return corrupt(r, "bad type table");
	*out = dl_type_new(id);
	return *out ? 0 : DL_ENOMEM;
}

static int parse_field(const dl_ipc_reader *r, const dl_fbr *fb, size_t pos, dl_field *out, ipc_field *node,
                       int depth)
{
	if (depth > IPC_MAX_DEPTH) return corrupt(r, "schema nested too deeply");
	bool bad = false;
	size_t nlen;
	const char *name = dl_fbr_string(fb, pos, FIELD_NAME, &nlen, &bad);
	out->name = dl_strndup(name ? name : "", name ? nlen : 0);
	if (!out->name) return DL_ENOMEM;
	out->nullable = dl_fbr_u8(fb, pos, FIELD_NULLABLE, 0, &bad) != 0;
	uint8_t tag = dl_fbr_u8(fb, pos, FIELD_TYPE_TYPE, 0, &bad);
	size_t t = dl_fbr_ref(fb, pos, FIELD_TYPE, &bad);
	if (dl_fbr_field(fb, pos, FIELD_DICTIONARY, 4, &bad))
		return dl_error_set(DL_EUNSUPPORTED, "Arrow IPC field '%s' is dictionary-encoded; not supported", out->name);
	out->metadata = metadata_value(fb, pos, DL_ARROW_DELTA_METADATA_KEY, &bad);
	char *ext = metadata_value(fb, pos, "ARROW:extension:name", &bad);
	bool variant = ext && strcmp(ext, DL_ARROW_VARIANT_EXTENSION) == 0;
	dl_free(ext);
	if (bad || !t) return corrupt(r, "bad field table");
	if (tag == TYPE_STRUCT || tag == TYPE_LIST || tag == TYPE_MAP) {
		dl_field *c = NULL;
		int n = 0;
		int rc = parse_children(r, fb, pos, FIELD_CHILDREN, node, &c, &n, depth);
		if (rc == 0 && variant && (tag != TYPE_STRUCT || n != 2 || c[0].type->id != DL_TYPE_BINARY ||
		                           c[1].type->id != DL_TYPE_BINARY))
			rc = corrupt(r, "variant field is not a struct of two binaries");
		if (rc == 0 && variant) rc = (out->type = dl_type_variant()) ? 0 : DL_ENOMEM;
		else if (rc == 0) rc = nested_type(r, tag, c, n, out->name, &out->type);
		fields_free(c, n);
		DL_TRY(rc);
	} else {
		DL_TRY(primitive_type(r, fb, tag, t, out->name, node, &out->type));
	}
	return 0;
}

/* ---- messages ---- */

typedef struct ipc_message {
	dl_fbr fb;
	size_t msg;    /* Message table */
	uint8_t kind;  /* MessageHeader tag */
	size_t header; /* its table */
	const uint8_t *body;
	int64_t body_len;
} ipc_message;

/* The next message; kind 0 at the end of the stream. */
static int next_message(dl_ipc_reader *r, ipc_message *m)
{
	memset(m, 0, sizeof(*m));
	size_t left = r->len - r->pos;
	if (left == 0) return 0; /* a stream may end without the marker */
	if (left < 4) return corrupt(r, "truncated message header");
	uint32_t word, mlen;
	memcpy(&word, r->data + r->pos, 4);
	size_t head = 4;
	if (word == 0xFFFFFFFFu) {
		if (left < 8) return corrupt(r, "truncated message header");
		memcpy(&mlen, r->data + r->pos + 4, 4);
		head = 8;
	} else {
		mlen = word; /* format before Arrow 0.15: no continuation marker */
	}
	if (mlen == 0) return 0;
	if (mlen > left - head) return corrupt(r, "message metadata longer than the data");
	m->fb = (dl_fbr){r->data + r->pos + head, mlen};
	bool bad = false;
	m->msg = dl_fbr_root(&m->fb);
	int16_t version = dl_fbr_i16(&m->fb, m->msg, MSG_VERSION, 0, &bad);
	m->kind = dl_fbr_u8(&m->fb, m->msg, MSG_HEADER_TYPE, 0, &bad);
	m->header = dl_fbr_ref(&m->fb, m->msg, MSG_HEADER, &bad);
	m->body_len = dl_fbr_i64(&m->fb, m->msg, MSG_BODY_LENGTH, 0, &bad);
	if (bad || !m->msg || !m->header || m->kind == 0) return corrupt(r, "bad Message flatbuffer");
	if (version < METADATA_V4)
		return dl_error_set(DL_EUNSUPPORTED, "%s: Arrow IPC metadata version %d is older than V4", r->what, version);
	size_t rest = left - head - mlen;
	if (m->body_len < 0 || (uint64_t)m->body_len > rest) return corrupt(r, "message body longer than the data");
	m->body = r->data + r->pos + head + mlen;
	r->pos += head + mlen + (size_t)m->body_len;
	return 0;
}

/* ---- record batches ---- */

typedef struct decoder {
	dl_ipc_reader *r;
	const ipc_message *m;
	size_t nodes, nnodes, ni;
	size_t bufs, nbufs, bi;
} decoder;

static int next_node(decoder *d, int64_t *len, int64_t *nulls)
{
	if (d->ni >= d->nnodes) return corrupt(d->r, "fewer field nodes than the schema has fields");
	const uint8_t *p = d->m->fb.buf + d->nodes + 4 + 16 * d->ni++;
	memcpy(len, p, 8);
	memcpy(nulls, p + 8, 8);
	if (*len < 0 || *len > INT32_MAX || *nulls < 0 || *nulls > *len) return corrupt(d->r, "bad field node");
	return 0;
}

/* The next buffer of the body, with at least `need` bytes. */
static int next_buffer(decoder *d, int64_t need, const uint8_t **p, int64_t *len)
{
	if (d->bi >= d->nbufs) return corrupt(d->r, "fewer buffers than the schema needs");
	const uint8_t *b = d->m->fb.buf + d->bufs + 4 + 16 * d->bi++;
	int64_t off;
	memcpy(&off, b, 8);
	memcpy(len, b + 8, 8);
	if (off < 0 || *len < 0 || off > d->m->body_len || *len > d->m->body_len - off)
		return corrupt(d->r, "buffer outside the message body");
	if (*len < need) return corrupt(d->r, "buffer shorter than its array needs");
	*p = d->m->body + off;
	return 0;
}

static void *copy_out(const uint8_t *p, size_t n)
{
	void *q = dl_malloc(n ? n : 1);
	if (q && n) memcpy(q, p, n);
	return q;
}

static int convert_values(decoder *d, dl_array *a, ipc_conv conv, const uint8_t *src)
{
	int w = conv == IPC_DATE_MILLI ? 4 : 8;
	a->values = dl_calloc(a->length ? (size_t)a->length : 1, (size_t)w);
	if (!a->values) return DL_ENOMEM;
	for (int64_t i = 0; i < a->length; i++) {
		if (a->validity && !dl_bit_get(a->validity, i)) continue;
		int64_t v, r = 0;
		memcpy(&v, src + 8 * i, 8);
		bool ovf = false;
		switch (conv) {
		case IPC_TS_SECOND: ovf = __builtin_mul_overflow(v, (int64_t)1000000, &r); break;
		case IPC_TS_MILLI: ovf = __builtin_mul_overflow(v, (int64_t)1000, &r); break;
		case IPC_TS_NANO: r = v / 1000 - (v % 1000 < 0); break;
		default: {
			int64_t days = v / 86400000 - (v % 86400000 < 0);
			if (days < INT32_MIN || days > INT32_MAX) return corrupt(d->r, "date64 out of range");
			((int32_t *)a->values)[i] = (int32_t)days;
			continue;
		}
		}
		if (ovf) return corrupt(d->r, "timestamp out of the microsecond range");
		((int64_t *)a->values)[i] = r;
	}
	return 0;
}

/* Offsets checked (non-decreasing, within `limit`) and rebased to 0 into a
 * new buffer; *first and *last give the range they cover. */
static int read_offsets(decoder *d, dl_array *a, const uint8_t *p, int64_t limit_bytes, bool check_limit,
                        int64_t *first, int64_t *last)
{
	int64_t n = a->length;
	a->offsets = dl_malloc(((size_t)n + 1) * 4);
	if (!a->offsets) return DL_ENOMEM;
	int32_t o0, prev;
	memcpy(&o0, p, 4);
	prev = o0;
	if (o0 < 0) return corrupt(d->r, "negative offset");
	for (int64_t i = 0; i <= n; i++) {
		int32_t o;
		memcpy(&o, p + 4 * i, 4);
		if (o < prev) return corrupt(d->r, "offsets decrease");
		a->offsets[i] = o - o0;
		prev = o;
	}
	if (check_limit && prev > limit_bytes) return corrupt(d->r, "offsets past the data buffer");
	*first = o0;
	*last = prev;
	return 0;
}

static int decode(decoder *d, const ipc_field *f, dl_type *type, dl_array **out, int depth);

/* A child decoded whole, then cut to [start, start+n) if longer. */
static int decode_child(decoder *d, const ipc_field *f, dl_type *type, int64_t start, int64_t n, dl_array **out,
                        int depth)
{
	dl_array *c = NULL;
	int rc = decode(d, f, type, &c, depth + 1);
	if (rc < 0) {
		dl_array_free(c); /* partly decoded */
		return rc;
	}
	*out = c;
	if (start == 0 && c->length == n) return 0;
	if (start + n > c->length) return corrupt(d->r, "child array shorter than its parent needs");
	*out = dl_array_slice(c, start, n);
	dl_array_free(c);
	return *out ? 0 : DL_ENOMEM;
}

static int decode_nested(decoder *d, const ipc_field *f, dl_array *a, const uint8_t *offs, int depth)
{
	dl_type *t = a->type;
	if (t->id == DL_TYPE_STRUCT || t->id == DL_TYPE_VARIANT) {
		if (f->nchildren != t->nchildren) return corrupt(d->r, "struct children do not match the schema");
		a->children = dl_calloc((size_t)(t->nchildren ? t->nchildren : 1), sizeof(dl_array *));
		if (!a->children) return DL_ENOMEM;
		a->nchildren = t->nchildren;
		for (int i = 0; i < t->nchildren; i++)
			DL_TRY(decode_child(d, &f->children[i], t->children[i].type, 0, a->length, &a->children[i], depth));
		return 0;
	}
	int64_t first, last;
	DL_TRY(read_offsets(d, a, offs, 0, false, &first, &last));
	a->children = dl_calloc(1, sizeof(dl_array *));
	if (!a->children) return DL_ENOMEM;
	a->nchildren = 1;
	if (f->nchildren != 1) return corrupt(d->r, "list without one child");
	dl_type *ct = t->children[0].type;
	if (t->id == DL_TYPE_MAP) {
		dl_field kv[2] = {t->children[0], t->children[1]};
		kv[0].nullable = false;
		if (!(ct = dl_type_struct(kv, 2))) return DL_ENOMEM;
		int rc = decode_child(d, &f->children[0], ct, first, last - first, &a->children[0], depth);
		dl_type_unref(ct);
		return rc;
	}
	return decode_child(d, &f->children[0], ct, first, last - first, &a->children[0], depth);
}

static int decode(decoder *d, const ipc_field *f, dl_type *type, dl_array **out, int depth)
{
	if (depth > IPC_MAX_DEPTH) return corrupt(d->r, "arrays nested too deeply");
	int64_t len = 0, nulls = 0;
	DL_TRY(next_node(d, &len, &nulls));
	dl_array *a = dl_calloc(1, sizeof(*a));
	if (!a) return DL_ENOMEM;
	*out = a;
	a->type = dl_type_ref(type);
	a->length = len;
	if (type->id == DL_TYPE_NULL) {
		a->null_count = len;
		return 0;
	}
	const uint8_t *p;
	int64_t blen;
	DL_TRY(next_buffer(d, nulls ? (len + 7) / 8 : 0, &p, &blen));
	a->null_count = nulls;
	if (nulls && !(a->validity = copy_out(p, (size_t)(len + 7) / 8))) return DL_ENOMEM;
	int w = dl_type_fixed_width(type);
	switch (type->id) {
	case DL_TYPE_BOOLEAN:
		DL_TRY(next_buffer(d, (len + 7) / 8, &p, &blen));
		return (a->values = copy_out(p, (size_t)(len + 7) / 8)) ? 0 : DL_ENOMEM;
	case DL_TYPE_STRING:
	case DL_TYPE_BINARY: {
		const uint8_t *offs, *data;
		int64_t dlen, first, last;
		DL_TRY(next_buffer(d, (len + 1) * 4, &offs, &blen));
		DL_TRY(next_buffer(d, 0, &data, &dlen));
		DL_TRY(read_offsets(d, a, offs, dlen, true, &first, &last));
		a->data_len = last - first;
		return (a->data = copy_out(data + first, (size_t)a->data_len)) ? 0 : DL_ENOMEM;
	}
	case DL_TYPE_ARRAY:
	case DL_TYPE_MAP:
		DL_TRY(next_buffer(d, (len + 1) * 4, &p, &blen));
		return decode_nested(d, f, a, p, depth);
	case DL_TYPE_STRUCT:
	case DL_TYPE_VARIANT:
		return decode_nested(d, f, a, NULL, depth);
	default:
		if (f->conv != IPC_AS_IS) {
			DL_TRY(next_buffer(d, len * 8, &p, &blen));
			return convert_values(d, a, f->conv, p);
		}
		DL_TRY(next_buffer(d, len * w, &p, &blen));
		return (a->values = copy_out(p, (size_t)(len * w))) ? 0 : DL_ENOMEM;
	}
}

static int read_batch(dl_ipc_reader *r, const ipc_message *m, dl_batch **out)
{
	bool bad = false;
	const dl_fbr *fb = &m->fb;
	if (dl_fbr_field(fb, m->header, RB_COMPRESSION, 4, &bad))
		return dl_error_set(DL_EUNSUPPORTED, "%s: compressed Arrow IPC record batches are not supported", r->what);
	int64_t rows = dl_fbr_i64(fb, m->header, RB_LENGTH, 0, &bad);
	decoder d = {r, m, 0, 0, 0, 0, 0, 0};
	d.nodes = dl_fbr_ref(fb, m->header, RB_NODES, &bad);
	d.nnodes = dl_fbr_vector_len(fb, d.nodes, 16, &bad);
	d.bufs = dl_fbr_ref(fb, m->header, RB_BUFFERS, &bad);
	d.nbufs = dl_fbr_vector_len(fb, d.bufs, 16, &bad);
	if (bad || rows < 0 || rows > INT32_MAX) return corrupt(r, "bad RecordBatch");
	dl_batch *b = dl_batch_new(r->schema, rows);
	if (!b) return DL_ENOMEM;
	for (int i = 0; i < b->ncols; i++) {
		dl_type *ct = r->schema->children[i].type;
		int rc = decode(&d, &r->root.children[i], ct, &b->cols[i], 0);
		if (rc == 0 && b->cols[i]->length != rows) rc = corrupt(r, "column length differs from the batch's");
		if (rc < 0) {
			dl_batch_free(b);
			return rc;
		}
	}
	*out = b;
	return 0;
}

static int next_block(dl_ipc_reader *r, ipc_message *m);

int dl_ipc_reader_next(dl_ipc_reader *r, dl_batch **out)
{
	*out = NULL;
	while (!r->done) {
		ipc_message m;
		DL_TRY(r->file ? next_block(r, &m) : next_message(r, &m));
		if (m.kind == 0) {
			r->done = true;
			break;
		}
		if (m.kind == HEADER_DICTIONARY_BATCH)
			return dl_error_set(DL_EUNSUPPORTED, "%s: Arrow IPC dictionary batches are not supported", r->what);
		if (m.kind != HEADER_RECORD_BATCH) return corrupt(r, "unexpected message type");
		r->batches++;
		return read_batch(r, &m, out);
	}
	return 0;
}

static int parse_schema(dl_ipc_reader *r, const dl_fbr *fb, size_t table)
{
	bool bad = false;
	if (dl_fbr_i16(fb, table, SCHEMA_ENDIANNESS, 0, &bad) != 0)
		return dl_error_set(DL_EUNSUPPORTED, "%s: big-endian Arrow IPC data is not supported", r->what);
	/* The schema is the children of an unnamed struct. */
	dl_field *fields = NULL;
	int n = 0;
	int rc = parse_children(r, fb, table, SCHEMA_FIELDS, &r->root, &fields, &n, 0);
	if (rc == 0 && !(r->schema = dl_type_struct(fields, n))) rc = DL_ENOMEM;
	fields_free(fields, n);
	return rc;
}

static int read_schema(dl_ipc_reader *r)
{
	ipc_message m;
	DL_TRY(next_message(r, &m));
	if (m.kind != HEADER_SCHEMA) return corrupt(r, "the stream does not start with a Schema message");
	return parse_schema(r, &m.fb, m.header);
}

/* The file format: "ARROW1" + padding, messages, then the Footer
 * flatbuffer (File.fbs: version, schema, dictionaries, recordBatches),
 * its int32 size and "ARROW1". Batches are found through the footer's
 * blocks {offset: long, metaDataLength: int, bodyLength: long}. */
static int read_footer(dl_ipc_reader *r)
{
	int32_t flen;
	memcpy(&flen, r->data + r->len - 10, 4);
	if (flen <= 0 || (size_t)flen > r->len - 18) return corrupt(r, "bad file footer size");
	r->pos = r->len - 10 - (size_t)flen;
	dl_fbr fb = {r->data + r->pos, (size_t)flen};
	bool bad = false;
	size_t footer = dl_fbr_root(&fb);
	size_t schema = dl_fbr_ref(&fb, footer, 1, &bad);
	if (dl_fbr_ref(&fb, footer, 2, &bad) && dl_fbr_vector_len(&fb, dl_fbr_ref(&fb, footer, 2, &bad), 24, &bad))
		return dl_error_set(DL_EUNSUPPORTED, "%s: Arrow IPC dictionary batches are not supported", r->what);
	size_t blocks = dl_fbr_ref(&fb, footer, 3, &bad);
	r->nblocks = dl_fbr_vector_len(&fb, blocks, 24, &bad);
	if (bad || !footer || !schema) return corrupt(r, "bad file footer");
	r->blocks = r->data + r->pos + blocks + 4;
	return parse_schema(r, &fb, schema);
}

/* File format: the message of the next footer block. */
static int next_block(dl_ipc_reader *r, ipc_message *m)
{
	memset(m, 0, sizeof(*m));
	if (r->next_block >= r->nblocks) return 0;
	int64_t off;
	memcpy(&off, r->blocks + 24 * r->next_block++, 8);
	if (off < 8 || (uint64_t)off >= r->len) return corrupt(r, "file block offset out of range");
	r->pos = (size_t)off;
	DL_TRY(next_message(r, m));
	if (m->kind == 0) return corrupt(r, "file block without a message");
	return 0;
}

int dl_ipc_reader_open(dl_ipc_reader **out, const uint8_t *data, size_t len, const char *what)
{
	*out = NULL;
	dl_ipc_reader *r = dl_calloc(1, sizeof(*r));
	if (!r) return DL_ENOMEM;
	r->data = data;
	r->len = len;
	r->what = dl_strdup(what ? what : "Arrow IPC stream");
	if (!r->what) {
		dl_free(r);
		return DL_ENOMEM;
	}
	int rc;
	if (len >= 18 && memcmp(data, "ARROW1", 6) == 0 && memcmp(data + len - 6, "ARROW1", 6) == 0) {
		r->file = true;
		rc = read_footer(r);
	} else {
		/* A stream, possibly behind the file magic (a file without its
		 * footer yet, as written so far). */
		if (len >= 8 && memcmp(data, "ARROW1", 6) == 0) r->pos = 8;
		rc = read_schema(r);
	}
	if (rc < 0) {
		dl_ipc_reader_free(r);
		return rc;
	}
	*out = r;
	return 0;
}

const dl_type *dl_ipc_reader_schema(const dl_ipc_reader *r)
{
	return r->schema;
}

void dl_ipc_reader_free(dl_ipc_reader *r)
{
	if (!r) return;
	field_free(&r->root);
	dl_type_unref(r->schema);
	dl_free(r->what);
	dl_free(r);
}

/* ---- as a batch stream ---- */

typedef struct ipc_stream {
	dl_ipc_reader *reader;
	uint8_t *data;
} ipc_stream;

static const dl_type *ipcs_schema(dl_batch_stream *s)
{
	return ((ipc_stream *)s->private_data)->reader->schema;
}

static int ipcs_next(dl_batch_stream *s, dl_batch **out)
{
	return dl_ipc_reader_next(((ipc_stream *)s->private_data)->reader, out);
}

static void ipcs_release(dl_batch_stream *s)
{
	ipc_stream *p = s->private_data;
	dl_ipc_reader_free(p->reader);
	dl_free(p->data);
	dl_free(p);
	dl_free(s);
}

int dl_ipc_reader_stream(dl_batch_stream **out, uint8_t *data, size_t len, const char *what)
{
	*out = NULL;
	dl_batch_stream *s = dl_calloc(1, sizeof(*s));
	ipc_stream *p = s ? dl_calloc(1, sizeof(*p)) : NULL;
	int rc = p ? dl_ipc_reader_open(&p->reader, data, len, what) : DL_ENOMEM;
	if (rc < 0) {
		dl_free(p);
		dl_free(s);
		dl_free(data);
		return rc;
	}
	p->data = data;
	s->private_data = p;
	s->schema = ipcs_schema;
	s->next = ipcs_next;
	s->release = ipcs_release;
	*out = s;
	return 0;
}

int dl_arrow_ipc_read_stream(struct ArrowArrayStream *out, FILE *in)
{
	memset(out, 0, sizeof(*out));
	dl_buf buf = DL_BUF_INIT;
	char chunk[65536];
	size_t n;
	int rc = 0;
	while (rc == 0 && (n = fread(chunk, 1, sizeof chunk, in)) > 0) rc = dl_buf_append(&buf, chunk, n);
	if (rc < 0) {
		dl_buf_free(&buf);
		return rc;
	}
	if (ferror(in)) {
		dl_buf_free(&buf);
		return dl_error_set(DL_EIO, "reading the Arrow IPC stream failed");
	}
	size_t len;
	uint8_t *data = (uint8_t *)dl_buf_detach(&buf, &len);
	dl_batch_stream *s;
	DL_TRY(dl_ipc_reader_stream(&s, data, len, "Arrow IPC input"));
	return dl_batch_stream_export(out, s);
}
