/* Export to the Arrow C Data Interface: schemas and arrays handed over
 * without copying buffers. */
#include <stdio.h>
#include <string.h>
#include "columnar/arrow_c.h"
#include "columnar/geo_type.h"
#include "util/error.h"
#include "util/mem.h"

/* Buffers the C Data Interface wants non-NULL even when empty (values of a
 * zero-length array, the data of all-empty strings) point here. */
static const int64_t zero_buffer[8] __attribute__((aligned(64)));

void dl_arrow_schema_release(struct ArrowSchema *schema)
{
	if (schema && schema->release) schema->release(schema);
}

void dl_arrow_array_release(struct ArrowArray *array)
{
	if (array && array->release) array->release(array);
}

void dl_arrow_stream_release(struct ArrowArrayStream *stream)
{
	if (stream && stream->release) stream->release(stream);
}

int dl_arrow_format(const dl_type *t, char *out, size_t cap)
{
	static const char *const fmt[] = {
		[DL_TYPE_NULL] = "n",      [DL_TYPE_BOOLEAN] = "b", [DL_TYPE_BYTE] = "c",
		[DL_TYPE_SHORT] = "s",     [DL_TYPE_INTEGER] = "i", [DL_TYPE_LONG] = "l",
		[DL_TYPE_FLOAT] = "f",     [DL_TYPE_DOUBLE] = "g",  [DL_TYPE_STRING] = "u",
		[DL_TYPE_BINARY] = "z",    [DL_TYPE_DATE] = "tdD",  [DL_TYPE_TIMESTAMP] = "tsu:UTC",
		[DL_TYPE_TIMESTAMP_NTZ] = "tsu:", [DL_TYPE_STRUCT] = "+s", [DL_TYPE_ARRAY] = "+l",
		[DL_TYPE_MAP] = "+m",      [DL_TYPE_VARIANT] = "+s",
	};
	int n;
	if (t->id == DL_TYPE_DECIMAL) n = snprintf(out, cap, "d:%d,%d", t->precision, t->scale);
	else if ((int)t->id >= 0 && t->id <= DL_TYPE_VARIANT) n = snprintf(out, cap, "%s", fmt[t->id]);
	else return dl_error_set(DL_EINVALID, "no Arrow format for type id %d", (int)t->id);
	if (n < 0 || (size_t)n >= cap) return dl_error_set(DL_EINVALID, "Arrow format buffer too small");
	return 0;
}

/* ---- schemas ---- */

typedef struct schema_private {
	char format[32];
	char *name;
	char *metadata; /* the spec's binary key/value encoding, or NULL */
	struct ArrowSchema **child_ptrs;
	struct ArrowSchema *children;
} schema_private;

static void schema_release(struct ArrowSchema *s)
{
	if (!s || !s->release) return;
	schema_private *p = s->private_data;
	for (int64_t i = 0; i < s->n_children; i++) {
		/* Children moved out by the consumer are already released. */
		if (p->children[i].release) p->children[i].release(&p->children[i]);
	}
	dl_free(p->child_ptrs);
	dl_free(p->children);
	dl_free(p->name);
	dl_free(p->metadata);
	dl_free(p);
	s->release = NULL;
}

static void put_i32(char **w, int32_t v)
{
	memcpy(*w, &v, 4); /* native endianness, as the spec says */
	*w += 4;
}

static void put_str(char **w, const char *s)
{
	size_t n = strlen(s);
	put_i32(w, (int32_t)n);
	memcpy(*w, s, n);
	*w += n;
}

/* Encodes up to 3 key/value pairs (NULL keys are skipped). */
static char *encode_metadata(const char *const kv[][2], int n)
{
	size_t size = 4;
	int32_t count = 0;
	for (int i = 0; i < n; i++) {
		if (!kv[i][0]) continue;
		size += 8 + strlen(kv[i][0]) + strlen(kv[i][1]);
		count++;
	}
	if (count == 0) return NULL;
	char *buf = dl_malloc(size), *w = buf;
	if (!buf) return NULL;
	put_i32(&w, count);
	for (int i = 0; i < n; i++) {
		if (!kv[i][0]) continue;
		put_str(&w, kv[i][0]);
		put_str(&w, kv[i][1]);
	}
	return buf;
}

static bool has_metadata(const char *json)
{
	if (!json) return false;
	for (const char *p = json; *p; p++) {
		if (*p == '{' || *p == '}' || *p == ' ' || *p == '\t' || *p == '\n' || *p == '\r') continue;
		return true;
	}
	return false;
}

static int export_field_rec(struct ArrowSchema *out, const dl_type *t, const char *name, bool nullable,
                            const char *metadata, int64_t extra_flags);

static int export_children(struct ArrowSchema *out, schema_private *p, const dl_type *t)
{
	int n = t->id == DL_TYPE_MAP ? 1 : t->nchildren;
	p->children = dl_calloc((size_t)(n ? n : 1), sizeof(struct ArrowSchema));
	p->child_ptrs = dl_calloc((size_t)(n ? n : 1), sizeof(struct ArrowSchema *));
	if (!p->children || !p->child_ptrs) return DL_ENOMEM;
	for (int i = 0; i < n; i++) p->child_ptrs[i] = &p->children[i];
	out->children = p->child_ptrs;
	if (t->id == DL_TYPE_MAP) {
		/* Arrow's map: list of non-null struct "entries" {key not null, value}. */
		dl_type *entries = dl_type_map_entries(t);
		if (!entries) return DL_ENOMEM;
		out->n_children = 1;
		int rc = export_field_rec(&p->children[0], entries, "entries", false, NULL, 0);
		dl_type_unref(entries);
		return rc;
	}
	for (int i = 0; i < n; i++) {
		const dl_field *f = &t->children[i];
		out->n_children = i + 1; /* released with the parent even if incomplete */
		DL_TRY(export_field_rec(&p->children[i], f->type, f->name, f->nullable, f->metadata, 0));
	}
	return 0;
}

static int export_field_rec(struct ArrowSchema *out, const dl_type *t, const char *name, bool nullable,
                            const char *metadata, int64_t extra_flags)
{
	memset(out, 0, sizeof(*out));
	schema_private *p = dl_calloc(1, sizeof(*p));
	if (!p) return DL_ENOMEM;
	out->private_data = p;
	out->release = schema_release;
	DL_TRY(dl_arrow_format(t, p->format, sizeof(p->format)));
	out->format = p->format;
	if (!(p->name = dl_strdup(name ? name : ""))) return DL_ENOMEM;
	out->name = p->name;
	out->flags = (nullable ? ARROW_FLAG_NULLABLE : 0) | extra_flags;
	/* Geospatial WKB columns are tagged as GeoArrow's geoarrow.wkb. */
	char *geo_meta = NULL;
	if (t->geo) DL_TRY(dl_geo_arrow_metadata(&geo_meta, t->geo));
	bool ext = t->id == DL_TYPE_VARIANT || geo_meta;
	const char *const kv[3][2] = {
		{has_metadata(metadata) ? DL_ARROW_DELTA_METADATA_KEY : NULL, metadata},
		{ext ? "ARROW:extension:name" : NULL, geo_meta ? DL_GEOARROW_WKB_EXTENSION : DL_ARROW_VARIANT_EXTENSION},
		{ext ? "ARROW:extension:metadata" : NULL, geo_meta ? geo_meta : ""},
	};
	p->metadata = encode_metadata(kv, 3);
	dl_free(geo_meta);
	if (!p->metadata && (kv[0][0] || kv[1][0])) return DL_ENOMEM;
	out->metadata = p->metadata;
	if (t->id == DL_TYPE_STRUCT || t->id == DL_TYPE_ARRAY || t->id == DL_TYPE_MAP || t->id == DL_TYPE_VARIANT)
		return export_children(out, p, t);
	return 0;
}

int dl_arrow_export_field(struct ArrowSchema *out, const dl_type *t, const char *name, bool nullable,
                          const char *metadata)
{
	int rc = export_field_rec(out, t, name, nullable, metadata, 0);
	if (rc < 0) schema_release(out);
	return rc;
}

int dl_arrow_export_schema(struct ArrowSchema *out, const dl_type *schema)
{
	if (schema->id != DL_TYPE_STRUCT)
		return dl_error_set(DL_EINVALID, "a batch schema must be a struct, not %s", dl_type_id_name(schema->id));
	return dl_arrow_export_field(out, schema, "", false, NULL);
}

/* ---- arrays ---- */

/* The exported tree shares one holder owning the dl_array; each ArrowArray
 * node holds a reference, so the consumer may release moved children after
 * the parent. */
typedef struct export_holder {
	int refcount;
	dl_array *root;
} export_holder;

typedef struct array_private {
	export_holder *holder;
	const void *buffers[3];
	struct ArrowArray **child_ptrs;
	struct ArrowArray *children;
} array_private;

static void holder_unref(export_holder *h)
{
	if (__atomic_sub_fetch(&h->refcount, 1, __ATOMIC_ACQ_REL) != 0) return;
	dl_array_free(h->root);
	dl_free(h);
}

static void array_release(struct ArrowArray *a)
{
	if (!a || !a->release) return;
	array_private *p = a->private_data;
	for (int64_t i = 0; i < a->n_children; i++)
		if (p->children[i].release) p->children[i].release(&p->children[i]);
	dl_free(p->child_ptrs);
	dl_free(p->children);
	holder_unref(p->holder);
	dl_free(p);
	a->release = NULL;
}

static const void *nonnull(const void *p, int64_t length, const char *what, int *rc)
{
	if (p) return p;
	if (length > 0) *rc = dl_error_set(DL_EINVALID, "array of %lld rows has no %s buffer", (long long)length, what);
	return zero_buffer;
}

static int set_buffers(struct ArrowArray *out, array_private *p, dl_array *a)
{
	int rc = 0;
	p->buffers[0] = out->null_count > 0 ? a->validity : NULL;
	switch (a->type->id) {
	case DL_TYPE_NULL:
		out->n_buffers = 0;
		break;
	case DL_TYPE_STRUCT:
	case DL_TYPE_VARIANT:
		out->n_buffers = 1;
		break;
	case DL_TYPE_STRING:
	case DL_TYPE_BINARY:
		out->n_buffers = 3;
		p->buffers[1] = nonnull(a->offsets, a->length + 1, "offsets", &rc);
		p->buffers[2] = a->data ? a->data : (const void *)zero_buffer;
		break;
	case DL_TYPE_ARRAY:
	case DL_TYPE_MAP:
		out->n_buffers = 2;
		p->buffers[1] = nonnull(a->offsets, a->length + 1, "offsets", &rc);
		break;
	default:
		out->n_buffers = 2;
		p->buffers[1] = nonnull(a->values, a->length, "values", &rc);
	}
	out->buffers = p->buffers;
	return rc;
}

static int export_node(struct ArrowArray *out, dl_array *a, export_holder *h)
{
	memset(out, 0, sizeof(*out));
	array_private *p = dl_calloc(1, sizeof(*p));
	if (!p) return DL_ENOMEM;
	__atomic_fetch_add(&h->refcount, 1, __ATOMIC_RELAXED);
	p->holder = h;
	out->private_data = p;
	out->release = array_release;
	out->length = a->length;
	out->null_count = dl_array_null_count(a);
	if (out->null_count > 0 && !a->validity && a->type->id != DL_TYPE_NULL)
		return dl_error_set(DL_EINVALID, "array counts nulls but has no validity bitmap");
	DL_TRY(set_buffers(out, p, a));
	if (a->nchildren == 0) return 0;
	p->children = dl_calloc((size_t)a->nchildren, sizeof(struct ArrowArray));
	p->child_ptrs = dl_calloc((size_t)a->nchildren, sizeof(struct ArrowArray *));
	if (!p->children || !p->child_ptrs) return DL_ENOMEM;
	out->children = p->child_ptrs;
	for (int i = 0; i < a->nchildren; i++) {
		p->child_ptrs[i] = &p->children[i];
		out->n_children = i + 1;
		DL_TRY(export_node(&p->children[i], a->children[i], h));
	}
	return 0;
}

int dl_arrow_export_array(struct ArrowArray *out, dl_array *a)
{
	export_holder *h = dl_calloc(1, sizeof(*h));
	if (!h) {
		dl_array_free(a);
		memset(out, 0, sizeof(*out));
		return DL_ENOMEM;
	}
	h->refcount = 1;
	h->root = a;
	int rc = export_node(out, a, h);
	if (rc < 0) array_release(out);
	holder_unref(h);
	return rc;
}

int dl_arrow_export_batch(struct ArrowArray *out, dl_batch *b)
{
	int rc = dl_batch_validate(b);
	dl_array *a = rc < 0 ? NULL : dl_calloc(1, sizeof(*a));
	if (!a) {
		dl_batch_free(b);
		memset(out, 0, sizeof(*out));
		return rc < 0 ? rc : DL_ENOMEM;
	}
	/* The batch becomes a struct array: its columns are the children. */
	a->type = b->schema;
	a->length = b->num_rows;
	a->null_count = 0;
	a->nchildren = b->ncols;
	a->children = b->cols;
	dl_free(b);
	return dl_arrow_export_array(out, a);
}
